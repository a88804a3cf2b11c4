/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Private to the scenario loader: what scenario.c, scenario_lint.c and scenario_keys.c share.
 *
 *   scenario_lint.c  the strict line pass (syntax, one line at a time) and the record of where
 *                    every section and key came from (struct origin), plus the text helpers the
 *                    other two reuse;
 *   scenario_keys.c  the key table, name lookup with suggestions, sc_scenario_keys() and
 *                    sc_scenario_dump();
 *   scenario_values.c  a value per kind of key: parsing, formatting (for the dump) and the text
 *                    of what is allowed;
 *   scenario_limits.c  the limits of the widths values go into (a time in picoseconds, a round's
 *                    frames against the 32-bit sequence number, the run's virtual time);
 *   scenario.c       loading: the overrides, the table applied to a temporary, the whole-scenario
 *                    check, then the commit.
 *
 * Nothing here is part of the public API (scenario.h).
 */
#ifndef SC_SCENARIO_IMPL_H
#define SC_SCENARIO_IMPL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include <rte_cfgfile.h>

#include "scenario.h"
#include "units.h"

/* Starts a comment in a scenario file, up to the end of the line; "\;" is a literal ';'. */
#define COMMENT ';'

/** How a key's value is parsed and where it goes. */
enum key_type {
	KT_STR,		/**< char[size] */
	KT_UINT,	/**< uint32_t: a count, or whole bytes with SC_UNIT_BYTES */
	KT_U64,		/**< uint64_t, decimal or 0x hex, the whole range */
	KT_DBL,		/**< double with a unit */
	KT_ENUM,	/**< an enum (int-sized): one of the names of the key's table */
	KT_NAMES,	/**< char[size]: a comma list of the key's names, stored as "a,b" */
	KT_PRESET,	/**< a link preset name; fills the struct sm_link at off */
	KT_OPS,		/**< comma list of sm_op names: mask of 1u << op */
	KT_TABLE,	/**< struct sm_steps_table: "knob:steps, ..." */
	KT_VARIANTS,	/**< comma list of variants, or "all" */
	KT_BUDGETS,	/**< comma list of budgets, or "all" */
};

#define KF_MIN_OPEN 1u	/**< value must be > min (else >= min) */
#define KF_MAX_OPEN 2u	/**< value must be < max (else <= max) */
#define KF_NO_DUMP 4u	/**< not written by the dump (a preset: its fields are) */
#define KF_QUIET 256u	/**< KT_ENUM: written by the dump only when not the value 0 (a
			 *   scenario without it is written as before it was a key) */
#define KF_AUTO 16u	/**< KT_UINT: "auto" is 0 (chosen at run time), and 0 is written "auto";
			 *   KT_DBL: "auto" is SC_AUTO (follows another key) */
#define KF_IMPAIR 64u	/**< KT_STR: an impairment (control/impair.h), or "" */
#define KF_IMPAIR_LINK 128u	/**< KT_STR: "LINK SPEC", or "" */
#define KF_HOW 32u	/**< how the run is spread over cores, not what it emulates: left out of
			 *   sc_scenario_dump_results() */
#define KF_EMPTY_OK 8u	/**< KT_STR: "" (only the default: a file cannot write it) is valid;
			 *   the dump writes the key as a comment */

/** A name of a KT_ENUM or KT_NAMES key; tables end with a NULL name. */
struct sc_key_name {
	const char *name;
	int value;		/**< KT_ENUM: the enum value; KT_NAMES: SC_NAME_* flags */
};

#define SC_NAME_ALONE 1	/**< KT_NAMES: the name must stand alone ("all", "none") */

/** One key of a scenario file. */
struct sc_key {
	const char *section;
	const char *name;
	const char *alias;	/**< another accepted name, or NULL */
	enum key_type type;
	enum sc_unit_kind unit;	/**< for KT_UINT (SC_UNIT_COUNT or _BYTES) and KT_DBL */
	size_t off;		/**< offsetof(struct sc_scenario, field) */
	size_t size;		/**< sizeof(field), checked at compile time for the number types */
	double min, max;	/**< KT_UINT, KT_DBL */
	unsigned int flags;	/**< KF_* */
	const char *help;
	const struct sc_key_name *names; /**< KT_ENUM, KT_NAMES: NULL-terminated table */
};

/** Where a section or key came from: a line of the file, or an override. */
struct origin {
	char sec[CFG_NAME_LEN];
	char key[CFG_NAME_LEN];		/**< "" for a section */
	unsigned int line;		/**< 0 for an override */
	const char *set;		/**< the override's text, or NULL */
	const char *from;		/**< the option the override came from ("-n"), or NULL
					 *   (an explicit --set) */
};

/** State of one load. */
struct loader {
	const char *path;
	const char *const *overrides;	/**< the --set texts, in order */
	unsigned int n_overrides;
	struct origin *orig;		/**< every section and key seen */
	unsigned int n_orig, cap_orig;
	char *err;
	size_t errlen;
	bool link;			/**< a bridge's link alone: no paths between workers */
};

/* scenario.c */

/** Write the error message of @p ld (a no-op without an error buffer). */
void
sc_err(struct loader *ld, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/**
 * "<where>: [section] key = 'value': <reason>" at the line (or override) that set @p name of
 * @p sec; -EINVAL.
 */
int
sc_key_err(struct loader *ld, const char *sec, const char *name, const char *value,
	   const char *fmt, ...) __attribute__((format(printf, 5, 6)));

/* scenario_limits.c */

/** The contenders a run covers (0: the scenario's [report] variants and budgets). */
struct sc_run_sel {
	unsigned int variants, budgets;
};

/**
 * The limits of the widths the values go into: the model's, and with @p run also a run's (@p early:
 * only those to check before a link-kernel program first runs).  0, or -EINVAL with a message
 * naming the key, its value, what overflows and the largest (or smallest) value that works.
 */
int
sc_limits_check(struct loader *ld, struct rte_cfgfile *cfg, const struct sc_scenario *t,
		const struct sc_run_sel *run, bool early);

/* scenario_lint.c */

/** Strip blanks at both ends of [*s, *s + *n) as rte_cfgfile does. */
void
sc_strip(const char **s, size_t *n);

/** NULL if @p n bytes at @p s are text (UTF-8, no control characters but tab), else why not. */
const char *
sc_text_check(const char *s, size_t n, size_t *col);

/** Whether @p n bytes at @p s are a section name (@p key false) or a key name (@p key true). */
bool
sc_name_ok(const char *s, size_t n, bool key);

/** The origin of [@p sec] (@p key "") or of @p key in it, or NULL. */
struct origin *
sc_origin_find(struct loader *ld, const char *sec, const char *key);

/** Record an origin: @p line of the file, or (line 0) the override @p set.  0 or -ENOMEM. */
int
sc_origin_add(struct loader *ld, const char *sec, const char *key, unsigned int line,
	      const char *set);

/** Step 1: check @p f line by line and record every section and key.  0, -EINVAL or -EIO. */
int
sc_lines_check(struct loader *ld, FILE *f);

/** Whether @p cfg holds what sc_lines_check() saw.  0, or -EIO if the file changed. */
int
sc_cfg_matches(struct loader *ld, struct rte_cfgfile *cfg);

/* scenario_keys.c */

/** Index of section @p name, or -1 if there is no such section. */
int
sc_section_find(const char *name);

/** The key @p name (or its alias) of section @p sec, or NULL. */
const struct sc_key *
sc_key_find(const char *sec, const char *name);

/** "; did you mean [wan]? (sections: ...)" for an unknown section @p name. */
void
sc_section_hint(const char *name, char *buf, size_t len);

/** "; did you mean 'bandwidth'? (keys of [wan]: ...)" for an unknown key @p name of @p sec. */
void
sc_key_hint(const char *sec, const char *name, char *buf, size_t len);

/* scenario_values.c */

/** Parse @p value into the field of @p t that @p def names.  0, or -EINVAL and @p why. */
int
sc_key_parse(const struct sc_key *def, const char *value, struct sc_scenario *t, char *why,
	     size_t len);

/**
 * The value of @p def in @p s as a scenario file writes it ("" for an unset KF_EMPTY_OK text).
 * 0, or -EINVAL if it cannot be written so that it loads back.
 */
int
sc_key_format(const struct sc_key *def, const struct sc_scenario *s, char *buf, size_t len);

/** What @p def allows, e.g. "1..64", "> 0", "payload, wire". */
void
sc_key_range(const struct sc_key *def, char *buf, size_t len);

/** The kind of @p def for the key listing, e.g. "count", "byte rate", "choice". */
const char *
sc_key_type(const struct sc_key *def);

#endif /* SC_SCENARIO_IMPL_H */
