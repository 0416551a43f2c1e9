"""The softmax, its Jacobian, and why large logits stop the gradient.

Book: chapter 3 (saturation), chapter 4 (the backward pass of attention).
"""

from __future__ import annotations

import sympy as sp

from .core import Derivation, Step, register


def softmax_vector(z: sp.Matrix) -> sp.Matrix:
    """softmax(z)_i = exp(z_i) / sum_j exp(z_j), as a sympy column vector."""
    exps = z.applyfunc(sp.exp)
    return exps / sum(exps)


@register
def softmax_jacobian() -> Derivation:
    """d softmax(z) / dz = diag(s) - s s^T, proved for n = 2, 3, 4 symbolic logits."""
    steps = []
    for n in (2, 3, 4):
        z = sp.Matrix(sp.symbols(f"z1:{n + 1}", real=True))
        s = softmax_vector(z)
        jacobian = s.jacobian(z)
        steps.append(Step(f"n = {n}: Jacobian equals diag(s) - s s^T", jacobian, sp.diag(*s) - s * s.T))
    z = sp.Matrix(sp.symbols("z1:4", real=True))
    s = softmax_vector(z)
    ones = sp.ones(1, 3)
    steps.append(Step("each row of the Jacobian sums to 0 (weights always sum to 1)", ones * s.jacobian(z).T, sp.zeros(1, 3)))
    return Derivation(
        name="softmax_jacobian",
        statement="J = diag(s) - s s^T, where s = softmax(z)",
        reference="book chapter 3",
        steps=tuple(steps),
    )


@register
def softmax_saturation() -> Derivation:
    """As logits grow, softmax approaches one-hot and its Jacobian approaches 0."""
    c = sp.Symbol("c", positive=True)
    gap = sp.Symbol("delta", positive=True)
    # two logits that differ by c * delta: the larger one's weight
    top = 1 / (1 + sp.exp(-c * gap))
    s = sp.Symbol("s", positive=True)
    steps = [
        Step("weight of the larger of two logits tends to 1 as the scale c grows", sp.limit(top, c, sp.oo), 1),
        Step(
            "its derivative s (1 - s) tends to 0 (the gradient vanishes)",
            sp.limit(top * (1 - top), c, sp.oo),
            0,
        ),
        Step("the diagonal entry s (1 - s) is largest at s = 1/2", sp.solve(sp.diff(s * (1 - s), s), s)[0], sp.Rational(1, 2)),
        Step("where it equals 1/4", (s * (1 - s)).subs(s, sp.Rational(1, 2)), sp.Rational(1, 4)),
    ]
    return Derivation(
        name="softmax_saturation",
        statement="softmax(c z) tends to one-hot and its Jacobian to 0 as c grows",
        reference="book chapter 3; paper §3.2.1 ('extremely small gradients')",
        steps=tuple(steps),
    )
