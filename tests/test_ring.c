/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The ring that doubles (models/ring.h): the first array, the order kept across the wrap, the
 * alignment asked for, and a ring that cannot double left as it was.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include "ring.h"

struct slot {
	uint64_t v;
	uint32_t tag;
};

static void
test_first(void **state)
{
	uint32_t mask = 0, head = 7, tail = 7;
	struct slot *a = sm_ring_grow(NULL, &mask, &head, &tail, sizeof(*a), 16, 0);

	(void)state;
	assert_non_null(a);
	assert_int_equal(mask, 15);
	assert_int_equal(head, 0);
	assert_int_equal(tail, 0);
	free(a);
}

/* A full ring whose head has wrapped: after doubling, slot i holds what was i-th from the head. */
static void
test_order_across_wrap(void **state)
{
	uint32_t mask = 7, head = 13, tail, i;	/* head at slot 5: slots 5..7, then 0..4 */
	struct slot *a = malloc(8 * sizeof(*a));

	(void)state;
	assert_non_null(a);
	for (tail = head, i = 0; i < 8; i++, tail++)
		a[tail & mask] = (struct slot){ .v = 1000 + i, .tag = i };
	a = sm_ring_grow(a, &mask, &head, &tail, sizeof(*a), 0, 64);
	assert_non_null(a);
	assert_int_equal((uintptr_t)a % 64, 0);
	assert_int_equal(mask, 15);
	assert_int_equal(head, 0);
	assert_int_equal(tail, 8);
	for (i = 0; i < 8; i++) {
		assert_int_equal(a[i].v, 1000 + i);
		assert_int_equal(a[i].tag, i);
	}
	free(a);
}

/* 2^31 slots cannot double in 32-bit indices: NULL, ENOMEM, nothing changed. */
static void
test_cannot_double(void **state)
{
	uint32_t mask = UINT32_MAX >> 1, head = 5, tail = 5 + (UINT32_MAX >> 1) + 1;
	struct slot s[1];

	(void)state;
	errno = 0;
	assert_null(sm_ring_grow(s, &mask, &head, &tail, sizeof(s[0]), 0, 0));
	assert_int_equal(errno, ENOMEM);
	assert_int_equal(mask, UINT32_MAX >> 1);
	assert_int_equal(head, 5);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_first),
		cmocka_unit_test(test_order_across_wrap),
		cmocka_unit_test(test_cannot_double),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
