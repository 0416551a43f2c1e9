"""Comparing the numbers a source prints with the numbers the library computes.

A printed number is kept as text ("0.150") so that its number of printed
digits is known; the status of a printed number is computed from the
comparison by the rule of :func:`compare_number`.

Book: chapter 12.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from torch import Tensor

from ..notebook import format_table
from .loading import to_float64

AGREES = "agrees"
AGREES_TO_ROUNDING = "agrees to rounding"
WRONG = "wrong"
ASSUMED = "assumed by the source"
NOT_DERIVABLE = "not derivable"
STATUSES = (AGREES, AGREES_TO_ROUNDING, WRONG, ASSUMED, NOT_DERIVABLE)


def printed_unit(text: str) -> float:
    """One unit in the last printed digit of a number written as text: "0.150" -> 0.001, "2.65e-5" -> 1e-7."""
    mantissa, _, exponent = text.strip().lower().partition("e")
    decimals = len(mantissa.partition(".")[2])
    return 10.0 ** (int(exponent or 0) - decimals)


def compare_number(source: str, value: float) -> str:
    """The status of one printed number against the computed value.

    The rule (stated in chapter 12):

    - ``agrees``: the printed number equals the computed value (to 12 significant digits
      in float64: a printed 0 agrees only with a computed 0);
    - ``agrees to rounding``: the computed value rounds to the printed number, or the
      two differ by at most one unit in the last printed digit and by less than 1 %
      (a truncated rather than rounded digit, or an earlier rounded intermediate);
    - ``wrong``: anything else.

    Args:
        source: the number as the source prints it, as text ("0.150", "-1.33", "2.65e-5").
        value: the computed value.
    """
    if not isinstance(source, str):
        raise TypeError(f"source must be the printed number as text (to keep its digits), got {type(source).__name__}")
    printed = float(source)
    value = float(value)
    if math.isinf(printed) or math.isinf(value):  # a masked score printed as -inf
        return AGREES if printed == value else WRONG
    difference = abs(printed - value)
    unit = printed_unit(source)
    if difference <= 1e-12 * max(abs(printed), abs(value)):
        return AGREES
    if difference <= unit / 2 * (1 + 1e-9):
        return AGREES_TO_ROUNDING
    if difference <= unit * (1 + 1e-9) and difference < 0.01 * abs(value):
        return AGREES_TO_ROUNDING
    return WRONG


def compare_row(sources: Sequence[str], values: Any) -> str:
    """The status of a printed vector: the worst element status, with a count when mixed.

    ``wrong`` is worse than ``agrees to rounding``, which is worse than ``agrees``.
    """
    flat = to_float64("values", values).reshape(-1)
    if len(sources) != flat.numel():
        raise ValueError(f"sources and values must have the same length, got {len(sources)} and {flat.numel()}")
    statuses = [compare_number(s, v) for s, v in zip(sources, flat.tolist(), strict=True)]
    for status in (WRONG, AGREES_TO_ROUNDING):
        count = statuses.count(status)
        if count:
            return status if count == len(statuses) or status != WRONG else f"{WRONG} ({count} of {len(statuses)})"
    return AGREES


@dataclass
class Row:
    """One printed quantity: what the source prints, what the library computes, and the status.

    ``status`` is computed from the comparison unless ``override`` is one of
    ``ASSUMED`` or ``NOT_DERIVABLE`` (the source gives no weights, or says it assumed the value).
    """

    label: str
    source: Sequence[str]
    library: Any
    override: str | None = None
    note: str = ""
    status: str = field(init=False)

    def __post_init__(self) -> None:
        if self.override not in (None, ASSUMED, NOT_DERIVABLE):
            raise ValueError(f"override must be None, {ASSUMED!r} or {NOT_DERIVABLE!r}, got {self.override!r}")
        self.library = to_float64("library", self.library).reshape(-1)
        self.source = [str(s) for s in self.source]
        if self.library.numel() != len(self.source):
            raise ValueError(
                f"row {self.label!r}: the source prints {len(self.source)} numbers but the library value has "
                f"{self.library.numel()}"
            )
        self.status = self.override or compare_row(self.source, self.library)


def _format_computed(values: Tensor, sources: Sequence[str]) -> str:
    parts = []
    for value, source in zip(values.tolist(), sources, strict=True):
        if not math.isfinite(value):
            parts.append(str(value))
            continue
        digits = max(4, round(-math.log10(printed_unit(source))) + 1)
        parts.append(f"{round(value, digits) + 0.0:.{digits}f}")
    return " ".join(parts)


def comparison_table(rows: Sequence[Row], with_notes: bool = True) -> str:
    """The rows as a plain-text table: quantity, source, library, status (and note).

    Library values are printed with one digit more than the source (at least 4
    decimals), so a reader can see how a printed number was rounded.
    """
    headers = ["quantity", "source", "library", "status"] + (["note"] if with_notes else [])
    body = []
    for row in rows:
        line = [row.label, " ".join(row.source), _format_computed(row.library, row.source), row.status]
        body.append(line + ([row.note] if with_notes else []))
    text = format_table(headers, body)
    return "\n".join(line.rstrip() for line in text.splitlines())


def status_counts(rows: Sequence[Row]) -> dict[str, int]:
    """How many printed numbers (not rows) fall under each status."""
    counts = dict.fromkeys(STATUSES, 0)
    for row in rows:
        if row.override:
            counts[row.override] += len(row.source)
            continue
        for source, value in zip(row.source, row.library.tolist(), strict=True):
            counts[compare_number(source, value)] += 1
    return counts
