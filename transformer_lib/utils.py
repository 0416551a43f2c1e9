"""Seeding, deterministic settings and small helpers for the notebooks.

Nothing here runs at import time; each function changes global state only
when called, and says which state it changes.
"""

from __future__ import annotations

import inspect
import os
import platform
import random
import time
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
import torch

from ._checks import check_int, check_nonnegative_int, check_positive_int


def set_seed(seed: int) -> torch.Generator:
    """Seed Python's, NumPy's and torch's global generators; return a fresh seeded torch.Generator."""
    check_int("seed", seed)
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)
    return torch.Generator().manual_seed(seed)


def portable_numerics() -> dict[str, str]:
    """Cap PyTorch's vectorised CPU kernels at AVX2, so AVX-512 machines compute what AVX2 machines do.

    The last bits of a float reduction depend on the vector width of the
    kernel that computes it, and a training run amplifies last-bit differences
    into different printed losses. ATen (element-wise maths, reductions,
    softmax) and oneDNN (convolutions) pick their kernels from the CPU's
    instruction sets; this caps both at AVX2, which every x86-64 CPU of the
    last decade has, at no cost on an AVX2 machine. It sets
    ``ATEN_CPU_CAPABILITY=avx2`` and ``ONEDNN_MAX_CPU_ISA=AVX2`` unless they
    are set already (the Makefile exports both).

    Both back ends choose once per process, at their first use, so call this
    before any tensor arithmetic (``tl.deterministic`` does, in the first cell
    of every chapter); called too late on an AVX-512 machine, it warns.

    What stays machine-dependent: oneMKL, which computes float matrix
    products, chooses its kernels by the CPU's vendor (on an Intel CPU
    whatever ``MKL_CBWR`` or ``MKL_ENABLE_INSTRUCTIONS`` ask for), so the
    last bits of a product differ between an Intel and an AMD machine, in
    float64 too: a residual of two or three units of 2^-53 can print 2.2e-16
    on one and 3.3e-16 on the other. Its reproducible mode
    (``MKL_CBWR=COMPATIBLE``) makes products 3 to 4 times slower, which would
    falsify every timing in the book, so it is not used; print such residuals
    as a bound (``tl.claims.below``), and expect long training runs to differ
    in their last digits between vendors. On CPUs other than x86-64 nothing
    is pinned.

    Returns:
        ``{"aten": <the kernel level ATen uses>, "onednn": <the cap>}``.
    """
    if platform.machine().lower() not in {"x86_64", "amd64"}:
        return {"aten": torch.backends.cpu.get_cpu_capability(), "onednn": "not x86-64"}
    os.environ.setdefault("ONEDNN_MAX_CPU_ISA", "AVX2")
    os.environ.setdefault("ATEN_CPU_CAPABILITY", "avx2")
    capability = torch.backends.cpu.get_cpu_capability()
    if capability.startswith("AVX512"):
        warnings.warn(
            f"portable_numerics() came after the first tensor operation: ATen already uses {capability} kernels, "
            "so printed results may differ from the committed outputs in the last digits. Call it (or "
            "tl.deterministic) before any tensor arithmetic, or start Python through the Makefile.",
            RuntimeWarning,
            stacklevel=2,
        )
    return {"aten": capability, "onednn": f"max ISA {os.environ['ONEDNN_MAX_CPU_ISA']}"}


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
    slowed down. With one intra-op thread (``tl.deterministic``), all of
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


GLUE_PREFIX = "application/papermill.record/"


def glue(name: str, value: Any, display: bool = False) -> None:
    """Store ``value`` under ``name`` so the chapter's prose can show it with ``{glue}`name```.

    The same output as ``myst_nb.glue`` (a display bundle whose MIME types carry
    the papermill prefix and whose metadata names the value), without importing
    myst_nb, so a chapter also runs where myst_nb is not installed (Colab). Every
    number in a chapter's prose is glued from the cell that computes it: a re-run
    that changes the number changes the text, and nbval compares the glued text.

    Glue what the prose should print: a rounded number or a formatted string
    (``tl.glue("ch3-ratio", f"{ratio:.2f}")``), never float noise.
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
    forms them, and that ``FlopCounterMode`` counts as 0 FLOPs). Book: chapters 2 and 4.
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
