/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What the cmocka tests share: a temporary directory and the files written into it, an assertion
 * on messages, the deck's topologies, and (common_eal.c, for the tests on the EAL) the EAL with a
 * frame pool.  Include it after <cmocka.h>.
 */
#ifndef TC_COMMON_H
#define TC_COMMON_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "../models/params.h"

/** Fail the test unless string @p needle is in message @p hay. */
#define assert_has(hay, needle)							\
	do {									\
		if (strstr((hay), (needle)) == NULL)				\
			fail_msg("'%s' not in message '%s'", (needle), (hay));	\
	} while (0)

/**
 * Make a new directory $TMPDIR/@p name.XXXXXX (/tmp without TMPDIR) into @p dir.
 *
 * @return 0, or -1 (errno set; ENAMETOOLONG if it does not fit @p len)
 */
int tc_tmpdir(char *dir, size_t len, const char *name);

/** Remove @p dir and everything below it (links not followed); 0 or -1. */
int tc_rmtree(const char *dir);

/**
 * The result of cmocka_run_group_tests() @p rc for a group whose teardown removes @p dir: 1 if
 * @p dir is still there (cmocka 1.1 reports a failed group teardown but does not count it).
 */
int tc_group_result(int rc, const char *dir);

#define TC_FILES_MAX 256

/** A temporary directory and the files a test wrote into it. */
struct tc_files {
	char dir[128];
	char *path[TC_FILES_MAX];
	unsigned int n;
};

/** tc_tmpdir() into @p f->dir, no file yet; 0 or -1. */
int tc_files_init(struct tc_files *f, const char *name);

/**
 * Write @p len bytes of @p text into @p f->dir/@p name (NULL: a new name "fNNN.ini"), failing
 * the test if it cannot.
 *
 * @return the file's path, valid until tc_files_remove()
 */
const char *tc_write_file(struct tc_files *f, const char *name, const void *text, size_t len);

/** Remove the files written (the directory stays). */
void tc_files_unlink(struct tc_files *f);

/**
 * Remove the files written and then the directory: -1 if it cannot be removed (something else
 * was left in it).
 */
int tc_files_remove(struct tc_files *f);

/** The whole file @p path (malloc'd, one byte spare), its size in @p size; fails the test if not. */
uint8_t *tc_slurp(const char *path, size_t *size);

/** @p v into @p p in network byte order. */
void tc_put16(uint8_t *p, uint16_t v);
void tc_put32(uint8_t *p, uint32_t v);

/** The deck's defaults with the deck's topology @p name applied (test failed if none is). */
struct sm_params tc_topology(const char *name);

struct rte_mempool;

/**
 * Start the EAL (dp_eal_init(): --no-huge, memory for the pool and 64 MB more) and make a pool
 * @p name of @p n frames of @p frame bytes; on failure say why on stderr.
 *
 * @return the pool, or NULL
 */
struct rte_mempool *tc_eal_pool(const char *name, uint32_t n, uint32_t frame);

/** Free @p pool and stop the EAL. */
void tc_eal_fini(struct rte_mempool *pool);

#endif /* TC_COMMON_H */
