/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A command's results, built once from its outcome and written by one writer per format: an
 * ordered list of items (a table, or a block of text lines), each shown in the text output, the
 * JSON document or both, and the JSON document's own members with the place of each table in
 * it.  results.c holds the list; results_text.c, results_json.c and results_csv.c write it.
 * A new format is one more writer over a finished struct results.
 */
#ifndef SYNCEMU_RESULTS_H
#define SYNCEMU_RESULTS_H

#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include <jansson.h>

#include "table.h"

/** Where an item is shown (bits). */
#define RESULTS_TEXT 1u	/**< in the text output */
#define RESULTS_JSON 2u	/**< in the JSON document (tables only) */

struct results;

/** How the JSON document is written. */
struct results_params {
	size_t json_flags;	/**< json_dumpf() flags, e.g. JSON_INDENT(1) | JSON_REAL_PRECISION(12) */
	bool json_newline;	/**< a newline after the document */
};

/** Where a table goes in the JSON document, and how it is built there. */
struct results_place {
	json_t *parent;		/**< the object it goes in; NULL: the document's root */
	const char *key;	/**< its key there; NULL: the table's id */
	const char *file;	/**< its name in results_csv_write_dir(); NULL: the table's id */
	/** its JSON; NULL: table_json(t) */
	json_t *(*json)(const struct table *t, const void *arg);
	const void *arg;	/**< passed to json */
};

/**
 * Create empty results: no items, an empty JSON root object.
 *
 * @return the results, or NULL with errno set (EINVAL: @p p NULL; ENOMEM)
 */
struct results *results_create(const struct results_params *p);

/** Free the results, their tables and their JSON document; NULL is a no-op. */
void results_free(struct results *r);

/**
 * The JSON document's root object, owned by @p r: a command sets its members there (and in
 * objects under it) in the order they are to be written.
 */
json_t *results_root(struct results *r);

/**
 * Append table @p t, shown where @p to says (RESULTS_TEXT, RESULTS_JSON or both).  @p r takes
 * @p t over, even when this fails.  A table or line that could not be added for want of memory
 * makes the text and JSON writers fail with -ENOMEM (nothing is written).  With RESULTS_JSON
 * the table's key is set now in its parent (to null until a writer builds it), so the members
 * keep the order in which they were set.
 *
 * @return 0; -EINVAL: @p r NULL, @p to 0 or with other bits, RESULTS_JSON without @p at or a
 *         parent that is not an object; -ENOMEM (also when @p t is NULL: the table could not be
 *         made, and nothing is added)
 */
int results_add_table(struct results *r, struct table *t, unsigned int to,
		      const struct results_place *at);

/**
 * Append a line to the text output (without its newline; "" for a blank line): to the block
 * of lines that ends the list, or a new one after a table.
 *
 * @return 0; -ENOMEM
 */
int results_line(struct results *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/** The same with a va_list. */
int results_vline(struct results *r, const char *fmt, va_list ap);

/** The number of tables, whatever they are shown in. */
unsigned int results_ntables(const struct results *r);

/** Table @p i (0 to results_ntables() - 1), or NULL. */
const struct table *results_table(const struct results *r, unsigned int i);

/** Where table @p i is shown (RESULTS_* bits; 0 if there is no such table). */
unsigned int results_table_to(const struct results *r, unsigned int i);

/**
 * The text output: every item shown in text, in order (a table as table_print(), a block of
 * lines each with its newline).
 *
 * @return 0; -ENOMEM if an item could not be added (nothing written); -EIO if @p f has an error
 */
int results_text_write(const struct results *r, FILE *f);

/**
 * The JSON document: each table shown in JSON built at its place, then the root written with
 * the results' json_flags (and a newline if json_newline).  The tables' members are rebuilt
 * on each call, so it may be called again.
 *
 * @return 0; -ENOMEM (also if an item could not be added: nothing written); -EIO if it could
 *         not be written
 */
int results_json_write(struct results *r, FILE *f);

/** A CSV field: @p s in double quotes, a double quote in it doubled. */
void results_csv_str(FILE *f, const char *s);

/**
 * Table @p t as CSV: a header line of the column keys, then a line per row.  Integers exact
 * (and numbers of a column without decimals that are whole, as in JSON), other numbers %.10g,
 * NaN empty, infinities "inf" and "-inf", strings in double quotes with a quote doubled.
 *
 * @return 0, or -EIO if @p f has an error
 */
int results_csv_write_table(const struct table *t, FILE *f);

/**
 * Whether @p dir can take results_csv_write_dir()'s files, before a command does its work: a
 * directory that can be written, or a name whose parent is one.
 *
 * @return 0, or -errno with a message naming @p dir in @p err: -ENOTDIR (it, or its parent,
 *         is not a directory), -ENOENT (no parent), -EACCES (not writable), -ENAMETOOLONG
 */
int results_csv_dir_check(const char *dir, char *err, size_t errlen);

struct input;

/** Where results_csv_write_dir() writes, and what it must not. */
struct results_csv_dir {
	const char *dir;		/**< the directory (--tables DIR) */
	const struct input *in;		/**< the command's inputs (outputs.h): never overwritten */
	unsigned int n_in;		/**< how many */
	const char *cmd;		/**< messages name the command: "syncemu run" (NULL: syncemu) */
	const volatile sig_atomic_t *stop;	/**< set by a signal: stop waiting for a FIFO's
						     reader; NULL: none */
};

/**
 * Every table of @p r (text or JSON) as CSV, each in DIR/<name>.csv (its place's file, else
 * its id), each file written whole or not at all (traces/outfile.h).  DIR is made if it is not
 * there.  A name met again gets its rank: steps.csv, steps-2.csv, ...  Every file is checked
 * (a file that is one of the inputs refused) and opened before any is written.
 *
 * @return 0, or -errno with a message naming the path in @p err: those of
 *         results_csv_dir_check() and -EINVAL (a file in DIR refused: a directory, a device,
 *         an input...), the path's to say to fix; -EINTR (*stop set while waiting for a FIFO's
 *         reader); -EIO (a file could not be written, or put in place) or -ENOMEM, a failure
 */
int results_csv_write_dir(const struct results *r, const struct results_csv_dir *d, char *err,
			  size_t errlen);

/**
 * The exit code (cli.h) of a command whose results_csv_write_dir() returned @p rc (not 0):
 * CLI_EXIT_INTERRUPTED for -EINTR, CLI_EXIT_FAIL for -ENOMEM and -EIO, else CLI_EXIT_USAGE.
 */
int results_csv_exit(int rc);

#endif /* SYNCEMU_RESULTS_H */
