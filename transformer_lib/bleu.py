"""Corpus BLEU (Papineni et al., 2002) on token lists, compatible with sacrebleu.

Every result in the paper (Tables 2-4) is a BLEU score: the geometric mean of the
modified n-gram precisions p_1 .. p_4 of the whole test corpus, times a brevity
penalty,

    BLEU = BP · exp( (1/4) Σ_n log p_n ),    BP = 1 if c > r else exp(1 − r / c),

where p_n = (n-grams of the outputs that also occur in the reference, each counted
at most as often as it occurs there) / (n-grams of the outputs), summed over all
sentences before dividing (corpus level, not an average of sentence scores); c is
the total output length and r the total reference length (with several references,
the one closest in length to each output, the shorter on a tie).

This module works on token lists, so it needs no tokenizer: the same numbers as
``sacrebleu.corpus_bleu([" ".join(h) ...], [[" ".join(r) ...]], tokenize="none")``
(tests/test_bleu.py checks this against sacrebleu on the same tokens). Scores are
on sacrebleu's 0-100 scale. Smoothing: ``"exp"`` (sacrebleu's default for corpus
BLEU: an n-gram order with no match gets precision 1 / (2^k · total) for the k-th
such order) or ``"none"`` (Papineni et al.: any zero precision makes BLEU 0).

Note that BLEU scores depend on the tokenization: the paper's numbers are on its own
tokenized test sets, so a score here is comparable only to scores on the same tokens.

Book: ch-decoding (greedy and beam decoding of the dates model).
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ._checks import check_choice, check_positive_int

__all__ = ["BleuScore", "corpus_bleu", "ngram_counts"]

SMOOTHING = ("exp", "none")


@dataclass(frozen=True)
class BleuScore:
    """The result of :func:`corpus_bleu`.

    Attributes:
        score: BLEU on the 0-100 scale.
        precisions: the modified n-gram precisions p_1 .. p_N in percent (after smoothing).
        counts: matched n-grams per order (clipped by the reference counts).
        totals: n-grams in the outputs per order.
        brevity_penalty: BP, in (0, 1].
        sys_len: total output length c. ref_len: total effective reference length r.

    Examples:
        >>> score = tl.bleu.corpus_bleu([["the", "cat", "sat", "on", "the"]], [["the", "cat", "sat", "on", "the", "mat"]])
        >>> score.counts, score.totals, round(score.brevity_penalty, 3)  # every n-gram matches; the output is short
        ((5, 4, 3, 2), (5, 4, 3, 2), 0.819)
        >>> print(score)
        BLEU = 81.87 100.0/100.0/100.0/100.0 (BP = 0.819 ratio = 0.833 hyp_len = 5 ref_len = 6)
    """

    score: float
    precisions: tuple[float, ...]
    counts: tuple[int, ...]
    totals: tuple[int, ...]
    brevity_penalty: float
    sys_len: int
    ref_len: int

    def __str__(self) -> str:
        precisions = "/".join(f"{p:.1f}" for p in self.precisions)
        ratio = self.sys_len / self.ref_len if self.ref_len else 0.0
        return (
            f"BLEU = {self.score:.2f} {precisions} (BP = {self.brevity_penalty:.3f} ratio = {ratio:.3f} "
            f"hyp_len = {self.sys_len} ref_len = {self.ref_len})"
        )


def ngram_counts(tokens: Sequence[Any], n: int) -> Counter:
    """The n-grams of ``tokens`` (as tuples) with their counts.

    Examples:
        >>> tl.bleu.ngram_counts(["a", "b", "a", "b"], 2)
        Counter({('a', 'b'): 2, ('b', 'a'): 1})
    """
    check_positive_int("n", n)
    return Counter(tuple(tokens[i : i + n]) for i in range(len(tokens) - n + 1))


def _as_tokens(name: str, value: Any) -> list:
    if hasattr(value, "tolist") and not isinstance(value, (list, tuple, str)):
        value = value.tolist()  # a 1-D tensor or array of ids
    if isinstance(value, str):
        raise TypeError(
            f"{name} must be a sequence of tokens (a list of str or int), got the str {value!r}: split it first "
            "(value.split() for whitespace-separated tokens)"
        )
    if not isinstance(value, (list, tuple)):
        raise TypeError(f"{name} must be a sequence of tokens (a list of str or int), got {type(value).__name__}")
    return list(value)


def _references(name: str, value: Any) -> list[list]:
    """One reference (a token list) or several (a list of token lists)."""
    if hasattr(value, "tolist") and not isinstance(value, (list, tuple, str)):
        value = value.tolist()
    several = (
        isinstance(value, (list, tuple))
        and len(value) > 0
        and (isinstance(value[0], (list, tuple)) or (hasattr(value[0], "tolist") and getattr(value[0], "ndim", 0) >= 1))
    )
    if several:
        refs = [_as_tokens(f"{name}[{k}]", r) for k, r in enumerate(value)]
        if not refs:
            raise ValueError(f"{name} must hold at least one reference")
        return refs
    return [_as_tokens(name, value)]


def _closest_length(hyp_len: int, ref_lens: list[int]) -> int:
    # sacrebleu and Papineni et al.: the reference length closest to the output's, the shorter on a tie
    return min(ref_lens, key=lambda r: (abs(r - hyp_len), r))


def corpus_bleu(
    hypotheses: Sequence[Any],
    references: Sequence[Any],
    *,
    max_order: int = 4,
    smooth: str = "exp",
) -> BleuScore:
    """Corpus BLEU of token-list outputs against token-list references.

    Args:
        hypotheses: one token sequence per sentence (lists of str or int, or 1-D tensors).
        references: one entry per sentence: a token sequence, or a list of token
            sequences when a sentence has several references.
        max_order: the longest n-gram (4, as in the paper and sacrebleu).
        smooth: ``"exp"`` (sacrebleu's default) or ``"none"`` (Papineni et al.).

    Returns:
        a :class:`BleuScore`; ``score`` is on the 0-100 scale.

    Examples:
        >>> reference = "the cat sat on the mat".split()
        >>> round(tl.bleu.corpus_bleu([reference], [reference]).score, 2)
        100.0
        >>> print(tl.bleu.corpus_bleu(["the cat sat on a mat".split()], [reference]))
        BLEU = 53.73 83.3/60.0/50.0/33.3 (BP = 1.000 ratio = 1.000 hyp_len = 6 ref_len = 6)
    """
    check_positive_int("max_order", max_order)
    check_choice("smooth", smooth, SMOOTHING)
    if isinstance(hypotheses, str) or not hasattr(hypotheses, "__len__"):
        raise TypeError(f"hypotheses must be a sequence of token sequences, got {type(hypotheses).__name__}")
    if isinstance(references, str) or not hasattr(references, "__len__"):
        raise TypeError(f"references must be a sequence with one entry per hypothesis, got {type(references).__name__}")
    if len(hypotheses) != len(references):
        raise ValueError(
            f"hypotheses and references must have one entry per sentence each, got {len(hypotheses)} hypotheses "
            f"and {len(references)} references"
        )
    if len(hypotheses) == 0:
        raise ValueError("hypotheses must hold at least one sentence, got 0")

    counts, totals = [0] * max_order, [0] * max_order
    sys_len = ref_len = 0
    for i, (hyp_raw, ref_raw) in enumerate(zip(hypotheses, references, strict=True)):
        hyp = _as_tokens(f"hypotheses[{i}]", hyp_raw)
        refs = _references(f"references[{i}]", ref_raw)
        sys_len += len(hyp)
        ref_len += _closest_length(len(hyp), [len(r) for r in refs])
        for n in range(1, max_order + 1):
            hyp_ngrams = ngram_counts(hyp, n)
            most_in_a_reference: Counter = Counter()
            for ref in refs:
                most_in_a_reference |= ngram_counts(ref, n)  # max count over the references
            counts[n - 1] += sum(min(c, most_in_a_reference[g]) for g, c in hyp_ngrams.items())
            totals[n - 1] += max(len(hyp) - n + 1, 0)

    brevity_penalty = 1.0 if sys_len >= ref_len else (math.exp(1.0 - ref_len / sys_len) if sys_len > 0 else 0.0)
    precisions = [0.0] * max_order
    smooth_factor = 1.0
    for n in range(max_order):
        if totals[n] == 0:
            break  # no n-grams of this order at all (outputs shorter than n): sacrebleu stops here too
        if counts[n] == 0:
            if smooth == "exp":
                smooth_factor *= 2.0
                precisions[n] = 100.0 / (smooth_factor * totals[n])
        else:
            precisions[n] = 100.0 * counts[n] / totals[n]
    if any(p == 0.0 for p in precisions):
        score = 0.0
    else:
        score = brevity_penalty * math.exp(sum(math.log(p) for p in precisions) / max_order)
    return BleuScore(score, tuple(precisions), tuple(counts), tuple(totals), brevity_penalty, sys_len, ref_len)
