"""Interleaved timing: alternate the two candidates in one process, report the median ratio.

Machines are shared and noisy, so no test asserts wall time; these scripts
print ratios, and the ratio of medians over interleaved rounds is robust to
slow drifts in machine load.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable


def interleaved(ours: Callable[[], object], theirs: Callable[[], object], rounds: int = 30, warmup: int = 5) -> dict:
    """Time ``ours`` and ``theirs`` alternately; return medians (ms) and the ratio ours/theirs."""
    for _ in range(warmup):
        ours()
        theirs()
    times: dict[str, list[float]] = {"ours": [], "theirs": []}
    for i in range(rounds):
        order = (("ours", ours), ("theirs", theirs)) if i % 2 == 0 else (("theirs", theirs), ("ours", ours))
        for name, fn in order:
            start = time.perf_counter()
            fn()
            times[name].append(time.perf_counter() - start)
    median_ours = statistics.median(times["ours"])
    median_theirs = statistics.median(times["theirs"])
    per_round = sorted(a / b for a, b in zip(times["ours"], times["theirs"], strict=True))
    return {
        "ours_ms": 1e3 * median_ours,
        "theirs_ms": 1e3 * median_theirs,
        "ratio": median_ours / median_theirs,
        "ratio_iqr": (per_round[len(per_round) // 4], per_round[3 * len(per_round) // 4]),
    }


def report(name: str, result: dict) -> str:
    low, high = result["ratio_iqr"]
    return (
        f"{name}: ours {result['ours_ms']:.2f} ms, torch.nn {result['theirs_ms']:.2f} ms, "
        f"ratio {result['ratio']:.3f} (per-round interquartile range {low:.3f}-{high:.3f})"
    )
