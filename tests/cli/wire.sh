#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The Wireshark dissector against the wire format: on a trace syncemu wrote (sync frames to
# workers and modules, last frames, background), every field tools/wireshark/syncemu.lua decodes,
# and its Info column (the capture point first), equal what models/wire.h's accessors read from
# the same bytes; the capture point on a TCP trace's frames too.
# Usage: wire.sh SYNCEMU_BINARY WIRE_FIELDS_BINARY (run from the source root)
set -u
. "$(dirname "$0")/lib.sh"
se=$1
fields=$2

command -v tshark >/dev/null || skip "tshark is not installed"
# 2 DC x 2, a small gradient: 976 frames of every flag and kind (A and E', background at 0.3)
expect_rc 0 "a short run with modules and background, traced" -- "$se" run scenarios/2dc4-100g.ini \
	--set topology.workers_per_dc=2 --set job.parameters=200000 --set job.topk_kept=0 \
	-v "A,E'" -b free -n 1 -q -l 0.3 -c wan,module,rx --trace "$tmp/w.pcapng"
"$fields" "$tmp/w.pcapng" >"$tmp/want" || bad "wire_fields read the trace"
tshark -X lua_script:tools/wireshark/syncemu.lua -r "$tmp/w.pcapng" -Y syncemu -T fields \
	-e syncemu.magic -e syncemu.version -e syncemu.flags -e syncemu.background \
	-e syncemu.last -e syncemu.dense -e syncemu.round -e syncemu.run_id -e syncemu.step \
	-e syncemu.src -e syncemu.dst -e syncemu.phase -e syncemu.kind -e syncemu.chunk \
	-e syncemu.offset -e syncemu.seq -e syncemu.payload_len -e syncemu.departure_ns \
	-e _ws.col.Info >"$tmp/got" 2>"$tmp/terr"
# the trace must hold what the comparison is about: each flag, each kind, several runs
awk -F'\t' '{f[$3]; k[$13]; r[$8]} END {exit !(length(f) >= 4 && length(k) == 3 && length(r) >= 2)}' \
	"$tmp/want" || bad "the trace lacks a flag, a kind or a second run"
if [ -s "$tmp/want" ] && cmp -s "$tmp/want" "$tmp/got"; then
	ok "the dissector's fields equal the C accessors' on $(wc -l <"$tmp/want") frames"
else
	bad "the dissector and wire.h disagree"
	diff "$tmp/want" "$tmp/got" | head -5
	grep -v "Running as user" "$tmp/terr" | head -3
fi
# the capture point first in the Info column and as syncemu.point, on every frame of a trace, a
# TCP one's too (job.transport = tcp: IPv4/TCP frames, no syncemu header)
expect_rc 0 "a TCP run, traced at the WAN" -- "$se" run -v A -n 1 -q --set job.transport=tcp \
	--set topology.workers_per_dc=1 --set job.parameters=200000 --set job.topk_kept=0 -c wan \
	--trace "$tmp/tcp.pcapng"
tshark -X lua_script:tools/wireshark/syncemu.lua -r "$tmp/tcp.pcapng" -T fields \
	-e frame.interface_name -e syncemu.point -e _ws.col.Info >"$tmp/pts" 2>"$tmp/terr"
if [ -s "$tmp/pts" ] && awk -F'\t' '$1 != $2 || index($3, "[" $1 "] ") != 1 { bad = 1 }
	END { exit bad }' "$tmp/pts"; then
	ok "every one of $(wc -l <"$tmp/pts") TCP frames: its capture point first in Info and as syncemu.point"
else
	bad "the capture point in Info: $(head -2 "$tmp/pts")"
fi
finish
