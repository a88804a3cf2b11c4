/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Tier 1 tests of what a scenario's values can reach (no EAL): a list item that names nothing
 * is refused without reading what its parser did not write (the stack is filled with a pattern
 * first, so that a read of it is an out-of-range shift UndefinedBehaviorSanitizer reports every
 * time); and every limit of the widths values go into (control/scenario_limits.c) refuses a
 * value above it naming the key and the largest value that works, which loads, while the next
 * value above it does not; where the width can be computed here (a time in ps, a rate, the
 * rounds and frames of a program), the largest value is checked against it independently.
 * Run from the project root.
 */
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
#include "units.h"
#include "../dataplane/run.h"
#include "../models/kernel.h"
#include "../models/packet.h"
#include "../models/variant.h"

#define ERRLEN 2048

static struct sc_scenario sc;

/* Fill the stack the next calls will use with 0x5a: an unset enum there reads 0x5a5a5a5a. */
static void __attribute__((noinline))
poison_stack(void)
{
	volatile unsigned char junk[256 * 1024];
	size_t i;

	for (i = 0; i < sizeof(junk); i++)
		junk[i] = 0x5a;
}

static int
load_set(const char *set, char *err)
{
	const char *sets[1] = { set };

	poison_stack();
	return sc_scenario_load(&sc, NULL, sets, 1, err, ERRLEN);
}

/* An unknown variant, budget or op in a list: refused, naming it; nothing unset is read. */
static void
test_unknown_list_items(void **state)
{
	static const struct {
		const char *set, *want;
	} bad[] = {
		{ "report.variants=zz", "unknown variant 'zz'" },
		{ "report.variants=A,zz", "unknown variant 'zz'" },
		{ "report.budgets=zz", "unknown budget 'zz'" },
		{ "report.budgets=low,zz,high", "unknown budget 'zz'" },
		{ "module.compute_ops=zz", "unknown op 'zz'" },
		{ "module.compute_ops=fft,zz", "unknown op 'zz'" },
		{ "report.variants=A,,B", "empty item" },
	};
	char err[ERRLEN];
	unsigned int i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_equal(load_set(bad[i].set, err), -EINVAL);
		assert_has(err, bad[i].want);
		assert_has(err, bad[i].set);
	}
	/* and the good ones still parse */
	assert_int_equal(load_set("report.variants=A,E'", err), 0);
	assert_int_equal(sc.variants, (1u << SM_VAR_A) | (1u << SM_VAR_EP));
	assert_int_equal(load_set("module.compute_ops=fft,mac", err), 0);
	assert_int_equal(sc.model.mod.compute_ops, (1u << SM_OP_FFT) | (1u << SM_OP_MAC));
}

/* ---- limits ---- */

/* A refusal at a limit, and the value that works. */
struct refusal {
	char text[ERRLEN];
	char value[128];	/* "the largest (smallest) value that works is <value> (with" */
	int dir;		/* 1: largest, -1: smallest */
};

static int
load_for(const char *path, const char *const *sets, unsigned int n, bool run,
	 unsigned int variants, char *err)
{
	if (run)
		return sc_scenario_load_run(&sc, path, sets, NULL, n, variants, 0, err, ERRLEN);
	return sc_scenario_load(&sc, path, sets, n, err, ERRLEN);
}

/* @p extra (NULL-terminated) then @p set. */
static int
load_with(const char *path, const char *const *extra, const char *set, bool run,
	  unsigned int variants, char *err)
{
	const char *sets[16];
	unsigned int n = 0;

	while (extra != NULL && extra[n] != NULL && n < 15) {
		sets[n] = extra[n];
		n++;
	}
	sets[n++] = set;
	return load_for(path, sets, n, run, variants, err);
}

static void
refusal_of(const char *err, struct refusal *r)
{
	const char *p, *q, *lead;

	snprintf(r->text, sizeof(r->text), "%s", err);

	r->dir = strstr(err, "the smallest value that works is ") != NULL ? -1 : 1;
	lead = r->dir > 0 ? "the largest value that works is " : "the smallest value that works is ";
	p = strstr(err, lead);
	if (p == NULL)
		fail_msg("no value that works in '%s'", err);
	p += strlen(lead);
	q = strstr(p, " (with");
	assert_non_null(q);
	snprintf(r->value, sizeof(r->value), "%.*s", (int)(q - p), p);
}

/* A case: what to set (after @c extra), the key it names, and the reason. */
struct limit_case {
	const char *path;		/* scenario file, NULL: the default */
	bool run;			/* a run's limit (sc_scenario_load_run) */
	unsigned int variants;		/* run: 0 = the scenario's */
	const char *extra[4];
	const char *set;		/* "section.key=value", over the limit */
	const char *key;		/* "section.key" */
	enum sc_unit_kind unit;		/* of the key (SC_UNIT_COUNT: an integer) */
	const char *named;		/* "[section] key = '" */
	const char *reason;
};

static const struct limit_case cases[] = {
	/* the model's: every load */
	{ NULL, false, 0, { NULL }, "intra.latency=1e300 s", "intra.latency", SC_UNIT_TIME,
	  "[intra] latency = '1e300 s'", "64 bits of a time in picoseconds" },
	{ NULL, false, 0, { NULL }, "wan.latency=1e300 s", "wan.latency", SC_UNIT_TIME,
	  "[wan] latency = '1e300 s'", "64 bits of a time in picoseconds" },
	{ NULL, false, 0, { NULL }, "wan.latency=1 us", "wan.latency", SC_UNIT_TIME,
	  "[wan] latency = '1 us': too small", "is below intra.latency (10 us)" },
	{ NULL, false, 0, { NULL }, "intra.latency=1 ms", "intra.latency", SC_UNIT_TIME,
	  "[intra] latency = '1 ms': too large", "is below intra.latency (1000 us)" },
	{ NULL, false, 0, { NULL }, "module.latency_pluggable=2e7 s", "module.latency_pluggable",
	  SC_UNIT_TIME, "[module] latency_pluggable", "64 bits of a time in picoseconds" },
	{ NULL, false, 0, { NULL }, "module.latency_network=1e10 s", "module.latency_network",
	  SC_UNIT_TIME, "[module] latency_network", "64 bits of a time in picoseconds" },
	{ NULL, false, 0, { NULL }, "trace.queue_sample=1e7 s", "trace.queue_sample", SC_UNIT_TIME,
	  "[trace] queue_sample", "64 bits of a time in picoseconds" },
	{ NULL, false, 0, { NULL }, "intra.bandwidth=1e20 B/s", "intra.bandwidth",
	  SC_UNIT_BYTE_RATE, "[intra] bandwidth", "integer rates" },
	{ NULL, false, 0, { NULL }, "wan.bandwidth=1e30 B/s", "wan.bandwidth", SC_UNIT_BYTE_RATE,
	  "[wan] bandwidth = '1e30 B/s'", "integer rates" },
	{ NULL, false, 0, { NULL }, "module.port=1e21 B/s", "module.port", SC_UNIT_BYTE_RATE,
	  "[module] port", "integer rates" },
	{ NULL, false, 0, { NULL }, "background.host_rate=1e25 B/s", "background.host_rate",
	  SC_UNIT_BYTE_RATE, "[background] host_rate", "integer rates" },
	{ NULL, false, 0, { NULL }, "module.lane_rate=1e30 bit/s", "module.lane_rate",
	  SC_UNIT_BIT_RATE, "[module] lane_rate", "optics stage" },
	{ NULL, false, 0, { NULL }, "module.ops_fft=1e-40", "module.ops_fft", SC_UNIT_NUMBER,
	  "[module] ops_fft", "compute stage" },
	{ NULL, false, 0, { NULL }, "job.parameters=1e308", "job.parameters", SC_UNIT_NUMBER,
	  "[job] parameters = '1e308'", "not a finite number of seconds" },
	{ NULL, false, 0, { NULL }, "gpu.peak=1e-310 FLOP/s", "gpu.peak", SC_UNIT_FLOP_RATE,
	  "[gpu] peak", "not a finite number of seconds" },
	/* a run's */
	{ NULL, true, 0, { "topology.data_centres=64", "job.collective=ring", NULL },
	  "topology.workers_per_dc=1024", "topology.workers_per_dc",
	  SC_UNIT_COUNT, "[topology] workers_per_dc = '1024'", "more than the 65535" },
	{ NULL, true, 1u << SM_VAR_CP, { "topology.workers_per_dc=1024", "job.collective=ring",
	  NULL }, "topology.data_centres=64", "topology.data_centres", SC_UNIT_COUNT,
	  "[topology] data_centres = '64'", "rounds a step" },
	{ NULL, true, 1u << SM_VAR_A, { "run.steps=1", NULL }, "job.parameters=1e26",
	  "job.parameters", SC_UNIT_NUMBER, "[job] parameters = '1e26'", "32-bit frame numbers" },
	{ NULL, true, 1u << SM_VAR_EP, { "run.steps=1", NULL }, "job.parameters=1e16",
	  "job.parameters", SC_UNIT_NUMBER, "[job] parameters = '1e16'", "32-bit frame numbers" },
	{ "scenarios/1dc8.ini", true, 1u << SM_VAR_A, { "run.steps=1", "job.parameters=1e11",
						      NULL }, "run.frame_payload=1 B",
	  "run.frame_payload", SC_UNIT_COUNT, "[run] frame_payload", "32-bit frame numbers" },
	{ NULL, true, 0, { NULL }, "queues.nic=1e30 B", "queues.nic", SC_UNIT_BYTES,
	  "[queues] nic", "64-bit byte count of a queue limit" },
	{ NULL, true, 0, { NULL }, "queues.port=1e20 B", "queues.port", SC_UNIT_BYTES,
	  "[queues] port", "64-bit byte count of a queue limit" },
	{ NULL, true, 0, { NULL }, "queues.switch=1e20 B", "queues.switch", SC_UNIT_BYTES,
	  "[queues] switch", "64-bit byte count of a queue limit" },
	{ NULL, true, 0, { NULL }, "queues.wan=1e20 B", "queues.wan", SC_UNIT_BYTES,
	  "[queues] wan", "64-bit byte count of a queue limit" },
	{ NULL, true, 1u << SM_VAR_A, { "background.load=0.5", NULL }, "topology.data_centres=64",
	  "topology.data_centres", SC_UNIT_COUNT, "[topology] data_centres", "10.(200 + d)" },
	{ NULL, true, 1u << SM_VAR_A, { "background.load=0.5", NULL }, "background.size=1e16 B",
	  "background.size", SC_UNIT_BYTES, "[background] size", "32-bit frame numbers" },
	{ NULL, true, 1u << SM_VAR_A, { "background.load=0.5", "background.sizes=exponential",
					NULL }, "background.size=1e15 B", "background.size",
	  SC_UNIT_BYTES, "[background] size", "exponential draw" },
	{ NULL, true, 1u << SM_VAR_A, { "background.load=0.5", NULL }, "queues.wan=1e18 B",
	  "queues.wan", SC_UNIT_BYTES, "[queues] wan", "mbufs" },
	{ NULL, true, 1u << SM_VAR_A, { "wan.latency=5 s", "trace.queue_sample=0 s", NULL },
	  "run.steps=1000000", "run.steps",
	  SC_UNIT_COUNT,
	  "[run] steps", "virtual time" },
	{ NULL, true, 1u << SM_VAR_A, { "run.steps=1", "trace.queue_sample=0 s", NULL },
	  "wan.latency=9e6 s", "wan.latency",
	  SC_UNIT_TIME, "[wan] latency", "virtual time" },
	{ NULL, true, 1u << SM_VAR_A, { "run.steps=1", "trace.queue_sample=0 s", NULL },
	  "intra.bandwidth=1e-5 B/s",
	  "intra.bandwidth", SC_UNIT_BYTE_RATE, "[intra] bandwidth", "virtual time" },
	{ NULL, true, 1u << SM_VAR_EP, { "run.steps=10", "trace.queue_sample=0 s", NULL },
	  "module.latency_network=1e6 s",
	  "module.latency_network", SC_UNIT_TIME, "[module] latency_network", "virtual time" },
	{ NULL, true, 1u << SM_VAR_C, { "run.steps=200", "trace.queue_sample=0 s", NULL },
	  "gpu.peak=1e3 FLOP/s", "gpu.peak",
	  SC_UNIT_FLOP_RATE, "[gpu] peak", "virtual time" },
};

/* The value next to @p r->value on the wrong side, as text: one more (or less) for an integer,
 * the next double for a number with a unit (written in its base unit). */
static void
next_value(const struct limit_case *c, const struct refusal *r, char *buf, size_t len)
{
	static const char *const base[SC_UNIT_KIND_COUNT] = {
		[SC_UNIT_BYTE_RATE] = " B/s", [SC_UNIT_BIT_RATE] = " bit/s", [SC_UNIT_TIME] = " s",
		[SC_UNIT_BYTES] = " B", [SC_UNIT_FLOP_RATE] = " FLOP/s", [SC_UNIT_NUMBER] = "",
	};
	char why[256];
	double x;

	if (c->unit == SC_UNIT_COUNT) {
		x = strtod(r->value, NULL);
		snprintf(buf, len, "%.0f%s", x + r->dir, strstr(r->value, " B") != NULL ? " B" : "");
		return;
	}
	if (sc_unit_parse(c->unit, r->value, &x, why, sizeof(why)) != 0)
		fail_msg("%s: '%s': %s", c->key, r->value, why);
	snprintf(buf, len, "%.17g%s", nextafter(x, r->dir > 0 ? INFINITY : 0), base[c->unit]);
}

/* Each limit: refused above, with the key and the reason; the value it gives loads; the next one
 * past it does not (by this limit or by another that the key feeds the same way). */
static void
test_limits_largest_value(void **state)
{
	char err[ERRLEN], set[256], next[160];
	struct refusal r;
	unsigned int i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct limit_case *c = &cases[i];

		if (load_with(c->path, c->extra, c->set, c->run, c->variants, err) != -EINVAL)
			fail_msg("case %u: %s loaded", i, c->set);
		assert_has(err, c->named);
		assert_has(err, c->reason);
		refusal_of(err, &r);
		snprintf(set, sizeof(set), "%s=%s", c->key, r.value);
		if (load_with(c->path, c->extra, set, c->run, c->variants, err) != 0)
			fail_msg("case %u: the value that works, %s, does not: %s", i, set, err);
		next_value(c, &r, next, sizeof(next));
		snprintf(set, sizeof(set), "%s=%s", c->key, next);
		if (load_with(c->path, c->extra, set, c->run, c->variants, err) != -EINVAL)
			fail_msg("case %u: one past the value that works, %s, loads", i, set);
		assert_has(err, c->named[0] == '[' ? strtok(strcpy(next, c->named), "=") : "");
	}
}

/* The largest values against the widths, computed here another way. */
static double
largest(const char *path, const char *const *extra, const char *set, bool run,
	unsigned int variants, enum sc_unit_kind unit)
{
	char err[ERRLEN], why[256];
	struct refusal r;
	double x;

	if (load_with(path, extra, set, run, variants, err) != -EINVAL)
		fail_msg("%s loaded", set);
	refusal_of(err, &r);
	if (unit == SC_UNIT_COUNT)
		return strtod(r.value, NULL);
	assert_int_equal(sc_unit_parse(unit, r.value, &x, why, sizeof(why)), 0);
	return x;
}

static uint64_t
max_round_frames(const struct sc_scenario *s, enum sm_variant v)
{
	struct sm_program *prog = calloc(1, sizeof(*prog));
	uint64_t k = 0;
	unsigned int i;

	assert_non_null(prog);
	assert_int_equal(sm_program_build(&s->model, v, 0, prog), 0);
	for (i = 0; i < prog->n; i++)
		if (sm_frames(prog->r[i].bytes, s->run.pk.payload, NULL) > k)
			k = sm_frames(prog->r[i].bytes, s->run.pk.payload, NULL);
	sm_program_free(prog);
	free(prog);
	return k;
}

static void
test_limits_are_the_widths(void **state)
{
	static const char *const one_step[] = { "run.steps=1", NULL };
	struct sm_program *prog = calloc(1, sizeof(*prog));
	char err[ERRLEN], set[128];
	struct sc_scenario at;
	double x;

	assert_non_null(prog);
	/* a time: the largest whose picoseconds fit sm_ps()'s 63 bits */
	x = largest(NULL, NULL, "wan.latency=1e300 s", false, 0, SC_UNIT_TIME);
	assert_true(x * 1e12 < 0x1p63 && nextafter(x, INFINITY) * 1e12 >= 0x1p63);
	assert_true(sm_ps(x) > 0 && sm_ps(x) <= (uint64_t)INT64_MAX);
	/* a rate: the largest whose frame serialisation (bytes x 1e12 + rate - 1) fits 64 bits */
	x = largest(NULL, NULL, "wan.bandwidth=1e30 B/s", false, 0, SC_UNIT_BYTE_RATE);
	assert_true((unsigned __int128)65038 * 1000000000000ULL + sm_rate(x) - 1 <= UINT64_MAX);
	assert_true((unsigned __int128)65038 * 1000000000000ULL +
		    (unsigned __int128)nextafter(x, INFINITY) - 1 > UINT64_MAX);
	/* the rounds of a program: SM_ROUNDS_MAX, as sm_program_build() says; only a flat ring
	 * over more than 32,768 workers has more (2 (W - 1) rounds) */
	{
		static const char *const flat[] = { "topology.data_centres=64",
						    "job.collective=ring", NULL };

		x = largest(NULL, flat, "topology.workers_per_dc=1024", true, 1u << SM_VAR_A,
			    SC_UNIT_COUNT);
		assert_true(x == 512);
		if (sc_scenario_load(&at, NULL, flat, 2, err, ERRLEN) != 0)
			fail_msg("the flat ring: %s", err);
	}
	at.model.topo.per_dc = (unsigned int)x;
	assert_int_equal(sm_program_build(&at.model, SM_VAR_A, 0, prog), 0);
	sm_program_free(prog);
	at.model.topo.per_dc = (unsigned int)x + 1;
	assert_int_equal(sm_program_build(&at.model, SM_VAR_A, 0, prog), -E2BIG);
	sm_program_free(prog);
	/* a round's frames: at most 2^32 at the largest parameters, more above (one data centre:
	 * no WAN round fills the pool first) */
	x = largest("scenarios/1dc8.ini", one_step, "job.parameters=1e16", true, 1u << SM_VAR_A,
		    SC_UNIT_NUMBER);
	snprintf(set, sizeof(set), "job.parameters=%.17g", x);
	if (load_with("scenarios/1dc8.ini", one_step, set, true, 1u << SM_VAR_A, err) != 0)
		fail_msg("%s: %s", set, err);
	assert_true(max_round_frames(&sc, SM_VAR_A) <= UINT64_C(1) << 32);
	at = sc;
	at.model.job.params = nextafter(x, INFINITY);
	assert_true(max_round_frames(&at, SM_VAR_A) > UINT64_C(1) << 32);
	/* the mbuf pool: its count fits 32 bits at the largest WAN queue, not above */
	{
		static const char *const bg[] = { "background.load=0.5", NULL };
		struct dp_run_params rp = { .var = SM_VAR_A };

		x = largest(NULL, bg, "queues.wan=1e18 B", true, 1u << SM_VAR_A, SC_UNIT_BYTES);
		snprintf(set, sizeof(set), "queues.wan=%.17g B", x);
		if (load_with(NULL, bg, set, true, 1u << SM_VAR_A, err) != 0)
			fail_msg("%s: %s", set, err);
		rp.model = &sc.model;
		rp.pk = &sc.run.pk;
		rp.bg.load = 0.5;
		rp.bg.fg_lossless = true;
		rp.q_wan = (uint64_t)x;
		assert_true(dp_run_pool_count(&rp) <= UINT32_MAX);
		rp.q_wan = (uint64_t)nextafter(x, INFINITY);
		assert_true(dp_run_pool_count(&rp) > UINT32_MAX);
	}
	/* the run's virtual time: the zero-load bound of its steps within 2^63 ps */
	{
		static const char *const slow[] = { "wan.latency=5 s", "trace.queue_sample=0 s",
						    NULL };

		x = largest(NULL, slow, "run.steps=1000000", true, 1u << SM_VAR_A, SC_UNIT_COUNT);
		if (sc_scenario_load(&at, NULL, slow, 2, err, ERRLEN) != 0)
			fail_msg("wan.latency = 5 s: %s", err);
	}
	sm_program_free(prog);
	assert_int_equal(sm_program_build(&at.model, SM_VAR_A, 0, prog), 0);
	{
		double step = sm_packet_step_bound_ps(&at.model, &at.run.pk, prog);
		struct sm_packet_step pm[1];

		assert_true(x * step + 2e9 <= 0x1p63 && (x + 1) * step + 2e9 > 0x1p63);
		/* and the bound is above the closed form's step */
		assert_int_equal(sm_packet_model(&at.model, &at.run.pk, SM_VAR_A, 0, 1, pm), 0);
		assert_true(step >= (double)pm[0].time_ps);
	}
	sm_program_free(prog);
	free(prog);
}

/* The refusal names the key that broke the limit (set, and fine at its default), else the key
 * set last of those the limit depends on. */
static void
test_limits_name_the_last_key(void **state)
{
	const char *sets[] = { "trace.queue_sample=0 s", "run.steps=1000", "wan.latency=10800 s" };
	const char *swapped[] = { "trace.queue_sample=0 s", "wan.latency=10800 s", "run.steps=1000" };
	char err[ERRLEN];

	assert_int_equal(load_for(NULL, sets, 3, true, 1u << SM_VAR_A, err), -EINVAL);
	assert_has(err, "--set 'wan.latency=10800 s': [wan] latency = '10800 s': too large");
	assert_int_equal(load_for(NULL, swapped, 3, true, 1u << SM_VAR_A, err), -EINVAL);
	assert_has(err, "--set 'run.steps=1000': [run] steps = '1000': too large");
	/* of the keys set, the one whose default brings the limit back, though set before another:
	 * job.tokens, not the flops per token written after it at its default */
	{
		const char *tokens[] = { "run.steps=1", "job.tokens=1e26",
					 "job.flops_per_param_token=6" };

		assert_int_equal(load_for(NULL, tokens, 3, true, 1u << SM_VAR_E, err), -EINVAL);
		assert_has(err, "[job] tokens = '1e26': too large");
	}
	/* a model's load does not see a run's limits */
	if (load_for(NULL, sets, 3, false, 0, err) != 0)
		fail_msg("%s", err);
	/* and a run of C alone is not held to E''s whole dense gradient in the pool */
	{
		static const char *const one_step[] = { "run.steps=1", NULL };

		if (load_with(NULL, one_step, "job.parameters=1e13", true, 1u << SM_VAR_C, err))
			fail_msg("C: %s", err);
		assert_int_equal(load_with(NULL, one_step, "job.parameters=1e13", true,
					   1u << SM_VAR_EP, err), -EINVAL);
		assert_has(err, "a run of E' [");
	}
}

/* What the scenario fuzzer found: each loads (or is refused) and round-trips, without UB. */
static void
test_found_by_fuzzing(void **state)
{
	char err[ERRLEN], dir[] = "/tmp/test_scenario_limits.XXXXXX", path[128], *buf = NULL;
	struct sc_scenario back;
	size_t n = 0;
	FILE *f;

	/* a tab inside a text value loads, so the dump must write it (it refused it) */
	assert_int_equal(load_set("scenario.name=a\tb", err), 0);
	f = open_memstream(&buf, &n);
	assert_non_null(f);
	assert_int_equal(sc_scenario_dump(&sc, f), 0);
	fclose(f);
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/back.ini", dir);
	f = fopen(path, "w");
	assert_non_null(f);
	fwrite(buf, 1, n, f);
	fclose(f);
	assert_int_equal(sc_scenario_load(&back, path, NULL, 0, err, ERRLEN), 0);
	assert_string_equal(back.name, "a\tb");
	unlink(path);
	rmdir(dir);
	free(buf);
	/* the conversions saturate rather than overflow (the search for a value that works goes
	 * to the ends of a key's range) */
	assert_true(sm_rate(1.7976931348623157e308) == UINT64_MAX);
	assert_true(sm_rate(0x1p64) == UINT64_MAX);
	assert_true(sm_rate(-5) == 1);
	assert_true(sm_ps(1e300) == (uint64_t)INT64_MAX);
	assert_true(sm_ps(-1) == 0);
	assert_true(sm_ps(20e-6) == 20000000);
	/* a limit's search on a number key stores doubles, not a 32-bit copy of them */
	assert_int_equal(load_with("scenarios/2dc4-25g.ini", NULL, "wan.latency=1e300 s", false, 0,
				   err), -EINVAL);
	assert_int_equal(load_with("scenarios/2dc4-25g.ini", NULL, "intra.bandwidth=1e-5 B/s",
				   true, 0, err), -EINVAL);
	assert_has(err, "the smallest value that works is");
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_unknown_list_items),
		cmocka_unit_test(test_limits_largest_value),
		cmocka_unit_test(test_limits_are_the_widths),
		cmocka_unit_test(test_limits_name_the_last_key),
		cmocka_unit_test(test_found_by_fuzzing),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
