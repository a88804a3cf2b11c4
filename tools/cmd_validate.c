/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * syncemu validate: read a capture, rebuild its syncs, and hold them against the model.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <sys/mman.h>

#include <jansson.h>
#include <pcap/pcap.h>

#include "cli.h"
#include "kernel.h"
#include "opts.h"
#include "reader.h"
#include "scenario.h"
#include "syncs.h"
#include "table.h"
#include "units.h"
#include "validate.h"
#include "variant.h"

struct val_opts {
	const char *sets[CLI_MAX_SETS];
	unsigned int nsets;
	const char *scenario;
	const char *filter;
	char *filter_owned;
	double gap, period, alpha, beta, tolerance;
	char gap_opt[32], period_opt[32];	/* as typed, when given */
	char variant_opt[32], budget_opt[32];
	bool generic, payload, json, help, have_alpha, have_beta;
	unsigned int variants, budgets;
};

enum { O_SCEN, O_SET, O_GENERIC, O_FILTER, O_HOSTS, O_PORTS, O_GAP, O_PERIOD, O_BYTES, O_ALPHA,
       O_BETA, O_VARIANT, O_BUDGET, O_TOL, O_JSON, O_HELP };

static const struct opt val_optv[] = {
	{ "scenario", 's', "FILE", "the model's scenario [a syncemu trace's own; else none]",
	  O_SCEN },
	{ "set", 0, "SECTION.KEY=VALUE", "override a scenario key (repeatable)", O_SET },
	{ "generic", 'g', NULL, "ignore syncemu headers: cut the trace into bursts", O_GENERIC },
	{ "filter", 'f', "BPF", "select packets with a libpcap filter, e.g. 'tcp and host 10.0.0.1'",
	  O_FILTER },
	{ "hosts", 0, "A,B,...", "select packets between these IPv4/IPv6 addresses", O_HOSTS },
	{ "ports", 0, "P,Q,...", "select packets to or from these ports (0..65535)", O_PORTS },
	{ "gap", 0, "TIME", "an idle gap this long ends a burst [automatic]", O_GAP },
	{ "period", 0, "TIME", "cut into periods of this length instead of at gaps (not with "
	  "--gap)", O_PERIOD },
	{ "bytes", 0, "wire|payload", "count frame bytes or TCP/UDP payload [wire]", O_BYTES },
	{ "alpha", 0, "TIME", "latency of a given alpha-beta model [fitted]", O_ALPHA },
	{ "beta", 0, "RATE", "bandwidth of a given alpha-beta model [fitted]", O_BETA },
	{ "variant", 'v', "V", "compare bursts with this variant's sync (needs --scenario)",
	  O_VARIANT },
	{ "budget", 'b', "B", "its module budget (needs --variant) [free]", O_BUDGET },
	{ "tolerance", 't', "PERCENT", "exit 4 if any step or burst is off by more", O_TOL },
	{ "json", 'j', NULL, "print JSON instead of text", O_JSON },
	{ "help", 'h', NULL, "show this help", O_HELP },
};

#define N_OPTS (sizeof(val_optv) / sizeof(val_optv[0]))

/* One item of --hosts (an IPv4 or IPv6 address) or --ports (a port, 0..65535), strictly. */
static int
list_item(bool port, const char *item, char *err, size_t errlen)
{
	unsigned char addr[sizeof(struct in6_addr)];
	size_t n = strspn(item, "0123456789");

	if (item[0] == '\0') {
		snprintf(err, errlen, "%s: an empty item in the list", opts_spelling());
		return -EINVAL;
	}
	if (port && (n == 0 || item[n] != '\0' || n > 5 || strtoul(item, NULL, 10) > 65535)) {
		snprintf(err, errlen, "%s: '%s' is not a port (allowed: 0..65535, separated by "
			 "commas)", opts_spelling(), item);
		return -EINVAL;
	}
	if (!port && inet_pton(AF_INET, item, addr) != 1 && inet_pton(AF_INET6, item, addr) != 1) {
		snprintf(err, errlen, "%s: '%s' is not an IPv4 or IPv6 address (e.g. 10.0.0.1, "
			 "fd00::1; separated by commas)", opts_spelling(), item);
		return -EINVAL;
	}
	return 0;
}

/* "a,b" -> "(host a or host b)" (or port), and-ed with what --hosts or --ports gave before. */
static int
list_filter(struct val_opts *o, const char *word, const char *arg, char *err, size_t errlen)
{
	const char *p = arg, *comma;
	char *f = NULL, *n, item[64];
	int rc = 0;

	do {
		size_t len;

		comma = strchr(p, ',');
		len = comma != NULL ? (size_t)(comma - p) : strlen(p);
		if (len >= sizeof(item)) {
			snprintf(err, errlen, "%s: '%.*s' is too long for one %s", opts_spelling(),
				 (int)len, p, word);
			rc = -EINVAL;
			break;
		}
		snprintf(item, sizeof(item), "%.*s", (int)len, p);
		rc = list_item(strcmp(word, "port") == 0, item, err, errlen);
		if (rc != 0)
			break;
		if (asprintf(&n, "%s%s%s %s", f ? f : "(", f ? " or " : "", word, item) < 0) {
			rc = -ENOMEM;
			break;
		}
		free(f);
		f = n;
		p = comma != NULL ? comma + 1 : NULL;
	} while (p != NULL);
	if (rc == 0) {
		if (asprintf(&n, "%s%s%s)", o->filter_owned ? o->filter_owned : "",
			     o->filter_owned ? " and " : "", f) < 0) {
			rc = -ENOMEM;
		} else {
			free(o->filter_owned);
			o->filter_owned = n;
		}
	}
	free(f);
	return rc;
}

/*
 * A libpcap filter, compiled now for Ethernet frames so that a bad one is a bad command line
 * with libpcap's reason.  (A filter that only some other link type cannot take, e.g. 'ether
 * host' on raw IP frames, is found when the trace is read: a trace error.)
 */
static int
filter_check(const char *arg, char *err, size_t errlen)
{
	pcap_t *dead = pcap_open_dead(DLT_EN10MB, 262144);
	struct bpf_program prog;
	int rc = 0;

	if (dead == NULL) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	if (pcap_compile(dead, &prog, arg, 1, PCAP_NETMASK_UNKNOWN) != 0) {
		snprintf(err, errlen, "%s '%s': %s", opts_spelling(), arg, pcap_geterr(dead));
		rc = -EINVAL;
	} else {
		pcap_freecode(&prog);
	}
	pcap_close(dead);
	return rc;
}

/* validate compares with one variant and one budget: a list of more is refused. */
static int
one_of(unsigned int mask, const char *arg, const char *what, char *err, size_t errlen)
{
	if (mask & (mask - 1)) {
		snprintf(err, errlen, "%s '%s': one %s (the bursts are compared with one sync)",
			 opts_spelling(), arg, what);
		return -EINVAL;
	}
	return 0;
}

static int
val_opt(void *ctx, int id, const char *arg, char *err, size_t errlen)
{
	struct val_opts *o = ctx;
	char *end;

	switch (id) {
	case O_SCEN:
		o->scenario = arg;
		return 0;
	case O_SET:
		return cli_add_set(o->sets, &o->nsets, arg, err, errlen);
	case O_GENERIC:
		o->generic = true;
		return 0;
	case O_FILTER:
		if (filter_check(arg, err, errlen) != 0)
			return -EINVAL;
		o->filter = arg;
		return 0;
	case O_HOSTS:
		return list_filter(o, "host", arg, err, errlen);
	case O_PORTS:
		return list_filter(o, "port", arg, err, errlen);
	case O_GAP:
		snprintf(o->gap_opt, sizeof(o->gap_opt), "%s", opts_spelling());
		return sc_unit_parse(SC_UNIT_TIME, arg, &o->gap, err, errlen) != 0 || !(o->gap > 0) ?
			(snprintf(err, errlen, "%s: '%s' is not a time > 0", opts_spelling(), arg),
			 -EINVAL) : 0;
	case O_PERIOD:
		snprintf(o->period_opt, sizeof(o->period_opt), "%s", opts_spelling());
		return sc_unit_parse(SC_UNIT_TIME, arg, &o->period, err, errlen) != 0 ||
			!(o->period > 0) ?
			(snprintf(err, errlen, "%s: '%s' is not a time > 0", opts_spelling(), arg),
			 -EINVAL) : 0;
	case O_BYTES:
		if (strcmp(arg, "wire") != 0 && strcmp(arg, "payload") != 0) {
			snprintf(err, errlen, "%s: '%s' (allowed: wire, payload)", opts_spelling(),
				 arg);
			return -EINVAL;
		}
		o->payload = strcmp(arg, "payload") == 0;
		return 0;
	case O_ALPHA:
		o->have_alpha = true;
		return sc_unit_parse(SC_UNIT_TIME, arg, &o->alpha, err, errlen) != 0 ||
			o->alpha < 0 ?
			(snprintf(err, errlen, "%s: '%s' is not a time >= 0", opts_spelling(), arg),
			 -EINVAL) : 0;
	case O_BETA:
		o->have_beta = true;
		return sc_unit_parse(SC_UNIT_BYTE_RATE, arg, &o->beta, err, errlen) != 0 ||
			!(o->beta > 0) ?
			(snprintf(err, errlen, "%s: '%s' is not a rate > 0 (e.g. 12.5MB/s)",
				  opts_spelling(), arg), -EINVAL) : 0;
	case O_VARIANT:
		snprintf(o->variant_opt, sizeof(o->variant_opt), "%s", opts_spelling());
		if (cli_parse_variants(arg, &o->variants, err, errlen) != 0)
			return -EINVAL;
		return one_of(o->variants, arg, "variant", err, errlen);
	case O_BUDGET:
		snprintf(o->budget_opt, sizeof(o->budget_opt), "%s", opts_spelling());
		if (cli_parse_budgets(arg, &o->budgets, err, errlen) != 0)
			return -EINVAL;
		return one_of(o->budgets, arg, "budget", err, errlen);
	case O_TOL:
		o->tolerance = strtod(arg, &end);
		if (end == arg || *end != '\0' || !(o->tolerance >= 0) || !isfinite(o->tolerance)) {
			snprintf(err, errlen, "%s: '%s' is not a percentage >= 0", opts_spelling(),
				 arg);
			return -EINVAL;
		}
		return 0;
	case O_JSON:
		o->json = true;
		return 0;
	case O_HELP:
		o->help = true;
		return 0;
	}
	return -EINVAL;
}

static void
val_usage(FILE *f)
{
	opts_usage(f, "syncemu validate TRACE [options]",
		   "Read a capture (pcap or pcapng, us or ns timestamps, gzip or not; Ethernet, raw\n"
		   "IP, Linux cooked or loopback frames), rebuild its syncs and hold them against a\n"
		   "model.\n"
		   "\n"
		   "A trace whose frames carry the syncemu header (syncemu's own, or syncemu frames\n"
		   "captured on a real network) is understood fully: runs, steps, rounds, capture\n"
		   "points, background, and each frame's queueing delay where it was captured at a\n"
		   "queue's .in and .out. Step times come from the workers' rx points (exact: capture\n"
		   "rx to have them) and are compared with the packet-level closed form and the fluid\n"
		   "model of the trace's own scenario (or --scenario).\n"
		   "\n"
		   "Any other trace (TCP or UDP between hosts, e.g. an MPI or NCCL-like all-reduce)\n"
		   "is cut into bursts between idle gaps (or periods) over the packets selected with\n"
		   "--filter, --hosts or --ports; an alpha-beta model (latency + bytes / bandwidth)\n"
		   "is fitted to the bursts, or given with --alpha and --beta, and with --scenario\n"
		   "and --variant each burst is compared with the variant's sync time.\n"
		   "\n"
		   "The options are checked before the trace is read: --filter is compiled by\n"
		   "libpcap (for Ethernet frames), --hosts takes addresses and --ports numbers.\n"
		   "\n"
		   "Exit codes: 0 ok, 1 failed, 2 bad command line, 3 bad trace or scenario,\n"
		   "4 an error beyond --tolerance.",
		   val_optv, N_OPTS);
	fprintf(f, "\nexamples:\n"
		   "  syncemu run -v A -n 5 -c tx,rx --trace a.pcapng && syncemu validate a.pcapng\n"
		   "  syncemu validate cluster.pcap.gz --ports 29500 --gap 200us --json\n"
		   "  syncemu validate link.pcap --filter 'tcp and src host 10.9.0.1' "
		   "--beta 12.5MB/s --tolerance 5\n");
}

/*
 * The scenario a syncemu trace carries in its header's comment (after the first line), loaded
 * from a file in memory (memfd_create(): nothing on disk, nothing left by a signal).
 */
static int
trace_scenario(struct tr_reader *r, const struct val_opts *o, struct sc_scenario *sc, char *err,
	       size_t errlen)
{
	const char *c = tr_reader_comment(r), *dump = strchr(c, '\n');
	char path[64];
	FILE *f;
	int fd, rc;

	if (o->scenario != NULL)
		return sc_scenario_load(sc, o->scenario, o->sets, o->nsets, err, errlen);
	if (strncmp(c, "syncemu ", 8) != 0 || dump == NULL) {
		snprintf(err, errlen, "the trace carries no scenario (give --scenario)");
		return -ENOENT;
	}
	fd = memfd_create("the trace's scenario", MFD_CLOEXEC);
	if (fd < 0)
		return -errno;
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	f = fdopen(dup(fd), "w");
	if (f == NULL) {
		rc = -errno;
		close(fd);
		return rc;
	}
	fputs(dump + 1, f);
	rc = fclose(f) == 0 ? 0 : -EIO;
	if (rc == 0)
		rc = sc_scenario_load(sc, path, o->sets, o->nsets, err, errlen);
	close(fd);
	return rc;
}

static void
emit(struct table **tabs, unsigned int n, json_t *extra, bool json)
{
	unsigned int i;

	if (json) {
		json_t *root = extra, *tj = json_object();

		for (i = 0; i < n; i++)
			if (tabs[i] != NULL)
				json_object_set_new(tj, table_id(tabs[i]), table_json(tabs[i]));
		json_object_set_new(root, "tables", tj);
		json_dumpf(root, stdout, JSON_INDENT(1) | JSON_REAL_PRECISION(12));
		fputc('\n', stdout);
		return;
	}
	for (i = 0; i < n; i++)
		if (tabs[i] != NULL)
			table_print(tabs[i], stdout);
}

int
cmd_validate(int argc, char **argv)
{
	struct val_opts o = { .nsets = 0, .tolerance = NAN };
	struct sc_scenario *sc = calloc(1, sizeof(*sc));
	struct table *tabs[40] = { NULL };
	struct verdict v = { 0, false };
	struct tr_reader *r = NULL;
	struct tr_syncs syn;
	struct tr_bursts bur;
	json_t *root = json_object();
	char err[512], *pos[1];
	unsigned int nt = 0, i;
	int npos, rc, status = CLI_EXIT_OK;
	bool have_sc = false;

	memset(&syn, 0, sizeof(syn));
	memset(&bur, 0, sizeof(bur));
	if (sc == NULL || root == NULL) {
		status = CLI_EXIT_FAIL;
		goto out;
	}
	npos = opts_parse(argc, argv, val_optv, N_OPTS, val_opt, &o, pos, 1, err, sizeof(err));
	if (npos < 0 || (npos == 0 && !o.help)) {
		fprintf(stderr, "syncemu validate: %s\n(try 'syncemu validate --help')\n",
			npos < 0 ? err : "missing the trace");
		status = CLI_EXIT_USAGE;
		goto out;
	}
	if (o.help) {
		val_usage(stdout);
		goto out;
	}
	/* what goes together, and what does not */
	if (o.gap_opt[0] != '\0' && o.period_opt[0] != '\0')
		snprintf(err, sizeof(err), "%s and %s exclude each other (cut at idle gaps, or into "
			 "periods)", o.gap_opt, o.period_opt);
	else if (o.variant_opt[0] != '\0' && o.scenario == NULL)
		snprintf(err, sizeof(err), "%s needs --scenario (the model whose sync the bursts "
			 "are compared with)", o.variant_opt);
	else if (o.budget_opt[0] != '\0' && o.variant_opt[0] == '\0')
		snprintf(err, sizeof(err), "%s needs --variant (the budget is that variant's "
			 "module's)", o.budget_opt);
	else
		err[0] = '\0';
	if (err[0] != '\0') {
		fprintf(stderr, "syncemu validate: %s\n(try 'syncemu validate --help')\n", err);
		status = CLI_EXIT_USAGE;
		goto out;
	}
	if (o.filter != NULL && o.filter_owned != NULL) {
		char *both;

		if (asprintf(&both, "(%s) and %s", o.filter, o.filter_owned) < 0) {
			status = CLI_EXIT_FAIL;
			goto out;
		}
		free(o.filter_owned);
		o.filter_owned = both;
	}
	r = tr_reader_open(pos[0], err, sizeof(err));
	if (r == NULL) {
		fprintf(stderr, "syncemu validate: %s\n", err);
		status = CLI_EXIT_INPUT;
		goto out;
	}
	json_object_set_new(root, "syncemu", json_string(SYNCEMU_VERSION));
	json_object_set_new(root, "trace", json_pack("{s:s, s:s, s:i}", "file", pos[0], "format",
						     tr_reader_format(r), "interfaces",
						     (int)tr_reader_ifcount(r)));
	if (!o.generic && o.filter == NULL && o.filter_owned == NULL) {
		rc = tr_syncs_read(r, &syn, err, sizeof(err));
		if (rc != 0) {
			fprintf(stderr, "syncemu validate: %s\n", err);
			status = rc == -ENOMEM ? CLI_EXIT_FAIL : CLI_EXIT_INPUT;
			goto out;
		}
	}
	if (syn.se_frames > 0) {
		/* a syncemu trace */
		json_t *runs = json_array();

		have_sc = trace_scenario(r, &o, sc, err, sizeof(err)) == 0;
		if (!have_sc && o.scenario != NULL) {
			fprintf(stderr, "syncemu validate: %s\n", err);
			status = CLI_EXIT_INPUT;
			goto out;
		}
		for (i = 0; i < syn.nruns && nt < 38; i++) {
			char label[32];
			double mean;

			tabs[nt++] = validate_run_table(r, &syn.run[i], sc, have_sc, &v, &mean, label,
					       sizeof(label));
			if (have_sc && syn.has_rx && nt < 38)
				tabs[nt++] = validate_hotspot_table(r, &syn.run[i], sc);
			json_array_append_new(runs, json_pack("{s:i, s:s, s:i, s:f, s:b}", "run_id",
					      (int)syn.run[i].run_id, "label", label, "steps",
					      (int)syn.run[i].nsteps, "mean_ms",
					      isfinite(mean) ? mean : 0.0, "ends_at_rx",
					      syn.run[i].ends_at_rx));
		}
		tabs[nt++] = validate_points_table(&syn);
		json_object_set_new(root, "mode", json_string("syncemu"));
		json_object_set_new(root, "runs", runs);
		json_object_set_new(root, "frames", json_pack("{s:I, s:I, s:I}", "all",
				    (json_int_t)syn.frames, "syncemu", (json_int_t)syn.se_frames,
				    "unordered", (json_int_t)syn.unordered));
		if (!o.json)
			printf("syncemu validate: %s (%s): %" PRIu64 " frames, %" PRIu64 " with the "
			       "syncemu header, %u runs%s%s\n\n", pos[0], tr_reader_format(r),
			       syn.frames, syn.se_frames, syn.nruns, have_sc ? ", scenario " : "",
			       have_sc ? sc->name : "");
	} else {
		/* a generic trace: bursts */
		struct tr_burst_params bp = {
			.filter = o.filter_owned ? o.filter_owned : o.filter,
			.gap_s = o.gap, .period_s = o.period, .payload = o.payload,
		};
		struct tr_fit fit, model;
		enum sm_variant var = SM_VAR_A;
		enum sm_budget bud = SM_BUDGET_FREE;

		if (syn.frames > 0) {
			tr_reader_close(r);
			r = tr_reader_open(pos[0], err, sizeof(err));
			if (r == NULL) {
				fprintf(stderr, "syncemu validate: %s\n", err);
				status = CLI_EXIT_INPUT;
				goto out;
			}
		}
		rc = tr_bursts_read(r, &bp, &bur, err, sizeof(err));
		if (rc != 0) {
			fprintf(stderr, "syncemu validate: %s\n", err);
			status = rc == -ENOMEM ? CLI_EXIT_FAIL : CLI_EXIT_INPUT;
			goto out;
		}
		if (bur.n == 0) {
			fprintf(stderr, "syncemu validate: %s: no packet selected (%" PRIu64
				" packets, %" PRIu64 " not IP)%s%s\n", pos[0], bur.packets,
				bur.not_ip, bp.filter ? "; filter: " : "", bp.filter ? bp.filter : "");
			status = CLI_EXIT_INPUT;
			goto out;
		}
		if (o.scenario != NULL) {
			if (sc_scenario_load(sc, o.scenario, o.sets, o.nsets, err, sizeof(err)) != 0) {
				fprintf(stderr, "syncemu validate: %s\n", err);
				status = CLI_EXIT_INPUT;
				goto out;
			}
			have_sc = o.variants != 0;
			for (i = 0; i < SM_VAR_COUNT; i++)
				if (o.variants & (1u << i)) {
					var = (enum sm_variant)i;
					break;
				}
			for (i = 0; i < SM_BUDGET_COUNT; i++)
				if (o.budgets & (1u << i)) {
					bud = (enum sm_budget)i;
					break;
				}
		}
		tr_fit_alpha_beta(bur.b, bur.n, &fit);
		/* a given model: what is given, latency 0 if only the bandwidth is */
		model = fit;
		if (o.have_alpha || o.have_beta)
			model.alpha = o.have_alpha ? o.alpha : 0;
		if (o.have_beta)
			model.beta = o.beta;
		tabs[nt++] = validate_bursts_table(&bur, &model, sc, have_sc, var,
					  have_sc ? sm_budget_value(&sc->model.mod, bud) : 0, &v);
		tabs[nt++] = validate_flows_table(&bur);
		json_object_set_new(root, "mode", json_string("bursts"));
		json_object_set_new(root, "split", json_pack(
			"{s:s, s:I, s:I, s:I, s:i, s:o, s:o, s:o}", "how", bur.how,
			"packets", (json_int_t)bur.packets, "selected", (json_int_t)bur.selected,
			"not_ip", (json_int_t)bur.not_ip, "bursts", (int)bur.n,
			"gap_s", isfinite(bur.gap_s) ? json_real(bur.gap_s) : json_null(),
			"max_gap_inside_s", json_real(bur.max_inside_s),
			"min_gap_between_s", isfinite(bur.min_between_s) ?
			json_real(bur.min_between_s) : json_null()));
		json_object_set_new(root, "fit", json_pack(
			"{s:f, s:f, s:o, s:b}", "alpha_s", fit.alpha, "beta_Bps", fit.beta,
			"r2", isfinite(fit.r2) ? json_real(fit.r2) : json_null(),
			"alpha_identifiable", !fit.alpha_fixed));
		json_object_set_new(root, "model", json_pack("{s:f, s:f, s:s}", "alpha_s",
				    model.alpha, "beta_Bps", model.beta, "from",
				    o.have_alpha || o.have_beta ? "given" : "fitted"));
		if (!o.json) {
			printf("syncemu validate: %s (%s): %" PRIu64 " packets, %" PRIu64
			       " selected%s%s\n", pos[0], tr_reader_format(r), bur.packets,
			       bur.selected, bp.filter ? " by " : "", bp.filter ? bp.filter : "");
			printf("  %s: %u bursts; largest gap inside a burst %.6g s, smallest between "
			       "bursts %.6g s\n", bur.how, bur.n, bur.max_inside_s, bur.min_between_s);
			printf("  alpha-beta fitted: alpha %.6g s, beta %.6g B/s (%.6g Mbit/s)%s, "
			       "R^2 %.6f\n", fit.alpha, fit.beta, fit.beta * 8 / 1e6,
			       fit.alpha_fixed ? " (one size: alpha not identifiable, 0)" : "",
			       fit.r2);
			if (o.have_alpha || o.have_beta)
				printf("  alpha-beta given: alpha %.6g s, beta %.6g B/s\n",
				       model.alpha, model.beta);
			printf("\n");
		}
	}
	if (v.compared)
		json_object_set_new(root, "max_error_pct", json_real(v.worst));
	emit(tabs, nt, root, o.json);
	if (!o.json && syn.unordered > 0)
		printf("note: %" PRIu64 " packets came with a timestamp below the previous one\n",
		       syn.unordered);
	if (isfinite(o.tolerance) && v.compared && v.worst > o.tolerance) {
		fprintf(stderr, "syncemu validate: the largest error is %.3g %%, over the "
			"tolerance of %.3g %%\n", v.worst, o.tolerance);
		status = CLI_EXIT_TOLERANCE;
	}
out:
	for (i = 0; i < nt; i++)
		table_free(tabs[i]);
	tr_syncs_free(&syn);
	tr_bursts_free(&bur);
	tr_reader_close(r);
	json_decref(root);
	free(o.filter_owned);
	free(sc);
	return status;
}
