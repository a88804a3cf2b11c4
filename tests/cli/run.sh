#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# syncemu run end to end: the report, its JSON, the trace read back by tshark with the report's
# frame counts, the same trace from the same seed, and bad options.
# Usage: run.sh SYNCEMU_BINARY (run from the source root)
set -u
. "$(dirname "$0")/lib.sh"
se=$1

# the default scenario, every variant, the default capture points, a short run
expect_rc 0 "run on the default scenario" -- "$se" run -n 2 -q --trace "$tmp/d.pcapng" --json
cp "$tmp/out" "$tmp/d.json"
python3 - "$tmp/d.json" <<'PY' && ok "JSON: every run matches the closed form, nothing dropped" || bad "JSON values"
import json, sys
d = json.load(open(sys.argv[1]))
runs = d["runs"]
assert len(runs) == 10, len(runs)
for r in runs:
    assert r["ok"], r
    assert r["max_rel_diff"] is not None and r["max_rel_diff"] <= 1e-6, r["label"]
    for e in r["elements"]:
        assert e["drop"] == 0, e
rows = {r["run"]: r for r in d["summary"]["rows"]}
assert abs(rows["A"]["emulated_ms"] - 4.076554) < 1e-6, rows["A"]
assert abs(rows["A"]["fluid_ms"] - 4.075178) < 1e-6
assert rows["A"]["vs_fluid_pct"] < rows["A"]["fluid_bound_pct"]
PY

if tshark_ok; then
	python3 - "$tmp/d.json" >"$tmp/want" <<'PY'
import json, sys
for name, n in sorted(json.load(open(sys.argv[1]))["trace"]["frames"].items()):
    print(name, n)
PY
	tshark -r "$tmp/d.pcapng" -T fields -e frame.interface_name 2>"$tmp/terr" | sort | uniq -c |
		awk '{print $2, $1}' | sort >"$tmp/got"
	if [ -s "$tmp/got" ] && cmp -s "$tmp/want" "$tmp/got"; then
		ok "tshark reads the trace; frames per interface match the report ($(wc -l <"$tmp/got") interfaces)"
	else
		bad "tshark's frame counts differ from the report"; diff "$tmp/want" "$tmp/got" | head; head -3 "$tmp/terr"
	fi
	n=$(tshark -r "$tmp/d.pcapng" -Y 'udp.dstport == 47110 && frame.cap_len == 90' 2>/dev/null | wc -l)
	total=$(awk '{s += $2} END {print s}' "$tmp/want")
	[ "$n" = "$total" ] && ok "every frame is UDP to 47110 with the 90-byte headers ($n)" || bad "filter found $n of $total"
	first=$(tshark -r "$tmp/d.pcapng" -c 1 -T fields -e frame.time_epoch 2>/dev/null)
	case "$first" in 0.00*) ok "timestamps are the run's virtual time ($first s)";; *) bad "first timestamp $first";; esac
else
	echo "skip - tshark not installed"
fi

# the report's header says the shape run, not only the scenario's own description
expect_rc 0 "a run of another shape" -- "$se" run -v A -n 1 --set topology.data_centres=3 \
	--set topology.workers_per_dc=5 --set topology.wan=star
expect_grep "$tmp/out" "  3 DC x 5 workers, collectives hierarchical (auto), WAN star" \
	"the report's header names the shape run (3 x 5, star)"

# the same seed gives the same trace, byte for byte (the trace's header holds the scenario,
# its file name included, so both runs write the same name)
mv "$tmp/d.pcapng" "$tmp/first.pcapng"
expect_rc 0 "a second run, same seed" -- "$se" run -n 2 -q --trace "$tmp/d.pcapng"
if cmp -s "$tmp/first.pcapng" "$tmp/d.pcapng"; then
	ok "two runs with one seed: identical traces ($(sha256sum <"$tmp/d.pcapng" | cut -c1-16))"
else
	bad "two runs with one seed wrote different traces"
fi

# text report
expect_rc 0 "text report, one variant, all capture points" -- "$se" run -v A -n 1 -q -c all --trace "$tmp/a.pcapng"
expect_grep "$tmp/out" "4.076554" "the emulated AdamW step"
expect_grep "$tmp/out" "Summary" "a summary table"
expect_grep "$tmp/out" "w0.tx" "the trace's interfaces are listed"

# other scenarios and settings
expect_rc 0 "8 Gb/s WAN, E' free, wire accounting, 1500-byte MTU" -- "$se" run scenarios/2dc4-8g.ini -v "E'" -b free -n 1 -q --trace none --set run.accounting=wire --set run.mtu=1500 --set "run.frame_payload=1410 B" --json
python3 - "$tmp/out" <<'PY' && ok "it matches the closed form; the fluid bound (payload accounting) does not apply: its status says so" || bad "wire accounting: status or closed form"
import json, sys
r = json.load(open(sys.argv[1]))["runs"][0]
assert r["max_rel_diff"] == 0, r["max_rel_diff"]
assert r["status"] == "bound not valid" and r["flags"]["bound_not_valid"], r["status"]
assert r["fluid_bound"] is None and "wire accounting" in r["fluid_bound_why"], r
PY
[ -e 2dc4-8g.pcapng ] && bad "--trace none wrote a trace" || ok "--trace none writes nothing"
expect_rc 0 "sync none on a flat ring" -- "$se" run scenarios/1dc8.ini -v A -n 3 -q --trace none --set run.sync=none

# bad input: a clear error, a non-zero exit, no trace left behind
expect_rc 2 "steps 0" -- "$se" run -n 0 --trace "$tmp/bad.pcapng"
expect_grep "$tmp/err" "steps" "names the key"
expect_rc 2 "unknown capture point" -- "$se" run -c tx,bogus --trace "$tmp/bad.pcapng"
expect_grep "$tmp/err" "bogus" "names the capture point"
expect_rc 3 "payload too big for the MTU" -- "$se" run --set run.mtu=1500 --set run.frame_payload=1500B --trace "$tmp/bad.pcapng"
expect_grep "$tmp/err" "frame_payload" "names run.frame_payload"
expect_rc 2 "bad --mbufs" -- "$se" run --mbufs 5
expect_rc 2 "unknown option" -- "$se" run --frobnicate
expect_rc 1 "a WAN queue too small for a round, sync not lossless" -- "$se" run -v A -n 1 -q --set "queues.wan=100 kB" --set queues.sync_lossless=no --trace "$tmp/bad.pcapng"
expect_grep "$tmp/err" "wan0>1 dropped a frame of the sync" "names the link that dropped the sync's frame"
expect_rc 0 "the same queue with a lossless sync" -- "$se" run -v A -n 1 -q --set "queues.wan=100 kB" --trace none
[ -e "$tmp/bad.pcapng" ] && bad "a failed run left a trace" || ok "failed runs leave no trace file"
ls -A "$tmp" | grep -q '\.tmp\.' && bad "a temporary trace was left" || ok "no temporary left"
expect_rc 2 "an unwritable trace path" -- "$se" run -v C -n 1 -q --trace /nonexistent/dir/x.pcapng
expect_grep "$tmp/err" "/nonexistent/dir/x.pcapng" "names the path"
# a long step (a 60 GB job: about 205 M frames a step): progress shows within it, and Ctrl-C
# leaves it out rather than waiting for it.  Where the signal meets the step is counted in
# events, not time: the first progress line comes after a slice of 2^23 events (3.8 M frames)
# and 2 s, the signal is looked at a slice later, and the step is about 54 slices long; 2 s is
# 4 slices at 6 M frames/s and fewer on a slower or loaded machine, so the run stops within the
# first step unless the test's shell is kept from the CPU for most of the step.
"$se" run -v A -n 2 -j --set job.bytes=60GB >"$tmp/long.json" 2>"$tmp/long.err" &
sigint_in_step1 $! "$tmp/long.err"
[ $rc -eq 130 ] && ok "a long step: Ctrl-C, exit 130" || bad "a long step: exit $rc, not 130"
grep -Eq "step 0/2, [0-9.]+ M frames, .* s in step 1" "$tmp/long.err" &&
	ok "progress within the step" || bad "no progress within the step: $(head -3 "$tmp/long.err")"
python3 - "$tmp/long.json" <<'PY' && ok "the step in progress is left out of the report" || bad "the interrupted report"
import json, sys
r = json.load(open(sys.argv[1]))["runs"][0]
assert r["interrupted"] and r["status"] == "interrupted", r["status"]
assert r["steps"]["rows"] == [], r["steps"]["rows"]
PY
expect_rc 0 "run --help" -- "$se" run --help
expect_grep "$tmp/out" "--capture" "documents --capture"

# --csv: every step as it ends, the same as the JSON's; --plot: gnuplot's picture of them
expect_rc 0 "--csv and --plot beside --json" -- "$se" run -q -n 30 -v A,C --json --csv "$tmp/steps.csv" \
	--plot "$tmp/steps.svg"
cp "$tmp/out" "$tmp/steps.json"
python3 - "$tmp/steps.csv" "$tmp/steps.json" <<'PY' && ok "--csv: a row per step of each run, equal to the JSON's steps" || bad "--csv"
import csv, json, sys
rows = list(csv.DictReader(open(sys.argv[1])))
d = json.load(open(sys.argv[2]))
assert len(rows) == 60, len(rows)
for run in d["runs"]:
    mine = [r for r in rows if r["run"] == run["label"]]
    assert [int(r["step"]) for r in mine] == list(range(30))
    for r, s in zip(mine, run["steps"]["rows"]):
        assert abs(float(r["emulated_ms"]) - s["emulated_ms"]) < 1e-9, (r, s)
        assert abs(float(r["packet_model_ms"]) - s["packet_model_ms"]) < 1e-9
        assert int(r["frames"]) == s["frames"] and r["changed_live"] == "0"
        assert abs(sum(float(r[k + "_pct"]) for k in ("compute", "intra", "wan")) - 100) < 1e-3
PY
tail -c 10 "$tmp/steps.svg" | grep -q '</svg>' && grep -q 'seed 1, 30 steps (20 warm-up)' "$tmp/steps.svg" &&
	ok "--plot FILE.svg: whole, the settings in its title" || bad "--plot svg"
expect_rc 0 "--plot FILE.png" -- "$se" run -q -n 5 -v A --plot "$tmp/steps.png"
head -c 8 "$tmp/steps.png" | od -An -c | grep -q 'P   N   G' && ok "a PNG" || bad "--plot png: $(head -c 8 "$tmp/steps.png" | od -c | head -1)"
echo keep >"$tmp/keep.csv"
expect_rc 2 "--csv into a directory" -- "$se" run -q -n 5 -v A --csv "$tmp"
expect_rc 2 "--csv the same file as --queue-csv" -- "$se" run -q -n 5 -v A --csv "$tmp/keep.csv" \
	--queue-csv "$tmp/keep.csv"
[ "$(cat "$tmp/keep.csv")" = keep ] && ok "a refused --csv leaves the file" || bad "keep.csv changed"

# --tables DIR: every table of the report as CSV, equal to the same table in --json (DIR made)
mkdir "$tmp/tabs"
expect_rc 0 "--tables beside --json, under load" -- "$se" run -q -n 30 -v A,E --load 0.5 --json \
	--tables "$tmp/tabs/new"
python3 "$(dirname "$0")/tables_check.py" run "$tmp/tabs/new" "$tmp/out" background queue_wait >"$tmp/check" 2>&1 &&
	ok "--tables: summary, each run's steps (and the text's background and queue waits) as CSV, equal to the JSON" ||
	bad "--tables: $(cat "$tmp/check")"
# a trace that would pass 1 GB is said after the first step, with its size a step and what writes
# less (streamed to a reader that stops after 20 MB: the run then ends on the broken pipe)
("$se" run -v A -n 100000 --trace - 2>"$tmp/big.err" | head -c 20000000 >/dev/null)
grep -q "^run 1 A: its trace grows about [0-9.]* MB a step: about [0-9.]* GB for its 100000 steps; --set trace.until=[0-9.]*m\{0,1\}s traces each run's first" "$tmp/big.err" &&
	ok "a trace of more than 1 GB said after its first step, with the trace.until that keeps 1 GB" ||
	bad "the big trace: $(head -2 "$tmp/big.err")"
# trace.until: each run's frames up to that emulated time from its start, the same records in
# one engine and in two partitions (by each frame's own time); the plain build (tshark_ok: the
# trace's C runs under the sanitizers in the fast-forward and partition tests)
if tshark_ok; then
	for p in 1 2; do
		"$se" run -q -v A -n 6 -l 0.3 --set trace.until=10ms --set run.partitions=$p \
			--trace "$tmp/until$p.pcapng" >/dev/null 2>&1 || bad "trace.until, $p partitions"
		tshark -r "$tmp/until$p.pcapng" -T fields -e frame.interface_name -e frame.time_epoch \
			-e frame.len >"$tmp/until$p.txt" 2>/dev/null
	done
	last=$(tshark -r "$tmp/until1.pcapng" -T fields -e frame.time_relative 2>/dev/null | tail -1)
	if [ -s "$tmp/until1.txt" ] && cmp -s "$tmp/until1.txt" "$tmp/until2.txt" &&
		awk -v t="$last" 'BEGIN { exit !(t < 0.010) }'; then
		ok "trace.until=10ms: $(wc -l <"$tmp/until1.txt") frames, the last at $last s, the same in 2 partitions"
	else
		bad "trace.until: last frame at $last s, partitions $(cmp "$tmp/until1.txt" "$tmp/until2.txt" 2>&1)"
	fi
fi
"$se" run -v A -n 3 --trace "$tmp/small.pcapng" >/dev/null 2>"$tmp/small.err"
grep -q "its trace grows" "$tmp/small.err" && bad "a small trace said as big" ||
	ok "a small trace is not said"
# every CSV as a notebook reads it: a row per record, a type per column (tables_check.py types)
python3 "$(dirname "$0")/tables_check.py" types "$tmp/steps.csv" "$tmp/tabs/new"/*.csv \
	>"$tmp/check" 2>&1 && ok "--csv and --tables: a row per record, a type per column ($(wc -l <"$tmp/check") files)" ||
	bad "the CSVs' types: $(tail -1 "$tmp/check")"
expect_rc 0 "--tables with the text report, 25 steps (the steps in JSON only)" -- \
	"$se" run -q -n 25 -v "A,E'" -b free --tables "$tmp/tabs/text"
expect_rc 0 "the same run as JSON" -- "$se" run -q -n 25 -v "A,E'" -b free --json
python3 - "$tmp/tabs/text" "$tmp/out" <<'PY' && ok "--tables: the text run's tables, the JSON's steps" || bad "--tables with text"
import csv, json, sys
d = json.load(open(sys.argv[2]))
for r in d["runs"]:
    rows = list(csv.DictReader(open("%s/steps-%d.csv" % (sys.argv[1], r["run_id"]))))
    assert len(rows) == 25 == len(r["steps"]["rows"]), r["label"]
    for c, j in zip(rows, r["steps"]["rows"]):
        assert int(c["step"]) == j["step"] and int(c["frames"]) == j["frames"], (c, j)
        assert abs(float(c["emulated_ms"]) - j["emulated_ms"]) <= 1e-9 * j["emulated_ms"], (c, j)
s = list(csv.DictReader(open(sys.argv[1] + "/summary.csv")))
assert [x["run"] for x in s] == [x["run"] for x in d["summary"]["rows"]] == ["A", "E'[free]"], s
PY
echo keep >"$tmp/tabs/file"
expect_rc 2 "--tables on a regular file" -- "$se" run -q -n 2 -v A --tables "$tmp/tabs/file"
expect_grep "$tmp/err" "--tables $tmp/tabs/file: not a directory" "names the path"
[ "$(cat "$tmp/tabs/file")" = keep ] && ok "and leaves it" || bad "--tables changed a file"
expect_rc 2 "--tables in a directory that is not there" -- "$se" run -q -n 2 -v A --tables "$tmp/none/t"
expect_grep "$tmp/err" "its directory $tmp/none is not there" "names the missing directory"
mkdir -p "$tmp/tabs/in"
cp "$(dirname "$0")/../../scenarios/2dc4-100g.ini" "$tmp/tabs/in/summary.csv"
cksum "$tmp/tabs/in/summary.csv" >"$tmp/sum.before"
expect_rc 2 "--tables over the scenario file" -- "$se" run "$tmp/tabs/in/summary.csv" -q -n 2 -v A \
	--tables "$tmp/tabs/in"
expect_grep "$tmp/err" "is the scenario file" "says it would overwrite an input"
cksum "$tmp/tabs/in/summary.csv" | cmp -s - "$tmp/sum.before" && [ ! -e "$tmp/tabs/in/steps-1.csv" ] &&
	ok "the input kept, no file written" || bad "--tables over an input"

finish
