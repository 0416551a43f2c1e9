"""Static checks of the book's notebooks and table of contents.

Strict nbval (``make nbval``) re-executes every notebook and compares outputs;
these tests check what nbval cannot: that every cell was executed, that no
output is an error, that every figure's numbers are also printed, and that the
table of contents and the files on disk agree.
"""

import json
import re
import sys
from pathlib import Path

import pytest
import yaml

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tools"))
from install_cell import RELEASE, install_cell

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = sorted((ROOT / "book").glob("*.ipynb"))
TOC = yaml.safe_load((ROOT / "_toc.yml").read_text())


def _toc_files(node) -> list[str]:
    files = []
    if isinstance(node, dict):
        if "file" in node:
            files.append(node["file"])
        if "root" in node:
            files.append(node["root"])
        for value in node.values():
            files.extend(_toc_files(value))
    elif isinstance(node, list):
        for item in node:
            files.extend(_toc_files(item))
    return files


TOC_FILES = _toc_files(TOC)


def _code_cells(path: Path) -> list[dict]:
    return [c for c in json.loads(path.read_text())["cells"] if c["cell_type"] == "code"]


def test_there_are_notebooks():
    assert NOTEBOOKS, "no notebooks found in book/"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_every_code_cell_is_executed_in_order(path):
    cells = [c for c in _code_cells(path) if "".join(c["source"]).strip()]
    counts = [c["execution_count"] for c in cells]
    assert None not in counts, f"{path.name}: unexecuted cells; run `make execute`"
    assert counts == list(range(1, len(counts) + 1)), f"{path.name}: cells executed out of order: {counts}"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_no_error_outputs(path):
    for cell in _code_cells(path):
        for output in cell["outputs"]:
            assert output["output_type"] != "error", f"{path.name}: {output.get('ename')}: {output.get('evalue')}"
            assert output.get("name") != "stderr", f"{path.name}: stderr output: {''.join(output['text'])[:200]}"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_every_figure_prints_its_numbers(path):
    """nbval does not compare images, so a cell that draws must also print text."""
    for cell in _code_cells(path):
        kinds = {o["output_type"] for o in cell["outputs"]}
        has_image = any("image/png" in o.get("data", {}) for o in cell["outputs"])
        if has_image:
            assert "stream" in kinds, f"{path.name}: a figure cell prints no numbers:\n{''.join(cell['source'])[:300]}"


MAX_PRINTED_LINE = 95  # at the book's output size (0.8rem) 96 characters fit the 780 px column at 1400 px


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_printed_lines_fit_the_column(path):
    """A longer line scrolls sideways inside its output box on the page (CONTRIBUTING, "The page")."""
    too_long = []
    for cell in _code_cells(path):
        for output in cell["outputs"]:
            data = output.get("data", {})
            if output["output_type"] == "stream":
                text = "".join(output["text"])
            elif "text/html" not in data and "text/latex" not in data:  # an HTML table is laid out by the browser
                text = "".join(data.get("text/plain", ""))
            else:
                continue
            too_long += [line for line in text.splitlines() if len(line) > MAX_PRINTED_LINE]
    assert not too_long, f"{path.name}: {len(too_long)} printed lines over {MAX_PRINTED_LINE} characters, e.g. {too_long[0]!r}"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_first_cell_installs_the_library_where_it_is_missing(path):
    """Colab and downloaded notebooks: the first code cell is the hidden install cell, exactly."""
    first = _code_cells(path)[0]
    assert first == install_cell(), f"{path.name}: run `python tools/install_cell.py {path.relative_to(ROOT)}`"
    assert first["outputs"] == [] and "remove-cell" in first["metadata"]["tags"]


def test_install_cell_names_the_repository_not_the_unrelated_pypi_package():
    text = "".join(install_cell()["source"])
    assert "transformer_lib @ git+https://github.com/" in text and f"@{RELEASE}" in text


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_set_up_is_deterministic_and_few_outputs_are_ignored(path):
    cells = _code_cells(path)
    assert "tl.deterministic(" in "".join(cells[1]["source"]), f"{path.name}: the set-up cell must call tl.deterministic"
    ignored = sum(bool(re.search(r"NBVAL_(IGNORE_OUTPUT|SKIP)", "".join(c["source"]))) for c in cells)
    assert ignored * 4 <= len(cells), f"{path.name}: {ignored} of {len(cells)} cells are excluded from nbval"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_every_notebook_is_in_the_table_of_contents(path):
    assert path.relative_to(ROOT).with_suffix("").as_posix() in TOC_FILES


def test_every_toc_entry_exists():
    for entry in TOC_FILES:
        candidates = [ROOT / f"{entry}{suffix}" for suffix in (".ipynb", ".md")]
        assert any(c.exists() for c in candidates), f"_toc.yml lists {entry}, which does not exist"


def test_strict_nbval_everywhere():
    for name in ("Makefile", ".ci/run", "pyproject.toml"):
        assert "nbval-lax" not in (ROOT / name).read_text()
    assert "--nbval " in (ROOT / "Makefile").read_text()


# --- claims that cannot fail (tools/claim_lint.py) ---------------------------------

from claim_lint import typed_verdicts, unglued_numbers  # noqa: E402  (tools/ is on sys.path above)


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_no_verdict_is_typed_next_to_a_value(path):
    """A verdict comes from tl.claims (a rule applied to the values), never from a string literal."""
    hits = typed_verdicts(json.loads(path.read_text()))
    assert not hits, f"{path.name}: verdicts typed into code (use tl.claims):\n" + "\n".join(hits)


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_every_number_in_the_prose_is_glued_printed_or_cited(path):
    """A number in the text comes from tl.glue, appears in the chapter's outputs, or is cited where it stands."""
    hits = unglued_numbers(json.loads(path.read_text()))
    assert not hits, f"{path.name}: numbers typed into the prose (glue them):\n" + "\n".join(hits)


def test_the_claim_checks_can_fail():
    notebook = {
        "cells": [
            {"cell_type": "code", "source": ['rows = [["000", "d_k = 512", f"{d}", "wrong"]]\n'], "outputs": []},
            {"cell_type": "markdown", "source": ["The loss falls to 0.823 after 300 updates."]},
            {"cell_type": "markdown", "source": ["The paper's base model has 65 million parameters {cite}`v`."]},
            {"cell_type": "markdown", "source": ["Section 3 shows {glue}`loss` and $0.5$ and `0.25`; 2 heads."]},
        ]
    }
    assert typed_verdicts(notebook) == ["cell 0: 'wrong'"]
    assert [h.split(" in ")[0] for h in unglued_numbers(notebook)] == ["cell 1: '0.823'", "cell 1: '300'"]
    notebook["cells"][0]["outputs"] = [{"output_type": "stream", "name": "stdout", "text": ["loss 0.823 at 300"]}]
    assert unglued_numbers(notebook) == []
