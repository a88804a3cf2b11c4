/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What the scenario loader's tests share (test_scenario.c, test_scenario_syntax.c: one test
 * binary): fixtures written into the group's directory, loads that must succeed or fail.
 */
#ifndef TEST_SCENARIO_H
#define TEST_SCENARIO_H

#include <stddef.h>

#include "scenario.h"

#define ERRLEN 2048

/* A fixture file of @p len bytes (or a string); its path. */
const char *write_file(const char *text, size_t len);
const char *write_text(const char *text);

/*
 * @p text (or @p path with the override @p ovr) fails to load, naming line @p line (> 0) and each
 * string up to a NULL; @p path with the overrides loads.
 */
void expect_bad(const char *text, int line, ...);
void expect_bad_set(const char *path, const char *ovr, ...);
void load_ok(struct sc_scenario *s, const char *path, const char *const *ovr, unsigned int n);

/* The syntax a file may use and what it may not (test_scenario_syntax.c). */
void test_preset_order(void **state);
void test_syntax_accepted(void **state);
void test_missing_file(void **state);
void test_bad_syntax(void **state);
void test_nul_byte(void **state);
void test_bad_values(void **state);
void test_keys(void **state);
void test_port_links(void **state);

#endif /* TEST_SCENARIO_H */
