"""Static checks of the book's notebooks and table of contents.

Strict nbval (``make nbval``) re-executes every notebook and compares outputs;
these tests check what nbval cannot: that every cell was executed, that no
output is an error, that every figure's numbers are also printed, and that the
table of contents and the files on disk agree.
"""

import ast
import base64
import functools
import json
import re
import sys
from pathlib import Path

import pytest
import yaml

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tools"))
from install_cell import install_cell, wheel_url

ROOT = Path(__file__).resolve().parents[2]
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
def test_no_cell_shows_a_stray_return_value(path):
    # a cell ending in a call that returns a value shows it on the page ('wrong' under a hidden errata cell);
    # what a page shows is printed, displayed or glued on purpose
    for cell in _code_cells(path):
        for output in cell["outputs"]:
            if output["output_type"] == "execute_result":
                shown = "".join(output["data"].get("text/plain", ""))[:60]
                last = "".join(cell["source"]).strip().splitlines()[-1]
                raise AssertionError(f"{path.name}: the cell ending {last!r} shows {shown!r}: print, display or glue it")


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_every_figure_prints_its_numbers(path):
    """nbval does not compare images, so a cell that draws must also print text."""
    for cell in _code_cells(path):
        kinds = {o["output_type"] for o in cell["outputs"]}
        has_image = any("image/png" in o.get("data", {}) for o in cell["outputs"])
        if has_image:
            assert "stream" in kinds, f"{path.name}: a figure cell prints no numbers:\n{''.join(cell['source'])[:300]}"


MAX_PRINTED_LINE = 95  # at the book's output size (0.8rem) 96 characters fit the 780 px column at 1400 px
# chapters whose owners keep to 90 (their tables were the widest in the book)
TIGHTER = {"ch-ablations": 90, "ch-cost": 90}
# chapters that time code: the timing check below must find their timings (or it passes vacuously)
TIMED = ("ch-recurrence", "ch-attention", "ch-multihead", "ch-ablations", "ch-cost")
CLOCKS = ("cpu_seconds", "process_time", "thread_time", "perf_counter")


def _label(path: Path) -> str:
    """The chapter label that the notebook's first cell carries, ``(label)=`` (found by label: files get renamed)."""
    match = re.match(r"\((.+?)\)=", "".join(json.loads(path.read_text())["cells"][0]["source"]))
    return match.group(1) if match else ""


def _chapter(label: str) -> Path:
    for path in NOTEBOOKS:
        if _label(path) == label:
            return path
    raise AssertionError(f"no notebook in book/ starts with ({label})=")


IGNORED_TAGS = {"nbval-ignore-output", "nbval-skip"}  # nbval reads these metadata tags; the page does not show them


def _ignored(cell: dict) -> bool:
    return bool(IGNORED_TAGS & set(cell.get("metadata", {}).get("tags", [])))


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_the_page_shows_code_not_test_plumbing(path):
    """nbval's markers are metadata tags, not comments a reader sees on the page: failed on 30 cells of 10
    chapters that began with '# NBVAL_IGNORE_OUTPUT'."""
    marked = [i for i, c in enumerate(_code_cells(path)) if re.search(r"NBVAL_[A-Z_]+|PYTEST_VALIDATE", "".join(c["source"]))]
    assert not marked, f"{path.name}: code cells {marked} carry an nbval comment; use the tag nbval-ignore-output"


MAX_CODE_LINE = 100  # characters of a code line the page column shows without scrolling (CONTRIBUTING, "The page")


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_code_lines_fit_the_column(path):
    """A longer code line scrolls sideways in its cell: failed on 2,014 lines of 17 notebooks."""
    long = [
        (i, len(line))
        for i, cell in enumerate(_code_cells(path))
        for line in "".join(cell["source"]).splitlines()
        if len(line) > MAX_CODE_LINE
    ]
    assert not long, f"{path.name}: (code cell, characters) over {MAX_CODE_LINE}: {long[:10]}"


def _printed_lines(cell: dict):
    """The text lines a code cell shows on the page (not images, HTML tables laid out by the browser, or glue)."""
    for output in cell.get("outputs", []):
        data = output.get("data", {})
        if output["output_type"] == "stream":
            yield from "".join(output["text"]).splitlines()
        elif not {"image/png", "text/html", "text/latex"} & set(data) and "scrapbook" not in output.get("metadata", {}):
            yield from "".join(data.get("text/plain", "")).splitlines()


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_printed_lines_fit_the_column(path):
    """A longer line scrolls sideways inside its output box on the page (CONTRIBUTING, "The page")."""
    limit = TIGHTER.get(_label(path), MAX_PRINTED_LINE)
    too_long = [
        f"code cell {i}: {len(line)} characters: {line[:60]}..."
        for i, cell in enumerate(_code_cells(path))
        for line in _printed_lines(cell)
        if len(line) > limit
    ]
    assert not too_long, f"{path.name}: printed lines over {limit} characters:\n" + "\n".join(too_long)


def _is_timed(node, timed: set) -> bool:
    if any(clock in ast.unparse(node) for clock in CLOCKS):
        return True
    return bool(timed & {n.id for n in ast.walk(node) if isinstance(n, ast.Name)})


def _statements(body):
    """Simple statements in source order, those inside loops, ``with`` and ``if`` blocks included."""
    for statement in body:
        if isinstance(statement, (ast.For, ast.While, ast.If, ast.With, ast.Try)):
            for block in (statement.body, getattr(statement, "orelse", []), getattr(statement, "finalbody", [])):
                yield from _statements(block)
            for handler in getattr(statement, "handlers", []):
                yield from _statements(handler.body)
        elif not isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            yield statement


def _root_name(node) -> str:
    while isinstance(node, (ast.Subscript, ast.Attribute)):
        node = node.value
    return node.id if isinstance(node, ast.Name) else ""


def _only_timings(node, timed: set) -> bool:
    """A clock's result, a timed name, or a dict of nothing else (a dict that also holds results is not timed)."""
    if isinstance(node, ast.Dict):
        return bool(node.values) and all(_only_timings(value, timed) for value in node.values)
    return _is_timed(node, timed)


def _timing_prints(path: Path) -> tuple[bool, list[str]]:
    """Whether the notebook times anything, and the prints of compared cells that a timing decides.

    Names assigned from a clock (or from a timed name) are followed in execution order; a name
    reassigned from something untimed is clean again; ``x.append(<timed>)`` makes ``x`` timed.
    """
    timed: set[str] = set()
    offending, found = [], False
    for i, cell in enumerate(_code_cells(path)):
        for statement in _statements(ast.parse("".join(cell["source"])).body):
            for node in ast.walk(statement):
                if isinstance(node, ast.Call) and ast.unparse(node.func) == "print" and _is_timed(node, timed):
                    if cell.get("outputs") and not _ignored(cell):
                        offending.append(f"code cell {i}: {ast.unparse(node)[:80]}")
            found |= _is_timed(statement, set())
            if isinstance(statement, (ast.Assign, ast.AugAssign)):
                names = {
                    t.id
                    for target in ([statement.target] if isinstance(statement, ast.AugAssign) else statement.targets)
                    if isinstance(target, (ast.Name, ast.Tuple))  # runs[key] = {..., "cpu": ...} keeps `runs` clean
                    for t in ast.walk(target)
                    if isinstance(t, ast.Name)
                }
                if _is_timed(statement.value, timed):
                    timed |= names
                elif isinstance(statement, ast.Assign):
                    timed -= names
            if isinstance(statement, ast.Assign) and _only_timings(statement.value, timed):
                for target in statement.targets:  # seconds[key] = bk.cpu_seconds(...) makes `seconds` timed
                    if isinstance(target, ast.Subscript):
                        timed.add(_root_name(target))
            for node in ast.walk(statement):  # times[key].append(bk.cpu_seconds(...)) makes `times` timed
                if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "append":
                    if any(_is_timed(arg, timed) for arg in node.args):
                        timed.add(_root_name(node.func.value))
    timed.discard("")
    return found, offending


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_no_compared_cell_prints_a_timing(path):
    """What a timing decides (a time, a ratio, a boolean) is printed only in cells nbval does not compare:
    another CPU, or a loaded one, flips it (issue 13). Words the prose needs about timings are glued there."""
    _, offending = _timing_prints(path)
    assert not offending, f"{path.name}: compared cells print what timings decide:\n" + "\n".join(offending)


@pytest.mark.parametrize("label", TIMED)
def test_the_timing_check_finds_the_timings(label):
    found, _ = _timing_prints(_chapter(label))
    assert found, f"({label}): no timing found (the check above would pass vacuously)"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_first_cell_installs_the_library_where_it_is_missing(path):
    """Colab and downloaded notebooks: the first code cell is the hidden install cell, exactly."""
    first = _code_cells(path)[0]
    assert first == install_cell(), f"{path.name}: run `python tools/install_cell.py {path.relative_to(ROOT)}`"
    assert first["outputs"] == [] and "remove-cell" in first["metadata"]["tags"]


def test_install_cell_installs_the_published_wheel_not_the_unrelated_pypi_package():
    """pip gets the wheel's URL (tests/book/test_install.py: the one make build publishes), never a bare name."""
    text = "".join(install_cell()["source"])
    assert '"pip", "install", "--quiet", WHEEL]' in text and wheel_url().endswith(".whl")
    namespace: dict = {}
    exec(text.split("\n\n\nclass")[0], namespace)  # the imports and the constants, not the install
    assert namespace["WHEEL"] == wheel_url()


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_set_up_is_deterministic_and_few_outputs_are_ignored(path):
    cells = _code_cells(path)
    assert "bk.deterministic(" in "".join(cells[1]["source"]), f"{path.name}: the set-up cell must call bk.deterministic"
    ignored = sum(_ignored(c) for c in cells)
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


def test_nbval_runs_the_longest_notebooks_first():
    # book/conftest.py orders the notebooks for xdist's loadfile; a cost entry for a renamed notebook would be dead
    import importlib.util
    from types import SimpleNamespace

    spec = importlib.util.spec_from_file_location("book_conftest", ROOT / "book" / "conftest.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    names = {p.name for p in NOTEBOOKS}
    assert set(module.SECONDS) <= names, f"book/conftest.py costs notebooks that do not exist: {set(module.SECONDS) - names}"
    items = [SimpleNamespace(fspath=ROOT / "book" / p.name, cell=i) for p in NOTEBOOKS for i in range(3)]
    module.pytest_collection_modifyitems(items)
    order = list(dict.fromkeys(Path(str(item.fspath)).name for item in items))
    costs = [module.SECONDS.get(name, 0) for name in order]
    assert costs == sorted(costs, reverse=True), order
    for name in names:  # one notebook's cells keep their order and stay together
        cells = [item.cell for item in items if Path(str(item.fspath)).name == name]
        assert cells == [0, 1, 2], (name, cells)


# --- claims that cannot fail (tools/claim_lint.py) ---------------------------------

from claim_lint import typed_computed, typed_verdicts, unglued_numbers  # noqa: E402  (tools/ is on sys.path above)


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_no_verdict_is_typed_next_to_a_value(path):
    """A verdict comes from bk.claims (a rule applied to the values), never from a string literal."""
    hits = typed_verdicts(json.loads(path.read_text()))
    assert not hits, f"{path.name}: verdicts typed into code (use bk.claims):\n" + "\n".join(hits)


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_every_number_in_the_prose_is_glued_printed_or_cited(path):
    """A number in the text comes from bk.glue, appears in the chapter's outputs, or is cited where it stands."""
    hits = unglued_numbers(json.loads(path.read_text()))
    assert not hits, f"{path.name}: numbers typed into the prose (glue them):\n" + "\n".join(hits)


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_no_computed_value_is_typed_by_hand(path):
    """An audit's computed value comes from code; a fact read from a paper is a citation (bk.ledger.cited)."""
    hits = typed_computed(json.loads(path.read_text()))
    assert not hits, f"{path.name}: computed values typed by hand (compute them, or cite):\n" + "\n".join(hits)


def test_the_typed_computed_check_can_fail():
    code = [
        "keeps_softmax = True\n",
        "table = {'a': 1}\n",
        "filled = {}\n",
        "filled['x'] = run()\n",
        "audit.check('000-a', computed='FFN')\n",
        "audit.check('000-b', computed=not keeps_softmax)\n",
        "audit.check('000-c', computed=table['a'])\n",
        "audit.check('000-d', computed=(0, 768 // 2 - 1))\n",
        "audit.check('000-e', computed=0.9**100)\n",
        "audit.check('000-f', computed=filled['x'])\n",
        "audit.check('000-g', computed=model.d_head)\n",
        "printed_claim('000-h', 'cosmetic', [0.1, 0.2])\n",
    ]
    hits = typed_computed({"cells": [{"cell_type": "code", "source": code, "outputs": []}]})
    assert [h.split(": ", 1)[1] for h in hits] == [
        "computed='FFN'", "computed=not keeps_softmax", "computed=table['a']",
        "values=[0.1, 0.2]",
    ]  # fmt: skip


_BLOCK_HEAD = re.compile(r"^\S.*? \[((?:000|001|002|003|004|paper)-[a-z0-9-]+)\]  ")


def _printed_verdicts(path: Path) -> list[tuple[str, str]]:
    """(record id, verdict) for every audit block a notebook prints (bk.claims.Audit.format)."""
    from book_support.claims import VERDICTS

    verdict_line = re.compile(r"^    (" + "|".join(re.escape(w) for w in VERDICTS) + r"):")
    found = []
    for cell in _code_cells(path):
        for output in cell.get("outputs", []):
            lines = "".join(output.get("text", "")).splitlines()
            for i, line in enumerate(lines):
                head = _BLOCK_HEAD.match(line)
                if head:
                    word = next((m.group(1) for m in map(verdict_line.match, lines[i + 1 : i + 15]) if m), None)
                    found.append((head.group(1), word))
    return found


@functools.cache
def _all_printed_verdicts() -> dict[str, list[tuple[str, str]]]:
    return {path.name: _printed_verdicts(path) for path in NOTEBOOKS}


def test_one_claim_one_verdict_on_every_page():
    """Every page that judges a ledger record prints the ledger's verdict for it; no page judges a claim
    the ledger does not state, and every record is judged somewhere."""
    from book_support import ledger

    records = {r.id: r for r in ledger.records()}
    problems = []
    judged = set()
    for page, pairs in _all_printed_verdicts().items():
        for id, word in pairs:
            judged.add(id)
            if id not in records:
                problems.append(f"{page}: prints a verdict for {id!r}, which the ledger does not state")
            elif word != records[id].verdict:
                problems.append(f"{page}: {id} prints {word!r}, the ledger records {records[id].verdict!r}")
    problems += [f"record {id} is judged on no page" for id in sorted(set(records) - judged)]
    assert not problems, "\n".join(problems)


def _errata_entries() -> dict[str, dict[str, str]]:
    """label -> {"severity": ..., "verdict": ...} from the errata appendix's glued values."""
    notebook = json.loads((ROOT / "book" / "appendix_errata.ipynb").read_text())
    entries: dict[str, dict[str, str]] = {}
    for cell in notebook["cells"]:
        for output in cell.get("outputs", []):
            name = output.get("metadata", {}).get("scrapbook", {}).get("name", "")
            text = output.get("data", {}).get("application/papermill.record/text/plain", "").strip("'\"")
            if name.startswith("s-errata-"):
                entries.setdefault(name[2:], {})["severity"] = text
            elif name.startswith("v-errata-"):
                entries.setdefault(name[2:], {})["verdict"] = text.split(" (")[0]
    return entries


def test_an_erratum_never_attacks_a_claim_the_book_finds_right():
    """An entry whose claim holds (agrees, supported by citation) is a caveat, and only such an entry is."""
    from book_support.claims import AGREES, AGREES_BY_CONSTRUCTION, SUPPORTED

    entries = _errata_entries()
    assert len(entries) > 50
    wrong = [
        f"{label}: severity {e['severity']!r} with verdict {e['verdict']!r}"
        for label, e in sorted(entries.items())
        if (e["verdict"] in (AGREES, AGREES_BY_CONSTRUCTION, SUPPORTED)) != (e["severity"] == "caveat")
    ]
    assert not wrong, "\n".join(wrong)


def test_the_verdict_reader_finds_every_block(tmp_path):
    text = (
        "Document 000\n000 §2.2.2 [000-score-range]  unscaled scores may reach about ±100 (typical\n"
        "    largest of 64)\n    wrong: claimed 100 · computed 53 · rule: ...\n"
        "002 §7.1 [002-large-batches]  the speed-up needs large batches\n    unsourced: no source\nverdicts: ...\n"
    )
    cell = {"cell_type": "code", "source": [], "outputs": [{"output_type": "stream", "name": "stdout", "text": [text]}]}
    path = tmp_path / "page.ipynb"
    path.write_text(json.dumps({"cells": [cell]}))
    assert _printed_verdicts(path) == [("000-score-range", "wrong"), ("002-large-batches", "unsourced")]


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


# --- rounding noise printed as digits (issue 18) -----------------------------------

TINY = 1e-12
NUMBER = re.compile(r"(?<![\w.])[-+]?(?:\d+\.\d*|\.\d+|\d+)(?:[eE][-+]?\d+)?(?![\w.])")
# a compared cell may print N tiny values with several digits if a comment in it says why they hold on every CPU:
# "# stable digits (N): <reason>"; the count pins the exemption to the values it was written for
STABLE = re.compile(r"#\s*stable digits\s*(?:\((\d+)\))?\s*:\s*(.*)")


def _significant_digits(token: str) -> int:
    mantissa = token.lstrip("+-").lower().split("e")[0]
    digits = mantissa.replace(".", "").lstrip("0")
    return len(digits) if "." in mantissa else len(digits.rstrip("0"))


def _compared_texts(cell: dict):
    """What strict nbval compares of a cell's outputs: streams and every data type but images (glue included)."""
    for output in cell.get("outputs", []):
        if output["output_type"] == "stream":
            yield "".join(output["text"])
        for kind, value in output.get("data", {}).items():
            if not kind.startswith("image/"):
                yield "".join(value) if isinstance(value, list) else str(value)


def _stability_claim(cell: dict) -> tuple[int | None, str]:
    """The count and the reason of a ``# stable digits (N): ...`` comment, continuation lines included."""
    lines = "".join(cell["source"]).splitlines()
    for i, line in enumerate(lines):
        match = STABLE.search(line)
        if match:
            reason = [match.group(2).strip()]
            for following in lines[i + 1 :]:  # the comment lines that continue it
                if not following.strip().startswith("#"):
                    break
                reason.append(following.strip().lstrip("#").strip())
            return (int(match.group(1)) if match.group(1) else None), " ".join(reason).strip()
    return None, ""


def tiny_values_with_digits(notebook: dict) -> list[str]:
    """Compared outputs that print a nonzero float below 1e-12 with more than one significant digit.

    Such a value is usually rounding noise (a residual of a few units in the last place), whose digits
    depend on the CPU's kernels: print it as the bound it satisfies (``bk.claims.below``) or as a verdict.
    A real tiny quantity (a product of many factors, computed to float64's relative precision) may keep
    its digits if the cell says why in a ``# stable digits (N): <reason>`` comment, the reason eight words
    or more and N the number of such values the cell prints (so one printed later is not waved through).
    """
    hits = []
    for i, cell in enumerate(c for c in notebook["cells"] if c["cell_type"] == "code"):
        if _ignored(cell):
            continue
        found = []
        for text in _compared_texts(cell):
            for match in NUMBER.finditer(text):
                value = float(match.group())
                if 0 < abs(value) < TINY and _significant_digits(match.group()) > 1:
                    line = text[text.rfind("\n", 0, match.start()) + 1 :].split("\n", 1)[0]
                    found.append(f"code cell {i}: {match.group()!r} in {line.strip()[:80]!r}")
        count, reason = _stability_claim(cell)
        if count == len(found) and len(reason.split()) >= 8:
            continue
        if count is not None and found:
            found.append(f"code cell {i}: its '# stable digits ({count})' comment covers {count}, it prints {len(found)}")
        hits.extend(found)
    return hits


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_no_compared_output_prints_rounding_noise_as_digits(path):
    hits = tiny_values_with_digits(json.loads(path.read_text()))
    assert not hits, (
        f"{path.name}: compared outputs print values below {TINY:g} with several digits (print rounding noise as "
        "its bound, bk.claims.below; or say in a '# stable digits: ...' comment why the digits hold on every CPU):\n"
        + "\n".join(hits)
    )


def test_the_rounding_noise_check_can_fail():
    def cell(source, printed):
        return {"cell_type": "code", "source": [source], "outputs": [{"output_type": "stream", "text": [printed]}]}

    old_chapter_2 = "               claimed 0 · computed 2.220e-16 · rule: |Δ| <= 1e-12  ->  agrees\n"
    notebook = {"cells": [cell("print(audit)", old_chapter_2)]}
    assert tiny_values_with_digits(notebook) == [
        "code cell 0: '2.220e-16' in 'claimed 0 · computed 2.220e-16 · rule: |Δ| <= 1e-12  ->  agrees'"
    ]
    glued = {"output_type": "display_data", "data": {"application/papermill.record/text/plain": "'4.0e-17'"}}
    notebook["cells"].append({"cell_type": "code", "source": ["bk.glue('x', f'{x:.1e}')"], "outputs": [glued]})
    assert len(tiny_values_with_digits(notebook)) == 2  # glued values are compared too
    allowed = [
        "claimed 0 · computed < 1e-15 · rule: |Δ| <= 1e-12",  # the bound, one digit
        "agrees to 1e-14: True",  # a tolerance
        "gradient left: 0.0 and 3.2e-09",  # not below 1e-12
    ]
    assert tiny_values_with_digits({"cells": [cell("print(x)", text) for text in allowed]}) == []
    reason = "# stable digits (1): a product of 100 factors, each computed to float64's relative precision\n"
    assert tiny_values_with_digits({"cells": [cell(reason + "print(g)", "left after 100 steps: 5.3e-21")]}) == []
    assert tiny_values_with_digits({"cells": [cell("# stable digits (1): trust me\nprint(g)", "5.3e-21")]}) != []
    # an exemption covers the values it counts: a residual printed later in the same cell is caught
    later = cell(reason + "print(g, r)", "left after 100 steps: 5.3e-21, residual of the fit: 2.220e-16")
    covered = "code cell 0: its '# stable digits (1)' comment covers 1, it prints 2"
    assert tiny_values_with_digits({"cells": [later]})[-1] == covered
    uncounted = reason.replace(" (1)", "")
    assert tiny_values_with_digits({"cells": [cell(uncounted + "print(g)", "5.3e-21")]}) != []
    ignored = {**cell("print(d)", "2.220e-16"), "metadata": {"tags": ["nbval-ignore-output"]}}
    assert tiny_values_with_digits({"cells": [ignored]}) == []


# --- the chapters' imports of the two packages (a review found chapters 13 and 15 importing a moved module) ---


def package_imports(notebook: dict) -> list[str]:
    """Every module of transformer_lib or book_support that a code cell imports, as written."""
    found = []
    for cell in notebook["cells"]:
        if cell["cell_type"] != "code":
            continue
        source = "\n".join(line for line in "".join(cell["source"]).splitlines() if not line.lstrip().startswith(("%", "!")))
        for node in ast.walk(ast.parse(source)):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else []
            if isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module]
            found += [n for n in names if n.split(".")[0] in ("transformer_lib", "book_support")]
    return found


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_every_package_module_a_chapter_imports_exists(path):
    import importlib.util

    missing = sorted({name for name in package_imports(json.loads(path.read_text())) if importlib.util.find_spec(name) is None})
    assert not missing, f"{path.name} imports modules that do not exist: {missing}"


def test_the_import_check_can_fail():
    import importlib.util

    cell = {"cell_type": "code", "source": ["import transformer_lib.plotting  # moved\nfrom book_support.claims import below\n"]}
    assert package_imports({"cells": [cell]}) == ["transformer_lib.plotting", "book_support.claims"]
    assert importlib.util.find_spec("transformer_lib.plotting") is None


# --- listings: every literalinclude names a file and an object that exist ---------------------------------------

_LITERALINCLUDE = re.compile(r"```\{literalinclude\} (\S+)\n((?::[\w-]+:.*\n)*)```")


def _listings(text: str) -> list[tuple[str, dict[str, str]]]:
    found = []
    for match in _LITERALINCLUDE.finditer(text):
        options = dict(re.findall(r":([\w-]+):[ \t]*(.*)", match.group(2)))
        found.append((match.group(1), options))
    return found


def _pages() -> list[tuple[Path, str]]:
    pages = [
        (
            path,
            "".join("".join(c["source"]) + "\n" for c in json.loads(path.read_text())["cells"] if c["cell_type"] == "markdown"),
        )
        for path in NOTEBOOKS
    ]
    return pages + [(path, path.read_text()) for path in sorted((ROOT / "book").glob("*.md"))]


def test_every_listing_names_a_file_and_an_object_that_exist():
    """A literalinclude of a moved file or object breaks the build (or, without -W, drops the listing): failed
    on chapter 15 when DecoderOnlyLM moved to variants.py and its listing still named model.py."""
    from sphinx.pycode import ModuleAnalyzer

    problems, count = [], 0
    for page, text in _pages():
        for target, options in _listings(text):
            count += 1
            path = (page.parent / target).resolve()
            if not path.is_file():
                problems.append(f"{page.name}: {target} does not exist")
                continue
            lines = path.read_text().splitlines()
            if "pyobject" in options:
                tags = ModuleAnalyzer.for_file(str(path), "").find_tags()
                if options["pyobject"] not in tags:
                    problems.append(f"{page.name}: {target} has no {options['pyobject']}")
                    continue
                _, start, end = tags[options["pyobject"]]
                lines = lines[start - 1 : end]
            for key in ("start-at", "end-at"):
                if key in options and not any(options[key] in line for line in lines):
                    problems.append(f"{page.name}: {target} {options.get('pyobject', '')} has no line with {options[key]!r}")
    assert count > 40 and not problems, problems


def test_every_file_the_prose_names_exists():
    """Failed on chapter 5, which named transformer_lib/derivations/masking.py after the apparatus moved."""
    named = re.compile(r"\b(?:transformer_lib|book_support|tests|tools|benchmarks)/[\w/]+\.py\b")
    missing = sorted(
        {f"{page.name}: {path}" for page, text in _pages() for path in named.findall(text) if not (ROOT / path).is_file()}
    )
    assert not missing, missing


def test_a_link_to_a_chapters_sources_section_names_the_chapter():
    """Every chapter's audit section has the same title, so a bare {ref} to it reads "What the sources say, checked"
    whichever chapter it points to: failed on the errata appendix's 60 such links to 12 chapters."""
    bare = sorted(
        f"{page.name}: {{ref}}`{label}`"
        for page, text in _pages()
        for label in re.findall(r"\{ref\}`(sec-ch\d+-sources)`", text)
        if f"({label})=" not in text  # within its own chapter the section title is enough
    )
    assert not bare, bare


# --- "proves" is for proofs ---------------------------------------------------------
# A sympy check at stated sizes (n = 3, D = 2) says "checks ... for n = 3"; "proves" is kept for what sympy shows for
# all values of its symbols, and for written proofs. The rule, per sentence of the prose: a sentence in which a form
# of "prove" is credited to sympy (it mentions sympy, `bk.derivations` or a derivation builder by name) must
#   1. say for what it holds in general: "for all", "for every" or "for symbolic ...";
#   2. name no size ("= 2" outside a "for all"): sizes go with "checks";
#   3. name no builder that has a step checked only for stated sizes (or only numerically).
# "proved in the text", "proved in {prf:ref}`...`" and "proved above" point to a written proof and are not credits.

_PROVE = re.compile(r"\bprov(?:e|es|ed|en|ing)\b(?!\s+(?:in the text|in \{prf:ref\}|above))", re.IGNORECASE)
_BY_SYMPY = re.compile(r"\bsympy\b|bk\.derivations", re.IGNORECASE)
_IN_GENERAL = re.compile(r"\bfor (?:all|every|symbolic)\b", re.IGNORECASE)
_A_SIZE = re.compile(r"=\s*\d")
_BACKTICKED = re.compile(r"`(?:bk\.derivations\.)?(\w+)(?:\(\))?`")


def _sentences(text: str) -> list[str]:
    # "Eq. {eq}`...`" and "e.g. x" do not end a sentence: a break needs a capital, a backtick, $ or ( after it
    return [s for s in re.split(r"(?<=[.!?])\s+(?=[A-Z`$(])|\n", text) if s.strip()]


def proof_credits(text: str, sized_builder) -> list[str]:
    """Sentences of ``text`` that credit a proof to sympy without saying it holds in general (see the rule above).

    ``sized_builder(name)`` is None for a name that is no derivation builder, else whether that builder has a step
    checked only for stated sizes or only numerically.
    """
    hits = []
    for sentence in _sentences(text):
        if not _PROVE.search(sentence):
            continue
        builders = [name for name in _BACKTICKED.findall(sentence) if sized_builder(name) is not None]
        if not (_BY_SYMPY.search(sentence) or builders):
            continue
        if not _IN_GENERAL.search(sentence):
            hits.append(f"says 'proves' without 'for all/every/symbolic': {sentence.strip()[:160]!r}")
        elif _A_SIZE.search(sentence):
            hits.append(f"says 'proves' next to a stated size (write 'checks ... for'): {sentence.strip()[:160]!r}")
        else:
            hits.extend(
                f"{name} checks some steps only at stated sizes: {sentence.strip()[:160]!r}"
                for name in builders
                if sized_builder(name)
            )
    return hits


@functools.cache
def _sized_builder(name: str) -> bool | None:
    from book_support.derivations.core import _REGISTRY, NUMERICAL, SIZES

    if name not in _REGISTRY:
        return None
    return any(step.kind in (SIZES, NUMERICAL) for step in _REGISTRY[name]().steps)


def test_proves_is_for_proofs():
    """Failed on 29 sentences in 11 pages, e.g. chapter 8's "`bk.derivations.residual_jacobian` proves the identity"
    (checked for D = 2) and chapter 2's "proves each step with sympy, for symbolic scores and values" (n = 2, 3, 4)."""
    hits = [f"{page.name}: {hit}" for page, text in _pages() for hit in proof_credits(text, _sized_builder)]
    assert not hits, "\n".join(hits)


BARE_CHECK = re.compile(r"print\((?:[^()]|\([^()]*\))*\.check\(\)")


def bare_derivation_checks(source: str) -> list[str]:
    """Lines that print a derivation's check() by itself: True says that the steps hold, not for which sizes."""
    return [line.strip() for line in source.splitlines() if BARE_CHECK.search(line)]


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_a_derivation_prints_what_its_steps_cover(path):
    """print(d.summary()) says for which sizes the steps hold; failed on 46 lines such as
    print("all steps proved:", derivation.check()) printed for steps checked at stated sizes."""
    lines = [line for cell in _code_cells(path) for line in bare_derivation_checks("".join(cell["source"]))]
    assert not lines, f"{path.name}: print the derivation's summary() instead of check(): {lines}"


def test_the_bare_check_finder_can_fail():
    assert bare_derivation_checks('print("all steps proved:", derivation.check())') != []
    assert bare_derivation_checks('    print("proved:", derivation.check(), "\\n")') != []
    assert bare_derivation_checks("print(derivation.summary())") == []


def test_the_proves_check_can_fail():
    old = [
        "`bk.derivations.residual_jacobian` proves the identity for a small sub-layer with symbolic weights:",
        "Sympy proves the two expectations for $D = 2$, the inequality that follows, and the two limits.",
        "`bk.derivations.attention_convexity` proves each step with sympy, for symbolic scores and values:",
        "Sympy proves for symbolic weights and $D = 2$ the identity.",
        "The correct chain is {eq}`eq-ch4-backward`, proved by sympy, matched factor by factor against autograd.",
        "With it the limit proved in `residual_gradient_norm`.",
    ]
    new = [
        "`bk.derivations.residual_jacobian` checks, for $D = 2$, the identity; the argument above holds for every $D$:",
        "Sympy proves both formulas for symbolic $L$ and $k$; a stack of layers confirms them.",
        "`bk.derivations.mlm_corruption` proves the formulas for symbolic $p$ and $V$ and computes the limits:",
        "The chain is proved in {prf:ref}`thm-ch4-query-gradient`, checked by sympy on small matrices.",
        "The theorem is proved in the text and checked with sympy for $n = 3$.",
        "Learning goal: prove that the dot product has variance $d_k$ ({prf:ref}`thm-ch3-dot-variance`).",
    ]
    assert [len(proof_credits(sentence, _sized_builder)) for sentence in old] == [1] * len(old)
    assert proof_credits("\n".join(new), _sized_builder) == []


# The page at the column width and on a phone (issue 23). tools/measure_page.py measures the built pages; these
# checks read the notebooks, so that make test catches a regression without a browser.
COLUMN_PX = 780  # the page column at the 1400 px layout (book/_static/book.css)
MAX_FIGURE_PX = 1350  # shown at 58 % or more in the column: 10 pt tick labels (20.8 px at 150 dpi) stay >= 12 px
WIDE_FIGURE = re.compile(r"#\s*wide figure:\s*\S")  # a cell that must be wider says why


def _png_width(png) -> int:
    """The width in pixels of a base64 PNG (from its IHDR chunk)."""
    head = base64.b64decode("".join(png).replace("\n", "")[:32])
    return int.from_bytes(head[16:20], "big")


def wide_figures(notebook: dict) -> list[str]:
    cells = [c for c in notebook["cells"] if c["cell_type"] == "code"]
    hits = []
    for i, cell in enumerate(cells):
        if WIDE_FIGURE.search("".join(cell["source"])):
            continue
        for output in cell["outputs"]:
            png = output.get("data", {}).get("image/png")
            if png and _png_width(png) > MAX_FIGURE_PX:
                width = _png_width(png)
                hits.append(
                    f"code cell {i}: {width} px wide, shown at {100 * COLUMN_PX / width:.0f} % in the column"
                    f" (tick labels {10 * 150 / 72 * COLUMN_PX / width:.1f} px)"
                )
    return hits


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_figures_are_legible_at_the_column_width(path):
    """A figure wider than MAX_FIGURE_PX shrinks its text below 12 px in the 780 px column: stack its panels
    (plt.subplots(3, 1), figsize about 7 in wide) or say why in a `# wide figure: <reason>` comment. Failed on
    12 figures of 6 chapters (three panels of 1,630-1,759 px, two of 1,465-1,630 px: shown at 44-53 %)."""
    hits = wide_figures(json.loads(path.read_text()))
    assert not hits, f"{path.name}: figures too wide for the column:\n" + "\n".join(hits)


def _png_of_width(width: int) -> str:
    header = b"\x89PNG\r\n\x1a\n" + (13).to_bytes(4, "big") + b"IHDR" + width.to_bytes(4, "big") + (400).to_bytes(4, "big")
    return base64.b64encode(header + bytes(8)).decode()


def test_the_figure_width_check_can_fail():
    def notebook(width: int, source: str = "fig, ax = plt.subplots()") -> dict:
        output = {"output_type": "display_data", "data": {"image/png": _png_of_width(width)}}
        return {"cells": [{"cell_type": "code", "source": source, "outputs": [output]}]}

    assert _png_width(_png_of_width(1630)) == 1630
    assert len(wide_figures(notebook(1630))) == 1
    assert wide_figures(notebook(1050)) == []
    assert wide_figures(notebook(1630, "# wide figure: a 12-step timeline\nfig, ax = plt.subplots()")) == []


PRESENTATION = re.compile(r"(fig\b|fig,|_, ax\b|ax\b|ax,|axes\b|plt\.)")
MAX_SHOWN_PRESENTATION = 15  # lines of plotting and printing a shown experiment cell may carry
HIDDEN_INPUT = {"hide-input", "remove-input", "remove-cell"}


def _code_lines(text: str) -> list[str]:
    return [line for line in text.splitlines() if line.strip() and not line.lstrip().startswith("#")]


def unfolded_experiments(notebook: dict) -> list[str]:
    """Shown code cells that run an experiment (10 or more lines) and then draw and print it in more than
    MAX_SHOWN_PRESENTATION lines, from the first line that draws (at the cell's top level) to the end."""
    cells = [c for c in notebook["cells"] if c["cell_type"] == "code"]
    hits = []
    for i, cell in enumerate(cells):
        if HIDDEN_INPUT & set(cell.get("metadata", {}).get("tags", [])):
            continue
        if not any("image/png" in o.get("data", {}) for o in cell["outputs"]):
            continue
        lines = "".join(cell["source"]).splitlines()
        first = next((k for k, line in enumerate(lines) if PRESENTATION.match(line)), None)
        if first is None:
            continue
        experiment, presentation = _code_lines("\n".join(lines[:first])), _code_lines("\n".join(lines[first:]))
        if len(experiment) >= 10 and len(presentation) > MAX_SHOWN_PRESENTATION:
            hits.append(f"code cell {i}: {len(experiment)} lines of experiment, then {len(presentation)} of drawing and printing")
    return hits


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_experiment_cells_fold_their_plotting(path):
    """The page reads as a lesson: an experiment cell keeps its logic in view, and its plotting and printing go
    to the next cell, tagged hide-input (MyST-NB shows the output and folds the code behind a toggle). Failed
    on chapter 11's decoding comparison (42 lines of experiment, then 37 of matplotlib and tables) and on 6
    more cells in 5 chapters."""
    hits = unfolded_experiments(json.loads(path.read_text()))
    assert not hits, f"{path.name}: fold the drawing and printing into a hide-input cell:\n" + "\n".join(hits)


def test_the_folding_check_can_fail():
    experiment = "\n".join(f"x{k} = {k}" for k in range(12))
    drawing = "\n".join(["fig, ax = plt.subplots()", *(f"ax.plot([{k}])" for k in range(15)), "print(x0)"])
    image = [{"output_type": "display_data", "data": {"image/png": _png_of_width(800)}}]

    def notebook(*cells) -> dict:
        return {"cells": [{"cell_type": "code", "source": s, "metadata": m, "outputs": o} for s, m, o in cells]}

    assert len(unfolded_experiments(notebook((experiment + "\n" + drawing, {}, image)))) == 1
    folded = notebook((experiment, {}, []), (drawing, {"tags": ["hide-input"]}, image))
    assert unfolded_experiments(folded) == []


PHONE_CHARACTERS = 41  # a 400 px screen: 321 px inside an output box, 7.7 px per character (0.8rem monospace)
VERDICT_VALUES = {"True", "False", "agrees", "wrong", "holds", "yes", "no"}
VERDICT_HEADER = re.compile(r"\b(verdict|reading)\b", re.IGNORECASE)


def _printed_tables(text: str):
    """(header line, column spans, body lines) of every bk.format_table table in a printed text."""
    lines = text.split("\n")
    for k, rule in enumerate(lines):
        if k and re.fullmatch(r"-+(  +-+)+", rule):
            spans = [(m.start(), m.end()) for m in re.finditer(r"-+", rule)]
            body = []
            for line in lines[k + 1 :]:
                if not line.strip() or len(line) > len(rule):
                    break
                body.append(line)
            yield lines[k - 1], spans, body


def late_verdicts(notebook: dict) -> list[str]:
    """Columns that carry a table's conclusion (every value True/False or a verdict word, or a header
    'verdict'/'reading') and end past what a phone shows."""
    hits = []
    cells = [c for c in notebook["cells"] if c["cell_type"] == "code"]
    for i, cell in enumerate(cells):
        for output in cell["outputs"]:
            if output["output_type"] != "stream":
                continue
            for header, spans, body in _printed_tables("".join(output["text"])):
                for a, b in spans[1:]:
                    values = {line[a:b].strip() for line in body} - {""}
                    verdict = (values and values <= VERDICT_VALUES) or VERDICT_HEADER.search(header[a:b])
                    if verdict and b > PHONE_CHARACTERS:
                        hits.append(f"code cell {i}: column {header[a:b].strip()!r} ends at character {b}")
    return hits


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_a_tables_conclusion_is_where_a_phone_shows_it(path):
    """At 400 px an output shows its first 41 characters and scrolls sideways for the rest: a column that
    carries the conclusion goes right after the key column (bk.format_table(..., lead=[...])). Failed on 18
    columns in 10 chapters, e.g. chapter 13's 'reading' ending at character 89, chapter 8's check at 75."""
    hits = late_verdicts(json.loads(path.read_text()))
    assert not hits, f"{path.name}: conclusions a phone does not show:\n" + "\n".join(hits)


def test_the_verdict_column_check_can_fail():
    def notebook(text: str) -> dict:
        return {"cells": [{"cell_type": "code", "outputs": [{"output_type": "stream", "text": text}]}]}

    late = "\n".join(
        [
            "model  a long column of numbers  another long column  equal",
            "-----  ------------------------  -------------------  -----",
            " base                         1                    2   True",
        ]
    )
    assert late_verdicts(notebook(late)) == ["code cell 0: column 'equal' ends at character 59"]
    first = "model  equal  numbers\n-----  -----  -------\n base   True        1"
    assert late_verdicts(notebook(first)) == []


_GLUE_ROLE = re.compile(r"\{glue(?::\w+)?\}`([^`:]+)(?::[^`]*)?`")


def unglued_references(notebook: dict) -> list[str]:
    """Keys a page's prose pastes ({glue:text}`key`) that none of its committed outputs glues."""
    glued = {
        output.get("metadata", {}).get("scrapbook", {}).get("name")
        for cell in notebook["cells"]
        for output in cell.get("outputs", [])
    }
    used = {
        key
        for cell in notebook["cells"]
        if cell["cell_type"] == "markdown"
        for key in _GLUE_ROLE.findall("".join(cell["source"]))
    }
    return sorted(used - glued)


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_every_pasted_value_is_glued_on_its_page(path):
    """The build fails on a missing glue key only with warnings as errors, minutes later; this says which.
    Failed on chapter 2 (ch2-time-growth) and chapter 14 (ch14-third-tensor-gib) after a review round."""
    missing = unglued_references(json.loads(path.read_text()))
    assert not missing, f"{path.name}: the prose pastes keys no output glues: {missing}"


def test_the_glue_reference_check_can_fail():
    page = {
        "cells": [
            {"cell_type": "markdown", "source": ["a {glue:text}`k-1` and {glue:text}`k-2:.2f`"]},
            {"cell_type": "code", "source": [], "outputs": [{"metadata": {"scrapbook": {"name": "k-1"}}}]},
        ]
    }
    assert unglued_references(page) == ["k-2"]
