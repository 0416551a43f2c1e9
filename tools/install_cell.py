"""Put the hidden install cell at the top of every chapter (idempotent).

The cell installs ``transformer_lib`` (with ``book_support``, the book's apparatus, which
ships in the same distribution) where either is missing (Colab, a downloaded notebook,
an environment with a release from before the split) from the repository at the release tag, prints nothing where the
library is present (so strict nbval is untouched), and is removed from the
rendered page (tag ``remove-cell``). ``tests/book/test_notebooks.py`` checks that
every notebook starts with exactly this cell.

Usage: python tools/install_cell.py book/*.ipynb
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

REPOSITORY = "https://github.com/transformer-executed/transformer-executed"
RELEASE = "v0.3.0"
SOURCE = f"""\
# Colab or a downloaded notebook: install the book's library and apparatus where missing (silent where present).
import importlib.util
import subprocess
import sys

if importlib.util.find_spec("transformer_lib") is None or importlib.util.find_spec("book_support") is None:
    subprocess.run(
        [sys.executable, "-m", "pip", "install", "--quiet", "transformer_lib @ git+{REPOSITORY}@{RELEASE}"],
        check=True,
    )"""


def install_cell() -> dict:
    return {
        "cell_type": "code",
        "execution_count": 1,
        "id": "install-library",
        "metadata": {"tags": ["remove-cell"]},
        "outputs": [],
        "source": SOURCE.splitlines(keepends=True),
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
