#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""scrape_metrics.py URL run|sweep|bridge: scrape a live `--metrics` page as a Prometheus server would
(a plain HTTP GET) and read it by the text format's rules: a HELP then a TYPE before each
metric's samples, names and labels as the format has them, values floats (NaN, +Inf), counters
named _total.  Then scrape again until the engine's events and emulated time have grown (60 s at
most: nothing timed), and check 404 and 405.  run: the steps done grow too, the step is the
default scenario's 4.076554056 ms; bridge: its WAN rate is 100 Mbit/s.  Per WAN link (a
bridge's direction): every family, frames sent growing, busy time within the emulated time, the
queue's maximum at least its depth, no drop of any class; a bridge's background transfers
growing and its lateness percentiles there.  Prints what it saw;
exits 1 with the first failed check.  The first scrape that counts is the first to find the
command running (the server answers from before)."""
import re
import sys
import time
import urllib.error
import urllib.request

NAME = re.compile(r"[a-zA-Z_:][a-zA-Z0-9_:]*$")
SAMPLE = re.compile(r'([a-zA-Z_:][a-zA-Z0-9_:]*)(\{([a-zA-Z_][a-zA-Z0-9_]*="[^"\\\n]*"'
                    r'(,[a-zA-Z_][a-zA-Z0-9_]*="[^"\\\n]*")*)?\})? (\S+)$')


def scrape(url):
    with urllib.request.urlopen(url, timeout=10) as r:
        assert r.status == 200, r.status
        ct = r.headers["Content-Type"]
        assert ct.startswith("text/plain; version=0.0.4"), ct
        text = r.read().decode()
    assert text.endswith("\n"), "the page does not end its last line"
    helps, types, got = {}, {}, {}
    for line in text.split("\n")[:-1]:
        if line.startswith("# HELP "):
            name, _, h = line[7:].partition(" ")
            assert NAME.match(name) and h and name not in helps, line
            helps[name] = h
        elif line.startswith("# TYPE "):
            name, _, t = line[7:].partition(" ")
            assert t in ("counter", "gauge") and name in helps and name not in types, line
            types[name] = t
        else:
            m = SAMPLE.match(line)
            assert m, "not a sample: %r" % line
            name, value = m.group(1), m.group(5)
            assert name in types, "%s before its TYPE" % name
            got[name + (m.group(2) or "")] = float(value)	# NaN, +Inf and floats parse
    for name, t in types.items():
        assert (t == "counter") == name.endswith("_total"), "%s is a %s" % (name, t)
    return got


def main():
    url, cmd = sys.argv[1], sys.argv[2]
    info_cmd = cmd
    if cmd == "sweep":	# its first point is the run's: the same checks
        cmd = "run"
    t0 = time.monotonic()
    while True:	# the server answers from before the run begins (the bridge's ports opening)
        first = scrape(url)
        if first.get("syncemu_running") == 1:
            break
        assert time.monotonic() - t0 < 60, "not running in 60 s: %s" % first
        time.sleep(0.1)
    for k in ("syncemu_running", "syncemu_steps", "syncemu_steps_done_total", "syncemu_events_total",
              "syncemu_frames_total", "syncemu_drops_total", "syncemu_emulated_seconds",
              "syncemu_step_seconds", 'syncemu_parameter{key="wan.bandwidth"}'):
        assert k in first, "%s missing" % k
    info = [k for k in first if k.startswith('syncemu_info{command="%s",' % info_cmd)]
    assert info, "no syncemu_info of %s" % info_cmd
    if cmd == "run":
        assert first["syncemu_steps"] == 20000, first["syncemu_steps"]
        assert first['syncemu_parameter{key="wan.bandwidth"}'] == 12.5e9, first
    else:
        assert first['syncemu_parameter{key="wan.bandwidth"}'] == 12.5e6, first
    grow = ["syncemu_events_total", "syncemu_emulated_seconds"] + (
        ["syncemu_steps_done_total"] if cmd == "run" else [])
    t0 = time.monotonic()
    while True:
        now = scrape(url)
        if all(now[k] > first[k] for k in grow):
            break
        assert time.monotonic() - t0 < 60, "no growth in 60 s: %s" % now
        time.sleep(0.2)
    assert now["syncemu_running"] == 1, now
    if cmd == "run":
        assert abs(now["syncemu_step_seconds"] - 0.004076554056) < 1e-9, now["syncemu_step_seconds"]
    # per link: every family has each WAN link (a bridge's directions); what it sent grows; its
    # serialiser was never busy longer than the emulated time; a queue's maximum is at least
    # what it holds; drops by class (a run: the sync's, background, TCP's; a bridge: real and
    # background frames)
    links = ["wan0>1", "wan1>0"] if cmd == "run" else ["wan.ab", "wan.ba"]
    classes = ["sync", "background", "tcp"] if cmd == "run" else ["background", "real"]
    lk = lambda f, l: '%s{link="%s"}' % (f, l)
    for fam in ("sent_frames_total", "sent_bytes_total", "aqm_drops_total", "lost_frames_total",
                "ce_marked_frames_total", "queue_bytes", "queue_max_bytes", "busy_seconds_total"):
        for l in links:
            assert lk("syncemu_link_" + fam, l) in now, "%s missing" % lk("syncemu_link_" + fam, l)
    for l in links:
        for c in classes:
            k = 'syncemu_link_drops_total{link="%s",class="%s"}' % (l, c)
            assert now.get(k) == 0, "%s: %s" % (k, now.get(k))
        assert now[lk("syncemu_link_busy_seconds_total", l)] <= now["syncemu_emulated_seconds"], l
        assert now[lk("syncemu_link_queue_max_bytes", l)] >= now[lk("syncemu_link_queue_bytes", l)]
    sent = lk("syncemu_link_sent_frames_total", links[0])
    more = [sent] + (["syncemu_background_transfers_started_total"] if cmd == "bridge" else [])
    t0 = time.monotonic()
    while not all(now[k] > first.get(k, 0) for k in more):
        assert time.monotonic() - t0 < 60, "no growth of %s in 60 s" % more
        time.sleep(0.2)
        now = scrape(url)
    grow += more
    if cmd == "run":
        assert now[lk("syncemu_link_queue_max_bytes", links[0])] > 0, "the sync never queued"
    else:
        for l in links:
            for p in ("50", "99", "99.9", "100"):
                assert 'syncemu_bridge_lateness_seconds{link="%s",percentile="%s"}' % (l, p) in now
    for path, method, want in (("/x", "GET", 404), ("/metrics", "POST", 405)):
        req = urllib.request.Request(url.replace("/metrics", path),
                                     data=b"" if method == "POST" else None, method=method)
        try:
            urllib.request.urlopen(req, timeout=10)
            raise AssertionError("%s %s answered 200" % (method, path))
        except urllib.error.HTTPError as e:
            assert e.code == want, (method, path, e.code)
    print("%d samples; %s; 404 and 405" % (len(now), ", ".join(
        "%s %.6g then %.6g" % (k[8:], first[k], now[k]) for k in grow)))


try:
    main()
except AssertionError as e:
    print("not as it should be: %s" % e)
    sys.exit(1)
