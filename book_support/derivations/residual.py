"""Residual connections and LayerNorm: the gradient identity, its product through depth, LayerNorm's moments.

Paper: §3.1 ("We employ a residual connection around each of the two
sub-layers, followed by layer normalization. That is, the output of each
sub-layer is LayerNorm(x + Sublayer(x))"). Book: ch-residual-norm.
"""

from __future__ import annotations

import sympy as sp

from .core import Derivation, Step, expectation, register, standard_moments, symbol_matrix, symbol_vector

__all__ = [
    "layer_norm_jacobian",
    "layer_norm_moments",
    "layer_norm_vector",
    "residual_gradient_norm",
    "residual_jacobian",
    "symbolic_matrix",
    "symbolic_vector",
]


def symbolic_vector(name: str, size: int) -> sp.Matrix:
    """A column of real symbols name_0 ... name_{size-1} (``core.symbol_vector`` with 0-based names)."""
    return symbol_vector(name, size, start=0, separator="_")


def symbolic_matrix(name: str, rows: int, cols: int) -> sp.Matrix:
    """A (rows, cols) matrix of real symbols name_ij, 0-based (``core.symbol_matrix``)."""
    return symbol_matrix(name, rows, cols, start=0)


def layer_norm_vector(x: sp.Matrix, eps: sp.Expr = 0) -> sp.Matrix:
    """(x - mean) / sqrt(biased variance + eps) for a sympy column, without gamma and beta."""
    size = x.rows
    mean = sum(x) / size
    centred = x - sp.ones(size, 1) * mean
    variance = sum(c**2 for c in centred) / size  # biased: divide by D, as nn.LayerNorm does
    return centred / sp.sqrt(variance + eps)


@register
def residual_jacobian() -> Derivation:
    """d(x + F(x))/dx = I + dF/dx, and through depth the Jacobians of the blocks multiply."""
    size = 2
    x = symbolic_vector("x", size)
    w1, w2 = symbolic_matrix("u", size, size), symbolic_matrix("w", size, size)
    b = symbolic_vector("b", size)
    sublayer = w2 * (w1 * x + b).applyfunc(sp.tanh)  # a small sub-layer F(x) = W2 tanh(W1 x + b)
    a, c, e = symbolic_matrix("A", size, size), symbolic_matrix("B", size, size), symbolic_matrix("C", size, size)
    eye = sp.eye(size)
    # two stacked residual blocks with different weights: x1 = x + F(x), x2 = x1 + G(x1)
    v1, v2 = symbolic_matrix("v", size, size), symbolic_matrix("z", size, size)
    x1 = x + sublayer
    x2 = x1 + v2 * (v1 * x1).applyfunc(sp.tanh)
    jac_f = sublayer.jacobian(x)
    jac_g_at_x1 = (v2 * (v1 * x).applyfunc(sp.tanh)).jacobian(x).subs(dict(zip(x, x1, strict=True)), simultaneous=True)
    sizes = "D = 2"
    factor, layers = sp.Symbol("a", positive=True), sp.Symbol("L", positive=True, integer=True)
    steps = [
        Step.computed(
            "d(x + F(x))/dx = I + dF/dx for F(x) = W2 tanh(W1 x + b)",
            (x + sublayer).jacobian(x),
            eye + jac_f,
            variables=tuple(x),
            operand=x + sublayer,
            sizes=sizes,
        ),
        Step.computed(
            "chain rule: d x2 / d x - (I + J_G(x1)) (I + J_F(x)) expands to 0 for two stacked blocks",
            (x2.jacobian(x) - (eye + jac_g_at_x1) * (eye + jac_f)).applyfunc(sp.expand),  # simplify() is slow here
            sp.zeros(size, size),
            variables=tuple(x),
            operand=x2,
            sizes=sizes,
        ),
        Step.for_sizes("(I + A)(I + B) = I + A + B + A B", (eye + a) * (eye + c), eye + a + c + a * c, sizes),
        Step.for_sizes(
            "(I + A)(I + B)(I + C) = I + (A + B + C) + (A B + A C + B C) + A B C: the identity path survives every product",
            (eye + a) * (eye + c) * (eye + e),
            eye + (a + c + e) + (a * c + a * e + c * e) + a * c * e,
            sizes,
        ),
        Step.value(
            "a scalar derivative a = 0.9 through L = 100 layers: a^L = 2.656...e-5, floor(10^8 a^L) = 2656 "
            "(a residual block with dF/dx = -0.1 has the same a = 1 - 0.1)",
            sp.floor(10**8 * factor**layers),
            {factor: sp.Rational(9, 10), layers: 100},
            2656,
        ),
    ]
    return Derivation(
        name="residual_jacobian",
        statement="d(x + F(x))/dx = I + J_F; through L blocks the gradient is multiplied by prod (I + J_l)",
        reference="He et al. (2016); paper §3.1; book chapter 8",
        steps=tuple(steps),
    )


@register
def residual_gradient_norm() -> Derivation:
    """With a random Jacobian J (entries mean 0, variance v), E|(I + J) g|^2 = (1 + D v)|g|^2 but E|J g|^2 = D v |g|^2."""
    size = 2
    g = symbolic_vector("g", size)  # the gradient arriving from above, fixed
    jac = symbolic_matrix("J", size, size)
    v = sp.Symbol("v", positive=True)
    moments = {entry: standard_moments(sp.Integer(0), v, str(entry)) for entry in jac}
    norm_g = (g.T * g)[0]
    plain = ((jac * g).T * (jac * g))[0]
    residual = (((sp.eye(size) + jac) * g).T * ((sp.eye(size) + jac) * g))[0]
    s2, layers = sp.Symbol("s^2", positive=True), sp.Symbol("L", positive=True, integer=True)
    steps = [
        Step.computed(
            "plain layer: E|J g|^2 = D v |g|^2",
            expectation(plain, moments),
            size * v * norm_g,
            variables=tuple(jac),
            operand=plain,
            sizes="D = 2",
        ),
        Step.computed(
            "residual layer: E|(I + J) g|^2 = (1 + D v) |g|^2 (the cross term has mean 0)",
            expectation(residual, moments),
            (1 + size * v) * norm_g,
            variables=tuple(jac),
            operand=residual,
            sizes="D = 2",
        ),
        Step.inequality(
            "so a residual layer never shrinks the expected squared norm: (1 + D v) |g|^2 >= |g|^2 (any D)",
            (1 + sp.Symbol("D", positive=True) * v) * norm_g,
            ">=",
            norm_g,
        ),
        Step.limit(
            "so L independent plain layers multiply it by s^(2L) with s^2 = D v; for s^2 = 1/2 that tends to 0",
            sp.Rational(1, 2) ** layers,
            layers,
            sp.oo,
            0,
        ),
        Step.limit(
            "L residual layers multiply it by (1 + s^2)^L; with branches scaled so that s^2 = c / L this stays e^c",
            (1 + s2 / layers) ** layers,
            layers,
            sp.oo,
            sp.exp(s2),
        ),
    ]
    return Derivation(
        name="residual_gradient_norm",
        statement="for a random layer Jacobian, residual blocks keep the expected squared gradient norm >= |g|^2",
        reference="book chapter 8",
        steps=tuple(steps),
    )


@register
def layer_norm_moments() -> Derivation:
    """LayerNorm's output (before gamma, beta) has mean 0 and biased variance sigma^2 / (sigma^2 + eps)."""
    size = 4
    x = symbolic_vector("x", size)
    eps = sp.Symbol("epsilon", positive=True)
    y_eps, y = layer_norm_vector(x, eps), layer_norm_vector(x)
    mean_x = sum(x) / size
    var_x = sum((xi - mean_x) ** 2 for xi in x) / size
    a, c = sp.Symbol("a", positive=True), sp.Symbol("c", real=True)
    gamma, beta = sp.Symbol("gamma", positive=True), sp.Symbol("beta", real=True)
    affine = gamma * y + beta * sp.ones(size, 1)  # a scalar gamma and beta, for the moments
    sizes = "D = 4"
    steps = [
        Step.for_sizes("mean of LN(x) = 0", sum(y_eps) / size, 0, sizes),
        Step.for_sizes(
            "biased variance of LN(x) = sigma^2 / (sigma^2 + eps)",
            sum(yi**2 for yi in y_eps) / size,
            var_x / (var_x + eps),
            sizes,
        ),
        Step.for_sizes("with eps = 0 the biased variance is exactly 1", sum(yi**2 for yi in y) / size, 1, sizes),
        Step.for_sizes(
            "... and the unbiased variance (divide by D - 1) is D / (D - 1) = 4/3",
            sum(yi**2 for yi in y) / (size - 1),
            sp.Rational(4, 3),
            sizes,
        ),
        Step.for_sizes(
            "LN(a x + c) = LN(x) for a > 0 (eps = 0): scale and shift of the input are removed",
            layer_norm_vector(a * x + c * sp.ones(size, 1)),
            y,
            sizes,
        ),
        Step.for_sizes("gamma LN(x) + beta has mean beta", sum(affine) / size, beta, sizes),
        Step.for_sizes(
            "... and biased variance gamma^2 (eps = 0)", sum((ai - beta) ** 2 for ai in affine) / size, gamma**2, sizes
        ),
    ]
    return Derivation(
        name="layer_norm_moments",
        statement="LN(x) = (x - mu) / sqrt(sigma^2 + eps) has mean 0 and biased variance sigma^2 / (sigma^2 + eps)",
        reference="Ba et al. (2016); torch.nn.LayerNorm; book chapter 8",
        steps=tuple(steps),
    )


@register
def layer_norm_jacobian() -> Derivation:
    """d LN(x) / dx = (I - 1 1^T / D - y y^T / D) / sigma for eps = 0, where y = LN(x)."""
    size = 3
    x = symbolic_vector("x", size)
    y = layer_norm_vector(x)
    mean = sum(x) / size
    sigma = sp.sqrt(sum((xi - mean) ** 2 for xi in x) / size)
    ones = sp.ones(size, 1)
    formula = (sp.eye(size) - ones * ones.T / size - y * y.T / size) / sigma
    steps = [
        Step.computed(
            "d LN(x) / dx = (I - 1 1^T / D - y y^T / D) / sigma (eps = 0)",
            y.jacobian(x),
            formula,
            variables=tuple(x),
            operand=y,
            sizes="D = 3",
        ),
        Step.for_sizes("it sends the all-ones direction to 0 (shifts are removed)", formula * ones, sp.zeros(size, 1), "D = 3"),
        Step.for_sizes(
            "and the input direction x - mu to 0 (rescaling is removed)", formula * (x - ones * mean), sp.zeros(size, 1), "D = 3"
        ),
    ]
    return Derivation(
        name="layer_norm_jacobian",
        statement="the LayerNorm Jacobian is a projection divided by sigma: gradients through it are scaled by 1/sigma",
        reference="book chapter 8; Xiong et al. (2020)",
        steps=tuple(steps),
    )
