/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The module as a link kernel: four pipelined stages, the slowest sets the rate.
 */
#ifndef SM_KERNEL_H
#define SM_KERNEL_H

#include "params.h"

/** The four pipelined stages of the module (deck: "The Module as a Link Kernel"). */
enum sm_stage {
	SM_STAGE_OPTICS,	/**< one optical pass per bit plane per value */
	SM_STAGE_COMPUTE,	/**< ops charged to the compute budget (the transform) */
	SM_STAGE_FPGA,		/**< the other ops: quantise, full scale, planes, modular */
	SM_STAGE_PORT,		/**< the module's port (QSFP56) */
	SM_STAGE_COUNT
};

/** Stage times and the binding stage for one stream through the module. */
struct sm_kernel {
	double bytes_in;		/**< bytes streamed in */
	double stage[SM_STAGE_COUNT];	/**< seconds each stage needs for the stream */
	enum sm_stage binding;		/**< the slowest stage (first in enum order on a tie) */
	double t;			/**< stage[binding]: the pipelined stream time */
	double latency;			/**< added once, s */
};

/** Stage rate of a module for a budget setting: FLOP/s, or 0 for [free] (not charged). */
double sm_budget_value(const struct sm_module *m, enum sm_budget b);

/**
 * Evaluate the stages for @p bytes_in bytes.
 *
 *   optics  = values * planes / (lanes * lane_rate), values = bytes_in / value_bytes
 *   compute = sum over compute ops of ops_per_byte * bytes_in / budget   (0 if budget is 0)
 *   fpga    = sum over the other ops of ops_per_byte * bytes_in / fpga_rate
 *   port    = bytes_in / port_bw
 *
 * @param budget   FLOP/s charged for the compute ops; 0 means not charged ([free])
 * @param latency  the placement's latency, s
 */
void sm_kernel_eval(const struct sm_module *m, double bytes_in, double value_bytes, double budget,
		    double latency, struct sm_kernel *k);

/** Compute ops per byte (the ones charged to the budget). */
double sm_kernel_compute_ops(const struct sm_module *m);

/**
 * The budget above which the compute stage no longer binds, FLOP/s (deck section 7b: 140.0
 * GFLOP/s for the 1-D 256-point band at 8 planes).  0 if no op is charged.
 */
double sm_kernel_budget_unbinds(const struct sm_module *m, double bytes_in, double value_bytes);

const char *sm_stage_name(enum sm_stage s);	/**< "optics", "compute", "fpga", "port" */
const char *sm_budget_name(enum sm_budget b);	/**< "low", "high", "free" */
/** A budget or op by name; 0, or -EINVAL if unknown (the result is then not written). */
int sm_budget_parse(const char *s, enum sm_budget *b);
const char *sm_op_name(enum sm_op op);		/**< "fft", "add", ... */
int sm_op_parse(const char *s, enum sm_op *op);

#endif /* SM_KERNEL_H */
