"""Count what does not fit on the rendered pages, measured in headless Chromium.

For every chapter page of the built book (``_build/html``) at each window width, counts:

- ``outputs``: cell outputs (``div.cell_output`` text blocks) wider than the box they are drawn in: their
  lines run past the page column (``overflow: visible``) or hide behind a horizontal scroll bar;
- ``code``: code cells (``div.cell_input`` blocks) likewise;
- ``eq_clipped``: display equations whose rendered maths is wider than their box and cannot be scrolled
  (what does not fit is cut off or drawn over the margin);
- ``eq_scroll``: display equations wider than their box that scroll horizontally (nothing is lost);
- ``eq_number_overlap``: display equations whose number overlaps the maths;
- ``inline_clipped``: inline formulas cut off by their box;
- ``page_overflow``: 1 when the page itself scrolls sideways (something pushes the whole page wider than the
  window).

Usage: python tools/measure_page.py [--html _build/html] [--widths 1400 400] [--pages book/ch03_scaling ...]
Needs ``chromium`` on PATH (Debian package ``chromium``) and ``websocket-client`` (in requirements.txt).
Prints one line per page and width, then the totals per width; ``--json FILE`` writes the same numbers.
"""

from __future__ import annotations

import argparse
import json
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

MEASURE = r"""
(() => {
  const wider = (el) => el.scrollWidth > el.clientWidth + 1;
  const visibleBlocks = (selector) => [...document.querySelectorAll(selector)].filter((el) => el.offsetParent !== null);
  const article = document.querySelector("article.bd-article") || document.querySelector("main") || document.body;
  const column = article.getBoundingClientRect();
  const past = (el) => el.getBoundingClientRect().left + el.scrollWidth > column.right + 1;
  const count = (selector) => {
    const blocks = visibleBlocks(selector);
    return {n: blocks.length, wide: blocks.filter((el) => wider(el) || past(el)).length};
  };
  const outputs = count("div.cell_output pre, div.cell_output .output > table, div.cell_output div.output_html");
  const code = count("div.cell_input pre");
  let clipped = 0, scroll = 0, overlap = 0, equations = 0;
  for (const eq of document.querySelectorAll('mjx-container[display="true"]')) {
    if (eq.offsetParent === null) continue;
    equations += 1;
    const box = eq.getBoundingClientRect();
    const math = eq.querySelector("mjx-math");
    if (!math) continue;
    const m = math.getBoundingClientRect();
    const style = getComputedStyle(eq);
    const tooWide = math.scrollWidth > eq.clientWidth + 1 || m.left < box.left - 1
      || m.right > Math.min(box.right, column.right) + 1;
    if (tooWide) {
      if (style.overflowX === "auto" || style.overflowX === "scroll") scroll += 1; else clipped += 1;
    }
    const label = eq.querySelector("mjx-labels, mjx-mtd[id^='mjx-eqn'], mjx-mlabeledtr > mjx-mtd:first-child");
    const number = eq.parentElement && eq.parentElement.querySelector("span.eqno");
    for (const n of [label, number]) {
      if (!n) continue;
      const r = n.getBoundingClientRect();
      const left = Math.max(m.left, box.left), right = Math.min(m.right, box.right);
      const hit = r.width > 0 && r.left < right - 1 && r.right > left + 1 && r.top < m.bottom && r.bottom > m.top;
      if (hit) { overlap += 1; break; }
    }
  }
  // inline maths cut off by its box (pydata-sphinx-theme gives span.math overflow: hidden)
  let inlineClipped = 0;
  for (const span of document.querySelectorAll("span.math")) {
    if (span.offsetParent === null) continue;
    const inner = span.querySelector("mjx-container");
    if (!inner) continue;
    const overflowX = getComputedStyle(span).overflowX;
    const cut = inner.getBoundingClientRect().width > span.getBoundingClientRect().width + 1;
    if (cut && (overflowX === "hidden" || overflowX === "clip")) inlineClipped += 1;
  }
  return {
    inline_clipped: inlineClipped,
    outputs: outputs.wide, outputs_n: outputs.n, code: code.wide, code_n: code.n,
    equations, eq_clipped: clipped, eq_scroll: scroll, eq_number_overlap: overlap,
    page_overflow: document.documentElement.scrollWidth > window.innerWidth + 1 ? 1 : 0,
    column: Math.round(column.width),
  };
})()
"""


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Browser:
    def __init__(self, width: int, height: int = 1000) -> None:
        import websocket

        chromium = shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which("google-chrome")
        if chromium is None:
            raise SystemExit("measure_page: chromium not found (apt-get install chromium)")
        self.width = width
        self.port = free_port()
        self.profile = tempfile.mkdtemp(prefix="measure_page_")
        self.process = subprocess.Popen(
            [
                chromium,
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--disable-background-networking",
                "--disable-component-update",
                "--no-first-run",
                f"--user-data-dir={self.profile}",
                f"--window-size={width},{height}",
                f"--remote-debugging-port={self.port}",
                "--remote-allow-origins=*",
                "about:blank",
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        for _ in range(100):
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{self.port}/json") as response:
                    targets = json.load(response)
                page = next(t for t in targets if t["type"] == "page")
                break
            except (OSError, StopIteration):
                time.sleep(0.2)
        else:
            raise SystemExit("measure_page: chromium did not start")
        self.ws = websocket.create_connection(page["webSocketDebuggerUrl"], timeout=60)
        self.next_id = 0
        self.call("Page.enable")
        self.call("Emulation.setDeviceMetricsOverride", width=width, height=height, deviceScaleFactor=1, mobile=False)

    def call(self, method: str, **params):
        self.next_id += 1
        self.ws.send(json.dumps({"id": self.next_id, "method": method, "params": params}))
        while True:
            message = json.loads(self.ws.recv())
            if message.get("id") == self.next_id:
                if "error" in message:
                    raise RuntimeError(f"{method}: {message['error']}")
                return message.get("result", {})

    def evaluate(self, expression: str):
        result = self.call("Runtime.evaluate", expression=expression, returnByValue=True, awaitPromise=True)
        return result["result"].get("value")

    def measure(self, url: str) -> dict:
        self.call("Page.navigate", url=url)
        # wait for the load event and for MathJax to finish typesetting
        for _ in range(300):
            ready = self.evaluate(
                "document.readyState === 'complete' && (!window.MathJax || !MathJax.startup || "
                "!MathJax.startup.promise || (window.__mjdone === true))"
            )
            if ready:
                break
            self.evaluate(
                "if (window.MathJax && MathJax.startup && MathJax.startup.promise && !window.__mjwait) "
                "{ window.__mjwait = true; MathJax.startup.promise.then(() => { window.__mjdone = true; }); }"
            )
            time.sleep(0.1)
        time.sleep(0.3)
        return self.evaluate(MEASURE)

    def screenshot(self, url: str, selector: str, path: str, margin: int = 40) -> None:
        """Save a PNG of the element matched by ``selector`` (and ``margin`` px around it) after the page loaded."""
        import base64

        self.measure(url)
        box = self.evaluate(
            f"(() => {{ const el = document.querySelector({json.dumps(selector)}); if (!el) return null; "
            "el.scrollIntoView({block: 'center'}); const r = el.getBoundingClientRect(); "
            "return {x: r.left + window.scrollX, y: r.top + window.scrollY, w: r.width, h: r.height}; })()"
        )
        if box is None:
            raise SystemExit(f"measure_page: {selector!r} not found in {url}")
        time.sleep(0.3)
        clip = {"x": 0, "y": max(0, box["y"] - margin), "width": self.width, "height": box["h"] + 2 * margin, "scale": 1}
        data = self.call("Page.captureScreenshot", format="png", clip=clip, captureBeyondViewport=True)["data"]
        Path(path).write_bytes(base64.b64decode(data))

    def close(self) -> None:
        self.ws.close()
        self.process.terminate()
        self.process.wait(timeout=10)
        shutil.rmtree(self.profile, ignore_errors=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--html", default="_build/html")
    parser.add_argument("--widths", type=int, nargs="+", default=[1400, 400])
    parser.add_argument("--pages", nargs="*", help="pages relative to the html folder, without .html")
    parser.add_argument("--json", help="write the counts to this file")
    parser.add_argument(
        "--screenshot",
        nargs=3,
        metavar=("PAGE", "SELECTOR", "PNG"),
        help="instead of counting: save a PNG of one element, at the first of --widths",
    )
    args = parser.parse_args(argv)

    html = Path(args.html).absolute()
    if args.screenshot:
        page, selector, png = args.screenshot
        browser = Browser(args.widths[0])
        try:
            browser.screenshot((html / f"{page}.html").as_uri(), selector, png)
        finally:
            browser.close()
        return 0
    pages = args.pages or sorted(str(p.relative_to(html).with_suffix("")) for p in html.glob("book/*.html"))
    keys = ["outputs", "code", "eq_clipped", "eq_scroll", "eq_number_overlap", "inline_clipped", "page_overflow"]
    report = {}
    for width in args.widths:
        browser = Browser(width)
        totals = dict.fromkeys([*keys, "outputs_n", "code_n", "equations"], 0)
        rows = {}
        try:
            for page in pages:
                counts = browser.measure((html / f"{page}.html").as_uri())
                rows[page] = counts
                for key in totals:
                    totals[key] += counts[key]
                print(
                    f"{width:5d} px  {page:32s} "
                    + "  ".join(f"{k}={counts[k]}" for k in keys)
                    + f"  (of {counts['outputs_n']} outputs, {counts['code_n']} code cells, "
                    f"{counts['equations']} display equations; column {counts['column']} px)",
                    flush=True,
                )
        finally:
            browser.close()
        report[width] = {"totals": totals, "pages": rows}
        print(
            f"{width:5d} px  TOTAL: {totals['outputs']} of {totals['outputs_n']} outputs and {totals['code']} of "
            f"{totals['code_n']} code cells wider than their box; of {totals['equations']} display equations "
            f"{totals['eq_clipped']} clipped, {totals['eq_scroll']} scroll, {totals['eq_number_overlap']} numbers "
            f"overlap; {totals['inline_clipped']} inline formulas clipped; "
            f"{totals['page_overflow']} pages scroll sideways",
            flush=True,
        )
    if args.json:
        Path(args.json).write_text(json.dumps(report, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
