"""The packages' structure, read from their own imports: one way down, no circle, no private reach.

``transformer_lib`` is the library a reader reuses; ``book_support`` is the book's apparatus. The
apparatus imports the library, never the other way; no module imports itself back through others;
an import of the package's own modules sits at the top of a module (an import inside a function
would only be there to break a circle); and no module uses another module's private names.
"""

import ast
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("transformer_lib", "book_support")
# the one import inside a function: book_support loads plotting on first use, because importing plotting applies
# the book's figure style to matplotlib's global settings (a chapter that never draws with it keeps the defaults)
LAZY_ALLOWED = {"book_support": ["book_support.plotting"]}
# the one private module the apparatus may use: the library's argument checks, so both packages word
# their errors alike
SHARED_PRIVATE = {"transformer_lib._checks"}


def _module_name(path: Path, root: Path) -> str:
    parts = path.relative_to(root).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _resolve(module: str, is_package: bool, node: ast.ImportFrom, modules: set[str]) -> list[str]:
    """The modules a ``from ... import`` statement in ``module`` reaches: each imported name that is a
    module, and the module it names otherwise."""
    if node.level:
        base = module.split(".") if is_package else module.split(".")[:-1]
        base = base[: len(base) - node.level + 1]
        target = ".".join(base + ([node.module] if node.module else []))
    else:
        target = node.module or ""
    return [f"{target}.{a.name}" if f"{target}.{a.name}" in modules else target for a in node.names]


def import_graph(root: Path = ROOT) -> tuple[dict[str, set[str]], dict[str, list[str]]]:
    """(module -> modules of both packages it imports, module -> imports made inside functions)."""
    files = {_module_name(p, root): p for package in PACKAGES for p in sorted((root / package).rglob("*.py"))}
    graph: dict[str, set[str]] = {name: set() for name in files}
    lazy: dict[str, list[str]] = {}
    for name, path in files.items():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        inside = {id(n) for f in ast.walk(tree) if isinstance(f, ast.FunctionDef | ast.AsyncFunctionDef) for n in ast.walk(f)}
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                targets = _resolve(name, path.name == "__init__.py", node, set(files))
            else:
                continue
            reached = {t for t in targets if t in files and t != name}
            graph[name] |= reached
            if reached and id(node) in inside:
                lazy.setdefault(name, []).extend(sorted(reached))
    return graph, lazy


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    found, state, stack = [], {}, []

    def visit(node: str) -> None:
        state[node] = "open"
        stack.append(node)
        for nxt in sorted(graph[node]):
            if state.get(nxt) == "open":
                found.append([*stack[stack.index(nxt) :], nxt])
            elif nxt not in state:
                visit(nxt)
        stack.pop()
        state[node] = "done"

    for node in sorted(graph):
        if node not in state:
            visit(node)
    return found


GRAPH, LAZY = import_graph()


def test_the_graph_sees_the_packages_imports():
    # the checks below pass vacuously on an empty graph: a few edges every version has
    assert "transformer_lib.model" in GRAPH["transformer_lib.variants"]
    assert "transformer_lib.data" in GRAPH["transformer_lib.tasks"]
    assert "transformer_lib.counting" in GRAPH["book_support.derivations.cost"]
    assert "book_support.claims" in GRAPH["book_support.worked_examples.audit"]


def test_the_library_never_imports_the_apparatus():
    upward = {
        (m, t) for m, targets in GRAPH.items() if m.startswith("transformer_lib") for t in targets if t.startswith("book_support")
    }
    assert upward == set(), f"transformer_lib imports book_support: {sorted(upward)}"


def test_no_import_circle():
    assert _cycles(GRAPH) == [], "modules that import themselves back through others"


def test_no_lazy_import_of_the_packages_own_modules():
    assert LAZY == LAZY_ALLOWED, f"imports inside functions (there is no circle for them to break): {LAZY}"


def test_the_checks_can_fail(tmp_path):
    for package in PACKAGES:
        (tmp_path / package).mkdir()
        (tmp_path / package / "__init__.py").write_text("")
    (tmp_path / "transformer_lib" / "a.py").write_text("from . import b\n")
    (tmp_path / "transformer_lib" / "b.py").write_text("def f():\n    from . import a\n")
    (tmp_path / "transformer_lib" / "c.py").write_text("import book_support.d\n")
    (tmp_path / "book_support" / "d.py").write_text("from transformer_lib import a\n")
    graph, lazy = import_graph(tmp_path)
    assert _cycles(graph) == [["transformer_lib.a", "transformer_lib.b", "transformer_lib.a"]]
    assert lazy == {"transformer_lib.b": ["transformer_lib.a"]}
    assert "book_support.d" in graph["transformer_lib.c"] and "transformer_lib.a" in graph["book_support.d"]


def test_import_transformer_lib_loads_no_apparatus_and_no_sympy_or_matplotlib():
    heavy = "{'book_support', 'sympy', 'matplotlib'}"
    code = f"import sys, transformer_lib; print(sorted(m for m in sys.modules if m.split('.')[0] in {heavy}))"
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "[]"
    import transformer_lib as tl

    apparatus = {
        "claims",
        "stats",
        "graphs",
        "plotting",
        "derivations",
        "worked_examples",
        "glue",
        "format_table",
        "deterministic",
    }
    assert apparatus.isdisjoint(dir(tl)), sorted(apparatus & set(dir(tl)))


# --- private names ------------------------------------------------------------------------


def _private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__")


def _private_uses(path: Path) -> set[str]:
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom):
            module = "." * node.level + (node.module or "")
            found |= {f"from {module} import {a.name}" for a in node.names if _private(a.name)}
            ours = module.split(".")[0] in PACKAGES
            if ours and any(_private(part) for part in module.split(".")) and module not in SHARED_PRIVATE:
                found.add(f"from {module} import ...")
        elif isinstance(node, ast.Attribute) and _private(node.attr) and isinstance(node.value, ast.Name):
            if node.value.id not in ("self", "cls"):
                found.add(f"{node.value.id}.{node.attr}")
    return found


@pytest.mark.parametrize("package", PACKAGES)
def test_no_module_uses_another_modules_private_names(package):
    found = {(p.relative_to(ROOT).as_posix(), use) for p in sorted((ROOT / package).rglob("*.py")) for use in _private_uses(p)}
    assert found == set(), "private names used across modules"


def test_the_private_name_checker_finds_every_kind(tmp_path):
    source = tmp_path / "m.py"
    source.write_text(
        "from .model import _check_config\nimport x\nx._hidden()\nself._ok = 1\n"
        "from transformer_lib._checks import check_int\nfrom transformer_lib._other import f\n",
        encoding="utf-8",
    )
    assert _private_uses(source) == {"from .model import _check_config", "x._hidden", "from transformer_lib._other import ..."}
