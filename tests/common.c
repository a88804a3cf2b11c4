/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The cmocka tests' shared fixtures without the EAL (common.h).
 */
#include <errno.h>
#include <ftw.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "common.h"
#include "../models/presets.h"

int
tc_tmpdir(char *dir, size_t len, const char *name)
{
	const char *tmp = getenv("TMPDIR");
	int n = snprintf(dir, len, "%s/%s.XXXXXX", tmp != NULL ? tmp : "/tmp", name);

	if (n < 0 || (size_t)n >= len) {
		errno = ENAMETOOLONG;
		return -1;
	}
	return mkdtemp(dir) != NULL ? 0 : -1;
}

static int
rm_one(const char *p, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(p);
}

int
tc_rmtree(const char *dir)
{
	return nftw(dir, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

int
tc_group_result(int rc, const char *dir)
{
	if (rc == 0 && access(dir, F_OK) == 0) {
		fprintf(stderr, "the group's directory %s was left behind\n", dir);
		return 1;
	}
	return rc;
}

int
tc_files_init(struct tc_files *f, const char *name)
{
	f->n = 0;
	return tc_tmpdir(f->dir, sizeof(f->dir), name);
}

const char *
tc_write_file(struct tc_files *f, const char *name, const void *text, size_t len)
{
	char path[256];
	FILE *fp;

	assert_true(f->n < TC_FILES_MAX);
	if (name != NULL)
		snprintf(path, sizeof(path), "%s/%s", f->dir, name);
	else
		snprintf(path, sizeof(path), "%s/f%03u.ini", f->dir, f->n);
	fp = fopen(path, "w");
	assert_non_null(fp);
	assert_int_equal(fwrite(text, 1, len, fp), len);
	assert_int_equal(fclose(fp), 0);
	f->path[f->n] = strdup(path);
	assert_non_null(f->path[f->n]);
	return f->path[f->n++];
}

void
tc_files_unlink(struct tc_files *f)
{
	unsigned int i;

	for (i = 0; i < f->n; i++) {
		unlink(f->path[i]);
		free(f->path[i]);
	}
	f->n = 0;
}

int
tc_files_remove(struct tc_files *f)
{
	tc_files_unlink(f);
	return rmdir(f->dir);
}

uint8_t *
tc_slurp(const char *path, size_t *size)
{
	struct stat st;
	uint8_t *buf;
	FILE *f;

	assert_int_equal(stat(path, &st), 0);
	buf = malloc((size_t)st.st_size + 1);
	assert_non_null(buf);
	f = fopen(path, "rb");
	assert_non_null(f);
	assert_int_equal(fread(buf, 1, (size_t)st.st_size, f), (size_t)st.st_size);
	fclose(f);
	*size = (size_t)st.st_size;
	return buf;
}

void
tc_put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

void
tc_put32(uint8_t *p, uint32_t v)
{
	tc_put16(p, (uint16_t)(v >> 16));
	tc_put16(p + 2, (uint16_t)v);
}

struct sm_params
tc_topology(const char *name)
{
	struct sm_params p;
	unsigned int i, n;
	const struct sm_deck_topology *t = sm_deck_topologies(&n);
	bool found = false;

	sm_params_default(&p);
	for (i = 0; i < n; i++)
		if (strcmp(t[i].name, name) == 0) {
			assert_int_equal(sm_apply_topology(&p, &t[i]), 0);
			found = true;
		}
	assert_true(found);
	return p;
}
