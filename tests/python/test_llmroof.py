"""Tests of the Python binding (python/llmroof) against the command line.

Run from the README's test command through ctest, or by hand:
    LLMROOF_LIB=build/libllmroof.so.0 LLMROOF_CLI=build/llmroof python3 -m unittest -v tests/python/test_llmroof.py
Every value checked is the command line's own output for the same options, or a figure the
README derives by hand.
"""

import json
import os
import subprocess
import sys
import threading
import time
import unittest
import warnings

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(REPO, "python"))
os.environ.setdefault("LLMROOF_DATA", os.path.join(REPO, "data"))

import llmroof  # noqa: E402

CLI = os.environ.get("LLMROOF_CLI", os.path.join(REPO, "build", "llmroof"))


def cli(*argv):
    """(status, stdout, stderr) of the llmroof binary."""
    p = subprocess.run([CLI] + list(argv), capture_output=True, text=True, check=False)
    return p.returncode, p.stdout, p.stderr


def cli_json(*argv):
    status, out, err = cli(*argv, "--format", "json")
    if status != 0:
        raise AssertionError("llmroof %s failed (%d): %s" % (" ".join(argv), status, err))
    return json.loads(out)


class SameAsTheCommandLine(unittest.TestCase):
    def test_version(self):
        self.assertEqual(cli("--version")[1].strip(), "llmroof " + llmroof.version())

    def test_estimate_equals_the_cli_json(self):
        got = llmroof.estimate(model="llama-2-7b", gpu="a100", tp=1, batch=8)
        self.assertEqual(got, cli_json("estimate", "-m", "llama-2-7b", "-g", "a100", "-t", "1", "-b", "8"))
        self.assertEqual(got["gpu"], "a100-sxm4-40gb")
        self.assertEqual(got["batch"], 8)
        # and byte for byte
        text = llmroof.call_text("estimate", model="llama-2-7b", gpu="a100", tp=1, batch=8)
        self.assertEqual(text, cli("estimate", "-m", "llama-2-7b", "-g", "a100", "-t", "1", "-b", "8",
                                   "--format", "json")[1])

    def test_estimate_with_engine_and_range(self):
        got = llmroof.estimate(model="llama-2-7b", gpu="a100-sxm4-80gb", engine="vllm-0.6", range=True)
        self.assertEqual(got, cli_json("estimate", "-m", "llama-2-7b", "-g", "a100-sxm4-80gb",
                                       "--engine", "vllm-0.6", "--range"))

    def test_memory_max_batch_of_the_readme(self):
        # README: llama-13b on 8 x V100-32GB, all the memory the runtime reports usable, nothing
        # else resident: (34,089,730,048 - 3,254,691,840 B weights) / 102,400 B per token per GPU
        # = 301,123 tokens = 147 sequences of 2048 tokens.
        got = llmroof.memory(model="llama-13b", gpu="v100", tp=8, mem_util=1, reserve=0, workspace=0)
        self.assertEqual(got["max_batch"], 147)
        self.assertEqual(got["kv_capacity_tokens"], 301123)
        self.assertTrue(got["fits"])
        self.assertEqual(got, cli_json("memory", "-m", "llama-13b", "-g", "v100", "-t", "8", "--mem-util", "1",
                                       "--reserve", "0", "--workspace", "0"))

    def test_simulate_equals_the_cli_json(self):
        got = llmroof.simulate(model="llama-2-7b", gpu="a100", concurrency=4, requests=20, seed=7)
        self.assertEqual(got, cli_json("simulate", "-m", "llama-2-7b", "-g", "a100", "--concurrency", "4",
                                       "--requests", "20", "--seed", "7"))
        self.assertEqual(got["completed"], 20)

    def test_plan_equals_the_cli_json(self):
        got = llmroof.plan(model="llama-2-7b", gpus=["a100"], tp=[1, 2], users=100, ttft_slo="3s")
        self.assertEqual(got, cli_json("plan", "-m", "llama-2-7b", "--gpus", "a100", "--tp", "1,2",
                                       "--users", "100", "--ttft-slo", "3s"))
        self.assertEqual(got["users"], 100)
        self.assertEqual([o["tp"] for o in got["options"]], [1, 2])

    def test_show_and_sweep(self):
        self.assertEqual(llmroof.show("model", "llama-2-70b"), cli_json("show", "model", "llama-2-70b"))
        rows = llmroof.sweep(models="llama-2-7b", gpus=["a100", "h100"], tp=[1, 2], batch=8, prompt=512,
                             output=128)
        self.assertEqual(len(rows), 4)  # 1 model x 2 GPUs x 2 TP
        self.assertEqual({r["tp"] for r in rows}, {1, 2})

    def test_a_format_of_none_is_the_default(self):
        # format=None is no option: the JSON (for sweep the JSON Lines rows), not the table text
        want = cli_json("estimate", "-m", "llama-2-7b", "-g", "a100")
        self.assertEqual(llmroof.estimate(model="llama-2-7b", gpu="a100", format=None), want)
        self.assertEqual(llmroof.estimate(model="llama-2-7b", gpu="a100", format=False), want)
        rows = llmroof.sweep(models="llama-2-7b", gpus="a100", tp=1, batch=8, prompt=512, output=128, format=None)
        self.assertEqual(len(rows), 1)

    def test_sweep_through_call_and_a_context(self):
        # call("sweep") without a format: the rows (it had raised "json is not available for
        # 'sweep'"); a Context with its own catalog has the module's shortcuts too
        rows = llmroof.call("sweep", models="llama-2-7b", gpus="a100", tp=1, batch=8, prompt=512, output=128)
        self.assertEqual(len(rows), 1)
        self.assertEqual(rows[0]["schema"], "llmroof.sweep/1")
        with llmroof.Context(os.environ["LLMROOF_DATA"]) as ctx:
            self.assertEqual(ctx.sweep(models="llama-2-7b", gpus="a100", tp=1, batch=8, prompt=512, output=128), rows)
            self.assertEqual(ctx.show("model", "llama-2-70b"), llmroof.show("model", "llama-2-70b"))

    def test_list_is_reachable_through_call(self):
        got = llmroof.call("list", "gpus")
        self.assertEqual(got, cli_json("list", "gpus"))
        self.assertIn("a100-sxm4-40gb", [g["id"] for g in got["gpus"]])


class Errors(unittest.TestCase):
    def test_bad_model_raises_with_the_name(self):
        with self.assertRaises(llmroof.LlmroofError) as cm:
            llmroof.estimate(model="llama-2-7x", gpu="a100")
        self.assertEqual(cm.exception.status, 2)
        self.assertIn("'llama-2-7x'", str(cm.exception))
        self.assertIn("did you mean: llama-2-7b", str(cm.exception))
        status, out, err = cli("estimate", "-m", "llama-2-7x", "-g", "a100", "--format", "json")
        self.assertEqual(status, 2)
        self.assertEqual(cm.exception.message, err.strip())

    def test_an_infeasible_plan_raises_with_the_plan_parsed(self):
        # exit 1 is an answer that fails the ask: the plan's JSON says why each row cannot serve,
        # parsed as a success's would be (it had reached the caller as a str in e.output)
        with self.assertRaises(llmroof.LlmroofError) as cm:
            llmroof.plan(model="llama-2-70b", gpus=["a100"], tp=[1], users=100000, ttft_slo="10ms")
        e = cm.exception
        self.assertEqual(e.status, 1)
        self.assertIsInstance(e.result, dict)
        self.assertIsNone(e.result["best"])
        self.assertEqual(e.result, json.loads(e.output))
        self.assertFalse(e.result["options"][0]["feasible"])

    def test_bad_values_and_options_raise(self):
        cases = [
            (dict(model="llama-2-7b", gpu="a100", tp=0), "'--tp'"),
            (dict(model="llama-2-7b", gpu="a100", bogus=1), "unknown field 'bogus'"),
            (dict(model="llama-2-7b", gpu="a100", batch={"x": 1}), "field 'batch' must be a string"),
            (dict(model="llama-2-7b", gpu="nope"), "unknown GPU 'nope'"),
            # values JSON cannot carry: LlmroofError naming the field, not json's TypeError (review, session 37)
            (dict(model=b"llama-2-7b", gpu="a100"), "field 'model'"),
            (dict(model="llama-2-7b", gpu="a100", batch={1}), "field 'batch'"),
        ]
        for kw, needle in cases:
            with self.subTest(kw=kw):
                with self.assertRaises(llmroof.LlmroofError) as cm:
                    llmroof.estimate(**kw)
                self.assertEqual(cm.exception.status, 2)
                self.assertIn(needle, str(cm.exception))
        with self.assertRaises(llmroof.LlmroofError) as cm:
            llmroof.call("estimat")
        self.assertIn("unknown command 'estimat'", str(cm.exception))

    def test_options_are_checked_against_their_kind(self):
        base = dict(model="llama-2-7b", gpu="a100")
        cwd = os.getcwd()
        os.chdir(self.tmpdir())
        try:
            cases = [
                # a value option given True must not take the next option as its value
                ("roofline", dict(base, svg=True), "field 'svg' takes a value (FILE), not true"),
                ("estimate", dict(base, batch=True), "field 'batch' takes a value (B), not true"),
                ("estimate", dict(base, dp_attention="yes"), "field 'dp-attention' is a flag: expected true or false, got 'yes'"),
                ("estimate", dict(base, batch=float("nan")), "field 'batch': nan is not a finite number"),
                ("estimate", dict(base, batch=[1, float("inf")]), "field 'batch': inf is not a finite number"),
                ("estimate", dict(base, model="llama\ud800"), "field 'model': 'llama\\ud800' holds a character UTF-8 cannot carry"),
                ("estimate", dict(base, mod="llama-2-7b"), "unknown field 'mod'"),
                ("estimate", dict(base, help=True), "field 'help'"),
                ("estimate", dict(base, model="llama-2-7b\u0000x"),
                 "field 'model': the value 'llama-2-7b' is followed by a NUL or control character at byte 10"),
                ("estimate", dict(base, model="x" * 1000), "unknown model '" + "x" * 64 + "...'"),
                ("estimate", dict(base, model="x" * 200000), "a value of 200000 bytes ('" + "x" * 64 + "...')"),
            ]
            for cmd, kw, needle in cases:
                with self.subTest(cmd=cmd, needle=needle):
                    with self.assertRaises(llmroof.LlmroofError) as cm:
                        llmroof.call(cmd, **kw)
                    self.assertEqual(cm.exception.status, 2)
                    self.assertIn(needle, str(cm.exception))
                    self.assertLess(len(str(cm.exception)), 400)
            self.assertEqual(os.listdir("."), [])  # no file named --format=json
            # False for a flag leaves it out
            self.assertEqual(llmroof.estimate(dp_attention=False, **base), llmroof.estimate(**base))
        finally:
            os.chdir(cwd)

    def tmpdir(self):
        import tempfile
        d = tempfile.mkdtemp()
        self.addCleanup(lambda: __import__("shutil").rmtree(d, ignore_errors=True))
        return d

    def test_warning_beside_a_result(self):
        # 4096 + 512 = 4608 tokens > llama-2-7b's 4096-token context
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            got = llmroof.estimate(model="llama-2-7b", gpu="a100", prompt=4096, output=512)
        self.assertEqual(got["prompt_len"], 4096)
        self.assertTrue(any(issubclass(x.category, llmroof.LlmroofWarning) and "4608 tokens" in str(x.message)
                            for x in w), [str(x.message) for x in w])
        # the warning names the caller's line, through a module function, a Context method and
        # call_text alike (a review: a fixed stacklevel named llmroof/__init__.py)
        with llmroof.Context() as ctx:
            for fn in (lambda: llmroof.estimate(model="llama-2-7b", gpu="a100", prompt=4096, output=512),
                       lambda: ctx.estimate(model="llama-2-7b", gpu="a100", prompt=4096, output=512),
                       lambda: ctx.call_text("estimate", model="llama-2-7b", gpu="a100", prompt=4096, output=512)):
                with warnings.catch_warnings(record=True) as w:
                    warnings.simplefilter("always")
                    fn()
                self.assertTrue(w)
                self.assertEqual({os.path.basename(x.filename) for x in w}, {"test_llmroof.py"},
                                 [x.filename for x in w])

    def test_a_note_before_an_error_is_a_warning(self):
        # a review: the note "model ... taken as llama-3.1-70b" led the message of an unknown GPU
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            with self.assertRaises(llmroof.LlmroofError) as cm:
                llmroof.estimate(model="meta-llama/Meta-Llama-3.1-70B-Instruct", gpu="bogus")
        self.assertTrue(cm.exception.message.startswith("llmroof: error: unknown GPU 'bogus'"), cm.exception.message)
        self.assertNotIn("note:", cm.exception.message)
        self.assertTrue(any(issubclass(x.category, llmroof.LlmroofWarning) and "taken as llama-3.1-70b" in str(x.message)
                            for x in w), [str(x.message) for x in w])

    def test_a_drift_says_which_fields_moved(self):
        # check's drift is status 1 with the diff as output, and its message names the rows and
        # fields (tests/cli/golden/check_drift_message.err: line 1 moved in ttft_s and 5 more)
        with self.assertRaises(llmroof.LlmroofError) as cm:
            llmroof.call("check", os.path.join(REPO, "tests", "data", "baseline-drift.jsonl"))
        self.assertEqual(cm.exception.status, 1)
        self.assertIn("2 of 3 rows drifted", cm.exception.message)
        self.assertIn("line 1: ttft_s", cm.exception.message)
        self.assertTrue(cm.exception.output)

    def test_context_with_a_bad_directory(self):
        with self.assertRaises(llmroof.LlmroofError) as cm:
            llmroof.Context("/nonexistent-llmroof-dir")
        self.assertIn("/nonexistent-llmroof-dir", str(cm.exception))
        # a path that is not UTF-8 is echoed, not raised as UnicodeDecodeError; one with a NUL is refused
        # (ctypes would cut it at the NUL and load another directory)
        with self.assertRaises(llmroof.LlmroofError):
            llmroof.Context(b"/nonexistent-llmroof-\xff")
        with self.assertRaises(llmroof.LlmroofError) as cm:
            llmroof.Context("/tmp/\x00x")
        self.assertIn("NUL", str(cm.exception))


class Contexts(unittest.TestCase):
    def test_own_context_and_catalog_file(self):
        with llmroof.Context(os.path.join(REPO, "data")) as ctx:
            mine = ctx.estimate(model="llama-2-7b", gpu="my-accel",
                                gpus_file=os.path.join(REPO, "tests", "data", "my-gpu.json"))
            self.assertEqual(mine["gpu"], "my-accel")
            with self.assertRaises(llmroof.LlmroofError):
                ctx.estimate(model="llama-2-7b", gpu="my-accel")  # the file was for that call only

    def test_threads_get_the_same_answers(self):
        expect = llmroof.estimate(model="llama-2-70b", gpu="h100", tp=4, batch=16)
        results, errors = [], []

        def work():
            try:
                for _ in range(25):
                    results.append(llmroof.estimate(model="llama-2-70b", gpu="h100", tp=4, batch=16))
            except Exception as e:  # pragma: no cover - reported below
                errors.append(e)

        threads = [threading.Thread(target=work) for _ in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        self.assertEqual(errors, [])
        self.assertEqual(len(results), 100)
        self.assertTrue(all(r == expect for r in results))


    def test_racing_first_calls_make_one_default_context(self):
        # the default context was made without a lock: threads whose first calls raced each loaded
        # the catalog. A context slow to make (0.2 s) holds the race open; eight threads start at
        # once on a module with no default context yet.
        real, saved, made = llmroof.Context, llmroof._default, []

        class Slow(real):
            def __init__(self, *args, **kw):
                made.append(threading.get_ident())
                time.sleep(0.2)
                super().__init__(*args, **kw)

        start = threading.Barrier(8)
        results, errors = [], []

        def work():
            try:
                start.wait()
                results.append(llmroof.estimate(model="llama-2-7b", gpu="a100")["gpu"])
            except Exception as e:  # pragma: no cover - reported below
                errors.append(e)

        llmroof.Context, llmroof._default = Slow, None
        try:
            threads = [threading.Thread(target=work) for _ in range(8)]
            for t in threads:
                t.start()
            for t in threads:
                t.join()
            first = llmroof._default
        finally:
            llmroof.Context, llmroof._default = real, saved
        self.assertEqual(errors, [])
        self.assertEqual(results, ["a100-sxm4-40gb"] * 8)
        self.assertEqual(len(made), 1, "%d contexts made" % len(made))
        self.assertIsInstance(first, Slow)
        first.close()


class Interrupt(unittest.TestCase):
    def test_ctrl_c_ends_a_long_simulation(self):
        # Python's own handler: KeyboardInterrupt within a moment of a simulation of minutes
        self.assertEqual(self._run_with_sigint("", 20000), ["interrupted", "0", "-1"])

    def _run_with_sigint(self, handler_code, requests):
        # a child that installs `handler_code` as its SIGINT handler, runs a simulation and says
        # how it ended (interrupted: with the wakeup fd it had before the call, -1); SIGINT comes
        # 0.3 s after it starts
        code = ("import signal, sys, time; sys.path.insert(0, %r); import llmroof\n"
                "class Stop(Exception): pass\n"
                "calls = []\n" + handler_code +
                "print('ready', flush=True)\n"
                "try:\n"
                "    r = llmroof.simulate(model='llama-3.1-8b', gpu='h100', requests=%d, workload='fixed:128:20000')\n"
                "    print('finished', r['completed'] if 'completed' in r else 'ok', len(calls), flush=True)\n"
                "except Stop:\n"
                "    print('raised Stop', len(calls), flush=True)\n"
                "except KeyboardInterrupt:\n"
                "    print('interrupted', len(calls), signal.set_wakeup_fd(-1), flush=True)\n"
                ) % (os.path.join(REPO, "python"), requests)
        p = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)
        try:
            self.assertEqual(p.stdout.readline().strip(), "ready")
            import signal
            import time
            time.sleep(0.3)
            p.send_signal(signal.SIGINT)
            said = p.stdout.readline().split()
            self.assertEqual(p.wait(timeout=300), 0)
        finally:
            if p.poll() is None:
                p.kill()
            p.stdout.close()
        return said

    def test_a_custom_handler_that_raises_gets_its_exception(self):
        said = self._run_with_sigint(
            "def h(s, f):\n    calls.append(s)\n    raise Stop()\nsignal.signal(signal.SIGINT, h)\n", 20000)
        self.assertEqual(said, ["raised", "Stop", "1"])

    def test_a_custom_handler_that_does_not_raise_lets_the_call_finish(self):
        # the signal handled (its handler ran once), the computation runs again to its end
        said = self._run_with_sigint(
            "def h(s, f):\n    calls.append(s)\nsignal.signal(signal.SIGINT, h)\n", 6000)
        self.assertEqual(said[0], "finished")
        self.assertEqual(said[-1], "1")


if __name__ == "__main__":
    unittest.main()
