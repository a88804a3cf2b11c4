#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The exact fast-forward (run.fast_forward = exact, dataplane/ffwd.h): a run whose steps repeat
# replays them, and gives what emulating each gives, byte for byte: the JSON report (less what
# says how it ran), every step's CSV, every sample of the WAN queues and the pcapng trace (at
# every capture point, cut at 70 bytes or whole frames); on every variant and
# budget, phase and step sync, the scenarios 1 x 8, 2 x 4 (100G and the WAN-bound 8G, whose
# queues fill), 8 x 1 on a ring, a mesh and a star, each collective, wire accounting at MTU
# 1500, bursts of 3, fast queue samples, and the fewest steps it can replay.  It replays all but
# the first three steps and the last, and says so; the runs it cannot replay say why, and are
# the same too.
# Usage: ffwd.sh SYNCEMU_BINARY [quick] (run from the source root); quick (the sanitizer build,
# for memory errors rather than results): four cases, one with a trace.
set -u
. "$(dirname "$0")/lib.sh"
cli=$(realpath "$(dirname "$0")")
se=$(realpath "$1")
quick=${2:-}
command -v python3 >/dev/null || skip "python3 is not installed"

# same LABEL REPLAYED ARGS...: the run with fast-forward and without give the same results; each
# run replayed REPLAYED steps (a number), or none for the reason REPLAYED names
same() {
	local label=$1 want=$2 m rc why
	shift 2
	for m in exact off; do
		rc=0
		"$se" run -q --json --csv "$tmp/$m.csv" --queue-csv "$tmp/$m.q" \
			--set run.fast_forward=$m "$@" >"$tmp/$m.json" 2>"$tmp/$m.err" || rc=$?
		if [ $rc -ne 0 ]; then
			bad "$label, fast_forward = $m: exit $rc: $(head -c 300 "$tmp/$m.err")"
			return
		fi
	done
	if why=$(python3 "$cli/same_report.py" "$tmp/off.json" "$tmp/exact.json" 2>&1); then
		ok "$label: the report of every step emulated"
	else
		bad "$label: the reports differ: $why"
	fi
	cmp -s "$tmp/off.csv" "$tmp/exact.csv" && ok "$label: every step's CSV, byte for byte" ||
		bad "$label: the steps' CSVs differ: $(cmp "$tmp/off.csv" "$tmp/exact.csv" 2>&1)"
	cmp -s "$tmp/off.q" "$tmp/exact.q" && ok "$label: every queue sample, byte for byte" ||
		bad "$label: the queue samples differ: $(cmp "$tmp/off.q" "$tmp/exact.q" 2>&1)"
	if why=$(python3 - "$tmp/exact.json" "$want" <<-'PY' 2>&1
	import json, sys
	want = sys.argv[2]
	for r in json.load(open(sys.argv[1]))["runs"]:
	    ff = r["fast_forward"]
	    if want.isdigit():
	        assert ff["replayed_steps"] == int(want), (r["label"], ff)
	        assert ff["emulated_steps"] == r["steps_kept"]["of"] - int(want), (r["label"], ff)
	        assert ff["events_run"] < r["events"], (r["label"], ff)
	    else:
	        assert ff["replayed_steps"] == 0 and want in ff["why_not"], (r["label"], ff)
	print("ok")
	PY
	); then
		[[ $want =~ ^[0-9]+$ ]] && ok "$label: $want steps replayed in each run, and said" ||
			ok "$label: none replayed: $want"
	else
		bad "$label: the fast-forward's figures: $why"
	fi
}

# same_trace LABEL ARGS...: the trace of 8 steps (ARGS may say fewer) with fast-forward and
# without: every block the same but the section header (it names the command line)
same_trace() {
	local label=$1 m rc why
	shift
	for m in exact off; do
		rc=0
		"$se" run -q --json -n 8 --trace "$tmp/$m.pcapng" --set run.fast_forward=$m "$@" \
			>"$tmp/$m.json" 2>"$tmp/$m.err" || rc=$?
		if [ $rc -ne 0 ]; then
			bad "$label, fast_forward = $m: exit $rc: $(head -c 300 "$tmp/$m.err")"
			return
		fi
	done
	if why=$(python3 - "$tmp/off.pcapng" "$tmp/exact.pcapng" "$tmp/exact.json" <<-'PY' 2>&1
	import json, struct, sys
	def blocks(path):
	    d, off = open(path, "rb").read(), 0
	    while off < len(d):
	        t, n = struct.unpack_from("<II", d, off)
	        yield d[off:off + n]
	        off += n
	a, b = list(blocks(sys.argv[1])), list(blocks(sys.argv[2]))
	assert len(a) == len(b), "%d blocks against %d" % (len(b), len(a))
	bad = [i for i in range(1, len(a)) if a[i] != b[i]]
	assert not bad, "%d blocks differ, the first %d of %d" % (len(bad), bad[0], len(a))
	ff = [r["fast_forward"] for r in json.load(open(sys.argv[3]))["runs"]]
	assert all(f["replayed_steps"] > 0 for f in ff), ff
	print("%d blocks, %s steps replayed" % (len(a), "+".join(str(f["replayed_steps"]) for f in ff)))
	PY
	); then
		ok "$label: the trace of every step emulated ($why)"
	else
		bad "$label: $why"
	fi
}

if [ "$quick" = quick ]; then
	same "2 x 4, A and E'[free], 12 steps" 8 -v A,"E'" -b free -n 12
	same "2 x 4 at 8 Gbit/s (queues fill), A, 10 steps" 6 scenarios/2dc4-8g.ini -v A -n 10
	same "background load" "background load" -v A -n 6 --load 0.3
	same_trace "a trace" -c wan,module -v "E'" -b free --set job.parameters=2e6
	finish
fi

same "2 x 4, every variant and budget, 9 steps" 5 -v all -b all -n 9
same "2 x 4, step sync" 4 -v all -b free -n 8 --set run.sync=step
same "1 x 8" 4 scenarios/1dc8.ini -v all -b free -n 8
same "2 x 4 at 8 Gbit/s (queues fill), every budget" 8 scenarios/2dc4-8g.ini -v all -b all -n 12
same "8 x 1 ring" 4 scenarios/8dc1-25g.ini -v all -b free -n 8
same "8 x 1 mesh" 4 scenarios/8dc1-25g.ini -v A,"E'" -n 8 --set topology.wan=mesh
same "8 x 1 star" 4 scenarios/8dc1-25g.ini -v A,"E'" -n 8 --set topology.wan=star
for c in ring tree direct; do
	same "collective $c" 4 -v A,C -n 8 --set job.collective=$c
done
same "wire accounting, MTU 1500" 4 -v A,E -b all -n 8 --set run.accounting=wire --set run.mtu=1500
same "bursts of 3" 4 -v A -n 8 --set run.burst=3
same "a queue sample every 1 us" 16 -v A -n 20 --set trace.queue_sample=1us
same "5 steps: one replayed" 1 -v A -n 5
same "4 steps" "fewer than 5 steps" -v A -n 4
same "no sync" "run.sync = none" -v A -n 12 --set run.sync=none
same "background load" "background load" -v A -n 6 --load 0.3
same "TCP" "TCP" -v A -n 6 --set job.transport=tcp
same "impairments" "impairments" -v A -n 6 --set impair.wan="jitter 10us"
same "off" "run.fast_forward = off" -v A -n 6 --set run.fast_forward=off

for args in "-c wan,module,tx -v A,E' -b free --set job.parameters=2e6" \
	"-c all --snaplen 70 -v C -n 6 --set job.parameters=2e6" \
	"-c wan --snaplen 0 -v A -n 6 --set job.parameters=5e5 --set job.topk_kept=0"; do
	# shellcheck disable=SC2086
	same_trace "trace $args" $args
done

# a real reader: tshark with syncemu's dissector reads the replayed trace as the emulated one,
# step by step (the same frames in each of the 8 steps, the departures the header gives)
if tshark_ok; then
	for m in exact off; do
		"$se" run -q -n 8 -v A --set job.parameters=2e6 --trace "$tmp/$m.pcapng" \
			--set run.fast_forward=$m >/dev/null 2>&1
		tshark -X lua_script:tools/wireshark/syncemu.lua -r "$tmp/$m.pcapng" -Y syncemu \
			-T fields -e frame.time_epoch -e syncemu.step -e syncemu.departure_ns \
			>"$tmp/$m.tshark" 2>"$tmp/$m.tshark.err"
	done
	if cmp -s "$tmp/off.tshark" "$tmp/exact.tshark" &&
		[ "$(cut -f2 "$tmp/exact.tshark" | sort -un | tr '\n' ' ')" = "0 1 2 3 4 5 6 7 " ] &&
		[ "$(cut -f2 "$tmp/exact.tshark" | sort -n | uniq -c | awk '{print $1}' | sort -u | wc -l)" = 1 ]; then
		ok "tshark and the dissector read the replayed trace as the emulated one: $(wc -l <"$tmp/exact.tshark") frames, 8 steps of equal count"
	else
		bad "tshark reads the traces differently: $(cmp "$tmp/off.tshark" "$tmp/exact.tshark" 2>&1 | head -1) $(head -c 200 "$tmp/exact.tshark.err")"
	fi
else
	echo "skip - tshark is not installed or this is the sanitizer build (the dissector's check)"
fi

# the text says how many steps were replayed
expect_rc 0 "the text report" -- "$se" run -v A -n 20
expect_grep "$tmp/out" "fast-forward: 16 of 20 steps replayed" "it says how many were replayed"
finish
