/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Tier 1 tests of control/units.c: every kind parses its units exactly, rejects bad text with a
 * message that names the problem, and sc_unit_format() round-trips bit for bit.
 */
#include <errno.h>
#include <float.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "common.h"
#include "units.h"

struct ok_case {
	enum sc_unit_kind kind;
	const char *text;
	double want;
};

struct bad_case {
	enum sc_unit_kind kind;
	const char *text;
	const char *why;	/* a substring the message must hold */
};

static bool
same_bits(double a, double b)
{
	return memcmp(&a, &b, sizeof(a)) == 0;
}

static void
check_ok(const struct ok_case *c, size_t n)
{
	char err[1024];
	double v;
	size_t i;

	for (i = 0; i < n; i++) {
		v = -12345.0;
		err[0] = '\0';
		if (sc_unit_parse(c[i].kind, c[i].text, &v, err, sizeof(err)) != 0)
			fail_msg("'%s' rejected: %s", c[i].text, err);
		if (!same_bits(v, c[i].want))
			fail_msg("'%s' gave %.17g, want %.17g", c[i].text, v, c[i].want);
	}
}

static void
check_bad(const struct bad_case *c, size_t n)
{
	char err[1024];
	double v;
	size_t i;

	for (i = 0; i < n; i++) {
		v = 42.0;
		err[0] = '\0';
		if (sc_unit_parse(c[i].kind, c[i].text, &v, err, sizeof(err)) != -EINVAL)
			fail_msg("'%s' accepted as %.17g", c[i].text, v);
		assert_true(same_bits(v, 42.0));	/* not written on failure */
		assert_has(err, c[i].why);
	}
}

#define N(a) (sizeof(a) / sizeof((a)[0]))

static void
test_byte_rate(void **state)
{
	static const struct ok_case ok[] = {
		{ SC_UNIT_BYTE_RATE, "12.5GB/s", 12.5e9 },
		{ SC_UNIT_BYTE_RATE, "12.5 GB/s", 12.5e9 },
		{ SC_UNIT_BYTE_RATE, "100Gbit/s", 12.5e9 },
		{ SC_UNIT_BYTE_RATE, "100 Gb/s", 12.5e9 },
		{ SC_UNIT_BYTE_RATE, "100Gbps", 12.5e9 },
		{ SC_UNIT_BYTE_RATE, "25 Gbit/s", 3.125e9 },
		{ SC_UNIT_BYTE_RATE, "8 Gbit/s", 1e9 },
		{ SC_UNIT_BYTE_RATE, "800 Mbps", 1e8 },
		{ SC_UNIT_BYTE_RATE, "8 Mb/s", 1e6 },
		{ SC_UNIT_BYTE_RATE, "8 Mbit/s", 1e6 },
		{ SC_UNIT_BYTE_RATE, "8 kb/s", 1e3 },
		{ SC_UNIT_BYTE_RATE, "8 kbit/s", 1e3 },
		{ SC_UNIT_BYTE_RATE, "8 Tbit/s", 1e12 },
		{ SC_UNIT_BYTE_RATE, "8 bit/s", 1.0 },
		{ SC_UNIT_BYTE_RATE, "3 B/s", 3.0 },
		{ SC_UNIT_BYTE_RATE, "3 kB/s", 3e3 },
		{ SC_UNIT_BYTE_RATE, "3 MB/s", 3e6 },
		{ SC_UNIT_BYTE_RATE, "1 TB/s", 1e12 },
		{ SC_UNIT_BYTE_RATE, "1 KiB/s", 1024.0 },
		{ SC_UNIT_BYTE_RATE, "2 MiB/s", 2097152.0 },
		{ SC_UNIT_BYTE_RATE, "1 GiB/s", 1073741824.0 },
		{ SC_UNIT_BYTE_RATE, "0.1 GB/s", 0.1e9 },
		{ SC_UNIT_BYTE_RATE, "1.5e3 MB/s", 1.5e9 },
		{ SC_UNIT_BYTE_RATE, ".5 GB/s", 0.5e9 },
		{ SC_UNIT_BYTE_RATE, "0 B/s", 0.0 },
		{ SC_UNIT_BYTE_RATE, "-1 GB/s", -1e9 },	/* ranges are the caller's */
	};

	check_ok(ok, N(ok));
}

static void
test_bit_rate(void **state)
{
	static const struct ok_case ok[] = {
		{ SC_UNIT_BIT_RATE, "14 Gbit/s", 14e9 },
		{ SC_UNIT_BIT_RATE, "14Gbps", 14e9 },
		{ SC_UNIT_BIT_RATE, "14 Gb/s", 14e9 },
		{ SC_UNIT_BIT_RATE, "1.75 GB/s", 14e9 },
		{ SC_UNIT_BIT_RATE, "1 B/s", 8.0 },
		{ SC_UNIT_BIT_RATE, "1 KiB/s", 8192.0 },
		{ SC_UNIT_BIT_RATE, "5 bit/s", 5.0 },
		{ SC_UNIT_BIT_RATE, "56 Mbit/s", 56e6 },
	};

	check_ok(ok, N(ok));
}

static void
test_time(void **state)
{
	static const struct ok_case ok[] = {
		{ SC_UNIT_TIME, "20us", 20e-6 },
		{ SC_UNIT_TIME, "20 us", 20e-6 },
		{ SC_UNIT_TIME, "20 \xc2\xb5s", 20e-6 },
		{ SC_UNIT_TIME, "20\xce\xbcs", 20e-6 },
		{ SC_UNIT_TIME, "0.02 ms", 20e-6 },
		{ SC_UNIT_TIME, "20000 ns", 20e-6 },
		{ SC_UNIT_TIME, "10 ms", 10e-3 },
		{ SC_UNIT_TIME, "0.1 ms", 1e-4 },
		{ SC_UNIT_TIME, "1 ns", 1e-9 },
		{ SC_UNIT_TIME, "3 ps", 3e-12 },
		{ SC_UNIT_TIME, "1.5 s", 1.5 },
		{ SC_UNIT_TIME, "0 s", 0.0 },
		{ SC_UNIT_TIME, "1e3ms", 1.0 },
	};

	check_ok(ok, N(ok));
}

static void
test_other_kinds(void **state)
{
	static const struct ok_case ok[] = {
		{ SC_UNIT_BYTES, "2 B", 2.0 },
		{ SC_UNIT_BYTES, "2B", 2.0 },
		{ SC_UNIT_BYTES, "3 kB", 3e3 },
		{ SC_UNIT_BYTES, "5 MB", 5e6 },
		{ SC_UNIT_BYTES, "2 GB", 2e9 },
		{ SC_UNIT_BYTES, "1 KiB", 1024.0 },
		{ SC_UNIT_BYTES, "4 MiB", 4194304.0 },
		{ SC_UNIT_BYTES, "1 GiB", 1073741824.0 },
		{ SC_UNIT_POWER, "9.7 W", 9.7 },
		{ SC_UNIT_POWER, "500 mW", 0.5 },
		{ SC_UNIT_POWER, "2 kW", 2000.0 },
		{ SC_UNIT_ENERGY_BIT, "15 pJ/bit", 15.0 },
		{ SC_UNIT_ENERGY_BIT, "2.76pJ/bit", 2.76 },
		{ SC_UNIT_ENERGY_BIT, "120 pJ/B", 15.0 },
		{ SC_UNIT_ENERGY_BIT, "500 fJ/bit", 0.5 },
		{ SC_UNIT_ENERGY_BIT, "2 nJ/bit", 2000.0 },
		{ SC_UNIT_ENERGY_FLOP, "1 pJ/FLOP", 1.0 },
		{ SC_UNIT_ENERGY_FLOP, "0.5 pJ/FLOP", 0.5 },
		{ SC_UNIT_FLOP_RATE, "989 TFLOP/s", 989e12 },
		{ SC_UNIT_FLOP_RATE, "10 GFLOP/s", 10e9 },
		{ SC_UNIT_FLOP_RATE, "99GFLOPS", 99e9 },
		{ SC_UNIT_FLOP_RATE, "1 PFLOP/s", 1e15 },
		{ SC_UNIT_FLOP_RATE, "2 PFLOPS", 2e15 },
		{ SC_UNIT_FLOP_RATE, "7 MFLOP/s", 7e6 },
		{ SC_UNIT_FLOP_RATE, "5 kFLOP/s", 5e3 },
		{ SC_UNIT_FLOP_RATE, "3 FLOP/s", 3.0 },
		{ SC_UNIT_FLOP_RATE, "140.0 GFLOP/s", 140e9 },
		{ SC_UNIT_OP_RATE, "200 Gops/s", 200e9 },
		{ SC_UNIT_OP_RATE, "5 Mops/s", 5e6 },
		{ SC_UNIT_OP_RATE, "2 Tops/s", 2e12 },
		{ SC_UNIT_OP_RATE, "9 ops/s", 9.0 },
		{ SC_UNIT_NUMBER, "15833472", 15833472.0 },
		{ SC_UNIT_NUMBER, "2.5", 2.5 },
		{ SC_UNIT_NUMBER, "1e-4", 1e-4 },
		{ SC_UNIT_NUMBER, "-3", -3.0 },
		{ SC_UNIT_NUMBER, "+7", 7.0 },
		{ SC_UNIT_NUMBER, "2666.6666666666665", 8000.0 / 3.0 },
		{ SC_UNIT_COUNT, "8", 8.0 },
		{ SC_UNIT_COUNT, "0", 0.0 },
		{ SC_UNIT_COUNT, "1024", 1024.0 },
		{ SC_UNIT_FRACTION, "1/16", 0.0625 },
		{ SC_UNIT_FRACTION, "0.0625", 0.0625 },
		{ SC_UNIT_FRACTION, "0.4", 0.4 },
		{ SC_UNIT_FRACTION, "3/4", 0.75 },
		{ SC_UNIT_FRACTION, "1", 1.0 },
		{ SC_UNIT_FRACTION, "0", 0.0 },
		{ SC_UNIT_FRACTION, "1/3", 1.0 / 3.0 },
		/* zero is zero in every unit: no unit needed */
		{ SC_UNIT_TIME, "0", 0.0 },
		{ SC_UNIT_BYTES, "0", 0.0 },
		{ SC_UNIT_BYTE_RATE, "0.0", 0.0 },
		{ SC_UNIT_TIME, "-0", 0.0 },
		{ SC_UNIT_BYTES, "0e3", 0.0 },
	};

	check_ok(ok, N(ok));
}

static void
test_bad(void **state)
{
	static const struct bad_case bad[] = {
		{ SC_UNIT_BYTE_RATE, "", "empty value" },
		{ SC_UNIT_BYTE_RATE, "12.5", "needs a unit" },
		{ SC_UNIT_BYTE_RATE, "12.5", "GB/s, TB/s, KiB/s" },	/* lists the units */
		{ SC_UNIT_TIME, "20", "needs a unit" },
		{ SC_UNIT_TIME, "0.5", "needs a unit" },
		{ SC_UNIT_BYTES, "0.001", "needs a unit" },
		{ SC_UNIT_TIME, "20", "allowed units: s, ms, us" },
		{ SC_UNIT_POWER, "9.7", "needs a unit" },
		{ SC_UNIT_BYTE_RATE, "12.5GB", "unknown unit 'GB'" },
		{ SC_UNIT_BYTE_RATE, "12.5 gb/s", "did you mean 'GB/s'" },
		{ SC_UNIT_BYTE_RATE, "12.5  GB/s", "at most one space" },
		{ SC_UNIT_BYTE_RATE, "12.5 GB/s x", "unknown unit 'GB/s x'" },
		{ SC_UNIT_BYTE_RATE, " 12.5 GB/s", "leading or trailing blanks" },
		{ SC_UNIT_BYTE_RATE, "12.5 GB/s ", "leading or trailing blanks" },
		{ SC_UNIT_BYTE_RATE, "abc GB/s", "is not a number" },
		{ SC_UNIT_BYTE_RATE, "GB/s", "is not a number" },
		{ SC_UNIT_BYTE_RATE, "0x10 GB/s", "hexadecimal" },
		{ SC_UNIT_BYTE_RATE, "inf GB/s", "not a finite number" },
		{ SC_UNIT_TIME, "nan s", "not a finite number" },
		{ SC_UNIT_NUMBER, "-inf", "not a finite number" },
		{ SC_UNIT_BYTE_RATE, "1e999 GB/s", "too large" },
		{ SC_UNIT_BYTE_RATE, "1e300 TB/s", "too large" },
		{ SC_UNIT_BYTE_RATE, "1e308 TiB/s", "too large" },
		{ SC_UNIT_TIME, "1e-400 s", "too small" },
		{ SC_UNIT_TIME, "1e99999999999999999999 s", "too large" },
		{ SC_UNIT_TIME, "12 Ms", "unknown unit 'Ms'" },
		{ SC_UNIT_ENERGY_BIT, "15", "pJ/bit" },
		{ SC_UNIT_ENERGY_FLOP, "1 pJ", "unknown unit 'pJ'" },
		{ SC_UNIT_FLOP_RATE, "10 Gops/s", "unknown unit 'Gops/s'" },
		{ SC_UNIT_OP_RATE, "10 GFLOP/s", "unknown unit 'GFLOP/s'" },
		{ SC_UNIT_BYTES, "2 B/s", "unknown unit 'B/s'" },
		{ SC_UNIT_NUMBER, "2.5 ms", "takes no unit (got 'ms')" },
		{ SC_UNIT_NUMBER, "2.5x", "unexpected 'x'" },
		{ SC_UNIT_NUMBER, "1,5", "unexpected ',5' after the number" },
		{ SC_UNIT_NUMBER, "0x1A", "hexadecimal" },
		{ SC_UNIT_NUMBER, "", "empty value" },
		{ SC_UNIT_NUMBER, "e5", "is not a number" },
		{ SC_UNIT_COUNT, "-1", "not an integer >= 0" },
		{ SC_UNIT_COUNT, "1.5", "not an integer >= 0" },
		{ SC_UNIT_COUNT, "1e3", "not an integer >= 0" },
		{ SC_UNIT_COUNT, "99999999999999999999", "too large" },
		{ SC_UNIT_FRACTION, "1/0", "division by zero" },
		{ SC_UNIT_FRACTION, "1.5", "not between 0 and 1" },
		{ SC_UNIT_FRACTION, "2/1", "not between 0 and 1" },
		{ SC_UNIT_FRACTION, "-1/16", "not between 0 and 1" },
		{ SC_UNIT_FRACTION, "a/16", "is not a number" },
		{ SC_UNIT_FRACTION, "1/", "is not a number" },
		{ SC_UNIT_FRACTION, "/16", "bad numerator" },
		{ SC_UNIT_FRACTION, "1/16 x", "takes no unit" },
	};

	check_bad(bad, N(bad));
}

static void
test_bad_args(void **state)
{
	char err[256];
	double v;

	assert_int_equal(sc_unit_parse(SC_UNIT_KIND_COUNT, "1", &v, err, sizeof(err)), -EINVAL);
	assert_int_equal(sc_unit_parse(SC_UNIT_TIME, NULL, &v, err, sizeof(err)), -EINVAL);
	assert_int_equal(sc_unit_parse(SC_UNIT_TIME, "1 s", NULL, err, sizeof(err)), -EINVAL);
	/* No error buffer: still an error, nothing written. */
	assert_int_equal(sc_unit_parse(SC_UNIT_TIME, "1", &v, NULL, 0), -EINVAL);
	/* A tiny buffer is truncated, not overrun. */
	memset(err, 'x', sizeof(err));
	assert_int_equal(sc_unit_parse(SC_UNIT_TIME, "1", &v, err, 8), -EINVAL);
	assert_int_equal(strlen(err), 7);
	assert_int_equal(err[8], 'x');
}

static void
check_fmt(enum sc_unit_kind kind, double v, const char *want)
{
	char buf[SC_UNIT_FMT_LEN];

	assert_int_equal(sc_unit_format(kind, v, buf, sizeof(buf)), 0);
	assert_string_equal(buf, want);
}

static void
test_format(void **state)
{
	char buf[SC_UNIT_FMT_LEN];

	check_fmt(SC_UNIT_BYTE_RATE, 12.5e9, "12.5 GB/s");
	check_fmt(SC_UNIT_BYTE_RATE, 3.125e9, "3.125 GB/s");
	check_fmt(SC_UNIT_BYTE_RATE, 1e8, "100 MB/s");
	check_fmt(SC_UNIT_BYTE_RATE, 1e12, "1 TB/s");
	check_fmt(SC_UNIT_BYTE_RATE, 0.0, "0 B/s");
	check_fmt(SC_UNIT_BIT_RATE, 14e9, "14 Gbit/s");
	check_fmt(SC_UNIT_TIME, 20e-6, "20 us");
	check_fmt(SC_UNIT_TIME, 0.5, "500 ms");
	check_fmt(SC_UNIT_TIME, 0.0, "0 s");
	check_fmt(SC_UNIT_TIME, 1.5e-13, "0.15 ps");
	check_fmt(SC_UNIT_BYTES, 2.0, "2 B");
	check_fmt(SC_UNIT_POWER, 9.7, "9.7 W");
	check_fmt(SC_UNIT_POWER, 0.25, "250 mW");
	check_fmt(SC_UNIT_ENERGY_BIT, 2.76, "2.76 pJ/bit");
	check_fmt(SC_UNIT_ENERGY_FLOP, 1.0, "1 pJ/FLOP");
	check_fmt(SC_UNIT_FLOP_RATE, 989e12, "989 TFLOP/s");
	check_fmt(SC_UNIT_FLOP_RATE, 1e14, "100 TFLOP/s");
	check_fmt(SC_UNIT_OP_RATE, 200e9, "200 Gops/s");
	check_fmt(SC_UNIT_NUMBER, 15833472.0, "15833472");
	check_fmt(SC_UNIT_NUMBER, 1e-4, "0.0001");
	check_fmt(SC_UNIT_NUMBER, 8000.0 / 3.0, "2666.6666666666665");
	check_fmt(SC_UNIT_NUMBER, 1e300, "1e300");
	check_fmt(SC_UNIT_NUMBER, -2.5, "-2.5");
	check_fmt(SC_UNIT_COUNT, 8.0, "8");
	check_fmt(SC_UNIT_FRACTION, 0.0625, "1/16");
	check_fmt(SC_UNIT_FRACTION, 0.4, "0.4");
	check_fmt(SC_UNIT_FRACTION, 1.0, "1");

	assert_int_equal(sc_unit_format(SC_UNIT_TIME, NAN, buf, sizeof(buf)), -EINVAL);
	assert_int_equal(sc_unit_format(SC_UNIT_TIME, INFINITY, buf, sizeof(buf)), -EINVAL);
	assert_int_equal(sc_unit_format(SC_UNIT_COUNT, 1.5, buf, sizeof(buf)), -EINVAL);
	assert_int_equal(sc_unit_format(SC_UNIT_COUNT, -1.0, buf, sizeof(buf)), -EINVAL);
	assert_int_equal(sc_unit_format(SC_UNIT_KIND_COUNT, 1.0, buf, sizeof(buf)), -EINVAL);
	assert_int_equal(sc_unit_format(SC_UNIT_BYTE_RATE, 12.5e9, buf, 5), -ENOSPC);
}

/* xorshift64*: a fixed seed, so a failure replays. */
static uint64_t
rnd(uint64_t *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 2685821657736338717ULL;
}

static void
check_round_trip(enum sc_unit_kind kind, double v)
{
	char buf[SC_UNIT_FMT_LEN], err[1024];
	double back = 0.0;

	if (sc_unit_format(kind, v, buf, sizeof(buf)) != 0)
		fail_msg("kind %d: cannot format %.17g", kind, v);
	if (sc_unit_parse(kind, buf, &back, err, sizeof(err)) != 0)
		fail_msg("kind %d: '%s' (from %.17g) rejected: %s", kind, buf, v, err);
	if (!same_bits(back, v))
		fail_msg("kind %d: %a -> '%s' -> %a", kind, v, buf, back);
}

static void
test_round_trip(void **state)
{
	static const double special[] = {
		0.0, -0.0, 1.0, 0.1, 0.1 + 0.2, 1.0 / 3.0, 2.0 / 3.0, 12.5e9, 20e-6, 8000.0 / 3.0,
		DBL_MAX, -DBL_MAX, DBL_MIN, 5e-324, 1e-310, DBL_EPSILON, 123456789012345678.0,
		9007199254740993.0, 0.30000000000000004, 1e21, 1e-7, 999999.9999999999,
	};
	uint64_t seed = 0x5eed5eed12345678ULL, bits;
	unsigned int i;
	int k;
	double v;

	for (k = 0; k < SC_UNIT_KIND_COUNT; k++) {
		if (k == SC_UNIT_COUNT || k == SC_UNIT_FRACTION)
			continue;
		for (i = 0; i < N(special); i++)
			check_round_trip((enum sc_unit_kind)k, special[i]);
		for (i = 0; i < 20000; i++) {
			/* Arbitrary bit patterns: every finite double, subnormals included. */
			bits = rnd(&seed);
			memcpy(&v, &bits, sizeof(v));
			if (isfinite(v))
				check_round_trip((enum sc_unit_kind)k, v);
			/* Values of the sizes scenarios use. */
			v = (double)(rnd(&seed) % 100000) / 1000.0 *
			    pow(10.0, (double)(rnd(&seed) % 40) - 20.0);
			check_round_trip((enum sc_unit_kind)k, v);
		}
	}
	for (i = 0; i < 20000; i++) {
		check_round_trip(SC_UNIT_FRACTION, (double)(rnd(&seed) >> 11) * 0x1p-53);
		check_round_trip(SC_UNIT_FRACTION, 1.0 / (double)(1 + rnd(&seed) % 2000000));
		check_round_trip(SC_UNIT_COUNT, (double)(rnd(&seed) >> 11));
	}
	check_round_trip(SC_UNIT_FRACTION, 0.0);
	check_round_trip(SC_UNIT_FRACTION, -0.0);
	check_round_trip(SC_UNIT_FRACTION, 1.0);
	check_round_trip(SC_UNIT_COUNT, 0.0);
}

static void
test_names(void **state)
{
	char buf[512];

	assert_string_equal(sc_unit_kind_name(SC_UNIT_BYTE_RATE), "byte rate");
	assert_string_equal(sc_unit_kind_name(SC_UNIT_KIND_COUNT), "?");
	assert_string_equal(sc_unit_base(SC_UNIT_TIME), "s");
	assert_string_equal(sc_unit_base(SC_UNIT_ENERGY_BIT), "pJ/bit");
	assert_string_equal(sc_unit_example(SC_UNIT_BYTE_RATE), "12.5 GB/s");
	assert_int_equal(sc_unit_allowed(SC_UNIT_TIME, buf, sizeof(buf)), 0);
	assert_has(buf, "s, ms, us");
	assert_has(buf, "ps");
	assert_int_equal(sc_unit_allowed(SC_UNIT_BYTE_RATE, buf, sizeof(buf)), 0);
	assert_has(buf, "Gbps");
	assert_has(buf, "KiB/s");
	assert_int_equal(sc_unit_allowed(SC_UNIT_BYTE_RATE, buf, 10), -ENOSPC);
	assert_int_equal(sc_unit_allowed(SC_UNIT_KIND_COUNT, buf, sizeof(buf)), -EINVAL);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_byte_rate),
		cmocka_unit_test(test_bit_rate),
		cmocka_unit_test(test_time),
		cmocka_unit_test(test_other_kinds),
		cmocka_unit_test(test_bad),
		cmocka_unit_test(test_bad_args),
		cmocka_unit_test(test_format),
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_names),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
