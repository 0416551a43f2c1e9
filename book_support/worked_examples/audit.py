"""An audit of a worked example: every printed number checked with :mod:`book_support.claims`, step by step.

A worked example is a chain of steps (embeddings -> positions -> Q/K/V -> scores -> ... -> loss
-> gradient -> update). Each printed quantity is recorded under its step with
:meth:`WorkedAudit.check` (the printed text, the correct value, and optionally the value that
the source's *own* printed input of that step gives), :meth:`WorkedAudit.assumed` or
:meth:`WorkedAudit.not_derivable`. The verdict of every quantity, and of every single number
in it, is :func:`book_support.claims.verdict` under the rule :func:`printed_digits`:

* ``agrees`` -- the printed number is the correct value to its printed digits;
* ``inherited`` -- it is not, but it is what the source's own earlier numbers give: the step
  was done right on a wrong input;
* ``wrong`` -- neither: the error is introduced at this step;
* ``agrees by construction`` -- it agrees, but only because weights were fitted to the printed
  numbers (no evidence either way);
* ``assumed`` / ``not derivable`` -- stated with a reason.

:meth:`WorkedAudit.step_verdicts` colours each step by the most serious verdict among its numbers,
and :func:`plot_dataflow` draws the chain of steps in those colours.

Book: ch-numbers and the errata appendix.
"""

from __future__ import annotations

import math
import textwrap
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from ..claims import AGREES, AGREES_BY_CONSTRUCTION, ASSUMED, INHERITED, NOT_DERIVABLE, VERDICTS, WRONG, Audit, Rule, verdict
from .compare import printed_unit, within_printed_digits
from .loading import to_float64

__all__ = [
    "SEVERITY",
    "STEP_COLOURS",
    "Values",
    "WorkedAudit",
    "plot_dataflow",
    "printed_digits",
]

# The verdicts are bk.claims's words (bk.claims.WRONG, ...: a worked example has no others); these tables are
# keyed by them. The order in which a step takes its colour: the most serious verdict among its numbers
SEVERITY = (WRONG, ASSUMED, NOT_DERIVABLE, INHERITED, AGREES_BY_CONSTRUCTION, AGREES)
STEP_COLOURS = {
    WRONG: "#d62728",  # the source introduces an error here
    INHERITED: "#ff9f40",  # right step, wrong input
    ASSUMED: "#9467bd",
    NOT_DERIVABLE: "#9e9e9e",
    AGREES_BY_CONSTRUCTION: "#9ecae1",
    AGREES: "#2ca02c",
}
STEP_MEANING = {
    WRONG: "introduces an error",
    INHERITED: "inherits an error",
    ASSUMED: "assumes a value",
    NOT_DERIVABLE: "gives nothing to derive it from",
    AGREES_BY_CONSTRUCTION: f"{AGREES_BY_CONSTRUCTION} (fitted weights)",
    AGREES: AGREES,
}


class Values:
    """Computed numbers, shown with one digit more than the printed ones (at least four decimals)."""

    def __init__(self, values: Any, printed: Sequence[str]) -> None:
        self.values = to_float64("values", values).reshape(-1).tolist()
        self.printed = list(printed)
        if len(self.values) != len(self.printed):
            raise ValueError(f"the source prints {len(self.printed)} numbers but {len(self.values)} values were computed")

    def __str__(self) -> str:
        parts = []
        for value, text in zip(self.values, self.printed, strict=True):
            if not math.isfinite(value):
                parts.append(str(value))
                continue
            digits = max(4, round(-math.log10(printed_unit(text))) + 1)
            parts.append(f"{round(value, digits) + 0.0:.{digits}f}")
        return " ".join(parts)


def _texts(claimed: Any) -> list[str]:
    if isinstance(claimed, str):
        return claimed.split()
    return [str(t) for t in claimed]


def printed_digits() -> Rule:
    """Agree when every printed number is the computed one to its printed digits.

    The test of :func:`~book_support.worked_examples.within_printed_digits`: within half a unit of
    the last printed digit, or within one unit and 1 % (a truncated digit or a rounded intermediate).
    """

    def test(claimed: Any, computed: Any) -> bool:
        if not isinstance(computed, Values):
            raise TypeError(f"computed must be worked_examples.Values, got {type(computed).__name__}")
        texts = _texts(claimed)
        if len(texts) != len(computed.values):
            raise ValueError(f"{len(texts)} printed numbers against {len(computed.values)} computed")
        return all(within_printed_digits(t, v) for t, v in zip(texts, computed.values, strict=True))

    return Rule("printed digits", test)


PRINTED_DIGITS = printed_digits()


@dataclass(repr=False)
class WorkedAudit:
    """The claims of one worked example, each under a step of the computation.

    ``steps`` fixes the order of the steps (the dataflow); every claim names one of them.
    """

    title: str
    steps: Sequence[str]
    audit: Audit = field(init=False)
    step_of: list[str] = field(default_factory=list, init=False)
    numbers: list[tuple[str, str]] = field(default_factory=list, init=False)  # (step, verdict) per printed number

    def __post_init__(self) -> None:
        self.steps = list(self.steps)
        if len(set(self.steps)) != len(self.steps):
            raise ValueError(f"steps must be distinct, got {self.steps}")
        self.audit = Audit(self.title)

    def _step(self, step: str) -> str:
        if step not in self.steps:
            raise ValueError(f"step must be one of {self.steps}, got {step!r}")
        return step

    def check(
        self,
        step: str,
        source: str,
        label: str,
        printed: Any,
        computed: Any,
        *,
        from_source: Any = None,
        by_construction: bool = False,
        record: str = "",
    ) -> str:
        """A printed quantity against the correct value; ``from_source``: what the source's own input gives.

        ``record``: the ledger record that states the same number, if any (see :meth:`Audit.add`)."""
        step = self._step(step)
        texts = _texts(printed)
        value = Values(computed, texts)
        own = None if from_source is None else Values(from_source, texts)
        note = "" if own is None else f"from the source's own input: {own}"
        word = self.audit.add(
            source, label, claimed=" ".join(texts), computed=value, rule=PRINTED_DIGITS,
            from_source=own, by_construction=by_construction, note=note, record=record,
        )  # fmt: skip
        self.step_of.append(step)
        for i, text in enumerate(texts):
            one = Values([value.values[i]], [text])
            one_own = None if own is None else Values([own.values[i]], [text])
            self.numbers.append((step, verdict(text, one, PRINTED_DIGITS, from_source=one_own, by_construction=by_construction)))
        return word

    def claim(self, step: str, source: str, label: str, *, claimed: Any, computed: Any, rule: Rule) -> str:
        """Any other claim (a bound, a count) checked by a bk.claims rule; counts as one number."""
        word = self.audit.add(source, label, claimed=claimed, computed=computed, rule=rule)
        self.step_of.append(self._step(step))
        self.numbers.append((step, word))
        return word

    def _stated(self, word: str, step: str, source: str, label: str, printed: Any, reason: str) -> str:
        texts = _texts(printed)
        word = self.audit.add_stated(word, source, label, reason=reason, claimed=" ".join(texts))
        self.step_of.append(self._step(step))
        self.numbers.extend((step, word) for _ in texts)
        return word

    def assumed(self, step: str, source: str, label: str, printed: Any, *, reason: str) -> str:
        """The source states the printed value as an assumption; ``reason`` quotes where."""
        return self._stated(ASSUMED, step, source, label, printed, reason)

    def not_derivable(self, step: str, source: str, label: str, printed: Any, *, reason: str) -> str:
        """The source gives nothing from which the printed value could be recomputed."""
        return self._stated(NOT_DERIVABLE, step, source, label, printed, reason)

    def counts(self) -> dict[str, int]:
        """Claims (printed quantities) per verdict."""
        return self.audit.counts()

    def number_counts(self) -> dict[str, int]:
        """Printed numbers per verdict, in the order of bk.claims.VERDICTS (zeros left out)."""
        tally = Counter(word for _, word in self.numbers)
        return {word: tally[word] for word in VERDICTS if tally[word]}

    def step_verdicts(self) -> dict[str, tuple[str, dict[str, int]]]:
        """For each step in order: its colour (the most serious verdict) and its numbers per verdict."""
        result = {}
        for step in self.steps:
            tally = Counter(word for s, word in self.numbers if s == step)
            if not tally:
                continue
            colour = next(word for word in SEVERITY if tally[word])
            result[step] = (colour, {word: tally[word] for word in VERDICTS if tally[word]})
        return result

    def where(self, word: str, step: str | None = None) -> list[str]:
        """The labels of the claims with verdict ``word`` (in ``step`` if given)."""
        return [
            r.claim
            for r, s in zip(self.audit.results, self.step_of, strict=True)
            if r.verdict == word and (step is None or s == step)
        ]

    def step_summary(self, width: int = 90, steps: Sequence[str] | None = None) -> str:
        """One line per step (all, or ``steps``): its colour and its numbers per verdict (the figure as text)."""
        for step in steps or ():
            self._step(step)
        lines = []
        name_width = max(len(s) for s in (steps or self.steps))
        for step, (colour, tally) in self.step_verdicts().items():
            if steps is not None and step not in steps:
                continue
            counts = ", ".join(f"{n} {w}" for w, n in tally.items())
            line = f"{step.ljust(name_width)}  {STEP_MEANING[colour]}: {counts}"
            lines.extend(textwrap.wrap(line, width, subsequent_indent=" " * (name_width + 4)))
        return "\n".join(lines)

    def format(self, width: int = 90, *, verdicts: Sequence[str] | None = None, steps: Sequence[str] | None = None) -> str:
        """The claims as narrow blocks (bk.claims.Audit.format), optionally only some verdicts or steps."""
        for word in verdicts or ():
            if word not in VERDICTS:
                raise ValueError(f"verdicts must be among {VERDICTS}, got {word!r}")
        for step in steps or ():
            self._step(step)
        if verdicts is None and steps is None:
            return _wrap_long(self.audit.format(width), width)
        part = Audit("", self.audit.digits)
        part.results = [
            r
            for r, s in zip(self.audit.results, self.step_of, strict=True)
            if (verdicts is None or r.verdict in verdicts) and (steps is None or s in steps)
        ]
        return _wrap_long(part.format(width), width)

    def __str__(self) -> str:
        return self.format()

    def __repr__(self) -> str:
        return f"WorkedAudit({self.title!r}, {len(self)} claims)"

    def __len__(self) -> int:
        return len(self.audit)


def _wrap_long(text: str, width: int) -> str:
    """Wrap any line longer than ``width`` (a worked example's long printed numbers)."""
    lines = []
    for line in text.splitlines():
        lines.extend(textwrap.wrap(line, width, subsequent_indent="  ") if len(line) > width else [line])
    return "\n".join(lines)


def plot_dataflow(audit: WorkedAudit, ax: Any = None, per_row: int = 6) -> Any:
    """The steps of a worked example as a chain of boxes, each coloured by its step verdict."""
    import matplotlib.pyplot as plt
    from matplotlib.patches import FancyBboxPatch, Patch

    verdicts = audit.step_verdicts()
    steps = list(verdicts)
    rows = math.ceil(len(steps) / per_row)
    if ax is None:
        _, ax = plt.subplots(figsize=(1.6 * per_row + 0.4, 1.15 * rows + 0.9))
    for i, step in enumerate(steps):
        r, c = divmod(i, per_row)
        c = c if r % 2 == 0 else per_row - 1 - c  # snake, so that the arrows stay short
        x, y = c * 1.6, -r * 1.15
        colour = verdicts[step][0]
        ax.add_patch(FancyBboxPatch((x, y), 1.3, 0.7, boxstyle="round,pad=0.02", facecolor=STEP_COLOURS[colour],
                                    edgecolor="black", linewidth=0.8))  # fmt: skip
        dark = colour in (WRONG, ASSUMED, AGREES)
        ax.text(x + 0.65, y + 0.35, textwrap.fill(step, 14), ha="center", va="center", fontsize=8.5,
                color="white" if dark else "black")  # fmt: skip
        if i + 1 < len(steps):
            r2, c2 = divmod(i + 1, per_row)
            c2 = c2 if r2 % 2 == 0 else per_row - 1 - c2
            if r2 == r:
                start, end = (x + 1.3 if c2 > c else x, y + 0.35), (c2 * 1.6 if c2 > c else c2 * 1.6 + 1.3, y + 0.35)
            else:
                start, end = (x + 0.65, y), (x + 0.65, y - 0.45)
            ax.annotate("", xy=end, xytext=start, arrowprops={"arrowstyle": "->", "lw": 1})
    used = [w for w in SEVERITY if any(v[0] == w for v in verdicts.values())]
    ax.legend(handles=[Patch(facecolor=STEP_COLOURS[w], edgecolor="black", label=STEP_MEANING[w]) for w in used],
              loc="upper center", bbox_to_anchor=(0.5, 0.0), ncol=min(3, len(used)), fontsize=8.5, frameon=False)  # fmt: skip
    ax.set_xlim(-0.1, per_row * 1.6)
    ax.set_ylim(-(rows - 1) * 1.15 - 0.15, 0.85)
    ax.set_aspect("equal")
    ax.axis("off")
    return ax
