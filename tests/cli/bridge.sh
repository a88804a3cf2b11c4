#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# syncemu bridge without privileges: two in-process ring ports (no frame arrives on them), so
# what crosses the WAN is the background made inside: the command line and the scenario's
# refusals, the run for --duration and until SIGINT, its summary (text and JSON), live changes
# through --ctl (and the keys it refuses), the trace read by tshark and by syncemu validate
# (--interface). The real frames (TCP, ping, Open MPI through veth pairs) are
# tests/priv/bridge_veth.sh's.
#
# Nothing here is bounded by wall-clock time except the runs' own --duration: the checks are on
# counts (transfers started and done, drops, the trace's records per interface), which do not
# depend on how fast the machine is.
# Usage: bridge.sh SYNCEMU_BINARY
set -u
. "$(dirname "$0")/lib.sh"
se=$1
command -v python3 >/dev/null || skip "python3 is not installed"

# A slow WAN (10 MB/s) and 64 kB transfers at load 0.4 from A to B: 62 transfers a second
slow=(--set wan.bandwidth=10MB/s --set wan.latency=2ms --set queues.wan=2MB
      --set background.size=64kB --set background.directions=one --set run.mtu=1500)

# ---- refusals ----
expect_rc 2 "no port B" -- "$se" bridge --a ring:x -d 1s -q
expect_grep "$tmp/err" "no port B: give --b DEV or --set bridge.b=DEV" "the message says how to give it"
expect_rc 2 "the same device twice" -- "$se" bridge --a net_null0 --b net_null0 -d 1s -q
expect_grep "$tmp/err" "bridge.a and bridge.b are the same device" "named"
expect_rc 2 "a bad --duration" -- "$se" bridge --a ring:x --b ring:y --duration 5parsecs -q
expect_grep "$tmp/err" "--duration: '5parsecs' is not a time" "names the option and the value"
expect_rc 2 "a bad per-direction key" -- "$se" bridge --a ring:x --b ring:y \
	--set bridge.latency_ab=-1ms -d 1s -q
expect_grep "$tmp/err" "[bridge] latency_ab" "names the key"
expect_rc 1 "a device that does not exist" -- "$se" bridge --a ring:x \
	--b net_af_packet9,iface=no-such-if0 -d 1s -q
expect_grep "$tmp/err" "bridge.b:" "names the port that failed"
printf 'keep me\n' >"$tmp/keep.pcapng"
expect_rc 1 "the same failure with a trace asked for" -- "$se" bridge --a ring:x \
	--b net_af_packet9,iface=no-such-if0 -d 1s -q --trace "$tmp/keep.pcapng"
if [ "$(cat "$tmp/keep.pcapng")" = "keep me" ]; then
	ok "a failed bridge leaves the file it would have written as it was"
else
	bad "a failed bridge changed $tmp/keep.pcapng"
fi

# ---- a run for --duration: background alone, counted at both ends ----
expect_rc 0 "2 s of background through the WAN, JSON and trace" -- "$se" bridge --a ring:x \
	--b ring:y "${slow[@]}" --load 0.4 -d 2s -q -j --trace "$tmp/br.pcapng" -c wan,bg
cp "$tmp/out" "$tmp/run.json"
python3 - "$tmp/run.json" <<'PY' && ok "the summary: transfers started and done A->B, none B->A, no drops, integer counts" || bad "the summary"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["status"] == "ok", d["status"]
ab, ba = d["directions"]["ab"], d["directions"]["ba"]
for k in ("frames_in", "frames_out", "drops", "bg_started", "bg_done", "bg_frames", "left"):
    assert isinstance(ab[k], int) and isinstance(ba[k], int), k
# 62 transfers a second for 2 s (Poisson, seed 1): tens of them, each 64 kB in 1424-byte frames
assert 60 < ab["bg_started"] < 200, ab["bg_started"]
assert ab["bg_done"] >= ab["bg_started"] - 3, (ab["bg_done"], ab["bg_started"])
assert ab["bg_frames"] == ab["bg_done"] * 47 + (ab["bg_frames"] - ab["bg_done"] * 47), ab
assert ab["bg_drops"] == 0 and ab["drops"] == 0 and ab["frames_in"] == 0
assert ba["bg_started"] == 0 and ba["bg_frames"] == 0, ba
assert ab["bandwidth_Bps"] == 10000000 and abs(ab["latency_s"] - 0.002) < 1e-12
assert 0.2 < ab["busy"] < 0.6, ab["busy"]
for x in (ab, ba):
    assert x["early_n"] == 0 and x["dev_rx_packets"] == x["frames_in"] == 0, x
    assert x["cut"] == 0 and x["too_long"] == 0 and x["dev_rx_dropped"] == 0, x
assert d["trace"] is not None
PY
if tshark_ok; then
	tshark -r "$tmp/br.pcapng" -T fields -e frame.interface_name 2>/dev/null | sort | uniq -c \
		>"$tmp/ifs"
	python3 - "$tmp/ifs" "$tmp/run.json" <<'PY' && ok "tshark reads the trace: wan.ab.in/out and the sink hold every background frame" || { bad "the trace's interfaces"; cat "$tmp/ifs"; }
import json, sys
n = {l.split()[1]: int(l.split()[0]) for l in open(sys.argv[1]) if l.strip()}
d = json.load(open(sys.argv[2]))["directions"]["ab"]
# what entered the queue and has not reached the far end is left inside at the end
assert n["wan.ab.in"] >= n["wan.ab.out"] >= n["sink.rx"], n
assert n["sink.rx"] == d["bg_frames"], (n, d["bg_frames"])
assert n["wan.ab.in"] - n["sink.rx"] == d["left"], (n, d["left"])
assert n["bg.tx"] == n["wan.ab.in"], n
assert "wan.ba.in" not in n, n
PY
else
	echo "# tshark not installed: the trace's check is left out"
fi
# a queue of 20 kB: 64 kB transfers overflow it; what it drops is counted and traced
expect_rc 0 "a 20 kB WAN queue under the same load" -- "$se" bridge --a ring:x --b ring:y \
	"${slow[@]}" --set queues.wan=20kB --load 0.4 -d 1s -q -j --trace "$tmp/drop.pcapng"
cp "$tmp/out" "$tmp/drop.json"
if tshark_ok; then
	n=$(tshark -r "$tmp/drop.pcapng" -Y 'frame.interface_name == "wan.ab.drop"' 2>/dev/null | wc -l)
	python3 - "$tmp/drop.json" "$n" <<'PY' && ok "drop-tail: $n frames dropped, the summary's count and the trace's wan.ab.drop agree" || bad "the drops: trace $n, summary $(head -c 300 "$tmp/drop.json")"
import json, sys
d = json.load(open(sys.argv[1]))["directions"]["ab"]
assert d["bg_drops"] > 0 and d["bg_drops"] == int(sys.argv[2]), (d["bg_drops"], sys.argv[2])
assert d["bg_incomplete"] > 0, d
PY
fi
expect_rc 2 "validate --interface with a name the trace does not have" -- "$se" validate \
	"$tmp/br.pcapng" --interface wan.ab.out,nope --generic --gap 1ms
expect_grep "$tmp/err" "the trace has no interface 'nope' (it has:" "it lists the interfaces"
expect_rc 0 "validate --interface wan.ab.out reads the WAN's far end alone" -- "$se" validate \
	"$tmp/br.pcapng" --interface wan.ab.out --generic --gap 100ms -j
python3 - "$tmp/out" "$tmp/run.json" <<'PY' && ok "and counts its frames, not the others'" || bad "validate --interface counts"
import json, sys
v, d = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))["directions"]["ab"]
txt = json.dumps(v)
sel = v.get("bursts", {}).get("selected")
if sel is None:
    import re
    m = re.search(r'"selected": (\d+)', txt)
    sel = int(m.group(1))
# every frame that reached the far end (those on the way at the end too: left)
assert d["bg_frames"] <= sel <= d["bg_frames"] + d["left"], (sel, d["bg_frames"], d["left"])
PY

# ---- until SIGINT, with live changes ----
sock="$tmp/br.sock"
# a clock calibrated for 2 s: the bridge is starting for that long, its socket answering
"$se" bridge --a ring:x --b ring:y "${slow[@]}" --set run.calibrate=2s --ctl "$sock" \
	>"$tmp/sig.out" 2>"$tmp/sig.err" &
br=$!
pids+=("$br")
for i in $(seq 1 200); do
	"$se" ctl "$sock" status >"$tmp/c0" 2>/dev/null && break
	sleep 0.02
done
# a change while it starts waits for its run and applies from its start (at 0 ms)
"$se" ctl "$sock" set wan.latency 3ms >"$tmp/c6" 2>&1
if grep -q '"running": 0' "$tmp/c0" && grep -q '"ok": true, "key": "wan.latency", "value": 0.003, "old": 0.002, "run": 1, "at_ms": 0.0' "$tmp/c6"; then
	ok "a fresh bridge takes ctl set wan.latency while it starts: applied from its start"
else
	bad "ctl set before the bridge ran: $(cat "$tmp/c0" "$tmp/c6")"
fi
for i in $(seq 1 100); do
	"$se" ctl "$sock" status 2>/dev/null | grep -q '"running": 1' && break
	sleep 0.1
done
"$se" ctl "$sock" set background.load 0.3 >"$tmp/c1" 2>&1 || bad "ctl set background.load: $(cat "$tmp/c1")"
expect_grep "$tmp/c1" '"ok": true' "set background.load 0.3 during the run (it started at 0)"
"$se" ctl "$sock" set queues.wan 1MB >"$tmp/c2" 2>&1
expect_grep "$tmp/c2" '"old": 2000000' "set queues.wan 1MB: the old limit was 2 MB"
"$se" ctl "$sock" set wan.bandwidth 20MB/s >"$tmp/c3" 2>&1
expect_grep "$tmp/c3" '"ok": true' "set wan.bandwidth 20MB/s"
"$se" ctl "$sock" set module.planes 4 >"$tmp/c4" 2>&1
expect_grep "$tmp/c4" "does not apply to a bridge" "module.planes is refused: a bridge has no module"
"$se" ctl "$sock" status >"$tmp/c5" 2>&1
expect_grep "$tmp/c5" '"wan.bandwidth": 20000000' "status shows the rate in force"
# the host holds the bridge for 0.3 s (here: SIGSTOP): it says so while it runs
kill -STOP "$br"
sleep 0.3
kill -CONT "$br"
sleep 0.5	# (the notes of the last second are said at the end too)
kill -INT "$br"
rc=0
wait "$br" || rc=$?
if [ $rc -eq 0 ]; then ok "SIGINT ends the bridge (exit 0)"; else bad "SIGINT: exit $rc"; cat "$tmp/sig.err"; fi
expect_grep "$tmp/sig.out" "A->B (WAN 20 MB/s" "the summary shows the WAN in force at the end"
expect_grep "$tmp/sig.out" "4 live changes" "and the changes that landed"
expect_grep "$tmp/sig.out" "background: " "and the background transfers"
expect_grep "$tmp/sig.err" "syncemu bridge: late: in the last" "held from its ports, it said so while running"
python3 - "$tmp/sig.out" <<'PY' && ok "the summary: how long the host held the bridge, and no frame left early" || bad "the summary's holds: $(grep -E 'held|early|before' "$tmp/sig.out")"
import re, sys
t = open(sys.argv[1]).read()
m = re.search(r"held the bridge from its ports (\d+) times over 1 ms, ([\d.]+) ms in all \(the longest ([\d.]+) ms\)", t)
assert m and int(m.group(1)) >= 1 and float(m.group(3)) >= 250, m and m.groups()
assert t.count("none left before its time") == 2, t
assert t.count("port A's device took 0 frames: 0 taken by the bridge, 0 lost") == 1, t
PY
[ -e "$sock" ] && bad "the socket $sock is left behind" || ok "the socket is removed"

finish
