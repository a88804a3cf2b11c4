#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Open a syncemu report page in headless Chromium and check it as a person would use it.

    report_page.py CHROMIUM PAGE.html SCREENSHOT.png [EXPECT_SLIDER_ID | not-drawn:TEXT |
                                                      figure:ID | order:KIND,... ...]
                   [-- PAGE.html SCREENSHOT.png [...] ...]

Pages after "--" open in the same browser, one after another (a browser's start is 1-3 s of
a loaded 2-vCPU machine); each page's lines follow a line "page PAGE.html", and "result: ok" or
"result: failed" ends them.

Drives the browser over the DevTools protocol on a pipe (--remote-debugging-pipe: fd 3 in,
fd 4 out, NUL-separated JSON; Python's standard library only).  Checks, and exits 1 naming the
first that fails:
  - the page loads from file:// with no network, and no console error, warning or uncaught
    exception is reported (Runtime.consoleAPICalled, Runtime.exceptionThrown, Log.entryAdded);
  - every <figure class="chart"> holds a canvas Chart.js drew on (pixels not all blank);
  - every slider of the page, moved through the DOM (its value set, an 'input' event
    dispatched, as a person's drag does), changes the data of the chart in its figure and its
    own <output>; each EXPECT_SLIDER_ID must be among them;
  - each figure:ID is a figure of the page (and drawn, as every one must be);
  - order:KIND,... is the order of the page's sections by the kind of their input;
  - the page's notes of what it could not draw (class "not-drawn": JSON it cannot draw) are
    exactly one per not-drawn:TEXT, each holding its TEXT (none without);
then writes a full-page screenshot.  Prints one line per check.
"""
import base64
import json
import os
import subprocess
import sys
import tempfile
import time


class Browser:
    def __init__(self, chromium, profile):
        to_chrome_r, self.to_chrome = os.pipe()
        self.from_chrome, from_chrome_w = os.pipe()
        # the child's fd 3 reads our commands, its fd 4 writes the replies
        hi_r, hi_w = os.dup(to_chrome_r), os.dup(from_chrome_w)

        def fds():
            os.dup2(hi_r, 3)
            os.dup2(hi_w, 4)

        self.proc = subprocess.Popen(
            [chromium, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
             "--no-default-browser-check", "--disable-extensions", "--mute-audio",
             "--remote-debugging-pipe", "--user-data-dir=" + profile, "about:blank"],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            preexec_fn=fds, pass_fds=(3, 4))
        for fd in (to_chrome_r, from_chrome_w, hi_r, hi_w):
            os.close(fd)
        self.buf = b""
        self.next_id = 0
        self.events = []
        self.session = None

    def _read(self, deadline):
        while b"\0" not in self.buf:
            if time.monotonic() > deadline:
                raise TimeoutError("no reply from the browser")
            chunk = os.read(self.from_chrome, 1 << 20)
            if not chunk:
                raise EOFError("the browser went away (exit %s)" % self.proc.poll())
            self.buf += chunk
        msg, self.buf = self.buf.split(b"\0", 1)
        return json.loads(msg)

    def send(self, method, params=None, session=True, timeout=60):
        self.next_id += 1
        m = {"id": self.next_id, "method": method, "params": params or {}}
        if session and self.session:
            m["sessionId"] = self.session
        os.write(self.to_chrome, json.dumps(m).encode() + b"\0")
        deadline = time.monotonic() + timeout
        while True:
            r = self._read(deadline)
            if r.get("id") == self.next_id:
                if "error" in r:
                    raise RuntimeError("%s: %s" % (method, r["error"]))
                return r["result"]
            self.events.append(r)

    def wait_event(self, method, timeout=60):
        deadline = time.monotonic() + timeout
        for i, e in enumerate(self.events):
            if e.get("method") == method:
                return self.events.pop(i)
        while True:
            e = self._read(deadline)
            if e.get("method") == method:
                return e
            self.events.append(e)

    def eval(self, expr):
        r = self.send("Runtime.evaluate", {"expression": expr, "returnByValue": True,
                                           "awaitPromise": True})
        if "exceptionDetails" in r:
            raise RuntimeError("%s: %s" % (expr[:60], r["exceptionDetails"]))
        return r["result"].get("value")

    def close(self):
        try:
            self.send("Browser.close", session=False, timeout=10)
        except Exception:
            pass
        try:
            self.proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


def problems(events):
    out = []
    for e in events:
        m, p = e.get("method"), e.get("params", {})
        if m == "Runtime.exceptionThrown":
            out.append("uncaught: " + json.dumps(p["exceptionDetails"])[:400])
        elif m == "Runtime.consoleAPICalled" and p.get("type") in ("error", "warning", "assert"):
            out.append("console.%s: %s" % (p["type"], json.dumps(p.get("args"))[:400]))
        elif m == "Log.entryAdded" and p["entry"].get("level") in ("error", "warning"):
            out.append("log %s: %s" % (p["entry"]["level"], p["entry"].get("text", "")[:400]))
    return out


# What a chart shows: its datasets' labels and data, as text.
SIGNATURE = """(id) => JSON.stringify(window.syncemuCharts[id].data.datasets.map(
    (d) => [d.label, d.data]))"""

# The canvas drawn on: pixels that are not blank (transparent or white).
INKED = """(id) => { const c = document.getElementById(id + '-canvas');
    const p = c.getContext('2d').getImageData(0, 0, c.width, c.height).data; let n = 0;
    for (let i = 0; i < p.length; i += 4)
        if (p[i + 3] > 0 && (p[i] < 250 || p[i + 1] < 250 || p[i + 2] < 250)) n++;
    return n; }"""


def check_page(b, page, shot, args):
    """One page in browser @b: its lines printed, the failures returned."""
    expect = [a for a in args if not a.startswith(("not-drawn:", "figure:", "order:"))]
    order = [a[len("order:"):] for a in args if a.startswith("order:")]
    not_drawn = [a[len("not-drawn:"):] for a in args if a.startswith("not-drawn:")]
    want_figs = [a[len("figure:"):] for a in args if a.startswith("figure:")]
    failed = []
    b.events = []
    b.send("Emulation.setDeviceMetricsOverride", {"width": 1400, "height": 900,
                                                  "deviceScaleFactor": 1, "mobile": False})
    b.send("Page.navigate", {"url": "file://" + os.path.abspath(page)})
    b.wait_event("Page.loadEventFired")
    ready = b.eval("document.body.getAttribute('data-ready')")
    figs = b.eval("[...document.querySelectorAll('figure.chart')].map((f) => f.id)")
    print("page: %s charts in %d figures" % (ready, len(figs)))
    if not ready or int(ready) != len(figs) or not figs:
        failed.append("the page drew %s charts for %d figures" % (ready, len(figs)))
    for f in figs:
        n = b.eval("(%s)(%s)" % (INKED, json.dumps(f)))
        if not n:
            failed.append("chart %s: nothing drawn on its canvas" % f)
    print("charts drawn: %d of %d" % (len(figs) - sum(1 for x in failed if "nothing drawn" in x),
                                      len(figs)))
    for f in want_figs:
        if f not in figs:
            failed.append("no figure %s (the page has %s)" % (f, figs))
    kinds = ",".join(b.eval("[...document.querySelectorAll('section.input')].map((s) => "
                            "s.dataset.kind)"))
    for o in order:
        if kinds != o:
            failed.append("sections in the order %s, expected %s" % (kinds, o))
    notes = b.eval("[...document.querySelectorAll('.not-drawn')].map((e) => e.textContent)")
    for n in notes:
        print("not drawn: " + n)
    if len(notes) != len(not_drawn) or \
            any(not any(t in n for n in notes) for t in not_drawn):
        failed.append("notes of what was not drawn: %s, expected %d holding %s" %
                      (notes, len(not_drawn), not_drawn))
    sliders = b.eval("Object.keys(window.syncemuSliders)")
    for s in expect:
        if s not in sliders:
            failed.append("no slider %s (the page has %s)" % (s, sliders))
    for s in sliders:
        fig = b.eval("document.getElementById(%s).closest('figure').id" % json.dumps(s))
        before = b.eval("(%s)(%s)" % (SIGNATURE, json.dumps(fig)))
        out_before = b.eval("document.getElementById(%s).textContent" % json.dumps(s + "-value"))
        moved = b.eval("""((id) => { const s = document.getElementById(id);
            const to = Number(s.value) === Number(s.max) ? Number(s.min) : Number(s.max);
            s.value = to; s.dispatchEvent(new Event('input', { bubbles: true }));
            return to; })(%s)""" % json.dumps(s))
        after = b.eval("(%s)(%s)" % (SIGNATURE, json.dumps(fig)))
        out_after = b.eval("document.getElementById(%s).textContent" % json.dumps(s + "-value"))
        if before == after:
            failed.append("slider %s moved to %s: chart %s unchanged" % (s, moved, fig))
        elif out_before == out_after:
            failed.append("slider %s moved: its value still reads %s" % (s, out_after))
        else:
            print("slider %s: %s -> %s moves chart %s" % (s, out_before, out_after, fig))
    # what the console said, up to here (a second look after the sliders)
    b.send("Runtime.evaluate", {"expression": "1"})
    failed += problems(b.events)
    height = b.eval("document.documentElement.scrollHeight")
    b.send("Emulation.setDeviceMetricsOverride", {"width": 1400, "height": min(height, 16000),
                                                  "deviceScaleFactor": 1, "mobile": False})
    png = b.send("Page.captureScreenshot", {"format": "png"})["data"]
    with open(shot, "wb") as f:
        f.write(base64.b64decode(png))
    print("screenshot: %s (1400 x %d)" % (shot, min(height, 16000)))
    return failed


def main():
    chromium, rest = sys.argv[1], sys.argv[2:]
    specs, cur = [], []
    for a in rest:
        if a == "--":
            if cur:
                specs.append(cur)
            cur = []
        else:
            cur.append(a)
    if cur:
        specs.append(cur)
    bad = 0
    with tempfile.TemporaryDirectory() as profile:
        b = Browser(chromium, profile)
        try:
            target = next(t for t in b.send("Target.getTargets", session=False)["targetInfos"]
                          if t["type"] == "page")
            b.session = b.send("Target.attachToTarget", {"targetId": target["targetId"],
                                                         "flatten": True},
                               session=False)["sessionId"]
            for dom in ("Page", "Runtime", "Log"):
                b.send(dom + ".enable")
            for spec in specs:
                print("page %s" % spec[0])
                try:
                    failed = check_page(b, spec[0], spec[1], spec[2:])
                except Exception as e:	# (a page that hangs or breaks: the next one goes on)
                    failed = ["%s: %s" % (type(e).__name__, e)]
                for f in failed:
                    print("FAIL: " + f)
                print("result: %s" % ("failed" if failed else "ok"))
                bad += bool(failed)
        finally:
            b.close()
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
