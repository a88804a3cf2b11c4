#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Real jobs, replayed: docs/real-jobs.csv holds real Open MPI and DDP jobs measured through
# syncemu bridge (tools/realjob); tools/realjob-replay runs the same jobs through syncemu run over
# TCP with the libraries' algorithms and protocols. Cases the emulation holds stay within the
# issue's bounds (median 10 %, 90th percentile 20 %) against the real measurements: Open MPI's
# turns (ob1's header-only rendezvous answered behind the peer's data: 4 MiB at 0 ms and 400
# Mbit/s, the ideal collective 97 ms, the job 186) and its rendezvous round trips at 5 ms (4 MiB
# at 1 Gbit/s, 16 MiB at 400 Mbit/s); at 20 ms the ranks' transfers at once (4 MiB at 100
# Mbit/s, 16 MiB at 1 Gbit/s: a rendezvous that comes while a rank computes or reduces is read
# after the rank has sent its own, job.read_window; read as it came, they took turns and were
# 73.6 and 34.2 % long); 1 MiB at 20 ms and 400 Mbit/s or 1 Gbit/s (steady from the second step
# as the real ones: the window grows while the sender used half of it in slow start, as Linux's
# tcp_is_cwnd_limited() lets it; before, steps 2-4 paid slow start again and the p90 was 26-41 %
# long), DDP's 2 buckets at 0 ms, 400 Mbit/s and at 20 ms, 1 Gbit/s (2 gloo rings on
# ProcessGroupGloo's 2 threads at once, each flight after a round trip: one after another the
# 20 ms case took 52.6 % too long); Open MPI and DDP at 4 MiB, 5 ms and 400 Mbit/s through a WAN
# whose delay varies by 5 ms (normal, the order kept: [impair] wan = jitter 5ms normal on the
# bridge and in the replay), and through one that loses 0.1 % or 1 % of its frames at random
# (loss random: a fast retransmit for nearly every loss, the step 7 to 25 x the clean one; the
# window grows on what an ACK newly delivered, as Linux's tcp_cong_control() counts it: counted
# with the segments SACKed before, the ACK that ended a recovery grew it by about 2 and the
# emulation was 10-18 % short). Virtual time: the same numbers on any machine. Bad input is
# refused with exit 2.
# Usage: replay.sh SYNCEMU_BINARY (run from the source root)
set -u
. "$(dirname "$0")/lib.sh"
se=$1

rows=(--rows "mpi 2 4MiB 0ms 400Mbit/s" --rows "mpi 2 4MiB 5ms 1Gbit/s"
	--rows "mpi 2 4MiB 20ms 100Mbit/s" --rows "mpi 2 16MiB 20ms 1Gbit/s"
	--rows "mpi 2 16MiB 5ms 400Mbit/s" --rows "ddp 2 4194288B 0ms 400Mbit/s"
	--rows "ddp 2 4194288B 20ms 1Gbit/s" --rows "mpi 2 1MiB 20ms 400Mbit/s"
	--rows "mpi 2 1MiB 20ms 1Gbit/s" --rows "(jitter 5ms normal)"
	--rows "(loss random 0.1%)" --rows "(loss random 1%)")
expect_rc 0 "nineteen real cases replayed over TCP within their bounds" -- \
	tools/realjob-replay --syncemu "$se" --check "${rows[@]}"
expect_grep "$tmp/out" "19 of 19 cases within the bounds" \
	"all nineteen: two through a WAN of 5 ms normal jitter, eight through a lossy one"
# the ideal collective is far from them (ideal column): the transport is what holds them
python3 - "$tmp/out" <<'PY' && ok "the ideal collective missed each by more than 9 %" || bad "an ideal step near the real one"
import sys
for line in open(sys.argv[1]):
    f = line.split()
    if len(f) > 9 and f[0] in ("mpi", "ddp"):
        real, ideal = float(f[-8]), float(f[-6])
        assert abs(ideal - real) / real > 0.09, line
PY
expect_rc 2 "a CSV that is not tools/realjob's" -- tools/realjob-replay --syncemu "$se" tests/cli/lib.sh
expect_rc 2 "rows that match nothing" -- tools/realjob-replay --syncemu "$se" --rows "nothing"
finish
