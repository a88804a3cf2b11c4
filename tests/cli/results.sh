#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# What syncemu run reports, and what it holds while it runs:
#   - the status says ok only where every model column applies: drops at the 64 MB WAN queue
#     under load 0.9 (and ok with a queue deep enough not to drop), the fluid bound outside its
#     domain (8 DC x 2), several at once (no sync, an all-to-all: bound and closed form), a live
#     change;
#   - a live set of module.budget_high through the control socket: the step during which it
#     landed is named and left out, every other step equals the closed form of the budget in
#     force during it (max |diff| rel 0), in JSON and in text;
#   - memory: the peak resident set of a 20,000-step run at load 0.9 is within 1 MB of a
#     2,000-step one (the state per step is not kept); the report keeps the first and last 1,000
#     steps and says so; --queue-csv has every sample, the JSON at most 2,000 per link.
# Usage: results.sh SYNCEMU RSS_PROBE_SO (run from the source root)
set -u
. "$(dirname "$0")/lib.sh"
se=$1
probe=$2
command -v python3 >/dev/null || skip "python3 is not installed"

# json_check FILE PYTHON DESC: the python (with d = the JSON, r = its first run) asserts
json_check() {
	if python3 -c "import json,sys
d = json.load(open(sys.argv[1])); r = d['runs'][0]
$2" "$1" 2>"$tmp/py"; then
		ok "$3"
	else
		bad "$3"
		sed 's/^/    /' "$tmp/py" | tail -2 | cut -c1-240
	fi
}

# ---- the status ----

expect_rc 0 "load 0.9, the default 64 MB WAN queue" -- "$se" run -v A -n 30 --load 0.9 -q -j
json_check "$tmp/out" '
row = d["summary"]["rows"][0]
bg = sum(e["background_drops"] for e in r["elements"])
assert row["status"] == "drops" and row["bg_drops"] == bg and bg > 10000, row
assert r["flags"]["drops"] and r["status"] == "drops", r["status"]' \
	"drops at the WAN queue: status drops, the drops printed (was ok)"
expect_rc 0 "the same, as text" -- "$se" run -v A -n 30 --load 0.9 -q
expect_grep "$tmp/out" "the fluid models have unlimited buffers, so their columns do not apply" \
	"the text says why the model columns do not apply"
expect_grep "$tmp/out" "queues (frame bytes): WAN 64 MB" "the text states the queues it used"
expect_rc 0 "load 0.9 with a 1 GB WAN queue" -- "$se" run -v A -n 30 --load 0.9 -q -j \
	--set queues.wan=1GB
json_check "$tmp/out" '
assert r["status"] == "ok" and not any(r["flags"].values()), r["status"]
assert all(e["drop"] == 0 for e in r["elements"])' "no drops: ok"

expect_rc 0 "zero load, 8 DC x 2" -- "$se" run -v A,C -n 2 -q -j --set topology.data_centres=8 \
	--set topology.workers_per_dc=2
json_check "$tmp/out" '
assert [x["status"] for x in d["summary"]["rows"]] == ["bound not valid"] * 2, d["summary"]
for r in d["runs"]:
    assert r["status"] == "bound not valid" and r["flags"]["bound_not_valid"], r["status"]
    assert r["max_rel_diff"] == 0 and r["fluid_bound"] is None, r
    assert "across DCs: 7 rounds of up to 2 flows" in r["fluid_bound_why"], r["fluid_bound_why"]
row = d["summary"]["rows"][0]
assert row["vs_fluid_pct"] < -2 and row["fluid_bound_pct"] is None, row' \
	"8 x 2: shorter than the fluid step, status bound not valid (was ok)"
expect_rc 0 "zero load, the deck's 2 DC x 4" -- "$se" run -v A,C -n 2 -q -j
json_check "$tmp/out" '
assert all(r["status"] == "ok" and r["fluid_bound_holds"] for r in d["runs"])' \
	"inside the bound's domain: ok"
# a double binary tree: exact, and no fluid bound stated, with the reason
expect_rc 0 "a tree all-reduce" -- "$se" run -v A,C\' -n 2 -q -j --set job.collective=tree \
	--set topology.data_centres=3 --set topology.workers_per_dc=5
json_check "$tmp/out" '
for r in d["runs"]:
    assert r["max_rel_diff"] == 0 and r["status"] == "bound not valid", r
    assert r["fluid_bound_why"].startswith("tree reduce: a tree"), r["fluid_bound_why"]' \
	"a tree: exact to the picosecond, bound not stated"
# no sync, an all-to-all and next to no compute: a fast worker's next step meets a slow one's
# pairwise rounds on a link, which the closed form refuses (within a step it follows them)
expect_rc 0 "no sync" -- "$se" run -v A -n 3 -q -j --set run.sync=none \
	--set job.operation=alltoall --set job.tokens=1
json_check "$tmp/out" '
assert r["status"] == "bound not valid, rounds overlap: no closed form", r["status"]
assert r["flags"]["bound_not_valid"] and r["flags"]["rounds_overlap"]' "several at once"

# ---- a live change: each step against the closed form of the parameters in force ----

live_run() {	# live_run OUT EXTRA...: E[high], budget_high set to 30 GFLOP/s after step 3
	local out=$1 sock=$tmp/live.sock prefix=syncemu-results-test-$$ pid n=0 at
	shift
	rm -f "$sock"
	"$se" run -v E -b high -n 1000000 --ctl "$sock" -q "$@" \
		--eal "--no-huge --no-pci --no-shconf -l 0 --iova-mode=va --log-level=*:error --file-prefix=$prefix" \
		>"$out" 2>"$tmp/live.err" &
	pid=$!
	for _ in $(seq 200); do
		n=$("$se" ctl "$sock" status 2>/dev/null | python3 -c 'import json,sys; print(json.load(sys.stdin)["steps_done"])' 2>/dev/null)
		[ "${n:-0}" -ge 3 ] && break
		sleep 0.05
	done
	"$se" ctl "$sock" set module.budget_high 30GFLOP/s >"$tmp/set.json" 2>&1
	at=$n
	for _ in $(seq 400); do
		n=$("$se" ctl "$sock" status 2>/dev/null | python3 -c 'import json,sys; print(json.load(sys.stdin)["steps_done"])' 2>/dev/null)
		[ "${n:-0}" -ge $((at + 5)) ] && break
		sleep 0.05
	done
	kill -INT "$pid"
	wait "$pid"
	echo "exit $?" >>"$tmp/live.err"
	rm -rf "/var/run/dpdk/$prefix" "${XDG_RUNTIME_DIR:-/nonexistent}/dpdk/$prefix"
}
live_run "$tmp/live.json" -j
expect_grep "$tmp/set.json" '"ok": true' "the set was applied"
json_check "$tmp/live.json" '
assert r["max_rel_diff"] is not None and r["max_rel_diff"] <= 1e-6, r["max_rel_diff"]
k = r["changes"][0]["step"]
assert isinstance(k, int) and k >= 2, r["changes"]
assert r["flags"]["changed_live"] and r["flags"]["interrupted"], r["status"]
assert r["status"] == "interrupted, changed live", r["status"]
assert r["changed_steps"] == 1 and r["compared_steps"] == r["step_ms"]["n"] - 1, r
assert r["max_rel_diff"] is not None and r["max_rel_diff"] <= 1e-6, r["max_rel_diff"]
g = r["regimes"]
assert len(g) == 2 and g[0]["last_step"] == k - 1 and g[1]["first_step"] == k + 1, g
assert all(x["max_rel_diff"] <= 1e-6 and x["compared_steps"] > 0 for x in g), g
assert g[1]["packet_model_ms"] > 1.5 * g[0]["packet_model_ms"], g   # the new budget binds
rows = {x["step"]: x for x in r["steps"]["rows"]}
assert rows[k]["note"].startswith("changed live") and rows[k]["packet_model_ms"] is None
assert all(rows[s]["diff_ns"] == 0 for s in rows if s != k)
assert rows[k + 1]["fluid_ms"] > 1.5 * rows[k - 1]["fluid_ms"]' \
	"the changed step named and left out, every other step equal to its own closed form (was max |diff| rel 1.03)"
live_run "$tmp/live.txt" -e
if grep -qE "^change: run E\[high\] at [0-9.]+ ms, during step [0-9]+: module.budget_high 99000000000 -> 30000000000" "$tmp/live.txt" &&
	grep -q "changed live: no model applies" "$tmp/live.txt" &&
	grep -q "interrupted, changed live" "$tmp/live.txt"; then
	ok "text: the change names its step, the step is marked, the status says so"
else
	bad "text report of the live change"
	grep -E "change:|changed|status" "$tmp/live.txt" | head -5 | sed 's/^/    /'
fi

# ---- memory ----

# A short step (P = 200,000; 64 kB transfers): 0.38 ms of virtual time, about 70 transfers and
# 4 queue samples each, so that 20,000 steps take seconds.  The peak resident set is read by a
# preloaded probe when the pool is freed (freeing DPDK memory zeroes it, which would make any
# run peak at its whole pool on the way out).
short=(-v A --load 0.9 --set job.parameters=200000 --set job.topk_kept=0
	--set background.size=64kB -q -j)
# Under AddressSanitizer freed memory waits in its quarantine (up to 256 MB), so the resident set
# says nothing of what the program holds: the runs are made, their peaks not compared.
asan=no
ldd "$se" 2>/dev/null | grep -q libasan && asan=yes
peak() {	# peak STEPS OUT: the run's peak RSS in kB
	local pre=$probe
	rm -f "$tmp/hwm"
	[ $asan = yes ] && pre=
	LD_PRELOAD=$pre RSS_PROBE_OUT=$tmp/hwm "$se" run "${short[@]}" -n "$1" \
		--queue-csv "$tmp/q$1.csv" >"$2" 2>"$tmp/peak.err" || { cat "$tmp/peak.err" >&2; echo 0; return; }
	awk '/VmHWM/ {print $2}' "$tmp/hwm" 2>/dev/null
}
# The sanitizer build makes the long run 3,000 steps: the same code (past 2,048 steps the
# statistics leave their exact values, the report keeps the first and last 1,000, the JSON thins
# the queue's samples), without the peaks to compare, at a sixth of the time.
long=20000
[ $asan = yes ] && long=3000
a=$(peak 2000 "$tmp/m2000.json")
b=$(peak $long "$tmp/m$long.json")
# What still grows from 2,000 to 20,000 steps: the two step streams and the two shared-WAN
# model runs pass from exact (2,000 values) to their sketches (at most 64 KB of buckets each),
# the shared-WAN model's active transfers and malloc's arenas: some 0.5 MB measured.  The
# state per step before (the record, every step's result and closed form, every queue sample
# and transfer) was 4.4 KB a step here: 78 MB over the 18,000 steps.
if [ $asan = yes ]; then
	echo "skip - the peak RSS under AddressSanitizer (its quarantine keeps what is freed)"
elif [ "${a:-0}" -gt 0 ] && [ "${b:-0}" -gt 0 ] && [ $((b - a)) -lt 1024 ]; then
	ok "peak RSS 2,000 steps $a kB, 20,000 steps $b kB: $((b - a)) kB more (< 1 MB)"
else
	bad "peak RSS 2,000 steps ${a:-?} kB, 20,000 steps ${b:-?} kB: more than 1 MB apart"
fi
json_check "$tmp/m$long.json" '
n = '$long'
rows = r["steps"]["rows"]
assert r["steps_kept"] == {"first": 1000, "last": 1000, "of": n}, r["steps_kept"]
assert [x["step"] for x in rows] == list(range(1000)) + list(range(n - 1000, n))
assert any("steps 1000 to %d not shown" % (n - 1001) in x for x in r["steps"]["notes"]), r["steps"]["notes"]
assert r["step_ms"]["n"] == n
q = r["wan_queues"]["wan0>1"]
assert 1000 <= len(q["t_s"]) <= 2000 and q["every_sample"] >= 2, len(q["t_s"])
assert abs((q["t_s"][1] - q["t_s"][0]) - q["every_sample"] * 1e-4) < 1e-9
samples = q["samples"]
csv = sum(1 for _ in open(sys.argv[1].replace("m%d.json" % n, "q%d.csv" % n))) - 1
assert csv == 2 * samples, (csv, samples)' \
	"a long run ($long steps): its first and last 1,000 steps, every step in the statistics; every queue sample in the CSV, at most 2,000 in the JSON"
json_check "$tmp/m2000.json" '
assert r["steps_kept"] == {"first": 1000, "last": 1000, "of": 2000}
assert [x["step"] for x in r["steps"]["rows"]] == list(range(2000))' "2,000 steps: every step"
finish
