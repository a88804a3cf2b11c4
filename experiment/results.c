/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A command's results: the list of its tables and text lines, and its JSON document (see
 * results.h).  The writers are in results_text.c, results_json.c and results_csv.c.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "results_impl.h"

struct results *
results_create(const struct results_params *p)
{
	struct results *r;

	if (p == NULL) {
		errno = EINVAL;
		return NULL;
	}
	r = calloc(1, sizeof(*r));
	if (r == NULL)
		return NULL;
	r->p = *p;
	r->root = json_object();
	if (r->root == NULL) {
		free(r);
		errno = ENOMEM;
		return NULL;
	}
	return r;
}

void
results_free(struct results *r)
{
	unsigned int i, k;

	if (r == NULL)
		return;
	for (i = 0; i < r->n; i++) {
		struct results_item *it = &r->items[i];

		table_free(it->t);
		json_decref(it->parent);
		free(it->key);
		free(it->file);
		for (k = 0; k < it->nlines; k++)
			free(it->lines[k]);
		free(it->lines);
	}
	free(r->items);
	json_decref(r->root);
	free(r);
}

json_t *
results_root(struct results *r)
{
	return r->root;
}

static struct results_item *
new_item(struct results *r)
{
	if (r->n == r->cap) {
		unsigned int cap = r->cap ? 2 * r->cap : 16;
		struct results_item *it = realloc(r->items, cap * sizeof(*it));

		if (it == NULL)
			return NULL;
		r->items = it;
		r->cap = cap;
	}
	memset(&r->items[r->n], 0, sizeof(r->items[0]));
	return &r->items[r->n];
}

int
results_add_table(struct results *r, struct table *t, unsigned int to,
		  const struct results_place *at)
{
	json_t *parent = NULL;
	struct results_item *it;
	const char *key;

	if (r == NULL || to == 0 || (to & ~(RESULTS_TEXT | RESULTS_JSON)) != 0 ||
	    ((to & RESULTS_JSON) && at == NULL)) {
		table_free(t);
		return -EINVAL;
	}
	if (t == NULL) {
		r->err = -ENOMEM;
		return -ENOMEM;
	}
	if (to & RESULTS_JSON) {
		parent = at->parent != NULL ? at->parent : r->root;
		if (!json_is_object(parent)) {
			table_free(t);
			return -EINVAL;
		}
	}
	it = new_item(r);
	if (it == NULL) {
		table_free(t);
		r->err = -ENOMEM;
		return -ENOMEM;
	}
	key = at != NULL && at->key != NULL ? at->key : table_id(t);
	it->key = strdup(key);
	it->file = at != NULL && at->file != NULL ? strdup(at->file) : NULL;
	if (it->key == NULL || (at != NULL && at->file != NULL && it->file == NULL))
		goto nomem;
	if (to & RESULTS_JSON) {
		/* its place now, so that the members keep the order they were set in */
		if (json_object_set_new(parent, key, json_null()) != 0)
			goto nomem;
		it->parent = json_incref(parent);
		it->json = at->json;
		it->arg = at->arg;
	}
	it->t = t;
	it->to = to;
	r->n++;
	return 0;
nomem:
	free(it->key);
	free(it->file);
	table_free(t);
	r->err = -ENOMEM;
	return -ENOMEM;
}

int
results_vline(struct results *r, const char *fmt, va_list ap)
{
	struct results_item *it = r->n > 0 ? &r->items[r->n - 1] : NULL;
	char **lines, *s;

	if (vasprintf(&s, fmt, ap) < 0) {
		r->err = -ENOMEM;
		return -ENOMEM;
	}
	if (it == NULL || it->t != NULL) {
		it = new_item(r);
		if (it == NULL) {
			free(s);
			r->err = -ENOMEM;
			return -ENOMEM;
		}
		it->to = RESULTS_TEXT;
		r->n++;
	}
	lines = realloc(it->lines, (it->nlines + 1) * sizeof(*lines));
	if (lines == NULL) {
		free(s);
		r->err = -ENOMEM;
		return -ENOMEM;
	}
	it->lines = lines;
	it->lines[it->nlines++] = s;
	return 0;
}

int
results_line(struct results *r, const char *fmt, ...)
{
	va_list ap;
	int rc;

	va_start(ap, fmt);
	rc = results_vline(r, fmt, ap);
	va_end(ap);
	return rc;
}

/* Item index of table @p i, or -1. */
static int
table_item(const struct results *r, unsigned int i)
{
	unsigned int k;

	for (k = 0; k < r->n; k++)
		if (r->items[k].t != NULL && i-- == 0)
			return (int)k;
	return -1;
}

unsigned int
results_ntables(const struct results *r)
{
	unsigned int k, n = 0;

	for (k = 0; k < r->n; k++)
		n += r->items[k].t != NULL;
	return n;
}

const struct table *
results_table(const struct results *r, unsigned int i)
{
	int k = table_item(r, i);

	return k < 0 ? NULL : r->items[k].t;
}

unsigned int
results_table_to(const struct results *r, unsigned int i)
{
	int k = table_item(r, i);

	return k < 0 ? 0 : r->items[k].to;
}
