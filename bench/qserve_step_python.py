#!/usr/bin/env python3
"""qserve_step_python.py - the CPU that QServe's offline benchmark spends in Python per sequence per step.

QServe (mit-han-lab/qserve, its README's `qserve_benchmark.py --benchmarking`, the static-batch
runs behind its A100 and L40S max-throughput tables) drives a vLLM-derived Python engine. Without
in-flight batching the scheduler runs once; then every decode step, between two GPU passes, the
engine (qserve/engine/llm_engine.py `step`, qserve/worker/model_runner.py) does, per sequence:
  - input preparation (`_prepare_decode_no_ifb`): the sequence group's seq ids as a list, the
    sequence's last token id, a one-element list appended to the step's inputs, later padded
    (`_make_tensor_with_pad`: a list per sequence) for torch.tensor;
  - output processing in benchmarking mode (`_process_model_outputs_benchmark`): the running
    sequences of the group (a filtered list), and `Sequence.append_token_id`: a membership test
    in a one-entry logprob dict, the token appended to the sequence's logical KV blocks (a new
    16-token block every 16th token), the logprob dict appended, the token id and the cumulative
    logprob appended to the sequence data;
and once a step it turns the sampled ids into a Python list (`.cpu().numpy().tolist()`).
This program times that work on objects of the same shape, written here from the behaviour the
source describes (not its code), for B sequences of a 1024-token prompt, and fits time per step
= a + b x B. llmroof's qserve profile takes b as its cpu_output_s (docs/model.md "Engine CPU
work"). The GPU-side tensor work of the step (torch.tensor, the block-table arithmetic) is not
timed here: it is queued on the GPU stream.

    python3 bench/qserve_step_python.py [REPEATS]

No third-party module is needed.
"""
import enum
import random
import sys
import time


class Status(enum.Enum):
    WAITING = enum.auto()
    RUNNING = enum.auto()
    FINISHED = enum.auto()


class TokenBlock:  # a logical KV block of 16 token slots
    def __init__(self, number, size):
        self.number = number
        self.size = size
        self.ids = [-1] * size
        self.filled = 0

    def empty_slots(self):
        return self.size - self.filled

    def full(self):
        return self.filled == self.size

    def add(self, ids):
        self.ids[self.filled:self.filled + len(ids)] = ids
        self.filled += len(ids)


class SeqData:
    def __init__(self, prompt_ids):
        self.prompt_ids = prompt_ids
        self.output_ids = []
        self.logprob = 0.0

    def add(self, token, logprob):
        self.output_ids.append(token)
        self.logprob += logprob

    def last(self):
        return self.output_ids[-1] if self.output_ids else self.prompt_ids[-1]


class Seq:
    def __init__(self, sid, prompt_ids, block):
        self.sid = sid
        self.block = block
        self.data = SeqData(prompt_ids)
        self.logprobs = []
        self.blocks = []
        self.add_to_blocks(prompt_ids)
        self.status = Status.RUNNING

    def add_to_blocks(self, ids):
        i = 0
        while i < len(ids):
            if not self.blocks or self.blocks[-1].full():
                self.blocks.append(TokenBlock(len(self.blocks), self.block))
            b = self.blocks[-1]
            n = b.empty_slots()
            b.add(ids[i:i + n])
            i += n

    def append_token(self, token, logprobs):
        assert token in logprobs
        self.add_to_blocks([token])
        self.logprobs.append(logprobs)
        self.data.add(token, logprobs[token])


class Group:
    def __init__(self, seq):
        self.seqs = {seq.sid: seq}

    def running(self):
        return [s for s in self.seqs.values() if s.status == Status.RUNNING]


class Metadata:
    def __init__(self, seq):
        self.seq_data = {seq.sid: seq.data}


def step(groups, metas, sampled):
    # input preparation: one [token] per sequence, padded to one column
    inputs = []
    for m in metas:
        for sid in list(m.seq_data.keys()):
            inputs.append([m.seq_data[sid].last()])
    padded = [x + [0] * (1 - len(x)) for x in inputs]
    # the sampled ids as a Python list, then the benchmarking-mode output loop
    out = list(sampled)
    for g, token in zip(groups, out):
        seqs = g.running()
        assert len(seqs) == 1
        seqs[0].append_token(token, {token: 0})
    return padded


def per_step_s(batch, steps, rng):
    seqs = [Seq(i, [rng.randrange(128256) for _ in range(1024)], 16) for i in range(batch)]
    groups = [Group(s) for s in seqs]
    metas = [Metadata(s) for s in seqs]
    sampled = [rng.randrange(128256) for _ in range(batch)]
    t0 = time.perf_counter()
    for _ in range(steps):
        step(groups, metas, sampled)
    return (time.perf_counter() - t0) / steps


def main():
    repeats = int(sys.argv[1]) if len(sys.argv) > 1 else 5
    rng = random.Random(1)
    batches = [32, 64, 128, 256]
    rows = []
    for b in batches:
        best = min(per_step_s(b, 512, rng) for _ in range(repeats))  # 512 steps: the benchmark's
        rows.append((b, best))
        print("batch %4d: %8.1f us a step, %5.2f us a sequence" % (b, best * 1e6, best * 1e6 / b))
    n = len(rows)
    mx = sum(b for b, _ in rows) / n
    my = sum(t for _, t in rows) / n
    slope = sum((b - mx) * (t - my) for b, t in rows) / sum((b - mx) ** 2 for b, _ in rows)
    print("fit: %.1f us a step + %.2f us a sequence (Python %s)" %
          ((my - slope * mx) * 1e6, slope * 1e6, sys.version.split()[0]))


if __name__ == "__main__":
    main()
