-- SPDX-License-Identifier: BSD-3-Clause
-- Wireshark / tshark dissector for the syncemu header (UDP port 47110).
-- Use: tshark -X lua_script:tools/wireshark/syncemu.lua -r trace.pcapng -Y 'syncemu.round == 3'
-- or copy it to ~/.local/lib/wireshark/plugins/.
-- The header's layout is models/wire.h's; the test cli-wire holds these offsets to it.
local p = Proto("syncemu", "syncemu gradient sync")

local kinds = { [0] = "worker", [1] = "module", [2] = "background sink" }
local f = p.fields
f.magic = ProtoField.uint32("syncemu.magic", "Magic", base.HEX)
f.version = ProtoField.uint8("syncemu.version", "Version")
f.flags = ProtoField.uint8("syncemu.flags", "Flags", base.HEX)
f.bg = ProtoField.bool("syncemu.background", "Background", 8, nil, 0x01)
f.last = ProtoField.bool("syncemu.last", "Last frame of its chunk", 8, nil, 0x02)
f.dense = ProtoField.bool("syncemu.dense", "Dense (to a module)", 8, nil, 0x04)
f.round = ProtoField.uint16("syncemu.round", "Round")
f.run_id = ProtoField.uint32("syncemu.run_id", "Run")
f.step = ProtoField.uint32("syncemu.step", "Step (background: transfer)")
f.src = ProtoField.uint16("syncemu.src", "Source")
f.dst = ProtoField.uint16("syncemu.dst", "Destination")
f.phase = ProtoField.uint8("syncemu.phase", "Phase")
f.kind = ProtoField.uint8("syncemu.kind", "Destination kind", base.DEC, kinds)
f.chunk = ProtoField.uint16("syncemu.chunk", "Chunk")
f.offset = ProtoField.uint64("syncemu.offset", "Offset")
f.seq = ProtoField.uint32("syncemu.seq", "Sequence")
f.payload_len = ProtoField.uint32("syncemu.payload_len", "Payload length")
f.departure_ns = ProtoField.uint64("syncemu.departure_ns", "Departure (ns)")

function p.dissector(buf, pinfo, tree)
	if buf:len() < 48 or buf(0, 4):uint() ~= 0x53594e43 then
		return 0
	end
	pinfo.cols.protocol = "syncemu"
	local t = tree:add(p, buf(0, 48))
	t:add(f.magic, buf(0, 4))
	t:add(f.version, buf(4, 1))
	local fl = t:add(f.flags, buf(5, 1))
	fl:add(f.bg, buf(5, 1))
	fl:add(f.last, buf(5, 1))
	fl:add(f.dense, buf(5, 1))
	t:add(f.round, buf(6, 2))
	t:add(f.run_id, buf(8, 4))
	t:add(f.step, buf(12, 4))
	t:add(f.src, buf(16, 2))
	t:add(f.dst, buf(18, 2))
	t:add(f.phase, buf(20, 1))
	t:add(f.kind, buf(21, 1))
	t:add(f.chunk, buf(22, 2))
	t:add(f.offset, buf(24, 8))
	t:add(f.seq, buf(32, 4))
	t:add(f.payload_len, buf(36, 4))
	t:add(f.departure_ns, buf(40, 8))
	local bg = bit.band(buf(5, 1):uint(), 1) ~= 0
	pinfo.cols.info = string.format("%s %u>%u step %u round %u seq %u len %u",
		bg and "bg" or "sync", buf(16, 2):uint(), buf(18, 2):uint(), buf(12, 4):uint(),
		buf(6, 2):uint(), buf(32, 4):uint(), buf(36, 4):uint())
	return 48
end

DissectorTable.get("udp.port"):add(47110, p)

-- The capture point of every frame of a syncemu trace (its pcapng interface: wan0>1.in,
-- wan.ab.out, w3.nic.rx, ...) first in the Info column and as syncemu.point: a frame traced at a
-- queue's in and out is one frame seen twice, which Wireshark's TCP analysis would otherwise
-- take for a retransmission. Other captures' interfaces (eth0) are left alone.
local ifname = Field.new("frame.interface_name")
local point = Proto("syncemu_point", "syncemu capture point")
local f_point = ProtoField.string("syncemu.point", "Capture point")
point.fields = { f_point }
local points = { ["in"] = true, out = true, drop = true, rx = true, tx = true, loss = true,
	aqm = true }

function point.dissector(buf, pinfo, tree)
	local fi = ifname()
	if fi == nil then
		return
	end
	local name = tostring(fi.value)
	local kind = name:match("%.(%a+)$")
	if kind == nil or not points[kind] then
		return
	end
	tree:add(f_point, name)
	pinfo.cols.info:prepend("[" .. name .. "] ")
end

register_postdissector(point)
