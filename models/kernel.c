/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The module as a link kernel.
 *
 * Deck: "The Module as a Link Kernel (Interactive)", results.md sections 6 and 7b.  The module
 * declares operations per byte by type (FFT, add, multiply, MAC, FP-MAC, modular, gather), a
 * latency, an energy per bit and a placement.  A stream goes through four pipelined stages and the
 * slowest sets the rate:
 *   - optics: with binary (NRZ) input a value quantised to b bits takes b optical passes, so
 *     4 x 14 Gb/s = 56 Gb/s carries 56e9 / 8 = 7e9 values/s at 8 planes;
 *   - compute budget: the ops charged to it (the transform, 2.5 n log2 n FLOP per n-point chunk)
 *     over the budget: [low] 10 GFLOP/s, [high] 99 GFLOP/s, [free] not charged;
 *   - FPGA stage: the remaining ops at an illustrative rate;
 *   - port: the QSFP56 module's 25 GB/s.
 */
#include <errno.h>
#include <strings.h>

#include "kernel.h"

double
sm_budget_value(const struct sm_module *m, enum sm_budget b)
{
	return b == SM_BUDGET_FREE ? 0.0 : m->budget[b];
}

double
sm_kernel_compute_ops(const struct sm_module *m)
{
	double ops = 0.0;
	int i;

	for (i = 0; i < SM_OP_COUNT; i++)
		if (m->compute_ops & (1u << i))
			ops += m->ops_per_byte[i];
	return ops;
}

static double
fpga_ops(const struct sm_module *m)
{
	double ops = 0.0;
	int i;

	for (i = 0; i < SM_OP_COUNT; i++)
		if (!(m->compute_ops & (1u << i)))
			ops += m->ops_per_byte[i];
	return ops;
}

void
sm_kernel_eval(const struct sm_module *m, double bytes_in, double value_bytes, double budget,
	       double latency, struct sm_kernel *k)
{
	double values = bytes_in / value_bytes;
	int s;

	k->bytes_in = bytes_in;
	k->stage[SM_STAGE_OPTICS] = values * m->planes / (m->lanes * m->lane_rate);
	k->stage[SM_STAGE_COMPUTE] = budget > 0 ? sm_kernel_compute_ops(m) * bytes_in / budget : 0.0;
	k->stage[SM_STAGE_FPGA] = fpga_ops(m) * bytes_in / m->fpga_rate;
	k->stage[SM_STAGE_PORT] = bytes_in / m->port_bw;
	k->binding = SM_STAGE_OPTICS;
	for (s = 1; s < SM_STAGE_COUNT; s++)
		if (k->stage[s] > k->stage[k->binding])
			k->binding = (enum sm_stage)s;
	k->t = k->stage[k->binding];
	k->latency = latency;
}

double
sm_kernel_budget_unbinds(const struct sm_module *m, double bytes_in, double value_bytes)
{
	struct sm_kernel k;
	double other = 0.0;
	int s;

	sm_kernel_eval(m, bytes_in, value_bytes, 0.0, 0.0, &k);
	for (s = 0; s < SM_STAGE_COUNT; s++)
		if (s != SM_STAGE_COMPUTE && k.stage[s] > other)
			other = k.stage[s];
	if (other <= 0.0)
		return 0.0;
	return sm_kernel_compute_ops(m) * bytes_in / other;
}

static const char *const stage_names[SM_STAGE_COUNT] = { "optics", "compute", "fpga", "port" };

const char *
sm_stage_name(enum sm_stage s)
{
	return (unsigned int)s < SM_STAGE_COUNT ? stage_names[s] : "?";
}

static const char *const budget_names[SM_BUDGET_COUNT] = { "low", "high", "free" };

const char *
sm_budget_name(enum sm_budget b)
{
	return (unsigned int)b < SM_BUDGET_COUNT ? budget_names[b] : "?";
}

int
sm_budget_parse(const char *s, enum sm_budget *b)
{
	int i;

	for (i = 0; i < SM_BUDGET_COUNT; i++) {
		if (strcasecmp(s, budget_names[i]) == 0) {
			*b = (enum sm_budget)i;
			return 0;
		}
	}
	return -EINVAL;
}

static const char *const op_names[SM_OP_COUNT] = {
	"fft", "add", "mul", "mac", "fpmac", "mod", "gather"
};

const char *
sm_op_name(enum sm_op op)
{
	return (unsigned int)op < SM_OP_COUNT ? op_names[op] : "?";
}

int
sm_op_parse(const char *s, enum sm_op *op)
{
	int i;

	for (i = 0; i < SM_OP_COUNT; i++) {
		if (strcasecmp(s, op_names[i]) == 0) {
			*op = (enum sm_op)i;
			return 0;
		}
	}
	return -EINVAL;
}
