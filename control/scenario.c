/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Scenario files: INI (DPDK's rte_cfgfile) into a validated struct sc_scenario.
 *
 * Loading runs in four steps:
 *   1. a strict line pass over the file (scenario_lint.c).  rte_cfgfile is lax: it skips lines
 *      without '=', keeps duplicate sections, truncates long names and fails silently on a key
 *      before any section.  This pass rejects all of those with "file:line: ..." and records the
 *      line of every section and key, so that later errors can name it;
 *   2. rte_cfgfile_load() stores the file; the "section.key=value" overrides (--set) are then
 *      applied with rte_cfgfile_add_section / _add_entry / _set_entry;
 *   3. every entry is looked up in keys[] (scenario_keys.c: one row per key: section, name,
 *      type, unit, offset, range, help) and parsed into a temporary struct: link presets first,
 *      then the other keys, so an explicit key overrides its section's preset wherever it appears;
 *   4. a relative background.sizes_csv is resolved against the scenario file's directory;
 *      sm_params_check() and sm_packet_check() check the whole, then the background's size CSV
 *      is loaded once (bgsizes.c) when it is used, then the limits of the widths the values go
 *      into (scenario_limits.c: the model's, and for a run the data plane's), and only then is
 *      the caller's struct written.
 * keys[] also drives sc_scenario_keys() (the --help listing) and sc_scenario_dump().
 */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_cfgfile.h>

#include "../dataplane/kernel_prog.h"
#include "bgsizes.h"
#include "scenario_impl.h"

void
sc_err(struct loader *ld, const char *fmt, ...)
{
	va_list ap;

	if (ld->err == NULL || ld->errlen == 0)
		return;
	va_start(ap, fmt);
	vsnprintf(ld->err, ld->errlen, fmt, ap);
	va_end(ap);
}

/*
 * How messages name an override: "--set 'text'", or the option, its value and the key it sets
 * ("-n '0' (run.steps)").
 */
static void
override_name(const char *text, const char *from, char *buf, size_t len)
{
	const char *eq = strchr(text, '=');

	if (from != NULL && eq != NULL)
		snprintf(buf, len, "%s '%s' (%.*s)", from, eq + 1, (int)(eq - text), text);
	else if (from != NULL)
		snprintf(buf, len, "%s '%s'", from, text);
	else
		snprintf(buf, len, "--set '%s'", text);
}

/* "file:line", "--set 'text'" or "-n '0'" */
static void
where(const struct loader *ld, const struct origin *o, char *buf, size_t len)
{
	if (o != NULL && o->set != NULL)
		override_name(o->set, o->from, buf, len);
	else if (o != NULL && ld->path != NULL)
		snprintf(buf, len, "%s:%u", ld->path, o->line);
	else
		snprintf(buf, len, "%s", ld->path != NULL ? ld->path : "scenario");
}

/* ------------------------------------------------------------------------------------------ */
/* Step 2: the overrides, "section.key=value" */

/* The parts of an override, checked: its text, the section and the key it names. */
struct override {
	char sec[CFG_NAME_LEN], key[CFG_NAME_LEN], val[CFG_VALUE_LEN];
	const struct sc_key *def;
};

/*
 * Split "section.key=value" (@p from: the option it came from, or NULL) into @p ov: 0;
 * -ENOENT for an unknown section or key; -EINVAL for anything else wrong (a message in @p ld).
 * With @p name_only, @p text is "section.key" alone (no value).
 */
static int
override_split(struct loader *ld, const char *text, const char *from, bool name_only,
	       struct override *ov)
{
	const char *eq, *dot, *sp, *kp, *vp, *why;
	char who[CFG_VALUE_LEN + 96], hint[1024];
	size_t sn, kn, vn, col;

	why = sc_text_check(text, strlen(text), &col);
	if (why != NULL) {
		sc_err(ld, "%s: column %zu: %s", from != NULL ? from : "--set", col, why);
		return -EINVAL;
	}
	if (name_only)
		snprintf(who, sizeof(who), "%s '%s'", from, text);
	else
		override_name(text, from, who, sizeof(who));
	if (name_only)	/* no value: the whole text is the name */
		eq = strchr(text, '=') != NULL ? NULL : text + strlen(text);
	else
		eq = strchr(text, '=');
	dot = eq != NULL ? memchr(text, '.', (size_t)(eq - text)) : NULL;
	if (name_only && (eq == NULL || dot == NULL)) {
		sc_err(ld, "%s: not a key (expected section.key, e.g. wan.bandwidth)", who);
		return -EINVAL;
	}
	if (eq == NULL || dot == NULL) {
		sc_err(ld, "%s: missing '%c' (expected section.key=value, e.g. "
		       "wan.bandwidth=12.5GB/s)", who, eq == NULL ? '=' : '.');
		return -EINVAL;
	}
	sp = text;
	sn = (size_t)(dot - text);
	kp = dot + 1;
	kn = (size_t)(eq - kp);
	vp = name_only ? "-" : eq + 1;	/* name_only: a stand-in value, not used */
	vn = strlen(vp);
	sc_strip(&sp, &sn);
	sc_strip(&kp, &kn);
	sc_strip(&vp, &vn);
	if (sn == 0 || sn >= CFG_NAME_LEN || !sc_name_ok(sp, sn, false) ||
	    kn == 0 || kn >= CFG_NAME_LEN || !sc_name_ok(kp, kn, true)) {
		sc_err(ld, "%s: bad section or key name (expected %s)", who,
		       name_only ? "section.key" : "section.key=value");
		return -EINVAL;
	}
	snprintf(ov->sec, sizeof(ov->sec), "%.*s", (int)sn, sp);
	snprintf(ov->key, sizeof(ov->key), "%.*s", (int)kn, kp);
	if (vn == 0 || vn >= CFG_VALUE_LEN) {
		sc_err(ld, "%s: [%s] %s: %s (at most %d characters)", who, ov->sec, ov->key,
		       vn == 0 ? "empty value" : "value too long", CFG_VALUE_LEN - 1);
		return -EINVAL;
	}
	snprintf(ov->val, sizeof(ov->val), "%.*s", (int)vn, vp);
	if (sc_section_find(ov->sec) < 0) {
		sc_section_hint(ov->sec, hint, sizeof(hint));
		sc_err(ld, "%s: unknown section [%s]%s", who, ov->sec, hint);
		return -ENOENT;
	}
	ov->def = sc_key_find(ov->sec, ov->key);
	if (ov->def == NULL) {
		sc_key_hint(ov->sec, ov->key, hint, sizeof(hint));
		if (name_only)
			sc_err(ld, "%s: [%s] %s: unknown key%s", who, ov->sec, ov->key, hint);
		else
			sc_err(ld, "%s: [%s] %s = '%s': unknown key%s", who, ov->sec, ov->key,
			       ov->val, hint);
		return -ENOENT;
	}
	return 0;
}

static int
override_apply(struct loader *ld, struct rte_cfgfile *cfg, const char *text, const char *from)
{
	struct origin *o = NULL;
	struct override ov;
	unsigned int i;
	int rc;

	rc = override_split(ld, text, from, false, &ov);
	if (rc != 0)
		return -EINVAL;
	/* Replace the file's entry, whether it used the key's name or its alias. */
	for (i = 0; i < ld->n_orig && o == NULL; i++)
		if (strcmp(ld->orig[i].sec, ov.sec) == 0 && ld->orig[i].key[0] != '\0' &&
		    sc_key_find(ov.sec, ld->orig[i].key) == ov.def)
			o = &ld->orig[i];
	if (o != NULL) {
		rc = rte_cfgfile_set_entry(cfg, ov.sec, o->key, ov.val);
		o->line = 0;
		o->set = text;
		o->from = from;
	} else {
		rc = 0;
		if (!rte_cfgfile_has_section(cfg, ov.sec)) {
			rc = rte_cfgfile_add_section(cfg, ov.sec);
			if (rc == 0)
				rc = sc_origin_add(ld, ov.sec, "", 0, text);
			if (rc == 0)
				ld->orig[ld->n_orig - 1].from = from;
		}
		if (rc == 0)
			rc = rte_cfgfile_add_entry(cfg, ov.sec, ov.key, ov.val);
		if (rc == 0)
			rc = sc_origin_add(ld, ov.sec, ov.key, 0, text);
		if (rc == 0)
			ld->orig[ld->n_orig - 1].from = from;
	}
	if (rc != 0) {
		char who[CFG_VALUE_LEN + 96];

		override_name(text, from, who, sizeof(who));
		sc_err(ld, "%s: cannot store it (%s)", who, strerror(-rc));
	}
	return rc;
}

/* ------------------------------------------------------------------------------------------ */
/* Step 3: every entry through the table, into a temporary */

int
sc_key_err(struct loader *ld, const char *sec, const char *name, const char *value,
	const char *fmt, ...)
{
	char w[512], why[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	where(ld, sc_origin_find(ld, sec, name), w, sizeof(w));
	sc_err(ld, "%s: [%s] %s = '%s': %s", w, sec, name, value, why);
	return -EINVAL;
}

/* Parse one section's entries: its preset first, then the other keys. */
static int
apply_section(struct loader *ld, const char *sec, const struct rte_cfgfile_entry *e, int n,
	      struct sc_scenario *t)
{
	char why[1024], w[512];
	const struct sc_key *def;
	const struct origin *o;
	int pass, i, j;

	for (pass = 0; pass < 2; pass++) {
		for (i = 0; i < n; i++) {
			def = sc_key_find(sec, e[i].name);
			if (pass == 0 && def == NULL) {
				sc_key_hint(sec, e[i].name, why, sizeof(why));
				return sc_key_err(ld, sec, e[i].name, e[i].value, "unknown key%s", why);
			}
			/* The same key set earlier in the section, by its name or its alias. */
			for (j = 0, o = NULL; pass == 0 && j < i && o == NULL; j++)
				if (sc_key_find(sec, e[j].name) == def)
					o = sc_origin_find(ld, sec, e[j].name);
			if (o != NULL) {
				where(ld, o, w, sizeof(w));
				return sc_key_err(ld, sec, e[i].name, e[i].value, "duplicate key: '%s' "
					       "at %s sets the same value", o->key, w);
			}
			if ((pass == 0) != (def->type == KT_PRESET))
				continue;
			if (sc_key_parse(def, e[i].value, t, why, sizeof(why)) != 0)
				return sc_key_err(ld, sec, e[i].name, e[i].value, "%s", why);
		}
	}
	return 0;
}

static int
apply_cfg(struct loader *ld, struct rte_cfgfile *cfg, struct sc_scenario *t)
{
	char sec[CFG_NAME_LEN], hint[1024], w[512];
	struct rte_cfgfile_entry *e;
	int i, n, n_sec, rc;

	n_sec = rte_cfgfile_num_sections(cfg, NULL, 0);
	for (i = 0; i < n_sec; i++) {
		n = rte_cfgfile_section_num_entries_by_index(cfg, sec, i);
		if (sc_section_find(sec) < 0) {
			sc_section_hint(sec, hint, sizeof(hint));
			where(ld, sc_origin_find(ld, sec, ""), w, sizeof(w));
			sc_err(ld, "%s: unknown section [%s]%s", w, sec, hint);
			return -EINVAL;
		}
		if (n <= 0)
			continue;
		e = calloc((size_t)n, sizeof(*e));
		if (e == NULL) {
			sc_err(ld, "out of memory");
			return -ENOMEM;
		}
		n = rte_cfgfile_section_entries_by_index(cfg, i, sec, e, n);
		rc = apply_section(ld, sec, e, n, t);
		free(e);
		if (rc != 0)
			return rc;
	}
	return 0;
}

/* Whether the file or an override sets [sec] key, by its name or its alias. */
static bool
key_set(struct rte_cfgfile *cfg, const char *sec, const char *key)
{
	const struct sc_key *def = sc_key_find(sec, key);

	return rte_cfgfile_has_entry(cfg, sec, key) ||
	       (def != NULL && def->alias != NULL && rte_cfgfile_has_entry(cfg, sec, def->alias));
}

/*
 * Defaults that depend on what else is set: a file without [scenario] name is named after the
 * file ("dir/my-run.ini" is "my-run"), and without a description says what it is; without
 * [run] frame_payload, a frame carries as much as the MTU holds when run.mtu is set (the
 * built-in pair, MTU 9000 and 8192 B, stays as it is when neither is).
 */
static void
apply_derived(struct loader *ld, struct rte_cfgfile *cfg, struct sc_scenario *t)
{
	const char *base;
	size_t n, col;

	if (ld->path != NULL) {
		base = strrchr(ld->path, '/') != NULL ? strrchr(ld->path, '/') + 1 : ld->path;
		/* only a name that a scenario file could hold as it is */
		if (base[0] == '\0' || strlen(base) > 200 ||
		    sc_text_check(base, strlen(base), &col) != NULL || strchr(base, ';') != NULL)
			base = NULL;
		n = base != NULL ? strlen(base) : 0;
		if (n > 4 && strcmp(base + n - 4, ".ini") == 0)
			n -= 4;
		if (n >= sizeof(t->name))
			n = sizeof(t->name) - 1;
		while (n > 0 && ((unsigned char)base[n] & 0xC0) == 0x80)
			n--;	/* not inside a UTF-8 sequence */
		/* zeroed first, as a key's text is stored: a dump loads back to the same bytes */
		if (!key_set(cfg, "scenario", "name") && n > 0) {
			memset(t->name, 0, sizeof(t->name));
			memcpy(t->name, base, n);
		}
		if (!key_set(cfg, "scenario", "description")) {
			memset(t->desc, 0, sizeof(t->desc));
			snprintf(t->desc, sizeof(t->desc), "the built-in default with the keys of %s",
				 base != NULL ? base : "its file");
		}
	}
	if (key_set(cfg, "run", "mtu") && !key_set(cfg, "run", "frame_payload"))
		t->run.pk.payload = t->run.pk.mtu - SM_IP_HDR - SM_UDP_HDR - SM_SE_HDR;
}

/* ------------------------------------------------------------------------------------------ */
/* Step 4: the whole */

/* "<where>: inconsistent scenario: <msg>", where is the line of the key that @p msg names. */
static int
whole_err(struct loader *ld, const char *msg)
{
	char name[2 * CFG_NAME_LEN], w[512], *dot;
	const struct origin *o = NULL;
	const struct sc_key *def;
	unsigned int i;
	size_t n;

	/* The message starts with "section.key:" or "section:"; point at that line. */
	n = strcspn(msg, ":,");
	snprintf(name, sizeof(name), "%.*s", (int)(n < sizeof(name) ? n : sizeof(name) - 1), msg);
	dot = strchr(name, '.');
	if (dot != NULL) {
		*dot = '\0';
		def = sc_key_find(name, dot + 1);
		for (i = 0; def != NULL && i < ld->n_orig && o == NULL; i++)
			if (strcmp(ld->orig[i].sec, name) == 0 && ld->orig[i].key[0] != '\0' &&
			    sc_key_find(name, ld->orig[i].key) == def)
				o = &ld->orig[i];
	}
	/* A message about a whole section: the last override of it, else its header line. */
	for (i = 0; o == NULL && i < ld->n_orig; i++)
		if (strcmp(ld->orig[ld->n_orig - 1 - i].sec, name) == 0 &&
		    ld->orig[ld->n_orig - 1 - i].set != NULL)
			o = &ld->orig[ld->n_orig - 1 - i];
	if (o == NULL)
		o = sc_origin_find(ld, name, "");
	where(ld, o, w, sizeof(w));
	sc_err(ld, "%s: inconsistent scenario: %s", w, msg);
	return -EINVAL;
}

/* The checks across keys: the model's (sm_params_check()) and the frames' (sm_packet_check()). */
static int
check_all(struct loader *ld, const struct sc_scenario *t)
{
	char msg[512];

	if (sm_params_check(&t->model, msg, sizeof(msg)) != 0 ||
	    sm_packet_check(&t->run.pk, msg, sizeof(msg)) != 0)
		return whole_err(ld, msg);
	if (t->background.bulk > 0 && (t->run.clock == SC_CLOCK_REAL || t->run.partitions != 1))
		return whole_err(ld, "background.bulk: bulk TCP flows run in virtual time in one "
				 "partition in this release: set run.clock = virtual and "
				 "run.partitions = 1");
	if (t->run.fast_forward == SC_FF_STEADY &&
	    (t->run.clock == SC_CLOCK_REAL || t->run.partitions != 1))
		return whole_err(ld, "run.fast_forward = steady: its windows run in virtual time "
				 "in one partition (the order of a window's frames is the one "
				 "engine's): set run.clock = virtual and run.partitions = 1");
	if (t->run.fast_forward == SC_FF_STEADY &&
	    (t->run.pk.tcp.transport == SM_TRANSPORT_TCP || t->background.bulk > 0 ||
	     t->background.transport == SC_BG_TCP))
		return whole_err(ld, "run.fast_forward = steady: TCP (job.transport = tcp, "
				 "background.transport = tcp, background.bulk) runs every segment in "
				 "time order in this release (its timers would see a window's "
				 "segments early): set run.fast_forward = exact");
	if (t->background.bulk_lead > 0 && t->background.bulk == 0)
		return whole_err(ld, "background.bulk_lead: there are no bulk flows to start "
				 "early: set background.bulk > 0, or background.bulk_lead = 0");
	if (t->background.transport == SC_BG_TCP &&
	    (t->run.clock == SC_CLOCK_REAL || t->run.partitions != 1))
		return whole_err(ld, "background.transport = tcp: TCP transfers run in virtual time "
				 "in one partition in this release: set run.clock = virtual and "
				 "run.partitions = 1");
	if (t->background.transport == SC_BG_TCP &&
	    t->background.bulk + t->background.connections > 64) {
		snprintf(msg, sizeof(msg), "background.bulk + background.connections: %u + %u "
			 "connections a host, at most 64", t->background.bulk,
			 t->background.connections);
		return whole_err(ld, msg);
	}
	if (t->run.clock == SC_CLOCK_REAL && t->run.partitions != 1) {
		bool split = t->ports.local[0] != '\0' && strcmp(t->ports.local, "all") != 0;
		bool links = false;

		for (uint32_t i = 0; i < SC_LINKS_MAX; i++)
			links = links || t->ports.link[i][0] != '\0';
		if (split || links)
			return whole_err(ld, "run.partitions: a real-time run split over processes "
					 "(ports.local) or with links through ports (ports.linkN) "
					 "runs in one partition in this release: set run.partitions = 1");
	}
	return 0;
}

/*
 * A relative path (background.sizes_csv, module.kernel) names a file in the scenario file's
 * directory (set by --set, or with no file: in the current directory).  Store it absolute, so
 * that it opens from any directory and the dump, wherever it is written, loads back to the same
 * path.
 */
static int
path_resolve(struct loader *ld, const char *section, const char *key, char *field, size_t size)
{
	char cwd[4096], out[4096];
	const char *file = ld->path != NULL ? ld->path : "", *slash, *sep;
	const struct origin *o;
	int dir_len = 0, n;

	if (field[0] == '\0' || field[0] == '/')
		return 0;
	o = sc_origin_find(ld, section, key);
	if (o != NULL && o->set == NULL) {
		slash = strrchr(file, '/');
		dir_len = slash != NULL ? (int)(slash - file) + 1 : 0;
	}
	cwd[0] = '\0';
	if ((dir_len == 0 || file[0] != '/') && getcwd(cwd, sizeof(cwd)) == NULL)
		return sc_key_err(ld, section, key, field, "cannot resolve the relative path: "
			       "getcwd: %s", strerror(errno));
	sep = cwd[0] != '\0' && cwd[strlen(cwd) - 1] != '/' ? "/" : "";
	n = snprintf(out, sizeof(out), "%s%s%.*s%s", cwd, sep, dir_len, file, field);
	if (n < 0 || (size_t)n >= size)
		return sc_key_err(ld, section, key, field, "the path made absolute is too long (at "
			       "most %zu characters)", size - 1);
	memset(field, 0, size);
	memcpy(field, out, (size_t)n);
	return 0;
}

static int
paths_resolve(struct loader *ld, struct sc_scenario *t)
{
	int rc = path_resolve(ld, "background", "sizes_csv", t->background.sizes_csv,
			      sizeof(t->background.sizes_csv));

	if (rc == 0)
		rc = path_resolve(ld, "module", "kernel", t->kernel.file, sizeof(t->kernel.file));
	return rc;
}

/*
 * [ports] local is "all" or a list of data centres of the topology; a port is for a DC that
 * runs here.  The mask goes into ports.local_mask.
 */
static int
check_ports(struct loader *ld, struct sc_scenario *t)
{
	uint32_t n = t->model.topo.n_dc, mask = 0, d, i;
	char buf[sizeof(t->ports.local)], *tok, *save = NULL;

	if (n > SC_PORTS_MAX)
		return t->run.clock == SC_CLOCK_REAL ?
		       whole_err(ld, "run.clock = real: at most 16 data centres") : 0;
	if (strcmp(t->ports.local, "all") == 0) {
		mask = (1u << n) - 1;
	} else {
		snprintf(buf, sizeof(buf), "%s", t->ports.local);
		for (tok = strtok_r(buf, ", ", &save); tok != NULL;
		     tok = strtok_r(NULL, ", ", &save)) {
			char *end;
			unsigned long v = strtoul(tok, &end, 10);

			if (*end != '\0' || end == tok || v >= n)
				return sc_key_err(ld, "ports", "local", t->ports.local, "'%s' is not a "
					       "data centre of the topology's %u (allowed: all, or "
					       "numbers 0 to %u separated by commas)", tok, n, n - 1);
			mask |= 1u << v;
		}
		if (mask == 0)
			return sc_key_err(ld, "ports", "local", t->ports.local, "no data centre "
				       "(allowed: all, or a list such as 0 or 4,5,6,7)");
	}
	for (d = n; d < SC_PORTS_MAX; d++)
		if (t->ports.dc[d][0] != '\0') {
			char key[8];

			snprintf(key, sizeof(key), "dc%u", d);
			return sc_key_err(ld, "ports", key, t->ports.dc[d], "the topology has %u data "
				       "centres (0 to %u)", n, n - 1);
		}
	for (i = 0; i < SC_LINKS_MAX; i++) {
		struct sc_port_link l, o;
		char key[8], why[320];
		uint32_t j;

		if (t->ports.link[i][0] == '\0')
			continue;
		snprintf(key, sizeof(key), "link%u", i);
		if (sc_port_link_parse(t->ports.link[i], n, t->model.topo.per_dc, &l, why,
				       sizeof(why)) != 0)
			return sc_key_err(ld, "ports", key, t->ports.link[i], "%s", why);
		if (!(mask & (1u << l.dc)))
			return sc_key_err(ld, "ports", key, t->ports.link[i], "%s is in data centre "
				       "%u, which runs in the other process ([ports] local = %s): "
				       "map it there", l.name, l.dc, t->ports.local);
		for (j = 0; j < i; j++)
			if (t->ports.link[j][0] != '\0' &&
			    sc_port_link_parse(t->ports.link[j], n, t->model.topo.per_dc, &o, why,
					       sizeof(why)) == 0 &&
			    (strcmp(o.name, l.name) == 0 || strcmp(o.tx, l.tx) == 0 ||
			     strcmp(o.rx, l.rx) == 0 || strcmp(o.tx, l.rx) == 0 ||
			     strcmp(o.rx, l.tx) == 0))
				return sc_key_err(ld, "ports", key, t->ports.link[i], "link%u already "
					       "maps %s through %s: a link and a device go in one "
					       "mapping", j, o.name, o.tx);
		for (d = 0; d < n; d++)
			if (strcmp(t->ports.dc[d], l.tx) == 0 || strcmp(t->ports.dc[d], l.rx) == 0)
				return sc_key_err(ld, "ports", key, t->ports.link[i], "[ports] dc%u "
					       "uses the same device", d);
	}
	if (t->model.topo.wan != SM_WAN_RING && n > 1) {
		bool ported = mask != (1u << n) - 1;

		for (d = 0; d < n; d++)
			ported |= t->ports.dc[d][0] != '\0';
		if (ported)
			return whole_err(ld, "topology.wan: [ports] dcN and a [ports] local of some "
					 "data centres carry a ring's WAN links (each DC's link to the "
					 "next): only with topology.wan = ring");
	}
	t->ports.local_mask = mask;
	return 0;
}

/* "wN.nic", "dcD>wN" or "dcD>mN": worker N, DC D (checked against N). */
static int
link_name(const char *s, uint32_t n_dc, uint32_t per_dc, uint32_t *w, uint32_t *dc, char *why,
	  size_t whylen)
{
	unsigned int a = 0, b = 0;
	int used = -1;
	char kind = 0;
	bool sign = strpbrk(s, "+-") != NULL;	/* %u would take them */

	if (!sign && ((sscanf(s, "w%u.nic%n", &a, &used) == 1 && used == (int)strlen(s)) ||
		      (sscanf(s, "w%u.port%n", &a, &used) == 1 && used == (int)strlen(s)))) {
		b = per_dc ? a / per_dc : 0;
	} else if (!sign && sscanf(s, "dc%u>%c%u%n", &b, &kind, &a, &used) == 3 &&
		   used == (int)strlen(s) && (kind == 'w' || kind == 'm')) {
		if (per_dc && a < n_dc * per_dc && a / per_dc != b) {
			snprintf(why, whylen, "worker %u is in data centre %u, not %u (the link is "
				 "dc%u>%c%u)", a, a / per_dc, b, a / per_dc, kind, a);
			return -EINVAL;
		}
	} else {
		snprintf(why, whylen, "'%s' is not a link: wN.nic (worker N to its switch), wN.port "
			 "(its pluggable module's port), dcD>wN (the switch to worker N) or dcD>mN "
			 "(the switch to worker N's module); the WAN links go through [ports] dcN", s);
		return -EINVAL;
	}
	if (a >= n_dc * per_dc) {
		snprintf(why, whylen, "'%s': the topology has %u workers (0 to %u)", s,
			 n_dc * per_dc, n_dc * per_dc - 1);
		return -EINVAL;
	}
	*w = a;
	*dc = b;
	return 0;
}

int
sc_port_link_parse(const char *value, uint32_t n_dc, uint32_t per_dc, struct sc_port_link *l,
		   char *why, size_t whylen)
{
	char buf[SC_LINK_LEN], *tok[4], *save = NULL;
	int n = 0;

	memset(l, 0, sizeof(*l));
	snprintf(buf, sizeof(buf), "%s", value);
	for (tok[0] = strtok_r(buf, " \t", &save); n < 4 && tok[n] != NULL; n++)
		if (n < 3)
			tok[n + 1] = strtok_r(NULL, " \t", &save);
	if (n < 2 || n > 3) {
		snprintf(why, whylen, "expected 'LINK DEV' or 'LINK DEV RXDEV' (e.g. 'w0.nic ring:a', "
			 "'w0.nic net_af_packet2,iface=va net_af_packet3,iface=vb'), got %d word%s",
			 n, n == 1 ? "" : "s");
		return -EINVAL;
	}
	if (strlen(tok[0]) >= sizeof(l->name)) {
		snprintf(why, whylen, "'%s' is not a link (too long)", tok[0]);
		return -EINVAL;
	}
	if (link_name(tok[0], n_dc, per_dc, &l->worker, &l->dc, why, whylen) != 0)
		return -EINVAL;
	snprintf(l->name, sizeof(l->name), "%s", tok[0]);
	snprintf(l->tx, sizeof(l->tx), "%s", tok[1]);
	snprintf(l->rx, sizeof(l->rx), "%s", n == 3 ? tok[2] : tok[1]);
	if (strncmp(l->tx, "ring:", 5) == 0 && n == 3) {
		snprintf(why, whylen, "a ring:NAME is both ends of the link: give it alone");
		return -EINVAL;
	}
	if (strncmp(l->tx, "ring:", 5) != 0 && n == 2) {
		snprintf(why, whylen, "'%s' needs a second device to come in through (the other end "
			 "of a veth pair, a cabled NIC): 'LINK DEV RXDEV'; only ring:NAME is both", l->tx);
		return -EINVAL;
	}
	if (n == 3 && strcmp(l->tx, l->rx) == 0) {
		snprintf(why, whylen, "the two devices are the same ('%s')", l->tx);
		return -EINVAL;
	}
	return 0;
}

/*
 * A link-kernel program must load (rte_bpf: the verifier's reason in the message) and run on a
 * full frame; its ops for that frame over the payload become the model's ops per byte, and the
 * whole is checked again with them.
 */
static int
check_kernel(struct loader *ld, struct rte_cfgfile *cfg, struct sc_scenario *t)
{
	struct dp_kernel *k;
	const char *val;
	char why[1024];
	int rc;

	if (t->kernel.file[0] == '\0')
		return 0;
	val = rte_cfgfile_get_entry(cfg, "module", "kernel");
	rc = dp_kernel_load(&k, t->kernel.file, t->kernel.section, why, sizeof(why));
	if (rc == 0) {
		rc = dp_kernel_ops_per_byte(k, &t->model, t->run.pk.payload,
					    t->model.mod.ops_per_byte, why, sizeof(why));
		dp_kernel_free(k);
	}
	if (rc != 0) {
		sc_key_err(ld, "module", "kernel", val != NULL ? val : t->kernel.file, "%s", why);
		return rc == -ENOMEM ? rc : -EINVAL;
	}
	return check_all(ld, t);
}

/*
 * Empirical background sizes need their CSV, and it must load: reported with the CSV's own
 * file:line, at the line of the scenario that names it.
 */
static int
check_sizes(struct loader *ld, struct rte_cfgfile *cfg, const struct sc_scenario *t)
{
	const struct sc_background *bg = &t->background;
	struct sm_size_dist d;
	const char *val;
	char why[1024];
	int rc;

	if (bg->sizes != SC_SIZES_EMPIRICAL)
		return 0;
	if (bg->sizes_csv[0] == '\0')
		return whole_err(ld, "background.sizes: empirical sizes need background.sizes_csv, "
				 "a CSV file of size[,weight] lines (e.g. "
				 "scenarios/sizes-websearch.csv)");
	rc = sc_sizes_load(bg->sizes_csv, &d, why, sizeof(why));
	if (rc == 0) {
		sm_size_free(&d);
		return 0;
	}
	val = rte_cfgfile_get_entry(cfg, "background", "sizes_csv");
	sc_key_err(ld, "background", "sizes_csv", val != NULL ? val : bg->sizes_csv, "%s", why);
	return rc == -ENOMEM || rc == -EIO ? rc : -EINVAL;
}

void
sc_scenario_default(struct sc_scenario *s)
{
	if (s == NULL)
		return;
	memset(s, 0, sizeof(*s));
	snprintf(s->name, sizeof(s->name), "2dc4-100g");
	snprintf(s->desc, sizeof(s->desc), "2 DC x 4, 100 GbE WAN: the deck's default");
	sm_params_default(&s->model);
	s->variants = (1u << SM_VAR_COUNT) - 1;
	s->budgets = (1u << SM_BUDGET_COUNT) - 1;
	s->run.steps = 200;
	s->run.seed = 1;
	sm_packet_default(&s->run.pk);
	s->run.warmup = 20;
	s->run.partitions = 1;
	s->queues.nic = 2e6;
	s->queues.port = 2e6;
	s->queues.sw = 16e6;
	s->queues.wan = 64e6;
	s->queues.sync_lossless = 1;
	s->background.load = 0;
	s->background.sizes = SC_SIZES_FIXED;
	s->background.size = 1e6;		/* the deck's 1 MB transfers */
	/* background.sizes_csv stays "": only empirical sizes need it */
	s->background.host_rate = 50e9;
	s->background.directions = SC_DIRECTIONS_ALL;
	s->background.transport = SC_BG_OPEN;
	s->background.connections = 16;
	s->background.bulk_lead = 0;
	/* trace.file stays "": no trace */
	snprintf(s->trace.capture, sizeof(s->trace.capture), "wan");
	s->trace.snaplen = SM_HDR_BYTES;
	s->trace.queue_sample = 100e-6;
	s->run.clock = SC_CLOCK_VIRTUAL;
	s->run.fast_forward = SC_FF_EXACT;
	s->run.steady_window = SC_AUTO;
	s->run.dilation = 1;
	s->run.calibrate = 0.5;
	snprintf(s->ports.local, sizeof(s->ports.local), "all");
	s->ports.local_mask = (1u << s->model.topo.n_dc) - 1;	/* as check_ports() makes it */
	s->ports.wait = 10;
	s->bridge.bandwidth_ab = s->bridge.bandwidth_ba = SC_AUTO;
	s->bridge.latency_ab = s->bridge.latency_ba = SC_AUTO;
	s->impair.loss = s->impair.jitter = SC_AUTO;
	/* bridge.a, .b stay "": no bridge; port 0: no cap; emit_background no; mbufs auto */
	/* ports.dc[] stay "": no ports */
	/* kernel.file stays "": the built-in kernel of the ops_* keys */
	snprintf(s->kernel.section, sizeof(s->kernel.section), "%s", SYNCEMU_KERNEL_SECTION);
}

int
sc_key_name_check(const char *name, const char *from, char *err, size_t errlen)
{
	struct loader ld = { .err = err, .errlen = errlen };
	struct override ov;

	if (name == NULL || from == NULL) {
		sc_err(&ld, "sc_key_name_check: bad arguments");
		return -EINVAL;
	}
	return override_split(&ld, name, from, true, &ov);
}

int
sc_override_check(const char *set, const char *from, char *err, size_t errlen)
{
	struct loader ld = { .err = err, .errlen = errlen };
	char who[CFG_VALUE_LEN + 96], why[1024];
	struct sc_scenario *t;
	struct override ov;
	int rc;

	if (set == NULL) {
		sc_err(&ld, "sc_override_check: bad arguments");
		return -EINVAL;
	}
	rc = override_split(&ld, set, from, false, &ov);
	if (rc != 0)
		return rc;
	t = malloc(sizeof(*t));
	if (t == NULL) {
		sc_err(&ld, "out of memory");
		return -ENOMEM;
	}
	/* the loader's own parser, into a scratch scenario */
	sc_scenario_default(t);
	rc = sc_key_parse(ov.def, ov.val, t, why, sizeof(why));
	free(t);
	if (rc != 0) {
		override_name(set, from, who, sizeof(who));
		if (from != NULL)
			sc_err(&ld, "%s: %s", who, why);
		else
			sc_err(&ld, "%s: [%s] %s = '%s': %s", who, ov.sec, ov.key, ov.val, why);
		return -EINVAL;
	}
	return 0;
}

#ifndef SYNCEMU_SCENARIO_DIR
#define SYNCEMU_SCENARIO_DIR "/usr/local/share/syncemu/scenarios"
#endif

/*
 * A scenario given by the name of an installed one ("2dc4-25g", "2dc4-25g.ini": no '/'), as
 * DIR/NAME.ini in @p buf when that file exists, DIR the environment's SYNCEMU_SCENARIO_DIR or
 * the installed scenarios' directory; false otherwise.
 */
static bool
named_scenario(const char *name, char *buf, size_t len)
{
	const char *dir = getenv("SYNCEMU_SCENARIO_DIR");
	size_t n = strlen(name);
	int k;

	if (n == 0 || strchr(name, '/') != NULL)
		return false;
	k = snprintf(buf, len, "%s/%s%s", dir != NULL && dir[0] != '\0' ? dir : SYNCEMU_SCENARIO_DIR,
		     name,
		     n > 4 && strcmp(name + n - 4, ".ini") == 0 ? "" : ".ini");
	return k > 0 && (size_t)k < len && access(buf, R_OK) == 0;
}

static int
load(struct sc_scenario *s, const char *path, const char *const *overrides,
     const char *const *from, unsigned int n_overrides, const struct sc_run_sel *run, bool link,
     char *err, size_t errlen)
{
	struct loader ld = { .path = path, .overrides = overrides, .n_overrides = n_overrides,
			     .err = err, .errlen = errlen, .link = link };
	struct rte_cfgfile *cfg = NULL;
	struct sc_scenario t;
	char named[sizeof(t.path)];
	unsigned int i;
	FILE *f;
	int rc;

	if (err != NULL && errlen > 0)
		err[0] = '\0';
	if (s == NULL || (n_overrides > 0 && overrides == NULL) ||
	    (path != NULL && strlen(path) >= sizeof(t.path))) {
		sc_err(&ld, "sc_scenario_load: bad arguments");
		return -EINVAL;
	}
	if (path != NULL) {
		f = fopen(path, "r");
		if (f == NULL && errno == ENOENT && named_scenario(path, named, sizeof(named))) {
			/* a name of an installed scenario: "2dc4-25g" */
			path = ld.path = named;
			f = fopen(path, "r");
		}
		if (f == NULL) {
			sc_err(&ld, "%s: cannot open: %s", path, strerror(errno));
			return -ENOENT;
		}
		rc = sc_lines_check(&ld, f);
		fclose(f);
		if (rc != 0)
			goto out;
		cfg = rte_cfgfile_load(path, 0);
		if (cfg == NULL) {
			sc_err(&ld, "%s: rte_cfgfile_load failed", path);
			rc = -EIO;
			goto out;
		}
		rc = sc_cfg_matches(&ld, cfg);
		if (rc != 0)
			goto out;
	} else {
		cfg = rte_cfgfile_create(0);
		if (cfg == NULL) {
			sc_err(&ld, "out of memory");
			rc = -ENOMEM;
			goto out;
		}
	}
	for (i = 0; i < n_overrides; i++) {
		if (overrides[i] == NULL) {
			sc_err(&ld, "--set: override %u is NULL", i);
			rc = -EINVAL;
			goto out;
		}
		rc = override_apply(&ld, cfg, overrides[i], from != NULL ? from[i] : NULL);
		if (rc != 0)
			goto out;
	}
	sc_scenario_default(&t);
	if (path != NULL)
		snprintf(t.path, sizeof(t.path), "%s", path);
	rc = apply_cfg(&ld, cfg, &t);
	if (rc == 0)
		apply_derived(&ld, cfg, &t);
	if (rc == 0)
		rc = paths_resolve(&ld, &t);
	if (rc == 0)
		rc = check_all(&ld, &t);
	if (rc == 0)
		rc = check_sizes(&ld, cfg, &t);
	if (rc == 0)
		rc = sc_limits_check(&ld, cfg, &t, run, true);
	if (rc == 0)
		rc = check_kernel(&ld, cfg, &t);
	if (rc == 0)
		rc = check_ports(&ld, &t);
	if (rc == 0)
		rc = sc_limits_check(&ld, cfg, &t, run, false);
	if (rc == 0)
		memcpy(s, &t, sizeof(t));
out:
	if (cfg != NULL)
		rte_cfgfile_close(cfg);
	free(ld.orig);
	return rc;
}

int
sc_scenario_load(struct sc_scenario *s, const char *path, const char *const *overrides,
		 unsigned int n_overrides, char *err, size_t errlen)
{
	return load(s, path, overrides, NULL, n_overrides, NULL, false, err, errlen);
}

int
sc_scenario_load_from(struct sc_scenario *s, const char *path, const char *const *overrides,
		      const char *const *from, unsigned int n_overrides, char *err, size_t errlen)
{
	return load(s, path, overrides, from, n_overrides, NULL, false, err, errlen);
}

int
sc_scenario_load_link(struct sc_scenario *s, const char *path, const char *const *overrides,
		      const char *const *from, unsigned int n_overrides, char *err, size_t errlen)
{
	return load(s, path, overrides, from, n_overrides, NULL, true, err, errlen);
}

int
sc_scenario_load_run(struct sc_scenario *s, const char *path, const char *const *overrides,
		     const char *const *from, unsigned int n_overrides, unsigned int variants,
		     unsigned int budgets, char *err, size_t errlen)
{
	struct sc_run_sel run = { .variants = variants, .budgets = budgets };

	return load(s, path, overrides, from, n_overrides, &run, false, err, errlen);
}
