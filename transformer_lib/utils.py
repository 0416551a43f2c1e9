"""Seeding, deterministic settings and small helpers for the notebooks.

Nothing here runs at import time; each function changes global state only
when called, and says which state it changes.
"""

from __future__ import annotations

import inspect
import random
from typing import Any

import numpy as np
import torch


def set_seed(seed: int) -> torch.Generator:
    """Seed Python's, NumPy's and torch's global generators; return a fresh seeded torch.Generator."""
    if not isinstance(seed, int) or isinstance(seed, bool):
        raise TypeError(f"seed must be an int, got {type(seed).__name__}")
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)
    return torch.Generator().manual_seed(seed)


def deterministic(seed: int = 0, threads: int = 1, precision: int = 4) -> torch.Generator:
    """The one set-up call at the top of every chapter.

    Seeds every generator, fixes torch's intra-op thread count (results of
    parallel reductions can depend on it), asks torch for deterministic
    kernels, and sets torch's and NumPy's print precision so printed numbers
    are rounded the same way on every machine.
    """
    if not isinstance(threads, int) or threads <= 0:
        raise ValueError(f"threads must be a positive int, got {threads!r}")
    torch.set_num_threads(threads)
    torch.use_deterministic_algorithms(True)
    torch.set_printoptions(precision=precision, sci_mode=False)
    np.set_printoptions(precision=precision, suppress=True)
    return set_seed(seed)


def source(obj: Any) -> str:
    """The source code of a library object, for printing in a chapter."""
    return inspect.getsource(obj)


def rounded(x: Any, digits: int = 4) -> Any:
    """Round a number, tensor, array or nested list/tuple/dict for printing.

    ``-0.0`` is printed as ``0.0`` so that the sign of a rounded zero (which
    can differ between machines) never changes a notebook's output.
    """
    if isinstance(x, torch.Tensor):
        x = x.detach().cpu().double().numpy()
    if isinstance(x, np.ndarray):
        return np.round(x, digits) + 0.0
    if isinstance(x, (float, np.floating)):
        return round(float(x), digits) + 0.0
    if isinstance(x, dict):
        return {k: rounded(v, digits) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return type(x)(rounded(v, digits) for v in x)
    return x


def format_table(headers: list[str], rows: list[list[Any]], digits: int = 4) -> str:
    """A plain-text table with aligned columns; floats rounded to ``digits`` decimals.

    Chapters print their tables with this so that nbval compares them as text.
    Values that are not floats are printed with ``str``.
    """
    if any(len(row) != len(headers) for row in rows):
        widths = sorted({len(row) for row in rows})
        raise ValueError(f"every row must have {len(headers)} cells (one per header), got rows of lengths {widths}")

    def cell(value: Any) -> str:
        if isinstance(value, torch.Tensor) and value.numel() == 1:
            value = value.item()
        if isinstance(value, (float, np.floating)):
            return f"{round(float(value), digits) + 0.0:.{digits}f}"  # never "-0.00"
        return str(value)

    text = [[str(h) for h in headers]] + [[cell(v) for v in row] for row in rows]
    widths = [max(len(line[i]) for line in text) for i in range(len(headers))]
    lines = ["  ".join(c.rjust(w) for c, w in zip(line, widths, strict=True)) for line in text]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(lines)
