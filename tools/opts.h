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
	int id;			/**< passed to the callback; OR-ed with OPT_* flags, which the
				 *   callback does not see */
};

/**
 * A flag of struct opt's id: the option's value may start with '-' ("--eal '--no-huge ...'").
 * Without it, a value given as the next word that looks like an option ("-n --trace") is
 * refused: the option needs a value and the user left it out.  A negative number ("-1", "-.5")
 * is always a value.
 */
#define OPT_DASH_VALUE 0x10000
#define OPT_FLAGS OPT_DASH_VALUE

/**
 * Called once per option found; return 0, or -EINVAL with a message in @p err.  Inside it,
 * opts_spelling() is the option as the user typed it.
 */
typedef int (*opt_cb)(void *ctx, int id, const char *arg, char *err, size_t errlen);

/**
 * Parse @p argv against @p tab.  Options and positional arguments may be mixed; "--" ends
 * options.  Positionals are moved to @p pos (at most @p maxpos).  An empty positional, and
 * an empty value of an option whose placeholder is FILE, DIR or SOCKET that its callback let
 * through, are refused: '' is no file name.
 *
 * @return the number of positionals, or -EINVAL with a message in @p err
 */
int opts_parse(int argc, char **argv, const struct opt *tab, unsigned int n, opt_cb cb, void *ctx,
	       char **pos, int maxpos, char *err, size_t errlen);

/**
 * The option being handled, as the user typed it: "-n", "--steps", or an abbreviation such as
 * "--ste" (getopt_long takes unambiguous prefixes).  Valid inside an opt_cb; "" outside.
 */
const char *opts_spelling(void);

/**
 * The count @p arg of option @p name, in [@p lo, @p hi], into *@p v.  0, or -EINVAL with a
 * message naming the option (as typed, inside an opt_cb) and the range.
 */
int opts_count(const char *name, const char *arg, unsigned long lo, unsigned long hi,
	       unsigned long *v, char *err, size_t errlen);

/** Print "usage: <usage>\n\n<about>\n\noptions:" and one aligned line per option. */
void opts_usage(FILE *f, const char *usage, const char *about, const struct opt *tab,
		unsigned int n);

#endif /* SYNCEMU_OPTS_H */
