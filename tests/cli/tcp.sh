#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# job.transport = tcp: a 2-rank all-reduce over TCP across a 1 Gbit/s WAN of 5 ms one way, its
# trace read by tshark's own TCP analysis as a real capture is; the first step pays slow start,
# the next ones run at the ideal collective's time plus what ACKs and windows cost; a shallow
# WAN queue with drop-tail makes losses TCP recovers from (fast retransmits, no stall); the same
# seed gives the same trace byte for byte; a bulk TCP flow each way (background.bulk) takes its
# share of the WAN and the job slows; bad settings are refused naming the key.
# Usage: tcp.sh SYNCEMU_BINARY (run from the source root)
set -u
. "$(dirname "$0")/lib.sh"
se=$(realpath "$1")

job=(--set topology.data_centres=2 --set topology.workers_per_dc=1 --set wan.bandwidth=1Gbit/s
	--set wan.latency=5ms --set job.bytes=4MiB --set run.mtu=1500 --set job.transport=tcp
	-v A -n 3 -q)

mkdir "$tmp/1" "$tmp/2"
cd "$tmp/1"	# the trace's name is in it (its scenario): the same name for both runs
expect_rc 0 "a TCP all-reduce, traced" -- "$se" run "${job[@]}" --json --trace t.pcapng -c tx
cd "$OLDPWD"
cp "$tmp/out" "$tmp/a.json"
python3 - "$tmp/a.json" <<'PY' && ok "step 0 pays slow start; steps 1-2 within 5 % of the ideal collective's 44.05 ms" || bad "the TCP steps"
import json, sys
r = json.load(open(sys.argv[1]))["runs"][0]
t = r["tcp"]
steps = [s["emulated_ms"] for s in r["steps"]["rows"]]
# ideal: 2 rounds of 2 MiB at 125 MB/s plus 2 x 5 ms = 43.6 + 0.4 ms of per-frame terms: 44.05
assert t["resent"] == 0 and t["timeouts"] == 0 and t["data_segments"] > 0, t
assert t["pure_acks"] > 0, t
# slow start from 10 segments at a 10 ms RTT: about 8 round trips more than a full window
assert steps[0] > steps[1] + 40, steps
assert all(44.05 < s < 44.05 * 1.05 for s in steps[1:]), steps
PY

if tshark_ok; then
	# the checksums on a short run traced whole (the long one keeps 90 bytes a frame)
	"$se" run "${job[@]}" --set job.bytes=256KiB -n 1 --snaplen 0 --trace "$tmp/s.pcapng" \
		-c tx >/dev/null 2>&1 || bad "a short TCP run traced whole"
	tshark -r "$tmp/1/t.pcapng" -q -z conv,tcp 2>/dev/null | grep -c "<->" >"$tmp/conv"
	tshark -r "$tmp/1/t.pcapng" -q -z expert 2>/dev/null >"$tmp/expert"
	tshark -r "$tmp/s.pcapng" -o tcp.check_checksum:TRUE -T fields -e tcp.checksum.status \
		2>/dev/null | sort | uniq -c >"$tmp/sums"
	if [ "$(cat "$tmp/conv")" = 1 ] && ! grep -qE "Warns|Errors" "$tmp/expert" &&
		[ "$(wc -l <"$tmp/sums")" = 1 ] && grep -qE " 1$" "$tmp/sums"; then
		ok "tshark: one TCP conversation, no warning or error, every checksum right"
	else
		bad "tshark on the TCP trace: $(cat "$tmp/conv") conversations, checksum statuses $(cat "$tmp/sums")"
		head -20 "$tmp/expert"
	fi
else
	echo "# tshark is not installed: the trace's TCP is not read by it"
fi

(cd "$tmp/2" && "$se" run "${job[@]}" --trace t.pcapng -c tx >/dev/null 2>&1) ||
	bad "the same run again"
cmp -s "$tmp/1/t.pcapng" "$tmp/2/t.pcapng" && ok "the same trace byte for byte" ||
	bad "two runs of one seed wrote different traces"

# a WAN queue of 200 kB (a sixth of the 1.25 MB path) with the sync's frames drop-tail
expect_rc 0 "losses at a shallow queue" -- "$se" run "${job[@]}" --set job.bytes=16MiB \
	--set queues.wan=200kB --set queues.sync_lossless=no --json
cp "$tmp/out" "$tmp/l.json"
python3 - "$tmp/l.json" <<'PY' && ok "losses recovered: fast retransmits, every step done" || bad "TCP's recovery"
import json, sys
r = json.load(open(sys.argv[1]))["runs"][0]
t = r["tcp"]
assert len(r["steps"]["rows"]) == 3 and r["ok"], r["status"]
assert t["resent"] > 0 and t["fast_retransmits"] > 0 and t["out_of_order"] > 0, t
PY

# an alltoall of 10 workers: connections made as rounds begin, from within the arrival of bytes
# (the sanitizer build sees a connection's memory used after more were made), 9 of them (the
# timers in a heap past 8), delayed ACKs firing
expect_rc 0 "an alltoall over TCP, connections made as it goes" -- "$se" run -q -v A -n 1 \
	--set topology.data_centres=2 --set topology.workers_per_dc=5 --set job.operation=alltoall \
	--set job.transport=tcp --set job.bytes=256KiB --set run.mtu=1500 \
	--set transport.delayed_ack=1ms

# the libraries' protocols: Open MPI's rendezvous makes two ranks that start apart take turns
# (a step of 2 B / rate: each answer waits behind the rank's own data, as ob1's one FIFO per
# connection has it), gloo's ready notification costs round trips (a message waits for it)
proto() {	# proto PROTOCOL LATENCY: steps 1.. as a line of ms
	"$se" run "${job[@]}" --set wan.latency="$2" --set intra.latency=0s -n 5 \
		--set transport.protocol="$1" --set run.sync=none --set job.start_skew=50ms \
		--set job.reduce_rate=2GB/s --set run.accounting=wire --json 2>/dev/null |
		python3 -c 'import json,sys; r=json.load(sys.stdin)["runs"][0]; print(" ".join("%.3f" % s["emulated_ms"] for s in r["steps"]["rows"][1:]))'
}
p0=$(proto plain 0ms) o0=$(proto openmpi 0ms) g0=$(proto gloo 0ms) p5=$(proto plain 5ms) g5=$(proto gloo 5ms)
python3 - "$p0" "$o0" "$g0" "$p5" "$g5" <<'PY' && ok "openmpi: the ranks take turns (2 B / rate a step); gloo: a round trip a message" || bad "the protocols: plain/openmpi/gloo at 0 ms: $p0 / $o0 / $g0; plain/gloo at 5 ms: $p5 / $g5"
import sys
p0, o0, g0, p5, g5 = ([float(x) for x in a.split()] for a in sys.argv[1:])
# 2 x 4 MiB of 1514-byte frames at 1 Gbit/s is 69.6 ms; both ways at once half of it
assert all(36 < s < 40 for s in p0), p0
assert all(68 < s < 76 for s in o0[1:]), o0
assert all(36 < s < 40 for s in g0), g0
# at 5 ms one way a step waits at least one 10 ms round trip more than plain's (two at first,
# one once the second round's notification comes while the first's data still flows)
assert all(g - p > 9.5 for g, p in zip(g5, p5)), (p5, g5)
PY

# DDP's two buckets (2093040 and 2101248 B of whole 1050624-B tensors) as gloo rings over TCP at
# 20 ms one way, 1 Gbit/s, 50 ms of compute. One after another (job.threads = 1) a step is the
# compute, 4 round trips (a ready message then a flight, per half and bucket) and 4 MiB of wire
# (2897 segments of 1538 wire bytes: 35.6 ms): 245.6 ms. On PyTorch's two threads the rings
# overlap over the one connection, 1.75 round trips (70 ms) saved at least, and the first bucket,
# ready 0.2 x 50 ms before the compute ends, starts 10 ms early: under 175.6 ms, and no less than
# one bucket's own two halves from its early start, 50 - 10 + 2 x (40 + 8.9) = 137.8 ms. The last
# step of 5, the windows grown.
dl=$("$se" run "${job[@]}" --set wan.latency=20ms --set job.bytes=4194288B -n 5 \
	--set job.library=gloo --set job.tensor_bytes=1050624B --set run.sync=none \
	--set job.compute=50ms --set job.first_lead=0.2 --json 2>/dev/null |
	python3 -c 'import json,sys; print("%.3f" % json.load(sys.stdin)["runs"][0]["steps"]["rows"][-1]["emulated_ms"])')
python3 - "$dl" <<'PY' && ok "DDP's buckets at once on two threads, the first during backward" || bad "DDP's buckets: a step of '$dl' ms, not within 137.8-175.6"
import sys
assert 137.8 < float(sys.argv[1]) < 175.6, sys.argv[1]
PY

# ob1's rendezvous as captured (a 40-byte header, no data) at 100 Mbit/s. A step carries 4 MiB
# each way: 2897 segments of 1538 wire bytes (1448 + 66 of headers + 24 of preamble, FCS and
# gap) are 356.5 ms a direction; taking turns a step is 2 x 356.5 ms plus compute (713-750),
# both directions at once 356.5 plus (under 400). The peer's rendezvous comes one 106-byte frame
# (8.5 us) behind its data, after the rank has left its loop to reduce (job.read_window, 5 us):
# the rank sends its own first and the directions overlap. Read as it comes (a window of 10 s),
# it is answered first, and the ranks take turns.
rndv() {	# rndv READ_WINDOW: step 1's ms
	"$se" run "${job[@]}" --set wan.bandwidth=100Mbit/s --set wan.latency=0ms -n 2 \
		--set intra.latency=0s --set transport.protocol=openmpi --set transport.rndv_first=40B \
		--set run.sync=none --set job.start_skew=50ms --set job.reduce_rate=2GB/s \
		--set run.accounting=wire --set queues.wan=4MB --set job.read_window="$1" --json \
		2>/dev/null |
		python3 -c 'import json,sys; print("%.3f" % json.load(sys.stdin)["runs"][0]["steps"]["rows"][1]["emulated_ms"])'
}
over=$(rndv 5us) turns=$(rndv 10s)
python3 -c 'import sys; s = float(sys.argv[1]); assert 356.5 < s < 400, s' "$over" &&
	ok "openmpi, a 40-byte rendezvous at 100 Mbit/s read after the rank's own: $over ms" ||
	bad "openmpi, a rendezvous read after the rank's own: a step of ${over:-no} ms, not 356.5-400"
python3 -c 'import sys; s = float(sys.argv[1]); assert 713 < s < 750, s' "$turns" &&
	ok "openmpi, a 40-byte rendezvous at 100 Mbit/s read as it comes: turns, $turns ms a step" ||
	bad "openmpi, a rendezvous read as it comes: a step of ${turns:-no} ms, not 713-750"
$se run -q -n 1 --set job.read_window=11s >/dev/null 2>"$tmp/err"; rc=$?
[ $rc -eq 2 ] && grep -q "job.read_window" "$tmp/err" &&
	ok "a read window over 10 s refused, naming the key" ||
	bad "job.read_window=11s: exit $rc, $(head -c 200 "$tmp/err")"

# a bulk TCP flow each way beside the job, on a WAN queue of 2 MB (the path's 1.25 MB and more)
expect_rc 0 "beside a bulk TCP flow" -- "$se" run "${job[@]}" --set background.bulk=1 \
	--set queues.wan=2MB --set queues.sync_lossless=no --set background.host_rate=10Gbit/s \
	--set transport.congestion=reno --json
cp "$tmp/out" "$tmp/k.json"
python3 - "$tmp/k.json" <<'PY' && ok "the bulk flows took their share; the job's steps grew" || bad "the bulk flows"
import json, sys
r = json.load(open(sys.argv[1]))["runs"][0]
b = r["bulk"]
steps = [s["emulated_ms"] for s in r["steps"]["rows"]]
# alone, steps 1-2 take 44.05-46.3 ms; sharing a 1 Gbit/s link with a backlogged flow each way,
# a step's 2 x 2 MiB gets about half of it: far more than 60 ms (about 90 measured)
assert b["delivered_bytes"] > 10e6 and b["resent"] > 0, b
assert min(steps[1:]) > 60, steps
PY

# background.bulk_lead: the bulk flows run 1 s before the job, as an iperf3 started first; the
# first step begins then (a step of 1 s and more would hold the lead: alone or beside the bulk,
# steps here take 45-510 ms), and the bulk flows deliver the lead's worth more: 1 s at up to
# 2 x 125 MB/s, reno on a 2 MB queue above half of it after slow start (124 MB measured)
expect_rc 0 "bulk flows started 1 s before the job" -- "$se" run "${job[@]}" \
	--set background.bulk=1 --set queues.wan=2MB --set queues.sync_lossless=no \
	--set background.host_rate=10Gbit/s --set transport.congestion=reno \
	--set background.bulk_lead=1s --json
python3 - "$tmp/k.json" "$tmp/out" <<'PY' && ok "the bulk flows' lead: before the first step, not in it" || bad "background.bulk_lead"
import json, sys
r0, r1 = (json.load(open(f))["runs"][0] for f in sys.argv[1:3])
steps = [s["emulated_ms"] for s in r1["steps"]["rows"]]
assert steps[0] < 1000, steps
more = r1["bulk"]["delivered_bytes"] - r0["bulk"]["delivered_bytes"]
assert more > 60e6, more
PY

# Linux's socket buffers (transport.receive_window and send_buffer = auto) on a bulk flow at
# 100 Mbit/s: the receiver's first ACK advertises the window after one segment (65160 +
# 2 x 1460 = 68080, rounded up to 2^7: 68096, 532 on the wire), the window grows with the
# bytes read (past 1 MB within the run's 2 s; tools/realbulk: 7.6 MB by 3 s), and the send
# buffer (4 MiB of 2344-byte segments: 1790) bounds what is in flight: 1790 x 1448 B at most
expect_rc 0 "a bulk flow with Linux's socket buffers, traced" -- "$se" run -q -v A -n 2 \
	--set topology.data_centres=2 --set topology.workers_per_dc=1 --set intra.latency=0s \
	--set wan.bandwidth=100Mbit/s --set wan.latency=0s --set queues.wan=4MB --set run.mtu=1500 \
	--set job.transport=tcp --set job.bytes=64KiB --set background.bulk=1 \
	--set background.directions=one --set background.host_rate=10Gbit/s \
	--set transport.receive_window=auto --set transport.send_buffer=auto \
	--set job.parameters=1000000 --set job.tokens=1 --set job.flops_per_param_token=1 \
	--set gpu.mfu=1 --set gpu.peak=2e6FLOP/s --trace "$tmp/rw.pcapng" -c wan --snaplen 128
if tshark_ok; then
	tshark -r "$tmp/rw.pcapng" -n -Y 'ip.src == 10.221.0.1' -T fields \
		-e tcp.window_size_value 2>/dev/null >"$tmp/rw.wnd"
	tshark -r "$tmp/rw.pcapng" -n -Y 'ip.src == 10.220.0.1' -T fields \
		-e tcp.analysis.bytes_in_flight 2>/dev/null >"$tmp/rw.fl"
	python3 - "$tmp/rw.wnd" "$tmp/rw.fl" <<'PY' &&
import sys
w = [int(x) for x in open(sys.argv[1]).read().split()]
f = [int(x) for x in open(sys.argv[2]).read().split()]
assert w and w[0] == 532, w[:3]
assert max(w) << 7 > 1e6, max(w)
assert 2.0e6 < max(f) <= 1790 * 1448, max(f)
PY
		ok "auto buffers: the first window 68096 B, growing past 1 MB; at most 1790 segments in flight" ||
		bad "auto buffers: windows $(head -c 40 "$tmp/rw.wnd" | tr '\n' ' '), most in flight $(sort -n "$tmp/rw.fl" | tail -1)"
else
	echo "# tshark is not installed: the auto buffers' trace is not read"
fi

# validate reads an emulated Open MPI job as it reads a real capture: a 2-rank 1 MiB all-reduce
# (Rabenseifner, ob1's rendezvous) at 5 ms and 400 Mbit/s, traced at the WAN; from the streams
# alone (where a WAN link delivers, as a capture past the bridge) it finds the 10 steps, and
# their median period within 10 % of the run's own (57.81 ms measured;
# virtual time: the same on every machine)
expect_rc 0 "an emulated Open MPI job, traced" -- "$se" run -v A -n 10 -q --set job.transport=tcp \
	--set topology.workers_per_dc=1 --set wan.bandwidth=400Mbit/s --set wan.latency=5ms \
	--set job.bytes=1MiB --set run.mtu=1500 --set job.library=openmpi \
	--set transport.protocol=openmpi --set run.sync=none --set job.compute=5ms \
	--set job.reduce_rate=2GB/s --set job.start_skew=50ms --set queues.sync_lossless=no \
	--trace "$tmp/mpi.pcapng" --csv "$tmp/mpi.csv"
"$se" validate "$tmp/mpi.pcapng" --interface "wan0>1.out,wan1>0.out" --json >"$tmp/mpiv.json" \
	2>"$tmp/err"
python3 - "$tmp/mpiv.json" "$tmp/mpi.csv" <<'PY' && ok "validate finds the emulated job's steps" || bad "validate on the emulated job"
import csv, json, statistics, sys
v = json.load(open(sys.argv[1]))
run = [float(r["emulated_ms"]) for r in csv.DictReader(open(sys.argv[2]))]
st = v["tables"]["steps"]["rows"]
at = [s["at_s"] for s in st]
per = [1e3 * (b - a) for a, b in zip(at, at[1:])]
want = statistics.median(run[1:])
assert len(st) == 10, len(st)
assert abs(statistics.median(per) - want) <= 0.1 * want, (per, want)
PY
# background.load's transfers over TCP (background.transport = tcp) beside the job, a 2 MB WAN
# queue that overflows: open-loop transfers lose frames and end incomplete; over TCP every
# transfer is resent whole, none incomplete, and a run repeats byte for byte (virtual time)
bgt=(run -v A -n 8 -q --json --set topology.workers_per_dc=1 --set wan.bandwidth=1Gbit/s
	--set wan.latency=5ms --set job.bytes=4MiB --set run.mtu=1500 --set job.transport=tcp
	--set background.load=0.5 --set queues.wan=2MB --set queues.sync_lossless=no)
"$se" "${bgt[@]}" >"$tmp/bgo.json" && "$se" "${bgt[@]}" --set background.transport=tcp \
	>"$tmp/bgt.json" && "$se" "${bgt[@]}" --set background.transport=tcp >"$tmp/bgt2.json"
python3 - "$tmp/bgo.json" "$tmp/bgt.json" "$tmp/bgt2.json" <<'PY' && ok "background transfers over TCP: resent, none incomplete, the same twice" || bad "background transfers over TCP"
import json, sys
o, t, t2 = (json.load(open(f))["runs"][0] for f in sys.argv[1:])
bo, bt = o["background"], t["background"]
assert bo["incomplete"] > 0 and "bulk" not in o, bo
assert bt["incomplete"] == 0 and bt["done"] > 100 and bt["started"] == bt["done"] + bt["unsent"], bt
assert t["bulk"]["resent"] > 0, t["bulk"]
# a 1 MB transfer needs 8 ms on the 1 Gbit/s WAN and 5 ms of path: none completes sooner
assert bt["fct_us"]["min"] > 13000, bt["fct_us"]
for k in ("wall_s", "events"):
    t.pop(k, None), t2.pop(k, None)
assert t == t2
PY
# the model says there is no closed form, and what slow start and the rendezvous cost
expect_rc 0 "the model of a TCP job" -- "$se" model -t step --set topology.workers_per_dc=1 \
	--set wan.bandwidth=1Gbit/s --set wan.latency=20ms --set job.bytes=4MiB --set run.mtu=1500 \
	--set job.transport=tcp --set transport.protocol=openmpi
expect_grep "$tmp/out" "no closed form for windows, ACKs, losses or reacting traffic" "it says the emulation is the answer"
# 2 WAN rounds of 2 MiB at 1 Gbit/s and 40 ms from 10 segments: 8 round trips (sm_ss_extra)
expect_grep "$tmp/out" "up to 8 round trips of slow start, +530.577 ms" "slow start's terms"
expect_grep "$tmp/out" "a round trip before each of 2 messages: +80 ms" "the rendezvous's"

expect_rc 2 "an unknown transport" -- "$se" run --set job.transport=udp -n 1
expect_grep "$tmp/err" "allowed: frames, tcp" "the allowed values named"
# a ring of 3 DCs: data goes on to the next DC, its ACKs back on each link's other direction
# (wanB>A), not round the ring; with frames the ring has no links back
ring3=(run -q --json -v A -n 2 --set topology.data_centres=3 --set topology.workers_per_dc=1
	--set run.mtu=1500 --set job.bytes=1MiB --set wan.bandwidth=1Gbit/s --set wan.latency=1ms)
"$se" "${ring3[@]}" --set job.transport=tcp >"$tmp/ring3.json" 2>"$tmp/err" &&
	"$se" "${ring3[@]}" >"$tmp/ring3f.json" 2>>"$tmp/err" && python3 -c 'import json, sys
t, f = (json.load(open(x))["runs"][0] for x in sys.argv[1:])
w = {e["name"]: e["tx"] for e in t["elements"] if e["name"].startswith("wan") and ">" in e["name"]}
fwd = [w["wan%d>%d" % (a, (a + 1) % 3)] for a in range(3)]
back = [w["wan%d>%d" % ((a + 1) % 3, a)] for a in range(3)]
assert len(w) == 6 and sum(fwd) == t["tcp"]["data_segments"] and sum(back) == t["tcp"]["pure_acks"] > 0, w
assert sorted(e["name"] for e in f["elements"] if e["name"].startswith("wan") and ">" in e["name"]) == ["wan0>1", "wan1>2", "wan2>0"]' \
	"$tmp/ring3.json" "$tmp/ring3f.json" && ok "tcp on a ring: ACKs one WAN link back, frames' ring one-way" ||
	bad "tcp on a ring: $(cat "$tmp/err")"
# tshark's own round trips at worker 0 (its frames out and in): data to DC 1, ACKs back, 2 x the
# 1 ms latency plus a frame's serialisation (2.013 ms at least), where round the ring took 3
if tshark_ok; then
	"$se" "${ring3[@]}" --set job.transport=tcp --trace "$tmp/ring3.pcapng" --capture tx,rx \
		>/dev/null 2>"$tmp/err" &&
		tshark -r "$tmp/ring3.pcapng" -Y 'frame.interface_name matches "^w0[.]"' \
			-w "$tmp/ring3w0.pcapng" 2>>"$tmp/err" &&
		tshark -r "$tmp/ring3w0.pcapng" -Y tcp.analysis.ack_rtt -T fields \
			-e tcp.analysis.ack_rtt 2>>"$tmp/err" | sort -g | head -1 >"$tmp/rtt"
	python3 -c 'import sys; r = float(open(sys.argv[1]).read()); assert 0.002 <= r < 0.0025, r' \
		"$tmp/rtt" 2>>"$tmp/err" && ok "tshark: the ring's round trip is 2 x its latency ($(cat "$tmp/rtt") s)" ||
		bad "tshark's round trip on a ring: $(cat "$tmp/rtt" "$tmp/err")"
fi
# partitions: 4 DC x 2 over TCP with Open MPI's rendezvous and a WAN queue that drops (24
# segments resent): the same trace byte for byte in 1, 2 and 4 partitions (frames cut between
# partitions carry TCP headers shorter than syncemu's)
for np in 1 2 4; do
	"$se" run -v A -n 3 -q --set topology.data_centres=4 --set topology.workers_per_dc=2 \
		--set wan.bandwidth=1Gbit/s --set wan.latency=2ms --set job.bytes=2MiB --set run.mtu=1500 \
		--set job.transport=tcp --set queues.wan=300kB --set queues.sync_lossless=no \
		--set transport.protocol=openmpi --set run.sync=none --set run.partitions=$np \
		--trace "$tmp/part.pcapng" --json >"$tmp/part$np.json" 2>"$tmp/err" || bad "partitions $np: $(cat "$tmp/err")"
	mv "$tmp/part.pcapng" "$tmp/part$np.pcapng"
done
cmp -s "$tmp/part1.pcapng" "$tmp/part2.pcapng" && cmp -s "$tmp/part1.pcapng" "$tmp/part4.pcapng" &&
	python3 -c 'import json, sys; r = [json.load(open(f))["runs"][0] for f in sys.argv[1:]]
assert r[0]["tcp"]["resent"] > 0 and all(x["steps"] == r[0]["steps"] and x["tcp"] == r[0]["tcp"] for x in r), r[0]["tcp"]' \
	"$tmp/part1.json" "$tmp/part2.json" "$tmp/part4.json" &&
	ok "tcp in 1, 2 and 4 partitions: one trace byte for byte, the same steps" ||
	bad "tcp across partitions differs"
# real time inside one process (no ports): the same steps as virtual time (elements take the
# event's time, and nothing comes from a port, so lateness cannot change a result); dilation 2
# keeps it near 1 s of wall-clock time
rtt=(run -v A -n 3 -q --json --set topology.workers_per_dc=1 --set wan.bandwidth=1Gbit/s
	--set wan.latency=5ms --set job.bytes=1MiB --set run.mtu=1500 --set job.transport=tcp)
"$se" "${rtt[@]}" >"$tmp/vt.json" && "$se" "${rtt[@]}" --set run.clock=real --set run.dilation=2 \
	>"$tmp/rt.json" 2>"$tmp/err" && python3 -c 'import json, sys
v, r = (json.load(open(f))["runs"][0] for f in sys.argv[1:])
assert r["clock"] == "real" and v["tcp"] == r["tcp"], (r["clock"], r["tcp"])
assert [s["emulated_ms"] for s in v["steps"]["rows"]] == [s["emulated_ms"] for s in r["steps"]["rows"]]' \
	"$tmp/vt.json" "$tmp/rt.json" && ok "tcp in real time: the steps of virtual time" ||
	bad "tcp in real time: $(cat "$tmp/err")"
expect_rc 3 "TCP transfers in partitions" -- "$se" run --set background.load=0.3 \
	--set background.transport=tcp --set run.partitions=2 -n 1
expect_grep "$tmp/err" "background.transport = tcp: TCP transfers run in virtual time" "the key named"
expect_rc 3 "a lead without bulk flows" -- "$se" run --set background.bulk_lead=1s -n 1
expect_grep "$tmp/err" "background.bulk_lead: there are no bulk flows" "the key named"
expect_rc 3 "more than 64 connections a host" -- "$se" run --set background.load=0.3 \
	--set background.transport=tcp --set background.bulk=60 --set background.connections=16 -n 1
expect_grep "$tmp/err" "background.bulk + background.connections: 60 + 16" "the keys named"
expect_rc 3 "an MSS beyond the MTU" -- "$se" run --set job.transport=tcp --set transport.mss=9000 -n 1
expect_grep "$tmp/err" "transport.mss: 9000" "the key named"
finish
