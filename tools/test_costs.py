"""Where make test's time goes: the stages timed, the chapters' seconds in every strict nbval pass.

Usage:
    python tools/test_costs.py stages STAGE ...   run `make STAGE` for each STAGE in turn (make test does),
                                                 stop at the first that fails; print and keep in
                                                 _build/test-costs/stages.json the wall seconds of each
    python tools/test_costs.py report             per notebook, the summed cell seconds of each strict nbval
                                                 pass that make test ran (their JUnit XML files in
                                                 _build/test-costs/), and the stages
    python tools/test_costs.py report --write     also record them: book/test_costs.json (book/conftest.py
                                                 orders nbval's notebooks by its plain pass) and the table in
                                                 CONTRIBUTING.md between its markers

A pass's file is named after the pass (plain.xml, sse2.xml, mkl-other-vendor.xml: the Makefile's names). A
cell's time is the one pytest reports for it; a notebook's seconds are its cells' sum, one core's time
(nbval runs JOBS notebooks at once, so a pass's wall time is less than the sum). Run `report --write` after
a full make test on a quiet machine (a fresh clone for the stages), when a chapter's cost changes.
Exit status 0, or the failing stage's status; 2 on bad arguments.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import time
import xml.etree.ElementTree as ET
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
COSTS = ROOT / "_build" / "test-costs"
RECORD = ROOT / "book" / "test_costs.json"
CONTRIBUTING = ROOT / "CONTRIBUTING.md"
PASSES = ("plain", "sse2", "mkl-other-vendor")
BEGIN = "<!-- test_costs: begin (tools/test_costs.py report --write) -->"
END = "<!-- test_costs: end -->"


def run_stages(stages: list[str], make: list[str] | None = None, out: Path = COSTS) -> int:
    """`make STAGE` for each stage in order; the seconds of each (those run) go to out/stages.json."""
    make = make or ["make", "--no-print-directory"]
    out.mkdir(parents=True, exist_ok=True)
    for stale in [*out.glob("*.xml"), out / "stages.json"]:  # a pass that does not run this time is not reported
        stale.unlink(missing_ok=True)
    seconds: dict[str, float] = {}
    status = 0
    for stage in stages:
        start = time.monotonic()
        status = subprocess.run([*make, stage]).returncode
        seconds[stage] = round(time.monotonic() - start, 1)
        if status != 0:
            break
    (out / "stages.json").write_text(json.dumps({"seconds": seconds, "failed": status != 0}, indent=1) + "\n")
    print(stage_table(seconds) + ("" if status == 0 else f"\n(stopped: {stage} failed with status {status})"))
    return status


def stage_table(seconds: dict[str, float]) -> str:
    rows = [f"| `make {stage}` | {value:.0f} |" for stage, value in seconds.items()]
    total = sum(seconds.values())
    return "\n".join(["| stage | seconds |", "|---|---|", *rows, f"| all | {total:.0f} ({total / 60:.1f} min) |"])


def notebook_seconds(xml: Path) -> tuple[dict[str, float], float]:
    """(summed cell seconds per notebook, the pass's wall seconds) from one nbval run's JUnit XML."""
    root = ET.parse(xml).getroot()
    sums: dict[str, float] = {}
    for case in root.iter("testcase"):
        name = case.get("classname", "")
        if not name.endswith(".ipynb"):
            raise ValueError(f"{xml}: a test case that is not a notebook cell: {name!r}")
        notebook = name.removeprefix("book.")
        sums[notebook] = sums.get(notebook, 0.0) + float(case.get("time", 0))
    suites = [root] if root.tag == "testsuite" else list(root.iter("testsuite"))
    return sums, max(float(s.get("time", 0)) for s in suites)


def collect(folder: Path = COSTS) -> dict:
    """The record: per pass, each notebook's seconds and the pass's wall time; the stages if timed."""
    found = {name: folder / f"{name}.xml" for name in PASSES if (folder / f"{name}.xml").exists()}
    if "plain" not in found:
        raise ValueError(f"no plain pass in {folder}: run make test (or make nbval) first")
    record: dict = {"machine": f"{platform.machine()}, {os.cpu_count()} cores", "passes": {}}
    for name, xml in found.items():
        sums, wall = notebook_seconds(xml)
        record["passes"][name] = {"wall": round(wall), "notebooks": {k: round(v, 1) for k, v in sums.items()}}
    stages = folder / "stages.json"
    if stages.exists():
        record["stages"] = json.loads(stages.read_text())["seconds"]
    return record


def render(record: dict) -> str:
    """The Markdown CONTRIBUTING.md shows: notebooks by their plain-pass cost, one column per pass."""
    passes = list(record["passes"])
    plain = record["passes"]["plain"]["notebooks"]
    lines = [
        f"Measured on {record['machine']}" + (f", {record['when']}" if "when" in record else "") + ".",
        "",
        "| notebook | " + " | ".join(passes) + " |",
        "|---|" + "---|" * len(passes),
    ]
    for name in sorted(plain, key=lambda n: (-plain[n], n)):
        cells = [f"{record['passes'][p]['notebooks'].get(name, 0):.0f}" for p in passes]
        lines.append(f"| {name.removesuffix('.ipynb')} | " + " | ".join(cells) + " |")
    sums = [sum(record["passes"][p]["notebooks"].values()) for p in passes]
    lines.append("| all, summed | " + " | ".join(f"{s:.0f}" for s in sums) + " |")
    lines.append("| the pass, wall | " + " | ".join(f"{record['passes'][p]['wall']:.0f}" for p in passes) + " |")
    if "stages" in record:
        lines += ["", stage_table(record["stages"])]
    return "\n".join(lines)


def write(record: dict, contributing: Path = CONTRIBUTING, out: Path = RECORD) -> None:
    text = contributing.read_text(encoding="utf-8")
    if text.count(BEGIN) != 1 or text.count(END) != 1:
        raise ValueError(f"{contributing} must hold the markers {BEGIN!r} and {END!r} once each")
    head, rest = text.split(BEGIN)
    _, tail = rest.split(END)
    contributing.write_text(f"{head}{BEGIN}\n{render(record)}\n{END}{tail}", encoding="utf-8")
    out.write_text(json.dumps(record, indent=1) + "\n", encoding="utf-8")  # in order: the table is rendered from it


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    stages = commands.add_parser("stages", help="run and time make's stages")
    stages.add_argument("stages", nargs="+", help="make targets, in order")
    report = commands.add_parser("report", help="the chapters' seconds in each nbval pass")
    report.add_argument("--write", action="store_true", help="record them (book/test_costs.json, CONTRIBUTING.md)")
    report.add_argument("--when", help="the date and commit to record with them, e.g. '27 November 2026, abc1234'")
    args = parser.parse_args(argv)
    if args.command == "stages":
        return run_stages(args.stages)
    try:
        record = collect()
    except (ValueError, ET.ParseError) as error:
        parser.error(str(error))
    if args.when:
        record["when"] = args.when
    print(render(record))
    if args.write:
        write(record)
        print(f"written: {RECORD.relative_to(ROOT)}, the table in {CONTRIBUTING.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
