"""Derivations checked with sympy: each ``builder()`` returns a Derivation with ``check()``.

``tl.derivations.dot_product_variance().check()`` is True only when sympy
proves every step. ``all_derivations()`` builds every registered one.
"""

from .core import Derivation, Step, all_derivations, expectation, register, standard_moments
from .scaling import dot_product_variance, dot_product_variance_general
from .softmax import softmax_jacobian, softmax_saturation, softmax_vector

__all__ = [
    "Derivation",
    "Step",
    "all_derivations",
    "dot_product_variance",
    "dot_product_variance_general",
    "expectation",
    "register",
    "softmax_jacobian",
    "softmax_saturation",
    "softmax_vector",
    "standard_moments",
]
