/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Tier 1 tests of control/scenario.c (no EAL): every file in scenarios/ loads to the deck's
 * defaults plus its topology, the [run], [queues] and [trace] keys parse to their fields, the
 * dump round-trips, --set overrides work, and each kind of bad input is rejected with a message
 * naming file:line, [section], key, value and the reason.
 * Bad fixtures are written into a mkdtemp() directory.  Run from the project root.
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
#include "../models/packet.h"
#include "../models/presets.h"
#include "../models/variant.h"

#define ERRLEN 2048

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
static const char *
write_file(const char *text, size_t len)
{
	return tc_write_file(&fx, NULL, text, len);
}

static const char *
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

static void
expect_bad(const char *text, int line, ...)
{
	const char *path = write_text(text);
	va_list ap;

	va_start(ap, line);
	expect_bad_v(path, NULL, 0, -EINVAL, line, ap);
	va_end(ap);
}

static void
expect_bad_set(const char *path, const char *ovr, ...)
{
	va_list ap;

	va_start(ap, ovr);
	expect_bad_v(path, &ovr, 1, -EINVAL, 0, ap);
	va_end(ap);
}

static void
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

static void
test_preset_order(void **state)
{
	struct sc_scenario s;

	/* An explicit key beats the preset of its section, before or after it. */
	load_ok(&s, write_text("[wan]\nbandwidth = 1 GB/s\npreset = eth-25g\n"), NULL, 0);
	assert_true(s.model.wan.bw == 1e9);
	assert_true(s.model.wan.lat == 20e-6);
	load_ok(&s, write_text("[wan]\npreset = ib-ndr\nlatency = 30 us\n"), NULL, 0);
	assert_true(s.model.wan.bw == 50e9);
	assert_true(s.model.wan.lat == 30e-6);
	/* A preset touches only its own section. */
	load_ok(&s, write_text("[intra]\nbandwidth = 40 GB/s\nlatency = 1 us\n"
			       "[wan]\npreset = nvlink4\n"), NULL, 0);
	assert_true(s.model.intra.bw == 40e9);
	assert_true(s.model.wan.bw == 450e9);
}

static void
test_syntax_accepted(void **state)
{
	struct sc_scenario s;

	/* Comments after values, escaped ';', CRLF, blanks, a micro sign, no final newline. */
	load_ok(&s, write_text("; comment\r\n\r\n[scenario]\r\n  name =  x  ; trailing\r\n"
			       "description = a\\;b ; c\r\n[ wan ]\r\nlatency=30 \xc2\xb5s"), NULL, 0);
	assert_string_equal(s.name, "x");
	/* rte_cfgfile: an escaped first ';' means the rest of the line is value. */
	assert_string_equal(s.desc, "a;b ; c");
	assert_true(s.model.wan.lat == 30e-6);
	/* The aliases of C' and E'. */
	load_ok(&s, write_text("[steps]\nC' = 100\nE' = 200\n"), NULL, 0);
	assert_true(s.model.steps[SM_VAR_CP] == 100.0);
	assert_true(s.model.steps[SM_VAR_EP] == 200.0);
	/* A table with "never" and 0. */
	load_ok(&s, write_text("[steps]\nplanes = 2:never, 4:0, 9:1000.5\n"), NULL, 0);
	assert_int_equal(s.model.planes.n, 3);
	assert_true(s.model.planes.steps[0] == 0.0 && s.model.planes.steps[1] == 0.0);
	assert_true(s.model.planes.key[2] == 9.0 && s.model.planes.steps[2] == 1000.5);
	assert_true(s.model.planes.key[3] == 0.0);
	/* Empty sections are fine. */
	load_ok(&s, write_text("[gpu]\n[job]\n"), NULL, 0);
}

static void
test_missing_file(void **state)
{
	struct sc_scenario s, before;
	char err[ERRLEN];

	memset(&s, 0x5a, sizeof(s));
	memcpy(&before, &s, sizeof(s));
	assert_int_equal(sc_scenario_load(&s, "scenarios/no-such-file.ini", NULL, 0, err,
					  sizeof(err)), -ENOENT);
	assert_has(err, "scenarios/no-such-file.ini");
	assert_has(err, "cannot open");
	assert_memory_equal(&s, &before, sizeof(s));
}

static void
test_bad_syntax(void **state)
{
	char long_line[400], long_value[400], long_key[200];

	expect_bad("[scenario]\nname = x\n[wann]\nbandwidth = 1 GB/s\n", 3,
		   "unknown section [wann]", "did you mean [wan]", "sections: scenario", NULL);
	expect_bad("[wan]\nlatency = 1 us\n[gpu]\nmfu = 0.5\n[wan]\n", 5,
		   "duplicate section [wan]", "first at line 1", NULL);
	expect_bad("[wan]\nlatency = 1 us\nlatency = 2 us\n", 3,
		   "[wan] duplicate key 'latency'", "first at line 2", NULL);
	expect_bad("[steps]\nCp = 1\nC' = 2\n", 3, "[steps] C' = '2'", "duplicate key", "'Cp'",
		   NULL);
	expect_bad("[wan]\nbandwidth 12.5 GB/s\n", 2, "missing '='", "bandwidth 12.5 GB/s", NULL);
	expect_bad("[wan]\njust words\n", 2, "missing '='", NULL);
	expect_bad("[wan\nlatency = 1 us\n", 1, "missing ']'", NULL);
	expect_bad("[wan] x\n", 1, "unexpected text after ']'", NULL);
	expect_bad("[]\n", 1, "bad section name", NULL);
	expect_bad("latency = 1 us\n[wan]\n", 1, "key 'latency' before any [section]", NULL);
	expect_bad("[wan]\nbandwidth =\n", 2, "[wan] bandwidth: empty value", NULL);
	expect_bad("[wan]\nbandwidth = ; comment\n", 2, "empty value", NULL);
	expect_bad("[wan]\n= 1 GB/s\n", 2, "empty key", NULL);
	expect_bad("# comment\n[wan]\n", 1, "'#' does not start a comment", "use ';'", NULL);
	expect_bad("[wan]\nlat ency = 1 us\n", 2, "bad key 'lat ency'", NULL);
	expect_bad("[wan]\nlatency = 1 us\x01\n", 2, "control character", NULL);
	expect_bad("[wan]\nlatency = 1 \xff us\n", 2, "invalid UTF-8", NULL);

	memset(long_line, 'x', sizeof(long_line));
	memcpy(long_line, "[wan]\n; ", 8);
	long_line[sizeof(long_line) - 1] = '\0';
	expect_bad(long_line, 2, "line too long", "at most 322", NULL);

	snprintf(long_value, sizeof(long_value), "[scenario]\ndescription = %0300d\n", 7);
	expect_bad(long_value, 2, "[scenario] description: value too long", "at most 255", NULL);
	snprintf(long_value, sizeof(long_value), "[scenario]\nname = %0100d\n", 7);
	expect_bad(long_value, 2, "[scenario] name = '0000", "too long", "at most 63", NULL);
	memset(long_key, 'k', sizeof(long_key));
	memcpy(long_key, "[wan]\n", 6);
	snprintf(long_key + 80, sizeof(long_key) - 80, " = 1\n");
	expect_bad(long_key, 2, "bad key", "1 to 63", NULL);
	memset(long_key, 's', sizeof(long_key));
	long_key[0] = '[';
	snprintf(long_key + 80, sizeof(long_key) - 80, "]\n");
	expect_bad(long_key, 1, "bad section name", NULL);
}

static void
test_nul_byte(void **state)
{
	static const char text[] = "[wan]\nlat\0ency = 1 us\n";
	const char *path = write_file(text, sizeof(text) - 1);
	struct sc_scenario s;
	char err[ERRLEN], where[256];

	assert_int_equal(sc_scenario_load(&s, path, NULL, 0, err, sizeof(err)), -EINVAL);
	snprintf(where, sizeof(where), "%s:2: column 4: NUL byte", path);
	assert_has(err, where);
}

static void
test_bad_values(void **state)
{
	expect_bad("[wan]\nbandwith = 12.5 GB/s\n", 2, "[wan] bandwith = '12.5 GB/s'",
		   "unknown key", "did you mean 'bandwidth'", "keys of [wan]: preset, bandwidth",
		   NULL);
	expect_bad("[gpu]\nbandwidth = 1 GB/s\n", 2, "unknown key", "is a key of [intra]", NULL);
	expect_bad("[wan]\n\nbandwidth = 12.5GB\n", 3, "[wan] bandwidth = '12.5GB'",
		   "unknown unit 'GB'", "GB/s", NULL);
	expect_bad("[intra]\nlatency = 20\n", 2, "[intra] latency = '20'", "needs a unit",
		   "us", NULL);
	expect_bad("[wan]\nbandwidth = 0 GB/s\n", 2, "[wan] bandwidth = '0 GB/s'",
		   "out of range", "> 0", NULL);
	expect_bad("[module]\nport = -1 GB/s\n", 2, "[module] port = '-1 GB/s'", "out of range",
		   NULL);
	expect_bad("[gpu]\nmfu = 1.5\n", 2, "[gpu] mfu = '1.5'", "not between 0 and 1", NULL);
	expect_bad("[gpu]\nmfu = 0\n", 2, "[gpu] mfu = '0'", "out of range", "(0, 1]", NULL);
	expect_bad("[gpu]\npeak = 0x10 TFLOP/s\n", 2, "hexadecimal", NULL);
	expect_bad("[gpu]\npeak = inf TFLOP/s\n", 2, "not a finite number", NULL);
	expect_bad("[gpu]\npeak = 1e999 TFLOP/s\n", 2, "too large", NULL);
	expect_bad("[topology]\ndata_centres = 2.5\n", 2, "[topology] data_centres = '2.5'",
		   "not an integer >= 0", NULL);
	expect_bad("[topology]\ndata_centres = 65\n", 2, "out of range", "1..64", NULL);
	expect_bad("[breakeven]\ntolerance = 0.5\n", 2, "out of range", "(0, 0.1)", NULL);
	expect_bad("[report]\nvariants = A, F\n", 2, "[report] variants = 'A, F'",
		   "unknown variant 'F'", "A, B, C, E, C', E'", NULL);
	expect_bad("[report]\nvariants = A, A\n", 2, "'A' listed twice", NULL);
	expect_bad("[report]\nvariants = A, all\n", 2, "'all' must stand alone", NULL);
	expect_bad("[report]\nvariants = A,,B\n", 2, "empty item", NULL);
	expect_bad("[report]\nbudgets = low, medium\n", 2, "unknown budget 'medium'",
		   "low, high, free", NULL);
	expect_bad("[module]\ncompute_ops = fft, foo\n", 2, "unknown op 'foo'", "gather", NULL);
	expect_bad("[wan]\npreset = eth-10g\n", 2, "[wan] preset = 'eth-10g'", "unknown preset",
		   "eth-100g, eth-25g", NULL);
	expect_bad("[steps]\nenob = 8:1800, 6:never\n", 2, "[steps] enob = '8:1800, 6:never'",
		   "knobs must ascend: 6 after 8", NULL);
	expect_bad("[steps]\nenob = 6:nevr, 8:1800\n", 2, "entry '6:nevr'",
		   "a number >= 0 or 'never'", NULL);
	expect_bad("[steps]\nenob = never:1800\n", 2, "entry 1: knob 'never' is not a number",
		   NULL);
	expect_bad("[steps]\nenob = 6:-5\n", 2, "'never'", NULL);
	expect_bad("[steps]\nenob = 6\n", 2, "expected knob:steps", NULL);
	expect_bad("[steps]\nenob = 1:1, 2:1, 3:1, 4:1, 5:1, 6:1, 7:1, 8:1, 9:1\n", 2,
		   "more than 8 entries", NULL);
	expect_bad("[steps]\nA = 0\n", 2, "[steps] A = '0'", "out of range", NULL);
	/* [run], [queues], [trace] */
	expect_bad("[run]\nseed = -1\n", 2, "[run] seed = '-1'", "no sign",
		   "0..18446744073709551615, decimal or 0x hex", NULL);
	expect_bad("[run]\nseed = 1e3\n", 2, "[run] seed = '1e3'", "not a decimal integer",
		   "0..18446744073709551615", NULL);
	expect_bad("[run]\nseed = 18446744073709551616\n", 2,
		   "[run] seed = '18446744073709551616'", "too large", "0..18446744073709551615",
		   NULL);
	expect_bad("[run]\nseed = 0x10000000000000000\n", 2, "too large", NULL);
	expect_bad("[run]\nseed = 0x\n", 2, "not a 0x hex integer", NULL);
	expect_bad("[run]\nseed = 0x1g\n", 2, "not a 0x hex integer", NULL);
	expect_bad("[run]\nseed = 1.0\n", 2, "not a decimal integer", NULL);
	expect_bad("[run]\naccounting = bytes\n", 2, "[run] accounting = 'bytes'",
		   "unknown value", "(allowed: payload, wire)", NULL);
	expect_bad("[run]\naccounting = Wire\n", 2, "unknown value", NULL);
	expect_bad("[run]\nsync = maybe\n", 2, "[run] sync = 'maybe'", "unknown value",
		   "(allowed: phase, step, none)", NULL);
	expect_bad("[run]\nmtu = 9000\nframe_payload = 9000 B\nsteps = 5\n", 3,
		   "inconsistent scenario", "run.frame_payload: 9000 not in 1..8924",
		   "MTU 9000", NULL);
	expect_bad("[run]\nmtu = 100\n", 2, "[run] mtu = '100'", "out of range",
		   "576..65000 B", NULL);
	expect_bad("[run]\nmtu = 1500.5\n", 2, "[run] mtu = '1500.5'",
		   "not a whole number of bytes", NULL);
	expect_bad("[run]\nmtu = 1500 bytes\n", 2, "[run] mtu = '1500 bytes'", "unknown unit",
		   NULL);
	expect_bad("[run]\nframe_payload = 9000\n", 2, "inconsistent scenario",
		   "run.frame_payload: 9000 not in 1..8924", NULL);
	expect_bad("[run]\nframe_payload = 1410.5 B\n", 2, "not a whole number of bytes",
		   "1..64924 B, whole bytes", NULL);
	expect_bad("[run]\nframe_payload = 0 B\n", 2, "out of range", "1..64924 B", NULL);
	expect_bad("[run]\nsteps = 0\n", 2, "[run] steps = '0'", "1..1000000", NULL);
	expect_bad("[run]\nburst = 257\n", 2, "[run] burst = '257'", "1..256", NULL);
	expect_bad("[queues]\nwan = 0 B\n", 2, "[queues] wan = '0 B'", "out of range", "> 0",
		   NULL);
	expect_bad("[queues]\nswitch = 16\n", 2, "[queues] switch = '16'", "needs a unit",
		   NULL);
	expect_bad("[queues]\nswich = 1 MB\n", 2, "unknown key", "did you mean 'switch'", NULL);
	expect_bad("[trace]\ncapture = tx,foo\n", 2, "[trace] capture = 'tx,foo'",
		   "unknown name 'foo'", "tx, rx, nic, switch, wan, module, port, bg, eth, all, none", NULL);
	expect_bad("[trace]\ncapture = tx,tx\n", 2, "'tx' listed twice", NULL);
	expect_bad("[trace]\ncapture = tx,all\n", 2, "'all' must stand alone", NULL);
	expect_bad("[trace]\ncapture = tx,,rx\n", 2, "empty item", NULL);
	expect_bad("[trace]\nsnaplen = 300000\n", 2, "[trace] snaplen = '300000'",
		   "out of range", "0..262144", NULL);
	expect_bad_set("scenarios/2dc4-100g.ini", "run.mtu=1000", "inconsistent scenario",
		       "run.frame_payload: 8192 not in 1..924", NULL);
	expect_bad_set(NULL, "run.accounting=bytes", "--set 'run.accounting=bytes'",
		       "unknown value", "payload, wire", NULL);
	/* sm_params_check() runs after all keys and names the section's line. */
	expect_bad("[scenario]\nname = x\n[topology]\ndata_centres = 1\nworkers_per_dc = 1\n", 3,
		   "inconsistent scenario", "topology: needs at least 2 workers, has 1", NULL);
	expect_bad("[breakeven]\nbudget_min = 1 GFLOP/s\nbudget_max = 1 GFLOP/s\n", 1,
		   "inconsistent scenario", "breakeven.budget_min/max", NULL);
}

static void
test_keys(void **state)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	f = open_memstream(&buf, &len);
	assert_non_null(f);
	sc_scenario_keys(f, 0);
	assert_int_equal(fclose(f), 0);
	assert_has(buf, "wan.bandwidth");
	assert_has(buf, "12.5 GB/s");
	assert_has(buf, "steps.Cp (or C')");
	assert_has(buf, "report.budgets");
	assert_has(buf, "Gbit/s");
	assert_has(buf, "0..18446744073709551615, decimal or 0x hex");
	assert_has(buf, "(payload, wire)");
	assert_has(buf, "(phase, step, none)");
	assert_has(buf, "run.frame_payload          size            8192 B");
	assert_has(buf, "queues.switch              size            16 MB");
	assert_has(buf, "a sync's WAN rounds queue up to a whole round of a data centre's flows");
	assert_has(buf, "tx, rx, nic, switch, wan, module, port, bg, eth, all, none");
	free(buf);

	buf = NULL;
	f = open_memstream(&buf, &len);
	assert_non_null(f);
	sc_scenario_keys(f, 1);
	assert_int_equal(fclose(f), 0);
	assert_has(buf, "| Key | Type | Default | Allowed | Description |");
	assert_has(buf, "| `wan.bandwidth` | byte rate | 12.5 GB/s | > 0 |");
	assert_has(buf, "| `gpu.mfu` | fraction | 0.4 | (0, 1] |");
	assert_has(buf, "| `intra.preset` | link preset | ib-ndr |");
	assert_has(buf, "| `run.steps` | count | 200 | 1..1000000 |");
	assert_has(buf, "| `run.seed` | 64-bit integer | 1 |");
	assert_has(buf, "| `run.mtu` | size | 9000 B | 576..65000 B, whole bytes |");
	assert_has(buf, "| `run.frame_payload` | size | 8192 B | 1..64924 B, whole bytes |");
	assert_has(buf, "| `run.accounting` | choice | payload | payload, wire |");
	assert_has(buf, "| `run.sync` | choice | phase | phase, step, none |");
	assert_has(buf, "| `queues.nic` | size | 2 MB | > 0 | queue limit of a worker's NIC, "
		   "in frame bytes |");
	assert_has(buf, "| `queues.wan` | size | 64 MB | > 0 |");
	assert_has(buf, "| `trace.file` | text | - |");
	assert_has(buf, "| `trace.capture` | name list | wan | a comma list of tx, rx, nic, "
		   "switch, wan, module, port, bg, eth, all, none |");
	assert_has(buf, "| `trace.snaplen` | count | 90 | 0..262144 |");
	free(buf);
}

/* [ports] linkN: the links of the topology, one or two devices, the reasons for the rest. */
static void
test_port_links(void **state)
{
	struct sc_port_link l;
	char why[320];

	(void)state;
	assert_int_equal(sc_port_link_parse("w5.nic ring:a", 2, 4, &l, why, sizeof(why)), 0);
	assert_string_equal(l.name, "w5.nic");
	assert_string_equal(l.tx, "ring:a");
	assert_string_equal(l.rx, "ring:a");
	assert_int_equal(l.worker, 5);
	assert_int_equal(l.dc, 1);
	assert_int_equal(sc_port_link_parse("dc1>m7  net_af_packet0,iface=va\tnet_af_packet1,iface=vb",
					    2, 4, &l, why, sizeof(why)), 0);
	assert_string_equal(l.name, "dc1>m7");
	assert_string_equal(l.tx, "net_af_packet0,iface=va");
	assert_string_equal(l.rx, "net_af_packet1,iface=vb");
	assert_int_equal(l.worker, 7);
	assert_int_equal(l.dc, 1);
	assert_int_equal(sc_port_link_parse("dc0>w3 ring:b", 2, 4, &l, why, sizeof(why)), 0);
	assert_int_equal(l.dc, 0);
	assert_int_equal(sc_port_link_parse("w6.port ring:c", 2, 4, &l, why, sizeof(why)), 0);
	assert_string_equal(l.name, "w6.port");
	assert_int_equal(l.dc, 1);

	static const struct {
		const char *value, *why;
	} bad[] = {
		{ "w8.nic ring:a", "the topology has 8 workers" },
		{ "dc0>w4 ring:a", "worker 4 is in data centre 1, not 0" },
		{ "wan0>1 ring:a", "is not a link" },
		{ "w0.nicx ring:a", "is not a link" },
		{ "w0.ports ring:a", "is not a link" },
		{ "w8.port ring:a", "the topology has 8 workers" },
		{ "dc0>x1 ring:a", "is not a link" },
		{ "w-1.nic ring:a", "is not a link" },
		{ "w0.nic", "got 1 word" },
		{ "w0.nic a b c", "got 4 words" },
		{ "w0.nic net_null0", "needs a second device" },
		{ "w0.nic ring:a ring:b", "both ends of the link" },
		{ "w0.nic net_null0 net_null0", "the two devices are the same" },
	};
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		why[0] = '\0';
		assert_int_equal(sc_port_link_parse(bad[i].value, 2, 4, &l, why, sizeof(why)),
				 -EINVAL);
		if (strstr(why, bad[i].why) == NULL)
			fail_msg("'%s': '%s' does not say '%s'", bad[i].value, why, bad[i].why);
	}
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

	return cmocka_run_group_tests(tests, setup, teardown);
}
