"""book_support: the book's own apparatus, apart from the library a reader reuses.

*The Transformer, Executed* runs every chapter on :mod:`transformer_lib`; this package holds what the
chapters need besides the model and never goes into it: the notebook helpers (``deterministic``,
``glue``, ``format_table``, ``rounded``, ``cpu_seconds``, ``source``, ``dispatched_ops``), the audits
of the sources (:mod:`.claims`), seed statistics (:mod:`.stats`), measurements of autograd graphs
(:mod:`.graphs`), a training step's peak memory as the operating system measures it (:mod:`.memory`),
the book's figure style (:mod:`.plotting`), the sympy-checked derivations
(:mod:`.derivations`) and the sources' worked examples recomputed (:mod:`.worked_examples`).

A chapter imports both::

    import transformer_lib as tl
    import book_support as bk

    generator = bk.deterministic(seed=0)

The dependency runs one way: this package imports ``transformer_lib``, and ``transformer_lib`` never
imports it (``tests/test_structure.py`` checks both packages' imports). It ships in the same
distribution, so a reader who installs the library has it too.
"""

from __future__ import annotations

from typing import Any

from . import claims, derivations, graphs, ledger, memory, notebook, stats, worked_examples
from .graphs import cell_state_gradient_norms, graph_depth, graph_path_lengths, state_gradient_norms
from .notebook import cpu_seconds, deterministic, dispatched_ops, format_table, glue, rounded, rounded_down, rounded_up, source


def __getattr__(name: str) -> Any:
    # plotting is imported on first use, not here: importing it applies the book's figure style to matplotlib's
    # global settings, and a chapter that never draws with it keeps matplotlib's defaults, as before the split
    if name == "plotting":
        import book_support.plotting as plotting

        return plotting
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted([*__all__, "plotting"])  # plotting too, though not star-imported (that would apply its style)


__all__ = [
    "cell_state_gradient_norms",
    "claims",
    "cpu_seconds",
    "derivations",
    "deterministic",
    "dispatched_ops",
    "format_table",
    "glue",
    "graph_depth",
    "graph_path_lengths",
    "graphs",
    "ledger",
    "memory",
    "notebook",
    "rounded",
    "rounded_down",
    "rounded_up",
    "source",
    "state_gradient_norms",
    "stats",
    "worked_examples",
]
