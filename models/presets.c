/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Presets and defaults of the model.
 *
 * Status keys used below:
 *   [S] stated in a public source (disagg-sim hardware.py, deck 04's results and code);
 *   [D] stated by the deck;
 *   [F] fitted to the deck's own numbers (consistent with all of them, seen in no source);
 *   [I] illustrative: the deck says so, or the value is a guess; override it in the scenario.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "check.h"
#include "library.h"
#include "presets.h"
#include "variant.h"

static const struct sm_link_preset link_presets[] = {
	/* name          desc                     status                      bw      lat    pJ/bit */
	{ "eth-100g", "100 GbE", "[S] hardware.py", { 12.5e9, 20e-6, 15.0 } },
	{ "eth-25g", "25 GbE", "[S] hardware.py", { 3.125e9, 20e-6, 15.0 } },
	{ "wan-8g", "8 Gb/s WAN share", "[D] 100 GbE preset at 1 GB/s", { 1e9, 20e-6, 15.0 } },
	{ "wan-400g", "400G WAN", "[I] not public; a guess", { 50e9, 20e-6, 15.0 } },
	{ "wan-800g", "800G WAN", "[I] not public; a guess", { 100e9, 20e-6, 15.0 } },
	{ "ib-ndr", "InfiniBand NDR 400G", "[S] hardware.py", { 50e9, 10e-6, 15.0 } },
	{ "nvlink3", "NVLink 3", "[S] hardware.py", { 300e9, 5e-6, 5.0 } },
	{ "nvlink4", "NVLink 4, one direction", "[S] hardware.py", { 450e9, 5e-6, 5.0 } },
	{ "nvlink5", "NVLink 5", "[S] hardware.py", { 900e9, 5e-6, 5.0 } },
	{ "pcie4", "PCIe 4.0 x16", "[S] hardware.py", { 32e9, 5e-6, 6.0 } },
	{ "pcie5", "PCIe 5.0 x16", "[S] hardware.py", { 64e9, 5e-6, 6.0 } },
	{ "cpo-optical", "co-packaged optics", "[S] hardware.py", { 200e9, 5e-6, 3.0 } },
};

const struct sm_link_preset *
sm_link_presets(unsigned int *n)
{
	*n = sizeof(link_presets) / sizeof(link_presets[0]);
	return link_presets;
}

const struct sm_link_preset *
sm_link_preset_find(const char *name)
{
	unsigned int i, n;
	const struct sm_link_preset *t = sm_link_presets(&n);

	for (i = 0; i < n; i++)
		if (strcasecmp(t[i].name, name) == 0)
			return &t[i];
	return NULL;
}

static const struct sm_deck_topology deck_topologies[] = {
	{ "1dc8", "1 DC x 8", 1, 8, "eth-100g", true },
	{ "2dc4-100g", "2 DC x 4, 100 GbE", 2, 4, "eth-100g", true },
	{ "2dc4-25g", "2 DC x 4, 25 GbE", 2, 4, "eth-25g", true },
	{ "2dc4-8g", "2 DC x 4, 8 Gb/s", 2, 4, "wan-8g", true },
	{ "8dc1-100g", "8 DC x 1, 100 GbE", 8, 1, "eth-100g", true },
	{ "8dc1-25g", "8 DC x 1, 25 GbE", 8, 1, "eth-25g", true },
	{ "2dc4-400g", "2 DC x 4, 400G (illustrative)", 2, 4, "wan-400g", false },
	{ "2dc4-800g", "2 DC x 4, 800G (illustrative)", 2, 4, "wan-800g", false },
};

const struct sm_deck_topology *
sm_deck_topologies(unsigned int *n)
{
	*n = sizeof(deck_topologies) / sizeof(deck_topologies[0]);
	return deck_topologies;
}

int
sm_apply_topology(struct sm_params *p, const struct sm_deck_topology *t)
{
	const struct sm_link_preset *w = sm_link_preset_find(t->wan);

	if (w == NULL)
		return -ENOENT;
	p->topo.n_dc = t->n_dc;
	p->topo.per_dc = t->per_dc;
	p->wan = w->link;
	return 0;
}

void
sm_params_default(struct sm_params *p)
{
	memset(p, 0, sizeof(*p));

	p->topo.n_dc = 2;				/* [D] the deck's diagram */
	p->topo.per_dc = 4;
	p->intra = sm_link_preset_find("ib-ndr")->link;	/* [F] every timing fits */
	p->wan = sm_link_preset_find("eth-100g")->link;	/* [D] */

	p->gpu.peak_flops = 989e12;			/* [S] H100_SXM dense BF16 */
	p->gpu.mfu = 0.40;				/* [D] */
	p->gpu.static_w = 100.0;			/* [S][I] */
	p->gpu.pj_per_flop = 1.0;			/* [S] */

	p->job.params = 15833472.0;			/* [S] deck 04 results.md */
	p->job.tokens = 2048.0;				/* [S] 8 sequences x 256 tokens */
	p->job.flops_per_param_token = 6.0;		/* [F] 6PT gives the 12.1 % share */
	p->job.value_bytes = 2.0;			/* [S] BF16, compressors.py */
	p->job.index_bytes = 2.0;			/* [S] ceil(log2(4096) / 8) */
	p->job.keep = 1.0 / 16.0;			/* [S] k16 */
	p->job.topk_kept = 989490.0;			/* [S] results.json wire 27,705,720 / 7 / 4 */
	p->job.band_chunk = 256.0;			/* [S] 1-D 256-point band */
	p->job.topk_chunk = 4096.0;			/* [F] 2-D 64 x 64, t_x of B */
	p->job.first_bucket = 1048576.0;		/* DDP's _DEFAULT_FIRST_BUCKET_BYTES */
	p->job.bucket_cap = 26214400.0;			/* DDP's bucket_cap_mb = 25 */
	p->job.threads = 2;				/* ProcessGroupGloo's _Options()._threads */

	/* The link kernel.  The transform costs 2.5 n log2 n FLOP per n-point chunk, i.e.
	 * 2.5 log2(256) = 20 FLOP per value = 10 per byte [F]; the FPGA's per-byte work
	 * (quantise, full-scale tracking, bit-plane recombination, modular reduction) is
	 * illustrative and never binds [I]. */
	p->mod.ops_per_byte[SM_OP_FFT] = 2.5 * 8.0 / 2.0;
	p->mod.ops_per_byte[SM_OP_ADD] = 1.0;
	p->mod.ops_per_byte[SM_OP_MUL] = 1.0;
	p->mod.ops_per_byte[SM_OP_MOD] = 1.0;
	p->mod.ops_per_byte[SM_OP_GATHER] = 1.0;
	p->mod.compute_ops = 1u << SM_OP_FFT;
	p->mod.lanes = 4.0;				/* [D] 4 x 14 Gb/s NRZ */
	p->mod.lane_rate = 14e9;
	p->mod.planes = 8.0;				/* [D] ENOB 8, one pass per plane */
	p->mod.budget[SM_BUDGET_LOW] = 10e9;		/* [D][I] */
	p->mod.budget[SM_BUDGET_HIGH] = 99e9;		/* [D][I] */
	p->mod.budget[SM_BUDGET_FREE] = 0.0;		/* not charged */
	p->mod.fpga_rate = 200e9;			/* [I] */
	p->mod.port_bw = 25e9;				/* [D] QSFP56 */
	p->mod.host_port_bw = 50e9;			/* [D] */
	p->mod.latency_port = 0.0;			/* [F] */
	p->mod.latency_network = 10e-6;			/* [F] E' needs 10 us on its path */
	p->mod.static_w = 9.7;				/* [D] the paper */
	p->mod.laser_w = 2.0;				/* [I] */
	p->mod.pj_per_bit = 2.76;			/* [D] 45 nm, without the laser */

	p->steps[SM_VAR_A] = 400.0;			/* [D][S] jsonl, seed 0 */
	p->steps[SM_VAR_B] = 400.0;			/* [D] */
	p->steps[SM_VAR_C] = 2667.0;			/* [D] printed mean of 2600/2800/2600 */
	p->steps[SM_VAR_CP] = 2667.0;			/* [D] C' reuses C's steps */
	p->steps[SM_VAR_E] = 1800.0;			/* [D][S] ENOB 8, 8 planes */
	p->steps[SM_VAR_EP] = 1800.0;			/* [D] E' reuses E's steps */
	p->steps_c_mean = 8000.0 / 3.0;			/* [S] unrounded mean */

	p->enob.n = 4;					/* [S] jsonl logs; 6 never trains */
	p->enob.key[0] = 6;  p->enob.steps[0] = 0;
	p->enob.key[1] = 8;  p->enob.steps[1] = 1800;
	p->enob.key[2] = 10; p->enob.steps[2] = 1600;
	p->enob.key[3] = 12; p->enob.steps[3] = 1800;
	p->enob_used = 8.0;

	p->planes.n = 3;				/* [D] section 8 */
	p->planes.key[0] = 4;  p->planes.steps[0] = 2600;
	p->planes.key[1] = 8;  p->planes.steps[1] = 1800;
	p->planes.key[2] = 12; p->planes.steps[2] = 2000;

	p->target_loss = 3.158;				/* [S] C 2-D 64x64 final val loss */
	p->be_bw_lo = 0.1e9;				/* [D] section 7a: 0.1-1,000 GB/s */
	p->be_bw_hi = 1000e9;
	p->be_budget_lo = 1e9;				/* [D] section 7b: 1-100,000 GFLOP/s */
	p->be_budget_hi = 100000e9;
	p->be_rtol = 1e-4;				/* [D] */
}

static int
check_table(const struct sm_steps_table *t, const char *name, char *err, unsigned long errlen)
{
	unsigned int i;

	SM_CHECK(t->n >= 1 && t->n <= SM_TABLE_MAX, "%s: needs 1 to %d entries, has %u", name,
	      SM_TABLE_MAX, t->n);
	for (i = 0; i < t->n; i++) {
		SM_CHECK(t->steps[i] >= 0 && isfinite(t->steps[i]),
		      "%s: steps at %g must be >= 0 (0 = never reaches the target)", name, t->key[i]);
		SM_CHECK(i == 0 || t->key[i] > t->key[i - 1],
		      "%s: keys must ascend (%g after %g)", name, t->key[i], t->key[i - 1]);
	}
	return 0;
}

int
sm_params_check(const struct sm_params *p, char *err, unsigned long errlen)
{
	int v, rc;

	SM_CHECK(p->topo.n_dc >= 1 && p->topo.n_dc <= 64, "topology.data_centres: %u not in 1..64",
	      p->topo.n_dc);
	SM_CHECK(p->topo.per_dc >= 1 && p->topo.per_dc <= 1024,
	      "topology.workers_per_dc: %u not in 1..1024", p->topo.per_dc);
	SM_CHECK(sm_workers(p) >= 2, "topology: needs at least 2 workers, has %u", sm_workers(p));
	SM_CHECK(p->intra.bw > 0, "intra.bandwidth: must be > 0");
	SM_CHECK(p->intra.lat >= 0, "intra.latency: must be >= 0");
	SM_CHECK(p->wan.bw > 0, "wan.bandwidth: must be > 0");
	SM_CHECK(p->wan.lat >= 0, "wan.latency: must be >= 0");
	SM_CHECK(p->gpu.peak_flops > 0, "gpu.peak: must be > 0");
	SM_CHECK(p->gpu.mfu > 0 && p->gpu.mfu <= 1, "gpu.mfu: %g not in (0, 1]", p->gpu.mfu);
	SM_CHECK(p->job.params >= 1, "job.parameters: must be >= 1");
	SM_CHECK(p->job.tokens > 0, "job.tokens: must be > 0");
	SM_CHECK(p->job.value_bytes > 0, "job.value_bytes: must be > 0");
	SM_CHECK(p->job.keep > 0 && p->job.keep <= 1, "job.keep: %g not in (0, 1]", p->job.keep);
	SM_CHECK(p->job.topk_kept >= 0 && p->job.topk_kept <= p->job.params,
	      "job.topk_kept: %g not in 0..parameters", p->job.topk_kept);
	SM_CHECK(p->job.band_chunk >= 2, "job.band_chunk: must be >= 2");
	SM_CHECK(p->job.topk_chunk >= 2, "job.topk_chunk: must be >= 2");
	SM_CHECK((unsigned int)p->job.library < SM_LIB_COUNT, "job.library: %u unknown",
	      (unsigned int)p->job.library);
	SM_CHECK((unsigned int)p->job.direct < SM_DIRECT_COUNT, "job.direct: %u unknown",
	      (unsigned int)p->job.direct);
	SM_CHECK(p->job.compute >= 0 && p->job.compute <= 1e6,
	      "job.compute: %g s not in 0..1e6 s", p->job.compute);
	SM_CHECK(p->job.first_bucket == 0 || p->job.first_bucket >= 1,
	      "job.first_bucket: %g B: 0 or at least 1 B", p->job.first_bucket);
	SM_CHECK(p->job.bucket_cap == 0 || p->job.bucket_cap >= 1,
	      "job.bucket_cap: %g B: 0 or at least 1 B", p->job.bucket_cap);
	SM_CHECK(p->job.tensor_bytes == 0 || p->job.tensor_bytes >= 1,
	      "job.tensor_bytes: %g B: 0 or at least 1 B", p->job.tensor_bytes);
	SM_CHECK(p->job.threads >= 1 && p->job.threads <= 64,
	      "job.threads: %u not in 1..64", p->job.threads);
	SM_CHECK(p->job.first_lead >= 0 && p->job.first_lead < 1,
	      "job.first_lead: %g not in [0, 1)", p->job.first_lead);
	rc = sm_library_check(p, err, errlen);
	if (rc != 0)
		return -EINVAL;
	SM_CHECK(p->mod.lanes > 0 && p->mod.lane_rate > 0, "module.lanes, module.lane_rate: must be > 0");
	SM_CHECK(p->mod.planes >= 1, "module.planes: must be >= 1");
	SM_CHECK(p->mod.budget[SM_BUDGET_LOW] > 0, "module.budget_low: must be > 0");
	SM_CHECK(p->mod.budget[SM_BUDGET_HIGH] > 0, "module.budget_high: must be > 0");
	SM_CHECK(p->mod.fpga_rate > 0, "module.fpga_rate: must be > 0");
	SM_CHECK(p->mod.port_bw > 0, "module.port: must be > 0");
	SM_CHECK(p->mod.host_port_bw > 0, "module.host_port: must be > 0");
	for (v = 0; v < SM_VAR_COUNT; v++)
		SM_CHECK(p->steps[v] > 0, "steps.%s: must be > 0", sm_variant_id(v));
	rc = check_table(&p->enob, "steps.enob", err, errlen);
	if (rc != 0)
		return rc;
	rc = check_table(&p->planes, "steps.planes", err, errlen);
	if (rc != 0)
		return rc;
	SM_CHECK(p->be_bw_lo > 0 && p->be_bw_hi > p->be_bw_lo,
	      "breakeven.bandwidth_min/max: need 0 < min < max");
	SM_CHECK(p->be_budget_lo > 0 && p->be_budget_hi > p->be_budget_lo,
	      "breakeven.budget_min/max: need 0 < min < max");
	SM_CHECK(p->be_rtol > 0 && p->be_rtol < 0.1, "breakeven.tolerance: %g not in (0, 0.1)",
	      p->be_rtol);
	return 0;
}
