/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What the pcapng writer's tests share (test_pcapng.c, test_pcapng_errors.c: one test binary).
 */
#ifndef TEST_PCAPNG_H
#define TEST_PCAPNG_H

#include <stddef.h>
#include <stdint.h>

extern char dir[256];		/* the group's mkdtemp() directory */
extern const char APP[];	/* the writer's shb_userappl */

/* Packet bytes, a path in the directory, its entries (temporaries in @p n_tmp), a text file. */
void fill(uint8_t *buf, size_t k, size_t n);
char *path_in(char *buf, const char *name);
unsigned int dir_entries(const char *d, unsigned int *n_tmp);
void spew(const char *path, const char *text);
uint32_t rd32(const uint8_t *p);

/* Error paths, abort, close and streaming (test_pcapng_errors.c). */
void test_errors(void **state);
void test_abort_leaves_nothing(void **state);
void test_abort_keeps_existing(void **state);
void test_close_replaces(void **state);
void test_failed_close_keeps_existing(void **state);
void test_stream(void **state);

#endif /* TEST_PCAPNG_H */
