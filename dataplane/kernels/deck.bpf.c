/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The deck's link kernel as a program: what the built-in model charges, frame by frame.
 *
 * The 1-D 256-point band transform costs 2.5 n log2 n FLOP per n-point chunk: 2.5 x 8 = 20 FLOP
 * per BF16 value, 10 per byte, charged to the compute budget ([module] compute_ops = fft).  The
 * FPGA's work (quantise, full-scale tracking, bit-plane recombination, modular reduction) is one
 * op per byte of each of add, mul, mod and gather.  With this program a run gives the built-in
 * model's step times (reference-model.md, "The module as a link kernel").
 */
#include "syncemu_kernel.h"

__attribute__((section(SYNCEMU_KERNEL_SECTION), used)) unsigned long long
deck_kernel(struct syncemu_kernel_ctx *c)
{
	unsigned long long n = c->payload;

	c->ops[SYNCEMU_OP_FFT] = 10 * n;	/* 2.5 log2(256) FLOP per value / 2 bytes */
	c->ops[SYNCEMU_OP_ADD] = n;
	c->ops[SYNCEMU_OP_MUL] = n;
	c->ops[SYNCEMU_OP_MOD] = n;
	c->ops[SYNCEMU_OP_GATHER] = n;
	return 0;
}
