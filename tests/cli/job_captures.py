#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Captures of a job whose every packet time is known, for the tests of validate and report:
    job_captures.py DIR
writes DIR/job.pcap (two hosts send each other 5 steps of 50,000 bytes in 1000-byte TCP
segments 10 us apart, B 5 us after A, 5 ms of compute between), DIR/job.truth (each step's true
first and last packet times), DIR/job.csv (the application's own step times, 1 ms before and
after the wire), DIR/transfers.pcap (three transfers of 1, 2 and 4 MB: no repeating step) and
DIR/stalls.pcap (4 steps of 50 segments, a 3 ms stall in the middle of each, 2 ms between) and
DIR/conns.pcap (a burst of 1000 connections, a segment each way, then one of 10, 1 ms later)
and DIR/prelude.pcap (the steps of job.pcap after A sent B 50,000 bytes alone, 5 ms before the
first, and before B sent A 20,000 bytes alone, 5 ms after the last: DDP's broadcast of its
parameters and a final gather; its steps' times in DIR/prelude.truth) and DIR/vary.pcap (5 steps
of 20, 50, 80, 20 and 50 segments each way, 5 ms between; DIR/vary.truth).
    job_captures.py DIR long PACKETS
writes DIR/longPACKETS.pcap: 20 bursts of 60-byte frames (6-byte TCP segments each way 1 us
apart), 1 ms idle between, PACKETS in all."""
import struct, sys
d = sys.argv[1]
def tcp(ts, src, dst, sport, dport, seq, n):
    t = struct.pack(">HHIIBBHHH", sport, dport, seq & 0xffffffff, 0, 0x50, 0x10, 65535, 0, 0)
    ip = struct.pack(">BBHHHBBH4s4s", 0x45, 0, 40 + n, 0, 0, 64, 6, 0, bytes(src), bytes(dst))
    f = b"\x02" * 12 + b"\x08\x00" + ip + t + b"\x5a" * n
    return struct.pack("<IIII", ts // 10**9, ts % 10**9, min(len(f), 96), len(f)) + f[:96]
def pcap(name, recs):
    with open(d + "/" + name, "wb") as f:
        f.write(struct.pack("<IHHiIII", 0xa1b23c4d, 2, 4, 0, 0, 96, 1))
        for _, r in sorted(recs, key=lambda x: x[0]):
            f.write(r)
A, B = [10, 0, 0, 1], [10, 0, 0, 2]
if len(sys.argv) > 2 and sys.argv[2] == "long":
    n = int(sys.argv[3])
    fr = [bytearray(tcp(0, A, B, 40000, 41000, 0, 6)[16:]), bytearray(tcp(0, B, A, 41000, 40000, 0, 6)[16:])]
    rec, seq, t = struct.Struct("<IIII"), [1000, 99999], 1700000000 * 10**9
    buf = bytearray()
    for k in range(n):
        t += 1000000 if k and k % (n // 20) == 0 else 1000
        buf += rec.pack(t // 10**9, t % 10**9, 60, 60)
        struct.pack_into(">I", fr[k & 1], 38, seq[k & 1] & 0xffffffff)
        seq[k & 1] += 6
        buf += fr[k & 1]
    with open("%s/long%d.pcap" % (d, n), "wb") as f:
        f.write(struct.pack("<IHHiIII", 0xa1b23c4d, 2, 4, 0, 0, 96, 1) + buf)
    sys.exit(0)
def job(t, seq, recs, truth, sizes=(50,) * 5):
    for k in range(5):
        start = t
        for i in range(sizes[k]):
            recs.append((t + i * 10000, tcp(t + i * 10000, A, B, 40000, 41000, seq[0], 1000)))
            recs.append((t + i * 10000 + 5000, tcp(t + i * 10000 + 5000, B, A, 41000, 40000, seq[1], 1000)))
            seq[0] += 1000; seq[1] += 1000
        end = t + (sizes[k] - 1) * 10000 + 5000
        truth.append((start, end))
        t = end + 5000000
    return t
t, recs, truth, seq = 1700000000 * 10**9, [], [], [1000, 99999]
for i in range(50):
    recs.append((t, tcp(t, A, B, 40000, 41000, seq[0], 1000)))
    t += 10000; seq[0] += 1000
t = job(t + 5000000, seq, recs, truth)
for i in range(20):
    recs.append((t, tcp(t, B, A, 41000, 40000, seq[1], 1000)))
    t += 10000; seq[1] += 1000
pcap("prelude.pcap", recs)
with open(d + "/prelude.truth", "w") as f:
    f.write("".join("%d %d\n" % x for x in truth))
t, recs, truth, seq = 1700000000 * 10**9, [], [], [1000, 99999]
job(t, seq, recs, truth, (20, 50, 80, 20, 50))
pcap("vary.pcap", recs)
with open(d + "/vary.truth", "w") as f:
    f.write("".join("%d %d\n" % x for x in truth))
t, recs, truth, seq = 1700000000 * 10**9, [], [], [1000, 99999]
for k in range(5):
    start = t
    for i in range(50):
        recs.append((t + i * 10000, tcp(t + i * 10000, A, B, 40000, 41000, seq[0], 1000)))
        recs.append((t + i * 10000 + 5000, tcp(t + i * 10000 + 5000, B, A, 41000, 40000, seq[1], 1000)))
        seq[0] += 1000; seq[1] += 1000
    end = t + 49 * 10000 + 5000
    truth.append((start, end))
    t = end + 5000000
pcap("job.pcap", recs)
with open(d + "/job.truth", "w") as f:
    f.write("".join("%d %d\n" % x for x in truth))
with open(d + "/job.csv", "w") as f:
    f.write("step,start_ns,end_ns\n" + "".join("%d,%d,%d\n" % (k, s - 10**6, e + 10**6)
                                              for k, (s, e) in enumerate(truth)))
t, recs, seq = 1700000000 * 10**9, [], 1
for size in (1000000, 2000000, 4000000):
    for i in range(size // 1000):
        recs.append((t, tcp(t, A, B, 40000 + size // 10**6, 5201, seq, 1000)))
        t += 20000; seq += 1000
    t += 50000000
pcap("transfers.pcap", recs)
# 4 steps of 50 segments, a 3 ms stall in the middle of each, 2 ms between steps
t, recs, seq = 1700000000 * 10**9, [], 1
for k in range(4):
    for i in range(50):
        t += 3000000 if i == 25 else 10000
        recs.append((t, tcp(t, A, B, 40000, 41000, seq, 1000)))
        seq += 1000
    t += 2000000
pcap("stalls.pcap", recs)
# a burst of 1000 connections (a segment each way), then a burst of 10, 1 ms later
t, recs = 1700000000 * 10**9, []
for burst, conns in enumerate((1000, 10)):
    for c in range(conns):
        recs.append((t, tcp(t, A, B, 10000 + 5000 * burst + c, 80, 1, 100)))
        recs.append((t + 500, tcp(t + 500, B, A, 80, 10000 + 5000 * burst + c, 1, 100)))
        t += 1000
    t += 1000000
pcap("conns.pcap", recs)
