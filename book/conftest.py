"""pytest settings for strict nbval of the chapters (make nbval, make nbval-emulated).

xdist's ``--dist loadfile`` hands whole notebooks to the workers in collection order, and the order is
alphabetical: the longest chapters came last, so one worker could still be executing the last long chapter
while the other sat idle. Collecting the longest notebooks first (longest-processing-time-first scheduling)
keeps both workers busy to the end. The costs only order the run; a stale entry makes it slower, never wrong.
"""

from __future__ import annotations

from pathlib import Path

# Seconds of one strict nbval run (plain, one thread; 24 November 2026, after the chapters were lightened), from
# `--junitxml`, summed per notebook;
# notebooks not listed run afterwards, in alphabetical order.
SECONDS = {
    "ch08_residual_norm.ipynb": 108,
    "ch13_ablations.ipynb": 81,
    "ch15_variants.ipynb": 75,
    "ch10_training.ipynb": 65,
    "ch06_positions.ipynb": 46,
    "ch04_multihead.ipynb": 44,
    "ch11_decoding.ipynb": 38,
    "ch01_recurrence.ipynb": 33,
    "ch14_cost.ipynb": 32,
    "ch03_scaling.ipynb": 31,
    "ch05_masking.ipynb": 23,
    "ch02_attention.ipynb": 19,
    "ch07_feedforward.ipynb": 11,
    "appendix_library.ipynb": 10,
}


def pytest_collection_modifyitems(items: list) -> None:
    """Longest notebooks first; the cells of one notebook keep their order (they share one kernel)."""
    position = {id(item): i for i, item in enumerate(items)}
    items.sort(key=lambda item: (-SECONDS.get(Path(str(item.fspath)).name, 0), str(item.fspath), position[id(item)]))
