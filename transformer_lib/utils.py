"""Seeding and portable numerics: the two global settings a reproducible run needs.

Nothing here runs at import time; each function changes global state only
when called, and says which state it changes. The book's notebook helpers
(``deterministic``, ``glue``, ``format_table``, ...) live in ``book_support``.
"""

from __future__ import annotations

import os
import platform
import random
import warnings

import numpy as np
import torch

from ._checks import check_int


def set_seed(seed: int) -> torch.Generator:
    """Seed Python's, NumPy's and torch's global generators; return a fresh seeded torch.Generator.

    ``seed`` is an int in [0, 2**32 - 1], the range all three accept (NumPy's is the narrowest).

    Examples:
        >>> generator = tl.set_seed(0)
        >>> first = torch.rand(2)
        >>> generator = tl.set_seed(0)
        >>> torch.equal(first, torch.rand(2)), torch.equal(first, torch.rand(2, generator=generator))
        (True, True)
    """
    check_int("seed", seed)
    if not 0 <= seed < 2**32:  # NumPy's generator takes 32-bit seeds only
        raise ValueError(f"seed must be an int in [0, 2**32 - 1] (NumPy's seeds are 32-bit), got {seed}")
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
    before any tensor arithmetic (the book's ``deterministic`` does, in the first
    cell of every chapter); called too late on an AVX-512 machine, it warns.

    What stays machine-dependent: oneMKL, which computes float matrix
    products, chooses its kernels by the CPU's vendor (on an Intel CPU
    whatever ``MKL_CBWR`` or ``MKL_ENABLE_INSTRUCTIONS`` ask for), so the
    last bits of a product differ between an Intel and an AMD machine, in
    float64 too: a residual of two or three units of 2^-53 can print 2.2e-16
    on one and 3.3e-16 on the other. Its reproducible mode
    (``MKL_CBWR=COMPATIBLE``) makes products 3 to 4 times slower, which would
    falsify every timing in the book, so it is not used; print such residuals
    as a bound (``book_support.claims.below``), and expect long training runs
    to differ in their last digits between vendors. On CPUs other than x86-64
    nothing is pinned.

    Returns:
        ``{"aten": <the kernel level ATen uses>, "onednn": <the cap>}``.

    Examples:
        >>> sorted(tl.portable_numerics())
        ['aten', 'onednn']
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
            "book_support.deterministic) before any tensor arithmetic, or start Python through the Makefile.",
            RuntimeWarning,
            stacklevel=2,
        )
    return {"aten": capability, "onednn": f"max ISA {os.environ['ONEDNN_MAX_CPU_ISA']}"}
