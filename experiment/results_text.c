/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The results as text: each table aligned (table_print()), each block of lines as it is.
 */
#include <errno.h>
#include <stdio.h>

#include "results_impl.h"

int
results_text_write(const struct results *r, FILE *f)
{
	unsigned int i, k;

	if (r->err != 0)
		return r->err;
	for (i = 0; i < r->n; i++) {
		const struct results_item *it = &r->items[i];

		if (!(it->to & RESULTS_TEXT))
			continue;
		if (it->t != NULL)
			table_print(it->t, f);
		for (k = 0; k < it->nlines; k++)
			fprintf(f, "%s\n", it->lines[k]);
	}
	return ferror(f) ? -EIO : 0;
}
