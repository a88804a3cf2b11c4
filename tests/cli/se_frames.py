#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Traces of syncemu frames for the tests of validate:
    se_frames.py runs OUT N [LAST_STEP]
        a pcapng of N runs (ids 1..N, no scenario in its header) of 2 steps each, steps 0 and 1
        (or 0 and LAST_STEP), 4 rounds of 2 frames a step, captured at w0.tx and w1.rx
    se_frames.py patch IN OUT FRAME FIELD VALUE
        a copy of the pcapng IN whose packet FRAME (1-based) has its syncemu header's FIELD (step,
        round, src, dst or run) set to VALUE"""
import struct, sys

FIELDS = {"round": (6, ">H"), "run": (8, ">I"), "step": (12, ">I"), "src": (16, ">H"),
          "dst": (18, ">H")}


def block(btype, body):
    body += b"\0" * (-len(body) % 4)
    n = len(body) + 12
    return struct.pack("<II", btype, n) + body + struct.pack("<I", n)


def opt(code, data):
    return struct.pack("<HH", code, len(data)) + data + b"\0" * (-len(data) % 4)


def frame(run, step, rnd, src, dst, dep):
    se = struct.pack(">IBBHIIHHBBHQIIQ", 0x53594E43, 1, 0, rnd, run, step, src, dst, 0, 0, 0,
                     0, 0, 1000, dep)
    udp = struct.pack(">HHHH", 47111, 47110, 8 + len(se) + 1000, 0)
    ip = struct.pack(">BBHHHBBH4s4s", 0x45, 0, 20 + 8 + len(se) + 1000, 0, 0x4000, 64, 17, 0,
                     bytes([10, 0, 0, src + 1]), bytes([10, 0, 0, dst + 1]))
    return b"\x02\x53\x45\x00\x00\x01\x02\x53\x45\x00\x00\x00\x08\x00" + ip + udp + se


def runs(out, n, last_step):
    shb = struct.pack("<IHHq", 0x1A2B3C4D, 1, 0, -1) + opt(1, b"test frames") + opt(0, b"")
    data = block(0x0A0D0D0A, shb)
    for name in (b"w0.tx", b"w1.rx"):
        data += block(1, struct.pack("<HHI", 1, 0, 96) + opt(2, name) + opt(9, b"\x09") +
                      opt(0, b""))
    t = 1_000_000_000
    for run in range(1, n + 1):
        for step in (0, last_step):
            for rnd in range(4):
                for k in range(2):
                    f = frame(run, step, rnd, 0, 1, t)
                    for ifid, dt in ((0, 0), (1, 5000)):
                        ts = t + dt
                        data += block(6, struct.pack("<IIIII", ifid, ts >> 32, ts & 0xFFFFFFFF,
                                                     len(f), len(f) + 1000) + f)
                    t += 10000
            t += 100000
    open(out, "wb").write(data)


def patch(src, out, frame_no, field, value):
    b = bytearray(open(src, "rb").read())
    off, seen = 0, 0
    while off < len(b):
        btype, n = struct.unpack_from("<II", b, off)
        if btype == 6:
            seen += 1
            if seen == frame_no:
                o, fmt = FIELDS[field]
                struct.pack_into(fmt, b, off + 28 + 42 + o, value)
                break
        off += n
    else:
        sys.exit("no frame %d" % frame_no)
    open(out, "wb").write(b)


if sys.argv[1] == "runs":
    runs(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]) if len(sys.argv) > 4 else 1)
else:
    patch(sys.argv[2], sys.argv[3], int(sys.argv[4]), sys.argv[5], int(sys.argv[6]))
