"""Where the ledger's records are kept and looked up (see :mod:`book_support.ledger` for what a record states).

Split from the ledger so that :mod:`book_support.claims`, which judges a record by its id, can look records
up without importing the ledger's modules, which import the claims' rules and verdict words: the package
has no import circle (``tests/test_structure.py``). The ledger's modules are imported on the first lookup.

Book: every chapter's sources table, the errata appendix, appendix "Every source claim".
"""

from __future__ import annotations

import importlib
import pkgutil
from dataclasses import dataclass
from typing import Any

__all__ = ["AT_CALL", "RECORDS", "Record", "get", "records"]


class _AtCall:
    """The claimed value is stated for sizes the page chooses: the page passes ``claimed=``."""

    def __repr__(self) -> str:
        return "AT_CALL"


AT_CALL = _AtCall()


@dataclass(frozen=True)
class Record:
    """One claim of one source, as the ledger states it (see :mod:`book_support.ledger` for the fields).

    ``rule`` is a :class:`book_support.claims.Rule` for a computed claim, else None.
    """

    id: str
    where: str
    says: str
    kind: str
    verdict: str
    true_if: str = ""
    measure: str = ""
    claimed: Any = None
    rule: Any = None
    why: str = ""
    margin: float | None = None
    cited: str = ""
    reason: str = ""
    by_construction: bool = False
    narrows: tuple[str, str] | None = None

    @property
    def document(self) -> str:
        return self.id.split("-", 1)[0]

    @property
    def text(self) -> str:
        """The paraphrase, with what is measured in brackets (the line an audit block prints)."""
        return f"{self.says} ({self.measure})" if self.measure else self.says


RECORDS: dict[str, Record] = {}
_LOADED = False


def _load() -> None:
    global _LOADED
    if not _LOADED:
        _LOADED = True
        ledger = importlib.import_module("book_support.ledger")
        for module in sorted(m.name for m in pkgutil.iter_modules(ledger.__path__)):  # doc000_s01_s04, ..., paper
            importlib.import_module(f"book_support.ledger.{module}")
        for record in RECORDS.values():
            if record.narrows is not None and record.narrows[0] not in RECORDS:
                raise ValueError(f"record {record.id!r} narrows {record.narrows[0]!r}, which the ledger does not have")


def get(id: str) -> Record:
    """The record with this id; a ``KeyError`` naming the id where the ledger has none."""
    _load()
    if not isinstance(id, str):
        raise TypeError(f"id must be a record id (a str such as '000-score-range'), got {type(id).__name__}")
    try:
        return RECORDS[id]
    except KeyError:
        raise KeyError(f"the ledger has no record {id!r}: state the claim in book_support/ledger first") from None


def records() -> list[Record]:
    """Every record, in the order the ledger states them (document by document)."""
    _load()
    return list(RECORDS.values())
