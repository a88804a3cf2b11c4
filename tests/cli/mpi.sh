#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Ranks: `mpirun -np 2` and `-np 4` (Open MPI, oversubscribed on this machine's cores) give the
# trace and the report of one process, byte for byte (the report less what says how it ran), on
# 2 x 4 with modules on the network under load, 8 x 8 under load, a star without sync under load
# and 8 x 1 with the queue's samples streamed; a rank without a partition; then what an MPI run
# refuses (--ctl, a ring pair across ranks in real time) and an output rank 0 refuses, which ends every rank with its code.
# Usage: mpi.sh SYNCEMU_BINARY [sanitized] (run from the source root).  Skips (77) without
# Open MPI's mpirun, for a build without MPI, and for the sanitizer build (Open MPI's own
# allocations at MPI_Finalize are leaks to LeakSanitizer).
set -u
. "$(dirname "$0")/lib.sh"
cli=$(realpath "$(dirname "$0")")
se=$(realpath "$1")
[ "${2:-}" = sanitized ] && skip "the sanitizer build: Open MPI's allocations are leaks to LeakSanitizer"
command -v mpirun >/dev/null || skip "Open MPI's mpirun is not installed (apt-get install openmpi-bin)"
command -v python3 >/dev/null || skip "python3 is not installed"
# the tests run as root; Open MPI refuses root unless told twice
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
# shared memory between the ranks of this host, nothing on the network
export OMPI_MCA_btl=self,vader OMPI_MCA_btl_vader_single_copy_mechanism=none
mpi=(mpirun --oversubscribe --bind-to none -x OMPI_MCA_btl -x OMPI_MCA_btl_vader_single_copy_mechanism)
"${mpi[@]}" -np 2 "$se" run -q -v A -n 1 --set topology.data_centres=2 >"$tmp/probe" 2>&1 ||
	{ grep -q "built without MPI" "$tmp/probe" && skip "syncemu was built without MPI"; }
grep -q "built without MPI" "$tmp/probe" && skip "syncemu was built without MPI"

# same LABEL "CAPTURE" ARGS...: one process (the reference), then 2 and 4 ranks, each in a
# directory of its own (the trace's header names its file: the same name in each)
same() {
	local label=$1 cap=$2 d=$tmp/run r rc why
	shift 2
	rm -rf "$d"
	mkdir -p "$d/1" "$d/2" "$d/4"
	rc=0
	(cd "$d/1" && "$se" run -q --json --trace t.pcapng -c "$cap" "$@" >r.json 2>err) || rc=$?
	[ $rc -eq 0 ] || { bad "$label, one process: exit $rc: $(head -c 300 "$d/1/err")"; return; }
	for r in 2 4; do
		rc=0
		(cd "$d/$r" && "${mpi[@]}" -np $r "$se" run -q --json --trace t.pcapng -c "$cap" "$@" \
			>r.json 2>err) || rc=$?
		if [ $rc -ne 0 ]; then
			bad "$label, $r ranks: exit $rc: $(head -c 300 "$d/$r/err")"
			continue
		fi
		if why=$(python3 "$cli/same_report.py" "$d/1/r.json" "$d/$r/r.json" ranks 2>&1); then
			ok "$label, $r ranks: the report of one process"
		else
			bad "$label, $r ranks: the report $why"
		fi
		if cmp -s "$d/1/t.pcapng" "$d/$r/t.pcapng"; then
			ok "$label, $r ranks: the trace of one process, byte for byte ($(stat -c %s "$d/1/t.pcapng") B)"
		else
			bad "$label, $r ranks: the trace differs: $(cmp "$d/1/t.pcapng" "$d/$r/t.pcapng" 2>&1 | head -1)"
		fi
		for f in "$d/$r"/*.csv; do
			[ -e "$f" ] || continue
			cmp -s "$d/1/$(basename "$f")" "$f" && ok "$label, $r ranks: $(basename "$f") the same" ||
				bad "$label, $r ranks: $(basename "$f") differs"
		done
	done
}

# 2 x 4 in 8 partitions (2 or 4 a rank; cut inside each DC at the NIC links), E' puts modules on
# the network; two variants, so two runs in one invocation
same "2x4 load 0.5" wan,rx,module,bg -n 1 -v "A,E'" -b free --load 0.5 --set run.partitions=8
# 8 x 8 under load, a partition per rank (the default under mpirun)
same "8x8 load 0.7" wan,bg -n 1 -v A --set topology.data_centres=8 \
	--set topology.workers_per_dc=8 --load 0.7
# 3 DCs of 5 on a star WAN without sync, under load: steps overlap across ranks
same "3x5 star load 0.4, no sync" wan,rx,bg -n 2 -v A --set topology.data_centres=3 \
	--set topology.workers_per_dc=5 --set topology.wan=star --set run.sync=none --load 0.4
# 8 x 1, the queues sampled and streamed to a CSV by rank 0
same "8x1 queue samples" wan,rx -n 2 -v A --set topology.data_centres=8 \
	--set topology.workers_per_dc=1 --load 0.3 --queue-csv q.csv

# 2 x 1: two partitions at most, so two of four ranks have none (they only take part)
expect_rc 0 "2 x 1 in 4 ranks" -- "${mpi[@]}" -np 4 "$se" run -q --json -v A -n 2 \
	--set topology.data_centres=2 --set topology.workers_per_dc=1
cp "$tmp/out" "$tmp/r4.json"
expect_rc 0 "2 x 1 in one process" -- "$se" run -q --json -v A -n 2 \
	--set topology.data_centres=2 --set topology.workers_per_dc=1
why=$(python3 "$cli/same_report.py" "$tmp/out" "$tmp/r4.json" ranks 2>&1) &&
	ok "2 x 1 in 4 ranks, two of them idle: the report of one process" || bad "2 x 1 in 4 ranks: $why"

# refused under mpirun, by every rank alike
expect_rc 2 "--ctl under mpirun is refused" -- "${mpi[@]}" -np 2 "$se" run -q -v A -n 1 \
	--ctl "$tmp/ctl.sock"
expect_grep "$tmp/err" "--ctl under mpirun" "--ctl: the error says why"
# real time over ranks is realtime_mpi.sh's; a ring pair cannot join two processes
expect_rc 1 "real time: a ring pair across ranks is refused" -- "${mpi[@]}" -np 2 "$se" run -q \
	-v A -n 1 --set run.clock=real --set ports.dc0=ring:pa --set ports.dc1=ring:pa
expect_grep "$tmp/err" "rank 0: [ports]: a ring:NAME port has two ends, one per data centre: map the same name at two DCs of one rank" \
	"real time: the error says why"
# an output rank 0 refuses (its directory is missing): every rank ends with its code, no hang
expect_rc 2 "a trace rank 0 cannot write ends every rank" -- timeout 60 "${mpi[@]}" -np 2 "$se" \
	run -q -v A -n 1 --trace "$tmp/no/such/dir/t.pcapng"
expect_grep "$tmp/err" "$tmp/no/such/dir" "the refused trace: rank 0 names it"

[ "$fails" -eq 0 ]
