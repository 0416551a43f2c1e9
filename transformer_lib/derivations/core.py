"""The machinery behind every derivation in the book.

A :class:`Derivation` is a statement plus a sequence of :class:`Step` objects.
Each step claims ``lhs == rhs`` for sympy expressions (or matrices); the step
holds only when sympy simplifies ``lhs - rhs`` to exactly zero. ``check()`` is
True only when every step holds, so a derivation with one wrong step fails.

Derivations are built by functions registered with :func:`register`; tests
check every registered one (``all_derivations()``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

import sympy as sp


@dataclass(frozen=True)
class Step:
    """One claimed identity ``lhs == rhs`` with a sentence saying why it holds."""

    claim: str
    lhs: object
    rhs: object

    def holds(self) -> bool:
        """True when sympy proves ``lhs - rhs == 0`` (element-wise for matrices)."""
        lhs, rhs = sp.sympify(self.lhs), sp.sympify(self.rhs)
        if isinstance(lhs, sp.MatrixBase) or isinstance(rhs, sp.MatrixBase):
            if not (isinstance(lhs, sp.MatrixBase) and isinstance(rhs, sp.MatrixBase)) or lhs.shape != rhs.shape:
                return False
            return all(sp.simplify(entry) == 0 for entry in (lhs - rhs))
        difference = lhs - rhs
        # simplify() is a heuristic; expand() catches polynomial identities it leaves unsorted
        return sp.simplify(difference) == 0 or sp.expand(difference) == 0


@dataclass(frozen=True)
class Derivation:
    """A statement and the steps that prove it."""

    name: str
    statement: str
    reference: str
    steps: tuple[Step, ...]

    def check(self) -> bool:
        """True only when every step holds."""
        return all(step.holds() for step in self.steps)

    def report(self) -> str:
        """One line per step, marked 'ok' or 'FAILS', for printing in a chapter."""
        lines = [f"{self.name}: {self.statement}  [{self.reference}]"]
        for number, step in enumerate(self.steps, start=1):
            mark = "ok   " if step.holds() else "FAILS"
            lines.append(f"  {mark} step {number}: {step.claim}")
        return "\n".join(lines)


_REGISTRY: dict[str, Callable[[], Derivation]] = {}


def register(builder: Callable[[], Derivation]) -> Callable[[], Derivation]:
    """Decorator: add a zero-argument derivation builder to the registry."""
    _REGISTRY[builder.__name__] = builder
    return builder


def all_derivations() -> dict[str, Derivation]:
    """Every registered derivation, built, by builder name."""
    return {name: builder() for name, builder in _REGISTRY.items()}


def expectation(expr: sp.Expr, moments: Mapping[sp.Symbol, Callable[[int], sp.Expr]]) -> sp.Expr:
    """E[expr] for a polynomial in mutually independent random variables.

    ``moments[x](n)`` is E[x^n]. Independence is what lets the expectation of a
    monomial factor into a product of single-variable moments; linearity does
    the rest. Symbols not in ``moments`` are treated as constants.
    """
    expr = sp.expand(sp.sympify(expr))
    variables = list(moments)
    total = sp.Integer(0)
    for term in sp.Add.make_args(expr):
        powers = term.as_powers_dict()
        factor = term
        for x in variables:
            n = int(powers.get(x, 0))
            if n:
                factor = factor / x**n * moments[x](n)
        total += factor
    return sp.expand(total)


def standard_moments(mean: sp.Expr, variance: sp.Expr, name: str) -> Callable[[int], sp.Expr]:
    """Moments of a variable with the given mean and variance; higher moments stay symbolic."""

    def moment(n: int) -> sp.Expr:
        if n == 0:
            return sp.Integer(1)
        if n == 1:
            return mean
        if n == 2:
            return variance + mean**2
        return sp.Symbol(f"m_{n}({name})")

    return moment


def symbol_matrix(name: str, rows: int, cols: int) -> sp.Matrix:
    """A rows x cols matrix of real symbols name_ij (1-based), for matrix-calculus derivations."""
    return sp.Matrix(rows, cols, lambda i, j: sp.Symbol(f"{name}_{i + 1}{j + 1}", real=True))


def matrix_gradient(loss: sp.Expr, m: sp.Matrix) -> sp.Matrix:
    """dloss/dm, a matrix of m's shape."""
    return m.applyfunc(lambda entry: sp.diff(loss, entry))


def pairing(upstream: sp.Matrix, value: sp.Matrix) -> sp.Expr:
    """sum_ij upstream_ij value_ij: a loss whose gradient with respect to ``value`` is ``upstream``.

    Any loss has this form to first order, so a backward rule proved for it
    holds for every loss: the upstream gradient enters only through these symbols.
    """
    return sum(u * v for u, v in zip(upstream, value, strict=True))
