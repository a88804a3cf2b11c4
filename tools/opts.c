/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Table-driven options over getopt_long.
 */
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "opts.h"

#define OPTS_MAX 48

/* The option being handled, as typed (opts_spelling()). */
static char spelled[64];

const char *
opts_spelling(void)
{
	return spelled;
}

/* A negative number ("-1", "-0.5", "-.5"): a value, not an option. */
static bool
negative_number(const char *s)
{
	return s[0] == '-' && (isdigit((unsigned char)s[1]) ||
			       (s[1] == '.' && isdigit((unsigned char)s[2])));
}

/*
 * How the user typed option @p o that getopt_long just returned (@p c): "--name" (or the prefix
 * typed), or "-x".  @p word is the argv word it was in.
 */
static void
spell(const struct opt *o, int c, const char *word)
{
	if (c >= 256 && word != NULL && strncmp(word, "--", 2) == 0)
		snprintf(spelled, sizeof(spelled), "%.*s", (int)strcspn(word, "="), word);
	else if (c >= 256)
		snprintf(spelled, sizeof(spelled), "--%s", o->name);
	else
		snprintf(spelled, sizeof(spelled), "-%c", o->short_name);
}

/* An option whose value is a path ("FILE", "DIR", "SOCKET"): '' is no path. */
static bool
takes_path(const struct opt *o)
{
	return o->arg != NULL && (strncmp(o->arg, "FILE", 4) == 0 ||
				  strncmp(o->arg, "DIR", 3) == 0 ||
				  strncmp(o->arg, "SOCKET", 6) == 0);
}

/* Argument @p i (from 0) is '': every positional argument is a file name or a word. */
static int
empty_argument(int i, char *err, size_t errlen)
{
	snprintf(err, errlen, "argument %d is empty (''): a file name or a word is needed there",
		 i + 1);
	return -EINVAL;
}

/* "--s" that begins several long names: say which, in @p err. */
static bool
ambiguous(const char *word, const struct opt *tab, unsigned int n, char *err, size_t errlen)
{
	size_t len, used;
	unsigned int i, hits = 0;

	if (strncmp(word, "--", 2) != 0)
		return false;
	len = strcspn(word + 2, "=");
	for (i = 0; i < n; i++)
		hits += strncmp(tab[i].name, word + 2, len) == 0;
	if (hits < 2)
		return false;
	used = (size_t)snprintf(err, errlen, "option %.*s is ambiguous:", (int)(len + 2), word);
	for (i = 0; i < n && used < errlen; i++)
		if (strncmp(tab[i].name, word + 2, len) == 0)
			used += (size_t)snprintf(err + used, errlen - used, " --%s", tab[i].name);
	return true;
}

int
opts_parse(int argc, char **argv, const struct opt *tab, unsigned int n, opt_cb cb, void *ctx,
	   char **pos, int maxpos, char *err, size_t errlen)
{
	struct option lo[OPTS_MAX + 1];
	char so[3 * OPTS_MAX + 3];
	size_t k = 0;
	unsigned int i;
	int npos = 0, c, li, rc;
	bool sep;

	if (n > OPTS_MAX)
		return -EINVAL;
	/* '-' first: positionals come back as option 1, in order, mixed with options;
	 * ':' second: a missing argument is reported as ':' */
	so[k++] = '-';
	so[k++] = ':';
	for (i = 0; i < n; i++) {
		lo[i].name = tab[i].name;
		lo[i].has_arg = tab[i].arg ? required_argument : no_argument;
		lo[i].flag = NULL;
		lo[i].val = 256 + (int)i;
		if (tab[i].short_name) {
			so[k++] = tab[i].short_name;
			if (tab[i].arg)
				so[k++] = ':';
		}
	}
	so[k] = '\0';
	memset(&lo[n], 0, sizeof(lo[n]));

	optind = 0;	/* full re-initialisation of getopt (GNU) */
	opterr = 0;
	while ((c = getopt_long(argc, argv, so, lo, &li)) != -1) {
		const struct opt *o = NULL;

		if (c == 1) {
			if (npos >= maxpos) {
				snprintf(err, errlen, "unexpected argument '%s'", optarg);
				return -EINVAL;
			}
			if (optarg[0] == '\0')
				return empty_argument(npos, err, errlen);
			pos[npos++] = optarg;
			continue;
		}
		if (c == '?' || c == ':') {
			const char *what = argv[optind - 1];

			if (optopt != 0 && optopt < 256)
				snprintf(err, errlen, c == ':' ? "option -%c needs a value" :
					 "unknown option -%c", optopt);
			else if (c == '?' && ambiguous(what, tab, n, err, errlen))
				;
			else
				snprintf(err, errlen, c == ':' ? "option %s needs a value" :
					 "unknown option %s", what);
			return -EINVAL;
		}
		if (c >= 256)
			o = &tab[c - 256];
		else
			for (i = 0; i < n && o == NULL; i++)
				if (tab[i].short_name == c)
					o = &tab[i];
		if (o == NULL) {
			snprintf(err, errlen, "unknown option");
			return -EINVAL;
		}
		/* a value given as the next word is that word itself; attached ones
		 * ("--steps=5", "-n5") point inside the option's word */
		sep = o->arg != NULL && optarg == argv[optind - 1] && optind >= 2;
		spell(o, c, argv[optind - (sep ? 2 : 1)]);
		if (sep && optarg[0] == '-' && optarg[1] != '\0' && !negative_number(optarg) &&
		    !(o->id & OPT_DASH_VALUE)) {
			snprintf(err, errlen, "%s needs a value; '%s' is an option", spelled, optarg);
			spelled[0] = '\0';
			return -EINVAL;
		}
		if (o->parse != NULL)
			rc = o->parse((char *)ctx + o->offset, optarg, o->data, err, errlen);
		else
			rc = cb(ctx, o->id & ~OPT_FLAGS, optarg, err, errlen);
		if (rc == 0 && takes_path(o) && optarg[0] == '\0') {
			snprintf(err, errlen, "%s '': an empty path (give a file name)", spelled);
			rc = -EINVAL;
		}
		spelled[0] = '\0';
		if (rc != 0)
			return rc;
	}
	for (; optind < argc; optind++) {	/* after "--" */
		if (npos >= maxpos) {
			snprintf(err, errlen, "unexpected argument '%s'", argv[optind]);
			return -EINVAL;
		}
		if (argv[optind][0] == '\0')
			return empty_argument(npos, err, errlen);
		pos[npos++] = argv[optind];
	}
	return npos;
}

void
opts_usage(FILE *f, const char *usage, const char *about, const struct opt *tab, unsigned int n)
{
	char left[64];
	unsigned int i;

	fprintf(f, "usage: %s\n\n%s\n\noptions:\n", usage, about);
	for (i = 0; i < n; i++) {
		if (tab[i].short_name)
			snprintf(left, sizeof(left), "-%c, --%s%s%s", tab[i].short_name, tab[i].name,
				 tab[i].arg ? " " : "", tab[i].arg ? tab[i].arg : "");
		else
			snprintf(left, sizeof(left), "    --%s%s%s", tab[i].name,
				 tab[i].arg ? " " : "", tab[i].arg ? tab[i].arg : "");
		fprintf(f, "  %-28s %s\n", left, tab[i].help);
	}
}

int
opts_count(const char *name, const char *arg, unsigned long lo, unsigned long hi,
	   unsigned long *v, char *err, size_t errlen)
{
	unsigned long x;
	char *end;

	errno = 0;
	x = strtoul(arg, &end, 10);
	if (errno != 0 || *end != '\0' || end == arg || arg[0] == '-' || x < lo || x > hi) {
		snprintf(err, errlen, "%s%s: '%s' is not a count in %lu..%lu",
			 spelled[0] != '\0' ? "" : "--", spelled[0] != '\0' ? spelled : name, arg,
			 lo, hi);
		return -EINVAL;
	}
	*v = x;		/* written only on success */
	return 0;
}

int
opts_set_flag(void *target, const char *arg, const void *data, char *err, size_t errlen)
{
	*(bool *)target = true;
	return 0;
}

int
opts_set_string(void *target, const char *arg, const void *data, char *err, size_t errlen)
{
	*(const char **)target = arg;
	return 0;
}

int
opts_set_count_u32(void *target, const char *arg, const void *data, char *err, size_t errlen)
{
	const struct opts_range *r = data;
	unsigned long v;

	if (opts_count("", arg, r->lo, r->hi, &v, err, errlen) != 0)
		return -EINVAL;
	*(uint32_t *)target = (uint32_t)v;
	return 0;
}
