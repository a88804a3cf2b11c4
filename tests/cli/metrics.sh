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

# live CMD SIGNAL RCS -- ARGS...: syncemu CMD ARGS in the background, its page scraped (by
# scrape_metrics.py in CMD's mode) once it says where it is, then SIGNAL ends it with one of the
# exit codes RCS ("130", "0 130")
live() {
	local cmd=$1 sig=$2 rcs=$3 p url= rc=0 why=
	shift 4
	"$se" "$cmd" "$@" --metrics 0 >/dev/null 2>"$tmp/$cmd.err" &
	p=$!
	pids+=("$p")
	for _ in $(seq 200); do	# (the EAL's start: 0.2-2 s on a loaded machine)
		url=$(sed -n "s/^syncemu $cmd: metrics on //p" "$tmp/$cmd.err")
		[ -n "$url" ] && break
		kill -0 "$p" 2>/dev/null || break
		sleep 0.1
	done
	if [ -n "$url" ] && why=$(python3 "$here/scrape_metrics.py" "$url" "$cmd" 2>&1); then
		ok "$cmd: its metrics at $url scraped while it runs: $why"
	else
		bad "$cmd's metrics: ${why:-no address said: $(head -3 "$tmp/$cmd.err")}"
	fi
	kill "-$sig" "$p" 2>/dev/null
	wait "$p" || rc=$?
	[[ " $rcs " == *" $rc "* ]] && ok "$cmd ended by SIG$sig after the scrapes (exit $rc)" ||
		bad "$cmd ended with exit $rc: $(tail -3 "$tmp/$cmd.err")"
}

live run INT 130 -- -q -v A -n 20000 --set run.fast_forward=off
# a sweep: the run in progress's (its first point is the run above); SIGTERM: a script's
# background job has SIGINT ignored, and a sweep keeps an ignored signal ignored, as nohup wants
live sweep TERM 130 -- -q -k background.load -V 0,0.1 -v A -n 20000 \
	--set run.fast_forward=off -o "$tmp/sweep"
# a bridge between two ring pairs (no traffic but its own background): its engine's events and
# emulated time grow while it runs
live bridge INT "0 130" -- --a ring:x --b ring:y --set bridge.bandwidth_ab=100Mbit/s \
	--set bridge.bandwidth_ba=100Mbit/s --load 0.3 -d 120s -q
expect_rc 2 "--metrics at a malformed address" -- "$se" run -q -n 2 -v A --metrics "host:" 
expect_grep "$tmp/err" "--metrics 'host:'" "the error names --metrics and the address"
expect_rc 2 "--metrics at an address this host does not have" -- "$se" run -q -n 2 -v A \
	--metrics 192.0.2.1:9
expect_grep "$tmp/err" "cannot listen" "the error says it cannot listen"
[ $fails -eq 0 ]
