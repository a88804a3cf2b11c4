#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# syncemu validate on syncemu's own traces: the per-step times of the run, to the nanosecond;
# queueing delays and the background share of each queue; bad files.
# Usage: validate.sh SYNCEMU_BINARY (run from the source root)
set -u
. "$(dirname "$0")/lib.sh"
se=$1

expect_rc 0 "a run of A and E'[free] with tx and rx captured" -- "$se" run -v "A,E'" -b free -n 5 -q -c tx,rx --trace "$tmp/t.pcapng" --json
cp "$tmp/out" "$tmp/run.json"
expect_rc 0 "validate it" -- "$se" validate "$tmp/t.pcapng" --json
cp "$tmp/out" "$tmp/val.json"
python3 - "$tmp/run.json" "$tmp/val.json" <<'PY' && ok "validate reproduces every step time of the run to the nanosecond" || bad "step times differ"
import json, sys
run = json.load(open(sys.argv[1]))
val = json.load(open(sys.argv[2]))
assert val["mode"] == "syncemu"
emu = {r["run_id"]: [s["emulated_ms"] for s in r["steps"]["rows"]] for r in run["runs"]}
# the validate JSON has one "steps" table (the last run's) and the runs' means; check the means
# for every run and each step of the tables printed in text by a second pass below
for r in val["runs"]:
    e = emu[r["run_id"]]
    assert abs(r["mean_ms"] - sum(e) / len(e)) < 1e-6, (r, e)
    assert r["ends_at_rx"]
assert val["max_error_pct"] < 1e-4, val["max_error_pct"]
PY
expect_rc 0 "validate, text" -- "$se" validate "$tmp/t.pcapng"
python3 - "$tmp/run.json" "$tmp/out" <<'PY' && ok "every step of every run, to the nanosecond, in the text report" || bad "per-step text"
import json, re, sys
run = json.load(open(sys.argv[1]))
text = open(sys.argv[2]).read()
blocks = re.split(r"\nRun (\d+) \((?=[^)]*\): steps rebuilt)", text)[1:]
seen = 0
for rid, body in zip(blocks[0::2], blocks[1::2]):
    emu = [s["emulated_ms"] for s in run["runs"][int(rid) - 1]["steps"]["rows"]]
    rows = [l.split() for l in body.splitlines()[2:] if re.match(r"\s+\d+\s", l)]
    assert len(rows) == len(emu), (rid, len(rows), len(emu))
    for row, e in zip(rows, emu):
        assert abs(float(row[1]) - e) <= 1.5e-6, (rid, row, e)
        seen += 1
assert seen == 10, seen
PY
expect_rc 0 "validate within a tolerance of 0.001 %" -- "$se" validate "$tmp/t.pcapng" --tolerance 0.001

# under load with the WAN queues captured: queueing delays and the background's share
expect_rc 0 "a run under load with the WAN captured" -- "$se" run -v C -n 3 --load 0.6 -q -c wan --trace "$tmp/l.pcapng"
expect_rc 0 "validate it" -- "$se" validate "$tmp/l.pcapng" --json
python3 - "$tmp/out" <<'PY' && ok "WAN queue delays and the background share of each queue" || bad "queues"
import json, sys
d = json.load(open(sys.argv[1]))
pts = {r["point"]: r for r in d["tables"]["points"]["rows"]}
out = pts["wan0>1.out"]
assert out["delays"] > 0 and out["mean_delay_us"] > 0, out
assert 20 < pts["wan0>1.in"]["background_pct"] < 95, pts["wan0>1.in"]
assert not d["runs"][0]["ends_at_rx"]
PY

# a trace without the header is cut into bursts: syncemu's own frames, generically
expect_rc 0 "--generic on a syncemu trace" -- "$se" validate "$tmp/t.pcapng" --generic --json
python3 -c "import json; d=json.load(open('$tmp/out')); assert d['mode']=='bursts' and d['split']['bursts']>=1" &&
	ok "bursts found" || bad "bursts"

# bad files
: >"$tmp/empty.pcap"
expect_rc 3 "an empty file" -- "$se" validate "$tmp/empty.pcap"
# cut 10 bytes into the 40th block (a fixed size could fall on a block's end: the SHB holds the
# scenario, whose length changes)
cut=$(python3 -c '
import struct, sys
b = open(sys.argv[1], "rb").read(1 << 20)
off = 0
for _ in range(40):
    off += struct.unpack("<I", b[off + 4:off + 8])[0]
print(off + 10)' "$tmp/t.pcapng")
head -c "$cut" "$tmp/t.pcapng" >"$tmp/cut.pcapng"
expect_rc 3 "a truncated trace" -- "$se" validate "$tmp/cut.pcapng"
expect_grep "$tmp/err" "byte" "names the byte offset"
echo "not a capture at all" >"$tmp/text.pcap"
expect_rc 3 "not a capture" -- "$se" validate "$tmp/text.pcap"
expect_rc 3 "a missing file" -- "$se" validate "$tmp/none.pcap"
expect_rc 2 "a bad filter" -- "$se" validate "$tmp/t.pcapng" --filter 'tcp and and'
expect_grep "$tmp/err" "filter" "names the filter"
expect_rc 2 "no trace" -- "$se" validate
expect_rc 2 "a bad tolerance" -- "$se" validate "$tmp/t.pcapng" --tolerance abc
expect_rc 0 "validate --help" -- "$se" validate --help

finish
