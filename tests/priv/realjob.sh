#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# tools/realjob's mechanics, not its numbers: one small Open MPI case through the bridge (2
# ranks, 64 KiB, 5 steps, 0 ms, 1 Gbit/s) whose JSON, CSV row and kept files are whole and
# consistent; refusals before anything is made (bad options, a --set syncemu refuses, no
# root: 77); and nothing left behind after a case or after SIGINT in the middle of one.
# Nothing here bounds a time: the case's times are only checked to be positive and ordered
# (the all-reduce inside the step), which holds however loaded the machine is.
# Needs root, network namespaces, Open MPI and the built program: exits 77 without them.
# Usage: realjob.sh SYNCEMU_BINARY MPI_ALLREDUCE_BINARY
set -u
. "$(dirname "$0")/../cli/lib.sh"
se=$1
prog=${2:-not-built}
rj=$(dirname "$0")/../../tools/realjob

[ "$prog" = sanitized ] && skip "the sanitizer build: the tool runs no C of its own"
[ "$(id -u)" -eq 0 ] || skip "needs root (network namespaces)"
for c in ip ethtool taskset tc tcpdump mpirun python3 unshare setpriv; do
	command -v $c >/dev/null || skip "$c is not installed"
done
[ -x "$prog" ] || skip "the all-reduce program was not built (libopenmpi-dev)"
[ "$(nproc)" -ge 2 ] || skip "needs 2 CPUs (the bridge busy-polls one)"
trap 'cleanup_pids; rm -rf "$tmp"' EXIT
base=(--syncemu "$se" --mpi-prog "$prog" --job mpi --bytes 64KiB --steps 5 --latency 0
	--rate 1Gbit/s)

# leftovers PID: the namespaces, /etc/netns entries, scratch directories and processes of the
# tool's run PID
leftovers() {
	echo "$(ip netns list | grep -c "^rj[abr]$1\b")" \
		"$(ls /etc/netns 2>/dev/null | grep -c "^rj[ab]$1$")" \
		"$(ls -d /tmp/realjob-"$1"-* 2>/dev/null | wc -l)"
}

# ---- refusals: nothing made, the documented exit code ----
expect_rc 2 "--steps 1" -- "$rj" "${base[@]}" --steps 1
expect_rc 2 "--ranks 4 with ddp" -- "$rj" --job ddp --ranks 4 --latency 0 --rate 1Gbit/s
expect_rc 2 "a rate without a unit" -- "$rj" "${base[@]}" --rate 100
expect_rc 2 "a host rate without a unit" -- "$rj" "${base[@]}" --host-rate 10
printf 'date,job\n2026-01-01,mpi\n' >"$tmp/old.csv"
expect_rc 2 "--csv with another version's columns" -- "$rj" "${base[@]}" --csv "$tmp/old.csv"
grep -q "old.csv: its header" "$tmp/err" && [ "$(wc -l <"$tmp/old.csv")" -eq 2 ] &&
	ok "the other CSV is named and left as it was" || bad "the other CSV: $(cat "$tmp/err")"
expect_rc 2 "--csv in a missing directory" -- "$rj" "${base[@]}" --csv "$tmp/no/x.csv"
expect_rc 2 "a --set syncemu refuses" -- "$rj" "${base[@]}" --set job.nosuchkey=1
grep -q "nosuchkey" "$tmp/err" && ok "the refused key is named" || bad "the key: $(cat "$tmp/err")"
expect_rc 77 "not root" -- setpriv --reuid=65534 --regid=65534 --clear-groups "$rj" "${base[@]}"

# ---- one case, kept ----
expect_rc 0 "one case" -- "$rj" "${base[@]}" --keep "$tmp/keep" --json "$tmp/c.json" \
	--csv "$tmp/c.csv"
python3 - "$tmp/c.json" "$tmp/c.csv" "$tmp/keep" <<'PY' && ok "JSON, CSV row and kept files agree" || bad "the case's output"
import csv, json, os, sys
d = json.load(open(sys.argv[1]))
rows = list(csv.DictReader(open(sys.argv[2])))
assert len(rows) == 1, rows
r = d["real"]
assert r["n"] == 4 and 0 < r["median_ms"] <= r["p90_ms"], r
assert d["real_allreduce"]["n"] == 5 and d["real_compute"]["n"] == 4
assert 0 < d["real_allreduce"]["median_ms"] < r["median_ms"], d["real_allreduce"]
run = d["syncemu_run"]
assert run["n"] == 5 and run["median_ms"] > 0 and d["syncemu_model"]["step_ms"] > 0, run
assert abs(float(rows[0]["real_median_ms"]) - r["median_ms"]) < 1e-3
assert rows[0]["bytes"] == "65536" and rows[0]["ranks"] == "2"
# the hosts send at the default line rate (a tbf each); the ranks' first starts are stamped
assert d["host_rate_bps"] == 2.5e9 and rows[0]["host_rate_mbps"] == "2500.0000", d
assert d["start_skew_ms"] >= 0 and d["skew_median_ms"] >= 0, d
assert abs(float(rows[0]["start_skew_ms"]) - d["start_skew_ms"]) < 1e-3, rows[0]
assert any(k.startswith("job.bytes=65536") for k in d["syncemu_keys"])
for f in ("job.csv", "hostA.pcap", "bridge.json", "run.json"):
    p = os.path.join(sys.argv[3], f)
    assert os.path.getsize(p) > 0, p
assert os.path.exists(os.path.join(sys.argv[3], "job.log"))    # mpirun's output: may be empty
dirs = d["bridge"]["directions"]
assert all(x["frames_out"] > 0 for x in dirs.values()), dirs
# the printed line counts the ports' receive misses beside the queue's drops
missed = sum(x["dev_rx_dropped"] for x in dirs.values())
out = open(os.path.join(os.path.dirname(sys.argv[1]), "out")).read()
assert " %d frames its ports missed" % missed in out, out
PY
cpid=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["pid"])' "$tmp/c.json")
left=$(leftovers "$cpid")
[ "$left" = "0 0 0" ] && ok "after the case: nothing left" || bad "after the case: left $left"
# a second case into the same CSV adds a row, and keeps the first's files
expect_rc 0 "a second case" -- "$rj" "${base[@]}" --no-emulate --keep "$tmp/keep" \
	--csv "$tmp/c.csv" --host-rate none
[ "$(tail -1 "$tmp/c.csv" | cut -d, -f22)" = "0.0000" ] && ok "--host-rate none: no tbf" ||
	bad "--host-rate none: $(tail -1 "$tmp/c.csv")"
[ "$(wc -l <"$tmp/c.csv")" -eq 3 ] && [ -s "$tmp/keep/job.1.csv" ] &&
	ok "the CSV has a header and two rows; the kept files of the first case stay" ||
	bad "second case: $(wc -l <"$tmp/c.csv") lines, $(ls "$tmp/keep")"

# ---- SIGINT in the middle of a case: exit 130, nothing left ----
"$rj" "${base[@]}" --steps 10000 --no-emulate >"$tmp/int.out" 2>"$tmp/int.err" &
p=$!
pids+=("$p")
for _ in $(seq 1 100); do
	ip netns list | grep -q "^rja$p\b" && break
	sleep 0.1
done
sleep 2
kill -INT "$p"
rc=0
wait "$p" || rc=$?
left=$(leftovers "$p")
procs=$(pgrep -f "realjob-$p-" | wc -l)
[ $rc -eq 130 ] && [ "$left" = "0 0 0" ] && [ "$procs" -eq 0 ] &&
	ok "SIGINT: exit 130, no namespace, /etc/netns entry, scratch directory or process left" ||
	bad "SIGINT: exit $rc, left (netns, etc, tmp) $left, $procs processes: $(tail -2 "$tmp/int.err")"
finish
