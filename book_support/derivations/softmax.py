"""The softmax, its Jacobian, and why large logits stop the gradient.

Book: ch-scaling (saturation), ch-multihead (the backward pass of attention).
"""

from __future__ import annotations

import sympy as sp

from .core import Derivation, Step, register, softmax_vector, symbol_vector

__all__ = ["softmax_jacobian", "softmax_saturation", "softmax_vector"]


@register
def softmax_jacobian() -> Derivation:
    """d softmax(z) / dz = diag(s) - s s^T, proved for n = 2, 3, 4 symbolic logits."""
    steps = []
    for n in (2, 3, 4):
        z = symbol_vector("z", n)
        s = softmax_vector(z)
        steps.append(
            Step.computed(
                "Jacobian equals diag(s) - s s^T",
                s.jacobian(z),
                sp.diag(*s) - s * s.T,
                variables=tuple(z),
                operand=s,
                sizes=f"n = {n}",
            )
        )
    z = symbol_vector("z", 3)
    s = softmax_vector(z)
    steps.append(
        Step.for_sizes(
            "each row of the Jacobian sums to 0 (weights always sum to 1)",
            sp.ones(1, 3) * s.jacobian(z).T,
            sp.zeros(1, 3),
            "n = 3",
        )
    )
    return Derivation(
        name="softmax_jacobian",
        statement="J = diag(s) - s s^T, where s = softmax(z)",
        reference="book chapter 3",
        steps=tuple(steps),
    )


@register
def softmax_saturation() -> Derivation:
    """As two logits grow apart, softmax approaches one-hot and its Jacobian approaches 0."""
    c = sp.Symbol("c", positive=True)
    gap = sp.Symbol("delta", positive=True)
    # two logits that differ by c * delta: the larger one's weight
    top = softmax_vector(sp.Matrix([c * gap, 0]))[0]
    s = sp.Symbol("s", real=True)
    derivative = sp.diff(s * (1 - s), s)
    steps = [
        Step.limit("weight of the larger of two logits tends to 1 as the scale c grows", top, c, sp.oo, 1),
        Step.limit("its derivative s (1 - s) tends to 0 (the gradient vanishes)", top * (1 - top), c, sp.oo, 0),
        Step.computed(
            "d/ds [s (1 - s)] = 1 - 2 s vanishes only at s = 1/2",
            sp.Matrix(sp.solve(derivative, s)),
            sp.Matrix([sp.Rational(1, 2)]),
            variables=(s,),
            operand=s * (1 - s),
        ),
        Step.inequality("s (1 - s) <= 1/4 for every real s, with equality at s = 1/2", s * (1 - s), "<=", sp.Rational(1, 4)),
    ]
    return Derivation(
        name="softmax_saturation",
        statement="softmax(c z) of two logits tends to one-hot and its Jacobian to 0 as c grows",
        reference="book chapter 3; paper §3.2.1 ('extremely small gradients')",
        steps=tuple(steps),
    )
