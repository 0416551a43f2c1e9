"""How the book is built: make book executes into a cache and never into the sources; make test renders the
committed outputs; the bibliography labels entries the way the text cites them."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import nbformat
import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]


def test_config_renders_committed_outputs():
    # make test / make build use _config.yml as it is: the page must show what nbval verified
    config = yaml.safe_load((ROOT / "_config.yml").read_text())
    assert config["execute"]["execute_notebooks"] == "off"


def test_make_book_builds_from_the_cache_not_in_place():
    dry = subprocess.run(["make", "-n", "book", "BIN=.venv/bin"], cwd=ROOT, capture_output=True, text=True, check=True)
    assert "tools/execute_cache.py" in dry.stdout
    assert "tools/make_helpers.py book-config" in dry.stdout
    assert "--config _build/_config_book.yml" in dry.stdout
    assert "--inplace" not in dry.stdout


def test_the_book_config_renders_the_cache_and_the_key_follows_both_packages(tmp_path):
    sys.path.insert(0, str(ROOT / "tools"))
    try:
        import make_helpers
    finally:
        sys.path.remove(str(ROOT / "tools"))
    out = tmp_path / "book.yml"
    make_helpers.book_config(tmp_path / "cache", out)
    config = yaml.safe_load(out.read_text())
    assert config["execute"]["execute_notebooks"] == "cache" and config["execute"]["cache"] == str(tmp_path / "cache")
    assert all(Path(path).is_absolute() for path in config["sphinx"]["local_extensions"].values())
    # the cache key changes with either package (a chapter's outputs depend on both) and with the pins
    for package in ("transformer_lib", "book_support"):
        (tmp_path / package).mkdir()
        (tmp_path / package / "m.py").write_text("x = 1\n")
    (tmp_path / "requirements.txt").write_text("torch==2.13.0\n")
    before = make_helpers.book_key(tmp_path)
    for changed in ("transformer_lib/m.py", "book_support/m.py", "requirements.txt"):
        (tmp_path / changed).write_text((tmp_path / changed).read_text() + "# edit\n")
        after = make_helpers.book_key(tmp_path)
        assert after != before, changed
        before = after


@pytest.mark.slow
@pytest.mark.timeout(300)
def test_execute_cache_leaves_the_notebook_alone_and_skips_it_when_cached(tmp_path):
    notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("print(6 * 7)")])
    notebook.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    path = tmp_path / "tiny.ipynb"
    nbformat.write(notebook, path)
    before = path.read_bytes()
    command = [sys.executable, str(ROOT / "tools" / "execute_cache.py"), "--cache", str(tmp_path / "cache"), str(path)]

    first = subprocess.run(command, capture_output=True, text=True)
    assert first.returncode == 0, first.stderr
    assert "0 cached, 1 to execute" in first.stdout
    second = subprocess.run(command, capture_output=True, text=True)
    assert "1 cached, 0 to execute" in second.stdout
    assert path.read_bytes() == before  # the source is only read

    # myst-nb's cache mode looks the notebook up the same way and gets the executed outputs
    from jupyter_cache import get_cache

    cache = get_cache(str(tmp_path / "cache"))
    _, merged = cache.merge_match_into_notebook(nbformat.read(path, as_version=4))
    assert merged.cells[0].outputs[0]["text"] == "42\n"


def test_bibliography_labels_read_like_the_citations():
    sys.path.insert(0, str(ROOT / "book" / "_ext"))
    try:
        import book_extras
    finally:
        sys.path.remove(str(ROOT / "book" / "_ext"))
    from pybtex.database import parse_string

    bib = parse_string(
        """
        @article{a, author = {Vaswani, Ashish and Shazeer, Noam and Parmar, Niki}, title = {A}, year = {2017}}
        @article{b, author = {Ba, Jimmy Lei and Kingma, Diederik}, title = {B}, year = {2016}}
        @article{c, author = {Elman, Jeffrey L.}, title = {C}, year = {1990}}
        @article{d, author = {Wang, Sinong and Li, Belinda and Khabsa, Madian}, title = {D1}, year = {2020}}
        @article{e, author = {Wang, Qiang and Li, Bei and Xiao, Tong}, title = {D2}, year = {2020}}
        """,
        "bibtex",
    )
    labels = list(book_extras.AuthorYearLabelStyle().format_labels(bib.entries.values()))
    assert labels[:3] == ["Vaswani et al., 2017", "Ba and Kingma, 2016", "Elman, 1990"]
    assert labels[3:] == ["Wang et al., 2020a", "Wang et al., 2020b"]


def test_a_page_names_no_network_script_it_does_not_need(tmp_path):
    """jupyter-book loads sphinx_thebe, which wrote thebe's CDN address (THEBE_JS_URL, unpkg.com) into every page
    though the book has no Thebe button; book_extras drops those scripts. Built here with the two extensions on a
    one-page project (fails without book_extras' html-page-context handler)."""
    from sphinx.application import Sphinx

    source = tmp_path / "src"
    source.mkdir()
    (source / "conf.py").write_text(
        f"import sys\nsys.path.insert(0, {str(ROOT / 'book' / '_ext')!r})\nextensions = ['sphinx_thebe', 'book_extras']\n"
    )
    (source / "index.rst").write_text("Page\n====\n\nText.\n")
    app = Sphinx(str(source), str(source), str(tmp_path / "html"), str(tmp_path / "doctrees"), "html", status=None, warning=None)
    app.build()
    page = (tmp_path / "html" / "index.html").read_text()
    assert "THEBE_JS_URL" not in page and "unpkg.com" not in page and "sphinx-thebe.js" not in page
    assert "<script" in page  # the page's other scripts are still there


def test_the_claims_appendix_is_what_the_ledger_gives():
    """book/appendix_claims.md is generated from book_support/ledger (tools/ledger_index.py): never stale."""
    done = subprocess.run([sys.executable, "tools/ledger_index.py", "--check"], cwd=ROOT, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr


def test_the_claims_appendix_check_can_fail(tmp_path, monkeypatch):
    sys.path.insert(0, str(ROOT / "tools"))
    import ledger_index

    monkeypatch.setattr(ledger_index, "PAGE", tmp_path / "appendix_claims.md")
    (tmp_path / "appendix_claims.md").write_text(ledger_index.render().replace("Verdict: *", "Verdict: *not ", 1))
    assert ledger_index.main(["--check"]) == 1
    assert ledger_index.main([]) == 0 and ledger_index.main(["--check"]) == 0


def test_the_introductions_counts_are_what_the_pages_give():
    """book/intro.md's promises (compared cells, sympy coverage, models) carry counts from tools/book_counts.py."""
    sys.path.insert(0, str(ROOT / "tools"))
    import book_counts

    assert book_counts.main(["--check"]) == 0, "book/intro.md is stale: run python tools/book_counts.py"


def test_the_introductions_count_check_can_fail(tmp_path, monkeypatch):
    sys.path.insert(0, str(ROOT / "tools"))
    import book_counts

    current = book_counts.render()
    monkeypatch.setattr(book_counts, "PAGE", tmp_path / "intro.md")
    (tmp_path / "intro.md").write_text(current.replace("code cells", "cells", 1))
    assert book_counts.main(["--check"]) == 1
    assert book_counts.main([]) == 0 and book_counts.main(["--check"]) == 0


def test_every_theorem_says_what_sympy_checks_of_it():
    """Each theorem on a page has one entry in derivations.theorems, naming derivations that exist; no stale entry."""
    sys.path.insert(0, str(ROOT / "tools"))
    import book_counts

    from book_support.derivations.core import _REGISTRY
    from book_support.derivations.theorems import THEOREMS

    labels = [entry.label for entry in THEOREMS]
    assert len(labels) == len(set(labels)), "a theorem has two entries"
    assert set(labels) == set(book_counts.theorem_labels()), "pages and derivations.theorems disagree"
    missing = [(entry.label, b) for entry in THEOREMS for b in entry.builders if b not in _REGISTRY]
    assert not missing, missing


def test_a_theorem_entry_must_say_what_the_written_proof_carries():
    from book_support.derivations.theorems import TheoremCheck

    with pytest.raises(ValueError, match="note"):
        TheoremCheck("thm-x", ("attention_convexity",), "part")
    with pytest.raises(ValueError, match="if and only if"):
        TheoremCheck("thm-x", (), "statement")
    with pytest.raises(ValueError, match="covers must be"):
        TheoremCheck("thm-x", ("attention_convexity",), "all of it")
