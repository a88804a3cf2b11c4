/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Result tables as text and JSON.
 */
#include <errno.h>
#include <stdbool.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "table.h"

#define CELL_LEN 64
#define TABLE_MAX_COLS 24
#define TABLE_MAX_NOTES 16

struct cell {
	int is_str, is_int;
	double v;
	int64_t i;
	char s[CELL_LEN];
};

struct table {
	char id[48];
	char title[160];
	unsigned int ncols;
	struct tcol cols[TABLE_MAX_COLS];
	double scale[TABLE_MAX_COLS];		/* text: value x scale (0: as it is) */
	unsigned int flags[TABLE_MAX_COLS];	/* TCOL_* */
	unsigned int ncells, cap;
	struct cell *cells;
	unsigned int nnotes;
	char *notes[TABLE_MAX_NOTES];
};

struct table *
table_create(const char *id, const char *title, const struct tcol *cols, unsigned int ncols)
{
	struct table *t;

	if (ncols == 0 || ncols > TABLE_MAX_COLS) {
		errno = EINVAL;
		return NULL;
	}
	t = calloc(1, sizeof(*t));
	if (t == NULL)
		return NULL;
	snprintf(t->id, sizeof(t->id), "%s", id);
	snprintf(t->title, sizeof(t->title), "%s", title);
	memcpy(t->cols, cols, ncols * sizeof(*cols));
	t->ncols = ncols;
	return t;
}

int
table_col_format(struct table *t, unsigned int col, double scale, unsigned int flags)
{
	if (t == NULL || col >= t->ncols)
		return -EINVAL;
	t->scale[col] = scale;
	t->flags[col] = flags;
	return 0;
}

void
table_free(struct table *t)
{
	unsigned int i;

	if (t == NULL)
		return;
	for (i = 0; i < t->nnotes; i++)
		free(t->notes[i]);
	free(t->cells);
	free(t);
}

const char *
table_id(const struct table *t)
{
	return t->id;
}

unsigned int
table_ncols(const struct table *t)
{
	return t->ncols;
}

unsigned int
table_nrows(const struct table *t)
{
	return (t->ncells + t->ncols - 1) / t->ncols;
}

const struct tcol *
table_col(const struct table *t, unsigned int col)
{
	return col < t->ncols ? &t->cols[col] : NULL;
}

int
table_cell(const struct table *t, unsigned int row, unsigned int col, struct table_cell *c)
{
	const struct cell *x;

	if (col >= t->ncols || row >= table_nrows(t) || row * t->ncols + col >= t->ncells)
		return -ENOENT;
	x = &t->cells[row * t->ncols + col];
	c->kind = x->is_str ? TABLE_STR : x->is_int ? TABLE_INT : TABLE_NUM;
	c->num = x->v;
	c->i = x->i;
	c->s = x->s;
	return 0;
}

static struct cell *
next_cell(struct table *t)
{
	if (t->ncells == t->cap) {
		unsigned int cap = t->cap ? 2 * t->cap : 64;
		struct cell *c = realloc(t->cells, cap * sizeof(*c));

		if (c == NULL)
			return NULL;
		t->cells = c;
		t->cap = cap;
	}
	return &t->cells[t->ncells++];
}

int
table_num(struct table *t, double v)
{
	struct cell *c = next_cell(t);

	if (c == NULL)
		return -ENOMEM;
	c->is_str = 0;
	c->is_int = 0;
	c->v = v;
	c->s[0] = '\0';
	return 0;
}

int
table_int(struct table *t, int64_t v)
{
	struct cell *c = next_cell(t);

	if (c == NULL)
		return -ENOMEM;
	c->is_str = 0;
	c->is_int = 1;
	c->i = v;
	c->v = (double)v;
	c->s[0] = '\0';
	return 0;
}

int
table_str(struct table *t, const char *s)
{
	struct cell *c = next_cell(t);

	if (c == NULL)
		return -ENOMEM;
	c->is_str = 1;
	c->is_int = 0;
	c->v = NAN;
	snprintf(c->s, sizeof(c->s), "%s", s);
	return 0;
}

int
table_strf(struct table *t, const char *fmt, ...)
{
	char buf[CELL_LEN];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	return table_str(t, buf);
}

int
table_note(struct table *t, const char *fmt, ...)
{
	va_list ap;
	char *s;
	int n;

	if (t->nnotes == TABLE_MAX_NOTES)
		return -ENOSPC;
	va_start(ap, fmt);
	n = vasprintf(&s, fmt, ap);
	va_end(ap);
	if (n < 0)
		return -ENOMEM;
	t->notes[t->nnotes++] = s;
	return 0;
}

static void
format_cell(const struct table *t, unsigned int i, char *buf, size_t len)
{
	const struct cell *c = &t->cells[i];
	const struct tcol *col = &t->cols[i % t->ncols];
	double scale = t->scale[i % t->ncols];

	if (c->is_str)
		snprintf(buf, len, "%s", c->s);
	else if (c->is_int && scale == 0)
		snprintf(buf, len, "%lld", (long long)c->i);
	else if (scale != 0 && isfinite(c->v))
		snprintf(buf, len, "%.*f", col->decimals < 0 ? 0 : col->decimals,
			 c->is_int ? (double)c->i * scale : c->v * scale);
	else if (isnan(c->v))
		snprintf(buf, len, "-");
	else if (isinf(c->v))
		snprintf(buf, len, c->v > 0 ? "never" : "-inf");
	else
		snprintf(buf, len, "%.*f", col->decimals < 0 ? 0 : col->decimals, c->v);
}

/* Whether row @p row repeats the row above in every TCOL_GROUP column (there being one). */
static bool
same_group(const struct table *t, unsigned int row)
{
	char a[CELL_LEN], b[CELL_LEN];
	unsigned int j, n = 0;

	if (row == 0)
		return false;
	for (j = 0; j < t->ncols; j++) {
		if (!(t->flags[j] & TCOL_GROUP))
			continue;
		if ((row + 1) * t->ncols > t->ncells)
			return false;
		format_cell(t, row * t->ncols + j, a, sizeof(a));
		format_cell(t, (row - 1) * t->ncols + j, b, sizeof(b));
		if (strcmp(a, b) != 0)
			return false;
		n++;
	}
	return n > 0;
}

/* Strings left-aligned, numbers right-aligned; no padding at the end of a line. */
static void
print_aligned(FILE *f, const char *s, int width, int left, int last)
{
	if (left && last)
		fprintf(f, "  %s\n", s);
	else if (left)
		fprintf(f, "  %-*s", width, s);
	else
		fprintf(f, "  %*s%s", width, s, last ? "\n" : "");
}

void
table_print(const struct table *t, FILE *f)
{
	size_t width[TABLE_MAX_COLS];
	char buf[CELL_LEN];
	unsigned int i, j;

	unsigned int last = 0;

	for (j = 0; j < t->ncols; j++) {
		width[j] = strlen(t->cols[j].title);
		if (!(t->flags[j] & TCOL_JSON_ONLY))
			last = j;
	}
	for (i = 0; i < t->ncells; i++) {
		format_cell(t, i, buf, sizeof(buf));
		if (strlen(buf) > width[i % t->ncols])
			width[i % t->ncols] = strlen(buf);
	}
	fprintf(f, "%s\n", t->title);
	for (j = 0; j < t->ncols; j++)
		if (!(t->flags[j] & TCOL_JSON_ONLY))
			print_aligned(f, t->cols[j].title, (int)width[j],
				      t->cols[j].decimals < 0, j == last);
	for (i = 0; i < t->ncells; i++) {
		j = i % t->ncols;
		if (t->flags[j] & TCOL_JSON_ONLY)
			continue;
		if ((t->flags[j] & TCOL_GROUP) && same_group(t, i / t->ncols))
			buf[0] = '\0';
		else
			format_cell(t, i, buf, sizeof(buf));
		print_aligned(f, buf, (int)width[j], t->cols[j].decimals < 0, j == last);
	}
	if (t->ncells % t->ncols != 0)
		fputc('\n', f);
	for (i = 0; i < t->nnotes; i++)
		fprintf(f, "  note: %s\n", t->notes[i]);
	fputc('\n', f);
}

json_t *
table_json(const struct table *t)
{
	json_t *o = json_object(), *rows = json_array(), *row = NULL, *notes = json_array();
	unsigned int i;

	if (o == NULL || rows == NULL || notes == NULL)
		goto fail;
	for (i = 0; i < t->ncells; i++) {
		const struct cell *c = &t->cells[i];
		json_t *v;

		if (i % t->ncols == 0) {
			row = json_object();
			if (row == NULL || json_array_append_new(rows, row) != 0)
				goto fail;
		}
		if (c->is_str)
			v = json_string(c->s);
		else if (c->is_int)
			v = json_integer((json_int_t)c->i);
		else if (isnan(c->v) || isinf(c->v))
			v = json_null();	/* JSON has no NaN or infinity */
		else if (t->cols[i % t->ncols].decimals == 0 && c->v == floor(c->v) &&
			 fabs(c->v) < 9007199254740992.0)
			v = json_integer((json_int_t)c->v);	/* a count: 400, not 400.0 */
		else
			v = json_real(c->v);
		if (v == NULL || json_object_set_new(row, t->cols[i % t->ncols].key, v) != 0)
			goto fail;
	}
	for (i = 0; i < t->nnotes; i++)
		if (json_array_append_new(notes, json_string(t->notes[i])) != 0)
			goto fail;
	if (json_object_set_new(o, "title", json_string(t->title)) != 0)
		goto fail;
	/* the _new setters take the reference even when they fail */
	if (json_object_set_new(o, "rows", rows) != 0) {
		rows = NULL;
		goto fail;
	}
	rows = NULL;
	if (json_object_set_new(o, "notes", notes) != 0) {
		notes = NULL;
		goto fail;
	}
	return o;
fail:
	json_decref(rows);
	json_decref(notes);
	json_decref(o);
	return NULL;
}
