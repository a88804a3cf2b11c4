#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# syncemu model and syncemu scenario from the command line: output, JSON, exit codes, bad input.
# Usage: model.sh SYNCEMU_BINARY (run from the source root)
set -u
. "$(dirname "$0")/lib.sh"
se=$1

expect_rc 0 "model on the built-in default" -- "$se" model
expect_grep "$tmp/out" "4.075178" "AdamW step 4.075178 ms printed"
expect_grep "$tmp/out" "33.347902" "E[low] step 33.347902 ms printed"
expect_grep "$tmp/out" "140.0 GFLOP/s" "budget that stops binding printed"

expect_rc 0 "model --json" -- "$se" model --json
if python3 -m json.tool "$tmp/out" >/dev/null 2>&1; then ok "JSON parses"; else bad "JSON does not parse"; fi
python3 - "$tmp/out" <<'PY' && ok "JSON holds the deck's AdamW step and C' break-even" || bad "JSON values"
import json, sys
d = json.load(open(sys.argv[1]))
step = {(r["variant"], r["budget"]): r for r in d["tables"]["step"]["rows"]}
assert abs(step[("A", "-")]["step_ms"] - 4.075178) < 1e-6, step[("A", "-")]
be = [r for r in d["tables"]["breakeven"]["rows"] if r["variant"] == "C'" and r["against"] == "A"]
assert abs(be[0]["breakeven_gbps"] - 6.584) < 1e-3, be
assert d["scenario"]["topology"]["workers"] == 8
PY

for f in scenarios/*.ini; do
	expect_rc 0 "model $f --json" -- "$se" model "$f" --json
	python3 -m json.tool "$tmp/out" >/dev/null 2>&1 || bad "$f: JSON does not parse"
done

expect_rc 0 "model -t step -v A,E' -b free" -- "$se" model -t step -v "A,E'" -b free
expect_grep "$tmp/out" "3.725588" "E'[free] step 3.725588 ms"
if grep -q "Hot spots" "$tmp/out"; then bad "--table step printed other tables"; else ok "--table step prints only the step table"; fi

expect_rc 0 "model --set wan.bandwidth=1GB/s" -- "$se" model --set wan.bandwidth=1GB/s -t topologies,step -v A
expect_grep "$tmp/out" "33.208767" "AdamW step on the 8 Gb/s WAN share (33.208767 ms)"

# job.direct on a 4 x 2 mesh: concurrent by default, one WAN round (31.7 MB / 12.5 GB/s + 20 us =
# 2.553356 ms) where rounds take three; the header says which
mesh4="--set topology.data_centres=4 --set topology.workers_per_dc=2 --set topology.wan=mesh --set job.collective=direct"
expect_rc 0 "model, direct on a mesh" -- "$se" model $mesh4 -t terms -v A
expect_grep "$tmp/out" "collectives direct, concurrent, WAN mesh" "direct on a mesh is concurrent by default"
expect_grep "$tmp/out" "shard exchange across DCs  inter-DC link       1  2.553356" "concurrent: one WAN round"
expect_rc 0 "model, direct on a mesh in rounds" -- "$se" model $mesh4 --set job.direct=rounds -t terms -v A
expect_grep "$tmp/out" "shard exchange across DCs  inter-DC link       3  7.660067" "rounds: three WAN rounds"
expect_rc 2 "bad job.direct" -- "$se" model --set job.direct=parallel
expect_grep "$tmp/err" "job.direct" "the error names job.direct"

expect_rc 0 "--help" -- "$se" --help
expect_grep "$tmp/out" "model" "--help lists model"
expect_rc 0 "model --help" -- "$se" model --help
expect_grep "$tmp/out" "--table" "model --help documents --table"
expect_rc 0 "scenario --help" -- "$se" scenario --help
expect_rc 0 "--version" -- "$se" --version

expect_rc 2 "no command" -- "$se"
expect_rc 2 "unknown command" -- "$se" frobnicate
expect_grep "$tmp/err" "unknown command 'frobnicate'" "names the unknown command"
expect_rc 2 "unknown option" -- "$se" model --bogus
expect_grep "$tmp/err" "unknown option --bogus" "names the unknown option"
expect_rc 2 "missing option argument" -- "$se" model --table
expect_rc 2 "unknown table" -- "$se" model --table wire,nope
expect_grep "$tmp/err" "'nope'" "names the unknown table"
expect_rc 2 "unknown variant" -- "$se" model --variant A,Q
expect_rc 2 "two scenario files" -- "$se" model a.ini b.ini
expect_rc 3 "missing scenario file" -- "$se" model /nonexistent/x.ini
expect_grep "$tmp/err" "/nonexistent/x.ini" "names the missing file"
expect_rc 2 "bad --set value (a bad command line)" -- "$se" model --set wan.bandwidth=-1GB/s
expect_grep "$tmp/err" "bandwidth" "names the key"

printf '[wan]\nbandwidth = 12.5 GB\n' >"$tmp/bad.ini"
expect_rc 3 "bad unit in a file" -- "$se" model "$tmp/bad.ini"
expect_grep "$tmp/err" "bad.ini:2" "names file and line"
if [ -s "$tmp/out" ]; then bad "bad input still printed output"; else ok "no output on bad input"; fi

expect_rc 0 "scenario check on every file" -- "$se" scenario check scenarios/*.ini
expect_rc 3 "scenario check on a bad file" -- "$se" scenario check "$tmp/bad.ini"
expect_rc 0 "scenario dump" -- "$se" scenario dump scenarios/2dc4-8g.ini
cp "$tmp/out" "$tmp/dump.ini"
expect_rc 0 "the dump loads back" -- "$se" scenario dump "$tmp/dump.ini"
if cmp -s <(tail -n +3 "$tmp/out") <(tail -n +3 "$tmp/dump.ini"); then ok "dump is a fixed point"; else bad "dump of the dump differs"; fi
expect_rc 0 "scenario keys --markdown" -- "$se" scenario keys --markdown
expect_grep "$tmp/out" "bandwidth" "keys lists bandwidth"
expect_rc 2 "scenario with no action" -- "$se" scenario

finish
