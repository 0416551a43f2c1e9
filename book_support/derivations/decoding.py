"""Decoding: the GNMT length penalty's ranking and BLEU's arithmetic on one sentence.

lp(L) = ((5 + L)/6)^alpha (Wu et al. 2016, Eq. 14); beam search ranks a
hypothesis by log P / lp(L). BLEU = BP * (p_1 p_2 p_3 p_4)^(1/4) with the
brevity penalty BP = e^(1 - r/c) for an output of length c < r (Papineni et
al. 2002, §2).

Paper: §6.1 (beam size 4, alpha = 0.6), Tables 2-4 (BLEU). Book: ch-decoding.
"""

from __future__ import annotations

from fractions import Fraction

import sympy as sp

from .core import Derivation, Step, register

__all__ = ["bleu_examples", "length_penalty_ranking"]


@register
def length_penalty_ranking() -> Derivation:
    """lp is 1 at L = 1, grows with L, keeps equal-length candidates in order, and rewards length for alpha < 1."""
    L, alpha, rho, c, delta = sp.symbols("L alpha rho c delta", positive=True)
    log_p_b = sp.Symbol("s_b", real=True)  # the log-probability of the less probable candidate
    lp = ((5 + L) / 6) ** alpha
    p_1, p_2 = sp.symbols("p_1 p_2", positive=True)
    steps = (
        Step.computed("lp(1) = 1 for every alpha", lp.subs(L, 1), 1, variables=(L,), operand=lp),
        Step.limit("as alpha -> 0, lp(L) -> 1: alpha = 0 ranks by log P alone", lp, alpha, 0, 1),
        Step.inequality("lp increases with the length: d lp / dL > 0", sp.diff(lp, L), ">", 0),
        Step.inequality(
            "equal lengths: a candidate delta more probable (delta > 0) keeps the higher penalised score",
            (log_p_b + delta) / lp - log_p_b / lp,
            ">",
            0,
        ),
        Step.inequality(
            "for alpha = 1/(1 + rho) < 1 and cost c per token, -cL/lp(L) decreases with L",
            sp.diff(-c * L / lp.subs(alpha, 1 / (1 + rho)), L),
            "<",
            0,
        ),
        Step.value(
            "the toy example: greedy's output ax has P = 3/5 x 2/5 = 6/25",
            p_1 * p_2,
            {p_1: Fraction(3, 5), p_2: Fraction(2, 5)},
            sp.Rational(6, 25),
        ),
        Step.value(
            "the toy example: bx has P = 2/5 x 9/10 = 9/25",
            p_1 * p_2,
            {p_1: Fraction(2, 5), p_2: Fraction(9, 10)},
            sp.Rational(9, 25),
        ),
    )
    return Derivation(
        "length_penalty_ranking",
        "lp(L) = ((5 + L)/6)^alpha is 1 at L = 1, grows with L, keeps equal-length candidates in the order of "
        "log P, and for alpha < 1 leaves -cL/lp(L) decreasing",
        "Wu et al. (2016) Eq. 14; paper §6.1; book chapter 11",
        steps,
    )


@register
def bleu_examples() -> Derivation:
    """One wrong middle token of ten gives BLEU 50 * 3^(1/4); an output r/(1 + u) long loses BP = e^-u."""
    p = sp.symbols("p_1:5", positive=True)
    u, ref_len, out_len = sp.symbols("u r c", positive=True)
    steps = (
        Step.value(
            "one wrong middle token of 10: p_n = 9/10, 7/9, 5/8, 3/7 give BLEU = 100 (3/16)^(1/4) = 50 3^(1/4)",
            100 * sp.Mul(*p) ** sp.Rational(1, 4),
            dict(zip(p, (sp.Rational(9, 10), sp.Rational(7, 9), sp.Rational(5, 8), sp.Rational(3, 7)), strict=True)),
            50 * 3 ** sp.Rational(1, 4),
        ),
        Step.computed(
            "outputs of total length c = r / (1 + u): BP = e^(1 - r/c) = e^-u",
            sp.exp(1 - ref_len / out_len).subs(out_len, ref_len / (1 + u)),
            sp.exp(-u),
            variables=(out_len,),
            operand=sp.exp(1 - ref_len / out_len),
        ),
    )
    return Derivation(
        "bleu_examples",
        "one wrong token inside a 10-token sentence gives BLEU 100 (3/16)^(1/4); outputs shorter by a factor "
        "1 + u lose BP = e^-u",
        "Papineni et al. (2002) §2; paper Tables 2-4; book chapter 11",
        steps,
    )
