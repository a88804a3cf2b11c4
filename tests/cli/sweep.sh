#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Runs under load and sweeps: the statistics and the models beside them, the background's wait
# against M/G/1, the WAN queue over time, and syncemu sweep's CSV, JSON and plot; the plot's
# saved script and data (gnuplot on them draws the same files), quoting (' " $ and a space in -o
# and in the scenario's name), a failing gnuplot, none, a full disk (a small tmpfs, as root);
# signals: one during a run (the files of the runs done, marked partial, exit 130), two during
# a run and two while gnuplot draws (no temporary left, gnuplot ended).
# Usage: sweep.sh SYNCEMU_BINARY (run from the source root)
set -u
. "$(dirname "$0")/lib.sh"
se=$1

# a run under load: JSON with the statistics, the models and the background
expect_rc 0 "run under load 0.6" -- "$se" run -v C -n 30 --load 0.6 -q --trace none --json --queue-csv "$tmp/q.csv"
python3 - "$tmp/out" <<'PY' && ok "JSON: steps, CI, PS and FIFO models, background beside M/G/1" || bad "JSON under load"
import json, sys
d = json.load(open(sys.argv[1]))
r = d["runs"][0]
assert r["ok"] and r["step_ms"]["n"] == 30, r["step_ms"]
assert r["step_ms"]["ci95"] is not None and r["step_ms"]["ci95"] > 0
m = r["model"]
assert m["zero_load_ms"] < r["step_ms"]["mean"] < 2 * m["fifo_mean_ms"], (m, r["step_ms"])
bg = r["background"]
assert bg["done"] > 100 and bg["incomplete"] == 0
assert bg["wait_us"]["mean"] > 0 and bg["mg1_wait_us"] > 0
assert set(r["wan_queues"]) == {"wan0>1", "wan1>0"}
PY
head -1 "$tmp/q.csv" | grep -q '^run_id,run,t_s,link,bytes$' && [ "$(wc -l <"$tmp/q.csv")" -gt 100 ] &&
	ok "--queue-csv writes the WAN queues over time ($(wc -l <"$tmp/q.csv") rows)" || bad "--queue-csv"

# background alone: the wait is M/D/1's
expect_rc 0 "background alone at load 0.5" -- "$se" run --background-only 0.5s --load 0.5 --set "background.size=64 kB" --set background.directions=one -q --trace none --json
python3 - "$tmp/out" <<'PY' && ok "background alone: mean wait within 5 % of M/D/1" || bad "background alone vs M/D/1"
import json, sys
bg = json.load(open(sys.argv[1]))["runs"][0]["background"]
w, md1 = bg["wait_us"]["mean"], bg["mg1_wait_us"]
assert abs(w / md1 - 1) < 0.05, (w, md1)
PY

# each frame's queueing delay at the WAN, from the trace's two capture points
if tshark_ok; then
	expect_rc 0 "a traced run under load" -- "$se" run -v C -n 3 --load 0.7 -q -c wan --trace "$tmp/ld.pcapng" --json
	inframes=$(python3 -c "import json; f=json.load(open('$tmp/out'))['trace']['frames']; print(sum(v for k, v in f.items() if k.endswith('.in')))")
	tools/wan-delays "$tmp/ld.pcapng" >"$tmp/delays" 2>"$tmp/derr"
	n=$(wc -l <"$tmp/delays")
	neg=$(awk '$7 < 0' "$tmp/delays" | wc -l)
	bgq=$(awk '$2 == "bg" && $7 > 0' "$tmp/delays" | wc -l)
	[ "$n" = "$inframes" ] && [ "$neg" = 0 ] && [ "$bgq" -gt 0 ] &&
		ok "tools/wan-delays: a delay for each of the $n frames at the WAN, none negative" ||
		bad "wan-delays: $n delays for $inframes frames, $neg negative"
	# the run's own queueing delays by class (each WAN element's "queue_wait") against the
	# trace's read by tshark and the dissector: the same frames, the mean and max within 1 ns
	# (the trace's stamps are ns, the run's times ps), the p50 and p99 within the histogram's
	# 0.4 % (and 1 ns) of the exact nearest-rank ones
	python3 - "$tmp/out" "$tmp/delays" <<'PY' >"$tmp/wchk" 2>&1 &&
import json, math, sys
d = json.load(open(sys.argv[1]))
mine = {(e["name"], k): v for e in d["runs"][0]["elements"] if "queue_wait" in e
        for k, v in e["queue_wait"].items()}
seen = {}
for l in open(sys.argv[2]):
    f = l.split()
    seen.setdefault((f[0], "background" if f[1] == "bg" else "sync"), []).append(int(f[6]))
assert set(mine) == set(seen), (sorted(mine), sorted(seen))
for k, v in sorted(seen.items()):
    v.sort()
    m = mine[k]
    rank = lambda q: v[max(0, math.ceil(q * len(v)) - 1)]
    assert m["frames"] == len(v), (k, m["frames"], len(v))
    assert abs(m["mean_us"] * 1e3 - sum(v) / len(v)) <= 1, (k, m["mean_us"], sum(v) / len(v))
    assert abs(m["max_us"] * 1e3 - v[-1]) <= 1, (k, m["max_us"], v[-1])
    for q, key in ((0.5, "p50_us"), (0.99, "p99_us")):
        assert abs(m[key] * 1e3 - rank(q)) <= 0.004 * rank(q) + 1, (k, key, m[key], rank(q))
print("%d classes of %d links, e.g. %s sync: mean %.1f us, p99 %.1f us" % (
    len(seen), len({k[0] for k in seen}), min(seen)[0], mine[(min(seen)[0], "sync")]["mean_us"],
    mine[(min(seen)[0], "sync")]["p99_us"]))
PY
		ok "the run's queueing delays by class equal the trace's read by tshark: $(cat "$tmp/wchk")" ||
		bad "queue_wait against the trace: $(tail -2 "$tmp/wchk")"
else
	echo "skip - tshark not installed"
fi

# the same seed, the same result under load; another seed, another
"$se" run -v C -n 20 --load 0.8 -q --trace none --json >"$tmp/s1.json" 2>/dev/null
"$se" run -v C -n 20 --load 0.8 -q --trace none --json >"$tmp/s2.json" 2>/dev/null
"$se" run -v C -n 20 --load 0.8 -q --trace none --json --seed 2 >"$tmp/s3.json" 2>/dev/null
python3 - "$tmp/s1.json" "$tmp/s2.json" "$tmp/s3.json" <<'PY' && ok "same seed, same steps; another seed, other steps" || bad "seeding"
import json, sys
def steps(f):
    return [row["emulated_ms"] for row in json.load(open(f))["runs"][0]["steps"]["rows"]]
a, b, c = (steps(f) for f in sys.argv[1:])
assert a == b and a != c
PY

# a sweep: CSV, JSON and the plots; a 4 MB WAN queue drops background frames under load, so
# those points' status is drops: an open marker of their own in the plot, named in its legend,
# and the status in the text
expect_rc 0 "sweep of the load" -- "$se" sweep -k background.load -r 0:0.6:0.3 -v A,C -n 12 -q \
	--set queues.wan=4MB -o "$tmp/sw"
expect_grep "$tmp/sw/sweep.gp" "set xlabel 'background.load, fraction of the WAN rate'" "a load's axis says what it is"
expect_grep "$tmp/sw/sweep.gp" "set xrange [-0.012:0.612]" "and ends 2 % past the swept values (the end markers whole, no tic below 0)"
expect_grep "$tmp/sw/sweep.gp" "using 1:(\$6 > 0 ? NaN : \$2):3 with yerrorbars lc 1 pt 6 ps 1.5 title 'A emulated, drops'" \
	"the points not ok: an open marker, their status in the legend"
grep -q "^  0.6 *A .* drops$" "$tmp/out" && grep -q "^  0 *A .* ok$" "$tmp/out" &&
	ok "the text's status column: ok at zero load, drops at 0.6" || bad "the status column: $(head -4 "$tmp/out")"
python3 "$(dirname "$0")/tables_check.py" types "$tmp/sw/sweep.csv" "$tmp/q.csv" >"$tmp/check" 2>&1 &&
	ok "sweep.csv and --queue-csv: a row per record, a type per column" ||
	bad "the CSVs' types: $(tail -1 "$tmp/check")"
[ "$(tail -n +2 "$tmp/sw/sweep.csv" | wc -l)" = 6 ] && ok "sweep.csv: 3 values x 2 variants" || bad "sweep.csv rows"
python3 -m json.tool "$tmp/sw/sweep.json" >/dev/null 2>&1 && ok "sweep.json parses" || bad "sweep.json"
[ -s "$tmp/sw/sweep.svg" ] && grep -q "<svg" "$tmp/sw/sweep.svg" && ok "sweep.svg written" || bad "sweep.svg"
[ -s "$tmp/sw/sweep.png" ] && [ "$(head -c 4 "$tmp/sw/sweep.png" | tail -c 3)" = PNG ] && ok "sweep.png written" || bad "sweep.png"
python3 - "$tmp/sw/sweep.csv" <<'PY' && ok "the step grows with the load, the model beside each point" || bad "sweep values"
import csv, sys
rows = [r for r in csv.DictReader(open(sys.argv[1])) if r["run"] == "A"]
means = [float(r["mean_ms"]) for r in rows]
assert means == sorted(means) and means[0] < means[-1], means
assert all(r["model_ms"] not in ("", "nan") for r in rows)
PY
expect_rc 0 "sweep of the WAN rate, JSON on stdout" -- "$se" sweep -k wan.bandwidth -V "1GB/s,12.5GB/s" -v "C'" -n 2 -q -o "$tmp/sw2" --json
python3 -c "import json,sys; d=json.load(open('$tmp/out')); assert d['key']=='wan.bandwidth' and len(d['points'])==2" && ok "sweep --json" || bad "sweep --json"
# --tables DIR: the runs' table as points.csv, equal to the JSON's points
expect_rc 0 "sweep --tables beside --json" -- "$se" sweep -k wan.bandwidth -V "1GB/s,12.5GB/s" -v "A,C'" \
	-n 2 -q -o "$tmp/sw3" --json --tables "$tmp/sw3/tables"
python3 "$(dirname "$0")/tables_check.py" sweep "$tmp/sw3/tables" "$tmp/out" >"$tmp/check" 2>&1 &&
	grep -q "points.csv: 4 rows" "$tmp/check" && ok "sweep --tables: points.csv, equal to the JSON" ||
	bad "sweep --tables: $(cat "$tmp/check")"
expect_rc 2 "sweep --tables on a file" -- "$se" sweep -k wan.bandwidth -V 1GB/s -v A -n 1 -q \
	-o "$tmp/sw3" --tables "$tmp/sw3/sweep.csv"
expect_grep "$tmp/err" "--tables $tmp/sw3/sweep.csv: not a directory" "names the path"

# the plot's script and data beside it: gnuplot on the saved script draws the same plot, byte for
# byte (cd DIR && gnuplot sweep.gp); the script reads and writes by relative names only
gp=$(command -v gnuplot || true)
expect_rc 0 "a sweep writes sweep.gp and sweep.dat" -- "$se" sweep -k wan.bandwidth -V 1GB/s,2GB/s -v A,C -n 2 -q -o "$tmp/gp"
[ -s "$tmp/gp/sweep.gp" ] && [ -s "$tmp/gp/sweep.dat" ] && ! grep -q "$tmp" "$tmp/gp/sweep.gp" &&
	ok "sweep.gp and sweep.dat saved, no absolute path in the script" || bad "sweep.gp, sweep.dat"
if [ -n "$gp" ]; then
	mkdir "$tmp/gp/orig"
	mv "$tmp/gp/sweep.svg" "$tmp/gp/sweep.png" "$tmp/gp/orig/"
	(cd "$tmp/gp" && gnuplot sweep.gp) 2>"$tmp/gp.err" &&
		cmp -s "$tmp/gp/sweep.svg" "$tmp/gp/orig/sweep.svg" && cmp -s "$tmp/gp/sweep.png" "$tmp/gp/orig/sweep.png" &&
		ok "cd DIR && gnuplot sweep.gp draws the same SVG and PNG again" || bad "the saved script does not redraw the plot: $(head -3 "$tmp/gp.err")"
fi

# quoting: -o with a quote, a space, a double quote and a dollar, and a scenario named with the
# characters gnuplot's strings and SVG treat specially
odd="$tmp/it's a \"plot\" \$HOME"
printf '[scenario]\nname = it'"'"'s "q" \\ $x & <b>\n' >"$tmp/odd.ini"
expect_rc 0 "sweep -o DIR with ' \" \$ and a space, a scenario named it's \"q\" \\ \$x & <b>" -- "$se" sweep "$tmp/odd.ini" -k wan.bandwidth -V 1GB/s,2GB/s -v A -n 1 -q -o "$odd"
if [ -n "$gp" ]; then
	grep -qF "syncemu sweep of wan.bandwidth (it's \"q\" \\ \$x &amp; &lt;b>)" "$odd/sweep.svg" &&
		ok "the SVG's title has the scenario's name as written" || bad "the title in the SVG: $(grep -o 'syncemu sweep of[^<]*' "$odd/sweep.svg")"
	mv "$odd/sweep.svg" "$tmp/odd.svg"
	(cd "$odd" && gnuplot sweep.gp) 2>"$tmp/gp.err" && cmp -s "$odd/sweep.svg" "$tmp/odd.svg" &&
		ok "the saved script redraws it in that directory" || bad "redraw in $odd: $(head -3 "$tmp/gp.err")"
fi
expect_rc 0 "sweep of a key with a double quote in a value" -- "$se" sweep -k scenario.name -V "it's,a \"b\" \$c" -v A -n 1 -q -o "$tmp/qv"
python3 - "$tmp/qv/sweep.csv" <<'PY' && ok "the CSV quotes a value with a double quote" || bad "CSV quoting"
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
assert [r["value"] for r in rows] == ["it's", 'a "b" $c'], rows
assert all(r["status"] == "ok" for r in rows)
PY

# a failing gnuplot: exit 1, the files named and gnuplot's own message quoted (with the saved
# script's name and line), the CSV, JSON, script and data written, no plot, no temporary; the
# real gnuplot, told to write its SVG into a directory that does not exist
if [ -n "$gp" ]; then
	mkdir "$tmp/gpbad"
	cat >"$tmp/gpbad/gnuplot" <<SH
#!/bin/sh
# syncemu runs: gnuplot -e "svg='...'; png='...'; dat='...'" SCRIPT
exec "$gp" -e "\$2; svg='$tmp/no/such/dir/x.svg'" "\$3"
SH
	chmod +x "$tmp/gpbad/gnuplot"
	rc=0
	PATH="$tmp/gpbad:$PATH" "$se" sweep -k wan.bandwidth -V 1GB/s,2GB/s -v A -n 1 -q -o "$tmp/gf" >"$tmp/out" 2>"$tmp/err" || rc=$?
	[ "$rc" = 1 ] && ok "a failing gnuplot: exit 1" || bad "a failing gnuplot: exit $rc"
	expect_grep "$tmp/err" "gnuplot failed on $tmp/gf/sweep.svg and $tmp/gf/sweep.png (exit 1)" "names the files and gnuplot's exit"
	expect_grep "$tmp/err" "\"$tmp/gf/sweep.gp\" line 12: cannot open file; output not changed" "quotes gnuplot's message, naming the saved script and its line"
	expect_grep "$tmp/err" "cd $tmp/gf && gnuplot sweep.gp" "says how to draw the plot from the saved script"
	[ ! -e "$tmp/gf/sweep.svg" ] && [ ! -e "$tmp/gf/sweep.png" ] && ok "no plot written" || bad "a plot was written"
	python3 -m json.tool "$tmp/gf/sweep.json" >/dev/null 2>&1 && [ "$(wc -l <"$tmp/gf/sweep.csv")" = 3 ] &&
		ok "the CSV and the JSON are written" || bad "CSV, JSON after a failing gnuplot"
	[ "$(ls -A "$tmp/gf" | sort | tr '\n' ' ')" = "sweep.csv sweep.dat sweep.gp sweep.json " ] &&
		ok "nothing else in the directory (no temporary)" || bad "left in $tmp/gf: $(ls -A "$tmp/gf")"
	(cd "$tmp/gf" && gnuplot sweep.gp) && grep -q "</svg>" "$tmp/gf/sweep.svg" &&
		ok "the saved script draws the plot" || bad "the saved script after a failing gnuplot"
fi
# no gnuplot at all: the same, said so
mkdir "$tmp/nobin"
rc=0
PATH="$tmp/nobin" "$se" sweep -k wan.bandwidth -V 1GB/s -v A -n 1 -q -o "$tmp/ng" >"$tmp/out" 2>"$tmp/err" || rc=$?
[ "$rc" = 1 ] && ok "no gnuplot: exit 1" || bad "no gnuplot: exit $rc"
expect_grep "$tmp/err" "gnuplot is not installed (apt-get install gnuplot-nox): $tmp/ng/sweep.svg and $tmp/ng/sweep.png not drawn" "says so, naming the files"
[ -s "$tmp/ng/sweep.csv" ] && [ -s "$tmp/ng/sweep.json" ] && [ -s "$tmp/ng/sweep.gp" ] && [ -s "$tmp/ng/sweep.dat" ] &&
	[ ! -e "$tmp/ng/sweep.svg" ] && ok "the CSV, JSON, script and data written, no plot" || bad "no gnuplot: $(ls -A "$tmp/ng")"

# a full disk: gnuplot exits 0 and leaves its SVG short or empty; that is an error naming the
# file, no plot is put in place, the results are whole.  A tmpfs of 4 pages holds the CSV, the
# JSON, the data and the script (under 4 KiB each) and nothing more: an empty SVG; of 6 pages, a
# short one (it is ~24 KiB).
if [ -z "$gp" ]; then
	echo "skip - a full disk: gnuplot is not installed"
elif [ "$(id -u)" != 0 ]; then
	echo "skip - a full disk: needs root (mount -t tmpfs)"
elif ! { mkdir "$tmp/full" && mount -t tmpfs -o size=16k tmpfs "$tmp/full"; }; then
	echo "skip - a full disk: cannot mount a tmpfs here"
else
	trap 'umount "$tmp/full" 2>/dev/null; rm -rf "$tmp"' EXIT
	for size in 16k 24k; do
		mount -o remount,size=$size "$tmp/full"
		rm -rf "$tmp/full/o"
		rc=0
		"$se" sweep -k wan.bandwidth -V 1GB/s,2GB/s -v A -n 1 -q -o "$tmp/full/o" >"$tmp/out" 2>"$tmp/err" || rc=$?
		[ "$rc" = 1 ] && ok "a full disk ($size): exit 1" || bad "a full disk ($size): exit $rc"
		expect_grep "$tmp/err" "gnuplot exited 0 but left $tmp/full/o/sweep.svg $([ $size = 16k ] && echo empty || echo short) (" "names the $([ $size = 16k ] && echo empty || echo short) SVG"
		expect_grep "$tmp/err" "its file system is full: neither plot written" "says the file system is full"
		[ ! -e "$tmp/full/o/sweep.svg" ] && [ ! -e "$tmp/full/o/sweep.png" ] && ok "no plot put in place" || bad "a short plot was put in place"
		python3 -m json.tool "$tmp/full/o/sweep.json" >/dev/null 2>&1 && [ "$(wc -l <"$tmp/full/o/sweep.csv")" = 3 ] &&
			[ "$(tail -1 "$tmp/full/o/sweep.gp")" = "set output" ] && ok "the CSV, JSON and script are whole" || bad "the results on a full disk"
		[ "$(ls -A "$tmp/full/o" | wc -l)" = 4 ] && ok "no temporary left" || bad "left: $(ls -A "$tmp/full/o")"
	done
	umount "$tmp/full"
fi

# -- signals.  A script's background job starts with SIGINT ignored, and sweep keeps an ignored
# signal ignored (nohup); env --default-signal=INT gives it the SIGINT of a terminal's Ctrl-C.
# Each step of these runs takes about a second (job.parameters = 400e6); the second value has a
# million steps, so it never ends by itself while the test runs.
# wait_for PID FILE PATTERN: until FILE has PATTERN (at most 5 min, on a loaded machine); false
# if it has not when PID ends
wait_for() {
	local n
	for n in $(seq 3000); do
		grep -qF -- "$3" "$2" 2>/dev/null && return 0
		kill -0 "$1" 2>/dev/null || break
		sleep 0.1
	done
	grep -qF -- "$3" "$2" 2>/dev/null
}
long=(-k run.steps -V 1,1000000,1 -v A --set job.parameters=400e6)

# one SIGINT during the second value: that run ends after its step and is kept, marked
# interrupted; the third is not run; the files hold what was done, marked partial; exit 130
env --default-signal=INT "$se" sweep "${long[@]}" -o "$tmp/int" >"$tmp/int.out" 2>"$tmp/int.err" &
pid=$!
wait_for "$pid" "$tmp/int.err" "sweep 1/3: run.steps=1 A" || bad "no progress line for the first value"
kill -INT "$pid"
rc=0
wait "$pid" || rc=$?
[ "$rc" = 130 ] && ok "SIGINT during the second value: exit 130" || bad "SIGINT: exit $rc: $(tail -2 "$tmp/int.err")"
expect_grep "$tmp/int.err" "syncemu sweep: interrupted (signal 2): 2 of 3 runs done, the last (run.steps=1000000 A) up to its last whole step" "says what was done"
python3 - "$tmp/int" <<'PY' && ok "CSV, JSON and data: the first value ok, the second interrupted with its steps, the third not run, partial" || bad "the partial files"
import csv, json, sys
d = sys.argv[1]
rows = list(csv.DictReader(open(d + "/sweep.csv")))
assert [(r["value"], r["status"]) for r in rows] == [("1", "ok"), ("1000000", "interrupted"), ("1", "not_run")], rows
assert rows[0]["steps"] == "1" and 1 <= int(rows[1]["steps"]) < 1000000, rows
assert float(rows[1]["mean_ms"]) > 0 and rows[2]["steps"] == "0" and rows[2]["mean_ms"] == "", rows
j = json.load(open(d + "/sweep.json"))
assert j["partial"] is True, j
assert [(p["value"], p["status"]) for p in j["points"]] == [("1", "ok"), ("1000000", "interrupted")], j["points"]
assert j["not_run"] == [{"value": "1", "x": 1.0, "run": "A"}], j["not_run"]
dat = open(d + "/sweep.dat").read()
assert "partial (interrupted): 2 of 3 runs, the last cut short" in dat.splitlines()[0], dat
assert len([l for l in dat.splitlines() if l and not l.startswith("#")]) == 2, dat
PY
if [ -n "$gp" ]; then
	grep -qF "syncemu sweep of run.steps (2dc4-100g), partial (interrupted): 2 of 3 runs, the last cut short" "$tmp/int/sweep.svg" &&
		ok "the plot's title says partial" || bad "the plot's title: $(grep -o 'syncemu sweep of[^<]*' "$tmp/int/sweep.svg")"
fi
grep -q "partial (interrupted)" "$tmp/int.out" && grep -q "^interrupted: run.steps=1000000 A stopped after step" "$tmp/int.out" &&
	grep -q "^not run: 1 of 3 runs" "$tmp/int.out" && ok "the table says so too" || bad "the table: $(cat "$tmp/int.out")"
[ "$(ls -A "$tmp/int" | wc -l)" = 6 ] && ok "six files, no temporary" || bad "in $tmp/int: $(ls -A "$tmp/int")"

# two signals during a run: the first ends it after its step, the second (within that step)
# ends the process at once: no temporary (named ones too) and the old CSV as it was.  If that
# step ended in between, the sweep wrote its files (whole) before the second: no temporary then
# either.
mkdir "$tmp/two"
printf 'the old csv\n' >"$tmp/two/sweep.csv"
SYNCEMU_OUTFILE_NAMED=1 env --default-signal=INT "$se" sweep "${long[@]}" -o "$tmp/two" >/dev/null 2>"$tmp/two.err" &
pid=$!
wait_for "$pid" "$tmp/two.err" "sweep 1/3: run.steps=1 A" || bad "no progress line for the first value"
ls "$tmp/two"/sweep.csv.tmp.* >/dev/null 2>&1 && ok "named temporaries while the sweep runs" || bad "no named temporary to clean up"
kill -INT "$pid"
wait_for "$pid" "$tmp/two.err" "syncemu sweep: interrupted: the runs done are written" || bad "no word of the first signal"
kill -INT "$pid"
rc=0
wait "$pid" || rc=$?
if [ "$rc" = 130 ] && ! grep -q "the files hold them" "$tmp/two.err"; then
	[ "$(cat "$tmp/two/sweep.csv")" = "the old csv" ] && ok "two SIGINTs during a run: exit 130, the old CSV as it was" ||
		bad "two signals: the old CSV changed"
elif [ "$rc" = 130 ]; then
	grep -q ',"interrupted"$' "$tmp/two/sweep.csv" && ok "two SIGINTs: the step ended first, the files whole" || bad "two signals: a half CSV"
else
	bad "two signals during a run: exit $rc"
fi
[ -z "$(ls -A "$tmp/two" | grep '\.tmp\.')" ] && ok "two signals during a run: no temporary" || bad "left: $(ls -A "$tmp/two")"

# two signals while gnuplot draws (a gnuplot that never ends): the first lets it draw on, the
# second ends the sweep at once, ends gnuplot, and removes the plots' named temporaries
mkdir "$tmp/slow"
cat >"$tmp/slow/gnuplot" <<SH
#!/bin/sh
echo \$\$ >"$tmp/gp.pid"
exec sleep 600
SH
chmod +x "$tmp/slow/gnuplot"
SYNCEMU_OUTFILE_NAMED=1 PATH="$tmp/slow:$PATH" env --default-signal=INT "$se" sweep -k wan.bandwidth -V 1GB/s,2GB/s -v A -n 1 -q -o "$tmp/gpw" >/dev/null 2>"$tmp/gpw.err" &
pid=$!
for _ in $(seq 3000); do [ -s "$tmp/gp.pid" ] || ! kill -0 "$pid" 2>/dev/null && break; sleep 0.1; done
ls "$tmp/gpw"/sweep.svg.tmp.* "$tmp/gpw"/sweep.png.tmp.* >/dev/null 2>&1 && ok "the plots' named temporaries while gnuplot runs" || bad "no plot temporaries"
kill -INT "$pid"
wait_for "$pid" "$tmp/gpw.err" "syncemu sweep: interrupted: the runs done are written" || bad "no word of the first signal"
kill -0 "$pid" 2>/dev/null && ok "the first signal lets gnuplot draw on" || bad "the first signal ended the sweep"
kill -INT "$pid"
rc=0
wait "$pid" || rc=$?
[ "$rc" = 130 ] && ok "the second SIGINT ends it (exit 130)" || bad "the second SIGINT: exit $rc"
[ -z "$(ls -A "$tmp/gpw" | grep '\.tmp\.')" ] && [ ! -e "$tmp/gpw/sweep.svg" ] && ok "no temporary, no plot" || bad "left: $(ls -A "$tmp/gpw")"
gone=no
for _ in $(seq 100); do kill -0 "$(cat "$tmp/gp.pid")" 2>/dev/null || { gone=yes; break; }; sleep 0.1; done
[ $gone = yes ] && ok "gnuplot is ended too" || { bad "gnuplot is still running"; kill "$(cat "$tmp/gp.pid")"; }

# the plot's rules: the models as dense curves (from the JSON's curves, through each swept value's
# own model), units on both axes, log axes where the values span 20 x, the settings in the title
expect_rc 0 "a WAN bandwidth sweep over 50 x" -- "$se" sweep -q -k wan.bandwidth -V 1GB/s,3GB/s,12.5GB/s,50GB/s \
	-v A,"C'" -n 4 -o "$tmp/bw"
python3 - "$tmp/bw" <<'PY' && ok "dense model curves (83 values), log axes, GB/s, the settings in the title" || bad "the bandwidth sweep's plot"
import json, re, sys
d = sys.argv[1]
gp, dat, js = (open(d + "/sweep." + e).read() for e in ("gp", "dat", "json"))
assert "set logscale x" in gp and "set logscale y" in gp, gp
assert "set xlabel 'wan.bandwidth, GB/s (log scale)'" in gp and "mean step time, ms (log scale)" in gp
assert "seed 1, 4 steps (4 warm-up), queues: NIC 2 MB, port 2 MB, switch 16 MB, WAN 64 MB" in gp
# the axis 2 % of its span (in logs) past the swept values: 1 / 50^0.02 to 50 x 50^0.02
lo, hi = map(float, re.search(r"set xrange \[([^:]+):([^\]]+)\]", gp).groups())
assert abs(lo - 50 ** -0.02) < 1e-6 and abs(hi - 50 * 50 ** 0.02) < 1e-6, (lo, hi)
# the lines come from the dense blocks (index 2 and 3), 81 grid values + 2 swept ones off it
blocks = dat.split("\n\n\n")
assert len(blocks) == 4, len(blocks)
rows = [l for l in blocks[2].splitlines() if l and not l.startswith("#")]
assert len(rows) == 83, len(rows)
assert re.search(r"dat index 2 using 1:2 with lines lc 1 dt 2 title 'A packet model'", gp), gp
c = json.load(open(d + "/sweep.json"))
pts = {p["x"]: p["model_ms"] for p in c["points"] if p["run"] == "A"}
for r in rows:
    x, a, b = map(float, r.split())
    if x in pts:
        assert abs(a - pts[x]) <= 1e-6 * a, (x, a, pts[x])
PY

# bad input
expect_rc 2 "an unknown key" -- "$se" sweep -k wan.bandwith -V 1GB/s -o "$tmp/bad"
expect_grep "$tmp/err" "bandwidth" "suggests the key"
expect_rc 2 "a bad value" -- "$se" sweep -k wan.bandwidth -V "1GB/s,fast" -o "$tmp/bad"
expect_grep "$tmp/err" "value 2" "names the value"
expect_rc 2 "a bad range" -- "$se" sweep -k background.load -r 0:0.9
expect_rc 2 "no values" -- "$se" sweep -k background.load
expect_rc 2 "a load of 1" -- "$se" run --load 1 --trace none
expect_rc 2 "background-only without load" -- "$se" run --background-only 1s --trace none
expect_rc 0 "sweep --help" -- "$se" sweep --help

finish
