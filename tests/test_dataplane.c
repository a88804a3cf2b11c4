/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Tier 2: the data plane on the EAL (--no-huge --no-pci), in virtual time.
 *
 * At zero load every step of every variant, topology and module setting of the deck equals the
 * packet-level closed form (the requirement is 1e-6 relative; it is exact to the picosecond), stays
 * within the stated bound of the fluid model, and leaves every queue empty and the pool full.  The
 * same run twice writes the same trace byte for byte.  Bad settings fail with the element named.
 * The tests under load and of streamed results are in test_dataplane_load.c.
 */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <rte_mempool.h>

#include "../traces/pcapng.h"
#include "capture.h"
#include "common.h"
#include "eal.h"
#include "fpool.h"
#include "frame.h"
#include "library.h"
#include "packet.h"
#include "presets.h"
#include "queueing.h"
#include "record.h"
#include "run.h"
#include "test_dataplane.h"
#include "variant.h"

struct rte_mempool *pool;
struct sm_params P0;
struct sm_packet PK0;
static uint32_t P0_partitions;	/* traced_run()'s partitions (0: one engine) */

static int
setup(void **state)
{
	pool = tc_eal_pool("test_frames", POOL_N, SM_HDR_BYTES + 8192);
	if (pool == NULL)
		return -1;
	sm_params_default(&P0);
	sm_packet_default(&PK0);
	return 0;
}

static int
teardown(void **state)
{
	tc_eal_fini(pool);
	return 0;
}

struct dp_run_params
params(const struct sm_params *p, const struct sm_packet *pk, enum sm_variant v, double budget,
       uint32_t steps)
{
	struct dp_run_params rp = {
		.model = p, .pk = pk, .var = v, .budget = budget, .steps = steps, .run_id = 1,
		.t0 = 0, .q_nic = 2000000, .q_port = 2000000, .q_sw = 16000000,
		.q_wan = 64000000, .pool = pool,
	};

	return rp;
}

/* Background of @p sizes at @p load on every WAN direction (50 GB/s hosts), the sync lossless. */
void
bg_on(struct dp_run_params *rp, const struct sm_size_dist *sizes, double load, uint64_t seed)
{
	rp->bg.load = load;
	rp->bg.sizes = sizes;
	rp->bg.host_bw = 50000000000ULL;
	rp->bg.seed = seed;
	rp->bg.directions = UINT32_MAX;
	rp->bg.fg_lossless = true;
}

/* Run and compare every step with the closed form; returns the worst relative difference. */
static double
run_against_model(const struct sm_params *p, const struct sm_packet *pk, enum sm_variant v,
		  double budget, uint32_t steps, struct dp_run_result *keep)
{
	struct dp_run_params rp = params(p, pk, v, budget, steps);
	struct sm_packet_step pm[8];
	struct dp_run_result res;
	char err[512];
	double worst = 0;
	uint32_t s;
	int rc;

	assert_true(steps <= 8);
	rc = dp_run(&rp, &res, err, sizeof(err));
	if (rc != 0)
		fail_msg("%s budget %g: %s", sm_variant_name(v), budget, err);
	assert_int_equal(sm_packet_model(p, pk, v, budget, steps, pm), 0);
	assert_int_equal(res.steps, steps);
	for (s = 0; s < steps; s++) {
		double d = fabs((double)res.step[s].time - (double)pm[s].time_ps) /
			   (double)pm[s].time_ps;

		if (d > worst)
			worst = d;
		assert_int_equal(res.step[s].frames, pm[s].frames);
	}
	assert_int_equal(res.drops, 0);
	assert_int_equal(rte_mempool_avail_count(pool), POOL_N);
	if (keep != NULL)
		*keep = res;
	else
		dp_run_result_free(&res);
	return worst;
}

/* Every topology x variant x module setting of the deck, at zero load. */
static void
test_zero_load_matches_closed_form(void **state)
{
	unsigned int i, n, runs = 0;
	const struct sm_deck_topology *t = sm_deck_topologies(&n);

	for (i = 0; i < n; i++) {
		struct sm_params p = P0;
		int v, b;

		sm_apply_topology(&p, &t[i]);
		for (v = 0; v < SM_VAR_COUNT; v++) {
			for (b = 0; b < SM_BUDGET_COUNT; b++) {
				double budget = sm_budget_value(&p.mod, b), worst, bound;
				struct dp_run_result res;
				struct sm_program prog = { 0 };
				struct sm_step fl;

				if (!sm_variant_has_module(v) && b != SM_BUDGET_FREE)
					continue;
				worst = run_against_model(&p, &PK0, v, budget, 2, &res);
				if (worst > 1e-6)
					fail_msg("%s %s[%s]: emulated differs from the closed form by "
						 "%.3g", t[i].name, sm_variant_name(v),
						 sm_budget_name(b), worst);
				/* and within the stated bound of the fluid model, never below it */
				assert_int_equal(sm_step_eval(&p, v, budget, &fl), 0);
				sm_program_free(&prog);
				assert_int_equal(sm_program_build(&p, v, budget, &prog), 0);
				bound = sm_packet_fluid_bound(&p, &PK0, &prog);
				sm_program_free(&prog);
				assert_true(res.step[1].time / 1e12 >= fl.total);
				assert_true(res.step[1].time / 1e12 <= fl.total * (1 + bound));
				dp_run_result_free(&res);
				runs++;
			}
		}
	}
	assert_int_equal(runs, n * 10);
}

/*
 * Every collective on every WAN shape at zero load, on grids of 2 x 4, 3 x 5, 8 x 2 and 4 x 16:
 * the data plane against the packet form, to the picosecond (a 4 MB job, so the 4 x 16 grid
 * stays small; the tree's 2 MB halves are two chunks each); then the all-to-all, whose pairwise
 * rounds interleave on shared links, and the step and no-barrier syncs, where rounds and phases
 * interleave.
 */
static void
test_collectives_and_shapes_match_the_form(void **state)
{
	static const unsigned int grids[][2] = { { 2, 4 }, { 3, 5 }, { 8, 2 }, { 4, 16 } };
	static const enum sm_opkind ops[] = { SM_OPK_ALLREDUCE, SM_OPK_ALLGATHER,
					      SM_OPK_REDUCESCATTER, SM_OPK_ALLTOALL };
	static const enum sm_sync syncs[] = { SM_SYNC_STEP, SM_SYNC_NONE };
	unsigned int g, shape, algo, o, y, runs = 0;

	for (g = 0; g < sizeof(grids) / sizeof(grids[0]); g++)
		for (shape = 0; shape < SM_WAN_SHAPE_COUNT; shape++)
			for (algo = SM_ALGO_RING; algo < SM_ALGO_COUNT; algo++)
				for (o = 0; o <= sizeof(ops) / sizeof(ops[0]); o++) {
					struct sm_params p = P0;
					enum sm_variant v = o < 4 ? SM_VAR_A : SM_VAR_CP;
					double worst;

					if (o == 3 && algo != SM_ALGO_RING)
						continue;	/* the same exchange */
					p.topo.n_dc = grids[g][0];
					p.topo.per_dc = grids[g][1];
					p.topo.wan = (enum sm_wan_shape)shape;
					p.job.collective = (enum sm_algo)algo;
					p.job.operation = o < 4 ? ops[o] : SM_OPK_ALLREDUCE;
					p.job.bytes = 4e6;
					worst = run_against_model(&p, &PK0, v, 0, 2, NULL);
					if (worst != 0)
						fail_msg("%u x %u, wan %s, %s, %s %s: %.3g off the form",
							 p.topo.n_dc, p.topo.per_dc,
							 sm_wan_shape_name(p.topo.wan),
							 sm_algo_name(p.job.collective),
							 sm_variant_name(v),
							 sm_opkind_name(p.job.operation), worst);
					runs++;
				}
	assert_int_equal(runs, 4 * 3 * (4 * 4 + 1));
	for (y = 0; y < 2; y++)
		for (shape = 0; shape < SM_WAN_SHAPE_COUNT; shape++)
			for (o = 0; o < sizeof(ops) / sizeof(ops[0]); o++) {
				struct sm_params p = P0;
				struct sm_packet pk = PK0;
				double worst;

				pk.sync = syncs[y];
				p.topo.n_dc = 3;
				p.topo.per_dc = 5;
				p.topo.wan = (enum sm_wan_shape)shape;
				/* the all-reduce also as a pipelined tree (three 1 MB chunks a
				 * tree: rounds where several levels send at once) */
				p.job.collective = o == 0 && shape == SM_WAN_STAR ? SM_ALGO_TREE :
										     SM_ALGO_DIRECT;
				p.job.operation = ops[o];
				p.job.bytes = p.job.collective == SM_ALGO_TREE ? 6e6 : 4e6;
				worst = run_against_model(&p, &pk, SM_VAR_A, 0, 3, NULL);
				if (worst != 0)
					fail_msg("sync %u, wan %s, %s %s: %.3g off the form", pk.sync,
						 sm_wan_shape_name(p.topo.wan),
						 sm_algo_name(p.job.collective),
						 sm_opkind_name(p.job.operation), worst);
			}
}


/*
 * job.direct on a 4 x 2 mesh, a 4 MB all-reduce (B): concurrent, the default on a mesh, sends
 * each worker's shard (B / 2) to its 3 DC peers at once, each DC pair's two flows on its own WAN
 * link: one round of B / b_w + l_w; rounds takes D - 1 = 3 such.  Both runs equal the packet form
 * to the picosecond; concurrent's stays within the fluid model's stated bound (its frames take
 * turns on the NIC, which the bound's fill covers), and the fluid exchange terms are 3 apart.
 * The rounds run is shorter than its fluid sum (each round's frames fill the latency of the one
 * before: at most l_w a round), so the runs differ by (D - 2) B / b_w + between 0 and (D - 2) l_w.
 */
static void
test_direct_concurrent_on_a_mesh(void **state)
{
	struct sm_params p = P0;
	struct sm_program prog;
	struct dp_run_result res[2];
	struct sm_step fl[2];
	double ex[2], bound, gap, wan = 4e6 / P0.wan.bw;
	unsigned int i, k;

	p.topo.n_dc = 4;
	p.topo.per_dc = 2;
	p.topo.wan = SM_WAN_MESH;
	p.job.collective = SM_ALGO_DIRECT;
	p.job.bytes = 4e6;
	for (i = 0; i < 2; i++) {
		p.job.direct = i == 0 ? SM_DIRECT_AUTO : SM_DIRECT_ROUNDS;
		assert_true(sm_plan_direct_fan(&p) == (i == 0));
		assert_true(run_against_model(&p, &PK0, SM_VAR_A, 0, 1, &res[i]) == 0);
		assert_int_equal(sm_step_eval(&p, SM_VAR_A, 0, &fl[i]), 0);
		for (k = 0, ex[i] = 0; k < fl[i].n; k++)
			if (fl[i].term[k].res == SM_RES_WAN)
				ex[i] += fl[i].term[k].t;
	}
	assert_true(fabs(ex[0] - (wan + P0.wan.lat)) < 1e-12);
	assert_true(fabs(ex[1] - 3 * ex[0]) < 1e-12);
	p.job.direct = SM_DIRECT_CONCURRENT;
	assert_int_equal(sm_program_build(&p, SM_VAR_A, 0, &prog), 0);
	assert_true(sm_packet_fluid_bound_holds(&p, &PK0, &prog, NULL, 0));
	bound = sm_packet_fluid_bound(&p, &PK0, &prog);
	sm_program_free(&prog);
	assert_true(res[0].step[0].time / 1e12 >= fl[0].total);
	assert_true(res[0].step[0].time / 1e12 <= fl[0].total * (1 + bound));
	gap = (double)(res[1].step[0].time - res[0].step[0].time) / 1e12;
	assert_true(gap >= 2 * wan && gap <= 2 * (wan + P0.wan.lat));
	dp_run_result_free(&res[0]);
	dp_run_result_free(&res[1]);
}

/*
 * The libraries' all-reduces at zero load, against the packet form to the picosecond: Open MPI's
 * ring, recursive doubling and Rabenseifner as the fixed decision picks them for 2, 3, 4 and 8
 * ranks, and gloo's ring with its ready messages back around the ring (over 3 ranks a round
 * apart from the data's), flat and hierarchical grids, ring and mesh WANs, every sync.
 */
static void
test_library_matches_the_form(void **state)
{
	static const struct {
		unsigned int d, n;
		enum sm_wan_shape wan;
		double bytes;
		enum sm_library lib;
	} c[] = {
		{ 2, 1, SM_WAN_RING, 6000, SM_LIB_OPENMPI },	/* ring */
		{ 2, 1, SM_WAN_RING, 2000, SM_LIB_OPENMPI },	/* recursive doubling */
		{ 2, 1, SM_WAN_RING, 300000, SM_LIB_OPENMPI },	/* rabenseifner */
		{ 3, 1, SM_WAN_MESH, 40000, SM_LIB_OPENMPI },	/* ring over 3 */
		{ 2, 2, SM_WAN_RING, 100000, SM_LIB_OPENMPI },	/* rabenseifner, in and across DCs */
		{ 4, 1, SM_WAN_MESH, 2000, SM_LIB_OPENMPI },	/* recursive doubling */
		{ 8, 1, SM_WAN_MESH, 100000, SM_LIB_OPENMPI },	/* rabenseifner, 3 halvings */
		{ 2, 1, SM_WAN_RING, 300000, SM_LIB_GLOO },
		{ 3, 1, SM_WAN_RING, 40000, SM_LIB_GLOO },	/* ready messages 2 WAN links */
		{ 2, 2, SM_WAN_MESH, 100000, SM_LIB_GLOO },
	};
	static const enum sm_sync syncs[] = { SM_SYNC_PHASE, SM_SYNC_STEP, SM_SYNC_NONE };
	unsigned int i, y;

	for (i = 0; i < sizeof(c) / sizeof(c[0]); i++)
		for (y = 0; y < sizeof(syncs) / sizeof(syncs[0]); y++) {
			struct sm_params p = P0;
			struct sm_packet pk = PK0;
			double worst;

			p.topo.n_dc = c[i].d;
			p.topo.per_dc = c[i].n;
			p.topo.wan = c[i].wan;
			p.job.bytes = c[i].bytes;
			p.job.library = c[i].lib;
			pk.sync = syncs[y];
			worst = run_against_model(&p, &pk, SM_VAR_A, 0, 2, NULL);
			if (worst != 0)
				fail_msg("%s %u x %u, %g B, sync %u: %.3g off the form",
					 sm_library_name(c[i].lib), c[i].d, c[i].n, c[i].bytes,
					 (unsigned int)syncs[y], worst);
		}
}
/* Shares of an emulated AdamW step follow the model's: compute, intra, WAN. */
static void
test_shares_follow_the_model(void **state)
{
	struct dp_run_result res;
	double sh[SM_RES_COUNT];
	struct sm_step fl;
	int r;

	run_against_model(&P0, &PK0, SM_VAR_A, 0, 2, &res);
	assert_int_equal(sm_step_eval(&P0, SM_VAR_A, 0, &fl), 0);
	sm_step_shares(&fl, sh);
	for (r = 0; r < SM_RES_COUNT; r++)
		assert_true(fabs(res.step[1].share[r] - sh[r]) < 0.005);
	dp_run_result_free(&res);

	/* E [low]: the module's compute stage binds, as in the model */
	run_against_model(&P0, &PK0, SM_VAR_E, P0.mod.budget[SM_BUDGET_LOW], 1, &res);
	assert_true(res.has_module);
	assert_int_equal(res.binding, SM_STAGE_COMPUTE);
	assert_true(res.step[0].share[SM_RES_MOD_COMPUTE] > 0.94);
	dp_run_result_free(&res);
}

/* Wire accounting and standard frames: still exactly the closed form. */
static void
test_wire_accounting_and_mtu(void **state)
{
	struct sm_packet pk = PK0, pay;
	struct dp_run_result wire, plain;
	double hdr, lat = 0, expect, delta;
	struct sm_step fl;
	unsigned int i;
	int v;

	pk.account = SM_ACCOUNT_WIRE;
	pk.mtu = 1500;
	pk.payload = 1500 - SM_IP_HDR - SM_UDP_HDR - SM_SE_HDR;
	for (v = 0; v < SM_VAR_COUNT; v++)
		assert_true(run_against_model(&P0, &pk, v, 0, 1, NULL) <= 1e-6);
	/* framing costs (90 + 24) / payload more on every byte a link carries */
	pay = pk;
	pay.account = SM_ACCOUNT_PAYLOAD;
	run_against_model(&P0, &pk, SM_VAR_C, 0, 1, &wire);
	run_against_model(&P0, &pay, SM_VAR_C, 0, 1, &plain);
	assert_int_equal(sm_step_eval(&P0, SM_VAR_C, 0, &fl), 0);
	for (i = 0; i < fl.n; i++)
		lat += fl.term[i].lat;
	hdr = (double)(SM_HDR_BYTES + SM_ETH_FCS + SM_ETH_PREAMBLE + SM_ETH_IFG) / pk.payload;
	expect = hdr * (fl.total - fl.t_compute - fl.t_extra - lat);
	delta = (wire.step[0].time - plain.step[0].time) / 1e12;
	assert_true(fabs(delta / expect - 1) < 0.02);
	dp_run_result_free(&wire);
	dp_run_result_free(&plain);
}

/* Without barriers the closed form holds where rounds cannot overlap (flat rings). */
static void
test_sync_modes(void **state)
{
	struct sm_params p = P0;
	struct sm_packet pk = PK0;
	const struct sm_deck_topology *t;
	unsigned int n, i;

	t = sm_deck_topologies(&n);
	for (i = 0; i < n; i++)
		if (strcmp(t[i].name, "1dc8") == 0)
			sm_apply_topology(&p, &t[i]);
	pk.sync = SM_SYNC_NONE;
	assert_true(run_against_model(&p, &pk, SM_VAR_A, 0, 3, NULL) <= 1e-6);
	pk.sync = SM_SYNC_STEP;
	assert_true(run_against_model(&p, &pk, SM_VAR_B, 0, 3, NULL) <= 1e-6);
}

static uint64_t
fnv1a(const char *path)
{
	uint64_t h = 1469598103934665603ULL;
	FILE *f = fopen(path, "rb");
	int c;

	assert_non_null(f);
	while ((c = getc(f)) != EOF)
		h = (h ^ (uint64_t)c) * 1099511628211ULL;
	fclose(f);
	return h;
}

/* A run of E' with every capture point, frames from @p mp, @p snaplen bytes kept per frame. */
static uint64_t
traced_run_from(const char *path, uint64_t *frames, struct rte_mempool *mp, uint32_t snaplen)
{
	struct dp_capture *cap = calloc(1, sizeof(*cap));
	struct tr_pcapng_params tp = { .path = path, .app = "test", .comment = "seed 1" };
	struct dp_run_params rp = params(&P0, &PK0, SM_VAR_EP, 0, 2);
	struct dp_run_result res;
	char err[256];
	uint32_t i;

	assert_non_null(cap);
	assert_int_equal(dp_capture_parse("all", &cap->mask, err, sizeof(err)), 0);
	cap->snaplen = snaplen;
	cap->w = tr_pcapng_open(&tp);
	assert_non_null(cap->w);
	rp.cap = cap;
	rp.pool = mp;
	rp.partitions = P0_partitions;
	assert_int_equal(dp_run(&rp, &res, err, sizeof(err)), 0);
	*frames = 0;
	for (i = 0; i < cap->nif; i++)
		*frames += cap->frames[i];
	assert_int_equal(tr_pcapng_close(cap->w), 0);
	dp_run_result_free(&res);
	free(cap);
	return fnv1a(path);
}

static uint64_t
traced_run(const char *path, uint64_t *frames)
{
	return traced_run_from(path, frames, pool, SM_HDR_BYTES);
}

/* The same run twice gives the same trace, byte for byte. */
static void
test_same_trace_twice(void **state)
{
	char dir[] = "/tmp/syncemu-test-XXXXXX", a[64], b[64];
	uint64_t fa, fb;

	assert_non_null(mkdtemp(dir));
	snprintf(a, sizeof(a), "%s/a.pcapng", dir);
	snprintf(b, sizeof(b), "%s/b.pcapng", dir);
	assert_true(traced_run(a, &fa) == traced_run(b, &fb));
	assert_true(fa == fb && fa > 0);
	unlink(a);
	unlink(b);
	rmdir(dir);
}

/* A WAN queue smaller than a round drops the sync's frames unless its class is lossless: the run
 * fails at once and names the link; lossless, it completes with the frames above the limit. */
static void
test_small_wan_queue_fails_cleanly(void **state)
{
	struct dp_run_params rp = params(&P0, &PK0, SM_VAR_A, 0, 1);
	struct dp_run_result res;
	char err[512];
	uint32_t i;
	uint64_t over = 0;

	rp.q_wan = 100000;
	assert_int_equal(dp_run(&rp, &res, err, sizeof(err)), -ENOBUFS);
	assert_non_null(strstr(err, "wan0>1 dropped a frame of the sync"));
	assert_int_equal(rte_mempool_avail_count(pool), POOL_N);
	rp.bg.fg_lossless = true;
	assert_int_equal(dp_run(&rp, &res, err, sizeof(err)), 0);
	for (i = 0; i < res.n_elems; i++)
		over += res.elems[i].fg_over;
	assert_true(over > 0);
	assert_int_equal(res.drops, 0);
	dp_run_result_free(&res);
	assert_int_equal(rte_mempool_avail_count(pool), POOL_N);
}

/*
 * Frames of a compact frame pool (fpool.h) write the same trace as whole frames, byte for byte,
 * payload included (a full snap length), and every mbuf comes back.
 */
static void
test_fpool_same_trace(void **state)
{
	struct dp_fpool_params fp = { .n = 4096, .frame_max = SM_HDR_BYTES + 8192, .grow = 4096,
				      .compact = true };
	char dir[] = "/tmp/syncemu-test-XXXXXX", a[64], b[64];
	struct rte_mempool *mp = dp_fpool_create("fp_trace", &fp);
	uint64_t fa, fb, ha, base;

	assert_non_null(mp);
	base = dp_fpool_in_use(mp);
	assert_non_null(mkdtemp(dir));
	snprintf(a, sizeof(a), "%s/a.pcapng", dir);
	snprintf(b, sizeof(b), "%s/b.pcapng", dir);
	ha = traced_run_from(a, &fa, pool, 0);
	assert_int_equal(rename(a, b), 0);
	assert_true(traced_run_from(a, &fb, mp, 0) == ha);
	assert_true(fa == fb && fa > 0);
	assert_int_equal(dp_fpool_in_use(mp), base);
	assert_int_equal(rte_mempool_avail_count(pool), POOL_N);
	unlink(a);
	unlink(b);
	rmdir(dir);
	dp_fpool_free(mp);
}

/*
 * A compact frame: its headers in one mbuf, the payload a shared segment of zeros; pkt_len and
 * every byte as a whole frame's.  Held frames cost one header mbuf each; the pool grows while
 * they are held, and once they are back (and TIDY_EVERY frames later) it is its first pool again
 * with its mbufs all back.
 */
static void
test_fpool_grows_and_shrinks(void **state)
{
	struct dp_fpool_params fp = { .n = 256, .frame_max = SM_HDR_BYTES + 8192, .grow = 512,
				      .compact = true };
	struct rte_mempool *mp = dp_fpool_create("fp_grow", &fp);
	static struct rte_mbuf *held[5000];
	static uint8_t whole[SM_HDR_BYTES + 8192], part[SM_HDR_BYTES + 8192];
	struct rte_mbuf *w, *c;
	struct dp_flow f;
	uint64_t base;
	uint32_t i;

	assert_non_null(mp);
	assert_int_equal(dp_fpool_pools(mp, false), 1);
	base = dp_fpool_in_use(mp);
	dp_flow_init(&f, 4, 7, 3, 5, 2, 1, 1, 6, DP_KIND_WORKER, 0, 8192);
	/* byte for byte a whole frame, full or short */
	for (i = 0; i < 2; i++) {
		uint32_t len = i ? 100 : 8192;

		w = dp_frame_make(pool, &f, 8192, 1, len, 12345, i);
		c = dp_frame_make(mp, &f, 8192, 1, len, 12345, i);
		assert_non_null(w);
		assert_non_null(c);
		assert_int_equal(c->nb_segs, 2);
		assert_int_equal(rte_pktmbuf_data_len(c), SM_HDR_BYTES);
		assert_int_equal(rte_pktmbuf_pkt_len(c), rte_pktmbuf_pkt_len(w));
		assert_memory_equal(dp_meta(c), dp_meta(w), sizeof(struct dp_meta));
		memcpy(whole, rte_pktmbuf_mtod(w, void *), rte_pktmbuf_pkt_len(w));
		assert_ptr_not_equal(rte_pktmbuf_read(c, 0, rte_pktmbuf_pkt_len(c), part), NULL);
		assert_memory_equal(rte_pktmbuf_read(c, 0, rte_pktmbuf_pkt_len(c), part), whole,
				    rte_pktmbuf_pkt_len(w));
		assert_int_equal(dp_fpool_in_use(mp), base + 1);	/* one header mbuf */
		rte_pktmbuf_free(w);
		rte_pktmbuf_free(c);
		assert_int_equal(dp_fpool_in_use(mp), base);
	}
	/* 5,000 frames held: one header mbuf each, in pools added as they were needed */
	for (i = 0; i < 5000; i++) {
		held[i] = dp_frame_make(mp, &f, (uint64_t)i * 8192, i, 8192, i, false);
		assert_non_null(held[i]);
	}
	assert_int_equal(dp_fpool_in_use(mp), base + 5000);
	assert_true(dp_fpool_pools(mp, false) >= 1 + (5000 - 256) / 512);
	for (i = 0; i < 5000; i++) {
		if (i & 1)
			rte_pktmbuf_free(held[i]);
		else
			dp_fpool_frame_free(held[i]);	/* the reference back to the set */
	}
	assert_int_equal(dp_fpool_in_use(mp), base);
	/* a frame at a time for a while: the added pools are released */
	for (i = 0; i < 40000; i++) {
		w = dp_frame_make(mp, &f, 0, i, 8192 - (i & 7), i, false);
		assert_non_null(w);
		assert_int_equal(rte_pktmbuf_pkt_len(w), SM_HDR_BYTES + 8192 - (i & 7));
		dp_fpool_frame_free(w);
	}
	assert_int_equal(dp_fpool_pools(mp, false), 1);
	assert_int_equal(dp_fpool_in_use(mp), base);
	dp_fpool_free(mp);
}

/* A pool too small for the plan is an error that names the worker, not a crash. */
/* A trace to @p path of every point, for dp_run_params.cap; close with trace_close(). */
static struct dp_capture *
trace_open(const char *path)
{
	struct dp_capture *cap = calloc(1, sizeof(*cap));
	struct tr_pcapng_params tp = { .path = path, .app = "test", .comment = "seed 1" };
	char err[256];

	assert_non_null(cap);
	assert_int_equal(dp_capture_parse("all", &cap->mask, err, sizeof(err)), 0);
	cap->snaplen = SM_HDR_BYTES;
	cap->w = tr_pcapng_open(&tp);
	assert_non_null(cap->w);
	return cap;
}

static void
trace_close(struct dp_capture *cap, const char *path)
{
	assert_int_equal(tr_pcapng_close(cap->w), 0);
	free(cap);
	unlink(path);
}

/*
 * Frames have bytes (mbufs) only with a trace: a small pool fails a traced run cleanly, naming the
 * pool, and every mbuf comes back; without a trace the run takes none and completes.
 */
static void
test_small_pool_fails_cleanly(void **state)
{
	char err[512], path[] = "/tmp/syncemu-test-pool.pcapng";
	struct rte_mempool *tiny = dp_pool_create("tiny", 64, SM_HDR_BYTES + 8192, err,
						  sizeof(err));
	struct dp_run_params rp = params(&P0, &PK0, SM_VAR_A, 0, 1);
	struct dp_run_result res;

	assert_non_null(tiny);
	rp.pool = tiny;
	rp.cap = trace_open(path);
	assert_int_equal(dp_run(&rp, &res, err, sizeof(err)), -ENOBUFS);
	assert_non_null(strstr(err, "pool"));
	assert_int_equal(rte_mempool_avail_count(tiny), 64);
	trace_close(rp.cap, path);
	rp.cap = NULL;
	assert_int_equal(dp_run(&rp, &res, err, sizeof(err)), 0);
	assert_int_equal(res.steps, 1);
	assert_int_equal(rte_mempool_avail_count(tiny), 64);
	dp_run_result_free(&res);
	rte_mempool_free(tiny);
}

/* Two runs' elements have the same names and counters. */
static void
same_elems(const struct dp_run_result *a, const struct dp_run_result *b)
{
	uint32_t i;

	assert_int_equal(a->n_elems, b->n_elems);
	for (i = 0; i < a->n_elems; i++) {
		assert_string_equal(a->elems[i].name, b->elems[i].name);
		assert_int_equal(a->elems[i].rx, b->elems[i].rx);
		assert_int_equal(a->elems[i].tx, b->elems[i].tx);
		assert_int_equal(a->elems[i].drop, b->elems[i].drop);
		assert_int_equal(a->elems[i].max_qbytes, b->elems[i].max_qbytes);
		assert_int_equal(a->elems[i].bg_drop, b->elems[i].bg_drop);
	}
}

/*
 * A frame without bytes is the same frame to every element: runs with and without a trace give
 * the same steps, frames, drops, background transfers and counters of every element, with
 * background load dropping frames at a small WAN queue, and with a module in the network (E').
 */
static void
test_same_run_with_and_without_bytes(void **state)
{
	static const enum sm_variant vars[] = { SM_VAR_C, SM_VAR_EP };
	char err[512], path[] = "/tmp/syncemu-test-bytes.pcapng";
	struct sm_size_dist sizes;
	uint32_t v, s, i;

	assert_int_equal(sm_size_fixed(&sizes, 3e5), 0);
	for (v = 0; v < 2; v++) {
		struct dp_run_params rp = params(&P0, &PK0, vars[v], 0, 3);
		struct dp_run_result a, b;

		bg_on(&rp, &sizes, 0.7, 11);
		rp.q_wan = 2000000;
		assert_int_equal(dp_run(&rp, &a, err, sizeof(err)), 0);
		assert_int_equal(rte_mempool_avail_count(pool), POOL_N);
		rp.cap = trace_open(path);
		assert_int_equal(dp_run(&rp, &b, err, sizeof(err)), 0);
		trace_close(rp.cap, path);
		assert_int_equal(rte_mempool_avail_count(pool), POOL_N);
		assert_int_equal(a.steps, b.steps);
		for (s = 0; s < a.steps; s++) {
			assert_true(a.step[s].time == b.step[s].time);
			assert_int_equal(a.step[s].frames, b.step[s].frames);
		}
		assert_int_equal(a.frames, b.frames);
		assert_true(a.events <= b.events);	/* a trace's "out" points add events */
		assert_int_equal(a.drops, b.drops);
		assert_true(a.bg.done == b.bg.done && a.bg.done > 0);
		assert_memory_equal(a.bg.fct, b.bg.fct, a.bg.done * sizeof(double));
		same_elems(&a, &b);
		if (v == 0) {
			uint64_t bg_drops = 0;

			for (i = 0; i < a.n_elems; i++)
				bg_drops += a.elems[i].bg_drop;
			assert_true(bg_drops > 0);	/* the drop path ran too */
		}
		dp_run_result_free(&a);
		dp_run_result_free(&b);
	}
	sm_size_free(&sizes);
}

/*
 * Partitions (parallel.h) through the API, with everything the result keeps rather than streams:
 * 3 and 8 partitions on one lcore give one engine's steps, events, drops, background transfers
 * (completion times in order), WAN queue samples and every element's counters, under load with a
 * small WAN queue that drops background frames, for A and for E' (modules on the network); and
 * with a trace (frames from a plain mempool every partition shares), the same trace.
 */
static void
test_partitions_same_as_one(void **state)
{
	static const enum sm_variant vars[] = { SM_VAR_A, SM_VAR_EP };
	static const uint32_t parts[] = { 3, 8 };
	char dir[] = "/tmp/syncemu-test-XXXXXX", path[64];
	struct sm_size_dist sizes;
	uint32_t v, k, s, i;
	uint64_t f1 = 0, fk = 0, h1, hk;

	assert_int_equal(sm_size_fixed(&sizes, 3e5), 0);
	for (v = 0; v < 2; v++) {
		struct dp_run_params rp = params(&P0, &PK0, vars[v], 0, 3);
		struct dp_run_result a, b;
		char err[512];

		bg_on(&rp, &sizes, 0.7, 11);
		rp.q_wan = 2000000;
		rp.bg.probe_every = 20000000;	/* 20 us */
		assert_int_equal(dp_run(&rp, &a, err, sizeof(err)), 0);
		assert_int_equal(a.partitions, 1);
		for (k = 0; k < 2; k++) {
			rp.partitions = parts[k];
			assert_int_equal(dp_run(&rp, &b, err, sizeof(err)), 0);
			assert_int_equal(b.partitions, parts[k]);
			assert_true(b.windows > 0);
			assert_int_equal(a.steps, b.steps);
			for (s = 0; s < a.steps; s++)
				assert_memory_equal(&a.step[s], &b.step[s], sizeof(a.step[s]));
			assert_int_equal(a.frames, b.frames);
			assert_int_equal(a.events, b.events);
			assert_int_equal(a.drops, b.drops);
			assert_true(a.t_end == b.t_end);
			assert_true(a.bg.done == b.bg.done && a.bg.done > 0);
			assert_true(a.bg.started == b.bg.started && a.bg.frames == b.bg.frames);
			assert_memory_equal(a.bg.fct, b.bg.fct, a.bg.done * sizeof(double));
			assert_memory_equal(a.bg.wait, b.bg.wait, a.bg.done * sizeof(double));
			assert_true(a.q_n == b.q_n && a.q_n > 0 && a.q_links == b.q_links);
			assert_memory_equal(a.q_t, b.q_t, a.q_n * sizeof(*a.q_t));
			assert_memory_equal(a.q_bytes, b.q_bytes, a.q_n * a.q_links * sizeof(uint64_t));
			same_elems(&a, &b);
			for (i = 0; i < a.n_elems; i++)
				assert_true(a.elems[i].util == b.elems[i].util);
			assert_int_equal(rte_mempool_avail_count(pool), POOL_N);
			dp_run_result_free(&b);
		}
		dp_run_result_free(&a);
	}
	sm_size_free(&sizes);
	/* a trace: E' with every capture point, one engine and eight */
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/t.pcapng", dir);
	h1 = traced_run(path, &f1);
	P0_partitions = 8;
	hk = traced_run(path, &fk);
	P0_partitions = 0;
	assert_true(f1 == fk && f1 > 0);
	assert_true(h1 == hk);
	unlink(path);
	rmdir(dir);
}

/* The wire format: a frame parses back to what was written; a damaged one does not. */
static void
test_frame_format(void **state)
{
	struct dp_flow f;
	struct rte_mbuf *m;
	struct dp_meta keep;
	uint8_t *p;

	dp_flow_init(&f, 4, 7, 3, 5, 2, 1, 1, 6, DP_KIND_WORKER, 0, 8192);
	m = dp_frame_make(pool, &f, 8192, 1, 100, 12345, true);
	assert_non_null(m);
	assert_int_equal(rte_pktmbuf_pkt_len(m), SM_HDR_BYTES + 100);
	keep = *dp_meta(m);
	memset(dp_meta(m), 0, sizeof(keep));
	assert_int_equal(dp_frame_parse(m), 0);
	assert_memory_equal(dp_meta(m), &keep, sizeof(keep));
	assert_int_equal(keep.dst, 6);
	assert_int_equal(keep.round, 5);
	assert_true(keep.flags & DP_SE_F_LAST);
	p = rte_pktmbuf_mtod(m, uint8_t *);
	assert_int_equal(p[SM_ETH_HDR + 9], 17);		/* UDP */
	p[SM_ETH_HDR + SM_IP_HDR + SM_UDP_HDR] ^= 0xff;		/* the magic */
	assert_int_equal(dp_frame_parse(m), -EINVAL);
	rte_pktmbuf_free(m);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_frame_format),
		cmocka_unit_test(test_zero_load_matches_closed_form),
		cmocka_unit_test(test_collectives_and_shapes_match_the_form),
		cmocka_unit_test(test_direct_concurrent_on_a_mesh),
		cmocka_unit_test(test_library_matches_the_form),
		cmocka_unit_test(test_shares_follow_the_model),
		cmocka_unit_test(test_wire_accounting_and_mtu),
		cmocka_unit_test(test_sync_modes),
		cmocka_unit_test(test_same_trace_twice),
		cmocka_unit_test(test_small_wan_queue_fails_cleanly),
		cmocka_unit_test(test_small_pool_fails_cleanly),
		cmocka_unit_test(test_same_run_with_and_without_bytes),
		cmocka_unit_test(test_partitions_same_as_one),
		cmocka_unit_test(test_fpool_grows_and_shrinks),
		cmocka_unit_test(test_fpool_same_trace),
		cmocka_unit_test(test_load_zero_is_zero_load),
		cmocka_unit_test(test_background_alone_is_md1),
		cmocka_unit_test(test_seeded_background),
		cmocka_unit_test(test_streamed_equals_kept),
		cmocka_unit_test(test_record_ring_without_sync),
		cmocka_unit_test(test_record_ring_grows),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
