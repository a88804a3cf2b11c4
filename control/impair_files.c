/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * [impair]'s files (impair_files.h): read once, checked whole, then kept for the process.
 *
 * References: Mahimahi's src/frontend/link_queue.cc (a trace's lines: a millisecond each,
 * non-decreasing, an empty line refused, the last above 0); iproute2's tc/q_netem.c,
 * get_distribution() (a table: '#' lines skipped, whitespace-separated integers, at most
 * MAX_DIST) and get_tc_lib() (where NAME.dist is found).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "impair_files.h"

#define FILE_MAX (256u << 20)		/* no trace or table is near this */

enum kind { K_TRACE, K_TABLE };

struct kept {
	struct kept *next;
	enum kind kind;
	const void *data;
	char path[];
};

static struct kept *kept;		/* (reachable until exit: never freed) */
static pthread_mutex_t kept_lock = PTHREAD_MUTEX_INITIALIZER;

static const void *
find(enum kind kind, const char *real)
{
	const void *d = NULL;

	pthread_mutex_lock(&kept_lock);
	for (struct kept *k = kept; k != NULL && d == NULL; k = k->next)
		if (k->kind == kind && strcmp(k->path, real) == 0)
			d = k->data;
	pthread_mutex_unlock(&kept_lock);
	return d;
}

/* Keep @data for @real; if another thread kept one first, that one (and @data is freed). */
static const void *
keep(enum kind kind, const char *real, void *data)
{
	struct kept *k = malloc(sizeof(*k) + strlen(real) + 1);
	const void *had;

	if (k == NULL) {
		free(data);
		return NULL;
	}
	pthread_mutex_lock(&kept_lock);
	had = NULL;
	for (struct kept *o = kept; o != NULL && had == NULL; o = o->next)
		if (o->kind == kind && strcmp(o->path, real) == 0)
			had = o->data;
	if (had == NULL) {
		k->kind = kind;
		k->data = data;
		strcpy(k->path, real);
		k->next = kept;
		kept = k;
	}
	pthread_mutex_unlock(&kept_lock);
	if (had != NULL) {
		free(k);
		free(data);
		return had;
	}
	return data;
}

/*
 * Open @path for reading as a regular file (not a FIFO, a device or a directory: a read that
 * could block or never end); its real path into @real.
 */
static FILE *
open_regular(const char *path, char *real, const char *what, char *why, size_t len)
{
	struct stat st;
	FILE *f;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	if (fd < 0) {
		snprintf(why, len, "%s '%s': %s", what, path, strerror(errno));
		return NULL;
	}
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		snprintf(why, len, "%s '%s': not a regular file", what, path);
		close(fd);
		return NULL;
	}
	if ((uint64_t)st.st_size > FILE_MAX) {
		snprintf(why, len, "%s '%s': %lld bytes, more than a %s can be (at most %u MiB)",
			 what, path, (long long)st.st_size, what, FILE_MAX >> 20);
		close(fd);
		return NULL;
	}
	if (realpath(path, real) == NULL)
		snprintf(real, PATH_MAX, "%s", path);
	f = fdopen(fd, "r");
	if (f == NULL) {
		snprintf(why, len, "%s '%s': %s", what, path, strerror(errno));
		close(fd);
	}
	return f;
}

/* A line's end: trailing blanks and a CR (a file written on Windows) ignored. */
static size_t
trimmed(const char *line, size_t k)
{
	while (k > 0 && strchr(" \t\r\n", line[k - 1]) != NULL)
		k--;
	return k;
}

static struct sm_ltrace *
read_trace(FILE *f, const char *path, char *why, size_t len)
{
	struct sm_ltrace *t = NULL;
	uint32_t cap = 0, n = 0, bad;
	char *line = NULL;
	size_t lcap = 0;
	ssize_t got;
	unsigned long long lineno = 0;

	while ((got = getline(&line, &lcap, f)) != -1) {
		size_t k = trimmed(line, (size_t)got), i;
		unsigned long long ms = 0;

		lineno++;
		if (k == 0) {
			snprintf(why, len, "trace '%s' line %llu: empty (each line is one delivery "
				 "opportunity: a whole number of milliseconds)", path, lineno);
			goto fail;
		}
		for (i = 0; i < k; i++) {
			if (line[i] < '0' || line[i] > '9' || ms > (UINT64_MAX / 1000000000ull) / 10) {
				snprintf(why, len, "trace '%s' line %llu: '%.*s' is not a whole number "
					 "of milliseconds%s", path, lineno, (int)(k < 40 ? k : 40), line,
					 line[i] >= '0' && line[i] <= '9' ? " (too large)" : "");
				goto fail;
			}
			ms = ms * 10 + (unsigned)(line[i] - '0');
		}
		if (n == cap) {
			struct sm_ltrace *g;

			if (cap >= SM_LTRACE_MAX) {
				snprintf(why, len, "trace '%s': more than %u opportunities", path,
					 SM_LTRACE_MAX);
				goto fail;
			}
			cap = cap ? 2 * cap : 1024;
			g = realloc(t, sizeof(*t) + (size_t)cap * sizeof(t->ms[0]));
			if (g == NULL) {
				snprintf(why, len, "trace '%s': out of memory", path);
				goto fail;
			}
			t = g;
		}
		t->ms[n++] = ms;
		if (n > 1 && ms < t->ms[n - 2]) {
			snprintf(why, len, "trace '%s' line %llu: %llu ms is before the line above "
				 "(%llu ms): the times must not decrease", path, lineno, ms,
				 (unsigned long long)t->ms[n - 2]);
			goto fail;
		}
	}
	if (ferror(f)) {
		snprintf(why, len, "trace '%s': %s", path, strerror(errno));
		goto fail;
	}
	if (sm_ltrace_check(t != NULL ? t->ms : NULL, n, &bad) != 0) {
		snprintf(why, len, "trace '%s': %s", path, n == 0 ? "no opportunities (one whole "
			 "number of milliseconds per line)" : "it lasts 0 ms (its last time is its "
			 "period, and must be above 0)");
		goto fail;
	}
	t->n = n;
	t->period_ms = t->ms[n - 1];
	free(line);
	return t;
fail:
	free(line);
	free(t);
	return NULL;
}

/* A file of @kind at @path through @reader, or the one kept for its real path. */
static const void *
load(enum kind kind, const char *path, const char *what,
     void *(*reader)(FILE *f, const char *path, char *why, size_t len), char *why, size_t len)
{
	char real[PATH_MAX];
	const void *had;
	void *data;
	FILE *f = open_regular(path, real, what, why, len);

	if (f == NULL)
		return NULL;
	had = find(kind, real);
	if (had != NULL) {
		fclose(f);
		return had;
	}
	data = reader(f, path, why, len);
	fclose(f);
	if (data == NULL)
		return NULL;
	had = keep(kind, real, data);
	if (had == NULL)
		snprintf(why, len, "%s '%s': out of memory", what, path);
	return had;
}

static void *
trace_reader(FILE *f, const char *path, char *why, size_t len)
{
	return read_trace(f, path, why, len);
}

const struct sm_ltrace *
sc_ltrace_load(const char *path, char *why, size_t len)
{
	return load(K_TRACE, path, "trace", trace_reader, why, len);
}

static struct sm_jtable *
read_table(FILE *f, const char *path, char *why, size_t len)
{
	struct sm_jtable *t = malloc(sizeof(*t) + SM_JTABLE_MAX * sizeof(t->v[0]));
	char *line = NULL;
	size_t lcap = 0;
	ssize_t got;
	unsigned long long lineno = 0;
	uint32_t n = 0;

	if (t == NULL) {
		snprintf(why, len, "table '%s': out of memory", path);
		return NULL;
	}
	t->least = INT16_MAX;
	while ((got = getline(&line, &lcap, f)) != -1) {
		char *p = line, *end;

		lineno++;
		if (line[0] == '#')
			continue;
		for (;;) {
			long x;

			while (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n')
				p++;
			if (*p == '\0')
				break;
			errno = 0;
			x = strtol(p, &end, 10);
			if (end == p || (*end != '\0' && strchr(" \t\r\n", *end) == NULL)) {
				snprintf(why, len, "table '%s' line %llu: '%.*s' is not a whole number",
					 path, lineno, (int)strcspn(p, " \t\r\n") < 40 ?
					 (int)strcspn(p, " \t\r\n") : 40, p);
				goto fail;
			}
			if (errno != 0 || x < INT16_MIN || x > INT16_MAX) {
				snprintf(why, len, "table '%s' line %llu: %.*s is outside -32768..32767 "
					 "(an entry of 8192 is one jitter)", path, lineno,
					 (int)(end - p < 40 ? end - p : 40), p);
				goto fail;
			}
			if (n == SM_JTABLE_MAX) {
				snprintf(why, len, "table '%s' line %llu: more than %d entries (tc's "
					 "limit)", path, lineno, SM_JTABLE_MAX);
				goto fail;
			}
			t->v[n++] = (int16_t)x;
			if (x < t->least)
				t->least = (int16_t)x;
			p = end;
		}
	}
	if (ferror(f)) {
		snprintf(why, len, "table '%s': %s", path, strerror(errno));
		goto fail;
	}
	if (n == 0) {
		snprintf(why, len, "table '%s': no entries (whole numbers, 8192 for one jitter, as "
			 "tc's .dist files)", path);
		goto fail;
	}
	t->n = n;
	free(line);
	return t;
fail:
	free(line);
	free(t);
	return NULL;
}

static void *
table_reader(FILE *f, const char *path, char *why, size_t len)
{
	return read_table(f, path, why, len);
}

/* Where tc looks for NAME.dist (get_tc_lib(): $TC_LIB_DIR, else its LIBDIR/tc). */
static const char *const tc_dirs[] = {
	"/usr/lib/x86_64-linux-gnu/tc", "/usr/lib/aarch64-linux-gnu/tc", "/usr/lib64/tc",
	"/usr/lib/tc", "/usr/share/tc",
};

const struct sm_jtable *
sc_jtable_load(const char *name, char *why, size_t len)
{
	char path[PATH_MAX];
	const char *env = getenv("TC_LIB_DIR");

	if (strchr(name, '/') != NULL) {
		snprintf(path, sizeof(path), "%s", name);
	} else {
		size_t i, n = sizeof(tc_dirs) / sizeof(tc_dirs[0]);

		path[0] = '\0';
		if (env != NULL && env[0] != '\0')
			snprintf(path, sizeof(path), "%s/%s.dist", env, name);
		for (i = 0; i < n && (path[0] == '\0' || access(path, F_OK) != 0); i++)
			snprintf(path, sizeof(path), "%s/%s.dist", tc_dirs[i], name);
		if (access(path, F_OK) != 0) {
			snprintf(why, len, "no table '%s': no %s.dist in %s/usr/lib/<arch>/tc, "
				 "/usr/lib/tc or /usr/share/tc (give a path to the file, e.g. "
				 "./%s.dist)", name, name, env != NULL ? "$TC_LIB_DIR, " : "", name);
			return NULL;
		}
	}
	return load(K_TABLE, path, "table", table_reader, why, len);
}
