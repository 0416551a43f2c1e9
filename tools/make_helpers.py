"""The small programs the Makefile runs, one subcommand each (they were inline Python in the Makefile).

Usage:
    python tools/make_helpers.py jobs                    workers for nbval and the unit tests: one per core, 2 to 8
    python tools/make_helpers.py book-key                the key of make book's execution cache: a digest of the
                                                         library, the book's apparatus and the pins
    python tools/make_helpers.py book-config CACHE OUT   write OUT, a copy of _config.yml that renders the chapters
                                                         from the jupyter-cache CACHE (make book)
    python tools/make_helpers.py site-wheel SITE         build the library's wheel into the site folder SITE (make
                                                         build, make book), where the chapters' install cell
                                                         downloads it from (tools/install_cell.py)
    python tools/make_helpers.py bench [ARGS ...]        run every benchmarks/*.py (not the _helpers) with ARGS, one
                                                         after another; write what they print to
                                                         benchmarks/results.txt only if all succeed
    python tools/make_helpers.py pdf-packages            the Debian packages make pdf needs: those of README.md's
                                                         one `apt-get install --no-install-recommends` command
                                                         (.ci/run installs them, so a missing one fails CI)

Exit status 0 on success, 1 when a benchmark fails, 2 on bad arguments.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import platform
import re
import subprocess
import sys
import tempfile
from datetime import UTC, datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# what a chapter's outputs depend on besides its own code: make book re-executes every chapter when these change
BOOK_INPUTS = ("transformer_lib", "book_support")


def jobs() -> int:
    """One worker per core available to this process, at least 2 and at most 8."""
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return min(8, max(2, cores or 2))


def book_key(root: Path = ROOT) -> str:
    """12 hex digits of a SHA-256 over every .py file of the two packages (sorted by path) and requirements.txt."""
    digest = hashlib.sha256()
    files = sorted(p for package in BOOK_INPUTS for p in (root / package).rglob("*.py"))
    for path in [*files, root / "requirements.txt"]:
        digest.update(path.read_bytes())
    return digest.hexdigest()[:12]


def book_config(cache: Path, out: Path, root: Path = ROOT) -> None:
    """_config.yml with execution from ``cache`` (600 s a cell) and the local extensions' paths made absolute."""
    import yaml

    config = yaml.safe_load((root / "_config.yml").read_text())
    config["execute"] = {**config.get("execute", {}), "execute_notebooks": "cache", "cache": str(cache.resolve()), "timeout": 600}
    extensions = config.get("sphinx", {}).get("local_extensions", {})
    extensions.update({name: str((root / path).resolve()) for name, path in extensions.items()})
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(yaml.safe_dump(config, sort_keys=False, allow_unicode=True))


APT_INSTALL = "apt-get install --no-install-recommends "


def pdf_packages(readme: str) -> list[str]:
    """The packages of the one ``apt-get install --no-install-recommends`` command in ``readme`` (lines joined at ``\\``,
    ``#`` comments dropped); ValueError where there is not exactly one such command or it names no package."""
    joined = re.sub(r"\\\n", " ", readme)
    commands = [line.split(APT_INSTALL, 1)[1] for line in joined.splitlines() if APT_INSTALL in line]
    if len(commands) != 1:
        raise ValueError(f"readme: expected one `{APT_INSTALL.strip()}` command, got {len(commands)}")
    packages = commands[0].split("#", 1)[0].split()
    if not packages or any(not re.fullmatch(r"[a-z0-9][a-z0-9+.-]+", p) for p in packages):
        raise ValueError(f"readme: expected Debian package names after `{APT_INSTALL.strip()}`, got {packages}")
    return packages


def bench(args: list[str], root: Path = ROOT) -> int:
    """Run the benchmarks; results.txt is replaced only when every one of them succeeded."""
    import torch

    stamp = datetime.now(UTC).strftime("%Y-%m-%dT%H:%MZ")
    lines = [f"# make bench on {stamp}: {platform.machine()}, {os.cpu_count()} CPUs, torch {torch.__version__}\n"]
    scripts = sorted(p for p in (root / "benchmarks").glob("*.py") if not p.name.startswith("_"))
    for script in scripts:
        header = f"\n## {script.relative_to(root)} {' '.join(args)}\n".replace(" \n", "\n")
        print(header, end="", flush=True)
        lines.append(header)
        command = [sys.executable, str(script), *args]
        with subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True) as run:
            assert run.stdout is not None
            for line in run.stdout:
                print(line, end="", flush=True)
                lines.append(line)
        if run.returncode != 0:
            print(f"{script.relative_to(root)} failed (exit status {run.returncode}): results.txt not updated")
            return 1
    with tempfile.NamedTemporaryFile("w", dir=root / "benchmarks", delete=False) as handle:
        handle.writelines(lines)
    os.chmod(handle.name, 0o644)
    os.replace(handle.name, root / "benchmarks" / "results.txt")
    print("written to benchmarks/results.txt")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    commands.add_parser("jobs", help="workers for nbval and the unit tests")
    commands.add_parser("book-key", help="the key of make book's execution cache")
    config = commands.add_parser("book-config", help="_config.yml rendering from a jupyter-cache")
    config.add_argument("cache", type=Path, help="the jupyter-cache folder")
    config.add_argument("out", type=Path, help="where to write the config")
    site_wheel = commands.add_parser("site-wheel", help="build the library's wheel into the site folder")
    site_wheel.add_argument("site", type=Path, help="the site's root folder (_build/html)")
    commands.add_parser("pdf-packages", help="the Debian packages README.md lists for make pdf")
    run = commands.add_parser("bench", help="run the benchmarks, write benchmarks/results.txt")
    run.add_argument("args", nargs=argparse.REMAINDER, help="arguments for every benchmark (e.g. --rounds 3)")
    args = parser.parse_args(argv)
    if args.command == "jobs":
        print(jobs())
    elif args.command == "book-key":
        print(book_key())
    elif args.command == "pdf-packages":
        try:
            print(" ".join(pdf_packages((ROOT / "README.md").read_text(encoding="utf-8"))))
        except ValueError as error:
            parser.error(f"README.md: {error}")
    elif args.command == "book-config":
        if args.out.suffix not in {".yml", ".yaml"}:
            parser.error(f"out must be a .yml path, got {str(args.out)!r}")
        book_config(args.cache, args.out)
    elif args.command == "site-wheel":
        if not args.site.is_dir():
            parser.error(f"site must be an existing folder (the built book), got {str(args.site)!r}")
        from install_cell import build_site_wheel

        built = build_site_wheel(args.site)
        print(f"{built} ({built.stat().st_size:,} bytes)")
    else:
        return bench(args.args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
