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
#include <arpa/inet.h>

#include <jansson.h>
#include <pcap/pcap.h>

#include "cli.h"
#include "opts.h"
#include "outputs.h"
#include "results.h"
#include "units.h"
#include "validate.h"

struct val_opts {
	const char *sets[CLI_MAX_SETS];
	unsigned int nsets;
	const char *scenario;
	const char *filter;
	char *filter_owned;
	const char *ifaces;		/* --interface: only these capture interfaces */
	const char *background;
	const char *steps_csv;
	char *csv_owned;		/* the file of --steps-csv FILE:COLUMN */
	const char *csv_col;		/* its COLUMN */
	const char *tables;		/* --tables DIR */
	double gap, period, alpha, beta, tolerance, rate, idle, clock_offset, coll_bytes;
	unsigned long steps, ranks;
	enum tr_coll coll;
	enum tr_placement place;
	bool gap_auto;
	/* options as typed, when given: for the messages about what goes together */
	char gap_opt[32], period_opt[32], variant_opt[32], budget_opt[32], steps_opt[32];
	char coll_opt[32], ranks_opt[32], size_opt[32], bg_opt[32], csv_opt[32], offset_opt[32];
	char idle_opt[32], place_opt[32];
	bool generic, payload, json, help, have_alpha, have_beta;
	unsigned int variants, budgets;
};

enum { O_SET, O_FILTER, O_HOSTS, O_PORTS, O_STEPS, O_COLL, O_RANKS, O_PLACE,
       O_SIZE,
       O_BG, O_RATE, O_IDLE, O_CSV, O_OFFSET, O_GAP, O_PERIOD, O_COUNT, O_ALPHA, O_BETA,
       O_VARIANT, O_BUDGET, O_TOL, O_TABLES, O_IFACE };

static const struct opt val_optv[] = {
	{ "scenario", 's', "FILE", "the model's scenario [a syncemu trace's own; else none]",
	  OPT_TARGET(opts_set_string, struct val_opts, scenario) },
	{ "set", 0, "SECTION.KEY=VALUE", "override a scenario key (repeatable)", .id = O_SET },
	{ "generic", 'g', NULL, "ignore syncemu headers: cut the trace into bursts",
	  OPT_TARGET(opts_set_flag, struct val_opts, generic) },
	{ "filter", 'f', "BPF", "select packets with a libpcap filter, e.g. 'tcp and host 10.0.0.1'",
	  .id = O_FILTER },
	{ "hosts", 0, "A,B,...", "select packets between these IPv4/IPv6 addresses",
	  .id = O_HOSTS },
	{ "interface", 'i', "NAME,...", "only packets of these pcapng interfaces, e.g. "
	  "wan.ab.out,wan.ba.out (a bridge's trace) [all]", .id = O_IFACE },
	{ "ports", 0, "P,Q,...", "select packets to or from these ports (0..65535)",
	  .id = O_PORTS },
	{ "steps", 'n', "N", "the capture holds N steps: cut each direction's stream into N equal "
	  "volumes", .id = O_STEPS },
	{ "collective", 'c', "NAME", "or the step's volume from this collective: allreduce, "
	  "allgather, reducescatter or alltoall (needs --ranks, --bytes)", .id = O_COLL },
	{ "ranks", 0, "N", "the collective's ranks, the same number on each host", .id = O_RANKS },
	{ "placement", 0, "block|cyclic", "ranks in blocks on the hosts (mpirun's default) or "
	  "dealt round robin (--map-by node) [block]", .id = O_PLACE },
	{ "bytes", 0, "SIZE", "the collective's buffer (e.g. 4MiB; allgather: the gathered one)",
	  .id = O_SIZE },
	{ "background", 0, "BPF", "packets of other traffic sharing the link: their share of "
	  "each step", .id = O_BG },
	{ "rate", 0, "RATE", "the link's rate, frame bytes (e.g. 400Mbit/s), for the duplex and "
	  "serialised predictions [the directions' rate while busy]", .id = O_RATE },
	{ "idle", 0, "TIME", "a gap between a direction's data packets over this is idle "
	  "[10 x its median gap, at least 50us]", .id = O_IDLE },
	{ "steps-csv", 0, "FILE[:COLUMN]", "the application's step times (step,start_ns,end_ns; "
	  "the step's column named COLUMN, else 'step', else the first) to hold the wire's "
	  "against", .id = O_CSV },
	{ "clock-offset", 0, "TIME", "add this to the times of --steps-csv (another clock than "
	  "the capture's) [0]", .id = O_OFFSET },
	{ "gap", 0, "TIME|auto", "cut into bursts at idle gaps this long instead of by the "
	  "streams", .id = O_GAP },
	{ "period", 0, "TIME", "or into periods of this length (not with --gap)", .id = O_PERIOD },
	{ "count", 0, "wire|payload", "bursts: count frame bytes or TCP/UDP payload [wire]",
	  .id = O_COUNT },
	{ "alpha", 0, "TIME", "latency of a given alpha-beta model [fitted]", .id = O_ALPHA },
	{ "beta", 0, "RATE", "bandwidth of a given alpha-beta model [fitted]", .id = O_BETA },
	{ "variant", 'v', "V", "compare bursts with this variant's sync (needs --scenario)",
	  .id = O_VARIANT },
	{ "budget", 'b', "B", "its module budget (needs --variant) [free]", .id = O_BUDGET },
	{ "tolerance", 't', "PERCENT", "exit 4 if any step or burst is off by more", .id = O_TOL },
	{ "json", 'j', NULL, "print JSON instead of text",
	  OPT_TARGET(opts_set_flag, struct val_opts, json) },
	{ "tables", 0, "DIR", "also write every table as DIR/<table id>.csv (DIR made if missing)",
	  .id = O_TABLES },
	{ "help", 'h', NULL, "show this help", OPT_TARGET(opts_set_flag, struct val_opts, help) },
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

/* --size (and its former spelling of --count: wire, payload). */
static int
size_opt(struct val_opts *o, const char *arg, char *err, size_t errlen)
{
	if (strcmp(arg, "wire") == 0 || strcmp(arg, "payload") == 0) {
		/* the former spelling of --count */
		o->payload = strcmp(arg, "payload") == 0;
		return 0;
	}
	snprintf(o->size_opt, sizeof(o->size_opt), "%s", opts_spelling());
	/* a bare number is bytes, as everywhere on the command line */
	if ((sc_unit_parse(SC_UNIT_COUNT, arg, &o->coll_bytes, NULL, 0) != 0 &&
	     sc_unit_parse(SC_UNIT_BYTES, arg, &o->coll_bytes, NULL, 0) != 0) ||
	    !(o->coll_bytes >= 1) || o->coll_bytes > 1e18) {
		snprintf(err, errlen, "%s: '%s' is not a size of 1 B to 1 EB (e.g. 4MiB, "
			 "4194304)", opts_spelling(), arg);
		return -EINVAL;
	}
	return 0;
}

/* --csv FILE or FILE:COLUMN. */
static int
csv_opt(struct val_opts *o, const char *arg, char *err, size_t errlen)
{
	char *end;

	snprintf(o->csv_opt, sizeof(o->csv_opt), "%s", opts_spelling());
	o->steps_csv = arg;
	o->csv_col = NULL;
	free(o->csv_owned);
	o->csv_owned = NULL;
	/* FILE:COLUMN, unless the whole names a file */
	if (access(arg, F_OK) != 0 && (end = strrchr(arg, ':')) != NULL) {
		if (end == arg || end[1] == '\0') {
			snprintf(err, errlen, "%s '%s': FILE:COLUMN needs both (the column "
				 "of the step numbers: a header's name or a number from 1)",
				 opts_spelling(), arg);
			return -EINVAL;
		}
		o->csv_owned = strndup(arg, (size_t)(end - arg));
		if (o->csv_owned == NULL)
			return -ENOMEM;
		o->steps_csv = o->csv_owned;
		o->csv_col = end + 1;
	}
	return 0;
}

static int
val_opt(void *ctx, int id, const char *arg, char *err, size_t errlen)
{
	struct val_opts *o = ctx;
	char *end;

	switch (id) {
	case O_SET:
		return cli_add_set(o->sets, &o->nsets, arg, err, errlen);
	case O_FILTER:
		if (filter_check(arg, err, errlen) != 0)
			return -EINVAL;
		o->filter = arg;
		return 0;
	case O_HOSTS:
		return list_filter(o, "host", arg, err, errlen);
	case O_PORTS:
		return list_filter(o, "port", arg, err, errlen);
	case O_STEPS:
		snprintf(o->steps_opt, sizeof(o->steps_opt), "%s", opts_spelling());
		return opts_count(opts_spelling(), arg, 1, TR_STEPS_MAX, &o->steps, err, errlen);
	case O_COLL:
		snprintf(o->coll_opt, sizeof(o->coll_opt), "%s", opts_spelling());
		o->coll = tr_coll_parse(arg);
		if (o->coll == TR_COLL_NONE) {
			snprintf(err, errlen, "%s: '%s' (allowed: allreduce, allgather, "
				 "reducescatter, alltoall)", opts_spelling(), arg);
			return -EINVAL;
		}
		return 0;
	case O_RANKS:
		snprintf(o->ranks_opt, sizeof(o->ranks_opt), "%s", opts_spelling());
		return opts_count(opts_spelling(), arg, 2, 1u << 24, &o->ranks, err, errlen);
	case O_PLACE:
		snprintf(o->place_opt, sizeof(o->place_opt), "%s", opts_spelling());
		if (strcmp(arg, "block") != 0 && strcmp(arg, "cyclic") != 0) {
			snprintf(err, errlen, "%s: '%s' (allowed: block, cyclic)", opts_spelling(),
				 arg);
			return -EINVAL;
		}
		o->place = strcmp(arg, "cyclic") == 0 ? TR_PLACE_CYCLIC : TR_PLACE_BLOCK;
		return 0;
	case O_SIZE:
		return size_opt(o, arg, err, errlen);
	case O_BG:
		snprintf(o->bg_opt, sizeof(o->bg_opt), "%s", opts_spelling());
		if (filter_check(arg, err, errlen) != 0)
			return -EINVAL;
		o->background = arg;
		return 0;
	case O_RATE:
		return sc_unit_parse(SC_UNIT_BYTE_RATE, arg, &o->rate, err, errlen) != 0 ||
			!(o->rate > 0) ?
			(snprintf(err, errlen, "%s: '%s' is not a rate > 0 (e.g. 400Mbit/s, "
				  "50MB/s)", opts_spelling(), arg), -EINVAL) : 0;
	case O_IDLE:
		snprintf(o->idle_opt, sizeof(o->idle_opt), "%s", opts_spelling());
		return sc_unit_parse(SC_UNIT_TIME, arg, &o->idle, err, errlen) != 0 ||
			!(o->idle > 0) || o->idle > 1e6 ?
			(snprintf(err, errlen, "%s: '%s' is not a time > 0 (e.g. 300us)",
				  opts_spelling(), arg), -EINVAL) : 0;
	case O_CSV:
		return csv_opt(o, arg, err, errlen);
	case O_OFFSET:
		snprintf(o->offset_opt, sizeof(o->offset_opt), "%s", opts_spelling());
		return sc_unit_parse(SC_UNIT_TIME, arg, &o->clock_offset, err, errlen) != 0 ||
			!(fabs(o->clock_offset) < 9e9) ?
			(snprintf(err, errlen, "%s: '%s' is not a time, e.g. -3.5ms or 37s (within "
				  "+-9e9 s)", opts_spelling(), arg), -EINVAL) : 0;
	case O_GAP:
		snprintf(o->gap_opt, sizeof(o->gap_opt), "%s", opts_spelling());
		if (strcmp(arg, "auto") == 0) {
			o->gap_auto = true;
			return 0;
		}
		return sc_unit_parse(SC_UNIT_TIME, arg, &o->gap, err, errlen) != 0 || !(o->gap > 0) ?
			(snprintf(err, errlen, "%s: '%s' is not a time > 0 or 'auto'",
				  opts_spelling(), arg), -EINVAL) : 0;
	case O_PERIOD:
		snprintf(o->period_opt, sizeof(o->period_opt), "%s", opts_spelling());
		return sc_unit_parse(SC_UNIT_TIME, arg, &o->period, err, errlen) != 0 ||
			!(o->period > 0) ?
			(snprintf(err, errlen, "%s: '%s' is not a time > 0", opts_spelling(), arg),
			 -EINVAL) : 0;
	case O_COUNT:
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
	case O_TABLES:
		o->tables = arg;
		return results_csv_dir_check(arg, err, errlen);
	case O_IFACE:
		if (arg[0] == '\0' || arg[0] == ',' || arg[strlen(arg) - 1] == ',' ||
		    strstr(arg, ",,") != NULL) {
			snprintf(err, errlen, "%s: '%s' is not a comma list of interface names",
				 opts_spelling(), arg);
			return -EINVAL;
		}
		o->ifaces = arg;
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
		   "Any other trace (TCP, UDP or RoCE v2 between hosts: an MPI or NCCL job) is read\n"
		   "as the application's byte streams, over the packets selected with --filter,\n"
		   "--hosts or --ports. A direction is what one host sent another over every\n"
		   "connection; its stream is the bytes in the order written: from TCP sequence\n"
		   "numbers (retransmissions, reordering, segments the capture missed and payloads\n"
		   "the snap length cut change nothing), RoCE v2 PSNs or UDP lengths. The job's\n"
		   "steps are equal volumes of each stream: --steps N (the capture holds N steps),\n"
		   "--collective with --ranks and --bytes (the volume from the algorithm: a ring,\n"
		   "ranks in blocks per host), or without either the volume at which the streams'\n"
		   "idle moments repeat, said with how sure it is; the cuts move to the idle gaps\n"
		   "nearest them. Each step: its first and last packet in each direction, bytes,\n"
		   "rate, how much of it both directions carried data (did they take turns?), idle\n"
		   "time and stalls, and the --background traffic's share of each direction; an\n"
		   "alpha-beta fit per direction; with --rate (or the scenario's WAN) the duplex and\n"
		   "the serialised step and which the capture matches; with --steps-csv, each step\n"
		   "beside the application's own times; with --scenario and --variant, beside the\n"
		   "variant's sync. A summary line comes first.\n"
		   "\n"
		   "--gap or --period cut the packets into bursts at idle gaps or into periods\n"
		   "instead, with an alpha-beta model fitted to the bursts (or given with --alpha and\n"
		   "--beta): for transfers of several sizes. Without a step volume that repeats,\n"
		   "validate falls back to bursts itself and says so.\n"
		   "\n"
		   "The options are checked before the trace is read: --filter is compiled by\n"
		   "libpcap (for Ethernet frames), --hosts takes addresses and --ports numbers.\n"
		   "\n"
		   "--tables DIR also writes every table of the output as CSV, one file each:\n"
		   "DIR/<table id>.csv (e.g. steps.csv; each run's of a syncemu trace: steps.csv,\n"
		   "steps-2.csv, ..., the JSON keeping the last), a header of the column keys\n"
		   "(those of --json), numbers as %.10g, NaN empty; each file replaced whole or not\n"
		   "at all, an input never overwritten (exit 2 if DIR or a file in it is refused).\n"
		   "\n"
		   "Exit codes: 0 ok, 1 failed, 2 bad command line, 3 bad trace or scenario,\n"
		   "4 an error beyond --tolerance, or steps found too uncertainly to hold any\n"
		   "against it (said as UNCERTAIN, and in the JSON's \"uncertain\").",
		   val_optv, N_OPTS);
	fprintf(f, "\nexamples:\n"
		   "  syncemu run -v A -n 5 -c tx,rx --trace a.pcapng && syncemu validate a.pcapng\n"
		   "  syncemu validate mpi.pcap --filter 'tcp portrange 40000-40049' --steps 20\n"
		   "  syncemu validate mpi.pcap --collective allreduce --ranks 4 --bytes 4MiB \\\n"
		   "      --rate 400Mbit/s --background 'tcp port 5201' --steps-csv steps.csv\n"
		   "  syncemu validate cluster.pcap.gz --ports 29500 --gap 200us --json\n"
		   "  syncemu validate link.pcap --filter 'tcp and src host 10.9.0.1' "
		   "--beta 12.5MB/s --tolerance 5\n");
}

/* The results as text or JSON on stdout, and with --tables as CSV files.  The exit code. */
static int
write_results(struct results *res, const struct val_opts *o, const char *trace)
{
	const struct input in[] = {
		{ trace, "the trace" }, { o->scenario, "the scenario file" },
		{ o->steps_csv, "--steps-csv" },
	};
	char err[512];
	int rc;

	rc = o->json ? results_json_write(res, stdout) : results_text_write(res, stdout);
	if (rc == -ENOMEM) {
		fprintf(stderr, "syncemu validate: out of memory\n");
		return CLI_EXIT_FAIL;
	}
	if (o->tables == NULL)
		return CLI_EXIT_OK;
	/* (validate leaves the signals as they are: one ends it, a FIFO's wait too) */
	rc = results_csv_write_dir(res, &(struct results_csv_dir){ .dir = o->tables, .in = in,
				   .n_in = sizeof(in) / sizeof(in[0]),
				   .cmd = "syncemu validate" }, err, sizeof(err));
	if (rc == 0)
		return CLI_EXIT_OK;
	fprintf(stderr, "syncemu validate: %s\n", err);
	return results_csv_exit(rc);
}

/* What goes together, and what does not: a message naming both options, or "". */
static void
together(const struct val_opts *o, char *err, size_t errlen)
{
	const char *stream_opt = o->steps_opt[0] ? o->steps_opt : o->coll_opt[0] ? o->coll_opt :
				 o->bg_opt[0] ? o->bg_opt : o->idle_opt[0] ? o->idle_opt : NULL;
	const char *burst_opt = o->gap_opt[0] ? o->gap_opt : o->period_opt[0] ? o->period_opt :
				NULL;

	err[0] = '\0';
	if (o->gap_opt[0] != '\0' && o->period_opt[0] != '\0')
		snprintf(err, errlen, "%s and %s exclude each other (cut at idle gaps, or into "
			 "periods)", o->gap_opt, o->period_opt);
	else if (o->steps_opt[0] != '\0' && o->coll_opt[0] != '\0')
		snprintf(err, errlen, "%s and %s exclude each other (the step count given, or found "
			 "from the collective's bytes)", o->steps_opt, o->coll_opt);
	else if (stream_opt != NULL && burst_opt != NULL)
		snprintf(err, errlen, "%s and %s exclude each other (%s cuts the streams into "
			 "steps, %s cuts the packets into bursts)", stream_opt, burst_opt,
			 stream_opt, burst_opt);
	else if (o->coll_opt[0] != '\0' && (o->ranks_opt[0] == '\0' || o->size_opt[0] == '\0'))
		snprintf(err, errlen, "%s needs --ranks and --bytes (the collective's ranks and "
			 "buffer give each direction's bytes in a step)", o->coll_opt);
	else if (o->coll_opt[0] == '\0' && (o->ranks_opt[0] != '\0' || o->size_opt[0] != '\0' ||
					    o->place_opt[0] != '\0'))
		snprintf(err, errlen, "%s needs --collective (whose ranks, placement and buffer "
			 "they are)", o->ranks_opt[0] ? o->ranks_opt : o->size_opt[0] ?
			 o->size_opt : o->place_opt);
	else if (o->offset_opt[0] != '\0' && o->csv_opt[0] == '\0')
		snprintf(err, errlen, "%s needs --steps-csv (the times it moves)", o->offset_opt);
	else if (o->variant_opt[0] != '\0' && o->scenario == NULL)
		snprintf(err, errlen, "%s needs --scenario (the model whose sync the bursts "
			 "are compared with)", o->variant_opt);
	else if (o->budget_opt[0] != '\0' && o->variant_opt[0] == '\0')
		snprintf(err, errlen, "%s needs --variant (the budget is that variant's "
			 "module's)", o->budget_opt);
}

/* The options that ask for a generic trace's reading (the syncemu header ignored). */
static bool
wants_generic(const struct val_opts *o)
{
	return o->generic || o->filter != NULL || o->filter_owned != NULL || o->steps_opt[0] ||
	       o->coll_opt[0] || o->bg_opt[0] || o->idle_opt[0] || o->csv_opt[0] ||
	       o->gap_opt[0] || o->period_opt[0];
}


/* The options as what tr_validate() is asked. */
static void
val_params(const struct val_opts *o, const char *trace, struct tr_validate_params *p)
{
	*p = (struct tr_validate_params){
		.trace = trace, .scenario = o->scenario, .sets = o->sets, .nsets = o->nsets,
		.filter = o->filter_owned ? o->filter_owned : o->filter, .ifaces = o->ifaces,
		.background = o->background, .steps_csv = o->steps_csv, .csv_col = o->csv_col,
		.clock_offset = o->clock_offset, .gap = o->gap, .period = o->period,
		.alpha = o->alpha, .beta = o->beta, .rate = o->rate, .idle = o->idle,
		.coll_bytes = o->coll_bytes, .steps = o->steps, .ranks = o->ranks,
		.coll = o->coll, .place = o->place, .generic = wants_generic(o),
		.bursts = o->gap_opt[0] != '\0' || o->period_opt[0] != '\0',
		.payload = o->payload, .have_alpha = o->have_alpha, .have_beta = o->have_beta,
		.variants = o->variants, .budgets = o->budgets,
	};
}

int
cmd_validate(int argc, char **argv)
{
	struct val_opts o = { .nsets = 0, .tolerance = NAN };
	struct verdict v = { .compared = false };
	struct tr_validate_params p;
	static const struct results_params rp = {
		.json_flags = JSON_INDENT(1) | JSON_REAL_PRECISION(12), .json_newline = true,
	};
	struct results *res = results_create(&rp);
	json_t *root = res != NULL ? results_root(res) : NULL;
	char err[4096], *pos[1];
	int npos, rc, status = CLI_EXIT_OK;

	if (root == NULL) {
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
	together(&o, err, sizeof(err));
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
	json_object_set_new(root, "syncemu", json_string(SYNCEMU_VERSION));
	json_object_set_new(root, "command", json_string("validate"));
	val_params(&o, pos[0], &p);
	rc = tr_validate(&p, res, &v, err, sizeof(err));
	if (rc != 0) {
		if (err[0] != '\0')
			fprintf(stderr, "syncemu validate: %s\n", err);
		status = rc == -ENOMEM ? CLI_EXIT_FAIL : rc == -ENODEV ? CLI_EXIT_USAGE :
			 CLI_EXIT_INPUT;
		goto out;
	}
	status = write_results(res, &o, pos[0]);
	if (status == CLI_EXIT_OK && isfinite(o.tolerance) && v.compared &&
	    v.worst > o.tolerance) {
		fprintf(stderr, "syncemu validate: the largest error is %.3g %%, over the "
			"tolerance of %.3g %%\n", v.worst, o.tolerance);
		status = CLI_EXIT_TOLERANCE;
	}
	if (status == CLI_EXIT_OK && isfinite(o.tolerance) && v.uncertain) {
		fprintf(stderr, "syncemu validate: uncertain (%s): no error is measured, so none "
			"is within the tolerance\n", v.reason);
		status = CLI_EXIT_TOLERANCE;
	}
out:
	results_free(res);
	free(o.filter_owned);
	free(o.csv_owned);
	return status;
}
