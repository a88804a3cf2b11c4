/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Tier 1 tests (no EAL) of the scenario's background-traffic keys and of control/bgsizes.c:
 * the [background] section, [queues] sync_lossless, [trace] queue_sample and [run] warmup load
 * to their defaults, parse, round-trip through the dump and reject bad values with
 * file:line, [section], key, value and what is allowed; the size CSV loader reads comments,
 * units, weights and bare numbers, and names the CSV's file:line in its errors; a relative
 * background.sizes_csv is resolved against the scenario file's directory.
 * Fixtures are written into a mkdtemp() directory.  Run from the project root.
 */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "bgsizes.h"
#include "common.h"
#include "scenario.h"

#define ERRLEN 2048
#define PATHLEN 4096

static struct tc_files fx;	/* the mkdtemp() directory and the fixtures in it */

static int
setup(void **state)
{
	char sub[160];

	if (tc_files_init(&fx, "test_bgsizes") != 0)
		return -1;
	snprintf(sub, sizeof(sub), "%s/sub", fx.dir);
	return mkdir(sub, 0700);
}

static int
teardown(void **state)
{
	char sub[160];

	tc_files_unlink(&fx);
	snprintf(sub, sizeof(sub), "%s/sub", fx.dir);
	rmdir(sub);
	return rmdir(fx.dir);
}

/* Write @p len bytes into the directory as @p name (NULL: a new name); returns its path. */
static const char *
write_file(const char *name, const char *text, size_t len)
{
	return tc_write_file(&fx, name, text, len);
}

static const char *
write_text(const char *name, const char *text)
{
	return write_file(name, text, strlen(text));
}

static void
load_ok(struct sc_scenario *s, const char *path, const char *const *ovr, unsigned int n)
{
	char err[ERRLEN] = "";

	if (sc_scenario_load(s, path, ovr, n, err, sizeof(err)) != 0)
		fail_msg("%s rejected: %s", path != NULL ? path : "(default)", err);
}

/*
 * Load @p path with the overrides and expect -EINVAL, @p s untouched, "path:line: " in the
 * message when @p line > 0, then every non-NULL string of the list.
 */
static void
expect_bad_v(const char *path, const char *const *ovr, unsigned int n_ovr, int line, va_list ap)
{
	struct sc_scenario s, before;
	char err[ERRLEN], where[PATHLEN];
	const char *sub;
	int got;

	memset(&s, 0xa5, sizeof(s));
	memcpy(&before, &s, sizeof(s));
	got = sc_scenario_load(&s, path, ovr, n_ovr, err, sizeof(err));
	if (got != -EINVAL)
		fail_msg("rc %d, want -EINVAL; message '%s'", got, err);
	assert_memory_equal(&s, &before, sizeof(s));
	if (line > 0) {
		snprintf(where, sizeof(where), "%s:%d: ", path, line);
		assert_has(err, where);
	}
	while ((sub = va_arg(ap, const char *)) != NULL)
		assert_has(err, sub);
}

static void
expect_bad(const char *text, int line, ...)
{
	const char *path = write_text(NULL, text);
	va_list ap;

	va_start(ap, line);
	expect_bad_v(path, NULL, 0, line, ap);
	va_end(ap);
}

static void
expect_bad_set(const char *ovr, ...)
{
	va_list ap;

	va_start(ap, ovr);
	expect_bad_v(NULL, &ovr, 1, 0, ap);
	va_end(ap);
}

/* Dump @p s into fx.dir/sub (another directory than any fixture), load it back, compare. */
static void
round_trip(const struct sc_scenario *s)
{
	char path[256], err[ERRLEN] = "";
	struct sc_scenario back, want;
	FILE *f;

	snprintf(path, sizeof(path), "%s/sub/dump.ini", fx.dir);
	f = fopen(path, "w");
	assert_non_null(f);
	assert_int_equal(sc_scenario_dump(s, f), 0);
	assert_int_equal(fclose(f), 0);
	if (sc_scenario_load(&back, path, NULL, 0, err, sizeof(err)) != 0)
		fail_msg("the dump does not load: %s", err);
	unlink(path);
	memcpy(&want, s, sizeof(want));
	memset(want.path, 0, sizeof(want.path));
	memset(back.path, 0, sizeof(back.path));
	if (memcmp(&back.background, &want.background, sizeof(want.background)) != 0)
		fail_msg("the dump loads to another [background] (sizes_csv '%s', back '%s')",
			 want.background.sizes_csv, back.background.sizes_csv);
	if (memcmp(&back, &want, sizeof(back)) != 0)
		fail_msg("the dump does not load back to the same bytes");
}

/* The dump of @p s as text (free() it). */
static char *
dump_text(const struct sc_scenario *s)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	f = open_memstream(&buf, &len);
	assert_non_null(f);
	assert_int_equal(sc_scenario_dump(s, f), 0);
	assert_int_equal(fclose(f), 0);
	return buf;
}

static void
test_defaults(void **state)
{
	struct sc_scenario s, ref;

	sc_scenario_default(&s);
	assert_int_equal(s.run.warmup, 20);
	assert_int_equal(s.queues.sync_lossless, 1);
	assert_true(s.background.load == 0.0);
	assert_int_equal(s.background.sizes, SC_SIZES_FIXED);
	assert_true(s.background.size == 1e6);
	assert_string_equal(s.background.sizes_csv, "");
	assert_true(s.background.host_rate == 50e9);
	assert_int_equal(s.background.directions, SC_DIRECTIONS_ALL);
	assert_true(s.trace.queue_sample == 100e-6);

	/* The reference file writes every new key at its default. */
	load_ok(&ref, "scenarios/2dc4-100g.ini", NULL, 0);
	memset(ref.path, 0, sizeof(ref.path));
	assert_memory_equal(&ref, &s, sizeof(s));
	/* 200 steps, the first 20 of them warm-up */
	assert_true(s.run.warmup == 20 && s.run.steps == 200);
}

/* Every key parses to its field, in a file and as an override, and round-trips. */
static void
test_keys_parse(void **state)
{
	static const char *const ovr[] = {
		"background.load=1/4",
		"background.sizes=fixed",
		"background.size=1500 B",
		"background.directions=all",
		"queues.sync_lossless=yes",
		"trace.queue_sample=2.5 ms",
		"run.warmup=0",
	};
	struct sc_scenario s;
	char *text;

	load_ok(&s, write_text(NULL, "[run]\nsteps = 5\nwarmup = 1000000\n"
			       "[queues]\nsync_lossless = no\n"
			       "[background]\nload = 0.9\nsizes = exponential\nsize = 64 KiB\n"
			       "host_rate = 100 Gbit/s\ndirections = one\n"
			       "[trace]\nqueue_sample = 0 s\n"), NULL, 0);
	assert_int_equal(s.run.warmup, 1000000);
	assert_int_equal(s.queues.sync_lossless, 0);
	assert_true(s.background.load == 0.9);
	assert_int_equal(s.background.sizes, SC_SIZES_EXP);
	assert_true(s.background.size == 65536.0);
	assert_true(s.background.host_rate == 12.5e9);
	assert_int_equal(s.background.directions, SC_DIRECTIONS_ONE);
	assert_true(s.trace.queue_sample == 0.0);
	round_trip(&s);
	text = dump_text(&s);
	assert_has(text, "\n[background]\n");
	assert_has(text, "\nload = 0.9\n");
	assert_has(text, "\nsizes = exponential\n");
	assert_has(text, "\ndirections = one\n");
	assert_has(text, "\nsync_lossless = no\n");
	assert_has(text, "\nwarmup = 1000000\n");
	assert_has(text, "; sizes_csv is not set\n");
	free(text);

	load_ok(&s, "scenarios/2dc4-100g.ini", ovr, sizeof(ovr) / sizeof(ovr[0]));
	assert_true(s.background.load == 0.25);
	assert_int_equal(s.background.sizes, SC_SIZES_FIXED);
	assert_true(s.background.size == 1500.0);
	assert_int_equal(s.background.directions, SC_DIRECTIONS_ALL);
	assert_int_equal(s.queues.sync_lossless, 1);
	assert_true(s.trace.queue_sample == 2.5e-3);
	assert_int_equal(s.run.warmup, 0);
	round_trip(&s);

	/* The defaults, and every value other than them, survive the dump. */
	sc_scenario_default(&s);
	round_trip(&s);
	s.background.load = 1.0 / 3.0;
	s.background.size = 1e6 / 7.0;
	s.background.host_rate = 1e10 / 3.0;
	s.trace.queue_sample = 1e-9 / 3.0;
	s.queues.sync_lossless = 0;
	s.background.directions = SC_DIRECTIONS_ONE;
	s.run.warmup = 7;
	round_trip(&s);
	/* A value without a name cannot be written. */
	s.background.directions = (enum sc_directions)2;
	assert_int_equal(sc_scenario_dump(&s, stdout), -EINVAL);
	s.background.directions = SC_DIRECTIONS_ALL;
	s.queues.sync_lossless = 2;
	assert_int_equal(sc_scenario_dump(&s, stdout), -EINVAL);
}

static void
test_bad_values(void **state)
{
	char csv_where[PATHLEN], sizes_line[PATHLEN], text[256];
	const char *csv, *ini;

	expect_bad("[background]\nload = 1.0\n", 2, "[background] load = '1.0'", "out of range",
		   "(allowed: [0, 1))", NULL);
	expect_bad("[background]\nload = 1\n", 2, "out of range", NULL);
	expect_bad("[background]\n\nload = -0.1\n", 3, "[background] load = '-0.1'",
		   "not between 0 and 1", NULL);
	expect_bad("[background]\nsizes = pareto\n", 2, "[background] sizes = 'pareto'",
		   "unknown value", "(allowed: fixed, exponential, empirical)", NULL);
	expect_bad("[background]\nsize = 0 B\n", 2, "[background] size = '0 B'", "out of range",
		   "> 0", NULL);
	expect_bad("[background]\nhost_rate = 0 B/s\n", 2, "[background] host_rate = '0 B/s'",
		   "out of range", "(allowed: > 0)", NULL);
	/* a bare 0 is 0 B/s: out of range, not a missing unit */
	expect_bad("[background]\nhost_rate = 0\n", 2, "[background] host_rate = '0'",
		   "out of range", "(allowed: > 0)", NULL);
	expect_bad("[background]\ndirections = two\n", 2, "[background] directions = 'two'",
		   "unknown value", "(allowed: all, one)", NULL);
	expect_bad("[queues]\nsync_lossless = maybe\n", 2, "[queues] sync_lossless = 'maybe'",
		   "unknown value", "(allowed: yes, no)", NULL);
	expect_bad("[trace]\nqueue_sample = -1us\n", 2, "[trace] queue_sample = '-1us'",
		   "out of range", "(allowed: >= 0)", NULL);
	expect_bad("[trace]\nqueue_sample = 100\n", 2, "needs a unit", NULL);
	expect_bad("[run]\nwarmup = 1000001\n", 2, "[run] warmup = '1000001'", "out of range",
		   "0..1000000", NULL);
	expect_bad("[run]\nwarmup = -1\n", 2, "[run] warmup = '-1'", "not an integer >= 0",
		   NULL);
	expect_bad("[background]\nsize = 1 MB\nloud = 0.5\n", 3, "unknown key",
		   "did you mean 'load'", "keys of [background]: load, sizes, size, sizes_csv, "
		   "host_rate, directions", NULL);
	expect_bad_set("background.load=1", "--set 'background.load=1'",
		       "[background] load = '1'", "[0, 1)", NULL);

	/* empirical needs sizes_csv: the whole-scenario check names it, at the sizes line */
	expect_bad("[background]\nload = 0.5\nsizes = empirical\n", 3, "inconsistent scenario",
		   "background.sizes: empirical", "background.sizes_csv", NULL);
	expect_bad_set("background.sizes=empirical", "--set 'background.sizes=empirical'",
		       "inconsistent scenario", "background.sizes_csv", NULL);

	/* a sizes_csv that is not there: the scenario's line, and the resolved path */
	ini = write_text(NULL, "[background]\nsizes = empirical\nsizes_csv = nope.csv\n");
	snprintf(csv_where, sizeof(csv_where), "%s/nope.csv: cannot open", fx.dir);
	{
		struct sc_scenario s;
		char err[ERRLEN];

		assert_int_equal(sc_scenario_load(&s, ini, NULL, 0, err, sizeof(err)), -EINVAL);
		snprintf(sizes_line, sizeof(sizes_line), "%s:3: [background] sizes_csv = "
			 "'nope.csv': ", ini);
		assert_has(err, sizes_line);
		assert_has(err, csv_where);
	}

	/* a CSV with a bad line: the error names the CSV's file:line and the field */
	csv = write_text("bad.csv", "# sizes\n10 kB, 3\nabc, 1\n");
	snprintf(csv_where, sizeof(csv_where), "%s:3: size 'abc': ", csv);
	snprintf(text, sizeof(text), "[background]\nsizes = empirical\n"
		 "sizes_csv = bad.csv\nload = 0.5\n");
	expect_bad(text, 3, "[background] sizes_csv = 'bad.csv'", csv_where,
		   "not a number", NULL);
	/* and sizes_csv is ignored unless the sizes are empirical */
	{
		struct sc_scenario s;

		load_ok(&s, write_text(NULL, "[background]\nsizes_csv = bad.csv\n"), NULL, 0);
		assert_int_equal(s.background.sizes, SC_SIZES_FIXED);
	}
}

/* Write @p text as fx.dir/@p name and load it with sc_sizes_load(); expect success. */
static void
csv_ok(const char *name, const char *text, struct sm_size_dist *d)
{
	char err[ERRLEN] = "";
	const char *path = write_text(name, text);

	if (sc_sizes_load(path, d, err, sizeof(err)) != 0)
		fail_msg("%s rejected: %s", name, err);
	assert_int_equal(d->kind, SM_SIZE_EMPIRICAL);
}

static void
test_csv_good(void **state)
{
	static const double size[] = { 1500, 65536, 1e6, 2.5e7 };
	static const double weight[] = { 2, 0.5, 1, 0 };
	double mean = 0, m2 = 0, sum = 0;
	struct sm_size_dist d;
	char err[ERRLEN] = "";
	unsigned int i;

	/* comments (# and ;), blanks, CRLF, units, a bare number, weights and a default weight */
	csv_ok("good.csv", "# size, weight\n; another comment\n\n1500,2\r\n  64 KiB , 0.5 "
	       "# trailing comment\n\t1 MB\n2.5e7 ,0 ; never drawn\n", &d);
	for (i = 0; i < 4; i++) {
		sum += i == 2 ? 1 : weight[i];
		mean += (i == 2 ? 1 : weight[i]) * size[i];
		m2 += (i == 2 ? 1 : weight[i]) * size[i] * size[i];
	}
	assert_int_equal(d.n, 4);
	for (i = 0; i < 4; i++)
		assert_true(d.size[i] == size[i]);
	assert_true(fabs(d.mean - mean / sum) <= 1e-12 * mean / sum);
	assert_true(fabs(d.m2 - m2 / sum) <= 1e-12 * m2 / sum);
	assert_true(d.cdf[3] == 1.0);
	assert_true(fabs(d.cdf[0] - 2 / 3.5) < 1e-15);
	sm_size_free(&d);

	/* no weights at all: equal */
	csv_ok("equal.csv", "100\n300\n", &d);
	assert_int_equal(d.n, 2);
	assert_true(d.mean == 200.0);
	assert_true(d.m2 == (1e4 + 9e4) / 2);
	sm_size_free(&d);

	/* the example in scenarios/: 11 sizes, mean 2,434,900 B */
	if (sc_sizes_load("scenarios/sizes-websearch.csv", &d, err, sizeof(err)) != 0)
		fail_msg("scenarios/sizes-websearch.csv: %s", err);
	assert_int_equal(d.n, 11);
	assert_true(d.size[0] == 10e3 && d.size[10] == 30e6);
	assert_true(fabs(d.mean - 2434900.0) < 1e-6);
	sm_size_free(&d);
}

/* Write @p text as a CSV, expect @p rc, @p d untouched, and each string in the message. */
static void
csv_bad(const char *text, int rc, ...)
{
	struct sm_size_dist d, before;
	const char *path;
	char name[32];
	char err[ERRLEN];
	const char *sub;
	va_list ap;
	int got;

	snprintf(name, sizeof(name), "c%03u.csv", fx.n);
	path = write_text(name, text);
	memset(&d, 0x5a, sizeof(d));
	memcpy(&before, &d, sizeof(d));
	got = sc_sizes_load(path, &d, err, sizeof(err));
	if (got != rc)
		fail_msg("rc %d, want %d; message '%s'", got, rc, err);
	assert_memory_equal(&d, &before, sizeof(d));
	assert_has(err, path);
	va_start(ap, rc);
	while ((sub = va_arg(ap, const char *)) != NULL)
		assert_has(err, sub);
	va_end(ap);
}

static void
test_csv_bad(void **state)
{
	struct sm_size_dist d;
	char err[ERRLEN];

	assert_int_equal(sc_sizes_load("scenarios/no-such.csv", &d, err, sizeof(err)), -ENOENT);
	assert_has(err, "scenarios/no-such.csv: cannot open");
	assert_int_equal(sc_sizes_load(NULL, &d, err, sizeof(err)), -EINVAL);
	assert_int_equal(sc_sizes_load("scenarios/sizes-websearch.csv", NULL, NULL, 0), -EINVAL);

	csv_bad("# sizes\n1500\n\nabc,1\n", -EINVAL, ".csv:4: size 'abc': ", "not a number",
		"bare number of bytes", NULL);
	csv_bad("10 XB\n", -EINVAL, ":1: size '10 XB': ", "unknown unit 'XB'", NULL);
	csv_bad("0\n", -EINVAL, ":1: size '0': must be > 0", NULL);
	csv_bad("-5 kB\n", -EINVAL, ":1: size '-5 kB': must be > 0", NULL);
	csv_bad("1500, -1\n", -EINVAL, ":1: weight '-1': must be >= 0", NULL);
	csv_bad("1500\n1500, x\n", -EINVAL, ":2: weight 'x': ", "not a number", NULL);
	csv_bad("1500, 2 kB\n", -EINVAL, ":1: weight '2 kB'", NULL);
	csv_bad("1500,\n", -EINVAL, ":1: empty weight", NULL);
	csv_bad(", 3\n", -EINVAL, ":1: empty size", NULL);
	csv_bad("1500, 1, 2\n", -EINVAL, ":1: more than two fields", NULL);
	csv_bad("", -EINVAL, ": no sizes", NULL);
	csv_bad("# only a comment\n\n", -EINVAL, ": no sizes", NULL);
	csv_bad("1500, 0\n3000, 0\n", -EINVAL, ": the weights sum to 0", NULL);
	{
		static const char nul[] = "1500\n15\0000\n";
		const char *path = write_file(NULL, nul, sizeof(nul) - 1);

		assert_int_equal(sc_sizes_load(path, &d, err, sizeof(err)), -EINVAL);
		assert_has(err, ":2: NUL byte");
	}
}

/* The scenario's distribution: fixed, exponential, or the CSV. */
static void
test_background_sizes(void **state)
{
	static const char *const emp[] = {
		"background.sizes=empirical",
		"background.sizes_csv=scenarios/sizes-websearch.csv",
	};
	struct sc_scenario s;
	struct sm_size_dist d;
	char err[ERRLEN];

	sc_scenario_default(&s);
	assert_int_equal(sc_background_sizes(&s, &d, err, sizeof(err)), 0);
	assert_int_equal(d.kind, SM_SIZE_FIXED);
	assert_true(d.mean == 1e6 && d.m2 == 1e12);
	s.background.sizes = SC_SIZES_EXP;
	s.background.size = 2e3;
	assert_int_equal(sc_background_sizes(&s, &d, err, sizeof(err)), 0);
	assert_int_equal(d.kind, SM_SIZE_EXP);
	assert_true(d.mean == 2e3 && d.m2 == 8e6);
	s.background.size = 0;
	assert_int_equal(sc_background_sizes(&s, &d, err, sizeof(err)), -EINVAL);
	assert_has(err, "background.size");

	s.background.sizes = SC_SIZES_EMPIRICAL;
	assert_int_equal(sc_background_sizes(&s, &d, err, sizeof(err)), -EINVAL);
	assert_has(err, "background.sizes_csv: not set");
	assert_int_equal(sc_background_sizes(NULL, &d, err, sizeof(err)), -EINVAL);
	assert_int_equal(sc_background_sizes(&s, NULL, NULL, 0), -EINVAL);

	load_ok(&s, "scenarios/2dc4-100g.ini", emp, 2);
	assert_int_equal(sc_background_sizes(&s, &d, err, sizeof(err)), 0);
	assert_int_equal(d.kind, SM_SIZE_EMPIRICAL);
	assert_int_equal(d.n, 11);
	assert_true(fabs(d.mean - 2434900.0) < 1e-6);
	sm_size_free(&d);
	/* the file went away after loading: -ENOENT, with the path */
	snprintf(s.background.sizes_csv, sizeof(s.background.sizes_csv), "%s/gone.csv", fx.dir);
	assert_int_equal(sc_background_sizes(&s, &d, err, sizeof(err)), -ENOENT);
	assert_has(err, "gone.csv: cannot open");
}

/* Load @p path (with @p ovr) and require background.sizes_csv == @p want. */
static void
expect_csv_path(const char *path, const char *ovr, const char *want)
{
	struct sc_scenario s;

	load_ok(&s, path, ovr != NULL ? &ovr : NULL, ovr != NULL ? 1 : 0);
	assert_string_equal(s.background.sizes_csv, want);
	round_trip(&s);
}

static void
test_relative_path(void **state)
{
	char cwd[PATHLEN], here[PATHLEN], want[PATHLEN + 64];
	const char *ini;

	assert_non_null(getcwd(cwd, sizeof(cwd)));
	write_text("sub/s.csv", "64 kB, 1\n1 MB, 1\n");
	write_text("top.csv", "1500\n");

	/* an absolute scenario path: its directory */
	ini = write_text("sub/a.ini", "[background]\nsizes = empirical\nsizes_csv = s.csv\n");
	snprintf(want, sizeof(want), "%s/sub/s.csv", fx.dir);
	expect_csv_path(ini, NULL, want);
	ini = write_text("sub/b.ini", "[background]\nsizes = empirical\nsizes_csv = ../top.csv\n");
	snprintf(want, sizeof(want), "%s/sub/../top.csv", fx.dir);
	expect_csv_path(ini, NULL, want);
	/* an absolute sizes_csv stays as written */
	snprintf(want, sizeof(want), "[background]\nsizes = empirical\nsizes_csv = %s/top.csv\n",
		 fx.dir);
	ini = write_text("sub/c.ini", want);
	snprintf(want, sizeof(want), "%s/top.csv", fx.dir);
	expect_csv_path(ini, NULL, want);

	/* a relative scenario path: the current directory, then the file's directory */
	assert_int_equal(chdir(fx.dir), 0);
	assert_non_null(getcwd(here, sizeof(here)));
	snprintf(want, sizeof(want), "%s/sub/s.csv", here);
	expect_csv_path("sub/a.ini", NULL, want);
	snprintf(want, sizeof(want), "%s/top.csv", here);
	expect_csv_path(NULL, "background.sizes_csv=top.csv", want);
	/* --set is relative to the current directory, even with a file */
	expect_csv_path("sub/a.ini", "background.sizes_csv=top.csv", want);
	/* a scenario file in the current directory */
	assert_int_equal(chdir("sub"), 0);
	snprintf(want, sizeof(want), "%s/sub/s.csv", here);
	expect_csv_path("a.ini", NULL, want);
	assert_int_equal(chdir(cwd), 0);

	/* the bad CSV is named by its resolved path */
	ini = write_text("sub/d.ini", "[background]\nsizes = empirical\nsizes_csv = ../top.csv\n"
			 "[run]\nsteps = 5\n");
	snprintf(want, sizeof(want), "%s/sub/../top.csv:1:", fx.dir);
	write_text("top.csv", "15OO\n");
	{
		struct sc_scenario s;
		char err[ERRLEN];

		assert_int_equal(sc_scenario_load(&s, ini, NULL, 0, err, sizeof(err)), -EINVAL);
		assert_has(err, want);
		assert_has(err, "size '15OO'");
	}
}

static void
test_keys_listing(void **state)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	f = open_memstream(&buf, &len);
	assert_non_null(f);
	sc_scenario_keys(f, 1);
	assert_int_equal(fclose(f), 0);
	assert_has(buf, "| `run.warmup` | count | 20 | 0..1000000 | steps left out of the "
		   "steady-state statistics (the WAN queue fills up from empty) |");
	assert_has(buf, "| `queues.sync_lossless` | choice | yes | yes, no | yes: the sync's "
		   "frames are never dropped, as in a lossless traffic class (PFC); no: "
		   "drop-tail for them too, and a dropped sync frame stalls the run |");
	assert_has(buf, "| `background.load` | fraction | 0 | [0, 1) | offered load of background "
		   "transfers on each loaded WAN direction, a fraction of the WAN rate |");
	assert_has(buf, "| `background.sizes` | choice | fixed | fixed, exponential, empirical |");
	assert_has(buf, "| `background.size` | size | 1 MB | > 0 |");
	assert_has(buf, "| `background.sizes_csv` | text | - |");
	assert_has(buf, "scenarios/sizes-websearch.csv");
	assert_has(buf, "relative to the scenario file's directory");
	assert_has(buf, "| `background.host_rate` | byte rate | 50 GB/s | > 0 |");
	assert_has(buf, "| `background.directions` | choice | all | all, one | all: every WAN "
		   "direction carries background; one: only data centre 0 to 1 |");
	assert_has(buf, "| `trace.queue_sample` | time | 100 us | >= 0 | interval at which the "
		   "WAN queues' occupancy is sampled");
	free(buf);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_defaults),
		cmocka_unit_test(test_keys_parse),
		cmocka_unit_test(test_bad_values),
		cmocka_unit_test(test_csv_good),
		cmocka_unit_test(test_csv_bad),
		cmocka_unit_test(test_background_sizes),
		cmocka_unit_test(test_relative_path),
		cmocka_unit_test(test_keys_listing),
	};

	return tc_group_result(cmocka_run_group_tests(tests, setup, teardown), fx.dir);
}
