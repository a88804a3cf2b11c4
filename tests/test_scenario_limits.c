/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Tier 1 tests of what a scenario's values can reach (no EAL): a list item that names nothing
 * is refused without reading what its parser did not write (the stack is filled with a pattern
 * first, so that a read of it is an out-of-range shift UndefinedBehaviorSanitizer reports every
 * time).  Run from the project root.
 */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "scenario.h"
#include "../models/packet.h"
#include "../models/variant.h"

#define ERRLEN 2048

#define assert_has(hay, needle)							\
	do {									\
		if (strstr((hay), (needle)) == NULL)				\
			fail_msg("'%s' not in message '%s'", (needle), (hay));	\
	} while (0)

static struct sc_scenario sc;

/* Fill the stack the next calls will use with 0x5a: an unset enum there reads 0x5a5a5a5a. */
static void __attribute__((noinline))
poison_stack(void)
{
	volatile unsigned char junk[256 * 1024];
	size_t i;

	for (i = 0; i < sizeof(junk); i++)
		junk[i] = 0x5a;
}

static int
load_set(const char *set, char *err)
{
	const char *sets[1] = { set };

	poison_stack();
	return sc_scenario_load(&sc, NULL, sets, 1, err, ERRLEN);
}

/* An unknown variant, budget or op in a list: refused, naming it; nothing unset is read. */
static void
test_unknown_list_items(void **state)
{
	static const struct {
		const char *set, *want;
	} bad[] = {
		{ "report.variants=zz", "unknown variant 'zz'" },
		{ "report.variants=A,zz", "unknown variant 'zz'" },
		{ "report.budgets=zz", "unknown budget 'zz'" },
		{ "report.budgets=low,zz,high", "unknown budget 'zz'" },
		{ "module.compute_ops=zz", "unknown op 'zz'" },
		{ "module.compute_ops=fft,zz", "unknown op 'zz'" },
		{ "report.variants=A,,B", "empty item" },
	};
	char err[ERRLEN];
	unsigned int i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_equal(load_set(bad[i].set, err), -EINVAL);
		assert_has(err, bad[i].want);
		assert_has(err, bad[i].set);
	}
	/* and the good ones still parse */
	assert_int_equal(load_set("report.variants=A,E'", err), 0);
	assert_int_equal(sc.variants, (1u << SM_VAR_A) | (1u << SM_VAR_EP));
	assert_int_equal(load_set("module.compute_ops=fft,mac", err), 0);
	assert_int_equal(sc.model.mod.compute_ops, (1u << SM_OP_FFT) | (1u << SM_OP_MAC));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_unknown_list_items),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
