"""The library's structure: no module reaches into another module's private names.

A name with a leading underscore is free to change without notice; a module that imports one
from a sibling (as variants once imported model._check_config) breaks when it does. A shared
helper is made public, or moved where both can import it.
"""

import ast
from pathlib import Path

import transformer_lib

PACKAGE = Path(transformer_lib.__file__).parent

# Known cases waiting for their owner (requested in /tmp/team/REQUESTS.md); the list may only shrink.
KNOWN: set[tuple[str, str]] = set()  # private names used across modules that are allowed: none


def _private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__")


def _private_uses(path: Path) -> set[str]:
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom):
            module = "." * node.level + (node.module or "")
            found |= {f"from {module} import {a.name}" for a in node.names if _private(a.name)}
        elif isinstance(node, ast.Attribute) and _private(node.attr) and isinstance(node.value, ast.Name):
            if node.value.id not in ("self", "cls"):
                found.add(f"{node.value.id}.{node.attr}")
    return found


def test_no_module_uses_another_modules_private_names():
    found = {(path.relative_to(PACKAGE).as_posix(), use) for path in sorted(PACKAGE.rglob("*.py")) for use in _private_uses(path)}
    assert found - KNOWN == set(), "private names used across modules"
    assert KNOWN - found == set(), "fixed: remove these from KNOWN"


def test_the_checker_finds_both_kinds(tmp_path):
    source = tmp_path / "m.py"
    source.write_text("from .model import _check_config\nimport x\nx._hidden()\nself._ok = 1\n", encoding="utf-8")
    assert _private_uses(source) == {"from .model import _check_config", "x._hidden"}
