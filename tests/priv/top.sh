#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# syncemu-top on a live run: it attaches to the USDT probes of `syncemu run` and must report the
# shares of the step the model gives (E'[free] at zero load: equal up to the packet level's
# store-and-forward, checked to 1 percentage point), steps, the module's binding stage (optics),
# busy periods with --busy; the run ending while watched is a clean exit; and each failure mode is
# a message and a non-zero exit: no such pid, a pid that is not syncemu, a syncemu without probes,
# no -p, no BPF privilege.
# Needs root and BPF (uprobes, ring buffers): exits 77 (skipped) without them, saying why.
# Usage: top.sh SYNCEMU_BINARY SYNCEMU_TOP_BINARY [sanitized] (run from the source root)
set -u
. "$(dirname "$0")/../cli/lib.sh"
se=$1
top=$2
# the run that ends while watched: 600 steps of E[low] take 1.7 s in the plain build, 9.7 s under
# the sanitizers, where 300 (4.9 s) leave the same margin for syncemu-top to attach
steps2=600
[ "${3:-}" = sanitized ] && steps2=300

need_top "$se" "$top"

pids=()
cleanup() {
	local p
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done
	rm -rf "$tmp"
}
trap cleanup EXIT

# start_run OUT ARGS...: syncemu run in the background; $run is its pid
start_run() {
	local out=$1
	shift
	"$@" >"$out" 2>&1 &
	run=$!
	pids+=("$run")
	sleep 0.5	# the EAL is up and the first steps are done
}

# 1. A long E'[free] run, watched for 3 s with busy periods counted.
start_run "$tmp/run1" "$se" run --set run.fast_forward=off -v "E'" -b free -n 3000 --trace none -q
expect_rc 0 "syncemu-top -p PID --duration 3s --json --busy" -- \
	"$top" -p "$run" --duration 3s --json --busy
cp "$tmp/out" "$tmp/top1.json"
kill "$run" 2>/dev/null
python3 - "$tmp/top1.json" >"$tmp/check1" 2>&1 <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
runs = [r for r in d["runs"] if r["variant"] == "E'" and r["budget"] == "free"]
assert len(runs) == 1, "no E'[free] run in %s" % [r["run"] for r in d["runs"]]
r = runs[0]
assert d["ended_by"] == "duration", d["ended_by"]
assert r["steps"] > 10, "only %d steps counted" % r["steps"]
assert r["steps_per_s"] > 0, r["steps_per_s"]
diff = max(abs(r["shares_pct"][k] - r["model_shares_pct"][k]) for k in r["shares_pct"])
assert diff < 1.0, "shares differ from the model by %.3f pp: %s vs %s" % (
    diff, r["shares_pct"], r["model_shares_pct"])
assert abs(sum(r["shares_pct"].values()) - 100) < 0.01, r["shares_pct"]
assert r["hot_spot"] == r["model_hot_spot"] == "module_optics", (r["hot_spot"], r["model_hot_spot"])
assert r["binding_stage"] == "optics", r["binding_stage"]
assert r["model_binding_stage"] == "optics", r["model_binding_stage"]
assert r["wan_queue"]["samples"] > 0, r["wan_queue"]
assert r["busy_periods"] is not None and r["busy_periods"]["total"] > 0, r["busy_periods"]
assert r["drops"]["frames"] == 0, r["drops"]
print("%d steps at %.1f steps/s; shares within %.4f pp of the model; binding %s" % (
    r["steps"], r["steps_per_s"], diff, r["binding_stage"]))
EOF
if [ $? -eq 0 ]; then
	ok "E'[free]: $(cat "$tmp/check1")"
else
	bad "E'[free] summary:"
	sed 's/^/    /' "$tmp/check1"
fi

# 2. The live screen, then the run ends while watched: the summary, exit 0.
start_run "$tmp/run2" "$se" run --set run.fast_forward=off -v E -b low -n $steps2 --trace none -q
expect_rc 0 "the process exits while watched" -- "$top" -p "$run" --interval 500ms
expect_grep "$tmp/out" "module binding: compute (model compute)" "the live screen shows the binding"
python3 -c '
import json, sys
t = open(sys.argv[1]).read()
d = json.loads(t[t.index("\n{") + 1:])
r = [r for r in d["runs"] if r["run"] == "E[low]"][0]
assert d["ended_by"] == "exit" and r["ended"], (d["ended_by"], r["ended"])
print(r["steps"])' "$tmp/out" >"$tmp/check2" 2>&1 &&
	ok "the JSON summary follows the screen, ended by exit ($(cat "$tmp/check2") steps)" ||
	{ bad "summary after exit:"; sed 's/^/    /' "$tmp/check2" | tail -3; }

# 3. Failure modes.
expect_rc 1 "a pid that does not exist" -- "$top" -p 999999999
expect_grep "$tmp/err" "no process with pid 999999999" "it says so"
sleep 30 &
pids+=($!)
expect_rc 1 "a pid that is not syncemu" -- "$top" -p $!
expect_grep "$tmp/err" "is not syncemu" "it says so"
expect_rc 2 "no -p" -- "$top" --json
expect_grep "$tmp/err" "give -p PID" "it says so"
if command -v objcopy >/dev/null; then
	cp "$se" "$tmp/syncemu"
	objcopy --remove-section .note.stapsdt "$tmp/syncemu"
	start_run "$tmp/run3" "$tmp/syncemu" run --set run.fast_forward=off -v A -n 2000 --trace none -q
	expect_rc 1 "a syncemu built without probes" -- "$top" -p "$run"
	expect_grep "$tmp/err" "built without USDT probes" "it says so"
	expect_grep "$tmp/err" "install systemtap-sdt-dev, then rebuild" "and how to rebuild"
	kill "$run" 2>/dev/null
else
	ok "# skip: no objcopy to make a syncemu without probes"
fi
if command -v setpriv >/dev/null; then
	expect_rc 1 "no BPF privilege (uid 65534, no capabilities)" -- \
		setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all "$top" --check
	expect_grep "$tmp/err" "needs root or CAP_BPF+CAP_PERFMON" "it says what is needed"
else
	ok "# skip: no setpriv to drop privileges"
fi
finish
