/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What the results' writers see of them (results.h is the interface).
 */
#ifndef SYNCEMU_RESULTS_IMPL_H
#define SYNCEMU_RESULTS_IMPL_H

#include "results.h"

/** An item: a table (t set) or a block of text lines (t NULL). */
struct results_item {
	struct table *t;	/**< the table, or NULL for lines */
	unsigned int to;	/**< RESULTS_* */
	json_t *parent;		/**< RESULTS_JSON: the object it goes in (a reference) */
	char *key;		/**< its key there (the table's id by default) */
	char *file;		/**< its CSV name; NULL: the table's id */
	json_t *(*json)(const struct table *t, const void *arg);	/**< NULL: table_json */
	const void *arg;	/**< for json */
	char **lines;		/**< a block of text lines, without their newlines */
	unsigned int nlines;	/**< how many */
};

struct results {
	struct results_params p;	/**< how the JSON is written */
	json_t *root;			/**< the JSON document */
	struct results_item *items;	/**< in order */
	unsigned int n, cap;		/**< items used, allocated */
	int err;			/**< -ENOMEM once an item could not be added */
};

#endif /* SYNCEMU_RESULTS_IMPL_H */
