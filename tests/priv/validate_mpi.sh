#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# syncemu validate on real captures of a real job: Open MPI (Debian's openmpi-bin) running an
# all-reduce loop of ours (tests/priv/mpi_allreduce.c: 20 steps of 4 MiB, 5 ms of compute
# between, each step's times written by the program) over TCP between two network namespaces
# joined by a veth pair shaped with tc tbf at 400 Mbit/s each way, captured by tcpdump:
#   1. 2 ranks, one per namespace, with Open MPI's non-overlapping all-reduce (a reduce to rank
#      0, then a broadcast: coll_tuned_allreduce_algorithm 2), whose directions take turns by
#      construction (with the ring, a 2-rank job took turns in some captures and ran full duplex
#      in others: which rank's rendezvous answer waits behind its own data is a race);
#   2. 4 ranks, two per namespace, placed round robin (--map-by node: every ring edge crosses),
#      the ring all-reduce (algorithm 4);
#   3. 2 ranks, the ring, with a bulk TCP flow (Python, port 5201) beside them on the link.
# validate must find every step without being given a gap: with --steps 20, with --collective
# allreduce --ranks R --bytes 4MiB (saying how it split them), and (case 1) from the streams
# alone (without --steps-csv, whose count it would take); each step's span on the wire within 10 % of the program's own (--steps-csv
# --tolerance 10); case 1 reported as serialised (and the directions as taking turns); case 3
# with the bulk flow's share of the link reported for each step.
#
# The 10 % bound, on a loaded 2-vCPU machine: a step is at least 175 ms on the wire (2 x 4.4 MB
# of frames at 50 MB/s, the directions taking turns; 270 ms with 4 ranks, 220 ms beside the bulk
# flow). The program's span of a step runs from its first rank entering the all-reduce, but not
# before the last rank left the step before (a rank that comes early only queues its bytes
# behind the step before's), to its last rank leaving; the wire's from the step's first packet
# to its last. They differ by the last rank's compute before it enters (5 ms: its answer starts
# the step's data; the way to the capture is through an empty queue, the job's own under htb
# beside the bulk flow) and the last rank's return after the last byte (0.1 ms); host stalls at
# either edge of a step add up to 4 ms each while the other vCPU is busy (platform notes): at
# most 5 + 4 + 4 = 13 ms of 175 ms (7.4 %); measured 0.4 to 4.3 % (2.9 to 3.4 % beside the bulk
# flow). A stall of 24 ms (two busy threads on one vCPU) at an edge would pass 10 %, so the
# physical checks get another capture if one misses, up to three (attempts, lib.sh): a defect fails all.
# This VM's host also freezes it whole at times (a gap of 1.06 s with no byte on the link, seen
# in one capture): TCP's timers then fire at once and resend data the receiver already had,
# after the step's end, and that step's span on the wire grows by up to 90 ms (+49 % seen, in
# two captures in a row, one step each). So one step of the 20 may miss 10 % (said in the
# log); two or more fail. The exact checks (JSON keys, counts, how it split) get none.
#
# Needs root, network namespaces, tc, tcpdump, ethtool, Open MPI (mpirun) and the program built
# (meson builds it when it finds MPI): exits 77 (skipped) without them, saying why. Everything it
# creates (namespaces, the veth pair, /etc/netns/NAME) is removed on exit.
# Usage: validate_mpi.sh SYNCEMU_BINARY MPI_ALLREDUCE_BINARY  (VALIDATE_MPI_KEEP=DIR keeps the
# captures and the program's CSV in DIR)
set -u
. "$(dirname "$0")/../cli/lib.sh"
se=$1
prog=${2:-not-built}

[ "$prog" = sanitized ] && skip "the sanitizer build: Open MPI's own allocations at MPI_Finalize are leaks to LeakSanitizer (the plain build runs this test)"
[ "$(id -u)" -eq 0 ] || skip "needs root (network namespaces, tc, tcpdump)"
for c in ip tc tcpdump ethtool mpirun python3 unshare; do
	command -v $c >/dev/null || skip "$c is not installed"
done
[ -x "$prog" ] || skip "the all-reduce program was not built (meson found no MPI: install libopenmpi-dev)"

tag=$$
na=sema$tag nb=semb$tag
va=vma$tag vb=vmb$tag
rate=400mbit
steps=20 size=4194304 compute_us=5000
btl_ports=40000-40049
cleanup() {
	[ -n "${dump:-}" ] && kill "$dump" 2>/dev/null
	[ -n "${recv:-}" ] && kill "$recv" 2>/dev/null
	[ -n "${send:-}" ] && kill "$send" 2>/dev/null
	ip netns pids "$na" 2>/dev/null | xargs -r kill 2>/dev/null
	ip netns pids "$nb" 2>/dev/null | xargs -r kill 2>/dev/null
	ip netns del "$na" 2>/dev/null
	ip netns del "$nb" 2>/dev/null
	ip link del "$va" 2>/dev/null
	rm -rf "/etc/netns/$na" "/etc/netns/$nb" "$tmp"
}
trap cleanup EXIT

netns_pair "$na" "$nb" "$va" "$vb" 10.197.0.1 10.197.0.2
for n in $na $nb; do
	# the BTL's ports are reserved so that no client port lands among them
	ip netns exec "$n" sysctl -qw net.ipv4.ip_local_reserved_ports=40000-40100
	mkdir -p "/etc/netns/$n"
	printf '127.0.0.1 localhost\n10.197.0.1 %s\n10.197.0.2 %s\n' "$na" "$nb" >"/etc/netns/$n/hosts"
done
# wire-sized frames in the capture (no TSO/GSO/GRO), and RPS so that the receiver does not
# reorder (platform notes)
ip netns exec "$na" ethtool -K "$va" tso off gso off gro off >/dev/null 2>&1
ip netns exec "$nb" ethtool -K "$vb" tso off gso off gro off >/dev/null 2>&1
ip netns exec "$na" sh -c "echo 3 >/sys/class/net/$va/queues/rx-0/rps_cpus"
ip netns exec "$nb" sh -c "echo 3 >/sys/class/net/$vb/queues/rx-0/rps_cpus"
# shape LATENCY: tbf at $rate each way, its queue LATENCY at the rate at most
shape() {
	tc -n "$na" qdisc replace dev "$va" root tbf rate $rate burst 32kb latency "$1" \
		2>"$tmp/e" && tc -n "$nb" qdisc replace dev "$vb" root tbf rate $rate burst 32kb \
		latency "$1" 2>"$tmp/e"
}
shape 200ms || skip "tc tbf is not available: $(cat "$tmp/e")"
ok "two namespaces, a veth pair, tbf at $rate each way"

# mpirun starts in namespace A, with the host name A; its ssh to B is this: run the command in
# namespace B under the host name B (platform notes)
cat >"$tmp/rsh" <<EOF
#!/bin/sh
while [ \$# -gt 0 ]; do case \$1 in -*) shift;; *) break;; esac; done
h=\$1; shift
exec ip netns exec "\$h" unshare --uts sh -c "hostname \$h && exec \$*"
EOF
chmod +x "$tmp/rsh"

# mpijob RANKS ALGORITHM OUT [MAP [BULK]]: the job, captured on B's end into OUT (OUT.csv: its
# times)
mpijob() {
	local ranks=$1 alg=$2 out=$3 map=${4:-} bulk=${5:-} per=$(($1 / 2)) rc=0
	printf '%s slots=%d\n%s slots=%d\n' "$na" $per "$nb" $per >"$tmp/hosts"
	rm -f "$out" "$out.csv"
	# immediate mode, written as it comes: no TPACKET block waits for its 1-s timeout, so the
	# capture is whole a moment after the job (platform notes' 2 s are for the default mode)
	ip netns exec "$nb" tcpdump -i "$vb" -w "$out" -s 128 -B 65536 --time-stamp-precision nano \
		--immediate-mode -U 2>"$tmp/dump.err" &
	dump=$!
	if [ -n "$bulk" ]; then
		ip netns exec "$nb" python3 -c '
import socket
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("10.197.0.2", 5201)); s.listen(1)
c, _ = s.accept()
while c.recv(1 << 20):
    pass
' &
		recv=$!
	fi
	# tcpdump is ready once it says it listens (its socket bound), the receiver at once
	for _ in $(seq 50); do
		grep -q "listening on" "$tmp/dump.err" 2>/dev/null && break
		sleep 0.1
	done
	sleep 0.1
	if [ -n "$bulk" ]; then
		ip netns exec "$na" python3 -c '
import socket
s = socket.socket()
s.setsockopt(socket.SOL_SOCKET, socket.SO_PRIORITY, 0x10020)	# htb class 1:20
s.connect(("10.197.0.2", 5201)); b = b"\0" * (1 << 20)
while True:
    s.sendall(b)
' 2>/dev/null &
		send=$!
		sleep 0.5
	fi
	OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 \
	timeout 120 ip netns exec "$na" unshare --uts sh -c "hostname $na && exec mpirun \
		--allow-run-as-root -np $ranks --hostfile $tmp/hosts $map --bind-to none \
		--mca plm_rsh_agent $tmp/rsh --mca pml ob1 --mca btl tcp,self,vader \
		--mca btl_tcp_if_include 10.197.0.0/24 --mca oob_tcp_if_include 10.197.0.0/24 \
		--mca btl_tcp_port_min_v4 40000 --mca btl_tcp_port_range_v4 50 \
		--mca oob_tcp_static_ipv4_ports 40060 --mca mpi_yield_when_idle 1 \
		--mca coll_tuned_use_dynamic_rules 1 --mca coll_tuned_allreduce_algorithm $alg \
		$prog $steps $size $compute_us $out.csv" >"$tmp/mpi.out" 2>&1 || rc=$?
	if [ -n "$bulk" ]; then
		kill "$send" "$recv" 2>/dev/null
		wait "$send" "$recv" 2>/dev/null
		send= recv=
	fi
	sleep 0.3	# the last frames through tcpdump
	kill -INT "$dump"
	wait "$dump" 2>/dev/null
	dump=
	if [ $rc -ne 0 ]; then
		bad "mpirun -np $ranks: exit $rc: $(tail -c 400 "$tmp/mpi.out")"
		return 1
	fi
	if grep -q "[1-9][0-9]* packets dropped by kernel" "$tmp/dump.err"; then
		bad "tcpdump lost packets: $(grep dropped "$tmp/dump.err" | tr '\n' ' ')"
		return 1
	fi
	[ -n "${VALIDATE_MPI_KEEP:-}" ] && cp "$out" "$out.csv" "$VALIDATE_MPI_KEEP/"
	[ -s "$out" ] && [ -s "$out.csv" ]
}

# check CAP CSV NAME ARGS...: validate CAP with ARGS against the program's times (10 %), JSON
check() {
	local cap=$1 csv=$2 name=$3 rc=0
	shift 3
	"$se" validate "$cap" --filter "tcp portrange $btl_ports" --rate 400Mbit/s --steps-csv "$csv" \
		--tolerance 10 --json "$@" >"$tmp/$name.json" 2>"$tmp/$name.err" || rc=$?
	# one step beyond 10 % (a freeze of the host at its edge, above), the others within it
	if [ $rc -eq 4 ] && python3 - "$tmp/$name.json" <<'PY'
import json, sys
app = json.load(open(sys.argv[1]))["tables"]["app_steps"]["rows"]
out = [a for a in app if abs(a["wire_vs_app_pct"]) > 10]
assert len(app) == 20 and len(out) == 1, len(out)
print("# %s: step %d alone beyond 10 %% (%+.1f %%): a freeze of the host at its edge" %
      (sys.argv[1].rsplit("/", 1)[-1], out[0]["app_step"], out[0]["wire_vs_app_pct"]))
PY
	then
		rc=0
	fi
	if [ $rc -ne 0 ]; then
		bad "$name: validate $* exit $rc (4: a step beyond 10 % of the program's): $(head -c 300 "$tmp/$name.err")"
		python3 - "$tmp/$name.json" <<'PY' 2>/dev/null | head -n 25
import json, sys
d = json.load(open(sys.argv[1]))
print("    " + d.get("summary", {}).get("text", ""))
for r in d["tables"].get("app_steps", {}).get("rows", []):
    print("    app step %(app_step)s: app %(app_ns)s ns, wire %(wire_ns)s ns, %(wire_vs_app_pct).2f %%" % r)
PY
		return 1
	fi
	python3 - "$tmp/$name.json" "$name" <<'PY' || { bad "$name: the report"; return 1; }
import json, sys
d, name = json.load(open(sys.argv[1])), sys.argv[2]
assert d["mode"] == "streams", d["mode"]
rows = d["tables"]["steps"]["rows"]
assert len(rows) == 20, len(rows)
for r in rows:
    for k in ("step", "start_ns", "end_ns", "duration_ns", "bytes"):
        assert isinstance(r[k], int), (k, r)
    assert r["end_ns"] - r["start_ns"] == r["duration_ns"]
    assert len(r["directions"]) == 2
    for x in r["directions"]:
        for k in ("start_ns", "end_ns", "duration_ns", "bytes"):
            assert isinstance(x[k], int), (k, x)
        assert r["start_ns"] <= x["start_ns"] <= x["end_ns"] <= r["end_ns"]
assert isinstance(d["overlap_pct"], float)
app = d["tables"]["app_steps"]["rows"]
assert len(app) == 20 and all(a["wire_step"] == a["app_step"] for a in app)
errs = sorted(abs(a["wire_vs_app_pct"]) for a in app)
print("ok - %s: 20 steps (%s), %s within %.2f %% of the program's (split: %s)" % (
    name, d["split"]["by"], "each" if errs[-1] <= 10 else "all but one", errs[-1] if
    errs[-1] <= 10 else errs[-2], d["split"]["how"]))
PY
}

# one case: a capture, then the checks; a second capture if a physical check missed
case_2ranks() {
	mpijob 2 2 "$tmp/r2.pcap" || return
	check "$tmp/r2.pcap" "$tmp/r2.pcap.csv" r2-steps --steps 20 || return
	check "$tmp/r2.pcap" "$tmp/r2.pcap.csv" r2-coll --collective allreduce --ranks 2 \
		--bytes 4MiB || return
	# found from the streams alone (--steps-csv would give the application's count)
	"$se" validate "$tmp/r2.pcap" --filter "tcp portrange $btl_ports" --rate 400Mbit/s --json \
		>"$tmp/r2-found.json" 2>"$tmp/r2-found.err" || {
		bad "r2-found: exit $?: $(head -c 300 "$tmp/r2-found.err")"
		return 1
	}
	python3 - "$tmp/r2-steps.json" "$tmp/r2-coll.json" "$tmp/r2-found.json" <<'PY' || bad "2 ranks: the summary"
import json, sys
s, c, f = (json.load(open(p)) for p in sys.argv[1:])
m = s["summary"]
assert m["matches"] == "serialised", m
assert m["overlap_pct"] < 20 and m["directions"] == "the directions took turns", m
assert 1.6 < m["step_per_b_rate"] < 2.4, m
assert c["split"]["by"] == "collective" and c["split"]["direction_bytes"] == 4194304, c["split"]
assert abs(c["split"]["steps_exact"] - 20) < 0.01, c["split"]
assert "20 steps of the allreduce's 4194304 bytes per direction" in c["split"]["how"], c["split"]
# a period: confidence 0.5, or 0.3 and three times the next best count's (validate's rule)
cf, nx = f["split"]["confidence"], f["split"]["runner_up_confidence"]
assert f["split"]["by"] == "period" and (cf >= 0.5 or (cf >= 0.3 and cf >= 3 * nx)), f["split"]
assert f["split"]["steps"] == 20 and f["uncertain"] is None, f["split"]
print("ok - 2 ranks: serialised, the directions took turns (overlap %.1f %%, step = %.2f x "
      "B/rate); the collective's volume and the streams' period both give 20 steps "
      "(confidence %.2f)" % (m["overlap_pct"], m["step_per_b_rate"], f["split"]["confidence"]))
PY
}

case_4ranks() {
	mpijob 4 4 "$tmp/r4.pcap" "--map-by node" || return
	check "$tmp/r4.pcap" "$tmp/r4.pcap.csv" r4-steps --steps 20 || return
	check "$tmp/r4.pcap" "$tmp/r4.pcap.csv" r4-coll --collective allreduce --ranks 4 \
		--placement cyclic --bytes 4MiB || return
	# dealt round robin, every ring edge crosses: each host sends 2 x 2 (4 - 1) / 4 x 4 MiB
	python3 - "$tmp/r4-coll.json" <<'PY' || bad "4 ranks: the collective's volume"
import json, sys
c = json.load(open(sys.argv[1]))
assert c["split"]["direction_bytes"] == 3 * 4194304, c["split"]
assert abs(c["split"]["steps_exact"] - 20) < 0.01, c["split"]
print("ok - 4 ranks dealt round robin: the streams hold %.4f steps of the algorithm's %d bytes "
      "per direction" % (c["split"]["steps_exact"], c["split"]["direction_bytes"]))
PY
}

case_bulk() {
	mpijob 2 4 "$tmp/rb.pcap" "" bulk || return
	check "$tmp/rb.pcap" "$tmp/rb.pcap.csv" rb-steps --steps 20 --background 'tcp port 5201' ||
		return
	python3 - "$tmp/rb-steps.json" <<'PY' || bad "2 ranks beside a bulk flow: the background's share"
import json, sys
d = json.load(open(sys.argv[1]))
m = d["summary"]
assert m["background_direction"] == "10.197.0.1 > 10.197.0.2", m
# the bulk flow and the job's A > B share one tbf: TCP gives each a part; its ACKs are all it
# sends B > A (a 66-byte frame per two 1514-byte ones: under 3 % of the bulk flow's bytes)
shares = {}
for r in d["tables"]["steps"]["rows"]:
    for x in r["directions"]:
        shares.setdefault(x["direction"], []).append(x["bg_share_pct"])
ab, ba = shares["10.197.0.1 > 10.197.0.2"], shares["10.197.0.2 > 10.197.0.1"]
mean = lambda v: sum(v) / len(v)
assert 20 < mean(ab) < 90, ab
assert mean(ba) < 10, ba
print("ok - the bulk flow's share of each step: %.1f %% of A > B, %.1f %% of B > A (mean)" %
      (mean(ab), mean(ba)))
PY
}

attempts case_2ranks
attempts case_4ranks
# beside the bulk flow the link is shared by htb: 400 Mbit/s, 200 for each of the job and the
# bulk flow and the rest of the link to whichever has data, each with a queue of its own (the
# bulk flow's socket sets its priority to its class). In one FIFO with the job, TCP fills it:
# the job's answer that starts a step then waits behind up to its whole length (200 ms with
# tbf's above), or is dropped and sent again after 200 ms.
share() {
	local n d
	for n in "$na:$va" "$nb:$vb"; do
		d=${n#*:} n=${n%%:*}
		tc -n "$n" qdisc replace dev "$d" root handle 1: htb default 10 2>"$tmp/e" &&
		tc -n "$n" class add dev "$d" parent 1: classid 1:1 htb rate $rate 2>"$tmp/e" &&
		tc -n "$n" class add dev "$d" parent 1:1 classid 1:10 htb rate 200mbit ceil $rate \
			2>"$tmp/e" &&
		tc -n "$n" class add dev "$d" parent 1:1 classid 1:20 htb rate 200mbit ceil $rate \
			2>"$tmp/e" || return 1
	done
}
share || skip "tc htb is not available: $(cat "$tmp/e")"
attempts case_bulk

# the text report: the summary comes first
expect_rc 0 "the text report" -- "$se" validate "$tmp/r2.pcap" --filter "tcp portrange $btl_ports" \
	--steps 20 --rate 400Mbit/s
sed -n 3p "$tmp/out" | grep -q "^  summary: 20 steps, median" && ok "the summary is the third line" ||
	bad "the summary line: $(head -3 "$tmp/out")"
finish
