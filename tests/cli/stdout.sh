#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# A result that cannot be written is never exit 0: every command that writes its result on the
# standard output, run with it on /dev/full, exits 1 and says "standard output: No space left
# on device" (the one check every command's main returns through, tools/finish.c); with the
# report on the standard error (--trace -), a full standard error is exit 1 too.  The commands
# without the EAL here (model, scenario, validate, ctl against a stand-in server, report,
# version, --help, syncemu-top); with "full", also run, sweep and bridge (the plain build: the
# check is the same code, the sanitizer build runs it with the commands above).
# Usage: stdout.sh SYNCEMU quick|full
set -u
. "$(dirname "$0")/lib.sh"
se=$(realpath "$1")
mode=${2:-full}
command -v python3 >/dev/null || skip "python3 is not installed"
[ -w /dev/full ] || skip "no /dev/full"
src=$PWD
cd "$tmp" || exit 1

# full DESC -- CMD...: CMD's stdout on /dev/full: exit 1, and the reason said
full() {
	local desc=$1 rc=0
	shift 2
	"$@" >/dev/full 2>"$tmp/err" || rc=$?
	[ "$rc" = 1 ] && ok "$desc >/dev/full (exit 1)" || bad "$desc >/dev/full: exit $rc"
	expect_grep "$tmp/err" "standard output: No space left on device" "$desc: says why"
}

full "model" -- "$se" model
full "model --json" -- "$se" model --json
full "scenario dump" -- "$se" scenario dump "$src/scenarios/1dc8.ini"
full "scenario keys" -- "$se" scenario keys
full "version" -- "$se" version
full "--help" -- "$se" --help
full "validate --help" -- "$se" validate --help

# a small capture for validate: UDP 10.0.0.1:1000 > 10.0.0.2:65535, three packets 1 ms apart
small_pcap "$tmp/t.pcap"
full "validate" -- "$se" validate "$tmp/t.pcap"
full "validate --json" -- "$se" validate "$tmp/t.pcap" --json

if [ "$mode" = full ]; then
	full "run" -- "$se" run -v A -n 2 -q --trace "$tmp/t.pcapng"
	[ -s "$tmp/t.pcapng" ] && ok "the run's trace is written whole all the same" || bad "no trace"
	rc=0
	"$se" run -v A -n 1 -q --trace - >/dev/null 2>/dev/full || rc=$?
	[ "$rc" = 1 ] && ok "run --trace - (the report on stderr) with stderr on /dev/full: exit 1" ||
		bad "run --trace - 2>/dev/full: exit $rc"
	full "sweep --json" -- "$se" sweep -k run.steps -V 1,2 -v A -q -o "$tmp/sw1" --json
	[ -s "$tmp/sw1/sweep.csv" ] && ok "the sweep's files are written all the same" ||
		bad "sweep wrote no CSV"
	full "bridge's summary" -- "$se" bridge --a ring:x --b ring:y -d 0.05s -q
fi

# ctl: the answer of a stand-in server (one line of JSON, as syncemu run --ctl answers)
python3 - "$tmp/ctl.sock" <<'PY' &
import socket, sys
s = socket.socket(socket.AF_UNIX)
s.bind(sys.argv[1])
s.listen(4)
c, _ = s.accept()
line = b""
while not line.endswith(b"\n"):
    part = c.recv(4096)
    if not part:
        break
    line += part
c.sendall(b'{"ok": true, "running": 1}\n')
c.close()
PY
server=$!
pids+=("$server")
for _ in $(seq 100); do [ -S "$tmp/ctl.sock" ] && break; sleep 0.05; done
full "ctl" -- "$se" ctl "$tmp/ctl.sock" status
wait "$server"

# report: its page to stdout (-o -), through the output file's stream
"$se" model --json >"$tmp/m.json" 2>/dev/null
rc=0
"$se" report "$tmp/m.json" -o - >/dev/full 2>"$tmp/err" || rc=$?
[ "$rc" = 1 ] && ok "report -o - >/dev/full (exit 1)" || bad "report -o - >/dev/full: exit $rc"
expect_grep "$tmp/err" "No space left on device" "report: says why"
top=$(dirname "$se")/top/syncemu-top
if [ -x "$top" ]; then
	full "syncemu-top --help" -- "$top" --help
else
	echo "skip - syncemu-top is not built"
fi
finish
