"""Execute the chapters into a jupyter-cache, never into the sources (used by ``make book``).

Jupyter Book's ``execute_notebooks: cache`` mode renders a notebook's outputs from a jupyter-cache
keyed by a hash of its code cells (sources and metadata) and kernelspec; where the cache has no
match it executes the notebook itself, one notebook at a time, inside the Sphinx build. This script
fills the same cache first, ``--jobs`` notebooks at a time, so that the build then finds every
notebook cached. A notebook whose code did not change is skipped; the committed ``.ipynb`` files
are only read.

Usage: python tools/execute_cache.py --cache _build/.jupyter_cache/<key> --jobs 2 book/*.ipynb
Exit status 1 if a notebook failed (its traceback is printed; nothing is cached for it).
"""

from __future__ import annotations

import argparse
import sys
import time
from concurrent.futures import ProcessPoolExecutor, as_completed
from pathlib import Path

import nbformat


def _execute(path: str, timeout: int) -> tuple[str, nbformat.NotebookNode, float, str | None]:
    from jupyter_cache.executors.utils import single_nb_execution

    notebook = nbformat.read(path, as_version=4)
    result = single_nb_execution(
        notebook, cwd=str(Path(path).parent.absolute()), timeout=timeout, allow_errors=False, meta_override=True
    )
    return path, result.nb, result.time, result.exc_string


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cache", required=True, help="jupyter-cache folder (created if missing)")
    parser.add_argument("--jobs", type=int, default=2, help="notebooks executed at the same time")
    parser.add_argument("--timeout", type=int, default=600, help="seconds per cell")
    parser.add_argument("notebooks", nargs="+")
    args = parser.parse_args(argv)

    from jupyter_cache import get_cache
    from jupyter_cache.base import CacheBundleIn

    cache = get_cache(args.cache)
    outdated = []
    for path in args.notebooks:
        try:
            cache.match_cache_notebook(nbformat.read(path, as_version=4))
        except KeyError:
            outdated.append(path)
    print(f"execute_cache: {len(args.notebooks) - len(outdated)} cached, {len(outdated)} to execute", flush=True)
    failed = []
    start = time.perf_counter()
    with ProcessPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        futures = [pool.submit(_execute, path, args.timeout) for path in outdated]
        for future in as_completed(futures):
            path, notebook, seconds, error = future.result()
            if error is not None:
                failed.append(path)
                print(f"execute_cache: FAILED {path} after {seconds:.0f} s\n{error}", file=sys.stderr, flush=True)
                continue
            cache.cache_notebook_bundle(
                CacheBundleIn(notebook, str(Path(path).absolute()), data={"execution_seconds": seconds}),
                check_validity=False,
                overwrite=True,
            )
            print(f"execute_cache: {path} executed in {seconds:.0f} s", flush=True)
    if outdated:
        print(f"execute_cache: {len(outdated)} notebook(s) in {time.perf_counter() - start:.0f} s", flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
