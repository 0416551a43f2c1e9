"""The helpers every chapter's code cells use: set-up, printing, timing and glue.

``deterministic`` is the one set-up call at the top of every chapter; ``format_table`` and ``rounded``
print numbers so that strict nbval compares them as text; ``glue`` hands a computed value to the
prose; ``cpu_seconds`` and ``dispatched_ops`` measure what a chapter times or counts; ``source``
shows a library object's code.
"""

from __future__ import annotations

import inspect
import time
from collections.abc import Callable, Sequence
from decimal import ROUND_CEILING, ROUND_FLOOR, Decimal
from typing import Any

import numpy as np
import torch

from transformer_lib._checks import check_nonnegative_int, check_positive_int
from transformer_lib.utils import portable_numerics, set_seed


def deterministic(seed: int = 0, threads: int = 1, precision: int = 4, portable: bool = True) -> torch.Generator:
    """The one set-up call at the top of every chapter.

    Caps the CPU kernels at AVX2 (``portable_numerics``; skip with
    ``portable=False``), seeds every generator, fixes torch's intra-op thread
    count (results of parallel reductions can depend on it), asks torch for
    deterministic kernels, and sets torch's and NumPy's print precision so
    printed numbers are rounded the same way on every machine.
    """
    check_positive_int("threads", threads)
    if portable:
        portable_numerics()
    torch.set_num_threads(threads)
    torch.use_deterministic_algorithms(True)
    torch.set_printoptions(precision=precision, sci_mode=False)
    np.set_printoptions(precision=precision, suppress=True)
    return set_seed(seed)


def cpu_seconds(fn: Callable[[], object], repeats: int = 3, warmup: int = 1) -> float:
    """The least CPU time of this thread over ``repeats`` calls of ``fn``, after ``warmup`` calls.

    Chapters time code with this, not with a wall clock: thread CPU time does
    not count the time the thread waits while another process has the core,
    and the minimum discards the runs that a cache flush or an interrupt
    slowed down. With one intra-op thread (``bk.deterministic``), all of
    torch's work runs on the calling thread, so nothing is missed. Timings
    still differ between machines; chapters print them in cells that nbval
    does not compare, and compare only conclusions with a wide margin.
    """
    if not callable(fn):
        raise TypeError(f"fn must be callable, got {type(fn).__name__}")
    check_positive_int("repeats", repeats)
    check_nonnegative_int("warmup", warmup)
    for _ in range(warmup):
        fn()
    best = float("inf")
    for _ in range(repeats):
        start = time.thread_time()
        fn()
        best = min(best, time.thread_time() - start)
    return best


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


def rounded_down(x: float, digits: int) -> float:
    """``x`` rounded towards minus infinity to ``digits`` decimals: the safe way to print a lower bound.

    ``round`` would print 0.8995 as 0.900, a bound the value does not reach. The decimal digits are those of
    ``repr(x)``, so 0.29 stays 0.29 (binary rounding would give 0.28999...).

    Examples:
        >>> rounded_down(89.95, 1), rounded_down(0.29, 2), rounded_down(-0.051, 1)
        (89.9, 0.29, -0.1)
    """
    return _rounded_toward(x, digits, ROUND_FLOOR)


def rounded_up(x: float, digits: int) -> float:
    """``x`` rounded towards plus infinity to ``digits`` decimals: the safe way to print an upper bound.

    Examples:
        >>> rounded_up(0.1201, 2), rounded_up(3.0, 1)
        (0.13, 3.0)
    """
    return _rounded_toward(x, digits, ROUND_CEILING)


def _rounded_toward(x: float, digits: int, mode: str) -> float:
    check_nonnegative_int("digits", digits)
    if isinstance(x, bool) or not isinstance(x, (int, float, np.floating)):
        raise TypeError(f"x must be a real number, got {type(x).__name__}")
    return float(Decimal(repr(float(x))).quantize(Decimal(1).scaleb(-digits), rounding=mode)) + 0.0


def format_table(headers: list[str], rows: list[list[Any]], digits: int = 4, lead: Sequence[str] = ()) -> str:
    """A plain-text table with aligned columns; floats rounded to ``digits`` decimals.

    Chapters print their tables with this so that nbval compares them as text.
    Values that are not floats are printed with ``str``. ``lead`` names the columns that carry the
    table's conclusion (a verdict, a True/False check): they are printed right after the first column,
    where a phone shows them (about 44 characters of output at 400 px; a wider table scrolls sideways).

    Examples:
        >>> print(format_table(["n", "counted", "formula", "equal"], [[2, 8, 8, True]], lead=["equal"]))
        n  equal  counted  formula
        -  -----  -------  -------
        2   True        8        8
    """
    if any(len(row) != len(headers) for row in rows):
        widths = sorted({len(row) for row in rows})
        raise ValueError(f"every row must have {len(headers)} cells (one per header), got rows of lengths {widths}")
    if isinstance(lead, str) or any(name not in headers for name in lead):
        raise ValueError(f"lead must be a list of header names (from {headers}), got {lead!r}")
    if lead:
        order = [0, *(headers.index(name) for name in lead)]
        order = list(dict.fromkeys(order + list(range(len(headers)))))
        headers, rows = [headers[i] for i in order], [[row[i] for i in order] for row in rows]

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


GLUE_PREFIX = "application/papermill.record/"


def glue(name: str, value: Any, display: bool = False) -> None:
    """Store ``value`` under ``name`` so the chapter's prose can show it with ``{glue}`name```.

    The same output as ``myst_nb.glue`` (a display bundle whose MIME types carry
    the papermill prefix and whose metadata names the value), without importing
    myst_nb, so a chapter also runs where myst_nb is not installed (Colab). Every
    number in a chapter's prose is glued from the cell that computes it: a re-run
    that changes the number changes the text, and nbval compares the glued text.

    Glue what the prose should print: a rounded number or a formatted string
    (``bk.glue("ch3-ratio", f"{ratio:.2f}")``), never float noise.
    """
    if not isinstance(name, str) or not name:
        raise TypeError(f"name must be a non-empty str, got {type(name).__name__} ({name!r})")
    from IPython.core.formatters import format_display_data
    from IPython.display import display as ipython_display

    bundle, metadata = format_display_data(value)
    prefix = "" if display else GLUE_PREFIX
    metadata["scrapbook"] = {"name": name, "mime_prefix": prefix}
    ipython_display({prefix + k: v for k, v in bundle.items()}, raw=True, metadata=metadata)


def dispatched_ops(fn: Callable[[], object]) -> list[str]:
    """The names of the ATen operations that ``fn()`` runs, in order (without gradients).

    Shows which kernel a PyTorch function dispatches to: for example
    ``F.scaled_dot_product_attention`` on 3-D input runs ``bmm``, ``_safe_softmax``,
    ``bmm`` (the math kernel, which forms the weights), and on 4-D input on a CPU
    ``_scaled_dot_product_flash_attention_for_cpu`` (a fused kernel that never
    forms them, and that ``FlopCounterMode`` counts as 0 FLOPs). Book: ch-attention and ch-multihead.
    """
    if not callable(fn):
        raise TypeError(f"fn must be callable, got {type(fn).__name__}")
    from torch.utils._python_dispatch import TorchDispatchMode

    names: list[str] = []

    class _Record(TorchDispatchMode):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            names.append(func.__name__.split(".")[0])
            return func(*args, **(kwargs or {}))

    with torch.no_grad(), _Record():
        fn()
    return names
