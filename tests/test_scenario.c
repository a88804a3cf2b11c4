/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Tier 1 tests of control/scenario.c (no EAL): every file in scenarios/ loads to the deck's
 * defaults plus its topology, the [run], [queues] and [trace] keys parse to their fields, the
 * dump round-trips, --set overrides work, and each kind of bad input is rejected with a message
 * naming file:line, [section], key, value and the reason.
 * Bad fixtures are written into a mkdtemp() directory.  Run from the project root.  The syntax
 * and the refusals of bad files are in test_scenario_syntax.c.
 */
#include <dirent.h>
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
#include <unistd.h>

#include <cmocka.h>

#include "common.h"
#include "scenario.h"
#include "test_scenario.h"
#include "../models/packet.h"
#include "../models/presets.h"
#include "../models/variant.h"

static struct tc_files fx;	/* the mkdtemp() directory and the fixtures in it */

static int
setup(void **state)
{
	return tc_files_init(&fx, "test_scenario");
}

static int
teardown(void **state)
{
	return tc_files_remove(&fx);
}

/* Write @p len bytes into a new file of the temporary directory; returns its path. */
const char *
write_file(const char *text, size_t len)
{
	return tc_write_file(&fx, NULL, text, len);
}

const char *
write_text(const char *text)
{
	return write_file(text, strlen(text));
}

static void
default_model(struct sm_params *p)
{
	sm_params_default(p);
}

/*
 * Load @p text (with the overrides) and expect failure @p rc; @p line > 0 requires
 * "file:line:" in the message, then every non-NULL string of the list.  The output struct
 * must be left untouched (validate, then commit).
 */
static void
expect_bad_v(const char *path, const char *const *ovr, unsigned int n_ovr, int rc, int line,
	     va_list ap)
{
	struct sc_scenario s, before;
	char err[ERRLEN], where[256];
	const char *sub;
	int got;

	memset(&s, 0xa5, sizeof(s));
	memcpy(&before, &s, sizeof(s));
	got = sc_scenario_load(&s, path, ovr, n_ovr, err, sizeof(err));
	if (got != rc)
		fail_msg("rc %d, want %d; message '%s'", got, rc, err);
	assert_memory_equal(&s, &before, sizeof(s));
	if (line > 0) {
		snprintf(where, sizeof(where), "%s:%d: ", path, line);
		assert_has(err, where);
	}
	while ((sub = va_arg(ap, const char *)) != NULL)
		assert_has(err, sub);
}

void
expect_bad(const char *text, int line, ...)
{
	const char *path = write_text(text);
	va_list ap;

	va_start(ap, line);
	expect_bad_v(path, NULL, 0, -EINVAL, line, ap);
	va_end(ap);
}

void
expect_bad_set(const char *path, const char *ovr, ...)
{
	va_list ap;

	va_start(ap, ovr);
	expect_bad_v(path, &ovr, 1, -EINVAL, 0, ap);
	va_end(ap);
}

void
load_ok(struct sc_scenario *s, const char *path, const char *const *ovr, unsigned int n)
{
	char err[ERRLEN] = "";

	if (sc_scenario_load(s, path, ovr, n, err, sizeof(err)) != 0)
		fail_msg("%s rejected: %s", path != NULL ? path : "(default)", err);
}

static void
test_default(void **state)
{
	struct sc_scenario s, d;
	struct sm_params p;

	memset(&s, 0xa5, sizeof(s));
	load_ok(&s, NULL, NULL, 0);
	default_model(&p);
	assert_memory_equal(&s.model, &p, sizeof(p));
	assert_int_equal(s.variants, (1u << SM_VAR_COUNT) - 1);
	assert_int_equal(s.budgets, (1u << SM_BUDGET_COUNT) - 1);
	assert_string_equal(s.path, "");
	memset(&d, 0x5a, sizeof(d));	/* padding too: the default memsets */
	sc_scenario_default(&d);
	assert_memory_equal(&s, &d, sizeof(s));
	assert_int_equal(sc_scenario_load(NULL, NULL, NULL, 0, NULL, 0), -EINVAL);
	assert_int_equal(sc_scenario_load(&s, NULL, NULL, 1, NULL, 0), -EINVAL);
}

/* [run], [queues] and [trace] load to their documented defaults. */
static void
test_default_run(void **state)
{
	struct sc_scenario s, ref;
	struct sm_packet pk;
	char err[ERRLEN];

	load_ok(&s, NULL, NULL, 0);
	assert_int_equal(s.run.steps, 200);
	assert_true(s.run.seed == 1);
	memset(&pk, 0, sizeof(pk));
	sm_packet_default(&pk);		/* MTU 9000, 8192 B, payload, phase, bursts of 16 */
	assert_memory_equal(&s.run.pk, &pk, sizeof(pk));
	assert_int_equal(sm_packet_check(&s.run.pk, err, sizeof(err)), 0);
	assert_true(s.queues.nic == 2e6 && s.queues.port == 2e6);
	assert_true(s.queues.sw == 16e6 && s.queues.wan == 64e6);
	assert_string_equal(s.trace.file, "");
	assert_string_equal(s.trace.capture, "wan");
	assert_int_equal(s.trace.snaplen, 90);

	/* The reference file lists every key with its default: all of the struct but the path. */
	load_ok(&ref, "scenarios/2dc4-100g.ini", NULL, 0);
	memset(ref.path, 0, sizeof(ref.path));
	assert_memory_equal(&ref, &s, sizeof(s));
}

static const struct sm_deck_topology *
deck_find(const char *name)
{
	const struct sm_deck_topology *t;
	unsigned int i, n;

	t = sm_deck_topologies(&n);
	for (i = 0; i < n; i++)
		if (strcmp(t[i].name, name) == 0)
			return &t[i];
	return NULL;
}

/* Every scenarios/<deck topology>.ini is the default with that topology and WAN. */
static void
test_scenario_files(void **state)
{
	const struct sm_deck_topology *t;
	struct sc_scenario s;
	struct sm_params want;
	char path[512], stem[256];
	struct dirent *de;
	unsigned int n_deck, n = 0;
	size_t len;
	DIR *d;

	d = opendir("scenarios");
	assert_non_null(d);
	while ((de = readdir(d)) != NULL) {
		len = strlen(de->d_name);
		if (len < 5 || strcmp(de->d_name + len - 4, ".ini") != 0)
			continue;
		snprintf(stem, sizeof(stem), "%.*s", (int)(len - 4), de->d_name);
		snprintf(path, sizeof(path), "scenarios/%s", de->d_name);
		load_ok(&s, path, NULL, 0);
		assert_string_equal(s.path, path);
		t = deck_find(stem);
		if (t == NULL)
			fail_msg("%s: not a deck topology", path);
		default_model(&want);
		assert_int_equal(sm_apply_topology(&want, t), 0);
		if (memcmp(&s.model, &want, sizeof(want)) != 0)
			fail_msg("%s: model differs from the default with topology %s", path, stem);
		assert_string_equal(s.name, stem);
		assert_int_equal(s.model.topo.n_dc, t->n_dc);
		assert_int_equal(s.model.topo.per_dc, t->per_dc);
		assert_true(s.model.wan.bw == sm_link_preset_find(t->wan)->link.bw);
		n++;
	}
	closedir(d);
	sm_deck_topologies(&n_deck);
	assert_int_equal(n, n_deck);
}

static void
zero_tail(char *text, size_t size)
{
	size_t n = strnlen(text, size);

	memset(text + n, 0, size - n);
}

/* Zero the bytes after the NUL of every text field, and the path (it names the file). */
static void
text_tails_zero(struct sc_scenario *s)
{
	zero_tail(s->name, sizeof(s->name));
	zero_tail(s->desc, sizeof(s->desc));
	zero_tail(s->trace.file, sizeof(s->trace.file));
	zero_tail(s->trace.capture, sizeof(s->trace.capture));
	memset(s->path, 0, sizeof(s->path));
}

/* Dump @p s, load the dump back and require the same values. */
static void
round_trip(const struct sc_scenario *s)
{
	char path[192], err[ERRLEN] = "";
	struct sc_scenario back, want;
	FILE *f;

	snprintf(path, sizeof(path), "%s/dump.ini", fx.dir);
	f = fopen(path, "w");
	assert_non_null(f);
	assert_int_equal(sc_scenario_dump(s, f), 0);
	assert_int_equal(fclose(f), 0);
	if (sc_scenario_load(&back, path, NULL, 0, err, sizeof(err)) != 0)
		fail_msg("the dump of '%s' does not load: %s", s->name, err);
	unlink(path);
	if (memcmp(&back.model, &s->model, sizeof(s->model)) != 0)
		fail_msg("the dump of '%s' loads to other model parameters", s->name);
	assert_string_equal(back.name, s->name);
	assert_string_equal(back.desc, s->desc);
	assert_int_equal(back.variants, s->variants);
	assert_int_equal(back.budgets, s->budgets);
	if (memcmp(&back.run, &s->run, sizeof(s->run)) != 0)
		fail_msg("the dump of '%s' loads to another [run]", s->name);
	if (memcmp(&back.queues, &s->queues, sizeof(s->queues)) != 0)
		fail_msg("the dump of '%s' loads to other [queues]", s->name);
	assert_string_equal(back.trace.file, s->trace.file);
	assert_string_equal(back.trace.capture, s->trace.capture);
	assert_int_equal(back.trace.snaplen, s->trace.snaplen);
	/* and every other byte, padding included (text compared up to its NUL) */
	memcpy(&want, s, sizeof(want));
	text_tails_zero(&want);
	text_tails_zero(&back);
	if (memcmp(&back, &want, sizeof(back)) != 0)
		fail_msg("the dump of '%s' does not load back to the same bytes", s->name);
}

static void
test_dump_round_trip(void **state)
{
	struct sc_scenario s;
	char path[512];
	struct dirent *de;
	unsigned int n = 0;
	DIR *d;

	sc_scenario_default(&s);
	round_trip(&s);

	d = opendir("scenarios");
	assert_non_null(d);
	while ((de = readdir(d)) != NULL) {
		if (strstr(de->d_name, ".ini") == NULL)
			continue;
		snprintf(path, sizeof(path), "scenarios/%s", de->d_name);
		load_ok(&s, path, NULL, 0);
		round_trip(&s);
		n++;
	}
	closedir(d);
	assert_true(n >= 8);

	/* Values that need every digit, a non-preset link, lists and a full table. */
	sc_scenario_default(&s);
	snprintf(s.desc, sizeof(s.desc), "a; b \\; c");
	s.model.wan.bw = 1e10 / 3.0;
	s.model.wan.lat = 0.1 + 0.2;
	s.model.intra.pj_per_bit = 1e-7;
	s.model.gpu.mfu = 0.1 + 0.2;
	s.model.job.keep = 1.0 / 3.0;
	s.model.job.params = 123456789012345678.0;
	s.model.mod.lane_rate = 14e9 / 7.0;
	s.model.mod.compute_ops = (1u << SM_OP_FFT) | (1u << SM_OP_MAC) | (1u << SM_OP_GATHER);
	s.model.mod.latency_port = 5e-324;
	s.model.steps[SM_VAR_EP] = 1e-3;
	s.model.enob.n = SM_TABLE_MAX;
	for (n = 0; n < SM_TABLE_MAX; n++) {
		s.model.enob.key[n] = 1.0 / 7.0 + n;
		s.model.enob.steps[n] = n % 2 == 0 ? 0.0 : 1800.5;
	}
	s.variants = (1u << SM_VAR_A) | (1u << SM_VAR_CP) | (1u << SM_VAR_EP);
	s.budgets = 1u << SM_BUDGET_FREE;
	round_trip(&s);
	s.variants = 0;
	s.model.mod.compute_ops = 0;
	round_trip(&s);

	/* [run], [queues] and [trace] at values other than the defaults. */
	sc_scenario_default(&s);
	s.run.steps = 1000000;
	s.run.seed = UINT64_MAX;
	s.run.pk.mtu = 1500;
	s.run.pk.payload = 1410;
	s.run.pk.account = SM_ACCOUNT_WIRE;
	s.run.pk.sync = SM_SYNC_NONE;
	s.run.pk.burst = 256;
	s.queues.nic = 1.0 / 3.0;
	s.queues.port = 1;
	s.queues.sw = 123456789;
	s.queues.wan = 1e12;
	snprintf(s.trace.file, sizeof(s.trace.file), "out/a\\;b.pcapng");
	snprintf(s.trace.capture, sizeof(s.trace.capture), "tx,rx,nic,switch,wan,module,port");
	s.trace.snaplen = 0;
	round_trip(&s);
	s.run.seed = 0;
	s.run.pk.sync = SM_SYNC_STEP;
	snprintf(s.trace.file, sizeof(s.trace.file), "none");
	snprintf(s.trace.capture, sizeof(s.trace.capture), "all");
	s.trace.snaplen = 262144;
	round_trip(&s);

	/* What cannot load back is refused, and nothing is written. */
	sc_scenario_default(&s);
	s.model.gpu.mfu = NAN;
	assert_int_equal(sc_scenario_dump(&s, stdout), -EINVAL);
	sc_scenario_default(&s);
	snprintf(s.name, sizeof(s.name), "two\nlines");
	assert_int_equal(sc_scenario_dump(&s, stdout), -EINVAL);
	assert_int_equal(sc_scenario_dump(NULL, stdout), -EINVAL);
	sc_scenario_default(&s);
	s.run.pk.sync = (enum sm_sync)7;		/* no name */
	assert_int_equal(sc_scenario_dump(&s, stdout), -EINVAL);
	sc_scenario_default(&s);
	s.run.pk.account = (enum sm_account)-1;
	assert_int_equal(sc_scenario_dump(&s, stdout), -EINVAL);
	sc_scenario_default(&s);
	snprintf(s.trace.capture, sizeof(s.trace.capture), "tx,foo");
	assert_int_equal(sc_scenario_dump(&s, stdout), -EINVAL);
	snprintf(s.trace.capture, sizeof(s.trace.capture), "tx, rx");	/* loads as "tx,rx" */
	assert_int_equal(sc_scenario_dump(&s, stdout), -EINVAL);
	snprintf(s.trace.capture, sizeof(s.trace.capture), "%s", "");
	assert_int_equal(sc_scenario_dump(&s, stdout), -EINVAL);
}

static void
test_overrides(void **state)
{
	static const char *const ovr[] = {
		"wan.bandwidth=3.125GB/s",
		" topology.data_centres = 8 ",
		"topology.workers_per_dc=1",
		"steps.C'=3000",		/* the file writes it as Cp */
		"report.variants=A, E'",
		"wan.latency=30us",		/* commented out in the file: a new entry */
		"gpu.mfu=0.5",
		"gpu.mfu=0.25",			/* the last one wins */
	};
	static const char *const preset[] = { "wan.preset=eth-25g" };
	static const char *const no_file[] = { "job.keep=1/8", "module.compute_ops=fft, mul" };
	struct sc_scenario s;

	load_ok(&s, "scenarios/2dc4-100g.ini", ovr, sizeof(ovr) / sizeof(ovr[0]));
	assert_true(s.model.wan.bw == 3.125e9);
	assert_int_equal(s.model.topo.n_dc, 8);
	assert_int_equal(s.model.topo.per_dc, 1);
	assert_true(s.model.steps[SM_VAR_CP] == 3000.0);
	assert_int_equal(s.variants, (1u << SM_VAR_A) | (1u << SM_VAR_EP));
	assert_true(s.model.wan.lat == 30e-6);
	assert_true(s.model.gpu.mfu == 0.25);

	load_ok(&s, "scenarios/2dc4-100g.ini", preset, 1);
	assert_true(s.model.wan.bw == 3.125e9);

	load_ok(&s, "scenarios/1dc8.ini", no_file, 2);	/* [job] and [module] are not in it */
	assert_true(s.model.job.keep == 0.125);
	assert_int_equal(s.model.mod.compute_ops, (1u << SM_OP_FFT) | (1u << SM_OP_MUL));

	load_ok(&s, NULL, no_file, 2);
	assert_true(s.model.job.keep == 0.125);
	assert_string_equal(s.path, "");
}

/* Each key of [run], [queues] and [trace] parses, in a file and as an override. */
static void
test_run_keys(void **state)
{
	static const char *const ovr[] = {
		"run.seed=0x00000000DeadBeef",
		"run.sync=step",
		"queues.wan=1 GiB",
		"trace.capture=all",
	};
	struct sc_scenario s;

	load_ok(&s, write_text("[run]\nsteps = 1000000\nseed = 0xffffffffffffffff\n"
			       "mtu = 1500\nframe_payload = 1410 B\naccounting = wire\n"
			       "sync = none\nburst = 1\n"
			       "[queues]\nnic = 64 KiB\nport = 1.5 MB\nswitch = 1 B\nwan = 0.5 GB\n"
			       "[trace]\nfile = out/run\\;1.pcapng\ncapture = tx , rx,wan\n"
			       "snaplen = 0\n"), NULL, 0);
	assert_true(s.run.steps == 1000000 && s.run.seed == UINT64_MAX);
	assert_true(s.run.pk.mtu == 1500 && s.run.pk.payload == 1410);
	assert_true(s.run.pk.account == SM_ACCOUNT_WIRE && s.run.pk.sync == SM_SYNC_NONE);
	assert_int_equal(s.run.pk.burst, 1);
	assert_true(s.queues.nic == 65536 && s.queues.port == 1.5e6);
	assert_true(s.queues.sw == 1 && s.queues.wan == 0.5e9);
	assert_string_equal(s.trace.file, "out/run;1.pcapng");
	assert_string_equal(s.trace.capture, "tx,rx,wan");	/* stored normalised */
	assert_int_equal(s.trace.snaplen, 0);
	round_trip(&s);

	/* The largest payload the MTU takes: MTU - 76; decimal seeds; "none"; exact bytes. */
	load_ok(&s, write_text("[run]\nseed = 18446744073709551615\nmtu = 9000\n"
			       "frame_payload = 8.924 kB\nsteps = 1\nburst = 256\n"
			       "[trace]\nfile = none\ncapture = none\nsnaplen = 262144\n"),
		NULL, 0);
	assert_true(s.run.seed == UINT64_MAX && s.run.pk.payload == 8924);
	assert_true(strcmp(s.trace.file, "none") == 0 && strcmp(s.trace.capture, "none") == 0);
	assert_int_equal(s.trace.snaplen, 262144);
	round_trip(&s);
	load_ok(&s, write_text("[run]\nseed = 0\nmtu = 576\nframe_payload = 500 B\n"), NULL, 0);
	assert_true(s.run.seed == 0 && s.run.pk.payload == 500);
	load_ok(&s, write_text("[run]\nmtu = 65000\nframe_payload = 64924 B\nseed = 007\n"), NULL,
		0);
	assert_true(s.run.pk.payload == 64924 && s.run.seed == 7);	/* decimal, not octal */

	load_ok(&s, "scenarios/2dc4-100g.ini", ovr, sizeof(ovr) / sizeof(ovr[0]));
	assert_true(s.run.seed == 0xdeadbeef && s.run.pk.sync == SM_SYNC_STEP);
	assert_true(s.queues.wan == 1073741824.0 && strcmp(s.trace.capture, "all") == 0);
	round_trip(&s);
}

/*
 * run.mtu and run.frame_payload take the same units (bytes, with or without B, kB, KiB), and
 * without frame_payload a frame carries as much as the MTU set holds (the MTU less 76 B); with
 * neither set, the built-in 9000 and 8192 B.
 */
static void
test_mtu_and_payload(void **state)
{
	static const char *const mtu1500[] = { "run.mtu=1500" };
	static const char *const both[] = { "run.mtu=1.5 kB", "run.frame_payload=1000" };
	struct sc_scenario s;

	(void)state;
	load_ok(&s, NULL, NULL, 0);
	assert_true(s.run.pk.mtu == 9000 && s.run.pk.payload == 8192);
	load_ok(&s, NULL, mtu1500, 1);
	assert_true(s.run.pk.mtu == 1500 && s.run.pk.payload == 1424);
	round_trip(&s);
	/* a payload set (the file's 8192 B) is kept, and must fit */
	expect_bad_set("scenarios/2dc4-100g.ini", "run.mtu=1500", "inconsistent scenario",
		       "run.frame_payload: 8192 not in 1..1424", NULL);
	load_ok(&s, NULL, both, 2);
	assert_true(s.run.pk.mtu == 1500 && s.run.pk.payload == 1000);
	load_ok(&s, write_text("[run]\nmtu = 9 kB\n"), NULL, 0);
	assert_true(s.run.pk.mtu == 9000 && s.run.pk.payload == 8924);
	load_ok(&s, write_text("[run]\nmtu = 4 KiB\nframe_payload = 4000\n"), NULL, 0);
	assert_true(s.run.pk.mtu == 4096 && s.run.pk.payload == 4000);
	load_ok(&s, write_text("[run]\nmtu = 1500 B\nframe_payload = 1410 B\n"), NULL, 0);
	assert_true(s.run.pk.mtu == 1500 && s.run.pk.payload == 1410);
}

/* A file without [scenario] name is named after the file; with one, it keeps it. */
static void
test_name_from_file(void **state)
{
	static const char *const named[] = { "scenario.name=given" };
	struct sc_scenario s;
	const char *path = write_text("[run]\nsteps = 3\n");
	char stem[64];
	const char *base = strrchr(path, '/') + 1;

	(void)state;
	snprintf(stem, sizeof(stem), "%.*s", (int)(strlen(base) - 4), base);
	load_ok(&s, path, NULL, 0);
	assert_string_equal(s.name, stem);
	assert_non_null(strstr(s.desc, base));
	round_trip(&s);
	load_ok(&s, path, named, 1);
	assert_string_equal(s.name, "given");
	load_ok(&s, write_text("[scenario]\nname = mine\ndescription = d\n"), NULL, 0);
	assert_string_equal(s.name, "mine");
	assert_string_equal(s.desc, "d");
	load_ok(&s, NULL, NULL, 0);
	assert_string_equal(s.name, "2dc4-100g");		/* the built-in default */
}

static void
test_bad_overrides(void **state)
{
	const char *ref = "scenarios/2dc4-100g.ini";

	expect_bad_set(ref, "wan.bandwith=1GB/s", "--set 'wan.bandwith=1GB/s'", "unknown key",
		       "did you mean 'bandwidth'", NULL);
	expect_bad_set(ref, "wan.bandwidth=12.5", "--set 'wan.bandwidth=12.5'",
		       "[wan] bandwidth = '12.5'", "needs a unit", "GB/s", NULL);
	expect_bad_set(ref, "gpu.mfu=2", "--set 'gpu.mfu=2'", "[gpu] mfu = '2'",
		       "not between 0 and 1", NULL);
	expect_bad_set(ref, "wanbandwidth=1", "--set 'wanbandwidth=1'", "missing '.'", NULL);
	expect_bad_set(ref, "wan.bandwidth", "--set 'wan.bandwidth'", "missing '='", NULL);
	expect_bad_set(ref, "wann.bandwidth=1GB/s", "--set", "unknown section [wann]",
		       "did you mean [wan]", NULL);
	expect_bad_set(ref, "wan.bandwidth=", "--set", "empty value", NULL);
	expect_bad_set(ref, ".x=1", "--set", "bad section or key name", NULL);
	/* The whole is checked after the overrides, and the message points at them. */
	expect_bad_set("scenarios/1dc8.ini", "topology.workers_per_dc=1",
		       "--set 'topology.workers_per_dc=1'", "inconsistent scenario",
		       "at least 2 workers", NULL);
	expect_bad_set(NULL, "breakeven.bandwidth_min=2TB/s", "inconsistent scenario",
		       "breakeven.bandwidth_min", NULL);
}

/*
 * One override alone, by the loader's own parser (what a command-line option is checked with),
 * named as the option the user typed; and a whole-scenario error naming that option.
 */
static void
test_override_check(void **state)
{
	const char *sets[2] = { "run.frame_payload=9000", NULL };
	const char *from[2] = { "-V", NULL };
	char err[ERRLEN];
	struct sc_scenario s;

	(void)state;
	assert_int_equal(sc_override_check("run.steps=5", "-n", err, sizeof(err)), 0);
	assert_int_equal(sc_override_check("run.seed=0x10", "--seed", err, sizeof(err)), 0);
	assert_int_equal(sc_override_check("trace.capture=tx,rx", "-c", err, sizeof(err)), 0);
	assert_int_equal(sc_override_check("run.steps=0", "-n", err, sizeof(err)), -EINVAL);
	assert_has(err, "-n '0' (run.steps): out of range (allowed: 1..1000000)");
	assert_null(strstr(err, "--set"));
	assert_int_equal(sc_override_check("run.seed=-1", "--seed", err, sizeof(err)), -EINVAL);
	assert_has(err, "--seed '-1' (run.seed): no sign allowed (allowed: 0..18446744073709551615");
	assert_int_equal(sc_override_check("trace.snaplen=999999999", "--snaplen", err,
					   sizeof(err)), -EINVAL);
	assert_has(err, "--snaplen '999999999' (trace.snaplen): out of range (allowed: 0..262144)");
	assert_int_equal(sc_override_check("trace.capture=nosuch", "--capture", err, sizeof(err)),
			 -EINVAL);
	assert_has(err, "--capture 'nosuch' (trace.capture): unknown name 'nosuch' (allowed: a comma list of tx");
	assert_int_equal(sc_override_check("background.load=1", "-l", err, sizeof(err)), -EINVAL);
	assert_has(err, "-l '1' (background.load): out of range (allowed: [0, 1))");
	assert_int_equal(sc_override_check("run.steps=", "-n", err, sizeof(err)), -EINVAL);
	assert_has(err, "empty value");
	/* without an option: the loader's own message */
	assert_int_equal(sc_override_check("run.steps=0", NULL, err, sizeof(err)), -EINVAL);
	assert_has(err, "--set 'run.steps=0': [run] steps = '0': out of range");
	assert_int_equal(sc_override_check("wan.bandwith=1GB/s", NULL, err, sizeof(err)),
			 -ENOENT);
	assert_has(err, "did you mean 'bandwidth'");
	/* what only the whole can check passes alone */
	assert_int_equal(sc_override_check("run.frame_payload=9000", "-V", err, sizeof(err)), 0);
	assert_int_equal(sc_scenario_load_from(&s, NULL, sets, from, 1, err, sizeof(err)),
			 -EINVAL);
	assert_has(err, "-V '9000' (run.frame_payload): inconsistent scenario: run.frame_payload");
	/* names */
	assert_int_equal(sc_key_name_check("wan.bandwidth", "--key", err, sizeof(err)), 0);
	assert_int_equal(sc_key_name_check("Ep", "--key", err, sizeof(err)), -EINVAL);
	assert_has(err, "--key 'Ep': not a key");
	assert_int_equal(sc_key_name_check("wan.bandwith", "--key", err, sizeof(err)), -ENOENT);
	assert_has(err, "--key 'wan.bandwith': [wan] bandwith: unknown key; did you mean "
		   "'bandwidth'");
	assert_int_equal(sc_key_name_check("wann.bandwidth", "--key", err, sizeof(err)), -ENOENT);
	assert_has(err, "unknown section [wann]");
	assert_int_equal(sc_key_name_check("wan.bandwidth=1", "--key", err, sizeof(err)), -EINVAL);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_default),
		cmocka_unit_test(test_default_run),
		cmocka_unit_test(test_scenario_files),
		cmocka_unit_test(test_dump_round_trip),
		cmocka_unit_test(test_overrides),
		cmocka_unit_test(test_run_keys),
		cmocka_unit_test(test_mtu_and_payload),
		cmocka_unit_test(test_name_from_file),
		cmocka_unit_test(test_bad_overrides),
		cmocka_unit_test(test_override_check),
		cmocka_unit_test(test_preset_order),
		cmocka_unit_test(test_syntax_accepted),
		cmocka_unit_test(test_missing_file),
		cmocka_unit_test(test_bad_syntax),
		cmocka_unit_test(test_nul_byte),
		cmocka_unit_test(test_bad_values),
		cmocka_unit_test(test_keys),
		cmocka_unit_test(test_port_links),
	};

	return tc_group_result(cmocka_run_group_tests(tests, setup, teardown), fx.dir);
}
