/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The scenario loader's tests of what a file may say (test_scenario.c runs them): presets in any
 * order, the accepted syntax, a missing file, bad syntax, a NUL byte and bad values refused with
 * file:line, [section], key, value and the reason; the key table; [ports] links.
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


void
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

void
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

void
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

void
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

void
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

void
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

void
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
void
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
