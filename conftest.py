"""pytest's set-up for the docstring examples of ``transformer_lib`` (``make unit`` runs them as doctests).

The examples use ``tl`` and ``torch`` without importing them, as the chapters do (``import transformer_lib as
tl`` in their first cell); this puts both names in every doctest's namespace. The unit tests' own set-up is
``tests/conftest.py``; this file only reaches the doctests.
"""

from __future__ import annotations

import pytest

# The entry point ``python -m transformer_lib`` (``transformer_lib/__main__.py``) is run, not imported.
collect_ignore = ["transformer_lib/__main__.py"]


@pytest.fixture(autouse=True)
def _doctest_names(request: pytest.FixtureRequest) -> None:
    if type(request.node).__name__ != "DoctestItem":  # a unit test or a notebook: nothing to add
        return
    import torch

    import transformer_lib

    namespace = request.getfixturevalue("doctest_namespace")
    namespace.update(tl=transformer_lib, torch=torch)
