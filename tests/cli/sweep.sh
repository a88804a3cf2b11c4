#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Runs under load and sweeps: the statistics and the models beside them, the background's wait
# against M/G/1, the WAN queue over time, and syncemu sweep's CSV, JSON and plot.
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
if command -v tshark >/dev/null; then
	expect_rc 0 "a traced run under load" -- "$se" run -v C -n 3 --load 0.7 -q -c wan --trace "$tmp/ld.pcapng" --json
	inframes=$(python3 -c "import json; f=json.load(open('$tmp/out'))['trace']['frames']; print(sum(v for k, v in f.items() if k.endswith('.in')))")
	tools/wan-delays "$tmp/ld.pcapng" >"$tmp/delays" 2>"$tmp/derr"
	n=$(wc -l <"$tmp/delays")
	neg=$(awk '$7 < 0' "$tmp/delays" | wc -l)
	bgq=$(awk '$2 == "bg" && $7 > 0' "$tmp/delays" | wc -l)
	[ "$n" = "$inframes" ] && [ "$neg" = 0 ] && [ "$bgq" -gt 0 ] &&
		ok "tools/wan-delays: a delay for each of the $n frames at the WAN, none negative" ||
		bad "wan-delays: $n delays for $inframes frames, $neg negative"
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

# a sweep: CSV, JSON and the plots
expect_rc 0 "sweep of the load" -- "$se" sweep -k background.load -r 0:0.6:0.3 -v A,C -n 12 -q -o "$tmp/sw"
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
