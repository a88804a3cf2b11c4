/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Scenario files: a value per kind of key (enum key_type).
 *
 * sc_key_parse() reads a value into its field (step 3 of loading), sc_key_format() writes it
 * back as a scenario file does (the dump, and the defaults of the key listing), and
 * sc_key_range() says what a key allows (error messages and the listing).  For every kind,
 * parsing what sc_key_format() wrote gives back the same bytes.
 *
 * Number fields are written at their own width: KT_UINT a uint32_t, KT_U64 a uint64_t, KT_ENUM
 * an int-sized enum; the key table (scenario_keys.c) checks each width at compile time.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <rte_cfgfile.h>

#include "impair_spec.h"
#include "scenario_impl.h"
#include "../models/kernel.h"
#include "../models/presets.h"
#include "../models/variant.h"

/* Longest KT_NAMES field the parser normalises into. */
#define NAMES_MAX CFG_VALUE_LEN

/* ------------------------------------------------------------------------------------------ */
/* What a key allows */

/* "a, b, c" from the names of @p def */
static void
names_text(const struct sc_key *def, char *buf, size_t len)
{
	const struct sc_key_name *n;
	size_t used = 0;

	buf[0] = '\0';
	for (n = def->names; n != NULL && n->name != NULL && used < len; n++)
		used += (size_t)snprintf(buf + used, len - used, "%s%s",
					 n == def->names ? "" : ", ", n->name);
}

void
sc_key_range(const struct sc_key *def, char *buf, size_t len)
{
	const struct sm_link_preset *pr;
	unsigned int i, n;
	size_t used;

	switch (def->type) {
	case KT_STR:
		/* a line of a file holds at most CFG_VALUE_LEN - 1 characters of value */
		snprintf(buf, len, "%s to %zu characters", def->flags & KF_EMPTY_OK ? "0" : "1",
			 def->size < CFG_VALUE_LEN ? def->size - 1 : (size_t)CFG_VALUE_LEN - 1);
		break;
	case KT_UINT:
		snprintf(buf, len, "%.0f..%.0f%s", def->min, def->max,
			 def->unit == SC_UNIT_BYTES ? " B, whole bytes" : "");
		break;
	case KT_U64:
		snprintf(buf, len, "0..%" PRIu64 ", decimal or 0x hex", UINT64_MAX);
		break;
	case KT_DBL:
		if (isinf(def->max))
			snprintf(buf, len, "%s %g%s", def->flags & KF_MIN_OPEN ? ">" : ">=", def->min,
				 def->flags & KF_AUTO ? ", or auto" : "");
		else
			snprintf(buf, len, "%c%g, %g%c%s", def->flags & KF_MIN_OPEN ? '(' : '[',
				 def->min, def->max, def->flags & KF_MAX_OPEN ? ')' : ']',
				 def->flags & KF_AUTO ? ", or auto" : "");
		break;
	case KT_ENUM:
		names_text(def, buf, len);
		break;
	case KT_NAMES:
		used = (size_t)snprintf(buf, len, "a comma list of ");
		if (used < len)
			names_text(def, buf + used, len - used);
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

const char *
sc_key_type(const struct sc_key *def)
{
	switch (def->type) {
	case KT_STR:
		return "text";
	case KT_UINT:
		return def->unit == SC_UNIT_COUNT ? "count" : sc_unit_kind_name(def->unit);
	case KT_U64:
		return "64-bit integer";
	case KT_DBL:
		return sc_unit_kind_name(def->unit);
	case KT_ENUM:
		return "choice";
	case KT_NAMES:
		return "name list";
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

/* ------------------------------------------------------------------------------------------ */
/* Parsing */

/* An [impair] key's text: the impairment it names reads (impair.h); "" is none. */
static int
impair_check(const struct sc_key *def, const char *value, char *why, size_t len)
{
	struct sm_impair im;
	char name[SC_LINK_NAME];

	if (value[0] == '\0')
		return 0;
	if (def->flags & KF_IMPAIR)
		return sc_impair_parse(value, &im, why, len);
	if (def->flags & KF_IMPAIR_LINK)
		return sc_impair_parse_link(value, name, sizeof(name), &im, why, len);
	return 0;
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

/* The bit of one item of a KT_VARIANTS, KT_BUDGETS or KT_OPS list; -EINVAL if it names none. */
static int
mask_item(const struct sc_key *def, const char *item, unsigned int *bit)
{
	enum sm_variant v;
	enum sm_budget b;
	enum sm_op op;

	/* each parser writes its result only on success: read it only then */
	if (def->type == KT_VARIANTS) {
		if (sm_variant_parse(item, &v) != 0)
			return -EINVAL;
		*bit = 1u << v;
	} else if (def->type == KT_BUDGETS) {
		if (sm_budget_parse(item, &b) != 0)
			return -EINVAL;
		*bit = 1u << b;
	} else {
		if (sm_op_parse(item, &op) != 0)
			return -EINVAL;
		*bit = 1u << op;
	}
	return 0;
}

static int
parse_mask(const struct sc_key *def, const char *value, unsigned int *mask, char *why,
	   size_t len)
{
	char item[CFG_VALUE_LEN], allowed[256];
	unsigned int m = 0, n = 0, bit, all;
	const char *p = value;

	all = def->type == KT_VARIANTS ? (1u << SM_VAR_COUNT) - 1 :
	      def->type == KT_BUDGETS ? (1u << SM_BUDGET_COUNT) - 1 : (1u << SM_OP_COUNT) - 1;
	sc_key_range(def, allowed, sizeof(allowed));
	while (next_item(&p, item, sizeof(item))) {
		n++;
		if (strcasecmp(item, "all") == 0 || strcasecmp(item, "none") == 0) {
			if (n > 1 || p != NULL)
				goto alone;
			*mask = strcasecmp(item, "all") == 0 ? all : 0;
			return 0;
		}
		if (item[0] == '\0') {
			snprintf(why, len, "empty item in the list (allowed: %s)", allowed);
			return -EINVAL;
		}
		if (mask_item(def, item, &bit) != 0) {
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

/* An unsigned 64-bit integer, decimal or 0x hex, exactly: no sign, blank, fraction or exponent. */
static int
parse_u64(const struct sc_key *def, const char *value, uint64_t *u, char *why, size_t len)
{
	bool hex = value[0] == '0' && (value[1] == 'x' || value[1] == 'X');
	const char *digits = hex ? value + 2 : value;
	char range[128], *end;
	unsigned long long x;
	size_t n;

	sc_key_range(def, range, sizeof(range));
	if (value[0] == '-' || value[0] == '+') {
		snprintf(why, len, "no sign allowed (allowed: %s)", range);
		return -EINVAL;
	}
	n = strspn(digits, hex ? "0123456789abcdefABCDEF" : "0123456789");
	if (n == 0 || digits[n] != '\0') {
		snprintf(why, len, "not a %s integer (allowed: %s)", hex ? "0x hex" : "decimal",
			 range);
		return -EINVAL;
	}
	errno = 0;
	x = strtoull(digits, &end, hex ? 16 : 10);
	if (errno == ERANGE) {
		snprintf(why, len, "too large (allowed: %s)", range);
		return -EINVAL;
	}
	if (errno != 0 || *end != '\0') {
		snprintf(why, len, "not an integer (allowed: %s)", range);
		return -EINVAL;
	}
	*u = (uint64_t)x;
	return 0;
}

static int
parse_enum(const struct sc_key *def, const char *value, int *v, char *why, size_t len)
{
	const struct sc_key_name *n;
	char range[256];

	for (n = def->names; n->name != NULL; n++) {
		if (strcmp(n->name, value) == 0) {
			*v = n->value;
			return 0;
		}
	}
	sc_key_range(def, range, sizeof(range));
	snprintf(why, len, "unknown value (allowed: %s)", range);
	return -EINVAL;
}

/* A comma list of @p def's names into "a,b" in @p out (@p size bytes). */
static int
parse_names(const struct sc_key *def, const char *value, char *out, size_t size, char *why,
	    size_t len)
{
	char item[CFG_VALUE_LEN], range[256], buf[NAMES_MAX];
	const struct sc_key_name *nm;
	const char *p = value;
	uint64_t seen = 0;
	size_t used = 0;
	unsigned int i, n = 0;

	sc_key_range(def, range, sizeof(range));
	while (next_item(&p, item, sizeof(item))) {
		n++;
		if (item[0] == '\0') {
			snprintf(why, len, "empty item in the list (allowed: %s)", range);
			return -EINVAL;
		}
		for (i = 0, nm = def->names; nm->name != NULL; i++, nm++)
			if (strcmp(nm->name, item) == 0)
				break;
		if (nm->name == NULL || i >= 64) {
			snprintf(why, len, "unknown name '%s' (allowed: %s)", item, range);
			return -EINVAL;
		}
		if (seen & (UINT64_C(1) << i)) {
			snprintf(why, len, "'%s' listed twice (allowed: %s)", item, range);
			return -EINVAL;
		}
		seen |= UINT64_C(1) << i;
		if ((nm->value & SC_NAME_ALONE) && (n > 1 || p != NULL)) {
			snprintf(why, len, "'%s' must stand alone (allowed: %s)", item, range);
			return -EINVAL;
		}
		used += (size_t)snprintf(buf + used, sizeof(buf) - used, "%s%s", n > 1 ? "," : "",
					 item);
		if (used >= sizeof(buf) || used >= size) {
			snprintf(why, len, "list too long (at most %zu characters)", size - 1);
			return -EINVAL;
		}
	}
	memset(out, 0, size);
	memcpy(out, buf, used);
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
	uint32_t u32;
	uint64_t u64;
	double x;
	int v;

	switch (def->type) {
	case KT_STR: {
		size_t n = strlen(value), esc = n, i;

		for (i = 0; i < n; i++)
			esc += value[i] == COMMENT;	/* a file writes it as "\;" */
		if (n >= def->size) {
			snprintf(why, len, "too long (%zu characters, at most %zu)", n, def->size - 1);
			return -EINVAL;
		}
		if (esc >= CFG_VALUE_LEN) {
			/* what a dump writes must load back: a line's value is that long at most */
			snprintf(why, len, "too long as a file writes it (%zu characters with each ';' "
				 "as '\\;', at most %d)", esc, CFG_VALUE_LEN - 1);
			return -EINVAL;
		}		if (impair_check(def, value, why, len) != 0)
			return -EINVAL;
	}
		memset(field, 0, def->size);
		memcpy(field, value, strlen(value));
		return 0;
	case KT_UINT:
		if ((def->flags & KF_AUTO) && strcmp(value, "auto") == 0) {
			u32 = 0;
			memcpy(field, &u32, sizeof(u32));
			return 0;
		}
		/* fall through */
	case KT_DBL:
		if (def->type == KT_DBL && (def->flags & KF_AUTO) && strcmp(value, "auto") == 0) {
			x = SC_AUTO;
			memcpy(field, &x, sizeof(x));
			return 0;
		}
		/* whole bytes (run.mtu, run.frame_payload) may also be written without the unit */
		if ((def->type != KT_UINT || def->unit != SC_UNIT_BYTES ||
		     sc_unit_parse(SC_UNIT_NUMBER, value, &x, NULL, 0) != 0) &&
		    sc_unit_parse(def->unit, value, &x, why, len) != 0)
			return -EINVAL;
		if (!in_range(def, x)) {
			sc_key_range(def, range, sizeof(range));
			snprintf(why, len, "out of range (allowed: %s)", range);
			return -EINVAL;
		}
		if (def->type == KT_DBL) {
			memcpy(field, &x, sizeof(x));
			return 0;
		}
		if (x != floor(x)) {
			sc_key_range(def, range, sizeof(range));
			snprintf(why, len, "%.17g B is not a whole number of bytes (allowed: %s)",
				 x, range);
			return -EINVAL;
		}
		u32 = (uint32_t)x;
		memcpy(field, &u32, sizeof(u32));
		return 0;
	case KT_U64:
		if (parse_u64(def, value, &u64, why, len) != 0)
			return -EINVAL;
		memcpy(field, &u64, sizeof(u64));
		return 0;
	case KT_ENUM:
		if (parse_enum(def, value, &v, why, len) != 0)
			return -EINVAL;
		memcpy(field, &v, sizeof(v));
		return 0;
	case KT_NAMES:
		return parse_names(def, value, field, def->size, why, len);
	case KT_PRESET:
		pr = sm_link_preset_find(value);
		if (pr == NULL) {
			sc_key_range(def, range, sizeof(range));
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
/* Formatting: the dump and the defaults of the key listing */

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

/* Text as a scenario file writes it: ';' escaped; -EINVAL for a control character (but a tab,
 * which a line may hold inside a value) or no NUL. */
static int
text_format(const char *field, size_t size, char *buf, size_t len)
{
	size_t used = 0, i, fl = strnlen(field, size);

	for (i = 0; i < fl && used + 3 < len; i++) {
		if (((unsigned char)field[i] < 0x20 && field[i] != '\t') || field[i] == 0x7f)
			return -EINVAL;
		if (field[i] == COMMENT)
			buf[used++] = '\\';
		buf[used++] = field[i];
	}
	buf[used] = '\0';
	return i == fl && fl < size ? 0 : -EINVAL;
}

static int
table_format(const struct sm_steps_table *tab, char *buf, size_t len)
{
	char a[SC_UNIT_FMT_LEN], b[SC_UNIT_FMT_LEN];
	size_t used = 0;
	unsigned int j;

	if (tab->n > SM_TABLE_MAX)
		return -EINVAL;
	for (j = 0; j < tab->n && used < len; j++) {
		if (sc_unit_format(SC_UNIT_NUMBER, tab->key[j], a, sizeof(a)) != 0 ||
		    sc_unit_format(SC_UNIT_NUMBER, tab->steps[j], b, sizeof(b)) != 0)
			return -EINVAL;
		used += (size_t)snprintf(buf + used, len - used, "%s%s:%s", j == 0 ? "" : ", ", a,
					 tab->steps[j] == 0.0 && !signbit(tab->steps[j]) ?
					 "never" : b);
	}
	return used < len ? 0 : -EINVAL;
}

int
sc_key_format(const struct sc_key *def, const struct sc_scenario *s, char *buf, size_t len)
{
	const char *field = (const char *)s + def->off;
	const struct sm_link_preset *pr;
	const struct sc_key_name *nm;
	char norm[NAMES_MAX], why[512];
	unsigned int n, j, mask;
	uint32_t u32;
	uint64_t u64;
	double x;
	int v;

	buf[0] = '\0';
	switch (def->type) {
	case KT_STR:
		if (text_format(field, def->size, buf, len) != 0)
			return -EINVAL;
		return buf[0] != '\0' || (def->flags & KF_EMPTY_OK) ? 0 : -EINVAL;
	case KT_UINT:
		memcpy(&u32, field, sizeof(u32));
		if ((def->flags & KF_AUTO) && u32 == 0) {
			snprintf(buf, len, "auto");
			return 0;
		}
		snprintf(buf, len, "%" PRIu32 "%s", u32, def->unit == SC_UNIT_BYTES ? " B" : "");
		return 0;
	case KT_U64:
		memcpy(&u64, field, sizeof(u64));
		snprintf(buf, len, "%" PRIu64, u64);
		return 0;
	case KT_DBL:
		memcpy(&x, field, sizeof(x));
		if ((def->flags & KF_AUTO) && x == SC_AUTO) {
			snprintf(buf, len, "auto");
			return 0;
		}
		return sc_unit_format(def->unit, x, buf, len);
	case KT_ENUM:
		memcpy(&v, field, sizeof(v));
		for (nm = def->names; nm->name != NULL; nm++)
			if (nm->value == v)
				break;
		if (nm->name == NULL)
			return -EINVAL;
		snprintf(buf, len, "%s", nm->name);
		return 0;
	case KT_NAMES:
		/* only a list that parses back to the same text */
		if (text_format(field, def->size, buf, len) != 0 || buf[0] == '\0' ||
		    parse_names(def, buf, norm, sizeof(norm) < def->size ? sizeof(norm) : def->size,
				why, sizeof(why)) != 0 ||
		    strcmp(norm, field) != 0)
			return -EINVAL;
		return 0;
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
		memcpy(&mask, field, sizeof(mask));
		mask_text(def, mask, buf, len);
		return 0;
	case KT_TABLE:
		return table_format((const struct sm_steps_table *)(const void *)field, buf, len);
	}
	return -EINVAL;
}
