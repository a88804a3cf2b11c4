#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# syncemu run, sweep and bridge --metrics: live metrics in Prometheus's text format, scraped during
# a run, a sweep's first run and a bridge by a plain HTTP GET and read by the format's rules (scrape_metrics.py: a HELP
# and a TYPE before each metric's samples, names and labels as the format has them, values
# floats or NaN, counters named _total); the run's steps done and events, the bridge's events
# and emulated time grow from one scrape to the next; other paths get 404, other methods 405; a
# bad address is refused naming --metrics.  Nothing here is timed: the run (20,000 steps, about
# 2 minutes on a 2-vCPU VM) and the bridge (120 s) are interrupted once scraped; the scrapes
# wait for growth up to 60 s.
# Usage: metrics.sh SYNCEMU (run from the source root)
set -u
. "$(dirname "$0")/lib.sh"
se=$(realpath "$1")
here=$(cd "$(dirname "$0")" && pwd)
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
	if why=$(python3 "$here/scrape_metrics.py" "$url" run 2>&1); then
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

# a sweep: the run in progress's (its first point is the run above)
"$se" sweep -q -k background.load -V 0,0.1 -v A -n 20000 --set run.fast_forward=off \
	-o "$tmp/sweep" --metrics 0 >/dev/null 2>"$tmp/serr" &
sw=$!
pids+=("$sw")
url=
for _ in $(seq 200); do
	url=$(sed -n 's/^syncemu sweep: metrics on //p' "$tmp/serr")
	[ -n "$url" ] && break
	kill -0 "$sw" 2>/dev/null || break
	sleep 0.1
done
if [ -n "$url" ] && why=$(python3 "$here/scrape_metrics.py" "$url" sweep 2>&1); then
	ok "the sweep's metrics scraped during its first run: $why"
else
	bad "the sweep's metrics: ${why:-no address said: $(head -3 "$tmp/serr")}"
fi
# (SIGTERM: a script's background job has SIGINT ignored, and a sweep keeps an ignored signal
# ignored, as nohup wants)
kill -TERM "$sw" 2>/dev/null
rc=0
wait "$sw" || rc=$?
[ $rc -eq 130 ] && ok "the sweep interrupted after the scrapes (exit 130)" ||
	bad "the sweep ended with exit $rc: $(tail -3 "$tmp/serr")"

# a bridge between two ring pairs (no traffic but its own background): its engine's events and
# emulated time grow while it runs; interrupted once scraped
"$se" bridge --a ring:x --b ring:y --set bridge.bandwidth_ab=100Mbit/s \
	--set bridge.bandwidth_ba=100Mbit/s --load 0.3 -d 120s -q --metrics 0 >/dev/null 2>"$tmp/berr" &
br=$!
pids+=("$br")
url=
for _ in $(seq 200); do
	url=$(sed -n 's/^syncemu bridge: metrics on //p' "$tmp/berr")
	[ -n "$url" ] && break
	kill -0 "$br" 2>/dev/null || break
	sleep 0.1
done
if [ -n "$url" ] && why=$(python3 "$here/scrape_metrics.py" "$url" bridge 2>&1); then
	ok "the bridge's metrics scraped while it runs: $why"
else
	bad "the bridge's metrics: ${why:-no address said: $(head -3 "$tmp/berr")}"
fi
kill -INT "$br" 2>/dev/null
rc=0
wait "$br" || rc=$?
[ $rc -eq 0 ] || [ $rc -eq 130 ] && ok "the bridge stopped after the scrapes (exit $rc)" ||
	bad "the bridge ended with exit $rc: $(tail -3 "$tmp/berr")"
expect_rc 2 "--metrics at a malformed address" -- "$se" run -q -n 2 -v A --metrics "host:" 
expect_grep "$tmp/err" "--metrics 'host:'" "the error names --metrics and the address"
expect_rc 2 "--metrics at an address this host does not have" -- "$se" run -q -n 2 -v A \
	--metrics 192.0.2.1:9
expect_grep "$tmp/err" "cannot listen" "the error says it cannot listen"
[ $fails -eq 0 ]
