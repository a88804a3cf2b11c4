#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# syncemu lab: a real Open MPI job across the emulated WAN, with nothing but the lab's commands:
#   syncemu lab up --latency 1ms --rate 400Mbit/s --trace T; syncemu lab exec -- mpirun -np 2
#   PROG (tests/priv/mpi_allreduce.c: 20 steps of 4 MiB, 5 ms of compute); syncemu lab down
# and then syncemu validate on the bridge's trace T against the program's own step times
# (10 %). Beside it, what a user meets first: the host names and the launch agent (a rank on
# a1, one on b1), a ping's RTT at least 2 x the latency (a frame never leaves the bridge
# early), the status, the refusals (bad options and keys, a name in use, no such lab), and
# nothing left after down or after a refused up: no namespace, no /etc/netns entry, no state.
#
# The 10 %, on a loaded 2-vCPU machine: the lab runs the bridge on CPU 0 and the ranks and
# their packet work on CPU 1; validate_mpi.sh derives the bound for the same job (its step
# >= 175 ms on the wire with the directions taking turns; the program's span and the wire's
# differ by the last rank's compute, 5 ms, and host stalls at either edge, 4 ms each: 7.4 %).
# The bridge's own lateness (a frame late by the time the host held the bridge) moves both
# spans alike. A check on the physical bound gets up to three attempts (attempts, lib.sh).
#
# Needs root, network namespaces, tc, ethtool, taskset, Open MPI and the program (meson
# builds it when it finds MPI): exits 77 without them, saying why. The lab is taken down on
# exit, whatever happened.
# Usage: lab.sh SYNCEMU_BINARY MPI_ALLREDUCE_BINARY
set -u
. "$(dirname "$0")/../cli/lib.sh"
se=$1
prog=${2:-not-built}

[ "$prog" = sanitized ] && skip "the sanitizer build: syncemu lab is a script and the bridge's code runs under the sanitizers in cli-bridge (and Open MPI's allocations are leaks to LeakSanitizer)"
[ "$(id -u)" -eq 0 ] || skip "needs root (network namespaces)"
for c in ip tc ethtool taskset unshare mpirun python3 ping; do
	command -v $c >/dev/null || skip "$c is not installed"
done
[ -x "$prog" ] || skip "the all-reduce program was not built (meson found no MPI: install libopenmpi-dev)"
[ "$(nproc)" -ge 2 ] || skip "needs 2 CPUs (the bridge busy-polls one)"

name=sl$$
export SYNCEMU_LAB_STATE=$tmp/state	# the labs of this test alone
cleanup() {
	"$se" lab down -n "$name" >/dev/null 2>&1
	local n
	for n in $(ip netns list | awk -v p="$name-" 'index($1, p) == 1 { print $1 }'); do
		ip netns pids "$n" | xargs -r kill -9 2>/dev/null
		ip netns del "$n"
		rm -rf "/etc/netns/$n"
	done
	cleanup_pids
}
trap cleanup EXIT

# nothing_left WHAT: no namespace, /etc/netns entry or state of the lab
nothing_left() {
	local left
	left=$(ip netns list | awk -v p="$name-" 'index($1, p) == 1 { print $1 }'; ls -d /etc/netns/"$name"-* "$SYNCEMU_LAB_STATE/$name" 2>/dev/null)
	[ -z "$left" ] && ok "$1: nothing of the lab left" || bad "$1: left behind: $(echo $left)"
}

# ---- refusals: each names what is wrong, and a refused up leaves nothing ----
expect_rc 2 "lab up --hosts 0" -- "$se" lab up -n "$name" --hosts 0
expect_grep "$tmp/err" "--hosts 0: from 1 to 16 a side" "--hosts 0 named"
expect_rc 2 "lab up -n Bad" -- "$se" lab up -n Bad
expect_grep "$tmp/err" "'Bad': a lowercase letter" "a bad lab name named"
expect_rc 1 "lab exec with no lab up" -- "$se" lab exec -n "$name" -- true
expect_grep "$tmp/err" "no lab '$name' is up" "no such lab: said"
expect_rc 1 "lab down with no lab up" -- "$se" lab down -n "$name"
expect_rc 2 "lab up with a key the bridge does not have" -- "$se" lab up -n "$name" \
	--set wan.nosuch=1
expect_grep "$tmp/err" "[wan] nosuch = '1': unknown key" "the bridge's refusal passed on, naming the key"
nothing_left "after the refused up"

# ---- an Open MPI all-reduce across the lab, captured by its bridge, validated ----
check_mpi() {
	local rc=0
	rm -f "$tmp/mpi.pcapng" "$tmp/mpi.csv"
	"$se" lab up -n "$name" --latency 1ms --rate 400Mbit/s --set queues.wan=4MB \
		--trace "$tmp/mpi.pcapng" >"$tmp/up.out" 2>"$tmp/up.err" || {
		bad "lab up: exit $?: $(tail -c 400 "$tmp/up.err")"
		return
	}
	expect_rc 1 "a second lab up of the same name" -- "$se" lab up -n "$name"
	expect_grep "$tmp/err" "lab '$name' is up already" "the name in use: said"
	local h
	h=$("$se" lab exec -n "$name" -H b1 -- hostname 2>&1)
	[ "$h" = b1 ] && ok "lab exec -H b1: runs under the host name b1" || bad "lab exec -H b1 hostname: '$h'"
	"$se" lab exec -n "$name" -- ping -c 3 -i 0.1 -W 2 b1 >"$tmp/ping" 2>&1
	python3 - "$tmp/ping" <<'PY' >"$tmp/pmsg" 2>&1 && ok "ping a1 > b1 through the lab: $(cat "$tmp/pmsg")" || bad "ping through the lab: $(cat "$tmp/pmsg") $(tail -2 "$tmp/ping")"
import re, sys
rtt = [float(x) for x in re.findall(r"time=([0-9.]+) ms", open(sys.argv[1]).read())]
assert len(rtt) >= 2, rtt
print("%d replies, min RTT %.3f ms >= 2 x 1 ms" % (len(rtt), min(rtt)))
assert min(rtt) >= 2.0, rtt
PY
	"$se" lab status -n "$name" -j >"$tmp/status.json" 2>"$tmp/status.err" || bad "lab status: exit $?"
	python3 - "$tmp/status.json" <<'PY' || bad "lab status -j: $(head -c 300 "$tmp/status.json")"
import json, sys
s = json.load(open(sys.argv[1]))
assert [h["name"] for h in s["hosts"]] == ["a1", "b1"], s["hosts"]
assert s["bridge"]["running"] is True and s["bridge"]["status"]["wan.latency"] == 0.001, s["bridge"]
PY
	# the collective whose directions take turns (validate_mpi.sh says why)
	timeout 120 "$se" lab exec -n "$name" -- mpirun -np 2 --mca coll_tuned_use_dynamic_rules 1 \
		--mca coll_tuned_allreduce_algorithm 2 "$prog" 20 4194304 5000 "$tmp/mpi.csv" \
		>"$tmp/mpi.out" 2>&1 || rc=$?
	"$se" lab down -n "$name" -j >"$tmp/down.json" 2>"$tmp/down.err" ||
		bad "lab down: exit $?: $(tail -c 300 "$tmp/down.err")"
	nothing_left "after lab down"
	if [ $rc -ne 0 ]; then
		bad "lab exec -- mpirun -np 2: exit $rc: $(tail -c 400 "$tmp/mpi.out")"
		return
	fi
	python3 - "$tmp/down.json" "$tmp/mpi.csv" <<'PY' >"$tmp/dmsg" 2>&1 && ok "the job crossed the bridge: $(cat "$tmp/dmsg")" || bad "the bridge's summary: $(cat "$tmp/dmsg")"
import csv, json, sys
d = json.load(open(sys.argv[1]))["directions"]
# 20 x 4 MiB each way in frames of at most 1448 bytes of data
for k in ("ab", "ba"):
    assert d[k]["frames_in"] == d[k]["frames_out"] + d[k]["drops"], d[k]
    assert d[k]["bytes_in"] > 20 * 4194304, d[k]
rows = list(csv.DictReader(open(sys.argv[2])))
assert len(rows) == 20, len(rows)
print("%d and %d frames each way, the program's 20 steps timed" % (d["ab"]["frames_out"],
                                                                 d["ba"]["frames_out"]))
PY
	rc=0
	"$se" validate "$tmp/mpi.pcapng" --interface wan.ab.out,wan.ba.out \
		--filter 'tcp portrange 40000-40049' --steps 20 --rate 400Mbit/s \
		--steps-csv "$tmp/mpi.csv" --tolerance 10 -j >"$tmp/val.json" 2>"$tmp/val.err" || rc=$?
	python3 - "$tmp/val.json" <<'PY' >"$tmp/vmsg" 2>&1 && [ $rc -eq 0 ] && ok "Open MPI all-reduce across the lab, the bridge's trace validated: $(cat "$tmp/vmsg")" || bad "validate on the lab's trace: exit $rc: $(cat "$tmp/vmsg") $(head -c 300 "$tmp/val.err")"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["mode"] == "streams", d["mode"]
assert len(d["tables"]["steps"]["rows"]) == 20
app = d["tables"]["app_steps"]["rows"]
assert len(app) == 20 and all(a["wire_step"] == a["app_step"] for a in app)
worst = max(abs(a["wire_vs_app_pct"]) for a in app)
print("20 steps, each within %.1f %% of the program's own" % worst)
PY
}
attempts check_mpi

finish
