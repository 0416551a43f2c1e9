"""Find claims that cannot fail in a chapter: typed verdicts and numbers typed into prose.

Used by tests/book/test_notebooks.py and runnable by hand:
    python tools/claim_lint.py book/ch02_attention.ipynb    # lists what it finds

1. Typed verdicts: a string literal in a code cell whose text is a verdict word
   ("agrees", "wrong", "unsourced", ...), alone or followed by ":" or " (".
   Verdicts come from ``bk.claims`` (a rule applied to values), so a flipped
   value flips the printed verdict.
2. Unglued numbers: a number in a markdown cell, outside maths, code, roles
   ({glue}, {cite}, {ref}, ...), labels and links, that is not a section,
   equation, table, figure, chapter or step number, not a year or a source
   document's name, not a small count (0-12), not written in a sentence that
   cites its source ({cite...} or "paper"/"Table"/"§" reference), and does not
   appear in an output of the same notebook.
"""

from __future__ import annotations

import ast
import json
import re
import sys
from pathlib import Path

VERDICT_WORDS = (
    "agrees", "agree", "wrong", "unsourced", "imprecise", "unsupported", "correct", "incorrect",
    "assumed", "not derivable", "confirmed", "misreads the paper", "wrong reason", "ok", "fails", "holds",
    "inherited", "circular",
)  # fmt: skip
_VERDICT = re.compile(r"^(" + "|".join(re.escape(w) for w in VERDICT_WORDS) + r")(\s*$|:|\s\(|\s-|,)", re.IGNORECASE)


def _code_strings(source: str) -> list[str]:
    lines = [line for line in source.splitlines() if not line.lstrip().startswith(("%", "!"))]
    try:
        tree = ast.parse("\n".join(lines))
    except SyntaxError:
        return []
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            found.append(node.value)
        elif isinstance(node, ast.JoinedStr):  # the literal parts of an f-string
            found.extend(v.value for v in node.values if isinstance(v, ast.Constant) and isinstance(v.value, str))
    return found


def typed_verdicts(notebook: dict) -> list[str]:
    hits = []
    for index, cell in enumerate(notebook["cells"]):
        if cell["cell_type"] != "code":
            continue
        for text in _code_strings("".join(cell["source"])):
            if _VERDICT.match(text.strip()):
                hits.append(f"cell {index}: {text.strip()!r}")
    return hits


_STRIP = [
    re.compile(r"```.*?```", re.S),  # fenced blocks (directives, code)
    re.compile(r":::.*?\n", re.S),  # colon-fence openers
    re.compile(r"\$\$.*?\$\$", re.S),  # display maths
    re.compile(r"\$[^$\n]+\$"),  # inline maths
    re.compile(r"\{[\w:-]+\}`[^`]*`"),  # roles: {glue}`x`, {cite}`x`, {ref}`x`, {eq}`x` ...
    re.compile(r"`[^`]*`"),  # inline code
    re.compile(r"^\([\w:-]+\)=\s*$", re.M),  # labels
    re.compile(r"\]\([^)]*\)"),  # link targets
    re.compile(r"<[^>]+>"),  # html tags
    re.compile(r"^:[\w-]+:.*$", re.M),  # directive options
]
_NUMBER = re.compile(r"(?<![\w.§/-])(\d+(?:[ ,\u202f\u2009]\d{3})*(?:\.\d+)?)(?![\w%]|\.\d)")
_REFERENCE_BEFORE = re.compile(
    r"(§|section|sections|chapter|chapters|table|tables|figure|figures|fig\.|eq\.|eqs\.|equation|equations|step|steps|"
    r"document|documents|appendix|footnote|line|lines|page|pages|p\.|theorem|row|rows|part|parts|exercise|version|"
    r"python|torch|pytorch|jupyter book|layer|layers|head|heads|stop|issue|rule|column|columns|cell|cells)[\s.:(]*$",
    re.IGNORECASE,
)
_CITED_SENTENCE = re.compile(r"\{cite[\w:]*\}|§|\bTable \d|\bEq\. \d|\bSection \d|\bpaper\b|\bthe paper's\b", re.IGNORECASE)


def _normalise(number: str) -> str:
    return re.sub(r"[ ,\u202f\u2009]", "", number)


def _output_text(notebook: dict) -> str:
    parts = []
    for cell in notebook["cells"]:
        for output in cell.get("outputs", []):
            parts.append("".join(output.get("text", "")))
            for mime, data in output.get("data", {}).items():
                if "text" in mime or "markdown" in mime:
                    parts.append("".join(data) if isinstance(data, list) else str(data))
    text = "\n".join(parts)
    return text + "\n" + _normalise(text)


def unglued_numbers(notebook: dict) -> list[str]:
    outputs = _output_text(notebook)
    hits = []
    for index, cell in enumerate(notebook["cells"]):
        if cell["cell_type"] != "markdown":
            continue
        text = "".join(cell["source"])
        for pattern in _STRIP:
            text = pattern.sub(" ", text)
        for sentence in re.split(r"(?<=[.;!?])\s+|\n\s*\n|\n[-*] ", text):
            cited = bool(_CITED_SENTENCE.search(sentence))
            for match in _NUMBER.finditer(sentence):
                number = match.group(1)
                plain = _normalise(number)
                before = sentence[max(0, match.start() - 20) : match.start()]
                if cited or _REFERENCE_BEFORE.search(before):
                    continue
                if re.fullmatch(r"00\d", plain) or re.fullmatch(r"(19|20)\d\d", plain):
                    continue  # a source document's name, a year
                if "." not in plain and int(plain) <= 12:
                    continue  # a small count written as a numeral
                if number in outputs or plain in outputs:
                    continue
                hits.append(f"cell {index}: {number!r} in {sentence.strip()[:90]!r}")
    return hits


def main(paths: list[str]) -> int:
    total = 0
    for name in paths:
        notebook = json.loads(Path(name).read_text())
        verdicts, numbers = typed_verdicts(notebook), unglued_numbers(notebook)
        total += len(verdicts) + len(numbers)
        print(f"{name}: {len(verdicts)} typed verdicts, {len(numbers)} unglued numbers")
        for hit in verdicts + numbers:
            print("   ", hit)
    return 1 if total else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
