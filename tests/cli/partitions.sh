#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Partitions ([run] partitions): the same run cut into 2, 3 and 8 engines on two lcores gives the
# trace and the report of one engine, byte for byte (the report less what says how it ran: wall
# time, frame rate, partitions, windows), on 2 x 4, 8 x 1, 8 x 8 and a mixed shape (3 DCs of 5
# on a star WAN, modules on the network), at zero load and under background load; then more
# partitions than lcores, auto, and the values refused.
# Usage: partitions.sh SYNCEMU_BINARY [quick] (run from the source root); quick (the sanitizer
# build, for memory errors rather than results): 2 x 4 under load only.
set -u
. "$(dirname "$0")/lib.sh"
se=$(realpath "$1")
quick=${2:-}
command -v python3 >/dev/null || skip "python3 is not installed"
# two lcores (a CPU each where there are two): the partitions share them as they would anywhere
eal="--no-huge --no-pci --no-shconf --iova-mode=va --log-level=*:error -l 0-1"
[ "$(nproc)" -ge 2 ] || eal="--no-huge --no-pci --no-shconf --iova-mode=va --log-level=*:error --lcores 0@0,1@0"

# The JSON report less what depends on how the run ran, not on what it emulated.
strip() {
	python3 - "$1" <<'PY'
import json, sys
HOW = {"wall_s", "mframes_per_s", "partitions", "lcores", "windows", "lookahead_ns",
       "partitions_busy_s", "partition_busiest_s"}
def clean(o):
    if isinstance(o, dict):
        return {k: clean(v) for k, v in o.items() if k not in HOW}
    if isinstance(o, list):
        return [clean(x) for x in o if not (isinstance(x, str) and x.startswith("engine: "))]
    return o
d = clean(json.load(open(sys.argv[1])))
print(json.dumps(d, indent=1, sort_keys=True))
PY
}

# same LABEL "CAPTURE" ARGS...: partitions 1 (the reference), 2, 3 and 8, each in a directory of
# its own (the trace's header names its file: the same name in each)
same() {
	local label=$1 cap=$2 p rc
	shift 2
	for p in 1 2 3 8; do
		mkdir -p "$tmp/$label/$p"
		rc=0
		(cd "$tmp/$label/$p" && "$se" run -q --json --trace t.pcapng -c "$cap" --eal "$eal" \
			--set run.partitions=$p "$@" >r.json 2>err) || rc=$?
		if [ $rc -ne 0 ]; then
			bad "$label, $p partitions: exit $rc: $(head -c 300 "$tmp/$label/$p/err")"
			return
		fi
		strip "$tmp/$label/$p/r.json" >"$tmp/$label/$p/r.txt"
	done
	python3 - "$tmp/$label/8/r.json" "$label" <<'PY' || bad "$label: 8 partitions were not cut as asked"
import json, sys
runs = json.load(open(sys.argv[1]))["runs"]
assert all(r["partitions"] > 1 and r["windows"] > 0 for r in runs), \
    [(r["partitions"], r["windows"]) for r in runs]
PY
	for p in 2 3 8; do
		if cmp -s "$tmp/$label/1/t.pcapng" "$tmp/$label/$p/t.pcapng"; then
			ok "$label, $p partitions: the trace of one, byte for byte ($(stat -c %s "$tmp/$label/1/t.pcapng") B)"
		else
			bad "$label, $p partitions: the trace differs: $(cmp "$tmp/$label/1/t.pcapng" "$tmp/$label/$p/t.pcapng" 2>&1 | head -1)"
		fi
		if cmp -s "$tmp/$label/1/r.txt" "$tmp/$label/$p/r.txt"; then
			ok "$label, $p partitions: the report of one"
		else
			bad "$label, $p partitions: the report differs"
			diff "$tmp/$label/1/r.txt" "$tmp/$label/$p/r.txt" | head -10
		fi
	done
	rm -f "$tmp/$label"/*/t.pcapng
}

# 2 x 4 (8 partitions: cut inside each DC at the workers' NIC links); E' puts modules on the
# network (a switch's link to a module is cut too), E a pluggable
same "2x4 load 0.5" wan,rx,tx,module,bg -n 2 -v "A,E'" -b free --load 0.5
if [ "$quick" != quick ]; then
# every capture point
same "2x4" all -n 1 -v "A,E,E'" -b free
# 8 x 1: one worker a DC, every partition whole DCs
same "8x1" wan,rx,tx,switch -n 1 -v A,B --set topology.data_centres=8 --set topology.workers_per_dc=1
same "8x1 load 0.5" wan,rx,bg -n 1 -v A --set topology.data_centres=8 --set topology.workers_per_dc=1 \
	--load 0.5
# 8 x 8: the WAN and the workers' receptions
same "8x8" wan,rx -n 1 -v A --set topology.data_centres=8 --set topology.workers_per_dc=8
same "8x8 load 0.7" wan,bg -n 1 -v A --set topology.data_centres=8 \
	--set topology.workers_per_dc=8 --load 0.7
# mixed: 3 DCs of 5 on a star WAN (its core switch in DC 0's partition), step sync
same "3x5 star" wan,rx,tx,module -n 2 -v "A,E'" -b free --set topology.data_centres=3 \
	--set topology.workers_per_dc=5 --set topology.wan=star --set run.sync=step
fi
same "3x5 star load 0.4, no sync" wan,rx,tx,bg -n 2 -v A --set topology.data_centres=3 \
	--set topology.workers_per_dc=5 --set topology.wan=star --set run.sync=none --load 0.4

# more partitions than lcores (one lcore), and auto (one per lcore): the same steps
expect_rc 0 "4 partitions on one lcore" -- "$se" run -q --json -v A -n 2 --set run.partitions=4 \
	--eal "--no-huge --no-pci --no-shconf --iova-mode=va --log-level=*:error -l 0"
strip "$tmp/out" >"$tmp/one-lcore.txt"
python3 - "$tmp/out" <<'PY' && ok "4 partitions ran on 1 lcore" || bad "4 partitions on one lcore: $(head -c 200 "$tmp/out")"
import json, sys
r = json.load(open(sys.argv[1]))["runs"][0]
assert r["partitions"] == 4 and r["lcores"] == 1, (r["partitions"], r["lcores"])
PY
expect_rc 0 "the same run in one partition" -- "$se" run -q --json -v A -n 2
strip "$tmp/out" >"$tmp/one.txt"
cmp -s "$tmp/one.txt" "$tmp/one-lcore.txt" && ok "4 partitions on one lcore: the report of one" ||
	bad "4 partitions on one lcore: the report differs"
expect_rc 0 "partitions = auto" -- "$se" run -q --json -v A -n 2 --set run.partitions=auto
python3 - "$tmp/out" "$(nproc)" <<'PY' && ok "auto: one partition per lcore, an lcore per CPU" || bad "auto: $(head -c 200 "$tmp/out")"
import json, sys
r = json.load(open(sys.argv[1]))["runs"][0]
want = min(int(sys.argv[2]), 8)
assert r["partitions"] == want and r["lcores"] == want, (r["partitions"], r["lcores"], want)
PY
expect_rc 0 "more partitions than workers: as many as there are workers" -- \
	"$se" run -q --json -v A -n 1 --set run.partitions=4096
python3 - "$tmp/out" <<'PY' && ok "4096 partitions of 8 workers: 8" || bad "clamp: $(head -c 200 "$tmp/out")"
import json, sys
r = json.load(open(sys.argv[1]))["runs"][0]
assert r["partitions"] == 8, r["partitions"]
PY
expect_rc 0 "the scenario dump writes partitions = auto" -- "$se" scenario dump --set run.partitions=auto
expect_grep "$tmp/out" "partitions = auto" "dump: partitions = auto"

# refused: with the key named
for v in 0 4097 two -1; do
	expect_rc 2 "partitions = $v is refused" -- "$se" run -q -v A -n 1 --set run.partitions=$v
	expect_grep "$tmp/err" "run.partitions" "partitions = $v: the error names the key"
done
expect_rc 3 "a real-time run in partitions is refused" -- "$se" run -q -v A -n 1 \
	--set run.partitions=2 --set run.clock=real --set ports.dc0=ring:pa --set ports.dc1=ring:pa
expect_grep "$tmp/err" "partitions" "real time and partitions: the error says why"

[ "$fails" -eq 0 ]
