#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
# Regenerate the seed corpus of tests/fuzz/fuzz_reader.c in tests/fuzz/corpus/reader/ (the files
# are committed; run this only to change them): small valid pcap, pcap-ns, pcapng (syncemu-like,
# syncemu's own frames, dumpcap-like, big-endian, several sections), gzip'd ones, and a few
# broken ones.  Deterministic.
# Usage: gen_corpus.py [OUTDIR]
import gzip
import os
import struct
import sys

out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "corpus",
                                                        "reader")


def ipv4(proto, payload, src=b"\x0a\x00\x00\x01", dst=b"\x0a\x00\x00\x02"):
    return struct.pack(">BBHHHBBH4s4s", 0x45, 0, 20 + len(payload), 1, 0, 64, proto, 0,
                       src, dst) + payload


def ipv6(nh, payload):
    return struct.pack(">IHBB16s16s", 0x60000000, len(payload), nh, 64,
                       b"\x20\x01\x0d\xb8" + b"\0" * 11 + b"\x01", b"\xfe\x80" + b"\0" * 13 + b"\x02") \
        + payload


def tcp(payload, sport=40000, dport=443):
    return struct.pack(">HHIIBBHHH", sport, dport, 1000, 0, 0x50, 0x18, 65535, 0, 0) + payload


def udp(payload, sport=5353, dport=53):
    return struct.pack(">HHHH", sport, dport, 8 + len(payload), 0) + payload


def eth(et, l3):
    return b"\x02\0\0\0\0\x01\x02\0\0\0\0\x02" + struct.pack(">H", et) + l3


FRAMES = {
    1: [eth(0x0800, ipv4(6, tcp(b"hello"))),
        eth(0x8100, struct.pack(">HH", 5, 0x86DD) + ipv6(17, udp(b"abc"))),
        eth(0x0806, b"\0\x01\x08\0\x06\x04\0\x01" + b"\0" * 20)],
    101: [ipv4(17, udp(b"raw")), ipv6(6, tcp(b""))],
    228: [ipv4(1, b"\x08\0\0\0\0\0\0\0")],
    229: [ipv6(0, b"\x11\0\0\0\0\0\0\0" + udp(b"hbh"))],
    113: [b"\0\0\0\x01\0\x06" + b"\0" * 8 + b"\x08\x00" + ipv4(17, udp(b"sll"))],
    276: [b"\x86\xdd\0\0\0\0\0\x02\0\x01\0\x06" + b"\0" * 8 + ipv6(17, udp(b"sll2"))],
    0: [struct.pack("<I", 2) + ipv4(6, tcp(b"null")), struct.pack("<I", 30) + ipv6(17, udp(b""))],
    108: [struct.pack(">I", 24) + ipv6(6, tcp(b"loop"))],
}


def pcap(lt, ns=False, be=False, snap=65535, frames=None):
    e = ">" if be else "<"
    b = struct.pack(e + "IHHiIII", 0xA1B23C4D if ns else 0xA1B2C3D4, 2, 4, 0, 0, snap, lt)
    for i, f in enumerate(frames if frames is not None else FRAMES[lt]):
        cap = min(len(f), snap)
        b += struct.pack(e + "IIII", 1700000000 + i, 123456 * (i + 1), cap, len(f)) + f[:cap]
    return b


def pad4(b):
    return b + b"\0" * (-len(b) % 4)


def opt(code, val, e):
    return struct.pack(e + "HH", code, len(val)) + pad4(val)


def block(btype, body, e):
    body = pad4(body)
    n = 12 + len(body)
    return struct.pack(e + "II", btype, n) + body + struct.pack(e + "I", n)


def shb(e, comments=(), app=None):
    o = b"".join(opt(1, c, e) for c in comments)
    if app:
        o += opt(4, app, e)
    if o:
        o += opt(0, b"", e)
    return block(0x0A0D0D0A, struct.pack(e + "IHHq", 0x1A2B3C4D, 1, 0, -1) + o, e)


def idb(e, lt, name=None, tsresol=None, tsoffset=None, snap=0):
    o = b""
    if name:
        o += opt(2, name, e)
    if tsresol is not None:
        o += opt(9, bytes([tsresol]), e)
    if tsoffset is not None:
        o += opt(14, struct.pack(e + "q", tsoffset), e)
    if o:
        o += opt(0, b"", e)
    return block(1, struct.pack(e + "HHI", lt, 0, snap) + o, e)


def epb(e, ifid, ts, f, cap=None):
    cap = len(f) if cap is None else cap
    return block(6, struct.pack(e + "IIIII", ifid, ts >> 32, ts & 0xFFFFFFFF, cap, len(f)) + f[:cap], e)


def spb(e, f):
    return block(3, struct.pack(e + "I", len(f)) + f, e)


def pb(e, ifid, ts, f):
    return block(2, struct.pack(e + "HHIIII", ifid, 0, ts >> 32, ts & 0xFFFFFFFF, len(f), len(f)) + f, e)


def syncemu_like():
    e = "<"
    b = shb(e, [b"seed = 42\n[scenario]\nname = test\n"], b"syncemu 0.1.0")
    b += idb(e, 1, b"w0.tx", 9, snap=128) + idb(e, 1, b"wan0>1.in", 9, snap=128)
    t = 5 * 10**9
    for i, f in enumerate(FRAMES[1]):
        b += epb(e, i % 2, t + i * 1000, f)
    b += idb(e, 1, b"mod0.rx", 9, snap=128)
    b += epb(e, 2, t - 1, FRAMES[1][0], cap=20)
    return b


def dumpcap_like():
    e = "<"
    b = shb(e, [b"first", b"second"])
    b += idb(e, 113, b"any", 6) + idb(e, 276, None, 0x94, tsoffset=1000)
    b += epb(e, 0, 1234567, FRAMES[113][0]) + epb(e, 1, (5 << 20) + 1, FRAMES[276][0])
    b += block(0x00000BAD, struct.pack(e + "I", 32473) + b"custom", e)
    b += block(5, struct.pack(e + "III", 0, 0, 0), e)        # ISB, skipped
    b += spb(e, FRAMES[113][0])
    b += pb(e, 1, 1 << 19, FRAMES[276][0])
    e = ">"
    b += shb(e, [b"section two"])
    b += idb(e, 0, b"lo0", 9) + idb(e, 108, b"enc0", 12) + idb(e, 101, b"tun0", 0)
    b += epb(e, 0, 7 << 32, FRAMES[0][0]) + epb(e, 1, 10**18, FRAMES[108][0])
    b += epb(e, 2, 3, FRAMES[101][0])
    return b


def allinks():
    e = "<"
    b = shb(e)
    ifid = 0
    for lt, frames in FRAMES.items():
        b += idb(e, lt, ("lt%d" % lt).encode(), 9)
        for f in frames:
            b += epb(e, ifid, 10**9 * ifid, f)
        ifid += 1
    return b


def tcp_seq(payload, seq, sport, dport, flags=0x10):
    return struct.pack(">HHIIBBHHH", sport, dport, seq & 0xFFFFFFFF, 0, 0x50, flags, 65535, 0, 0) + payload


def job_steps():
    """A job of two hosts: 3 steps of 6 segments each way, 5 ms of compute between, a
    retransmission, a sequence number that wraps, a background flow to port 5201."""
    a, b = b"\x0a\x00\x00\x01", b"\x0a\x00\x00\x02"
    seq = [0xFFFFF000, 1000]
    frames, t = [], 0
    for k in range(3):
        for i in range(6):
            for d in range(2):
                f = eth(0x0800, ipv4(6, tcp_seq(b"\x5a" * 700, seq[d], 40000 + d, 41000 - d),
                                     a if d == 0 else b, b if d == 0 else a))
                frames.append((t + i * 20000 + d * 7000, f))
                if k == 1 and i == 2 and d == 0:
                    frames.append((t + i * 20000 + 9000, f))
                seq[d] += 700
            if i % 3 == 0:
                frames.append((t + i * 20000 + 3000, eth(0x0800, ipv4(6, tcp_seq(
                    b"\x11" * 300, 5000 + 300 * (6 * k + i), 33333, 5201), a, b))))
        t += 6 * 20000 + 5000000
    frames.sort(key=lambda x: x[0])
    e = "<"
    out = struct.pack(e + "IHHiIII", 0xA1B23C4D, 2, 4, 0, 0, 96, 1)
    for ts, f in frames:
        cap = min(len(f), 96)
        out += struct.pack(e + "IIII", 1700000000 + ts // 10**9, ts % 10**9, cap, len(f)) + f[:cap]
    return out


def roce(psn, opcode, payload, sport=49152):
    bth = struct.pack(">BBHBBHBBH", opcode, 0, 0xFFFF, 0, 0, 0x1234, 0, (psn >> 16) & 0xFF,
                      psn & 0xFFFF)
    return udp(bth + payload + b"\0" * 4, sport, 4791)


def roce_job():
    """RoCE v2 one way (SEND MIDDLE, PSNs that wrap, one repeated), its ACKs, UDP the other."""
    a, b = b"\x0a\x00\x00\x01", b"\x0a\x00\x00\x02"
    frames = []
    psn = 0xFFFFFE
    for k in range(2):
        for i in range(4):
            frames.append(eth(0x0800, ipv4(17, roce(psn & 0xFFFFFF, 0x01, b"\x42" * 256), a, b)))
            if i == 1:
                frames.append(frames[-1])
            frames.append(eth(0x0800, ipv4(17, roce(psn & 0xFFFFFF, 0x11, b"\0" * 4), b, a)))
            frames.append(eth(0x0800, ipv4(17, udp(b"\x33" * 256, 7000, 7001), b, a)))
            psn += 1
    return pcap(1, ns=True, frames=frames)


def se_runs():
    """syncemu's own frames (UDP to 47110, the 48-byte header): 2 runs of 2 steps of 2 rounds,
    at w0.tx and w1.rx, a run's header comment and its scenario."""
    e = "<"
    b = shb(e, [b"syncemu 0.1.0 run of scenario test, seed 1; runs: 1=A 2=C\n[run]\nsteps = 2\n"])
    b += idb(e, 1, b"w0.tx", 9, snap=96) + idb(e, 1, b"w1.rx", 9, snap=96)
    t = 10**9
    for run in (1, 2):
        for step in (0, 1):
            for rnd in (0, 1):
                se = struct.pack(">IBBHIIHHBBHQIIQ", 0x53594E43, 1, 0, rnd, run, step, 0, 1, 0, 0,
                                 0, 0, 0, 100, t)
                f = eth(0x0800, ipv4(17, udp(se + b"\0" * 100, 47111, 47110)))
                b += epb(e, 0, t, f) + epb(e, 1, t + 5000, f)
                t += 10000
    return b


def gz(b):
    return gzip.compress(b, 9, mtime=0)


files = {
    "pcap-us-eth": pcap(1),
    "pcap-ns-raw-be": pcap(101, ns=True, be=True),
    "pcap-sll-snap40": pcap(113, snap=40),
    "pcap-null": pcap(0),
    "pcap-loop-ns": pcap(108, ns=True),
    "pcapng-syncemu": syncemu_like(),
    "pcapng-se-runs": se_runs(),
    "pcapng-dumpcap": dumpcap_like(),
    "pcapng-links": allinks(),
    "gz-pcap": gz(pcap(1, ns=True)),
    "gz-pcapng": gz(syncemu_like()),
    "pcap-job-steps": job_steps(),
    "pcap-roce": roce_job(),
    "csv-steps": b"# a training loop's timers\nstep,start_ns,end_ns,rank0_start_ns\n"
                 b"0,1700000000000000000,1700000000090000000,1\n1,1700000000100000000,1700000000190000000,2\n",
    "bad-empty": b"",
    "bad-3bytes": b"\xd4\xc3\xb2",
    "bad-magic": b"\x7fELF\x02\x01\x01\0" + b"\0" * 16,
    "bad-pcap-cut": pcap(1)[:-7],
    "bad-pcapng-cut": syncemu_like()[:-9],
    "bad-pcapng-trailer": syncemu_like()[:-4] + b"\x10\0\0\0",
    "bad-pcapng-ifid": shb("<") + idb("<", 1, b"e", 9) + epb("<", 3, 1, FRAMES[1][0]),
    "bad-gz-cut": gz(syncemu_like())[:-20],
}

os.makedirs(out, exist_ok=True)
for name, data in files.items():
    with open(os.path.join(out, name), "wb") as f:
        f.write(data)
print("%d files, %d bytes" % (len(files), sum(len(d) for d in files.values())))
