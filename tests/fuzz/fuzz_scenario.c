/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libFuzzer target for the scenario loader (control/scenario.h).  The input is a scenario file,
 * then, after a line "%%", one --set override per line (at most 8).  The file goes into a memfd,
 * which sc_scenario_load() opens as /proc/self/fd/N (so the line check, rte_cfgfile and the
 * overrides all run), and then:
 *   - a refusal returns -EINVAL, -ENOENT or -EIO with a message;
 *   - what loads, dumped and loaded again, dumps to the same text (the dump round-trips);
 *   - a run's load (sc_scenario_load_run()) of it either loads or refuses; a refusal that gives
 *     "the largest (or smallest) value that works" loads once that value is set as one more
 *     override (the limit's search found a value that really works).
 * Inputs that name the keys that read other files (background.sizes_csv, module.kernel) are
 * skipped: the loader would open whatever path the fuzzer wrote.  [impair]'s trace and table
 * files are read (regular files only, capped, each once: control/impair_files.c), so a path the
 * dictionary gives (iproute2's normal.dist) is loaded as a user's would be.  A broken property
 * traps.
 *
 * Built and run by tests/fuzz/run.sh (clang -fsanitize=fuzzer,address,undefined); needs no EAL.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "fuzz_common.h"
#include "scenario.h"

#define CHECK(c) do { if (!(c)) { fprintf(stderr, "fuzz_scenario: %s failed: %s\n", #c, err); \
			  __builtin_trap(); } } while (0)
#define MAX_SETS 8
#define MAX_INPUT 65536

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct sc_scenario s1, s2;
static char err[4096];

/* A memfd holding @p n bytes at @p d; its path in @p path.  -1 on failure. */
static int
memfile(const void *d, size_t n, char *path, size_t len)
{
	int fd = memfd_create("fuzz-scenario", MFD_CLOEXEC);

	if (fd < 0)
		return -1;
	if (fz_write_all(fd, d, n) != 0) {
		close(fd);
		return -1;
	}
	snprintf(path, len, "/proc/self/fd/%d", fd);
	return fd;
}

/* The dump of @p s (its path cleared: the line "loaded from" names it), malloc'd, or NULL. */
static char *
dump(struct sc_scenario *s, size_t *n)
{
	char *buf = NULL;
	FILE *f = open_memstream(&buf, n);
	int rc;

	if (f == NULL)
		return NULL;
	s->path[0] = '\0';
	rc = sc_scenario_dump(s, f);
	fclose(f);
	snprintf(err, sizeof(err), "sc_scenario_dump: %d", rc);
	CHECK(rc == 0);
	return buf;
}

/* A refusal that gives a value that works: "[sec] key = '...'" and "... value that works is X
 * (with": "sec.key=X" in @p set.  false if the message gives none. */
static bool
working_value(const char *msg, char *set, size_t len)
{
	const char *k = strstr(msg, ": ["), *e, *v, *w;
	char sec[64], key[64];

	if (k == NULL)
		return false;
	if (sscanf(k + 3, "%63[^]]] %63[^ =]", sec, key) != 2)
		return false;
	v = strstr(msg, " value that works is ");
	if (v == NULL)
		return false;
	v += strlen(" value that works is ");
	w = strstr(v, " (with the scenario's other values)");
	e = w != NULL ? w : v + strlen(v);
	snprintf(set, len, "%s.%s=%.*s", sec, key, (int)(e - v), v);
	return w != NULL;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *sets[MAX_SETS + 1], *sep, *text = (const char *)data;
	char path[64], path2[64], *copy = NULL, *d1, *d2, *p, set[512];
	size_t flen, n1 = 0, n2 = 0;
	unsigned int n = 0;
	int fd, fd2, rc;

	if (size > MAX_INPUT || memmem(data, size, "sizes_csv", 9) != NULL ||
	    memmem(data, size, "kernel", 6) != NULL)
		return 0;
	sep = memmem(data, size, "\n%%\n", 4);
	flen = sep != NULL ? (size_t)(sep - text) + 1 : size;
	if (sep != NULL) {
		copy = strndup(sep + 4, size - flen - 3);
		if (copy == NULL)
			return 0;
		for (p = strtok(copy, "\n"); p != NULL && n < MAX_SETS; p = strtok(NULL, "\n"))
			sets[n++] = p;
	}
	fd = memfile(data, flen, path, sizeof(path));
	if (fd < 0) {
		free(copy);
		return 0;
	}
	err[0] = '\0';
	rc = sc_scenario_load(&s1, path, sets, n, err, sizeof(err));
	CHECK(rc == 0 || rc == -EINVAL || rc == -ENOENT || rc == -EIO || rc == -ENOMEM);
	CHECK(rc == 0 || err[0] != '\0');
	if (rc == 0) {
		/* the dump loads back to the same dump */
		d1 = dump(&s1, &n1);
		CHECK(d1 != NULL);
		fd2 = memfile(d1, n1, path2, sizeof(path2));
		CHECK(fd2 >= 0);
		rc = sc_scenario_load(&s2, path2, NULL, 0, err, sizeof(err));
		CHECK(rc == 0);
		d2 = dump(&s2, &n2);
		CHECK(d2 != NULL);
		snprintf(err, sizeof(err), "the dump changed on loading it back:\n%s\n---\n%s", d1, d2);
		CHECK(n1 == n2 && memcmp(d1, d2, n1) == 0);
		free(d1);
		free(d2);
		close(fd2);
		/* a run's load: loads or refuses; the value a refusal gives works */
		err[0] = '\0';
		rc = sc_scenario_load_run(&s2, path, sets, NULL, n, 0, 0, err, sizeof(err));
		CHECK(rc == 0 || rc == -EINVAL || rc == -ENOMEM);
		CHECK(rc == 0 || err[0] != '\0');
		if (rc != 0 && working_value(err, set, sizeof(set))) {
			sets[n] = set;
			rc = sc_scenario_load_run(&s2, path, sets, NULL, n + 1, 0, 0, err, sizeof(err));
			CHECK(rc == 0);
		}
	}
	close(fd);
	free(copy);
	return 0;
}
