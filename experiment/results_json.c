/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The results as one JSON document (jansson): every table shown in JSON built at its place,
 * then the document written with the command's flags.
 */
#include <errno.h>
#include <stdio.h>

#include "results_impl.h"

int
results_json_write(struct results *r, FILE *f)
{
	unsigned int i;
	int rc = 0;

	if (r->err != 0)
		return r->err;
	for (i = 0; i < r->n; i++) {
		const struct results_item *it = &r->items[i];
		json_t *v;

		if (it->t == NULL || !(it->to & RESULTS_JSON))
			continue;
		v = it->json != NULL ? it->json(it->t, it->arg) : table_json(it->t);
		/* the key is there (results_add_table()): this replaces it in its place */
		if (v == NULL || json_object_set_new(it->parent, it->key, v) != 0)
			return -ENOMEM;
	}
	if (json_dumpf(r->root, f, r->p.json_flags) != 0)
		rc = -EIO;
	if (r->p.json_newline)
		fputc('\n', f);
	return rc;
}
