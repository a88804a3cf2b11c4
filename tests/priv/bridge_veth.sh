#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# syncemu bridge with real traffic: three network namespaces, host A and host B, and between
# them syncemu bridging two veth pairs (af_packet on the bridge's ends):
#
#   A (10.198.0.1) xa ==== ya [ syncemu bridge ] yb ==== xb (10.198.0.2) B
#   A (10.198.1.1) ta ======== tc tbf 100 Mbit/s ======== tb (10.198.1.2) B   (beside, to compare)
#
#   1. ping: the RTT through a WAN of latency L is 2 L plus the floor measured at L = 0 (set
#      live through --ctl);
#   2. a TCP bulk transfer (iperf3) through a 100 Mbit/s WAN gets the goodput the link allows:
#      100 Mbit/s x MSS / (its frame on the wire: MSS + 66 B of headers + 24 B of FCS, preamble
#      and gap, run.accounting = wire), within 3 %; tbf's goodput beside it (MSS / (MSS + 66));
#   3. background at load 0.5 (Poisson 64 kB transfers in 1424-byte frames: 0.5 x 1538/1424 of
#      the wire) takes its whole share (the queue, 4 MB, drops none of it) and leaves the bulk
#      flow 1 - 0.54 of what it had alone: the shared FIFO of the model;
#   4. an Open MPI all-reduce (tests/priv/mpi_allreduce.c: 20 steps of 4 MiB) between A and B
#      through a 400 Mbit/s bridge, captured by the bridge's own trace at the WAN's far end, holds
#      against the program's own step times in syncemu validate (10 %).
#
# Bounds, on a loaded 2-vCPU VM: the bridge busy-polls one vCPU (its lcore, CPU 0); the hosts'
# programs run on the other (taskset -c 1), else a program sharing the bridge's vCPU stalls it
# for 4-24 ms at a time (platform notes). The host still stalls a vCPU for 0.4-4 ms while the
# other is busy: (1) compares the minimum RTT of 30 pings (a stall only adds) within 0.5 ms,
# and the medians within 2 ms; (2) takes the median of the transfer's 1-s intervals after 2 s
# of slow start: a stall of the sender's vCPU longer than the queue's occupancy (about 10 ms)
# idles the link, which costs the mean 2-5 % in some seconds (measured: medians -2.0 to +0.8 %,
# means -2 to -5 %); the mean is held to 10 %. (3) is exact for the background (none of it
# dropped) and physical for TCP: the bulk flow's mean under load against its mean alone, the
# model's 1 - 0.54 within -25 % / +20 %: besides the stalls above, TCP's sender spends part of
# each loaded second with its window below what the link left it (the background's bursts
# double the queueing delay it sees); measured ratios 0.36 to 0.53 against 0.46, with the host
# stealing up to a third of the CPU. (4) 10 % as validate_mpi.sh derives it (measured within
# 5.2 %). A check on a physical bound gets a second attempt (twice, lib.sh).
#
# Needs root, network namespaces, tc, ethtool, iperf3, ping, taskset, Open MPI and the program
# (meson builds it when it finds MPI): exits 77 without them, saying why. Everything it creates
# is removed on exit.
# Usage: bridge_veth.sh SYNCEMU_BINARY MPI_ALLREDUCE_BINARY
set -u
. "$(dirname "$0")/../cli/lib.sh"
se=$1
prog=${2:-not-built}

[ "$prog" = sanitized ] && skip "the sanitizer build: the bridge's code runs under the sanitizers in cli-bridge; this one is the real traffic's (and Open MPI's allocations are leaks to LeakSanitizer)"
[ "$(id -u)" -eq 0 ] || skip "needs root (network namespaces, tc)"
for c in ip tc ethtool iperf3 ping taskset mpirun python3 unshare; do
	command -v $c >/dev/null || skip "$c is not installed"
done
[ -x "$prog" ] || skip "the all-reduce program was not built (meson found no MPI: install libopenmpi-dev)"
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
		rm -rf "/etc/netns/$n"
	done
	cleanup_pids
}
trap cleanup EXIT

for n in $na $nb $nr; do
	ip netns add "$n" 2>"$tmp/e" || skip "cannot create a network namespace: $(cat "$tmp/e")"
	ip -n "$n" link set lo up
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
	# bridge carries a frame as it is); RPS, or the receiver reorders (platform notes)
	ip netns exec "$n" ethtool -K "$d" tso off gso off gro off tx off rx off >/dev/null 2>&1
	ip netns exec "$n" sh -c "echo 3 >/sys/class/net/$d/queues/rx-0/rps_cpus"
done
for n in $na $nb; do
	ip netns exec "$n" sysctl -qw net.ipv4.ip_local_reserved_ports=40000-40100
	mkdir -p "/etc/netns/$n"
	printf '127.0.0.1 localhost\n10.198.0.1 %s\n10.198.0.2 %s\n' "$na" "$nb" >"/etc/netns/$n/hosts"
done
tc -n "$na" qdisc replace dev "$ta" root tbf rate 100mbit burst 32kb latency 50ms 2>"$tmp/e" ||
	skip "tc tbf is not available: $(cat "$tmp/e")"
ok "three namespaces: A and B through the bridge's veth pairs, and beside it a tbf link"

ap=framesz=9216,blocksz=36864
# start_bridge ARGS...: syncemu bridge in the middle namespace on the two veth ends, JSON to
# $tmp/br.json, its control socket $sock; waits until it runs
start_bridge() {
	rm -f "$sock"
	ip netns exec "$nr" "$se" bridge --a "net_af_packet0,iface=$ya,$ap" \
		--b "net_af_packet1,iface=$yb,$ap" --set run.accounting=wire --set run.mtu=1500 \
		--ctl "$sock" -q -j "$@" >"$tmp/br.json" 2>"$tmp/br.err" &
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
# goodput NS HOST OUT: iperf3 for 10 s from A to B (server in NS), JSON in OUT
goodput() {
	taskset -c 1 ip netns exec "$nb" iperf3 -s -1 -B "$2" >/dev/null 2>&1 &
	local srv=$!
	sleep 0.3
	taskset -c 1 ip netns exec "$na" iperf3 -c "$2" -t 8 -O 2 -J >"$3" 2>"$tmp/ip.err" ||
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
PY
}
check_bulk() {
	goodput "$nb" 10.198.0.2 "$tmp/ip0.json"
	python3 - "$tmp/ip0.json" <<'PY' >"$tmp/g0" && ok "TCP through a 100 Mbit/s WAN: $(cat "$tmp/g0")" || bad "TCP goodput through the bridge: $(cat "$tmp/g0")"
import json, statistics as S, sys
d = json.load(open(sys.argv[1]))
mss = d["start"]["tcp_mss_default"]
iv = [i["sum"]["bits_per_second"] for i in d["intervals"] if not i["sum"].get("omitted")]
expect = 100e6 * mss / (mss + 66 + 24)
med, mean = S.median(iv), S.mean(iv)
print("median of %d 1-s intervals %.2f Mbit/s, mean %.2f, the link allows %.2f "
      "(%+.2f %%, mean %+.2f %%)" % (len(iv), med / 1e6, mean / 1e6, expect / 1e6,
                                    100 * (med / expect - 1), 100 * (mean / expect - 1)))
assert len(iv) >= 6, len(iv)
assert abs(med / expect - 1) <= 0.03, med
assert abs(mean / expect - 1) <= 0.10, mean
PY
}
check_load() {
	goodput "$nb" 10.198.0.2 "$tmp/ip5.json"
	python3 - "$tmp/ip0.json" "$tmp/ip5.json" <<'PY' >"$tmp/g5" && ok "background load 0.5: $(cat "$tmp/g5")" || bad "the bulk flow beside background: $(cat "$tmp/g5")"
import json, statistics as S, sys
def mean(f):
    d = json.load(open(f))
    iv = [i["sum"]["bits_per_second"] for i in d["intervals"] if not i["sum"].get("omitted")]
    return S.mean(iv)
g0, g5 = mean(sys.argv[1]), mean(sys.argv[2])
# the background's share of the wire: load 0.5 of the rate in payload (1424 B a frame), each
# frame 1424 + 90 + 24 B on the wire; the bulk flow has the rest
rho = 0.5 * (1424 + 90 + 24) / 1424
r = g5 / g0
print("bulk flow %.2f Mbit/s against %.2f alone: %.3f of it, the model's 1 - %.3f = %.3f (%+.1f %%)"
      % (g5 / 1e6, g0 / 1e6, r, rho, 1 - rho, 100 * (r / (1 - rho) - 1)))
assert 0.75 * (1 - rho) <= r <= 1.2 * (1 - rho), r
PY
}
if start_bridge --set wan.bandwidth=100Mbit/s --set wan.latency=0s --set queues.wan=4MB \
	--set background.size=64kB --set background.directions=one; then
	twice check_ping
	# the bulk flow at 5 ms each way (BDP 125 kB; the queue 4 MB, 320 ms at the rate)
	set_live wan.latency 5ms
	twice check_bulk
	set_live background.load 0.5
	twice check_load
	stop_bridge
	python3 - "$tmp/br.json" <<'PY' && ok "the summary on SIGINT: every frame taken on A left on B, dropped at the queue or was still inside; lateness reported" || { bad "the bridge's summary"; head -c 600 "$tmp/br.json"; }
import json, sys
d = json.load(open(sys.argv[1]))
ab, ba = d["directions"]["ab"], d["directions"]["ba"]
for x in (ab, ba):
    # real frames still inside at the end: at most every frame left inside (background too)
    assert 0 <= x["frames_in"] - x["frames_out"] - x["drops"] <= x["left"], x
    assert x["dev_rx_dropped"] == 0 and x["dev_tx_errors"] == 0, x
    assert x["late_n"] == x["frames_out"] + x["bg_emitted"], x
assert ab["frames_in"] > 100000, ab["frames_in"]
assert ab["bg_done"] > 0 and ab["load"] == 0.5, ab
# the background, unresponsive, took its whole share: the 4 MB queue dropped none of it
assert ab["bg_drops"] == 0 and ab["bg_incomplete"] == 0, ab
assert d["changes"] >= 4, d["changes"]   # latency 0 s, 10 ms (again on a second attempt), 5 ms, the load
keys = [c["key"] for c in d["live_changes"]]
assert keys[-1] == "background.load", keys
PY
fi

# ---- 2 beside: tbf at the same rate ----
check_tbf() {
	goodput "$nb" 10.198.1.2 "$tmp/tbf.json"
	python3 - "$tmp/tbf.json" <<'PY' >"$tmp/gt" && ok "beside it, tc tbf at 100 Mbit/s: $(cat "$tmp/gt")" || bad "tbf's goodput: $(cat "$tmp/gt")"
import json, statistics as S, sys
d = json.load(open(sys.argv[1]))
mss = d["start"]["tcp_mss_default"]
iv = [i["sum"]["bits_per_second"] for i in d["intervals"] if not i["sum"].get("omitted")]
expect = 100e6 * mss / (mss + 66)    # tbf meters the frame as the kernel counts it
med, mean = S.median(iv), S.mean(iv)
print("median %.2f Mbit/s, mean %.2f, tbf allows %.2f (%+.2f %%, mean %+.2f %%)" %
      (med / 1e6, mean / 1e6, expect / 1e6, 100 * (med / expect - 1), 100 * (mean / expect - 1)))
assert abs(med / expect - 1) <= 0.05, med
PY
}
twice check_tbf

# ---- 4: Open MPI through the bridge, captured by it, validated ----
cat >"$tmp/rsh" <<EOF
#!/bin/sh
while [ \$# -gt 0 ]; do case \$1 in -*) shift;; *) break;; esac; done
h=\$1; shift
exec ip netns exec "\$h" unshare --uts sh -c "hostname \$h && exec \$*"
EOF
chmod +x "$tmp/rsh"
printf '%s slots=1\n%s slots=1\n' "$na" "$nb" >"$tmp/hosts"
check_mpi() {
	local rc=0
	rm -f "$tmp/mpi.pcapng" "$tmp/mpi.csv"
	start_bridge --set wan.bandwidth=400Mbit/s --set wan.latency=1ms --set queues.wan=4MB \
		--trace "$tmp/mpi.pcapng" || return
	# the ranks on the other vCPU (the bridge busy-polls CPU 0)
	OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 \
	timeout 120 taskset -c 1 ip netns exec "$na" unshare --uts sh -c "hostname $na && exec \
		mpirun --allow-run-as-root -np 2 --hostfile $tmp/hosts --bind-to none \
		--mca plm_rsh_agent $tmp/rsh --mca pml ob1 --mca btl tcp,self,vader \
		--mca btl_tcp_if_include 10.198.0.0/24 --mca oob_tcp_if_include 10.198.0.0/24 \
		--mca btl_tcp_port_min_v4 40000 --mca btl_tcp_port_range_v4 50 \
		--mca oob_tcp_static_ipv4_ports 40060 --mca mpi_yield_when_idle 1 \
		--mca coll_tuned_use_dynamic_rules 1 --mca coll_tuned_allreduce_algorithm 2 \
		$prog 20 4194304 5000 $tmp/mpi.csv" >"$tmp/mpi.out" 2>&1 || rc=$?
	stop_bridge
	if [ $rc -ne 0 ]; then
		bad "mpirun through the bridge: exit $rc: $(tail -c 400 "$tmp/mpi.out")"
		return
	fi
	rc=0
	"$se" validate "$tmp/mpi.pcapng" --interface wan.ab.out,wan.ba.out \
		--filter 'tcp portrange 40000-40049' --steps 20 --rate 400Mbit/s \
		--steps-csv "$tmp/mpi.csv" --tolerance 10 -j >"$tmp/val.json" 2>"$tmp/val.err" || rc=$?
	python3 - "$tmp/val.json" <<'PY' >"$tmp/vmsg" 2>&1 && [ $rc -eq 0 ] && ok "Open MPI all-reduce through the bridge, its trace validated: $(cat "$tmp/vmsg")" || bad "validate on the bridge's trace: exit $rc: $(cat "$tmp/vmsg") $(head -c 300 "$tmp/val.err")"
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
twice check_mpi

finish
