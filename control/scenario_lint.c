/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Scenario files, step 1: the strict line pass.
 *
 * rte_cfgfile is lax: it skips lines without '=', keeps duplicate sections, truncates long names
 * and fails silently on a key before any section.  This pass rejects all of those with
 * "file:line: ..." and records the line of every section and key (struct origin), so that later
 * errors can name it.  sc_cfg_matches() then checks that rte_cfgfile stored what this pass saw.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <rte_cfgfile.h>

#include "scenario_impl.h"

/* rte_cfgfile reads lines into a buffer of CFG_NAME_LEN + CFG_VALUE_LEN + 4 bytes with fgets. */
#define LINE_MAX_CHARS (CFG_NAME_LEN + CFG_VALUE_LEN + 2)

/* ------------------------------------------------------------------------------------------ */
/* Origins: where each section and key came from */

struct origin *
sc_origin_find(struct loader *ld, const char *sec, const char *key)
{
	unsigned int i;

	for (i = 0; i < ld->n_orig; i++)
		if (strcmp(ld->orig[i].sec, sec) == 0 && strcmp(ld->orig[i].key, key) == 0)
			return &ld->orig[i];
	return NULL;
}

int
sc_origin_add(struct loader *ld, const char *sec, const char *key, unsigned int line,
	      const char *set)
{
	struct origin *o;

	if (ld->n_orig == ld->cap_orig) {
		unsigned int cap = ld->cap_orig == 0 ? 64 : 2 * ld->cap_orig;

		o = realloc(ld->orig, cap * sizeof(*o));
		if (o == NULL) {
			sc_err(ld, "out of memory");
			return -ENOMEM;
		}
		ld->orig = o;
		ld->cap_orig = cap;
	}
	o = &ld->orig[ld->n_orig++];
	snprintf(o->sec, sizeof(o->sec), "%s", sec);
	snprintf(o->key, sizeof(o->key), "%s", key);
	o->line = line;
	o->set = set;
	o->from = NULL;
	return 0;
}

/* ------------------------------------------------------------------------------------------ */
/* The line pass */

static bool
is_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\v' || c == '\f';
}

/* Strip blanks at both ends of [*s, *s + *n) as rte_cfgfile does. */
void
sc_strip(const char **s, size_t *n)
{
	while (*n > 0 && is_blank((*s)[*n - 1]))
		(*n)--;
	while (*n > 0 && is_blank(**s)) {
		(*s)++;
		(*n)--;
	}
}

/* Text check of @p n bytes: no NUL, no control characters but tab (CR at the end), UTF-8. */
const char *
sc_text_check(const char *s, size_t n, size_t *col)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i = 0, k, len;

	while (i < n) {
		*col = i + 1;
		if (p[i] == 0)
			return "NUL byte (not a text file?)";
		if ((p[i] < 0x20 && p[i] != '\t' && !(p[i] == '\r' && i + 1 == n)) || p[i] == 0x7f)
			return "control character (not a text file?)";
		if (p[i] < 0x80) {
			i++;
			continue;
		}
		len = p[i] >= 0xf0 && p[i] <= 0xf4 ? 4 : p[i] >= 0xe0 ? 3 : p[i] >= 0xc2 ? 2 : 0;
		if (len == 0 || p[i] > 0xf4 || i + len > n)
			return "invalid UTF-8 (not a text file?)";
		for (k = 1; k < len; k++)
			if ((p[i + k] & 0xc0) != 0x80)
				return "invalid UTF-8 (not a text file?)";
		i += len;
	}
	return NULL;
}

bool
sc_name_ok(const char *s, size_t n, bool key)
{
	size_t i;

	for (i = 0; i < n; i++) {
		char c = s[i];

		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		      c == '_' || c == '-' || (key && c == '\'')))
			return false;
	}
	return true;
}

/* One line: @p s of @p n bytes without its newline; @p cur is the current section or "". */
static int
line_check(struct loader *ld, unsigned int lineno, const char *s, size_t n, char *cur)
{
	const char *why, *p, *k, *v, *cut;
	char key[CFG_NAME_LEN];
	struct origin *o;
	size_t col, kn, vn, i, j;

	if (n > LINE_MAX_CHARS) {
		sc_err(ld, "%s:%u: line too long (%zu characters, at most %d)", ld->path, lineno, n,
			LINE_MAX_CHARS);
		return -EINVAL;
	}
	why = sc_text_check(s, n, &col);
	if (why != NULL) {
		sc_err(ld, "%s:%u: column %zu: %s", ld->path, lineno, col, why);
		return -EINVAL;
	}
	/* A comment starts at the first ';' unless that one is escaped as "\;". */
	cut = memchr(s, COMMENT, n);
	if (cut != NULL && (cut == s || cut[-1] != '\\'))
		n = (size_t)(cut - s);
	sc_strip(&s, &n);
	if (n == 0)
		return 0;
	if (s[0] == '#') {
		sc_err(ld, "%s:%u: '#' does not start a comment here; use ';'", ld->path, lineno);
		return -EINVAL;
	}
	if (s[0] == '[') {
		p = memchr(s, ']', n);
		if (p == NULL) {
			sc_err(ld, "%s:%u: missing ']' in section header '%.*s'", ld->path, lineno,
				(int)n, s);
			return -EINVAL;
		}
		if (p != s + n - 1) {
			sc_err(ld, "%s:%u: unexpected text after ']' in '%.*s'", ld->path, lineno,
				(int)n, s);
			return -EINVAL;
		}
		k = s + 1;
		kn = (size_t)(p - k);
		sc_strip(&k, &kn);
		if (kn == 0 || kn >= CFG_NAME_LEN || !sc_name_ok(k, kn, false)) {
			sc_err(ld, "%s:%u: bad section name '%.*s' (1 to %d letters, digits, '_', '-')",
				ld->path, lineno, (int)kn, k, CFG_NAME_LEN - 1);
			return -EINVAL;
		}
		snprintf(cur, CFG_NAME_LEN, "%.*s", (int)kn, k);
		o = sc_origin_find(ld, cur, "");
		if (o != NULL) {
			sc_err(ld, "%s:%u: duplicate section [%s] (first at line %u)", ld->path,
				lineno, cur, o->line);
			return -EINVAL;
		}
		return sc_origin_add(ld, cur, "", lineno, NULL);
	}
	p = memchr(s, '=', n);
	if (p == NULL) {
		sc_err(ld, "%s:%u: missing '=' in '%.*s' (expected 'key = value' or '[section]')",
			ld->path, lineno, (int)n, s);
		return -EINVAL;
	}
	k = s;
	kn = (size_t)(p - s);
	sc_strip(&k, &kn);
	v = p + 1;
	vn = (size_t)(s + n - v);
	sc_strip(&v, &vn);
	/* Length once "\;" is unescaped, as rte_cfgfile stores it. */
	for (i = 0, j = 0; i < vn; i++)
		if (!(v[i] == '\\' && i + 1 < vn && v[i + 1] == COMMENT))
			j++;
	if (kn == 0) {
		sc_err(ld, "%s:%u: empty key before '='", ld->path, lineno);
		return -EINVAL;
	}
	if (cur[0] == '\0') {
		sc_err(ld, "%s:%u: key '%.*s' before any [section]", ld->path, lineno, (int)kn, k);
		return -EINVAL;
	}
	if (kn >= CFG_NAME_LEN || !sc_name_ok(k, kn, true)) {
		sc_err(ld, "%s:%u: [%s] bad key '%.*s' (1 to %d letters, digits, '_', '-', ''')",
			ld->path, lineno, cur, (int)kn, k, CFG_NAME_LEN - 1);
		return -EINVAL;
	}
	if (j == 0) {
		sc_err(ld, "%s:%u: [%s] %.*s: empty value", ld->path, lineno, cur, (int)kn, k);
		return -EINVAL;
	}
	if (j >= CFG_VALUE_LEN) {
		sc_err(ld, "%s:%u: [%s] %.*s: value too long (%zu characters, at most %d)",
			ld->path, lineno, cur, (int)kn, k, j, CFG_VALUE_LEN - 1);
		return -EINVAL;
	}
	snprintf(key, sizeof(key), "%.*s", (int)kn, k);
	o = sc_origin_find(ld, cur, key);
	if (o != NULL) {
		sc_err(ld, "%s:%u: [%s] duplicate key '%s' (first at line %u)", ld->path, lineno,
			cur, key, o->line);
		return -EINVAL;
	}
	return sc_origin_add(ld, cur, key, lineno, NULL);
}

int
sc_lines_check(struct loader *ld, FILE *f)
{
	char cur[CFG_NAME_LEN] = "";
	unsigned int lineno = 0;
	char *line = NULL;
	size_t cap = 0, n;
	ssize_t got;
	int rc = 0;

	while ((got = getline(&line, &cap, f)) >= 0) {
		lineno++;
		n = (size_t)got;
		if (n > 0 && line[n - 1] == '\n')
			n--;
		rc = line_check(ld, lineno, line, n, cur);
		if (rc != 0)
			break;
	}
	if (rc == 0 && ferror(f)) {
		sc_err(ld, "%s: read error: %s", ld->path, strerror(errno));
		rc = -EIO;
	}
	free(line);
	return rc;
}

/* rte_cfgfile must have stored what the line pass saw (the file may change in between). */
int
sc_cfg_matches(struct loader *ld, struct rte_cfgfile *cfg)
{
	char name[CFG_NAME_LEN];
	int i, n_sec, n_ent, want;
	unsigned int j;

	n_sec = rte_cfgfile_num_sections(cfg, NULL, 0);
	for (i = 0; i < n_sec; i++) {
		n_ent = rte_cfgfile_section_num_entries_by_index(cfg, name, i);
		if (sc_origin_find(ld, name, "") == NULL)
			goto changed;
		for (j = 0, want = 0; j < ld->n_orig; j++)
			want += strcmp(ld->orig[j].sec, name) == 0 && ld->orig[j].key[0] != '\0';
		if (n_ent != want)
			goto changed;
	}
	for (j = 0, want = 0; j < ld->n_orig; j++)
		want += ld->orig[j].key[0] == '\0';
	if (want == n_sec)
		return 0;
changed:
	sc_err(ld, "%s: the file changed while it was read", ld->path);
	return -EIO;
}
