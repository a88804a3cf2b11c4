#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# syncemu report: pages from the JSON of the default run, a load sweep, a model and a job's
# capture validated, a --background-only run and a real-time run, opened in headless Chromium (no console error, every chart drawn, every
# slider moves its chart through the DOM; screenshots kept in SHOTS/); JSON of syncemu's shape
# with members it cannot draw: everything else drawn, the rest named; bad inputs refused with
# the file, line and column, the page never written over an input or left half-written.
# Usage: report.sh SYNCEMU SHOTS_DIR full|quick   (quick: the sanitizer build: short runs, no browser)
set -u
. "$(dirname "$0")/lib.sh"
se=$1
shots=$2
mode=${3:-full}
here=$(cd "$(dirname "$0")" && pwd)
chartjs=/usr/share/javascript/chart.js/chart.min.js
[ -r "$chartjs" ] || skip "Chart.js is not installed ($chartjs: apt-get install libjs-chart.js)"
mkdir -p "$shots"

# the inputs: the default run (the quick mode: 20 steps), a load sweep, the model, and a job's
# capture of 5 steps (two hosts, 50 kB each way per step) with the application's own times
# (job_captures.py, as validate.sh's)
steps=()
[ "$mode" = quick ] && steps=(-n 20)
expect_rc 0 "the default run, JSON" -- "$se" run -q --json "${steps[@]}"
cp "$tmp/out" "$tmp/run.json"
expect_rc 0 "a load sweep" -- "$se" sweep -q --key background.load --range 0:0.6:0.2 -v A,"E'" \
	-b free -n 30 --set queues.wan=1GB -o "$tmp/load"
expect_rc 0 "the model, JSON" -- "$se" model --json
cp "$tmp/out" "$tmp/model.json"
python3 "$here/job_captures.py" "$tmp"
expect_rc 0 "validate a job's capture" -- "$se" validate "$tmp/job.pcap" --steps 5 \
	--steps-csv "$tmp/job.csv" --rate 843.2Mbit/s --json
cp "$tmp/out" "$tmp/validate.json"
# and a syncemu trace validated two ways: its own runs' steps, and as bursts of any capture
expect_rc 0 "a run's trace" -- "$se" run -q -n 4 -v A,C --trace "$tmp/t.pcapng"
expect_rc 0 "validate it" -- "$se" validate "$tmp/t.pcapng" --json
cp "$tmp/out" "$tmp/vsync.json"
expect_rc 0 "validate three transfers (bursts)" -- "$se" validate "$tmp/transfers.pcap" --json
cp "$tmp/out" "$tmp/vbursts.json"

# the JSON says what made it, and the sweep carries its models between the swept values
python3 - "$tmp" <<'PY' && ok "each JSON names its command; the sweep's models at 41 loads and at each swept one, the model's at 121 bandwidths" || bad "the report's data in the JSON"
import json, sys
d = sys.argv[1]
for f, c in (("run.json", "run"), ("load/sweep.json", "sweep"), ("model.json", "model"),
             ("validate.json", "validate")):
    assert json.load(open(d + "/" + f))["command"] == c, f
s = json.load(open(d + "/load/sweep.json"))
cv = s["curves"]
xs = cv["x"]
assert cv["log_x"] is False and len(xs) == 43 and xs == sorted(xs) and xs[0] == 0 and xs[-1] == 0.6, xs
for ser in cv["series"]:
    assert len(ser["model_ms"]) == 43 and len(ser["model_fifo_ms"]) == 43, ser["run"]
    # the curve passes through the swept points' own model values (same seed, same syncs)
    for p in s["points"]:
        if p["run"] == ser["run"]:
            k = xs.index(p["x"])
            assert abs(ser["model_ms"][k] - p["model_ms"]) <= 1e-9 * p["model_ms"], (p, ser["model_ms"][k])
assert s["settings"]["queues_bytes"]["wan"] == 1e9 and s["settings"]["steps"] == 30
m = json.load(open(d + "/model.json"))["curves"]["wan_bandwidth"]
assert len(m["x_Bps"]) == 121 and all(len(x["time_to_target_s"]) == 121 for x in m["series"])
PY

# the pages
expect_rc 0 "report: model, run, sweep and validate in one page" -- "$se" report "$tmp/model.json" \
	"$tmp/run.json" "$tmp/load/sweep.json" "$tmp/validate.json" -o "$tmp/all.html"
expect_grep "$tmp/err" "wrote $tmp/all.html (4 inputs)" "says what it wrote"
cp "$tmp/all.html" "$tmp/again.html"
expect_rc 0 "the same inputs again" -- "$se" report "$tmp/model.json" "$tmp/run.json" \
	"$tmp/load/sweep.json" "$tmp/validate.json" -o "$tmp/all.html"
cmp -s "$tmp/all.html" "$tmp/again.html" && ok "the same page, byte for byte" || bad "the page differs run to run"
grep -q 'src=\|href="http\|https://' "$tmp/all.html" &&
	grep -o 'src=[^ >]*\|href="http[^"]*' "$tmp/all.html" | grep -v 'chartjs.org' | head -3
python3 - "$tmp/all.html" <<'PY' && ok "self-contained: no script or style loaded from elsewhere, the data escaped" || bad "the page loads something or leaks markup"
import re, sys
h = open(sys.argv[1]).read()
assert not re.search(r'<(script|link|img)[^>]+(src|href)=', h), "an external resource"
data = h.split('<script type="application/json" id="syncemu-data">', 1)[1].split("</script>", 1)[0]
assert "<" not in data
PY
expect_rc 0 "report of the run alone, to stdout" -- "$se" report "$tmp/run.json" -o -
head -c 15 "$tmp/out" | grep -q '<!DOCTYPE html>' && ok "a page on stdout" || bad "stdout: $(head -c 40 "$tmp/out")"

# bad inputs: named, nothing written
echo "keep me" >"$tmp/keep.html"
printf '{"syncemu": "0.1.0", "runs": [\n  {"label": }\n' >"$tmp/broken.json"
expect_rc 3 "a broken JSON" -- "$se" report "$tmp/run.json" "$tmp/broken.json" -o "$tmp/keep.html"
expect_grep "$tmp/err" "$tmp/broken.json:2:13:" "names the file, line and column"
expect_rc 3 "an input that is not there" -- "$se" report "$tmp/nothere.json" -o "$tmp/keep.html"
expect_grep "$tmp/err" "nothere.json: No such file or directory" "says so, without a position"
expect_rc 3 "a sweep's directory for its JSON" -- "$se" report "$tmp/load" -o "$tmp/keep.html"
expect_grep "$tmp/err" "a directory, not a JSON file (a sweep's is DIR/sweep.json)" "says where the JSON is"
: >"$tmp/empty.json"
expect_rc 3 "an empty file" -- "$se" report "$tmp/empty.json" -o "$tmp/keep.html"
echo '{"name": "x"}' >"$tmp/other.json"
expect_rc 3 "JSON that is not syncemu's" -- "$se" report "$tmp/other.json" -o "$tmp/keep.html"
expect_grep "$tmp/err" "other.json: not the JSON of syncemu model, run, sweep or validate" "says whose it is not"
echo '{"syncemu": "0.1.0", "command": "run"}' >"$tmp/hollow.json"
expect_rc 3 "a run's JSON without its runs" -- "$se" report "$tmp/hollow.json" -o "$tmp/keep.html"
expect_rc 3 "the JSON of bridge" -- "$se" report <(echo '{"syncemu": "0.1.0", "command": "bridge"}') -o "$tmp/keep.html"
expect_rc 2 "the page over an input" -- "$se" report "$tmp/run.json" -o "$tmp/run.json"
expect_grep "$tmp/err" "run.json" "names it"
python3 -c "import json,sys; json.load(open('$tmp/run.json'))" && ok "the input left whole" || bad "the input was written over"
expect_rc 2 "no -o" -- "$se" report "$tmp/run.json"
expect_rc 2 "no input" -- "$se" report -o "$tmp/keep.html"
expect_rc 2 "a Chart.js that is not" -- "$se" report "$tmp/run.json" -o "$tmp/keep.html" --chart-js "$tmp/run.json"
expect_rc 2 "the page's directory missing" -- "$se" report "$tmp/run.json" -o "$tmp/no/such/dir/r.html"
[ "$(cat "$tmp/keep.html")" = "keep me" ] && ok "the file at -o untouched by every refusal" || bad "keep.html was changed"
expect_rc 0 "--help" -- "$se" report --help
expect_grep "$tmp/out" "usage: syncemu report JSON... -o FILE.html" "the help's synopsis"

if [ "$mode" = quick ]; then
	[ $fails -eq 0 ] && exit 0 || exit 1
fi

# in the browser: three pages the way a person would get them, and the one of all four
browser=$(command -v chromium || command -v chromium-browser || true)
[ -n "$browser" ] || skip "no chromium (apt-get install chromium): the pages were not opened"
expect_rc 0 "report: the default run" -- "$se" report "$tmp/run.json" -o "$tmp/run.html"
expect_rc 0 "report: the load sweep" -- "$se" report "$tmp/load/sweep.json" -o "$tmp/sweep.html"
expect_rc 0 "report: the validate result" -- "$se" report "$tmp/validate.json" -o "$tmp/validate.html"
# the pages, made first, then opened one after another in one browser: NAME ARGS... -- ...
specs=()
page() {
	local name=$1
	shift
	names+=("$name")
	specs+=(-- "$tmp/$name.html" "$shots/$name.png" "$@")
}
names=()
page run run0-shares-step
page sweep sweep0-value
page validate validate0-steps-step
page all model0-bw-wan model0-bw-budget sweep2-value validate3-steps-step order:run,sweep,validate,model
expect_rc 0 "report: a syncemu trace validated, and three transfers' bursts" -- "$se" report "$tmp/vsync.json" \
	"$tmp/vbursts.json" -o "$tmp/traces.html"
page traces validate1-bursts-burst
# the background alone (--background-only): no step, its queues, transfers and drops drawn
"$se" run -q --json --background-only 5ms -l 0.5 >"$tmp/bgonly.json"
expect_rc 0 "report: the background alone" -- "$se" report "$tmp/bgonly.json" -o "$tmp/bgonly.html"
page bgonly figure:run0-wait
# a real-time run (a ring pair; nothing timed here): how late frames left its ports drawn
"$se" run -q --json -v A -n 2 --set run.clock=real --set run.calibrate=0.1s --set run.dilation=200 \
	--set ports.dc0=ring:w --set ports.dc1=ring:w >"$tmp/rt.json" 2>"$tmp/rt.err" ||
	bad "the real-time run: $(head -3 "$tmp/rt.err")"
python3 -c 'import json, sys; r = json.load(open(sys.argv[1]))["runs"][0]
assert r["clock"] == "real" and len(r["real_time"]["ports"]) == 2, r["real_time"]' "$tmp/rt.json" &&
	ok "a real-time run's JSON with its two ports" || bad "the real-time run's JSON"
expect_rc 0 "report: a real-time run" -- "$se" report "$tmp/rt.json" -o "$tmp/realtime.html"
page realtime run0-shares-step
# JSON of syncemu's shape that the page cannot draw all of (a null run before the real one, a
# validated step that is null): the page draws everything else and says what it could not, by
# JSON pointer
python3 - "$tmp" <<'PY'
import json, sys
d = sys.argv[1]
r = json.load(open(d + "/run.json"))
r["runs"] = [None] + r["runs"]
json.dump(r, open(d + "/nullrun.json", "w"))
v = json.load(open(d + "/validate.json"))
v["tables"]["steps"]["rows"][2] = None
json.dump(v, open(d + "/nullstep.json", "w"))
PY
expect_rc 0 "report: a null run, a null step, and the model after them" -- "$se" report \
	"$tmp/nullrun.json" "$tmp/nullstep.json" "$tmp/model.json" -o "$tmp/broken.html"
page broken run0-shares-step model2-bw-wan "not-drawn:/runs/0 (null)" \
	"not-drawn:the steps (/tables/steps, /summary)" "not-drawn:the overlap of the directions"
# Chromium on a loaded 2-vCPU machine starts in 1-3 s and a page takes a few; 300 s is for a
# stalled host
timeout 300 python3 "$here/report_page.py" "$browser" "${specs[@]}" >"$tmp/pages" 2>&1
for name in "${names[@]}"; do
	# this page's lines: from "page .../NAME.html" to its "result:"
	sed -n "\#^page $tmp/$name.html\$#,/^result: /p" "$tmp/pages" >"$tmp/page"
	if grep -q "^result: ok" "$tmp/page"; then
		ok "$name page in Chromium: $(grep -c '^slider' "$tmp/page") slider(s) move their chart, $(sed -n 's/^charts drawn: //p' "$tmp/page") charts drawn, no console error"
	else
		bad "$name page in Chromium"
		sed 's/^/    /' "$tmp/page" | head -20
		[ -s "$tmp/page" ] || sed 's/^/    /' "$tmp/pages" | tail -5
	fi
done
# the budget slider moves the module variants' curve: E at the lowest budget is slower
[ -s "$shots/all.png" ] && ok "screenshots kept in $shots" || bad "no screenshot"

[ $fails -eq 0 ]
