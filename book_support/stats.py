"""Repeated runs over seeds: per-seed values, their mean and a Student-t interval.

A claim of the form "A beats B" or "X is needed" rests on several seeds, and
the book prints the spread with it. :func:`over_seeds` runs an experiment once
per seed and returns a :class:`SeedSummary`; :func:`paired_difference`
compares two variants that were run on the *same* seeds (same initialisation,
same batch order), which removes the seed-to-seed variation the two share.

The interval is mean ± t_{n-1, (1+level)/2} · s / √n, with s the sample
standard deviation (n − 1 in the denominator). It assumes the per-seed values
are independent draws from one normal distribution; with 3 to 5 seeds it is
wide, which is the point: it says how little a few runs can tell apart.

A quantity with a range (an accuracy in [0, 1], a difference of two accuracies
in [-1, 1], a KL divergence in [0, inf)) passes ``bounds=``: the t-interval is
intersected with the range. The true mean lies in the range, so the
intersection covers it whenever the t-interval does (same confidence), and the
page never prints an exact-match interval that reaches 1.03. A cut interval
prints as ``mean [low, high]`` (no ± : it is no longer symmetric) and says
where it was cut. Printed ends round outward (low down, high up), so a printed
interval always contains the computed one.

No SciPy: the t quantile is mpmath's regularised incomplete beta function,
inverted by mpmath's root finder (:func:`t_quantile`); it agrees with published
tables to the digits they print (tested).

Also the statistics of an ablation study (ch-ablations): :func:`standard_error_of_difference`,
:func:`factorial_effects` and :func:`expected_max` (Dodge et al. 2019), whose formulas are proved
in :mod:`book_support.derivations.ablation`.

Book: ch-scaling, ch-positions, ch-residual-norm and ch-numbers (and every chapter that compares runs).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from book_support.notebook import rounded_down, rounded_up
from transformer_lib._checks import check_float, check_int, check_positive_int

__all__ = [
    "SeedSummary",
    "expected_max",
    "factorial_effects",
    "over_runs",
    "over_seeds",
    "paired_difference",
    "paired_runs",
    "standard_error_of_difference",
    "summarize",
    "t_quantile",
]


def t_quantile(p: float, df: int) -> float:
    """The p-quantile of Student's t distribution with ``df`` degrees of freedom.

    ``t_quantile(0.975, 4)`` = 2.776..., the factor of a 95 % interval from 5 values.

    The two tails beyond ±t hold P(|T| > t) = I_x(df/2, 1/2) with x = df / (df + t²), I the
    regularised incomplete beta function (``mpmath.betainc``). ``mpmath.findroot`` (secant method)
    solves log P(|T| > e^u) = log 2(1 - p) for u = log t: in the log scale the heavy tail is nearly
    a straight line, so a few steps from the normal quantile (``mpmath.erfinv``) suffice. It works
    at 50 digits plus one per digit of ``df`` (x is within t²/df of 1), and the float returned is
    the quantile correctly rounded (tested against the closed forms for df = 1 and 2).
    """
    check_float("p", p, low=0.0, high=1.0, low_open=True, high_open=True)
    check_positive_int("df", df)
    if p == 0.5:
        return 0.0
    if p < 0.5:
        return -t_quantile(1.0 - p, df)
    import mpmath

    with mpmath.workdps(50 + len(str(df))):
        nu = mpmath.mpf(df)
        tails = 2 * (1 - mpmath.mpf(p))  # P(|T| > t) at the quantile

        def log_ratio(u: Any) -> Any:  # log P(|T| > e^u) - log tails
            t = mpmath.exp(u)
            return mpmath.log(mpmath.betainc(nu / 2, 0.5, 0, nu / (nu + t * t), regularized=True) / tails)

        normal = mpmath.sqrt(2) * mpmath.erfinv(2 * mpmath.mpf(p) - 1)  # below the t quantile: t has heavier tails
        return float(mpmath.exp(mpmath.findroot(log_ratio, mpmath.log(normal))))


@dataclass(frozen=True)
class SeedSummary:
    """Per-seed values of one quantity and what they support.

    Attributes:
        seeds: the seeds, in order. values: one value per seed.
        mean, std: the sample mean and standard deviation (n - 1).
        low, high: the Student-t interval for the mean at ``level``, intersected with ``bounds``.
        level: the interval's confidence level (0.95 by default).
        bounds: the range of the quantity, ``(lo, hi)`` (either may be infinite), or None.
        cut: which ends of the t-interval the range cut: "" (none), "low", "high" or "both".
    """

    seeds: tuple[int, ...]
    values: tuple[float, ...]
    mean: float
    std: float
    low: float
    high: float
    level: float
    bounds: tuple[float, float] | None = None
    cut: str = ""

    @property
    def n(self) -> int:
        return len(self.values)

    @property
    def half_width(self) -> float:
        """Half the interval's width; for a cut interval, the larger distance from the mean to an end."""
        if self.cut:
            return max(self.mean - self.low, self.high - self.mean)
        return (self.high - self.low) / 2.0

    def excludes(self, value: float = 0.0) -> bool:
        """True when ``value`` lies outside the interval (e.g. a difference of 0: "A and B differ")."""
        return value < self.low or value > self.high

    def interval(self, digits: int = 3) -> str:
        """``[low, high]`` with ``low`` rounded down and ``high`` rounded up to ``digits`` decimals."""
        return f"[{_fixed(rounded_down(self.low, digits), digits)}, {_fixed(rounded_up(self.high, digits), digits)}]"

    def short(self, digits: int = 3) -> str:
        """``mean ± half-width`` (the half-width rounded up), or ``mean [low, high]`` for a cut interval."""
        if self.cut:
            return f"{_fixed(round(self.mean, digits), digits)} {self.interval(digits)}"
        return f"{_fixed(round(self.mean, digits), digits)} ± {_fixed(rounded_up(self.half_width, digits), digits)}"

    def format(self, digits: int = 3) -> str:
        """``mean ± half-width (95 % CI [low, high], n = 5)``; ends rounded outward to ``digits`` decimals.

        A cut interval prints ``mean (95 % CI [low, high], n = 3, cut at 1)``.
        """
        pct = f"{100 * self.level:g}"
        mean = _fixed(round(self.mean, digits), digits)
        if self.cut:
            assert self.bounds is not None
            ends = {"low": [self.bounds[0]], "high": [self.bounds[1]], "both": list(self.bounds)}[self.cut]
            at = " and ".join(f"{e:g}" for e in ends)
            return f"{mean} ({pct} % CI {self.interval(digits)}, n = {self.n}, cut at {at})"
        half = _fixed(rounded_up(self.half_width, digits), digits)
        return f"{mean} ± {half} ({pct} % CI {self.interval(digits)}, n = {self.n})"

    def __str__(self) -> str:
        return self.format()


def _fixed(x: float, digits: int) -> str:
    return f"{x + 0.0:.{digits}f}"


def _checked_bounds(bounds: object, values: Sequence[float]) -> tuple[float, float]:
    if not isinstance(bounds, tuple) or len(bounds) != 2:
        raise TypeError(f"bounds must be a pair (lo, hi) of real numbers, got {bounds!r}")
    lo, hi = bounds
    for name, b in (("bounds[0]", lo), ("bounds[1]", hi)):
        if isinstance(b, bool) or not isinstance(b, (int, float)) or math.isnan(b):
            raise TypeError(f"{name} must be a real number (inf allowed), got {b!r}")
    if not lo < hi:
        raise ValueError(f"bounds must satisfy lo < hi, got {bounds!r}")
    for i, v in enumerate(values):
        if not lo <= v <= hi:
            raise ValueError(f"values[{i}] must lie in bounds {bounds!r}, got {v!r}")
    return float(lo), float(hi)


def _finite_floats(name: str, values: object, minimum: int = 0) -> list[float]:
    """A list of finite floats from a sequence (list, tuple, 1-D tensor or array) of real numbers."""
    if isinstance(values, (str, bytes)) or not hasattr(values, "__iter__"):
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


def summarize(
    values: Sequence[float],
    seeds: Sequence[int] | None = None,
    level: float = 0.95,
    *,
    bounds: tuple[float, float] | None = None,
) -> SeedSummary:
    """Mean, standard deviation and t-interval of per-seed ``values`` (at least 2).

    ``bounds=(lo, hi)``: the quantity's range; the interval is intersected with it (see the module's text).
    """
    vals = _finite_floats("values", values)
    if len(vals) < 2:
        raise ValueError(f"values must hold at least 2 runs to estimate a spread, got {len(vals)}")
    check_float("level", level, low=0.0, high=1.0, low_open=True, high_open=True)
    seeds = tuple(range(len(vals))) if seeds is None else tuple(seeds)
    if len(seeds) != len(vals):
        raise ValueError(f"seeds and values must have the same length, got {len(seeds)} seeds and {len(vals)} values")
    n = len(vals)
    mean = math.fsum(vals) / n
    std = math.sqrt(math.fsum((v - mean) ** 2 for v in vals) / (n - 1))
    half = t_quantile((1.0 + level) / 2.0, n - 1) * std / math.sqrt(n)
    low, high = mean - half, mean + half
    if bounds is None:
        return SeedSummary(seeds, tuple(vals), mean, std, low, high, level)
    lo, hi = _checked_bounds(bounds, vals)
    cut = {(True, True): "both", (True, False): "low", (False, True): "high", (False, False): ""}[(low < lo, high > hi)]
    return SeedSummary(seeds, tuple(vals), mean, std, max(low, lo), min(high, hi), level, (lo, hi), cut)


def over_seeds(
    run: Callable[[int], float],
    seeds: Sequence[int] | int = 5,
    level: float = 0.95,
    *,
    bounds: tuple[float, float] | None = None,
) -> SeedSummary:
    """Run ``run(seed)`` once per seed and summarise the returned numbers.

    Args:
        run: a function of the seed returning one real number (an accuracy, a loss).
            It must seed everything it uses from its argument (``tl.set_seed(seed)``).
        seeds: the seeds, or a count n meaning seeds 0, ..., n - 1 (at least 2).
        level: the confidence level of the interval.

    Example::

        acc = bk.stats.over_seeds(lambda seed: train_and_score(seed=seed), seeds=5)
        print(acc)   # 0.912 ± 0.031 (95 % CI [0.881, 0.943], n = 5)
    """
    if not callable(run):
        raise TypeError(f"run must be callable as run(seed) -> float, got {type(run).__name__}")
    if isinstance(seeds, bool) or not isinstance(seeds, (int, Sequence)):
        raise TypeError(f"seeds must be a count or a sequence of ints, got {type(seeds).__name__} ({seeds!r})")
    if isinstance(seeds, int):
        if seeds < 2:
            raise ValueError(f"seeds must be at least 2 runs, got {seeds}")
        seeds = range(seeds)
    chosen = tuple(seeds)
    for s in chosen:
        check_int("seeds[i]", s)
    return summarize([run(seed) for seed in chosen], chosen, level, bounds=bounds)


def paired_difference(
    a: SeedSummary | Sequence[float],
    b: SeedSummary | Sequence[float],
    level: float = 0.95,
    *,
    bounds: tuple[float, float] | None = None,
) -> SeedSummary:
    """The per-seed differences a - b of two variants run on the same seeds, summarised.

    Pairing removes what the two runs of one seed share (initialisation, batch
    order); its interval is usually much narrower than that of two independent
    means. ``paired_difference(a, b).excludes(0)``: the data tell the variants apart.
    ``bounds``: the range of the difference (``(-1, 1)`` for two accuracies).
    """
    seeds_a = a.seeds if isinstance(a, SeedSummary) else None
    seeds_b = b.seeds if isinstance(b, SeedSummary) else None
    va = list(a.values) if isinstance(a, SeedSummary) else _finite_floats("a", a)
    vb = list(b.values) if isinstance(b, SeedSummary) else _finite_floats("b", b)
    if len(va) != len(vb):
        raise ValueError(f"a and b must hold one value per seed each, got {len(va)} and {len(vb)} values")
    if seeds_a is not None and seeds_b is not None and seeds_a != seeds_b:
        raise ValueError(f"a and b must come from the same seeds to be paired, got {seeds_a} and {seeds_b}")
    return summarize([x - y for x, y in zip(va, vb, strict=True)], seeds_a or seeds_b, level, bounds=bounds)


def over_runs(
    runs: Mapping[int, Any],
    value: Callable[[Any], float],
    level: float = 0.95,
    *,
    bounds: tuple[float, float] | None = None,
) -> SeedSummary:
    """Summarise ``value(run)`` over the runs of ``tl.train_seeds`` (``{seed: SeedRun}``), keeping their seeds.

    Example::

        runs = tl.train_seeds(build, seeds=range(5), steps=300, eval_fn=score)
        em = bk.stats.over_runs(runs, lambda run: run.history.evals[-1]["exact_match"], bounds=(0, 1))
    """
    if not isinstance(runs, Mapping) or not runs:
        raise TypeError(f"runs must be the non-empty dict {{seed: run}} that tl.train_seeds returns, got {runs!r}")
    if not callable(value):
        raise TypeError(f"value must be a function of one run returning a number, got {type(value).__name__}")
    return summarize([value(run) for run in runs.values()], list(runs), level, bounds=bounds)


def paired_runs(
    a: Mapping[int, Any],
    b: Mapping[int, Any],
    value: Callable[[Any], float],
    level: float = 0.95,
    *,
    bounds: tuple[float, float] | None = None,
) -> SeedSummary:
    """``value(a[seed]) - value(b[seed])`` over the seeds two ``tl.train_seeds`` calls share, summarised.

    The two recipes must have been run on the same seeds (same order not required): pairing compares each
    seed with itself. ``bounds`` is the range of the difference (``(-1, 1)`` for two accuracies).
    """
    for name, runs in (("a", a), ("b", b)):
        if not isinstance(runs, Mapping) or not runs:
            raise TypeError(f"{name} must be the non-empty dict {{seed: run}} that tl.train_seeds returns, got {runs!r}")
    if set(a) != set(b):
        raise ValueError(f"a and b must come from the same seeds to be paired, got {sorted(a)} and {sorted(b)}")
    seeds = list(a)
    return summarize([value(a[s]) - value(b[s]) for s in seeds], seeds, level, bounds=bounds)


# --- ablation studies: seed noise, 2 x 2 factorial effects, the expected best of n runs (ch-ablations) ---
# The formulas are proved in book_support.derivations.ablation.


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
    Book: ch-ablations.
    """
    observed = sorted(_finite_floats("values", values, 1))
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

    Book: ch-ablations.
    """
    xs, ys = _finite_floats("a", a, 2), _finite_floats("b", b, 2)

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

    Book: ch-ablations.
    """
    y00, y10, y01, y11 = _finite_floats("(y00, y10, y01, y11)", (y00, y10, y01, y11), 4)
    return {
        "mu": y00,
        "a": y10 - y00,
        "b": y01 - y00,
        "c": y11 - y10 - y01 + y00,
        "drop_1": y00 - y10,
        "drop_2": y00 - y01,
        "drop_both": y00 - y11,
    }
