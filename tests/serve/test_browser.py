"""test_browser.py - the page in a real browser: Debian's Chromium, headless, driven over the
DevTools protocol on a pipe (--remote-debugging-pipe: JSON messages ending in NUL on file
descriptors 3 and 4), so nothing beyond python3's standard library and chromium is needed.

Starts `llmroof serve` on a free port, loads the page, reads the estimate it shows, changes
the model in the page's <select> (a change event, as a person's choice fires), reads the new
numbers, checks both against what `llmroof estimate --format json` prints for the same
inputs, checks the plan panel's launch commands against `llmroof plan`, and saves a
screenshot. Exits 77 (ctest: skipped) with a message only when chromium is absent.

Usage: python3 test_browser.py BIN SCREENSHOT.png
"""
import base64
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time


def chromium_path():
    for name in ("chromium", "chromium-browser", "google-chrome"):
        p = shutil.which(name)
        if p:
            return p
    return None


class Browser:
    """A headless Chromium and one page, over the DevTools pipe."""

    def __init__(self, exe, width=1440, height=1700):
        self.tmp = tempfile.mkdtemp(prefix="llmroof-chromium-")
        r3, w3 = os.pipe()  # we write commands to fd 3 of chromium
        r4, w4 = os.pipe()  # chromium writes answers to fd 4
        self.proc = subprocess.Popen(
            [exe, "--headless", "--no-sandbox", "--disable-gpu", "--no-proxy-server", "--no-first-run",
             "--remote-debugging-pipe", "--user-data-dir=" + self.tmp, "--window-size=%d,%d" % (width, height),
             "about:blank"],
            pass_fds=(3, 4), preexec_fn=lambda: (os.dup2(r3, 3), os.dup2(w4, 4)),
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        os.close(r3)
        os.close(w4)
        self.out = os.fdopen(w3, "wb", buffering=0)
        self.inp = os.fdopen(r4, "rb", buffering=0)
        self.buf = b""
        self.next_id = 0
        self.session = None
        target = self.call("Target.createTarget", {"url": "about:blank"})["targetId"]
        self.session = self.call("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
        self.call("Emulation.setDeviceMetricsOverride",
                  {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False})

    def call(self, method, params=None, timeout=60):
        self.next_id += 1
        msg = {"id": self.next_id, "method": method, "params": params or {}}
        if self.session:
            msg["sessionId"] = self.session
        self.out.write(json.dumps(msg).encode() + b"\0")
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            while b"\0" in self.buf:
                raw, self.buf = self.buf.split(b"\0", 1)
                m = json.loads(raw)
                if m.get("id") == self.next_id:
                    if "error" in m:
                        raise RuntimeError("%s: %s" % (method, m["error"]))
                    return m.get("result", {})
            chunk = self.inp.read(1 << 16)
            if not chunk:
                raise RuntimeError("chromium closed the DevTools pipe")
            self.buf += chunk
        raise TimeoutError(method)

    def js(self, expr):
        r = self.call("Runtime.evaluate", {"expression": expr, "awaitPromise": True, "returnByValue": True})
        if "exceptionDetails" in r:
            raise RuntimeError("page script: %s" % r["exceptionDetails"])
        return r["result"].get("value")

    def wait(self, expr, timeout=60):
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            if self.js(expr):
                return
            time.sleep(0.1)
        raise TimeoutError("page never satisfied: " + expr)

    def close(self):
        try:
            self.call("Browser.close", timeout=10)
        except Exception:  # noqa: BLE001 - closing anyway
            pass
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
        shutil.rmtree(self.tmp, ignore_errors=True)


def cli_json(bin_, *args):
    return json.loads(subprocess.run([bin_, *args, "--format", "json"], capture_output=True, check=True).stdout)


def fmt_time(s):
    # the page's fmtTime (web/app.js)
    if s < 1e-3:
        return "%.1f µs" % (s * 1e6)
    if s < 1:
        return "%.1f ms" % (s * 1e3)
    if s < 60:
        return "%.2f s" % s
    if s < 3600:
        return "%.1f min" % (s / 60)
    if s < 86400:
        return "%.1f h" % (s / 3600)
    if s < 1000 * 86400:
        return "%.1f days" % (s / 86400)
    return ("%.1e s" % s).replace("e+", "e")


def load(br, url):
    """Navigates and waits for the page's first answer (an estimate or an error)."""
    if br.js("!!document.body"):
        br.js("document.body.dataset.ready = 'stale'")
    br.call("Page.navigate", {"url": url})
    br.wait("document.body && ['estimate', 'error'].includes(document.body.dataset.ready) &&"
            " document.body.dataset.done === '1'")


def memory_row(br, name):
    """The text of the memory table's row named `name` ('' when there is none)."""
    return br.js("(() => { const r = Array.from(document.querySelectorAll('#memory tr'))"
                 ".find((tr) => tr.cells[0].textContent === %s); return r ? r.cells[1].textContent : ''; })()"
                 % json.dumps(name))


def check_links(br, bin_, url, failures):
    """A link's ids resolved as the CLI resolves them; one that names nothing said, not replaced."""
    load(br, url + "?gpu=H200&model=Llama-3.1-70B&kv_dtype=FP8&batch=8&prompt=512&output=256")
    got = br.js("[...['model', 'gpu'].map((i) => document.getElementById(i).value),"
                " document.querySelector('[name=kv_dtype]').value]")
    if got != ["llama-3.1-70b", "h200-sxm-141gb", "fp8"]:
        failures.append("gpu=H200&model=Llama-3.1-70B&kv_dtype=FP8 selected %r" % got)
    for query, text in (("?gpu=bogus&model=llama-3.1-8b", "unknown gpu 'bogus' in the link"),
                        ("?model=Nope-1B", "unknown model 'Nope-1B' in the link"),
                        ("?kv_dtype=fp9", "unknown kv_dtype 'fp9' in the link"),
                        ("?workload=chatty", "unknown workload 'chatty' in the link"),
                        # a number field's value that is no number: said with it, not "empty", and
                        # kept in the link (a review of session 65)
                        ("?batch=abc", "field 'Batch': 'abc' in the link is not a number"),
                        ("?ep=1e400", "field 'EP': '1e400' in the link is not a number")):
        load(br, url + query)
        err = br.js("document.getElementById('estimate-error').hidden ? '' :"
                    " document.getElementById('estimate-error').textContent")
        if query.startswith("?workload"):
            # a serving field: the estimate runs, the simulation says it
            br.js("document.querySelector('#serving button').click()")
            br.wait("!document.getElementById('serving-error').hidden ||"
                    " document.querySelectorAll('#serving-table tr').length > 1")
            err = br.js("document.getElementById('serving-error').textContent")
        elif br.js("document.getElementById('ttft').textContent") != "\u2013":
            failures.append("%s: the page shows a TTFT of %s for another setup" % (query, br.js(
                "document.getElementById('ttft').textContent")))
        if text not in err:
            failures.append("%s: error %r does not say %r" % (query, err, text))
        if not all(kv in br.js("decodeURIComponent(location.search.slice(1))").split("&") for kv in
                   query[1:].split("&")):
            failures.append("%s: the link was rewritten to %s" % (query, br.js("location.search")))


def check_status_names_errors(br, url, failures):
    """With run=1 every panel runs: the last to answer must not hide another's error in the status
    line (the plan's "plan: 3 GPUs" had shown beside a Serving error; a review of session 65)."""
    load(br, url + "?requests=abc&run=1")
    br.wait("document.querySelectorAll('#plan-table tr').length > 1 && !document.getElementById('serving-error').hidden",
            timeout=120)
    status = br.js("document.getElementById('status').textContent")
    if "error in serving" not in status:
        failures.append("run=1 with a Serving error: the status line says %r" % status)


def check_long_times_and_state(br, bin_, url, failures):
    # 10^9-token requests: times past 1,000 days in scientific notation, inside their cards
    load(br, url + "?model=granite-4.0-h-tiny&gpu=a10&batch=1000000&prompt=1000000000&output=1000000000")
    e = cli_json(bin_, "estimate", "-m", "granite-4.0-h-tiny", "-g", "a10", "-b", "1000000", "-p", "1000000000",
                 "-o", "1000000000", "--kv-dtype", "fp16")
    for el, key in (("ttft", "ttft_s"), ("e2e", "e2e_s")):
        text = br.js("document.getElementById('%s').textContent" % el)
        if text != fmt_time(e[key]) or not re.fullmatch(r"\d\.\de\d+ s", text):
            failures.append("%s of %r s shows %r" % (el, e[key], text))
    spill = br.js("[...document.querySelectorAll('.card')].filter((c) => c.scrollWidth > c.clientWidth ||"
                  " c.querySelector('.v').getBoundingClientRect().right > c.getBoundingClientRect().right)"
                  ".map((c) => c.textContent)")
    if spill:
        failures.append("card text past its card: %r" % spill)
    # a hybrid model's state per sequence, and the max batch that it explains
    load(br, url + "?model=granite-4.0-h-tiny&gpu=a10&batch=8&prompt=1024&output=1024")
    mem = br.js("document.getElementById('memory').textContent")
    want = "133 sequences (2,048 tokens each: 16.0 MiB KV + 27.7 MiB state = 43.7 MiB a sequence)"
    if "state per sequence27.7 MiB per GPU" not in mem or want not in mem:
        failures.append("memory panel of granite-4.0-h-tiny: %r" % mem)


def check_messages_and_url(br, url, failures):
    load(br, url + "?model=llama-3.1-8b&gpu=h100&batch=8")
    # the serving fields go into the link as they change, before Simulate (README: the URL
    # carries the whole state)
    br.js("(() => { const s = document.querySelector('#serving [name=workload]'); s.value = 'code';"
          " s.dispatchEvent(new Event('change', { bubbles: true }));"
          " const t = document.querySelector('#serving [name=ttft_slo]'); t.value = '3s';"
          " t.dispatchEvent(new Event('input', { bubbles: true })); })()")
    q = br.js("location.search")
    if "workload=code" not in q or "ttft_slo=3s" not in q:
        failures.append("the link after changing Workload and TTFT SLO: %s" % q)
    # an empty Requests field is said to be empty (it had gone out as 0: "'0' is not a whole number")
    br.js("(() => { const f = document.getElementById('serving'); f.requests.value = '';"
          " f.querySelector('button').click(); })()")
    br.wait("!document.getElementById('serving-error').hidden || document.getElementById('status').textContent"
            " === 'error'")
    err = br.js("document.getElementById('serving-error').textContent")
    if "field 'Requests' is empty" not in err:
        failures.append("empty Requests: %r" % err)
    # the server's 'sweep-rate' is the page's Points field
    br.js("(() => { const f = document.getElementById('serving'); f.requests.value = '20';"
          " f.points.value = Array.from({length: 20}, (_, i) => i + 1).join(',');"
          " document.getElementById('serving-error').hidden = true; f.querySelector('button').click(); })()")
    br.wait("!document.getElementById('serving-error').hidden")
    err = br.js("document.getElementById('serving-error').textContent")
    if "field 'Points'" not in err or "sweep" in err or err.startswith("request:"):
        failures.append("20 points: %r does not name the Points field (or keeps the server's 'request: ')" % err)


def submit(br, form, values):
    """Sets form's fields (name -> text) and clicks its button."""
    sets = " ".join("f.%s.value = %s;" % (k, json.dumps(v)) for k, v in values.items())
    br.js("(() => { const f = document.getElementById('%s'); %s f.querySelector('button').click(); })()" % (form, sets))


def check_warnings_shown(br, url, failures):
    # the server's warnings reach the page (X-Llmroof-Warning): a closed loop of 20 requests for 40
    # users times one burst (a review: the warning reached the Python binding only); a run without
    # it clears them
    load(br, url + "?model=llama-3.1-8b&gpu=h100&batch=8")
    submit(br, "serving", {"loadkind": "concurrency", "points": "40", "requests": "20"})
    br.wait("!document.getElementById('serving-warning').hidden || !document.getElementById('serving-error').hidden")
    w = br.js("document.getElementById('serving-warning').textContent")
    if "Requests 20 is fewer than the users of Points at 40" not in w or "llmroof:" in w:
        failures.append("serving warning of 20 requests for 40 users: %r" % w)
    submit(br, "serving", {"requests": "200"})
    br.wait("document.getElementById('serving-warning').hidden || !document.getElementById('serving-error').hidden")
    if not br.js("document.getElementById('serving-warning').hidden"):
        failures.append("a run without warnings still shows: %r" % br.js("document.getElementById('serving-warning')"
                                                                         ".textContent"))


def check_page_wording(br, url, failures):
    # the page's messages in its own words: no "llmroof:" prefix on any line, no one-letter flag,
    # no command-line advice, and an unknown name says which field holds it (a review: "give -t 1",
    # two prefixes, "unknown GPU 'foo' (see 'llmroof list gpus')")
    load(br, url + "?model=deepseek-v2-lite&gpu=h100&dp_attention=1&tp=2")
    err = br.js("document.getElementById('estimate-error').textContent")
    # the note before the error comes apart from it, beside it (X-Llmroof-Warning)
    note = br.js("document.getElementById('estimate-warning').textContent")
    if not err or "llmroof:" in err or "DP attention needs EP greater than 1" not in err:
        failures.append("DP attention at TP 2: %r" % err)
    if "llmroof:" in note or "-t " in note or "give TP 1" not in note:
        failures.append("DP attention at TP 2, its note: %r" % note)
    submit(br, "plan", {"gpus": "foo"})
    br.wait("!document.getElementById('plan-error').hidden")
    err = br.js("document.getElementById('plan-error').textContent")
    if "field 'GPUs': unknown GPU 'foo'" not in err or "llmroof list" in err:
        failures.append("plan GPUs foo: %r" % err)


def check_prefill_steps_note(br, url, failures):
    # estimate's note that the simulation prefills the batch in several steps, each reading the
    # weights again (estimate JSON simulate_prefill; a review: only the text output had said it):
    # 16 prompts of 1,024 tokens of Llama-3.1-8B without an engine are 8 chunks of 2,048; a batch of
    # one 512-token prompt is one step, no note
    load(br, url + "?model=llama-3.1-8b&gpu=h100&batch=16&prompt=1024&output=256")
    text = br.js("document.getElementById('prefill-steps').hidden ? '' :"
                 " document.getElementById('prefill-steps').textContent")
    if "in 8 steps (chunks of up to 2,048 tokens)" not in text:
        failures.append("batch 16 of 1,024 tokens: prefill-steps note %r" % text)
    load(br, url + "?model=llama-3.1-8b&gpu=h100&batch=1&prompt=512&output=256")
    if br.js("document.getElementById('prefill-steps').hidden") is not True:
        failures.append("batch 1 of 512 tokens: a prefill-steps note where simulate takes one step")


def check_newest_answer_wins(br, url, failures):
    # a slower, older plan or simulation answer arriving after a newer one is dropped (a review: a
    # 5 s plan overwrote the 1 s plan asked after it). The page's fetch is slowed for the first
    # request (the one naming a100), so its answer comes last
    load(br, url + "?model=llama-3.1-8b&gpu=h100&batch=8")
    br.js("(() => { const orig = window.fetch; window.__fetch = orig;"
          " window.fetch = (u, o) => o && o.body && o.body.includes('a100')"
          "   ? new Promise((res) => setTimeout(() => res(orig(u, o)), 1500)) : orig(u, o);"
          " const f = document.getElementById('plan'); f.plankind.value = 'users'; f.amount.value = '50';"
          " f.fast.checked = true; f.tps.value = '1';"
          " f.gpus.value = 'h100,a100'; f.querySelector('button').click();"
          " f.gpus.value = 'h100'; f.querySelector('button').click(); })()")
    br.wait("document.getElementById('status').textContent.startsWith('plan')")
    br.js("new Promise((res) => setTimeout(res, 2500))")  # past the slowed answer
    gpus = br.js("[...document.querySelectorAll('#plan-table tr td:first-child')].map((td) => td.textContent)")
    if not gpus or any(g != "h100-sxm5-80gb" for g in gpus):
        failures.append("the older plan's answer replaced the newer one: rows %r" % gpus)
    # the serving panel likewise: the older run (a100 is not in it, so slow the one of 2 points)
    br.js("(() => { const orig = window.__fetch;"
          " window.fetch = (u, o) => o && o.body && o.body.includes('\"1,2\"')"
          "   ? new Promise((res) => setTimeout(() => res(orig(u, o)), 1500)) : orig(u, o);"
          " const f = document.getElementById('serving'); f.requests.value = '20';"
          " f.points.value = '1,2'; f.querySelector('button').click();"
          " f.points.value = '3'; f.querySelector('button').click(); })()")
    br.wait("document.getElementById('status').textContent.startsWith('simulated')")
    br.js("new Promise((res) => setTimeout(res, 2500))")
    rows = br.js("document.querySelectorAll('#serving-table tr').length - 1")
    if rows != 1:
        failures.append("the older simulation's answer replaced the newer one: %r points shown, 1 asked" % rows)
    br.js("window.fetch = window.__fetch")


def check_roofline_and_labels(br, url, failures):
    load(br, url + "?model=llama-3.1-8b&gpu=h100&batch=8")
    svg = br.js("(() => { const s = document.querySelector('#roofline svg');"
                " return [s.viewBox.baseVal.height, [...s.querySelectorAll('text')].map((t) => t.textContent)]; })()")
    height, texts = svg
    if height >= 760:
        failures.append("roofline chart still %s high" % height)
    if not any(t.startswith("fp8 / int8 ") for t in texts) or any(t.startswith("int8 ") for t in texts):
        failures.append("roof labels of the H100: %r" % [t for t in texts if "TFLOP/s" in t])
    # every model's label fits its select (the MoE mark had been cut off)
    cut = br.js("(() => { const s = document.getElementById('model'), c = document.createElement('canvas').getContext('2d');"
                " c.font = getComputedStyle(s).font; const room = s.clientWidth - 24;"
                " return [...s.options].filter((o) => c.measureText(o.textContent).width > room)"
                ".map((o) => o.textContent + ' ' + c.measureText(o.textContent).width + ' > ' + room); })()")
    if cut:
        failures.append("model labels wider than their select: %r" % cut)


def check_estimate(br, bin_, model, gpu, failures):
    e = cli_json(bin_, "estimate", "-m", model, "-g", gpu, "-t", "1", "-b", "8", "-p", "512", "-o", "256",
                 "--weight-dtype", "fp16", "--kv-dtype", "fp16")
    for el, key in (("ttft", "ttft_s"), ("tpot", "tpot_s"), ("e2e", "e2e_s")):
        text = br.js("document.getElementById('%s').textContent" % el)
        raw = float(br.js("document.getElementById('%s').dataset.raw" % el))
        if text != fmt_time(e[key]) or abs(raw - e[key]) > 1e-12 * max(1.0, abs(e[key])):
            failures.append("%s %s: page shows %r (raw %r), the CLI prints %r" % (model, el, text, raw, e[key]))
    print("%s on %s: page TTFT %s, TPOT %s; CLI %s, %s" % (model, gpu, br.js("document.getElementById('ttft').textContent"),
          br.js("document.getElementById('tpot').textContent"), fmt_time(e["ttft_s"]), fmt_time(e["tpot_s"])))


def check_moe_tp(br, bin_, url, failures):
    """The layout fields reach the estimate: DP attention over experts split 8 ways by width."""
    load(br, url + "?model=deepseek-v2&gpu=h100&tp=1&moe_tp=8&dp_attention=1&batch=64&prompt=512&output=256"
         "&weight_dtype=fp8&kv_dtype=fp16")
    e = cli_json(bin_, "estimate", "-m", "deepseek-v2", "-g", "h100", "-t", "1", "--moe-tp", "8", "--dp-attention",
                 "-b", "64", "-p", "512", "-o", "256", "--weight-dtype", "fp8", "--kv-dtype", "fp16")
    text = br.js("document.getElementById('tpot').textContent")
    if text != fmt_time(e["tpot_s"]):
        failures.append("moe_tp=8&dp_attention=1: page TPOT %r, the CLI's %r" % (text, fmt_time(e["tpot_s"])))
    print("deepseek-v2 at DP attention + MoE TP 8: page TPOT %s; CLI %s" % (text, fmt_time(e["tpot_s"])))


def start_server(bin_):
    """`llmroof serve` on a free port: (the process, its URL), or (None, None) after saying why."""
    server = subprocess.Popen([bin_, "serve", "--port", "0"], stderr=subprocess.PIPE, text=True)
    line = server.stderr.readline()
    m = re.search(r"(http://127\.0\.0\.1:\d+/)", line)
    if not m:
        server.kill()
        print("FAIL: no URL from llmroof serve: " + line)
        return None, None
    return server, m.group(1)


def main():
    bin_, shot = sys.argv[1], sys.argv[2]
    exe = chromium_path()
    if not exe:
        print("SKIP: chromium is not installed (sh scripts/deps.sh --test installs it)")
        return 77
    server, url = start_server(bin_)
    if not url:
        return 1
    failures = []
    br = Browser(exe)
    try:
        gpu = "h200-sxm-141gb"
        # the link names the GPU by its alias, as the CLI's -g h200 does: the page resolves it (the
        # page's default GPU is the H100, so an alias left unresolved shows here)
        br.call("Page.navigate", {"url": url + "?model=llama-3.1-8b&gpu=h200&batch=8&prompt=512&output=256"})
        br.wait("document.body && document.body.dataset.ready === 'estimate'")
        if br.js("document.getElementById('gpu').value") != gpu:
            failures.append("gpu=h200 in the URL selected %r, not %s" % (br.js("document.getElementById('gpu').value"), gpu))
        check_estimate(br, bin_, "llama-3.1-8b", gpu, failures)

        # change the model as a person does: pick it in the <select>, which fires 'change'
        br.js("(() => { const s = document.getElementById('model'); s.value = 'qwen2.5-14b';"
              " s.dispatchEvent(new Event('change', { bubbles: true })); })()")
        br.wait("document.getElementById('status').textContent.startsWith('qwen2.5-14b on ')")
        check_estimate(br, bin_, "qwen2.5-14b", gpu, failures)
        if "model=qwen2.5-14b" not in br.js("location.search"):
            failures.append("the URL does not carry the new model: " + br.js("location.search"))
        # a link reproduces the view: load the page's own URL afresh, the same numbers come back
        link, ttft = br.js("location.href"), br.js("document.getElementById('ttft').dataset.raw")
        br.js("document.body.dataset.ready = 'stale'; document.getElementById('ttft').dataset.raw = ''")
        br.call("Page.navigate", {"url": link})
        br.wait("document.body && document.body.dataset.ready === 'estimate' &&"
                " document.getElementById('model').value === 'qwen2.5-14b'")
        if br.js("document.getElementById('ttft').dataset.raw") != ttft:
            failures.append("reloading %s gave TTFT %s, not %s" % (link, br.js("document.getElementById('ttft').dataset.raw"),
                                                                  ttft))

        # weights past the GPU's memory: the bar shows the excess apart, with a legend (131 GiB of
        # Llama-3.1-70B on an 80 GiB H100 had filled the bar as if they fitted)
        br.js("document.body.dataset.ready = 'stale'")
        br.call("Page.navigate", {"url": url + "?model=llama-3.1-70b&gpu=h100&batch=8&prompt=512&output=256"})
        br.wait("document.body && document.body.dataset.ready === 'estimate'")
        big = cli_json(bin_, "estimate", "-m", "llama-3.1-70b", "-g", "h100-sxm5-80gb", "-t", "1", "-b", "8", "-p", "512",
                       "-o", "256", "--weight-dtype", "fp16", "--kv-dtype", "fp16")["memory"]
        need = (big["weights_bytes_per_gpu"] + big["workspace_bytes_per_gpu"] + big["reserve_bytes_per_gpu"]) / \
            big["gpu_memory_bytes"]
        over = br.js("document.getElementById('membar').dataset.over")
        legend = br.js("document.getElementById('memlegend').textContent")
        if not over or abs(float(over) - need) > 1e-3 or "beyond the GPU's memory" not in legend or \
                not br.js("!!document.querySelector('#membar .over')"):
            failures.append("70B on an 80 GiB GPU: memory bar over %r (the CLI's need %.3fx), legend %r" % (over, need, legend))
        br.call("Page.navigate", {"url": link})
        br.wait("document.body && document.body.dataset.ready === 'estimate' &&"
                " document.getElementById('model').value === 'qwen2.5-14b'")

        # one output token: no decode step, so the estimate's decode phase is null; the page shows
        # no TPOT, no decode bound but the prefill's and no decode shares (it read e.decode.bound, which threw)
        br.js("document.body.dataset.ready = 'stale'")
        br.call("Page.navigate", {"url": url + "?model=llama-3.1-8b&gpu=h100&batch=1&prompt=512&output=1"})
        br.wait("document.body && document.body.dataset.ready === 'estimate'")
        one = cli_json(bin_, "estimate", "-m", "llama-3.1-8b", "-g", "h100-sxm5-80gb", "-t", "1", "-b", "1", "-p", "512",
                       "-o", "1", "--weight-dtype", "fp16", "--kv-dtype", "fp16")
        shown = (br.js("document.getElementById('tpot').textContent"), br.js("document.getElementById('bound').textContent"),
                 br.js("document.getElementById('shares-decode').innerHTML"))
        # (the decode card says there is none, with the prefill's bound: it had read "compute" under "Decode bound")
        if one["decode"] is not None or shown != ("–", "no decode (prefill: %s)" % one["prefill"]["bound"], ""):
            failures.append("output 1: page TPOT/bound/decode shares %r, CLI decode %r" % (shown, one["decode"]))
        # the memory the engine leaves unused is named, in the legend and as a row (8.7 GiB of the
        # H100's 80 had been the bar's empty end with no name, the rows summing to 71.3 GiB)
        mem = one["memory"]
        held = mem["gpu_memory_bytes"] - mem["weights_bytes_per_gpu"] - mem["workspace_bytes_per_gpu"] - \
            mem["reserve_bytes_per_gpu"] - mem["kv_capacity_bytes_per_gpu"]
        row = memory_row(br, "held back")
        if held < 1 << 30 or not row.startswith("%.2f GiB" % (held / 2**30)) or \
                "held back" not in br.js("document.getElementById('memlegend').textContent"):
            failures.append("held-back memory %.2f GiB: row %r" % (held / 2**30, row))
        # the weights row names the dtypes the estimate took (DeepSeek-V3's checkpoint fp8 had been
        # said nowhere on the page: a review)
        wrow = memory_row(br, "weights")
        if "(fp16 weights, fp16 KV cache)" not in wrow:
            failures.append("weights row without its dtypes: %r" % wrow)
        # gpt-oss's MXFP4 experts, most of its bytes, are named beside its bf16 (a review read "bf16 weights")
        load(br, url + "?model=gpt-oss-120b&gpu=h100&batch=1&prompt=512&output=2")
        wrow = memory_row(br, "weights")
        if "(bf16 weights, MXFP4 experts, fp16 KV cache)" not in wrow:
            failures.append("gpt-oss weights row: %r" % wrow)
        # TensorRT-LLM's fraction is of the free memory: the row says so, with the free figure (it
        # had said "takes 0.9 of the 79.18 GiB the runtime reports" beside 6.96 GiB held back)
        load(br, url + "?model=llama-3.1-8b&gpu=h100&engine=tensorrt-llm&batch=1&prompt=512&output=1")
        trt = cli_json(bin_, "estimate", "-m", "llama-3.1-8b", "-g", "h100-sxm5-80gb", "-t", "1", "-b", "1", "-p", "512",
                       "-o", "1", "-e", "tensorrt-llm", "--weight-dtype", "fp16", "--kv-dtype", "fp16")["memory"]
        free = trt["usable_bytes_per_gpu"] - trt["weights_bytes_per_gpu"] - trt["workspace_bytes_per_gpu"] - \
            trt["reserve_bytes_per_gpu"]
        row = memory_row(br, "held back")
        if trt.get("mem_util_of") != "free" or \
                "takes 0.9 of the %.2f GiB that weights, workspace and reserve leave" % (free / 2**30) not in row:
            failures.append("TensorRT-LLM's held-back row %r (free %.2f GiB, mem_util_of %r)" %
                            (row, free / 2**30, trt.get("mem_util_of")))
        br.call("Page.navigate", {"url": link})
        br.wait("document.body && document.body.dataset.ready === 'estimate' &&"
                " document.getElementById('model').value === 'qwen2.5-14b'")

        # serving and plan panels
        br.js("document.querySelector('#serving button').click()")
        br.wait("document.querySelectorAll('#serving-table tr').length > 1 ||"
                " !document.getElementById('serving-error').hidden")
        if not br.js("document.getElementById('serving-error').hidden"):
            failures.append("serving panel: " + br.js("document.getElementById('serving-error').textContent"))
        br.js("(() => { const f = document.getElementById('plan'); f.gpus.value = 'h100'; f.tps.value = '1,2';"
              " f.amount.value = '500'; f.querySelector('button').click(); })()")
        br.wait("document.querySelectorAll('#launch pre').length > 0 || !document.getElementById('plan-error').hidden")
        page_cmd = br.js("document.querySelector('#launch pre') ? document.querySelector('#launch pre').textContent : ''")
        plan = cli_json(bin_, "plan", "-m", "qwen2.5-14b", "--gpus", "h100", "--tp", "1,2", "--users", "500", "--fast",
                        "--ttft-slo", "2s", "--tpot-slo", "100ms", "--workload", "chat",
                        "--weight-dtype", "fp16", "--kv-dtype", "fp16")
        want = plan["best"]["launch"][0]["command"] if plan.get("best") else ""
        if page_cmd != want:
            failures.append("launch command: page %r, CLI %r" % (page_cmd, want))
        print("launch command on the page: " + page_cmd)
        # the best row's binding cell names the load that fails one user later (next_users)
        cell = br.js("(() => { const r = document.querySelector('#plan-table tr.best');"
                     " return r ? r.cells[7].textContent : ''; })()")
        nxt = (plan.get("best") or {}).get("next_users")
        if not nxt or ("(%d users: " % nxt) not in cell:
            failures.append("plan binding cell %r does not name the failing load (next_users %r)" % (cell, nxt))
        # the plan's observations are shown as the CLI gives them, and the latency columns name the
        # statistic the SLOs were judged at (a fast plan: the mean; they had read "TTFT" alone)
        obs = br.js("Array.from(document.querySelectorAll('#plan-obs li')).map((li) => li.textContent)")
        if obs != plan.get("observations"):
            failures.append("plan observations on the page %r, CLI %r" % ((obs or [])[:1], (plan.get("observations") or [])[:1]))
        # no engine chosen: the commands carry the generic engine's limits, as the CLI's line says
        gen = br.js("document.querySelector('#launch .note') ? document.querySelector('#launch .note').textContent : ''")
        if not gen.startswith("No engine chosen: these commands carry the batch limits of the generic engine"):
            failures.append("launch commands without an engine: note %r" % gen)
        heads = br.js("Array.from(document.querySelectorAll('#plan-table th')).map((th) => th.textContent)")
        if "mean TTFT" not in heads or "mean TPOT" not in heads:
            failures.append("plan headings %r do not name the mean a fast plan judges" % (heads,))

        # an engine llmroof writes no command for (LMDeploy): the panel says so, no command shown
        br.js("document.getElementById('launch').innerHTML = ''")
        br.js("(() => { const s = document.getElementById('engine'); s.value = 'lmdeploy';"
              " s.dispatchEvent(new Event('change', { bubbles: true })); })()")
        br.js("document.querySelector('#plan button').click()")
        br.wait("document.querySelector('#launch .note') !== null || !document.getElementById('plan-error').hidden")
        note = br.js("document.querySelector('#launch .note') ? document.querySelector('#launch .note').textContent : ''")
        if not note.startswith("None: the plan simulated an engine profile llmroof writes no commands for") or br.js("document.querySelectorAll('#launch pre').length"):
            failures.append("launch panel under -e lmdeploy: %r" % note)
        br.js("document.getElementById('launch-title').scrollIntoView()")
        png = br.call("Page.captureScreenshot", {"format": "png", "captureBeyondViewport": False})["data"]
        with open(shot.replace(".png", "-no-launch.png"), "wb") as f:
            f.write(base64.b64decode(png))
        br.js("(() => { const s = document.getElementById('engine'); s.value = '';"
              " s.dispatchEvent(new Event('change', { bubbles: true })); })()")

        # a plan amount that is not a number: named in the error (as text it went out as null, which
        # means "the default", and a plan for 10,000 users appeared; review, session 37)
        br.js("(() => { const f = document.getElementById('plan'); f.amount.value = 'abc';"
              " f.querySelector('button').click(); })()")
        br.wait("!document.getElementById('plan-error').hidden")
        perr = br.js("document.getElementById('plan-error').textContent")
        # named as the page names it: the field's label, without the command line's --help advice
        if "field 'Amount'" not in perr or "abc" not in perr or "--help" in perr or \
                br.js("document.getElementById('plan-table').innerHTML"):
            failures.append("plan amount 'abc': error %r, table %r" % (perr, br.js("document.getElementById('plan-table').innerHTML")[:80]))
        br.js("document.getElementById('plan-error').scrollIntoView()")
        png = br.call("Page.captureScreenshot", {"format": "png", "captureBeyondViewport": False})["data"]
        with open(shot.replace(".png", "-plan-error.png"), "wb") as f:
            f.write(base64.b64decode(png))
        br.js("(() => { const f = document.getElementById('plan'); f.amount.value = '500'; })()")
        # a setup change marks the serving and plan results as the previous setup's (they had gone
        # on showing the other model's numbers and commands); an error names the setup's field
        # ('TP'), not the plan's 'TP values'
        # the batch is the estimate's alone: the serving curve (its own workload) stays as it was
        # (simulated again here, so that it is current)
        br.js("document.getElementById('serving-table').innerHTML = ''; document.querySelector('#serving button').click()")
        br.wait("document.querySelectorAll('#serving-table tr').length > 1 || !document.getElementById('serving-error').hidden")
        br.js("(() => { const t = document.querySelector('#inputs [name=batch]'); t.value = '9';"
              " t.dispatchEvent(new Event('input', { bubbles: true })); })()")
        if not br.js("document.getElementById('serving-stale').hidden"):
            failures.append("a batch change marked the serving curve, which does not use the batch, as stale")
        br.js("(() => { const t = document.querySelector('#inputs [name=kv_dtype]'); t.value = 'fp8';"
              " t.dispatchEvent(new Event('change', { bubbles: true })); })()")
        # (the plan's table is empty here, after its 'abc' error: nothing of it to mark)
        if br.js("document.getElementById('serving-stale').hidden") or not br.js("document.getElementById('plan-stale').hidden"):
            failures.append("after a setup change the serving results are not marked as the previous setup's, or an "
                            "empty plan is")
        br.js("(() => { const t = document.querySelector('#inputs [name=kv_dtype]'); t.value = 'fp16';"
              " t.dispatchEvent(new Event('change', { bubbles: true })); })()")
        br.js("(() => { const t = document.querySelector('#inputs [name=tp]'); t.value = '-1';"
              " t.dispatchEvent(new Event('change', { bubbles: true })); })()")
        br.wait("document.body.dataset.ready === 'error'")
        terr = br.js("document.getElementById('estimate-error').textContent")
        if not terr.startswith("field 'TP': '-1'"):
            failures.append("TP -1: error %r does not name the setup's field 'TP'" % terr)
        # an input the model refuses (TP 3 divides none of its heads): the error, and none of the
        # previous answer's numbers beside it
        br.js("(() => { const t = document.querySelector('#inputs [name=tp]'); t.value = '3';"
              " t.dispatchEvent(new Event('change', { bubbles: true })); })()")
        br.wait("document.body.dataset.ready === 'error'")
        card, roof = br.js("document.getElementById('ttft').textContent"), br.js("document.getElementById('roofline').innerHTML")
        if card != "\u2013" or roof or br.js("document.getElementById('estimate-error').hidden"):
            failures.append("after TP 3's error the page still shows TTFT %r and a roofline of %d characters" % (card, len(roof)))
        br.js("(() => { const t = document.querySelector('#inputs [name=tp]'); t.value = '1';"
              " t.dispatchEvent(new Event('change', { bubbles: true })); })()")
        br.wait("document.body.dataset.ready === 'estimate'")

        br.js("window.scrollTo(0, 0)")
        png = br.call("Page.captureScreenshot", {"format": "png", "captureBeyondViewport": False})["data"]
        with open(shot, "wb") as f:
            f.write(base64.b64decode(png))
        print("screenshot: " + shot)

        check_links(br, bin_, url, failures)
        check_status_names_errors(br, url, failures)
        check_long_times_and_state(br, bin_, url, failures)
        check_moe_tp(br, bin_, url, failures)
        check_roofline_and_labels(br, url, failures)
        check_messages_and_url(br, url, failures)
        check_page_wording(br, url, failures)
        check_prefill_steps_note(br, url, failures)
        check_warnings_shown(br, url, failures)
        check_newest_answer_wins(br, url, failures)
    finally:
        br.close()
        server.send_signal(signal.SIGTERM)
        rc = server.wait(timeout=20)
        server.stderr.close()
        if rc != 0:
            failures.append("llmroof serve exited %d on SIGTERM" % rc)
    for f in failures:
        print("FAIL: " + f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
