"""test_server.py - `llmroof serve` over loopback (docs/api.md, "HTTP").

Starts the server on a free port (--port 0, the URL read from stderr) and checks: the API's
answer is the CLI's JSON byte for byte; malformed JSON 400, an oversized body 413, a wrong
method 405, an unknown path or command 404, file options and work past the limits 400 with a
message; 200 parallel clients with no error; the resident memory flat after 10,000 requests;
a slow client dropped after --timeout; a quick estimate answered while a long simulation runs;
SIGINT and SIGTERM stop it with exit 0.

Usage: python3 test_server.py BIN   (BIN: the llmroof binary; LLMROOF_DATA set by ctest)
"""
import http.client
import json
import os
import re
import signal
import socket
import subprocess
import sys
import threading
import time
import unittest

BIN = None


def start(*extra):
    p = subprocess.Popen([BIN, "serve", "--port", "0", *extra], stderr=subprocess.PIPE, text=True)
    line = p.stderr.readline()
    m = re.search(r"http://127\.0\.0\.1:(\d+)/", line)
    if not m:
        p.kill()
        raise AssertionError("no URL on stderr: " + line)
    return p, int(m.group(1))


def stop(p, sig=signal.SIGTERM):
    p.send_signal(sig)
    try:
        return p.wait(timeout=20)
    finally:
        if p.poll() is None:
            p.kill()
        p.stderr.close()


def request(port, method, path, body=None, conn=None, timeout=60):
    c = conn or http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    c.request(method, path, body=body, headers={"Content-Type": "application/json"} if body is not None else {})
    r = c.getresponse()
    data = r.read()
    if conn is None:
        c.close()
    return r.status, dict(r.getheaders()), data


def send_long_simulation(port):
    """A socket that has sent a simulation of minutes (its answer not read)."""
    body = json.dumps({"model": "llama-3.1-8b", "gpu": "h100", "requests": 20000,
                       "workload": "fixed:128:100000"}).encode()
    s = socket.create_connection(("127.0.0.1", port))
    s.sendall(b"POST /api/v1/simulate HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
              b"Content-Length: %d\r\n\r\n%s" % (len(body), body))
    return s


def raw(port, data, timeout=10):
    """(status, head, body) of the answer to bytes sent as they are, and how many answers came
    before the server closed the connection."""
    s = socket.create_connection(("127.0.0.1", port))
    s.sendall(data)
    s.settimeout(timeout)
    got = b""
    try:
        while True:
            b = s.recv(65536)
            if not b:
                break
            got += b
    except ConnectionResetError:
        pass
    s.close()
    head, _, body = got.partition(b"\r\n\r\n")
    status = int(head.split(b" ", 2)[1]) if head.startswith(b"HTTP/1.1 ") else None
    return status, head.decode("latin-1"), body, got.count(b"HTTP/1.1 ")


def rss_kib(pid):
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    raise AssertionError("no VmRSS")


def raise_nofile(want):
    """Raises this process's soft limit on open files towards want (the server inherits it);
    the limit reached."""
    import resource
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    target = want if hard == resource.RLIM_INFINITY else min(want, hard)
    if soft < target:
        resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
    return resource.getrlimit(resource.RLIMIT_NOFILE)[0]


class Connections(unittest.TestCase):
    def test_idle_connections_past_fd_setsize_do_not_lock_others_out(self):
        # libmicrohttpd in select() mode refused every connection whose descriptor reached
        # FD_SETSIZE (1024), logging a line for each: about 1,020 idle connections locked
        # everyone out. In poll() mode 1,100 idle connections leave room for a request; past the
        # server's connection limit (4096) a connection is closed at once, a few lines logged.
        if raise_nofile(4400) < 1300:
            self.skipTest("the limit on open files is under 1300")
        # a long idle timeout: on a loaded machine opening 4,000 sockets takes seconds, and a
        # 5 s timeout let the server drop the first idle ones before the probe past the limit
        p, port = start("--timeout", "120")
        socks = []
        try:
            for _ in range(1100):
                socks.append(socket.create_connection(("127.0.0.1", port)))
            st, _, data = self.probe(port)
            self.assertEqual(st, 200, data)
            if raise_nofile(4400) >= 4400:
                for _ in range(4096 - 1100 + 20):
                    socks.append(socket.create_connection(("127.0.0.1", port)))
                with self.assertRaises((ConnectionError, http.client.RemoteDisconnected)):
                    self.probe(port)
                for s in socks[:100]:
                    s.close()
                del socks[:100]
                time.sleep(0.3)
                st, _, _ = self.probe(port)
                self.assertEqual(st, 200)
        finally:
            for s in socks:
                s.close()
            p.send_signal(signal.SIGTERM)
            _, err = p.communicate(timeout=20)
        self.assertEqual(p.returncode, 0)
        self.assertNotIn("FD_SETSIZE", err)
        lines = [l for l in err.splitlines() if "connection limit" in l]
        self.assertLessEqual(len(lines), 5, err[-2000:])

    @staticmethod
    def probe(port):
        return request(port, "POST", "/api/v1/estimate", json.dumps({"model": "llama-2-7b", "gpu": "a100"}), timeout=10)


class Server(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.p, cls.port = start("--timeout", "2s")  # a duration with its unit, as the bare "2" elsewhere

    @classmethod
    def tearDownClass(cls):
        rc = stop(cls.p, signal.SIGINT)
        assert rc == 0, "SIGINT: exit %d" % rc

    def post(self, cmd, obj):
        return request(self.port, "POST", "/api/v1/" + cmd, json.dumps(obj))

    def error(self, data):
        e = json.loads(data)["error"]
        self.assertTrue(e.startswith("llmroof: error: "), e)
        return e

    def test_estimate_is_the_cli_json_byte_for_byte(self):
        st, hdr, data = self.post("estimate", {"model": "llama-2-7b", "gpu": "a100", "batch": 8})
        cli = subprocess.run([BIN, "estimate", "-m", "llama-2-7b", "-g", "a100", "-b", "8", "--format", "json"],
                             capture_output=True, check=True).stdout
        self.assertEqual(st, 200)
        self.assertEqual(hdr["Content-Type"], "application/json")
        self.assertEqual(data, cli)

    def test_plan_json_carries_launch_commands(self):
        st, _, data = self.post("plan", {"model": "llama-2-7b", "gpus": "a100", "tp": "1,2", "users": 50, "fast": True})
        self.assertEqual(st, 200)
        best = json.loads(data)["best"]
        self.assertTrue(best["launch"][0]["command"].startswith("vllm serve meta-llama/Llama-2-7b"))

    def test_plan_jobs_that_mean_one_thread_are_taken(self):
        # the server refuses 'jobs' other than 1 (a request's own threads would multiply what
        # --max-compute bounds), but what the API reads as one thread or as no option is taken
        # (docs/api.md: "1" is --jobs=1, a list its text, false and null the default; review of
        # session 47: all four were 400 "leave 'jobs' out, or give 1"), each the same answer
        req = {"model": "llama-2-7b", "gpus": "a100", "tp": "1,2", "users": 50, "fast": True}
        st, _, plain = self.post("plan", req)
        self.assertEqual(st, 200)
        for jobs in (1, 1.0, "1", [1], ["1"], None, False):
            st, _, data = self.post("plan", dict(req, jobs=jobs))
            self.assertEqual(st, 200, (jobs, data))
            self.assertEqual(data, plain, jobs)
        for jobs in (2, "2", [2], True, "one", 0.5):
            st, _, data = self.post("plan", dict(req, jobs=jobs))
            self.assertEqual(st, 400, jobs)
            self.assertIn("field 'jobs'", self.error(data), jobs)

    def test_bad_input_is_400_with_the_cli_message(self):
        st, _, data = self.post("estimate", {"model": "no-such-model", "gpu": "a100"})
        self.assertEqual(st, 400)
        self.assertIn("'no-such-model'", self.error(data))

    def test_malformed_json_is_400(self):
        for body in ['{"model":', "[1,2]", "nul", '{"a":1,"a":2}', "[" * 40 + "]" * 40, b"\xff\xfe{}"]:
            st, _, data = request(self.port, "POST", "/api/v1/estimate", body)
            self.assertEqual(st, 400, body)
            self.error(data)

    def test_nan_and_bad_utf8_are_named_as_the_library_names_them(self):
        # json.dumps(float("nan")) writes NaN: the server's own parse had said "invalid JSON at
        # byte 43" where the library names the field, and "not UTF-8" without the byte (review,
        # session 65)
        st, _, data = request(self.port, "POST", "/api/v1/estimate", '{"model":"llama-2-7b","gpu":"a100","batch":NaN}')
        self.assertEqual(st, 400)
        self.assertIn("field 'batch': NaN is not a number JSON can hold", self.error(data))
        st, _, data = request(self.port, "POST", "/api/v1/estimate", b'{"model":"llama-2-7b\xff","gpu":"a100"}')
        self.assertEqual(st, 400)
        self.assertIn("invalid UTF-8 at byte 20 (byte 0xff)", self.error(data))

    def test_text_after_the_object_is_400(self):
        # a second object was dropped without a word, and the run used the defaults (review, session 37)
        for body in ['{"model":"llama-2-7b","gpu":"a100"} garbage', '{"model":"llama-2-7b","gpu":"a100"}{"batch":8}']:
            st, _, data = request(self.port, "POST", "/api/v1/estimate", body)
            self.assertEqual(st, 400, body)
            self.assertIn("text after the JSON object", self.error(data))
        # a raw NUL after the object is text too (strchr(" \t\r\n", 0) finds the terminator)
        st, _, _ = request(self.port, "POST", "/api/v1/estimate", b'{"model":"llama-2-7b","gpu":"a100"}\0x')
        self.assertEqual(st, 400)
        st, _, _ = request(self.port, "POST", "/api/v1/estimate", '{"model":"llama-2-7b","gpu":"a100"}\r\n ')
        self.assertEqual(st, 200)

    def test_a_number_out_of_range_is_400_naming_the_field(self):
        # 1e400 parses to infinity; re-serialised it became null, "the default", and answered 200
        for cmd, body, field in [("estimate", '{"model":"llama-2-7b","gpu":"a100","batch":1e400}', "batch"),
                                 ("estimate", '{"model":"llama-2-7b","gpu":"a100","mem_util":-1e400}', "mem_util"),
                                 ("simulate", '{"model":"llama-2-7b","gpu":"a100","rate":1e400}', "rate"),
                                 ("plan", '{"model":"llama-2-7b","gpus":"a100","tp":[1,1e400]}', "tp")]:
            st, _, data = request(self.port, "POST", "/api/v1/" + cmd, body)
            self.assertEqual(st, 400, body)
            self.assertIn(f"field '{field}'", self.error(data))
            # the library's reading of the body's numbers, as the C API reports them
            self.assertIn("is out of range", self.error(data))
            self.assertIn("up to 1.8e308", self.error(data))

    def test_a_list_is_checked_as_the_text_it_becomes(self):
        # the library joins a list into one option ([10000000] -> "10000000"); the refusals and the
        # work limits read option text, and read a list's too (review, session 37: a one-element list
        # read a named file, and ran 10 million requests past the 20,000 limit)
        cases = [("simulate", {"model": "llama-2-7b", "gpu": "a100", "requests": 20, "workload": ["csv:/etc/hostname"]},
                  "csv:FILE reads a file"),
                 ("plan", {"model": "llama-2-7b", "gpus": "a100", "users": 8, "workload": ["csv:/etc/hostname"]},
                  "csv:FILE reads a file"),
                 ("simulate", {"model": "llama-2-7b", "gpu": "a100", "requests": [10000000], "rate": 1000000,
                               "workload": "fixed:1:1"}, "field 'requests'"),
                 ("simulate", {"model": "llama-2-7b", "gpu": "a100", "requests": 10,
                               "sweep_rate": [",".join(str(i) for i in range(1, 31))]}, "points is past"),
                 ("simulate", {"model": "llama-2-7b", "gpu": "a100", "instances": [4096]}, "field 'instances'"),
                 # a disaggregated run's instances are its pools' (the default limit is 64): 40 + 40
                 # is past it though each pool alone is not
                 ("simulate", {"model": "llama-2-7b", "gpu": "a100", "prefill_pool": "40:a100:1", "decode_pool": 40},
                  "'prefill_pool' + 'decode_pool': 40 + 40 instances is past this server's limit of 64"),
                 ("simulate", {"model": "llama-2-7b", "gpu": "a100", "prefill_pool": ["4096"], "decode_pool": "1"},
                  "4096 + 1 instances"),
                 ("plan", {"model": "llama-2-7b", "gpus": ["all"], "tp": ["1,2,4,8"], "users": 8}, "layouts to search"),
                 ("plan", {"model": "llama-2-7b", "gpus": ["a100", "all"], "tp": [1], "users": 8}, "layouts to search"),
                 # a request's own threads would multiply what --max-compute bounds
                 ("plan", {"model": "llama-2-7b", "gpus": "a100", "users": 8, "fast": True, "jobs": 8},
                  "field 'jobs': this server runs each request on one thread"),
                 ("plan", {"model": "llama-2-7b", "gpus": "a100", "users": 8, "fast": True, "jobs": "8"}, "field 'jobs'")]
        for cmd, obj, text in cases:
            st, _, data = self.post(cmd, obj)
            self.assertEqual(st, 400, obj)
            self.assertIn(text, self.error(data), obj)

    def post_raw(self, cmd, body, headers):
        """(status, X-Llmroof-Warning lines, body) of a POST of body as it is."""
        c = http.client.HTTPConnection("127.0.0.1", self.port, timeout=60)
        c.request("POST", "/api/v1/" + cmd, body=body, headers=headers)
        r = c.getresponse()
        data = r.read()
        w = r.msg.get_all("X-Llmroof-Warning") or []
        c.close()
        return r.status, w, data

    def warnings_of(self, cmd, obj):
        return self.post_raw(cmd, json.dumps(obj), {"Content-Type": "application/json"})

    def test_warnings_and_notes_come_as_headers(self):
        # a review: a 200's warnings were dropped (the Python binding had them), and a 400's error
        # began with the note printed before it
        st, w, _ = self.warnings_of("estimate", {"model": "llama-2-7b", "gpu": "a100", "host_cpu_speed": 2,
                                                 "prompt": 5000})
        self.assertEqual(st, 200)
        self.assertEqual(len(w), 2, w)
        self.assertTrue(w[0].startswith("llmroof: warning: option '--host-cpu-speed' has no effect"), w)
        self.assertIn("exceeds llama-2-7b's max context of 4096", w[1])
        st, w, data = self.warnings_of("estimate", {"model": "llama-2-7b", "gpu": "v100", "act_dtype": "fp8"})
        self.assertEqual(st, 400)
        self.assertTrue(self.error(data).startswith("llmroof: error: GPU 'v100-sxm2-32gb' has no fp8 compute path"),
                        self.error(data))
        self.assertNotIn("note:", self.error(data))
        self.assertEqual(len(w), 1, w)
        self.assertIn("llmroof: note: option '--act-dtype'", w[0])
        # the chart's path splits them too
        st, w, data = self.warnings_of("roofline.svg", {"model": "meta-llama/Llama-3.1-8B-Instruct", "gpu": "bogus"})
        self.assertEqual(st, 400)
        self.assertTrue(self.error(data).startswith("llmroof: error: unknown GPU 'bogus'"), self.error(data))
        self.assertEqual(len(w), 1, w)
        self.assertIn("taken as llama-3.1-8b", w[0])
        # none where the command said nothing
        st, w, _ = self.warnings_of("estimate", {"model": "llama-2-7b", "gpu": "a100"})
        self.assertEqual((st, w), (200, []))

    def test_encodings_and_blank_bodies(self):
        # a review: a gzipped body was "not UTF-8", a latin1 charset accepted, three spaces "invalid
        # JSON at byte 2" where an empty body reads as {}
        def post_raw(body, headers):
            st, _, data = self.post_raw("estimate", body, headers)
            return st, data
        import gzip
        st, data = post_raw(gzip.compress(b'{"model":"llama-2-7b","gpu":"a100"}'),
                            {"Content-Type": "application/json", "Content-Encoding": "gzip"})
        self.assertEqual(st, 415)
        self.assertIn("header 'Content-Encoding' is not taken", self.error(data))
        # an unknown command is 404 whatever its media type (it had been 415, then 404)
        st, _, data = self.post_raw("sweep", "{}", {"Content-Type": "text/plain"})
        self.assertEqual(st, 404)
        self.assertIn("roofline.svg", self.error(data))
        st, data = post_raw('{"model":"llama-2-7b","gpu":"a100"}', {"Content-Type": "application/json; charset=latin1"})
        self.assertEqual(st, 415)
        self.assertIn("charset=utf-8 or none", self.error(data))
        st, _ = post_raw('{"model":"llama-2-7b","gpu":"a100"}', {"Content-Type": 'application/json; charset="UTF-8"'})
        self.assertEqual(st, 200)
        for body in ["", "   ", "\r\n\t "]:
            st, data = post_raw(body, {"Content-Type": "application/json"})
            self.assertEqual(st, 400, repr(body))
            self.assertIn("options '--model' and '--gpu' are required", self.error(data))

    def test_limits_echo_the_number_sent(self):
        # a review: 123456789 was said "1.23457e+08" (the requests' cases: test_work_limits_are_400)
        st, _, data = self.post("simulate", {"model": "llama-2-7b", "gpu": "a100", "instances": 123456789})
        self.assertEqual(st, 400)
        self.assertIn("field 'instances': 123456789 is past this server's limit of 64", self.error(data))
        # below the range or not a count, in this server's range too (the CLI's is [1, 4096]), and a
        # count in exponent form as the CLI reads a count: not one
        for field, value, text in [("instances", 0, "field 'instances': 0 is not a whole number in [1, 64]"),
                                   ("instances", "64.0", "field 'instances': '64.0' is not a whole number in [1, 64]"),
                                   ("requests", "1e2", "field 'requests': '1e2' is not a whole number in [1, 20000]")]:
            st, _, data = self.post("simulate", {"model": "llama-2-7b", "gpu": "a100", field: value})
            self.assertEqual(st, 400, value)
            self.assertIn(text, self.error(data))
        # a sweep list is named as the request names it; one with an empty item, by the library
        st, _, data = self.post("simulate", {"model": "llama-2-7b", "gpu": "a100",
                                             "sweep_rate": ",".join(str(i) for i in range(1, 18))})
        self.assertIn("field 'sweep_rate': 17 points is past", self.error(data))
        st, _, data = self.post("simulate", {"model": "llama-2-7b", "gpu": "a100",
                                             "sweep_rate": "1,," + ",".join(str(i) for i in range(2, 18))})
        self.assertIn("is not a comma-separated list of positive numbers", self.error(data))
        # a byte size takes its unit (a review: "reserve": 1.5 reserved 2 bytes)
        st, _, data = self.post("memory", {"model": "llama-2-7b", "gpu": "a100", "reserve": 1.5})
        self.assertEqual(st, 400)
        self.assertIn("'1.5' has no unit", self.error(data))

    def test_a_bad_sweep_point_states_no_limit_of_the_cli(self):
        # review, session 62: a bad point ("0") was said to break "a list of up to 64" points where
        # this server takes 16; the item is named alone
        st, _, data = self.post("simulate", {"model": "llama-2-7b", "gpu": "a100", "requests": 10, "sweep_rate": "1,0"})
        self.assertEqual(st, 400)
        self.assertIn("option '--sweep-rate': '0' is not a positive number of at most 1e7", self.error(data))
        self.assertNotIn("64", self.error(data))

    def test_a_nul_inside_a_string_is_400_naming_the_field(self):
        # cJSON ends a string at an escaped NUL: "llama-2-7b\u0000x" ran llama-2-7b
        st, _, data = request(self.port, "POST", "/api/v1/estimate", '{"model":"llama-2-7b\\u0000x","gpu":"a100"}')
        self.assertEqual(st, 400)
        self.assertIn("field 'model'", self.error(data))
        # in a name too, said as a NUL: it is read as U+0001 to survive cJSON, and was echoed "svg\\x01"
        st, _, data = request(self.port, "POST", "/api/v1/estimate", '{"svg\\u0000":1,"model":"llama-2-7b","gpu":"a100"}')
        self.assertEqual(st, 400)
        self.assertIn("field 'svg' is followed by a NUL or control character at byte 3", self.error(data))

    def test_body_over_1_mib_is_413(self):
        st, _, data = request(self.port, "POST", "/api/v1/estimate", b" " * (1024 * 1024 + 1))
        self.assertEqual(st, 413)
        self.error(data)
        # a client that asks for the go-ahead (curl above 1 MiB: Expect: 100-continue) gets the 413
        # at once, before sending its body, not "100 Continue" and a 413 after the whole body (a review)
        with socket.create_connection(("127.0.0.1", self.port), timeout=5) as s:
            s.sendall(b"POST /api/v1/estimate HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nContent-Type: application/json\r\n"
                      b"Content-Length: 2097152\r\nExpect: 100-continue\r\n\r\n" % self.port)
            head = s.recv(4096)
        self.assertTrue(head.startswith(b"HTTP/1.1 413"), head[:80])

    def test_a_query_string_on_an_api_request_is_400(self):
        # options in the URL had been ignored, the body's run (a review); the page's own query
        # (?run=1) stays its business
        st, _, data = request(self.port, "POST", "/api/v1/estimate?model=x",
                              json.dumps({"model": "llama-2-7b", "gpu": "a100"}))
        self.assertEqual(st, 400)
        self.assertIn(b"the URL has a query string", data)
        st, _, _ = request(self.port, "GET", "/?run=1")
        self.assertEqual(st, 200)

    def test_wrong_method_is_405_with_allow(self):
        st, hdr, _ = request(self.port, "GET", "/api/v1/estimate")
        self.assertEqual((st, hdr.get("Allow")), (405, "POST"))
        st, hdr, _ = request(self.port, "POST", "/", "{}")
        self.assertEqual((st, hdr.get("Allow")), (405, "GET, HEAD"))
        st, _, _ = request(self.port, "DELETE", "/api/v1/estimate")
        self.assertEqual(st, 405)

    def test_unknown_path_or_command_is_404(self):
        for m, path in [("GET", "/nope"), ("GET", "/../data/gpus.json"), ("POST", "/api/v1/import-hf"),
                        ("POST", "/api/v1/validate"), ("POST", "/api/v2/estimate"), ("POST", "/api/v1/estimate/x"),
                        # whatever the method: a GET had been told 405 "Allow: POST" (a review)
                        ("GET", "/api/v1/frobnicate"), ("GET", "/api/v1/sweep"), ("GET", "/api/v1/estimate/x"),
                        ("DELETE", "/api/v1/validate")]:
            st, _, data = request(self.port, m, path, "{}" if m == "POST" else None)
            self.assertEqual(st, 404, path)
            self.error(data)

    def test_file_options_are_refused(self):
        for key in ["svg", "requests_out", "trace-out", "gpus_file", "args", "trace", "data", "spec_draft_config"]:
            st, _, data = self.post("simulate", {"model": "llama-2-7b", "gpu": "a100", key: "/tmp/llmroof-x"})
            self.assertEqual(st, 400, key)
            self.assertIn("not over HTTP", self.error(data))
        self.assertFalse(os.path.exists("/tmp/llmroof-x"))
        st, _, data = self.post("simulate", {"model": "llama-2-7b", "gpu": "a100", "workload": "csv:/etc/passwd"})
        self.assertEqual(st, 400)

    def test_null_or_false_file_options_are_no_options(self):
        # false and null give no option (docs/api.md), so they name no file and ask no other
        # format: "format": null had been refused as "always json"
        want = self.post("estimate", {"model": "llama-2-7b", "gpu": "a100"})
        for key in ["format", "svg", "gpus_file", "trace_out"]:
            for v in [None, False]:
                st, _, data = self.post("estimate", {"model": "llama-2-7b", "gpu": "a100", key: v})
                self.assertEqual((st, data), (200, want[2]), (key, v))
        # "format": "json" is the format every answer has: taken (a library request's body had been
        # refused over HTTP: a review); another format is refused, naming the field
        st, _, data = self.post("estimate", {"model": "llama-2-7b", "gpu": "a100", "format": "json"})
        self.assertEqual((st, data), (200, want[2]))
        st, _, data = self.post("estimate", {"model": "llama-2-7b", "gpu": "a100", "format": "csv"})
        self.assertEqual(st, 400)
        self.assertIn("field 'format' is always json", self.error(data))
        st, _, data = self.post("list", {"args": "gpus", "format": None})
        self.assertEqual(st, 200)
        self.assertEqual(json.loads(data)["schema"], "llmroof.list/1")
        # "command" is no option: refused whatever its value, naming it
        st, _, data = self.post("estimate", {"model": "llama-2-7b", "gpu": "a100", "command": None})
        self.assertEqual(st, 400)
        self.assertIn("field 'command' comes from the path", self.error(data))

    def test_roofline_svg_comes_back_in_the_response(self):
        st, hdr, data = self.post("roofline.svg", {"model": "llama-2-7b", "gpu": "a100"})
        self.assertEqual((st, hdr["Content-Type"]), (200, "image/svg+xml"))
        self.assertIn(b"<svg", data)
        # a request's own "svg": null or false is no option there too (it had become a key given
        # twice beside the server's path, a 400)
        for v in [None, False]:
            st2, _, data2 = self.post("roofline.svg", {"model": "llama-2-7b", "gpu": "a100", "svg": v})
            self.assertEqual((st2, data2), (200, data), v)

    def test_an_encoded_nul_in_the_path_is_404(self):
        # the decoded path ends at the NUL: /api/v1/estimate%00x had run estimate, /app.js%00.css
        # served app.js
        for m, path in [("POST", "/api/v1/estimate%00foo"), ("GET", "/app.js%00.css"), ("GET", "/%00")]:
            st, _, data = request(self.port, m, path, "{}" if m == "POST" else None)
            self.assertEqual(st, 404, path)
            self.assertIn("%00", self.error(data))
        st, _, _ = request(self.port, "GET", "/app.js")
        self.assertEqual(st, 200)

    def test_work_limits_are_400(self):
        st, _, data = self.post("simulate", {"model": "llama-2-7b", "gpu": "a100", "requests": 1000000})
        self.assertEqual(st, 400)
        self.assertIn("limit", self.error(data))
        # below the range, the server's range too (the library's own message gives the CLI's 1e7),
        # and any value not a whole number in it, echoed as sent (a review: 99999999 was "1e+08",
        # "5.5" got the CLI's [1, 10000000])
        for value, text in [(0, "field 'requests': 0 is not a whole number in [1, 20000]"),
                            (99999999, "field 'requests': 99999999 is past this server's limit of 20000"),
                            ("5.5", "field 'requests': '5.5' is not a whole number in [1, 20000] (this server's limit)"),
                            ("abc", "field 'requests': 'abc' is not a whole number in [1, 20000]"),
                            (5.5, "field 'requests': 5.5 is not a whole number in [1, 20000]")]:
            st, _, data = self.post("simulate", {"model": "llama-2-7b", "gpu": "a100", "requests": value})
            self.assertEqual(st, 400, value)
            self.assertIn(text, self.error(data))
        st, _, data = self.post("simulate", {"model": "llama-2-7b", "gpu": "a100", "requests": 20000,
                                             "workload": "fixed:128:4096"})
        self.assertEqual(st, 400)  # 20000 x 4096 = 8.2e7 tokens > 2e7
        st, _, data = self.post("plan", {"model": "llama-2-7b", "gpus": "all"})
        self.assertEqual(st, 400)
        self.assertIn("layouts", self.error(data))
        # null is no option: the default runs, and the limits count the default (a review: "tp":
        # null counted one TP value where the default, 1,2,4,8, searches four; "workload": null
        # counted no tokens at all where the default chat draws about 500 a request)
        st, _, data = self.post("plan", {"model": "llama-2-7b", "gpus": "a100,h100,l40s,a10,a30,a40,v100,h200,l4",
                                         "tp": None, "users": 100, "fast": True})
        self.assertEqual(st, 400)  # 9 GPUs x the default's 4 TP values = 36 > 32 (counted 9 x 1)
        self.assertIn("36 layouts to search", self.error(data))
        st, _, data = self.post("simulate", {"model": "llama-3.1-8b", "gpu": "h100", "workload": None,
                                             "requests": 1000, "shared_prefix": "100000"})
        self.assertEqual(st, 400)
        self.assertIn("(the means of workload 'chat')", self.error(data))

    def test_named_workloads_count_their_mean_lengths(self):
        # a named workload was counted at 2048 output tokens a request whatever its means, so
        # sharegpt:200000:100 passed (the library refused it only for llama-3.1-8b's context) and
        # 20,000 chat requests (about 1e7 tokens) were refused as 4.1e7
        for wl, per in [("sharegpt:200000:100", "250 requests x (200100 prompt + output tokens"),
                        ("lognormal:100000:150000:100:200", "250 requests x "),
                        ("random:1:400000:1", "250 requests x (400001 prompt + output tokens")]:
            st, _, data = self.post("simulate", {"model": "llama-3.1-8b", "gpu": "h100", "workload": wl})
            self.assertEqual(st, 400, wl)
            e = self.error(data)
            self.assertIn("fields 'requests' x 'workload': " + per, e)
            self.assertIn("(the means of workload '%s')" % wl, e)
            self.assertIn("past this server's limit of 2e+07", e)
        # a shared prefix comes on top of a named workload's prompts: 20,000 x (1,000 + 200) = 2.4e7
        st, _, data = self.post("simulate", {"model": "llama-2-7b", "gpu": "a100", "requests": 20000,
                                             "workload": "sharegpt:100:100", "shared_prefix": "1000:4"})
        self.assertEqual(st, 400)
        # (the prefix said apart from the workload's means: a review of session 65)
        self.assertIn("fields 'requests' x 'workload' + 'shared_prefix': 20000 requests x (200 prompt + output tokens "
                      "(the means of workload 'sharegpt:100:100') + 1000 tokens of 'shared_prefix')", self.error(data))
        # a prefix outside --shared-prefix's range is the library's to refuse, naming the option
        st, _, data = self.post("simulate", {"model": "llama-2-7b", "gpu": "a100", "requests": 50,
                                             "shared_prefix": "1e30"})
        self.assertEqual(st, 400)
        self.assertIn("'--shared-prefix'", self.error(data))
        # small workloads are not over-counted: 20,000 requests of their means are within 2e7
        for wl in ["sharegpt:100:100", "lognormal:100:200:100:200", "chat", None]:
            obj = {"model": "llama-2-7b", "gpu": "a100", "requests": 20000}
            if wl:
                obj["workload"] = wl
            st, _, data = self.post("simulate", obj)
            self.assertEqual(st, 200, (wl, data[:300]))
            self.assertEqual(json.loads(data)["requests"], 20000)
        # --capacity-band reruns the simulation at the band's low and high service rate: three runs,
        # 20,000 x 400 x 3 = 2.4e7 tokens past 2e7 (one run, 8e6, had been counted); without it one
        obj = {"model": "llama-2-7b", "gpu": "a100", "requests": 20000, "workload": "sharegpt:200:200"}
        st, _, data = self.post("simulate", dict(obj, capacity_band=10))
        self.assertEqual(st, 400)
        self.assertIn("20000 requests x (400 prompt + output tokens (the means of workload 'sharegpt:200:200')) x 3 runs",
                      self.error(data))
        st, _, data = self.post("simulate", dict(obj, capacity_band=None))
        self.assertEqual(st, 200, data[:300])

    def test_framing_headers_that_disagree_are_400(self):
        # two Content-Length headers were taken as the first; Transfer-Encoding beside Content-Length
        # as chunked: a proxy in front may read either otherwise (request smuggling)
        body = b'{"model":"llama-2-7b","gpu":"a100"}'
        chunked = b"%x\r\n%s\r\n0\r\n\r\n" % (len(body), body)
        head = b"POST /api/v1/estimate HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
        follow = head + b"Content-Length: %d\r\n\r\n%s" % (len(body), body)  # pipelined after it
        cases = [(b"Content-Length: %d\r\nContent-Length: 5\r\n" % len(body), body, 400, "header 'Content-Length'"),
                 (b"Content-Length: %d\r\ncontent-length: %d\r\n" % (len(body), len(body)), body, 400,
                  "header 'Content-Length' is given more than once"),
                 (b"Transfer-Encoding: chunked\r\nContent-Length: 5\r\n", chunked, 400,
                  "headers 'Transfer-Encoding' and 'Content-Length'"),
                 (b"Content-Length: 5\r\nTransfer-Encoding: chunked\r\n", chunked, 400,
                  "headers 'Transfer-Encoding' and 'Content-Length'"),
                 (b"Transfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n", chunked, 400,
                  "header 'Transfer-Encoding' is given more than once"),
                 # a coding libmicrohttpd cannot decode waited for the connection's end: 501
                 (b"Transfer-Encoding: gzip\r\n", body, 501, "header 'Transfer-Encoding': 'gzip' is not understood")]
        for hdrs, payload, status, text in cases:
            st, h, data, answers = raw(self.port, head + hdrs + b"\r\n" + payload + follow)
            self.assertEqual(st, status, hdrs)
            self.assertIn(text, self.error(data), hdrs)
            self.assertIn("Connection: close", h)
            self.assertEqual(answers, 1, hdrs)  # the pipelined request is not read from an ambiguous stream
        # one of them is the plain case, answered (and the connection kept for the next)
        for hdrs, payload in [(b"Content-Length: %d\r\n" % len(body), body), (b"Transfer-Encoding: chunked\r\n", chunked)]:
            st, _, _, answers = raw(self.port, head + hdrs + b"\r\n" + payload + follow.replace(
                b"Host: 127.0.0.1\r\n", b"Host: 127.0.0.1\r\nConnection: close\r\n"))
            self.assertEqual((st, answers), (200, 2), hdrs)

    def test_host_and_origin_once_and_host_required(self):
        # the loopback checks read the first Host and Origin: "Host: 127.0.0.1" then "Host:
        # evil.example" had been answered 200; so had an HTTP/1.1 request without Host
        body = b'{"model":"llama-2-7b","gpu":"a100"}'
        tail = b"Content-Type: application/json\r\nContent-Length: %d\r\n\r\n%s" % (len(body), body)
        line = b"POST /api/v1/estimate HTTP/1.1\r\n"
        cases = [(line + b"Host: 127.0.0.1\r\nHost: evil.example\r\n", 400, "header 'Host' is given more than once"),
                 (line, 400, "header 'Host' is missing"),
                 (line + b"Host: 127.0.0.1\r\nOrigin: http://127.0.0.1:%d\r\nOrigin: http://evil.example\r\n"
                  % self.port, 400, "header 'Origin' is given more than once")]
        for head, status, text in cases:
            st, _, data, _ = raw(self.port, head + tail)
            self.assertEqual(st, status, head)
            self.assertIn(text, self.error(data), head)
        # HTTP/1.0 has no Host to send: answered
        st, _, _, _ = raw(self.port, b"POST /api/v1/estimate HTTP/1.0\r\n" + tail)
        self.assertEqual(st, 200)

    def test_favicon_is_204_and_the_page_names_its_icon(self):
        # a browser asked for /favicon.ico on every load and got a 404 in its console
        st, hdr, data = request(self.port, "GET", "/favicon.ico")
        self.assertEqual((st, data), (204, b""))
        self.assertNotIn("Content-Type", hdr)
        self.assertEqual(request(self.port, "HEAD", "/favicon.ico")[0], 204)
        st, hdr, _ = request(self.port, "POST", "/favicon.ico", "{}")
        self.assertEqual((st, hdr.get("Allow")), (405, "GET, HEAD"))
        # the page names an inline icon, so a browser does not ask at all
        page = request(self.port, "GET", "/")[2].decode()
        self.assertRegex(page, r'<link rel="icon" href="data:image/svg\+xml,<svg [^"]*</svg>">')

    def test_a_long_request_target_or_header_is_json(self):
        # libmicrohttpd's own 414 and 431 carried its HTML: the server now reads up to its memory
        # per connection (256 KiB) and answers past 8 KiB of target or 32 KiB of headers in JSON
        head = b"Host: 127.0.0.1\r\nConnection: close\r\n"
        st, h, data, _ = raw(self.port, b"GET /?q=" + b"a" * 100000 + b" HTTP/1.1\r\n" + head + b"\r\n")
        self.assertEqual(st, 414)
        self.assertIn("Content-Type: application/json", h)
        self.assertIn("the request target (path and query) is 100004 bytes, over this server's limit of 8192",
                      self.error(data))
        st, h, data, _ = raw(self.port, b"POST /api/v1/" + b"e" * 9000 + b" HTTP/1.1\r\n" + head +
                             b"Content-Type: application/json\r\nContent-Length: 2\r\n\r\n{}")
        self.assertEqual(st, 414)
        self.error(data)
        st, h, data, _ = raw(self.port, b"GET / HTTP/1.1\r\n" + head + b"X-Big: " + b"b" * 100000 + b"\r\n\r\n")
        self.assertEqual(st, 431)
        self.assertIn("the headers are", self.error(data))
        # the page's own URLs (their state in the query) are far inside the limit
        st, _, data, _ = raw(self.port, b"GET /?gpu=h200&model=llama-3.1-8b&" + b"x" * 7000 + b" HTTP/1.1\r\n" + head +
                             b"\r\n")
        self.assertEqual(st, 200)
        # what libmicrohttpd parses itself is still its own answer (docs/api.md): a chunk size that
        # is not hexadecimal is 400 before the server sees the body
        st, _, _, _ = raw(self.port, b"POST /api/v1/estimate HTTP/1.1\r\n" + head +
                          b"Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n")
        self.assertEqual(st, 400)

    def test_page_and_assets(self):
        for path, ctype in [("/", "text/html"), ("/app.js", "text/javascript"), ("/style.css", "text/css")]:
            st, hdr, data = request(self.port, "GET", path)
            self.assertEqual(st, 200, path)
            self.assertTrue(hdr["Content-Type"].startswith(ctype))
            self.assertGreater(len(data), 100)
        self.assertNotIn(b"http://", request(self.port, "GET", "/")[2].replace(b"http://www.w3.org", b""))

    def test_200_parallel_clients_no_error(self):
        results = []

        def one(i):
            try:
                st, _, data = self.post("estimate", {"model": "llama-2-7b", "gpu": "a100", "batch": 1 + i % 16})
                results.append(st == 200 and json.loads(data)["batch"] == 1 + i % 16)
            except Exception as e:  # noqa: BLE001 - any failure is the test's
                results.append(repr(e))

        threads = [threading.Thread(target=one, args=(i,)) for i in range(200)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        self.assertEqual(results.count(True), 200, [r for r in results if r is not True][:3])

    def test_an_estimate_answers_while_every_cpu_simulates(self):
        # as many long simulations as the server takes at once (one per CPU, at least 2): an
        # estimate is answered at once, not after --timeout (2 s here) with 503
        # (the server counts CPUs as sysconf does; --max-compute 600 lets many on few cores finish)
        p, port = start("--max-sim-tokens", "1e12", "--timeout", "2", "--max-compute", "10min")
        slots = max(2, min(1024, os.sysconf("SC_NPROCESSORS_ONLN")))
        n = 5000 if os.environ.get("LLMROOF_SANITIZE") else 20000
        done = []

        def slow():
            done.append(request(port, "POST", "/api/v1/simulate", json.dumps(
                {"model": "gemma-2-9b", "gpu": "h100", "requests": n,
                 "sweep_rate": "2,4,6,8,10,12,14,16,18,20,22,24,26,28,30,32"}), timeout=600)[0])

        try:
            ths = [threading.Thread(target=slow) for _ in range(slots)]
            for th in ths:
                th.start()
            time.sleep(0.3)
            t = time.monotonic()
            st, _, _ = request(port, "POST", "/api/v1/estimate", json.dumps({"model": "llama-2-7b", "gpu": "a100"}))
            quick = time.monotonic() - t
            running = len(done)
            for th in ths:
                th.join()
        finally:
            self.assertEqual(stop(p), 0)
        self.assertEqual(running, 0)  # every simulation was still computing
        self.assertEqual((st, quick < 0.5), (200, True), quick)
        self.assertEqual(done, [200] * slots)  # and each simulation had its CPU

    def test_estimate_answers_while_a_long_simulation_runs(self):
        # a server whose work limit admits a simulation of about a second (8 runs x 20000 requests)
        p, port = start("--max-sim-tokens", "1e12")
        done = {}

        def slow():
            t = time.monotonic()
            # under the sanitizers the same run is 10-20x slower: a quarter of the requests
            # still takes well over a second there, and the client waits as long as it needs
            # (gemma-2's windowed layers and 16 rates: the simulator's lazy decode runs the
            # llama-3.1-8b sweep of 8 rates in a quarter of a second)
            n = 5000 if os.environ.get("LLMROOF_SANITIZE") else 20000
            done["st"] = request(port, "POST", "/api/v1/simulate", json.dumps(
                {"model": "gemma-2-9b", "gpu": "h100", "requests": n,
                 "sweep_rate": "2,4,6,8,10,12,14,16,18,20,22,24,26,28,30,32"}), timeout=600)[0]
            done["s"] = time.monotonic() - t

        try:
            th = threading.Thread(target=slow)
            th.start()
            time.sleep(0.2)
            t = time.monotonic()
            st, _, _ = request(port, "POST", "/api/v1/estimate", json.dumps({"model": "llama-2-7b", "gpu": "a100"}))
            quick = time.monotonic() - t
            th.join()
        finally:
            self.assertEqual(stop(p), 0)
        self.assertEqual((st, done["st"]), (200, 200))
        print("estimate %.3f s while a %.2f s simulation ran" % (quick, done["s"]), file=sys.stderr)
        self.assertGreater(done["s"], 0.5)  # the simulation really was long
        self.assertLess(quick, 0.25)

    def test_slow_client_is_dropped_after_the_timeout(self):
        s = socket.create_connection(("127.0.0.1", self.port))
        s.sendall(b"POST /api/v1/estimate HTTP/1.1\r\nHost: x\r\n")  # headers never finish
        s.settimeout(15)
        t = time.monotonic()
        try:
            data = s.recv(4096)
        except ConnectionResetError:
            data = b""
        waited = time.monotonic() - t
        s.close()
        self.assertEqual(data, b"")  # closed, nothing answered
        self.assertLess(waited, 10)  # --timeout 2 (with MHD's polling slack)


    def trickle(self, head, piece):
        """Sends head, then piece every half second for up to 20 s: whether the server closed the
        connection, and after how many seconds."""
        s = socket.create_connection(("127.0.0.1", self.port))
        s.sendall(head)
        t = time.monotonic()
        closed = False
        try:
            for _ in range(40):
                s.sendall(piece)
                time.sleep(0.5)
        except (BrokenPipeError, ConnectionResetError):
            closed = True
        waited = time.monotonic() - t
        if not closed:  # the last piece went out before the close was seen: nothing comes back
            s.settimeout(5)
            try:
                closed = s.recv(4096) == b""
            except (ConnectionResetError, socket.timeout):
                closed = True
        s.close()
        return closed, waited

    def test_trickled_body_is_dropped_after_the_timeout(self):
        # a byte every half second never leaves the connection idle, but the whole body must
        # come within --timeout (2 s): the server closes it (review of session 35)
        closed, waited = self.trickle(b"POST /api/v1/estimate HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: "
                                      b"application/json\r\nContent-Length: 100\r\n\r\n", b" ")
        self.assertTrue(closed)
        self.assertLess(waited, 10)

    def test_trickled_headers_are_dropped_after_the_timeout(self):
        # a header line every half second never leaves the connection idle, and the handler that
        # times the body never runs before the headers end: the watchdog shuts the socket once
        # they have not all come within --timeout (2 s) of the accept (review of session 65:
        # 160 such clients had locked a server out for as long as they trickled)
        closed, waited = self.trickle(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n", b"X-a: b\r\n")
        self.assertTrue(closed)
        self.assertLess(waited, 10)

    def test_a_kept_alive_connection_serves_its_requests_past_the_timeout(self):
        # the header deadline starts again after each request: a client that keeps one connection
        # and asks every second for longer than --timeout is answered every time
        c = http.client.HTTPConnection("127.0.0.1", self.port, timeout=30)
        body = json.dumps({"model": "llama-2-7b", "gpu": "a100"})
        for _ in range(4):
            c.request("POST", "/api/v1/estimate", body=body, headers={"Content-Type": "application/json"})
            r = c.getresponse()
            r.read()
            self.assertEqual(r.status, 200)
            time.sleep(1.0)
        c.close()

    def test_cross_site_requests_are_refused(self):
        body = json.dumps({"model": "llama-2-7b", "gpu": "a100"})
        c = http.client.HTTPConnection("127.0.0.1", self.port, timeout=30)
        c.request("POST", "/api/v1/estimate", body=body,
                  headers={"Content-Type": "application/json", "Origin": "http://evil.example"})
        r = c.getresponse()
        r.read()
        self.assertEqual(r.status, 403)
        c.request("POST", "/api/v1/estimate", body=body, headers={"Content-Type": "text/plain"})
        r = c.getresponse()
        r.read()
        self.assertEqual(r.status, 415)
        c.close()

    def test_sigterm_stops_a_server_that_is_computing(self):
        # libmicrohttpd would join the computing thread: the server exits at once instead, 0
        p, port = start("--max-sim-tokens", "1e12")
        def long_run():
            try:
                request(port, "POST", "/api/v1/simulate", json.dumps(
                    {"model": "llama-3.1-8b", "gpu": "h100", "requests": 20000, "workload": "fixed:128:100000"}),
                    timeout=600)
            except OSError:
                pass  # the server went away mid-answer, as it should

        th = threading.Thread(target=long_run, daemon=True)
        th.start()
        time.sleep(1.0)
        t = time.monotonic()
        self.assertEqual(stop(p), 0)
        self.assertLess(time.monotonic() - t, 5)


    def test_a_relocated_binary_serves_the_page_beside_it(self):
        # a copy of the executables with a web/ beside them serves that page, not the build's
        # source tree's (a review: a relocated copy had served another version without a word)
        import shutil
        import tempfile
        with tempfile.TemporaryDirectory() as d:
            for name in ("llmroof", "llmroof-serve"):
                src = os.path.join(os.path.dirname(BIN), name)
                if not os.path.exists(src):
                    self.skipTest(name + " not beside " + BIN)
                shutil.copy2(src, d)
            os.mkdir(os.path.join(d, "web"))
            for name, text in (("index.html", "<html><body>relocated page</body></html>"),
                               ("app.js", ""), ("style.css", "")):
                with open(os.path.join(d, "web", name), "w") as f:
                    f.write(text)
            p = subprocess.Popen([os.path.join(d, "llmroof"), "serve", "--port", "0"], stderr=subprocess.PIPE,
                                 text=True)
            line = p.stderr.readline()
            m = re.search(r"http://127\.0\.0\.1:(\d+)/", line)
            try:
                self.assertIsNotNone(m, line)
                self.assertIn("page from " + os.path.join(d, "web"), line)
                st, _, data = request(int(m.group(1)), "GET", "/")
            finally:
                self.assertEqual(stop(p), 0)
            self.assertEqual(st, 200)
            self.assertIn(b"relocated page", data)

    def test_a_request_that_finds_every_cpu_busy_is_told_when_to_retry(self):
        # one long simulation a CPU holds every slot; a further one waits --timeout (1 s) and gets
        # 503 with Retry-After (a review: the message said retry, not when)
        p, port = start("--max-sim-tokens", "1e12", "--max-compute", "4", "--timeout", "1")
        slots = max(2, min(1024, os.sysconf("SC_NPROCESSORS_ONLN")))
        socks = [send_long_simulation(port) for _ in range(slots)]
        try:
            time.sleep(0.3)
            st, hdrs, data = request(port, "POST", "/api/v1/simulate", json.dumps(
                {"model": "llama-3.1-8b", "gpu": "h100", "requests": 10}))
        finally:
            for s in socks:
                s.close()
            self.assertEqual(stop(p), 0)
        self.assertEqual(st, 503)
        self.assertEqual(hdrs.get("Retry-After"), "1")
        self.assertIn(b"for the whole 1 s this request may wait (--timeout)", data)

    def test_a_computation_past_max_compute_is_503(self):
        # a simulation of minutes stops at --max-compute (1 s) with 503 naming the limit
        p, port = start("--max-sim-tokens", "1e12", "--max-compute", "1")
        try:
            t = time.monotonic()
            st, _, data = request(port, "POST", "/api/v1/simulate", json.dumps(
                {"model": "llama-3.1-8b", "gpu": "h100", "requests": 20000, "workload": "fixed:128:100000"}))
            took = time.monotonic() - t
        finally:
            self.assertEqual(stop(p), 0)
        self.assertEqual(st, 503)
        self.assertIn(b"limit of 1 s (--max-compute)", data)
        self.assertLess(took, 5)

    def test_a_half_closed_client_is_told_why(self):
        # a shutdown(SHUT_WR) reads as a departure (end of file): the computation stops, and the
        # client, still reading, gets a 503 that says so rather than a silent close
        p, port = start("--max-sim-tokens", "1e12")
        try:
            s = send_long_simulation(port)
            s.shutdown(socket.SHUT_WR)
            s.settimeout(30)
            data = b""
            while True:
                b = s.recv(65536)
                if not b:
                    break
                data += b
            s.close()
        finally:
            self.assertEqual(stop(p), 0)
        self.assertTrue(data.startswith(b"HTTP/1.1 503"), data[:80])
        self.assertIn(b"closed its side of the connection", data)

    def test_a_client_that_leaves_stops_its_computation(self):
        # the same simulation, its client gone once it computes: the server's CPU goes quiet at once
        # instead of computing an answer nobody reads for minutes
        p, port = start("--max-sim-tokens", "1e12")

        def cpu_s():
            with open("/proc/%d/stat" % p.pid) as f:
                v = f.read().rsplit(")", 1)[1].split()
            return (int(v[11]) + int(v[12])) / os.sysconf("SC_CLK_TCK")  # utime + stime

        try:
            s = send_long_simulation(port)
            # until the simulation has had 0.1 s of a CPU (longer on a loaded machine): its rate
            t0, c0 = time.monotonic(), cpu_s()
            while cpu_s() - c0 < 0.1 and time.monotonic() - t0 < 60:
                time.sleep(0.05)
            rate = (cpu_s() - c0) / (time.monotonic() - t0)  # CPU seconds a second while computing
            s.close()
            time.sleep(0.5)  # the server looks at the socket every 50 ms
            c1 = cpu_s()
            time.sleep(1.0)
            after = cpu_s() - c1
        finally:
            self.assertEqual(stop(p), 0)
        print("computing at %.2f CPU s/s; %.2f s of CPU in the 1 s after the client left" % (rate, after),
              file=sys.stderr)
        self.assertGreater(rate, 0)
        # computing on, the second the server would take about `rate` seconds of CPU (relative, as a
        # loaded machine gives the simulation less of one)
        self.assertLess(after, max(0.02, rate / 4))


class Memory(unittest.TestCase):
    @unittest.skipIf(os.environ.get("LLMROOF_SANITIZE"), "ASan's quarantine grows the RSS by design")
    def test_rss_flat_after_10000_requests(self):
        p, port = start()
        try:
            body = json.dumps({"model": "llama-2-7b", "gpu": "a100", "batch": 4})
            conns = [http.client.HTTPConnection("127.0.0.1", port, timeout=60) for _ in range(4)]

            def burst(n, c):
                for _ in range(n):
                    st, _, _ = request(port, "POST", "/api/v1/estimate", body, conn=c)
                    assert st == 200

            def run(n):
                ts = [threading.Thread(target=burst, args=(n // 4, c)) for c in conns]
                for t in ts:
                    t.start()
                for t in ts:
                    t.join()

            run(400)  # warm-up: allocator arenas of the connection threads
            before = rss_kib(p.pid)
            run(10000)
            after = rss_kib(p.pid)
            for c in conns:
                c.close()
            print("RSS before %d KiB, after 10,000 requests %d KiB" % (before, after), file=sys.stderr)
            self.assertLess(after - before, 4096, "RSS grew %d KiB" % (after - before))
        finally:
            self.assertEqual(stop(p, signal.SIGTERM), 0)


if __name__ == "__main__":
    BIN = sys.argv.pop(1)
    unittest.main(verbosity=2)
