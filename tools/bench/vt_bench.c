/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Benchmark: the virtual-time engine, one core.
 *
 * 1. The floor ratio: frames per second end to end (workers make the frames, links and switches
 *    move them, workers take them back) on 2 DC x 4 AdamW over a 100 GbE WAN, side by side with
 *    the cost floor of a DPDK program: the same frames made as mbufs from the flow's template
 *    (dp_frame_make(), as with a trace) and passed once through a DPDK rte_ring (SP/SC, bursts
 *    of 32), then freed.  Both in one process, one after the other, rates from CPU time
 *    (getrusage, user + system), so the ratio holds on a noisy machine even when the absolute
 *    rates move.  The engine as syncemu run drives it without a trace (frames without bytes,
 *    frame.h struct dp_pkt), and, for 8192-byte payloads, with bytes as with a trace (the trace
 *    itself not written): mbufs from a compact frame pool and from a pool of whole frames.
 * 2. The scale: CPU ns per frame, frames per CPU second, events per frame and peak RSS of one
 *    process per shape (2 x 4, 2 x 64, 16 x 16, 32 x 32 by default; step sync, AdamW,
 *    8192-byte payloads, no trace), each run in a process of its own (this program again,
 *    --child) so that its peak RSS is its own.
 * 3. The memory under load: peak RSS of 2 x 4 AdamW (20 steps, step sync) with background
 *    transfers of 1 MB at load 0.9 on every WAN direction and 1 GB WAN queues, in a process of
 *    its own, with and without a trace's bytes: what the frames queued cost, not the limits.
 *
 * 4. Partitions (parallel.h): wall time of 8 x 8 and 16 x 16 AdamW (phase sync, 8192-byte payloads,
 *    no trace) in 1, 2 and 4 partitions on the lcores there are (up to 4), the speedup over one
 *    partition and the efficiency (speedup over the lcores used), with the windows per step, the
 *    frames per window and how busy the busiest partition was: what the design predicts for more
 *    cores follows from these.  Wall time here, for that is what more cores buy; the runs of a
 *    shape alternate (1, 2, 4, 1, 2, 4, ...) so that a slow spell of the machine hits them alike,
 *    and each keeps its least.  After each round, what run.partitions = auto's calibration
 *    (autopart.h) chooses for the shape, and the speedup it saw, beside the one measured; and,
 *    before all, how much two of the CPUs slow each other writing neighbouring cache lines (on
 *    the 2-vCPU VMs this decides what partitions gain).
 *
 * Every measure is taken --repeat times (3) and the least disturbed kept: the best rate of the
 * engine and of the floor each, the least CPU time of a shape (with the largest peak RSS).  The
 * machine may be busy with other work: CPU time, not wall time, and the best of a few runs.
 *
 * Usage: vt_bench [--steps N] [--repeat N] [--json] [--shapes DxN[:STEPS],... | --shapes none]
 *                 [--partitions DxN:STEPS,... | --partitions none] [--busy N]
 * --busy N: N processes spin on the CPUs while the partitions are measured (a shared machine).
 */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <sys/prctl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <rte_errno.h>
#include <rte_mempool.h>
#include <rte_ring.h>

#include "autopart.h"
#include "eal.h"
#include "fpool.h"
#include "frame.h"
#include "packet.h"
#include "presets.h"
#include "run.h"
#include "stream.h"
#include "vt_bench.h"

#define POOL_N 40000
#define BURST 32

#define SHAPES_MAX 16
#define SHAPES_DEFAULT "2x4:20,2x64:2,16x16:1,32x32:1"

double
now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* CPU time of this process so far, user + system, s. */
static double
cpu_s(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 +
	       (double)ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6;
}

/* A run of AdamW on @p p and @p pk, the default queue limits (as syncemu run's). */
void
run_params(struct dp_run_params *rp, const struct sm_params *p, const struct sm_packet *pk,
	   uint32_t steps)
{
	memset(rp, 0, sizeof(*rp));
	rp->model = p;
	rp->pk = pk;
	rp->var = SM_VAR_A;
	rp->steps = steps;
	rp->run_id = 1;
	rp->q_nic = 2000000;
	rp->q_port = 2000000;
	rp->q_sw = 16000000;
	rp->q_wan = 64000000;
}

/* The floor: make @n frames, pass them through a ring in bursts, free them. */
static double
ring_floor(struct rte_mempool *pool, uint64_t n, uint32_t payload)
{
	struct rte_ring *r = rte_ring_create("bench_ring", 1024, SOCKET_ID_ANY,
					     RING_F_SP_ENQ | RING_F_SC_DEQ);
	struct rte_mbuf *burst[BURST], *out[BURST];
	struct dp_flow f;
	uint64_t done = 0;
	double t0;

	if (r == NULL)
		return 0;
	dp_flow_init(&f, 4, 1, 0, 0, 0, 0, 0, 1, DP_KIND_WORKER, 0, payload);
	t0 = cpu_s();
	while (done < n) {
		unsigned int k, got;

		for (k = 0; k < BURST; k++)
			burst[k] = dp_frame_make(pool, &f, done * payload, (uint32_t)done, payload,
						 done, false);
		rte_ring_enqueue_burst(r, (void **)burst, BURST, NULL);
		got = rte_ring_dequeue_burst(r, (void **)out, BURST, NULL);
		for (k = 0; k < got; k++)
			dp_meta(out[k])->flags ^= 1;	/* touch it, as a receiver would */
		rte_pktmbuf_free_bulk(out, got);
		done += got;
	}
	rte_ring_free(r);
	return done / (cpu_s() - t0);
}

struct result {
	const char *what;
	const char *bytes;
	uint32_t mtu, payload, steps;
	uint64_t frames;
	double wall, cpu, fps, floor_fps, step_ms;
};

/* The engine on @p pool (frames with bytes if @p bytes), then the floor on @p floor. */
static int
engine(struct rte_mempool *pool, bool bytes, struct rte_mempool *floor, uint32_t mtu,
       uint32_t payload, uint32_t steps, struct result *out)
{
	struct sm_params p;
	struct sm_packet pk;
	struct dp_run_result res;
	struct dp_run_params rp;
	char err[256];
	double t0, c0;
	int rc;

	sm_params_default(&p);
	sm_packet_default(&pk);
	pk.mtu = mtu;
	pk.payload = payload;
	run_params(&rp, &p, &pk, steps);
	rp.pool = pool;
	rp.bytes = bytes;
	t0 = now_s();
	c0 = cpu_s();
	rc = dp_run(&rp, &res, err, sizeof(err));
	if (rc != 0) {
		fprintf(stderr, "vt_bench: %s\n", err);
		return rc;
	}
	out->cpu = cpu_s() - c0;
	out->wall = now_s() - t0;
	out->mtu = mtu;
	out->payload = payload;
	out->steps = steps;
	out->frames = res.frames;
	out->fps = res.frames / out->cpu;
	out->step_ms = res.step[steps - 1].time / 1e9;
	dp_run_result_free(&res);
	out->floor_fps = ring_floor(floor, out->frames, payload);
	return 0;
}

/* engine() @p repeat times, the engine and the floor each at its best (least disturbed) rate. */
static int
engine_best(struct rte_mempool *pool, bool bytes, struct rte_mempool *floor, uint32_t mtu,
	    uint32_t payload, uint32_t steps, uint32_t repeat, struct result *out)
{
	struct result r = *out;
	uint32_t i;
	int rc;

	for (i = 0; i < repeat; i++) {
		rc = engine(pool, bytes, floor, mtu, payload, steps, &r);
		if (rc != 0)
			return rc;
		if (i == 0 || r.fps > out->fps) {
			out->fps = r.fps;
			out->cpu = r.cpu;
			out->wall = r.wall;
		}
		if (i == 0 || r.floor_fps > out->floor_fps)
			out->floor_fps = r.floor_fps;
		out->mtu = r.mtu;
		out->payload = r.payload;
		out->steps = r.steps;
		out->frames = r.frames;
	}
	return 0;
}

static void
machine(char *buf, size_t len)
{
	FILE *f = fopen("/proc/cpuinfo", "r");
	char line[256];
	int cpus = 0;

	snprintf(buf, len, "unknown CPU");
	if (f == NULL)
		return;
	while (fgets(line, sizeof(line), f) != NULL) {
		if (strncmp(line, "model name", 10) == 0) {
			char *c = strchr(line, ':');

			if (cpus++ == 0 && c != NULL) {
				c[strcspn(c, "\n")] = '\0';
				snprintf(buf, len, "%s", c + 2);
			}
		}
	}
	fclose(f);
	snprintf(line, sizeof(line), ", %d CPUs", cpus);
	strncat(buf, line, len - strlen(buf) - 1);
}

/*
 * One shape in this process (--child): one line "frames cpu_s wall_s maxrss_kb pools events".
 * With @p load > 0: background at that load, 1 GB WAN queues; frames with bytes if @p bytes.
 */
static int
child(uint32_t d, uint32_t n, uint32_t steps, double load, bool bytes)
{
	struct sm_size_dist sizes;
	struct dp_fpool_params fp = { .n = 16384, .frame_max = SM_HDR_BYTES + 8192,
				      .grow = 16384, .compact = true };
	struct rte_mempool *pool;
	struct sm_params p;
	struct sm_packet pk;
	struct dp_run_result res;
	struct dp_run_params rp;
	struct rusage ru;
	uint32_t pools;
	char err[256];
	double t0, c0;
	int rc;

	rc = dp_eal_init(NULL, 256, err, sizeof(err));
	if (rc != 0) {
		fprintf(stderr, "vt_bench: %s\n", err);
		return 1;
	}
	pool = dp_fpool_create("bench_frames", &fp);
	if (pool == NULL) {
		fprintf(stderr, "vt_bench: no frame pool (%s)\n", rte_strerror(rte_errno));
		dp_eal_fini();
		return 1;
	}
	sm_params_default(&p);
	sm_packet_default(&pk);
	p.topo.n_dc = d;
	p.topo.per_dc = n;
	pk.sync = SM_SYNC_STEP;
	run_params(&rp, &p, &pk, steps);
	rp.bg.fg_lossless = true;
	rp.pool = pool;
	rp.bytes = bytes;
	if (load > 0) {
		if (sm_size_fixed(&sizes, 1e6) != 0) {
			dp_fpool_free(pool);
			dp_eal_fini();
			return 1;
		}
		rp.bg.load = load;
		rp.bg.sizes = &sizes;
		rp.bg.host_bw = 50000000000ULL;
		rp.bg.seed = 1;
		rp.bg.directions = UINT32_MAX;
		rp.q_wan = 1000000000ULL;
	}
	t0 = now_s();
	c0 = cpu_s();
	rc = dp_run(&rp, &res, err, sizeof(err));
	if (rc != 0) {
		fprintf(stderr, "vt_bench: %ux%u: %s\n", d, n, err);
	} else {
		getrusage(RUSAGE_SELF, &ru);
		pools = dp_fpool_pools(pool, false);
		printf("%" PRIu64 " %.6f %.6f %ld %u %" PRIu64 "\n", res.frames, cpu_s() - c0,
		       now_s() - t0, ru.ru_maxrss, pools, res.events);
		dp_run_result_free(&res);
	}
	if (load > 0)
		sm_size_free(&sizes);
	dp_fpool_free(pool);
	dp_eal_fini();
	return rc == 0 ? 0 : 1;
}

struct shape {
	uint32_t d, n, steps;
	double load;		/* background load (1 GB WAN queues); 0: none */
	bool bytes;		/* frames with bytes, as with a trace */
	uint64_t frames;
	double cpu, wall;
	long rss_kb;
	uint32_t pools;
	uint64_t events;
	int ok;
};

static int
parse_shapes(const char *arg, struct shape *sh, uint32_t *n)
{
	char buf[256], *tok, *save = NULL;

	*n = 0;
	if (strcmp(arg, "none") == 0)
		return 0;
	snprintf(buf, sizeof(buf), "%s", arg);
	for (tok = strtok_r(buf, ",", &save); tok != NULL; tok = strtok_r(NULL, ",", &save)) {
		struct shape *x = &sh[*n];

		if (*n == SHAPES_MAX)
			return -E2BIG;
		memset(x, 0, sizeof(*x));
		x->steps = 1;
		if (sscanf(tok, "%ux%u:%u", &x->d, &x->n, &x->steps) < 2 || x->d < 1 || x->d > 64 ||
		    x->n < 1 || x->n > 1024 || x->steps < 1)
			return -EINVAL;
		(*n)++;
	}
	return 0;
}

/* Run a shape in a process of its own: this program with --child. */
static void
run_shape(const char *self, struct shape *x)
{
	char a[5][16], line[256];
	int fd[2], status;
	pid_t pid;
	FILE *f;

	snprintf(a[0], sizeof(a[0]), "%u", x->d);
	snprintf(a[1], sizeof(a[1]), "%u", x->n);
	snprintf(a[2], sizeof(a[2]), "%u", x->steps);
	snprintf(a[3], sizeof(a[3]), "%g", x->load);
	snprintf(a[4], sizeof(a[4]), "%d", x->bytes ? 1 : 0);
	if (pipe(fd) != 0)
		return;
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		dup2(fd[1], STDOUT_FILENO);
		close(fd[0]);
		close(fd[1]);
		execl(self, self, "--child", a[0], a[1], a[2], a[3], a[4], (char *)NULL);
		_exit(127);
	}
	close(fd[1]);
	if (pid < 0) {
		close(fd[0]);
		return;
	}
	f = fdopen(fd[0], "r");
	if (f != NULL && fgets(line, sizeof(line), f) != NULL &&
	    sscanf(line, "%" SCNu64 " %lf %lf %ld %u %" SCNu64, &x->frames, &x->cpu, &x->wall,
		   &x->rss_kb, &x->pools, &x->events) == 6)
		x->ok = 1;
	if (f != NULL)
		fclose(f);
	else
		close(fd[0]);
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
		x->ok = 0;
}


/* What the benchmark measured, for its output. */
struct bench_out {
	struct result r[5];			/* the floor ratio's rows */
	struct shape sh[SHAPES_MAX + 2];	/* the scale's shapes, then the load's two */
	uint32_t nsh, nload;
	struct shape psh[SHAPES_MAX];		/* the partitions' shapes */
	uint32_t npsh;
	struct par_result pr[SHAPES_MAX][3];
	uint32_t npr[SHAPES_MAX];
	struct par_auto au[SHAPES_MAX];
	double probe;				/* line_probe() */
	uint32_t busy, repeat;
	char cpu[160];				/* machine() */
};

/* The results as one line of JSON. */
static void
print_json(const struct bench_out *b)
{
	const struct result *r = b->r;
	const struct shape *sh = b->sh, *psh = b->psh;
	const struct par_result (*pr)[3] = b->pr;
	const uint32_t *npr = b->npr;
	const struct par_auto *au = b->au;
	uint32_t nsh = b->nsh, nload = b->nload, npsh = b->npsh, busy = b->busy;
	double probe = b->probe;
	const char *cpu = b->cpu;
	int i;

	printf("{\"machine\": \"%s\", \"results\": [", cpu);
	for (i = 0; i < 5; i++)
		printf("%s{\"case\": \"%s\", \"bytes\": \"%s\", \"mtu\": %u, "
		       "\"payload\": %u, \"steps\": %u, \"frames\": %" PRIu64 ", "
		       "\"wall_s\": %.4f, \"cpu_s\": %.4f, \"engine_fps\": %.0f, "
		       "\"ring_fps\": %.0f, \"ratio\": %.4f}", i ? ", " : "", r[i].what,
		       r[i].bytes, r[i].mtu, r[i].payload, r[i].steps, r[i].frames, r[i].wall,
		       r[i].cpu, r[i].fps, r[i].floor_fps, r[i].fps / r[i].floor_fps);
	printf("], \"shapes\": [");
	for (i = 0; i < (int)nsh; i++)
		printf("%s{\"d\": %u, \"n\": %u, \"steps\": %u, \"ok\": %s, "
		       "\"frames\": %" PRIu64 ", \"cpu_s\": %.4f, \"wall_s\": %.4f, "
		       "\"cpu_ns_per_frame\": %.1f, \"frames_per_cpu_s\": %.0f, "
		       "\"peak_rss_mb\": %.1f, \"events\": %" PRIu64 "}", i ? ", " : "",
		       sh[i].d,
		       sh[i].n, sh[i].steps, sh[i].ok ? "true" : "false", sh[i].frames,
		       sh[i].cpu, sh[i].wall,
		       sh[i].frames ? sh[i].cpu * 1e9 / sh[i].frames : 0.0,
		       sh[i].cpu > 0 ? sh[i].frames / sh[i].cpu : 0.0, sh[i].rss_kb / 1024.0,
		       sh[i].events);
	printf("], \"load\": [");
	for (i = 0; i < (int)nload; i++) {
		const struct shape *x = &sh[nsh + i];

		printf("%s{\"d\": %u, \"n\": %u, \"steps\": %u, \"load\": %.2f, "
		       "\"wan_queue_bytes\": 1000000000, \"bytes\": %s, \"ok\": %s, "
		       "\"frames\": %" PRIu64 ", \"cpu_s\": %.4f, \"peak_rss_mb\": %.1f}",
		       i ? ", " : "", x->d, x->n, x->steps, x->load,
		       x->bytes ? "true" : "false", x->ok ? "true" : "false", x->frames,
		       x->cpu, x->rss_kb / 1024.0);
	}
	printf("], \"partitions\": [");
	for (i = 0; i < (int)npsh; i++)
		for (uint32_t k = 0; k < npr[i]; k++) {
			const struct par_result *x = &pr[i][k];

			printf("%s{\"d\": %u, \"n\": %u, \"steps\": %u, \"partitions\": %u, "
			       "\"lcores\": %u, \"frames\": %" PRIu64 ", \"wall_s\": %.4f, "
			       "\"speedup\": %.3f, \"windows\": %" PRIu64 ", "
			       "\"lookahead_ns\": %.1f, \"busy_s\": %.4f, "
			       "\"busiest_s\": %.4f}", i || k ? ", " : "", x->d, x->n, x->steps,
			       x->parts, x->lcores, x->frames, x->wall, pr[i][0].wall / x->wall,
			       x->windows, x->lookahead / 1e3, x->busy, x->busy_max);
		}
	printf("], \"partitions_auto\": [");
	for (i = 0; i < (int)npsh; i++) {
		const struct par_auto *a = &au[i];

		printf("%s{\"d\": %u, \"n\": %u, \"steps\": %u, \"chose\": [", i ? ", " : "",
		       psh[i].d, psh[i].n, psh[i].steps);
		for (uint32_t k = 0; k < a->n; k++)
			printf("%s%u", k ? ", " : "", a->chose[k]);
		printf("], \"calibrated_speedup\": [");
		for (uint32_t k = 0; k < a->n; k++)
			printf("%s%.3f", k ? ", " : "", a->gain[k]);
		printf("], \"calibration_s\": [");
		for (uint32_t k = 0; k < a->n; k++)
			printf("%s%.4f", k ? ", " : "", a->cost[k]);
		printf("], \"measured_speedup\": %.3f}", pr[i][0].wall / pr[i][1].wall);
	}
	printf("], \"line_probe\": %.3f, \"busy\": %u}\n", probe, busy);
}

/* The floor ratio and the scale, as text. */
static void
print_text(const struct bench_out *b)
{
	const struct result *r = b->r;
	const struct shape *sh = b->sh;
	uint32_t nsh = b->nsh, repeat = b->repeat;
	const char *cpu = b->cpu;
	int i;

	printf("virtual-time engine, 2 DC x 4 AdamW, 100 GbE WAN, one core (%s)\n", cpu);
	printf("  %-20s %-8s %6s %10s %8s %12s %12s %8s\n", "frames", "bytes", "steps",
	       "frames", "cpu s", "engine Mf/s", "ring Mf/s", "ratio");
	for (i = 0; i < 5; i++)
		printf("  %-20s %-8s %6u %10" PRIu64 " %8.3f %12.2f %12.2f %8.3f\n",
		       r[i].what, r[i].bytes, r[i].steps, r[i].frames, r[i].cpu,
		       r[i].fps / 1e6, r[i].floor_fps / 1e6, r[i].fps / r[i].floor_fps);
	printf("  (ratio: the engine's frames per CPU second over the floor's: the same "
	       "frames made as mbufs from the flow's template, of the pool the row names "
	       "(compact for \"none\"), passed once through an rte_ring; bytes \"none\": "
	       "the engine as syncemu run drives it without a trace; best of %u)\n",
	       repeat);
	if (nsh > 0) {
		printf("\nscale: AdamW, step sync, 8192-byte payloads, no trace, one "
		       "process per shape, least CPU time of %u\n", repeat);
		printf("  %-8s %6s %10s %8s %8s %12s %10s %12s %8s\n", "D x N", "steps",
		       "frames", "cpu s", "wall s", "cpu ns/frame", "Mf/cpu-s",
		       "peak RSS MB", "ev/frame");
	}
	for (i = 0; i < (int)nsh; i++) {
		char name[24];

		snprintf(name, sizeof(name), "%ux%u", sh[i].d, sh[i].n);
		if (!sh[i].ok) {
			printf("  %-8s %6u  failed\n", name, sh[i].steps);
			continue;
		}
		printf("  %-8s %6u %10" PRIu64 " %8.2f %8.2f %12.0f %10.2f %12.1f %8.2f\n",
		       name, sh[i].steps, sh[i].frames, sh[i].cpu, sh[i].wall,
		       sh[i].cpu * 1e9 / sh[i].frames, sh[i].frames / sh[i].cpu / 1e6,
		       sh[i].rss_kb / 1024.0, (double)sh[i].events / sh[i].frames);
	}
}

/* The memory under load, as text. */
static void
print_load(const struct bench_out *b)
{
	const struct shape *sh = b->sh;
	uint32_t nsh = b->nsh, nload = b->nload, repeat = b->repeat;
	int i;

	printf("\nmemory under load: 2 x 4 AdamW, 20 steps, background of 1 MB transfers at "
	       "load 0.9 on every WAN direction, 1 GB WAN queues, largest peak of %u\n",
	       repeat);
	for (i = 0; i < (int)nload; i++) {
		const struct shape *x = &sh[nsh + i];

		if (!x->ok)
			printf("  %-28s failed\n", x->bytes ? "with bytes (a trace's)" :
				"without bytes (no trace)");
		else
			printf("  %-28s %10" PRIu64 " frames %8.2f cpu s  peak RSS %6.1f MB\n",
			       x->bytes ? "with bytes (a trace's)" :
			       "without bytes (no trace)", x->frames, x->cpu,
			       x->rss_kb / 1024.0);
	}
}

/* The partitions and run.partitions = auto's calibration, as text. */
static void
print_partitions(const struct bench_out *b)
{
	const struct shape *psh = b->psh;
	const struct par_result (*pr)[3] = b->pr;
	const uint32_t *npr = b->npr;
	const struct par_auto *au = b->au;
	uint32_t npsh = b->npsh, busy = b->busy, repeat = b->repeat;
	double probe = b->probe;
	int i;

	printf("\npartitions: AdamW, phase sync, 8192-byte payloads, no trace, wall time, "
	       "least of %u (runs alternating), %u lcores", repeat, rte_lcore_count());
	if (busy > 0)
		printf(", %u other processes busy on the CPUs meanwhile", busy);
	printf("\n");
	printf("  %-8s %5s %6s %6s %10s %8s %8s %6s %9s %10s %10s %9s\n", "D x N", "steps",
	       "parts", "lcores", "frames", "wall s", "speedup", "effic.", "windows",
	       "win/step", "frames/win", "busiest");
	for (i = 0; i < (int)npsh; i++)
		for (uint32_t k = 0; k < npr[i]; k++) {
			const struct par_result *x = &pr[i][k];
			double sp = pr[i][0].wall / x->wall;
			uint32_t used = x->parts < x->lcores ? x->parts : x->lcores;
			char name[24];

			snprintf(name, sizeof(name), "%ux%u", x->d, x->n);
			printf("  %-8s %5u %6u %6u %10" PRIu64 " %8.3f %8.2f %6.2f %9" PRIu64
			       " %10.0f %10.0f %8.0f%%\n", name, x->steps, x->parts, x->lcores,
			       x->frames, x->wall, sp, sp / (used ? used : 1), x->windows,
			       (double)x->windows / x->steps,
			       x->windows ? (double)x->frames / x->windows : 0.0,
			       x->parts > 1 ? 100.0 * x->busy_max / x->wall : 100.0);
		}
	printf("  (speedup: one partition's wall time over this one's; efficiency: the "
	       "speedup over the lcores used; windows of the lookahead (the WAN links' "
	       "delay, or the NIC links' with more partitions than data centres); busiest: "
	       "the busiest partition's time running events, of the wall time: the rest "
	       "is waiting for the others and the windows' bookkeeping)\n");
	printf("\nrun.partitions = auto: its calibration after each round (autopart.h), "
	       "against the speedup measured above\n");
	for (i = 0; i < (int)npsh; i++) {
		const struct par_auto *a = &au[i];
		double sp = pr[i][0].wall / pr[i][1].wall, lo, med, hi, clo, cmed, chi;
		uint32_t parts = 0;
		char name[24];

		for (uint32_t k = 0; k < a->n; k++)
			parts += a->chose[k] > 1;
		spread(a->gain, a->n, &lo, &med, &hi);
		spread(a->cost, a->n, &clo, &cmed, &chi);
		snprintf(name, sizeof(name), "%ux%u", psh[i].d, psh[i].n);
		printf("  %-8s chose partitions %u of %u times, one engine %u (calibrated "
		       "speedup %.2f / %.2f / %.2f min / median / max, %.3f s each at the "
		       "median); measured %.2f: %s\n", name, parts, a->n, a->n - parts, lo,
		       med, hi, cmed, sp,
		       (sp >= DP_AUTO_GAIN) == (parts * 2 > a->n) ? "agrees" : "disagrees");
	}
	if (probe > 0)
		printf("  (two CPUs writing neighbouring cache lines took %.2f times as long as "
		       "pages apart: about 1, the CPUs share their caches; about 2, every line "
		       "the partitions share or neighbour costs, and their events cost more)\n",
		       probe);
}

/*
 * The shapes first, each in a process of its own, before this one grows; the least CPU time
 * of the @p repeat runs (the least disturbed), the largest peak RSS.
 */
static void
measure_shapes(struct shape *sh, uint32_t n, uint32_t repeat)
{
	uint32_t i;

	for (i = 0; i < n; i++) {
		struct shape best = sh[i];
		uint32_t k;

		for (k = 0; k < repeat; k++) {
			struct shape x = sh[i];

			run_shape("/proc/self/exe", &x);
			if (!x.ok) {
				best.ok = 0;
				break;
			}
			if (k == 0 || x.cpu < best.cpu) {
				long rss = best.rss_kb;

				best = x;
				best.rss_kb = RTE_MAX(rss, x.rss_kb);
			} else {
				best.rss_kb = RTE_MAX(best.rss_kb, x.rss_kb);
			}
		}
		sh[i] = best;
	}
}

/* The command line: 0, or 2 (said: a bad one). */
static int
bench_args(int argc, char **argv, bool *json, uint32_t *steps, uint32_t *repeat, uint32_t *busy,
	   struct shape *psh, uint32_t *npsh, struct shape *sh, uint32_t *nsh)
{
	const char *shapes = SHAPES_DEFAULT, *pshapes = PAR_SHAPES_DEFAULT;
	int i;

	for (i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--json") == 0)
			*json = true;
		else if (strcmp(argv[i], "--steps") == 0 && i + 1 < argc)
			*steps = (uint32_t)strtoul(argv[++i], NULL, 10);
		else if (strcmp(argv[i], "--shapes") == 0 && i + 1 < argc)
			shapes = argv[++i];
		else if (strcmp(argv[i], "--partitions") == 0 && i + 1 < argc)
			pshapes = argv[++i];
		else if (strcmp(argv[i], "--repeat") == 0 && i + 1 < argc)
			*repeat = (uint32_t)strtoul(argv[++i], NULL, 10);
		else if (strcmp(argv[i], "--busy") == 0 && i + 1 < argc)
			*busy = (uint32_t)strtoul(argv[++i], NULL, 10);
		else {
			fprintf(stderr, "usage: vt_bench [--steps N] [--repeat N] [--json] "
				"[--shapes DxN[:STEPS],...|none] [--partitions DxN:STEPS,...|none] "
				"[--busy N]\n");
			return 2;
		}
	}
	if (*busy > BUSY_MAX) {
		fprintf(stderr, "vt_bench: --busy must be in 0..%d\n", BUSY_MAX);
		return 2;
	}
	if (*steps < 1 || *steps > 100000) {
		fprintf(stderr, "vt_bench: --steps must be in 1..100000\n");
		return 2;
	}
	if (*repeat < 1 || *repeat > PAR_REPEAT_MAX) {
		fprintf(stderr, "vt_bench: --repeat must be in 1..100\n");
		return 2;
	}
	if (parse_shapes(pshapes, psh, npsh) != 0) {
		fprintf(stderr, "vt_bench: --partitions: '%s' is not a list of DxN[:STEPS] (D 1..64, "
			"N 1..1024, at most %d)\n", pshapes, SHAPES_MAX);
		return 2;
	}
	if (parse_shapes(shapes, sh, nsh) != 0) {
		fprintf(stderr, "vt_bench: --shapes: '%s' is not a list of DxN[:STEPS] (D 1..64, "
			"N 1..1024, at most %d)\n", shapes, SHAPES_MAX);
		return 2;
	}
	return 0;
}

int
main(int argc, char **argv)
{
	static struct bench_out b;		/* zeroed; large */
	struct result *r = b.r;
	struct shape *sh = b.sh, *psh = b.psh;
	struct par_result (*pr)[3] = b.pr;
	uint32_t *npr = b.npr;
	struct par_auto *au = b.au;
	uint32_t nload = 0;
	struct dp_fpool_params fp = { .n = POOL_N, .frame_max = 9000 + SM_ETH_HDR, .grow = 16384,
				      .compact = true };
	struct rte_mempool *pool, *whole;
	uint32_t steps = 50, nsh = 0, repeat = 3;
	uint32_t npsh = 0;
	double probe = 0;
	char eal[1024];
	char err[256];
	bool json = false;
	uint32_t busy = 0;
	pid_t busy_pid[BUSY_MAX];
	int i, rc;

	if (argc >= 5 && strcmp(argv[1], "--child") == 0)
		return child((uint32_t)atoi(argv[2]), (uint32_t)atoi(argv[3]),
			     (uint32_t)atoi(argv[4]), argc > 5 ? atof(argv[5]) : 0,
			     argc > 6 && atoi(argv[6]) != 0);
	rc = bench_args(argc, argv, &json, &steps, &repeat, &busy, psh, &npsh, sh, &nsh);
	if (rc != 0)
		return rc;
	/* the memory under load (after the shapes, in sh[nsh], sh[nsh + 1]): without bytes, and
	 * with them as with a trace */
	if (nsh > 0) {
		for (i = 0; i < 2; i++) {
			struct shape *x = &sh[nsh + i];

			memset(x, 0, sizeof(*x));
			x->d = 2;
			x->n = 4;
			x->steps = 20;
			x->load = 0.9;
			x->bytes = i == 1;
		}
		nload = 2;
	}
	measure_shapes(sh, nsh + nload, repeat);
	/* before the EAL gives this thread an lcore's CPUs */
	if (npsh > 0)
		probe = line_probe();
	/* an lcore per CPU the process may run on, up to PAR_MAX, for the partitions (the rest
	 * runs on the first) */
	{
		uint32_t cpus = 1;

		if (dp_eal_cpus(eal, sizeof(eal), &cpus) != 0 || cpus < 1)
			cpus = 1;
		rc = dp_eal_default(eal, sizeof(eal), cpus > PAR_MAX ? PAR_MAX : cpus,
				    dp_pool_mem_mb(POOL_N, 9000 + SM_ETH_HDR) + 64);
	}
	if (rc == 0)
		rc = dp_eal_init(eal, 0, err, sizeof(err));
	else
		snprintf(err, sizeof(err), "the CPUs this process may run on: %s", strerror(-rc));
	if (rc != 0) {
		fprintf(stderr, "vt_bench: %s\n", err);
		return 1;
	}
	pool = dp_fpool_create("bench_frames", &fp);
	whole = dp_pool_create("bench_whole", POOL_N, 9000 + SM_ETH_HDR, err, sizeof(err));
	if (pool == NULL || whole == NULL) {
		fprintf(stderr, "vt_bench: %s\n", pool == NULL ? "no frame pool" : err);
		dp_fpool_free(pool);
		dp_fpool_free(whole);
		dp_eal_fini();
		return 1;
	}
	r[0].what = "9000-byte MTU";
	r[1].what = "1500-byte MTU";
	r[2].what = r[3].what = r[4].what = "8192-byte payloads";
	r[0].bytes = r[1].bytes = r[2].bytes = "none";
	r[3].bytes = "compact";
	r[4].bytes = "whole";
	rc = engine_best(pool, false, pool, 9000, 9000 - 76, steps, repeat, &r[0]);
	if (rc == 0)
		rc = engine_best(pool, false, pool, 1500, 1500 - 76, steps / 5 ? steps / 5 : 1,
				 repeat, &r[1]);
	if (rc == 0)
		rc = engine_best(pool, false, pool, 9000, 8192, 4 * steps, repeat, &r[2]);
	if (rc == 0)
		rc = engine_best(pool, true, pool, 9000, 8192, 4 * steps, repeat, &r[3]);
	if (rc == 0)
		rc = engine_best(whole, true, whole, 9000, 8192, 4 * steps, repeat, &r[4]);
	busy_start(busy_pid, busy);
	for (i = 0; rc == 0 && i < (int)npsh; i++)
		rc = par_shape(psh[i].d, psh[i].n, psh[i].steps, repeat, pr[i], &npr[i], &au[i]);
	busy_stop(busy_pid, busy);
	machine(b.cpu, sizeof(b.cpu));
	b.nsh = nsh;
	b.nload = nload;
	b.npsh = npsh;
	b.probe = probe;
	b.busy = busy;
	b.repeat = repeat;
	if (rc == 0 && json)
		print_json(&b);
	else if (rc == 0)
		print_text(&b);
	if (rc == 0 && !json && b.nload > 0)
		print_load(&b);
	if (rc == 0 && !json && b.npsh > 0)
		print_partitions(&b);
	dp_fpool_free(pool);
	dp_fpool_free(whole);
	dp_eal_fini();
	for (i = 0; i < (int)(nsh + nload); i++)
		if (!sh[i].ok)
			rc = -1;
	return rc == 0 ? 0 : 1;
}
