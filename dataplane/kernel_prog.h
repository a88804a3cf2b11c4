/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The module's link kernel as a user program ([module] kernel): an eBPF object built with clang,
 * loaded, verified and JIT-compiled by DPDK's rte_bpf, run once per frame to say the frame's work
 * by operation type (kernels/syncemu_kernel.h).
 */
#ifndef DP_KERNEL_PROG_H
#define DP_KERNEL_PROG_H

#include <stddef.h>
#include <stdint.h>

#include "../models/params.h"
#include "kernels/syncemu_kernel.h"

struct rte_bpf;

struct dp_kernel {
	struct rte_bpf *bpf;
	uint64_t (*jit)(void *ctx);	/**< the JIT-compiled function, or NULL: interpreted */
	char path[4096];
	char section[64];
};

/**
 * Load the program in section @p section (NULL: SYNCEMU_KERNEL_SECTION) of the ELF object
 * @p path and run it once on a test frame.  rte_bpf's own messages (why the verifier refused it)
 * go into @p err with the reason, not to the log.  0, -ENOENT (no such file), -EINVAL (not a
 * program rte_bpf accepts, or it failed the test frame) or -ENOMEM.
 */
int dp_kernel_load(struct dp_kernel **out, const char *path, const char *section, char *err,
		   size_t errlen);

void dp_kernel_free(struct dp_kernel *k);

/** Run the program on @p ctx (its ops[] zeroed first); the program's return value (0: ok). */
uint64_t dp_kernel_run(const struct dp_kernel *k, struct syncemu_kernel_ctx *ctx);

/**
 * The model's ops per byte from the program: its ops for a full frame of @p payload bytes in the
 * middle of a stream, over @p payload.  0 or -EINVAL (the program refused the frame: @p err).
 */
int dp_kernel_ops_per_byte(const struct dp_kernel *k, const struct sm_params *p, uint32_t payload,
			   double ops_per_byte[SM_OP_COUNT], char *err, size_t errlen);

/**
 * The rates the ops of a frame are charged at, ops/s by stage: rate[SM_STAGE_COMPUTE] the compute
 * budget @p budget (0: [free], the compute ops cost nothing), rate[SM_STAGE_FPGA] the FPGA's; the
 * other stages 0.  Which op goes where is @p m's compute_ops.
 */
void dp_kernel_rates(const struct sm_module *m, double budget, uint64_t rate[4]);

/**
 * A frame's time in the stage of rate @p rate for @p ops ops: ceil(ops x 1e12 / rate) ps,
 * exact; 0 if @p rate or @p ops is 0.
 */
static inline uint64_t
dp_kernel_ps(uint64_t ops, uint64_t rate)
{
	unsigned __int128 x;

	if (ops == 0 || rate == 0)
		return 0;
	x = ((unsigned __int128)ops * UINT64_C(1000000000000) + rate - 1) / rate;
	return x > (UINT64_C(1) << 62) ? UINT64_C(1) << 62 : (uint64_t)x;
}

#endif /* DP_KERNEL_PROG_H */
