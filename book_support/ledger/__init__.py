"""The ledger of source claims: every claim the book judges, stated once, judged by one rule, one verdict.

The five study notes (documents 000 to 004) and a few statements of the paper are judged on many pages:
a chapter's "sources checked" table, the errata appendix, sometimes two chapters. Before this ledger,
each page wrote its own paraphrase, its own threshold and so its own verdict, and one sentence of a
document could be "agrees" on one page and "wrong" on another. Here a claim is a :class:`Record`,
written once in this package (one module per document; document 000, the longest, in three by section), with

* ``where`` -- the document and its section ("000 §2.2.2"), or "paper §6.1" for the paper's own words;
* ``says`` -- a faithful paraphrase, with the document's hedges and assumptions;
* ``measure`` -- what the page computes to judge it (for a computed claim);
* ``true_if`` -- what would make the claim true;
* how it is judged, one of:

  - computed: ``claimed`` and ``rule`` (a :mod:`book_support.claims` rule) and ``why`` that tolerance;
    the page supplies the computed value and the rule gives ``agrees``, ``wrong``, ``inherited``
    or ``agrees by construction``;
  - absent: ``margin`` (and ``why``), for a claim that an effect is absent, judged by a measured
    interval (``agrees``, ``wrong`` or ``cannot tell``);
  - cited: a fact read from a paper, not computed: ``cited`` says what was read, where, and
    ``reading`` is ``supported by citation`` or ``contradicted by citation``; never a computed-looking
    ``agrees`` or ``wrong``;
  - stated: ``unsourced``, ``assumed`` or ``not derivable``, with ``reason``;

* ``verdict`` -- the verdict the book prints for it. For a computed or absent claim this is what the
  pages' computations give on the committed run: :meth:`book_support.claims.Audit.check` prints the
  verdict it computes, and says so when it differs from the ledger's, and a test fails when any page
  prints a verdict other than the ledger's. So every page that shows the claim shows one verdict,
  and the appendix that lists the whole ledger (``book/appendix_claims.md``) shows the same one;
* ``narrows`` -- for a narrower claim judged from another angle: the broader record's id, and how
  this one differs (``narrows=("000-score-range", "the typical largest of 64 scores, not any score")``).

A page judges a claim by its id and nothing else (``audit.check("000-score-range", computed=...)``);
an id with no record raises, so no page can judge a claim the ledger does not state.

The worked examples' printed numbers (chapter 12) are a ledger of their own: each document's printed
numbers are stated once in :mod:`book_support.worked_examples`, and one rule (the printed digits) judges
them all; their audits are not records here.

Book: every chapter's sources table, the errata appendix, appendix "Every source claim".
"""

from __future__ import annotations

import re
from typing import Any

from ..claims import (
    AGREES,
    AGREES_BY_CONSTRUCTION,
    ASSUMED,
    CANNOT_TELL,
    CONTRADICTED,
    INHERITED,
    NOT_DERIVABLE,
    SUPPORTED,
    UNSOURCED,
    WRONG,
    Rule,
    at_least,
    at_most,
    between,
    close,
)
from ..ledger_store import AT_CALL, RECORDS, Record, get, records

__all__ = ["AT_CALL", "DOCUMENTS", "RECORDS", "Record", "absent", "cited", "computed", "get", "stated"]

DOCUMENTS = ("000", "001", "002", "003", "004", "paper")
KINDS = ("computed", "absent", "cited", UNSOURCED, ASSUMED, NOT_DERIVABLE)
_ID = re.compile(r"^(000|001|002|003|004|paper)-[a-z0-9]+(-[a-z0-9]+)*$")
_TOLERANCE_RULES = ("|Δ|", ">=", "<=", "in [", "rounds to")


def _add(record: Record) -> Record:
    if not isinstance(record.id, str) or not _ID.match(record.id):
        raise ValueError(f"a record id is '<document>-<words-with-hyphens>' (document one of {DOCUMENTS}), got {record.id!r}")
    if record.id in RECORDS:
        raise ValueError(f"the ledger already has a record {record.id!r}: one claim, one record")
    for name in ("where", "says"):
        value = getattr(record, name)
        if not isinstance(value, str) or not value.strip():
            raise ValueError(f"record {record.id!r}: {name} must be a non-empty string, got {value!r}")
    if not record.where.startswith(record.document):
        raise ValueError(f"record {record.id!r}: where must start with its document {record.document!r}, got {record.where!r}")
    if record.narrows is not None:
        broader, how = record.narrows
        if not (isinstance(broader, str) and isinstance(how, str) and how.strip()):
            raise ValueError(
                f"record {record.id!r}: narrows must be (broader id, how this claim differs), got {record.narrows!r}"
            )
    RECORDS[record.id] = record
    return record


def computed(
    id: str,
    where: str,
    *,
    says: str,
    measure: str,
    rule: Rule,
    true_if: str = "",
    verdict: str,
    claimed: Any = None,
    why: str = "",
    by_construction: bool = False,
    narrows: tuple[str, str] | None = None,
) -> Record:
    """A claim judged by computation: the page computes ``measure``, ``rule`` decides against ``claimed``.

    ``why`` (why this tolerance) is required for a rule with a tolerance or a bound; ``equal`` and
    ``holds`` need none.
    """
    if not isinstance(rule, Rule):
        raise TypeError(f"record {id!r}: rule must be a bk.claims rule, got {type(rule).__name__}")
    if rule.describe.startswith(_TOLERANCE_RULES) and not why.strip():
        raise ValueError(f"record {id!r}: a rule with a tolerance or bound ({rule.describe}) needs why (why that tolerance)")
    if verdict not in (AGREES, WRONG, INHERITED, AGREES_BY_CONSTRUCTION):
        raise ValueError(
            f"record {id!r}: a computed claim's verdict is agrees, wrong, inherited or agrees by construction, got {verdict!r}"
        )
    if not measure.strip():
        raise ValueError(f"record {id!r}: measure (what the page computes) must be a non-empty string")
    return _add(
        Record(
            id=id,
            where=where,
            says=says,
            kind="computed",
            verdict=verdict,
            true_if=true_if,
            measure=measure,
            claimed=claimed,
            rule=rule,
            why=why,
            by_construction=by_construction,
            narrows=narrows,
        )
    )


def absent(
    id: str,
    where: str,
    *,
    says: str,
    measure: str,
    margin: float,
    true_if: str = "",
    why: str,
    verdict: str,
    narrows: tuple[str, str] | None = None,
) -> Record:
    """A claim that an effect is absent, judged by a measured 95 % interval against ``±margin``."""
    if verdict not in (AGREES, WRONG, CANNOT_TELL):
        raise ValueError(f"record {id!r}: an absent-effect claim's verdict is agrees, wrong or cannot tell, got {verdict!r}")
    if not why.strip():
        raise ValueError(f"record {id!r}: an absent-effect claim needs why (why that margin)")
    return _add(
        Record(
            id=id,
            where=where,
            says=says,
            kind="absent",
            verdict=verdict,
            true_if=true_if,
            measure=measure,
            why=why,
            margin=margin,
            narrows=narrows,
        )
    )


def cited(
    id: str,
    where: str,
    *,
    says: str,
    cited: str,
    reading: str,
    true_if: str = "",
    claimed: Any = None,
    narrows: tuple[str, str] | None = None,
) -> Record:
    """A claim judged by reading a paper: ``cited`` says what was read, and where."""
    if reading not in (SUPPORTED, CONTRADICTED):
        raise ValueError(f"record {id!r}: reading must be {SUPPORTED!r} or {CONTRADICTED!r}, got {reading!r}")
    if not cited.strip():
        raise ValueError(f"record {id!r}: cited (what was read, where) must be a non-empty string")
    return _add(
        Record(
            id=id,
            where=where,
            says=says,
            kind="cited",
            verdict=reading,
            true_if=true_if,
            claimed=claimed,
            cited=cited,
            narrows=narrows,
        )
    )


def stated(
    id: str,
    where: str,
    *,
    says: str,
    verdict: str,
    reason: str,
    true_if: str = "",
    claimed: Any = None,
    narrows: tuple[str, str] | None = None,
) -> Record:
    """A claim that is unsourced, assumed or not derivable, with the reason."""
    if verdict not in (UNSOURCED, ASSUMED, NOT_DERIVABLE):
        raise ValueError(f"record {id!r}: verdict must be {UNSOURCED!r}, {ASSUMED!r} or {NOT_DERIVABLE!r}, got {verdict!r}")
    if not reason.strip():
        raise ValueError(f"record {id!r}: a {verdict} claim needs a reason")
    return _add(
        Record(
            id=id,
            where=where,
            says=says,
            kind=verdict,
            verdict=verdict,
            true_if=true_if,
            claimed=claimed,
            reason=reason,
            narrows=narrows,
        )
    )


# the rules a ledger module uses, so that it needs one import
__all__ += ["at_least", "at_most", "between", "close", "records"]
_ = (at_least, at_most, between, close)
