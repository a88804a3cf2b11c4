#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The control socket serves everyone: while a client dribbles one byte every 0.9 s and ten
# connections never send, syncemu ctl's status, get and set are answered; the slow ones are
# closed by their deadline with an error answer; while 96 clients reconnect in a loop (72 silent
# ones, more than the 64 places; 12 asking status; 12 closing at once), status is answered each
# time within syncemu ctl's deadline, and every one of those clients is answered too; a refusal
# with quotes in it is printed whole; syncemu ctl without permission says so, naming the socket.
# And the --ctl path: a socket in use is refused, a stale one replaced, anything else (a regular
# file, a directory, a FIFO, a symlink, a device) refused before the run and left as it is (exit
# 2); at exit a run removes the socket only if it is still its own.
# No wall-clock bound is asserted but syncemu ctl's own deadline (its default, 5 s: see below):
# the order of events is (the good answers come while the slow clients' process still runs,
# which it does for 4 s: twice the server's 2 s deadline, when their closes are due; the three
# good requests take well under a second).
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

# the slow clients: one byte every 0.9 s for 4 s, and ten connections that never send;
# each writes what it saw when its time is up (whether the server closed it, and its answer)
python3 - "$sock" "$tmp/slow" >"$tmp/slow.out" 2>&1 <<'PY' &
import json, select, socket, sys, threading, time
path, out = sys.argv[1], sys.argv[2]
start = time.monotonic()
life = 4.0
line = b"get " + b"x" * 40      # 44 bytes at one every 0.9 s: no newline within its life

def watch(c):
    """Read what the server says until it closes, or life ends; the dribbler sends meanwhile."""
    s, next_byte = c["sock"], time.monotonic()
    while time.monotonic() - start < life:
        dribbling = c["kind"] == "dribbler" and c["sent"] < len(line)
        # wake for the next byte on time: 0.9 s apart
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
time.sleep(max(0.0, start + life - time.monotonic()))   # the process lives its 4 s anyway
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

# 96 clients that reconnect in a loop: 72 that send nothing (more than the server's 64 places:
# the ones that wait make room 200 ms after the held ones were taken), 12 that ask status, 12 that
# connect and close at once (their connections fill the socket's queue).  They go on until told
# to stop and one silent client has made room; each end is counted by its answer.
python3 - "$sock" "$tmp/hammer" >"$tmp/hammer.out" 2>&1 <<'PY' &
import json, os, select, socket, sys, time
path, out = sys.argv[1], sys.argv[2]
kinds = ["silent"] * 72 + ["asking"] * 12 + ["closing"] * 12
socks, heads, byfd = [None] * len(kinds), [b""] * len(kinds), {}
n = dict(connects=0, answered=0, evicted=0, expired=0, unanswered=0)
p, start = select.poll(), time.monotonic()
while not (os.path.exists(out + ".stop") and n["evicted"] > 0) and time.monotonic() - start < 20:
    full = False
    for i, kind in enumerate(kinds):
        if socks[i] is not None:
            continue
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.setblocking(False)
        try:
            s.connect(path)
        except BlockingIOError:     # the queue is full: again in the next round
            s.close()
            full = True
            continue
        n["connects"] += 1
        if kind == "closing":
            s.close()
            continue
        if kind == "asking":
            try:
                s.send(b"status\n")
            except OSError:         # closed before its request: counted as unanswered
                n["unanswered"] += 1
                s.close()
                continue
        socks[i], heads[i], byfd[s.fileno()] = s, b"", i
        p.register(s, select.POLLIN)
    if n["connects"] >= len(kinds) and not os.path.exists(out + ".started"):
        open(out + ".started", "w").close()
    for fd, _ in p.poll(1 if full else 50):
        i = byfd[fd]
        try:
            b = socks[i].recv(4096)
        except BlockingIOError:
            continue
        except ConnectionResetError:
            b = b""
        if b:
            heads[i] = (heads[i] + b)[:200]
            continue
        h = heads[i]
        n["answered" if b'"ok": true' in h else "evicted" if b"closed to make room" in h else
          "expired" if b"no request line within 2000 ms" in h else "unanswered"] += 1
        p.unregister(fd)
        del byfd[fd]
        socks[i].close()
        socks[i] = None
json.dump(n, open(out, "w"))
PY
hammer_pid=$!
pids+=("$hammer_pid")
for _ in $(seq 100); do [ -e "$tmp/hammer.started" ] && break; sleep 0.1; done
# syncemu ctl's default deadline is 5 s; what the server owes a new client at worst is 1.6 s
# (tests/test_ctl.c, test_hammered: the connections ahead of it in the socket's queue, 64 places
# freed every 200 ms, turns of the loop delayed up to 24 ms each on a loaded 2-vCPU machine)
answered=0 slowest=0
for _ in $(seq 10); do
	t0=$(date +%s%N)
	if "$se" ctl "$sock" status >"$tmp/out" 2>"$tmp/err" && grep -q '"ok": true' "$tmp/out"; then
		answered=$((answered + 1))
	else
		sed 's/^/    /' "$tmp/err" | head -2
	fi
	t=$((($(date +%s%N) - t0) / 1000000))
	[ "$t" -gt "$slowest" ] && slowest=$t
done
kill -0 "$hammer_pid" 2>/dev/null || bad "the 96 clients' process ended before the last status: $(tail -1 "$tmp/hammer.out")"
touch "$tmp/hammer.stop"
wait "$hammer_pid"
[ "$answered" -eq 10 ] &&
	ok "status answered 10 of 10 times while 96 clients reconnect in a loop (the slowest in $slowest ms)" ||
	bad "status answered $answered of 10 times while 96 clients reconnect in a loop"
json_check "$tmp/hammer" 'd["answered"] > 0 and d["evicted"] > 0 and d["unanswered"] == 0' \
	"the 96 clients were answered too, silent ones closed to make room: $(cat "$tmp/hammer")"

# without permission, syncemu ctl says what the kernel said, naming the socket (as root: as uid
# 65534, the directory made searchable; as another user: the socket made unwritable)
if [ "$(id -u)" -eq 0 ] && command -v setpriv >/dev/null; then
	chmod 711 "$tmp"
	expect_rc 1 "syncemu ctl as another user" -- \
		setpriv --reuid=65534 --regid=65534 --clear-groups "$se" ctl "$sock" status
	chmod 700 "$tmp"
	expect_grep "$tmp/err" "syncemu ctl: cannot connect to $sock: Permission denied (the socket belongs to root, uid 0, mode 0600" \
		"without permission: the socket, the kernel's words, its owner and mode"
elif [ "$(id -u)" -ne 0 ]; then
	chmod 0 "$sock"
	expect_rc 1 "syncemu ctl on a socket it may not write" -- "$se" ctl "$sock" status
	chmod 600 "$sock"
	expect_grep "$tmp/err" "syncemu ctl: cannot connect to $sock: Permission denied (the socket belongs to" \
		"without permission: the socket, the kernel's words, its owner and mode"
else
	echo "skip - syncemu ctl as another user: setpriv (util-linux) is not installed"
fi
expect_rc 1 "syncemu ctl on a regular file" -- "$se" ctl "$tmp/file" status
expect_grep "$tmp/err" "syncemu ctl: cannot connect to $tmp/file: Connection refused (it is a regular file, not a socket)" \
	"on a regular file: the path, the kernel's words, what it is"

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
