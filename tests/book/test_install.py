"""The library as a reader outside this repository gets it.

Two ways. A wheel in a clean venv (``test_wheel_runs_a_chapter_in_a_clean_venv``): the wheel is built from the
repository (``pip wheel --no-deps``) and installed into a fresh venv (no system site-packages) with only the
dependencies ``pyproject.toml`` declares, plus ``ipykernel``, which any notebook front end (Jupyter, Colab) has;
torch is pinned to the version of this environment (the CPU build where this environment has it), so nothing else
is downloaded where pip can find that version locally. One chapter then executes there: its hidden install cell
finds the library and prints nothing, and its code cells print exactly the committed outputs.

A downloaded chapter (``test_a_downloaded_chapter_installs_the_published_wheel``): the site is built as
``make build`` builds it (the wheel only; the HTML is not needed), served on 127.0.0.1, and a downloaded chapter
runs in a fresh venv that has every dependency but not the book's two packages; its install cell, unmodified
except for the host, downloads the wheel and installs it, and the chapter prints the committed outputs. Nothing is
downloaded from the internet: pip runs with no index, and the dependencies come from this environment. Where the
site cannot be reached, the cell stops the notebook with one sentence
(``test_the_install_cell_fails_with_one_sentence_offline``).
"""

from __future__ import annotations

import http.server
import json
import os
import platform
import re
import socket
import subprocess
import sys
import sysconfig
import threading
import time
import tomllib
import urllib.parse
from pathlib import Path

import nbclient
import nbclient.exceptions
import nbformat
import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tools"))
import install_cell  # noqa: E402

CHAPTER = ROOT / "book" / "ch09_model.ipynb"
CHAPTER_5 = ROOT / "book" / "ch05_masking.ipynb"  # small: the downloaded chapter
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
    # the wheel make build publishes: the library and the book's apparatus, one distribution
    wheel = install_cell.build_site_wheel(tmp_path / "site")
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


# ---- the install cell of a downloaded chapter, and the wheel make build publishes for it ----

CELL = "".join(install_cell.install_cell()["source"])
# pip without the machine's configuration or any index: whatever it would have to download makes it fail
OFFLINE_PIP = {"PIP_CONFIG_FILE": os.devnull, "PIP_NO_INDEX": "1", "PIP_NO_CACHE_DIR": "1", "PIP_DISABLE_PIP_VERSION_CHECK": "1"}
BOOK_PACKAGES = ("transformer_lib", "book_support", "__editable__")  # and their metadata, and the editable finder


def test_the_cell_downloads_the_wheel_from_where_the_build_puts_it():
    url = install_cell.wheel_url()
    assert url == install_cell.site_url() + f"{install_cell.WHEEL_FOLDER}/transformer_lib-{_version()}-py3-none-any.whl"
    assert url.startswith(yaml.safe_load((ROOT / "_config.yml").read_text())["html"]["baseurl"].rstrip("/") + "/")
    namespace: dict = {}
    exec(CELL.split("\n\n\nclass")[0], namespace)  # the imports and the constants, not the install itself
    assert namespace["WHEEL"] == url
    assert "git+" not in CELL and "@v" not in CELL  # no tag to go missing
    for doc in ("README.md", "book/intro.md"):  # what they tell a reader to install by hand
        text = (ROOT / doc).read_text()
        assert f"pip install {url}" in text and "git+" not in text, doc
    assert max(len(line) for line in CELL.splitlines()) <= 100
    # make build (what make test builds and the workflow uploads) and make book put the wheel into _build/html
    for target in ("build", "book"):
        dry = subprocess.run(["make", "-n", target, "BIN=.venv/bin"], cwd=ROOT, capture_output=True, text=True)
        lines = dry.stdout.splitlines()
        wheel = [i for i, line in enumerate(lines) if "tools/make_helpers.py site-wheel _build/html" in line]
        book = [i for i, line in enumerate(lines) if "jupyter-book build" in line]
        assert wheel and book and wheel[0] > book[-1], f"make {target}: {dry.stdout}{dry.stderr}"
    workflow = yaml.safe_load((ROOT / ".github" / "workflows" / "book.yml").read_text())
    uploads = [s for s in workflow["jobs"]["test"]["steps"] if "upload-pages-artifact" in s.get("uses", "")]
    assert uploads and uploads[0]["with"]["path"] == "_build/html"


def _version() -> str:
    return tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]


def _fresh_venv(where: Path) -> tuple[str, dict[str, str]]:
    """A venv without the book's two packages, whose dependencies (torch, numpy, jupyter, nbval, pip, ...) are
    this environment's: a .pth file lists a folder of links to everything in this environment's site-packages
    except the two packages, their metadata and the editable install's finder (a folder added by a .pth line has
    its own .pth files ignored). pip is this environment's too (the venv's own, from ensurepip, would come with
    Python's bundled setuptools, older than torch requires): it installs into the venv, whose python runs it.
    Returns the venv's python and the environment to run it in."""
    venv = where / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, capture_output=True)
    python = str(venv / "bin" / "python")
    deps = where / "deps"
    deps.mkdir()
    for entry in Path(sysconfig.get_paths()["purelib"]).iterdir():
        if not entry.name.lower().startswith(BOOK_PACKAGES) and entry.name != "__pycache__":
            (deps / entry.name).symlink_to(entry)
    purelib = subprocess.run(
        [python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"], capture_output=True, text=True, check=True
    ).stdout.strip()
    (Path(purelib) / "project_dependencies.pth").write_text(f"{deps}\n")
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV") and not k.startswith("PIP_")}
    env |= OFFLINE_PIP | {"PYTHONNOUSERSITE": "1", "IPYTHONDIR": str(where / "ipython"), "OMP_NUM_THREADS": "1"}
    env.setdefault("ATEN_CPU_CAPABILITY", "avx2")
    env.setdefault("ONEDNN_MAX_CPU_ISA", "AVX2")
    # the venv lacks both packages (neither importable nor known to pip) and has the dependencies
    check = "import importlib.util as u, torch, ipykernel, nbval; print(*map(u.find_spec, ['transformer_lib', 'book_support']))"
    found = subprocess.run([python, "-c", check], capture_output=True, text=True, cwd=where, env=env)
    assert found.stdout == "None None\n", found.stdout + found.stderr
    shown = subprocess.run([python, "-m", "pip", "show", "transformer_lib"], capture_output=True, text=True, env=env)
    assert shown.returncode == 1 and "not found" in shown.stderr, shown.stdout + shown.stderr
    return python, env


def _with_host(cell_source: str, origin: str) -> str:
    """The cell with the site's scheme and host replaced by ``origin``: nothing else changes."""
    published = urllib.parse.urlsplit(install_cell.site_url())
    old = f"{published.scheme}://{published.netloc}/"
    assert cell_source.count(old) == 1, cell_source
    return cell_source.replace(old, f"{origin}/")


class _Site(http.server.ThreadingHTTPServer):
    """A static site on 127.0.0.1 (a free port) that records each request's line and status."""

    def __init__(self, folder: Path):
        self.requests: list[str] = []
        site = self

        class Handler(http.server.SimpleHTTPRequestHandler):
            def __init__(self, *args, **kwargs):
                super().__init__(*args, directory=str(folder), **kwargs)

            def log_request(self, code="-", size="-"):
                site.requests.append(f"{self.requestline} {code}")

        super().__init__(("127.0.0.1", 0), Handler)
        self.origin = f"http://127.0.0.1:{self.server_address[1]}"


@pytest.mark.slow
@pytest.mark.timeout(900)  # ~60 s on an idle two-core machine: a venv, pip, chapter 5 under strict nbval
def test_a_downloaded_chapter_installs_the_published_wheel(tmp_path):
    # what make build publishes, under the site's path (the baseurl's), served on 127.0.0.1
    www = tmp_path / "www"
    site = www / urllib.parse.urlsplit(install_cell.site_url()).path.strip("/")
    wheel = install_cell.build_site_wheel(site)
    python, env = _fresh_venv(tmp_path)

    # the chapter as its page's download button gives it, with the install cell pointed at this host
    downloads = tmp_path / "downloads"
    downloads.mkdir()
    notebook = json.loads(CHAPTER_5.read_text())
    first = next(c for c in notebook["cells"] if c["cell_type"] == "code")
    assert first == install_cell.install_cell(), f"run python tools/install_cell.py {CHAPTER_5.relative_to(ROOT)}"
    server = _Site(www)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        first["source"] = _with_host(CELL, server.origin).splitlines(keepends=True)
        (downloads / CHAPTER_5.name).write_text(json.dumps(notebook, indent=1, ensure_ascii=False) + "\n")
        (downloads / "pytest.ini").write_text("[pytest]\n")  # this folder is the rootdir: no conftest, no options
        start = time.perf_counter()
        nbval = subprocess.run(
            [python, "-m", "pytest", "-p", "no:cacheprovider", "-p", "no:xdist", "-q", "--nbval", "--nbval-current-env",
             "--nbval-sanitize-with", str(ROOT / "book" / "sanitize.cfg"), CHAPTER_5.name],
            cwd=downloads, capture_output=True, text=True, env=env,
        )  # fmt: skip
        seconds = time.perf_counter() - start
    finally:
        server.shutdown()
        server.server_close()
    assert nbval.returncode == 0, nbval.stdout[-4000:] + nbval.stderr[-2000:]
    assert re.search(r"\b\d+ passed", nbval.stdout), nbval.stdout[-2000:]
    # the wheel came from the served site, once, and is what the venv now imports
    path = urllib.parse.urlsplit(install_cell.wheel_url()).path
    assert server.requests == [f"GET {path} HTTP/1.1 200"], server.requests
    where = subprocess.run(
        [python, "-c", "import transformer_lib, book_support; print(transformer_lib.__file__); print(book_support.__file__)"],
        capture_output=True, text=True, cwd=downloads, env=env,
    )  # fmt: skip
    files = where.stdout.split()
    assert len(files) == 2 and all(f.startswith(str(tmp_path / "venv")) for f in files), where.stdout + where.stderr
    shown = subprocess.run([python, "-m", "pip", "show", "-f", "transformer_lib"], capture_output=True, text=True, env=env)
    assert f"Version: {_version()}" in shown.stdout, shown.stdout + shown.stderr
    print(f"chapter 5 in the fresh venv, install included: {seconds:.1f} s; wheel {wheel.stat().st_size:,} bytes")


@pytest.mark.slow
@pytest.mark.timeout(300)  # ~15 s: a venv, a kernel, pip's failed download
def test_the_install_cell_fails_with_one_sentence_offline(tmp_path, monkeypatch):
    python, env = _fresh_venv(tmp_path)
    # a port on 127.0.0.1 that refuses connections: bound, never listening
    closed = socket.socket()
    closed.bind(("127.0.0.1", 0))
    origin = f"http://127.0.0.1:{closed.getsockname()[1]}"
    source = _with_host(CELL, origin)
    wheel = _with_host(install_cell.wheel_url(), origin)
    notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(source), nbformat.v4.new_code_cell("print(1)")])
    # the kernel is the fresh venv's python, started the way Jupyter starts it
    kernels = tmp_path / "jupyter" / "kernels" / "fresh"
    kernels.mkdir(parents=True)
    spec = {
        "argv": [python, "-m", "ipykernel_launcher", "-f", "{connection_file}"],
        "display_name": "fresh",
        "language": "python",
    }
    (kernels / "kernel.json").write_text(json.dumps(spec))
    for name in ("PYTHONPATH", "VIRTUAL_ENV"):
        monkeypatch.delenv(name, raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    monkeypatch.setenv("JUPYTER_PATH", str(tmp_path / "jupyter"))
    client = nbclient.NotebookClient(notebook, kernel_name="fresh", timeout=240, resources={"metadata": {"path": str(tmp_path)}})
    try:
        with pytest.raises(nbclient.exceptions.CellExecutionError):
            client.execute()
    finally:
        closed.close()
    # what the reader sees: one error output, whose whole text is one sentence (no pip log, no traceback) that
    # names what was tried and what to do; the notebook stopped there
    (output,) = notebook.cells[0].outputs
    assert output.output_type == "error" and output.ename == "InstallFailed", output
    (sentence,) = output.traceback
    repository = yaml.safe_load((ROOT / "_config.yml").read_text())["repository"]["url"]
    expected = (
        f"pip could not install {wheel} (no network, or the site does not have it): run this chapter from a clone of"
        f" {repository} instead (`make lab` in the clone, or `pip install -e .` there)."
    )
    assert sentence == output.evalue == expected
    assert notebook.cells[1].outputs == [] and notebook.cells[1].execution_count is None
    still = subprocess.run([python, "-c", "import importlib.util as u; print(u.find_spec('transformer_lib'))"], env=env,
                           capture_output=True, text=True, cwd=tmp_path)  # fmt: skip
    assert still.stdout == "None\n", still.stdout + still.stderr
