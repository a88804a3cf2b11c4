#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The files syncemu writes never destroy what is there, and the defaults a user expects.
# On scratch nodes made here (never real /dev nodes): a FIFO read by a reader in the background
# gets the whole trace and stays a FIFO; a FIFO without a reader is waited for (and the wait ends
# on SIGINT); `--trace -` streams to a pipe while the report goes to stderr, and a reader that
# goes away is a clear error; a symbolic link stays a link and its target (or a dangling link's)
# gets the file; a character device (mknod c 1 3), a directory and a socket are refused, named,
# and left as they were; the same for --queue-csv and sweep -o; an output that is the scenario
# file or another output is refused; a missing or read-only directory is a clear error; a
# second signal leaves no temporary (named ones too, SYNCEMU_OUTFILE_NAMED=1) and the file that
# was there as it was; a bare run leaves no trace file; a scenario without a name is named after
# its file; --set run.mtu=1500 alone works; --ctl gives each process a telemetry socket of its
# own (two at once, through /usr/bin/dpdk-telemetry.py) and removes its runtime directory.
# Usage: outfiles.sh SYNCEMU (run from the source root)
set -u
. "$(dirname "$0")/lib.sh"
se=$(realpath "$1")
src=$PWD

# epbs FILE: packets (Enhanced Packet Blocks) of a pcapng file, or "bad" if it is not whole
epbs() {
	python3 - "$1" <<'PY'
import struct, sys
b = open(sys.argv[1], "rb").read()
off = n = 0
ok = len(b) >= 12 and struct.unpack_from("<I", b, 0)[0] == 0x0A0D0D0A
while ok and off < len(b):
    if off + 12 > len(b):
        ok = False
        break
    t, l = struct.unpack_from("<II", b, off)
    if l < 12 or off + l > len(b) or struct.unpack_from("<I", b, off + l - 4)[0] != l:
        ok = False
        break
    n += t == 6
    off += l
print(n if ok else "bad")
PY
}
# frames_of JSON: the frames the report says the trace holds
frames_of() {
	python3 -c 'import json,sys; print(sum(json.load(open(sys.argv[1]))["trace"]["frames"].values()))' "$1"
}
# wait_for FILE TEXT: until FILE holds TEXT (at most 30 s, a guard against a hang only)
wait_for() {
	local i
	for i in $(seq 300); do grep -qF -- "$2" "$1" 2>/dev/null && return 0; sleep 0.1; done
	return 1
}
no_tmp() {	# no_tmp DIR DESC: no temporary file in DIR
	local left
	left=$(find "$1" -name '*.tmp.*' 2>/dev/null)
	[ -z "$left" ] && ok "$2: no temporary left" || bad "$2: temporaries left: $left"
}
RUN=(-v A -n 3 -q)

# -- defaults: no trace unless asked; the scenario's name; the payload follows the MTU
mkdir "$tmp/w"
(cd "$tmp/w" && "$se" run "${RUN[@]}" >/dev/null 2>&1) && [ -z "$(ls -A "$tmp/w")" ] &&
	ok "a bare run leaves no trace file in the current directory" ||
	bad "a bare run wrote: $(ls -A "$tmp/w")"
grep -v '^name' "$src/scenarios/2dc4-8g.ini" | grep -v '^description' >"$tmp/my-run.ini"
expect_rc 0 "a scenario without [scenario] name" -- "$se" run "$tmp/my-run.ini" "${RUN[@]}" -j
python3 -c 'import json,sys; d=json.load(open(sys.argv[1]))["scenario"]; assert d["name"] == "my-run", d' "$tmp/out" &&
	ok "it is named after its file (my-run)" || bad "its name: $(grep -m1 '"name"' "$tmp/out")"
expect_rc 0 "--set run.mtu=1500 alone" -- "$se" run "${RUN[@]}" --set run.mtu=1500
expect_grep "$tmp/out" "MTU 1500, 1424-byte payloads" "the payload follows the MTU (1500 - 76)"
expect_rc 0 "run.frame_payload in bytes without a unit, as run.mtu" -- "$se" run "${RUN[@]}" \
	--set run.mtu=4kB --set run.frame_payload=1410
expect_grep "$tmp/out" "MTU 4000, 1410-byte payloads" "both take the same units"
expect_rc 2 "--capture without --trace" -- "$se" run "${RUN[@]}" -c all
expect_grep "$tmp/err" "give --trace FILE" "says a trace must be asked for"

# -- a FIFO with a reader in the background: the whole trace, and still a FIFO
mkfifo "$tmp/fifo"
timeout 120 cat "$tmp/fifo" >"$tmp/from-fifo.pcapng" &
reader=$!
pids+=("$reader")
expect_rc 0 "--trace FIFO with a reader" -- timeout 120 "$se" run "${RUN[@]}" -j --trace "$tmp/fifo"
wait "$reader"
n=$(epbs "$tmp/from-fifo.pcapng")
want=$(frames_of "$tmp/out")
[ "$n" = "$want" ] && ok "the reader got the whole trace ($n frames, as the report says)" ||
	bad "the reader got $n frames, the report says $want"
[ -p "$tmp/fifo" ] && ok "the FIFO is still a FIFO" || bad "the FIFO was replaced: $(stat -c %F "$tmp/fifo")"
if command -v capinfos >/dev/null; then
	capinfos -c "$tmp/from-fifo.pcapng" 2>&1 | grep -q "Number of packets" &&
		ok "capinfos reads what the FIFO gave" || bad "capinfos: $(capinfos -c "$tmp/from-fifo.pcapng" 2>&1 | head -2)"
fi

# -- a FIFO with no reader yet: waited for, then written; the wait ends on SIGINT
"$se" run "${RUN[@]}" -j --trace "$tmp/fifo" >"$tmp/late.json" 2>"$tmp/late.err" &
late=$!
pids+=("$late")
if wait_for "$tmp/late.err" "waiting for a reader on $tmp/fifo"; then
	ok "no reader: it says it waits for one"
	timeout 120 cat "$tmp/fifo" >"$tmp/late.pcapng"
	rc=0
	wait "$late" || rc=$?
	[ "$rc" = 0 ] && [ "$(epbs "$tmp/late.pcapng")" = "$(frames_of "$tmp/late.json")" ] &&
		ok "a reader that comes later gets the whole trace" || bad "the late reader: exit $rc, $(epbs "$tmp/late.pcapng") frames"
else
	bad "no 'waiting for a reader' message: $(head -3 "$tmp/late.err")"
	kill -9 "$late" 2>/dev/null
fi
"$se" run "${RUN[@]}" --trace "$tmp/fifo" >/dev/null 2>"$tmp/intr.err" &
late=$!
pids+=("$late")
if wait_for "$tmp/intr.err" "waiting for a reader"; then
	kill -INT "$late"
	rc=0
	wait "$late" || rc=$?
	[ "$rc" = 130 ] && ok "SIGINT ends the wait (exit 130)" || bad "SIGINT while waiting: exit $rc"
	expect_grep "$tmp/intr.err" "interrupted while waiting for a reader" "it says so"
else
	bad "no wait to interrupt: $(head -3 "$tmp/intr.err")"
	kill -9 "$late" 2>/dev/null
fi
[ -p "$tmp/fifo" ] && ok "and the FIFO stays a FIFO" || bad "the FIFO was replaced"

# -- the standard output: a stream; the report goes to stderr
rc=0
"$se" run "${RUN[@]}" --trace - 2>"$tmp/rep.txt" >"$tmp/stdout.pcapng" || rc=$?
n=$(epbs "$tmp/stdout.pcapng")
[ "$rc" = 0 ] && grep -q "trace: -, $n frames" "$tmp/rep.txt" && grep -q "Summary" "$tmp/rep.txt" &&
	ok "--trace -: the trace on stdout ($n frames), the report on stderr" ||
	bad "--trace -: exit $rc, $n frames; stderr: $(head -2 "$tmp/rep.txt")"
[ ! -e "$src/-" ] && [ ! -e "$tmp/-" ] && ok "no file named '-'" || bad "a file named '-' was written"
# (/dev/stdout is the same as '-', test_outfile checks: it is a real node, not written here)
rc=0
"$se" run "${RUN[@]}" -j --trace - 2>"$tmp/rep.json" >"$tmp/stdout2.pcapng" || rc=$?
[ "$rc" = 0 ] && [ "$(epbs "$tmp/stdout2.pcapng")" = "$(frames_of "$tmp/rep.json")" ] &&
	ok "--trace - with --json: the trace on stdout, the JSON report on stderr" ||
	bad "--trace - --json: exit $rc"
if tshark_ok; then
	n=$("$se" run "${RUN[@]}" --trace - 2>/dev/null | tshark -r - -T fields -e frame.interface_name 2>/dev/null | wc -l)
	[ "$n" = "$(epbs "$tmp/stdout.pcapng")" ] && ok "syncemu run --trace - | tshark -r -: $n frames" ||
		bad "tshark -r - read $n frames"
	# live: tshark takes 100 frames of a run of a million steps and leaves; the run then
	# stops with a clear error (it would take hours to finish: the timeout only guards a hang)
	rc=0
	timeout 300 "$se" run -v A -n 1000000 -q --trace - 2>"$tmp/gone.err" |
		tshark -r - -c 100 -T fields -e frame.number >"$tmp/live" 2>/dev/null
	rc=${PIPESTATUS[0]}
	[ "$(wc -l <"$tmp/live")" = 100 ] && ok "tshark reads the stream while the run goes on" || bad "tshark read $(wc -l <"$tmp/live") frames"
	[ "$rc" = 1 ] && grep -q "Broken pipe\|went away" "$tmp/gone.err" &&
		ok "the reader went away: exit 1, and it says so (SIGPIPE does not kill it)" ||
		bad "the reader went away: exit $rc: $(tail -2 "$tmp/gone.err")"
	expect_grep "$tmp/gone.err" "cannot be taken back" "it says what was streamed stays sent"
else
	echo "skip - tshark is not installed (the pipe checks)"
fi

# -- symbolic links: a link stays a link, its target gets the trace; a dangling one creates it
printf 'old\n' >"$tmp/real.pcapng"
ln -s real.pcapng "$tmp/link.pcapng"
expect_rc 0 "--trace LINK" -- "$se" run "${RUN[@]}" -j --trace "$tmp/link.pcapng"
[ -L "$tmp/link.pcapng" ] && [ "$(readlink "$tmp/link.pcapng")" = real.pcapng ] &&
	ok "the link stays a link to real.pcapng" || bad "the link: $(stat -c %F "$tmp/link.pcapng")"
[ "$(epbs "$tmp/real.pcapng")" = "$(frames_of "$tmp/out")" ] && ok "its target holds the trace" ||
	bad "its target: $(epbs "$tmp/real.pcapng")"
ln -s made.pcapng "$tmp/dangling.pcapng"
expect_rc 0 "--trace DANGLING-LINK" -- "$se" run "${RUN[@]}" --trace "$tmp/dangling.pcapng"
[ -L "$tmp/dangling.pcapng" ] && [ "$(epbs "$tmp/made.pcapng")" != bad ] &&
	ok "a dangling link creates its target and stays a link" || bad "the dangling link"
printf 'q\n' >"$tmp/q-real.csv"
chmod 0640 "$tmp/q-real.csv"
ln -s q-real.csv "$tmp/q.csv"
expect_rc 0 "--queue-csv LINK" -- "$se" run -v C -n 3 --load 0.5 -q --queue-csv "$tmp/q.csv"
[ -L "$tmp/q.csv" ] && head -1 "$tmp/q-real.csv" | grep -q '^run_id,run,t_s,link,bytes$' &&
	[ "$(stat -c %a "$tmp/q-real.csv")" = 640 ] &&
	ok "--queue-csv: the link stays, its target holds the CSV and keeps its mode" || bad "--queue-csv through a link"
timeout 120 cat "$tmp/fifo" >"$tmp/q-from-fifo.csv" &
reader=$!
pids+=("$reader")
expect_rc 0 "--queue-csv FIFO" -- timeout 120 "$se" run -v C -n 3 --load 0.5 -q --queue-csv "$tmp/fifo"
wait "$reader"
[ "$(wc -l <"$tmp/q-from-fifo.csv")" = "$(wc -l <"$tmp/q-real.csv")" ] && [ -p "$tmp/fifo" ] &&
	ok "--queue-csv to a FIFO: the whole CSV, the FIFO kept" || bad "--queue-csv to a FIFO"

# -- refused before the run, named, and left as they were
if [ "$(id -u)" -eq 0 ] && mknod "$tmp/null" c 1 3 2>/dev/null; then
	expect_rc 2 "--trace CHARACTER-DEVICE" -- "$se" run "${RUN[@]}" --trace "$tmp/null"
	expect_grep "$tmp/err" "the trace $tmp/null is a character device" "names the path and what it is"
	[ -c "$tmp/null" ] && ok "it is still a character device" || bad "the device node became $(stat -c %F "$tmp/null")"
	expect_rc 2 "--queue-csv CHARACTER-DEVICE" -- "$se" run "${RUN[@]}" --queue-csv "$tmp/null"
	expect_grep "$tmp/err" "--queue-csv $tmp/null is a character device" "names it"
	ln -s null "$tmp/null.lnk"
	expect_rc 2 "--trace LINK-TO-A-DEVICE" -- "$se" run "${RUN[@]}" --trace "$tmp/null.lnk"
	expect_grep "$tmp/err" "(a symbolic link to $tmp/null) is a character device" "names the link and its target"
	printf '[trace]\nfile = %s\n' "$tmp/null" >"$tmp/dev.ini"
	expect_rc 3 "[trace] file = CHARACTER-DEVICE in a scenario" -- "$se" run "$tmp/dev.ini" "${RUN[@]}"
	[ -c "$tmp/null" ] && ok "still a character device" || bad "the device node was replaced"
	mkdir "$tmp/swdev"
	mknod "$tmp/swdev/sweep.csv" c 1 3
	expect_rc 2 "sweep -o DIR with DIR/sweep.csv a device" -- "$se" sweep -k wan.bandwidth -V 1GB/s -v A -n 1 -q -o "$tmp/swdev"
	expect_grep "$tmp/err" "$tmp/swdev/sweep.csv is a character device" "names it"
	[ -c "$tmp/swdev/sweep.csv" ] && ok "still a character device" || bad "sweep replaced the device node"
	expect_rc 2 "sweep -o DEVICE" -- "$se" sweep -k wan.bandwidth -V 1GB/s -v A -n 1 -q -o "$tmp/null"
	expect_grep "$tmp/err" "--out $tmp/null is a character device, not a directory" "names it"
else
	echo "skip - mknod needs root (the device-node checks)"
fi
expect_rc 2 "--trace DIRECTORY" -- "$se" run "${RUN[@]}" --trace "$tmp/w"
expect_grep "$tmp/err" "the trace $tmp/w is a directory" "names the path and what it is"
python3 -c 'import socket, sys; socket.socket(socket.AF_UNIX).bind(sys.argv[1])' "$tmp/sock"
expect_rc 2 "--trace SOCKET" -- "$se" run "${RUN[@]}" --trace "$tmp/sock"
expect_grep "$tmp/err" "the trace $tmp/sock is a socket" "names the path and what it is"
[ -S "$tmp/sock" ] && ok "the socket is still a socket" || bad "the socket was replaced"
expect_rc 2 "--queue-csv DIRECTORY" -- "$se" run "${RUN[@]}" --queue-csv "$tmp/w"
expect_grep "$tmp/err" "--queue-csv $tmp/w is a directory" "names it"
expect_rc 2 "--trace in a missing directory" -- "$se" run "${RUN[@]}" --trace "$tmp/none/x.pcapng"
expect_grep "$tmp/err" "the directory $tmp/none does not exist" "says the directory does not exist"
mkdir "$tmp/ro"
if [ "$(id -u)" -ne 0 ]; then
	chmod 0555 "$tmp/ro"
	expect_rc 2 "--trace in a read-only directory" -- "$se" run "${RUN[@]}" --trace "$tmp/ro/x.pcapng"
	expect_grep "$tmp/err" "cannot write in the directory $tmp/ro" "says it cannot write there"
elif unshare -m true 2>/dev/null; then
	# root writes anywhere but on a read-only file system: a tmpfs mounted read-only in a
	# mount namespace of its own, gone with it
	rc=0
	unshare -m sh -c 'mount -t tmpfs -o ro none "$1" && exec "$2" run -v A -n 3 -q --trace "$1/x.pcapng"' \
		sh "$tmp/ro" "$se" >"$tmp/out" 2>"$tmp/err" || rc=$?
	[ "$rc" = 2 ] && ok "--trace on a read-only file system (exit 2)" || bad "read-only: exit $rc: $(cat "$tmp/err")"
	expect_grep "$tmp/err" "cannot write in the directory $tmp/ro: Read-only file system" "says why"
else
	echo "skip - no mount namespace for a read-only directory"
fi

# -- an output that is an input or another output
cp "$src/scenarios/2dc4-8g.ini" "$tmp/sc.ini"
cp "$tmp/sc.ini" "$tmp/sc.orig"
expect_rc 2 "--trace SCENARIO-FILE" -- "$se" run "$tmp/sc.ini" "${RUN[@]}" --trace "$tmp/sc.ini"
expect_grep "$tmp/err" "is the scenario file" "says it is the scenario file"
ln -s sc.ini "$tmp/sc.lnk"
expect_rc 2 "--queue-csv LINK-TO-THE-SCENARIO-FILE" -- "$se" run "$tmp/sc.ini" "${RUN[@]}" --queue-csv "$tmp/sc.lnk"
printf '[trace]\nfile = %s\n' "$tmp/self.ini" >"$tmp/self.ini"
cp "$tmp/self.ini" "$tmp/self.orig"
expect_rc 3 "[trace] file = the scenario file itself" -- "$se" run "$tmp/self.ini" "${RUN[@]}"
cmp -s "$tmp/sc.ini" "$tmp/sc.orig" && cmp -s "$tmp/self.ini" "$tmp/self.orig" &&
	ok "the scenario files are intact" || bad "a scenario file was overwritten"
expect_rc 2 "--trace and --queue-csv the same file" -- "$se" run "${RUN[@]}" --trace "$tmp/x.out" --queue-csv "$tmp/x.out"
expect_grep "$tmp/err" "are the same file" "says so"
expect_rc 2 "--trace - and --queue-csv -" -- "$se" run "${RUN[@]}" --trace - --queue-csv -
expect_grep "$tmp/err" "(the standard output)" "says both are the standard output"
mkdir "$tmp/swin"
cp "$tmp/sc.ini" "$tmp/swin/sweep.csv"
expect_rc 2 "sweep -o DIR where DIR/sweep.csv is its scenario" -- "$se" sweep "$tmp/swin/sweep.csv" -k wan.bandwidth -V 1GB/s -v A -n 1 -q -o "$tmp/swin"
cmp -s "$tmp/swin/sweep.csv" "$tmp/sc.orig" && ok "the scenario is intact" || bad "sweep overwrote its scenario"

# -- sweep: a link stays a link; gnuplot's plot is put in place only if gnuplot succeeds
mkdir "$tmp/sw" "$tmp/bin"
printf 'old svg\n' >"$tmp/old.svg"
ln -s ../old.svg "$tmp/sw/sweep.svg"
printf 'old png\n' >"$tmp/sw/sweep.png"
# a gnuplot that writes into both outputs it is given (-e "svg='F'; png='F'; dat='F'"), then fails
cat >"$tmp/bin/gnuplot" <<'SH'
#!/bin/sh
printf '%s\n' "$2" | tr ';' '\n' | sed -n "s/^ *\(svg\|png\)='\(.*\)'$/\2/p" |
	while read -r f; do echo partial >"$f"; done
exit 1
SH
chmod +x "$tmp/bin/gnuplot"
PATH="$tmp/bin:$PATH" "$se" sweep -k wan.bandwidth -V 1GB/s,2GB/s -v A -n 1 -q -o "$tmp/sw" >"$tmp/out" 2>"$tmp/err"
rc=$?
[ "$rc" = 1 ] && grep -q "gnuplot failed" "$tmp/err" && ok "a failing gnuplot: exit 1, named" || bad "a failing gnuplot: exit $rc"
[ "$(cat "$tmp/old.svg")" = "old svg" ] && [ "$(cat "$tmp/sw/sweep.png")" = "old png" ] &&
	ok "its half-written plots are not put in place" || bad "gnuplot's partial output replaced the plots"
[ -s "$tmp/sw/sweep.csv" ] && ok "the CSV is written" || bad "no CSV"
no_tmp "$tmp/sw" "a failing gnuplot"
if command -v gnuplot >/dev/null; then
	expect_rc 0 "sweep -o DIR with DIR/sweep.svg a link" -- "$se" sweep -k wan.bandwidth -V 1GB/s,2GB/s -v A -n 1 -q -o "$tmp/sw"
	[ -L "$tmp/sw/sweep.svg" ] && grep -q "<svg" "$tmp/old.svg" && ok "the link stays, its target holds the SVG" ||
		bad "sweep.svg through a link"
fi
printf 'x\n' >"$tmp/afile"
expect_rc 2 "sweep -o FILE" -- "$se" sweep -k wan.bandwidth -V 1GB/s -v A -n 1 -q -o "$tmp/afile"
expect_grep "$tmp/err" "is a regular file, not a directory" "names it"

# -- two signals: the first ends the run after its step, the second ends the process at once,
# leaving no temporary and the file that was there as it was ("runs reported" is said only when
# the run ends by itself).  Deterministic: the trace goes to a FIFO whose reader never reads, so
# the run blocks in a write and never ends by itself.
mkfifo "$tmp/stall"
for named in 0 1; do
	printf 'the old csv\n' >"$tmp/q2.csv"
	sleep 600 <"$tmp/stall" &
	stall=$!
	pids+=("$stall")
	SYNCEMU_OUTFILE_NAMED=$named "$se" run -v C -n 1000000 --load 0.5 -q --trace "$tmp/stall" \
		--queue-csv "$tmp/q2.csv" >/dev/null 2>"$tmp/sig.err" &
	run=$!
	pids+=("$run")
	if [ "$named" = 1 ]; then
		for _ in $(seq 300); do ls "$tmp"/q2.csv.tmp.* >/dev/null 2>&1 && break; sleep 0.1; done
		ls "$tmp"/q2.csv.tmp.* >/dev/null 2>&1 && ok "a named temporary while the run goes on" ||
			bad "no named temporary to clean up"
	fi
	sleep 1
	kill -INT "$run"
	sleep 0.5
	kill -INT "$run"
	rc=0
	wait "$run" || rc=$?
	kill "$stall" 2>/dev/null
	wait "$stall" 2>/dev/null
	[ "$rc" = 130 ] && ! grep -q "runs reported" "$tmp/sig.err" &&
		ok "the second SIGINT ends it at once (named=$named)" ||
		bad "two signals: exit $rc: $(tail -2 "$tmp/sig.err")"
	no_tmp "$tmp" "two signals (named temporaries: $named)"
	[ "$(cat "$tmp/q2.csv")" = "the old csv" ] && ok "the old CSV is as it was" || bad "the old CSV changed"
	[ -p "$tmp/stall" ] && ok "the FIFO is still a FIFO" || bad "the FIFO was replaced"
done
# the same on a trace file mid-run: the steps are long (400 M parameters), so the second signal
# comes during the step the first one lets finish; if that step ended in between, the run
# ended normally (130) with the whole trace: either way no temporary, no half file
for named in 0 1; do
	printf 'the old trace\n' >"$tmp/long.pcapng"
	SYNCEMU_OUTFILE_NAMED=$named "$se" run -v A -n 1000000 --set job.parameters=400e6 \
		--trace "$tmp/long.pcapng" >/dev/null 2>"$tmp/sig.err" &
	run=$!
	pids+=("$run")
	for _ in $(seq 300); do grep -q "run 1 A" "$tmp/sig.err" 2>/dev/null && break; sleep 0.1; done
	kill -INT "$run"
	sleep 0.2
	kill -INT "$run"
	rc=0
	wait "$run" || rc=$?
	if [ "$rc" = 130 ] && ! grep -q "runs reported" "$tmp/sig.err"; then
		[ "$(cat "$tmp/long.pcapng")" = "the old trace" ] && ok "a trace file: the second signal leaves the old one (named=$named)" ||
			bad "the old trace changed"
	elif [ "$rc" = 130 ]; then
		# the run ended first; the second signal may still have come while the trace was
		# put in place (fsync of some 300 MB): then the old one stays, whole as well
		if [ "$(cat "$tmp/long.pcapng")" = "the old trace" ]; then
			ok "a trace file: the run ended, the second signal came before its trace was in place: the old one stays (named=$named)"
		elif [ "$(epbs "$tmp/long.pcapng")" != bad ]; then
			ok "a trace file: the run ended first, its trace whole (named=$named)"
		else
			bad "a half trace after two signals"
		fi
	else
		bad "a trace file, two signals: exit $rc"
	fi
	no_tmp "$tmp" "a trace file, two signals (named temporaries: $named)"
done
# sweep: SIGTERM ends it after the run in progress, its files replaced whole by those of the runs
# done (marked partial), no named temporary left (SIGTERM: a script's background job starts with
# SIGINT ignored, and sweep keeps it so; the second value never ends by itself)
mkdir "$tmp/sws"
printf 'the old csv\n' >"$tmp/sws/sweep.csv"
SYNCEMU_OUTFILE_NAMED=1 "$se" sweep -k run.steps -V 1,1000000 -v A --set job.parameters=400e6 -o "$tmp/sws" >/dev/null 2>"$tmp/sws.err" &
run=$!
pids+=("$run")
for _ in $(seq 300); do grep -q "^sweep 1/2" "$tmp/sws.err" && break; sleep 0.1; done
ls "$tmp/sws"/sweep.csv.tmp.* >/dev/null 2>&1 && ok "sweep: a named temporary while it runs" || bad "sweep: no named temporary"
kill -TERM "$run"
rc=0
wait "$run" || rc=$?
[ "$rc" = 130 ] && ok "sweep: SIGTERM ends it, exit 130" || bad "sweep: SIGTERM: exit $rc"
no_tmp "$tmp/sws" "sweep, SIGTERM"
tail -1 "$tmp/sws/sweep.csv" | grep -q ',"interrupted"$' && ok "sweep: the CSV replaced by the partial one" ||
	bad "sweep: the CSV after SIGTERM: $(cat "$tmp/sws/sweep.csv")"

# -- telemetry: with --ctl each process has a prefix of its own, names its socket, and answers
# its own status through DPDK's dpdk-telemetry.py; its runtime directory goes at the end
if [ -x /usr/bin/dpdk-telemetry.py ]; then
	"$se" run -v A -n 1000000 -q --ctl "$tmp/a.sock" >/dev/null 2>"$tmp/a.err" &
	ra=$!
	pids+=("$ra")
	"$se" run -v E -b high -n 1000000 -q --ctl "$tmp/b.sock" >/dev/null 2>"$tmp/b.err" &
	rb=$!
	pids+=("$rb")
	wait_for "$tmp/a.err" "dpdk-telemetry.py -f" && wait_for "$tmp/b.err" "dpdk-telemetry.py -f" ||
		bad "no telemetry line: $(head -2 "$tmp/a.err" "$tmp/b.err")"
	pa=$(sed -n 's/.*dpdk-telemetry.py -f \(.*\)$/\1/p' "$tmp/a.err")
	pb=$(sed -n 's/.*dpdk-telemetry.py -f \(.*\)$/\1/p' "$tmp/b.err")
	sa=$(sed -n 's/.*telemetry on \(.*\): echo.*/\1/p' "$tmp/a.err")
	[ -n "$pa" ] && [ -n "$pb" ] && [ "$pa" != "$pb" ] && [ -S "$sa" ] &&
		ok "two runs with --ctl: prefixes $pa and $pb, the socket $sa" || bad "prefixes '$pa' and '$pb', socket '$sa'"
	for _ in $(seq 100); do "$se" ctl "$tmp/a.sock" status 2>/dev/null | grep -q '"running": 1' &&
		"$se" ctl "$tmp/b.sock" status 2>/dev/null | grep -q '"running": 1' && break; sleep 0.1; done
	va=$(echo /syncemu/status | /usr/bin/dpdk-telemetry.py -f "$pa" 2>&1 | grep -o '"variant": "[A-Z]*"')
	vb=$(echo /syncemu/status | /usr/bin/dpdk-telemetry.py -f "$pb" 2>&1 | grep -o '"variant": "[A-Z]*"')
	[ "$va" = '"variant": "A"' ] && [ "$vb" = '"variant": "E"' ] &&
		ok "each answers its own /syncemu/status (A and E)" || bad "telemetry answers: '$va' and '$vb'"
	kill -INT "$ra" "$rb"
	wait "$ra" "$rb"
	dir=$(dirname "$sa")
	[ ! -e "$dir" ] && ok "the runtime directory $dir is removed at exit" || bad "$dir is left: $(ls -A "$dir")"
else
	echo "skip - /usr/bin/dpdk-telemetry.py is not installed (the telemetry checks)"
fi

finish
