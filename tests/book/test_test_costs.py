"""make test times its stages and every strict nbval pass (tools/test_costs.py); the recorded costs order nbval's
notebooks and fill CONTRIBUTING.md's table, from one record."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tools"))
import test_costs  # noqa: E402

sys.path.remove(str(ROOT / "tools"))

XML = """<?xml version="1.0" encoding="utf-8"?><testsuites><testsuite name="pytest" time="12.5">
<testcase classname="book.ch01_a.ipynb" name="Cell 0" time="1.5"/>
<testcase classname="book.ch01_a.ipynb" name="Cell 1" time="2.0"/>
<testcase classname="book.ch02_b.ipynb" name="Cell 0" time="7.25"/>
</testsuite></testsuites>"""


def test_a_notebooks_seconds_are_its_cells_summed(tmp_path):
    (tmp_path / "plain.xml").write_text(XML)
    sums, wall = test_costs.notebook_seconds(tmp_path / "plain.xml")
    assert sums == {"ch01_a.ipynb": 3.5, "ch02_b.ipynb": 7.25} and wall == 12.5
    (tmp_path / "plain.xml").write_text(XML.replace("book.ch02_b.ipynb", "tests.test_x"))
    with pytest.raises(ValueError, match="not a notebook cell"):
        test_costs.notebook_seconds(tmp_path / "plain.xml")


def test_stages_stop_at_the_first_failure_and_keep_the_times_of_those_run(tmp_path, capsys):
    makefile = tmp_path / "Makefile"
    makefile.write_text("ok:\n\t@true\nbad:\n\t@exit 3\nnever:\n\t@touch never-ran\n")
    out = tmp_path / "costs"
    out.mkdir()
    (out / "sse2.xml").write_text(XML)  # from an earlier run: not this run's
    make = ["make", "--no-print-directory", "-C", str(tmp_path)]
    status = test_costs.run_stages(["ok", "bad", "never"], make=make, out=out)
    assert status == 2  # make's status for a failed recipe
    record = json.loads((out / "stages.json").read_text())
    assert list(record["seconds"]) == ["ok", "bad"] and record["failed"]
    assert not (tmp_path / "never-ran").exists() and not (out / "sse2.xml").exists()
    assert "make bad" in capsys.readouterr().out


def test_the_record_orders_nbval_and_fills_the_table(tmp_path):
    record = json.loads(test_costs.RECORD.read_text())
    text = test_costs.CONTRIBUTING.read_text(encoding="utf-8")
    block = text.split(test_costs.BEGIN)[1].split(test_costs.END)[0].strip()
    assert block == test_costs.render(record), "CONTRIBUTING.md's table is stale: tools/test_costs.py report --write"
    spec = importlib.util.spec_from_file_location("book_conftest", ROOT / "book" / "conftest.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert module.SECONDS == record["passes"]["plain"]["notebooks"]
    notebooks = {p.name for p in (ROOT / "book").glob("*.ipynb")}
    assert set(module.SECONDS) == notebooks, "the record misses a notebook or names one that is gone"
    # write() replaces only what lies between the markers
    contributing, out = tmp_path / "C.md", tmp_path / "r.json"
    contributing.write_text(f"before\n{test_costs.BEGIN}\nold\n{test_costs.END}\nafter\n")
    test_costs.write(record, contributing=contributing, out=out)
    assert contributing.read_text() == f"before\n{test_costs.BEGIN}\n{test_costs.render(record)}\n{test_costs.END}\nafter\n"
    assert json.loads(out.read_text()) == record


def test_make_test_times_its_stages_and_every_nbval_pass_writes_its_cells_times():
    dry = subprocess.run(
        ["make", "-n", "test", "nbval", "nbval-emulated", "BIN=.venv/bin"], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout
    assert "tools/test_costs.py stages setup lint unit nbval nbval-emulated build" in dry
    for name in test_costs.PASSES:
        assert f"--junitxml=_build/test-costs/{name}.xml book" in dry, name
    # the SSE2 pass changes both ATen's and oneMKL's kernels at once, as an x86-64 CPU without AVX does
    sse2 = next(line for line in dry.splitlines() if "sse2.xml" in line)
    assert sse2.lstrip().startswith("ATEN_CPU_CAPABILITY=default MKL_CBWR=COMPATIBLE "), sse2
