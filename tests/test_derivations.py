"""Every registered sympy derivation holds; a wrong step makes check() False."""

import pytest
import sympy as sp

import transformer_lib as tl
from transformer_lib.derivations import Derivation, Step, all_derivations

DERIVATIONS = all_derivations()


def test_registry_is_not_empty():
    assert {"dot_product_variance", "softmax_jacobian", "softmax_saturation"} <= set(DERIVATIONS)


@pytest.mark.parametrize("name", sorted(DERIVATIONS))
def test_derivation_holds(name):
    derivation = DERIVATIONS[name]
    assert derivation.check(), derivation.report()
    assert "FAILS" not in derivation.report()


def test_a_wrong_step_fails():
    x = sp.Symbol("x")
    wrong = Derivation("wrong", "(x + 1)^2 = x^2 + 1", "test", (Step("expand", (x + 1) ** 2, x**2 + 1),))
    assert not wrong.check()
    assert "FAILS" in wrong.report()
    assert not Step("shape mismatch", sp.eye(2), sp.eye(3)).holds()


def test_variance_needs_zero_mean():
    """With a non-zero mean the variance is not d_k: the assumption is load-bearing."""
    q, k = sp.symbols("q k")
    mu = sp.Symbol("mu", positive=True)
    moments = {
        q: tl.derivations.standard_moments(mu, sp.Integer(1), "q"),
        k: tl.derivations.standard_moments(mu, sp.Integer(1), "k"),
    }
    from transformer_lib.derivations.scaling import variance

    assert sp.simplify(variance(q * k, moments) - (1 + 2 * mu**2)) == 0


def test_expectation_uses_independence():
    x, y = sp.symbols("x y")
    moments = {x: lambda n: sp.Integer(n), y: lambda n: sp.Integer(2) ** n}
    # E[x^2 y + 3 x] = E[x^2] E[y] + 3 E[x] = 2 * 2 + 3 * 1
    assert tl.derivations.expectation(x**2 * y + 3 * x, moments) == 7
