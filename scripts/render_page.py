#!/usr/bin/env python3
"""Open an HTML page in headless Chromium and say what it rendered.

Talks to Chromium's DevTools protocol over --remote-debugging-pipe (NUL-
terminated JSON on fds 3 and 4), so it needs nothing beyond Debian's chromium
and the Python standard library. Prints one JSON object: each <section>'s id
and rendered size, each <svg class="chart">'s name, size and number of marks,
the page's size; with --screenshot, writes a full-page PNG.

  render_page.py report.html [--screenshot report.png] [--width 1100]
"""
import argparse
import base64
import fcntl
import json
import os
import select
import shutil
import subprocess
import sys
import tempfile
import time

MEASURE = r"""
(() => {
  const box = e => { const r = e.getBoundingClientRect(); return {width: r.width, height: r.height}; };
  return {
    title: document.title,
    page: {width: document.documentElement.scrollWidth, height: document.documentElement.scrollHeight},
    sections: [...document.querySelectorAll('section')].map(s => ({
      id: s.id, heading: (s.querySelector('h2') || {}).textContent || '', ...box(s),
      missing: [...s.querySelectorAll('.missing')].map(m => m.textContent)})),
    charts: [...document.querySelectorAll('svg.chart')].map(c => ({
      name: c.dataset.chart, section: (c.closest('section') || {}).id || '', ...box(c),
      marks: c.querySelectorAll('.mark').length,
      painted: [...c.querySelectorAll('rect,polyline,line')].filter(e => {
        const r = e.getBoundingClientRect(); return r.width > 0 || r.height > 0; }).length})),
    external: [...document.querySelectorAll('[src],link[href]')].map(e => e.src || e.href),
  };
})()
"""


class Browser:
    def __init__(self, chromium, width):
        self.profile = tempfile.mkdtemp(prefix="mimic-chromium-")
        to_child_r, self.to_child = os.pipe()
        self.from_child, from_child_w = os.pipe()
        # Chromium reads the protocol on fd 3 and writes on fd 4. The child's
        # ends are moved above them first, so dup2 never lands on itself.
        to_child_r = self._above(to_child_r)
        from_child_w = self._above(from_child_w)

        def wire_fds():  # dup2 makes 3 and 4 inheritable; close_fds=False keeps them
            os.dup2(to_child_r, 3)
            os.dup2(from_child_w, 4)

        args = [chromium, "--headless", "--remote-debugging-pipe", "--no-sandbox", "--disable-gpu",
                "--no-first-run", "--no-default-browser-check", "--disable-extensions",
                f"--user-data-dir={self.profile}", f"--window-size={width},900", "about:blank"]
        self.proc = subprocess.Popen(args, close_fds=False, preexec_fn=wire_fds,
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        os.close(to_child_r)
        os.close(from_child_w)
        self.buffer = b""
        self.next_id = 0
        self.events = []

    @staticmethod
    def _above(fd, lowest=10):
        high = fcntl.fcntl(fd, fcntl.F_DUPFD, lowest)
        os.close(fd)
        return high

    def _read_message(self, deadline):
        while b"\0" not in self.buffer:
            left = deadline - time.time()
            if left <= 0 or not select.select([self.from_child], [], [], left)[0]:
                raise TimeoutError("chromium did not answer in time")
            chunk = os.read(self.from_child, 1 << 20)
            if not chunk:
                raise RuntimeError("chromium closed the DevTools pipe (exit %s)" % self.proc.poll())
            self.buffer += chunk
        message, self.buffer = self.buffer.split(b"\0", 1)
        return json.loads(message)

    def call(self, method, params=None, session=None, timeout=60):
        self.next_id += 1
        msg = {"id": self.next_id, "method": method, "params": params or {}}
        if session:
            msg["sessionId"] = session
        os.write(self.to_child, json.dumps(msg).encode() + b"\0")
        deadline = time.time() + timeout
        while True:
            reply = self._read_message(deadline)
            if reply.get("id") == self.next_id:
                if "error" in reply:
                    raise RuntimeError(f"{method}: {reply['error']}")
                return reply.get("result", {})
            self.events.append(reply)

    def wait_event(self, name, timeout=60):
        deadline = time.time() + timeout
        for i, e in enumerate(self.events):
            if e.get("method") == name:
                return self.events.pop(i)
        while True:
            e = self._read_message(deadline)
            if e.get("method") == name:
                return e
            self.events.append(e)

    def close(self):
        try:
            self.call("Browser.close", timeout=10)
        except Exception:
            pass
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
        shutil.rmtree(self.profile, ignore_errors=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("page")
    ap.add_argument("--screenshot", help="write a full-page PNG here")
    ap.add_argument("--width", type=int, default=1100)
    ap.add_argument("--chromium", default=shutil.which("chromium") or "chromium")
    args = ap.parse_args()
    url = "file://" + os.path.abspath(args.page)
    browser = Browser(args.chromium, args.width)
    try:
        target = browser.call("Target.createTarget", {"url": "about:blank"})["targetId"]
        session = browser.call("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
        browser.call("Page.enable", session=session)
        # Any request beyond the page itself would show here: the report must need none.
        browser.call("Network.enable", session=session)
        browser.call("Page.navigate", {"url": url}, session=session)
        browser.wait_event("Page.loadEventFired")
        requests = [e["params"]["request"]["url"] for e in browser.events
                    if e.get("method") == "Network.requestWillBeSent"]
        result = browser.call("Runtime.evaluate", {"expression": MEASURE, "returnByValue": True},
                              session=session)["result"]["value"]
        result["requests"] = requests
        if args.screenshot:
            height = int(result["page"]["height"])
            browser.call("Emulation.setDeviceMetricsOverride",
                         {"width": args.width, "height": height, "deviceScaleFactor": 1, "mobile": False},
                         session=session)
            shot = browser.call("Page.captureScreenshot", {"format": "png", "captureBeyondViewport": True},
                                session=session)
            with open(args.screenshot, "wb") as f:
                f.write(base64.b64decode(shot["data"]))
        json.dump(result, sys.stdout, indent=1)
        print()
    finally:
        browser.close()


if __name__ == "__main__":
    main()
