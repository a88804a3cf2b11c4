/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * vt_bench's fourth measure: the partitions (parallel.h), run.partitions = auto's calibration,
 * the processes that keep the CPUs busy meanwhile, and the cache-line probe (vt_bench.c says
 * what is measured and why).
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
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <rte_lcore.h>

#include "autopart.h"
#include "eal.h"
#include "presets.h"
#include "vt_bench.h"

/* The parameters of @p x's shape (its partitions apart). */
static void
par_params(const struct par_result *x, struct sm_params *p, struct sm_packet *pk,
	   struct dp_run_params *rp)
{
	sm_params_default(p);
	sm_packet_default(pk);
	p->topo.n_dc = x->d;
	p->topo.per_dc = x->n;
	pk->mtu = 9000;
	pk->payload = 8192;
	run_params(rp, p, pk, x->steps);
}

/* One run of @p x's shape in x->parts partitions on up to @p lcores lcores. */
static int
par_run(struct par_result *x, uint32_t lcores)
{
	struct sm_params p;
	struct sm_packet pk;
	struct dp_run_result res;
	struct dp_run_params rp;
	char err[256];
	double t0;
	int rc;

	par_params(x, &p, &pk, &rp);
	rp.partitions = x->parts;
	rp.lcores = lcores;
	t0 = now_s();
	rc = dp_run(&rp, &res, err, sizeof(err));
	if (rc != 0) {
		fprintf(stderr, "vt_bench: %ux%u in %u partitions: %s\n", x->d, x->n, x->parts, err);
		return rc;
	}
	x->wall = now_s() - t0;
	x->frames = res.frames;
	x->windows = res.windows;
	x->busy = res.busy_s;
	x->busy_max = res.busy_max_s;
	x->lookahead = res.lookahead;
	x->lcores = res.lcores;
	x->parts = res.partitions;
	dp_run_result_free(&res);
	return 0;
}

/*
 * The shape @p d x @p n in 1, 2 and 4 partitions, alternating, each its least wall of @p repeat;
 * and after each round what run.partitions = auto's calibration chooses for it, in @p au.
 */
int
par_shape(uint32_t d, uint32_t n, uint32_t steps, uint32_t repeat, struct par_result *out,
	  uint32_t *nout, struct par_auto *au)
{
	static const uint32_t parts[] = { 1, 2, 4 };
	uint32_t lcores = rte_lcore_count(), k, i;

	*nout = RTE_DIM(parts);
	memset(au, 0, sizeof(*au));
	for (k = 0; k < repeat; k++) {
		struct par_result c = { .d = d, .n = n, .steps = steps };
		struct sm_params p;
		struct sm_packet pk;
		struct dp_run_params rp;
		struct dp_auto a;

		for (i = 0; i < *nout; i++) {
			struct par_result x = { .d = d, .n = n, .steps = steps, .parts = parts[i],
						.ok = 1 };

			if (par_run(&x, lcores) != 0)
				return -1;
			if (k == 0 || x.wall < out[i].wall)
				out[i] = x;
		}
		par_params(&c, &p, &pk, &rp);
		au->chose[au->n] = dp_auto_partitions(&rp, lcores, NULL, &a);
		au->gain[au->n] = a.gain;
		au->cost[au->n] = a.cost_s;
		snprintf(au->why, sizeof(au->why), "%s", a.why);
		au->n++;
	}
	return 0;
}

/* Of @p n values: the least, the median and the largest. */
void
spread(const double *v, uint32_t n, double *lo, double *med, double *hi)
{
	double s[PAR_REPEAT_MAX];

	memcpy(s, v, n * sizeof(*s));
	qsort(s, n, sizeof(*s), sm_cmp_double);
	*lo = s[0];
	*med = sm_median_sorted(s, n);
	*hi = s[n - 1];
}

/* @p n processes that spin until busy_stop() (or this one ends): other work on the CPUs. */
void
busy_start(pid_t *pid, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++) {
		pid[i] = fork();
		if (pid[i] == 0) {
			volatile uint64_t x = 0;

			prctl(PR_SET_PDEATHSIG, SIGKILL);
			for (;;)
				x++;
		}
	}
}

void
busy_stop(pid_t *pid, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++)
		if (pid[i] > 0) {
			kill(pid[i], SIGKILL);
			waitpid(pid[i], NULL, 0);
		}
}

struct probe_arg {
	int cpu;
	uint8_t *buf;
	size_t len, gran;
	uint32_t part;
	double s;
};

/* Random writes to the blocks of @gran bytes with index % 2 == part of the buffer. */
static void *
probe_thread(void *arg)
{
	struct probe_arg *a = arg;
	uint64_t x = 88172645463325252ULL + a->part, blocks = a->len / a->gran / 2;
	cpu_set_t set;
	double t0;

	CPU_ZERO(&set);
	CPU_SET(a->cpu, &set);
	pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
	t0 = now_s();
	for (uint32_t i = 0; i < PROBE_WRITES; i++) {
		uint64_t b;

		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		b = (x % blocks) * 2 + a->part;
		((volatile uint64_t *)(a->buf + b * a->gran))[(x >> 40) % (a->gran / 8)] += i;
	}
	a->s = now_s() - t0;
	return NULL;
}

/*
 * How much two CPUs writing neighbouring cache lines slow each other: the time of two threads,
 * on the first two CPUs the process may run on, writing at random into interleaved 64-byte
 * lines, over the same into interleaved pages.  About 1: the CPUs share their caches (or
 * interfere not); about 2: a line one CPU writes is taken from the other's cache, and
 * partitions on them pay for every line they share or neighbour.  0 if there are not two CPUs.
 */
double
line_probe(void)
{
	size_t len = 4u << 20, g;
	double t[2] = { 0, 0 };
	cpu_set_t set;
	int cpus[2], n = 0;
	uint8_t *buf;

	if (sched_getaffinity(0, sizeof(set), &set) != 0)
		return 0;
	for (int c = 0; c < CPU_SETSIZE && n < 2; c++)
		if (CPU_ISSET(c, &set))
			cpus[n++] = c;
	buf = aligned_alloc(4096, len);
	if (n < 2 || buf == NULL) {
		free(buf);
		return 0;
	}
	memset(buf, 1, len);
	for (g = 0; g < 2; g++) {
		struct probe_arg a[2];
		pthread_t th;

		for (int i = 0; i < 2; i++)
			a[i] = (struct probe_arg){ .cpu = cpus[i], .buf = buf, .len = len,
						   .gran = g == 0 ? 64 : 4096, .part = (uint32_t)i };
		if (pthread_create(&th, NULL, probe_thread, &a[1]) != 0) {
			free(buf);
			return 0;
		}
		probe_thread(&a[0]);
		pthread_join(th, NULL);
		t[g] = RTE_MAX(a[0].s, a[1].s);
	}
	free(buf);
	sched_setaffinity(0, sizeof(set), &set);	/* this thread's own, back */
	return t[1] > 0 ? t[0] / t[1] : 0;
}
