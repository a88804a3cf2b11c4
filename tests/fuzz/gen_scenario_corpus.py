#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
# Regenerate the seed corpus of tests/fuzz/fuzz_scenario.c in tests/fuzz/corpus/scenario/ and
# its dictionary tests/fuzz/scenario.dict (both are committed; run this only to change them).
# The seeds are the files of scenarios/ (their kernel and sizes_csv lines left out: the target
# skips keys that open other files), each with a few --set lines after "%%", and mutations of
# them: values at and past the widths they go into, bad units, syntax errors, duplicate keys and
# sections, unknown list items, presets, long text.  The dictionary lists every section and key
# (from `syncemu scenario keys`), the units and the list names.  Deterministic.
# Usage: gen_scenario_corpus.py SYNCEMU [OUTDIR]
import glob
import os
import re
import subprocess
import sys

here = os.path.dirname(os.path.abspath(__file__))
top = os.path.dirname(os.path.dirname(here))
syncemu = sys.argv[1] if len(sys.argv) > 1 else os.path.join(top, "build", "tools", "syncemu")
out = sys.argv[2] if len(sys.argv) > 2 else os.path.join(here, "corpus", "scenario")


def clean(text):
    """The scenario without the lines the target skips (keys that open other files)."""
    return "".join(l for l in text.splitlines(True) if "kernel" not in l and "sizes_csv" not in l)


def minimal(text):
    """Sections and key lines only: the comments dropped, to keep seeds short."""
    keep = []
    for l in text.splitlines():
        l = l.split(";", 1)[0].rstrip()
        if l:
            keep.append(l)
    return "\n".join(keep) + "\n"


seeds = {}
for path in sorted(glob.glob(os.path.join(top, "scenarios", "*.ini"))):
    name = os.path.splitext(os.path.basename(path))[0]
    with open(path) as f:
        seeds[name] = minimal(clean(f.read()))

base = seeds.get("2dc4-25g", "")
files = {}
for name, text in seeds.items():
    files["file-" + name] = text
files["empty"] = ""
files["sets-only"] = "%%\nwan.bandwidth=12.5GB/s\nrun.steps=3\nreport.variants=A,E'\n"
files["sets-limits"] = "%%\njob.parameters=1e26\nrun.steps=1\n"
files["sets-latency"] = base + "%%\nwan.latency=1e300 s\n"
files["sets-latency-run"] = base + "%%\ntrace.queue_sample=0 s\nwan.latency=9e6 s\n"
files["sets-tiny-rate"] = base + "%%\nintra.bandwidth=1e-5 B/s\n"
files["sets-huge-rate"] = "%%\nwan.bandwidth=1e30 B/s\n"
files["sets-rounds"] = "%%\ntopology.workers_per_dc=1024\n"
files["sets-flat-ring"] = "%%\ntopology.data_centres=64\ntopology.workers_per_dc=1024\njob.collective=ring\n"
files["sets-shapes"] = ("%%\ntopology.data_centres=5\ntopology.workers_per_dc=3\ntopology.wan=star\n"
                        "job.collective=direct\njob.operation=alltoall\njob.bytes=4 MB\n")
files["sets-mesh-ports"] = "%%\ntopology.wan=mesh\nrun.clock=real\nports.dc0=ring:w\nports.dc1=ring:w\n"
files["sets-bg"] = "%%\nbackground.load=0.5\nbackground.sizes=exponential\nbackground.size=1e15 B\n"
files["sets-bg-dcs"] = "%%\nbackground.load=0.3\ntopology.data_centres=64\n"
files["sets-queues"] = "%%\nqueues.wan=1e20 B\nqueues.sync_lossless=no\n"
files["sets-payload"] = "[run]\nmtu = 1500\n%%\nrun.frame_payload=1 B\njob.parameters=1e11\n"
files["sets-lists"] = "%%\nreport.variants=zz\n"
files["sets-lists2"] = "%%\nreport.budgets=low,,high\nmodule.compute_ops=fft,mac\n"
files["sets-steps"] = "%%\nwan.latency=5 s\nrun.steps=1000000\n"
files["sets-module"] = "%%\nmodule.lane_rate=1e30 bit/s\nmodule.ops_fft=1e-40\n"
files["sets-fluid"] = "%%\njob.parameters=1e308\ngpu.peak=1e-310 FLOP/s\n"
files["bad-syntax"] = "[wan\nbandwidth = 1GB/s\n"
files["bad-no-section"] = "bandwidth = 1GB/s\n"
files["bad-dup-section"] = "[wan]\nlatency = 1 ms\n[wan]\nlatency = 2 ms\n"
files["bad-dup-key"] = "[wan]\nbandwidth = 1GB/s\nbandwidth = 2GB/s\n"
files["bad-alias-dup"] = "[steps]\nCp = 2000\nC' = 2000\n"
files["bad-unit"] = "[wan]\nbandwidth = 12.5 GB\n"
files["bad-range"] = "[gpu]\nmfu = 2\n"
files["bad-table"] = "[steps]\nenob = 6:never, 8:1800, 7:1600\n"
files["preset"] = "[wan]\npreset = 400gbe\nlatency = 5 ms\n[intra]\npreset = ib-ndr\n"
files["escape"] = "[scenario]\nname = a\\;b\ndescription = x\\;y ; a comment\n"
files["ports"] = "[run]\nclock = real\n[ports]\nlocal = 0\ndc0 = ring:a\ndc1 = ring:b\n"
files["ports-link"] = "[ports]\nlink0 = w0.nic ring:x\nlink1 = dc0>w1 net_af_packet0 net_af_packet1\n"
files["long-name"] = "[scenario]\nname = " + "n" * 70 + "\n"
files["trace"] = "[trace]\nfile = none\ncapture = tx,rx,wan\nsnaplen = 0\nqueue_sample = 1 ms\n"
# what the fuzzer found (tests/test_scenario_limits.c has them too)
files["found-tab-in-name"] = "[scenario]\nname = a\t\\;b\ndescription = x\\;y ; a comment\n"
files["impair"] = ("[impair]\nwan = loss gemodel 1% 10% 70% 0.1% jitter 5ms paretonormal reorder\n"
                   "ab = loss state 1% 30% 20% 10% 0.1%\nlink0 = wan0>1 loss random 0.5%\n"
                   "loss = 0.01\njitter = 1 ms\n%%\nimpair.ba=jitter 2ms distribution normal fifo\n")
files["bad-impair"] = "[impair]\nwan = loss random 1 jitter\nlink1 = wan1>0\n"
files["red"] = ("[transport]\necn = yes\n[impair]\nwan = red min 30kB max 90kB probability 2% burst 20 "
                "avpkt 1500B ecn harddrop gentle\nab = mark 60kB\nlink2 = w0.nic red min 1kB max 2kB "
                "probability 0.5\n")
files["tables"] = ("[impair]\nwan = jitter 1ms distribution experimental reorder\nab = jitter 2ms "
                   "distribution /usr/lib/x86_64-linux-gnu/tc/pareto.dist\nba = trace /nonexistent.trace\n")
files["sync"] = "[run]\nsync = none\naccounting = wire\nburst = 256\nseed = 0xffffffffffffffff\n"

os.makedirs(out, exist_ok=True)
# the seeds this script writes are remade; regress-* (inputs a fuzzer found, kept by hand) stay
for old in glob.glob(os.path.join(out, "*")):
    if not os.path.basename(old).startswith("regress-"):
        os.remove(old)
total = 0
for name, text in sorted(files.items()):
    data = text.encode()
    assert len(data) < 8192, name
    with open(os.path.join(out, name), "wb") as f:
        f.write(data)
    total += len(data)
print(f"{len(files)} seeds, {total} bytes in {out}")

# the dictionary: sections, keys, units, names
words = set()
keys = subprocess.run([syncemu, "scenario", "keys"], check=True, capture_output=True,
                      text=True).stdout
for line in keys.splitlines()[1:]:
    m = re.match(r"^([a-z_]+)\.([A-Za-z0-9_']+)", line)
    if m:
        words.add(f"[{m.group(1)}]")
        words.add(m.group(2) + " = ")
        words.add(f"{m.group(1)}.{m.group(2)}=")
    for u in re.findall(r"\b(?:[kMGTPE]?i?B/s|[kMGT]?bit/s|[mun]?s|ps|[kMGT]?i?B|[kMGTP]?FLOP/s|"
                        r"ops/s|pJ/bit|pJ/B|pJ/FLOP|W|mW|kW)\b", line):
        words.add(" " + u)
for w in ("%%\n", "\n", " = ", "all", "none", "yes", "no", "never", "\\;", "1e300", "1e-300",
          "0x", "A", "B", "C", "E", "C'", "E'", "low", "high", "free", "fft", "gather", "ring:",
          "virtual", "real", "phase", "step", "wire", "payload", "exponential", "empirical",
          "mesh", "star", "hierarchical", "direct", "allreduce", "allgather", "reducescatter",
          "alltoall", "tree", "loss ", "random ", "gemodel ", "state ", "jitter ",
          "distribution ", "uniform", "normal", "pareto", "paretonormal", "reorder", "fifo", "%",
          "wan0>1 ", "w0.nic ", "red ", "mark ", "min ", "max ", "probability ", "burst ",
          "avpkt ", "ecn", "harddrop", "gentle", "kB", "trace ", "experimental",
          "/usr/lib/x86_64-linux-gnu/tc/normal.dist"):
    words.add(w)
with open(os.path.join(here, "scenario.dict"), "w") as f:
    f.write("# libFuzzer dictionary of fuzz_scenario.c, written by gen_scenario_corpus.py\n")
    for w in sorted(words):
        f.write('"' + "".join(c if 32 <= ord(c) < 127 and c not in '"\\' else
                              "\\x%02x" % ord(c) for c in w) + '"\n')
print(f"{len(words)} dictionary entries")
