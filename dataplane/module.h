/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The module: the link kernel's four pipelined stages (optics, compute budget, FPGA, port) and a
 * latency.  The slowest stage sets the rate, as in the model (models/kernel.c).
 */
#ifndef DP_MODULE_H
#define DP_MODULE_H

#include <rte_common.h>

#include "../models/kernel.h"
#include "engine.h"
#include "frame.h"

struct dp_kernel;

/** Configuration of a module. */
struct dp_module_params {
	const char *name;
	uint64_t stage_bw[SM_STAGE_COUNT];	/**< B/s of payload; 0 = the stage costs nothing */
	dp_time_t latency;			/**< added once, after the last frame */
	bool gather;		/**< start streaming only when the whole step's input is in (E') */
	uint64_t expect;	/**< payload bytes per step */
	void (*done)(void *arg, dp_time_t now);	/**< called when a step's stream is done */
	void *arg;
	struct dp_record *rec;	/**< records when the input was complete (gather) and the
				 *   binding stage of each step, or NULL */
	uint32_t index;		/**< the worker it serves (module_binding probe) */
	int cap_in, cap_out;
	/* a link-kernel program (kernel_prog.h), or NULL: the compute and FPGA stages are rates */
	const struct dp_kernel *kernel;
	unsigned int compute_mask;		/**< ops charged to the compute stage (1u << op) */
	uint64_t op_rate[SM_STAGE_COUNT];	/**< dp_kernel_rates() */
	uint32_t value_bytes, planes;		/**< for the program's context */
};

struct dp_module_slot {
	struct dp_pkt p;	/**< the frame, kept only while its "out" capture is pending */
	bool kept;		/**< p holds a frame */
	uint32_t len;		/**< payload bytes */
	dp_time_t exit;		/**< leaves the last stage; DP_NEVER while gathered */
};

/** Runtime state of a module. */
struct dp_module {
	struct dp_elem e;
	uint64_t stage_bw[SM_STAGE_COUNT];
	dp_time_t latency;
	bool gather;
	uint64_t expect;
	void (*done)(void *arg, dp_time_t now);
	void *arg;
	struct dp_record *rec;
	uint32_t step;			/**< streams completed */
	int cap_in, cap_out;
	/* frames in the pipeline (or gathered), in exit order; without an "out" capture a frame's
	 * mbuf is freed as it arrives and only its length stays */
	struct dp_module_slot *ring;
	uint32_t mask, head, tail, started;
	dp_time_t busy[SM_STAGE_COUNT];	/**< each stage is free from */
	int slowest;			/**< the stage with the lowest rate (the port if none) */
	uint64_t got;			/**< payload bytes in this step */
	uint64_t streamed;		/**< payload bytes started through the stages this step */
	dp_time_t done_at;		/**< when the step's stream is done; DP_NEVER if pending */
	/* statistics */
	dp_time_t stage_busy[SM_STAGE_COUNT];	/**< time each stage worked, all steps */
	dp_time_t gathered_at;		/**< when the last step's input was complete */
	/* the binding stage, step by step (module_binding probe) */
	uint32_t index;
	dp_time_t stage_mark[SM_STAGE_COUNT];	/**< stage_busy at the last stream's end */
	int step_binding;		/**< the last stream's binding stage; -1 before the first */
	/* the link-kernel program (NULL: none) */
	const struct dp_kernel *kernel;
	unsigned int compute_mask;
	uint64_t op_rate[SM_STAGE_COUNT];
	uint32_t value_bytes, planes;
	uint64_t kernel_runs;		/**< frames the program ran on */
} __rte_cache_aligned;

/** Set up a module; 0, -EINVAL, -ENOMEM or -ENOSPC. */
int dp_module_init(struct dp_module *mod, struct dp_engine *eng, const struct dp_module_params *p);

/** Free the module's ring and any frames in it. */
void dp_module_fini(struct dp_module *mod);

/**
 * A worker hands a frame to its pluggable.  @p start receives when the slowest stage starts on it,
 * less the frame's time in the stages before it (the worker queues its next frames from then).
 * 0 or -ENOMEM.
 */
int dp_module_push(struct dp_module *mod, const struct dp_pkt *p, dp_time_t now, dp_time_t *start);

/** The stage that worked longest so far: the binding stage. */
enum sm_stage dp_module_binding(const struct dp_module *mod);

#endif /* DP_MODULE_H */
