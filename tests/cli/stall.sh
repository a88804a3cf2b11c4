#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# No false stalls: steps that take long in virtual time (a slow WAN, a long WAN latency, a long
# module latency, a long compute) finish and equal the packet-level closed form exactly; with
# background traffic on a slow WAN the run finishes too; a sync frame dropped by a lossy queue
# still fails the run at once, naming the link.
# Usage: stall.sh SYNCEMU (run from the source root)
set -u
. "$(dirname "$0")/lib.sh"
se=$1
command -v python3 >/dev/null || skip "python3 is not installed"

# exact DESC MIN_MS: the JSON report in $tmp/out has every run ok, equal to the closed form,
# with a mean step of at least MIN_MS (so longer than any timeout would have allowed)
exact() {
	if python3 - "$tmp/out" "$2" <<'PY' 2>"$tmp/py"; then
import json, sys
d = json.load(open(sys.argv[1]))
rows = d["summary"]["rows"]
assert rows and all(r["status"] == "ok" for r in rows), rows
for r in rows:
    assert r["max_rel_diff"] == 0, r
    assert r["emulated_ms"] == r["packet_model_ms"], r
    assert r["emulated_ms"] >= float(sys.argv[2]), r
PY
		ok "$1: equal to the closed form"
	else
		bad "$1: $(tail -1 "$tmp/py")"
	fi
}

expect_rc 0 "wan.bandwidth = 1 MB/s (a 31.7 s step)" -- "$se" run -v A -n 1 -q -j --trace none --set wan.bandwidth=1MB/s
exact "wan.bandwidth = 1 MB/s" 31000
expect_rc 0 "wan.latency = 9 s" -- "$se" run -v A -n 1 -q -j --trace none --set wan.latency=9s
exact "wan.latency = 9 s" 18000
expect_rc 0 "E' with a module latency of 12 s (nothing in flight while it works)" -- "$se" run -v "E'" -b free -n 1 -q -j --trace none --set module.latency_network=12s
exact "module.latency_network = 12 s" 12000
expect_rc 0 "a compute of 49 s, two steps" -- "$se" run -v C -n 2 -q -j --trace none --set gpu.peak=10GFLOP/s
exact "gpu.peak = 10 GFLOP/s" 48000
# background and the queue probe never run out of events: they neither hide nor cause a stall
expect_rc 0 "a slow WAN under background load" -- "$se" run -v A -n 2 -q -j --trace none --set wan.bandwidth=1MB/s --set background.load=0.3 --set "background.size=100 kB"
python3 -c "import json,sys; r=json.load(open(sys.argv[1]))['runs'][0]; assert r['ok'] and r['step_ms']['n'] == 2, r" "$tmp/out" 2>/dev/null &&
	ok "under load: both steps done" || bad "under load: $(head -c 300 "$tmp/out")"
# a real loss still fails at once
expect_rc 1 "a WAN queue too small for a round, sync not lossless" -- "$se" run -v A -n 1 -q --trace none --set "queues.wan=100 kB" --set queues.sync_lossless=no
expect_grep "$tmp/err" "wan0>1 dropped a frame of the sync" "names the link that dropped it"

finish
