"""Comparing the numbers a source prints with the numbers the library computes.

A printed number is kept as text ("0.150") so that its number of printed
digits is known. :func:`within_printed_digits` is the test of one printed
number against the computed value; the verdict word a chapter prints comes
from :func:`book_support.claims.verdict` with the rule
:func:`~book_support.worked_examples.printed_digits`, which applies this test to
every printed number of a claim.

Book: ch-numbers.
"""

from __future__ import annotations

import math


def printed_unit(text: str) -> float:
    """One unit in the last printed digit of a number written as text: "0.150" -> 0.001, "2.65e-5" -> 1e-7."""
    mantissa, _, exponent = text.strip().lower().partition("e")
    decimals = len(mantissa.partition(".")[2])
    return 10.0 ** (int(exponent or 0) - decimals)


def within_printed_digits(source: str, value: float) -> bool:
    """Whether one printed number is the computed value to its printed digits.

    The rule (stated in ch-numbers): True when the computed value rounds to the printed
    number, or the two differ by at most one unit in the last printed digit and by less
    than 1 % (a truncated rather than rounded digit, or an earlier rounded intermediate).
    An infinite number (a masked score printed as -inf) agrees only with itself.

    Args:
        source: the number as the source prints it, as text ("0.150", "-1.33", "2.65e-5").
        value: the computed value.
    """
    if not isinstance(source, str):
        raise TypeError(f"source must be the printed number as text (to keep its digits), got {type(source).__name__}")
    printed = float(source)
    value = float(value)
    if math.isinf(printed) or math.isinf(value):
        return printed == value
    difference = abs(printed - value)
    unit = printed_unit(source)
    if difference <= 1e-12 * max(abs(printed), abs(value)):  # equal but for float64 rounding
        return True
    if difference <= unit / 2 * (1 + 1e-9):
        return True
    return difference <= unit * (1 + 1e-9) and difference < 0.01 * abs(value)
