#!/usr/bin/env python3
"""Runs every example of README.md and compares its output (issue 22, item 11).

An example is a fenced block without a language whose lines start with "$ " (the command) and
are followed by its expected output (stdout and stderr together), up to the next "$ " line or
the fence. In the expected output:

  - a line that is exactly "..." stands for any number of lines (zero or more), elided;
  - "..." inside a line stands for any text on that line.

Commands run in a scratch directory (so "> base.jsonl" writes nothing into the tree) with
`llmroof` on PATH as BUILD/llmroof, LLMROOF_DATA pointing at data/, `python` linked to the
tree's python/ and LLMROOF_LIB at BUILD/libllmroof.so; `export VAR=VALUE` lines set VAR for
the block's later commands. Python commands are skipped without BUILD/libllmroof.so or with
LLMROOF_README_NO_PYTHON set (sanitizer builds: the interpreter is not instrumented; the binding
has its own test). A command whose trailing comment contains "not run" is skipped
(it needs something the test cannot have, such as the HuggingFace cache); "config.json" in the
scratch directory is a HuggingFace config from tests/data, and HOME is the scratch directory with a
HuggingFace cache holding Qwen/Qwen3-8B's config.json (tests/data/hf/qwen3-8b.json).

  readme.py BUILD [README]           check; exit 1 listing every difference
  readme.py --update BUILD [README]  rewrite the outputs from the current binary, keeping each
                                     "..." elision where its anchors are still found
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile

ELIDE = "..."


def blocks(lines):
    """Yields (start, end) line indexes of the plain fenced blocks holding "$ " commands:
    lines[start] is the opening fence, lines[end] the closing one."""
    i = 0
    while i < len(lines):
        if lines[i].rstrip() == "```":
            j = i + 1
            while j < len(lines) and not lines[j].startswith("```"):
                j += 1
            if j < len(lines) and i + 1 < j and lines[i + 1].startswith("$ "):
                yield i, j
            i = j + 1
        elif lines[i].startswith("```"):  # a block with a language: skip it whole
            j = i + 1
            while j < len(lines) and not lines[j].startswith("```"):
                j += 1
            i = j + 1
        else:
            i += 1


def commands(body):
    """Splits a block's lines into [(command, expected lines)]."""
    out = []
    for line in body:
        if line.startswith("$ "):
            out.append((line[2:], []))
        elif out:
            out[-1][1].append(line)
    return out


def line_matches(pattern, text):
    if ELIDE not in pattern:
        return pattern == text
    parts = [re.escape(p) for p in pattern.split(ELIDE)]
    return re.fullmatch(".*".join(parts), text, re.S) is not None


def matches(expected, actual):
    """Glob-matches lines: an "..." line takes zero or more lines."""
    memo = {}

    def m(i, j):
        key = (i, j)
        if key in memo:
            return memo[key]
        if i == len(expected):
            r = j == len(actual)
        elif expected[i] == ELIDE:
            r = any(m(i + 1, k) for k in range(j, len(actual) + 1))
        else:
            r = j < len(actual) and line_matches(expected[i], actual[j]) and m(i + 1, j + 1)
        memo[key] = r
        return r

    return m(0, 0)


def updated(expected, actual):
    """The new expected output: actual, with the old elisions kept where their anchors are
    found. Segments between "..." lines anchor on their first line; the segment before the first
    "..." takes as many actual lines as it had, the last one every line to the end, a middle one
    as many lines as it had. Returns None when an anchor is gone (edit that block by hand)."""
    if ELIDE not in expected:
        return list(actual)
    segs, cur = [], []
    for line in expected:
        if line == ELIDE:
            segs.append(cur)
            cur = []
        else:
            cur.append(line)
    segs.append(cur)
    out, pos = [], 0
    for k, seg in enumerate(segs):
        last = k == len(segs) - 1
        if k == 0:
            take = actual[:len(seg)]
            out.extend(keep_wild(seg, take))
            pos = len(seg)
        else:
            out.append(ELIDE)
            if not seg:
                continue
            at = next((j for j in range(pos, len(actual)) if line_matches(seg[0], actual[j])), None)
            if at is None and seg[0].split():  # the figures changed: anchor on the line's first word
                word = seg[0].split()[0]
                at = next((j for j in range(pos, len(actual)) if actual[j].split()[:1] == [word]), None)
            if at is None:
                return None
            take = actual[at:] if last else actual[at:at + len(seg)]
            out.extend(keep_wild(seg, take[:len(seg)]) + (take[len(seg):] if last else []))
            pos = at + len(take)
    return out


def keep_wild(old, new):
    """A line with an inline "..." stays as written while it still matches."""
    return [o if ELIDE in o and line_matches(o, n) else n for o, n in zip(old, new)]


def run(cmd, env, cwd):
    p = subprocess.run(["sh", "-c", cmd], cwd=cwd, env=env, stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, timeout=600)
    text = p.stdout.decode("utf-8", "replace")
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return lines


def main(argv):
    update = False
    if argv and argv[0] == "--update":
        update = True
        argv = argv[1:]
    if not argv:
        sys.stderr.write(__doc__)
        return 2
    build = os.path.abspath(argv[0])
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    readme = os.path.abspath(argv[1]) if len(argv) > 1 else os.path.join(root, "README.md")
    with open(readme, encoding="utf-8") as f:
        lines = f.read().split("\n")

    scratch = tempfile.mkdtemp(prefix="llmroof-readme-")
    try:
        bindir = os.path.join(scratch, "bin")
        os.mkdir(bindir)
        os.symlink(os.path.join(build, "llmroof"), os.path.join(bindir, "llmroof"))
        os.symlink(os.path.join(root, "python"), os.path.join(scratch, "python"))
        shutil.copy(os.path.join(root, "tests", "data", "hf", "mistral-7b.json"), os.path.join(scratch, "config.json"))
        # ~/.cache/huggingface/hub with Qwen/Qwen3-8B's config.json, for "import-hf Qwen/Qwen3-8B"
        snap = os.path.join(scratch, ".cache", "huggingface", "hub", "models--Qwen--Qwen3-8B", "snapshots", "0")
        os.makedirs(snap)
        shutil.copy(os.path.join(root, "tests", "data", "hf", "qwen3-8b.json"), os.path.join(snap, "config.json"))
        base_env = {k: v for k, v in os.environ.items() if not k.startswith(("LLMROOF_", "HF_", "PYTHON"))}
        base_env.update(PATH=bindir + os.pathsep + os.environ.get("PATH", "/usr/bin:/bin"),
                        LLMROOF_DATA=os.path.join(root, "data"), LC_ALL="C", HOME=scratch)
        lib = os.path.join(build, "libllmroof.so")
        if os.path.exists(lib):
            base_env["LLMROOF_LIB"] = lib
        failures, ran, skipped = [], 0, 0
        new_lines, last = [], 0
        for start, end in blocks(lines):
            env = dict(base_env)
            body = []
            for cmd, expected in commands(lines[start + 1:end]):
                body.append("$ " + cmd)
                m = re.match(r"export (\w+)=(\S+)", cmd)
                if m:
                    env[m.group(1)] = m.group(2)
                    body.extend(expected)
                    continue
                comment = cmd.split("#", 1)[1] if "#" in cmd else ""
                no_python = cmd.startswith("python") and ("LLMROOF_LIB" not in env or
                                                          os.environ.get("LLMROOF_README_NO_PYTHON"))
                if "not run" in comment or no_python:
                    skipped += 1
                    body.extend(expected)
                    continue
                ran += 1
                actual = run(cmd, env, scratch)
                if update:
                    new = updated(expected, actual)
                    if new is None:
                        failures.append("README.md:%d: $ %s: an elided anchor is gone; edit this block by hand"
                                        % (start + 2, cmd))
                        new = expected
                    body.extend(new)
                elif not matches(expected, actual):
                    failures.append("README.md:%d: $ %s\n--- expected\n%s\n--- actual\n%s" %
                                    (start + 2, cmd, "\n".join(expected), "\n".join(actual)))
            new_lines.extend(lines[last:start + 1])
            new_lines.extend(body)
            last = end
        new_lines.extend(lines[last:])
    finally:
        shutil.rmtree(scratch, ignore_errors=True)

    if update:
        if new_lines != lines:
            with open(readme, "w", encoding="utf-8") as f:
                f.write("\n".join(new_lines))
        print("readme: %d commands run, %d skipped; %s" % (ran, skipped, "rewritten" if new_lines != lines else "unchanged"))
    else:
        print("readme: %d commands run, %d skipped (marked not run), %d differ" % (ran, skipped, len(failures)))
    for f in failures:
        print(f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
