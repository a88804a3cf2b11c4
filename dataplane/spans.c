/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A step's spans by resource.
 *
 * Deck: "Hot Spots".  The model charges each additive term of the step to the resource that
 * bounds it (a round to its link, or to the module port if that is slower; the module to its
 * binding stage).  The same rule applied to the emulated times: the compute span, then each
 * round's span between the last worker's end of the previous round and the last worker's end of
 * this one.  With phase sync these spans add up to the step exactly.
 */
#include <string.h>

#include "spans.h"

static const enum sm_resource stage_res[SM_STAGE_COUNT] = {
	SM_RES_MOD_OPTICS, SM_RES_MOD_COMPUTE, SM_RES_MOD_FPGA, SM_RES_MOD_PORT,
};

enum sm_resource
dp_stage_res(enum sm_stage s)
{
	return stage_res[s];
}

void
dp_step_spans(const struct dp_record *rec, const struct sm_program *prog, uint32_t s,
	      dp_time_t prev, enum sm_resource module_res, dp_time_t span[SM_RES_COUNT])
{
	dp_time_t mark = rec->compute_end[s];
	uint32_t r;

	memset(span, 0, SM_RES_COUNT * sizeof(*span));
	span[SM_RES_COMPUTE] = mark > prev ? mark - prev : 0;
	for (r = 0; r < prog->n; r++) {
		dp_time_t end = rec->round_end[(size_t)s * prog->n + r];
		enum sm_resource res_r = prog->r[r].res;
		dp_time_t from = mark;

		if (prog->r[r].hop == SM_HOP_MODULE) {
			res_r = module_res;
			if (rec->gathered[s] > mark && rec->gathered[s] <= end) {
				span[SM_RES_INTRA] += rec->gathered[s] - mark;
				from = rec->gathered[s];
			}
		}
		span[res_r] += end > from ? end - from : 0;
		if (end > mark)
			mark = end;
	}
}
