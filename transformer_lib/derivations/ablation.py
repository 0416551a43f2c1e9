"""Comparing models fairly: seed noise, interactions between ablations, and the expected best of n runs.

Three pieces of statistics that an ablation study needs:

* the variance of a difference of two means over n seeds each,
  Var(mean_A - mean_B) = (sigma_A^2 + sigma_B^2) / n, and its standard error;
* a 2 x 2 factorial model y = mu + a x1 + b x2 + c x1 x2 (x_i = 1: component i
  removed), in which the drop from removing both components equals the sum of
  the single drops only when the interaction c is zero;
* the expected maximum of n runs drawn with replacement from N observed results
  (Dodge et al. 2019): E[max] = sum_i v_(i) [(i/N)^n - ((i-1)/N)^n] for the
  sorted values v_(1) <= ... <= v_(N).

The numeric helpers :func:`expected_max`, :func:`standard_error_of_difference`
and :func:`factorial_effects` compute these formulas for a chapter's results.

Paper: §6.2 and Table 3 (the paper's ablations, one change at a time).
Book: chapter 12.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence

import sympy as sp

from .core import Derivation, Step, expectation, register, standard_moments

# --- numeric helpers -------------------------------------------------------------


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


# --- derivations ------------------------------------------------------------------


@register
def difference_of_means_variance() -> Derivation:
    """Var(mean_A - mean_B) = (sigma_A^2 + sigma_B^2) / n for n independent runs of each model."""
    n = sp.Symbol("n", positive=True, integer=True)
    mu_a, mu_b = sp.symbols("mu_A mu_B", real=True)
    var_a, var_b = sp.symbols("sigma_A^2 sigma_B^2", positive=True)
    sigma = sp.Symbol("sigma", positive=True)

    def var_of_difference(k: int) -> sp.Expr:
        # k runs of each model, all independent; expectation() multiplies moments of independent variables
        xs, ys = sp.symbols(f"a1:{k + 1}"), sp.symbols(f"b1:{k + 1}")
        moments = {x: standard_moments(mu_a, var_a, str(x)) for x in xs}
        moments.update({y: standard_moments(mu_b, var_b, str(y)) for y in ys})
        difference = sum(xs) / k - sum(ys) / k
        return sp.simplify(expectation(difference**2, moments) - expectation(difference, moments) ** 2)

    def sample_variance_mean(k: int) -> sp.Expr:
        # E[s^2] with the divisor k - 1, for k independent runs with variance sigma_A^2
        xs = sp.symbols(f"a1:{k + 1}")
        moments = {x: standard_moments(mu_a, var_a, str(x)) for x in xs}
        mean = sum(xs) / k
        return sp.simplify(expectation(sum((x - mean) ** 2 for x in xs) / (k - 1), moments))

    standard_error = sp.sqrt((var_a + var_b) / n)
    steps = (
        Step("the mean of n independent runs has variance n sigma^2 / n^2 = sigma^2 / n (covariances are zero)",
             n * var_a / n**2, var_a / n),
        Step("independent means: Var(X - Y) = Var(X) + Var(Y), so (sigma_A^2 + sigma_B^2) / n",
             var_a / n + var_b / n, (var_a + var_b) / n),
        *(Step(f"full expansion with n = {k} runs per model: Var(mean_A - mean_B) = (sigma_A^2 + sigma_B^2) / {k}",
               var_of_difference(k), (var_a + var_b) / k) for k in (1, 2, 3)),
        Step("equal variances: standard error sigma sqrt(2 / n)", standard_error.subs({var_a: sigma**2, var_b: sigma**2}),
             sigma * sp.sqrt(2 / n)),
        Step("with n = 2 seeds per model the standard error of the difference is one run's sigma",
             standard_error.subs({var_a: sigma**2, var_b: sigma**2, n: 2}), sigma),
        Step("halving the standard error takes four times as many seeds",
             standard_error.subs(n, 4 * n) / standard_error, sp.Rational(1, 2)),
        *(Step(f"the sample variance (divisor n - 1) estimates sigma^2 without bias: E[s^2] = sigma_A^2 for n = {k}",
               sample_variance_mean(k), var_a) for k in (2, 3)),
    )
    return Derivation(
        name="difference_of_means_variance",
        statement="Var(mean_A - mean_B) = (sigma_A^2 + sigma_B^2) / n over n independent seeds; "
                  "standard error sqrt((sigma_A^2 + sigma_B^2) / n)",
        reference="paper §6.2, Table 3 (single runs); book chapter 12",
        steps=steps,
    )


@register
def factorial_interaction() -> Derivation:
    """In y = mu + a x1 + b x2 + c x1 x2 the joint drop is the sum of the single drops only when c = 0."""
    mu, a, b, c = sp.symbols("mu a b c", real=True)
    y00_, y10_, y01_, y11_ = sp.symbols("y00 y10 y01 y11", real=True)

    def y(x1: int, x2: int) -> sp.Expr:  # x_i = 1: component i removed
        return mu + a * x1 + b * x2 + c * x1 * x2

    drop_1, drop_2, drop_both = y(0, 0) - y(1, 0), y(0, 0) - y(0, 1), y(0, 0) - y(1, 1)
    solved = sp.solve([sp.Eq(y(0, 0), y00_), sp.Eq(y(1, 0), y10_), sp.Eq(y(0, 1), y01_), sp.Eq(y(1, 1), y11_)],
                      [mu, a, b, c], dict=True)[0]
    sigma = sp.Symbol("sigma", positive=True)
    n = sp.Symbol("n", positive=True, integer=True)
    steps = (
        Step("removing component 1 alone drops the result by -a", drop_1, -a),
        Step("removing component 2 alone drops it by -b", drop_2, -b),
        Step("removing both drops it by -(a + b + c)", drop_both, -(a + b + c)),
        Step("joint drop minus the sum of the single drops = -c (the interaction)", drop_both - drop_1 - drop_2, -c),
        Step("so the single drops add up if and only if c = 0",
             sp.Matrix(sp.solve(sp.Eq(drop_both, drop_1 + drop_2), c)), sp.Matrix([0])),
        Step("the four cells determine the interaction: c = y11 - y10 - y01 + y00", solved[c],
             y11_ - y10_ - y01_ + y00_),
        Step("and the main effects: a = y10 - y00, b = y01 - y00", sp.Matrix([solved[a], solved[b]]),
             sp.Matrix([y10_ - y00_, y01_ - y00_])),
        Step("each cell a mean of n seeds (variance sigma^2 / n): Var(c estimate) = 4 sigma^2 / n",
             sum(coefficient**2 for coefficient in (1, -1, -1, 1)) * sigma**2 / n, 4 * sigma**2 / n),
        Step("a floor: if removing 1 already gives the worst score w, then y11 = y10 = w and c = -b",
             (y11_ - y10_ - y01_ + y00_).subs({y11_: sp.Symbol("w"), y10_: sp.Symbol("w")}), -(y01_ - y00_)),
    )
    return Derivation(
        name="factorial_interaction",
        statement="in a 2 x 2 factorial model y = mu + a x1 + b x2 + c x1 x2, "
                  "drop(both) = drop(1) + drop(2) exactly when the interaction c is 0",
        reference="paper Table 3 (one change at a time); book chapter 12",
        steps=steps,
    )


def expected_max_formula(values: Sequence[sp.Expr], n: int | sp.Expr) -> sp.Expr:
    """sum_i v_(i) [(i/N)^n - ((i-1)/N)^n] for values already sorted in increasing order (sympy)."""
    N = len(values)
    return sum(v * ((sp.Integer(i) / N) ** n - (sp.Integer(i - 1) / N) ** n) for i, v in enumerate(values, start=1))


def _expected_max_by_enumeration(values: Sequence[sp.Expr], n: int) -> sp.Expr:
    """Average of the maximum over all N^n equally likely ordered draws (values sorted increasingly)."""
    N = len(values)
    total = sum(values[max(draw)] for draw in itertools.product(range(N), repeat=n))
    return total / sp.Integer(N) ** n


@register
def expected_max_of_runs() -> Derivation:
    """Dodge et al.'s expected maximum of n draws from N sorted results, checked against enumeration."""
    k = sp.Symbol("n", positive=True, integer=True)
    steps = []
    for N, n in ((2, 1), (2, 2), (3, 1), (3, 2), (3, 3), (4, 2)):
        v = sp.symbols(f"v1:{N + 1}", real=True)  # sorted: v1 <= v2 <= ...
        steps.append(Step(f"N = {N}, n = {n}: the formula equals the average max over all {N}^{n} draws",
                          expected_max_formula(v, n), _expected_max_by_enumeration(v, n)))
    v3 = sp.symbols("v1:4", real=True)
    probabilities = [(sp.Integer(i) / 3) ** k - (sp.Integer(i - 1) / 3) ** k for i in (1, 2, 3)]
    steps += [
        Step("N = 3, any n >= 1: the probabilities (i/N)^n - ((i-1)/N)^n sum to one (they telescope)",
             sum(probabilities), 1),
        Step("n = 1: the expected maximum is the mean of the N values", expected_max_formula(v3, 1), sum(v3) / 3),
        Step("n -> infinity: it tends to the largest value", sp.limit(expected_max_formula(v3, k), k, sp.oo), v3[-1]),
        Step("one more run never lowers it: E[max of n + 1] - E[max of n] for N = 2 is (v2 - v1) (1/2)^(n+1) >= 0",
             expected_max_formula(sp.symbols("v1:3", real=True), k + 1) - expected_max_formula(sp.symbols("v1:3", real=True), k),
             (sp.Symbol("v2", real=True) - sp.Symbol("v1", real=True)) * sp.Rational(1, 2) ** (k + 1)),
    ]
    return Derivation(
        name="expected_max_of_runs",
        statement="E[max of n runs] = sum_i v_(i) [(i/N)^n - ((i-1)/N)^n] for draws with replacement "
                  "from N sorted results",
        reference="Dodge et al. (2019) §3; book chapter 12",
        steps=tuple(steps),
    )


__all__ = [
    "difference_of_means_variance",
    "expected_max",
    "expected_max_formula",
    "expected_max_of_runs",
    "factorial_effects",
    "factorial_interaction",
    "standard_error_of_difference",
]
