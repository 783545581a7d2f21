"""llmroof: roofline estimates of LLM inference, from Python.

A thin binding (standard library ``ctypes`` only) over libllmroof's JSON API
(``include/llmroof/api.h``, ``docs/api.md``). Every function takes the command line's long
options as keyword arguments (``batch=8``, ``mem_util=0.9``, ``ttft_slo="3s"``) and returns
the JSON the command line prints with ``--format json``, as Python objects::

    >>> import llmroof
    >>> r = llmroof.estimate(model="llama-2-7b", gpu="a100", batch=8)
    >>> r["gpu"]
    'a100-sxm4-40gb'

Bad input raises :class:`LlmroofError` with the command line's message and exit status;
warnings the command line prints come as :class:`LlmroofWarning`.

The shared library is found at ``$LLMROOF_LIB`` (a file), else in a build directory of the
source tree this package sits in (``build/``), else beside an installed package
(``<prefix>/lib*/``), else by the dynamic loader (``libllmroof.so.0``).
"""

import ctypes
import json
import math
import os
import signal
import sys
import threading
import warnings

__all__ = [
    "LlmroofError", "LlmroofWarning", "Context", "call", "call_text", "version",
    "estimate", "memory", "simulate", "plan", "report", "roofline", "show", "sweep",
]

_SONAME = "libllmroof.so.0"


class LlmroofError(Exception):
    """A request llmroof refused or could not carry out.

    ``status`` is the command line's exit status: 2, bad input; 1, an answer that fails what
    was asked (a plan nothing in it can serve, a ``validate`` gate above its limit, a drift
    ``check`` found) or an internal failure. ``message`` is what it printed on stderr,
    ``output`` what it printed on stdout (the infeasible plan's JSON, ``check``'s diff) or
    None, and ``result`` that output parsed as :meth:`Context.call` would return it (the plan,
    each row saying why it cannot serve), or None where there is none.
    """

    def __init__(self, message, status, output=None, result=None):
        super().__init__(message)
        self.message = message
        self.status = status
        self.output = output
        self.result = result


class LlmroofWarning(UserWarning):
    """A warning llmroof printed beside a result (e.g. a batch the KV cache cannot hold)."""


def _candidates():
    env = os.environ.get("LLMROOF_LIB")
    if env:
        yield env
        return
    here = os.path.dirname(os.path.abspath(__file__))
    # source tree: python/llmroof/ -> <repo>/build*/
    repo = os.path.dirname(os.path.dirname(here))
    for build in ("build", "build-release", "build-clang"):
        yield os.path.join(repo, build, _SONAME)
    # installed: <prefix>/share/llmroof/python/llmroof/ -> <prefix>/lib*/
    prefix = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(here))))
    for libdir in ("lib", "lib64", "lib/x86_64-linux-gnu", "lib/aarch64-linux-gnu"):
        yield os.path.join(prefix, libdir, _SONAME)
    yield _SONAME  # the dynamic loader's search path


_ESTOPPED = 3


def _load():
    tried = []
    for path in _candidates():
        if os.sep in path and not os.path.exists(path):
            tried.append(path)
            continue
        try:
            lib = ctypes.CDLL(path)
        except OSError as e:
            tried.append("%s (%s)" % (path, e))
            continue
        lib.llmroof_version.restype = ctypes.c_char_p
        lib.llmroof_version.argtypes = []
        lib.llmroof_ctx_new.restype = ctypes.c_void_p
        lib.llmroof_ctx_new.argtypes = [ctypes.c_char_p, ctypes.POINTER(ctypes.c_void_p)]
        lib.llmroof_ctx_free.restype = None
        lib.llmroof_ctx_free.argtypes = [ctypes.c_void_p]
        lib.llmroof_ctx_call.restype = ctypes.c_int
        lib.llmroof_ctx_call.argtypes = [ctypes.c_void_p, ctypes.c_char_p,
                                         ctypes.POINTER(ctypes.c_void_p),
                                         ctypes.POINTER(ctypes.c_void_p)]
        lib.llmroof_ctx_call_stoppable.restype = ctypes.c_int
        lib.llmroof_ctx_call_stoppable.argtypes = [ctypes.c_void_p, ctypes.c_char_p,
                                                   ctypes.POINTER(ctypes.c_void_p),
                                                   ctypes.POINTER(ctypes.c_void_p), ctypes.c_void_p,
                                                   ctypes.c_void_p]
        # the library's own stop (C, no GIL): nonzero once the int fd its argument points to is readable
        lib.llmroof_stop_when_readable.restype = ctypes.c_int
        lib.llmroof_stop_when_readable.argtypes = [ctypes.c_void_p]
        lib.llmroof_free.restype = None
        lib.llmroof_free.argtypes = [ctypes.c_void_p]
        return lib
    raise ImportError("llmroof: cannot load the shared library libllmroof; set LLMROOF_LIB to "
                      "its path (tried: %s)" % "; ".join(tried))


_lib = _load()
# The C API is thread-safe (include/llmroof/api.h): calls run at once without a lock, and
# ctypes releases the GIL for the length of each call.


def _drain(fd):
    """The bytes waiting on a non-blocking pipe's read end (signal numbers)."""
    os.set_blocking(fd, False)
    chunks = []
    while True:
        try:
            b = os.read(fd, 512)
        except BlockingIOError:
            break
        if not b:
            break
        chunks.append(b)
    return b"".join(chunks)


def _take(ptr):
    """Copies and frees a string the C API returned."""
    if not ptr.value:
        return None
    try:
        # a message may echo bytes of the caller's that are not UTF-8 (a catalog path): shown, not raised
        return ctypes.string_at(ptr.value).decode("utf-8", errors="replace")
    finally:
        _lib.llmroof_free(ptr.value)


def _caller_level():
    """The stacklevel of warnings.warn that names the first frame outside this module: the
    caller's line, whether it called a module function, a Context method or call_text (a review:
    a fixed 3 named this file's own lines)."""
    frame, level = sys._getframe(1), 1
    while frame is not None and frame.f_globals.get("__name__") == __name__:
        frame, level = frame.f_back, level + 1
    return level


def _finite(key, value):
    """JSON has no NaN or Infinity, and UTF-8 no lone surrogate (json.dumps would write them, the
    library could only say "invalid JSON at byte N"): name the option and the value here."""
    for v in value if isinstance(value, list) else [value]:
        if isinstance(v, float) and not math.isfinite(v):
            raise LlmroofError("llmroof: error: request: field '%s': %r is not a finite number" % (key, v), 2)
        if isinstance(v, str):
            try:
                v.encode("utf-8")
            except UnicodeEncodeError as e:
                raise LlmroofError("llmroof: error: request: field '%s': %r holds a character UTF-8 cannot carry "
                                   "(a lone surrogate at index %d)" % (key, v, e.start), 2) from None


def _request(command, args, options):
    req = {"command": command}
    for key, value in options.items():
        if isinstance(value, tuple):
            value = list(value)
        _finite(key, value)
        req[key] = value
    if args:
        req["args"] = [str(a) for a in args]
        _finite("args", req["args"])
    try:
        return json.dumps(req)
    except (TypeError, ValueError) as e:  # bytes, a set, an object: no JSON option value
        bad = next((k for k, v in req.items() if not _jsonable(v)), "?")
        raise LlmroofError("llmroof: error: request: field '%s': %s (expected a string, number, boolean or a "
                           "list of strings or numbers)" % (bad, e), 2) from None


def _jsonable(value):
    try:
        json.dumps(value)
        return True
    except (TypeError, ValueError):
        return False


def _parse(text, fmt):
    if fmt == "json":
        return json.loads(text) if text else None
    if fmt == "jsonl":
        return [json.loads(line) for line in (text or "").splitlines() if line]
    return text


def version():
    """The library's version, e.g. '0.1.0'."""
    return _lib.llmroof_version().decode("ascii")


class Context:
    """A catalog loaded once (from ``data_dir``, or $LLMROOF_DATA, the source tree's data/ or
    the installed share/llmroof), used by every call made through it."""

    def __init__(self, data_dir=None):
        err = ctypes.c_void_p()
        arg = None if data_dir is None else os.fsencode(data_dir)
        if arg is not None and b"\0" in arg:  # ctypes would cut the path at the NUL and load another
            raise LlmroofError("llmroof: error: data_dir %r holds a NUL byte" % (data_dir,), 2)
        self._ctx = _lib.llmroof_ctx_new(arg, ctypes.byref(err))
        msg = _take(err)
        if not self._ctx:
            raise LlmroofError((msg or "llmroof: error: cannot load the catalog").strip(), 2)

    def close(self):
        if getattr(self, "_ctx", None):
            _lib.llmroof_ctx_free(self._ctx)
            self._ctx = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __del__(self):
        try:
            self.close()
        except Exception:  # interpreter shutdown: the library may be gone already
            pass

    def call_text(self, command, *args, **options):
        """Runs one command; returns what the command line prints on stdout (``format``
        defaults to json)."""
        if not self._ctx:
            raise ValueError("llmroof: the context is closed")
        req = _request(command, args, options).encode("utf-8")
        out, err = ctypes.c_void_p(), ctypes.c_void_p()
        # Ctrl-C ends a long simulate, plan or sweep: for the call, Python's signal wakeup fd is a
        # pipe of ours, to which its C-level signal handler writes a byte whatever the Python-level
        # handler; the library's own C stop (llmroof_stop_when_readable: no Python, no GIL taken)
        # ends the computation once the pipe is readable. Back in Python the pending handlers run
        # (the default raises KeyboardInterrupt, a custom one whatever it raises); where none
        # raises, the signal was handled and the call runs again. The bytes go on to the wakeup fd
        # set before (an asyncio loop's). Only the main thread may set the wakeup fd: calls from
        # other threads take no stop and run to their end.
        pipe = None
        if threading.current_thread() is threading.main_thread():
            try:
                pipe = os.pipe()
                os.set_blocking(pipe[1], False)
                prev_fd = signal.set_wakeup_fd(pipe[1], warn_on_full_buffer=False)
            except (OSError, ValueError):
                if pipe:
                    os.close(pipe[0])
                    os.close(pipe[1])
                pipe = None
        try:
            while True:
                fd = ctypes.c_int(pipe[0] if pipe else -1)
                stop = ctypes.cast(_lib.llmroof_stop_when_readable, ctypes.c_void_p) if pipe else None
                rc = _lib.llmroof_ctx_call_stoppable(self._ctx, req, ctypes.byref(out), ctypes.byref(err),
                                                     stop, ctypes.cast(ctypes.pointer(fd), ctypes.c_void_p))
                if not (rc == _ESTOPPED and pipe):
                    break
                _take(out)
                _take(err)
                out, err = ctypes.c_void_p(), ctypes.c_void_p()
                data = _drain(pipe[0])  # the pending handlers run here, and may raise
                if prev_fd >= 0 and data:
                    try:
                        os.write(prev_fd, data)
                    except OSError:
                        pass
        finally:
            if pipe:
                signal.set_wakeup_fd(prev_fd)
                os.close(pipe[0])
                os.close(pipe[1])
        text, msg = _take(out), _take(err)
        if rc != 0:
            # the warnings and notes printed before the error come as warnings, the error alone as
            # the exception's message (a review: "llmroof: note: model ... taken as ..." had led
            # the message of an unknown GPU), as the HTTP server splits them
            lines = (msg or "").splitlines()
            notes = [l for l in lines if l.startswith(("llmroof: warning: ", "llmroof: note: "))]
            rest = "\n".join(l for l in lines if not l.startswith(("llmroof: warning: ", "llmroof: note: ")))
            for line in notes:
                warnings.warn(line, LlmroofWarning, stacklevel=_caller_level())
            msg = rest if rest.strip() else msg
            # every failure says why on stderr (check's drift names the fields that moved); a
            # library older than that said nothing for a drift, so say what status 1 means
            if not msg:
                msg = "llmroof: error: %s failed with status %d%s" % (
                    command, rc, " (a drift: the diff is the error's output)" if rc == 1 and text else "")
            raise LlmroofError(msg.strip(), rc, text)
        if msg:
            for line in msg.splitlines():
                if line.strip():
                    warnings.warn(line, LlmroofWarning, stacklevel=_caller_level())
        return text

    def call(self, command, *args, **options):
        """Runs one command; returns its JSON as Python objects (a list of rows for
        ``format="jsonl"``, the text for other formats)."""
        fmt = options.get("format")
        if fmt is None or fmt is False:  # no option: the request's default (docs/api.md)
            fmt = "jsonl" if command == "sweep" else "json"
        try:
            return _parse(self.call_text(command, *args, **options), fmt)
        except LlmroofError as e:
            # an answer that fails the ask (status 1: an infeasible plan) still carries its
            # JSON: parsed here, as a success's would be (it had reached the caller as a str)
            if e.status == 1 and e.output and e.result is None:
                try:
                    e.result = _parse(e.output, fmt)
                except ValueError:
                    pass
            raise

    def estimate(self, **kw):
        return self.call("estimate", **kw)

    def memory(self, **kw):
        return self.call("memory", **kw)

    def simulate(self, **kw):
        return self.call("simulate", **kw)

    def plan(self, **kw):
        return self.call("plan", **kw)

    # the module's other shortcuts, on an explicit catalog too (a review: a context with its own
    # catalog had only estimate, memory, simulate and plan)
    def report(self, **kw):
        return self.call("report", **kw)

    def roofline(self, **kw):
        return self.call("roofline", **kw)

    def show(self, kind, name, **kw):
        return self.call("show", kind, name, **kw)

    def sweep(self, **kw):
        return self.call("sweep", **kw)


_default = None
# Guards the default context's creation: threads whose first calls race would each load the
# catalog (one context each, all but one left to the collector). Checked twice, so that once the
# context exists a call reads it without taking the lock.
_default_lock = threading.Lock()


def _ctx():
    global _default
    ctx = _default
    if ctx is None:
        with _default_lock:
            if _default is None:
                _default = Context()
            ctx = _default
    return ctx


def call(command, *args, **options):
    """Runs any llmroof command (``call("show", "model", "llama-2-7b")``) with the default
    context; returns its JSON as Python objects."""
    return _ctx().call(command, *args, **options)


def call_text(command, *args, **options):
    """As :func:`call`, returning the printed text unparsed."""
    return _ctx().call_text(command, *args, **options)


def estimate(**kw):
    """TTFT, TPOT, throughput and the per-phase breakdown of a static batch
    (``llmroof estimate``): ``estimate(model="llama-2-7b", gpu="a100", tp=1, batch=8)``."""
    return call("estimate", **kw)


def memory(**kw):
    """Weights, KV cache, capacity and max batch per GPU (``llmroof memory``)."""
    return call("memory", **kw)


def simulate(**kw):
    """Continuous batching under load: latency percentiles (``llmroof simulate``)."""
    return call("simulate", **kw)


def plan(**kw):
    """GPUs, TP and nodes for N users under TTFT/TPOT SLOs (``llmroof plan``)."""
    return call("plan", **kw)


def report(**kw):
    """The GPU x TP comparison (``llmroof report``)."""
    return call("report", **kw)


def roofline(**kw):
    """Operators on a GPU's roofline (``llmroof roofline``)."""
    return call("roofline", **kw)


def show(kind, name, **kw):
    """One GPU or model with derived figures: ``show("model", "llama-2-70b")``."""
    return call("show", kind, name, **kw)


def sweep(**kw):
    """Every combination of the given lists, one dict per row (``llmroof sweep``, JSON Lines)."""
    return call("sweep", **kw)
