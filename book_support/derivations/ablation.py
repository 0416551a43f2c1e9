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
and :func:`factorial_effects`, which compute these formulas for a chapter's
results, live in :mod:`book_support.stats`.

Paper: §6.2 and Table 3 (the paper's ablations, one change at a time).
Book: ch-ablations.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence

import sympy as sp

from .core import Derivation, Step, expectation, register, standard_moments

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

    def runs(k: int) -> tuple[tuple, tuple]:
        return sp.symbols(f"a1:{k + 1}"), sp.symbols(f"b1:{k + 1}")

    # the two means as single independent variables, each with the variance of a mean of n runs
    mean_a, mean_b = sp.symbols("Abar Bbar")
    mean_moments = {mean_a: standard_moments(mu_a, var_a / n, "Abar"), mean_b: standard_moments(mu_b, var_b / n, "Bbar")}
    variance_of_means_difference = sp.simplify(
        expectation((mean_a - mean_b) ** 2, mean_moments) - expectation(mean_a - mean_b, mean_moments) ** 2
    )

    steps = (
        Step.computed(
            "independent means with Var = sigma_A^2 / n and sigma_B^2 / n: E[(Abar - Bbar)^2] - E[Abar - Bbar]^2 "
            "= (sigma_A^2 + sigma_B^2) / n (the cross term E[Abar Bbar] = mu_A mu_B cancels)",
            variance_of_means_difference,
            (var_a + var_b) / n,
            variables=(mean_a, mean_b),
            operand=mean_a - mean_b,
        ),
        *(
            Step.computed(
                "full expansion: Var(mean_A - mean_B) = (sigma_A^2 + sigma_B^2) / n",
                var_of_difference(k),
                (var_a + var_b) / k,
                variables=runs(k)[0] + runs(k)[1],
                operand=sum(runs(k)[0]) / k - sum(runs(k)[1]) / k,
                sizes=f"n = {k} runs per model",
            )
            for k in (1, 2, 3)
        ),
        Step.computed(
            "equal variances: standard error sigma sqrt(2 / n)",
            standard_error.subs({var_a: sigma**2, var_b: sigma**2}),
            sigma * sp.sqrt(2 / n),
            variables=(var_a, var_b),
            operand=standard_error,
        ),
        Step.computed(
            "with n = 2 seeds per model the standard error of the difference is one run's sigma",
            standard_error.subs({var_a: sigma**2, var_b: sigma**2, n: 2}),
            sigma,
            variables=(var_a, var_b, n),
            operand=standard_error,
        ),
        Step.computed(
            "halving the standard error takes four times as many seeds",
            standard_error.subs(n, 4 * n) / standard_error,
            sp.Rational(1, 2),
            variables=(n,),
            operand=standard_error,
        ),
        *(
            Step.computed(
                "the sample variance (divisor n - 1) estimates sigma^2 without bias: E[s^2] = sigma_A^2",
                sample_variance_mean(k),
                var_a,
                variables=runs(k)[0],
                operand=sum(runs(k)[0]),
                sizes=f"n = {k}",
            )
            for k in (2, 3)
        ),
    )
    return Derivation(
        name="difference_of_means_variance",
        statement="Var(mean_A - mean_B) = (sigma_A^2 + sigma_B^2) / n over n independent seeds; "
        "standard error sqrt((sigma_A^2 + sigma_B^2) / n)",
        reference="paper §6.2, Table 3 (one number per row); book chapter 13",
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
    solved = sp.solve(
        [sp.Eq(y(0, 0), y00_), sp.Eq(y(1, 0), y10_), sp.Eq(y(0, 1), y01_), sp.Eq(y(1, 1), y11_)], [mu, a, b, c], dict=True
    )[0]
    sigma = sp.Symbol("sigma", positive=True)
    n = sp.Symbol("n", positive=True, integer=True)
    x1, x2 = sp.symbols("x1 x2", real=True)
    model = mu + a * x1 + b * x2 + c * x1 * x2
    system = [
        model.subs({x1: i, x2: j}) - cell for (i, j), cell in (((0, 0), y00_), ((1, 0), y10_), ((0, 1), y01_), ((1, 1), y11_))
    ]
    estimate = y11_ - y10_ - y01_ + y00_
    cell_moments = {
        cell: standard_moments(sp.Symbol(f"m_{cell}", real=True), sigma**2 / n, str(cell)) for cell in (y00_, y10_, y01_, y11_)
    }  # each cell a mean of n seeds: variance sigma^2 / n
    worst = sp.Symbol("w", real=True)
    steps = (
        Step.computed(
            "removing component 1 alone drops the result by -a, component 2 alone by -b, both by -(a + b + c); "
            "joint drop minus the sum of the single drops = -c (the interaction)",
            sp.Matrix([drop_1, drop_2, drop_both, drop_both - drop_1 - drop_2]),
            sp.Matrix([-a, -b, -(a + b + c), -c]),
            variables=(x1, x2),
            operand=model,
        ),
        Step.computed(
            "so the single drops add up if and only if c = 0",
            sp.Matrix(sp.solve(sp.Eq(drop_both, drop_1 + drop_2), c)),
            sp.Matrix([0]),
            variables=(c,),
            operand=drop_both - drop_1 - drop_2,
        ),
        Step.computed(
            "the four cells determine the interaction: c = y11 - y10 - y01 + y00",
            solved[c],
            estimate,
            variables=(mu, a, b, c),
            operand=sp.Matrix(system),
        ),
        Step.computed(
            "and the main effects: a = y10 - y00, b = y01 - y00",
            sp.Matrix([solved[a], solved[b]]),
            sp.Matrix([y10_ - y00_, y01_ - y00_]),
            variables=(mu, a, b, c),
            operand=sp.Matrix(system),
        ),
        Step.computed(
            "each cell a mean of n independent seeds (variance sigma^2 / n): Var(c estimate) = 4 sigma^2 / n",
            expectation(estimate**2, cell_moments) - expectation(estimate, cell_moments) ** 2,
            4 * sigma**2 / n,
            variables=(y00_, y10_, y01_, y11_),
            operand=estimate,
        ),
        Step.computed(
            "a floor: if removing 1 already gives the worst score w, then y11 = y10 = w and c = -b",
            estimate.subs({y11_: worst, y10_: worst}),
            -(y01_ - y00_),
            variables=(y11_, y10_),
            operand=estimate,
        ),
    )
    return Derivation(
        name="factorial_interaction",
        statement="in a 2 x 2 factorial model y = mu + a x1 + b x2 + c x1 x2, "
        "drop(both) = drop(1) + drop(2) exactly when the interaction c is 0",
        reference="paper Table 3 (one change at a time); book chapter 13",
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
        steps.append(
            Step.computed(
                f"the formula equals the average max over all {N}^{n} draws, enumerated",
                expected_max_formula(v, n),
                _expected_max_by_enumeration(v, n),
                variables=v,
                operand=sp.Matrix(v),
                sizes=f"N = {N}, n = {n}",
            )
        )
    v3 = sp.symbols("v1:4", real=True)
    probabilities = [(sp.Integer(i) / 3) ** k - (sp.Integer(i - 1) / 3) ** k for i in (1, 2, 3)]
    v1, v2 = sp.symbols("v1:3", real=True)
    gap = sp.Symbol("e", nonnegative=True)  # v2 = v1 + e >= v1
    general = expected_max_formula(v3, k)
    gain = expected_max_formula((v1, v2), k + 1) - expected_max_formula((v1, v2), k)
    steps += [
        Step.for_sizes(
            "any n >= 1: the probabilities (i/N)^n - ((i-1)/N)^n sum to one (they telescope)", sum(probabilities), 1, "N = 3"
        ),
        Step.computed(
            "n = 1: the expected maximum is the mean of the N values",
            general.subs(k, 1),
            sum(v3) / 3,
            variables=(k,),
            operand=general,
            sizes="N = 3",
        ),
        Step.limit("n -> infinity: it tends to the largest value", general, k, sp.oo, v3[-1]),
        Step.for_sizes(
            "one more run: E[max of n + 1] - E[max of n] = (v2 - v1) (1/2)^(n+1)",
            gain,
            (v2 - v1) * sp.Rational(1, 2) ** (k + 1),
            "N = 2",
        ),
        Step.inequality("which is >= 0 for v2 = v1 + e >= v1: one more run never lowers it", gain.subs(v2, v1 + gap), ">=", 0),
    ]
    return Derivation(
        name="expected_max_of_runs",
        statement="E[max of n runs] = sum_i v_(i) [(i/N)^n - ((i-1)/N)^n] for draws with replacement from N sorted results",
        reference="Dodge et al. (2019) §3; book chapter 13",
        steps=tuple(steps),
    )


__all__ = [
    "difference_of_means_variance",
    "expected_max_formula",
    "expected_max_of_runs",
    "factorial_interaction",
]
