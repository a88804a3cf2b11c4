#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Real time (wall-clock timing: run serially, asserted loosely; exact checks stay in virtual time).
#   1. One process, the WAN links on an in-process ring pair (net_ring), 2 DC x 4 AdamW at
#      dilation 50: every frame sent through a port arrives, the median step is within 1 % of the
#      packet-level closed form (the README's tolerance), the report has the clock, the ports and
#      the lateness; the trace has the ports' capture points and `syncemu validate` reads it.
#      Two partitions joined by cut WAN links (no port): with no frame late across them, the
#      steps and the trace are the virtual-time run's; 8 DC x 8 at dilation 1 counts the late
#      ones and names the remedy, says once while running that the host is not keeping up,
#      and its status and report say so with a dilation to try.
#   2. Two processes, one per data centre, joined by memif: the same at dilation 100; the leader
#      (DC 0) merges both sides' steps, the follower reports its own; each side's port sent what
#      the other received.
#      And 8 DC x 1 split over two processes (DCs 0-3 and 4-7), two memif links, one per
#      crossing of the ring of WAN links: the scale-out split, within 2 %.
#   3. Bad set-ups, each refused with the reason: a port for a DC run elsewhere, a split without
#      the port it needs, one end of a ring pair, an unknown device, a DC list outside the
#      topology, background load across processes, a peer with another scenario, no peer.
# Usage: realtime.sh SYNCEMU [SLOW [timed|refusals]] (run from the source root; SLOW multiplies
# the dilations; timed: sections 1, 2, the peer with other options and the frozen peer (the
# plain build's);
# refusals: the other bad set-ups of 1b and 3, which time nothing and may run beside other
# tests; both without the third argument)
set -u
. "$(dirname "$0")/lib.sh"
se=$1
slow=${2:-1}	# a sanitizer build: dilations this many times larger
part=${3:-all}
case $part in all|timed|refusals) ;; *) echo "realtime.sh: unknown part '$part'" >&2; exit 2 ;; esac
timed() { [ "$part" != refusals ]; }
refusals() { [ "$part" != timed ]; }
command -v python3 >/dev/null || { echo "skip - no python3"; exit 77; }
[ "$(nproc)" -ge 2 ] || { echo "skip - two processes need two CPUs"; exit 77; }

sock=$tmp/memif.sock
# (the TSC measured for 0.1 s, not 0.5: the tightest of 16 clock readings at each end makes that
# within a ppm, and each run starts 0.4 s sooner)
RT=(--set run.clock=real --set ports.wait=5s --set run.calibrate=0.1s)
# steps per run: the sanitizer build, whose dilations are 4 times larger (a step there is 4 times
# longer in real time), runs fewer of them: its purpose is the memory of the same paths, and
# the plain build holds the timing over more steps; what a foreign reader (tshark) makes of the
# trace is the plain build's to check too (the trace writer is the same code)
if [ "$slow" -eq 1 ]; then ns=5 nm=10 nmod=3; else ns=3 nm=4 nmod=2; fi
# the leader of a two-process run on CPU 0, the follower on CPU 1: left to float (the default),
# the leader was seen sharing CPU 1 with the follower
EAL0="--no-huge --no-pci --no-shconf -l 0 --iova-mode=va --log-level=*:error -m 700"
EAL1="--no-huge --no-pci --no-shconf -l 1 --iova-mode=va --log-level=*:error -m 700"

# check_run JSON TOLERANCE_PCT DESC [merged|side]: the runs' median step against the packet model
# The median step, not the mean: this VM's vCPUs stop for 100 ms at a time (the hypervisor's
# CPU quota period) now and then when both spin, as two busy-polling processes make them
# (a spinning reader of CLOCK_MONOTONIC on each vCPU: 0 to 4 such gaps in 10 s). A stop
# lengthens the one step it lands in, by 0.5 ms of emulated time at dilation 200 (+12 % of a
# 4 ms step, +1.2 % on the mean of 10); the median holds while fewer than half the steps
# take one, and a defect that moves every step moves it. A median past the tolerance is still
# the host's when the ports measured it falling behind: a run held back S ns of wall time is at
# most S / dilation longer in emulated time, and the bound allows two such holds (`held`
# below, the same in realtime_mpi.sh and realtime_veth.sh); every other check stays.
check_run() {
	python3 - "$1" "$2" "$4" >"$tmp/check" 2>&1 <<'PY'
import json, statistics, sys
d = json.load(open(sys.argv[1]))
tol, want = float(sys.argv[2]), sys.argv[3]
out = []
for r in d["runs"]:
    assert r["ok"], r.get("error")
    assert r["clock"] == "real", r["clock"]
    rt = r["real_time"]
    rows = r["steps"]["rows"]
    med = statistics.median(x["emulated_ms"] for x in rows)
    model = rows[0]["packet_model_ms"]
    err = 100 * (med / model - 1)
    # the host's share: twice the most a frame was sent late, in emulated ms
    held = 2 * max([p.get("late_max_ns") or 0 for p in rt["ports"] + rt["peer_ports"]]) / (
        rt["dilation"] * 1e6)
    assert abs(err) < tol or 0 < med - model * (1 + tol / 100) <= held, \
        "%s: median step %.6f ms, model %.6f ms: %+.3f %%, the host held back %.6f ms" % (
        r["label"], med, model, err, held)
    assert rt["tsc_hz"] > 1e8 and rt["dilation"] >= 1, rt
    if want.startswith("merged"):
        assert rt["split"] and rt["leader"] and rt["merged"], rt
        assert len(rt["peer_ports"]) == (2 if want == "merged2" else 1), rt["peer_ports"]
    elif want == "side":
        assert rt["split"] and not rt["leader"] and not rt["merged"], rt
    sent = sum(p["frames_sent"] for p in rt["ports"] + rt["peer_ports"])
    got = sum(p["frames_received"] for p in rt["ports"] + rt["peer_ports"])
    if want != "side":
        assert sent == got and sent > 0, (sent, got)
    for p in rt["ports"]:
        assert p["lateness_samples"] == p["frames_sent"], p
        assert p["frames_sent"] == 0 or (p["late_median_ns"] is not None and
                                         p["late_max_ns"] >= p["late_p99_ns"]), p
        assert p["stale_frames"] == 0, p
        assert p["device_rx_dropped"] == 0 and p["device_tx_errors"] == 0, p
    out.append("%s: %d steps, median %.6f ms vs %.6f ms (%+.4f %%%s), %d frames through ports, "
               "lateness p99 %.1f us" % (r["label"], len(rows), med, model, err,
               "" if abs(err) < tol else ": past %g %%, within the %.3f ms the host held it back"
               % (tol, held), sent, max(p["late_p99_ns"] or 0 for p in rt["ports"]) / 1e3))
print("; ".join(out))
PY
	if [ $? -eq 0 ]; then ok "$3: $(cat "$tmp/check")"; else bad "$3:"; sed 's/^/    /' "$tmp/check" | tail -4; fi
}

if timed; then
# 1. One process over a ring pair.
ring_pair() {
	expect_rc 0 "one process, net_ring pair, dilation 50" -- timeout 120 "$se" run -v A -n $ns -q -j \
		"${RT[@]}" --set run.dilation=$((50 * slow)) --set ports.dc0=ring:w --set ports.dc1=ring:w \
		--trace "$tmp/rt.pcapng" --capture wan,eth
	cp "$tmp/out" "$tmp/ring.json"
	check_run "$tmp/ring.json" 1 "net_ring" all
}
attempts ring_pair
python3 -c 'import json,sys; t=json.load(open(sys.argv[1]))["trace"]["frames"]; assert t["dc0.eth.tx"] == t["dc1.eth.rx"] > 0, t; print(len(t))' \
	"$tmp/ring.json" >"$tmp/c" 2>&1 && ok "the trace has the ports' points ($(cat "$tmp/c") interfaces)" ||
	{ bad "trace points:"; cat "$tmp/c"; }
expect_rc 0 "syncemu validate reads the real-time trace" -- "$se" validate "$tmp/rt.pcapng" -j
python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
r = d["runs"][0]
assert r["steps"] == int(sys.argv[2]) and 3.5 < r["mean_ms"] < 4.5, r
print("%.6f ms" % r["mean_ms"])' "$tmp/out" $ns >"$tmp/c" 2>&1 &&
	ok "validate rebuilds the $ns steps from actual times (mean $(cat "$tmp/c"))" ||
	{ bad "validate on the real-time trace:"; sed 's/^/    /' "$tmp/c" | tail -3; }
expect_rc 0 "text report" -- timeout 60 "$se" run -v A -n 2 -q --trace none "${RT[@]}" \
	--set run.dilation=$((50 * slow)) --set ports.dc0=ring:w --set ports.dc1=ring:w
expect_grep "$tmp/out" "Real time: the ports" "the text report has the real-time table"
expect_grep "$tmp/out" "measured against CLOCK_MONOTONIC_RAW" "and the TSC calibration"
expect_grep "$tmp/out" "dilation $((50 * slow))" "and the dilation"

# 1a. Partitions in real time: each data centre on its own lcore (run.partitions = 2, the EAL
# given -l 0-1 by default), meeting at the ring pair and the barrier.  Dilation 50 as above (two
# lcores sustained dilation 2.5 within 1 % on a 2-vCPU VM, tools/bench/rt): every frame through
# the ports arrives, the step is within 1 % of the model, and the trace, merged from the two
# partitions, has as many frames on every interface as the one-lcore run's (counts do not depend
# on timing), and validate rebuilds its steps; a change through --ctl lands.
ring_parts() {
	expect_rc 0 "net_ring pair in two partitions on two lcores, dilation 50" -- timeout 120 \
		"$se" run -v A -n $ns -q -j "${RT[@]}" --set run.dilation=$((50 * slow)) \
		--set ports.dc0=ring:w --set ports.dc1=ring:w --set run.partitions=2 \
		--trace "$tmp/rtp.pcapng" --capture wan,eth
	cp "$tmp/out" "$tmp/ringp.json"
	check_run "$tmp/ringp.json" 1 "net_ring, two partitions" all
}
attempts ring_parts
python3 - "$tmp/ring.json" "$tmp/ringp.json" >"$tmp/c" 2>&1 <<'PY'
import json, sys
one, two = (json.load(open(f)) for f in sys.argv[1:3])
r = two["runs"][0]
assert r["partitions"] == 2 and r["lcores"] == 2, (r["partitions"], r["lcores"])
assert r["frames"] == one["runs"][0]["frames"], (r["frames"], one["runs"][0]["frames"])
a, b = one["trace"]["frames"], two["trace"]["frames"]
assert a == b, (a, b)
print("%d interfaces, %d frames" % (len(b), sum(b.values())))
PY
[ $? -eq 0 ] && ok "two partitions: 2 lcores, the one-lcore run's frames on every trace interface ($(cat "$tmp/c"))" ||
	{ bad "two partitions against one:"; tail -n 3 "$tmp/c"; }
if [ "$slow" -eq 1 ] && command -v tshark >/dev/null; then
	# a reader syncemu did not write: frames per interface as the report counts them, and the
	# records merged from the two partitions in time order
	tshark -r "$tmp/rtp.pcapng" -T fields -e frame.interface_name -e frame.time_epoch \
		>"$tmp/ts" 2>"$tmp/ts.err"
	python3 - "$tmp/ringp.json" "$tmp/ts" >"$tmp/c" 2>&1 <<'PY'
import collections, decimal, json, sys
want = json.load(open(sys.argv[1]))["trace"]["frames"]
got, last = collections.Counter(), None
for line in open(sys.argv[2]):
    name, t = line.rstrip("\n").split("\t")
    got[name] += 1
    t = decimal.Decimal(t)
    assert last is None or t >= last, "frame %d goes back in time" % sum(got.values())
    last = t
assert dict(got) == {k: v for k, v in want.items() if v}, (dict(got), want)
print("%d frames" % sum(got.values()))
PY
	[ $? -eq 0 ] && ok "tshark reads the two partitions' trace: per interface as reported, in time order ($(cat "$tmp/c"))" ||
		{ bad "tshark on the partitioned trace:"; tail -n 3 "$tmp/c" "$tmp/ts.err"; }
else
	echo "# tshark not run (not installed, or the sanitizer build): the partitioned trace is read by syncemu validate alone"
fi
expect_rc 0 "syncemu validate reads the two partitions' trace" -- "$se" validate "$tmp/rtp.pcapng" -j
python3 -c '
import json, sys
r = json.load(open(sys.argv[1]))["runs"][0]
assert r["steps"] == int(sys.argv[2]) and 3.5 < r["mean_ms"] < 4.5, r
print("%.6f ms" % r["mean_ms"])' "$tmp/out" $ns >"$tmp/c" 2>&1 &&
	ok "validate rebuilds the $ns steps of the partitioned run (mean $(cat "$tmp/c"))" ||
	{ bad "validate on the partitioned trace:"; sed 's/^/    /' "$tmp/c" | tail -3; }
# the control plane during a partitioned real-time run: the status follows the steps merged from
# the partitions, and a change (the WAN at a quarter of its rate) is applied with the lcores paused: the
# steps after it take the longer time (11.7 ms at 25 Gbit/s against 4.08)
# (the plain build only: its code beyond what ring_parts and cli-ctl run under the sanitizers is
# the pause of the lcores, and 12 steps at dilation 200 there take 15 s of the suite's time)
if [ "$slow" -eq 1 ]; then
rm -f "$tmp/p.ctl"
"$se" run -v A -n 12 -q -j --trace none "${RT[@]}" --set run.dilation=$((50 * slow)) \
	--set ports.dc0=ring:w --set ports.dc1=ring:w --set run.partitions=2 --ctl "$tmp/p.ctl" \
	>"$tmp/pc.json" 2>"$tmp/pc.err" &
pc=$!
pids+=($pc)
for _ in $(seq 600); do	# (start-up takes 1 to 10 s here under load)
	"$se" ctl "$tmp/p.ctl" status 2>/dev/null | grep -Eq '"steps_done": ([3-9]|[1-9][0-9])' && break
	kill -0 "$pc" 2>/dev/null || break
	sleep 0.1
done
"$se" ctl "$tmp/p.ctl" status >"$tmp/pc.st" 2>&1
"$se" ctl "$tmp/p.ctl" set wan.bandwidth 25Gbps >"$tmp/pc.set" 2>&1
rc=0
wait "$pc" || rc=$?
python3 - "$tmp/pc.st" "$tmp/pc.set" "$tmp/pc.json" >"$tmp/c" 2>&1 <<'PY'
import json, sys
st, ch, rep = (json.load(open(f)) for f in sys.argv[1:4])
assert st["ok"] and st["steps_done"] >= 3, st
assert ch["ok"] and ch["value"] == 3.125e9 and ch["old"] == 12.5e9, ch
r = rep["runs"][0]
rows = r["steps"]["rows"]
assert len(rows) == 12 and r["changed_steps"] == 1, (len(rows), r["changed_steps"])
# the step the change landed in has a note; lateness can only lengthen a real-time step (the
# CI's first step once took 5.77 ms against 4.08), so each side is judged by its shortest step:
# 4.08 ms before, 11.7 ms after (2.86 x; under load the shortest before was 4.46 ms)
at = [i for i, w in enumerate(rows) if w.get("note")]
assert len(at) == 1 and 0 < at[0] < len(rows) - 1, at
first = min(w["emulated_ms"] for w in rows[:at[0]])
last = min(w["emulated_ms"] for w in rows[at[0] + 1:])
assert last > 2 * first, (first, last)
print("status at step %d; the change at %.3f ms (step %d); shortest step %.4f ms before, "
      "%.4f ms after" % (st["steps_done"], ch["at_ms"], at[0], first, last))
PY
[ $? -eq 0 ] && [ $rc -eq 0 ] && ok "--ctl during a run in two partitions: $(cat "$tmp/c")" ||
	{ bad "--ctl in two partitions (exit $rc):"; tail -n 3 "$tmp/c" "$tmp/pc.err" "$tmp/pc.set"; }
fi
# 1c. Two partitions joined by the WAN links themselves (cut links, no port): a frame crosses
# between the lcores on a ring as its link queues it, the link's latency (10 us of emulated
# time, 2 ms of real time at dilation 200) ahead of its arrival.  None taken late, the run is
# virtual time's: every step the packet model's to the ps, and the trace the virtual-time run's
# block for block (but its section header, which names the command line).  One taken late (the
# host held an lcore for longer than the latency: the hypervisor's 100 ms stops above) is counted
# and makes the attempt miss; another is made, up to three.
# (3 steps, 2.4 s of real time; the sanitizer build 2 at dilation 400, for the memory of the
# same paths: two lcores sustain 20 to 40 in the plain build, about 4 times that under the
# sanitizers)
ncut=$((slow == 1 ? 3 : 2)) dcut=$((slow == 1 ? 200 : 400))
"$se" run -v A -n $ncut -q --trace "$tmp/vt.pcapng" >/dev/null 2>&1 ||
	bad "the virtual-time trace for 1c"
cut_pair() {
	expect_rc 0 "two partitions joined by cut WAN links, dilation $dcut" -- \
		timeout 120 "$se" run -v A -n $ncut -q -j "${RT[@]}" --set run.partitions=2 \
		--set run.dilation=$dcut --trace "$tmp/cut.pcapng"
	cp "$tmp/out" "$tmp/cut.json"
	python3 - "$tmp/cut.json" "$tmp/cut.pcapng" "$tmp/vt.pcapng" $ncut >"$tmp/c" 2>&1 <<'PY'
import json, struct, sys
d = json.load(open(sys.argv[1]))
ns = int(sys.argv[4])
r = d["runs"][0]
c = r["real_time"]["cut_links"]
assert r["partitions"] == 2 and r["lcores"] == 2, (r["partitions"], r["lcores"])
# 3,872 frames a step each way on the WAN (tools/bench/rt), each crossing once
assert c["frames"] == 2 * 3872 * ns, c
assert c["late"] == 0, "%d frames crossed late, the latest by %.1f us" % (c["late"],
                                                                         c["late_max_ns"] / 1e3)
assert r["max_rel_diff"] == 0, r["max_rel_diff"]
def blocks(path):
    b, off = open(path, "rb").read(), 0
    while off < len(b):
        n = struct.unpack_from("<I", b, off + 4)[0]
        yield b[off:off + n]
        off += n
a, v = list(blocks(sys.argv[2])), list(blocks(sys.argv[3]))
assert len(a) == len(v), "%d blocks against %d" % (len(a), len(v))
diff = [i for i in range(1, len(a)) if a[i] != v[i]]
assert not diff, "%d blocks differ from virtual time's, the first %d" % (len(diff), diff[0])
print("%d frames crossed, none late; %d steps the model's; the trace is virtual time's (%d "
      "blocks)" % (c["frames"], ns, len(a)))
PY
	[ $? -eq 0 ] && ok "cut links in real time: $(cat "$tmp/c")" ||
		{ bad "cut links in real time:"; sed 's/^/    /' "$tmp/c" | tail -3; }
}
attempts cut_pair
# the host cannot keep up (8 DC x 8 at dilation 1: 10 M events a 6 ms step): the frames taken
# late are counted, the latest said, and the remedy named
if [ "$slow" -eq 1 ]; then
expect_rc 0 "8 DC x 8 in two partitions at dilation 1" -- timeout 120 "$se" run -v A -n 1 \
	--trace none "${RT[@]}" --set run.partitions=2 --set run.dilation=1 \
	--set topology.data_centres=8 --set topology.workers_per_dc=8
expect_grep "$tmp/out" "frames crossed cut links," "the crossings counted"
# (said only when some were late)
expect_grep "$tmp/out" "the lcores fell behind; raise run.dilation or give it cores" \
	"the late ones counted, the remedy named"
# the engine that far behind (events late by more than a tenth of a step): the status and a
# note of the report say so, with a dilation to try
expect_grep "$tmp/out" "real time, host behind" "the status says the host fell behind"
expect_grep "$tmp/out" "Raise run.dilation (1 now; try " \
	"the report's note: how late, and the dilation to try"
# in one partition it is said while the run goes, once: 2 DC x 4 at 100 GbE is 54,160 frames a
# 4.08 ms step, 13 M frames a second at dilation 1; this VM moves 2-3 M a second on a core, so
# the engine falls behind by more than a tenth of a step on any host below 12 M a second
expect_rc 0 "2 DC x 4 at dilation 1 in one partition" -- timeout 120 "$se" run -v A -n 3 \
	--trace none "${RT[@]}" --set run.dilation=1 --set ports.dc0=ring:w --set ports.dc1=ring:w
[ "$(grep -c "the host is not keeping up: at step 1 the engine ran" "$tmp/err")" = 1 ] &&
	[ "$(grep -c "not keeping up" "$tmp/err")" = 1 ] &&
	grep -q "raise run.dilation (1 now)" "$tmp/err" &&
	ok "the host falling behind said once while running (stderr), with the remedy" ||
	bad "the host falling behind not said once: $(grep "not keeping up" "$tmp/err" | head -3)"
expect_grep "$tmp/out" "real time, host behind, differs from the closed form" \
	"its status says so too"
fi
expect_rc 3 "partitions in a run with a link through ports" -- "$se" run -v A -n 1 -q \
	--trace none "${RT[@]}" --set run.partitions=2 --set "ports.link0=w0.nic ring:la"
expect_grep "$tmp/err" "with links through ports (ports.linkN) runs in one partition" "the reason"

# 1b. Links inside a data centre through ports: worker 0's uplink and the switch's link down to
# worker 5, each over a ring pair (frames leave one end, come in at the other, go on).
# (a frame every 164 ns of emulated time on a 50 GB/s link: dilation 200, a frame every 33 us
# of real time. Here the frames re-enter at the time they really arrived, so the host's lateness
# is in the step: at dilation 100 the mean step was +0.03 % on one 2-vCPU VM and +0.78 to
# +1.11 % on another whose lateness p99 was 11 ms, beyond the 1 % tolerance; 200 halves it. And,
# as for every wall-clock check here, another attempt, up to three, if the host stalled one)
LINKS=(--set "ports.link0=w0.nic ring:la" --set "ports.link1=dc1>w5 ring:lb")
links_d=200
[ "$slow" -gt 1 ] && links_d=$((100 * slow))	# the sanitizer build: 400 held there
links_pair() {
	expect_rc 0 "two intra-DC links through ring pairs, dilation $links_d" -- timeout 120 \
		"$se" run -v A -n $ns -q -j --trace none "${RT[@]}" --set run.dilation=$links_d \
		"${LINKS[@]}"
	cp "$tmp/out" "$tmp/links.json"
	check_run "$tmp/links.json" 1 "links through ports" all
}
# (the sanitizer build: the traced run below takes every frame the same way, its time unchecked)
[ "$slow" -eq 1 ] && attempts links_pair
# the frames' path, from a trace of the links and the ports (writing it slows the engine: no
# timing asserted here)
expect_rc 0 "the same with the links and ports captured" -- timeout 120 "$se" run -v A -n 2 -q -j \
	"${RT[@]}" --set run.dilation=$((100 * slow)) "${LINKS[@]}" --trace "$tmp/lk.pcapng" \
	--capture nic,switch,eth
cp "$tmp/out" "$tmp/links.json"
python3 - "$tmp/links.json" >"$tmp/c" 2>&1 <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
r = d["runs"][0]
ports = {p["name"]: p for p in r["real_time"]["ports"]}
assert sorted(ports) == ["dc1>w5.rx", "dc1>w5.tx", "w0.nic.rx", "w0.nic.tx"], sorted(ports)
t = d["trace"]["frames"]
for l in ("w0.nic", "dc1>w5"):
    tx, rx = ports[l + ".tx"], ports[l + ".rx"]
    # every frame the link carried left through one end and came in at the other
    assert tx["frames_sent"] == rx["frames_received"] == t[l + ".out"] == t[l + ".eth.tx"] \
        == t[l + ".eth.rx"] > 0, (l, tx, rx, t)
    assert tx["frames_received"] == 0 and rx["frames_sent"] == 0, (tx, rx)
print(", ".join("%s %d frames" % (l, ports[l + ".tx"]["frames_sent"]) for l in ("w0.nic", "dc1>w5")))
PY
[ $? -eq 0 ] && ok "each link's frames left one end and came in at the other: $(cat "$tmp/c")" ||
	{ bad "links through ports:"; sed 's/^/    /' "$tmp/c" | tail -3; }
module_port() {
	expect_rc 0 "a pluggable module's port through a ring pair (E[high])" -- timeout 120 "$se" run \
		-v E -b high -n $nmod -q -j --trace none "${RT[@]}" \
		--set run.dilation=$((100 * slow)) \
		--set "ports.link0=w2.port ring:pc"
	cp "$tmp/out" "$tmp/pc.json"
	check_run "$tmp/pc.json" 1 "w2.port through ports" all
}
attempts module_port
fi

if refusals; then
refuse_link() {	# refuse_link DESC REASON VALUE...
	local desc=$1 why=$2
	shift 2
	expect_rc 3 "$desc" -- "$se" run -v A -n 1 -q --trace none "${RT[@]}" "$@"
	expect_grep "$tmp/err" "$why" "the reason"
}
refuse_link "a link that is not one" "'wan0>1' is not a link" --set "ports.link0=wan0>1 ring:a"
# (the sanitizer build: one refusal of each kind; the rest are the same code on other values,
# and the plain build runs them all)
if [ "$slow" -eq 1 ]; then
refuse_link "a worker outside the topology" "the topology has 8 workers" \
	--set "ports.link0=w8.nic ring:a"
refuse_link "a down link from the wrong DC" "worker 5 is in data centre 1, not 0" \
	--set "ports.link0=dc0>w5 ring:a"
refuse_link "one device for a link" "needs a second device to come in through" \
	--set "ports.link0=w0.nic net_null0"
refuse_link "a device used twice" "link0 already maps w0.nic" \
	--set "ports.link0=w0.nic ring:a" --set "ports.link1=w1.nic ring:a"
refuse_link "a link and a DC on one ring" "[ports] dc0 uses the same device" \
	--set ports.dc0=ring:a --set ports.dc1=ring:a --set "ports.link0=w0.nic ring:a"
refuse_link "a link of the other process's DC" "runs in the other process" \
	--set ports.local=0 --set ports.dc0=ring:x --set "ports.link0=w5.nic ring:a"
expect_rc 1 "a module link where the module is not on the network" -- "$se" run -v A -n 1 -q \
	--trace none "${RT[@]}" --set "ports.link0=dc0>m1 ring:a"
expect_grep "$tmp/err" "this run has no link dc0>m1" "the reason"
expect_rc 1 "a module port where no module is pluggable" -- "$se" run -v A -n 1 -q \
	--trace none "${RT[@]}" --set "ports.link0=w1.port ring:a"
expect_grep "$tmp/err" "this run has no link w1.port" "the reason"
fi
fi

if timed; then
# 2. Two processes over memif, one per data centre.
run_pair() {	# run_pair OUT_LEADER OUT_FOLLOWER ARGS...: both sides, the leader first
	local a=$1 b=$2 ra rb
	shift 2
	rm -f "$sock"
	timeout 120 "$se" run -v A -q -j --trace none "${RT[@]}" --set ports.local=0 \
		--set "ports.dc0=net_memif0,role=server,socket=$sock,socket-abstract=no,bsize=9216" \
		--eal "$EAL0" "$@" >"$a" 2>"$a.err" &
	pids+=($!)
	ra=$!
	sleep 0.3
	timeout 120 "$se" run -v A -q -j --trace none "${RT[@]}" --set ports.local=1 \
		--set "ports.dc1=net_memif0,role=client,socket=$sock,socket-abstract=no,bsize=9216" \
		--eal "$EAL1" "$@" >"$b" 2>"$b.err"
	rb=$?
	wait "$ra"
	echo "$? $rb"
}
# (dilation 100. The mean missed at 100 and at 200 alike, +2.1 to +5.9 %: the VM's 100 ms stops,
# one or two steps of 10 each +12 to +24 %. The median of the same runs at 100, six by hand:
# +0.008 to +0.32 %, with up to 4 of the 10 steps stalled)
memif_pair() {
	local rcs
	rcs=$(run_pair "$tmp/lead.json" "$tmp/follow.json" -n $nm --set run.dilation=$((100 * slow)))
	[ "$rcs" = "0 0" ] && ok "two processes over memif: both exit 0" ||
		{ bad "two processes over memif: exits $rcs"; tail -n 3 "$tmp/lead.json.err" "$tmp/follow.json.err"; }
	check_run "$tmp/lead.json" 1 "the leader merges both sides" merged
	check_run "$tmp/follow.json" 1 "the follower reports its side" side
}
attempts memif_pair
python3 - "$tmp/lead.json" "$tmp/follow.json" >"$tmp/c" 2>&1 <<'PY'
import json, sys
a = json.load(open(sys.argv[1]))["runs"][0]["real_time"]
b = json.load(open(sys.argv[2]))["runs"][0]["real_time"]
pa, pb = a["ports"][0], b["ports"][0]
assert pa["frames_sent"] == pb["frames_received"] and pb["frames_sent"] == pa["frames_received"], (pa, pb)
assert a["peer_ports"][0]["frames_sent"] == pb["frames_sent"], (a["peer_ports"], pb)
print("%d and %d frames each way; clock offset %+.3f us, round trip %.1f us" % (
    pa["frames_sent"], pb["frames_sent"], a["peer_offset_ns"] / 1e3, a["peer_rtt_ns"] / 1e3))
PY
[ $? -eq 0 ] && ok "each side sent what the other received: $(cat "$tmp/c")" || { bad "port counts:"; cat "$tmp/c"; }

# 2b. Scale-out: 8 DC x 1 split over two processes, DCs 0-3 and 4-7, the ring of WAN links
# crossing twice (3 -> 4 and 7 -> 0), one memif link per crossing.
# (dilation 100 in the plain build, as for 1b: the means that missed the 2 % tolerance at 100 and
# 200 were the VM's stops, which the median of 5 equal steps leaves out while they land in two
# or fewer: of 3, two attempts running had two stalled, +20 and +22 %; the sanitizer build
# holds at 400)
M=",socket-abstract=no,bsize=9216"
split_d=100
[ "$slow" -gt 1 ] && split_d=$((100 * slow))
split8() {
	local pa ra rb
	rm -f "$tmp/s1.sock" "$tmp/s2.sock"
	timeout 120 "$se" run scenarios/8dc1-100g.ini -v A -n 5 -q -j --trace none "${RT[@]}" \
		--set run.dilation=$split_d --set ports.local=0,1,2,3 \
		--set "ports.dc3=net_memif0,role=server,socket=$tmp/s1.sock$M" \
		--set "ports.dc0=net_memif1,role=server,socket=$tmp/s2.sock$M" --eal "$EAL0" \
		>"$tmp/8a.json" 2>"$tmp/8a.err" &
	pids+=($!)
	pa=$!
	sleep 0.3
	rb=0
	timeout 120 "$se" run scenarios/8dc1-100g.ini -v A -n 5 -q -j --trace none "${RT[@]}" \
		--set run.dilation=$split_d --set ports.local=4,5,6,7 \
		--set "ports.dc4=net_memif0,role=client,socket=$tmp/s1.sock$M" \
		--set "ports.dc7=net_memif1,role=client,socket=$tmp/s2.sock$M" --eal "$EAL1" \
		>"$tmp/8b.json" 2>"$tmp/8b.err" || rb=$?
	ra=0
	wait "$pa" || ra=$?
	[ $ra -eq 0 ] && [ $rb -eq 0 ] && ok "8 DC x 1 over two processes and two memif links (exit 0, 0)" ||
		{ bad "8 DC x 1 split: exits $ra, $rb"; tail -n 2 "$tmp/8a.err" "$tmp/8b.err"; }
	check_run "$tmp/8a.json" 2 "8 DC x 1, merged by the leader" merged2
}
# (the plain build only: the two-process protocol runs under the sanitizers in memif_pair; the
# split of 8 DCs at dilation 400 there takes 20 s of the suite's time)
[ "$slow" -eq 1 ] && attempts split8

# 2c. job.transport = tcp through the ports: every frame on them a worker's TCP segment or ACK
# (2 DC x 1: each crosses the WAN once), each received, none stale or foreign, and the steps
# those of the same run in virtual time within 1 % of their median: the bound and the dilation of
# the frames' runs above (steps of 4.7 ms against their 4 ms; a late arrival holds back an ACK
# and the window as it holds a frame), with another attempt if the host stalled one. 5 steps:
# the first, slow start from nothing, is the longest, so of 3 the median is the longer of the
# other two, and one 100 ms stop of the VM in either missed the bound (+2.0 to +2.7 % over
# memif at dilation 200, three attempts running); of 5, one stalled step is left out. Over
# memif at dilation 100: medians +0.017 to +0.037 % in four runs (two MPI ranks: +0.017 to
# +0.019 %), the stops landing in fewer steps than at 200. The sanitizer build runs 3 steps,
# in one process only.
# A ring pair in one process in both builds (the sanitizer build: the receiving path's memory),
# two processes over memif in the plain build only (the same code; the PMD is DPDK's).
tcp_n=5
[ "$slow" -gt 1 ] && tcp_n=3
TCPJ=(-n $tcp_n --set topology.workers_per_dc=1 --set wan.bandwidth=1Gbit/s
	--set wan.latency=1ms --set job.bytes=256KiB --set run.mtu=1500 --set job.transport=tcp)
"$se" run -v A -q -j --trace none "${TCPJ[@]}" >"$tmp/tcpv.json" 2>"$tmp/err" || bad "tcp in virtual time: $(cat "$tmp/err")"
check_tcp() {	# check_tcp DESC VIRTUAL REAL...: the real runs' ports and steps against virtual time
	python3 - "$2" "${@:3}" >"$tmp/check" 2>&1 <<'PY'
import json, statistics, sys
v = json.load(open(sys.argv[1]))["runs"][0]
r = [json.load(open(f))["runs"][0] for f in sys.argv[2:]]
for x in r:
    assert x["ok"] and x["clock"] == "real", x.get("error")
    for p in x["real_time"]["ports"]:
        assert p["stale_frames"] == p["other_frames"] == 0, p
        assert p["device_rx_dropped"] == 0 and p["device_tx_errors"] == 0, p
ports = [p for x in r for p in x["real_time"]["ports"]]
sent = sum(p["frames_sent"] for p in ports)
got = sum(p["frames_received"] for p in ports)
# (the first report's tcp counts are every process's: a split run's leader adds the other's)
segs = r[0]["tcp"]["data_segments"] + r[0]["tcp"]["pure_acks"]
assert sent == got == segs > 0, (sent, got, segs)
assert r[0]["tcp"]["resent"] == 0 and r[0]["tcp"]["delivered_bytes"] == v["tcp"]["delivered_bytes"], (
    r[0]["tcp"], v["tcp"])
# (the median, and the host's share, as check_run's)
med = lambda x: statistics.median(s["emulated_ms"] for s in x["steps"]["rows"])
err = 100 * (med(r[0]) / med(v) - 1)
held = 2 * max(p.get("late_max_ns") or 0 for p in ports) / (r[0]["real_time"]["dilation"] * 1e6)
assert len(r[0]["steps"]["rows"]) == len(v["steps"]["rows"]), (r[0]["steps"], v["steps"])
assert abs(err) < 1 or 0 < med(r[0]) - 1.01 * med(v) <= held, (med(r[0]), med(v), err, held)
print("%d TCP frames through the ports, all received; median step %.4f ms, virtual %.4f ms "
      "(%+.3f %%%s)" % (sent, med(r[0]), med(v), err, "" if abs(err) < 1 else
      ": past 1 %%, within the %.3f ms the host held it back" % held))
PY
	if [ $? -eq 0 ]; then ok "$1: $(cat "$tmp/check")"; else bad "$1:"; sed 's/^/    /' "$tmp/check" | tail -4; fi
}
# (the sanitizer build at dilation 100, not 4 x 50: its frames come every 12 us of emulated time,
# 1/100 of the frames' runs' rate, and there the steps were +0.004 % at 200 and +0.006 % at 50)
tcp_d=50
[ "$slow" -gt 1 ] && tcp_d=100
tcp_ring() {
	expect_rc 0 "tcp through a net_ring pair, dilation $tcp_d" -- timeout 120 "$se" run -v A \
		-q -j --trace none "${TCPJ[@]}" "${RT[@]}" --set run.dilation=$tcp_d --set ports.dc0=ring:w \
		--set ports.dc1=ring:w
	cp "$tmp/out" "$tmp/tcpr.json"
	check_tcp "tcp through a ring pair" "$tmp/tcpv.json" "$tmp/tcpr.json"
}
attempts tcp_ring
tcp_memif() {
	local rcs
	rcs=$(run_pair "$tmp/tcpa.json" "$tmp/tcpb.json" "${TCPJ[@]}" --set run.dilation=100)
	[ "$rcs" = "0 0" ] || { bad "tcp over memif: exits $rcs"; tail -n 3 "$tmp/tcpa.json.err" "$tmp/tcpb.json.err"; return; }
	check_tcp "tcp over memif, two processes" "$tmp/tcpv.json" "$tmp/tcpa.json" "$tmp/tcpb.json"
}
[ "$slow" -eq 1 ] && attempts tcp_memif
fi

if refusals; then
# 3. Bad set-ups.
refuse() {	# refuse DESC PATTERN ARGS...: exit 1 and the reason
	local desc=$1 pat=$2
	shift 2
	expect_rc 1 "$desc" -- timeout 60 "$se" run -v A -n 2 -q --trace none "${RT[@]}" "$@"
	expect_grep "$tmp/err" "$pat" "$desc: the reason"
}
refuse "a port for a DC run elsewhere" "data centre 1 runs in the other process" \
	--set ports.local=0 --set ports.dc0=ring:x --set ports.dc1=ring:x
refuse "a split without its port" "[ports] dc0: data centre 0 exchanges frames with DC 1" \
	--set ports.local=0
if [ "$slow" -eq 1 ]; then
refuse "one end of a ring pair" "a ring:NAME port has two ends" --set ports.dc0=ring:x
refuse "an unknown device" "port 'net_nosuch0': the device did not start" \
	--set ports.dc0=net_nosuch0 --set ports.dc1=net_nosuch1
refuse "background across processes" "background load with the data centres split" \
	--set ports.local=0 --set "ports.dc0=net_memif0,role=server,socket=$sock,socket-abstract=no" \
	--load 0.5
expect_rc 3 "a DC outside the topology" -- "$se" run -v A -n 2 -q --trace none "${RT[@]}" \
	--set ports.local=0,5
expect_grep "$tmp/err" "[ports] local = '0,5': '5' is not a data centre" "the reason names the key"
expect_rc 3 "a port for a DC outside the topology" -- "$se" run -v A -n 2 -q --trace none \
	"${RT[@]}" --set ports.dc3=ring:x
expect_grep "$tmp/err" "[ports] dc3 = 'ring:x': the topology has 2 data centres" "the reason"
fi
rm -f "$sock"
expect_rc 1 "no peer" -- timeout 60 "$se" run -v A -n 2 -q --trace none "${RT[@]}" \
	--set ports.wait=1s --set ports.local=0 \
	--set "ports.dc0=net_memif0,role=server,socket=$sock,socket-abstract=no"
expect_grep "$tmp/err" "the link did not come up in 1000 ms" "the reason names the wait"
fi

if timed; then
# (serial, beside the timed runs: when one side refuses and leaves, DPDK 22.11's memif driver
# on the other can unmap the rings under a burst, the race below; under the sanitizers beside
# other tests the leader died so once, SIGSEGV in librte_net_memif)
# the follower runs 3 steps, the leader 2: both must refuse
rm -f "$sock"
timeout 60 "$se" run -v A -q -n 2 --trace none "${RT[@]}" --set run.dilation=$((100 * slow)) --set ports.local=0 \
	--set "ports.dc0=net_memif0,role=server,socket=$sock,socket-abstract=no,bsize=9216" \
	>"$tmp/x1" 2>"$tmp/x1.err" &
pids+=($!)
xa=$!
sleep 0.3
timeout 60 "$se" run -v A -q -n 3 --trace none "${RT[@]}" --set run.dilation=$((100 * slow)) --set ports.local=1 \
	--set "ports.dc1=net_memif0,role=client,socket=$sock,socket-abstract=no,bsize=9216" \
	--eal "$EAL1" >"$tmp/x2" 2>"$tmp/x2.err"
xb=$?
wait "$xa"
xa=$?
[ "$xa" -eq 1 ] && [ "$xb" -eq 1 ] && ok "a peer with other options: both refuse (exit 1)" ||
	bad "a peer with other options: exits $xa and $xb"
expect_grep "$tmp/x1.err" "the peer runs another scenario or other options" "the leader says why"
expect_grep "$tmp/x2.err" "the peer runs another scenario or other options" "the follower says why"

# the follower stops mid-run (frozen: SIGSTOP): the leader stops within [ports] wait, says where,
# exits 1.  Not SIGKILL: a memif peer that vanishes makes DPDK 22.11's memif driver unmap the
# shared rings on its interrupt thread while the lcore may be inside rte_eth_tx_burst() on them,
# and the survivor then dies of SIGSEGV inside librte_net_memif (seen once in 9 clean runs here,
# reproduced under load with a backtrace); a frozen peer is the same loss of the far end without
# that race.  The plain build only (6.5 s alone): under the sanitizers a port's wait running out
# is the refusals' "no peer", and the stall report's code is virtual time's (test_stall.c).
if [ "$slow" -eq 1 ]; then
rm -f "$sock"
timeout 60 "$se" run -v A -q -n 100 --trace none "${RT[@]}" --set run.dilation=$((100 * slow)) \
	--set ports.wait=2s --set ports.local=0 --ctl "$tmp/k.ctl" \
	--set "ports.dc0=net_memif0,role=server,socket=$sock,socket-abstract=no,bsize=9216" \
	>"$tmp/k1" 2>"$tmp/k1.err" &
pids+=($!)
ka=$!
sleep 0.3
"$se" run -v A -q -n 100 --trace none "${RT[@]}" --set run.dilation=$((100 * slow)) \
	--set ports.wait=2s --set ports.local=1 \
	--set "ports.dc1=net_memif0,role=client,socket=$sock,socket-abstract=no,bsize=9216" \
	--eal "$EAL1" >"$tmp/k2" 2>"$tmp/k2.err" &
kb=$!
pids+=($kb)
# the run is under way (EAL, calibration, handshake done) once the leader has a step: asked on its
# control socket rather than guessed with a sleep (start-up takes 1 to 10 s here under load)
for _ in $(seq 600); do
	"$se" ctl "$tmp/k.ctl" status 2>/dev/null | grep -q '"steps_done": [1-9]' && break
	sleep 0.1
done
kill -STOP "$kb" 2>/dev/null
t0=$(date +%s)
wait "$ka"
ka=$?
dt=$(($(date +%s) - t0))
kill -9 "$kb" 2>/dev/null
wait "$kb" 2>/dev/null
[ "$ka" -eq 1 ] && [ "$dt" -le 20 ] && ok "the peer frozen mid-run: the leader stops (exit 1, ${dt} s)" ||
	bad "the peer frozen mid-run: exit $ka after $dt s"
expect_grep "$tmp/k1.err" "the run stalled" "it says the run stalled"
expect_grep "$tmp/k1.err" "(ports: dc0.eth sent" "and names its port's counts"
fi
fi
finish
