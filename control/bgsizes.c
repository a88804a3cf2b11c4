/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Background transfer sizes: the loader of the CSV files that describe an empirical size
 * distribution, and the distribution a scenario's [background] section asks for (bgsizes.h has
 * the format).
 *
 * The file is read line by line into growing arrays of sizes and weights; every field is checked
 * and named with its file:line in any error.  Only a complete table goes to sm_size_empirical()
 * (models/queueing.c), which computes E[S], E[S^2] and the cumulative table the sampler searches.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bgsizes.h"
#include "units.h"

/** The table while it is read. */
struct sizes_table {
	double *size;		/**< bytes, one per line with a size */
	double *weight;		/**< the line's weight, 1 if not given */
	unsigned int n;		/**< entries used */
	unsigned int cap;	/**< entries allocated */
};

static int
err_set(char *err, size_t errlen, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* Write the message (if there is a buffer); returns -EINVAL. */
static int
err_set(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	if (err == NULL || errlen == 0)
		return -EINVAL;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

/* Strip blanks (and the line end) at both ends of @p s, in place; returns the new start. */
static char *
strip(char *s)
{
	char *e;

	while (*s == ' ' || *s == '\t')
		s++;
	e = s + strlen(s);
	while (e > s && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r' || e[-1] == '\n'))
		e--;
	*e = '\0';
	return s;
}

static int
table_add(struct sizes_table *t, double size, double weight)
{
	unsigned int cap;
	double *p;

	if (t->n == t->cap) {
		cap = t->cap != 0 ? 2 * t->cap : 64;
		p = realloc(t->size, cap * sizeof(*p));
		if (p == NULL)
			return -ENOMEM;
		t->size = p;
		p = realloc(t->weight, cap * sizeof(*p));
		if (p == NULL)
			return -ENOMEM;
		t->weight = p;
		t->cap = cap;
	}
	t->size[t->n] = size;
	t->weight[t->n] = weight;
	t->n++;
	return 0;
}

/* One line: "size[,weight]", a comment or blank.  0, -EINVAL with the message, or -ENOMEM. */
static int
parse_line(const char *path, unsigned int lineno, char *line, struct sizes_table *t, char *err,
	   size_t errlen)
{
	char why[512], *comma, *f_size, *f_weight = NULL;
	double size, weight = 1.0;

	line[strcspn(line, "#;")] = '\0';
	comma = strchr(line, ',');
	if (comma != NULL) {
		*comma = '\0';
		f_weight = comma + 1;
		if (strchr(f_weight, ',') != NULL)
			return err_set(err, errlen, "%s:%u: more than two fields (expected "
				       "size[,weight], e.g. '64 kB, 3')", path, lineno);
		f_weight = strip(f_weight);
	}
	f_size = strip(line);
	if (f_size[0] == '\0' && f_weight == NULL)
		return 0;	/* blank, or only a comment */
	if (f_size[0] == '\0')
		return err_set(err, errlen, "%s:%u: empty size (expected size[,weight], e.g. "
			       "'64 kB, 3')", path, lineno);
	/* A bare number is bytes; else a size with its unit, as in a scenario file. */
	if (sc_unit_parse(SC_UNIT_NUMBER, f_size, &size, NULL, 0) != 0 &&
	    sc_unit_parse(SC_UNIT_BYTES, f_size, &size, why, sizeof(why)) != 0)
		return err_set(err, errlen, "%s:%u: size '%s': %s; or a bare number of bytes",
			       path, lineno, f_size, why);
	if (!(size > 0))
		return err_set(err, errlen, "%s:%u: size '%s': must be > 0 bytes", path, lineno,
			       f_size);
	if (f_weight != NULL) {
		if (f_weight[0] == '\0')
			return err_set(err, errlen, "%s:%u: empty weight (a plain number >= 0; "
				       "leave out the comma for 1)", path, lineno);
		if (sc_unit_parse(SC_UNIT_NUMBER, f_weight, &weight, why, sizeof(why)) != 0)
			return err_set(err, errlen, "%s:%u: weight '%s': %s", path, lineno,
				       f_weight, why);
		if (!(weight >= 0))
			return err_set(err, errlen, "%s:%u: weight '%s': must be >= 0", path,
				       lineno, f_weight);
	}
	if (t->n == SC_CSV_SIZES_MAX)
		return err_set(err, errlen, "%s:%u: more than %u sizes", path, lineno,
			       SC_CSV_SIZES_MAX);
	return table_add(t, size, weight);
}

/* Read every line of @p f into @p t.  0, -EINVAL with the message, -EIO or -ENOMEM. */
static int
read_lines(const char *path, FILE *f, struct sizes_table *t, char *err, size_t errlen)
{
	unsigned int lineno = 0;
	char *line = NULL;
	size_t cap = 0;
	ssize_t got;
	int rc = 0;

	for (;;) {
		errno = 0;
		got = getline(&line, &cap, f);
		if (got < 0)
			break;
		lineno++;
		if (memchr(line, '\0', (size_t)got) != NULL)
			rc = err_set(err, errlen, "%s:%u: NUL byte", path, lineno);
		else
			rc = parse_line(path, lineno, line, t, err, errlen);
		if (rc != 0)
			break;
	}
	if (rc == 0 && (errno == ENOMEM || ferror(f)))
		rc = errno == ENOMEM ? -ENOMEM : -EIO;
	if (rc == -ENOMEM || rc == -EIO)
		err_set(err, errlen, "%s: %s after line %u", path,
			rc == -ENOMEM ? "out of memory" : "read error", lineno);
	free(line);
	return rc;
}

int
sc_sizes_load(const char *path, struct sm_size_dist *d, char *err, size_t errlen)
{
	struct sizes_table t = { .n = 0 };
	double sum = 0;
	unsigned int i;
	FILE *f;
	int rc;

	if (err != NULL && errlen > 0)
		err[0] = '\0';
	if (path == NULL || d == NULL)
		return err_set(err, errlen, "sc_sizes_load: bad arguments");
	f = fopen(path, "r");
	if (f == NULL) {
		err_set(err, errlen, "%s: cannot open: %s", path, strerror(errno));
		return -ENOENT;
	}
	rc = read_lines(path, f, &t, err, errlen);
	fclose(f);
	for (i = 0; i < t.n; i++)
		sum += t.weight[i];
	if (rc == 0 && t.n == 0)
		rc = err_set(err, errlen, "%s: no sizes (expected lines of size[,weight], e.g. "
			     "'64 kB, 3')", path);
	else if (rc == 0 && !(sum > 0))
		rc = err_set(err, errlen, "%s: the weights sum to 0 (at least one must be > 0)",
			     path);
	if (rc == 0) {
		rc = sm_size_empirical(d, t.size, t.weight, t.n);
		if (rc == -ENOMEM)
			err_set(err, errlen, "%s: out of memory", path);
		else if (rc != 0)
			err_set(err, errlen, "%s: not a distribution (the weights sum to %g)", path,
				sum);
	}
	free(t.size);
	free(t.weight);
	return rc;
}

int
sc_background_sizes(const struct sc_scenario *s, struct sm_size_dist *d, char *err,
		    size_t errlen)
{
	const struct sc_background *bg;
	int rc;

	if (err != NULL && errlen > 0)
		err[0] = '\0';
	if (s == NULL || d == NULL)
		return err_set(err, errlen, "sc_background_sizes: bad arguments");
	bg = &s->background;
	switch (bg->sizes) {
	case SC_SIZES_FIXED:
	case SC_SIZES_EXP:
		rc = bg->sizes == SC_SIZES_FIXED ? sm_size_fixed(d, bg->size) :
		     sm_size_exp(d, bg->size);
		if (rc != 0)
			err_set(err, errlen, "background.size: %g B (allowed: > 0)", bg->size);
		return rc;
	case SC_SIZES_EMPIRICAL:
		if (bg->sizes_csv[0] == '\0' ||
		    strnlen(bg->sizes_csv, sizeof(bg->sizes_csv)) == sizeof(bg->sizes_csv))
			return err_set(err, errlen, "background.sizes_csv: %s (required when "
				       "background.sizes = empirical)",
				       bg->sizes_csv[0] == '\0' ? "not set" : "not a string");
		return sc_sizes_load(bg->sizes_csv, d, err, errlen);
	}
	return err_set(err, errlen, "background.sizes: unknown kind %d", (int)bg->sizes);
}
