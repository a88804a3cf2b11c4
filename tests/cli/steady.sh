#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# run.fast_forward = steady (a link's event delivers the frames due within run.steady_window;
# a link with at least that latency queues what comes in time order).  With the window auto
# (the least latency of a link) every queue is in time order, and a run under load gives what
# every frame emulated in order gives, byte for byte: the JSON report less the events run, every
# step's CSV, every queue sample at 1 us; at 6 x fewer events or better (7.6 x measured here,
# deterministic: the 1 us samples' 200,000 events are in both; 10.1 x without them); the same seed the same report; a trace changes none of it and holds the same
# records as off's (tshark), in another order, which syncemu validate reads and says.  A window
# past the links' latency queues some frames as they come: the report says how many links, and
# the mean and p99 step stay within 1 % (measured 0.006 % and 0).  At zero load it still
# replays the steps that repeat.  Partitions, real time and TCP are refused (exit 3: the
# scenario), a window out of range too (exit 2: --set's value).
# Usage: steady.sh SYNCEMU_BINARY [quick] (run from the source root); quick (the sanitizer build,
# for memory errors rather than results): 4 steps under load with a trace and without, refusals.
set -u
. "$(dirname "$0")/lib.sh"
here=$(cd "$(dirname "$0")" && pwd)
se=$(realpath "$1")
quick=${2:-}
command -v python3 >/dev/null || skip "python3 is not installed"

# run MODE NAME ARGS...: a run's JSON, step CSV and queue samples as $tmp/NAME.*
run() {
	local m=$1 name=$2 rc=0
	shift 2
	"$se" run -q --json --csv "$tmp/$name.csv" --queue-csv "$tmp/$name.q" \
		--set run.fast_forward=$m "$@" >"$tmp/$name.json" 2>"$tmp/$name.err" || rc=$?
	[ $rc -eq 0 ] || bad "$name ($m): exit $rc: $(head -c 300 "$tmp/$name.err")"
	return $rc
}
# same NAME_A NAME_B LABEL: the reports (less the events), step CSVs and queue samples
same() {
	local why
	if why=$(python3 "$here/same_report.py" "$tmp/$1.json" "$tmp/$2.json" steady 2>&1) &&
		cmp -s "$tmp/$1.csv" "$tmp/$2.csv" && cmp -s "$tmp/$1.q" "$tmp/$2.q"; then
		ok "$3: the report, every step and every queue sample of off, byte for byte"
	else
		bad "$3: $why; $(cmp "$tmp/$1.csv" "$tmp/$2.csv" 2>&1) $(cmp "$tmp/$1.q" "$tmp/$2.q" 2>&1)"
	fi
}

load=(-n 20 -v A -l 0.5 --seed 3 --set trace.queue_sample=1us)
if [ "$quick" != quick ]; then
	run off off "${load[@]}" && run steady st "${load[@]}" && same off st "load 0.5, window auto"
	if why=$(python3 - "$tmp/off.json" "$tmp/st.json" <<-'PY' 2>&1
	import json, sys
	o, s = (json.load(open(f))["runs"][0] for f in sys.argv[1:3])
	f = s["fast_forward"]
	assert o["fast_forward"]["steady_window_ns"] is None, o["fast_forward"]
	assert f["steady_window_ns"] == 5000 and f["steady_unordered_links"] == 0, f
	ratio = o["events"] / s["events"]
	assert ratio >= 6, f"events {o['events']} off, {s['events']} steady: {ratio:.2f} x"
	print(f"{ratio:.1f} x fewer events, window 5 us (the NIC links' latency)")
	PY
	); then
		ok "load 0.5: $why"
	else
		bad "load 0.5, the events: $why"
	fi
	run steady st2 "${load[@]}" &&
		python3 "$here/same_report.py" "$tmp/st.json" "$tmp/st2.json" >"$tmp/same" 2>&1 &&
		cmp -s "$tmp/st.q" "$tmp/st2.q" && ok "the same seed gives the same report and samples" ||
		bad "two steady runs differ: $(head -3 "$tmp/same")"
	# past the links' latency: some queues take frames as they come, within the bound
	run steady wide "${load[@]}" --set run.steady_window=20us
	if why=$(python3 - "$tmp/off.json" "$tmp/wide.json" <<-'PY' 2>&1
	import json, sys
	o, s = (json.load(open(f))["runs"][0] for f in sys.argv[1:3])
	f = s["fast_forward"]
	assert f["steady_window_ns"] == 20000 and f["steady_unordered_links"] > 0, f
	for k in ("mean", "p99"):
	    e = abs(s["step_ms"][k] / o["step_ms"][k] - 1)
	    assert e <= 0.01, f"{k}: {s['step_ms'][k]} against {o['step_ms'][k]}"
	print(f"{f['steady_unordered_links']} links out of order, {o['events'] / s['events']:.1f} x "
	      f"fewer events, the mean and p99 step within 1 %")
	PY
	); then
		ok "window 20 us: $why"
	else
		bad "window 20 us: $why"
	fi
	"$se" run -q -n 4 -v A -l 0.5 --set run.fast_forward=steady --set run.steady_window=20us \
		2>&1 | grep -q "links (latency below the window, or jitter) queued what came as it came" &&
		ok "its text report says which links queued frames as they came" ||
		bad "the text report does not say the window's order"
	python3 -c 'import jsonschema' 2>/dev/null &&
		{ python3 "$here/check_schema.py" "$here/../../tools/schemas" run "$tmp/st.json" \
			"$tmp/wide.json" >"$tmp/chk" 2>&1 &&
			ok "its JSON is valid against run.schema.json" || bad "schema: $(head -3 "$tmp/chk")"; }
fi

# a trace's records are made as the frames are queued, not in events of their own: the windows,
# and so the results, are those of the run without it; the records are off's, in another order
base=(-n 2 -v A -l 0.5 --seed 3)
tr=("${base[@]}" -c wan --snaplen 70)
"$se" run -q --json "${base[@]}" --set run.fast_forward=steady >"$tmp/a.json" &&
	"$se" run --json "${tr[@]}" --set run.fast_forward=steady --trace "$tmp/t.pcapng" \
		>"$tmp/b.json" 2>"$tmp/b.err" || bad "the traced run failed"
python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); del d["trace"]
json.dump(d, open(sys.argv[1], "w"))' "$tmp/b.json" &&
	python3 "$here/same_report.py" "$tmp/a.json" "$tmp/b.json" >"$tmp/same" 2>&1 &&
	ok "a trace changes none of the results" || bad "with a trace: $(head -3 "$tmp/same")"
n=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["runs"][0]["frames"])' "$tmp/a.json")
"$se" validate "$tmp/t.pcapng" >"$tmp/v.out" 2>&1 && [ -n "$n" ] &&
	grep -q "came with a timestamp below the previous one" "$tmp/v.out" &&
	ok "syncemu validate reads the trace (of a run of $n frames) and says its records are out of time order" ||
	bad "validate: $(tail -3 "$tmp/v.out")"
if tshark_ok; then
	"$se" run -q "${tr[@]}" --set run.fast_forward=off --trace "$tmp/o.pcapng" >/dev/null 2>&1
	for f in o t; do
		tshark -r "$tmp/$f.pcapng" -T fields -e frame.interface_id -e frame.time_epoch \
			-e frame.len -e data.data 2>/dev/null | LC_ALL=C sort >"$tmp/$f.rec"
	done
	[ -s "$tmp/t.rec" ] && cmp -s "$tmp/o.rec" "$tmp/t.rec" &&
		ok "tshark reads the same $(wc -l <"$tmp/t.rec") records as off's trace holds" ||
		bad "the steady trace's records are not off's: $(cmp "$tmp/o.rec" "$tmp/t.rec" 2>&1)"
fi

if [ "$quick" != quick ]; then
	"$se" run -q --json -n 20 -v A --set run.fast_forward=steady >"$tmp/z.json" || bad "zero load"
	python3 -c 'import json, sys; r = json.load(open(sys.argv[1]))["runs"][0]
f = r["fast_forward"]
assert f["replayed_steps"] == 16 and f["events_run"] < r["events"] / 4, f
assert r["step_ms"]["min"] == r["step_ms"]["max"], r["step_ms"]' "$tmp/z.json" &&
		ok "zero load: 16 of 20 steps replayed, every step the same" || bad "zero load: not replayed"
fi

refused() {	# refused LABEL CODE KEY ARGS...: exit CODE, the error naming KEY
	local label=$1 code=$2 key=$3 rc=0
	shift 3
	"$se" run -q -n 2 -v A --set run.fast_forward=steady "$@" >/dev/null 2>"$tmp/r.err" || rc=$?
	[ $rc -eq "$code" ] && grep -q "$key" "$tmp/r.err" && ok "$label: refused ($(head -c 100 "$tmp/r.err"))" ||
		bad "$label: exit $rc: $(head -c 200 "$tmp/r.err")"
}
refused "partitions" 3 "run.fast_forward = steady" --set run.partitions=2
refused "real time" 3 "run.fast_forward = steady" --set run.clock=real
refused "TCP" 3 "run.fast_forward = steady: TCP" --set job.transport=tcp
refused "bulk flows" 3 "run.fast_forward = steady: TCP" --set background.bulk=1
refused "a window of 0" 2 "run.steady_window" --set run.steady_window=0
refused "a window of 2 ms" 2 "run.steady_window" --set run.steady_window=2ms
[ $fails -eq 0 ]
