"""The hidden install cell at the top of every chapter, and the wheel it installs (idempotent).

The cell installs ``transformer_lib`` (with ``book_support``, the book's apparatus, which ships in the same
distribution) where either is missing (Colab, a downloaded notebook) from the wheel that the published site
carries: ``make build`` (what ``make test`` builds and the Pages workflow uploads) and ``make book`` build the
wheel from the same checkout as the pages and put it at ``WHEEL_FOLDER`` inside the site (``_build/html``).
This module is the one place that defines where: the site's address is ``html.baseurl`` of ``_config.yml``, the
file name carries the version of ``pyproject.toml``, and ``build_site_wheel`` writes exactly there.

The cell prints nothing where both packages are present (so strict nbval is untouched) and is removed from the
rendered page (tag ``remove-cell``). Where the install fails (no network, no published site), it stops the
notebook with one sentence that says what it tried and what to do, not pip's log: the exception's
``_render_traceback_`` is what Jupyter (IPython) shows in place of a traceback.
``tests/book/test_notebooks.py`` checks that every notebook starts with exactly this cell;
``tests/book/test_install.py`` serves a built site on 127.0.0.1 and runs a downloaded chapter from it.

Usage: python tools/install_cell.py book/*.ipynb
"""

from __future__ import annotations

import importlib.metadata
import json
import shutil
import subprocess
import sys
import tempfile
import tomllib
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
# where make build / make book put the wheel, relative to the site's root (_build/html)
WHEEL_FOLDER = "_static/dist"
# what the wheel is built from: the two packages and what pyproject.toml reads (readme)
WHEEL_SOURCES = ("pyproject.toml", "README.md", "transformer_lib", "book_support")


def site_url(root: Path = ROOT) -> str:
    """The published site's address, ``html.baseurl`` of ``_config.yml``, ending in ``/``."""
    baseurl = yaml.safe_load((root / "_config.yml").read_text())["html"]["baseurl"]
    return baseurl if baseurl.endswith("/") else baseurl + "/"


def wheel_name(root: Path = ROOT) -> str:
    """The file name of the pure-Python wheel of the version in ``pyproject.toml``."""
    version = tomllib.loads((root / "pyproject.toml").read_text())["project"]["version"]
    return f"transformer_lib-{version}-py3-none-any.whl"


def wheel_url(root: Path = ROOT) -> str:
    """Where the install cell downloads the wheel: the site's address, ``WHEEL_FOLDER``, the file name."""
    return f"{site_url(root)}{WHEEL_FOLDER}/{wheel_name(root)}"


def build_site_wheel(site: Path, root: Path = ROOT) -> Path:
    """Build the wheel of ``root`` (``pip wheel --no-deps``) into ``site/WHEEL_FOLDER``; return its path.

    The build runs on a copy of the sources in a temporary folder, so setuptools' ``build/`` and ``*.egg-info``
    never appear in the working tree. Without build isolation when this environment's setuptools meets
    ``pyproject.toml``'s build requirement (>= 68; nothing is downloaded then), else with it.
    """
    target = site / WHEEL_FOLDER
    with tempfile.TemporaryDirectory() as tmp:
        source, out = Path(tmp) / "source", Path(tmp) / "wheel"
        source.mkdir()
        for name in WHEEL_SOURCES:
            if (root / name).is_dir():
                shutil.copytree(root / name, source / name, ignore=shutil.ignore_patterns("__pycache__"))
            else:
                shutil.copy(root / name, source / name)
        command = [sys.executable, "-m", "pip", "wheel", "--no-deps", "--quiet", "-w", str(out), str(source)]
        try:
            if int(importlib.metadata.version("setuptools").split(".")[0]) >= 68:
                command.insert(4, "--no-build-isolation")
        except importlib.metadata.PackageNotFoundError:
            pass
        built = subprocess.run(command, capture_output=True, text=True)
        if built.returncode != 0:
            raise RuntimeError(f"pip wheel failed (exit status {built.returncode}):\n{built.stderr[-3000:]}")
        (wheel,) = out.glob("*.whl")
        if wheel.name != wheel_name(root):
            raise RuntimeError(f"pip wheel built {wheel.name}, the install cell expects {wheel_name(root)}")
        shutil.rmtree(target, ignore_errors=True)  # no wheel of an older version stays on the site
        target.mkdir(parents=True)
        return Path(shutil.copy(wheel, target / wheel.name))


def source(root: Path = ROOT) -> str:
    """The install cell's code (every line at most 100 characters: tests/book/test_install.py checks)."""
    repository = yaml.safe_load((root / "_config.yml").read_text())["repository"]["url"]
    return f"""\
# Colab or a downloaded notebook: install the book's library and apparatus where missing, from the
# wheel published with this book (silent where both are present).
import importlib
import subprocess
import sys
from importlib.util import find_spec

WHEEL = (
    "{site_url(root)}"
    "{WHEEL_FOLDER}/{wheel_name(root)}"
)
REPOSITORY = "{repository}"


class InstallFailed(Exception):
    def _render_traceback_(self):  # what Jupyter shows in place of a traceback: the sentence
        return [str(self)]


if find_spec("transformer_lib") is None or find_spec("book_support") is None:
    pip = subprocess.run(
        [sys.executable, "-m", "pip", "install", "--quiet", WHEEL], capture_output=True
    )
    if pip.returncode != 0:
        raise InstallFailed(
            f"pip could not install {{WHEEL}} (no network, or the site does not have it):"
            f" run this chapter from a clone of {{REPOSITORY}} instead (`make lab` in the clone, or"
            " `pip install -e .` there)."
        )
    importlib.invalidate_caches()"""


def install_cell(root: Path = ROOT) -> dict:
    return {
        "cell_type": "code",
        "execution_count": 1,
        "id": "install-library",
        "metadata": {"tags": ["remove-cell"]},
        "outputs": [],
        "source": source(root).splitlines(keepends=True),
    }


def is_install_cell(cell: dict) -> bool:
    return cell["cell_type"] == "code" and "".join(cell["source"]).startswith("# Colab or a downloaded notebook")


def add_to(path: Path) -> bool:
    notebook = json.loads(path.read_text())
    cells = notebook["cells"]
    first_code = next(i for i, c in enumerate(cells) if c["cell_type"] == "code")
    if is_install_cell(cells[first_code]):
        if cells[first_code] == install_cell():
            return False
        cells[first_code] = install_cell()
    else:
        for cell in cells:  # the install cell becomes execution 1: shift the others
            if cell["cell_type"] == "code" and cell.get("execution_count") is not None:
                cell["execution_count"] += 1
                for output in cell.get("outputs", []):
                    if output.get("execution_count") is not None:
                        output["execution_count"] += 1
        cells.insert(first_code, install_cell())
    path.write_text(json.dumps(notebook, indent=1, ensure_ascii=False) + "\n")
    return True


if __name__ == "__main__":
    for name in sys.argv[1:]:
        print(name, "changed" if add_to(Path(name)) else "unchanged")
