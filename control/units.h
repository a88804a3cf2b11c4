/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Values with units: "12.5 GB/s", "100Gbit/s", "20 us", "1/16".
 *
 * Each kind of quantity has one base unit in which the value is stored (SI: B/s, bit/s, s, B, W,
 * pJ/bit, pJ/FLOP, FLOP/s, ops/s) and a table of accepted units.  A unit is a decimal exponent
 * plus a binary one (KiB = 2^10, bit/s = 2^-3 B/s): the decimal exponent is applied to the text
 * of the number before strtod(), so "20us" gives exactly the double nearest 20e-6 and
 * "100Gbit/s" exactly 12.5e9 B/s.  sc_unit_format() picks a readable unit and the shortest
 * digits that parse back to the same double, so a formatted value always round-trips.
 *
 * Syntax: a decimal number (sign, digits, optional fraction and exponent; no hex, inf or nan),
 * then at most one space, then the unit.  A dimensioned kind needs a unit; a plain number takes
 * none.  A count is a non-negative integer; a fraction is a decimal in [0, 1] or a ratio "a/b".
 */
#ifndef SC_UNITS_H
#define SC_UNITS_H

#include <stddef.h>

/** Kinds of quantity. */
enum sc_unit_kind {
	SC_UNIT_BYTE_RATE,	/**< stored in B/s; accepts byte and bit rates */
	SC_UNIT_BIT_RATE,	/**< stored in bit/s; same units as a byte rate */
	SC_UNIT_TIME,		/**< stored in s */
	SC_UNIT_BYTES,		/**< stored in B */
	SC_UNIT_POWER,		/**< stored in W */
	SC_UNIT_ENERGY_BIT,	/**< stored in pJ/bit; pJ/B is divided by 8 */
	SC_UNIT_ENERGY_FLOP,	/**< stored in pJ/FLOP */
	SC_UNIT_FLOP_RATE,	/**< stored in FLOP/s */
	SC_UNIT_OP_RATE,	/**< stored in ops/s */
	SC_UNIT_NUMBER,		/**< a plain number, no unit */
	SC_UNIT_COUNT,		/**< a non-negative integer, no unit */
	SC_UNIT_FRACTION,	/**< in [0, 1]: a decimal or a ratio "a/b" */
	SC_UNIT_KIND_COUNT
};

/** Longest text sc_unit_format() writes, with its NUL. */
#define SC_UNIT_FMT_LEN 48

/**
 * Parse @p s as a quantity of @p kind into its base unit.
 *
 * @param kind    the kind of quantity
 * @param s       the text, e.g. "12.5 GB/s"; no leading or trailing blanks
 * @param v       receives the value in the base unit (written only on success)
 * @param err     buffer for a message naming the problem and the allowed units, or NULL
 * @param errlen  its size
 * @return 0, or -EINVAL (bad number, missing or unknown unit, out of range, bad arguments)
 */
int sc_unit_parse(enum sc_unit_kind kind, const char *s, double *v, char *err, size_t errlen);

/**
 * Format @p v (in the base unit of @p kind) with a readable unit, e.g. "12.5 GB/s", "20 us",
 * "1/16".  sc_unit_parse() of the text gives @p v back exactly (same bits, -0 included).
 *
 * @return 0; -EINVAL if @p v is not finite or @p kind is unknown; -ENOSPC if @p len is too
 *         small (SC_UNIT_FMT_LEN always suffices)
 */
int sc_unit_format(enum sc_unit_kind kind, double v, char *buf, size_t len);

/** Name of the kind, e.g. "byte rate"; "?" if unknown. */
const char *sc_unit_kind_name(enum sc_unit_kind kind);

/** The base unit the value is stored in, e.g. "B/s"; "" for plain numbers. */
const char *sc_unit_base(enum sc_unit_kind kind);

/** An example value, e.g. "12.5 GB/s". */
const char *sc_unit_example(enum sc_unit_kind kind);

/**
 * Write the accepted units of @p kind as a comma list, e.g. "B/s, kB/s, ...", or a short
 * description for the kinds without units ("a number", "an integer >= 0", ...).
 *
 * @return 0; -EINVAL for an unknown kind; -ENOSPC if truncated
 */
int sc_unit_allowed(enum sc_unit_kind kind, char *buf, size_t len);

#endif /* SC_UNITS_H */
