#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Every command's --json against its JSON Schema (tools/schemas/): model, run (zero load, under
# load, a failed run, the background alone, steady), sweep, validate (a syncemu trace, a job's streams, bursts), bridge; and
# documents broken on purpose are refused (the schemas hold something).
# Usage: schemas.sh SYNCEMU
set -u
. "$(dirname "$0")/lib.sh"
se=$1
here=$(cd "$(dirname "$0")" && pwd)
schemas=$(cd "$here/../../tools/schemas" && pwd)
python3 -c 'import jsonschema' 2>/dev/null || skip "python3-jsonschema is not installed"
check() {	# check COMMAND DESC FILE...
	local cmd=$1 desc=$2
	shift 2
	if python3 "$here/check_schema.py" "$schemas" "$cmd" "$@" >"$tmp/chk" 2>&1; then
		ok "$desc: valid against $cmd.schema.json"
	else
		bad "$desc against $cmd.schema.json"
		sed 's/^/    /' "$tmp/chk" | head -6
	fi
}

"$se" model --json >"$tmp/model.json" && "$se" model --json -v A,C -t step,wire >"$tmp/model2.json" &&
	"$se" model --json -v A -t step --set job.library=openmpi --set job.compute=5ms \
		--set job.transport=tcp --set transport.protocol=openmpi --set background.load=0.3 \
		--set background.transport=tcp >"$tmp/model3.json"
python3 -c 'import json, sys; s = json.load(open(sys.argv[1]))["scenario"]; t = s["transport"]
assert t["closed_form"] is False and t["wan_rounds"] >= 1 and t["handshakes"] >= 1, t
assert s["background"] == {"bulk": 0, "transport": "tcp", "load": 0.3, "closed_form": False}, s' \
	"$tmp/model3.json" && ok "model --json: the TCP terms, the reacting background, no closed form" ||
	bad "model --json: the TCP terms"
# DDP's 2 buckets (4 MiB of 1 MiB tensors) as gloo rings, both at once over TCP (job.threads 2):
# 4 ready round trips a bucket, 4 in series, not 8
"$se" model --json -v A -t step --set job.library=gloo --set transport.protocol=gloo \
	--set job.transport=tcp --set run.sync=none --set job.bytes=4194288B \
	--set topology.workers_per_dc=1 --set job.tensor_bytes=1050624B >"$tmp/model5.json"
python3 -c 'import json, sys; t = json.load(open(sys.argv[1]))["scenario"]["transport"]
assert (t["handshakes"], t["buckets_at_once"], t["handshakes_in_series"]) == (8, 2, 4), t
assert abs(t["handshake_extra_s"] - 4 * t["rtt_s"]) < 1e-12, t' "$tmp/model5.json" &&
	ok "model --json: two buckets at once pay their round trips once" ||
	bad "model --json: the buckets at once"
"$se" model --json -t step --set topology.wan=mesh --set job.collective=direct \
	--set topology.data_centres=4 >"$tmp/model4.json"
check model "model, all tables, two variants' tables, Open MPI's algorithm over TCP, direct on a mesh" "$tmp/model.json" \
	"$tmp/model2.json" "$tmp/model3.json" "$tmp/model4.json" "$tmp/model5.json"
"$se" run -q -n 25 -v A,E -b low --json --trace "$tmp/t.pcapng" >"$tmp/run.json"
"$se" run -q -n 25 -v A -l 0.4 --set queues.wan=1GB --json >"$tmp/runl.json"
"$se" run -q -n 5 -v A --set queues.wan=20kB --set queues.sync_lossless=no --json >"$tmp/rund.json"
"$se" run -q -n 2 -v A --set topology.workers_per_dc=1 --set job.bytes=1MiB --set job.transport=tcp \
	--set background.bulk=1 --json >"$tmp/runt.json"
"$se" run -q -n 2 -v A --set job.library=openmpi --set job.compute=1ms --json >"$tmp/runo.json"
"$se" run -q --background-only 5ms -l 0.5 --json >"$tmp/runb.json"
"$se" run -q -n 5 -v A -l 0.5 --set run.fast_forward=steady --json >"$tmp/runs.json"
check run "run at zero load with a trace, under load, one that failed (a queue below the sync), over TCP beside bulk flows, Open MPI's, the background alone, steady" \
	"$tmp/run.json" "$tmp/runl.json" "$tmp/rund.json" "$tmp/runt.json" "$tmp/runo.json" \
	"$tmp/runb.json" "$tmp/runs.json"
"$se" sweep -q -k background.load -r 0:0.4:0.2 -v A -n 10 -o "$tmp/sw" >/dev/null &&
	"$se" sweep -q -k module.planes -V 4,8 -v E -b free -n 3 -o "$tmp/sp" >/dev/null
check sweep "sweep of the load, of bit planes" "$tmp/sw/sweep.json" "$tmp/sp/sweep.json"
"$se" validate "$tmp/t.pcapng" --json >"$tmp/v1.json"
python3 "$here/job_captures.py" "$tmp"
"$se" validate "$tmp/job.pcap" --steps 5 --json >"$tmp/v2.json"
"$se" validate "$tmp/transfers.pcap" --json >"$tmp/v3.json"
check validate "validate: a syncemu trace, a job's steps, three transfers' bursts" "$tmp/v1.json" "$tmp/v2.json" "$tmp/v3.json"
"$se" bridge --a ring:x --b ring:y --set bridge.bandwidth_ab=100Mbit/s --set bridge.bandwidth_ba=100Mbit/s \
	--load 0.3 -d 1s -q -j >"$tmp/bridge.json" 2>"$tmp/err"
check bridge "bridge's summary" "$tmp/bridge.json"

# broken on purpose: a count that is not an integer, a missing member, a wrong command, a run of
# steps with no step time (only the background alone has none)
python3 - "$tmp" <<'PY'
import json, sys
d = sys.argv[1]
r = json.load(open(d + "/run.json")); r["runs"][0]["frames"] = 1.5
json.dump(r, open(d + "/bad1.json", "w"))
r = json.load(open(d + "/run.json")); del r["runs"][0]["steps"]
json.dump(r, open(d + "/bad2.json", "w"))
r = json.load(open(d + "/run.json")); r["scenario"]["queues_bytes"]["wan"] = "64MB"
json.dump(r, open(d + "/bad3.json", "w"))
s = json.load(open(d + "/sw/sweep.json")); s["command"] = "run"
json.dump(s, open(d + "/bad4.json", "w"))
r = json.load(open(d + "/run.json")); r["runs"][0]["step_ms"] = None
json.dump(r, open(d + "/bad5.json", "w"))
PY
for b in 1 2 3 5; do
	python3 "$here/check_schema.py" "$schemas" run "$tmp/bad$b.json" >"$tmp/chk" 2>&1 &&
		bad "broken run document $b passed" || ok "broken run document $b refused: $(head -c 120 "$tmp/chk" | sed "s|$tmp/||")"
done
python3 "$here/check_schema.py" "$schemas" sweep "$tmp/bad4.json" >/dev/null 2>&1 && bad "a sweep that says run passed" ||
	ok "a sweep document naming another command refused"
[ $fails -eq 0 ]
