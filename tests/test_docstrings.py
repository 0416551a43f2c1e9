"""Every public function and class of the library shows how it is called: an ``Examples:`` section.

The examples are doctests: ``make unit`` runs ``pytest --doctest-modules transformer_lib`` beside the tests,
with ``tl`` and ``torch`` in their namespace (``conftest.py`` at the top of the repository). Public means the
functions and classes of ``transformer_lib.__all__`` and those of every public module: its ``__all__``, or else
the functions and classes it defines whose names do not start with ``_`` (``__main__``, the entry point
``python -m transformer_lib``, defines nothing).
"""

import doctest
import importlib
import inspect
import pkgutil
import re
from pathlib import Path
from types import ModuleType

import transformer_lib as tl

ROOT = Path(__file__).resolve().parents[1]

# Public names allowed to go without an example: none. A name added here must say why; test_the_allowlist_is_not_stale
# fails on a name that has one, or that no longer exists. Names as a reader writes them: tl.X, or tl.module.X.
WITHOUT_EXAMPLES_YET: frozenset[str] = frozenset()


def public_modules() -> list[ModuleType]:
    return [
        importlib.import_module(f"transformer_lib.{info.name}")
        for info in pkgutil.iter_modules(tl.__path__)
        if not info.name.startswith("_")
    ]


def _public_names(module: ModuleType) -> list[str]:
    names = getattr(module, "__all__", None)
    if names is None:
        names = [
            n for n, obj in vars(module).items() if not n.startswith("_") and getattr(obj, "__module__", None) == module.__name__
        ]
    return list(names)


def public_objects() -> dict[str, object]:
    """Each public function and class once, under the name a reader uses: ``tl.X`` if the package exports it."""
    found: dict[int, tuple[str, object]] = {}
    spelled = [(f"tl.{name}", getattr(tl, name)) for name in tl.__all__]
    spelled += [
        (f"tl.{m.__name__.split('.')[-1]}.{name}", getattr(m, name)) for m in public_modules() for name in _public_names(m)
    ]
    for spelling, obj in spelled:
        if inspect.isfunction(obj) or inspect.isclass(obj):
            found.setdefault(id(obj), (spelling, obj))
    return dict(sorted(found.values(), key=lambda pair: pair[0]))


def has_example(obj: object) -> bool:
    """The object's own docstring has an ``Examples:`` section with at least one ``>>>`` line."""
    doc = inspect.cleandoc(getattr(obj, "__doc__", None) or "")
    section = re.search(r"^Examples:\n(.*?)(?=^\S|\Z)", doc, re.M | re.S)
    return section is not None and bool(doctest.DocTestParser().get_examples(section.group(1)))


def test_every_public_function_and_class_has_an_example():
    missing = [name for name, obj in public_objects().items() if not has_example(obj) and name not in WITHOUT_EXAMPLES_YET]
    assert not missing, f"no Examples: section with a >>> line in the docstring of {missing}"


def test_the_allowlist_is_not_stale():
    objects = public_objects()
    gone = sorted(WITHOUT_EXAMPLES_YET - set(objects))
    exampled = sorted(name for name in WITHOUT_EXAMPLES_YET & set(objects) if has_example(objects[name]))
    assert not gone, f"WITHOUT_EXAMPLES_YET names what is not public (renamed, moved or gone): {gone}"
    assert not exampled, f"these have an example now: remove them from WITHOUT_EXAMPLES_YET: {exampled}"


def test_doctest_finds_every_example():
    """A decorator that hid a docstring from doctest would leave its example unrun."""
    collected = {test.name for module in public_modules() for test in doctest.DocTestFinder().find(module) if test.examples}
    unrun = [
        name
        for name, obj in public_objects().items()
        if has_example(obj) and f"{obj.__module__}.{obj.__qualname__}" not in collected  # type: ignore[attr-defined]
    ]
    assert not unrun, f"doctest does not find the examples of {unrun}"


def test_make_unit_runs_the_examples():
    recipe = re.search(r"^unit:.*\n((?:\t.*\n)+)", (ROOT / "Makefile").read_text(), re.M)
    assert recipe is not None, "the Makefile has no unit target"
    assert "--doctest-modules transformer_lib" in recipe.group(1), recipe.group(1)


def test_the_check_can_fail():
    def with_example():
        pass

    def with_a_prompt_elsewhere():
        pass

    def without():
        """A sentence, and no example."""

    with_example.__doc__ = "Summary.\n\n    Examples:\n        >>> 1 + 1\n        2\n    "
    with_a_prompt_elsewhere.__doc__ = "Summary.\n\n    >>> 1 + 1\n    2\n\n    Examples:\n        None yet.\n    "
    assert has_example(with_example)
    assert not has_example(with_a_prompt_elsewhere) and not has_example(without) and not has_example(lambda: None)
    assert "tl.causal_mask" in public_objects() and "tl.masks.causal_mask" not in public_objects()
