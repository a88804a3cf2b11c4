/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Table-driven command-line options: one entry per option feeds getopt_long, the usage text and
 * the error messages.
 */
#ifndef SYNCEMU_OPTS_H
#define SYNCEMU_OPTS_H

#include <stddef.h>
#include <stdio.h>

/**
 * A parser of an option's value into its target: @p target is the option's place in the
 * command's options (the ctx of opts_parse(), at struct opt's offset), @p data the entry's.
 * 0, or -EINVAL with a message in @p err (opts_spelling() names the option as typed).
 */
typedef int (*opt_parse_fn)(void *target, const char *arg, const void *data, char *err,
			    size_t errlen);

/** One option. */
struct opt {
	const char *name;	/**< long name, without "--" */
	char short_name;	/**< 0 if none */
	const char *arg;	/**< argument placeholder ("FILE"), NULL for a flag */
	const char *help;	/**< one line; the default in brackets where there is one */
	int id;			/**< passed to the callback; OR-ed with OPT_* flags, which the
				 *   callback does not see */
	opt_parse_fn parse;	/**< stores the value in its target (OPT_TARGET); NULL: the
				 *   callback is called with id */
	size_t offset;		/**< the target's offset in the callback's ctx */
	const void *data;	/**< the parser's: a scenario key, a range */
};

/**
 * The target of an option, after its id (xdp-tools' DEFINE_OPTION): parsed by @p fn into
 * member @p field of the options struct @p type, e.g.
 * { "json", 'j', NULL, "print JSON", 0, OPT_TARGET(opts_set_flag, struct run_opts, json) }.
 */
#define OPT_TARGET(fn, type, field) .parse = (fn), .offset = offsetof(type, field)

/**
 * A flag of struct opt's id: the option's value may start with '-' ("--eal '--no-huge ...'").
 * Without it, a value given as the next word that looks like an option ("-n --trace") is
 * refused: the option needs a value and the user left it out.  A negative number ("-1", "-.5")
 * is always a value.
 */
#define OPT_DASH_VALUE 0x10000
#define OPT_FLAGS OPT_DASH_VALUE

/**
 * Called once per option found that has no target (struct opt's parse NULL); return 0, or
 * -EINVAL with a message in @p err.  Inside it, opts_spelling() is the option as the user typed
 * it.
 */
typedef int (*opt_cb)(void *ctx, int id, const char *arg, char *err, size_t errlen);

/**
 * Parse @p argv against @p tab: each option's value into its target (struct opt's parse),
 * or through @p cb (NULL when every entry has a target).  Options and positional arguments
 * may be mixed; "--" ends options.  Positionals are moved to @p pos (at most @p maxpos).  An
 * empty positional, and an empty value of an option whose placeholder is FILE, DIR or SOCKET
 * that its parser or callback let through, are refused: '' is no file name.
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

/** A bool target: set (the option is a flag). */
int opts_set_flag(void *target, const char *arg, const void *data, char *err, size_t errlen);

/** A const char * target: the value as given. */
int opts_set_string(void *target, const char *arg, const void *data, char *err, size_t errlen);

/** The range of a count (opts_set_count_u32()'s data). */
struct opts_range {
	unsigned long lo, hi;
};

/** A uint32_t target: a count in the range @p data (struct opts_range), as opts_count(). */
int opts_set_count_u32(void *target, const char *arg, const void *data, char *err,
		       size_t errlen);

/** Print "usage: <usage>\n\n<about>\n\noptions:" and one aligned line per option. */
void opts_usage(FILE *f, const char *usage, const char *about, const struct opt *tab,
		unsigned int n);

#endif /* SYNCEMU_OPTS_H */
