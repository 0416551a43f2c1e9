"""Checking a source's claims: the value claimed, the value computed, a stated rule, a computed verdict.

The book audits its sources, and a verdict typed next to a number ("agrees")
keeps saying "agrees" when the number changes. Here a verdict is always the
result of a rule applied to values, so if a re-run changes the value, the
printed verdict changes with it and nbval notices.

Rules (each has a ``describe`` text that the table prints):

* :func:`close` — ``|computed − claimed| <= abs + rel·|claimed|``;
* :func:`rounds_to` — the claimed number is the computed one rounded to ``digits`` decimals;
* :func:`equal` — exact equality (ints, strings, tuples of shapes);
* :func:`at_least`, :func:`at_most`, :func:`between` — a bound on the computed value
  (the claim is a statement such as "more than 5x faster");
* :func:`holds` — the computed value is a boolean test of the claim.

Rounding noise (a residual such as the largest ``|row sum − 1|`` of float64 softmax weights,
one or two units in the last place) has digits that depend on the CPU's kernels: pass it as
``computed=below(value, bound)``, which the rules test as the number it is and the table prints
as the bound it lies below (``< 1e-15``), never as its digits.

Verdicts (the words the book prints, each a constant of this module, all of them in :data:`VERDICTS`;
:mod:`book_support.worked_examples` uses these and no others):

* ``agrees`` — the rule holds;
* ``agrees by construction`` — the rule holds, but only because the computed value was
  fitted to the source (``by_construction=True``): no evidence either way;
* ``wrong`` — the rule fails;
* ``cannot tell`` — a claim that an effect is absent (:meth:`Audit.absent`) whose interval
  neither lies inside the stated margin nor excludes zero: the runs decide neither way;
* ``inherited`` — the rule fails against the correct value, but the claimed value is
  what the source's own earlier (wrong) numbers give (``from_source=...``): the
  step is right, its input was not;
* ``assumed`` — the source states the value as an assumption, knowingly (a reason is given);
* ``unsourced`` — the source gives the value with no derivation or citation (a reason is given);
* ``not derivable`` — nothing in the source lets the value be recomputed (a reason is given);
* ``supported by citation`` / ``contradicted by citation`` — not computed: a paper was read, and the
  ledger says what was read, where. These never print as ``agrees`` or ``wrong``.

Every claim an :class:`Audit` judges is a record of the ledger (:mod:`book_support.ledger`): the
page passes the record's id and, for a computed claim, the computed value; the paraphrase, the claimed
value, the rule and its tolerance come from the record, the same on every page.

Example::

    audit = bk.claims.Audit("Document 000, section 2")
    audit.check("000-dk-512", computed=config.d_head)   # the record states claimed=512, rule=equal()
    audit.check("004-cosine-papers")                    # a cited or stated record: nothing to compute
    print(audit)            # one block per claim, each with its id, rule and verdict
    audit.counts()          # {"wrong": 1, "unsourced": 1}

Book: every chapter's "What the sources say, checked" section, ch-numbers and the errata appendix.
"""

from __future__ import annotations

import math
import numbers
import textwrap
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from transformer_lib._checks import check_nonnegative_int

from . import ledger_store
from .notebook import rounded_down, rounded_up

__all__ = [
    "AGREES",
    "AGREES_BY_CONSTRUCTION",
    "ASSUMED",
    "CANNOT_TELL",
    "CONTRADICTED",
    "INHERITED",
    "NOT_DERIVABLE",
    "SUPPORTED",
    "UNSOURCED",
    "VERDICTS",
    "WRONG",
    "Audit",
    "Below",
    "ClaimResult",
    "Rule",
    "at_least",
    "at_most",
    "below",
    "between",
    "close",
    "equal",
    "holds",
    "rounds_to",
    "verdict",
]

# The verdict words: the book's only vocabulary for the outcome of a claim (see the module docstring).
AGREES = "agrees"
AGREES_BY_CONSTRUCTION = "agrees by construction"
WRONG = "wrong"
CANNOT_TELL = "cannot tell"
INHERITED = "inherited"
SUPPORTED = "supported by citation"
CONTRADICTED = "contradicted by citation"
ASSUMED = "assumed"
UNSOURCED = "unsourced"
NOT_DERIVABLE = "not derivable"
VERDICTS = (
    AGREES, AGREES_BY_CONSTRUCTION, WRONG, CANNOT_TELL, INHERITED, SUPPORTED, CONTRADICTED, ASSUMED, UNSOURCED, NOT_DERIVABLE
)  # fmt: skip


@dataclass(frozen=True)
class Rule:
    """A test of a claimed value against a computed one, with the sentence the book prints for it.

    ``test(claimed, computed) -> bool``; ``describe`` is e.g. ``"|Δ| <= 0.005"``.
    """

    describe: str
    test: Callable[[Any, Any], bool]

    def __call__(self, claimed: Any, computed: Any) -> bool:
        return bool(self.test(claimed, computed))


def _number(name: str, value: Any) -> float:
    if hasattr(value, "item") and not isinstance(value, (int, float)):
        value = value.item()  # a 0-d tensor or NumPy scalar
    if isinstance(value, numbers.Real) and not isinstance(value, (bool, int, float)):
        value = float(value)  # a fractions.Fraction, a sympy Integer or Rational (a degree, an exact ratio)
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise TypeError(f"{name} must be a real number for this rule, got {type(value).__name__} ({value!r})")
    return float(value)


def close(*, rel: float = 0.0, abs: float = 0.0) -> Rule:
    """Agree when ``|computed − claimed| <= abs + rel·|claimed|``."""
    if not (rel >= 0 and abs >= 0) or (rel == 0 and abs == 0):
        raise ValueError(f"close needs rel >= 0 and abs >= 0, not both 0, got rel={rel!r}, abs={abs!r}")
    parts = ([f"{abs:g}"] if abs else []) + ([f"{rel:g}·|claimed|"] if rel else [])

    def test(claimed: Any, computed: Any) -> bool:
        a, b = _number("claimed", claimed), _number("computed", computed)
        return math.isfinite(b) and math.fabs(b - a) <= abs + rel * math.fabs(a)

    return Rule(f"|Δ| <= {' + '.join(parts)}", test)


def rounds_to(digits: int) -> Rule:
    """Agree when the computed value, rounded to ``digits`` decimals, is the claimed one."""
    check_nonnegative_int("digits", digits)

    def test(claimed: Any, computed: Any) -> bool:
        a, b = _number("claimed", claimed), _number("computed", computed)
        # compare at one more digit than printed, so that 0.1 + 0.2 style noise does not decide
        return math.isfinite(b) and round(round(b, digits) - a, digits + 1) == 0

    return Rule(f"rounds to {digits} d.p.", test)


def equal() -> Rule:
    """Agree when ``computed == claimed`` exactly (counts, shapes, names)."""
    return Rule("equal", lambda claimed, computed: claimed == computed)


def at_least(bound: float) -> Rule:
    """Agree when ``computed >= bound`` (the claim is a statement, e.g. "at least 5x faster")."""
    b = _number("bound", bound)
    return Rule(f">= {b:g}", lambda claimed, computed: _number("computed", computed) >= b)


def at_most(bound: float) -> Rule:
    """Agree when ``computed <= bound``."""
    b = _number("bound", bound)
    return Rule(f"<= {b:g}", lambda claimed, computed: _number("computed", computed) <= b)


def between(low: float, high: float) -> Rule:
    """Agree when ``low <= computed <= high``."""
    lo, hi = _number("low", low), _number("high", high)
    if lo > hi:
        raise ValueError(f"between needs low <= high, got low={low!r}, high={high!r}")
    return Rule(f"in [{lo:g}, {hi:g}]", lambda claimed, computed: lo <= _number("computed", computed) <= hi)


def holds() -> Rule:
    """Agree when the computed value (a boolean test of the claim, computed in the chapter) is True."""

    def test(claimed: Any, computed: Any) -> bool:
        if hasattr(computed, "item") and not isinstance(computed, bool):
            computed = computed.item()
        if not isinstance(computed, bool):
            raise TypeError(f"computed must be a bool for holds(), got {type(computed).__name__} ({computed!r})")
        return computed

    return Rule("test is True", test)


class Below(float):
    """A number whose digits are rounding noise, shown as the bound it lies below (made by :func:`below`).

    It is the float it wraps for every rule; only the table prints it differently: ``< bound`` while
    ``|value| < bound``, and its digits with "not below" once it is not (nbval then sees the change).
    """

    bound: float

    def __new__(cls, value: float, bound: float) -> Below:
        number = super().__new__(cls, value)
        number.bound = bound
        return number

    def shown(self) -> str:
        if math.fabs(self) < self.bound:
            return f"< {self.bound:g}"
        return f"{float(self):.3e}, not below {self.bound:g}"


def below(value: Any, bound: float) -> Below:
    """``value`` (a float, or a 0-d tensor or array) as rounding noise that the table shows as ``< bound``.

    Use it for residuals of a few units in the last place, whose digits differ between CPUs (another
    order of a vectorised sum, another vendor's matrix kernels), with a bound chosen well above what
    such residuals reach. For the row sums of float64 softmax weights over a handful of keys, ``1e-15``:
    the largest |row sum - 1| seen over about 10^8 random rows of 7 scores, several summation orders and
    ATen kernel levels was 6.7e-16 (a margin of 1.5), while a worst-case rounding analysis allows about
    1.6e-15. The bound is observed, not proved; a value above it prints its digits, so nbval notices.
    """
    number = _number("value", value)
    b = _number("bound", bound)
    if not (math.isfinite(b) and b > 0):
        raise ValueError(f"bound must be a finite number > 0, got {bound!r}")
    return Below(number, b)


def verdict(claimed: Any, computed: Any, rule: Rule, *, from_source: Any = None, by_construction: bool = False) -> str:
    """The verdict word for one claim (see the module docstring for the words).

    ``from_source``: the value recomputed from the source's own earlier numbers; a
    claim that fails against ``computed`` but passes against it is ``inherited``.
    """
    if not isinstance(rule, Rule):
        raise TypeError(f"rule must be a bk.claims.Rule (close, rounds_to, equal, ...), got {type(rule).__name__}")
    if rule(claimed, computed):
        return AGREES_BY_CONSTRUCTION if by_construction else AGREES
    if from_source is not None and rule(claimed, from_source):
        return INHERITED
    return WRONG


def _show(value: Any, digits: int) -> str:
    if value is None:
        return "-"
    if isinstance(value, Below):
        return value.shown()
    if hasattr(value, "item") and not isinstance(value, (int, float, str, bool)):
        try:
            value = value.item()
        except (ValueError, RuntimeError):
            pass
    if isinstance(value, float):
        if value != 0 and (math.fabs(value) < 10 ** (-digits) or math.fabs(value) >= 1e9):
            return f"{value:.{max(digits - 1, 1)}e}"  # a small or huge number keeps its significant digits
        text = f"{round(value, digits) + 0.0:.{digits}f}"  # + 0.0: never "-0.0"
        return text.rstrip("0").rstrip(".") if "." in text else text
    return str(value)


@dataclass(frozen=True)
class ClaimResult:
    """One audited claim: where it is, what it says, the values, the rule and the verdict."""

    source: str
    claim: str
    claimed: Any
    computed: Any
    rule: str
    verdict: str
    note: str = ""
    id: str = ""  # the ledger record's id ("" for a worked example's number)
    recorded: str = ""  # the verdict the ledger records for it


BLOCK_INDENT = 4  # an audit block's verdict line starts at column 4, where a 400 px screen shows it


@dataclass
class Audit:
    """A list of audited claims that prints as narrow blocks and counts its verdicts.

    ``str(audit)`` prints one block per claim (it fits a book column);
    :meth:`counts` tallies the verdicts; :meth:`rows` gives the results for a
    custom table; ``audit.where("wrong")`` lists the claims with that verdict.
    """

    title: str = ""
    digits: int = 4
    results: list[ClaimResult] = field(default_factory=list)

    def check(
        self,
        id: str,
        *,
        computed: Any = None,
        effect: Any = None,
        claimed: Any = None,
        from_source: Any = None,
        note: str = "",
    ) -> str:
        """Judge the ledger's record ``id`` on this page; returns the verdict.

        A computed record needs ``computed`` (the value its ``measure`` names); an absent-effect record
        needs ``effect`` (with ``low``, ``high`` and ``mean``: :func:`bk.stats.paired_difference`, for
        instance) and may pass ``computed`` as the text to show; a cited or stated record takes neither.
        ``claimed`` only where the record's claimed value is ``AT_CALL`` (stated for the page's sizes);
        ``from_source``: the value the source's own earlier numbers give (``inherited``); ``note``:
        the page's comment, printed under the verdict.
        """
        record = ledger_store.get(id)
        if record.kind == "computed" and record.rule is not None:
            if computed is None or effect is not None:
                raise TypeError(f"record {id!r} is judged by computation: pass computed= (the {record.measure}), not effect=")
            if record.claimed is ledger_store.AT_CALL:
                if claimed is None:
                    raise TypeError(f"record {id!r} states its claimed value for the page's sizes: pass claimed=")
            elif claimed is not None:
                raise TypeError(f"record {id!r} states its claimed value ({record.claimed!r}): the page must not pass claimed=")
            else:
                claimed = record.claimed
            word = verdict(claimed, computed, record.rule, from_source=from_source, by_construction=record.by_construction)
            rule = record.rule.describe
        elif record.kind == "absent" and record.margin is not None:
            if effect is None:
                raise TypeError(f"record {id!r} is a claim that an effect is absent: pass effect= (its 95 % interval)")
            low, high, margin = float(effect.low), float(effect.high), record.margin
            word = AGREES if -margin < low and high < margin else WRONG if low > 0 or high < 0 else CANNOT_TELL
            rule = f"95 % interval inside ±{margin:g}: {AGREES}; excludes 0: {WRONG}; else {CANNOT_TELL}"
            if computed is None:  # the interval's ends rounded outward, so the printed interval contains it
                computed = f"{float(effect.mean):+.2f} [{rounded_down(low, 2):+.2f}, {rounded_up(high, 2):+.2f}]"
            claimed = record.claimed
        elif record.kind in ("cited", UNSOURCED, ASSUMED, NOT_DERIVABLE):
            if computed is not None or effect is not None or from_source is not None:
                raise TypeError(f"record {id!r} is {record.kind}: it is not computed here, so pass no values")
            if (claimed is not None) != (record.claimed is ledger_store.AT_CALL):
                raise TypeError(f"record {id!r}: pass claimed= exactly where the record's claimed value is AT_CALL")
            word = record.verdict
            rule = record.cited if record.kind == "cited" else record.reason
            claimed = claimed if claimed is not None else record.claimed
        else:  # pragma: no cover - the ledger makes no other kind
            raise ValueError(f"record {id!r} has kind {record.kind!r}, which Audit.check cannot judge")
        self.results.append(ClaimResult(record.where, record.text, claimed, computed, rule, word, note, id, record.verdict))
        return word

    def add(
        self,
        source: str,
        claim: str,
        *,
        computed: Any,
        rule: Rule,
        claimed: Any = None,
        from_source: Any = None,
        by_construction: bool = False,
        note: str = "",
        record: str = "",
    ) -> str:
        """Record a claim judged by its own rule (a worked example's printed number, whose record is
        :mod:`book_support.worked_examples`' data); returns its verdict.

        ``record``: the id of a ledger record that states the same number, when there is one; the block then
        prints the id and, if the verdicts differ, says so under it (a test compares them).
        """
        word = verdict(claimed, computed, rule, from_source=from_source, by_construction=by_construction)
        recorded = ""
        if record:
            recorded = ledger_store.get(record).verdict
        self.results.append(ClaimResult(source, claim, claimed, computed, rule.describe, word, note, record, recorded))
        return word

    def add_stated(self, word: str, source: str, claim: str, *, reason: str, claimed: Any = None) -> str:
        """Record a worked example's number as assumed or not derivable (``word``), with the reason."""
        if word not in (ASSUMED, NOT_DERIVABLE, UNSOURCED):
            raise ValueError(f"word must be one of {(ASSUMED, NOT_DERIVABLE, UNSOURCED)}, got {word!r}")
        if not isinstance(reason, str) or not reason.strip():
            raise ValueError(f"a claim marked {word!r} needs a reason (a non-empty string), got {reason!r}")
        self.results.append(ClaimResult(source, claim, claimed, None, reason, word))
        return word

    def counts(self) -> dict[str, int]:
        """Number of claims per verdict, in the order of :data:`VERDICTS` (zeros left out)."""
        tally = Counter(r.verdict for r in self.results)
        return {word: tally[word] for word in VERDICTS if tally[word]}

    def where(self, word: str) -> list[ClaimResult]:
        """The claims whose verdict is ``word``."""
        if word not in VERDICTS:
            raise ValueError(f"word must be one of {VERDICTS}, got {word!r}")
        return [r for r in self.results if r.verdict == word]

    def rows(self) -> list[list[str]]:
        """``[source, claim, claimed, computed, rule, verdict]`` as strings, one list per claim."""
        return [
            [r.source, r.claim, _show(r.claimed, self.digits), _show(r.computed, self.digits), r.rule, r.verdict]
            for r in self.results
        ]

    def format(self, width: int = 88) -> str:
        """One block per claim, its verdict first on the line under the claim (a phone shows it)::

        000 §2.2.3  the Transformer's d_k is 512
            wrong: claimed 512 · computed 64 · rule: equal

        Blocks wrap to ``width`` characters; the last line tallies the verdicts.
        """
        lines = [self.title] if self.title else []
        indent = " " * BLOCK_INDENT
        for row, result in zip(self.rows(), self.results, strict=True):
            source, claim, claimed, computed, rule, word = row
            head = f"{source} [{result.id}]  {claim}" if result.id else f"{source}  {claim}"
            lines.extend(textwrap.wrap(head, width, subsequent_indent=indent) or [source])
            if word in (SUPPORTED, CONTRADICTED):
                detail = ("claimed " + claimed + " · " if claimed != "-" else "") + "read: " + rule
            elif result.computed is None and word in (ASSUMED, UNSOURCED, NOT_DERIVABLE):
                detail = ("claimed " + claimed + " · " if claimed != "-" else "") + rule
            else:
                detail = "" if result.claimed is None else f"claimed {claimed} · "
                detail += f"computed {computed} · rule: {rule}"
            lines.extend(textwrap.wrap(f"{word}: {detail}", width, initial_indent=indent, subsequent_indent=indent + "  "))
            if result.note:
                lines.extend(textwrap.wrap(result.note, width, initial_indent=indent, subsequent_indent=indent))
            if result.id and result.recorded != word:
                mismatch = f"NOT THE LEDGER'S VERDICT: the ledger records {result.recorded!r} for this claim"
                lines.extend(textwrap.wrap(mismatch, width, initial_indent=indent, subsequent_indent=indent))
        counts = ", ".join(f"{n} {w}" for w, n in self.counts().items())
        lines.extend(textwrap.wrap(f"verdicts: {counts}" if counts else "verdicts: none", width, subsequent_indent="  "))
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.format()

    def __len__(self) -> int:
        return len(self.results)
