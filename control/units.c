/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Values with units.
 *
 * A unit is a decimal exponent and a binary exponent relative to the base unit of its kind:
 * value = strtod(mantissa "e" (exponent + dec)) * 2^bin.  Shifting the decimal exponent in the
 * text (rather than multiplying by 1e-6) keeps every decimal unit exact: "20us" is the double
 * nearest 20e-6, as the literal is.  Binary exponents (KiB, bits) are exact multiplications.
 *
 * The formatter divides by 2^bin (exact), takes the shortest %.{p}e digits that strtod() reads
 * back to the same double and moves the decimal point by dec, so parse(format(x)) == x by
 * construction; it also checks this and falls back to the base unit if it ever does not hold.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "units.h"

/* Longest number text accepted (digits, point, sign and exponent). */
#define NUM_MAX 100
/* Exponents are clamped here; with NUM_MAX digits the result is out of range anyway. */
#define EXP_CLAMP 100000L

/** One accepted unit. */
struct unit_def {
	const char *name;	/**< as written after the number */
	int dec;		/**< decimal exponent relative to the base unit */
	int bin;		/**< binary exponent relative to the base unit */
	bool show;		/**< the formatter may choose it */
};

/** One kind of quantity. */
struct kind_def {
	const char *name;		/**< "byte rate" */
	const char *base;		/**< unit the value is stored in */
	const char *example;		/**< "12.5 GB/s" */
	const struct unit_def *units;	/**< NULL for the kinds without units */
	unsigned int n_units;
};

#define UNITS(a) (a), (unsigned int)(sizeof(a) / sizeof((a)[0]))

static const struct unit_def byte_rate_units[] = {
	{ "B/s", 0, 0, true }, { "kB/s", 3, 0, true }, { "MB/s", 6, 0, true },
	{ "GB/s", 9, 0, true }, { "TB/s", 12, 0, true },
	{ "KiB/s", 0, 10, false }, { "MiB/s", 0, 20, false }, { "GiB/s", 0, 30, false },
	{ "TiB/s", 0, 40, false },
	{ "bit/s", 0, -3, false }, { "kbit/s", 3, -3, false }, { "Mbit/s", 6, -3, false },
	{ "Gbit/s", 9, -3, false }, { "Tbit/s", 12, -3, false },
	{ "kb/s", 3, -3, false }, { "Mb/s", 6, -3, false }, { "Gb/s", 9, -3, false },
	{ "Tb/s", 12, -3, false },
	{ "kbps", 3, -3, false }, { "Mbps", 6, -3, false }, { "Gbps", 9, -3, false },
	{ "Tbps", 12, -3, false },
};

static const struct unit_def bit_rate_units[] = {
	{ "bit/s", 0, 0, true }, { "kbit/s", 3, 0, true }, { "Mbit/s", 6, 0, true },
	{ "Gbit/s", 9, 0, true }, { "Tbit/s", 12, 0, true },
	{ "kb/s", 3, 0, false }, { "Mb/s", 6, 0, false }, { "Gb/s", 9, 0, false },
	{ "Tb/s", 12, 0, false },
	{ "kbps", 3, 0, false }, { "Mbps", 6, 0, false }, { "Gbps", 9, 0, false },
	{ "Tbps", 12, 0, false },
	{ "B/s", 0, 3, false }, { "kB/s", 3, 3, false }, { "MB/s", 6, 3, false },
	{ "GB/s", 9, 3, false }, { "TB/s", 12, 3, false },
	{ "KiB/s", 0, 13, false }, { "MiB/s", 0, 23, false }, { "GiB/s", 0, 33, false },
	{ "TiB/s", 0, 43, false },
};

static const struct unit_def time_units[] = {
	{ "s", 0, 0, true }, { "ms", -3, 0, true }, { "us", -6, 0, true },
	{ "\xc2\xb5s", -6, 0, false },	/* U+00B5 micro sign */
	{ "\xce\xbcs", -6, 0, false },	/* U+03BC Greek mu */
	{ "ns", -9, 0, true }, { "ps", -12, 0, true },
};

static const struct unit_def byte_units[] = {
	{ "B", 0, 0, true }, { "kB", 3, 0, true }, { "MB", 6, 0, true }, { "GB", 9, 0, true },
	{ "TB", 12, 0, true },
	{ "KiB", 0, 10, false }, { "MiB", 0, 20, false }, { "GiB", 0, 30, false },
	{ "TiB", 0, 40, false },
};

static const struct unit_def power_units[] = {
	{ "W", 0, 0, true }, { "mW", -3, 0, true }, { "kW", 3, 0, true },
};

static const struct unit_def energy_bit_units[] = {
	{ "pJ/bit", 0, 0, true }, { "fJ/bit", -3, 0, false }, { "nJ/bit", 3, 0, false },
	{ "pJ/B", 0, -3, false }, { "fJ/B", -3, -3, false }, { "nJ/B", 3, -3, false },
};

static const struct unit_def energy_flop_units[] = {
	{ "pJ/FLOP", 0, 0, true }, { "fJ/FLOP", -3, 0, false }, { "nJ/FLOP", 3, 0, false },
};

static const struct unit_def flop_rate_units[] = {
	{ "FLOP/s", 0, 0, true }, { "kFLOP/s", 3, 0, true }, { "MFLOP/s", 6, 0, true },
	{ "GFLOP/s", 9, 0, true }, { "TFLOP/s", 12, 0, true }, { "PFLOP/s", 15, 0, true },
	{ "FLOPS", 0, 0, false }, { "kFLOPS", 3, 0, false }, { "MFLOPS", 6, 0, false },
	{ "GFLOPS", 9, 0, false }, { "TFLOPS", 12, 0, false }, { "PFLOPS", 15, 0, false },
};

static const struct unit_def op_rate_units[] = {
	{ "ops/s", 0, 0, true }, { "kops/s", 3, 0, true }, { "Mops/s", 6, 0, true },
	{ "Gops/s", 9, 0, true }, { "Tops/s", 12, 0, true },
};

static const struct kind_def kinds[SC_UNIT_KIND_COUNT] = {
	[SC_UNIT_BYTE_RATE] = { "byte rate", "B/s", "12.5 GB/s", UNITS(byte_rate_units) },
	[SC_UNIT_BIT_RATE] = { "bit rate", "bit/s", "14 Gbit/s", UNITS(bit_rate_units) },
	[SC_UNIT_TIME] = { "time", "s", "20 us", UNITS(time_units) },
	[SC_UNIT_BYTES] = { "size", "B", "2 B", UNITS(byte_units) },
	[SC_UNIT_POWER] = { "power", "W", "9.7 W", UNITS(power_units) },
	[SC_UNIT_ENERGY_BIT] = { "energy per bit", "pJ/bit", "15 pJ/bit", UNITS(energy_bit_units) },
	[SC_UNIT_ENERGY_FLOP] = { "energy per FLOP", "pJ/FLOP", "1 pJ/FLOP",
				  UNITS(energy_flop_units) },
	[SC_UNIT_FLOP_RATE] = { "FLOP rate", "FLOP/s", "989 TFLOP/s", UNITS(flop_rate_units) },
	[SC_UNIT_OP_RATE] = { "op rate", "ops/s", "200 Gops/s", UNITS(op_rate_units) },
	[SC_UNIT_NUMBER] = { "number", "", "2.5", NULL, 0 },
	[SC_UNIT_COUNT] = { "count", "", "8", NULL, 0 },
	[SC_UNIT_FRACTION] = { "fraction", "", "1/16", NULL, 0 },
};

/** A scanned decimal number: the mantissa text and its exponent. */
struct num {
	const char *mant;	/**< sign, digits and point */
	size_t mant_len;
	long exp;		/**< the written exponent, clamped to +-EXP_CLAMP */
	const char *end;	/**< first character after the number */
};

static const struct kind_def *
kind_get(enum sc_unit_kind kind)
{
	if ((unsigned int)kind >= SC_UNIT_KIND_COUNT)
		return NULL;
	return &kinds[kind];
}

const char *
sc_unit_kind_name(enum sc_unit_kind kind)
{
	const struct kind_def *k = kind_get(kind);

	return k == NULL ? "?" : k->name;
}

const char *
sc_unit_base(enum sc_unit_kind kind)
{
	const struct kind_def *k = kind_get(kind);

	return k == NULL ? "" : k->base;
}

const char *
sc_unit_example(enum sc_unit_kind kind)
{
	const struct kind_def *k = kind_get(kind);

	return k == NULL ? "" : k->example;
}

int
sc_unit_allowed(enum sc_unit_kind kind, char *buf, size_t len)
{
	const struct kind_def *k = kind_get(kind);
	size_t used = 0;
	unsigned int i;
	int n;

	if (k == NULL || buf == NULL || len == 0)
		return -EINVAL;
	buf[0] = '\0';
	switch (kind) {
	case SC_UNIT_NUMBER:
		n = snprintf(buf, len, "a plain number, no unit");
		return (size_t)n < len ? 0 : -ENOSPC;
	case SC_UNIT_COUNT:
		n = snprintf(buf, len, "an integer >= 0, no unit");
		return (size_t)n < len ? 0 : -ENOSPC;
	case SC_UNIT_FRACTION:
		n = snprintf(buf, len, "a decimal in [0, 1] or a ratio a/b");
		return (size_t)n < len ? 0 : -ENOSPC;
	default:
		break;
	}
	for (i = 0; i < k->n_units; i++) {
		n = snprintf(buf + used, len - used, "%s%s", i == 0 ? "" : ", ", k->units[i].name);
		if (n < 0 || (size_t)n >= len - used)
			return -ENOSPC;
		used += (size_t)n;
	}
	return 0;
}

/* Write "<problem> (allowed: <units>)" or "<problem> (expected <what>)". */
static int
fail(enum sc_unit_kind kind, char *err, size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static int
fail(enum sc_unit_kind kind, char *err, size_t errlen, const char *fmt, ...)
{
	char allowed[512];
	va_list ap;
	size_t n;

	if (err == NULL || errlen == 0)
		return -EINVAL;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	n = strlen(err);
	if (n + 1 >= errlen)
		return -EINVAL;
	sc_unit_allowed(kind, allowed, sizeof(allowed));
	if (kinds[kind].units != NULL)
		snprintf(err + n, errlen - n, " (%s, e.g. '%s'; allowed units: %s)",
			 kinds[kind].name, kinds[kind].example, allowed);
	else
		snprintf(err + n, errlen - n, " (expected %s, e.g. '%s')", allowed,
			 kinds[kind].example);
	return -EINVAL;
}

static bool
is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/*
 * Scan [+-]digits[.digits][(e|E)[+-]digits] at @p s; at least one mantissa digit.  Returns 0 and
 * fills @p n, or -EINVAL if @p s does not start with a number.
 */
static int
scan_number(const char *s, struct num *n)
{
	const char *p = s;
	unsigned int digits = 0;
	long e = 0;
	int esign = 1;

	if (*p == '+' || *p == '-')
		p++;
	while (is_digit(*p)) {
		p++;
		digits++;
	}
	if (*p == '.') {
		p++;
		while (is_digit(*p)) {
			p++;
			digits++;
		}
	}
	if (digits == 0)
		return -EINVAL;
	n->mant = s;
	n->mant_len = (size_t)(p - s);
	n->exp = 0;
	if ((*p == 'e' || *p == 'E') &&
	    (is_digit(p[1]) || ((p[1] == '+' || p[1] == '-') && is_digit(p[2])))) {
		p++;
		if (*p == '+' || *p == '-')
			esign = *p++ == '-' ? -1 : 1;
		while (is_digit(*p)) {
			if (e < EXP_CLAMP)
				e = e * 10 + (*p - '0');
			p++;
		}
		n->exp = esign * (e < EXP_CLAMP ? e : EXP_CLAMP);
	}
	n->end = p;
	return 0;
}

/* Value of @p n in a unit of decimal exponent @p dec and binary exponent @p bin. */
static int
num_value(const struct num *n, int dec, int bin, double *v, const char **why)
{
	char buf[NUM_MAX + 16];
	double x, y;
	char *end;

	if (n->mant_len > NUM_MAX) {
		*why = "has too many digits";
		return -EINVAL;
	}
	snprintf(buf, sizeof(buf), "%.*se%ld", (int)n->mant_len, n->mant, n->exp + dec);
	errno = 0;
	x = strtod(buf, &end);
	if (*end != '\0') {
		*why = "is not a number";
		return -EINVAL;
	}
	if (errno == ERANGE && (isinf(x) || x == 0.0)) {
		*why = isinf(x) ? "is too large" : "is too small (underflows to 0)";
		return -EINVAL;
	}
	y = ldexp(x, bin);
	if (!isfinite(y)) {
		*why = "is too large";
		return -EINVAL;
	}
	if (y == 0.0 && x != 0.0) {
		*why = "is too small (underflows to 0)";
		return -EINVAL;
	}
	*v = y;
	return 0;
}

/* Explain why @p s does not start with a number. */
static const char *
not_number_reason(const char *s)
{
	const char *p = s;

	if (*p == '+' || *p == '-')
		p++;
	if (strncasecmp(p, "inf", 3) == 0 || strncasecmp(p, "nan", 3) == 0)
		return "is not a finite number";
	return "is not a number";
}

static bool
is_hex(const char *s)
{
	const char *p = s;

	if (*p == '+' || *p == '-')
		p++;
	return p[0] == '0' && (p[1] == 'x' || p[1] == 'X');
}

static int
parse_count(const char *s, double *v, char *err, size_t errlen)
{
	const char *p;
	unsigned long long x;
	char *end;

	for (p = s; *p != '\0'; p++)
		if (!is_digit(*p))
			return fail(SC_UNIT_COUNT, err, errlen,
				    "'%s' is not an integer >= 0", s);
	errno = 0;
	x = strtoull(s, &end, 10);
	if (errno == ERANGE || x > (1ULL << 53))
		return fail(SC_UNIT_COUNT, err, errlen, "'%s' is too large", s);
	*v = (double)x;
	return 0;
}

/* A plain number filling all of @p s. */
static int
parse_plain(enum sc_unit_kind kind, const char *s, const char *whole, double *v, char *err,
	    size_t errlen)
{
	const char *why;
	struct num n;

	if (is_hex(s))
		return fail(kind, err, errlen, "'%s': hexadecimal numbers are not accepted", whole);
	if (scan_number(s, &n) != 0)
		return fail(kind, err, errlen, "'%s' %s", whole, not_number_reason(s));
	if (*n.end == ' ' && n.end[1] != '\0')
		return fail(kind, err, errlen, "'%s': a %s takes no unit (got '%s')", whole,
			    kinds[kind].name, n.end + 1);
	if (*n.end != '\0')
		return fail(kind, err, errlen, "'%s': unexpected '%s' after the number", whole,
			    n.end);
	if (num_value(&n, 0, 0, v, &why) != 0)
		return fail(kind, err, errlen, "'%s' %s", whole, why);
	return 0;
}

static int
parse_fraction(const char *s, double *v, char *err, size_t errlen)
{
	char a[NUM_MAX + 2];
	const char *slash = strchr(s, '/');
	double x, y;
	size_t la;
	int rc;

	if (slash == NULL) {
		rc = parse_plain(SC_UNIT_FRACTION, s, s, &x, err, errlen);
		if (rc != 0)
			return rc;
	} else {
		la = (size_t)(slash - s);
		if (la == 0 || la > NUM_MAX)
			return fail(SC_UNIT_FRACTION, err, errlen,
				    "'%s': bad numerator in the ratio", s);
		memcpy(a, s, la);
		a[la] = '\0';
		rc = parse_plain(SC_UNIT_FRACTION, a, s, &x, err, errlen);
		if (rc != 0)
			return rc;
		rc = parse_plain(SC_UNIT_FRACTION, slash + 1, s, &y, err, errlen);
		if (rc != 0)
			return rc;
		if (y == 0.0)
			return fail(SC_UNIT_FRACTION, err, errlen, "'%s': division by zero", s);
		x = x / y;
	}
	if (!(x >= 0.0 && x <= 1.0))
		return fail(SC_UNIT_FRACTION, err, errlen, "'%s' is not between 0 and 1", s);
	*v = x;
	return 0;
}

static const struct unit_def *
unit_find(const struct kind_def *k, const char *name, bool nocase)
{
	unsigned int i;

	for (i = 0; i < k->n_units; i++) {
		if (nocase ? strcasecmp(k->units[i].name, name) == 0 :
			     strcmp(k->units[i].name, name) == 0)
			return &k->units[i];
	}
	return NULL;
}

int
sc_unit_parse(enum sc_unit_kind kind, const char *s, double *v, char *err, size_t errlen)
{
	const struct kind_def *k = kind_get(kind);
	const struct unit_def *u;
	const char *unit, *why;
	struct num n;
	double x;

	if (k == NULL || s == NULL || v == NULL) {
		if (err != NULL && errlen > 0)
			snprintf(err, errlen, "bad arguments");
		return -EINVAL;
	}
	if (*s == '\0')
		return fail(kind, err, errlen, "empty value");
	if (*s == ' ' || *s == '\t' || s[strlen(s) - 1] == ' ' || s[strlen(s) - 1] == '\t')
		return fail(kind, err, errlen, "'%s': leading or trailing blanks", s);
	if (kind == SC_UNIT_COUNT)
		return parse_count(s, v, err, errlen);
	if (kind == SC_UNIT_FRACTION)
		return parse_fraction(s, v, err, errlen);
	if (k->units == NULL) {
		if (parse_plain(kind, s, s, &x, err, errlen) != 0)
			return -EINVAL;
		*v = x;
		return 0;
	}

	if (is_hex(s))
		return fail(kind, err, errlen, "'%s': hexadecimal numbers are not accepted", s);
	if (scan_number(s, &n) != 0)
		return fail(kind, err, errlen, "'%s' %s", s, not_number_reason(s));
	unit = n.end;
	if (*unit == '\0' && strspn(n.mant, "+-0.") >= n.mant_len) {
		*v = 0;		/* zero is zero in every unit */
		return 0;
	}
	if (*unit == '\0')
		return fail(kind, err, errlen, "'%s' needs a unit", s);
	if (*unit == ' ')
		unit++;
	if (*unit == ' ' || *unit == '\t')
		return fail(kind, err, errlen, "'%s': at most one space between number and unit",
			    s);
	u = unit_find(k, unit, false);
	if (u == NULL) {
		u = unit_find(k, unit, true);
		if (u != NULL)
			return fail(kind, err, errlen,
				    "unknown unit '%s' in '%s' (units are case-sensitive: "
				    "did you mean '%s'?)", unit, s, u->name);
		return fail(kind, err, errlen, "unknown unit '%s' in '%s'", unit, s);
	}
	if (num_value(&n, u->dec, u->bin, &x, &why) != 0)
		return fail(kind, err, errlen, "'%s' %s", s, why);
	*v = x;
	return 0;
}

/*
 * Shortest decimal digits of @p y > 0 (or 0) that strtod() reads back exactly:
 * y = d1.d2...dn x 10^e10.  @p digits receives "d1d2...dn" without trailing zeros.
 */
static void
shortest_digits(double y, char *digits, size_t len, int *e10)
{
	char tmp[40];
	char *e, *p;
	size_t n = 0;
	int prec;

	for (prec = 0; prec < 17; prec++) {
		snprintf(tmp, sizeof(tmp), "%.*e", prec, y);
		if (strtod(tmp, NULL) == y)
			break;
	}
	if (prec == 17)
		snprintf(tmp, sizeof(tmp), "%.16e", y);
	e = strchr(tmp, 'e');
	*e10 = atoi(e + 1);
	for (p = tmp; p < e && n + 1 < len; p++)
		if (is_digit(*p))
			digits[n++] = *p;
	while (n > 1 && digits[n - 1] == '0')
		n--;
	digits[n] = '\0';
}

/* Render d1.d2...dn x 10^e10 in plain notation when short enough, else with an exponent. */
static int
render(char *buf, size_t len, bool neg, const char *digits, int e10, const char *unit)
{
	char num[64];
	size_t nd = strlen(digits), used = 0;
	int i, n;

	if (neg)
		num[used++] = '-';
	if (e10 >= -5 && e10 < 21) {
		if (e10 < 0) {
			num[used++] = '0';
			num[used++] = '.';
			for (i = 0; i < -e10 - 1; i++)
				num[used++] = '0';
			memcpy(num + used, digits, nd);
			used += nd;
		} else {
			for (i = 0; i <= e10 || (size_t)i < nd; i++) {
				if (i == e10 + 1)
					num[used++] = '.';
				num[used++] = (size_t)i < nd ? digits[i] : '0';
			}
		}
		num[used] = '\0';
	} else {
		num[used++] = digits[0];
		if (nd > 1) {
			num[used++] = '.';
			memcpy(num + used, digits + 1, nd - 1);
			used += nd - 1;
		}
		snprintf(num + used, sizeof(num) - used, "e%d", e10);
	}
	n = snprintf(buf, len, "%s%s%s", num, unit[0] != '\0' ? " " : "", unit);
	return n >= 0 && (size_t)n < len ? 0 : -ENOSPC;
}

static int
format_in(const struct unit_def *u, double v, char *buf, size_t len)
{
	char digits[24];
	int e10;

	shortest_digits(fabs(ldexp(v, -u->bin)), digits, sizeof(digits), &e10);
	if (strcmp(digits, "0") == 0)
		e10 = u->dec;
	return render(buf, len, signbit(v) != 0, digits, e10 - u->dec, u->name);
}

static bool
same_double(double a, double b)
{
	return memcmp(&a, &b, sizeof(a)) == 0;
}

static const struct unit_def plain_unit = { "", 0, 0, true };

int
sc_unit_format(enum sc_unit_kind kind, double v, char *buf, size_t len)
{
	const struct kind_def *k = kind_get(kind);
	const struct unit_def *u = NULL, *best = NULL;
	double back, a = fabs(v), scale;
	unsigned int i;
	int rc;

	if (k == NULL || buf == NULL || len == 0 || !isfinite(v))
		return -EINVAL;
	if (kind == SC_UNIT_COUNT) {
		if (signbit(v) || v != floor(v) || v > 9007199254740992.0)
			return -EINVAL;
		rc = snprintf(buf, len, "%.0f", v);
		return rc >= 0 && (size_t)rc < len ? 0 : -ENOSPC;
	}
	if (kind == SC_UNIT_FRACTION && v > 0.0 && v <= 0.5) {
		double inv = 1.0 / v;

		if (inv == floor(inv) && inv <= 1e6 && 1.0 / inv == v) {
			rc = snprintf(buf, len, "1/%.0f", inv);
			return rc >= 0 && (size_t)rc < len ? 0 : -ENOSPC;
		}
	}
	if (k->units == NULL) {
		u = &plain_unit;
	} else {
		/* The largest unit shown that does not exceed |v|; the base unit for 0. */
		for (i = 0; i < k->n_units; i++) {
			const struct unit_def *c = &k->units[i];

			if (!c->show)
				continue;
			scale = ldexp(pow(10.0, c->dec), c->bin);
			if (a == 0.0) {
				if (c->dec == 0 && c->bin == 0)
					u = c;
				continue;
			}
			if (scale <= a * (1.0 + 1e-12) &&
			    (u == NULL || scale > ldexp(pow(10.0, u->dec), u->bin)))
				u = c;
			if (best == NULL ||
			    scale < ldexp(pow(10.0, best->dec), best->bin))
				best = c;
		}
		if (u == NULL)
			u = best;
	}
	rc = format_in(u, v, buf, len);
	if (rc != 0)
		return rc;
	if (sc_unit_parse(kind, buf, &back, NULL, 0) == 0 && same_double(back, v))
		return 0;
	/* Not exact in the chosen unit (a subnormal, say): use the base unit. */
	for (i = 0; k->units != NULL && i < k->n_units; i++)
		if (k->units[i].dec == 0 && k->units[i].bin == 0)
			break;
	u = k->units != NULL ? &k->units[i] : &plain_unit;
	rc = format_in(u, v, buf, len);
	if (rc != 0)
		return rc;
	if (sc_unit_parse(kind, buf, &back, NULL, 0) != 0 || !same_double(back, v))
		return -EINVAL;
	return 0;
}
