/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The packet level without the EAL: framing, serialisation, the worker programs, and the
 * packet-level closed form against the fluid model and its stated bound.
 */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>

#include <cmocka.h>

#include "common.h"
#include "packet.h"
#include "presets.h"
#include "variant.h"

static void
test_framing(void **state)
{
	uint32_t last;

	assert_int_equal(sm_charge(SM_ACCOUNT_PAYLOAD, 8192), 8192);
	/* headers 90 + FCS 4 + preamble 8 + gap 12 */
	assert_int_equal(sm_charge(SM_ACCOUNT_WIRE, 8192), 8192 + 114);
	/* with 90 bytes of headers a frame is never below Ethernet's 64-byte minimum */
	assert_int_equal(sm_charge(SM_ACCOUNT_WIRE, 1), 90 + 1 + 4 + 20);
	assert_int_equal(sm_frames(10000, 4096, &last), 3);
	assert_int_equal(last, 10000 - 2 * 4096);
	assert_int_equal(sm_frames(8192, 8192, &last), 1);
	assert_int_equal(last, 8192);
	/* 80 ps a byte at 12.5 GB/s; rounding up, never down */
	assert_int_equal(sm_ser_ps(8282, 12500000000ULL), 8282 * 80);
	assert_int_equal(sm_ser_ps(1, 3), 333333333334ULL);
	assert_int_equal(sm_ps(20e-6), 20000000);
}

static void
test_packet_check(void **state)
{
	struct sm_packet pk;
	char err[200];

	sm_packet_default(&pk);
	assert_int_equal(sm_packet_check(&pk, err, sizeof(err)), 0);
	pk.payload = 9000;
	assert_int_equal(sm_packet_check(&pk, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "run.frame_payload"));
	assert_non_null(strstr(err, "8924"));
	sm_packet_default(&pk);
	pk.mtu = 100;
	assert_int_equal(sm_packet_check(&pk, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "run.mtu"));
	sm_packet_default(&pk);
	pk.burst = 0;
	assert_int_equal(sm_packet_check(&pk, err, sizeof(err)), -EINVAL);
}

static void
test_programs(void **state)
{
	struct sm_params p2 = tc_topology("2dc4-100g"), p1 = tc_topology("1dc8");
	struct sm_params p8 = tc_topology("8dc1-100g");
	struct sm_program prog = { 0 };
	unsigned int i;

	sm_program_free(&prog);
	assert_int_equal(sm_program_build(&p2, SM_VAR_A, 0, &prog), 0);
	assert_int_equal(prog.n, 8);	/* 3 in the DC, 2 across, 3 in the DC */
	assert_int_equal(prog.r[3].hop, SM_HOP_WAN);
	assert_int_equal(prog.r[3].bytes, 31666944 / 8);
	assert_int_equal(sm_round_peer(&prog.r[3], 1, +1), 5);
	assert_int_equal(sm_round_peer(&prog.r[0], 3, +1), 0);
	assert_int_equal(sm_round_peer(&prog.r[0], 0, -1), 3);
	sm_program_free(&prog);
	assert_int_equal(sm_program_build(&p2, SM_VAR_EP, 0, &prog), 0);
	assert_int_equal(prog.n, 9);	/* the module round, then C''s 8 */
	assert_int_equal(prog.r[0].hop, SM_HOP_MODULE);
	assert_int_equal(prog.r[0].bytes, 31666944);
	sm_program_free(&prog);
	assert_int_equal(sm_program_build(&p2, SM_VAR_E, 0, &prog), 0);
	for (i = 1; i < prog.n; i++)
		assert_true(prog.r[i].capped);
	sm_program_free(&prog);
	assert_int_equal(sm_program_build(&p1, SM_VAR_A, 0, &prog), 0);
	assert_int_equal(prog.n, 14);
	sm_program_free(&prog);
	assert_int_equal(sm_program_build(&p8, SM_VAR_C, 0, &prog), 0);
	assert_int_equal(prog.n, 7);
	assert_int_equal(prog.r[0].hop, SM_HOP_WAN);
	/* compute of a step, rounded to the picosecond */
	sm_program_free(&prog);
	assert_int_equal(sm_program_build(&p2, SM_VAR_A, 0, &prog), 0);
	assert_int_equal(prog.compute_ps, sm_ps(194561703936.0 / 395.6e12));
	sm_program_free(&prog);
}

static void
test_links(void **state)
{
	struct sm_params p = tc_topology("2dc4-100g");
	struct sm_links l;
	char err[200];

	assert_int_equal(sm_links_build(&p, 10e9, &l, err, sizeof(err)), 0);
	/* a path in a DC: 10 us; across: 20 us */
	assert_int_equal(l.nic_delay + l.down_delay, 10000000);
	assert_int_equal(l.nic_delay + l.wan_delay + l.down_delay, 20000000);
	assert_int_equal(l.stage_bw[SM_STAGE_OPTICS], 14000000000ULL);
	assert_int_equal(l.stage_bw[SM_STAGE_COMPUTE], 1000000000ULL);	/* 10 GFLOP/s / 10 */
	assert_int_equal(sm_links_build(&p, 0, &l, err, sizeof(err)), 0);
	assert_int_equal(l.stage_bw[SM_STAGE_COMPUTE], 0);		/* [free] */
	p.wan.lat = 5e-6;
	assert_int_equal(sm_links_build(&p, 0, &l, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "wan.latency"));
}

/* Every deck setting: the packet step is at least the fluid one and within the stated bound,
 * with 8192-byte payloads and with standard frames; in phase sync every step is the same. */
static void
test_packet_against_fluid(void **state)
{
	static const uint32_t payloads[] = { 8192, 1424 };
	unsigned int i, n, k;
	const struct sm_deck_topology *t = sm_deck_topologies(&n);
	double worst = 0;

	for (k = 0; k < 2; k++) {
		struct sm_packet pk;

		sm_packet_default(&pk);
		pk.payload = payloads[k];
		pk.mtu = payloads[k] + 76;
		for (i = 0; i < n; i++) {
			struct sm_params p;
			int v, b;

			sm_params_default(&p);
			sm_apply_topology(&p, &t[i]);
			for (v = 0; v < SM_VAR_COUNT; v++) {
				for (b = 0; b < SM_BUDGET_COUNT; b++) {
					double budget = sm_budget_value(&p.mod, b), bound, rel;
					struct sm_packet_step ps[2];
					struct sm_program prog = { 0 };
					struct sm_step fl;

					assert_int_equal(sm_packet_model(&p, &pk, v, budget, 2, ps), 0);
					assert_int_equal(sm_step_eval(&p, v, budget, &fl), 0);
					sm_program_free(&prog);
					assert_int_equal(sm_program_build(&p, v, budget, &prog), 0);
					bound = sm_packet_fluid_bound(&p, &pk, &prog);
					sm_program_free(&prog);
					rel = (ps[1].time_ps / 1e12 - fl.total) / fl.total;
					if (rel < 0 || rel > bound)
						fail_msg("%s %s[%s] payload %u: packet vs fluid %.3g, "
							 "bound %.3g", t[i].name, sm_variant_name(v),
							 sm_budget_name(b), payloads[k], rel, bound);
					assert_true(ps[0].time_ps == ps[1].time_ps);
					if (bound > worst)
						worst = bound;
				}
			}
		}
	}
	/* the README states the bound: under 1 % of the step for every setting of the deck */
	if (worst >= 0.01)
		fail_msg("the fluid bound reaches %.3g", worst);
}

/* Without barriers, rounds of a hierarchical collective may interleave on a WAN link; the form
 * then says it does not apply rather than give a wrong number. */
static void
test_overlap_detected(void **state)
{
	struct sm_params p = tc_topology("2dc4-8g");
	struct sm_packet pk;
	struct sm_packet_step ps[3];
	int rc;

	sm_packet_default(&pk);
	pk.sync = SM_SYNC_NONE;
	rc = sm_packet_model(&p, &pk, SM_VAR_A, 0, 3, ps);
	assert_true(rc == 0 || rc == -ERANGE);
	pk.sync = SM_SYNC_PHASE;
	assert_int_equal(sm_packet_model(&p, &pk, SM_VAR_A, 0, 3, ps), 0);
}

/* A topology of @d data centres of @n workers on the default links. */
static struct sm_params
grid(unsigned int d, unsigned int n)
{
	struct sm_params p;

	sm_params_default(&p);
	p.topo.n_dc = d;
	p.topo.per_dc = n;
	return p;
}

/* The iterator's shifted copies of a quiescent step equal the steps computed in full, in every
 * sync mode, on flat and hierarchical topologies; without sync nothing is copied. */
static void
test_iterator_copies_exact(void **state)
{
	static const unsigned int dn[][2] = { { 2, 4 }, { 1, 8 }, { 8, 1 }, { 3, 3 }, { 8, 2 } };
	static const enum sm_sync syncs[] = { SM_SYNC_PHASE, SM_SYNC_STEP, SM_SYNC_NONE };
	unsigned int i, k, steps = 5, checked = 0;

	for (i = 0; i < sizeof(dn) / sizeof(dn[0]); i++) {
		struct sm_params p = grid(dn[i][0], dn[i][1]);

		for (k = 0; k < 3; k++) {
			int v;

			for (v = 0; v < SM_VAR_COUNT; v++) {
				double budget = sm_budget_value(&p.mod, SM_BUDGET_HIGH);
				struct sm_packet_iter *a, *b;
				struct sm_packet pk;
				unsigned int s;
				int ra = 0, rb = 0;

				sm_packet_default(&pk);
				pk.sync = syncs[k];
				assert_int_equal(sm_packet_iter_create(&p, &pk, v, budget, &a), 0);
				assert_int_equal(sm_packet_iter_create(&p, &pk, v, budget, &b), 0);
				sm_packet_iter_no_shortcut(b);
				for (s = 0; s < steps && ra == 0; s++) {
					struct sm_packet_step x, y;

					ra = sm_packet_iter_next(a, &x);
					rb = sm_packet_iter_next(b, &y);
					assert_int_equal(ra, rb);
					if (ra == 0 && (x.end_ps != y.end_ps || x.time_ps != y.time_ps ||
							x.frames != y.frames))
						fail_msg("%ux%u %s sync %d step %u: copy %lu ps, in full %lu",
							 dn[i][0], dn[i][1], sm_variant_name(v), syncs[k], s,
							 (unsigned long)x.time_ps, (unsigned long)y.time_ps);
				}
				if (ra == 0)
					assert_int_equal(sm_packet_iter_shortcuts(a),
							 syncs[k] == SM_SYNC_NONE ? 0 : steps - 1);
				assert_int_equal(sm_packet_iter_shortcuts(b), 0);
				sm_packet_iter_free(a);
				sm_packet_iter_free(b);
				checked++;
			}
		}
	}
	assert_int_equal(checked, 5 * 3 * SM_VAR_COUNT);
}

/* Where the fluid bound's claim holds, and why not elsewhere: the WAN phases of 3 or more data
 * centres of 2 or more workers, where the packet step can be shorter than the fluid one. */
static void
test_fluid_bound_domain(void **state)
{
	unsigned int i, n;
	const struct sm_deck_topology *t = sm_deck_topologies(&n);
	struct sm_packet pk;
	struct sm_program prog = { 0 };
	struct sm_packet_step ps[1];
	struct sm_step fl;
	struct sm_params p;
	char why[300];
	int v;

	sm_packet_default(&pk);
	for (i = 0; i < n; i++) {	/* every topology of the deck: D <= 2 or N = 1 */
		sm_params_default(&p);
		sm_apply_topology(&p, &t[i]);
		for (v = 0; v < SM_VAR_COUNT; v++) {
			sm_program_free(&prog);
			assert_int_equal(sm_program_build(&p, v, 0, &prog), 0);
			if (!sm_packet_fluid_bound_holds(&p, &pk, &prog, why, sizeof(why)))
				fail_msg("%s %s: %s", t[i].name, sm_variant_name(v), why);
			assert_string_equal(why, "");
		}
	}
	/* 8 x 2 AdamW: shorter than the fluid step, and the claim says it does not hold */
	p = grid(8, 2);
	sm_program_free(&prog);
	assert_int_equal(sm_program_build(&p, SM_VAR_A, 0, &prog), 0);
	assert_false(sm_packet_fluid_bound_holds(&p, &pk, &prog, why, sizeof(why)));
	assert_non_null(strstr(why, "reduce-scatter across DCs: 7 rounds of up to 2 flows"));
	assert_int_equal(sm_packet_model(&p, &pk, SM_VAR_A, 0, 1, ps), 0);
	assert_int_equal(sm_step_eval(&p, SM_VAR_A, 0, &fl), 0);
	assert_true(ps[0].time_ps / 1e12 < fl.total * (1 - 0.02));
	p = grid(64, 2);
	assert_int_equal(sm_packet_model(&p, &pk, SM_VAR_A, 0, 1, ps), 0);
	assert_int_equal(sm_step_eval(&p, SM_VAR_A, 0, &fl), 0);
	assert_true(ps[0].time_ps / 1e12 < fl.total * (1 - 0.25));
	/* 3 x 2: the smallest such grid; 8 x 1 and 2 x 8 stay inside */
	p = grid(3, 2);
	sm_program_free(&prog);
	assert_int_equal(sm_program_build(&p, SM_VAR_C, 0, &prog), 0);
	assert_false(sm_packet_fluid_bound_holds(&p, &pk, &prog, NULL, 0));
	p = grid(2, 8);
	sm_program_free(&prog);
	assert_int_equal(sm_program_build(&p, SM_VAR_A, 0, &prog), 0);
	assert_true(sm_packet_fluid_bound_holds(&p, &pk, &prog, NULL, 0));
	/* the bound's other assumptions */
	p = grid(2, 4);
	sm_program_free(&prog);
	assert_int_equal(sm_program_build(&p, SM_VAR_A, 0, &prog), 0);
	pk.account = SM_ACCOUNT_WIRE;
	assert_false(sm_packet_fluid_bound_holds(&p, &pk, &prog, why, sizeof(why)));
	assert_non_null(strstr(why, "wire accounting"));
	pk.account = SM_ACCOUNT_PAYLOAD;
	pk.sync = SM_SYNC_STEP;
	assert_false(sm_packet_fluid_bound_holds(&p, &pk, &prog, why, sizeof(why)));
	assert_non_null(strstr(why, "step sync"));
	pk.sync = SM_SYNC_PHASE;
	/* a pluggable whose slowest stage (the port) barely trails optics and FPGA: one frame ahead
	 * does not cover the two stages before it */
	p.mod.fpga_rate = 56e9;		/* 4 ops per byte: 14 GB/s, as the optics */
	p.mod.port_bw = 13.9e9;
	pk.burst = 1;
	sm_program_free(&prog);
	assert_int_equal(sm_program_build(&p, SM_VAR_E, 0, &prog), 0);
	assert_false(sm_packet_fluid_bound_holds(&p, &pk, &prog, why, sizeof(why)));
	assert_non_null(strstr(why, "burst of 1 frames"));
	pk.burst = 16;
	assert_true(sm_packet_fluid_bound_holds(&p, &pk, &prog, NULL, 0));
	sm_program_free(&prog);
}

/*
 * The WAN's shapes: every DC pair's route ends where it should after sm_wan_hops() links, and
 * sm_round_load()'s shortcuts (flows per DC pair, a difference array around a ring) give what
 * walking every worker's flow link by link gives, for flat rings, DC-peer rings and pairwise
 * rounds.
 */
/*
 * The double binary tree: each tree spans the W ranks (one root, every other rank's parent lists
 * it as a child, heights and depths agree), most leaves of tree 0 are inner ranks of tree 1, and
 * the pipelined rounds move every chunk: each non-root rank sends each of its C chunks up once
 * per tree, after the chunks of its children are in, and the broadcast brings every chunk to
 * every rank after its parent had it.  The round loads count what the sends say.
 */
static void
test_double_binary_tree(void **state)
{
	static const uint32_t sizes[] = { 1, 2, 3, 5, 8, 15, 16, 17, 64, 100 };
	unsigned int i;

	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		uint32_t w = sizes[i], r, c, roots, leaves0 = 0, both = 0;
		unsigned int t, h = sm_tree_rounds(w);

		assert_int_equal(1u << h <= w && (w < 2 || w < 2u << h), 1);
		for (t = 0; t < 2; t++) {
			roots = 0;
			for (r = 0; r < w; r++) {
				struct sm_tree_node nd, up, ch;

				sm_tree_node(w, t, r, &nd);
				assert_true(nd.height <= h);
				if (nd.up == SM_TREE_NIL) {
					roots++;
					assert_int_equal(nd.depth, 0);
					assert_int_equal(nd.height, h);
				} else {
					sm_tree_node(w, t, nd.up, &up);
					assert_true(up.down[0] == r || up.down[1] == r);
					assert_int_equal(up.depth + 1, nd.depth);
					assert_true(up.height > nd.height);
				}
				for (c = 0; c < 2; c++) {
					if (nd.down[c] == SM_TREE_NIL)
						continue;
					sm_tree_node(w, t, nd.down[c], &ch);
					assert_int_equal(ch.up, r);
					assert_int_equal(ch.height, nd.down_height[c]);
				}
				if (t == 0 && nd.down[0] == SM_TREE_NIL && nd.down[1] == SM_TREE_NIL) {
					leaves0++;
					sm_tree_node(w, 1, r, &up);
					both += up.down[0] == SM_TREE_NIL && up.down[1] == SM_TREE_NIL;
				}
			}
			assert_int_equal(roots, 1);
		}
		if (w >= 8)	/* at most one rank (and the ends) a leaf in both */
			assert_true(both * 4 <= leaves0);
		for (unsigned int chunks = 1; chunks <= 5; chunks += 4) {
			struct sm_phase up = { .tree = SM_TREE_UP, .ring = w, .stride = 1,
					       .chunks = chunks, .rounds = h ? chunks + h - 1 : 0 };
			struct sm_phase down = up;
			/* [tree][rank]: chunks it has in (up: of its subtree's sum; down: the result) */
			unsigned int have[2][100], sent[2][100], k, n, j;
			uint32_t dst[SM_SENDS_MAX];
			uint8_t tr[SM_SENDS_MAX];
			struct sm_params p = grid(1, w);

			down.tree = SM_TREE_DOWN;
			memset(sent, 0, sizeof(sent));
			for (t = 0; t < 2; t++)
				for (r = 0; r < w; r++) {
					struct sm_tree_node nd;

					sm_tree_node(w, t, r, &nd);
					/* a leaf's own chunks are its sum */
					have[t][r] = nd.height == 0 ? chunks : 0;
				}
			for (k = 0; k < up.rounds; k++) {
				unsigned int got[100] = { 0 }, flows = 0;
				struct sm_round_load ld;

				for (r = 0; r < w; r++) {
					n = sm_phase_sends(&up, k, r, dst, tr);
					flows += n;
					for (j = 0; j < n; j++) {
						/* chunk sent[] of its subtree: its children's are in */
						assert_true(sent[tr[j]][r] < have[tr[j]][r]);
						sent[tr[j]][r]++;
						got[dst[j]]++;
					}
				}
				for (r = 0; r < w; r++)
					assert_int_equal(got[r], sm_phase_ins(&up, k, r));
				sm_phase_round_load(&p, &up, k, &ld);
				assert_int_equal(ld.flows, flows);
				/* a rank has a chunk of its subtree when each child's is in */
				for (t = 0; t < 2; t++)
					for (r = 0; r < w; r++) {
						struct sm_tree_node nd;
						unsigned int m = chunks;

						sm_tree_node(w, t, r, &nd);
						for (c = 0; c < 2; c++)
							if (nd.down[c] != SM_TREE_NIL &&
							    sent[t][nd.down[c]] < m)
								m = sent[t][nd.down[c]];
						if (nd.height > 0)
							have[t][r] = m;
					}
			}
			for (t = 0; t < 2; t++)
				for (r = 0; r < w; r++) {
					struct sm_tree_node nd;

					sm_tree_node(w, t, r, &nd);
					assert_int_equal(sent[t][r], nd.up == SM_TREE_NIL ? 0 : chunks);
					assert_int_equal(have[t][r], chunks);	/* the root's: all */
					/* the broadcast: the root has the result */
					have[t][r] = nd.up == SM_TREE_NIL ? chunks : 0;
				}
			for (k = 0; k < down.rounds; k++) {
				unsigned int add[2][100];

				memset(add, 0, sizeof(add));
				for (r = 0; r < w; r++) {
					n = sm_phase_sends(&down, k, r, dst, tr);
					for (j = 0; j < n; j++) {
						struct sm_tree_node ch;

						sm_tree_node(w, tr[j], dst[j], &ch);
						assert_int_equal(ch.up, r);
						/* it sends a chunk it has */
						assert_true(have[tr[j]][dst[j]] + add[tr[j]][dst[j]] <
							    have[tr[j]][r]);
						add[tr[j]][dst[j]]++;
					}
				}
				for (t = 0; t < 2; t++)
					for (r = 0; r < w; r++)
						have[t][r] += add[t][r];
				for (r = 0; r < w; r++)
					assert_int_equal(add[0][r] + add[1][r],
							 sm_phase_ins(&down, k, r));
			}
			for (t = 0; t < 2; t++)	/* every rank has the whole result */
				for (r = 0; r < w; r++)
					assert_int_equal(have[t][r], chunks);
		}
	}
}

static void
test_wan_shapes(void **state)
{
	static const unsigned int grids[][2] = { { 2, 4 }, { 3, 5 }, { 8, 2 }, { 4, 16 }, { 5, 1 } };
	unsigned int g, shape, a, b, k;

	for (g = 0; g < sizeof(grids) / sizeof(grids[0]); g++)
		for (shape = 0; shape < SM_WAN_SHAPE_COUNT; shape++) {
			struct sm_params p = grid(grids[g][0], grids[g][1]);
			unsigned int d = p.topo.n_dc, n = p.topo.per_dc, w = d * n;
			unsigned int nw = sm_wan_count((enum sm_wan_shape)shape, d);
			unsigned int load[256];
			const unsigned int rings[][2] = { { w, 1 }, { d, n } };
			unsigned int ri;

			p.topo.wan = (enum sm_wan_shape)shape;
			for (a = 0; a < d; a++)
				for (b = 0; b < d; b++) {
					unsigned int at = a, hops = 0, from, to;

					while (at != b) {
						unsigned int li = sm_wan_next(p.topo.wan, d, at, b);

						assert_true(li < nw);
						sm_wan_ends(p.topo.wan, d, li, &from, &to);
						assert_int_equal(from, at);
						at = to;
						assert_true(++hops <= d);
					}
					assert_int_equal(hops, sm_wan_hops(p.topo.wan, d, a, b));
				}
			for (ri = 0; ri < 2; ri++)
				for (k = 1; k < rings[ri][0]; k++) {
					struct sm_round_load ld, want = { 0 };
					unsigned int ring = rings[ri][0], stride = rings[ri][1], v, i;

					memset(load, 0, sizeof(load));
					for (v = 0; v < w; v++) {
						struct sm_round r = { .ring = ring, .stride = stride,
								      .shift = k };
						unsigned int at = v / n, dst = sm_round_peer(&r, v, +1) / n;
						unsigned int hops = sm_wan_hops(p.topo.wan, d, at, dst);

						if (at == dst)
							want.intra = true;
						else
							want.wan = true;
						if (hops > want.wan_hops)
							want.wan_hops = hops;
						while (at != dst) {
							unsigned int li = sm_wan_next(p.topo.wan, d, at,
										      dst), from;

							load[li]++;
							sm_wan_ends(p.topo.wan, d, li, &from, &at);
						}
					}
					for (i = 0; i < nw; i++)
						if (load[i] > want.wan_flows)
							want.wan_flows = load[i];
					sm_round_load(&p, ring, stride, k, &ld);
					if (ld.intra != want.intra || ld.wan != want.wan ||
					    ld.wan_flows != want.wan_flows || ld.wan_hops != want.wan_hops)
						fail_msg("%u x %u %s, ring %u stride %u shift %u: load %d %d "
							 "%u %u, walked %d %d %u %u", d, n,
							 sm_wan_shape_name(p.topo.wan), ring, stride, k,
							 ld.intra, ld.wan, ld.wan_flows, ld.wan_hops,
							 want.intra, want.wan, want.wan_flows,
							 want.wan_hops);
				}
		}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_framing),
		cmocka_unit_test(test_wan_shapes),
		cmocka_unit_test(test_double_binary_tree),
		cmocka_unit_test(test_packet_check),
		cmocka_unit_test(test_programs),
		cmocka_unit_test(test_links),
		cmocka_unit_test(test_packet_against_fluid),
		cmocka_unit_test(test_overlap_detected),
		cmocka_unit_test(test_iterator_copies_exact),
		cmocka_unit_test(test_fluid_bound_domain),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
