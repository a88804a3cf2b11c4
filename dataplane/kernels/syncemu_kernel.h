/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The interface of a link-kernel program ([module] kernel): what syncemu tells the program about
 * each frame its module streams, and where the program writes the frame's work by operation type.
 *
 * A program is one function in an ELF section (SYNCEMU_KERNEL_SECTION unless
 * [module] kernel_section says otherwise), built with
 *
 *   clang -O2 -target bpf -I dataplane/kernels -c my.bpf.c -o my.bpf.o
 *
 * and run by DPDK's rte_bpf (JIT-compiled where the CPU has a JIT) once per frame: it may read
 * the whole context and write ops[]; ops[] is zero when it starts.  It returns 0, or anything
 * else to stop the run with an error naming the frame.  rte_bpf's verifier refuses loops, calls
 * and accesses outside the context.
 *
 * The data plane charges the ops of the types in [module] compute_ops to the compute stage
 * (ops x 1e12 / budget picoseconds; nothing at budget [free]) and the others to the FPGA stage
 * (ops / [module] fpga_rate).  The optics and port stages stay rates of payload bytes.  The
 * analytic model's ops per byte are the program's ops for a full frame over its payload.
 *
 * No includes: plain C types of fixed width on both sides (checked by the data plane).
 */
#ifndef SYNCEMU_KERNEL_H
#define SYNCEMU_KERNEL_H

#define SYNCEMU_KERNEL_SECTION "kernel"

/** Operation types, in the order of [module] ops_* and models/params.h enum sm_op. */
enum syncemu_op {
	SYNCEMU_OP_FFT,		/* transform butterflies, counted as FLOP */
	SYNCEMU_OP_ADD,
	SYNCEMU_OP_MUL,
	SYNCEMU_OP_MAC,
	SYNCEMU_OP_FPMAC,	/* floating-point multiply-accumulate */
	SYNCEMU_OP_MOD,		/* modular arithmetic */
	SYNCEMU_OP_GATHER,
	SYNCEMU_OP_COUNT
};

struct syncemu_kernel_ctx {
	/* in */
	unsigned int payload;		/* payload bytes of this frame */
	unsigned int value_bytes;	/* bytes per gradient value ([job] value_bytes) */
	unsigned int planes;		/* bit planes, one optical pass each ([module] planes) */
	unsigned int module;		/* the module's index (that of the worker it serves) */
	unsigned long long offset;	/* payload bytes of the step's stream before this frame */
	unsigned long long stream;	/* payload bytes of the step's whole stream */
	unsigned long long step;	/* streams this module finished before this one */
	/* out */
	unsigned long long ops[SYNCEMU_OP_COUNT];	/* work on this frame, by type */
};

#endif /* SYNCEMU_KERNEL_H */
