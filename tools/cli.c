/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Option values the subcommands share.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "eal.h"
#include "outfile.h"
#include "kernel.h"
#include "opts.h"
#include "scenario.h"
#include "variant.h"

/* The option being parsed as typed, or @p dflt outside the parser. */
static const char *
spelled(const char *dflt)
{
	return opts_spelling()[0] != '\0' ? opts_spelling() : dflt;
}

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
	return parse_list(arg, spelled("--variant"), SM_VAR_COUNT, variant_by_name,
			  "A, B, C, E, C' (Cp), E' (Ep)", mask, err, errlen);
}

int
cli_parse_budgets(const char *arg, unsigned int *mask, char *err, size_t errlen)
{
	return parse_list(arg, spelled("--budget"), SM_BUDGET_COUNT, budget_by_name, "low, high, free",
			  mask, err, errlen);
}

int
cli_add_set(const char **sets, unsigned int *n, const char *arg, char *err, size_t errlen)
{
	if (*n == CLI_MAX_SETS) {
		snprintf(err, errlen, "--set: at most %d overrides", CLI_MAX_SETS);
		return -EINVAL;
	}
	/* a value the key's own rule refuses is a bad command line (exit 2); what only the
	 * whole scenario can refuse is left to the load (exit 3) */
	if (sc_override_check(arg, NULL, err, errlen) != 0)
		return -EINVAL;
	sets[(*n)++] = arg;
	return 0;
}

int
cli_key_option(const char *key, const char *arg, char **set, char **from, char *err,
	       size_t errlen)
{
	const char *opt = spelled(key);
	int rc;

	*set = *from = NULL;
	if (asprintf(set, "%s=%s", key, arg) < 0) {
		*set = NULL;
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	rc = sc_override_check(*set, opt, err, errlen);
	if (rc == 0 && (*from = strdup(opt)) == NULL)
		rc = -ENOMEM;
	if (rc != 0) {
		free(*set);
		*set = NULL;
		return rc == -ENOMEM ? rc : -EINVAL;
	}
	return 0;
}

int
cli_sets_key(struct cli_sets *o, const char *key, const char *arg, char *err, size_t errlen)
{
	char *s, *from;
	int rc;

	if (o->nowned + 2 > sizeof(o->owned) / sizeof(o->owned[0])) {
		snprintf(err, errlen, "too many overrides");
		return -EINVAL;
	}
	rc = cli_key_option(key, arg, &s, &from, err, errlen);
	if (rc != 0)
		return rc;
	o->owned[o->nowned++] = s;
	o->owned[o->nowned++] = from;
	if (o->nsets < CLI_MAX_SETS)
		o->from[o->nsets] = from;
	return cli_add_set(o->sets, &o->nsets, s, err, errlen);
}

const struct opts_range cli_mbufs_range = { 1024, 100000000 };

int
cli_opt_key(void *target, const char *arg, const void *key, char *err, size_t errlen)
{
	return cli_sets_key(target, key, arg, err, errlen);
}

int
cli_opt_set(void *target, const char *arg, const void *data, char *err, size_t errlen)
{
	struct cli_sets *s = target;

	return cli_add_set(s->sets, &s->nsets, arg, err, errlen);
}

int
cli_opt_variants(void *target, const char *arg, const void *data, char *err, size_t errlen)
{
	return cli_parse_variants(arg, target, err, errlen);
}

int
cli_opt_budgets(void *target, const char *arg, const void *data, char *err, size_t errlen)
{
	return cli_parse_budgets(arg, target, err, errlen);
}

void
cli_sets_free(struct cli_sets *o)
{
	unsigned int i;

	for (i = 0; i < o->nowned; i++)
		free(o->owned[i]);
	o->nowned = 0;
}

