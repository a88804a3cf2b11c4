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
/**
 * The column groups rows (a run's, whose other columns list its queues): in text, a row that
 * repeats the row above in every such column leaves them blank; JSON and CSV keep every row
 * whole (a record each).
 */
#define TCOL_GROUP 2u

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

/** The number of columns. */
unsigned int table_ncols(const struct table *t);

/** The number of rows (the last one may be incomplete). */
unsigned int table_nrows(const struct table *t);

/** Column @p col, or NULL if there is no such column. */
const struct tcol *table_col(const struct table *t, unsigned int col);

/** What a cell holds. */
enum table_kind {
	TABLE_NUM,	/**< a number (NaN: none) */
	TABLE_INT,	/**< an integer */
	TABLE_STR,	/**< a string */
};

/** A cell as it was given. */
struct table_cell {
	enum table_kind kind;	/**< which of the fields below holds it */
	double num;		/**< TABLE_NUM */
	int64_t i;		/**< TABLE_INT */
	const char *s;		/**< TABLE_STR: valid as long as the table */
};

/**
 * The cell of row @p row and column @p col.
 * @return 0; -ENOENT if there is no such cell
 */
int table_cell(const struct table *t, unsigned int row, unsigned int col, struct table_cell *c);

#endif /* SYNCEMU_TABLE_H */
