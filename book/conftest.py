"""pytest settings for strict nbval of the chapters (make nbval, make nbval-emulated).

xdist's ``--dist loadfile`` hands whole notebooks to the workers in collection order, and the order is
alphabetical: the longest chapters came last, so one worker could still be executing the last long chapter
while the other sat idle. Collecting the longest notebooks first (longest-processing-time-first scheduling)
keeps both workers busy to the end. The costs only order the run; a stale entry makes it slower, never wrong.
"""

from __future__ import annotations

import json
from pathlib import Path

# Seconds of each notebook in make test's plain strict nbval pass (its cells' times summed), as recorded in
# book/test_costs.json by `tools/test_costs.py report --write`; notebooks not listed run afterwards, in
# alphabetical order.
SECONDS = json.loads((Path(__file__).parent / "test_costs.json").read_text())["passes"]["plain"]["notebooks"]


def pytest_collection_modifyitems(items: list) -> None:
    """Longest notebooks first; the cells of one notebook keep their order (they share one kernel)."""
    position = {id(item): i for i, item in enumerate(items)}
    items.sort(key=lambda item: (-SECONDS.get(Path(str(item.fspath)).name, 0), str(item.fspath), position[id(item)]))
