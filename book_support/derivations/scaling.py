"""Why attention divides by sqrt(d_k): the variance of a dot product.

Paper: §3.2.1 and footnote 4 ("assume that the components of q and k are
independent random variables with mean 0 and variance 1. Then their dot
product has mean 0 and variance d_k"). Book: ch-scaling.
"""

from __future__ import annotations

import sympy as sp

from .core import Derivation, Step, expectation, register, standard_moments

__all__ = ["EXPANDED_UP_TO", "dot_product_variance", "dot_product_variance_general", "variance"]

#: the largest d_k for which the variance is also computed by full expansion
EXPANDED_UP_TO = 6


def _dot_product(d: int) -> tuple[sp.Expr, dict]:
    """q . k for concrete d, and the moments of the 2d independent components."""
    q = sp.symbols(f"q1:{d + 1}")
    k = sp.symbols(f"k1:{d + 1}")
    moments = {x: standard_moments(sp.Integer(0), sp.Integer(1), str(x)) for x in (*q, *k)}
    return sum(qi * ki for qi, ki in zip(q, k, strict=True)), moments


def variance(expr: sp.Expr, moments: dict) -> sp.Expr:
    """Var[expr] = E[expr^2] - E[expr]^2 for independent variables with the given moments."""
    return sp.expand(expectation(expr**2, moments) - expectation(expr, moments) ** 2)


@register
def dot_product_variance() -> Derivation:
    """Var(q . k) = d_k when the 2 d_k components are independent, mean 0, variance 1."""
    q, k = sp.symbols("q k")
    mu_q, mu_k = sp.symbols("mu_q mu_k", real=True)
    s2_q, s2_k = sp.symbols("sigma_q^2 sigma_k^2", positive=True)
    general = {q: standard_moments(mu_q, s2_q, "q"), k: standard_moments(mu_k, s2_k, "k")}
    unit = {q: standard_moments(sp.Integer(0), sp.Integer(1), "q"), k: standard_moments(sp.Integer(0), sp.Integer(1), "k")}
    covariance = _covariance_of_two_products()

    q1, q2, k1, k2 = sp.symbols("q1 q2 k1 k2")
    steps = [
        Step.computed(
            "E[q k] = E[q] E[k] by independence", expectation(q * k, general), mu_q * mu_k, variables=(q, k), operand=q * k
        ),
        Step.computed(
            "Var(q k) = E[q^2] E[k^2] - (E[q] E[k])^2 for independent q, k",
            variance(q * k, general),
            (s2_q + mu_q**2) * (s2_k + mu_k**2) - mu_q**2 * mu_k**2,
            variables=(q, k),
            operand=q * k,
        ),
        Step.computed("with mean 0 and variance 1: E[q k] = 0", expectation(q * k, unit), 0, variables=(q, k), operand=q * k),
        Step.computed("with mean 0 and variance 1: Var(q k) = 1", variance(q * k, unit), 1, variables=(q, k), operand=q * k),
        Step.computed(
            "products of different index pairs are uncorrelated: Cov(q1 k1, q2 k2) = 0",
            covariance,
            0,
            variables=(q1, q2, k1, k2),
            operand=q1 * k1 * q2 * k2,
        ),
    ]
    for dim in range(1, EXPANDED_UP_TO + 1):
        expr, moments = _dot_product(dim)
        steps.append(
            Step.computed(
                f"full expansion: Var(q . k) = {dim}",
                variance(expr, moments),
                dim,
                variables=tuple(moments),
                operand=expr,
                sizes=f"d_k = {dim}",
            )
        )
    expr, moments = _dot_product(4)
    steps.append(
        Step.computed(
            "dividing by sqrt(d_k) restores unit variance: Var(q . k / sqrt(d_k)) = 1",
            variance(expr / sp.sqrt(4), moments),
            1,
            variables=tuple(moments),
            operand=expr,
            sizes="d_k = 4",
        )
    )
    return Derivation(
        name="dot_product_variance",
        statement="Var(q . k) = d_k for independent components with mean 0 and variance 1",
        reference="Paper §3.2.1, footnote 4; book chapter 3",
        steps=tuple(steps),
    )


def _covariance_of_two_products() -> sp.Expr:
    """Cov(q1 k1, q2 k2) computed from the moments (it comes out 0)."""
    _, moments = _dot_product(2)
    q1, q2 = sp.symbols("q1 q2")
    k1, k2 = sp.symbols("k1 k2")
    covariance = expectation(q1 * k1 * q2 * k2, moments) - expectation(q1 * k1, moments) * expectation(q2 * k2, moments)
    return covariance


@register
def dot_product_variance_general() -> Derivation:
    """With variances s_q^2, s_k^2 and zero means, Var(q . k) = d_k s_q^2 s_k^2."""
    s2_q, s2_k = sp.symbols("sigma_q^2 sigma_k^2", positive=True)
    steps = []
    for dim in range(1, 4):
        q = sp.symbols(f"q1:{dim + 1}")
        k = sp.symbols(f"k1:{dim + 1}")
        moments = {x: standard_moments(sp.Integer(0), s2_q, str(x)) for x in q}
        moments |= {x: standard_moments(sp.Integer(0), s2_k, str(x)) for x in k}
        expr = sum(qi * ki for qi, ki in zip(q, k, strict=True))
        steps.append(
            Step.computed(
                "Var(q . k) = d_k sigma_q^2 sigma_k^2",
                variance(expr, moments),
                dim * s2_q * s2_k,
                variables=tuple(moments),
                operand=expr,
                sizes=f"d_k = {dim}",
            )
        )
    return Derivation(
        name="dot_product_variance_general",
        statement="Var(q . k) = d_k sigma_q^2 sigma_k^2 for zero-mean independent components",
        reference="book chapter 3 (generalises the paper's footnote 4)",
        steps=tuple(steps),
    )
