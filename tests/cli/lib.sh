# SPDX-License-Identifier: BSD-3-Clause
# Helpers for the command-line tests: each check prints what it tested and fails loudly.
fails=0
tmp=$(mktemp -d)
# processes a test starts in the background go in pids: killed at the end, whatever happened,
# if still running as this shell's jobs. One already waited for is not: its pid may by then be
# another test's process (pid_max is 32768 on these machines, and the suite starts many).
pids=()
cleanup_pids() {
	local p live
	live=" $(jobs -pr | tr '\n' ' ') "
	for p in "${pids[@]}"; do
		[[ $live == *" $p "* ]] && kill -9 "$p" 2>/dev/null
	done
	rm -rf "$tmp"
}
trap cleanup_pids EXIT

ok() { echo "ok - $*"; }
skip() { echo "skip - $*"; exit 77; }	# a privilege or tool is missing: skipped, with why

# need_top SYNCEMU SYNCEMU_TOP: root, syncemu-top able to load its BPF, probes in syncemu; else skip
need_top() {
	[ "$(id -u)" -eq 0 ] || skip "needs root (BPF, uprobes)"
	[ -x "$2" ] || skip "syncemu-top is not built (see meson's message)"
	command -v python3 >/dev/null || skip "python3 is not installed"
	"$2" --check >"$tmp/check" 2>&1 || skip "BPF cannot be loaded here: $(cat "$tmp/check")"
	readelf -n "$1" 2>/dev/null | grep -q 'Provider: syncemu' ||
		skip "$1 has no USDT probes (built without sys/sdt.h)"
}
bad() { echo "not ok - $*"; fails=$((fails + 1)); }

# tshark_ok: tshark is installed and worth running here. The sanitizer build's run (run-tests
# sets SYNCEMU_SANITIZED) leaves it out: what tshark reads is a trace's bytes, the same as the
# plain build's tests read, and a call costs 1-2 s on a loaded 2-vCPU machine.
tshark_ok() { [ -z "${SYNCEMU_SANITIZED:-}" ] && command -v tshark >/dev/null; }

# netns_pair NA NB VA VB ADDR_A ADDR_B: two network namespaces joined by a veth pair VA (in NA,
# ADDR_A/24) and VB (in NB, ADDR_B/24), every link up; skips (77) saying why if it cannot. The
# caller removes them (ip netns del; ip link del VA).
netns_pair() {
	ip netns add "$1" 2>"$tmp/e" || skip "cannot create a network namespace: $(cat "$tmp/e")"
	ip netns add "$2" || skip "cannot create a second network namespace"
	ip link add "$3" type veth peer name "$4" 2>"$tmp/e" || skip "no veth: $(cat "$tmp/e")"
	ip link set "$3" netns "$1"
	ip link set "$4" netns "$2"
	ip -n "$1" addr add "$5/24" dev "$3"
	ip -n "$2" addr add "$6/24" dev "$4"
	ip -n "$1" link set lo up
	ip -n "$2" link set lo up
	ip -n "$1" link set "$3" up
	ip -n "$2" link set "$4" up
}

# sigint_in_step1 PID ERR: wait until run PID says "in step 1" on stderr file ERR (or ends), send
# it SIGINT, and set $rc to its exit code
sigint_in_step1() {
	for _ in $(seq 600); do
		grep -q "in step 1" "$2" && break
		kill -0 "$1" 2>/dev/null || break
		sleep 0.1
	done
	kill -INT "$1" 2>/dev/null
	rc=0
	wait "$1" || rc=$?
}

# expect_rc RC DESC -- CMD...: run CMD, check its exit code, keep stdout/stderr in $tmp/out, $tmp/err
expect_rc() {
	local want=$1 desc=$2 rc=0
	shift 3
	"$@" >"$tmp/out" 2>"$tmp/err" || rc=$?
	if [ "$rc" -eq "$want" ]; then
		ok "$desc (exit $rc)"
	else
		bad "$desc: exit $rc, expected $want"
		sed 's/^/    stderr: /' "$tmp/err" | head -5
	fi
}

# expect_grep FILE PATTERN DESC: FILE contains the fixed string PATTERN
expect_grep() {
	if grep -qF -- "$2" "$1"; then ok "$3"; else bad "$3: '$2' not in $(basename "$1")"; sed 's/^/    /' "$1" | head -5; fi
}

# attempts FUNC ARGS...: run a wall-clock check FUNC (a function that calls ok/bad) and, if it
# failed, again, up to three attempts, saying so. On a loaded 2-vCPU machine the host can stall a
# vCPU for 4 to 24 ms (two busy threads on one vCPU), which is more than a real-time run's
# tolerance of 1 % of a step allows; on a VM whose host was itself busy, a run of two processes
# over memif (realtime.sh) missed by 2-6 % in both of two attempts in 5 of 9 tries one afternoon
# (4 of 6 at dilation 100, 1 of 3 at 200), and within 0.05 % when it passed. Such stalls in three
# attempts running are rarer; a defect fails all three.
attempts() {
	local f0=$fails i
	for i in 1 2 3; do
		"$@"
		[ $fails -eq $f0 ] && return 0
		[ $i -lt 3 ] || return 0
		echo "# attempt $i of $1 missed its bound; trying again"
		fails=$f0
	done
}

finish() {
	if [ $fails -ne 0 ]; then
		echo "$fails check(s) failed"
		exit 1
	fi
	echo "all checks passed"
	exit 0
}

# small_pcap FILE: a pcap of Ethernet, IPv4, UDP 10.0.0.1:1000 > 10.0.0.2:65535, three packets
# of 100 bytes 1 ms apart
small_pcap() {
	python3 - "$1" <<-'PY'
	import struct, sys
	out = open(sys.argv[1], "wb")
	out.write(struct.pack("<IHHiIII", 0xa1b2c3d4, 2, 4, 0, 0, 65535, 1))
	for i in range(3):
	    payload = b"x" * 100
	    udp = struct.pack(">HHHH", 1000, 65535, 8 + len(payload), 0) + payload
	    ip = struct.pack(">BBHHHBBH4s4s", 0x45, 0, 20 + len(udp), i, 0, 64, 17, 0,
	                     bytes([10, 0, 0, 1]), bytes([10, 0, 0, 2])) + udp
	    frame = b"\x02" * 6 + b"\x04" * 6 + b"\x08\x00" + ip
	    out.write(struct.pack("<IIII", 1, i * 1000, len(frame), len(frame)) + frame)
	PY
}
