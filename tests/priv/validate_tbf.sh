#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# syncemu validate on a real capture: two network namespaces joined by a veth pair, the link
# shaped with tc tbf at 100 Mbit/s; TCP transfers of known sizes cross it while tcpdump captures;
# validate must find the transfers and agree with the alpha-beta model of the shaped link.
# Needs root, network namespaces, tc and tcpdump: exits 77 (skipped) without them, saying why.
# Everything it creates is removed on exit.
# Usage: validate_tbf.sh SYNCEMU_BINARY (run from the source root)
set -u
. "$(dirname "$0")/../cli/lib.sh"
se=$1

[ "$(id -u)" -eq 0 ] || skip "needs root (network namespaces, tc)"
for c in ip tc tcpdump python3; do
	command -v $c >/dev/null || skip "$c is not installed"
done

tag=$$
na=se-va-$tag nb=se-vb-$tag
va=sva$tag vb=svb$tag
cleanup() {
	[ -n "${dump:-}" ] && kill "$dump" 2>/dev/null
	[ -n "${recv:-}" ] && kill "$recv" 2>/dev/null
	ip netns del "$na" 2>/dev/null
	ip netns del "$nb" 2>/dev/null
	ip link del "$va" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT

ip netns add "$na" 2>"$tmp/e" || skip "cannot create a network namespace: $(cat "$tmp/e")"
ip netns add "$nb" || skip "cannot create a second network namespace"
ip link add "$va" type veth peer name "$vb" 2>"$tmp/e" || skip "no veth: $(cat "$tmp/e")"
ip link set "$va" netns "$na"
ip link set "$vb" netns "$nb"
ip -n "$na" addr add 10.199.0.1/24 dev "$va"
ip -n "$nb" addr add 10.199.0.2/24 dev "$vb"
ip -n "$na" link set lo up
ip -n "$nb" link set lo up
ip -n "$na" link set "$va" up
ip -n "$nb" link set "$vb" up
# the shaped link: 100 Mbit/s = 12.5 MB/s of frame bytes from A to B
tc -n "$na" qdisc add dev "$va" root tbf rate 100mbit burst 16kb latency 100ms 2>"$tmp/e" ||
	skip "tc tbf is not available: $(cat "$tmp/e")"
ok "two namespaces, a veth pair, tbf at 100 Mbit/s"

ip netns exec "$nb" tcpdump -i "$vb" -w "$tmp/cap.pcap" -s 96 -B 65536 -U --immediate-mode --time-stamp-precision nano \
	'tcp port 5201' 2>"$tmp/dump.err" &
dump=$!
ip netns exec "$nb" python3 -c '
import socket
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("10.199.0.2", 5201)); s.listen(4)
while True:
    c, _ = s.accept()
    while c.recv(1 << 20):
        pass
    c.close()
' &
recv=$!
sleep 1	# tcpdump and the receiver are ready
ip netns exec "$na" python3 -c '
import socket, time
for n in (2000000, 4000000, 8000000):
    s = socket.create_connection(("10.199.0.2", 5201))
    s.sendall(b"\0" * n)
    s.shutdown(socket.SHUT_WR)
    s.recv(1)
    s.close()
    time.sleep(0.4)
' || bad "the sender failed"
sleep 1	# tcpdump writes out what it has
kill -INT "$dump"
wait "$dump" 2>/dev/null
dump=
[ -s "$tmp/cap.pcap" ] && ok "tcpdump captured $(stat -c %s "$tmp/cap.pcap") bytes" || { bad "no capture"; finish; }
if grep -q "[1-9][0-9]* packets dropped by kernel" "$tmp/dump.err"; then
	bad "tcpdump lost packets: $(grep dropped "$tmp/dump.err" | tr '\n' ' ')"
fi

# validate finds the three transfers (the data direction only) and fits the link
expect_rc 0 "validate the capture, fitted" -- "$se" validate "$tmp/cap.pcap" --filter 'tcp and src host 10.199.0.1' --json
python3 - "$tmp/out" <<'PY' && ok "three transfers of 2, 4, 8 MB; fitted bandwidth within 3 % of 12.5 MB/s" || bad "the fit"
import json, sys
d = json.load(open(sys.argv[1]))
rows = d["tables"]["bursts"]["rows"]
assert len(rows) == 3, [r["bytes"] for r in rows]
for r, n in zip(rows, (2e6, 4e6, 8e6)):
    assert n < r["bytes"] < n * 1.06, (r["bytes"], n)	# payload plus headers
beta = d["fit"]["beta_Bps"]
assert abs(beta / 12.5e6 - 1) < 0.03, beta
print("fitted beta", beta, "alpha", d["fit"]["alpha_s"])
PY
expect_rc 0 "against the link's own model, alpha 0 and beta 12.5 MB/s, tolerance 5 %" -- "$se" validate "$tmp/cap.pcap" --filter 'tcp and src host 10.199.0.1' --alpha 0s --beta 12.5MB/s --tolerance 5
expect_grep "$tmp/out" "3 bursts" "reports how it split the trace"
expect_rc 4 "a wrong model is caught (beta 25 MB/s, tolerance 5 %)" -- "$se" validate "$tmp/cap.pcap" --filter 'tcp and src host 10.199.0.1' --alpha 0s --beta 25MB/s --tolerance 5
expect_rc 0 "the same with --hosts and --ports" -- "$se" validate "$tmp/cap.pcap" --hosts 10.199.0.1 --ports 5201 --filter 'src host 10.199.0.1' --beta 12.5MB/s --tolerance 5
gzip -c "$tmp/cap.pcap" >"$tmp/cap.pcap.gz"
expect_rc 0 "and gzip-compressed" -- "$se" validate "$tmp/cap.pcap.gz" --filter 'tcp and src host 10.199.0.1' --beta 12.5MB/s --tolerance 5
finish
