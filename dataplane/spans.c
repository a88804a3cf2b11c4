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
	dp_time_t mod;

	dp_step_spans_apart(rec, prog, s, prev, span, &mod);
	span[module_res] += mod;
}

void
dp_step_spans_apart(const struct dp_record *rec, const struct sm_program *prog, uint32_t s,
		    dp_time_t prev, dp_time_t span[SM_RES_COUNT], dp_time_t *module)
{
	uint32_t k = dp_record_slot(rec, s), r;
	dp_time_t mark = rec->compute_end[k], gathered = rec->gathered[k];

	memset(span, 0, SM_RES_COUNT * sizeof(*span));
	*module = 0;
	span[SM_RES_COMPUTE] = mark > prev ? mark - prev : 0;
	for (r = 0; r < prog->n; r++) {
		dp_time_t end = rec->round_end[(size_t)k * prog->n + r];
		dp_time_t from = mark, *to = &span[prog->r[r].res];

		if (prog->r[r].hop == SM_HOP_MODULE) {
			to = module;
			if (gathered > mark && gathered <= end) {
				span[SM_RES_INTRA] += gathered - mark;
				from = gathered;
			}
		}
		*to += end > from ? end - from : 0;
		if (end > mark)
			mark = end;
	}
}
