#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Real time split over MPI ranks (Open MPI's mpirun, oversubscribed on this machine's cores): the
# frames cross memif ports between the ranks, MPI carries the control (the ranks' start-up and
# scenario checked, the clocks compared, the start broadcast, the phase barrier, the end of the
# run, the record gathered by rank 0).  Wall-clock timing: run serially, asserted loosely.
#   1. 2 DC x 4 in two ranks, one command line (rank r takes the r-th block of data centres and
#      opens only its own DCs' ports): within 1 % of the packet model at dilation 100, as the
#      two-process test over the ports' own protocol (realtime.sh); rank 0 merges the record and
#      has rank 1's port figures; each side sent what the other received; as many frames
#      crossed the ports as in one process over a ring pair (the count does not depend on timing).
#      The trace of two ranks (each holds its records, rank 0 merges them): tshark reads it, with
#      the frames per interface of one process, in time order; validate rebuilds the steps.
#      And job.transport = tcp in two ranks: the steps of virtual time within 1 %.
#   2. 8 DC x 1 in two ranks, each with its own [ports] local (mpirun's MPMD form), two memif
#      links, one per crossing; in four ranks, one command line, four memif links (two vCPUs for
#      four busy ranks: the time held from below only); and in two
#      ranks whose data centres are not contiguous (0, 1, 4, 5 and 2, 3, 6, 7: four crossings).
#   3. What is refused, by every rank alike, naming the rank and the cause: a rank without the port
#      it needs, more ranks than data centres, a rank with other steps, a data centre on two ranks,
#      a data centre alone between two of other ranks (its one port cannot end both crossings); and a rank frozen mid-run (SIGSTOP): rank 0 stops within
#      [ports] wait, says so, and no rank is left behind.
# Usage: realtime_mpi.sh SYNCEMU plain|sanitized [timed|refusals] (sections 1, 2 and the frozen
# rank, or section 3's refusals, which time nothing; both without the third argument).  Skips
# (77) without mpirun, for a build without MPI, for the sanitizer build (Open MPI's allocations
# at MPI_Finalize are leaks to LeakSanitizer), and with fewer than two CPUs.
set -u
. "$(dirname "$0")/lib.sh"
se=$(realpath "$1")
part=${3:-all}
[ "${2:-}" = sanitized ] && skip "the sanitizer build: Open MPI's allocations are leaks to LeakSanitizer"
command -v mpirun >/dev/null || skip "Open MPI's mpirun is not installed (apt-get install openmpi-bin)"
command -v python3 >/dev/null || skip "python3 is not installed"
[ "$(nproc)" -ge 2 ] || skip "real time in two ranks needs two CPUs"
# the tests run as root; Open MPI refuses root unless told twice
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
# shared memory between the ranks of this host, nothing on the network
export OMPI_MCA_btl=self,vader OMPI_MCA_btl_vader_single_copy_mechanism=none
mpi=(timeout 120 mpirun --oversubscribe --bind-to none -x OMPI_MCA_btl
	-x OMPI_MCA_btl_vader_single_copy_mechanism)
"${mpi[@]}" -np 2 "$se" run -q -v A -n 1 --set topology.data_centres=2 >"$tmp/probe" 2>&1 ||
	{ grep -q "built without MPI" "$tmp/probe" && skip "syncemu was built without MPI"; }
grep -q "built without MPI" "$tmp/probe" && skip "syncemu was built without MPI"

# (the TSC measured for 0.1 s: within a ppm, realtime.sh says why)
RT=(--set run.clock=real --set ports.wait=5s --set run.calibrate=0.1s)
M=",socket-abstract=no,bsize=9216"

# check JSON TOLERANCE_PCT RANKS DESC: rank 0's report, every rank's steps merged, against the
# packet model (the median step: see realtime.sh's check_run for why); every frame sent through
# a port arrived; the ports of every other rank reported
check() {
	python3 - "$1" "$2" "$3" >"$tmp/check" 2>&1 <<'PY'
import json, statistics, sys
d = json.load(open(sys.argv[1]))
# tol 0: the step time is held from below only (the host's lateness only adds to a step: a median
# under the model by more than the TSC calibration's spread, 0.5 % here, is a defect)
tol, ranks = float(sys.argv[2]), int(sys.argv[3])
out = []
for r in d["runs"]:
    assert r["ok"], r.get("error")
    rt = r["real_time"]
    rows = r["steps"]["rows"]
    med = statistics.median(x["emulated_ms"] for x in rows)
    model = rows[0]["packet_model_ms"]
    err = 100 * (med / model - 1)
    # the host's share, as realtime.sh's check_run allows it
    held = 2 * max([p.get("late_max_ns") or 0 for p in rt["ports"] + rt["peer_ports"]]) / (
        rt["dilation"] * 1e6)
    assert (err > -1 if tol == 0 else
            abs(err) < tol or 0 < med - model * (1 + tol / 100) <= held), \
        "%s: median step %.6f ms, model %.6f ms: %+.3f %%, the host held back %.6f ms" % (
        r["label"], med, model, err, held)
    assert rt["split"] and rt["leader"] and rt["merged"] and rt["ranks"] == ranks, rt
    assert all(p["device"].startswith("(rank ") for p in rt["peer_ports"]), rt["peer_ports"]
    assert {p["device"] for p in rt["peer_ports"]} == {"(rank %d's)" % k for k in range(1, ranks)}
    ports = rt["ports"] + rt["peer_ports"]
    sent = sum(p["frames_sent"] for p in ports)
    got = sum(p["frames_received"] for p in ports)
    assert sent == got and sent > 0, (sent, got)
    for p in ports:
        assert p["stale_frames"] == 0 and p["device_rx_dropped"] == 0, p
    out.append("%s: %d steps, median %.6f ms vs %.6f ms (%+.4f %%%s), %d frames through %d "
               "ports; clocks %+.3f us apart, round trip %.1f us" % (r["label"], len(rows), med,
               model, err, "" if tol == 0 or abs(err) < tol else
               ": past %g %%, within the %.3f ms the host held it back" % (tol, held), sent,
               len(ports), rt["peer_offset_ns"] / 1e3,
               rt["peer_rtt_ns"] / 1e3))
print("; ".join(out))
PY
	if [ $? -eq 0 ]; then ok "$4: $(cat "$tmp/check")"; else bad "$4:"; sed 's/^/    /' "$tmp/check" | tail -4; fi
}

# 3. Refused, by every rank alike (times nothing: meson's cli-realtime-mpi-refusals runs it
# beside other tests; ports.wait of 30 s where both ranks' memif ports must meet, ample on a
# loaded machine, and it costs nothing once they have met).
S0="ports.dc0=net_memif0,role=server,socket=$tmp/m.sock$M"
S1="ports.dc1=net_memif0,role=client,socket=$tmp/m.sock$M"
refusals() {
	local RT=(--set run.clock=real --set ports.wait=30s --set run.calibrate=0.1s)
	rm -f "$tmp/m.sock"
	expect_rc 1 "a rank without the port its data centre needs" -- "${mpi[@]}" -np 2 "$se" run -v A \
		-q -n 2 --trace none "${RT[@]}" --set ports.wait=2s --set run.dilation=100 --set "$S0"
	expect_grep "$tmp/err" "rank 1: [ports] dc1: data centre 1 exchanges frames with DC 0 in another rank" \
		"the cause is named, with its rank (not rank 0's wait for it)"
	expect_rc 1 "more ranks than data centres" -- "${mpi[@]}" -np 3 "$se" run -v A -q -n 2 \
		--trace none "${RT[@]}" --set run.dilation=100 --set "$S0" --set "$S1"
	expect_grep "$tmp/err" "mpirun -np 3: a real-time run gives each rank data centres of its own, and the scenario has 2" \
		"the error counts both"
	rm -f "$tmp/m.sock"
	expect_rc 1 "a rank with other steps" -- "${mpi[@]}" -np 1 "$se" run -v A -q -n 2 --trace none \
		"${RT[@]}" --set run.dilation=100 --set ports.local=0 --set "$S0" : -np 1 "$se" run -v A -q \
		-n 3 --trace none "${RT[@]}" --set run.dilation=100 --set ports.local=1 --set "$S1"
	expect_grep "$tmp/err" "rank 1 runs another scenario or other options than rank 0" "the error says which rank"
	rm -f "$tmp/m.sock"
	expect_rc 1 "a data centre on two ranks" -- "${mpi[@]}" -np 1 "$se" run -v A -q -n 2 --trace none \
		"${RT[@]}" --set run.dilation=100 --set ports.local=0 --set "$S0" : -np 1 "$se" run -v A -q \
		-n 2 --trace none "${RT[@]}" --set run.dilation=100 --set ports.local=0,1 --set "$S1"
	expect_grep "$tmp/err" "[ports] local: data centres 0x1 of rank 1 run on an earlier rank too" \
		"the error names the data centres and the rank"

	expect_rc 1 "a data centre alone between two of other ranks" -- "${mpi[@]}" -np 1 "$se" run \
		scenarios/8dc1-100g.ini -v A -q -n 2 --trace none "${RT[@]}" --set ports.local=0 : -np 1 \
		"$se" run scenarios/8dc1-100g.ini -v A -q -n 2 --trace none "${RT[@]}" \
		--set ports.local=1,2,3,4,5,6,7
	expect_grep "$tmp/err" "rank 0: [ports] local: data centre 0 runs alone between DC 7 and DC 1 of other ranks" \
		"the error names the data centre and its neighbours"
}
if [ "$part" = refusals ]; then
	refusals
	finish
fi

# 1. 2 DC x 4 in two ranks, one command line.
pair() {
	local rc=0
	rm -f "$tmp/m.sock"
	"${mpi[@]}" -np 2 "$se" run -v A -q -j -n 5 --trace none "${RT[@]}" \
		--set run.dilation=100 \
		--set "ports.dc0=net_memif0,role=server,socket=$tmp/m.sock$M" \
		--set "ports.dc1=net_memif0,role=client,socket=$tmp/m.sock$M" \
		>"$tmp/pair.json" 2>"$tmp/pair.err" || rc=$?
	[ $rc -eq 0 ] && ok "2 DC x 4 in two ranks over memif (exit 0)" ||
		{ bad "2 DC x 4 in two ranks: exit $rc"; grep -v memif_connect "$tmp/pair.err" | head -3; }
	check "$tmp/pair.json" 1 2 "2 DC x 4 in two ranks, merged by rank 0"
}
attempts pair
python3 - "$tmp/pair.json" >"$tmp/c" 2>&1 <<'PY'
import json, sys
rt = json.load(open(sys.argv[1]))["runs"][0]["real_time"]
a, b = rt["ports"][0], rt["peer_ports"][0]
assert a["name"] == "dc0.eth" and b["name"] == "dc1.eth", (a["name"], b["name"])
assert a["frames_sent"] == b["frames_received"] and b["frames_sent"] == a["frames_received"], (a, b)
print("%d and %d frames each way" % (a["frames_sent"], b["frames_sent"]))
PY
[ $? -eq 0 ] && ok "each rank's port sent what the other's received: $(cat "$tmp/c")" ||
	{ bad "port counts:"; cat "$tmp/c"; }
# the same scenario in one process, the WAN links over a ring pair (no timing asserted: the
# frames' count does not depend on it; dilation 50 as realtime.sh's ring pair)
expect_rc 0 "the same in one process over a ring pair" -- timeout 120 "$se" run -v A -q -j -n 5 \
	--trace none "${RT[@]}" --set run.dilation=50 --set ports.dc0=ring:w --set ports.dc1=ring:w
python3 - "$tmp/out" "$tmp/pair.json" >"$tmp/c" 2>&1 <<'PY'
import json, sys
one, two = (json.load(open(f))["runs"][0] for f in sys.argv[1:])
n1 = sum(p["frames_sent"] for p in one["real_time"]["ports"])
n2 = sum(p["frames_sent"] for p in two["real_time"]["ports"] + two["real_time"]["peer_ports"])
assert n1 == n2 and one["frames"] == two["frames"], (n1, n2, one["frames"], two["frames"])
print("%d frames through the ports, %d in all, in both" % (n1, one["frames"]))
PY
[ $? -eq 0 ] && ok "two ranks move the frames of one process: $(cat "$tmp/c")" ||
	{ bad "two ranks against one process:"; cat "$tmp/c"; }

# job.transport = tcp in two ranks (2 DC x 1, its segments and ACKs through memif): rank 0's
# merged steps within 1 % of the same run in virtual time, every frame through the ports
# received, none stale, and they are the segments and ACKs rank 0's report counts (both ranks'
# workers', merged as the steps are). A late arrival holds back an ACK as it holds a frame, and
# the windows' round trips put many arrivals on a step's path. The median of 5 steps, as
# realtime.sh's tcp runs (the first, slow start, is the longest, and of 3 steps one 100 ms stop
# of the VM in either of the others moved the median: +1.4 % at dilation 400); at dilation 100
# the median was +0.017 to +0.019 % in four runs here, at 50 +0.047 to +0.099 %.
TCPJ=(-n 5 --set topology.workers_per_dc=1 --set wan.bandwidth=1Gbit/s --set wan.latency=1ms
	--set job.bytes=256KiB --set run.mtu=1500 --set job.transport=tcp)
"$se" run -v A -q -j --trace none "${TCPJ[@]}" >"$tmp/tcpv.json" 2>"$tmp/err" ||
	bad "tcp in virtual time: $(cat "$tmp/err")"
tcp_ranks() {
	local rc=0
	rm -f "$tmp/m.sock"
	"${mpi[@]}" -np 2 "$se" run -v A -q -j --trace none "${TCPJ[@]}" "${RT[@]}" \
		--set run.dilation=100 \
		--set "ports.dc0=net_memif0,role=server,socket=$tmp/m.sock$M" \
		--set "ports.dc1=net_memif0,role=client,socket=$tmp/m.sock$M" \
		>"$tmp/tcpr.json" 2>"$tmp/tcpr.err" || rc=$?
	[ $rc -eq 0 ] || { bad "tcp in two ranks: exit $rc"; grep -v memif_connect "$tmp/tcpr.err" | head -3; return; }
	python3 - "$tmp/tcpv.json" "$tmp/tcpr.json" >"$tmp/c" 2>&1 <<'PY'
import json, statistics, sys
v, r = (json.load(open(f))["runs"][0] for f in sys.argv[1:])
assert r["ok"] and r["real_time"]["ranks"] == 2 and r["real_time"]["merged"], r.get("error")
ports = r["real_time"]["ports"] + r["real_time"]["peer_ports"]
sent = sum(p["frames_sent"] for p in ports)
assert sent == sum(p["frames_received"] for p in ports) > 0, ports
assert all(p["stale_frames"] == 0 and p["other_frames"] == 0 for p in ports), ports
assert sent == r["tcp"]["data_segments"] + r["tcp"]["pure_acks"], (sent, r["tcp"])
assert r["tcp"]["delivered_bytes"] == v["tcp"]["delivered_bytes"], (r["tcp"], v["tcp"])
med = lambda x: statistics.median(s["emulated_ms"] for s in x["steps"]["rows"])
err = 100 * (med(r) / med(v) - 1)
held = 2 * max(p.get("late_max_ns") or 0 for p in ports) / (r["real_time"]["dilation"] * 1e6)
assert len(r["steps"]["rows"]) == len(v["steps"]["rows"]), (r["steps"], v["steps"])
assert abs(err) < 1 or 0 < med(r) - 1.01 * med(v) <= held, (med(r), med(v), err, held)
print("%d TCP frames through the ports; median step %.4f ms, virtual %.4f ms (%+.3f %%%s)" % (
    sent, med(r), med(v), err, "" if abs(err) < 1 else
    ": past 1 %%, within the %.3f ms the host held it back" % held))
PY
	[ $? -eq 0 ] && ok "tcp in two ranks: $(cat "$tmp/c")" || { bad "tcp in two ranks:"; tail -3 "$tmp/c"; }
}
attempts tcp_ranks

# the trace: every rank holds its records, rank 0 merges them at the run's end, its own ports'
# and the other rank's; tshark reads it: as many frames on each interface as one process over a
# ring pair writes (counts do not depend on timing), in time order; validate rebuilds the steps.
# A job of 4 M parameters (a quarter of the default's): 65 k frames in the trace, which tshark
# reads in 4 s instead of 12 s for the default's 255 k.
traced() {	# traced OUT ARGS...
	local out=$1
	shift
	"$@" -v A -q -j -n 3 "${RT[@]}" --set run.dilation=100 --set job.parameters=4e6 \
		--trace "$out" -c wan,eth,rx \
		>"$out.json" 2>"$out.err" || { bad "a traced run: exit $?: $(grep -v memif_connect "$out.err" | head -2)"; return 1; }
}
rm -f "$tmp/m.sock"
if command -v tshark >/dev/null &&
	traced "$tmp/t2.pcapng" "${mpi[@]}" -np 2 "$se" run --set "ports.dc0=net_memif0,role=server,socket=$tmp/m.sock$M" \
		--set "ports.dc1=net_memif0,role=client,socket=$tmp/m.sock$M" &&
	traced "$tmp/t1.pcapng" timeout 120 "$se" run --set ports.dc0=ring:w --set ports.dc1=ring:w; then
	for k in 1 2; do
		tshark -r "$tmp/t$k.pcapng" -T fields -e frame.interface_name -e frame.time_epoch \
			>"$tmp/t$k.txt" 2>"$tmp/t$k.tshark" || bad "tshark cannot read the trace of $k: $(head -2 "$tmp/t$k.tshark")"
	done
	python3 - "$tmp/t1.txt" "$tmp/t2.txt" >"$tmp/c" 2>&1 <<'PY'
import collections, sys
def read(f):
    rows = [l.split("\t") for l in open(f) if l.strip()]
    return collections.Counter(r[0] for r in rows), [float(r[1]) for r in rows]
one, _ = read(sys.argv[1])
two, ts = read(sys.argv[2])
assert one == two, "per interface: one process %s, two ranks %s" % (dict(one), dict(two))
assert all(a <= b for a, b in zip(ts, ts[1:])), "timestamps out of order"
assert {"dc0.eth.tx", "dc1.eth.rx", "wan1>0.in"} <= set(two), sorted(two)
print("%d frames on %d interfaces, each as in one process, in time order" % (len(ts), len(two)))
PY
	[ $? -eq 0 ] && ok "two ranks' trace merged by rank 0, read by tshark: $(cat "$tmp/c")" ||
		{ bad "two ranks' trace:"; cat "$tmp/c"; }
	"$se" validate "$tmp/t2.pcapng" -j >"$tmp/v.json" 2>"$tmp/v.err" &&
		python3 -c 'import json,sys; r=json.load(open(sys.argv[1]))["runs"][0]; assert r["steps"] == 3, r' "$tmp/v.json" 2>"$tmp/c" &&
		ok "validate rebuilds the 3 steps from the merged trace" ||
		{ bad "validate on the merged trace:"; head -3 "$tmp/v.err" "$tmp/c"; }
else
	command -v tshark >/dev/null || echo "# tshark is not installed: the merged trace's check skipped"
fi

# 2. 8 DC x 1: two ranks, each with its own [ports] local (MPMD); four ranks, one command line.
# (dilation 100 and 5 steps for two ranks, as for the two-process split in realtime.sh. Four
# ranks, each
# busy-polling, on two vCPUs take turns on them as the scheduler gives them out: their step time
# measures the scheduler and the host (at dilation 400: +0.08 to +0.49 % in five runs here, then
# +7.7 % in one; at 100, +0.1 % and +141 %), so there the record, the merge of four and every
# frame are checked, and the time from below only; the two-rank runs hold the time. Dilation
# 400 keeps the frames' lateness, and so the run's behaviour, near the two-rank runs')
eight2() {
	local rc=0
	rm -f "$tmp"/s*.sock
	"${mpi[@]}" -np 1 "$se" run scenarios/8dc1-100g.ini -v A -n 5 -q -j --trace none "${RT[@]}" \
		--set run.dilation=100 --set ports.local=0,1,2,3 \
		--set "ports.dc3=net_memif0,role=server,socket=$tmp/s1.sock$M" \
		--set "ports.dc0=net_memif1,role=server,socket=$tmp/s2.sock$M" : \
		-np 1 "$se" run scenarios/8dc1-100g.ini -v A -n 5 -q -j --trace none "${RT[@]}" \
		--set run.dilation=100 --set ports.local=4,5,6,7 \
		--set "ports.dc4=net_memif0,role=client,socket=$tmp/s1.sock$M" \
		--set "ports.dc7=net_memif1,role=client,socket=$tmp/s2.sock$M" \
		>"$tmp/e2.json" 2>"$tmp/e2.err" || rc=$?
	[ $rc -eq 0 ] && ok "8 DC x 1 in two ranks of their own [ports] local (exit 0)" ||
		{ bad "8 DC x 1 in two ranks: exit $rc"; grep -v memif_connect "$tmp/e2.err" | head -3; }
	check "$tmp/e2.json" 2 2 "8 DC x 1 in two ranks, two memif links"
}
attempts eight2
# crossings: the --set arguments, a line each, of 8 DC x 1 cut into runs of two DCs: crossing k
# from DC 2k + 1 (the memif server) to DC 2k + 2 (its client)
crossings() {
	local k a b
	for k in 0 1 2 3; do
		a=$((2 * k + 1))
		b=$(((2 * k + 2) % 8))
		printf '%s\n' --set "ports.dc$a=net_memif$k,role=server,socket=$tmp/s$k.sock$M" \
			--set "ports.dc$b=net_memif$k,role=client,socket=$tmp/s$k.sock$M"
	done
}
eight4() {	# rank k runs DCs 2k and 2k + 1
	local rc=0 args=()
	rm -f "$tmp"/s*.sock
	mapfile -t args < <(crossings)
	"${mpi[@]}" -np 4 "$se" run scenarios/8dc1-100g.ini -v A -n 3 -q -j --trace none "${RT[@]}" \
		--set run.dilation=400 "${args[@]}" >"$tmp/e4.json" 2>"$tmp/e4.err" || rc=$?
	[ $rc -eq 0 ] && ok "8 DC x 1 in four ranks, one command line (exit 0)" ||
		{ bad "8 DC x 1 in four ranks: exit $rc"; grep -v memif_connect "$tmp/e4.err" | head -3
		  # a rank that crashed: Open MPI's backtrace of it (the frames, for whoever looks next)
		  grep -E '\*\*\* |\[ *[0-9]+\] ' "$tmp/e4.err" | head -24 | sed 's/^/    /'; }
	check "$tmp/e4.json" 0 4 "8 DC x 1 in four ranks, four memif links (the time from below)"
}
eight4
# not contiguous: rank 0 runs DCs 0, 1, 4 and 5, rank 1 DCs 2, 3, 6 and 7; four crossings
eight_split() {
	local rc=0 args=()
	rm -f "$tmp"/s*.sock
	mapfile -t args < <(crossings)
	# (one command line for both, but for ports.local: each rank opens its own DCs' ports;
	# dilation 200: each rank polls four memif ports; the means that missed the 2 % tolerance
	# at 200, +2.3 % and +2.8 %, were the VM's stops, which the median leaves out)
	"${mpi[@]}" -np 1 "$se" run scenarios/8dc1-100g.ini -v A -n 5 -q -j --trace none "${RT[@]}" \
		--set run.dilation=200 "${args[@]}" --set ports.local=0,1,4,5 : \
		-np 1 "$se" run scenarios/8dc1-100g.ini -v A -n 5 -q -j --trace none "${RT[@]}" \
		--set run.dilation=200 "${args[@]}" --set ports.local=2,3,6,7 \
		>"$tmp/es.json" 2>"$tmp/es.err" || rc=$?
	[ $rc -eq 0 ] && ok "8 DC x 1 in two ranks of DCs 0,1,4,5 and 2,3,6,7 (exit 0)" ||
		{ bad "8 DC x 1, DCs not contiguous: exit $rc"; grep -v memif_connect "$tmp/es.err" | head -3; }
	check "$tmp/es.json" 2 2 "8 DC x 1, each rank's DCs in two runs, four memif links"
}
attempts eight_split

[ "$part" = timed ] || refusals

# a rank frozen mid-run: rank 0 waits for its workers at the barrier no longer than [ports] wait
# (a timeout of 90 s: a rank that would wait for ever fails the check, not the suite)
rm -f "$tmp/m.sock"
timeout 90 mpirun --oversubscribe --bind-to none -x OMPI_MCA_btl -x OMPI_MCA_btl_vader_single_copy_mechanism \
	-np 2 "$se" run -v A -n 200 --trace none "${RT[@]}" --set ports.wait=2s \
	--set run.dilation=100 --set "$S0" --set "$S1" >"$tmp/k" 2>"$tmp/k.err" &
ka=$!
pids+=($ka)
# under way once rank 0 reports its first step (start-up takes 1 to 10 s here under load)
for _ in $(seq 600); do
	grep -q "step [1-9]" "$tmp/k.err" && break
	kill -0 "$ka" 2>/dev/null || break
	sleep 0.1
done
kb=$(grep -l "OMPI_COMM_WORLD_RANK=1" /proc/[0-9]*/environ 2>/dev/null | while read -r f; do
	p=${f#/proc/}
	p=${p%/environ}
	[ "$(cat "/proc/$p/comm" 2>/dev/null)" = syncemu ] && echo "$p"
done | head -1)
if [ -z "$kb" ]; then
	bad "rank 1 not found under way"; sed 's/^/    /' "$tmp/k.err" | head -5
else
	pids+=("$kb")
	kill -STOP "$kb"
	t0=$(date +%s)
	rc=0
	wait "$ka" || rc=$?
	dt=$(($(date +%s) - t0))
	# (2 s of wait, the stall watchdog's check, mpirun ending the ranks: 20 s is ample)
	[ "$rc" -ne 0 ] && [ "$dt" -le 20 ] && ok "rank 1 frozen mid-run: mpirun ends (exit $rc, ${dt} s)" ||
		bad "rank 1 frozen mid-run: exit $rc after $dt s"
	expect_grep "$tmp/k.err" "syncemu run: rank 0: A: the run stalled" "rank 0 says the run stalled"
	# (mpirun kills it; init reaps it once mpirun is gone)
	for _ in $(seq 100); do
		kill -0 "$kb" 2>/dev/null || break
		sleep 0.1
	done
	kill -0 "$kb" 2>/dev/null && bad "rank 1 is left behind ($(cut -d' ' -f3 "/proc/$kb/stat" 2>/dev/null))" ||
		ok "no rank is left behind"
fi
finish
