"""Statistics for ablation studies: seed noise, 2 x 2 factorial effects, the expected best of n runs.

Plain Python (no sympy, no torch): the formulas are proved in
:mod:`transformer_lib.derivations.ablation` (``difference_of_means_variance``,
``factorial_interaction``, ``expected_max_of_runs``).

Paper: §6.2 and Table 3 (the paper's ablations, one change at a time).
Dodge et al. (2019) §3 (expected validation performance). Book: chapter 12.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

__all__ = ["expected_max", "factorial_effects", "standard_error_of_difference"]


def _check_values(name: str, values: object, minimum: int) -> list[float]:
    """A list of finite floats from a sequence (list, tuple, 1-D tensor or array) of real numbers."""
    if isinstance(values, (str, bytes)) or not hasattr(values, "__len__") or not hasattr(values, "__iter__"):
        raise TypeError(f"{name} must be a sequence of real numbers, got {type(values).__name__}")
    shape = getattr(values, "shape", None)
    if shape is not None and len(shape) != 1:
        raise ValueError(f"{name} must be one-dimensional, got shape {tuple(shape)}")
    out = []
    for i, value in enumerate(values):
        if hasattr(value, "item") and not isinstance(value, (int, float)):
            value = value.item()  # a 0-d tensor or NumPy scalar
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise TypeError(f"{name}[{i}] must be a real number, got {type(value).__name__} ({value!r})")
        if not math.isfinite(value):
            raise ValueError(f"{name}[{i}] must be finite, got {value!r}")
        out.append(float(value))
    if len(out) < minimum:
        raise ValueError(f"{name} must hold at least {minimum} value(s), got {len(out)}")
    return out


def expected_max(values: Sequence[float], n: int) -> float:
    """Expected best result of ``n`` runs drawn with replacement from the observed ``values``.

    With the N values sorted, v_(1) <= ... <= v_(N), each run is one of them
    with probability 1/N, so P(max of n runs <= v_(i)) = (i/N)^n and

        E[max] = sum_i v_(i) [(i/N)^n - ((i-1)/N)^n].

    ``n = 1`` gives the mean of ``values``; as ``n`` grows the result rises to
    their maximum. Ties need no special care: the terms of equal values add up
    to the probability of that value.

    Args:
        values: the N >= 1 observed results (validation scores of N trials), real and finite.
        n: the budget, a positive int (may exceed N: the draws are with replacement).

    Returns:
        the expected maximum, a float.

    Reference: Dodge et al. (2019), "Show Your Work", §3 (expected validation performance).
    Book: chapter 12.
    """
    observed = sorted(_check_values("values", values, 1))
    if isinstance(n, bool) or not isinstance(n, int):
        raise TypeError(f"n must be an int, got {type(n).__name__} ({n!r})")
    if n < 1:
        raise ValueError(f"n must be a positive int (the number of runs), got {n}")
    N = len(observed)
    return sum(v * ((i / N) ** n - ((i - 1) / N) ** n) for i, v in enumerate(observed, start=1))


def standard_error_of_difference(a: Sequence[float], b: Sequence[float]) -> float:
    """Estimated standard error of mean(a) - mean(b) for independent runs (seeds).

    sqrt(s_a^2 / n_a + s_b^2 / n_b), with s^2 the sample variance (divisor n - 1).
    With equal variances and n runs each it is sigma * sqrt(2 / n); for two
    seeds per side, one seed's standard deviation.

    Args:
        a, b: the results of each model, at least 2 each (one run gives no variance).

    Book: chapter 12.
    """
    xs, ys = _check_values("a", a, 2), _check_values("b", b, 2)

    def sample_variance(v: list[float]) -> float:
        mean = sum(v) / len(v)
        return sum((x - mean) ** 2 for x in v) / (len(v) - 1)

    return math.sqrt(sample_variance(xs) / len(xs) + sample_variance(ys) / len(ys))


def factorial_effects(y00: float, y10: float, y01: float, y11: float) -> dict[str, float]:
    """Effects of a 2 x 2 factorial experiment: y = mu + a x1 + b x2 + c x1 x2.

    ``y10`` is the result with component 1 removed, ``y01`` with component 2
    removed, ``y11`` with both removed, ``y00`` the full model. Returns
    ``mu, a, b, c`` and the drops ``drop_1 = y00 - y10``, ``drop_2 = y00 - y01``,
    ``drop_both = y00 - y11``; ``drop_both - drop_1 - drop_2 = -c``.

    Book: chapter 12.
    """
    y00, y10, y01, y11 = _check_values("(y00, y10, y01, y11)", (y00, y10, y01, y11), 4)
    return {
        "mu": y00,
        "a": y10 - y00,
        "b": y01 - y00,
        "c": y11 - y10 - y01 + y00,
        "drop_1": y00 - y10,
        "drop_2": y00 - y01,
        "drop_both": y00 - y11,
    }
