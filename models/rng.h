/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The project's one seeded PRNG, for every random source (background traffic, sizes, tests).
 *
 * Generator: xoshiro256** 1.0 (D. Blackman and S. Vigna, "Scrambled linear pseudorandom number
 * generators", ACM TOMS 47(4), 2021; reference code at prng.di.unimi.it).  Seeding: the 64-bit
 * seed runs through splitmix64 (G. Steele, D. Lea, C. Flood, "Fast splittable pseudorandom number
 * generators", OOPSLA 2014), whose finaliser is a bijection, so four consecutive outputs are never
 * all zero and every seed, 0 included, gives a valid state.
 *
 * Everything up to sm_rng_uniform() is 64-bit integer arithmetic and the conversion of the top 53
 * bits to a double, which is exact: sequences are identical on every platform.  sm_rng_exp() adds
 * one log() from libm (correctly rounded on glibc; elsewhere it may differ in the last ulp).
 *
 * Independent streams (one per WAN direction, say) come from sm_rng_stream_seed(seed, index).
 */
#ifndef SM_RNG_H
#define SM_RNG_H

#include <math.h>
#include <stdint.h>

/** xoshiro256** state. Seed it with sm_rng_seed() before use. */
struct sm_rng {
	uint64_t s[4];
};

/** One splitmix64 step: advance @p x by the golden gamma and return the mixed value. */
static inline uint64_t
sm_splitmix64(uint64_t *x)
{
	uint64_t z = (*x += UINT64_C(0x9e3779b97f4a7c15));

	z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
	return z ^ (z >> 31);
}

/**
 * The seed of sub-stream @p index of @p seed: two splitmix64 rounds, so distinct indices give
 * distinct, well-mixed seeds (the finaliser is a bijection).
 */
static inline uint64_t
sm_rng_stream_seed(uint64_t seed, uint64_t index)
{
	uint64_t x = seed;

	x = sm_splitmix64(&x) + index;
	return sm_splitmix64(&x);
}

/** Seed @p r from @p seed (any value, 0 included). */
static inline void
sm_rng_seed(struct sm_rng *r, uint64_t seed)
{
	uint64_t x = seed;
	int i;

	for (i = 0; i < 4; i++)
		r->s[i] = sm_splitmix64(&x);
}

static inline uint64_t
sm_rng_rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

/** The next 64 random bits. */
static inline uint64_t
sm_rng_next(struct sm_rng *r)
{
	uint64_t *s = r->s;
	uint64_t result = sm_rng_rotl(s[1] * 5, 7) * 9;
	uint64_t t = s[1] << 17;

	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = sm_rng_rotl(s[3], 45);
	return result;
}

/** Uniform on [0, 1): the top 53 bits times 2^-53 (exact, every value a multiple of 2^-53). */
static inline double
sm_rng_uniform(struct sm_rng *r)
{
	return (double)(sm_rng_next(r) >> 11) * 0x1.0p-53;
}

/**
 * Exponential with mean @p mean, by inverse transform: -mean ln(1 - u).  1 - u lies in (0, 1],
 * so the result is finite (at most about 36.7 mean) and >= 0.
 */
static inline double
sm_rng_exp(struct sm_rng *r, double mean)
{
	return -mean * log(1.0 - sm_rng_uniform(r));
}

#endif /* SM_RNG_H */
