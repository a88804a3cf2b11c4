/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Table-driven options over getopt_long.
 */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "opts.h"

#define OPTS_MAX 48

int
opts_parse(int argc, char **argv, const struct opt *tab, unsigned int n, opt_cb cb, void *ctx,
	   char **pos, int maxpos, char *err, size_t errlen)
{
	struct option lo[OPTS_MAX + 1];
	char so[3 * OPTS_MAX + 3];
	size_t k = 0;
	unsigned int i;
	int npos = 0, c, li, rc;

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
			pos[npos++] = optarg;
			continue;
		}
		if (c == '?' || c == ':') {
			const char *what = argv[optind - 1];

			if (optopt != 0 && optopt < 256)
				snprintf(err, errlen, c == ':' ? "option -%c needs an argument" :
					 "unknown option -%c", optopt);
			else
				snprintf(err, errlen, c == ':' ? "option %s needs an argument" :
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
		rc = cb(ctx, o->id, optarg, err, errlen);
		if (rc != 0)
			return rc;
	}
	for (; optind < argc; optind++) {	/* after "--" */
		if (npos >= maxpos) {
			snprintf(err, errlen, "unexpected argument '%s'", argv[optind]);
			return -EINVAL;
		}
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
		snprintf(err, errlen, "--%s: '%s' is not a count in %lu..%lu", name, arg, lo, hi);
		return -EINVAL;
	}
	*v = x;		/* written only on success */
	return 0;
}
