#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The default EAL flags take the lcores from the CPUs the process may run on: two runs started
# side by side under `taskset -c 0` and `taskset -c 1` run on CPU 0 and CPU 1 (every thread of
# each on its own CPU), a run without taskset on all the process's CPUs, partitions under
# `taskset -c 1` on one lcore; --eal still says where, taskset or not.
# Usage: lcores.sh SYNCEMU (run from the source root)
set -u
. "$(dirname "$0")/lib.sh"
se=$(realpath "$1")
command -v taskset >/dev/null || skip "taskset (util-linux) is not installed"
command -v python3 >/dev/null || skip "python3 is not installed"
all=$(python3 -c 'import os; print(",".join(map(str, sorted(os.sched_getaffinity(0)))))')
case "$all" in *0,1*) ;; *) skip "needs CPUs 0 and 1 (this process may run on $all)" ;; esac

# start NAME TASKSET [EAL]: a long run under taskset, serving $tmp/NAME.sock; its pid in $pid
start() {
	local eal=()
	[ -n "${3:-}" ] && eal=(--eal "$3")
	taskset -c "$2" "$se" run -v A -n 1000000 -q --ctl "$tmp/$1.sock" "${eal[@]}" \
		>"$tmp/$1.out" 2>"$tmp/$1.err" &
	pid=$!
	pids+=("$pid")
}

# running NAME PID: the run answers status (its EAL is up, the run going), within 30 s
running() {
	for _ in $(seq 300); do
		"$se" ctl "$tmp/$1.sock" status 2>/dev/null | grep -q '"running": 1' && return 0
		kill -0 "$2" 2>/dev/null || break
		sleep 0.1
	done
	bad "$1: the run did not start: $(head -c 300 "$tmp/$1.err")"
	return 1
}

# cpus PID: every thread's CPUs, "comm:list" one a line; and the main thread's, in $main
cpus() {
	local t
	for t in /proc/"$1"/task/*; do
		echo "$(cat "$t/comm"):$(awk '/^Cpus_allowed_list/ {print $2}' "$t/status")"
	done
	main=$(awk '/^Cpus_allowed_list/ {print $2}' /proc/"$1"/task/"$1"/status)
}

# stop NAME PID: SIGINT, exit 130 (the step in progress left out)
stop() {
	local rc=0
	kill -INT "$2"
	wait "$2" || rc=$?
	[ $rc -eq 130 ] || bad "$1: exit $rc after SIGINT, not 130: $(head -c 200 "$tmp/$1.err")"
}

# four runs at once: under taskset -c 0, under taskset -c 1, on every CPU, and --eal -l 0 under
# taskset -c 1
start a 0
pa=$pid
start b 1
pb=$pid
start c "$all"
pc=$pid
start d 1 "--no-huge --no-pci --no-shconf --iova-mode=va --log-level=*:error -l 0"
pd=$pid
if running a "$pa" && running b "$pb"; then
	cpus "$pa" >"$tmp/a.cpus"
	[ "$main" = 0 ] && ok "taskset -c 0: the main lcore runs on CPU 0" ||
		bad "taskset -c 0: the main lcore may run on $main"
	cpus "$pb" >"$tmp/b.cpus"
	[ "$main" = 1 ] && ok "taskset -c 1, side by side: the main lcore runs on CPU 1" ||
		bad "taskset -c 1: the main lcore may run on $main, not CPU 1 (two runs share a CPU)"
	grep -v ':0$' "$tmp/a.cpus" | grep -q . && bad "taskset -c 0: threads elsewhere: $(tr '\n' ' ' <"$tmp/a.cpus")" ||
		ok "taskset -c 0: every thread on CPU 0"
	grep -v ':1$' "$tmp/b.cpus" | grep -q . && bad "taskset -c 1: threads elsewhere: $(tr '\n' ' ' <"$tmp/b.cpus")" ||
		ok "taskset -c 1: every thread on CPU 1"
fi
if running c "$pc"; then
	cpus "$pc" >/dev/null
	want=$(awk '/^Cpus_allowed_list/ {print $2}' /proc/self/status)
	[ "$main" = "$want" ] && ok "every CPU allowed: the main lcore may run on all of them ($want)" ||
		bad "every CPU allowed ($want): the main lcore may run on $main only"
fi
if running d "$pd"; then
	cpus "$pd" >/dev/null
	[ "$main" = 0 ] && ok "--eal \"... -l 0\" under taskset -c 1: CPU 0, as the flags say" ||
		bad "--eal -l 0: the main lcore may run on $main"
fi
stop a "$pa"
stop b "$pb"
stop c "$pc"
stop d "$pd"

# partitions under taskset -c 1: one CPU, one lcore (not two, one of them on CPU 0)
expect_rc 0 "taskset -c 1, two partitions" -- taskset -c 1 "$se" run -q --json -v A -n 1 \
	--set run.partitions=2
python3 -c 'import json, sys; r = json.load(sys.stdin)["runs"][0]; assert (r["partitions"], r["lcores"]) == (2, 1), (r["partitions"], r["lcores"])' \
	<"$tmp/out" && ok "taskset -c 1: two partitions on one lcore" ||
	bad "taskset -c 1, two partitions: $(head -c 300 "$tmp/out")"

[ "$fails" -eq 0 ]
