"""The PDF (make pdf) numbered and titled as the HTML book is.

- sphinx-jupyterbook-latex sets ``numfig_secnum_depth`` to 2 for a LaTeX build with parts. LaTeX needs it (with parts
  on top, 2 is what numbers equations and figures per chapter, (1.4) and Fig. 1.1, as the HTML does), but Sphinx
  numbers theorems with it too, and the PDF said "Theorem 3.2.1" where the HTML says "Theorem 3.1". So Sphinx reads
  the pages with the value of _config.yml, and the LaTeX writer gets sphinx-jupyterbook-latex's value after the
  environment is saved (which also keeps a second make pdf from re-reading every page for a changed config).
- The parts of _toc.yml are captioned "Part I: Why attention" for the HTML sidebar; LaTeX numbers parts itself, and
  the contents read "I Part I: Why attention". In the .tex, a part's title loses its "Part I: ".
"""

from __future__ import annotations

import re

from book_extras import rewrite_latex_documents

_PART_PREFIX = re.compile(r"\\part\{Part [IVXLC]+: ")


def part_titles_without_numbers(tex: str) -> str:
    """``\\part{Part I: Why attention}`` -> ``\\part{Why attention}``; other parts unchanged."""
    return _PART_PREFIX.sub(r"\\part{", tex)


def remember_secnum_depth(app, config) -> None:
    app.book_numfig_secnum_depth = config.numfig_secnum_depth


def restore_secnum_depth(app) -> None:
    if app.builder.format == "latex":
        app.book_latex_numfig_secnum_depth = app.config.numfig_secnum_depth
        app.config.numfig_secnum_depth = app.book_numfig_secnum_depth


def latex_secnum_depth(app, doctree=None, docname=None) -> None:
    if app.builder.format == "latex":
        app.config.numfig_secnum_depth = app.book_latex_numfig_secnum_depth


def strip_part_numbers(app, exception) -> None:
    rewrite_latex_documents(app, exception, lambda tex, _: part_titles_without_numbers(tex))


def setup(app):
    # before sphinx-jupyterbook-latex's config-inited (priority 500) and after its builder-inited
    app.connect("config-inited", remember_secnum_depth, priority=100)
    app.connect("builder-inited", restore_secnum_depth, priority=900)
    # the LaTeX builder resolves the whole book's doctree after pickling the environment, and then writes
    app.connect("doctree-resolved", latex_secnum_depth)
    app.connect("build-finished", strip_part_numbers)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
