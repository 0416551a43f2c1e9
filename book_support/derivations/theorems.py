"""Which sympy derivations check which theorem of the book, and how much of it.

Every theorem and corollary on the pages (a ``{prf:theorem}`` or ``{prf:corollary}`` with a ``:label:``)
has one entry here. ``covers`` says what its derivations check:

- ``"statement"``: every claim of the statement is a step of the named derivations (each step says for
  which sizes it holds: for all values, or at stated sizes);
- ``"part"``: some claims are steps; the others rest on the written proof (``note`` says which);
- ``"special case"``: the derivations check an instance the theorem covers, not the theorem;
- ``"none"``: the written proof alone.

``tests/book/test_build.py`` fails when a page has a theorem without an entry, an entry names a theorem no
page has, or a derivation that does not exist; ``tools/book_counts.py`` writes the introduction's counts
from this table, so the introduction's promise about derivations is exactly what is here.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["COVERS", "THEOREMS", "TheoremCheck"]

COVERS = ("statement", "part", "special case", "none")


@dataclass(frozen=True)
class TheoremCheck:
    """One theorem: the derivations that check it and how much of it they check."""

    label: str
    builders: tuple[str, ...]
    covers: str
    note: str = ""

    def __post_init__(self) -> None:
        if self.covers not in COVERS:
            raise ValueError(f"covers must be one of {COVERS}, got {self.covers!r}")
        if (self.covers == "none") != (not self.builders):
            raise ValueError(f"{self.label}: covers 'none' if and only if no derivation is named, got {self.builders!r}")
        if self.covers != "statement" and not self.note:
            raise ValueError(f"{self.label}: say what the written proof alone carries (note)")


THEOREMS: tuple[TheoremCheck, ...] = (
    TheoremCheck(
        "thm-ch1-vanishing",
        ("rnn_orthogonal_gradient",),
        "special case",
        "the bound for any W_h is the written proof; sympy checks the equality for a scaled rotation, k <= 4",
    ),
    TheoremCheck("cor-ch1-necessary", (), "none", "follows from the theorem in two lines"),
    TheoremCheck("thm-ch2-convex", ("attention_convexity",), "statement"),
    TheoremCheck("thm-ch2-cosine-bound", ("cosine_attention_bound",), "statement"),
    TheoremCheck(
        "thm-ch2-odd-cap",
        ("additive_attention_structure",),
        "part",
        "sympy checks that the bias-free score is odd; the pairing argument that caps accuracy at 1/2 is written",
    ),
    TheoremCheck("thm-ch3-dot-variance", ("dot_product_variance",), "statement"),
    TheoremCheck("cor-ch3-scaled", ("dot_product_variance",), "statement"),
    TheoremCheck("thm-ch4-query-gradient", ("attention_backward", "multihead_weight_gradient", "softmax_backward"), "statement"),
    TheoremCheck(
        "thm-ch5-causal",
        (),
        "none",
        "a written induction over the layers; the library's leak tests check it numerically, not sympy",
    ),
    TheoremCheck(
        "thm-ch6-equivariance",
        ("attention_permutation_equivariance",),
        "part",
        "sympy checks one head for n = 3; several heads and stacks of layers are the written proof",
    ),
    TheoremCheck("cor-ch6-bag", (), "none", "follows from the theorem in words"),
    TheoremCheck("cor-ch6-ceiling", (), "none", "a written counting argument; the chapter's experiment is consistent"),
    TheoremCheck("thm-ch6-rotation", ("sinusoid_relative_rotation",), "statement"),
    TheoremCheck("thm-ch7-position-wise", ("ffn_position_wise",), "statement"),
    TheoremCheck("thm-ch8-residual-norm", ("residual_gradient_norm",), "statement"),
    TheoremCheck("thm-ch10-peak", ("noam_schedule_peak",), "statement"),
    TheoremCheck("thm-ch10-smoothing", ("label_smoothing_optimum",), "statement"),
    TheoremCheck("thm-ch11-ranking", ("length_penalty_ranking",), "statement"),
    TheoremCheck(
        "thm-ch11-greedy-identity",
        (),
        "none",
        "a written induction; the chapter checks it on every seed's outputs",
    ),
    TheoremCheck("thm-ch13-difference", ("difference_of_means_variance",), "statement"),
    TheoremCheck("thm-ch13-interaction", ("factorial_interaction",), "statement"),
    TheoremCheck("thm-ch13-expected-max", ("expected_max_of_runs",), "statement"),
)
