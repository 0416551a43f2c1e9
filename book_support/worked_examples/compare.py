"""Comparing the numbers a source prints with the numbers the library computes.

A printed number is kept as text ("0.150") so that its number of printed
digits is known; the status of a printed number is computed from the
comparison by the rule of :func:`compare_number`.

Book: chapter 12.
"""

from __future__ import annotations

import math

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
