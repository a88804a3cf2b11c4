/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Option values the subcommands share.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "kernel.h"
#include "variant.h"

static int
parse_list(const char *arg, const char *what, int count, int (*parse)(const char *, int *),
	   const char *allowed, unsigned int *mask, char *err, size_t errlen)
{
	char buf[256], *tok, *save = NULL;
	int v;

	if (strlen(arg) >= sizeof(buf)) {
		snprintf(err, errlen, "%s: list too long", what);
		return -EINVAL;
	}
	snprintf(buf, sizeof(buf), "%s", arg);
	*mask = 0;
	for (tok = strtok_r(buf, ", ", &save); tok != NULL; tok = strtok_r(NULL, ", ", &save)) {
		if (strcmp(tok, "all") == 0) {
			*mask = (1u << count) - 1;
			continue;
		}
		if (parse(tok, &v) != 0) {
			snprintf(err, errlen, "%s: unknown '%s' (allowed: %s, all)", what, tok, allowed);
			return -EINVAL;
		}
		*mask |= 1u << v;
	}
	if (*mask == 0) {
		snprintf(err, errlen, "%s: empty list (allowed: %s, all)", what, allowed);
		return -EINVAL;
	}
	return 0;
}

static int
variant_by_name(const char *s, int *out)
{
	enum sm_variant v;

	if (sm_variant_parse(s, &v) != 0)
		return -EINVAL;		/* v is not written: do not read it */
	*out = (int)v;
	return 0;
}

static int
budget_by_name(const char *s, int *out)
{
	enum sm_budget b;

	if (sm_budget_parse(s, &b) != 0)
		return -EINVAL;
	*out = (int)b;
	return 0;
}

int
cli_parse_variants(const char *arg, unsigned int *mask, char *err, size_t errlen)
{
	return parse_list(arg, "--variant", SM_VAR_COUNT, variant_by_name,
			  "A, B, C, E, C' (Cp), E' (Ep)", mask, err, errlen);
}

int
cli_parse_budgets(const char *arg, unsigned int *mask, char *err, size_t errlen)
{
	return parse_list(arg, "--budget", SM_BUDGET_COUNT, budget_by_name, "low, high, free",
			  mask, err, errlen);
}

int
cli_add_set(const char **sets, unsigned int *n, const char *arg, char *err, size_t errlen)
{
	if (*n == CLI_MAX_SETS) {
		snprintf(err, errlen, "--set: at most %d overrides", CLI_MAX_SETS);
		return -EINVAL;
	}
	sets[(*n)++] = arg;
	return 0;
}
