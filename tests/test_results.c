/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Tier 1 tests of experiment/results.c and its writers: the text keeps the items' order, the JSON
 * puts each table at its place in the order its members were set, the CSV writes every cell
 * as the format says, and --tables' directory writer names, refuses and makes what it should.
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

#include "outputs.h"
#include "results.h"

static const struct results_params rp = { .json_flags = JSON_COMPACT, .json_newline = true };

/* What a writer printed, as a string (free it). */
static char *
capture(int (*w)(struct results *, FILE *), struct results *r, int *rc)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	*rc = w(r, f);
	assert_int_equal(fclose(f), 0);
	return buf;
}

static int
text_w(struct results *r, FILE *f)
{
	return results_text_write(r, f);
}

static int
json_w(struct results *r, FILE *f)
{
	return results_json_write(r, f);
}

static struct table *
two_cols(const char *id, double a, const char *b)
{
	static const struct tcol cols[] = { { "A", "a", 2 }, { "B", "b", -1 } };
	struct table *t = table_create(id, "T", cols, 2);

	assert_non_null(t);
	assert_int_equal(table_num(t, a), 0);
	assert_int_equal(table_str(t, b), 0);
	return t;
}

static void
test_csv_cells(void **state)
{
	static const struct tcol cols[] = {
		{ "n", "n", 3 }, { "count", "count", 0 }, { "i", "i", 0 }, { "s", "s", -1 },
		{ "ns", "ns", 0 },
	};
	struct table *t = table_create("x", "X", cols, 5);
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	(void)state;
	assert_non_null(t);
	assert_int_equal(table_col_format(t, 4, 1e-9, TCOL_JSON_ONLY), 0);
	/* a row of each kind of cell; the JSON-only column is in the CSV too */
	table_num(t, 1.0 / 3);
	table_num(t, 400);
	table_int(t, 1700000000000000001LL);
	table_str(t, "say \"hi\", then go");
	table_int(t, -5);
	table_num(t, NAN);
	table_num(t, 2.5);
	table_int(t, 0);
	table_str(t, "");
	table_num(t, INFINITY);
	f = open_memstream(&buf, &len);
	assert_non_null(f);
	assert_int_equal(results_csv_write_table(t, f), 0);
	fclose(f);
	assert_string_equal(buf, "n,count,i,s,ns\n"
			    "0.3333333333,400,1700000000000000001,\"say \"\"hi\"\", then go\",-5\n"
			    ",2.5,0,\"\",inf\n");
	free(buf);
	table_free(t);
}

static void
test_json_places(void **state)
{
	struct results *r = results_create(&rp);
	json_t *run;
	char *out;
	int rc;

	(void)state;
	assert_non_null(r);
	json_object_set_new(results_root(r), "first", json_integer(1));
	run = json_object();
	json_object_set_new(results_root(r), "run", run);
	json_object_set_new(run, "label", json_string("A"));
	/* in the run, between its label and its end; the summary at the root, keyed by its id */
	assert_int_equal(results_add_table(r, two_cols("steps", 1.5, "x"), RESULTS_JSON,
					   &(struct results_place){ .parent = run }), 0);
	json_object_set_new(run, "end", json_true());
	assert_int_equal(results_add_table(r, two_cols("summary", 2, "y"),
					   RESULTS_TEXT | RESULTS_JSON,
					   &(struct results_place){ .key = "sum" }), 0);
	assert_int_equal(results_add_table(r, two_cols("text_only", 3, "z"), RESULTS_TEXT, NULL),
			 0);
	json_object_set_new(results_root(r), "last", json_null());
	out = capture(json_w, r, &rc);
	assert_int_equal(rc, 0);
	assert_string_equal(out, "{\"first\":1,\"run\":{\"label\":\"A\",\"steps\":{\"title\":\"T\","
			    "\"rows\":[{\"a\":1.5,\"b\":\"x\"}],\"notes\":[]},\"end\":true},"
			    "\"sum\":{\"title\":\"T\",\"rows\":[{\"a\":2.0,\"b\":\"y\"}],"
			    "\"notes\":[]},\"last\":null}\n");
	free(out);
	/* written again: the same */
	out = capture(json_w, r, &rc);
	assert_int_equal(rc, 0);
	assert_non_null(strstr(out, "\"end\":true},\"sum\""));
	free(out);
	assert_int_equal(results_ntables(r), 3);
	assert_string_equal(table_id(results_table(r, 2)), "text_only");
	assert_int_equal(results_table_to(r, 0), RESULTS_JSON);
	assert_null(results_table(r, 3));
	results_free(r);
}

static json_t *
rows_only(const struct table *t, const void *arg)
{
	json_t *o = table_json(t), *rows = json_incref(json_object_get(o, "rows"));

	assert_string_equal(arg, "arg");
	json_decref(o);
	return rows;
}

static void
test_json_builder(void **state)
{
	struct results *r = results_create(&rp);
	char *out;
	int rc;

	(void)state;
	assert_non_null(r);
	assert_int_equal(results_add_table(r, two_cols("points", 7, "p"), RESULTS_JSON,
					   &(struct results_place){ .json = rows_only,
								    .arg = "arg" }), 0);
	out = capture(json_w, r, &rc);
	assert_int_equal(rc, 0);
	assert_string_equal(out, "{\"points\":[{\"a\":7.0,\"b\":\"p\"}]}\n");
	free(out);
	results_free(r);
}

static void
test_text_order(void **state)
{
	struct results *r = results_create(&rp);
	char *out;
	int rc;

	(void)state;
	assert_non_null(r);
	assert_int_equal(results_line(r, "head %d", 1), 0);
	assert_int_equal(results_line(r, "%s", ""), 0);
	assert_int_equal(results_add_table(r, two_cols("t1", 1, "a"), RESULTS_TEXT, NULL), 0);
	assert_int_equal(results_add_table(r, two_cols("j", 9, "j"), RESULTS_JSON,
					   &(struct results_place){ .parent = NULL }), 0);
	assert_int_equal(results_line(r, "tail"), 0);
	out = capture(text_w, r, &rc);
	assert_int_equal(rc, 0);
	assert_string_equal(out, "head 1\n\nT\n     A  B\n  1.00  a\n\ntail\n");
	free(out);
	results_free(r);
}

static void
test_errors(void **state)
{
	struct results *r = results_create(&rp);
	json_t *arr = json_array();
	char *out;
	int rc;

	(void)state;
	assert_null(results_create(NULL));
	assert_int_equal(errno, EINVAL);
	assert_non_null(r);
	assert_int_equal(results_add_table(r, two_cols("a", 1, "a"), 0, NULL), -EINVAL);
	assert_int_equal(results_add_table(r, two_cols("a", 1, "a"), 4, NULL), -EINVAL);
	assert_int_equal(results_add_table(r, two_cols("a", 1, "a"), RESULTS_JSON, NULL),
			 -EINVAL);
	assert_int_equal(results_add_table(r, two_cols("a", 1, "a"), RESULTS_JSON,
					   &(struct results_place){ .parent = arr }), -EINVAL);
	assert_int_equal(results_ntables(r), 0);
	out = capture(text_w, r, &rc);
	assert_int_equal(rc, 0);
	free(out);
	/* a table that could not be made: the writers say so and write nothing */
	assert_int_equal(results_add_table(r, NULL, RESULTS_TEXT, NULL), -ENOMEM);
	out = capture(text_w, r, &rc);
	assert_int_equal(rc, -ENOMEM);
	assert_string_equal(out, "");
	free(out);
	out = capture(json_w, r, &rc);
	assert_int_equal(rc, -ENOMEM);
	assert_string_equal(out, "");
	free(out);
	json_decref(arr);
	results_free(r);
	results_free(NULL);
}

static char *
slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	char *buf;
	long n;

	if (f == NULL)
		return NULL;
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	buf = calloc(1, (size_t)n + 1);
	assert_non_null(buf);
	assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
	fclose(f);
	return buf;
}

/* DIR/NAME holds @p want, byte for byte */
static void
expect_file(const char *dir, const char *name, const char *want)
{
	char path[512], *s;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	s = slurp(path);
	assert_non_null(s);
	assert_string_equal(s, want);
	free(s);
}

static void
test_csv_dir(void **state)
{
	char base[] = "/tmp/test_results.XXXXXX", dir[128], path[192], err[512], *s;
	struct results *r = results_create(&rp);
	struct input in[1];
	FILE *f;

	(void)state;
	assert_non_null(mkdtemp(base));
	assert_non_null(r);
	snprintf(dir, sizeof(dir), "%s/tables", base);
	/* two tables of one id, one of them named; text or JSON alike */
	assert_int_equal(results_add_table(r, two_cols("steps", 1, "a"), RESULTS_TEXT, NULL), 0);
	assert_int_equal(results_add_table(r, two_cols("steps", 2, "b"), RESULTS_JSON,
					   &(struct results_place){ .key = "s2" }), 0);
	assert_int_equal(results_add_table(r, two_cols("steps", 3, "c"), RESULTS_TEXT,
					   &(struct results_place){ .file = "steps-9" }), 0);
	assert_int_equal(results_csv_write_dir(r, &(struct results_csv_dir){ .dir = dir }, err,
					       sizeof(err)), 0);
	expect_file(dir, "steps.csv", "a,b\n1,\"a\"\n");
	expect_file(dir, "steps-2.csv", "a,b\n2,\"b\"\n");
	expect_file(dir, "steps-9.csv", "a,b\n3,\"c\"\n");
	/* an input there is refused, and nothing is written */
	snprintf(path, sizeof(path), "%s/steps-2.csv", dir);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs("input\n", f);
	fclose(f);
	in[0] = (struct input){ path, "the input" };
	assert_int_equal(results_csv_write_dir(r, &(struct results_csv_dir){ .dir = dir, .in = in,
					       .n_in = 1 }, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "is the input"));
	s = slurp(path);
	assert_string_equal(s, "input\n");
	free(s);
	/* a DIR that is a file, or whose parent is not there */
	snprintf(path, sizeof(path), "%s/steps.csv", dir);
	assert_int_equal(results_csv_dir_check(path, err, sizeof(err)), -ENOTDIR);
	assert_non_null(strstr(err, path));
	snprintf(path, sizeof(path), "%s/none/t", base);
	assert_int_equal(results_csv_write_dir(r, &(struct results_csv_dir){ .dir = path }, err,
					       sizeof(err)), -ENOENT);
	assert_non_null(strstr(err, "is not there"));
	results_free(r);
	snprintf(path, sizeof(path), "rm -rf '%s'", base);
	assert_int_equal(system(path), 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_csv_cells),
		cmocka_unit_test(test_json_places),
		cmocka_unit_test(test_json_builder),
		cmocka_unit_test(test_text_order),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_csv_dir),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
