/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Result tables: one structure printed as aligned text or emitted as JSON, so the two outputs of a
 * command cannot disagree.
 */
#ifndef SYNCEMU_TABLE_H
#define SYNCEMU_TABLE_H

#include <stdint.h>
#include <stdio.h>

#include <jansson.h>

/** A column: its title in text, its key in JSON, decimals shown in text (-1: a string column). */
struct tcol {
	const char *title;
	const char *key;
	int decimals;
};

/** The column is in JSON only (e.g. an absolute time in ns beside its text in s). */
#define TCOL_JSON_ONLY 1u

struct table;

/**
 * Create a table with the given columns (copied).
 *
 * @return the table, or NULL with errno set
 */
struct table *table_create(const char *id, const char *title, const struct tcol *cols,
			   unsigned int ncols);

/**
 * How column @p col shows in text: its value times @p scale (0: as it is; e.g. 1e-6 for a value
 * in ns shown in ms, JSON keeping the ns), and TCOL_* @p flags.
 * @return 0; -EINVAL if there is no such column
 */
int table_col_format(struct table *t, unsigned int col, double scale, unsigned int flags);

/** Free a table; NULL is a no-op. */
void table_free(struct table *t);

/** Cells are appended left to right, row by row; a row is complete after ncols cells. */
int table_num(struct table *t, double v);		/**< a number; NaN prints "-", JSON null */
int table_int(struct table *t, int64_t v);	/**< an integer, exact in JSON (e.g. ns) */
int table_str(struct table *t, const char *s);	/**< a string (copied) */
int table_strf(struct table *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/** A note printed under the table and kept in JSON as "note". */
int table_note(struct table *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/** Print as aligned text: the title, a header line, the rows, the notes. */
void table_print(const struct table *t, FILE *f);

/** JSON: {"title": ..., "rows": [{key: value, ...}], "notes": [...]}; NULL on ENOMEM. */
json_t *table_json(const struct table *t);

/** The table's id (the key of its JSON object). */
const char *table_id(const struct table *t);

#endif /* SYNCEMU_TABLE_H */
