"""Statistics for ablation studies (book_support.stats, derivations.ablation): brute force agrees; bad input refused."""

import itertools
import math
import random
from pathlib import Path

import pytest
import sympy as sp
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

import book_support as bk
from book_support.derivations import Step
from book_support.derivations.ablation import expected_max_formula
from book_support.stats import expected_max, factorial_effects, standard_error_of_difference

ROOT = Path(__file__).resolve().parents[2]
LABEL = "ch-ablations"  # the chapter checked below, found by its label


def brute_force_expected_max(values, n):
    """Average of max over all N^n equally likely ordered draws with replacement."""
    draws = list(itertools.product(values, repeat=n))
    return sum(max(draw) for draw in draws) / len(draws)


@pytest.mark.parametrize("n", [1, 2, 3, 4])
@pytest.mark.parametrize("values", [[0.3], [0.1, 0.5], [0.2, 0.9, 0.4], [0.0, 0.0, 1.0, 0.5], [3, 1, 4, 1, 5]])
def test_expected_max_equals_enumeration(values, n):
    assert expected_max(values, n) == pytest.approx(brute_force_expected_max(values, n), rel=1e-12, abs=1e-12)


@settings(max_examples=50, deadline=None)
@given(
    st.lists(st.floats(min_value=-10, max_value=10, allow_nan=False), min_size=1, max_size=5),
    st.integers(min_value=1, max_value=4),
)
def test_expected_max_equals_enumeration_property(values, n):
    assert expected_max(values, n) == pytest.approx(brute_force_expected_max(values, n), rel=1e-9, abs=1e-9)


def test_expected_max_limits_and_monotonicity():
    values = [0.2, 0.7, 0.1, 0.9, 0.4]
    assert expected_max(values, 1) == pytest.approx(sum(values) / len(values))
    curve = [expected_max(values, n) for n in range(1, 60)]
    assert all(b >= a - 1e-15 for a, b in itertools.pairwise(curve))
    assert curve[-1] == pytest.approx(max(values), abs=1e-4)
    assert expected_max([0.5] * 4, 7) == pytest.approx(0.5)


def test_expected_max_matches_monte_carlo():
    values = [0.1, 0.4, 0.45, 0.8]
    rng = random.Random(0)
    trials = 20_000
    estimate = sum(max(rng.choice(values) for _ in range(3)) for _ in range(trials)) / trials
    assert estimate == pytest.approx(expected_max(values, 3), abs=0.01)


def test_expected_max_accepts_tensors_and_agrees_with_sympy():
    values = torch.tensor([0.25, 0.5, 0.75])
    exact = expected_max_formula([sp.Rational(1, 4), sp.Rational(1, 2), sp.Rational(3, 4)], 2)
    assert expected_max(values, 2) == pytest.approx(float(exact), rel=1e-12)


@pytest.mark.parametrize(
    ("values", "n", "error"),
    [
        ([], 1, ValueError),
        ([0.1, float("nan")], 1, ValueError),
        ([0.1, float("inf")], 1, ValueError),
        ([0.1, 0.2], 0, ValueError),
        ([0.1, 0.2], -1, ValueError),
        ([0.1, 0.2], 1.5, TypeError),
        ([0.1, 0.2], True, TypeError),
        ("0.1", 1, TypeError),
        (0.5, 1, TypeError),
        ([0.1, "a"], 1, TypeError),
        ([True, 0.2], 1, TypeError),
        (torch.zeros(2, 2), 1, ValueError),
    ],
)
def test_expected_max_refuses_bad_input(values, n, error):
    with pytest.raises(error) as info:
        expected_max(values, n)
    assert "values" in str(info.value) or "n must" in str(info.value)


def test_standard_error_of_difference():
    a, b = [0.5, 0.7], [0.1, 0.2, 0.3]
    expected = math.sqrt(0.02 / 2 + 0.01 / 3)  # sample variances 0.02 and 0.01
    assert standard_error_of_difference(a, b) == pytest.approx(expected, rel=1e-12)
    # two seeds each, equal spread: the standard error is one run's sample standard deviation
    assert standard_error_of_difference([1.0, 3.0], [5.0, 7.0]) == pytest.approx(math.sqrt(2.0), rel=1e-12)
    assert standard_error_of_difference([0.3, 0.3], [0.3, 0.3]) == 0.0


def test_standard_error_matches_simulation():
    gen = torch.Generator().manual_seed(0)
    n, sigma_a, sigma_b = 4, 0.1, 0.2
    a = 0.5 + sigma_a * torch.randn(100_000, n, generator=gen, dtype=torch.float64)
    b = 0.3 + sigma_b * torch.randn(100_000, n, generator=gen, dtype=torch.float64)
    spread = (a.mean(1) - b.mean(1)).std().item()
    assert spread == pytest.approx(math.sqrt((sigma_a**2 + sigma_b**2) / n), rel=0.02)


@pytest.mark.parametrize(("a", "b"), [([0.1], [0.2, 0.3]), ([0.1, 0.2], [0.3]), ([0.1, None], [0.2, 0.3]), (0.1, [0.2, 0.3])])
def test_standard_error_refuses_bad_input(a, b):
    with pytest.raises((TypeError, ValueError)) as info:
        standard_error_of_difference(a, b)
    assert "a" in str(info.value) or "b" in str(info.value)


def test_factorial_effects_reconstruct_the_cells():
    effects = factorial_effects(0.9, 0.1, 0.7, 0.05)
    mu, a, b, c = (effects[k] for k in ("mu", "a", "b", "c"))
    for (x1, x2), y in {(0, 0): 0.9, (1, 0): 0.1, (0, 1): 0.7, (1, 1): 0.05}.items():
        assert mu + a * x1 + b * x2 + c * x1 * x2 == pytest.approx(y)
    assert effects["drop_both"] - effects["drop_1"] - effects["drop_2"] == pytest.approx(-c)
    additive = factorial_effects(1.0, 0.8, 0.7, 0.5)
    assert additive["c"] == pytest.approx(0.0, abs=1e-12)
    assert additive["drop_both"] == pytest.approx(additive["drop_1"] + additive["drop_2"])
    with pytest.raises(ValueError):
        factorial_effects(0.1, 0.2, float("nan"), 0.3)


def test_the_derivations_are_registered_and_a_wrong_step_fails():
    for name in ("difference_of_means_variance", "factorial_interaction", "expected_max_of_runs"):
        assert name in bk.derivations.DERIVATIONS  # built and checked once, by test_derivations.py
    v = sp.symbols("v1:3", real=True)
    assert not Step("E[max] = mean for n = 2 (wrong)", expected_max_formula(v, 2), (v[0] + v[1]) / 2).holds()
    sigma, n = sp.symbols("sigma n", positive=True)
    assert not Step("Var of a difference = sigma^2 / n (wrong)", 2 * sigma**2 / n, sigma**2 / n).holds()


def test_every_step_of_the_difference_of_means_derivation_computes_something():
    # a step whose two sides are written down as the same expression proves nothing; each step here
    # computes its left side (an expectation, a substitution) from an operand (fails on the old step 1,
    # which compared sigma_A^2 / n + sigma_B^2 / n with (sigma_A^2 + sigma_B^2) / n)
    derivation = bk.derivations.difference_of_means_variance()
    for step in derivation.steps:
        assert step.variables and step.operand is not None, step.claim
    first = derivation.steps[0]
    assert set(first.variables) <= first.operand.free_symbols
    assert first.holds()
