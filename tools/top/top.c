/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * syncemu-top: the hot spots of a running syncemu, live, from the data plane's USDT probes.
 *
 * It attaches BPF programs (top.bpf.c) to the probes of the process's binary (dataplane/usdt.h),
 * which sum each run's step spans by resource, count steps, keep the WAN queue depth's histogram,
 * drops and busy periods in maps; rare events (run start and end, binding changes) come through a
 * ring buffer.  Every interval it reads the maps and shows, per run, the share of the step each
 * resource holds beside the model's, steps per second, the module's binding stage, the WAN
 * queue, drops and busy periods; at exit (SIGINT, --duration, or the process ends) a JSON summary.
 *
 * Lifecycle (libbpf-bootstrap): open -> rodata -> load -> attach -> poll -> destroy, one cleanup.
 * A separate executable, so that libbpf stays out of the data plane's binary: syncemu only carries
 * the probes' nops and notes.
 */
#include <errno.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <bpf/libbpf.h>
#include <linux/types.h>

#include "cli.h"
#include "opts.h"
#include "report.h"
#include "scenario.h"
#include "target.h"
#include "top.bpf.skel.h"
#include "top.h"
#include "units.h"

#define TOP_LINKS 16
#define TOP_SETS 64

struct top_opts {
	pid_t pid;
	double interval, duration;	/* s; duration 0: until SIGINT or the process ends */
	const char *scenario;
	const char *sets[TOP_SETS];
	unsigned int nsets;
	bool json, check, busy, verbose, help;
};

enum { O_PID, O_INTERVAL, O_DURATION, O_SET };

static const struct opt top_optv[] = {
	{ "pid", 'p', "PID", "the syncemu process to watch (required)", .id = O_PID },
	{ "interval", 'i', "TIME", "refresh every TIME [1s]", .id = O_INTERVAL },
	{ "duration", 'd', "TIME", "stop after TIME [at SIGINT, or when the process ends]",
	  .id = O_DURATION },
	{ "json", 'j', NULL, "no live screen: only the JSON summary at exit",
	  OPT_TARGET(opts_set_flag, struct top_opts, json) },
	{ "scenario", 0, "FILE", "the run's scenario, for the model's shares [built-in default]",
	  OPT_TARGET(opts_set_string, struct top_opts, scenario) },
	{ "set", 's', "SECTION.KEY=VALUE", "override a key of that scenario, as the run did "
	  "(repeatable)", .id = O_SET },
	{ "busy", 'b', NULL, "count the links' busy periods too (costly: see above)",
	  OPT_TARGET(opts_set_flag, struct top_opts, busy) },
	{ "check", 0, NULL, "only check that the BPF programs load here (exit 0 if so)",
	  OPT_TARGET(opts_set_flag, struct top_opts, check) },
	{ "verbose", 'v', NULL, "show libbpf's messages",
	  OPT_TARGET(opts_set_flag, struct top_opts, verbose) },
	{ "help", 'h', NULL, "show this help", OPT_TARGET(opts_set_flag, struct top_opts, help) },
};

#define N_OPTS (sizeof(top_optv) / sizeof(top_optv[0]))

static volatile sig_atomic_t stop;
static bool verbose;

static void
on_signal(int sig)
{
	stop = sig;
}

static int
libbpf_print(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	if (!verbose)
		return 0;
	return vfprintf(stderr, fmt, ap);
}

static double
now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static int
time_arg(const char *name, const char *arg, double *v, char *err, size_t errlen)
{
	if (sc_unit_parse(SC_UNIT_TIME, arg, v, err, errlen) != 0 || !(*v > 0) || *v > 86400) {
		snprintf(err, errlen, "%s: '%s' is not a time in (0, 1 d] (e.g. 500ms, 2s)",
			 opts_spelling()[0] != '\0' ? opts_spelling() : name, arg);
		return -EINVAL;
	}
	return 0;
}

static int
top_opt(void *ctx, int id, const char *arg, char *err, size_t errlen)
{
	struct top_opts *o = ctx;
	char *end;
	long v;

	switch (id) {
	case O_PID:
		errno = 0;
		v = strtol(arg, &end, 10);
		if (errno != 0 || *end != '\0' || end == arg || v <= 0 || v > INT32_MAX) {
			snprintf(err, errlen, "%s: '%s' is not a process id", opts_spelling(), arg);
			return -EINVAL;
		}
		o->pid = (pid_t)v;
		return 0;
	case O_INTERVAL:
		return time_arg("--interval", arg, &o->interval, err, errlen);
	case O_DURATION:
		return time_arg("--duration", arg, &o->duration, err, errlen);
	case O_SET:
		if (o->nsets == TOP_SETS) {
			snprintf(err, errlen, "%s: at most %d", opts_spelling(), TOP_SETS);
			return -EINVAL;
		}
		o->sets[o->nsets++] = arg;
		return 0;
	}
	return -EINVAL;
}

static void
usage(FILE *f)
{
	opts_usage(f, "syncemu-top -p PID [options]",
		   "Watch a running syncemu (run, sweep) through its USDT probes: per run, the\n"
		   "share of the step each resource holds (the deck's hot-spot table, from the\n"
		   "step_end spans) beside the model's for the run's variant and budget, steps\n"
		   "per second, the module's binding stage and its changes, a log2 histogram of\n"
		   "the WAN queue depth, drops and busy periods by element (an element's id is\n"
		   "its index in the \"elements\" of syncemu run --json).  At exit (SIGINT,\n"
		   "--duration, or the process ends) a JSON summary of the same numbers.\n\n"
		   "The model's shares come from the built-in default scenario unless --scenario\n"
		   "(and --set) give another: pass those of the run, which the probes do not\n"
		   "carry.\n\n"
		   "Needs root (or CAP_BPF+CAP_PERFMON and the right to read /proc/PID/exe), and\n"
		   "a syncemu built with probes (systemtap-sdt-dev installed; readelf -n lists\n"
		   "them).\n\n"
		   "Cost: a probe hit takes about 0.5 us.  Steps, phases and queue samples are\n"
		   "rare; busy periods are not: on a link fed by a slower one each frame is its\n"
		   "own period (E: ~0.6 per frame), which slows the run several times, so --busy\n"
		   "is opt-in.  The shares are in virtual time and do not change; steps/s do.\n"
		   "Exit codes: 0 ok (also when the process ends while watched), 1 cannot\n"
		   "attach, 2 bad command line, 3 bad scenario.",
		   top_optv, N_OPTS);
	fprintf(f, "\nexamples:\n"
		   "  syncemu top -p $(pgrep -n syncemu)\n"
		   "  syncemu top -p 4242 --scenario scenarios/2dc4-8g.ini -d 30s -j >top.json\n");
}

static int
on_event(void *ctx, void *data, size_t size)
{
	if (size >= sizeof(struct top_event))
		top_view_event(ctx, data);
	return 0;
}

/* Attach every loaded program to the probe of its name; 0 or CLI_EXIT_FAIL with a message. */
static int
attach(struct top_bpf *skel, const struct top_target *tg, struct bpf_link **links)
{
	struct bpf_program *prog;
	unsigned int n = 0;

	bpf_object__for_each_program(prog, skel->obj) {
		const char *name = bpf_program__name(prog);

		if (!bpf_program__autoload(prog))
			continue;
		if (!top_target_has(tg, name)) {
			if (strcmp(name, "step_end") == 0) {
				fprintf(stderr, "syncemu-top: %s has no step_end probe: an older "
					"syncemu? rebuild it\n", tg->exe);
				return CLI_EXIT_FAIL;
			}
			fprintf(stderr, "syncemu-top: warning: %s has no probe %s; not shown\n",
				tg->exe, name);
			continue;
		}
		if (n == TOP_LINKS)
			break;
		links[n] = bpf_program__attach_usdt(prog, tg->pid, tg->path, "syncemu", name,
						    NULL);
		if (links[n] == NULL) {
			int e = errno;

			if (top_target_gone(tg->pid))
				fprintf(stderr, "syncemu-top: pid %d exited before it could be "
					"watched\n", (int)tg->pid);
			else
				fprintf(stderr, "syncemu-top: attaching to probe %s of %s: %s%s\n",
					name, tg->exe, strerror(e), e == EPERM || e == EACCES ?
					" (needs root or CAP_BPF+CAP_PERFMON)" :
					" (rerun with --verbose for libbpf's log)");
			return CLI_EXIT_FAIL;
		}
		n++;
	}
	return 0;
}

/* Poll the ring buffer and the process until the end; returns what ended it. */
static const char *
watch(const struct top_opts *o, struct ring_buffer *rb, struct top_view *v, int pidfd)
{
	double t0 = now_s(), next = t0 + o->interval, end = o->duration > 0 ? t0 + o->duration :
									     INFINITY;
	bool tty = isatty(STDOUT_FILENO);

	v->t_start = t0;
	top_view_refresh(v, t0);
	while (!stop) {
		struct pollfd pf[2] = {
			{ .fd = ring_buffer__epoll_fd(rb), .events = POLLIN },
			{ .fd = pidfd, .events = POLLIN },
		};
		double now = now_s(), wake = fmin(next, end);
		int ms = wake > now ? (int)ceil((wake - now) * 1e3) : 0;

		if (pidfd < 0 && ms > 100)
			ms = 100;	/* no pidfd: look at /proc */
		if (poll(pf, pidfd >= 0 ? 2 : 1, ms) < 0 && errno != EINTR)
			return "error";
		if (pf[0].revents & POLLIN)
			ring_buffer__consume(rb);
		if (pidfd >= 0 ? (pf[1].revents & POLLIN) != 0 : top_target_gone(v->pid))
			return "exit";
		now = now_s();
		if (now >= end)
			return "duration";
		if (now >= next) {
			top_view_refresh(v, now);
			if (!o->json)
				top_view_print(v, stdout, tty);
			next += o->interval;
			if (next <= now)
				next = now + o->interval;
		}
	}
	return "signal";
}

static int
run_top(const struct top_opts *o, const struct sc_scenario *sc, const struct top_target *tg)
{
	struct bpf_link *links[TOP_LINKS] = { NULL };
	struct top_view v = { .pid = tg->pid, .exe = tg->exe, .sc = sc, .busy = o->busy };
	struct ring_buffer *rb = NULL;
	struct top_bpf *skel;
	int status = CLI_EXIT_FAIL, pidfd = -1, err, i;
	const char *ended_by;

	skel = top_bpf__open();
	if (skel == NULL) {
		fprintf(stderr, "syncemu-top: cannot open the BPF object: %s\n", strerror(errno));
		goto cleanup;
	}
	skel->rodata->target_tgid = (__u32)tg->pid;
	if (!o->busy)
		bpf_program__set_autoload(skel->progs.busy_start, false);
	err = top_bpf__load(skel);
	if (err != 0) {
		fprintf(stderr, "syncemu-top: loading the BPF programs: %s%s\n", strerror(-err),
			err == -EPERM || err == -EACCES ? ": needs root or CAP_BPF+CAP_PERFMON" :
			" (rerun with --verbose for libbpf's log)");
		goto cleanup;
	}
	if (o->check) {
		printf("syncemu-top: the BPF programs load\n");
		status = CLI_EXIT_OK;
		goto cleanup;
	}
	status = attach(skel, tg, links);
	if (status != 0)
		goto cleanup;
	status = CLI_EXIT_FAIL;
	v.runs_fd = bpf_map__fd(skel->maps.runs);
	v.elems_fd = bpf_map__fd(skel->maps.elems);
	rb = ring_buffer__new(bpf_map__fd(skel->maps.events), on_event, &v, NULL);
	if (rb == NULL) {
		fprintf(stderr, "syncemu-top: cannot open the ring buffer: %s\n", strerror(errno));
		goto cleanup;
	}
	pidfd = (int)syscall(SYS_pidfd_open, tg->pid, 0);	/* readable when it exits */
	ended_by = watch(o, rb, &v, pidfd);
	if (strcmp(ended_by, "error") == 0) {
		fprintf(stderr, "syncemu-top: poll: %s\n", strerror(errno));
		goto cleanup;
	}
	ring_buffer__consume(rb);
	if (top_view_refresh(&v, now_s()) != 0) {
		fprintf(stderr, "syncemu-top: out of memory\n");
		goto cleanup;
	}
	if (!o->json) {
		top_view_print(&v, stdout, false);
		if (strcmp(ended_by, "exit") == 0)
			printf("\npid %d has exited\n", (int)tg->pid);
		printf("\n");
	}
	if (top_view_json(&v, stdout, ended_by) != 0) {
		fprintf(stderr, "syncemu-top: cannot write the summary\n");
		goto cleanup;
	}
	status = CLI_EXIT_OK;
cleanup:
	if (pidfd >= 0)
		close(pidfd);
	ring_buffer__free(rb);
	for (i = 0; i < TOP_LINKS; i++)
		bpf_link__destroy(links[i]);
	top_bpf__destroy(skel);
	top_view_free(&v);
	return status;
}

static int
top_main(int argc, char **argv)
{
	struct top_opts o = { .interval = 1.0 };
	struct sigaction sa = { .sa_handler = on_signal };
	struct sc_scenario *sc;
	struct top_target tg;
	char err[1024];
	int rc, status;

	rc = opts_parse(argc, argv, top_optv, N_OPTS, top_opt, &o, NULL, 0, err, sizeof(err));
	if (rc < 0) {
		fprintf(stderr, "syncemu-top: %s\n(try 'syncemu-top --help')\n", err);
		return CLI_EXIT_USAGE;
	}
	if (o.help) {
		usage(stdout);
		return CLI_EXIT_OK;
	}
	if (o.pid == 0 && !o.check) {
		fprintf(stderr, "syncemu-top: which process? give -p PID (of syncemu run)\n"
			"(try 'syncemu-top --help')\n");
		return CLI_EXIT_USAGE;
	}
	verbose = o.verbose;
	libbpf_set_print(libbpf_print);
	sc = malloc(sizeof(*sc));
	if (sc == NULL) {
		fprintf(stderr, "syncemu-top: out of memory\n");
		return CLI_EXIT_FAIL;
	}
	rc = sc_scenario_load(sc, o.scenario, o.sets, o.nsets, err, sizeof(err));
	if (rc != 0) {
		fprintf(stderr, "syncemu-top: %s\n", err);
		free(sc);
		return CLI_EXIT_INPUT;
	}
	memset(&tg, 0, sizeof(tg));
	if (!o.check) {
		rc = top_target_open(o.pid, &tg, err, sizeof(err));
		if (rc != 0) {
			fprintf(stderr, "syncemu-top: %s\n", err);
			free(sc);
			return CLI_EXIT_FAIL;
		}
	}
	sigaction(SIGINT, &sa, NULL);	/* no SA_RESTART: poll() returns */
	sigaction(SIGTERM, &sa, NULL);
	status = run_top(&o, sc, &tg);
	free(sc);
	return status;
}

int
main(int argc, char **argv)
{
	cli_start();
	return cli_finish("syncemu-top", top_main(argc, argv));
}
