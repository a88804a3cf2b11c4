#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The control socket serves everyone: while a client dribbles one byte every 0.9 s and ten
# connections never send, syncemu ctl's status, get and set are answered; the slow ones are
# closed by their deadline with an error answer; past 64 connections a new one is refused
# politely; a refusal with quotes in it is printed whole.  And the --ctl path: a socket in use is
# refused, a stale one replaced, anything else (a regular file, a directory, a FIFO, a symlink, a
# device) refused before the run and left as it is (exit 2); at exit a run removes the socket
# only if it is still its own.
# No wall-clock bound is asserted: the order of events is (the good answers come while the slow
# clients' process still runs, which it does for 8 s: four times the server's 2 s deadline, the
# last close due by 3 s with its 1 s poll; the three good requests take well under a second).
# Usage: ctl_serve.sh SYNCEMU (run from the source root)
set -u
. "$(dirname "$0")/lib.sh"
se=$1
command -v python3 >/dev/null || skip "python3 is not installed"

pids=()
prefixes=()
cleanup() {
	local p
	for p in "${pids[@]}"; do kill -9 "$p" 2>/dev/null; done
	for p in "${prefixes[@]}"; do
		rm -rf "/var/run/dpdk/$p" "${XDG_RUNTIME_DIR:-/nonexistent}/dpdk/$p"
	done
	rm -rf "$tmp"
}
trap cleanup EXIT

# start_run NAME SOCKET RUN-ARGS...: a long run serving SOCKET, in the background ($run_pid)
start_run() {
	local name=$1 sock=$2 prefix=syncemu-ctl-serve-$$-$1
	shift 2
	prefixes+=("$prefix")
	"$se" run -n 1000000 --ctl "$sock" --trace none -j -q "$@" \
		--eal "--no-huge --no-pci --no-shconf -l 0 --iova-mode=va --log-level=*:error --file-prefix=$prefix" \
		>"$tmp/$name.json" 2>"$tmp/$name.err" &
	run_pid=$!
	pids+=("$run_pid")
}

# wait_running SOCKET: until the run behind SOCKET is in a run (10 s at most)
wait_running() {
	local _
	for _ in $(seq 100); do
		"$se" ctl "$1" status 2>/dev/null | grep -q '"running": 1' && return 0
		sleep 0.1
	done
	return 1
}

short=(-v A -n 1 -q --trace none)

# ---- the --ctl path ----
echo "a file that must survive" >"$tmp/file"
mkdir "$tmp/dir"
mkfifo "$tmp/fifo"
ln -s "$tmp/file" "$tmp/link"
ln -s "$tmp/nowhere" "$tmp/dangling"
kinds=("file:a regular file" "dir:a directory" "fifo:a FIFO" "link:a symbolic link"
	"dangling:a symbolic link")
if mknod "$tmp/dev" c 1 3 2>/dev/null; then	# a scratch node in $tmp, never a real /dev one
	kinds+=("dev:a character device")
else
	echo "skip - a device node: mknod is not allowed here"
fi
state() {	# what is at $1: its type, and its content, target or device numbers
	stat -c '%F %t:%T' "$1" 2>/dev/null
	[ -L "$1" ] && readlink "$1"
	[ -f "$1" ] && [ ! -L "$1" ] && sha256sum <"$1"
}
for k in "${kinds[@]}"; do
	name=${k%%:*} kind=${k#*:}
	before=$(state "$tmp/$name")
	expect_rc 2 "--ctl on $kind is refused before the run" -- "$se" run "${short[@]}" --ctl "$tmp/$name"
	expect_grep "$tmp/err" "--ctl: $tmp/$name is $kind, not a socket" "the message names the path and what it is"
	[ "$(state "$tmp/$name")" = "$before" ] && ok "$kind is left as it was" || bad "$kind was changed: $(state "$tmp/$name")"
done
[ "$(cat "$tmp/file")" = "a file that must survive" ] && ok "the regular file still holds its text" || bad "the regular file was lost"

# a socket nobody answers on is stale: replaced, and removed at the end of the run
python3 -c 'import socket, sys; s = socket.socket(socket.AF_UNIX); s.bind(sys.argv[1])' "$tmp/stale.sock"
[ -S "$tmp/stale.sock" ] || bad "could not make a stale socket"
expect_rc 0 "--ctl on a stale socket: replaced" -- "$se" run "${short[@]}" --ctl "$tmp/stale.sock" \
	--eal "--no-huge --no-pci --no-shconf -l 0 --iova-mode=va --log-level=*:error --file-prefix=syncemu-ctl-serve-$$-stale"
prefixes+=("syncemu-ctl-serve-$$-stale")
[ ! -e "$tmp/stale.sock" ] && ok "the run removed its socket at the end" || bad "the socket is left behind"

# ---- many clients at once ----
sock=$tmp/a.sock
start_run a "$sock" -v E -b high
a_pid=$run_pid
wait_running "$sock" && ok "run A serves $sock" || { bad "run A does not serve $sock"; tail -3 "$tmp/a.err"; finish; }

expect_rc 2 "--ctl on a socket in use is refused before the run" -- "$se" run "${short[@]}" --ctl "$sock"
expect_grep "$tmp/err" "--ctl: $sock is in use by another process" "the message names the socket"

# the slow clients: one byte every 0.9 s for 8 s, and ten connections that never send;
# each writes what it saw when its time is up (whether the server closed it, and its answer)
python3 - "$sock" "$tmp/slow" >"$tmp/slow.out" 2>&1 <<'PY' &
import json, select, socket, sys, threading, time
path, out = sys.argv[1], sys.argv[2]
start = time.monotonic()
life = 8.0
line = b"get " + b"x" * 40      # 44 bytes at one every 0.9 s: no newline within its life

def watch(c):
    """Read what the server says until it closes, or life ends; the dribbler sends meanwhile."""
    s, next_byte = c["sock"], time.monotonic()
    while time.monotonic() - start < life:
        dribbling = c["kind"] == "dribbler" and c["sent"] < len(line)
        # wake for the next byte on time: 0.9 s apart (under a 1 s poll of the server)
        wait = max(0.0, min(0.1, next_byte - time.monotonic())) if dribbling else 0.1
        if select.select([s], [], [], wait)[0]:
            try:
                b = s.recv(4096)
            except ConnectionResetError:
                b = b""
            c["answer"] += b
            if not b:
                c["closed"], c["closed_after_sent"] = True, c["sent"]
                return
        if dribbling and time.monotonic() >= next_byte:
            try:
                s.send(line[c["sent"]:c["sent"] + 1])
                c["sent"] += 1
            except (BrokenPipeError, ConnectionResetError):
                c["closed"], c["closed_after_sent"] = True, c["sent"]
                return
            next_byte += 0.9

conns, threads = [], []
for i in range(11):     # the dribbler first: it is accepted first
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.connect(path)
    c = {"sock": s, "kind": "dribbler" if i == 0 else "silent", "sent": 0, "answer": b"",
         "closed": False, "closed_after_sent": None}
    conns.append(c)
    threads.append(threading.Thread(target=watch, args=(c,)))
    threads[-1].start()
open(out + ".connected", "w").close()
for t in threads:
    t.join()
time.sleep(max(0.0, start + life - time.monotonic()))   # the process lives its 8 s anyway
json.dump([{k: (v.decode(errors="replace") if isinstance(v, bytes) else v)
            for k, v in c.items() if k != "sock"} for c in conns], open(out, "w"))
PY
slow_pid=$!
pids+=("$slow_pid")
for _ in $(seq 100); do [ -e "$tmp/slow.connected" ] && break; sleep 0.1; done
[ -e "$tmp/slow.connected" ] && ok "a dribbling client and ten silent ones are connected" || bad "the slow clients did not connect: $(cat "$tmp/slow.out")"

# json_check FILE PYTHON-EXPR DESC: the JSON in FILE (as d) satisfies the expression
json_check() {
	if python3 -c "import json,sys; d=json.load(open(sys.argv[1])); assert $2, d" "$1" 2>"$tmp/py"; then
		ok "$3"
	else
		bad "$3: $(head -c 300 "$1")"
		sed 's/^/    /' "$tmp/py" | tail -2
	fi
}
# the good requests, each answered while the slow clients' process still runs
for req in "status" "get wan.bandwidth" "set wan.bandwidth 6GB/s"; do
	# shellcheck disable=SC2086
	expect_rc 0 "ctl $req, with the slow clients connected" -- "$se" ctl "$sock" $req
	json_check "$tmp/out" 'd["ok"]' "ctl $req: answered ok"
	kill -0 "$slow_pid" 2>/dev/null && ok "ctl $req: answered while the slow clients still run" ||
		bad "ctl $req: answered only after the slow clients were gone"
done
json_check "$tmp/out" 'd["value"] == 6e9 and d["old"] == 12.5e9' "the set was applied by the data plane"
wait "$slow_pid"
python3 - "$tmp/slow" >"$tmp/py" 2>&1 <<'PY'
import json, sys
conns = json.load(open(sys.argv[1]))
d, silent = conns[0], conns[1:]
# closed by the server, before the dribbler had sent its whole line (44 bytes, one every 0.9 s)
assert d["closed"] and d["closed_after_sent"] < 44, d
assert "no request line within 2000 ms" in d["answer"], d
for c in silent:
    assert c["closed"] and "no request line within 2000 ms" in c["answer"], c
print("dribbler closed after %d bytes" % d["closed_after_sent"])
PY
[ $? -eq 0 ] && ok "the slow clients were answered and closed by their deadline ($(cat "$tmp/py"))" ||
	{ bad "the slow clients:"; sed 's/^/    /' "$tmp/py" | tail -3; }

# past 64 connections, a new one is refused with an answer; every one of them is answered
python3 - "$sock" >"$tmp/cap" 2>&1 <<'PY'
import select, socket, sys, time
conns = []
for i in range(70):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.connect(sys.argv[1])
    conns.append(s)
answers = {s: b"" for s in conns}
open_ = set(conns)
end = time.monotonic() + 15
while open_ and time.monotonic() < end:
    r, _, _ = select.select(list(open_), [], [], 0.5)
    for s in r:
        b = s.recv(4096)
        answers[s] += b
        if not b:
            open_.discard(s)
busy = sum(b"too many connections (64 open)" in a for a in answers.values())
late = sum(b"no request line within" in a for a in answers.values())
print(busy, late, len(open_))
PY
read -r busy late unanswered <"$tmp/cap"
[ "${busy:-0}" -ge 1 ] && [ "$((busy + late))" -eq 70 ] && [ "${unanswered:-1}" -eq 0 ] &&
	ok "70 connections: $busy refused (too many), $late served to their deadline" ||
	bad "70 connections: $(cat "$tmp/cap")"

# a refusal with quotes in it, printed whole (the JSON string unescaped)
expect_rc 1 "a refused value with a quote in it" -- "$se" ctl "$sock" set wan.bandwidth '1"GB/s'
python3 - "$tmp/out" "$tmp/err" >"$tmp/py" 2>&1 <<'PY'
import json, sys
why = json.load(open(sys.argv[1]))["error"]
err = open(sys.argv[2]).read()
assert '"' in why and "GB/s'" in why, why
assert err == "syncemu ctl: refused: " + why + "\n", (err, why)
PY
[ $? -eq 0 ] && ok "the refusal is printed whole: $(head -c 90 "$tmp/err")..." ||
	{ bad "the refusal:"; sed 's/^/    /' "$tmp/py" "$tmp/err" | tail -3; }

# ---- the socket removed at exit only if it is still ours ----
rm "$sock"
start_run b "$sock" -v C
b_pid=$run_pid
wait_running "$sock" && ok "run B serves $sock, which run A served" || { bad "run B does not serve $sock"; tail -3 "$tmp/b.err"; }
kill -INT "$a_pid"
rc=0
wait "$a_pid" || rc=$?
[ "$rc" -eq 130 ] && ok "run A ends (SIGINT, exit 130)" || bad "run A: exit $rc"
[ -S "$sock" ] && ok "run A left run B's socket" || bad "run A removed run B's socket"
expect_rc 0 "run B still answers" -- "$se" ctl "$sock" status
json_check "$tmp/out" 'd["variant"] == "C"' "the answer is run B's"
kill -INT "$b_pid"
rc=0
wait "$b_pid" || rc=$?
[ "$rc" -eq 130 ] && ok "run B ends (exit 130)" || bad "run B: exit $rc"
[ ! -e "$sock" ] && ok "run B removed its own socket" || bad "run B left its socket"

finish
