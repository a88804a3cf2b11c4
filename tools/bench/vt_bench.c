/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Benchmark: frames per second per core of the virtual-time engine, end to end (workers make the
 * frames, links and switches move them, workers take them back), on 2 DC x 4 AdamW over a 100 GbE
 * WAN, side by side with the cost floor: the same frames made the same way and passed once
 * through a DPDK rte_ring (SP/SC, bursts of 32), then freed.  One process, one core, one run after
 * the other, so the ratio holds on a noisy machine even when the absolute rates move.
 *
 * Usage: vt_bench [--steps N] [--json]
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <rte_mempool.h>
#include <rte_ring.h>

#include "eal.h"
#include "frame.h"
#include "packet.h"
#include "presets.h"
#include "run.h"

#define POOL_N 40000
#define BURST 32

static double
now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
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
	t0 = now_s();
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
	return done / (now_s() - t0);
}

struct result {
	const char *what;
	uint32_t mtu, payload, steps;
	uint64_t frames;
	double wall, fps, floor_fps, step_ms;
};

static int
engine(struct rte_mempool *pool, uint32_t mtu, uint32_t payload, uint32_t steps,
       struct result *out)
{
	struct sm_params p;
	struct sm_packet pk;
	struct dp_run_result res;
	struct dp_run_params rp;
	char err[256];
	double t0;
	int rc;

	sm_params_default(&p);
	sm_packet_default(&pk);
	pk.mtu = mtu;
	pk.payload = payload;
	memset(&rp, 0, sizeof(rp));
	rp.model = &p;
	rp.pk = &pk;
	rp.var = SM_VAR_A;
	rp.steps = steps;
	rp.run_id = 1;
	rp.q_nic = 2000000;
	rp.q_port = 2000000;
	rp.q_sw = 16000000;
	rp.q_wan = 64000000;
	rp.pool = pool;
	t0 = now_s();
	rc = dp_run(&rp, &res, err, sizeof(err));
	if (rc != 0) {
		fprintf(stderr, "vt_bench: %s\n", err);
		return rc;
	}
	out->wall = now_s() - t0;
	out->mtu = mtu;
	out->payload = payload;
	out->steps = steps;
	out->frames = res.frames;
	out->fps = res.frames / out->wall;
	out->step_ms = res.step[steps - 1].time / 1e9;
	dp_run_result_free(&res);
	out->floor_fps = ring_floor(pool, out->frames, payload);
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

int
main(int argc, char **argv)
{
	struct result r[3];
	struct rte_mempool *pool;
	uint32_t steps = 50;
	char err[256], cpu[160];
	bool json = false;
	int i, rc;

	for (i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--json") == 0)
			json = true;
		else if (strcmp(argv[i], "--steps") == 0 && i + 1 < argc)
			steps = (uint32_t)strtoul(argv[++i], NULL, 10);
		else {
			fprintf(stderr, "usage: vt_bench [--steps N] [--json]\n");
			return 2;
		}
	}
	if (steps < 1 || steps > 100000) {
		fprintf(stderr, "vt_bench: --steps must be in 1..100000\n");
		return 2;
	}
	rc = dp_eal_init(NULL, dp_pool_mem_mb(POOL_N, 9000 + SM_ETH_HDR) + 64, err, sizeof(err));
	if (rc != 0) {
		fprintf(stderr, "vt_bench: %s\n", err);
		return 1;
	}
	pool = dp_pool_create("bench_frames", POOL_N, 9000 + SM_ETH_HDR, err, sizeof(err));
	if (pool == NULL) {
		fprintf(stderr, "vt_bench: %s\n", err);
		dp_eal_fini();
		return 1;
	}
	r[0].what = "9000-byte MTU";
	r[1].what = "1500-byte MTU";
	r[2].what = "8192-byte payloads";
	rc = engine(pool, 9000, 9000 - 76, steps, &r[0]);
	if (rc == 0)
		rc = engine(pool, 1500, 1500 - 76, steps / 5 ? steps / 5 : 1, &r[1]);
	if (rc == 0)
		rc = engine(pool, 9000, 8192, 4 * steps, &r[2]);
	machine(cpu, sizeof(cpu));
	if (rc == 0 && json) {
		printf("{\"machine\": \"%s\", \"results\": [", cpu);
		for (i = 0; i < 3; i++)
			printf("%s{\"case\": \"%s\", \"mtu\": %u, \"payload\": %u, \"steps\": %u, "
			       "\"frames\": %" PRIu64 ", \"wall_s\": %.4f, \"engine_fps\": %.0f, "
			       "\"ring_fps\": %.0f, \"ratio\": %.4f}", i ? ", " : "", r[i].what,
			       r[i].mtu, r[i].payload, r[i].steps, r[i].frames, r[i].wall, r[i].fps,
			       r[i].floor_fps, r[i].fps / r[i].floor_fps);
		printf("]}\n");
	} else if (rc == 0) {
		printf("virtual-time engine, 2 DC x 4 AdamW, 100 GbE WAN, one core (%s)\n", cpu);
		printf("  %-20s %6s %10s %8s %12s %12s %8s\n", "frames", "steps", "frames", "wall s",
		       "engine Mf/s", "ring Mf/s", "ratio");
		for (i = 0; i < 3; i++)
			printf("  %-20s %6u %10" PRIu64 " %8.3f %12.2f %12.2f %8.3f\n", r[i].what,
			       r[i].steps, r[i].frames, r[i].wall, r[i].fps / 1e6,
			       r[i].floor_fps / 1e6, r[i].fps / r[i].floor_fps);
		printf("  (ratio: the engine's frames per second over the floor's, made the same way "
		       "and passed once through an rte_ring)\n");
	}
	rte_mempool_free(pool);
	dp_eal_fini();
	return rc == 0 ? 0 : 1;
}
