#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Values that would overflow what they go into are refused at load, naming the key, the value,
# what overflows and the largest value that works (exit 3, nothing run):
#   - a limit of the model's (a time in 64-bit picoseconds, a rate in integer B/s, a finite step):
#     syncemu model and syncemu run give the same refusal;
#   - a run's (a round's frames against the 32-bit frame number, the run's virtual time): run and
#     sweep refuse it, model does not need to; the largest value for a run's virtual time runs
#     and equals the closed form, one above it is refused;
#   - a live `set` through the control socket is refused the same way (the run goes on), and a
#     long latency that fits is taken and the run goes on;
#   - a list item that names nothing (report.variants=zz) is refused, naming it;
#   - with a link-kernel program, its 32-bit fields (job.value_bytes).
# Usage: limits.sh SYNCEMU [DECK.bpf.o] (run from the source root)
set -u
. "$(dirname "$0")/lib.sh"
se=$1
deck=${2:-not-built}
command -v python3 >/dev/null || skip "python3 is not installed"

# reason FILE: the refusal less its prefix ("syncemu run: ") and the value that works
reason() { sed -e 's/^syncemu [a-z]*: //' -e 's/; the largest value that works is .*//' "$1"; }

# the model's limits: the same refusal from model and run
for set in "wan.latency=1e300 s" "wan.bandwidth=1e30 B/s" "job.parameters=1e308" "module.lane_rate=1e30 bit/s"; do
	expect_rc 3 "model refuses $set" -- "$se" model --set "$set"
	cp "$tmp/err" "$tmp/model.err"
	expect_rc 3 "run refuses $set" -- "$se" run -v A -n 1 -q --trace none --set "$set"
	expect_grep "$tmp/err" "--set '$set': [${set%%.*}] " "names the key and where it was set"
	expect_grep "$tmp/err" "the largest value that works is " "gives the largest value that works"
	if [ "$(reason "$tmp/model.err")" = "$(reason "$tmp/err")" ]; then
		ok "$set: model and run refuse it for the same reason"
	else
		bad "$set: model: $(cat "$tmp/model.err") / run: $(cat "$tmp/err")"
	fi
done
expect_grep "$tmp/model.err" "optics stage" "the module's derived stage rate is checked too"

# job.parameters = 1e26 no longer runs into "queued 0 of 0 bytes": refused, the key named
expect_rc 3 "run refuses job.parameters = 1e26" -- "$se" run -v A -n 1 -q --trace none --set job.parameters=1e26
expect_grep "$tmp/err" "[job] parameters = '1e26': too large" "names job.parameters"
expect_grep "$tmp/err" "32-bit frame numbers" "says what overflows"
expect_rc 0 "the model takes it (its numbers are doubles)" -- "$se" model --set job.parameters=1e26
expect_rc 3 "a sweep refuses a point beyond a run's limit before running any" -- "$se" sweep --key job.parameters --values 1e7,1e26 -v A -n 1 -o "$tmp/sweep"
expect_grep "$tmp/err" "[job] parameters = '1e26'" "names the point's key and value"
[ -e "$tmp/sweep" ] && bad "the sweep wrote output" || ok "nothing written"

# wan.latency is worker to worker across DCs: below intra.latency, refused alike by model, run
# and scenario check, naming the key and the smallest that works
for cmd in model "scenario check" "run -v A -n 1 -q --trace none"; do
	# shellcheck disable=SC2086
	expect_rc 3 "$cmd refuses wan.latency = 1 us under intra.latency = 10 us" -- "$se" $cmd scenarios/2dc4-100g.ini --set wan.latency=1us
	expect_grep "$tmp/err" "[wan] latency = '1us': too small: wan.latency (1 us) is below intra.latency (10 us)" "names wan.latency and why"
	expect_grep "$tmp/err" "the smallest value that works is 10 us" "and the smallest that works"
done
# a bridge's wan.latency is its one link's own (no workers, no intra-DC links): from 0
expect_rc 0 "a bridge takes wan.latency = 0 s" -- "$se" bridge --a ring:x --b ring:y -d 0.1s -q --set wan.latency=0s
expect_rc 0 "wan.latency = 0 s runs with intra.latency = 0 s" -- "$se" run -v A -n 1 -q --trace none --set intra.latency=0s --set wan.latency=0s
[ -s "$tmp/err" ] && bad "a short run said something under --quiet: $(cat "$tmp/err")" || ok "a short run says nothing under --quiet"

# the run's virtual time: the largest latency of a one-step run runs, equal to the closed form
expect_rc 3 "wan.latency = 9e6 s for one step" -- "$se" run -v A -n 1 -q --trace none --set trace.queue_sample=0s --set "wan.latency=9e6 s"
expect_grep "$tmp/err" "virtual time" "the run's virtual time would overflow"
max=$(sed -n 's/.*the largest value that works is \(.*\) (with.*/\1/p' "$tmp/err")
[ -n "$max" ] && ok "largest wan.latency: $max" || bad "no largest value in $(cat "$tmp/err")"
expect_rc 0 "wan.latency = $max runs" -- "$se" run -v A -n 1 -q -j --trace none --set trace.queue_sample=0s --set "wan.latency=$max"
expect_grep "$tmp/err" "syncemu run: these runs emulate up to 106.8 days of virtual time (run.steps = 1" \
	"says at its start, under --quiet too, how long the emulated time is"
python3 - "$tmp/out" <<'PY' && ok "and equals the closed form over its 106 days" || bad "wan.latency = $max: $(head -c 300 "$tmp/out")"
import json, sys
r = json.load(open(sys.argv[1]))["summary"]["rows"][0]
assert r["status"] == "ok" and r["max_rel_diff"] == 0 and r["emulated_ms"] > 9e9 * 0.99, r
PY
above=$(python3 -c "import math,sys; print(repr(math.nextafter(float(sys.argv[1].split()[0]), math.inf)) + ' s')" "$max")
expect_rc 3 "wan.latency = $above (the next double) is refused" -- "$se" run -v A -n 1 -q --trace none --set trace.queue_sample=0s --set "wan.latency=$above"

# a list item that names nothing
expect_rc 2 "report.variants = zz (a --set value its key refuses: a bad command line)" -- "$se" run -n 1 -q --trace none --set report.variants=zz
expect_grep "$tmp/err" "unknown variant 'zz'" "names the item"
expect_rc 2 "module.compute_ops = fft,zz" -- "$se" model --set module.compute_ops=fft,zz
expect_grep "$tmp/err" "unknown op 'zz'" "names the op"

# a link-kernel program's 32-bit fields
if [ -f "$deck" ]; then
	expect_rc 3 "job.value_bytes beyond 32 bits with a kernel program" -- "$se" run -v "E'" -b free -n 1 -q --trace none --set "module.kernel=$deck" --set "job.value_bytes=1e10 B"
	expect_grep "$tmp/err" "32-bit fields" "says the program's fields are 32 bits"
else
	echo "skip - the sample kernel is not built: no check of its fields"
fi

# a live set: refused with the same message, the run goes on; a long latency that fits is taken
sock=$tmp/ctl.sock
prefix=syncemu-limits-test-$$
run_pid=
cleanup() {
	[ -n "$run_pid" ] && kill -9 "$run_pid" 2>/dev/null
	rm -rf "$tmp" "/var/run/dpdk/$prefix" "${XDG_RUNTIME_DIR:-/nonexistent}/dpdk/$prefix"
}
trap cleanup EXIT
"$se" run -v A -n 100000 --ctl "$sock" --trace none -j -q \
	--eal "--no-huge --no-pci --no-shconf -l 0 --iova-mode=va --log-level=*:error --file-prefix=$prefix" \
	>"$tmp/run.json" 2>"$tmp/run.err" &
run_pid=$!
for _ in $(seq 100); do "$se" ctl "$sock" status 2>/dev/null | grep -q '"running": 1' && break; sleep 0.1; done
"$se" ctl "$sock" status >"$tmp/st" 2>&1 && grep -q '"running": 1' "$tmp/st" && ok "the run serves $sock" ||
	{ bad "no run on $sock: $(cat "$tmp/run.err")"; finish; }
expect_rc 1 "set wan.latency 1e300 s is refused" -- "$se" ctl "$sock" set wan.latency 1e300 s
expect_grep "$tmp/out" "[wan] latency = '1e300 s': too large" "names the key and the value"
expect_grep "$tmp/out" "64 bits of a time in picoseconds" "says what overflows"
expect_grep "$tmp/out" "the largest value that works is" "gives the largest that works"
expect_rc 1 "set wan.latency 100 s is refused: 100000 steps of it pass the clock" -- "$se" ctl "$sock" set wan.latency 100 s
expect_grep "$tmp/out" "virtual time" "the run's virtual time"
expect_rc 0 "status: the run goes on" -- "$se" ctl "$sock" status
grep -q '"running": 1' "$tmp/out" && ok "still running" || bad "not running: $(cat "$tmp/out")"
done0=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['steps_done'])" "$tmp/out")
expect_rc 0 "set wan.latency 9 s is taken (18 s steps: no stall)" -- "$se" ctl "$sock" set wan.latency 9 s
after=0
for _ in $(seq 100); do
	"$se" ctl "$sock" status >"$tmp/st" 2>/dev/null
	after=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['steps_done'])" "$tmp/st" 2>/dev/null || echo 0)
	[ "$after" -gt $((done0 + 3)) ] && break
	sleep 0.1
done
[ "$after" -gt $((done0 + 3)) ] && ok "steps go on at 9 s of latency ($done0 -> $after)" || bad "steps stuck at $after (from $done0): $(cat "$tmp/st")"
kill -INT "$run_pid"
rc=0
wait "$run_pid" || rc=$?
run_pid=
[ "$rc" -eq 130 ] && ok "SIGINT ends the run (exit 130)" || bad "exit $rc: $(tail -3 "$tmp/run.err")"

finish
