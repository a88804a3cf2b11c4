#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# syncemu bridge with real traffic: three network namespaces, host A and host B, and between
# them syncemu bridging two veth pairs (af_packet on the bridge's ends):
#
#   A (10.198.0.1) xa ==== ya [ syncemu bridge ] yb ==== xb (10.198.0.2) B
#   A (10.198.1.1) ta ======== tc tbf 100 Mbit/s ======== tb (10.198.1.2) B   (beside, to compare)
#
#   1. ping: the RTT through a WAN of latency L is 2 L plus the floor measured at L = 0 (set
#      live through --ctl); and through the bridge on af_xdp ports, at least 2 L;
#   2. a TCP bulk transfer (iperf3) through a 100 Mbit/s WAN gets the goodput the link allows:
#      100 Mbit/s x MSS / (its frame on the wire: MSS + 66 B of headers + 24 B of FCS, preamble
#      and gap, run.accounting = wire), within 1 %; tbf's goodput beside it (MSS / (MSS + 66));
#   3. background at load 0.5 (Poisson 64 kB transfers in 1424-byte frames: 0.5 x 1538/1424 of
#      the wire) takes its whole share (the queue, 4 MB, drops none of it) and leaves the bulk
#      flow 1 - 0.54 of what it had alone: the shared FIFO of the model;
#   3b. RED with ECN, and a trace-driven WAN (Mahimahi's format): Linux's TCP gets the goodput
#      the trace's delivery opportunities allow, held as in 2;
#   (an Open MPI all-reduce through the bridge, its trace validated: tests/priv/lab.sh, which
#   makes its hosts with syncemu lab)
#
# Bounds, on a loaded 2-vCPU VM: the bridge busy-polls one vCPU (its lcore, CPU 0); the hosts'
# programs and all the kernel's packet work (RPS on CPU 1 only) run on the other (taskset -c 1),
# else a program sharing the bridge's vCPU stalls it for 4-24 ms at a time (platform notes), and
# softirqs on CPU 0 put its p99 lateness at 1.3-1.8 ms instead of 0.25-0.45 ms. The host still
# steals the vCPUs, at times 10-25 % of them in slices of tens of ms: (1) compares the minimum
# RTT of 30 pings (a stall only adds) within 0.5 ms, and the medians within 2 ms. (2) uses a
# loss-based TCP (cubic, set per socket: the machine's default may be BBR, which keeps the queue
# near empty, so every stall of the sender's vCPU idles the link: medians -4 to -15 % measured at
# 12-25 % steal) with the receiver's buffer capped at 2 MB: its window (about 1.2 MB) keeps about
# 1 MB, 85 ms at the rate, queued at the bridge and never fills the 4 MB queue. The link then
# idles only if the sender's vCPU stops for more than 85 ms, and a stall of the bridge delays
# frames without costing rate (each departure is scheduled from the one before). Measured at the
# receiver (iperf3's server, 1-s intervals): 94.12-94.18 Mbit/s against 94.15 with up to 20 %
# steal; the median is held to 1 %, the whole transfer to 3 %. (3) is exact for the background
# (none of it dropped) and physical for TCP: the bulk flow's goodput under load against its
# goodput alone, the model's 1 - 0.54 within 15 %: the FIFO, kept backlogged by the bulk
# flow, gives it what the background leaves; the background's Poisson count over the 5.1 s
# (about 500 transfers of 64 kB) varies by 4.5 %, the bulk flow's share by 0.54/0.46 x 4.5 =
# 5.3 %: 15 % is 2.8 sigma, a chance of 0.5 % an attempt and 0.003 % for both (measured -0.1 %
# over 8 s). A check on a physical bound gets up to three attempts (attempts, lib.sh).
#
# Needs root, network namespaces, tc, ethtool, iperf3, ping and taskset: exits 77 without them,
# saying why. Everything it creates
# is removed on exit.
# Usage: bridge_veth.sh SYNCEMU_BINARY [sanitized]
set -u
. "$(dirname "$0")/../cli/lib.sh"
se=$1
prog=${2:-}

[ "$prog" = sanitized ] && skip "the sanitizer build: the bridge's code runs under the sanitizers in cli-bridge; this one is the real traffic's"
[ "$(id -u)" -eq 0 ] || skip "needs root (network namespaces, tc)"
for c in ip tc ethtool iperf3 ping taskset python3; do
	command -v $c >/dev/null || skip "$c is not installed"
done
grep -qw cubic /proc/sys/net/ipv4/tcp_available_congestion_control ||
	skip "the kernel has no cubic TCP (the goodput checks need a loss-based TCP)"
[ "$(nproc)" -ge 2 ] || skip "needs 2 CPUs (the bridge busy-polls one)"

tag=$$
na=sba$tag nb=sbb$tag nr=sbr$tag
xa=xa$tag ya=ya$tag xb=xb$tag yb=yb$tag ta=ta$tag tb=tb$tag
sock=$tmp/br.sock
br=
cleanup() {
	[ -n "$br" ] && kill -9 "$br" 2>/dev/null
	for n in $na $nb $nr; do
		ip netns pids "$n" 2>/dev/null | xargs -r kill -9 2>/dev/null
		ip netns del "$n" 2>/dev/null
	done
	cleanup_pids
}
trap cleanup EXIT

for n in $na $nb $nr; do
	ip netns add "$n" 2>"$tmp/e" || skip "cannot create a network namespace: $(cat "$tmp/e")"
	ip -n "$n" link set lo up
	# no IPv6: no frame the test did not send (router solicitations, MLD) crosses the bridge,
	# so the kernel's counts and the bridge's are compared exactly
	ip netns exec "$n" sysctl -qw net.ipv6.conf.all.disable_ipv6=1 \
		net.ipv6.conf.default.disable_ipv6=1
done
ip link add "$xa" netns "$na" type veth peer name "$ya" netns "$nr" 2>"$tmp/e" ||
	skip "no veth: $(cat "$tmp/e")"
ip link add "$xb" netns "$nb" type veth peer name "$yb" netns "$nr"
ip link add "$ta" netns "$na" type veth peer name "$tb" netns "$nb"
ip -n "$na" addr add 10.198.0.1/24 dev "$xa"
ip -n "$nb" addr add 10.198.0.2/24 dev "$xb"
ip -n "$na" addr add 10.198.1.1/24 dev "$ta"
ip -n "$nb" addr add 10.198.1.2/24 dev "$tb"
for e in $na:$xa $na:$ta $nb:$xb $nb:$tb $nr:$ya $nr:$yb; do
	n=${e%%:*} d=${e##*:}
	ip -n "$n" link set "$d" up
	# frames, not the kernel's 64 kB super-frames; checksums made by the sender's stack (a
	# bridge carries a frame as it is); RPS, or the receiver reorders (platform notes): to CPU
	# 1 alone, so that no softirq interrupts the bridge's lcore on CPU 0
	ip netns exec "$n" ethtool -K "$d" tso off gso off gro off tx off rx off >/dev/null 2>&1
	ip netns exec "$n" sh -c "echo 2 >/sys/class/net/$d/queues/rx-0/rps_cpus"
done
# the receiver's buffer at most 2 MB: a bulk flow's window never fills the bridge's 4 MB queue
ip netns exec "$nb" sysctl -qw net.ipv4.tcp_rmem="4096 131072 2097152"
tc -n "$na" qdisc replace dev "$ta" root tbf rate 100mbit burst 32kb latency 50ms 2>"$tmp/e" ||
	skip "tc tbf is not available: $(cat "$tmp/e")"
ok "three namespaces: A and B through the bridge's veth pairs, and beside it a tbf link"

ap=framesz=9216,blocksz=36864
# start_bridge ARGS...: syncemu bridge in the middle namespace on the two veth ends (af_packet
# with $ap, or what $ports says), JSON to $tmp/br.json, its control socket $sock; waits until
# it runs
ports=()
start_bridge() {
	local pa=("${ports[@]}")
	[ ${#pa[@]} -gt 0 ] || pa=(--a "net_af_packet0,iface=$ya,$ap" --b "net_af_packet1,iface=$yb,$ap")
	rm -f "$sock"
	# (the TSC measured for 0.1 s: within a ppm, tests/cli/realtime.sh says why)
	ip netns exec "$nr" "$se" bridge "${pa[@]}" --set run.accounting=wire --set run.mtu=1500 \
		--set run.calibrate=0.1s --ctl "$sock" -q -j "$@" >"$tmp/br.json" 2>"$tmp/br.err" &
	br=$!
	local i
	for i in $(seq 1 150); do
		"$se" ctl "$sock" status 2>/dev/null | grep -q '"running": 1' && return 0
		kill -0 "$br" 2>/dev/null || break
		sleep 0.1
	done
	bad "the bridge did not start: $(cat "$tmp/br.err")"
	return 1
}
stop_bridge() {
	local rc=0
	kill -INT "$br"
	wait "$br" || rc=$?
	br=
	[ $rc -eq 0 ] || bad "the bridge ended with exit $rc: $(tail -3 "$tmp/br.err")"
}
set_live() {
	"$se" ctl "$sock" set "$1" "$2" >"$tmp/set" 2>&1 && grep -q '"ok": true' "$tmp/set" ||
		bad "ctl set $1 $2: $(cat "$tmp/set")"
}
# rtts FILE: ping's RTTs, one per line
pings() {
	taskset -c 1 ip netns exec "$na" ping -c 30 -i 0.1 -W 2 10.198.0.2 |
		sed -n 's/.*time=\([0-9.]*\) ms/\1/p' >"$1"
}
# goodput NS HOST OUT: iperf3 (cubic) from A to B for 6 s, the first omitted (server in NS),
# JSON in OUT with the server's (the receiver's) own intervals
goodput() {
	taskset -c 1 ip netns exec "$nb" iperf3 -s -1 -J -B "$2" >/dev/null 2>&1 &
	local srv=$!
	sleep 0.3
	taskset -c 1 ip netns exec "$na" iperf3 -c "$2" -t 5 -O 1 -C cubic --get-server-output -J \
		>"$3" 2>"$tmp/ip.err" ||
		bad "iperf3 to $2: $(tail -c 300 "$tmp/ip.err")"
	wait "$srv" 2>/dev/null
}

# ---- 1, 2, 3: one bridge, changed live ----
check_ping() {
	set_live wan.latency 0s
	pings "$tmp/p0"
	set_live wan.latency 10ms
	pings "$tmp/p10"
	python3 - "$tmp/p0" "$tmp/p10" <<'PY' && ok "ping: RTT at a 10 ms WAN = floor + 2 x 10 ms ($(cat "$tmp/pmsg"))" || bad "ping RTT ($(cat "$tmp/pmsg" 2>/dev/null))"
import statistics as S, sys
a = [float(x) for x in open(sys.argv[1])]
b = [float(x) for x in open(sys.argv[2])]
assert len(a) >= 25 and len(b) >= 25, (len(a), len(b))
d_min, d_med = min(b) - min(a), S.median(b) - S.median(a)
open(sys.argv[1].rsplit("/", 1)[0] + "/pmsg", "w").write(
    "floor min %.3f ms, at 10 ms min %.3f ms: +%.3f ms; medians +%.3f ms" %
    (min(a), min(b), d_min, d_med))
assert abs(d_min - 20) <= 0.5, d_min
assert abs(d_med - 20) <= 2, d_med
assert min(b) >= 20, "a ping came back in %.3f ms, under 2 x 10 ms" % min(b)
PY
}
# counter NS DEV FIELD: the kernel's count (statistics/FIELD) of DEV in NS
counter() { ip netns exec "$1" cat "/sys/class/net/$2/statistics/$3"; }
# capture NS DEV FILE: tcpdump of the UDP datagrams to port 47999 at DEV, ns stamps, each written
# as it comes (immediate mode: no block waits to fill); its pid in $cap_pid once it listens
capture() {
	taskset -c 1 ip netns exec "$1" tcpdump -i "$2" -w "$3" --time-stamp-precision=nano \
		--immediate-mode -U -s 128 -B 65536 -n udp dst port 47999 2>"$3.err" &
	cap_pid=$!
	local i
	for i in $(seq 1 50); do
		grep -q "listening on" "$3.err" 2>/dev/null && return 0
		sleep 0.05
	done
}
cat >"$tmp/send.py" <<'PY'
# send.py FIRST N RATE: UDP datagrams FIRST .. FIRST+N-1 (the number in their payload) to
# 10.198.0.2:47999 at RATE a second
import socket, struct, sys, time
first, n, rate = int(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3])
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
t0 = time.monotonic()
for i in range(n):
    while time.monotonic() < t0 + i / rate:
        pass
    s.sendto(struct.pack(">Q", first + i) + bytes(56), ("10.198.0.2", 47999))
PY
# The one-way delay of every datagram, from the host's veth end at A to the host's at B (one
# kernel clock stamps both captures): never below the WAN's latency L, with the hosts quiet and
# with two busy loops taking the CPUs (the bridge's too). The bound is exact: a frame never
# leaves before its time, whatever the host does to the bridge; only its lateness grows.
check_owd() {
	local h1 h2 ca cb
	rm -f "$tmp/owd_a.pcap" "$tmp/owd_b.pcap"
	capture "$na" "$xa" "$tmp/owd_a.pcap"
	ca=$cap_pid
	capture "$nb" "$xb" "$tmp/owd_b.pcap"
	cb=$cap_pid
	taskset -c 1 ip netns exec "$na" python3 "$tmp/send.py" 0 2000 2000
	sh -c 'while :; do :; done' &
	h1=$!
	sh -c 'while :; do :; done' &
	h2=$!
	pids+=("$h1" "$h2")
	taskset -c 1 ip netns exec "$na" python3 "$tmp/send.py" 2000 2000 2000
	kill "$h1" "$h2"
	sleep 0.3
	kill -INT "$ca" "$cb"
	wait "$ca" "$cb" 2>/dev/null
	python3 - "$tmp/owd_a.pcap" "$tmp/owd_b.pcap" <<'PY' >"$tmp/owd" 2>&1 && ok "one-way delay at a 10 ms WAN, A's veth end to B's: $(cat "$tmp/owd")" || bad "a frame crossed in less than the WAN's latency: $(cat "$tmp/owd")"
import struct, sys
def stamps(path):
    d = open(path, "rb").read()
    assert struct.unpack("<I", d[:4])[0] == 0xa1b23c4d, "not a ns pcap"
    off, out = 24, {}
    while off + 16 <= len(d):
        s, ns, incl, _ = struct.unpack("<IIII", d[off:off + 16])
        f = d[off + 16:off + 16 + incl]
        off += 16 + incl
        ihl = (f[14] & 15) * 4
        out.setdefault(struct.unpack(">Q", f[14 + ihl + 8:14 + ihl + 16])[0], s * 10**9 + ns)
    return out
a, b = stamps(sys.argv[1]), stamps(sys.argv[2])
L = 10 * 10**6
# (a frame lost on the way cannot be early: with the suite's other test and the busy loops on
# both vCPUs the bridge's af_packet ring overflowed once, 292 of 4000 lost; the bound is on the
# frames seen, at least half of each part)
assert len(a) == 4000 and set(b) <= set(a), "sent %d, seen at B %d" % (len(a), len(b))
for name, ids in (("quiet", range(0, 2000)), ("busy", range(2000, 4000))):
    d = sorted(b[i] - a[i] for i in ids if i in b)
    assert len(d) >= 1000, "%s: %d of 2000 seen at B" % (name, len(d))
    print("%s: %d seen, min %.4f ms, median %.3f, p99 %.3f, max %.3f;" %
          (name, len(d), d[0] / 1e6, d[len(d) // 2] / 1e6, d[len(d) * 99 // 100] / 1e6,
           d[-1] / 1e6), end=" ")
    assert d[0] >= L, "%s: %.6f ms" % (name, d[0] / 1e6)
print("%d frames of 4000, none under 10 ms" % len(b))
PY
}
# TCP from hosts that leave their checksums to the device (tx on, veth's default): the bridge
# finishes them (else the receiver drops every segment and the connection never opens) and says
# so once, naming the port and the ethtool command
check_csum() {
	local d rc=0
	for d in "$na:$xa" "$nb:$xb"; do
		ip netns exec "${d%%:*}" ethtool -K "${d##*:}" tx on >/dev/null 2>&1
	done
	taskset -c 1 ip netns exec "$nb" timeout 15 python3 -c '
import socket
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("10.198.0.2", 47998)); s.listen(1); c, _ = s.accept(); n = 0
while True:
    b = c.recv(65536)
    if not b: break
    n += len(b)
open("'"$tmp/csum.n"'", "w").write(str(n))' &
	local srv=$!
	sleep 0.3
	taskset -c 1 ip netns exec "$na" timeout 10 python3 -c '
import socket
s = socket.create_connection(("10.198.0.2", 47998), timeout=8); s.sendall(bytes(2000000)); s.close()' \
		2>"$tmp/csum.err" || rc=$?
	wait "$srv"
	for d in "$na:$xa" "$nb:$xb"; do
		ip netns exec "${d%%:*}" ethtool -K "${d##*:}" tx off >/dev/null 2>&1
	done
	if [ $rc -eq 0 ] && [ "$(cat "$tmp/csum.n" 2>/dev/null)" = 2000000 ]; then
		ok "TCP from hosts with tx checksum offload on: 2 MB through the bridge"
	else
		bad "TCP with tx checksum offload on: exit $rc, received $(cat "$tmp/csum.n" 2>/dev/null): $(tail -c 200 "$tmp/csum.err")"
	fi
}
# Frames the device could not hand over (its ring full while the host held the bridge: the test
# stops it for 0.2 s while host A sends 3000 ARP requests, six times the ring's 512 frames) are
# counted as lost in the device: every frame the kernel gave the interface is in or counted
cat >"$tmp/arps.py" <<'PY'
import socket, struct, sys
s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
s.bind((sys.argv[1], 0))
mac = s.getsockname()[4]
f = (b"\xff" * 6 + mac + b"\x08\x06" + struct.pack(">HHBBH", 1, 0x0800, 6, 4, 1) + mac +
     socket.inet_aton("10.198.0.1") + bytes(6) + socket.inet_aton("10.198.0.99") + bytes(18))
for i in range(int(sys.argv[2])):
    s.send(f)
PY
flood_held() {
	kill -STOP "$br"
	ip netns exec "$na" python3 "$tmp/arps.py" "$xa" 3000
	sleep 0.2
	kill -CONT "$br"
	sleep 0.5
}
# received FILE: the receiver's 1-s intervals after the omitted first
# second (slow start ends in 70 ms at 5 ms) (bits/s), and its mean
cat >"$tmp/received.py" <<'PY'
import json
def received(f):
    d = json.load(open(f))
    iv = [i["sum"]["bits_per_second"] for i in d["server_output_json"]["intervals"]
          if not i["sum"].get("omitted") and i["sum"]["seconds"] > 0.9]
    return d["start"]["tcp_mss_default"], iv, d["end"]["sum_received"]["bits_per_second"]
def hold(f, expect_of_mss, what):
    """the receiver's median 1-s interval within 1 % of the goodput @what allows, the whole
    transfer within 3 %"""
    import statistics as S
    mss, iv, total = received(f)
    expect = expect_of_mss(mss)
    med = S.median(iv)
    print("received: median of %d 1-s intervals %.3f Mbit/s (%.3f to %.3f), whole transfer %.2f; "
          "%s allows %.3f (%+.2f %%, whole %+.2f %%)" %
          (len(iv), med / 1e6, min(iv) / 1e6, max(iv) / 1e6, total / 1e6, what, expect / 1e6,
           100 * (med / expect - 1), 100 * (total / expect - 1)))
    assert len(iv) >= 4, len(iv)
    assert abs(med / expect - 1) <= 0.01, med
    assert abs(total / expect - 1) <= 0.03, total
PY
check_bulk() {
	goodput "$nb" 10.198.0.2 "$tmp/ip0.json"
	python3 - "$tmp/ip0.json" <<'PY' >"$tmp/g0" && ok "TCP through a 100 Mbit/s WAN: $(cat "$tmp/g0")" || bad "TCP goodput through the bridge: $(cat "$tmp/g0")"
import sys
sys.path.insert(0, sys.argv[1].rsplit("/", 1)[0])
from received import hold
hold(sys.argv[1], lambda mss: 100e6 * mss / (mss + 66 + 24), "the link")
PY
}
check_load() {
	goodput "$nb" 10.198.0.2 "$tmp/ip5.json"
	python3 - "$tmp/ip0.json" "$tmp/ip5.json" <<'PY' >"$tmp/g5" && ok "background load 0.5: $(cat "$tmp/g5")" || bad "the bulk flow beside background: $(cat "$tmp/g5")"
import sys
sys.path.insert(0, sys.argv[1].rsplit("/", 1)[0])
from received import received
g0, g5 = received(sys.argv[1])[2], received(sys.argv[2])[2]
# the background's share of the wire: load 0.5 of the rate in payload (1424 B a frame), each
# frame 1424 + 90 + 24 B on the wire; the bulk flow has the rest
rho = 0.5 * (1424 + 90 + 24) / 1424
r = g5 / g0
print("bulk flow received %.2f Mbit/s against %.2f alone: %.3f of it, the model's 1 - %.3f = %.3f (%+.1f %%)"
      % (g5 / 1e6, g0 / 1e6, r, rho, 1 - rho, 100 * (r / (1 - rho) - 1)))
assert abs(r / (1 - rho) - 1) <= 0.15, r
PY
}
# 1b. the same pings through the bridge on af_xdp ports (a page a frame: the bridge takes frames
# that long then, whatever its jumbo default); the floor is the kernel's XDP path, not measured
# apart, so the bound is one-sided below (a frame never early) and 2 ms above
check_ping_xdp() {
	pings "$tmp/px"
	python3 - "$tmp/px" <<'PY' >"$tmp/pmsg" 2>&1 && ok "ping through an af_xdp bridge at a 10 ms WAN: $(cat "$tmp/pmsg")" || bad "ping through af_xdp ($(cat "$tmp/pmsg"))"
import statistics as S, sys
a = [float(x) for x in open(sys.argv[1])]
assert len(a) >= 25, "%d of 30 pings came back" % len(a)
print("min %.3f ms, median %.3f ms" % (min(a), S.median(a)))
assert min(a) >= 20, "a ping came back in %.3f ms, under 2 x 10 ms" % min(a)
assert S.median(a) <= 22, S.median(a)
PY
}
ports=(--a "net_af_xdp0,iface=$ya" --b "net_af_xdp1,iface=$yb")
if start_bridge --set wan.latency=10ms; then
	attempts check_ping_xdp
	stop_bridge
fi
ports=()
rx_ya=$(counter "$nr" "$ya" rx_packets) rx_yb=$(counter "$nr" "$yb" rx_packets)
rx_xb=$(counter "$nb" "$xb" rx_packets)
if start_bridge --set wan.bandwidth=100Mbit/s --set wan.latency=0s --set queues.wan=4MB \
	--set background.size=64kB --set background.directions=one; then
	attempts check_ping
	check_owd
	# the bulk flow at 5 ms each way (BDP 125 kB; the queue 4 MB, 320 ms at the rate)
	set_live wan.latency 5ms
	attempts check_bulk
	check_csum
	set_live background.load 0.5
	attempts check_load
	flood_held
	stop_bridge
	grep -q "port A (interface $ya): its host leaves TCP/UDP checksums to the device .*ethtool -K DEV tx off on the host's end of $ya" "$tmp/br.err" &&
		ok "the bridge said once that it finishes port A's checksums, and how the host would" ||
		bad "no note of the checksums finished: $(head -c 400 "$tmp/br.err")"
	python3 - "$tmp/br.json" $(($(counter "$nr" "$ya" rx_packets) - rx_ya)) \
		$(($(counter "$nr" "$yb" rx_packets) - rx_yb)) \
		$(($(counter "$nb" "$xb" rx_packets) - rx_xb)) <<'PY' >"$tmp/sum" 2>&1 && ok "the summary on SIGINT: every frame the kernel gave port A is in or lost in the device, counted ($(cat "$tmp/sum")); every frame in left on B, dropped at the queue or was still inside; none left early" || { bad "the bridge's summary: $(cat "$tmp/sum")"; head -c 600 "$tmp/br.json"; echo; }
import json, sys
d = json.load(open(sys.argv[1]))
ab, ba = d["directions"]["ab"], d["directions"]["ba"]
k_ya, k_yb, k_xb = (int(v) for v in sys.argv[2:5])
for x, k in ((ab, k_ya), (ba, k_yb)):
    # the kernel's frames to the interface: taken by the bridge, or lost in the device
    assert x["dev_rx_packets"] == x["frames_in"], x
    assert x["frames_in"] + x["dev_rx_dropped"] == k, (x["frames_in"], x["dev_rx_dropped"], k)
    # real frames still inside at the end: at most every frame left inside (background too)
    assert x["cut"] == 0 and x["too_long"] == 0, x
    assert 0 <= x["frames_in"] - x["frames_out"] - x["drops"] <= x["left"], x
    assert x["dev_tx_errors"] == 0, x
    assert x["late_n"] == x["frames_out"] + x["bg_emitted"], x
    assert x["early_n"] == 0, x
    assert x["csum_finished"] > 0, x   # the TCP of check_csum, both ways
# every frame sent on B reached host B
assert ab["frames_out"] == k_xb, (ab["frames_out"], k_xb)
# the 3000 ARP requests while the bridge was held: the ring's 512 taken, the rest lost, counted
assert ab["dev_rx_missed"] >= 3000 - 512 - 100, ab["dev_rx_missed"]
print("A: %d frames to the interface, %d taken, %d lost in its ring" %
      (k_ya, ab["frames_in"], ab["dev_rx_missed"]))
# (the two 6-s transfers: 47 k frames of 1514 bytes alone, 22 k beside the background)
assert ab["frames_in"] > 50000, ab["frames_in"]
assert ab["bg_done"] > 0 and ab["load"] == 0.5, ab
# the background, unresponsive, took its whole share: the 4 MB queue dropped none of it
assert ab["bg_drops"] == 0 and ab["bg_incomplete"] == 0, ab
assert d["changes"] >= 4, d["changes"]   # latency 0 s, 10 ms (again on a second attempt), 5 ms, the load
keys = [c["key"] for c in d["live_changes"]]
assert keys[-1] == "background.load", keys
PY
fi

# ---- jumbo frames: whole, or refused at start ----
# MTU 9500 everywhere: af_packet with framesz=9216 hands over 9150 bytes of a frame, so the bridge
# refuses the port, naming it, its MTU and the largest frame it carries; with framesz=10240 a
# 9514-byte frame crosses whole; an MTU lowered on B during the run stops the frames it cannot
# take at the bridge, counted, instead of in the driver unseen
set_mtu() {
	local e
	for e in $na:$xa $nr:$ya $nr:$yb $nb:$xb; do ip -n "${e%%:*}" link set "${e##*:}" mtu "$1"; done
}
set_mtu 9500
rc=0
ip netns exec "$nr" "$se" bridge --a "net_af_packet0,iface=$ya,$ap" --b "net_af_packet1,iface=$yb,$ap" \
	-d 5s -q >/dev/null 2>"$tmp/mtu.err" || rc=$?
if [ $rc -eq 1 ] && grep -q "bridge.a: port 'net_af_packet0,iface=$ya,$ap': its interface $ya has MTU 9500 (frames of up to 9514 bytes), but af_packet hands over at most 9150 bytes" "$tmp/mtu.err" &&
	grep -q "framesz=10240,blocksz=20480" "$tmp/mtu.err"; then
	ok "MTU 9500 on a port of framesz=9216: refused at start (exit 1), the port, its MTU, what it carries and the framesz it needs named"
else
	bad "MTU 9500 with framesz=9216: exit $rc: $(head -c 400 "$tmp/mtu.err")"
fi
ap=framesz=10240,blocksz=20480
if start_bridge --set wan.latency=1ms; then
	taskset -c 1 ip netns exec "$nb" timeout 5 tcpdump -i "$xb" -n -e -c 1 icmp >"$tmp/jumbo" 2>/dev/null &
	cap_pid=$!
	sleep 0.5
	taskset -c 1 ip netns exec "$na" ping -c 1 -W 2 -M do -s 9472 10.198.0.2 >"$tmp/ping9k" 2>&1
	wait "$cap_pid"
	grep -q "length 9514: 10.198.0.1 > 10.198.0.2: ICMP echo request" "$tmp/jumbo" &&
		grep -q " 0% packet loss" "$tmp/ping9k" &&
		ok "a 9514-byte frame crosses whole (framesz=10240): B's capture sees 9514 bytes" ||
		bad "the 9514-byte frame: $(cat "$tmp/jumbo") $(tail -2 "$tmp/ping9k")"
	ip -n "$nr" link set "$yb" mtu 1500
	ip -n "$nb" link set "$xb" mtu 1500
	sleep 1.5	# the bridge reads its ports' MTUs every second
	taskset -c 1 ip netns exec "$na" ping -c 1 -W 0.5 -M do -s 9472 10.198.0.2 >/dev/null 2>&1
	stop_bridge
	python3 - "$tmp/br.json" <<'PY' && grep -q "port B (interface $yb): 1 frames longer than its MTU (1500) were dropped" "$tmp/br.err" && ok "B's MTU lowered to 1500 during the run: the jumbo frame dropped at the bridge, counted and said" || bad "the frame longer than B's MTU: $(head -c 300 "$tmp/br.err")"
import json, sys
ab = json.load(open(sys.argv[1]))["directions"]["ab"]
assert ab["too_long"] == 1 and ab["cut"] == 0, ab
PY
fi
ap=framesz=9216,blocksz=36864
set_mtu 1500

# ---- 2 beside: tbf at the same rate ----
check_tbf() {
	goodput "$nb" 10.198.1.2 "$tmp/tbf.json"
	python3 - "$tmp/tbf.json" <<'PY' >"$tmp/gt" && ok "beside it, tc tbf at 100 Mbit/s: $(cat "$tmp/gt")" || bad "tbf's goodput: $(cat "$tmp/gt")"
import statistics as S, sys
sys.path.insert(0, sys.argv[1].rsplit("/", 1)[0])
from received import received
mss, iv, total = received(sys.argv[1])
expect = 100e6 * mss / (mss + 66)    # tbf meters the frame as the kernel counts it
med = S.median(iv)
print("received: median %.3f Mbit/s, whole transfer %.2f, tbf allows %.3f (%+.2f %%, whole %+.2f %%)" %
      (med / 1e6, total / 1e6, expect / 1e6, 100 * (med / expect - 1), 100 * (total / expect - 1)))
assert abs(med / expect - 1) <= 0.05, med
PY
}
attempts check_tbf

# ---- ECN: Linux's TCP (net.ipv4.tcp_ecn = 1 at both ends) through the bridge's RED ----
# A to B at 100 Mbit/s, 5 ms each way, RED marking: the kernel's ECT segments come out of the
# bridge CE-marked (captured at host B: as many as the bridge counted), host B echoes them (ECE
# at host A), and RED drops nothing (it would drop only what is not ECT: none here)
check_ecn() {
	local n
	for n in $na $nb; do ip netns exec "$n" sysctl -qw net.ipv4.tcp_ecn=1; done
	start_bridge --set wan.bandwidth=100Mbit/s --set wan.latency=5ms --set queues.wan=4MB \
		--set 'impair.ab=red min 30kB max 90kB probability 10% ecn' || return 0
	taskset -c 1 ip netns exec "$nb" tcpdump -i "$xb" -n -w "$tmp/ce.pcap" \
		'tcp and (ip[1] & 3) = 3' >/dev/null 2>&1 &
	local td=$!
	taskset -c 1 ip netns exec "$na" tcpdump -i "$xa" -n -w "$tmp/ece.pcap" \
		'tcp and (tcp[13] & 64) != 0' >/dev/null 2>&1 &
	local ta=$!
	sleep 0.5	# (tcpdump's start)
	# 3 s of iperf3 (cubic): past slow start, the queue stands at RED's thresholds
	taskset -c 1 ip netns exec "$nb" iperf3 -s -1 -J -B 10.198.0.2 >/dev/null 2>&1 &
	local srv=$!
	sleep 0.3
	taskset -c 1 ip netns exec "$na" iperf3 -c 10.198.0.2 -t 3 -C cubic -J >"$tmp/ipecn.json" \
		2>"$tmp/ip.err" || bad "iperf3 with ECN: $(tail -c 300 "$tmp/ip.err")"
	wait "$srv" 2>/dev/null
	sleep 0.2
	kill -INT $td $ta 2>/dev/null
	wait $td $ta 2>/dev/null
	stop_bridge
	for n in $na $nb; do ip netns exec "$n" sysctl -qw net.ipv4.tcp_ecn=2; done
	python3 - "$tmp/br.json" "$tmp/ipecn.json" \
		"$(tcpdump -r "$tmp/ce.pcap" 2>/dev/null | wc -l)" \
		"$(tcpdump -r "$tmp/ece.pcap" 2>/dev/null | wc -l)" <<'PY' >"$tmp/ecn" 2>&1 &&
import json, sys
ab = json.load(open(sys.argv[1]))["directions"]["ab"]
ip = json.load(open(sys.argv[2]))
ce, ece = int(sys.argv[3]), int(sys.argv[4])
rtx = ip["end"]["sum_sent"].get("retransmits", 0)
assert ab["marked"] > 0 and ab["aqm_drops"] == 0 and ab["drops"] == 0, ab
assert ce == ab["marked"], (ce, ab["marked"])
assert ece > 0, ece
# (a resend only for a frame the bridge's device missed while the host held it)
assert rtx <= ab["dev_rx_missed"], (rtx, ab["dev_rx_missed"])
print("the bridge marked %d segments CE, host B received %d CE, host A %d ACKs with ECE; "
      "RED dropped none, the flow resent none (%.1f Mbit/s)" % (
      ab["marked"], ce, ece, ip["end"]["sum_received"]["bits_per_second"] / 1e6))
PY
		ok "ECN: $(cat "$tmp/ecn")" || bad "ECN through the bridge: $(cat "$tmp/ecn")"
}
attempts check_ecn

# a trace-driven WAN from A to B (Mahimahi's format): 8 delivery opportunities each ms, 1504
# bytes each, so Linux's TCP gets 8000 x 1504 B/s of IP packets and their 4-byte TUN headers:
# a goodput of 96.26 Mbit/s x MSS / (MSS + 52 + 4); held as check 2 holds the rate's
check_trace() {
	python3 -c "
for ms in range(1, 101):
    print(('%d\\n' % ms) * 8, end='')" >"$tmp/c96.trace"
	start_bridge --set wan.bandwidth=1Gbit/s --set wan.latency=5ms --set queues.wan=4MB \
		--set "impair.ab=trace $tmp/c96.trace" || return 0
	goodput "$nb" 10.198.0.2 "$tmp/iptr.json"
	stop_bridge
	python3 - "$tmp/iptr.json" <<'PY' >"$tmp/gtr" 2>&1 && ok "TCP through a trace-driven WAN: $(cat "$tmp/gtr")" || bad "TCP through the trace-driven WAN: $(cat "$tmp/gtr")"
import sys
sys.path.insert(0, sys.argv[1].rsplit("/", 1)[0])
from received import hold
hold(sys.argv[1], lambda mss: 8000 * 1504 * 8 * mss / (mss + 56), "the trace")
PY
}
attempts check_trace

finish
