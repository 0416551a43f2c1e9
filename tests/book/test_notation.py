"""One symbol, one meaning: the notation appendix lists every symbol a page's mathematics uses.

The symbols of a page are read from the mathematics of its prose (inline ``$...$``, display
``$$...$$`` and ``{math}`` blocks of the markdown cells; code, printed output and glue keys are
not mathematics). What counts as a symbol:

- a single Latin letter or a Greek letter command (``\\alpha``); a run of letters such as ``QK``
  is a product, one symbol per letter, except the few words the book writes in italics
  (``pos``, ``PE``);
- ``\\mathbb{R}``, ``\\mathcal{L}``, ... are symbols of their own;
- the contents of ``\\text``, ``\\operatorname``, ``\\mathrm`` and friends are words, not symbols;
- decorations (``\\hat y``, ``\\bar Y``, ``\\tilde x``, ``\\mathbf{1}``) keep the base letter;
- a single capital as a superscript is a label (``W^Q``, ``W^O``) and ``^T``/``^\\top`` a
  transpose, so neither is a symbol; other superscripts are read as mathematics;
- a subscript is an index or a label and is not read; a letter that carries one is the
  subscripted form ``x_``, a symbol of its own that the entry of its base letter covers unless
  the appendix lists the subscripted form (``h_t``, the hidden state, beside ``h``, the heads);
  a subscript that is one word in ``\\text`` names the form (``d_{\\text{model}}`` is
  ``d_model``, ``P_{\\text{drop}}`` is ``P_drop``), covered likewise by its base letter unless
  listed.

The appendix has book-wide tables (header ``| symbol | ...``; the first column holds only the
symbols the row defines) and one table of each chapter's local symbols
(``| chapter | symbol | meaning |``; a row may name several chapters, and an empty chapter
cell repeats the chapters of the row above). A page must
use only symbols listed book-wide or locally for it, a local symbol must not be a book-wide one
(that would be one symbol with two meanings), and every local entry must be used by its page.
"""

import json
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
BOOK = ROOT / "book"
APPENDIX = BOOK / "appendix_notation.md"

WORDS = {"pos", "PE"}
GREEK = set(
    "alpha beta gamma delta epsilon varepsilon zeta eta theta vartheta iota kappa lambda mu nu "
    "xi pi varpi rho varrho sigma varsigma tau upsilon phi varphi chi psi omega ell "
    "Gamma Delta Theta Lambda Xi Pi Sigma Upsilon Phi Psi Omega".split()
)
_WORD_ARG = re.compile(
    r"\\(?:text|operatorname\*?|mathrm|texttt|mathtt|textbf|textit|textrm|textsf|mbox|label|tag"
    r"|begin|end|phantom)\s*\{[^{}]*\}"
)
_DECORATION = re.compile(
    r"\\(?:hat|bar|tilde|widehat|widetilde|overline|mathbf|boldsymbol|bm|vec|dot|ddot|mathit)"
    r"(?![A-Za-z])\s*"
)
_FONT = re.compile(r"\\(mathcal|mathbb|mathscr|mathfrak)\s*\{?\s*([A-Za-z])\s*\}?")
_SIZING = re.compile(r"\\(?:left|right|[Bb]igg?[lr]?|middle)(?![A-Za-z])")
_MATH_BLOCK = re.compile(r"```\{math\}[^\n]*\n(.*?)```", re.S)


def math_spans(markdown: str) -> list[str]:
    """The mathematics of a markdown text: ``{math}`` blocks, ``$$...$$`` and ``$...$``."""
    spans = [m.group(1) for m in _MATH_BLOCK.finditer(markdown)]
    text = _prose_lines(_MATH_BLOCK.sub(" ", markdown))
    text = re.sub(r"`[^`\n]*`", " ", text)  # inline code, roles' targets, glue keys
    spans += re.findall(r"\$\$(.*?)\$\$", text, flags=re.S)
    text = re.sub(r"\$\$.*?\$\$", " ", text, flags=re.S)
    spans += re.findall(r"(?<![\\$])\$([^$\n]+?)\$", text)
    return spans


def _prose_lines(markdown: str) -> str:
    """The markdown without its code blocks; a directive's fence lines go, its content stays."""
    kept: list[str] = []
    fences: list[tuple[str, bool]] = []  # one (backticks, is_code) per open fence
    for line in markdown.splitlines():
        fence = re.match(r"\s*(`{3,}|~{3,})(.*)", line)
        if fence and fences and fence.group(1) == fences[-1][0] and not fence.group(2).strip():
            fences.pop()
        elif fence:
            name = fence.group(2).strip()
            code = not name.startswith("{") or re.match(r"\{(code|code-block|code-cell)\}", name)
            fences.append((fence.group(1), bool(code) or any(c for _, c in fences)))
        elif not (fences and fences[-1][1]):
            kept.append(line)
    return "\n".join(kept)


def _skip_group(text: str, start: int) -> int:
    """The index just past the braced group or single token that starts at ``start``."""
    while start < len(text) and text[start] == " ":
        start += 1
    if start < len(text) and text[start] == "{":
        depth = 0
        for end in range(start, len(text)):
            depth += {"{": 1, "}": -1}.get(text[end], 0)
            if depth == 0:
                return end + 1
        return len(text)
    match = re.match(r"\\[A-Za-z]+|.", text[start:])
    return start + (len(match.group(0)) if match else 0)


def symbols(span: str) -> set[str]:
    """The symbols one piece of mathematics uses (see the module's docstring)."""
    # a subscript that is one word names the symbol: d_{\text{model}} is "d_model"
    text = re.sub(r"_\s*\{?\s*\\(?:text|mathrm)\s*\{([A-Za-z]+)\}\s*\}?", r"_{SUB\1}", span)
    text = _WORD_ARG.sub(" ", text)
    text = _SIZING.sub(" ", text)
    text = _DECORATION.sub("", text)
    text = _FONT.sub(lambda m: f" \\{m.group(1)}[{m.group(2)}] ", text)
    # superscripts that are labels or transposes go; subscripts become a marker "_"
    out, i = [], 0
    while i < len(text):
        if text[i] in "^_":
            end = _skip_group(text, i + 1)
            body = text[i + 1 : end].strip().strip("{}").strip()
            if text[i] == "_":
                out.append(f"_{body} " if body.startswith("SUB") else "_ ")
                i = end
                continue
            if re.fullmatch(r"[A-Z]|\\top|\\intercal|\\prime|'", body):
                out.append(" ")
                i = end
                continue
            out.append(" ")
            i += 1
            continue
        out.append(text[i])
        i += 1
    text = "".join(out)
    text = re.sub(r"(^|[^A-Za-z'\s])(\s*)_SUB[A-Za-z]+", r"\1 ", text)  # a word under a non-letter
    found: set[str] = set()
    pattern = r"\\(mathcal|mathbb|mathscr|mathfrak)\[([A-Za-z])\]|\\([A-Za-z]+)|([A-Za-z]+)"
    for m in re.finditer(f"(?:{pattern})('*\\s*_(?:SUB([A-Za-z]+))?)?", text):
        sub = ("_" + (m.group(6) or "")) if m.group(5) else ""
        if m.group(1):
            found.add(f"\\{m.group(1)}{{{m.group(2)}}}{sub}")
        elif m.group(3):
            if m.group(3) in GREEK:
                found.add(f"\\{m.group(3)}{sub}")
        elif m.group(4) in WORDS:
            found.add(m.group(4) + sub)
        else:
            letters = list(m.group(4))
            found.update(letters[:-1])
            found.add(letters[-1] + sub)
    return found


def page_symbols(markdown: str) -> set[str]:
    return set().union(*(symbols(s) for s in math_spans(markdown)))


def pages() -> dict[str, str]:
    """Each page's markdown prose, by the label of its first heading (``intro`` for the root)."""
    found = {"intro": (BOOK / "intro.md").read_text()}
    for path in sorted(BOOK.glob("*.ipynb")):
        cells = json.loads(path.read_text())["cells"]
        prose = "\n\n".join("".join(c["source"]) for c in cells if c["cell_type"] == "markdown")
        label = re.search(r"^\(([\w-]+)\)=", prose, re.M)
        found[label.group(1) if label else path.stem] = prose
    return found


def _rows(table: list[str]) -> list[list[str]]:
    return [[c.strip() for c in line.strip().strip("|").split("|")] for line in table]


def read_appendix(markdown: str) -> tuple[dict[str, str], dict[str, dict[str, str]]]:
    """The book-wide symbols and each chapter's local ones, each with its meaning."""
    tables, current = [], []
    for line in [*markdown.splitlines(), ""]:
        if line.lstrip().startswith("|"):
            current.append(line)
        elif current:
            tables.append(current)
            current = []
    book_wide: dict[str, str] = {}
    local: dict[str, dict[str, str]] = {}
    for table in tables:
        header, *rows = _rows(table)
        rows = [r for r in rows if not set("".join(r)) <= set("-: ")]
        if header[:3] == ["chapter", "symbol", "meaning"]:
            chapters: list[str] = []
            for row in rows:
                chapters = re.findall(r"`(?:[^`<]*<)?([\w-]+)>?`", row[0]) or chapters
                for chapter in chapters:
                    for sym in page_symbols(row[1]):
                        local.setdefault(chapter, {})[sym] = row[2]
        elif header[0] == "symbol":
            for row in rows:
                for sym in page_symbols(row[0]):
                    book_wide[sym] = row[-1]
    return book_wide, local


def notation_problems(pages: dict[str, str], appendix: str) -> list[str]:
    """Every way the pages and the appendix disagree, one line each."""
    book_wide, local = read_appendix(appendix)
    problems = []
    for chapter, entries in sorted(local.items()):
        if chapter not in pages:
            problems.append(f"appendix: local symbols for an unknown page {chapter!r}")
        for sym in sorted(entries.keys() & book_wide.keys()):
            problems.append(
                f"{chapter}: local {sym} ({entries[sym]!r}) is also book-wide ({book_wide[sym]!r}): one symbol, two meanings"
            )
    for name, prose in sorted(pages.items()):
        listed = book_wide.keys() | local.get(name, {}).keys()
        used = page_symbols(prose)
        for sym in sorted(used):
            if sym not in listed and sym.split("_")[0] not in listed:
                problems.append(f"{name}: {sym} is used but not in the notation appendix")
        for sym in sorted(local.get(name, {})):
            if sym not in used and not any(u.startswith(sym + "_") for u in used):
                problems.append(f"{name}: local {sym} is listed but not used")
    return problems


def test_the_symbol_reader_reads_the_conventions():
    assert symbols(r"W^Q, W_i^K \in \mathbb{R}^{d_{\text{model}} \times d_k}") == {
        "W",
        "W_",
        r"\mathbb{R}",
        "d_model",
        "d_",
    }
    assert symbols(r"P_{\text{drop}} = 0.1,\ P_{\text{opt}}") == {"P_drop", "P_opt"}
    assert symbols(r"\bar Y_A = \frac1n \sum_{r=1}^n Y_{A,r}") == {"Y_", "n"}
    assert symbols(r"\operatorname{softmax}(QK^\top/\sqrt{d_k})\,V") == {"Q", "K", "d_", "V"}
    assert symbols(r"e^{z_i} \le \alpha_{ij} \tau") == {"e", "z_", r"\alpha_", r"\tau"}
    assert symbols(r"\operatorname{PE}(pos, 2i)") == {"pos", "i"}
    assert math_spans("a `$x$` b $y$ and $$z$$ and\n```{math}\nw\n```\n") == ["w\n", "z", "y"]


def test_every_symbol_a_page_uses_is_in_the_appendix_with_one_meaning():
    problems = notation_problems(pages(), APPENDIX.read_text())
    assert not problems, "\n".join(problems)


APPENDIX_SAMPLE = """
| symbol | meaning |
|---|---|
| $h$ | number of attention heads |
| $d_{\\text{model}}$, $d$ | a width |

| chapter | symbol | meaning |
|---|---|---|
| {ref}`ch-one` | $h_t$ | hidden state |
| | $\\rho$ | spectral radius |
"""


@pytest.mark.parametrize(
    ("page", "appendix_extra", "expected"),
    [
        ("$h_t = \\rho h_{t-1}$ with $d_k$", "", []),
        ("$h_t = \\rho\\, u$", "", ["ch-one: u is used but not in the notation appendix"]),
        ("$h_t = \\rho$", "| | $\\sigma$ | a gate |\n", ["ch-one: local \\sigma is listed"]),
        (
            "$h_t = \\rho h$",
            "| | $h$ | hidden width |\n",
            ["ch-one: local h ('hidden width') is also book-wide"],
        ),
    ],
)
def test_the_notation_check_can_fail(page, appendix_extra, expected):
    problems = notation_problems({"ch-one": page}, APPENDIX_SAMPLE.rstrip("\n") + "\n" + appendix_extra)
    assert len(problems) == len(expected)
    for problem, start in zip(problems, expected, strict=True):
        assert problem.startswith(start), problem
