"""Fail on what makes the PDF wrong, read from the LaTeX log of `make pdf` (_build/latex/book.log).

Usage:
    python tools/check_latex_log.py _build/latex/book.log [--tex _build/latex/book.tex] [--max-overfull 5]

Three kinds of problem, one line each, with the source page of the book, the line of book.tex and the page of the
PDF where TeX was when it reported it:
  - a LaTeX error (a log line starting with "! "), whatever it is;
  - a missing character ("Missing character: There is no ..."): a glyph the font does not have, left out of the
    PDF without a word (xelatex goes on);
  - an overfull box more than MAX_OVERFULL points (default 5) too wide or too high: text or an equation running
    into the margin, or content running off the foot of the page. Sphinx's own layout leaves a few boxes under 3.2 pt
    over (a table rule, an admonition's frame, a float a line too tall), invisible on paper; 5 pt is
    about a character of the output font, the smallest overflow a reader sees, and the first one that is not
    layout noise.

Reads the log as xelatex writes it with a long max_print_line (tools/build_pdf.py sets it); with TeX's default of
79 characters a message still starts its line, so nothing is missed, though a page number split over two lines can
make the page reported one off. Exit status 0 when the log is clean, 1 when it lists problems, 2 on bad arguments.
"""

from __future__ import annotations

import argparse
import re
import sys
from dataclasses import dataclass
from pathlib import Path

DEFAULT_MAX_OVERFULL = 5.0  # points; see the module docstring

_OVERFULL = re.compile(
    r"^Overfull \\([hv])box \((?P<points>[0-9.]+)pt too (?:wide|high)\)"
    r"(?: in (?:paragraph|alignment) at lines (?P<first>\d+)--\d+| detected at line (?P<line>\d+))?"
)
_MISSING = re.compile(r"^Missing character: There is no (?P<char>.+?) \((?P<code>U\+[0-9A-F]+)\) in font (?P<font>[^!]+)!?")
_ERROR = re.compile(r"^! (?P<message>.*)")
_ERROR_LINE = re.compile(r"^l\.(?P<line>\d+)")
# a page shipped out: "[12]", "[12 <./figure.png>]", "[13" at the end of a log line; not "[2023/01/01 ...]"
_SHIPOUT = re.compile(r"(?<![\w\\\]])\[(\d+)(?=[\]\s<{]|$)")
_DOC_LABEL = re.compile(r"\\label\{\\detokenize\{(?P<doc>[^}]+?)::doc\}\}")


@dataclass(frozen=True)
class Problem:
    kind: str  # "error", "missing character", "overfull box"
    detail: str
    tex_line: int | None
    pdf_page: int

    def describe(self, sources: list[tuple[int, str]]) -> str:
        where = [f"PDF page {self.pdf_page}"]
        if self.tex_line is not None:
            where.insert(0, f"book.tex line {self.tex_line}")
            doc = source_of(self.tex_line, sources)
            if doc:
                where.insert(0, doc)
        return f"{', '.join(where)}: {self.kind}: {self.detail}"


def source_of(tex_line: int, sources: list[tuple[int, str]]) -> str | None:
    """The book page (book/ch01_recurrence) whose text book.tex holds at ``tex_line``: the last one starting before."""
    doc = None
    for start, name in sources:
        if start > tex_line:
            break
        doc = name
    return doc


def tex_sources(tex: str) -> list[tuple[int, str]]:
    """(line, page) for each page of the book in book.tex: Sphinx labels the start of each ``\\label{...::doc}``."""
    return [(number, m["doc"]) for number, text in enumerate(tex.splitlines(), 1) for m in _DOC_LABEL.finditer(text)]


def problems(log: str, max_overfull: float = DEFAULT_MAX_OVERFULL) -> list[Problem]:
    """Every error, missing character and overfull box over ``max_overfull`` points in a LaTeX log, in log order."""
    if not isinstance(max_overfull, (int, float)) or isinstance(max_overfull, bool) or not max_overfull >= 0:
        raise ValueError(f"max_overfull: expected a number of points >= 0, got {max_overfull!r}")
    found: list[Problem] = []
    lines = log.splitlines()
    shipped = 0  # pages shipped out so far: what TeX reports is on the next one
    i = 0
    while i < len(lines):
        text = lines[i]
        page = shipped + 1
        if m := _OVERFULL.match(text):
            tex_line = int(m["first"] or m["line"]) if (m["first"] or m["line"]) else None
            if float(m["points"]) > max_overfull:
                box = "hbox" if text.startswith("Overfull \\h") else "vbox"
                excerpt = lines[i + 1].strip() if box == "hbox" and i + 1 < len(lines) else ""
                size = f"{float(m['points']):.1f} pt too {'wide' if box == 'hbox' else 'high'}"
                detail = f"\\{box} {size}" + (f" ({excerpt[:80]})" if excerpt and excerpt != "[]" else "")
                found.append(Problem("overfull box", detail, tex_line, page))
            # the box's contents follow, up to a blank line: not page numbers
            while i + 1 < len(lines) and lines[i + 1].strip():
                i += 1
        elif m := _MISSING.match(text):
            font = m["font"].strip().split("/")[0].strip("[]")
            # xelatex does not say where: the page is exact, the line of book.tex unknown
            found.append(Problem("missing character", f"{m['char']} ({m['code']}) is not in {font}", None, page))
        elif m := _ERROR.match(text):
            tex_line = None
            for following in lines[i + 1 : i + 12]:
                if n := _ERROR_LINE.match(following):
                    tex_line = int(n["line"])
                    break
            found.append(Problem("error", m["message"].strip(), tex_line, page))
        else:
            shipped += len(_SHIPOUT.findall(text))
        i += 1
    return found


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("log", type=Path, help="the LaTeX log, e.g. _build/latex/book.log")
    parser.add_argument("--tex", type=Path, help="the .tex file, to name the book page (default: the log's .tex)")
    parser.add_argument("--max-overfull", type=float, default=DEFAULT_MAX_OVERFULL, help="points (default 5)")
    args = parser.parse_args(argv)
    if not args.log.is_file():
        parser.error(f"log: no such file: {args.log}")
    if not args.max_overfull >= 0:
        parser.error(f"--max-overfull: expected a number of points >= 0, got {args.max_overfull}")
    tex = args.tex or args.log.with_suffix(".tex")
    sources = tex_sources(tex.read_text(encoding="utf-8", errors="replace")) if tex.is_file() else []
    found = problems(args.log.read_text(encoding="utf-8", errors="replace"), args.max_overfull)
    for problem in found:
        print(problem.describe(sources))
    if found:
        kinds = {"error": "errors", "missing character": "missing characters", "overfull box": "overfull boxes"}
        summary = ", ".join(f"{sum(p.kind == kind for p in found)} {plural}" for kind, plural in kinds.items())
        print(f"{args.log}: {summary} (overfull: more than {args.max_overfull:g} pt)", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
