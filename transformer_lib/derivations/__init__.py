"""Derivations checked with sympy: each builder returns a Derivation with ``check()``.

``tl.derivations.dot_product_variance().check()`` is True only when sympy
proves every step. ``all_derivations()`` builds every registered one.

Each module of this package holds the derivations of one topic and registers
its builders with ``@register``; every module is imported here, and every
registered builder is available as ``tl.derivations.<name>``.
"""

import importlib
import pkgutil

from .core import _REGISTRY, Derivation, Step, all_derivations, expectation, register, standard_moments

for _module in pkgutil.iter_modules(__path__):
    if _module.name != "core":
        importlib.import_module(f"{__name__}.{_module.name}")

globals().update(_REGISTRY)  # tl.derivations.<builder name>
from .softmax import softmax_vector  # noqa: E402  (a helper, not a derivation)

__all__ = ["Derivation", "Step", "all_derivations", "expectation", "register", "softmax_vector", "standard_moments", *_REGISTRY]
