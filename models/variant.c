/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Variants: names, payloads and wire bytes.
 *
 * Deck section "Six Variants and Their Wire Bytes" (results.md section 1).  A and the top-k and band
 * variants were measured in deck 04's experiment; C' and E' are hypothetical: every worker sends the
 * same band positions, so summing the bands gives the same update as gathering them, and they reuse
 * C's and E's steps.  The wire bytes of A, B, C and E equal results.json's wire_per_step.
 */
#include <errno.h>
#include <math.h>
#include <strings.h>

#include "variant.h"

static const char *const var_names[SM_VAR_COUNT] = { "A", "B", "C", "E", "C'", "E'" };
static const char *const var_ids[SM_VAR_COUNT] = { "A", "B", "C", "E", "Cp", "Ep" };
static const char *const var_desc[SM_VAR_COUNT] = {
	"AdamW, dense all-reduce",
	"top-k (k16), all-gather",
	"exact fixed band on the GPU, all-gather",
	"band through the optical module in the port (pluggable), all-gather",
	"band summed in the network, all-reduce",
	"band summed through a module in the network",
};

const char *
sm_variant_name(enum sm_variant v)
{
	return (unsigned int)v < SM_VAR_COUNT ? var_names[v] : "?";
}

const char *
sm_variant_id(enum sm_variant v)
{
	return (unsigned int)v < SM_VAR_COUNT ? var_ids[v] : "?";
}

const char *
sm_variant_desc(enum sm_variant v)
{
	return (unsigned int)v < SM_VAR_COUNT ? var_desc[v] : "?";
}

int
sm_variant_parse(const char *s, enum sm_variant *v)
{
	int i;

	for (i = 0; i < SM_VAR_COUNT; i++) {
		if (strcasecmp(s, var_names[i]) == 0 || strcasecmp(s, var_ids[i]) == 0) {
			*v = (enum sm_variant)i;
			return 0;
		}
	}
	return -EINVAL;
}

bool
sm_variant_has_module(enum sm_variant v)
{
	return v == SM_VAR_E || v == SM_VAR_EP;
}

bool
sm_variant_is_allreduce(enum sm_variant v)
{
	return v == SM_VAR_A || v == SM_VAR_CP || v == SM_VAR_EP;
}

double
sm_dense_bytes(const struct sm_params *p)
{
	return p->job.bytes > 0 ? p->job.bytes : p->job.value_bytes * p->job.params;
}

double
sm_payload(const struct sm_params *p, enum sm_variant v)
{
	double kept = p->job.keep * p->job.params;

	switch (v) {
	case SM_VAR_A:
		return sm_dense_bytes(p);
	case SM_VAR_B:
		if (p->job.topk_kept > 0)
			kept = p->job.topk_kept;
		return kept * (p->job.value_bytes + p->job.index_bytes);
	default:
		return kept * p->job.value_bytes;
	}
}

double
sm_wire_flat(const struct sm_params *p, enum sm_variant v)
{
	double w = sm_workers(p);
	double ar = 2.0 * (w - 1.0) / w;

	switch (v) {
	case SM_VAR_A:
	case SM_VAR_CP:
		return ar * sm_payload(p, v);
	case SM_VAR_EP:
		return sm_dense_bytes(p) + ar * sm_payload(p, v);
	default:
		return (w - 1.0) * sm_payload(p, v);
	}
}

double
sm_extra_flops(const struct sm_params *p, enum sm_variant v)
{
	switch (v) {
	case SM_VAR_A:
		return 0.0;
	case SM_VAR_B:
		return 2.5 * log2(p->job.topk_chunk) * p->job.params;
	default:
		return 2.5 * log2(p->job.band_chunk) * p->job.params;
	}
}
