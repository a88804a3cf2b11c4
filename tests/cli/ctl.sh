#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Runtime control of a live `syncemu run --ctl SOCKET`: the socket is 0600; status, keys, get and
# set answer as documented (control/ctl.h); a change is applied, visible in get and status,
# recorded in the report (JSON "changes") and in the trace (a UDP note on port 47112); bad values,
# unknown keys and malformed requests are refused with the reason, and the run goes on; DPDK
# telemetry answers /syncemu/status and /syncemu/params; SIGINT ends the run after its step with
# the report and the trace written (exit 130), and the socket is gone; syncemu ctl on a socket
# nobody serves says so.
# Usage: ctl.sh SYNCEMU (run from the source root)
set -u
. "$(dirname "$0")/lib.sh"
se=$1
command -v python3 >/dev/null || { echo "skip - no python3"; exit 77; }

sock=$tmp/ctl.sock
prefix=syncemu-ctl-test-$$
run_pid=
cleanup() {
	[ -n "$run_pid" ] && kill -9 "$run_pid" 2>/dev/null
	rm -rf "$tmp" "/var/run/dpdk/$prefix" "${XDG_RUNTIME_DIR:-/nonexistent}/dpdk/$prefix"
}
trap cleanup EXIT

# A long run (it is interrupted at the end). Its trace captures the ports' points only (there are
# none): it holds the control notes, not the gigabytes of frames a run of some seconds makes,
# whose writing and reading took most of this test's time.
"$se" run -v E -b high -n 1000000 --ctl "$sock" --trace "$tmp/ctl.pcapng" --capture eth -j -q \
	--eal "--no-huge --no-pci --no-shconf -l 0 --iova-mode=va --log-level=*:error --file-prefix=$prefix" \
	>"$tmp/run.json" 2>"$tmp/run.err" &
run_pid=$!
for _ in $(seq 100); do [ -S "$sock" ] && break; sleep 0.1; done
if [ -S "$sock" ]; then ok "the run serves $sock"; else bad "no socket after 10 s"; cat "$tmp/run.err"; finish; fi
# the socket is up before the run starts: wait for it
for _ in $(seq 100); do "$se" ctl "$sock" status 2>/dev/null | grep -q '"running": 1' && break; sleep 0.1; done
mode=$(stat -c %a "$sock")
[ "$mode" = 600 ] && ok "the socket is mode 0600" || bad "the socket is mode $mode"

# json_check FILE PYTHON-EXPR DESC: the answer's JSON (as d) satisfies the expression
json_check() {
	if python3 -c "import json,sys; d=json.load(open(sys.argv[1])); assert $2, d" "$1" 2>"$tmp/py"; then
		ok "$3"
	else
		bad "$3: $(cat "$1")"
		sed 's/^/    /' "$tmp/py" | tail -2
	fi
}

expect_rc 0 "status" -- "$se" ctl "$sock" status
json_check "$tmp/out" 'd["ok"] and d["running"] == 1 and d["variant"] == "E" and d["budget"] == "high" and d["wan.bandwidth"] == 12.5e9' \
	"status: the run in progress and the runtime keys"
expect_rc 0 "keys" -- "$se" ctl "$sock" keys
json_check "$tmp/out" 'len(d["keys"]) == 13 and "impair.loss" in d["keys"] and "background.load" in d["keys"] and "queues.wan" in d["keys"] and "module.budget_high" in d["keys"]' \
	"keys: the thirteen runtime keys"
expect_rc 0 "get" -- "$se" ctl "$sock" get wan.bandwidth
json_check "$tmp/out" 'd["value"] == 12.5e9' "get wan.bandwidth: 12.5e9 B/s"
expect_rc 0 "set wan.bandwidth 6GB/s" -- "$se" ctl "$sock" set wan.bandwidth 6GB/s
json_check "$tmp/out" 'd["ok"] and d["value"] == 6e9 and d["old"] == 12.5e9 and d["at_ms"] > 0' \
	"set: the new value, the old one and when (virtual time)"
cp "$tmp/out" "$tmp/set1.json"
expect_rc 0 "get after set" -- "$se" ctl "$sock" get wan.bandwidth
json_check "$tmp/out" 'd["value"] == 6e9' "get: the new value"
expect_rc 0 "set module.latency_pluggable 2us" -- "$se" ctl "$sock" set module.latency_pluggable 2us

# refusals: the reason, exit 1, and the run goes on
refuse() {	# refuse DESC PATTERN REQUEST...
	local desc=$1 pat=$2
	shift 2
	expect_rc 1 "refused: $desc" -- "$se" ctl "$sock" "$@"
	expect_grep "$tmp/out" "$pat" "refused: $desc: the reason"
}
refuse "a negative rate" "[wan] bandwidth = '-1GB/s': out of range" set wan.bandwidth -1GB/s
refuse "a bad unit" "unknown unit" set wan.bandwidth 3parsecs
refuse "an unknown key" "wan.colour cannot change during a run" set wan.colour blue
refuse "a key fixed for the run" "topology.dcs cannot change during a run" set topology.dcs 3
refuse "load without background hosts" "no background hosts" set background.load 0.5
refuse "planes out of range" "planes" set module.planes 0
refuse "no value" "unknown request" set wan.bandwidth
refuse "an unknown request" "unknown request" reboot
# raw bytes: no newline, binary, an overlong line
python3 - "$sock" >"$tmp/raw" 2>&1 <<'PY'
import socket, sys
def ask(data):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.settimeout(5)
    s.connect(sys.argv[1])
    try:
        s.sendall(data)
        s.shutdown(socket.SHUT_WR)
    except BrokenPipeError:
        pass    # an overlong line: the server answers and closes before all is sent
    out = b""
    while True:
        b = s.recv(4096)
        if not b:
            break
        out += b
    s.close()
    return out.decode(errors="replace").strip()
for data in (b"status", b"\x00\xff\xfe\n", b"set " + b"x" * 100000 + b"\n", b"\n"):
    a = ask(data)
    print(a[:200])
PY
if grep -q '"ok": true' <(sed -n 1p "$tmp/raw") && grep -q "request byte 0 is 0x00" "$tmp/raw" &&
	grep -q "request longer than 1024 bytes" "$tmp/raw" && grep -q "empty request" "$tmp/raw"; then
	ok "raw requests: a line without newline is served, garbage, an overlong line and an empty one refused"
else
	bad "raw requests:"
	sed 's/^/    /' "$tmp/raw"
fi
expect_rc 0 "still running after the refusals" -- "$se" ctl "$sock" status
json_check "$tmp/out" 'd["running"] == 1 and d["changes"] == 2' "two changes applied, none refused counted"

# DPDK telemetry
if command -v dpdk-telemetry.py >/dev/null; then
	echo /syncemu/status | dpdk-telemetry.py -f "$prefix" >"$tmp/tel1" 2>&1
	python3 - "$tmp/tel1" >"$tmp/py" 2>&1 <<'PY'
import json, sys
txt = open(sys.argv[1]).read()
d = json.loads(txt[txt.index('{"/syncemu/status"'):].splitlines()[0])["/syncemu/status"]
assert d["variant"] == "E" and d["budget"] == "high" and d["running"] == 1, d
assert d["steps_done"] > 0 and d["frames"] > 0 and d["changes"] == 2, d
PY
	[ $? -eq 0 ] && ok "telemetry /syncemu/status answers" || { bad "telemetry /syncemu/status"; cat "$tmp/tel1" "$tmp/py" | sed 's/^/    /' | tail -8; }
	echo /syncemu/params | dpdk-telemetry.py -f "$prefix" >"$tmp/tel2" 2>&1
	expect_grep "$tmp/tel2" '"bandwidth_bytes_per_s": 6000000000' "telemetry /syncemu/params has the new WAN rate, a number"
	# each WAN link's counters, numbers
	echo /syncemu/links | dpdk-telemetry.py -f "$prefix" >"$tmp/tel3" 2>&1
	python3 - "$tmp/tel3" >"$tmp/py" 2>&1 <<'PY'
import json, sys
txt = open(sys.argv[1]).read()
d = json.loads(txt[txt.index('{"/syncemu/links"'):].splitlines()[0])["/syncemu/links"]
assert [d[k]["name"] for k in sorted(d)] == ["wan0>1", "wan1>0"], d
for x in d.values():
    assert all(isinstance(v, int) for k, v in x.items() if k != "name"), x
    assert x["sent_frames"] > 0 and x["queue_max_bytes"] >= x["queue_bytes"], x
PY
	[ $? -eq 0 ] && ok "telemetry /syncemu/links: each WAN link's counters as numbers" || { bad "telemetry /syncemu/links"; cat "$tmp/tel3" "$tmp/py" | sed 's/^/    /' | tail -8; }
else
	echo "skip - dpdk-telemetry.py is not installed (the dpdk package)"
fi

# SIGINT: the report and trace of what was done, exit 130, the socket removed
kill -INT "$run_pid"
rc=0
wait "$run_pid" || rc=$?
run_pid=
[ "$rc" -eq 130 ] && ok "SIGINT ends the run (exit 130)" || { bad "SIGINT: exit $rc"; sed 's/^/    /' "$tmp/run.err" | tail -3; }
[ ! -e "$sock" ] && ok "the socket is removed" || bad "the socket is left behind"
json_check "$tmp/run.json" 'd["runs"][0]["interrupted"] and d["runs"][0]["steps"]["rows"] and [c["key"] for c in d["runs"][0]["changes"]] == ["wan.bandwidth", "module.latency_pluggable"]' \
	"the report: interrupted, its steps, both changes with their times"
if tshark_ok; then
	tshark -r "$tmp/ctl.pcapng" -Y "udp.port == 47112" -T fields -e frame.time_epoch -e data.text \
		-o data.show_as_text:TRUE >"$tmp/notes" 2>"$tmp/tshark.err"
	n=$(grep -c "syncemu set" "$tmp/notes")
	[ "$n" -ge 2 ] && ok "the trace holds the changes ($n notes)" || { bad "trace notes: $n"; head -3 "$tmp/notes" "$tmp/tshark.err"; }
	expect_grep "$tmp/notes" "syncemu set wan.bandwidth 6000000000 (was 12500000000)" "the note says what changed"
fi
expect_rc 1 "syncemu ctl on a socket nobody serves" -- "$se" ctl "$sock" status
expect_grep "$tmp/err" "$sock" "the message names the socket"
expect_rc 2 "syncemu ctl without a request" -- "$se" ctl "$sock"
finish
