"""Write book/appendix_claims.md, the appendix that lists every record of the claims ledger.

    python tools/ledger_index.py            # rewrite the page
    python tools/ledger_index.py --check    # exit 1 if the page is not what the ledger gives

The page is generated, never edited by hand: each record of ``book_support.ledger`` with its
paraphrase, how it is judged (measure, claimed value, rule and why that tolerance, or what was read
and where, or the reason), its verdict, and a link to every page that judges it (found by its id in
the notebooks' code). ``tests/book/test_build.py`` fails when the page is out of date, so the page
and the ledger never disagree; the verdicts are the ledger's, which ``test_notebooks.py`` checks
against what every page prints.
"""

from __future__ import annotations

import json
import re
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from book_support import ledger  # noqa: E402
from book_support.claims import VERDICTS  # noqa: E402

PAGE = ROOT / "book" / "appendix_claims.md"
_ID = re.compile(r"""["']((?:000|001|002|003|004|paper)-[a-z0-9]+(?:-[a-z0-9]+)*)["']""")
_SPECIAL = re.compile(r"([\\`*_{}\[\]<>$|#])")
DOCUMENT_TITLES = {
    "000": "Document 000: the panorama report",
    "001": "Document 001: the PyTorch walk-through",
    "002": "Document 002: the lecture notes",
    "003": "Document 003: the eight training steps",
    "004": "Document 004: notes with a Japanese example",
    "paper": "The paper's own statements, as the book uses them",
}


def _text(value: object) -> str:
    """Ledger text as literal Markdown (no emphasis, maths, roles or HTML)."""
    return _SPECIAL.sub(r"\\\1", str(value))


def pages_judging() -> dict[str, list[tuple[str, str]]]:
    """id -> [(link text, target label)] of the pages whose code names the id."""
    found: dict[str, list[tuple[str, str]]] = {}
    errata_labels = set()
    for path in sorted((ROOT / "book").glob("*.ipynb")):
        notebook = json.loads(path.read_text())
        code = "\n".join("".join(c["source"]) for c in notebook["cells"] if c["cell_type"] == "code")
        markdown = "\n".join("".join(c["source"]) for c in notebook["cells"] if c["cell_type"] == "markdown")
        if path.name == "appendix_errata.ipynb":
            errata_labels = set(re.findall(r"^\(errata-([a-z0-9-]+)\)=", markdown, re.M))
        chapter = re.match(r"ch(\d+)_", path.name)
        sources = re.search(r"^\((sec-ch\d+[a-z-]*-sources)\)=", markdown, re.M)
        for id in dict.fromkeys(_ID.findall(code)):
            if chapter and sources:
                found.setdefault(id, []).append((f"chapter {int(chapter.group(1))}", sources.group(1)))
            elif path.name == "appendix_errata.ipynb":
                found.setdefault(id, []).append(("errata", f"errata-{id}" if id in errata_labels else "errata-audits"))
    return found


def render() -> str:
    records = ledger.records()
    pages = pages_judging()
    tally = Counter(r.verdict for r in records)
    lines = [
        "(app-claims)=",
        "# Every source claim",
        "",
        "This page lists the ledger of source claims (`book_support/ledger`): every claim of the five "
        "source documents, and every statement of the paper, that a page of this book judges. Each claim is "
        "stated once, with what would make it true and the rule that judges it, and it has one verdict, the "
        "one printed on every page that shows it (a test compares them). The page is generated from the "
        "ledger by `tools/ledger_index.py`; the errata appendix explains the errors.",
        "",
        "How a verdict is reached: *agrees*, *wrong*, *inherited* and *agrees by construction* come from a "
        "rule applied to a value a page computes; *cannot tell* from a measured interval against a margin; "
        "*supported by citation* and *contradicted by citation* from reading a paper (the entry says what "
        "was read, where), not from a computation; *unsourced*, *assumed* and *not derivable* describe what "
        "the document gives.",
        "",
        "| verdict | records |",
        "|---|---|",
        *(f"| {word} | {tally[word]} |" for word in VERDICTS if tally[word]),
        f"| all | {len(records)} |",
        "",
    ]
    for document, title in DOCUMENT_TITLES.items():
        chosen = [r for r in records if r.document == document]
        if not chosen:
            continue
        lines += [f"## {title}", ""]
        for r in chosen:
            shown = ", ".join(f"{{ref}}`{text} <{label}>`" for text, label in pages.get(r.id, []))
            item = [f"- **{_text(r.where)}** `{r.id}`: {_text(r.says)}. Verdict: *{r.verdict}*."]
            if r.kind == "computed" and r.rule is not None:
                claimed = (
                    "" if r.claimed is None
                    else "claimed: the value the page states for its sizes; " if r.claimed is ledger.AT_CALL
                    else f"claimed {_text(r.claimed)}; "
                )  # fmt: skip
                how = f"{claimed}computed: {_text(r.measure)}; rule: {_text(r.rule.describe)}"
                how += f" ({_text(r.why)})" if r.why else ""
            elif r.kind == "absent":
                how = f"measured: {_text(r.measure)}; 95 % interval against ±{r.margin:g} ({_text(r.why)})"
            elif r.kind == "cited":
                how = f"read: {_text(r.cited)}"
            else:
                how = f"{r.kind}: {_text(r.reason)}"
            item.append(f"  Judged by: {how}.")
            if r.true_if:
                item.append(f"  True if: {_text(r.true_if)}.")
            if r.narrows:
                item.append(f"  Narrower than `{r.narrows[0]}`: {_text(r.narrows[1])}.")
            item.append(f"  Shown in: {shown or 'no page'}.")
            lines += [line + "\\" for line in item[:-1]] + item[-1:]  # a hard line break after each part
        lines.append("")
    return "\n".join(lines).rstrip() + "\n"


def main(argv: list[str]) -> int:
    text = render()
    if "--check" in argv:
        if PAGE.exists() and PAGE.read_text() == text:
            return 0
        print(f"{PAGE.name} is out of date: run python tools/ledger_index.py", file=sys.stderr)
        return 1
    PAGE.write_text(text)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
