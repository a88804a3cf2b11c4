/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * syncemu report's page (report_page.c): the inputs recognised, the title, the page written.
 */
#ifndef SYNCEMU_REPORT_PAGE_H
#define SYNCEMU_REPORT_PAGE_H

#include <stddef.h>

#include <jansson.h>

#include "outfile.h"

/** One input of the page: the JSON of a command. */
struct report_input {
	const char *path;
	const char *kind;	/**< "model", "run", "sweep", "validate" */
	json_t *json;
};

/**
 * What made @p j: its "command", or (JSON of an earlier syncemu) its shape; NULL: not ours,
 * the reason in @p why.
 */
const char *report_kind_of(json_t *j, char *why, size_t len);

/** The whole of a file, NUL-terminated, its length in *@p len; NULL with errno. */
char *report_slurp(const char *path, size_t *len);

/** The page's title from the inputs' scenarios: "syncemu report: A, B". */
void report_default_title(char *buf, size_t len, const struct report_input *in, unsigned int n);

/**
 * The page into @p out: @p title, Chart.js (@p chartjs, @p chartjs_len bytes) and the inputs.
 * 0 or -errno (the first failed write's).
 */
int report_write_page(struct outfile *out, const char *title, const char *chartjs,
		      size_t chartjs_len, const struct report_input *in, unsigned int n);

#endif /* SYNCEMU_REPORT_PAGE_H */
