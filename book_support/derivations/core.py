"""The machinery behind every derivation in the book.

A :class:`Derivation` is a statement plus a sequence of :class:`Step` objects.
Each step is a claim about sympy expressions (or matrices) with a *kind* that
says what sympy checked, shown in the printed report:

``identity``
    ``lhs == rhs`` for every value of its symbols (under the symbols' sympy
    assumptions, listed in the label: ``c > 0``, ``n integer > 0``): sympy
    reduces ``lhs - rhs`` to exactly 0.
``identity for <sizes>``
    the same, proved for the stated sizes only ("n = 3", "D = 2"): the
    symbols are symbolic, the shapes are not.
``inequality``
    ``lhs > rhs`` (or ``>=``, ``<``, ``<=``) for every value of its symbols
    under the listed assumptions (``z1..z3 real``): sympy's assumption system
    proves the sign of ``lhs - rhs`` after ``together``/``factor``/``simplify``.
``limit``
    sympy computes the limit (Gruntz's algorithm) and it equals ``rhs``.
``exact arithmetic``
    numbers only (no free symbols): a formula evaluated at stated sizes gives
    the stated number exactly, in rationals.
``numerical check``
    ``lhs == rhs`` at sampled values only, to a tolerance: evidence, not a proof.

A definition is not a step: definitions are not claims. A step whose two
sides are the same expression before simplification proves nothing and is
rejected by the tests (:meth:`Step.problems`); so is a step that names a
variable (``variables``: it differentiates, takes a limit or substitutes in
it) that does not occur in the expression it acts on.

``check()`` is True only when every step holds, so a derivation with one wrong
step fails. Each step is checked once and its result kept.

Derivations are built by functions registered with :func:`register`; tests
check every registered one (``all_derivations()``).
"""

from __future__ import annotations

import re
import textwrap
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

import sympy as sp

IDENTITY = "identity"
SIZES = "identity for sizes"
INEQUALITY = "inequality"
LIMIT = "limit"
ARITHMETIC = "exact arithmetic"
NUMERICAL = "numerical check"
KINDS = (IDENTITY, SIZES, INEQUALITY, LIMIT, ARITHMETIC, NUMERICAL)
RELATIONS = ("==", ">", ">=", "<", "<=")
_NEGATION = {">": "<=", ">=": "<", "<": ">=", "<=": ">", "==": "=="}

#: width of a printed report line: the book's column is narrow
REPORT_WIDTH = 90

#: a sign or bound stated in a claim's text: "x > 0", "s_1 < 1", "0 < s_1" (not "->")
_SIGN = re.compile(r"(?:([\w^()]+)\s*)?(?<!-)(>=|<=|>|<)\s*([01])\b(?!\.)|\b0\s*(<|<=)\s*([\w^]+)")


def _is_matrix(value: object) -> bool:
    return isinstance(value, sp.MatrixBase)


def _sympify(value: Any) -> Any:
    return value if _is_matrix(value) else sp.sympify(value)


def _free_symbols(*values: object) -> set[sp.Symbol]:
    symbols: set[sp.Symbol] = set()
    for value in values:
        if value is None:
            continue
        value = _sympify(value)
        symbols |= value.free_symbols
    return symbols


def _entries(value: Any) -> list[sp.Expr]:
    return list(value) if _is_matrix(value) else [value]


_UNEVALUATED = (sp.Limit, sp.Sum, sp.Derivative)


def _evaluate(value: Any) -> Any:
    """Carry out unevaluated limits, sums and derivatives (kept unevaluated until the check)."""
    if _is_matrix(value):
        return value.applyfunc(lambda entry: entry.doit() if entry.has(*_UNEVALUATED) else entry)
    return value.doit() if isinstance(value, sp.Basic) and value.has(*_UNEVALUATED) else value


def _is_zero(difference: sp.Expr) -> bool:
    if difference == 0:
        return True
    # simplify() is a heuristic; expand() catches polynomial identities it leaves unsorted
    return sp.simplify(difference) == 0 or sp.expand(difference) == 0


def _sign_proved(difference: sp.Expr, strict: bool) -> bool:
    """True when sympy's assumptions prove difference > 0 (strict) or >= 0."""
    forms = (difference, lambda: sp.together(difference), lambda: sp.factor(difference), lambda: sp.simplify(difference))
    for form in forms:
        expr = form() if callable(form) else form
        if (expr.is_positive if strict else expr.is_nonnegative) is True:
            return True
    return False


def _compress(names: list[str]) -> str:
    """'z1, z2, z3' -> 'z1..z3': runs of three or more names that differ only in trailing digits."""
    groups: dict[str, list[str]] = {}
    for name in sorted(names, key=lambda n: (re.sub(r"\d+$", "", n), len(n), n)):
        groups.setdefault(re.sub(r"\d+$", "", name), []).append(name)
    parts = []
    for members in groups.values():
        parts.append(f"{members[0]}..{members[-1]}" if len(members) >= 3 else ", ".join(members))
    return ", ".join(parts)


def assumptions_text(symbols: set[sp.Symbol], include_real: bool) -> str:
    """The sympy assumptions of ``symbols`` in words: 'c, tau > 0; n integer > 0; z1..z3 real'."""
    classes: dict[str, list[str]] = {}
    for symbol in symbols:
        if not isinstance(symbol, sp.Symbol):
            continue
        integer = " integer" if symbol.is_integer else ""
        if symbol.is_positive:
            key = f"{integer} > 0"
        elif symbol.is_nonnegative:
            key = f"{integer} >= 0"
        elif symbol.is_negative:
            key = f"{integer} < 0"
        elif symbol.is_integer:
            key = " integer"
        elif symbol.is_real and include_real:
            key = " real"
        elif include_real and symbol.is_real is None:
            key = " complex"
        else:
            continue
        classes.setdefault(key, []).append(symbol.name)
    order = [" > 0", " integer > 0", " >= 0", " integer >= 0", " < 0", " integer < 0", " integer", " real", " complex"]
    return "; ".join(_compress(classes[key]) + key for key in order if key in classes)


@dataclass(frozen=True)
class Step:
    """One claim ``lhs <relation> rhs`` with a sentence saying what it shows and a kind saying how it is checked.

    Args:
        claim: the sentence printed in the report.
        lhs, rhs: sympy expressions or matrices (matrices compare entry by entry).
        kind: one of :data:`KINDS` (see the module docstring). Prefer the
            constructors :meth:`identity`, :meth:`for_sizes`, :meth:`computed`,
            :meth:`inequality`, :meth:`limit`, :meth:`value`, :meth:`numerical`.
        relation: ``"=="`` except for inequalities.
        sizes: for ``identity for sizes``: the sizes it was proved for, e.g. ``"n = 2"``.
        variables: symbols the claim differentiates in, takes a limit in or
            substitutes for; each must occur in ``operand`` (default: ``lhs``).
        operand: the expression those variables act on (before differentiating, say).
        samples: for ``numerical check``: the points (dicts symbol -> number) it is evaluated at.
    """

    claim: str
    lhs: object
    rhs: object
    kind: str = IDENTITY
    relation: str = "=="
    sizes: str = ""
    variables: tuple = ()
    operand: object = None
    samples: tuple = ()
    tolerance: float = 1e-9

    # ---- constructors --------------------------------------------------------

    @classmethod
    def identity(cls, claim: str, lhs: object, rhs: object, *, variables: Sequence = (), operand: object = None) -> Step:
        """``lhs == rhs`` for every value of the symbols (under their assumptions)."""
        return cls(claim, lhs, rhs, IDENTITY, variables=tuple(variables), operand=operand)

    @classmethod
    def for_sizes(
        cls, claim: str, lhs: object, rhs: object, sizes: str, *, variables: Sequence = (), operand: object = None
    ) -> Step:
        """``lhs == rhs`` proved symbolically for the stated sizes only (``sizes``: e.g. ``"n = 3"``)."""
        return cls(claim, lhs, rhs, SIZES, sizes=sizes, variables=tuple(variables), operand=operand)

    @classmethod
    def inequality(cls, claim: str, lhs: object, relation: str, rhs: object) -> Step:
        """``lhs <relation> rhs`` proved for every value of the symbols under their assumptions."""
        return cls(claim, lhs, rhs, INEQUALITY, relation=relation)

    @classmethod
    def limit(cls, claim: str, expr: object, variable: sp.Symbol, point: object, value: object, direction: str = "+") -> Step:
        """lim_{variable -> point} expr == value, computed by sympy when the step is checked."""

        def unevaluated(entry: sp.Expr) -> sp.Expr:
            return sp.Limit(entry, variable, point, direction)

        lhs = _sympify(expr).applyfunc(unevaluated) if _is_matrix(expr) else unevaluated(sp.sympify(expr))
        return cls(claim, lhs, value, LIMIT, variables=(variable,), operand=expr)

    @classmethod
    def value(cls, claim: str, formula: object, values: Mapping, number: object) -> Step:
        """Exact arithmetic: ``formula`` evaluated at ``values`` (symbol -> number) equals ``number``."""
        values = {sp.sympify(k): sp.sympify(v) for k, v in values.items()}
        lhs = _sympify(formula).subs(values)
        return cls(claim, lhs, number, ARITHMETIC, variables=tuple(values), operand=formula)

    @classmethod
    def computed(cls, claim: str, lhs: object, rhs: object, *, variables: Sequence, operand: object, sizes: str = "") -> Step:
        """An identity whose ``lhs`` is a computation (a derivative, an expectation, a solution...) on ``operand``.

        ``variables`` are the symbols the computation acts on (differentiated in,
        averaged over, solved for); each must occur in ``operand``, and ``operand``
        must differ from ``rhs``. With ``sizes`` the identity holds for those sizes only.
        """
        kind = SIZES if sizes else IDENTITY
        return cls(claim, lhs, rhs, kind, sizes=sizes, variables=tuple(variables), operand=operand)

    @classmethod
    def numerical(cls, claim: str, lhs: object, rhs: object, samples: Sequence[Mapping], tolerance: float = 1e-9) -> Step:
        """``lhs == rhs`` at the sampled points only (evidence, not a proof)."""
        return cls(claim, lhs, rhs, NUMERICAL, samples=tuple(dict(s) for s in samples), tolerance=tolerance)

    # ---- checking ------------------------------------------------------------

    def holds(self) -> bool:
        """True when sympy proves the claim (see the kinds); computed once and kept."""
        cached = self.__dict__.get("_holds")
        if cached is None:
            cached = self._holds()
            object.__setattr__(self, "_holds", cached)
        return cached

    def _holds(self) -> bool:
        if self.kind not in KINDS or self.relation not in RELATIONS:
            return False
        lhs, rhs = _sympify(self.lhs), _sympify(self.rhs)
        if _is_matrix(lhs) or _is_matrix(rhs):
            if not (_is_matrix(lhs) and _is_matrix(rhs)) or lhs.shape != rhs.shape:
                return False
        lhs, rhs = _evaluate(lhs), _evaluate(rhs)
        pairs = list(zip(_entries(lhs), _entries(rhs), strict=True))
        if self.kind == NUMERICAL:
            return bool(self.samples) and all(self._close(a, b, point) for point in self.samples for a, b in pairs)
        if self.relation == "==":
            return all(_is_zero(a - b) for a, b in pairs)
        if self.relation in (">", ">="):
            return all(_sign_proved(a - b, self.relation == ">") for a, b in pairs)
        return all(_sign_proved(b - a, self.relation == "<") for a, b in pairs)

    def _close(self, a: sp.Expr, b: sp.Expr, point: Mapping) -> bool:
        left, right = complex(sp.N(a.subs(point))), complex(sp.N(b.subs(point)))
        if self.relation == "==":
            return abs(left - right) <= self.tolerance * max(1.0, abs(right))
        if left.imag or right.imag:
            return False
        return {
            ">": left.real > right.real,
            ">=": left.real >= right.real,
            "<": left.real < right.real,
            "<=": left.real <= right.real,
        }[self.relation]

    # ---- what the tests inspect ----------------------------------------------

    def problems(self) -> list[str]:
        """Why this step could not fail or is mislabelled (empty when it is honest).

        * the two sides are the same expression before any simplification;
        * a variable it acts on does not occur in its operand;
        * the kind does not match the expression (symbols in an arithmetic
          step, no symbols in an identity, no sizes for a sized identity, ...).
        """
        found = []
        if self.kind not in KINDS:
            found.append(f"unknown kind {self.kind!r}")
        # a computed step (derivative, limit, expectation, evaluation) compares its operand with rhs
        left, rhs = _sympify(self.lhs if self.operand is None else self.operand), _sympify(self.rhs)
        if _is_matrix(left) == _is_matrix(rhs) and left == rhs:
            found.append("both sides are the same expression before simplification")
        if self.operand is not None and not self.variables:
            found.append("an operand without the variables the step acts on")
        operand = self.operand if self.operand is not None else self.lhs
        missing = [str(v) for v in self.variables if v not in _free_symbols(operand)]
        if missing:
            found.append(f"acts on {', '.join(missing)}, which does not occur in its expression")
        symbols = _free_symbols(self.lhs, self.rhs, self.operand)
        if self.kind == ARITHMETIC:
            if self.operand is None:
                found.append("an arithmetic step must name its formula and values (Step.value)")
            if _free_symbols(self.lhs, self.rhs):
                found.append(f"arithmetic step with free symbols {sorted(map(str, _free_symbols(self.lhs, self.rhs)))}")
        if self.kind in (IDENTITY, SIZES) and not symbols:
            found.append("an identity without symbols is arithmetic")
        if self.kind == SIZES and not self.sizes:
            found.append("identity for sizes without the sizes")
        if (self.kind == INEQUALITY) != (self.relation != "=="):
            found.append(f"kind {self.kind!r} with relation {self.relation!r}")
        if self.kind == NUMERICAL and not self.samples:
            found.append("numerical check without samples")
        unchecked = self.unchecked_signs()
        if unchecked:
            found.append(f"states a sign or bound it does not check: {unchecked} (use Step.inequality, or say 'not checked')")
        return found

    def unchecked_signs(self) -> list[str]:
        """Signs and bounds in the claim's text ("s_1 > 0", "0 < s_1 < 1") that this step does not check.

        An inequality step checks its own; "x > 0" where x is a symbol of the step declared positive
        (nonnegative, negative) states an assumption; a claim that says "not checked" is honest about it.
        """
        if self.kind == INEQUALITY or "not checked" in self.claim:
            return []
        symbols = {str(s): s for s in _free_symbols(self.lhs, self.rhs, self.operand)}
        found = []
        for match in _SIGN.finditer(self.claim):
            symbol = symbols.get((match.group(1) or match.group(5) or "").strip("()"))
            if symbol is not None and (symbol.is_positive or symbol.is_nonnegative or symbol.is_negative):
                continue
            found.append(match.group(0))
        return found

    def perturbed(self) -> Step:
        """A version of this step that is false: rhs + 1 for equalities, the negated relation for inequalities."""
        if self.kind == INEQUALITY:
            return replace(self, relation=_NEGATION[self.relation])
        rhs = _sympify(self.rhs)
        if _is_matrix(rhs):
            rhs = sp.Matrix(rhs)
            rhs[0] = rhs[0] + 1
        elif rhs.is_infinite:
            rhs = sp.Integer(0)
        else:
            rhs = rhs + 1
        return replace(self, rhs=rhs)

    def label(self) -> str:
        """The kind in words, with the assumptions it rests on."""
        symbols = _free_symbols(self.lhs, self.rhs, self.operand)
        if self.kind == INEQUALITY:
            where = assumptions_text(symbols, include_real=True)
            return f"inequality ({where})" if where else "inequality"
        if self.kind == NUMERICAL:
            return f"numerical check at {len(self.samples)} point{'s' if len(self.samples) != 1 else ''}"
        if self.kind in (ARITHMETIC, LIMIT):
            return self.kind
        where = assumptions_text(symbols, include_real=False)
        head = f"identity for {self.sizes}" if self.kind == SIZES else "identity"
        return f"{head} ({where})" if where else head


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

    def summary(self) -> str:
        """Whether every step holds, and for what: all values, stated sizes only, or sampled points.

        A derivation whose steps are checked at stated sizes is not a proof for every size; the
        summary says so, so that a page never prints "proved" for an instance check.

        Examples:
            >>> x = sp.Symbol("x", positive=True)
            >>> Derivation("d", "x + x = 2x", "-", (Step.identity("doubling", x + x, 2 * x),)).summary()
            'every step holds: True (1 for all values)'
        """
        groups = (
            ((IDENTITY, INEQUALITY, LIMIT), "for all values"),
            ((SIZES,), "at stated sizes only"),
            ((ARITHMETIC,), "in exact arithmetic"),
            ((NUMERICAL,), "at sampled points only (not a proof)"),
        )
        parts = [f"{n} {scope}" for kinds, scope in groups if (n := sum(step.kind in kinds for step in self.steps))]
        text = f"every step holds: {self.check()} ({', '.join(parts)})"
        return "\n".join(textwrap.wrap(text, REPORT_WIDTH, subsequent_indent="    "))

    def report(self, width: int = REPORT_WIDTH) -> str:
        """The statement, then one line per step: number, kind (or FAILS and the kind), claim; wrapped to ``width``."""

        def wrap(text: str, indent: str) -> list[str]:
            return textwrap.wrap(text, width, subsequent_indent=indent, break_long_words=False, break_on_hyphens=False)

        lines = wrap(f"{self.name}: {self.statement}", "    ") + wrap(f"  [{self.reference}]", "   ")
        for number, step in enumerate(self.steps, start=1):
            mark = "" if step.holds() else "FAILS "
            lines += wrap(f"  {number}. {mark}{step.label()}: {step.claim}", "       ")
        return "\n".join(lines)


_REGISTRY: dict[str, Callable[[], Derivation]] = {}


def register(builder: Callable[[], Derivation]) -> Callable[[], Derivation]:
    """Decorator: add a zero-argument derivation builder to the registry."""
    _REGISTRY[builder.__name__] = builder
    return builder


def derivation_names() -> list[str]:
    """The names of every registered derivation, without building any."""
    return sorted(_REGISTRY)


def all_derivations() -> dict[str, Derivation]:
    """Every registered derivation, built, by builder name."""
    return {name: builder() for name, builder in _REGISTRY.items()}


# --------------------------------------------------------------------------
# Shared sympy helpers
# --------------------------------------------------------------------------


def symbol_matrix(name: str, rows: int, cols: int, start: int = 1, **assumptions: bool) -> sp.Matrix:
    """A rows x cols matrix of symbols name_ij (indices from ``start``); real unless other assumptions are given."""
    assumptions = assumptions or {"real": True}
    return sp.Matrix(rows, cols, lambda i, j: sp.Symbol(f"{name}_{i + start}{j + start}", **assumptions))


def symbol_vector(name: str, size: int, start: int = 1, separator: str = "", **assumptions: bool) -> sp.Matrix:
    """A column of symbols name1 .. name<size> (``separator`` between name and index); real by default."""
    assumptions = assumptions or {"real": True}
    return sp.Matrix(size, 1, lambda i, _: sp.Symbol(f"{name}{separator}{i + start}", **assumptions))


def softmax_vector(z: sp.Matrix) -> sp.Matrix:
    """softmax(z)_i = exp(z_i) / sum_j exp(z_j), for a sympy column (or row) vector."""
    exps = z.applyfunc(sp.exp)
    return exps / sum(exps)


def softmax_rows(z: sp.Matrix) -> sp.Matrix:
    """softmax applied to each row of z."""
    return sp.Matrix.vstack(*[softmax_vector(z[i, :]) for i in range(z.rows)])


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


def multiply_adds(product: sp.Matrix) -> int:
    """Multiply-adds in a symbolic matrix product: the terms of every entry, added up."""
    return sum(len(sp.Add.make_args(sp.expand(entry))) for entry in product)


def matrix_gradient(loss: sp.Expr, m: sp.Matrix) -> sp.Matrix:
    """dloss/dm, a matrix of m's shape."""
    return m.applyfunc(lambda entry: sp.diff(loss, entry))


def pairing(upstream: sp.Matrix, value: sp.Matrix) -> sp.Matrix | sp.Expr:
    """sum_ij upstream_ij value_ij: a loss whose gradient with respect to ``value`` is ``upstream``.

    Any loss has this form to first order, so a backward rule proved for it
    holds for every loss: the upstream gradient enters only through these symbols.
    """
    return sum(u * v for u, v in zip(upstream, value, strict=True))
