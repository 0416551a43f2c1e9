"""The library as a reader outside this repository gets it: a wheel, installed into a clean venv.

The wheel is built from the repository (``pip wheel --no-deps``) and installed into a fresh venv (no system
site-packages) with only the dependencies ``pyproject.toml`` declares, plus ``ipykernel`` and ``nbclient``, which
any notebook front end (Jupyter, Colab) has. One chapter then executes there, from another working directory's
point of view: its hidden install cell must find the library and print nothing, and its code cells must print
exactly the committed outputs. torch is pinned to the version of this environment (the CPU build where this
environment has it), so nothing else is downloaded where pip can find that version locally.
"""

from __future__ import annotations

import json
import os
import platform
import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CHAPTER = ROOT / "book" / "ch09_model.ipynb"
TORCH_CPU_INDEX = "https://download.pytorch.org/whl/cpu"


def _run(args: list[str], **kwargs) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    return subprocess.run(args, capture_output=True, text=True, env=env, **kwargs)


def test_declared_dependencies_are_lower_bounds():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    pins = dict(line.split("==") for line in (ROOT / "requirements.txt").read_text().splitlines() if "==" in line)
    for requirement in project["dependencies"]:
        name = re.split(r"[<>=!~ ;\[]", requirement, maxsplit=1)[0]
        assert "==" not in requirement, f"{requirement}: pyproject declares lower bounds, requirements.txt pins"
        assert name in pins, f"{name} is a dependency of the library but not pinned in requirements.txt"
    import transformer_lib

    assert project["version"] == transformer_lib.__version__


@pytest.mark.slow
@pytest.mark.timeout(900)  # ~100 s on an idle two-core machine; a fresh venv and torch's wheel to unpack
def test_wheel_runs_a_chapter_in_a_clean_venv(tmp_path):
    # build from a copy: setuptools writes build/ and *.egg-info next to the sources
    source = tmp_path / "source"
    source.mkdir()
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(ROOT / name, source / name)
    for package in ("transformer_lib", "book_support"):  # the library and the book's apparatus: one distribution
        shutil.copytree(ROOT / package, source / package, ignore=shutil.ignore_patterns("__pycache__"))
    wheels = tmp_path / "wheels"
    built = _run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--quiet", "-w", str(wheels), str(source)])
    assert built.returncode == 0, built.stderr
    (wheel,) = wheels.glob("transformer_lib-*.whl")
    import transformer_lib

    assert f"-{transformer_lib.__version__}-" in wheel.name

    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    python = str(venv / ("Scripts" if platform.system() == "Windows" else "bin") / "python")
    import torch

    install = [python, "-m", "pip", "install", "--quiet", str(wheel), f"torch=={torch.__version__}", "ipykernel"]
    result = _run(install)
    if result.returncode != 0 and "+cpu" in torch.__version__:
        result = _run([*install, "--extra-index-url", TORCH_CPU_INDEX])
    assert result.returncode == 0, result.stderr[-3000:]

    # only what the wheel declares (and a kernel) is there: no jupyter-book, no nbval, no myst_nb, no pytest
    listed = _run([python, "-m", "pip", "list", "--format=json"])
    installed = {p["name"].lower().replace("_", "-") for p in json.loads(listed.stdout)}
    assert "transformer-lib" in installed
    assert not installed & {"jupyter-book", "nbval", "myst-nb", "pytest"}
    where = _run([python, "-c", "import transformer_lib; print(transformer_lib.__file__)"], cwd=CHAPTER.parent)
    assert where.stdout.startswith(str(venv)), where.stdout + where.stderr
    # the console script of [project.scripts]: --help is one word away
    script = venv / ("Scripts" if platform.system() == "Windows" else "bin") / "transformer-lib"
    helped = _run([str(script), "--help"], cwd=tmp_path)
    assert helped.returncode == 0 and helped.stdout.startswith("usage: transformer-lib "), helped.stderr[-2000:]

    # strict nbval, run from this environment, with the venv's interpreter as the kernel: the hidden install
    # cell finds the library and prints nothing, and every compared output is the committed one
    kernels = tmp_path / "kernels"
    registered = _run([python, "-m", "ipykernel", "install", "--prefix", str(kernels), "--name", "tl-wheel"])
    assert registered.returncode == 0, registered.stderr
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    env |= {"JUPYTER_PATH": str(kernels / "share" / "jupyter"), "OMP_NUM_THREADS": "1"}
    env.setdefault("ATEN_CPU_CAPABILITY", "avx2")
    env.setdefault("ONEDNN_MAX_CPU_ISA", "AVX2")
    nbval = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-p",
            "no:cacheprovider",
            "-p",
            "no:xdist",
            "-q",
            "--nbval",
            "--nbval-kernel-name",
            "tl-wheel",
            "--nbval-sanitize-with",
            str(ROOT / "book" / "sanitize.cfg"),
            str(CHAPTER),
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        env=env,
    )
    assert nbval.returncode == 0, nbval.stdout[-4000:]
    assert re.search(r"\b\d+ passed", nbval.stdout), nbval.stdout[-2000:]
