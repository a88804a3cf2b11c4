/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Table-driven command-line options: one entry per option feeds getopt_long, the usage text and
 * the error messages.
 */
#ifndef SYNCEMU_OPTS_H
#define SYNCEMU_OPTS_H

#include <stddef.h>
#include <stdio.h>

/** One option. */
struct opt {
	const char *name;	/**< long name, without "--" */
	char short_name;	/**< 0 if none */
	const char *arg;	/**< argument placeholder ("FILE"), NULL for a flag */
	const char *help;	/**< one line; the default in brackets where there is one */
	int id;			/**< passed to the callback */
};

/** Called once per option found; return 0, or -EINVAL with a message in @p err. */
typedef int (*opt_cb)(void *ctx, int id, const char *arg, char *err, size_t errlen);

/**
 * Parse @p argv against @p tab.  Options and positional arguments may be mixed; "--" ends
 * options.  Positionals are moved to @p pos (at most @p maxpos).
 *
 * @return the number of positionals, or -EINVAL with a message in @p err
 */
int opts_parse(int argc, char **argv, const struct opt *tab, unsigned int n, opt_cb cb, void *ctx,
	       char **pos, int maxpos, char *err, size_t errlen);

/**
 * The count @p arg of option @p name, in [@p lo, @p hi], into *@p v.  0, or -EINVAL with a
 * message naming the option and the range.
 */
int opts_count(const char *name, const char *arg, unsigned long lo, unsigned long hi,
	       unsigned long *v, char *err, size_t errlen);

/** Print "usage: <usage>\n\n<about>\n\noptions:" and one aligned line per option. */
void opts_usage(FILE *f, const char *usage, const char *about, const struct opt *tab,
		unsigned int n);

#endif /* SYNCEMU_OPTS_H */
