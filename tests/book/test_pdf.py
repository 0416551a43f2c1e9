"""make pdf without TeX: what its log check fails on (tools/check_latex_log.py, on excerpts of real logs), that the
target runs it, that CI installs exactly the README's packages, and what the LaTeX build changes in the book."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tools"))
sys.path.insert(0, str(ROOT / "book" / "_ext"))
try:
    import book_latex
    import build_pdf
    import check_latex_log
    import make_helpers
finally:
    sys.path.remove(str(ROOT / "tools"))
    sys.path.remove(str(ROOT / "book" / "_ext"))

# excerpts of the log of make pdf at commit 6f7d6c9 (before the fixes): chapter 1's GRU equation, the errata's
# Chinese inside maths, and boxes a point or three over that nobody sees
OLD_LOG = r"""[19] [20] [21]
Overfull \hbox (180.74323pt too wide) detected at line 806
[]
 []

[22] [23 <./_images/ch01_gradient.png>]
Overfull \vbox (3.17795pt too high) detected at line 2618
 []

Overfull \hbox (0.86426pt too wide) in paragraph at lines 31842--31842
\TU/FreeMono(0)/m/n/10 tional| [3]
 []

[24]
Missing character: There is no 我 (U+6211) in font [latinmodern-math.otf]/OT:script=math;language=dflt;!
Missing character: There is no 是 (U+662F) in font [latinmodern-math.otf]/OT:script=math;language=dflt;!
[25]
"""

ERROR_LOG = r"""(/usr/share/texlive/texmf-dist/tex/xelatex/xecjk/xeCJK.sty
Package: xeCJK 2022/08/05 v3.9.1 [2022/08/05 v1.1]

! LaTeX Error: File `ctexhook.sty' not found.

Type X to quit or <RETURN> to proceed,
or enter new name. (Default extension: sty)

Enter file name:
! Emergency stop.
<read *>

l.55 \prg_new_conditional:Npnn
"""


def test_the_old_log_fails_once_for_each_visible_problem():
    found = check_latex_log.problems(OLD_LOG)
    assert [(p.kind, p.tex_line, p.pdf_page) for p in found] == [
        ("overfull box", 806, 4),  # three pages shipped before it
        ("missing character", None, 7),  # six pages shipped: "[23 <./_images/...>]" is one, "| [3]" in a box is not
        ("missing character", None, 7),
    ]
    assert found[0].detail == "\\hbox 180.7 pt too wide"
    assert found[1].detail == "我 (U+6211) is not in latinmodern-math.otf"


def test_the_threshold_is_strictly_over_five_points_and_can_be_changed():
    log = "Overfull \\hbox (5.0pt too wide) in paragraph at lines 1--2\n\nOverfull \\vbox (5.1pt too high) detected at line 9\n"
    assert [p.tex_line for p in check_latex_log.problems(log)] == [9]
    assert [p.tex_line for p in check_latex_log.problems(log, max_overfull=0)] == [1, 9]
    assert check_latex_log.problems(OLD_LOG, max_overfull=200)[0].kind == "missing character"
    with pytest.raises(ValueError, match="max_overfull: expected a number of points >= 0, got -1"):
        check_latex_log.problems(log, max_overfull=-1)


def test_a_latex_error_is_reported_with_its_line_and_a_date_is_not_a_page():
    found = check_latex_log.problems(ERROR_LOG)
    assert [(p.kind, p.detail, p.tex_line, p.pdf_page) for p in found] == [
        ("error", "LaTeX Error: File `ctexhook.sty' not found.", 55, 1),
        ("error", "Emergency stop.", 55, 1),
    ]


def test_the_command_line_prints_one_line_per_problem_naming_the_book_page(tmp_path, capsys):
    (tmp_path / "book.log").write_text(OLD_LOG, encoding="utf-8")
    tex = ["\\begin{document}"] * 800 + ["\\label{\\detokenize{book/ch01_recurrence::doc}}"] + ["x"] * 10
    (tmp_path / "book.tex").write_text("\n".join(tex), encoding="utf-8")
    assert check_latex_log.main([str(tmp_path / "book.log")]) == 1
    out, err = capsys.readouterr()
    assert out.splitlines() == [
        "book/ch01_recurrence, book.tex line 806, PDF page 4: overfull box: \\hbox 180.7 pt too wide",
        "PDF page 7: missing character: 我 (U+6211) is not in latinmodern-math.otf",
        "PDF page 7: missing character: 是 (U+662F) is not in latinmodern-math.otf",
    ]
    assert err.strip().endswith("0 errors, 2 missing characters, 1 overfull boxes (overfull: more than 5 pt)")
    (tmp_path / "book.log").write_text("[1] [2]\nOutput written on book.pdf (2 pages, 100 bytes).\n")
    assert check_latex_log.main([str(tmp_path / "book.log")]) == 0


def test_a_bad_argument_is_one_line():
    done = subprocess.run(
        [sys.executable, "tools/check_latex_log.py", "_build/none.log"], cwd=ROOT, capture_output=True, text=True
    )
    assert done.returncode == 2 and done.stderr.strip().splitlines()[-1].endswith("log: no such file: _build/none.log")


def test_make_pdf_fails_on_a_log_with_problems_though_latexmk_succeeded(tmp_path, monkeypatch, capsys):
    def write_latex(out, doctrees):
        out.mkdir(parents=True)
        return 0

    def latexmk(out):
        (out / "book.log").write_text(OLD_LOG, encoding="utf-8")
        (out / "book.pdf").write_bytes(b"%PDF")
        return 0

    monkeypatch.setattr(build_pdf, "write_latex", write_latex)
    monkeypatch.setattr(build_pdf, "run_latexmk", latexmk)
    assert build_pdf.main(["--out", str(tmp_path / "latex"), "--doctrees", str(tmp_path / "doctrees")]) == 1
    assert "its log lists the problems above" in capsys.readouterr().err


def test_make_pdf_checks_the_log_and_keeps_its_own_doctrees():
    dry = subprocess.run(["make", "-n", "pdf", "BIN=.venv/bin"], cwd=ROOT, capture_output=True, text=True, check=True)
    assert "tools/build_pdf.py --out _build/latex --doctrees _build/.doctrees-latex" in dry.stdout
    # the HTML builds (make build, make book) use _build/.doctrees
    html = subprocess.run(["make", "-n", "build", "BIN=.venv/bin"], cwd=ROOT, capture_output=True, text=True, check=True)
    assert "_build/.doctrees-latex" not in html.stdout


def test_ci_installs_exactly_the_readme_packages_then_runs_make_test_and_make_pdf():
    packages = make_helpers.pdf_packages((ROOT / "README.md").read_text(encoding="utf-8"))
    assert "fonts-freefont-otf" in packages and "texlive-xetex" in packages  # _config.yml's fonts, xelatex
    run = (ROOT / ".ci" / "run").read_text()
    assert "tools/make_helpers.py pdf-packages" in run and "--no-install-recommends $packages" in run
    commands = [line.strip() for line in run.splitlines() if line.startswith("make ")]
    assert commands == ["make test", "make pdf"]
    with pytest.raises(ValueError, match="readme: expected one `apt-get install --no-install-recommends` command, got 0"):
        make_helpers.pdf_packages("sudo apt-get install texlive-xetex")
    assert make_helpers.pdf_packages("x apt-get install --no-install-recommends a-b \\\n    c2  # d\n") == ["a-b", "c2"]


def test_the_pdf_numbers_as_the_html_does_and_its_parts_are_not_numbered_twice():
    app = SimpleNamespace(builder=SimpleNamespace(format="latex"), config=SimpleNamespace(numfig_secnum_depth=1))
    book_latex.remember_secnum_depth(app, app.config)
    app.config.numfig_secnum_depth = 2  # what sphinx-jupyterbook-latex sets for a book with parts
    book_latex.restore_secnum_depth(app)
    assert app.config.numfig_secnum_depth == 1  # Sphinx numbers theorems as in the HTML: Theorem 3.1
    book_latex.latex_secnum_depth(app)
    assert app.config.numfig_secnum_depth == 2  # LaTeX numbers equations and figures per chapter: (1.4), Fig. 1.1
    tex = "\\part{Part I: Why attention}\n\\part{Part III: Why it works}\n\\part{Appendices}"
    assert book_latex.part_titles_without_numbers(tex) == "\\part{Why attention}\n\\part{Why it works}\n\\part{Appendices}"


CJK = re.compile(r"[\u3000-\u303f\u3400-\u4dbf\u4e00-\u9fff\uff00-\uffef]")


def _maths(markdown: str) -> list[str]:
    """The $...$ and $$...$$ of a markdown text, code spans and fenced blocks left out."""
    text = re.sub(r"^(```|~~~).*?^\1", "", markdown, flags=re.S | re.M)
    text = re.sub(r"`[^`\n]*`", "", text)
    return re.findall(r"\$\$.+?\$\$|\$[^$\n]+\$", text, flags=re.S)


def test_no_chinese_inside_maths():
    # the maths font has no CJK glyphs: xelatex drops the characters (errata "[<s>, ] with targets [ , ]")
    found = []
    for path in sorted((ROOT / "book").glob("*.ipynb")) + sorted((ROOT / "book").glob("*.md")):
        text = path.read_text(encoding="utf-8")
        cells = json.loads(text)["cells"] if path.suffix == ".ipynb" else [{"cell_type": "markdown", "source": text}]
        for cell in cells:
            if cell["cell_type"] == "markdown":
                found += [f"{path.name}: {m}" for m in _maths("".join(cell["source"])) if CJK.search(m)]
    assert found == [], "write the Chinese outside the maths: " + "; ".join(found)
