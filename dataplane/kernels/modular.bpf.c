/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A heavier link kernel: the gradient carried in a residue number system, so that each value is
 * reduced modulo several primes on the FPGA before the optical passes.
 *
 * Per byte: the band transform (10 FLOP, compute budget) as in deck.bpf.c; one add, mul and
 * gather; and 4 residues x 5 ops of modular reduction (20 mod ops).  The FPGA stage then does
 * 23 ops per byte: at [module] fpga_rate = 200e9 ops/s that is 8.7 GB/s, below the optics'
 * 14 GB/s, so the FPGA binds where the deck's kernel is bound by the optics (E'[free], or E with
 * budget_high above 140 GFLOP/s).  The first frame of each step also loads the moduli (one
 * gather per prime per lane).
 */
#include "syncemu_kernel.h"

#define RESIDUES 4
#define OPS_PER_RESIDUE 5
#define LANES 4

__attribute__((section(SYNCEMU_KERNEL_SECTION), used)) unsigned long long
modular_kernel(struct syncemu_kernel_ctx *c)
{
	unsigned long long n = c->payload;

	c->ops[SYNCEMU_OP_FFT] = 10 * n;
	c->ops[SYNCEMU_OP_ADD] = n;
	c->ops[SYNCEMU_OP_MUL] = n;
	c->ops[SYNCEMU_OP_MOD] = RESIDUES * OPS_PER_RESIDUE * n;
	c->ops[SYNCEMU_OP_GATHER] = n;
	if (c->offset == 0)
		c->ops[SYNCEMU_OP_GATHER] += RESIDUES * LANES;
	return 0;
}
