"""`make pdf`: the whole book as one PDF, _build/latex/book.pdf, checked (tools/check_latex_log.py).

Usage:
    python tools/build_pdf.py [--out _build/latex] [--doctrees _build/.doctrees-latex]

Three steps: Sphinx writes book.tex from the committed outputs (as `jupyter-book build --builder latex` does, with
_config.yml and _toc.yml); latexmk runs xelatex until the references settle (nonstop: a LaTeX error does not wait
for a terminal); tools/check_latex_log.py reads book.log and fails on a LaTeX error, a missing character or an
overfull box. The LaTeX build keeps its own doctrees (--doctrees): sphinx-jupyterbook-latex changes the config for a
LaTeX build, and sharing _build/.doctrees with the HTML build made each build re-read every page after the other.

Exit status 0 when the PDF is built and its log is clean, 1 otherwise (what failed is printed), 2 on bad arguments.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def write_latex(out: Path, doctrees: Path, root: Path = ROOT) -> int:
    """Sphinx's LaTeX build of the book into ``out``; its status code (0 when it succeeded)."""
    from jupyter_book.sphinx import build_sphinx

    result = build_sphinx(
        root,
        out,
        noconfig=True,
        path_config=str(root / "_config.yml"),
        confoverrides={"external_toc_path": (root / "_toc.yml").as_posix(), "latex_individualpages": False},
        doctreedir=doctrees,
        builder="latex",
        keep_going=True,
    )
    return result if isinstance(result, int) else 1


def run_latexmk(out: Path) -> int:
    """Sphinx's Makefile in ``out`` (latexmk, xelatex); its output goes to ``out``/latexmk.out."""
    env = {
        **os.environ,
        "LATEXOPTS": "-interaction=nonstopmode",
        # one log line per message, so that tools/check_latex_log.py reads page numbers whole
        "max_print_line": "100000",
    }
    with open(out / "latexmk.out", "w") as stream:
        done = subprocess.run(["make", "-C", str(out), "all-pdf"], env=env, stdout=stream, stderr=subprocess.STDOUT)
    return done.returncode


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=ROOT / "_build" / "latex", help="default: _build/latex")
    parser.add_argument("--doctrees", type=Path, default=ROOT / "_build" / ".doctrees-latex")
    args = parser.parse_args(argv)
    start = time.monotonic()
    if write_latex(args.out, args.doctrees) != 0:
        print("make pdf: Sphinx could not write book.tex (its messages are above)", file=sys.stderr)
        return 1
    latexmk = run_latexmk(args.out)
    log = args.out / "book.log"
    if not log.is_file():
        print(f"make pdf: xelatex wrote no log; latexmk's output is in {args.out / 'latexmk.out'}", file=sys.stderr)
        return 1
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    import check_latex_log

    clean = check_latex_log.main([str(log)]) == 0
    pdf = args.out / "book.pdf"
    pages = re.search(r"Output written on .*?\((\d+) pages?", log.read_text(encoding="utf-8", errors="replace"))
    if latexmk != 0 or not pdf.is_file():
        print(f"make pdf: latexmk failed (status {latexmk}); its output is in {args.out / 'latexmk.out'}", file=sys.stderr)
        return 1
    if not clean:
        print(f"make pdf: {pdf} was written, but its log lists the problems above", file=sys.stderr)
        return 1
    print(f"PDF: {pdf} ({pages[1] if pages else '?'} pages, {time.monotonic() - start:.0f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
