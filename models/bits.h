/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A double as the 64 bits it is made of, and back: for values that cross threads in an atomic
 * word or processes in a message, and for doubles >= 0, which are ordered as their bits.
 */
#ifndef SM_BITS_H
#define SM_BITS_H

#include <stdint.h>
#include <string.h>

/** The bits of @p x. */
static inline uint64_t
sm_double_bits(double x)
{
	uint64_t b;

	memcpy(&b, &x, sizeof(b));
	return b;
}

/** The double whose bits are @p b. */
static inline double
sm_bits_double(uint64_t b)
{
	double x;

	memcpy(&x, &b, sizeof(x));
	return x;
}

#endif /* SM_BITS_H */
