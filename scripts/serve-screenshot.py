"""serve-screenshot.py - docs/serve.png, README's picture of the page: `llmroof serve`, a link's
state, the serving panel simulated and the plan panel planned, captured whole in headless
Chromium over the same DevTools pipe as tests/serve/test_browser.py.

Usage: python3 scripts/serve-screenshot.py BIN OUT.png
"""
import base64
import os
import signal
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "serve"))
from test_browser import Browser, chromium_path, start_server  # noqa: E402


def main():
    bin_, out = sys.argv[1], sys.argv[2]
    exe = chromium_path()
    if not exe:
        print("chromium is not installed (sh scripts/deps.sh --test installs it)")
        return 1
    server, url = start_server(bin_)
    if not url:
        return 1
    br = Browser(exe, width=1440, height=2520)
    try:
        br.call("Page.navigate", {"url": url + "?model=qwen2.5-14b&gpu=h100&batch=8&prompt=512&output=256"})
        br.wait("document.body && document.body.dataset.ready === 'estimate'")
        br.js("document.querySelector('#serving button').click()")
        br.wait("document.querySelectorAll('#serving-table tr').length > 1")
        br.js("(() => { const f = document.getElementById('plan'); f.gpus.value = 'h100'; f.tps.value = '1,2';"
              " f.amount.value = '500'; f.querySelector('button').click(); })()")
        br.wait("document.querySelectorAll('#launch pre').length > 0")
        br.js("window.scrollTo(0, 0)")
        png = br.call("Page.captureScreenshot", {"format": "png", "captureBeyondViewport": False})["data"]
        with open(out, "wb") as f:
            f.write(base64.b64decode(png))
    finally:
        br.close()
        server.send_signal(signal.SIGTERM)
        server.wait(timeout=20)
    return 0


if __name__ == "__main__":
    sys.exit(main())
