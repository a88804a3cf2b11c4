#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# syncemu run --metrics: live metrics in Prometheus's text format, scraped during a run by a
# plain HTTP GET and read by the format's rules (a HELP and a TYPE before each metric's samples,
# names and labels as the format has them, values floats or NaN, counters named _total); the
# steps done and the events grow from one scrape to the next while the run goes; other paths get
# 404, other methods 405; a bad address is refused naming --metrics.  Nothing here is timed: the
# run is long (20,000 steps, about 2 minutes on a 2-vCPU VM) and is interrupted once the
# scrapes are done; the scrapes wait for the run's growth up to 60 s.
# Usage: metrics.sh SYNCEMU (run from the source root)
set -u
. "$(dirname "$0")/lib.sh"
se=$(realpath "$1")
command -v python3 >/dev/null || skip "python3 is not installed"

"$se" run -q -v A -n 20000 --set run.fast_forward=off --metrics 0 >/dev/null 2>"$tmp/err" &
run=$!
pids+=("$run")
url=
for _ in $(seq 200); do	# (the EAL's start: 0.2-2 s on a loaded machine)
	url=$(sed -n 's/^syncemu run: metrics on //p' "$tmp/err")
	[ -n "$url" ] && break
	kill -0 "$run" 2>/dev/null || break
	sleep 0.1
done
if [ -z "$url" ]; then
	bad "no metrics address said: $(head -3 "$tmp/err")"
else
	ok "the run says where its metrics are: $url"
	if why=$(python3 - "$url" <<-'PY' 2>&1
	import re, sys, time, urllib.error, urllib.request
	url = sys.argv[1]
	NAME = re.compile(r"[a-zA-Z_:][a-zA-Z0-9_:]*$")
	SAMPLE = re.compile(r'([a-zA-Z_:][a-zA-Z0-9_:]*)(\{([a-zA-Z_][a-zA-Z0-9_]*="[^"\\\n]*"'
	                    r'(,[a-zA-Z_][a-zA-Z0-9_]*="[^"\\\n]*")*)?\})? (\S+)$')
	def scrape():
	    with urllib.request.urlopen(url, timeout=10) as r:
	        assert r.status == 200, r.status
	        ct = r.headers["Content-Type"]
	        assert ct.startswith("text/plain; version=0.0.4"), ct
	        text = r.read().decode()
	    assert text.endswith("\n"), "the page does not end its last line"
	    helps, types, got = {}, {}, {}
	    for line in text.split("\n")[:-1]:
	        if line.startswith("# HELP "):
	            name, _, h = line[7:].partition(" ")
	            assert NAME.match(name) and h and name not in helps, line
	            helps[name] = h
	        elif line.startswith("# TYPE "):
	            name, _, t = line[7:].partition(" ")
	            assert t in ("counter", "gauge") and name in helps and name not in types, line
	            types[name] = t
	        else:
	            m = SAMPLE.match(line)
	            assert m, "not a sample: %r" % line
	            name, value = m.group(1), m.group(5)
	            assert name in types, "%s before its TYPE" % name
	            float(value)		# NaN, +Inf and floats parse
	            got[name + (m.group(2) or "")] = float(value)
	    for name, t in types.items():
	        assert (t == "counter") == name.endswith("_total"), "%s is a %s" % (name, t)
	    return got
	first = scrape()
	for k in ("syncemu_running", "syncemu_steps", "syncemu_steps_done_total", "syncemu_events_total",
	          "syncemu_frames_total", "syncemu_drops_total", "syncemu_emulated_seconds",
	          "syncemu_step_seconds", 'syncemu_parameter{key="wan.bandwidth"}',
	          'syncemu_info{command="run",variant="A"}'):
	    assert k in first, "%s missing" % k
	assert first["syncemu_steps"] == 20000 and first['syncemu_parameter{key="wan.bandwidth"}'] == 12.5e9, first
	t0 = time.monotonic()
	while True:
	    now = scrape()
	    if now["syncemu_steps_done_total"] > first["syncemu_steps_done_total"] and \
	       now["syncemu_events_total"] > first["syncemu_events_total"]:
	        break
	    assert time.monotonic() - t0 < 60, "no step done in 60 s: %s" % now
	    time.sleep(0.2)
	assert now["syncemu_running"] == 1, now
	assert abs(now["syncemu_step_seconds"] - 0.004076554056) < 1e-9, now["syncemu_step_seconds"]
	for path, method, want in (("/x", "GET", 404), ("/metrics", "POST", 405)):
	    try:
	        urllib.request.urlopen(urllib.request.Request(url.replace("/metrics", path),
	                                                      data=b"" if method == "POST" else None,
	                                                      method=method), timeout=10)
	        raise AssertionError("%s %s answered 200" % (method, path))
	    except urllib.error.HTTPError as e:
	        assert e.code == want, (method, path, e.code)
	print("%d samples; steps done %d then %d, events %d then %d; step %.9f s; 404 and 405" % (
	    len(now), first["syncemu_steps_done_total"], now["syncemu_steps_done_total"],
	    first["syncemu_events_total"], now["syncemu_events_total"], now["syncemu_step_seconds"]))
	PY
	); then
		ok "scraped during the run by the text format's rules: $why"
	else
		bad "the metrics: $why"
	fi
fi
kill -INT "$run" 2>/dev/null
rc=0
wait "$run" || rc=$?
[ $rc -eq 130 ] && ok "the run interrupted after the scrapes (exit 130)" ||
	bad "the run ended with exit $rc: $(tail -3 "$tmp/err")"
expect_rc 2 "--metrics at a malformed address" -- "$se" run -q -n 2 -v A --metrics "host:" 
expect_grep "$tmp/err" "--metrics 'host:'" "the error names --metrics and the address"
expect_rc 2 "--metrics at an address this host does not have" -- "$se" run -q -n 2 -v A \
	--metrics 192.0.2.1:9
expect_grep "$tmp/err" "cannot listen" "the error says it cannot listen"
[ $fails -eq 0 ]
