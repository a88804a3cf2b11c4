#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The control plane end to end: a run of E[high] with the compute budget at 200 GFLOP/s (the
# optics bind: 14 GB/s against 20 GB/s), watched by `syncemu top` (BPF, USDT probes); the budget
# is lowered to 50 GFLOP/s through the control socket mid-run (compute binds: 5 GB/s).  syncemu
# top must report the modules' binding stage flipping from optics to compute, the budget change,
# and over the steps after it the shares of the step the model gives for 50 GFLOP/s within one
# percentage point; the model must say optics before and compute after; DPDK telemetry answers
# with the new budget and binding.
# Needs root and BPF (uprobes, ring buffers): exits 77 (skipped) without them, saying why.
# Usage: ctl_top.sh SYNCEMU SYNCEMU_TOP (run from the source root)
set -u
. "$(dirname "$0")/../cli/lib.sh"
se=$1
top=$2

need_top "$se" "$top"

sock=$tmp/ctl.sock
prefix=syncemu-ctltop-$$
run_pid=
top_pid=
cleanup() {
	[ -n "$top_pid" ] && kill "$top_pid" 2>/dev/null
	[ -n "$run_pid" ] && kill -9 "$run_pid" 2>/dev/null
	rm -rf "$tmp" "/var/run/dpdk/$prefix"
}
trap cleanup EXIT

# What the model says for each budget.
for b in 200 50; do
	"$se" model -v E -b high -t step,shares -j --set module.budget_high=${b}GFLOP/s \
		>"$tmp/model$b.json" 2>"$tmp/err" || bad "syncemu model at $b GFLOP/s"
done
python3 - "$tmp/model200.json" "$tmp/model50.json" >"$tmp/c0" 2>&1 <<'PY'
import json, sys
hot = [json.load(open(p))["tables"]["step"]["rows"][0]["hot_spot"] for p in sys.argv[1:]]
assert hot == ["module optics", "module compute"], hot
print("the model: %s at 200 GFLOP/s, %s at 50" % tuple(hot))
PY
[ $? -eq 0 ] && ok "$(cat "$tmp/c0")" || { bad "the model's hot spots:"; sed 's/^/    /' "$tmp/c0"; }

"$se" run -v E -b high -n 1000000 --set module.budget_high=200GFLOP/s --ctl "$sock" \
	--trace none -q -j \
	--eal "--no-huge --no-pci --no-shconf -l 0 --iova-mode=va --log-level=*:error --file-prefix=$prefix" \
	>"$tmp/run.json" 2>"$tmp/run.err" &
run_pid=$!
for _ in $(seq 100); do [ -S "$sock" ] && break; sleep 0.1; done
[ -S "$sock" ] || { bad "the run serves no socket"; cat "$tmp/run.err"; finish; }
for _ in $(seq 100); do "$se" ctl "$sock" status 2>/dev/null | grep -q '"running": 1' && break; sleep 0.1; done

# syncemu top (the subcommand runs syncemu-top) for 7 s; the change comes 2.5 s in.
"$se" top -p "$run_pid" --duration 7s --json --set module.budget_high=200GFLOP/s \
	>"$tmp/top.json" 2>"$tmp/top.err" &
top_pid=$!
sleep 2.5
expect_rc 0 "syncemu ctl: status before" -- "$se" ctl "$sock" status
expect_grep "$tmp/out" '"binding": "optics"' "the optics bind before the change"
expect_rc 0 "syncemu ctl: set module.budget_high 50GFLOP/s" -- \
	"$se" ctl "$sock" set module.budget_high 50GFLOP/s
expect_grep "$tmp/out" '"old": 200000000000' "the answer has the old budget"
sleep 1
if command -v dpdk-telemetry.py >/dev/null; then
	echo /syncemu/status | dpdk-telemetry.py -f "$prefix" >"$tmp/tel" 2>&1
	expect_grep "$tmp/tel" '"budget_flops": 50000000000' "telemetry: the budget charged now"
	expect_grep "$tmp/tel" '"binding": "compute"' "telemetry: compute binds now"
else
	echo "skip - dpdk-telemetry.py is not installed (the dpdk package)"
fi
rc=0
wait "$top_pid" || rc=$?
top_pid=
[ "$rc" -eq 0 ] && ok "syncemu top ran its 7 s (exit 0)" || { bad "syncemu top: exit $rc"; sed 's/^/    /' "$tmp/top.err" | tail -5; }
kill -INT "$run_pid"
rc=0
wait "$run_pid" || rc=$?
run_pid=
[ "$rc" -eq 130 ] && ok "the run ends on SIGINT with its report (exit 130)" || bad "the run: exit $rc"

python3 - "$tmp/top.json" "$tmp/model50.json" "$tmp/run.json" >"$tmp/c1" 2>&1 <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
m = json.load(open(sys.argv[2]))["tables"]["shares"]["rows"][0]
runs = [r for r in d["runs"] if r["variant"] == "E"]
assert len(runs) == 1, [r["run"] for r in d["runs"]]
r = runs[0]
assert r["budget_changes"] == 1 and r["budget_events"][0]["from_mflops"] == 200000 and \
    r["budget_events"][0]["to_mflops"] == 50000, r["budget_events"]
flips = [e for e in r["binding_events"] if e["from"] == "optics" and e["to"] == "compute"]
assert len(flips) == 8, r["binding_events"]        # the eight workers' modules
assert r["binding_stage"] == r["model_binding_stage"] == "compute", (r["binding_stage"],
                                                                      r["model_binding_stage"])
assert r["hot_spot"] == r["model_hot_spot"] == "module_compute", (r["hot_spot"], r["model_hot_spot"])
assert r["steps"] >= 10, "only %d steps after the change" % r["steps"]
assert r["first_step"] > r["budget_events"][0]["step"], (r["first_step"], r["budget_events"])
keys = ["compute", "intra", "wan", "module_port", "module_optics", "module_compute", "module_fpga"]
diff = max(abs(r["shares_pct"][k] - r["model_shares_pct"][k]) for k in keys)
diff_cli = max(abs(r["model_shares_pct"][k] - m[k]) for k in keys)
assert diff < 1.0, (r["shares_pct"], r["model_shares_pct"])
assert diff_cli < 0.01, (r["model_shares_pct"], m)
run = json.load(open(sys.argv[3]))["runs"][0]
ch = run["changes"]
assert len(ch) == 1 and ch[0]["key"] == "module.budget_high" and ch[0]["value"] == 50e9, ch
print("optics -> compute on 8 modules at %.3f ms; %d steps after it: module compute %.2f %% "
      "(model %.2f %%), all shares within %.3f pp" % (flips[0]["t_ps"] / 1e9, r["steps"],
      r["shares_pct"]["module_compute"], r["model_shares_pct"]["module_compute"], diff))
PY
if [ $? -eq 0 ]; then ok "syncemu top: $(cat "$tmp/c1")"; else bad "syncemu top's summary:"; sed 's/^/    /' "$tmp/c1"; fi
finish
