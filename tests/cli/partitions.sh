#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Partitions ([run] partitions): the same run cut into 2, 3 and 8 engines on two lcores gives the
# trace and the report of one engine, byte for byte (the report less what says how it ran: wall
# time, frame rate, partitions, windows), on 2 x 4, 8 x 1, 8 x 8 and a mixed shape (3 DCs of 5
# on a star WAN, modules on the network), at zero load and under background load; then more
# partitions than lcores, auto, and the values refused.
# Usage: partitions.sh SYNCEMU_BINARY [quick] (run from the source root); quick (the sanitizer
# build, for memory errors rather than results): 2 x 4 and 3 x 5 under load only.
set -u
. "$(dirname "$0")/lib.sh"
cli=$(realpath "$(dirname "$0")")
se=$(realpath "$1")
quick=${2:-}
command -v python3 >/dev/null || skip "python3 is not installed"
# two lcores (a CPU each where there are two): the partitions share them as they would anywhere
base="--no-huge --no-pci --no-shconf --iova-mode=va --log-level=*:error"
eal="$base -l 0-1"
[ "$(nproc)" -ge 2 ] || eal="$base --lcores 0@0,1@0"


# same LABEL "CAPTURE" ARGS...: partitions 1 (the reference), 2, 3 and 8, each in a directory of
# its own (the trace's header names its file: the same name in each)
same() {
	local label=$1 cap=$2 d=$tmp/run p rc word q why
	shift 2
	rm -rf "$d"
	for p in 1 2 3 8; do
		mkdir -p "$d/$p"
		rc=0
		(cd "$d/$p" && "$se" run -q --json --trace t.pcapng -c "$cap" --eal "$eal" \
			--set run.partitions=$p "$@" >r.json 2>err) || rc=$?
		if [ $rc -ne 0 ]; then
			bad "$label, $p partitions: exit $rc: $(head -c 300 "$d/$p/err")"
			return
		fi
	done
	for p in 2 3 8; do
		if why=$(python3 "$cli/same_report.py" "$d/1/r.json" "$d/$p/r.json" partitions 2>&1); then
			ok "$label, $p partitions: the report of one"
		else
			bad "$label, $p partitions: the report $why"
		fi
	done
	for p in 2 3 8; do
		if cmp -s "$d/1/t.pcapng" "$d/$p/t.pcapng"; then
			ok "$label, $p partitions: the trace of one, byte for byte ($(stat -c %s "$d/1/t.pcapng") B)"
		else
			bad "$label, $p partitions: the trace differs: $(cmp "$d/1/t.pcapng" "$d/$p/t.pcapng" 2>&1 | head -1)"
		fi
	done
}

# 2 x 4 (8 partitions: cut inside each DC at the workers' NIC links); E' puts modules on the
# network (a switch's link to a module is cut too), E a pluggable
same "2x4 load 0.5" wan,rx,module,bg -n 1 -v "A,E'" -b free --load 0.5
if [ "$quick" != quick ]; then
# every capture point
same "2x4" all -n 1 -v "E,E'" -b free
# 8 x 1: one worker a DC, every partition whole DCs
same "8x1" wan,rx,tx -n 1 -v A --set topology.data_centres=8 --set topology.workers_per_dc=1
same "8x1 load 0.5" wan,rx,bg -n 1 -v A --set topology.data_centres=8 \
	--set topology.workers_per_dc=1 --load 0.5
# 8 x 8: the WAN, then the background
same "8x8" wan -n 1 -v A --set topology.data_centres=8 --set topology.workers_per_dc=8
same "8x8 load 0.7" wan,bg -n 1 -v A --set topology.data_centres=8 \
	--set topology.workers_per_dc=8 --load 0.7
# mixed: 3 DCs of 5 on a star WAN (its core switch in DC 0's partition), step sync over two
# steps, modules on the network
same "3x5 star" wan,rx,module -n 2 -v "E'" -b free --set topology.data_centres=3 \
	--set topology.workers_per_dc=5 --set topology.wan=star --set run.sync=step
fi
# and under load without sync (the steps overlap across partitions)
same "3x5 star load 0.4, no sync" wan,rx,bg -n 2 -v A --set topology.data_centres=3 \
	--set topology.workers_per_dc=5 --set topology.wan=star --set run.sync=none --load 0.4

# more partitions than lcores (one lcore), auto (a run too short to gain: one engine, and it says
# so), more than the workers (as many as workers): each the report of one engine
d=$tmp/run
rm -rf "$d"
mkdir -p "$d/1" "$d/4" "$d/auto" "$d/4096"
expect_rc 0 "one partition" -- "$se" run -q --json -v A -n 2
cp "$tmp/out" "$d/1/r.json"
expect_rc 0 "4 partitions on one lcore" -- "$se" run -q --json -v A -n 2 \
	--set run.partitions=4 --eal "--no-huge --no-pci --no-shconf --iova-mode=va --log-level=*:error -l 0"
cp "$tmp/out" "$d/4/r.json"
expect_rc 0 "partitions = auto" -- "$se" run -q --json -v A -n 2 \
	--set run.partitions=auto
cp "$tmp/out" "$d/auto/r.json"
expect_rc 0 "more partitions than workers" -- "$se" run -q --json -v A -n 2 \
	--set run.partitions=4096
cp "$tmp/out" "$d/4096/r.json"
for p in 4 auto 4096; do
	why=$(python3 "$cli/same_report.py" "$d/1/r.json" "$d/$p/r.json" 2>&1) &&
		ok "partitions $p: the report of one" || bad "partitions $p: the report $why"
done
python3 - "$d" "$(nproc)" <<'PY' && ok "4 on 1 lcore; auto on a short run: one engine, saying why; 4096 of 8 workers: 8" || bad "partitions and lcores: $(head -c 300 "$d/auto/r.json")"
import json, sys
d, cpus = sys.argv[1], int(sys.argv[2])
pl = lambda k: [(r["partitions"], r["lcores"]) for r in json.load(open(d + "/%s/r.json" % k))["runs"]][0]
assert pl(4) == (4, 1), pl(4)
assert pl("auto") == (1, 1), pl("auto")
a = json.load(open(d + "/auto/r.json"))["runs"][0]["partitions_auto"]
assert a["partitions"] == 1 and a["pairs"] == 0 and "too short" in a["why"], a
assert pl(4096)[0] == 8, pl(4096)
PY
# two lcores on one CPU (as when other work holds the CPUs): an lcore waiting for one the
# kernel has descheduled sleeps once its spin is over (it cannot spin the other onto the CPU), and
# the lcore that runs takes the other's partitions; the report is still one engine's
mkdir -p "$d/one_cpu"
expect_rc 0 "two partitions, two lcores on one CPU" -- "$se" run -q --json -v A -n 2 \
	--set run.partitions=2 --eal "$base --lcores 0@0,1@0"
cp "$tmp/out" "$d/one_cpu/r.json"
why=$(python3 "$cli/same_report.py" "$d/1/r.json" "$d/one_cpu/r.json" partitions 2>&1) &&
	ok "two lcores on one CPU: the report of one" || bad "two lcores on one CPU: the report $why"
python3 - "$d/one_cpu/r.json" <<'PY' && ok "two lcores on one CPU: the waits slept (lcore_sleeps), partitions were taken over" || bad "two lcores on one CPU: $(head -c 300 "$d/one_cpu/r.json")"
import json, sys
r = json.load(open(sys.argv[1]))["runs"][0]
assert (r["partitions"], r["lcores"]) == (2, 2), (r["partitions"], r["lcores"])
assert r["lcore_sleeps"] > 0 and r["partition_steals"] >= 0, (r["lcore_sleeps"], r["partition_steals"])
PY
# auto on a run long enough to calibrate (about 4.3 M frames: 8.7 M events expected, over the
# threshold of 2^23): the first events as one engine and in a partition per lcore, the faster
# chosen; whichever it is, the trace and report are one engine's (the sanitizer build: the
# calibration alone, its samples ended in mid-step, for memory errors)
if [ "$(nproc)" -ge 2 ]; then
	mkdir -p "$d/cal1" "$d/calauto"
	(cd "$d/calauto" && "$se" run -q --json -v A -n 80 --trace t.pcapng -c wan \
		--set run.partitions=auto >r.json 2>err) ||
		bad "auto, calibrated: $(head -c 300 "$d/calauto/err")"
	if [ "$quick" != quick ]; then
		(cd "$d/cal1" && "$se" run -q --json -v A -n 80 --trace t.pcapng -c wan \
			--set run.partitions=1 >r.json 2>err) ||
			bad "auto, the reference: $(head -c 300 "$d/cal1/err")"
		why=$(python3 "$cli/same_report.py" "$d/cal1/r.json" "$d/calauto/r.json" 2>&1) &&
			ok "auto, calibrated: the report of one" || bad "auto, calibrated: the report $why"
		cmp -s "$d/cal1/t.pcapng" "$d/calauto/t.pcapng" &&
			ok "auto, calibrated: the trace of one" || bad "auto, calibrated: the trace differs"
	fi
	python3 - "$d/calauto/r.json" <<'PY' && ok "auto, calibrated: its verdict, the speedup it saw and why, in the JSON" || bad "auto, calibrated: $(head -c 400 "$d/calauto/r.json")"
import json, sys
r = json.load(open(sys.argv[1]))["runs"][0]
a = r["partitions_auto"]
assert a["pairs"] >= 1 and a["tried"] == 2 and a["lcores"] == 2, a
assert a["sample_events"] >= 1 << 17 and a["calibration_s"] > 0, a
g = a["speedup"]
assert a["partitions"] == (2 if g >= 1.10 else 1) == r["partitions"], (a, r["partitions"])
assert "times as fast as one engine" in a["why"], a
assert any(n.startswith("partitions = auto: %d (" % a["partitions"])
           for n in json.load(open(sys.argv[1]))["summary"]["notes"]), "no note"
PY
fi
# a WAN with no delay beyond the intra-DC latency (a star's links: 0 and 0): nothing to look ahead
# by, so one engine, not a failed build
expect_rc 0 "a WAN link without delay" -- "$se" run -q --json -v A -n 1 --set run.partitions=3 \
	--set topology.data_centres=3 --set topology.workers_per_dc=2 --set topology.wan=star \
	--set wan.latency=10us
python3 -c 'import json, sys; assert json.load(sys.stdin)["runs"][0]["partitions"] == 1' \
	<"$tmp/out" && ok "no delay to cut at: one partition" || bad "no delay: $(head -c 200 "$tmp/out")"
expect_rc 0 "the scenario dump writes partitions = auto" -- "$se" scenario dump --set run.partitions=auto
expect_grep "$tmp/out" "partitions = auto" "dump: partitions = auto"

# a long step in two partitions (a 60 GB job, about 205 M frames a step): progress within it,
# and Ctrl-C leaves it out (as tests/cli/run.sh in one engine; where the signal meets the step
# is counted in events, 2^23 a progress line, about 54 of them a step, so it lands in step 1)
"$se" run -v A -n 2 -j --set job.bytes=60GB --set run.partitions=2 --eal "$eal" \
	>"$tmp/long.json" 2>"$tmp/long.err" &
sigint_in_step1 $! "$tmp/long.err"
[ $rc -eq 130 ] && ok "a long step in two partitions: Ctrl-C, exit 130" || bad "a long step in partitions: exit $rc, not 130"
python3 - "$tmp/long.json" <<'PY' && ok "the step in progress is left out of the report" || bad "the interrupted report: $(head -c 300 "$tmp/long.err")"
import json, sys
r = json.load(open(sys.argv[1]))["runs"][0]
assert r["interrupted"] and r["status"] == "interrupted", r["status"]
assert r["steps"]["rows"] == [] and r["partitions"] == 2, (r["steps"]["rows"], r["partitions"])
PY

# refused: with the key named
for v in 0 4097 two -1; do
	expect_rc 2 "partitions = $v is refused" -- "$se" run -q -v A -n 1 --set run.partitions=$v
	expect_grep "$tmp/err" "run.partitions" "partitions = $v: the error names the key"
done
# (real time in partitions: tests/cli/realtime.sh)
expect_rc 3 "a real-time run split over processes, in partitions, is refused" -- "$se" run -q \
	-v A -n 1 --set run.partitions=2 --set run.clock=real --set ports.local=0 \
	--set ports.dc0=ring:pa
expect_grep "$tmp/err" "run.partitions: a real-time run split over processes" \
	"real time split and partitions: the error says why"

[ "$fails" -eq 0 ]
