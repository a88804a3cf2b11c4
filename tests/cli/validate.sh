#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# syncemu validate on syncemu's own traces: the per-step times of the run, to the nanosecond;
# queueing delays and the background share of each queue; bad files.
# Usage: validate.sh SYNCEMU_BINARY [RSS_PROBE.so] (run from the source root)
set -u
. "$(dirname "$0")/lib.sh"
se=$1
probe=${2:-}
here=$(dirname "$0")
asan=no
ldd "$se" 2>/dev/null | grep -q libasan && asan=yes

expect_rc 0 "a run of A and E'[free] with tx and rx captured" -- "$se" run -v "A,E'" -b free -n 5 -q -c tx,rx --trace "$tmp/t.pcapng" --json
cp "$tmp/out" "$tmp/run.json"
expect_rc 0 "validate it" -- "$se" validate "$tmp/t.pcapng" --json
cp "$tmp/out" "$tmp/val.json"
python3 - "$tmp/run.json" "$tmp/val.json" <<'PY' && ok "validate reproduces every step time of the run to the nanosecond" || bad "step times differ"
import json, sys
run = json.load(open(sys.argv[1]))
val = json.load(open(sys.argv[2]))
assert val["mode"] == "syncemu"
emu = {r["run_id"]: [s["emulated_ms"] for s in r["steps"]["rows"]] for r in run["runs"]}
# the validate JSON has one "steps" table (the last run's) and the runs' means; check the means
# for every run and each step of the tables printed in text by a second pass below
for r in val["runs"]:
    e = emu[r["run_id"]]
    assert abs(r["mean_ms"] - sum(e) / len(e)) < 1e-6, (r, e)
    assert r["ends_at_rx"]
assert val["max_error_pct"] < 1e-4, val["max_error_pct"]
PY
expect_rc 0 "validate, text" -- "$se" validate "$tmp/t.pcapng"
python3 - "$tmp/run.json" "$tmp/out" <<'PY' && ok "every step of every run, to the nanosecond, in the text report" || bad "per-step text"
import json, re, sys
run = json.load(open(sys.argv[1]))
text = open(sys.argv[2]).read()
blocks = re.split(r"\nRun (\d+) \((?=[^)]*\): steps rebuilt)", text)[1:]
seen = 0
for rid, body in zip(blocks[0::2], blocks[1::2]):
    emu = [s["emulated_ms"] for s in run["runs"][int(rid) - 1]["steps"]["rows"]]
    rows = [l.split() for l in body.splitlines()[2:] if re.match(r"\s+\d+\s", l)]
    assert len(rows) == len(emu), (rid, len(rows), len(emu))
    for row, e in zip(rows, emu):
        assert abs(float(row[1]) - e) <= 1.5e-6, (rid, row, e)
        seen += 1
assert seen == 10, seen
PY
expect_rc 0 "validate within a tolerance of 0.001 %" -- "$se" validate "$tmp/t.pcapng" --tolerance 0.001

# under load with the WAN queues captured: queueing delays and the background's share
expect_rc 0 "a run under load with the WAN captured" -- "$se" run -v C -n 3 --load 0.6 -q -c wan --trace "$tmp/l.pcapng"
expect_rc 0 "validate it" -- "$se" validate "$tmp/l.pcapng" --json
python3 - "$tmp/out" <<'PY' && ok "WAN queue delays and the background share of each queue" || bad "queues"
import json, sys
d = json.load(open(sys.argv[1]))
pts = {r["point"]: r for r in d["tables"]["points"]["rows"]}
out = pts["wan0>1.out"]
assert out["delays"] > 0 and out["mean_delay_us"] > 0, out
assert 20 < pts["wan0>1.in"]["background_pct"] < 95, pts["wan0>1.in"]
assert not d["runs"][0]["ends_at_rx"]
PY

# a trace without the header is cut into bursts: syncemu's own frames, generically
expect_rc 0 "--generic on a syncemu trace" -- "$se" validate "$tmp/t.pcapng" --generic --json
python3 -c "import json; d=json.load(open('$tmp/out')); assert d['mode']=='bursts' and d['split']['bursts']>=1" &&
	ok "bursts found" || bad "bursts"

# a real job's capture, written here: two hosts send each other 5 steps of 50,000 bytes in
# 1000-byte TCP segments 10 us apart (B 5 us after A), 5 ms of compute between; its steps' true
# first and last packet times in job.truth, the application's own times (1 ms before and after
# the wire) in job.csv, and a capture of three transfers of 1, 2 and 4 MB (no repeating step)
python3 "$here/job_captures.py" "$tmp"
expect_rc 0 "a job's capture cut into 5 given steps" -- "$se" validate "$tmp/job.pcap" --steps 5 --json
python3 - "$tmp/out" "$tmp/job.truth" <<'PY' && ok "every step's first and last packet to the nanosecond, per direction in the JSON" || bad "the steps of a job's capture"
import json, sys
d = json.load(open(sys.argv[1]))
truth = [tuple(map(int, l.split())) for l in open(sys.argv[2])]
assert d["mode"] == "streams" and d["split"]["by"] == "steps", d["split"]
rows = d["tables"]["steps"]["rows"]
assert [(r["start_ns"], r["end_ns"]) for r in rows] == truth, rows
for r in rows:
    assert r["duration_ns"] == r["end_ns"] - r["start_ns"] and r["bytes"] == 100000, r
    assert [x["bytes"] for x in r["directions"]] == [50000, 50000], r
    assert {x["direction"] for x in r["directions"]} == {"10.0.0.1 > 10.0.0.2", "10.0.0.2 > 10.0.0.1"}
assert isinstance(d["overlap_pct"], float) and d["overlap_pct"] > 90, d["overlap_pct"]
assert d["summary"]["directions"] == "the directions carried data at once", d["summary"]
PY
expect_rc 0 "the same, found from the streams" -- "$se" validate "$tmp/job.pcap" --json
python3 -c "
import json; d = json.load(open('$tmp/out'))
assert d['split']['by'] == 'period' and d['split']['steps'] == 5 and d['split']['confidence'] > 0.9, d['split']" &&
	ok "5 steps found from the streams, with the confidence" || bad "the period: $(head -c 300 "$tmp/out")"
expect_rc 0 "and from the collective's bytes" -- "$se" validate "$tmp/job.pcap" --collective allreduce \
	--ranks 2 --bytes 50kB --json
python3 -c "
import json; d = json.load(open('$tmp/out'))
assert d['split']['by'] == 'collective' and d['split']['steps'] == 5, d['split']
assert d['split']['steps_exact'] == 5 and 'allreduce' in d['split']['how'], d['split']" &&
	ok "5 steps of the all-reduce's 50 kB per direction" || bad "the collective: $(head -c 300 "$tmp/out")"
expect_rc 0 "text" -- "$se" validate "$tmp/job.pcap" --steps 5 --rate 843.2Mbit/s
sed -n 3p "$tmp/out" | grep -q "^  summary: 5 steps, median 0.495 ms: the directions carried data at once" &&
	ok "the summary comes first" || bad "the summary: $(sed -n 3p "$tmp/out")"
expect_grep "$tmp/out" "step = 0.99 x B/rate, as if full duplex" "duplex, at the link's rate (a 1054-byte frame every 10 us)"
# the application's own times: 1 ms each side of the wire's, within 0.5 ms / 0.495 ms... of each
expect_rc 0 "the application's times beside the wire's" -- "$se" validate "$tmp/job.pcap" --steps 5 \
	--steps-csv "$tmp/job.csv" --json
python3 -c "
import json; d = json.load(open('$tmp/out'))
rows = d['tables']['app_steps']['rows']
assert len(rows) == 5 and all(r['before_wire_ns'] == 1000000 and r['after_wire_ns'] == 1000000 for r in rows), rows" &&
	ok "1 ms before and after the wire in every step" || bad "app_steps: $(head -c 300 "$tmp/out")"
expect_rc 4 "beyond the tolerance" -- "$se" validate "$tmp/job.pcap" --steps 5 --steps-csv "$tmp/job.csv" \
	--tolerance 10
expect_rc 0 "within it with the clock offset that cancels nothing (the spans are compared)" -- \
	"$se" validate "$tmp/job.pcap" --steps 5 --steps-csv "$tmp/job.csv" --clock-offset 3s --tolerance 400
printf 'step,start_ns,end_ns\n0,10,20\n1,x,40\n' >"$tmp/bad.csv"
expect_rc 3 "a bad application CSV" -- "$se" validate "$tmp/job.pcap" --steps 5 --steps-csv "$tmp/bad.csv"
expect_grep "$tmp/err" "bad.csv:3: column 2 (start): 'x' is not a time" "names the line and the column"
expect_rc 3 "more steps than bytes" -- "$se" validate "$tmp/job.pcap" --steps 300000
expect_grep "$tmp/err" "a step needs one at least" "says why"
expect_rc 3 "ranks that do not divide among the hosts" -- "$se" validate "$tmp/job.pcap" \
	--collective allreduce --ranks 3 --bytes 50kB
mkfifo "$tmp/fifo"
expect_rc 3 "a FIFO (read more than once), asked for steps" -- "$se" validate "$tmp/fifo" --steps 5
expect_grep "$tmp/err" "not a regular file" "says so before it opens it"
cat "$tmp/job.pcap" >"$tmp/fifo" 2>/dev/null &
expect_rc 3 "a FIFO of a job's capture (a syncemu trace would do)" -- timeout 20 "$se" validate "$tmp/fifo"
expect_grep "$tmp/err" "not a regular file, and not a syncemu trace" "says so after reading it"
wait
# --tables DIR: every table as CSV, equal to the same table in --json (the steps' directions, inside
# each step's row in JSON, as step_directions.csv)
expect_rc 0 "--tables beside --json, a syncemu trace" -- "$se" validate "$tmp/t.pcapng" --json \
	--tables "$tmp/tabs"
python3 "$(dirname "$0")/tables_check.py" validate "$tmp/tabs" "$tmp/out" >"$tmp/check" 2>&1 &&
	grep -q "steps-2.csv: 5 rows equal" "$tmp/check" && grep -q "^steps.csv: 5 rows" "$tmp/check" &&
	ok "--tables: each table as CSV (each run's steps), equal to the JSON's" ||
	bad "--tables: $(cat "$tmp/check")"
expect_rc 0 "--tables with the text, a job's capture with its application's times" -- \
	"$se" validate "$tmp/job.pcap" --steps 5 --steps-csv "$tmp/job.csv" --tables "$tmp/tabs2"
expect_rc 0 "the same as JSON" -- "$se" validate "$tmp/job.pcap" --steps 5 --steps-csv "$tmp/job.csv" --json
python3 "$(dirname "$0")/tables_check.py" validate "$tmp/tabs2" "$tmp/out" >"$tmp/check" 2>&1 &&
	grep -q "step_directions.csv: 10 rows" "$tmp/check" && grep -q "app_steps.csv: 5 rows" "$tmp/check" &&
	ok "--tables: the steps, their directions and the application's, equal to the JSON's" ||
	bad "--tables with text: $(cat "$tmp/check")"
cp "$tmp/job.csv" "$tmp/tabs2/app_steps.csv"
expect_rc 2 "--tables over the application's CSV" -- "$se" validate "$tmp/job.pcap" --steps 5 \
	--steps-csv "$tmp/tabs2/app_steps.csv" --tables "$tmp/tabs2"
cmp -s "$tmp/job.csv" "$tmp/tabs2/app_steps.csv" && ok "and leaves it" || bad "an input overwritten"
expect_grep "$tmp/err" "--tables $tmp/tabs2/app_steps.csv is --steps-csv" "refused: it is an input"
expect_rc 2 "--tables on a file" -- "$se" validate "$tmp/job.pcap" --steps 5 --tables "$tmp/job.csv"
expect_grep "$tmp/err" "--tables $tmp/job.csv: not a directory" "names the path"
# a one-way prelude and postlude (DDP's broadcast of its parameters, a final gather): left out
# of the steps, found from the directions' joint structure (equal volumes put every cut 10 kB late)
expect_rc 0 "a job with a one-way prelude and postlude, its steps found" -- "$se" validate \
	"$tmp/prelude.pcap" --json
python3 - "$tmp/out" <<'PY' && ok "5 steps found, the prelude and the postlude left out and said" || bad "the prelude: $(head -c 400 "$tmp/out")"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["split"]["by"] == "period" and d["split"]["steps"] == 5, d["split"]
assert "a one-way prelude left out (50000 bytes of 10.0.0.1 > 10.0.0.2" in d["split"]["how"], d["split"]
assert "a one-way postlude left out (20000 bytes of 10.0.0.2 > 10.0.0.1" in d["split"]["how"], d["split"]
assert d["uncertain"] is None, d["uncertain"]
PY
for how in "--steps 5" "--collective allreduce --ranks 2 --bytes 50kB"; do
	expect_rc 0 "the same, $how" -- "$se" validate "$tmp/prelude.pcap" $how --json
	python3 - "$tmp/out" "$tmp/prelude.truth" <<'PY' && ok "$how: every step's first and last packet to the nanosecond" || bad "$how: the steps after a prelude: $(head -c 400 "$tmp/out")"
import json, sys
d = json.load(open(sys.argv[1]))
truth = [tuple(map(int, l.split())) for l in open(sys.argv[2])]
rows = d["tables"]["steps"]["rows"]
assert [(r["start_ns"], r["end_ns"]) for r in rows] == truth, rows
assert all([x["bytes"] for x in r["directions"]] == [50000, 50000] for r in rows), rows
assert "warnings" not in d and d["uncertain"] is None, d
PY
done
# steps of different sizes: equal volumes miss the idle times, so the cuts go to the times every
# direction was idle
expect_rc 0 "steps of different sizes" -- "$se" validate "$tmp/vary.pcap" --steps 5 --json
python3 - "$tmp/out" "$tmp/vary.truth" <<'PY' && ok "each step to the nanosecond, cut at the joint idle times" || bad "steps of different sizes: $(head -c 400 "$tmp/out")"
import json, sys
d = json.load(open(sys.argv[1]))
truth = [tuple(map(int, l.split())) for l in open(sys.argv[2])]
rows = d["tables"]["steps"]["rows"]
assert [(r["start_ns"], r["end_ns"]) for r in rows] == truth, rows
assert [r["bytes"] for r in rows] == [40000, 100000, 160000, 40000, 100000], rows
assert d["split"]["cuts"] == "joint idle" and "cut at the 4 longest times" in d["split"]["how"], d["split"]
assert d["uncertain"] is None, d["uncertain"]
PY
# never a confident wrong answer: the application's step count is used; a collective whose bytes
# the directions do not hold, or whose step count is not the application's, is said uncertain
expect_rc 0 "--steps-csv alone" -- "$se" validate "$tmp/job.pcap" --steps-csv "$tmp/job.csv" --json
python3 -c "
import json; d = json.load(open('$tmp/out'))
assert d['split']['by'] == 'steps' and d['split']['steps'] == 5, d['split']
assert \"5 steps (the application's, in --steps-csv)\" in d['split']['how'], d['split']" &&
	ok "cut at the application's step count" || bad "--steps-csv's count: $(head -c 300 "$tmp/out")"
expect_rc 0 "a collective the directions do not hold a whole number of" -- "$se" validate \
	"$tmp/job.pcap" --collective allreduce --ranks 2 --bytes 40kB --json
python3 -c "
import json; d = json.load(open('$tmp/out'))
assert d['split']['steps_exact_directions'] == [6.25, 6.25], d['split']
assert 'the directions disagree with --collective allreduce: they hold 6.250 to 6.250' in d['warnings'][0], d['warnings']
assert d['uncertain'].startswith('the directions hold 6.25 to 6.25 steps'), d['uncertain']" &&
	ok "warned, and said uncertain" || bad "the collective's check: $(head -c 300 "$tmp/out")"
expect_rc 4 "the same beside the application's times, with a tolerance" -- "$se" validate \
	"$tmp/job.pcap" --collective allreduce --ranks 2 --bytes 40kB --steps-csv "$tmp/job.csv" \
	--tolerance 400
expect_grep "$tmp/err" "uncertain (the directions hold 6.25 to 6.25 steps of the allreduce's bytes" \
	"exit 4: no error is measured"
expect_grep "$tmp/out" "UNCERTAIN, not measurements" "the application's table says so"
expect_rc 0 "a collective's step count that is not the application's" -- "$se" validate \
	"$tmp/job.pcap" --collective allreduce --ranks 2 --bytes 25kB --steps-csv "$tmp/job.csv" --json
python3 -c "
import json; d = json.load(open('$tmp/out'))
assert d['split']['steps'] == 10 and d['uncertain'], d
assert '10 steps on the wire, 5 in --steps-csv: the step count is uncertain' in d['warnings'][-1], d
assert 'max_error_pct' not in d, d" &&
	ok "said uncertain, no error measured" || bad "the application's count: $(head -c 300 "$tmp/out")"
# emulated jobs over TCP (2 ranks, 5 ms each way, 400 Mbit/s, 10 steps; virtual time): Open MPI
# (1 MiB, Rabenseifner, ob1's rendezvous) and gloo (1 MiB, its ring's 4 flights a step).  At the
# workers' NICs each step is windows sent at line rate and round trips, its first steps (TCP's
# warm-up) unlike the rest, and the streams fold on 5 steps better than on 10; at the WAN a
# rendezvous's round trip 64 KiB into every step outlasts the compute between steps, and gloo's
# two halves of a step fold as well as its steps (20).  The 10 steps found (from step 4 to the
# last, the run's steady step time from start to start within 1 %: both are virtual time; the
# starts before move with the warm-up), or said uncertain naming 10; never another count alone.
# Under the sanitizers gloo's alone (its steps are cut again, what memory sees; Open MPI's add
# arithmetic only), to keep the time small
jobs=('openmpi --set transport.protocol=openmpi --set job.reduce_rate=2GB/s' gloo)
[ "$asan" = yes ] && jobs=(gloo)
for job in "${jobs[@]}"; do
	expect_rc 0 "an emulated $job job over TCP, captured at the NICs and the WAN" -- "$se" run \
		-v A -n 10 -q --set job.transport=tcp --set topology.workers_per_dc=1 \
		--set wan.bandwidth=400Mbit/s --set wan.latency=5ms --set job.bytes=1MiB \
		--set run.mtu=1500 --set job.library=$job --set run.sync=none --set job.compute=5ms \
		--set job.start_skew=50ms --set queues.sync_lossless=no --set run.accounting=wire \
		--trace "$tmp/tcp.pcapng" -c tx,wan --json
	cp "$tmp/out" "$tmp/tcprun.json"
	for ifs in 'w0.tx,w1.tx' 'wan0>1.out,wan1>0.out'; do
		expect_rc 0 "validate it at $ifs" -- "$se" validate "$tmp/tcp.pcapng" --interface "$ifs" \
			--json
		python3 - "$tmp/tcprun.json" "$tmp/out" <<'PY' && ok "10 steps at $ifs, or uncertain" ||
import json, sys
emu = [s["emulated_ms"] for s in json.load(open(sys.argv[1]))["runs"][0]["steps"]["rows"]]
d = json.load(open(sys.argv[2]))
if d["uncertain"] is not None:
    assert "10" in d["uncertain"], d["uncertain"]
else:
    assert d["split"]["by"] == "period" and d["split"]["steps"] == 10, d["split"]
    at = [r["start_ns"] for r in d["tables"]["steps"]["rows"]]
    for k in range(4, 9):
        assert abs((at[k + 1] - at[k]) / 1e6 - emu[k]) < 0.01 * emu[k], (k, at, emu)
PY
			bad "the emulated TCP job at $ifs: $(head -c 400 "$tmp/out")"
	done
done
# transfers of three sizes: nothing repeats, so bursts, saying so
expect_rc 0 "transfers of three sizes" -- "$se" validate "$tmp/transfers.pcap" --json
python3 -c "
import json; d = json.load(open('$tmp/out'))
assert d['mode'] == 'bursts' and d['split']['bursts'] == 3, d['split']
assert any('no step volume repeats' in w for w in d['warnings']), d['warnings']
assert d['uncertain'] is None, d['uncertain']
assert any('other traffic between the hosts?' in w for w in d['warnings']), d['warnings']
assert d['fit']['alpha_identifiable'], d['fit']" &&
	ok "bursts, with why, and a fit of three sizes" || bad "the fallback: $(head -c 400 "$tmp/out")"
expect_rc 0 "bursts cut where the gaps inside are as long as between" -- "$se" validate \
	"$tmp/stalls.pcap" --gap 2.5ms --json
python3 -c "
import json; d = json.load(open('$tmp/out'))
assert any('as long as those between' in w for w in d['warnings']), d.get('warnings')" &&
	ok "warns that the gaps do not tell the steps" || bad "no warning: $(head -c 300 "$tmp/out")"

# memory holds the capture's structure, not its packets: the bursts of a capture 8 times longer
# (20 bursts either way, 25,000 and 200,000 60-byte frames) take the same peak RSS.  Held: 2 MB
# apart at most (measured: 0.6 MB more, the time-order window filling, 1 MB at most); keeping
# every packet took 43 B each, 7.5 MB here.  Under AddressSanitizer freed memory waits in its
# quarantine: not compared there, and the bursts are checked on the short capture alone (the
# same code).
python3 "$here/job_captures.py" "$tmp" long 25000
peak() {	# peak CAPTURE ARGS...: validate's peak RSS in kB
	local f=$1
	shift
	rm -f "$tmp/hwm"
	LD_PRELOAD=$probe RSS_PROBE_EXIT=$tmp/hwm "$se" validate "$f" "$@" >"$tmp/out" 2>"$tmp/err" ||
		{ cat "$tmp/err" >&2; echo 0; return; }
	awk '/VmHWM/ {print $2}' "$tmp/hwm" 2>/dev/null
}
long=25000
if [ $asan = no ] && [ -n "$probe" ]; then
	long=200000
	python3 "$here/job_captures.py" "$tmp" long $long
	for how in "--gap auto" "--period 5ms"; do
		a=$(peak "$tmp/long25000.pcap" $how)
		b=$(peak "$tmp/long$long.pcap" $how)
		if [ "${a:-0}" -gt 0 ] && [ "${b:-0}" -gt 0 ] && [ $((b - a)) -lt 2048 ]; then
			ok "validate $how: peak RSS $a kB for 25,000 frames, $b kB for 200,000"
		else
			bad "validate $how: peak RSS ${a:-?} kB for 25,000 frames, ${b:-?} kB for 200,000"
		fi
	done
fi
expect_rc 0 "bursts, all of them, in a capture of $long frames" -- "$se" validate \
	"$tmp/long$long.pcap" --gap auto --json
python3 -c "
import json; d = json.load(open('$tmp/out'))
assert d['split']['bursts'] == 20 and d['split']['selected'] == $long, d['split']
assert [r['packets'] for r in d['tables']['bursts']['rows']] == [$long // 20] * 20" &&
	ok "20 bursts of $((long / 20)) packets" || bad "the long capture's bursts: $(head -c 300 "$tmp/out")"
# every flow counted: a burst of 1,000 connections (2,000 flows), then one of 10
expect_rc 0 "a burst of 1,000 connections" -- "$se" validate "$tmp/conns.pcap" --gap auto --json
python3 -c "
import json; d = json.load(open('$tmp/out'))
assert [r['flows'] for r in d['tables']['bursts']['rows']] == [2000, 20], d['tables']['bursts']['rows']
assert '2020 flows; the 20 largest shown' in d['tables']['flows']['notes'], d['tables']['flows']" &&
	ok "2,000 flows in the first burst, 20 in the second, 2,020 in all" || bad "flows: $(head -c 300 "$tmp/out")"

# a syncemu trace's frames that its own header makes impossible: refused, naming the frame
expect_rc 0 "a run of 3 steps, traced" -- "$se" run -v "A,E'" -b free -n 3 -q -c tx,rx \
	--set job.parameters=200000 --set job.topk_kept=0 --trace "$tmp/t3.pcapng"
for bad in "step 99999999:frame 100: step 99999999, but the trace's scenario runs 3 steps (0 to 2)" \
	"step 3:frame 100: step 3, but the trace's scenario runs 3 steps" \
	"round 60000:frame 100: round 60000, but run 1 has 8 rounds a step (0 to 7)" \
	"src 999:frame 100: source 999, but the trace's scenario has 8 workers (0 to 7)" \
	"run 7:frame 100: run id 7, but the trace's header lists the runs 1, 2"; do
	python3 "$here/se_frames.py" patch "$tmp/t3.pcapng" "$tmp/bad.pcapng" 100 ${bad%%:*}
	expect_rc 3 "a frame of ${bad%%:*}" -- "$se" validate "$tmp/bad.pcapng"
	expect_grep "$tmp/err" "${bad#*:}" "says which frame and why"
done
# without a scenario in the header (frames captured elsewhere): a step numbered 99,999,999 is one
# step more (memory by the steps there are, not by their numbers: under 1 GB of address space
# here, where keeping every step up to it took 10 GB), and a step that ends before the one before
# it has a negative time, not an unsigned wrap
python3 "$here/se_frames.py" runs "$tmp/far.pcapng" 1 99999999
if [ $asan = yes ]; then
	expect_rc 0 "a step numbered 99,999,999" -- "$se" validate "$tmp/far.pcapng" --json
else
	expect_rc 0 "a step numbered 99,999,999, in 1 GB of address space" -- \
		bash -c 'ulimit -v 1000000 && exec "$@"' - "$se" validate "$tmp/far.pcapng" --json
fi
python3 -c "
import json; d = json.load(open('$tmp/out'))
rows = d['tables']['steps']['rows']
assert [r['step'] for r in rows] == [0, 99999999] and rows[1]['trace_ms'] == 0.18, rows" &&
	ok "two steps, 0 and 99999999" || bad "the far step: $(head -c 300 "$tmp/out")"
python3 "$here/se_frames.py" patch "$tmp/far.pcapng" "$tmp/back.pcapng" 2 step 5
expect_rc 0 "a step that ends before the one before it" -- "$se" validate "$tmp/back.pcapng" --json
python3 -c "
import json; d = json.load(open('$tmp/out'))
rows = {r['step']: r['trace_ms'] for r in d['tables']['steps']['rows']}
assert rows[5] == -0.07, rows" && ok "its time is negative (-0.07 ms: it ended 70 us before step 0), not 1.8e13 ms" ||
	bad "the step before: $(head -c 300 "$tmp/out")"
# more runs than fit a fixed table: all 25 in the JSON, with the hot spots the scenario gives
python3 "$here/se_frames.py" runs "$tmp/r25.pcapng" 25
expect_rc 0 "a trace of 25 runs, against a scenario" -- "$se" validate "$tmp/r25.pcapng" \
	--scenario scenarios/2dc4-100g.ini --json
python3 -c "
import json; d = json.load(open('$tmp/out'))
assert [r['run_id'] for r in d['runs']] == list(range(1, 26)), d['runs']" &&
	ok "every run in the JSON" || bad "runs: $(head -c 300 "$tmp/out")"
printf '[wan]\nbandwidth = 3parsecs\n' >"$tmp/bad.ini"
expect_rc 3 "a syncemu trace with a bad --scenario (and nothing leaked)" -- "$se" validate \
	"$tmp/t3.pcapng" --scenario "$tmp/bad.ini"
expect_grep "$tmp/err" "bad.ini:2: [wan] bandwidth" "names the file, line and key"

# --bytes: a bare number is bytes (its message's own example)
expect_rc 0 "--bytes 50000" -- "$se" validate "$tmp/job.pcap" --collective allreduce --ranks 2 \
	--bytes 50000 --json
python3 -c "
import json; d = json.load(open('$tmp/out'))
assert d['split']['by'] == 'collective' and d['split']['steps'] == 5, d['split']" &&
	ok "a bare number as bytes: 5 steps of 50,000" || bad "--bytes 50000: $(head -c 300 "$tmp/out")"
expect_rc 2 "--bytes 50kparsecs" -- "$se" validate "$tmp/job.pcap" --collective allreduce --ranks 2 \
	--bytes 50kparsecs
# --steps-csv: the step's column by another name, or named; a NUL byte is not a blank line
sed '1s/^step,/iter,/' "$tmp/job.csv" >"$tmp/iter.csv"
expect_rc 0 "--steps-csv whose step column is 'iter'" -- "$se" validate "$tmp/job.pcap" --steps 5 \
	--steps-csv "$tmp/iter.csv" --json
python3 -c "import json; assert len(json.load(open('$tmp/out'))['tables']['app_steps']['rows']) == 5" &&
	ok "its 5 steps, from the first column" || bad "iter.csv: $(head -c 300 "$tmp/out")"
awk -F, 'BEGIN { OFS = "," } { print "r" NR, $2, $3, $1 }' "$tmp/job.csv" |
	sed '1s/.*/rank,start_ns,end_ns,iter/' >"$tmp/iter4.csv"
expect_rc 0 "--steps-csv FILE:iter" -- "$se" validate "$tmp/job.pcap" --steps 5 \
	--steps-csv "$tmp/iter4.csv:iter" --json
python3 -c "import json; assert len(json.load(open('$tmp/out'))['tables']['app_steps']['rows']) == 5" &&
	ok "its 5 steps, from the column named" || bad "iter4.csv:iter: $(head -c 300 "$tmp/out")"
expect_rc 3 "--steps-csv FILE:epoch (no such column)" -- "$se" validate "$tmp/job.pcap" --steps 5 \
	--steps-csv "$tmp/iter4.csv:epoch"
expect_grep "$tmp/err" "iter4.csv:1: the header has no column 'epoch' (it has: 'rank', 'start_ns'" \
	"names the columns it has"
printf 'step,start_ns,end_ns\n0,1,2\n\0001,3,4\n' >"$tmp/nul.csv"
expect_rc 3 "a NUL byte at the start of a line" -- "$se" validate "$tmp/job.pcap" --steps 5 \
	--steps-csv "$tmp/nul.csv"
expect_grep "$tmp/err" "nul.csv:3: a NUL byte at column 1" "names the line"

# bad files
: >"$tmp/empty.pcap"
expect_rc 3 "an empty file" -- "$se" validate "$tmp/empty.pcap"
# cut 10 bytes into the 40th block (a fixed size could fall on a block's end: the SHB holds the
# scenario, whose length changes)
cut=$(python3 -c '
import struct, sys
b = open(sys.argv[1], "rb").read(1 << 20)
off = 0
for _ in range(40):
    off += struct.unpack("<I", b[off + 4:off + 8])[0]
print(off + 10)' "$tmp/t.pcapng")
head -c "$cut" "$tmp/t.pcapng" >"$tmp/cut.pcapng"
expect_rc 3 "a truncated trace" -- "$se" validate "$tmp/cut.pcapng"
expect_grep "$tmp/err" "byte" "names the byte offset"
echo "not a capture at all" >"$tmp/text.pcap"
expect_rc 3 "not a capture" -- "$se" validate "$tmp/text.pcap"
expect_rc 3 "a missing file" -- "$se" validate "$tmp/none.pcap"
expect_rc 2 "a bad filter" -- "$se" validate "$tmp/t.pcapng" --filter 'tcp and and'
expect_grep "$tmp/err" "filter" "names the filter"
expect_rc 2 "no trace" -- "$se" validate
expect_rc 2 "a bad tolerance" -- "$se" validate "$tmp/t.pcapng" --tolerance abc
expect_rc 0 "validate --help" -- "$se" validate --help

finish
