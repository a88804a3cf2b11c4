/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The application's step times from CSV (appsteps.h).
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "appsteps.h"

/* The columns read, and how times are written. */
struct layout {
	int step, start, end;		/* column numbers */
	bool seconds;			/* start_s/end_s */
	int ncols;			/* columns of the header (0: none) */
};

/* Split @p line at commas in place (no quoting: the columns are numbers and names). */
static int
split(char *line, char **col, int max)
{
	int n = 0;
	char *p = line;

	for (;;) {
		char *c = strchr(p, ',');

		if (n == max)
			return -1;
		col[n++] = p;
		if (c == NULL)
			break;
		*c = '\0';
		p = c + 1;
	}
	for (int i = 0; i < n; i++) {		/* trim blanks */
		char *e;

		while (*col[i] == ' ' || *col[i] == '\t')
			col[i]++;
		e = col[i] + strlen(col[i]);
		while (e > col[i] && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r'))
			*--e = '\0';
	}
	return n;
}

static int
find(char **col, int n, const char *name)
{
	for (int i = 0; i < n; i++)
		if (strcmp(col[i], name) == 0)
			return i;
	return -1;
}

/* Is @p name one of the time columns? */
static bool
time_column(const char *name)
{
	return strcmp(name, "start_ns") == 0 || strcmp(name, "end_ns") == 0 ||
	       strcmp(name, "start_s") == 0 || strcmp(name, "end_s") == 0;
}

/*
 * The step column @p want (a name, or a number from 1) among the @p n columns @p col of a header
 * (or, @p col NULL, of rows without one): its index, or -1 with a message.
 */
static int
step_column(char **col, int n, const char *want, const char *path, uint32_t line, char *err,
	    size_t errlen)
{
	size_t digits = strspn(want, "0123456789");
	int i;

	if (digits > 0 && want[digits] == '\0') {
		unsigned long k = strtoul(want, NULL, 10);

		if (k >= 1 && k <= (unsigned long)n)
			return (int)k - 1;
		snprintf(err, errlen, "%s:%u: no column %s (the line has %d)", path, line, want, n);
		return -1;
	}
	if (col == NULL) {
		snprintf(err, errlen, "%s:%u: no header to find the column '%s' in (give its "
			 "number, from 1)", path, line, want);
		return -1;
	}
	i = find(col, n, want);
	if (i < 0) {
		int m = snprintf(err, errlen, "%s:%u: the header has no column '%s' (it has:", path,
				 line, want);

		for (int j = 0; j < n && m >= 0 && (size_t)m < errlen; j++)
			m += snprintf(err + m, errlen - (size_t)m, "%s '%.40s'", j ? "," : "",
				      col[j]);
		if (m >= 0 && (size_t)m < errlen)
			snprintf(err + m, errlen - (size_t)m, ")");
	}
	return i;
}

/*
 * A header: the columns by name; the step's is @p want if given, else "step", else the first
 * (a training loop's counter is often "iter" or "iteration").  0, or -EINVAL with a message.
 */
static int
header(char **col, int n, const char *want, struct layout *l, const char *path, uint32_t line,
       char *err, size_t errlen)
{
	int sn = find(col, n, "start_ns"), en = find(col, n, "end_ns");
	int ss = find(col, n, "start_s"), es = find(col, n, "end_s");

	l->ncols = n;
	if (want != NULL)
		l->step = step_column(col, n, want, path, line, err, errlen);
	else if ((l->step = find(col, n, "step")) < 0 && time_column(col[0]))
		snprintf(err, errlen, "%s:%u: the header has no column 'step', and its first "
			 "column '%s' is a time: name the step's column", path, line, col[0]);
	else if (l->step < 0)
		l->step = 0;
	if (l->step < 0)
		return -EINVAL;
	if (sn >= 0 && en >= 0) {
		l->start = sn;
		l->end = en;
		l->seconds = false;
	} else if (ss >= 0 && es >= 0) {
		l->start = ss;
		l->end = es;
		l->seconds = true;
	} else {
		snprintf(err, errlen, "%s:%u: the header needs the columns start_ns and end_ns (or "
			 "start_s and end_s)", path, line);
		return -EINVAL;
	}
	if (l->step == l->start || l->step == l->end) {
		snprintf(err, errlen, "%s:%u: the step's column '%s' is a time", path, line,
			 col[l->step]);
		return -EINVAL;
	}
	return 0;
}

/*
 * Rows without a header: the step column @p want (a number) or the first, then the first two
 * other columns are the start and the end.
 */
static int
no_header(int n, const char *want, struct layout *l, const char *path, uint32_t line, char *err,
	  size_t errlen)
{
	if (want == NULL)
		return 0;
	l->step = step_column(NULL, n, want, path, line, err, errlen);
	if (l->step < 0)
		return -EINVAL;
	l->start = l->step == 0 ? 1 : 0;
	l->end = l->step <= 1 ? 2 : 1;
	return 0;
}

/*
 * A line of @p f into @p buf (at most @p max bytes, NUL bytes included), without its newline:
 * its length, -1 at the end of the file, or -E2BIG if longer than @p max.
 */
static long
read_line(FILE *f, char *buf, size_t max)
{
	size_t n = 0;
	int c;

	while ((c = getc(f)) != EOF && c != '\n') {
		if (n == max)
			return -E2BIG;
		buf[n++] = (char)c;
	}
	if (c == EOF && n == 0)
		return -1;
	buf[n] = '\0';
	return (long)n;
}

/* A time: integer ns, or decimal seconds; into ns plus the offset. */
static int
parse_time(const char *s, bool seconds, int64_t offset, int64_t *out)
{
	char *end;

	errno = 0;
	if (seconds) {
		double v = strtod(s, &end);

		if (end == s || *end != '\0' || errno != 0 || !isfinite(v) || fabs(v) > 9.2e9)
			return -EINVAL;
		*out = (int64_t)llround(v * 1e9);
	} else {
		long long v = strtoll(s, &end, 10);

		if (end == s || *end != '\0' || errno != 0)
			return -EINVAL;
		*out = v;
	}
	if ((offset > 0 && *out > INT64_MAX - offset) || (offset < 0 && *out < INT64_MIN - offset))
		return -EINVAL;
	*out += offset;
	return 0;
}

static int
cmp_step(const void *a, const void *b)
{
	const struct tr_appstep *x = a, *y = b;

	return x->step < y->step ? -1 : x->step > y->step;
}

int
tr_appsteps_read(const char *path, const char *step_col, int64_t offset_ns,
		 struct tr_appsteps *out, char *err, size_t errlen)
{
	struct layout l = { 0, 1, 2, false, 0 };
	char *buf = malloc(TR_APPSTEPS_LINE_MAX + 1), *col[256];
	uint32_t line = 0, cap = 0, i;
	bool first = true;
	struct stat st;
	long got;
	FILE *f;
	int rc = 0;

	memset(out, 0, sizeof(*out));
	if (buf == NULL)
		return -ENOMEM;
	f = fopen(path, "r");
	if (f == NULL || fstat(fileno(f), &st) != 0 || S_ISDIR(st.st_mode)) {
		rc = f == NULL ? -errno : S_ISDIR(st.st_mode) ? -EISDIR : -errno;
		snprintf(err, errlen, "%s: %s", path, strerror(-rc));
		if (f != NULL)
			fclose(f);
		free(buf);
		return rc;
	}
	while ((got = read_line(f, buf, TR_APPSTEPS_LINE_MAX)) != -1) {
		size_t len = got < 0 ? 0 : (size_t)got;
		struct tr_appstep a;
		char *end;
		int n, need;

		line++;
		if (got == -E2BIG) {
			snprintf(err, errlen, "%s:%u: a line longer than %u bytes", path, line,
				 TR_APPSTEPS_LINE_MAX);
			rc = -E2BIG;
			break;
		}
		if (strlen(buf) != len) {
			snprintf(err, errlen, "%s:%u: a NUL byte at column %zu: not a text file",
				 path, line, strlen(buf) + 1);
			rc = -EINVAL;
			break;
		}
		if (len > 0 && buf[len - 1] == '\r')
			buf[--len] = '\0';
		if (buf[strspn(buf, " \t")] == '\0' || buf[strspn(buf, " \t")] == '#')
			continue;
		n = split(buf, col, (int)(sizeof(col) / sizeof(col[0])));
		if (n < 0) {
			snprintf(err, errlen, "%s:%u: more than %zu columns", path, line,
				 sizeof(col) / sizeof(col[0]));
			rc = -EINVAL;
			break;
		}
		if (first) {
			first = false;
			if (strspn(col[0], "0123456789") != strlen(col[0]) || col[0][0] == '\0') {
				rc = header(col, n, step_col, &l, path, line, err, errlen);
				if (rc != 0)
					break;
				continue;
			}
			rc = no_header(n, step_col, &l, path, line, err, errlen);
			if (rc != 0)
				break;
		}
		need = l.step > l.start ? l.step : l.start;
		need = (need > l.end ? need : l.end) + 1;
		if (n < need) {
			snprintf(err, errlen, "%s:%u: %d column%s, %d needed (step, start, end)", path,
				 line, n, n == 1 ? "" : "s", need);
			rc = -EINVAL;
			break;
		}
		errno = 0;
		a.step = strtoull(col[l.step], &end, 10);
		if (col[l.step][0] == '\0' || col[l.step][0] == '-' || *end != '\0' || errno != 0) {
			snprintf(err, errlen, "%s:%u: column %d (step): '%.40s' is not a step number",
				 path, line, l.step + 1, col[l.step]);
			rc = -EINVAL;
			break;
		}
		if (parse_time(col[l.start], l.seconds, offset_ns, &a.start_ns) != 0 ||
		    parse_time(col[l.end], l.seconds, offset_ns, &a.end_ns) != 0) {
			bool s = parse_time(col[l.start], l.seconds, offset_ns, &a.start_ns) != 0;

			snprintf(err, errlen, "%s:%u: column %d (%s): '%.40s' is not a time in %s%s",
				 path, line, (s ? l.start : l.end) + 1, s ? "start" : "end",
				 col[s ? l.start : l.end], l.seconds ? "seconds" : "integer nanoseconds",
				 offset_ns ? " (or beyond 64 bits with the clock offset)" : "");
			rc = -EINVAL;
			break;
		}
		if (a.end_ns < a.start_ns) {
			snprintf(err, errlen, "%s:%u: step %" PRIu64 " ends before it starts", path,
				 line, a.step);
			rc = -EINVAL;
			break;
		}
		a.line = line;
		if (out->n == TR_APPSTEPS_MAX) {
			snprintf(err, errlen, "%s:%u: more than %u steps", path, line,
				 TR_APPSTEPS_MAX);
			rc = -E2BIG;
			break;
		}
		if (out->n == cap) {
			uint32_t nc = cap ? 2 * cap : 64;
			struct tr_appstep *ns = realloc(out->s, (size_t)nc * sizeof(*ns));

			if (ns == NULL) {
				rc = -ENOMEM;
				snprintf(err, errlen, "out of memory");
				break;
			}
			out->s = ns;
			cap = nc;
		}
		out->s[out->n++] = a;
	}
	if (rc == 0 && ferror(f)) {
		rc = -EIO;
		snprintf(err, errlen, "%s: read error", path);
	}
	fclose(f);
	free(buf);
	if (rc == 0 && out->n == 0) {
		snprintf(err, errlen, "%s: no step in it", path);
		rc = -EINVAL;
	}
	if (rc == 0) {
		qsort(out->s, out->n, sizeof(*out->s), cmp_step);
		for (i = 1; i < out->n; i++)
			if (out->s[i].step == out->s[i - 1].step) {
				snprintf(err, errlen, "%s:%u: step %" PRIu64 " again (first on line "
					 "%u)", path, out->s[i].line > out->s[i - 1].line ?
					 out->s[i].line : out->s[i - 1].line, out->s[i].step,
					 out->s[i].line > out->s[i - 1].line ? out->s[i - 1].line :
					 out->s[i].line);
				rc = -EINVAL;
				break;
			}
	}
	if (rc != 0)
		tr_appsteps_free(out);
	return rc;
}

void
tr_appsteps_free(struct tr_appsteps *a)
{
	if (a == NULL)
		return;
	free(a->s);
	memset(a, 0, sizeof(*a));
}
