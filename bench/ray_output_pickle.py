#!/usr/bin/env python3
"""ray_output_pickle.py - what vLLM <= 0.4's --engine-use-ray costs the CPU per sequence per step.

With --engine-use-ray the engine (LLMEngine) lives in a Ray actor and the API server awaits
engine.step.remote() every step (AsyncLLMEngine.engine_step); the step returns one RequestOutput
per scheduled sequence group, which carries the whole prompt (text and token ids) and the whole
output so far (text and token ids), not a delta (vllm/outputs.py, 2023-2024). Ray pickles that
list in the actor and unpickles it in the server, both between two steps: a cost per token of
each sequence's context, every step. This program times pickle.dumps + pickle.loads (protocol 5,
the one Ray's serializer uses; the C pickler, which cloudpickle subclasses) of objects of the same
shape, 64 sequences at several lengths, and fits time per sequence = a + b x tokens.
llmroof's engine field ray_output_token_s takes b (docs/model.md "vLLM by version"); Ray's own
object-store transfer of the list is not timed here.

    python3 bench/ray_output_pickle.py [REPEATS]

No third-party module is needed. Text is taken at 4 characters a token (English BPE).
"""
import pickle
import random
import sys
import time


class CompletionOutput:  # vllm/outputs.py's fields in 0.2.x
    def __init__(self, index, text, token_ids, cumulative_logprob, logprobs, finish_reason):
        self.index = index
        self.text = text
        self.token_ids = token_ids
        self.cumulative_logprob = cumulative_logprob
        self.logprobs = logprobs
        self.finish_reason = finish_reason


class RequestOutput:
    def __init__(self, request_id, prompt, prompt_token_ids, outputs, finished):
        self.request_id = request_id
        self.prompt = prompt
        self.prompt_token_ids = prompt_token_ids
        self.outputs = outputs
        self.finished = finished


def request(rng, prompt, output):
    ids = [rng.randrange(50272) for _ in range(prompt)]
    out = [rng.randrange(50272) for _ in range(output)]
    text = "".join(rng.choice("abcdefgh ") for _ in range(4 * output))
    return RequestOutput("cmpl-%032x" % rng.getrandbits(128), "x" * (4 * prompt), ids,
                         [CompletionOutput(0, text, out, -1.5 * output, None, None)], False)


def per_seq_s(batch, repeats):
    best = float("inf")
    for _ in range(repeats):
        t0 = time.perf_counter()
        blob = pickle.dumps(batch, protocol=5)
        pickle.loads(blob)
        best = min(best, time.perf_counter() - t0)
    return best / len(batch)


def main():
    repeats = int(sys.argv[1]) if len(sys.argv) > 1 else 50
    rng = random.Random(42)
    shapes = [(64, 16), (256, 64), (512, 128), (800, 90), (1200, 300), (1800, 200)]
    xs, ys = [], []
    print("prompt output tokens us_per_seq")
    for p, o in shapes:
        batch = [request(rng, p, o) for _ in range(64)]
        t = per_seq_s(batch, repeats)
        xs.append(p + o)
        ys.append(t)
        print("%6d %6d %6d %10.2f" % (p, o, p + o, t * 1e6))
    n = len(xs)
    mx, my = sum(xs) / n, sum(ys) / n
    b = sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sum((x - mx) ** 2 for x in xs)
    a = my - b * mx
    print("fit: %.2f us per sequence + %.1f ns per token (Python %s)" % (a * 1e6, b * 1e9, sys.version.split()[0]))


if __name__ == "__main__":
    main()
