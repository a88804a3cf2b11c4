/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Scenario files: the table of keys and everything that reads it.
 *
 * keys[] has one row per key: section, name, type, unit, offset, range, help.  Loading looks
 * names up in it (with suggestions for a misspelt one) and parses each value by the kind of its
 * key; sc_scenario_keys() (the --help listing) and sc_scenario_dump() walk it in order.
 */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <strings.h>

#include <rte_cfgfile.h>

#include "scenario_impl.h"
#include "../models/kernel.h"
#include "../models/presets.h"
#include "../models/variant.h"

#define NOLIM INFINITY

/** The sections, in file and dump order. */
static const struct {
	const char *name;
	const char *help;
} sections[] = {
	{ "scenario", "what this scenario is" },
	{ "topology", "D data centres of N workers, one worker per GPU" },
	{ "intra", "the link inside a data centre" },
	{ "wan", "the link between data centres" },
	{ "gpu", "the worker's accelerator" },
	{ "job", "the training job" },
	{ "module", "the optical module as a link kernel" },
	{ "steps", "steps to the target loss, per variant, and the measured tables" },
	{ "breakeven", "search ranges of the break-even bisections" },
	{ "report", "what to report" },
};
#define N_SECTIONS (sizeof(sections) / sizeof(sections[0]))

#define OFF(f) offsetof(struct sc_scenario, f)
#define STR(sec, key, f, help) \
	{ sec, key, NULL, KT_STR, SC_UNIT_NUMBER, OFF(f), \
	  sizeof(((struct sc_scenario *)0)->f), 0, 0, 0, help }
#define UINT(sec, key, f, lo, hi, help) \
	{ sec, key, NULL, KT_UINT, SC_UNIT_COUNT, OFF(f), 0, lo, hi, 0, help }
#define DBL(sec, key, f, unit, lo, hi, fl, help) \
	{ sec, key, NULL, KT_DBL, unit, OFF(f), 0, lo, hi, fl, help }
#define DBLA(sec, key, alias, f, unit, lo, hi, fl, help) \
	{ sec, key, alias, KT_DBL, unit, OFF(f), 0, lo, hi, fl, help }
#define OTHER(sec, key, type, f, fl, help) \
	{ sec, key, NULL, type, SC_UNIT_NUMBER, OFF(f), 0, 0, 0, fl, help }
#define LINK(sec, f) \
	OTHER(sec, "preset", KT_PRESET, f, KF_NO_DUMP, \
	      "link preset: sets bandwidth, latency and energy; explicit keys override it"), \
	DBL(sec, "bandwidth", f.bw, SC_UNIT_BYTE_RATE, 0, NOLIM, KF_MIN_OPEN, \
	    "bandwidth, one direction"), \
	DBL(sec, "latency", f.lat, SC_UNIT_TIME, 0, NOLIM, 0, "latency per traversal"), \
	DBL(sec, "energy", f.pj_per_bit, SC_UNIT_ENERGY_BIT, 0, NOLIM, 0, "transfer energy")
#define OPS(name, op) \
	DBL("module", "ops_" name, model.mod.ops_per_byte[op], SC_UNIT_NUMBER, 0, NOLIM, 0, \
	    name " ops per input byte")
#define STEPS(key, alias, v, help) \
	DBLA("steps", key, alias, model.steps[v], SC_UNIT_NUMBER, 0, NOLIM, KF_MIN_OPEN, help)

static const struct sc_key keys[] = {
	STR("scenario", "name", name, "short name, used in reports"),
	STR("scenario", "description", desc, "one line; escape ';' as '\\;'"),

	UINT("topology", "data_centres", model.topo.n_dc, 1, 64, "data centres D"),
	UINT("topology", "workers_per_dc", model.topo.per_dc, 1, 1024,
	     "workers per data centre N"),

	LINK("intra", model.intra),
	LINK("wan", model.wan),

	DBL("gpu", "peak", model.gpu.peak_flops, SC_UNIT_FLOP_RATE, 0, NOLIM, KF_MIN_OPEN,
	    "dense BF16 peak"),
	DBL("gpu", "mfu", model.gpu.mfu, SC_UNIT_FRACTION, 0, 1, KF_MIN_OPEN,
	    "model FLOP utilisation"),
	DBL("gpu", "static_power", model.gpu.static_w, SC_UNIT_POWER, 0, NOLIM, 0,
	    "static power, charged for the whole step"),
	DBL("gpu", "energy", model.gpu.pj_per_flop, SC_UNIT_ENERGY_FLOP, 0, NOLIM, 0,
	    "dynamic energy per FLOP"),

	DBL("job", "parameters", model.job.params, SC_UNIT_NUMBER, 1, NOLIM, 0, "parameters P"),
	DBL("job", "tokens", model.job.tokens, SC_UNIT_NUMBER, 0, NOLIM, KF_MIN_OPEN,
	    "tokens per worker per step"),
	DBL("job", "flops_per_param_token", model.job.flops_per_param_token, SC_UNIT_NUMBER, 0,
	    NOLIM, KF_MIN_OPEN, "FLOP per parameter per token (6: forward + backward)"),
	DBL("job", "value_bytes", model.job.value_bytes, SC_UNIT_BYTES, 0, NOLIM, KF_MIN_OPEN,
	    "bytes per transmitted value (BF16: 2 B)"),
	DBL("job", "index_bytes", model.job.index_bytes, SC_UNIT_BYTES, 0, NOLIM, 0,
	    "bytes per top-k index"),
	DBL("job", "keep", model.job.keep, SC_UNIT_FRACTION, 0, 1, KF_MIN_OPEN,
	    "fraction kept by top-k and the band"),
	DBL("job", "topk_kept", model.job.topk_kept, SC_UNIT_NUMBER, 0, NOLIM, 0,
	    "values top-k keeps per worker; 0 = keep x parameters"),
	DBL("job", "band_chunk", model.job.band_chunk, SC_UNIT_NUMBER, 2, NOLIM, 0,
	    "points of the band's 1-D transform"),
	DBL("job", "topk_chunk", model.job.topk_chunk, SC_UNIT_NUMBER, 2, NOLIM, 0,
	    "points of top-k's 2-D chunk"),

	DBL("module", "lanes", model.mod.lanes, SC_UNIT_NUMBER, 0, NOLIM, KF_MIN_OPEN,
	    "optical lanes"),
	DBL("module", "lane_rate", model.mod.lane_rate, SC_UNIT_BIT_RATE, 0, NOLIM, KF_MIN_OPEN,
	    "rate per lane"),
	DBL("module", "planes", model.mod.planes, SC_UNIT_NUMBER, 1, NOLIM, 0,
	    "bit planes = optical passes per value"),
	DBL("module", "budget_low", model.mod.budget[SM_BUDGET_LOW], SC_UNIT_FLOP_RATE, 0, NOLIM,
	    KF_MIN_OPEN, "compute budget, low setting"),
	DBL("module", "budget_high", model.mod.budget[SM_BUDGET_HIGH], SC_UNIT_FLOP_RATE, 0,
	    NOLIM, KF_MIN_OPEN, "compute budget, high setting"),
	DBL("module", "fpga_rate", model.mod.fpga_rate, SC_UNIT_OP_RATE, 0, NOLIM, KF_MIN_OPEN,
	    "rate of the FPGA stage"),
	DBL("module", "port", model.mod.port_bw, SC_UNIT_BYTE_RATE, 0, NOLIM, KF_MIN_OPEN,
	    "the module's port (QSFP56)"),
	DBL("module", "host_port", model.mod.host_port_bw, SC_UNIT_BYTE_RATE, 0, NOLIM,
	    KF_MIN_OPEN, "the host port it sits in"),
	DBL("module", "latency_pluggable", model.mod.latency_port, SC_UNIT_TIME, 0, NOLIM, 0,
	    "latency of a module in the port (E)"),
	DBL("module", "latency_network", model.mod.latency_network, SC_UNIT_TIME, 0, NOLIM, 0,
	    "latency of a module in the network (E')"),
	DBL("module", "static_power", model.mod.static_w, SC_UNIT_POWER, 0, NOLIM, 0,
	    "static power"),
	DBL("module", "laser_power", model.mod.laser_w, SC_UNIT_POWER, 0, NOLIM, 0,
	    "laser power"),
	DBL("module", "energy", model.mod.pj_per_bit, SC_UNIT_ENERGY_BIT, 0, NOLIM, 0,
	    "dynamic energy over the bytes processed"),
	OPS("fft", SM_OP_FFT),
	OPS("add", SM_OP_ADD),
	OPS("mul", SM_OP_MUL),
	OPS("mac", SM_OP_MAC),
	OPS("fpmac", SM_OP_FPMAC),
	OPS("mod", SM_OP_MOD),
	OPS("gather", SM_OP_GATHER),
	OTHER("module", "compute_ops", KT_OPS, model.mod.compute_ops, 0,
	      "ops charged to the compute budget; the others run on the FPGA stage"),

	STEPS("A", NULL, SM_VAR_A, "steps to target, A"),
	STEPS("B", NULL, SM_VAR_B, "steps to target, B"),
	STEPS("C", NULL, SM_VAR_C, "steps to target, C"),
	STEPS("E", NULL, SM_VAR_E, "steps to target, E"),
	STEPS("Cp", "C'", SM_VAR_CP, "steps to target, C'"),
	STEPS("Ep", "E'", SM_VAR_EP, "steps to target, E'"),
	DBL("steps", "c_mean", model.steps_c_mean, SC_UNIT_NUMBER, 0, NOLIM, KF_MIN_OPEN,
	    "C's unrounded mean"),
	OTHER("steps", "enob", KT_TABLE, model.enob, 0, "E's steps against ENOB"),
	OTHER("steps", "planes", KT_TABLE, model.planes, 0, "E's steps against bit planes"),
	DBL("steps", "enob_used", model.enob_used, SC_UNIT_NUMBER, 0, NOLIM, KF_MIN_OPEN,
	    "the ENOB the run assumes"),
	DBL("steps", "target_loss", model.target_loss, SC_UNIT_NUMBER, 0, NOLIM, KF_MIN_OPEN,
	    "the loss the steps refer to"),

	DBL("breakeven", "bandwidth_min", model.be_bw_lo, SC_UNIT_BYTE_RATE, 0, NOLIM,
	    KF_MIN_OPEN, "bandwidth search, low end"),
	DBL("breakeven", "bandwidth_max", model.be_bw_hi, SC_UNIT_BYTE_RATE, 0, NOLIM,
	    KF_MIN_OPEN, "bandwidth search, high end"),
	DBL("breakeven", "budget_min", model.be_budget_lo, SC_UNIT_FLOP_RATE, 0, NOLIM,
	    KF_MIN_OPEN, "budget search, low end"),
	DBL("breakeven", "budget_max", model.be_budget_hi, SC_UNIT_FLOP_RATE, 0, NOLIM,
	    KF_MIN_OPEN, "budget search, high end"),
	DBL("breakeven", "tolerance", model.be_rtol, SC_UNIT_NUMBER, 0, 0.1,
	    KF_MIN_OPEN | KF_MAX_OPEN, "relative tolerance of the bisection"),

	OTHER("report", "variants", KT_VARIANTS, variants, 0, "variants to report"),
	OTHER("report", "budgets", KT_BUDGETS, budgets, 0, "module budgets to report"),
};
#define N_KEYS (sizeof(keys) / sizeof(keys[0]))

/* ------------------------------------------------------------------------------------------ */
/* Names: sections, keys, suggestions */

int
sc_section_find(const char *name)
{
	unsigned int i;

	for (i = 0; i < N_SECTIONS; i++)
		if (strcmp(sections[i].name, name) == 0)
			return (int)i;
	return -1;
}

const struct sc_key *
sc_key_find(const char *sec, const char *name)
{
	unsigned int i;

	for (i = 0; i < N_KEYS; i++)
		if (strcmp(keys[i].section, sec) == 0 &&
		    (strcmp(keys[i].name, name) == 0 ||
		     (keys[i].alias != NULL && strcmp(keys[i].alias, name) == 0)))
			return &keys[i];
	return NULL;
}

static unsigned int
levenshtein(const char *a, const char *b)
{
	unsigned int row[CFG_NAME_LEN + 1], i, j, diag, up, la = strlen(a), lb = strlen(b);

	if (la > CFG_NAME_LEN || lb > CFG_NAME_LEN)
		return UINT32_MAX;
	for (j = 0; j <= lb; j++)
		row[j] = j;
	for (i = 1; i <= la; i++) {
		diag = row[0];
		row[0] = i;
		for (j = 1; j <= lb; j++) {
			up = row[j];
			row[j] = diag + (a[i - 1] != b[j - 1]);
			if (up + 1 < row[j])
				row[j] = up + 1;
			if (row[j - 1] + 1 < row[j])
				row[j] = row[j - 1] + 1;
			diag = up;
		}
	}
	return row[lb];
}

/* The closest of @p names to @p s if within 2 edits (and fewer edits than s has characters). */
static const char *
closest(const char *s, const char *const *names, unsigned int n)
{
	unsigned int i, d, best_d = 3;
	const char *best = NULL;

	for (i = 0; i < n; i++) {
		if (names[i] == NULL)
			continue;
		d = levenshtein(s, names[i]);
		if (d < best_d && d < strlen(s)) {
			best_d = d;
			best = names[i];
		}
	}
	return best;
}

/* "; did you mean [wan]? (sections: ...)" */
void
sc_section_hint(const char *name, char *buf, size_t len)
{
	const char *names[N_SECTIONS];
	const char *near;
	size_t used;
	unsigned int i;

	for (i = 0; i < N_SECTIONS; i++)
		names[i] = sections[i].name;
	near = closest(name, names, N_SECTIONS);
	used = (size_t)snprintf(buf, len, "%s%s%s(sections:", near != NULL ? "; did you mean [" : "",
				near != NULL ? near : "", near != NULL ? "]? " : " ");
	for (i = 0; i < N_SECTIONS && used < len; i++)
		used += (size_t)snprintf(buf + used, len - used, "%s%s", i == 0 ? " " : ", ",
					 sections[i].name);
	if (used < len)
		snprintf(buf + used, len - used, ")");
}

/* "; did you mean 'bandwidth'? (keys of [wan]: ...)" */
void
sc_key_hint(const char *sec, const char *name, char *buf, size_t len)
{
	const char *names[2 * N_KEYS];
	const char *near, *other = NULL;
	size_t used;
	unsigned int i, n = 0;

	for (i = 0; i < N_KEYS; i++) {
		if (strcmp(keys[i].section, sec) == 0) {
			names[n++] = keys[i].name;
			names[n++] = keys[i].alias;
		} else if (other == NULL && strcmp(keys[i].name, name) == 0) {
			other = keys[i].section;
		}
	}
	near = closest(name, names, n);
	used = 0;
	if (near != NULL)
		used = (size_t)snprintf(buf, len, "; did you mean '%s'?", near);
	else if (other != NULL)
		used = (size_t)snprintf(buf, len, "; '%s' is a key of [%s]", name, other);
	if (used < len)
		used += (size_t)snprintf(buf + used, len - used, " (keys of [%s]:", sec);
	for (i = 0, n = 0; i < N_KEYS && used < len; i++)
		if (strcmp(keys[i].section, sec) == 0)
			used += (size_t)snprintf(buf + used, len - used, "%s%s", n++ == 0 ? " " : ", ",
						 keys[i].name);
	if (used < len)
		snprintf(buf + used, len - used, ")");
}

/* ------------------------------------------------------------------------------------------ */
/* Values: parsed by the kind of key (step 3 of loading) */

static void
range_text(const struct sc_key *def, char *buf, size_t len)
{
	const struct sm_link_preset *pr;
	unsigned int i, n;
	size_t used;

	switch (def->type) {
	case KT_STR:
		snprintf(buf, len, "1 to %zu characters", def->size - 1);
		break;
	case KT_UINT:
		snprintf(buf, len, "%g..%g", def->min, def->max);
		break;
	case KT_DBL:
		if (isinf(def->max))
			snprintf(buf, len, "%s %g", def->flags & KF_MIN_OPEN ? ">" : ">=", def->min);
		else
			snprintf(buf, len, "%c%g, %g%c", def->flags & KF_MIN_OPEN ? '(' : '[',
				 def->min, def->max, def->flags & KF_MAX_OPEN ? ')' : ']');
		break;
	case KT_PRESET:
		pr = sm_link_presets(&n);
		used = 0;
		buf[0] = '\0';
		for (i = 0; i < n && used < len; i++)
			used += (size_t)snprintf(buf + used, len - used, "%s%s", i == 0 ? "" : ", ",
						 pr[i].name);
		break;
	case KT_OPS:
		used = (size_t)snprintf(buf, len, "none, or a list of");
		for (i = 0; i < SM_OP_COUNT && used < len; i++)
			used += (size_t)snprintf(buf + used, len - used, "%s%s", i == 0 ? " " : ", ",
						 sm_op_name((enum sm_op)i));
		break;
	case KT_TABLE:
		snprintf(buf, len, "knob:steps, ... (ascending knobs, 1 to %d entries, "
			 "steps >= 0 or 'never')", SM_TABLE_MAX);
		break;
	case KT_VARIANTS:
		used = (size_t)snprintf(buf, len, "all, none, or a list of");
		for (i = 0; i < SM_VAR_COUNT && used < len; i++)
			used += (size_t)snprintf(buf + used, len - used, "%s%s", i == 0 ? " " : ", ",
						 sm_variant_name((enum sm_variant)i));
		break;
	case KT_BUDGETS:
		used = (size_t)snprintf(buf, len, "all, none, or a list of");
		for (i = 0; i < SM_BUDGET_COUNT && used < len; i++)
			used += (size_t)snprintf(buf + used, len - used, "%s%s", i == 0 ? " " : ", ",
						 sm_budget_name((enum sm_budget)i));
		break;
	}
}

/* The next comma-separated item of *p, trimmed; false at the end of the list. */
static bool
next_item(const char **p, char *item, size_t len)
{
	const char *s = *p, *comma;
	size_t n;

	if (s == NULL)
		return false;
	comma = strchr(s, ',');
	n = comma != NULL ? (size_t)(comma - s) : strlen(s);
	*p = comma != NULL ? comma + 1 : NULL;
	sc_strip(&s, &n);
	snprintf(item, len, "%.*s", (int)n, s);
	return true;
}

static int
parse_mask(const struct sc_key *def, const char *value, unsigned int *mask, char *why,
	   size_t len)
{
	char item[CFG_VALUE_LEN], allowed[256];
	unsigned int m = 0, n = 0, bit, all;
	const char *p = value;
	enum sm_variant v;
	enum sm_budget b;
	enum sm_op op;
	int rc;

	all = def->type == KT_VARIANTS ? (1u << SM_VAR_COUNT) - 1 :
	      def->type == KT_BUDGETS ? (1u << SM_BUDGET_COUNT) - 1 : (1u << SM_OP_COUNT) - 1;
	range_text(def, allowed, sizeof(allowed));
	while (next_item(&p, item, sizeof(item))) {
		n++;
		if (strcasecmp(item, "all") == 0 || strcasecmp(item, "none") == 0) {
			if (n > 1 || p != NULL)
				goto alone;
			*mask = strcasecmp(item, "all") == 0 ? all : 0;
			return 0;
		}
		if (def->type == KT_VARIANTS) {
			rc = sm_variant_parse(item, &v);
			bit = 1u << v;
		} else if (def->type == KT_BUDGETS) {
			rc = sm_budget_parse(item, &b);
			bit = 1u << b;
		} else {
			rc = sm_op_parse(item, &op);
			bit = 1u << op;
		}
		if (item[0] == '\0') {
			snprintf(why, len, "empty item in the list (allowed: %s)", allowed);
			return -EINVAL;
		}
		if (rc != 0) {
			snprintf(why, len, "unknown %s '%s' (allowed: %s)",
				 def->type == KT_VARIANTS ? "variant" :
				 def->type == KT_BUDGETS ? "budget" : "op", item, allowed);
			return -EINVAL;
		}
		if (m & bit) {
			snprintf(why, len, "'%s' listed twice (allowed: %s)", item, allowed);
			return -EINVAL;
		}
		m |= bit;
	}
	*mask = m;
	return 0;
alone:
	snprintf(why, len, "'%s' must stand alone (allowed: %s)", item, allowed);
	return -EINVAL;
}

static int
parse_table(const char *value, struct sm_steps_table *t, char *why, size_t len)
{
	char item[CFG_VALUE_LEN], msg[512], *colon;
	struct sm_steps_table tab;
	const char *p = value;
	double k, st;

	memset(&tab, 0, sizeof(tab));
	while (next_item(&p, item, sizeof(item))) {
		colon = strchr(item, ':');
		if (colon == NULL) {
			snprintf(why, len, "entry '%s': expected knob:steps, e.g. '8:1800'", item);
			return -EINVAL;
		}
		*colon = '\0';
		if (tab.n == SM_TABLE_MAX) {
			snprintf(why, len, "more than %d entries", SM_TABLE_MAX);
			return -EINVAL;
		}
		if (sc_unit_parse(SC_UNIT_NUMBER, item, &k, msg, sizeof(msg)) != 0) {
			snprintf(why, len, "entry %u: knob %s", tab.n + 1, msg);
			return -EINVAL;
		}
		if (strcasecmp(colon + 1, "never") == 0) {
			st = 0.0;
		} else if (sc_unit_parse(SC_UNIT_NUMBER, colon + 1, &st, msg, sizeof(msg)) != 0 ||
			   !(st >= 0.0)) {
			snprintf(why, len, "entry '%s:%s': steps must be a number >= 0 or 'never' "
				 "(0 = never reaches the target)", item, colon + 1);
			return -EINVAL;
		}
		if (tab.n > 0 && !(k > tab.key[tab.n - 1])) {
			snprintf(why, len, "knobs must ascend: %g after %g", k, tab.key[tab.n - 1]);
			return -EINVAL;
		}
		tab.key[tab.n] = k;
		tab.steps[tab.n] = st;
		tab.n++;
	}
	memcpy(t, &tab, sizeof(tab));
	return 0;
}

static bool
in_range(const struct sc_key *def, double x)
{
	bool lo = def->flags & KF_MIN_OPEN ? x > def->min : x >= def->min;
	bool hi = def->flags & KF_MAX_OPEN ? x < def->max : x <= def->max;

	return lo && hi;
}

/* Parse @p value into the field of @p t that @p def names; @p why gets the reason. */
int
sc_key_parse(const struct sc_key *def, const char *value, struct sc_scenario *t, char *why,
	     size_t len)
{
	char *field = (char *)t + def->off, range[512];
	const struct sm_link_preset *pr;
	struct sm_link *link;
	double x;

	switch (def->type) {
	case KT_STR:
		if (strlen(value) >= def->size) {
			snprintf(why, len, "too long (%zu characters, at most %zu)", strlen(value),
				 def->size - 1);
			return -EINVAL;
		}
		memset(field, 0, def->size);
		memcpy(field, value, strlen(value));
		return 0;
	case KT_UINT:
	case KT_DBL:
		if (sc_unit_parse(def->unit, value, &x, why, len) != 0)
			return -EINVAL;
		if (!in_range(def, x)) {
			range_text(def, range, sizeof(range));
			snprintf(why, len, "out of range (allowed: %s)", range);
			return -EINVAL;
		}
		if (def->type == KT_UINT)
			*(unsigned int *)(void *)field = (unsigned int)x;
		else
			*(double *)(void *)field = x;
		return 0;
	case KT_PRESET:
		pr = sm_link_preset_find(value);
		if (pr == NULL) {
			range_text(def, range, sizeof(range));
			snprintf(why, len, "unknown preset (allowed: %s)", range);
			return -EINVAL;
		}
		link = (struct sm_link *)(void *)field;
		link->bw = pr->link.bw;
		link->lat = pr->link.lat;
		link->pj_per_bit = pr->link.pj_per_bit;
		return 0;
	case KT_OPS:
	case KT_VARIANTS:
	case KT_BUDGETS:
		return parse_mask(def, value, (unsigned int *)(void *)field, why, len);
	case KT_TABLE:
		return parse_table(value, (struct sm_steps_table *)(void *)field, why, len);
	}
	return -EINVAL;
}

/* ------------------------------------------------------------------------------------------ */
/* Dump and key listing */

static void
mask_text(const struct sc_key *def, unsigned int m, char *buf, size_t len)
{
	unsigned int i, n, all;
	size_t used = 0;
	const char *name;

	n = def->type == KT_VARIANTS ? SM_VAR_COUNT :
	    def->type == KT_BUDGETS ? SM_BUDGET_COUNT : SM_OP_COUNT;
	all = (1u << n) - 1;
	buf[0] = '\0';
	if ((m & all) == 0 || ((m & all) == all && def->type != KT_OPS)) {
		snprintf(buf, len, "%s", (m & all) == 0 ? "none" : "all");
		return;
	}
	for (i = 0; i < n && used < len; i++) {
		if (!(m & (1u << i)))
			continue;
		name = def->type == KT_VARIANTS ? sm_variant_name((enum sm_variant)i) :
		       def->type == KT_BUDGETS ? sm_budget_name((enum sm_budget)i) :
		       sm_op_name((enum sm_op)i);
		used += (size_t)snprintf(buf + used, len - used, "%s%s", used == 0 ? "" : ", ",
					 name);
	}
}

/* The value of @p def in @p s as a scenario file writes it; 0, or -EINVAL if it cannot be. */
static int
format_value(const struct sc_key *def, const struct sc_scenario *s, char *buf, size_t len)
{
	const char *field = (const char *)s + def->off;
	const struct sm_steps_table *tab;
	const struct sm_link_preset *pr;
	size_t used = 0, i, fl;
	char a[SC_UNIT_FMT_LEN], b[SC_UNIT_FMT_LEN];
	unsigned int n, j;

	buf[0] = '\0';
	switch (def->type) {
	case KT_STR:
		fl = strnlen(field, def->size);
		for (i = 0; i < fl && used + 3 < len; i++) {
			if ((unsigned char)field[i] < 0x20 || field[i] == 0x7f)
				return -EINVAL;
			if (field[i] == COMMENT)
				buf[used++] = '\\';
			buf[used++] = field[i];
		}
		buf[used] = '\0';
		return i == fl && fl < def->size ? 0 : -EINVAL;
	case KT_UINT:
		snprintf(buf, len, "%u", *(const unsigned int *)(const void *)field);
		return 0;
	case KT_DBL:
		return sc_unit_format(def->unit, *(const double *)(const void *)field, buf, len);
	case KT_PRESET:
		pr = sm_link_presets(&n);
		for (j = 0; j < n; j++)
			if (memcmp(&pr[j].link, field, sizeof(pr[j].link)) == 0)
				break;
		snprintf(buf, len, "%s", j < n ? pr[j].name : "");
		return 0;
	case KT_OPS:
	case KT_VARIANTS:
	case KT_BUDGETS:
		mask_text(def, *(const unsigned int *)(const void *)field, buf, len);
		return 0;
	case KT_TABLE:
		tab = (const struct sm_steps_table *)(const void *)field;
		if (tab->n > SM_TABLE_MAX)
			return -EINVAL;
		for (j = 0; j < tab->n && used < len; j++) {
			if (sc_unit_format(SC_UNIT_NUMBER, tab->key[j], a, sizeof(a)) != 0 ||
			    sc_unit_format(SC_UNIT_NUMBER, tab->steps[j], b, sizeof(b)) != 0)
				return -EINVAL;
			used += (size_t)snprintf(buf + used, len - used, "%s%s:%s",
						 j == 0 ? "" : ", ", a,
						 tab->steps[j] == 0.0 && !signbit(tab->steps[j]) ?
						 "never" : b);
		}
		return used < len ? 0 : -EINVAL;
	}
	return -EINVAL;
}

int
sc_scenario_dump(const struct sc_scenario *s, FILE *f)
{
	char buf[2 * CFG_VALUE_LEN];
	const char *last = NULL;
	unsigned int i;

	if (s == NULL || f == NULL)
		return -EINVAL;
	/* Format every value first: write nothing for a struct that would not load back. */
	for (i = 0; i < N_KEYS; i++)
		if (!(keys[i].flags & KF_NO_DUMP) &&
		    (format_value(&keys[i], s, buf, sizeof(buf)) != 0 || buf[0] == '\0' ||
		     strlen(buf) >= CFG_VALUE_LEN))
			return -EINVAL;

	fprintf(f, "; syncemu scenario, written by sc_scenario_dump(): every key, with units.\n");
	if (s->path[0] != '\0')
		fprintf(f, "; loaded from %.*s\n", (int)strnlen(s->path, sizeof(s->path) - 1),
			s->path);
	for (i = 0; i < N_KEYS; i++) {
		const struct sc_key *k = &keys[i];

		if (last == NULL || strcmp(last, k->section) != 0) {
			last = k->section;
			fprintf(f, "\n[%s]\n; %s\n", k->section,
				sections[sc_section_find(k->section)].help);
		}
		format_value(k, s, buf, sizeof(buf));
		if (k->flags & KF_NO_DUMP) {
			if (k->type == KT_PRESET && buf[0] != '\0')
				fprintf(f, "; the values below are those of preset %s\n", buf);
			continue;
		}
		fprintf(f, "%s = %s\n", k->name, buf);
	}
	fflush(f);
	return ferror(f) ? -EIO : 0;
}

static const char *
type_text(const struct sc_key *k)
{
	switch (k->type) {
	case KT_STR:
		return "text";
	case KT_UINT:
		return "count";
	case KT_DBL:
		return sc_unit_kind_name(k->unit);
	case KT_PRESET:
		return "link preset";
	case KT_OPS:
		return "op list";
	case KT_TABLE:
		return "steps table";
	case KT_VARIANTS:
		return "variant list";
	case KT_BUDGETS:
		return "budget list";
	}
	return "?";
}

void
sc_scenario_keys(FILE *f, int markdown)
{
	char key[2 * CFG_NAME_LEN + 16], def[2 * CFG_VALUE_LEN], range[512], units[512];
	bool used[SC_UNIT_KIND_COUNT] = { false };
	struct sc_scenario d;
	unsigned int i;

	if (f == NULL)
		return;
	sc_scenario_default(&d);
	if (markdown)
		fprintf(f, "| Key | Type | Default | Allowed | Description |\n"
			"|-----|------|---------|---------|-------------|\n");
	else
		fprintf(f, "%-26s %-15s %-20s %s\n", "KEY", "TYPE", "DEFAULT",
			"DESCRIPTION (ALLOWED)");
	for (i = 0; i < N_KEYS; i++) {
		const struct sc_key *k = &keys[i];

		snprintf(key, sizeof(key), "%s.%s%s%s%s", k->section, k->name,
			 k->alias != NULL ? " (or " : "", k->alias != NULL ? k->alias : "",
			 k->alias != NULL ? ")" : "");
		if (format_value(k, &d, def, sizeof(def)) != 0 || def[0] == '\0')
			snprintf(def, sizeof(def), "-");
		range_text(k, range, sizeof(range));
		if (k->type == KT_DBL)
			used[k->unit] = true;
		if (markdown)
			fprintf(f, "| `%s` | %s | %s | %s | %s |\n", key, type_text(k), def, range,
				k->help);
		else
			fprintf(f, "%-26s %-15s %-20s %s (%s)\n", key, type_text(k), def, k->help,
				range);
	}
	fprintf(f, markdown ? "\n| Type | Stored in | Units |\n|------|-----------|-------|\n" :
		"\nUNITS (at most one space between number and unit):\n");
	for (i = 0; i < SC_UNIT_KIND_COUNT; i++) {
		if (!used[i])
			continue;
		sc_unit_allowed((enum sc_unit_kind)i, units, sizeof(units));
		if (markdown)
			fprintf(f, "| %s | %s | %s |\n", sc_unit_kind_name((enum sc_unit_kind)i),
				sc_unit_base((enum sc_unit_kind)i)[0] != '\0' ?
				sc_unit_base((enum sc_unit_kind)i) : "-", units);
		else
			fprintf(f, "  %-16s %s\n", sc_unit_kind_name((enum sc_unit_kind)i), units);
	}
}
