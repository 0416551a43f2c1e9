"""Greedy decoding with and without the KV cache: the speed-up of incremental decoding.

For each model (the toy width D=64 and the paper's base width D=512, F=2048,
H=8, N=6) and each output length (64 and 256 generated tokens), times
``tl.greedy_decode(..., use_cache=False)`` (the decoder re-runs the whole prefix
at every step) and ``use_cache=True`` (one new position per step), interleaved
in one process, and prints the ratio of medians uncached / cached. Both give the
same tokens (tests/test_kv_cache.py); the benchmark checks that again.
Source length 32, batch 1, vocabulary 1000, CPU, float32, <eos> never produced
(every step is run). Target: ratio >= 3 at 256 tokens.
Times are this thread's CPU time by default (``--clock cpu``, one thread), which
a shared machine's load does not inflate; ``--clock wall`` for wall time.
Run: ``make bench`` or ``python benchmarks/decode_speed.py [--rounds 3]``.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from pathlib import Path

import torch

import transformer_lib as tl

MODELS = {
    "toy (D=64, N=2)": dict(d_model=64, n_heads=4, d_ff=128, n_encoder_layers=2, n_decoder_layers=2),
    "base width (D=512, N=6)": dict(d_model=512, n_heads=8, d_ff=2048, n_encoder_layers=6, n_decoder_layers=6),
}


def time_pair(uncached, cached, rounds: int, clock=time.perf_counter) -> dict:
    """Alternate the two (order flipped every round); medians in seconds and their ratio."""
    times: dict[str, list[float]] = {"uncached": [], "cached": []}
    for i in range(rounds):
        order = [("uncached", uncached), ("cached", cached)]
        for name, fn in order if i % 2 == 0 else reversed(order):
            start = clock()
            fn()
            times[name].append(clock() - start)
    u, c = statistics.median(times["uncached"]), statistics.median(times["cached"])
    return {"uncached_s": u, "cached_s": c, "ratio": u / c}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--lengths", type=int, nargs="+", default=[64, 256], help="generated tokens (default: 64 256)")
    parser.add_argument("--models", nargs="+", default=list(MODELS), choices=list(MODELS), help="default: both")
    parser.add_argument("--rounds", type=int, default=3, help="timed rounds per pair (default: 3)")
    parser.add_argument("--threads", type=int, default=1, help="torch threads (default: 1)")
    parser.add_argument("--source-length", type=int, default=32)
    parser.add_argument("--output", type=Path, default=None, help="also write the results as JSON here")
    parser.add_argument(
        "--clock",
        choices=["cpu", "wall"],
        default="cpu",
        help="cpu: this thread's CPU time (robust on a shared machine; needs --threads 1); wall: perf_counter",
    )
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    if args.clock == "cpu" and args.threads != 1:
        parser.error("--clock cpu measures one thread: use --threads 1, or --clock wall")
    clock = time.thread_time if args.clock == "cpu" else time.perf_counter
    print(
        f"torch {torch.__version__}, {args.threads} thread(s), {args.clock} clock, batch 1, "
        f"source {args.source_length} tokens, float32"
    )
    results = []
    for name in args.models:
        config = tl.TransformerConfig.base(
            src_vocab_size=1000, tgt_vocab_size=1000, dropout=0.0, max_len=max(args.lengths) + 1, **MODELS[name]
        )
        torch.manual_seed(0)
        model = tl.Transformer(config).eval()
        src = torch.randint(3, 1000, (1, args.source_length), generator=torch.Generator().manual_seed(1))
        for length in args.lengths:

            def run(use_cache, length=length, model=model, src=src):
                return tl.greedy_decode(model, src, max_new_tokens=length, bos_id=1, eos_id=-1, use_cache=use_cache)

            same = torch.equal(run(True), run(False))  # also a warm-up of both paths
            result = time_pair(lambda: run(False), lambda: run(True), args.rounds, clock)
            results.append({"model": name, "tokens": length, "same_tokens": same, **result})
            print(
                f"{name:24s} {length:4d} tokens: uncached {result['uncached_s']:7.3f} s, "
                f"cached {result['cached_s']:6.3f} s, speed-up {result['ratio']:5.1f}x, same tokens: {same}",
                flush=True,
            )
    if args.output is not None:
        args.output.write_text(json.dumps(results, indent=2) + "\n")


if __name__ == "__main__":
    main()
