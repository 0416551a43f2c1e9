"""book_support.notebook: the chapters' set-up call, timer, glue and dispatch recorder.

``deterministic`` runs in a fresh interpreter (what it sets acts once per process).
"""

import os
import subprocess
import sys

import pytest
import torch

import book_support as bk


def _run(code: str, **env: str) -> subprocess.CompletedProcess:
    clean = {k: v for k, v in os.environ.items() if k not in {"ATEN_CPU_CAPABILITY", "ONEDNN_MAX_CPU_ISA"}}
    return subprocess.run([sys.executable, "-c", code], env={**clean, **env}, capture_output=True, text=True, timeout=120)


def test_deterministic_seeds_threads_and_reports_bad_arguments():
    result = _run(
        "import torch, transformer_lib as tl, book_support as bk\n"
        "g = bk.deterministic(seed=3, threads=1)\n"
        "a = torch.randn(3, generator=g)\n"
        "b = torch.randn(3, generator=tl.set_seed(3))\n"
        "print(torch.equal(a, b), torch.get_num_threads(), torch.are_deterministic_algorithms_enabled())\n"
        "for bad in (0, -1, True, 1.5):\n"
        "    try:\n"
        "        bk.deterministic(threads=bad)\n"
        "    except (TypeError, ValueError) as error:\n"
        "        print(type(error).__name__, 'threads' in str(error))\n"
    )
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0] == "True 1 True"
    assert lines[1:] == ["ValueError True", "ValueError True", "TypeError True", "TypeError True"]


def test_deterministic_without_portable_leaves_the_environment_alone():
    result = _run(
        "import os, book_support as bk\n"
        "bk.deterministic(portable=False)\n"
        "print('ATEN_CPU_CAPABILITY' in os.environ, 'ONEDNN_MAX_CPU_ISA' in os.environ)\n"
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "False False"


def test_cpu_seconds_is_the_least_thread_time_and_checks_its_arguments():
    import time

    import book_support as bk

    calls = []

    def busy():
        calls.append(1)
        end = time.thread_time() + 0.02
        while time.thread_time() < end:
            pass

    seconds = bk.cpu_seconds(busy, repeats=3, warmup=2)
    assert len(calls) == 5
    assert 0.02 <= seconds < 0.2
    sleeping = bk.cpu_seconds(lambda: time.sleep(0.05), repeats=2, warmup=0)
    assert sleeping < 0.02  # waiting is not CPU time
    with pytest.raises(TypeError, match="fn must be callable"):
        bk.cpu_seconds(1.0)
    with pytest.raises(ValueError, match="repeats must be a positive int, got 0"):
        bk.cpu_seconds(busy, repeats=0)
    with pytest.raises(ValueError, match="warmup must be an int >= 0, got -1"):
        bk.cpu_seconds(busy, warmup=-1)


def test_glue_emits_what_myst_nb_glue_emits(monkeypatch):
    """bk.glue needs no myst_nb (absent on Colab) but must produce the bundle myst-nb reads."""
    import IPython.display
    import myst_nb

    import book_support as bk

    seen = []
    monkeypatch.setattr(IPython.display, "display", lambda *args, **kwargs: seen.append((args, kwargs)))
    monkeypatch.setattr("myst_nb.ext.glue.ipy_display", lambda *args, **kwargs: seen.append((args, kwargs)))
    for display in (False, True):
        bk.glue("ch0-value", "0.354", display=display)
        myst_nb.glue("ch0-value", "0.354", display=display)
        ours, theirs = seen[-2], seen[-1]
        assert ours == theirs
    assert seen[0][0][0] == {"application/papermill.record/text/plain": "'0.354'"}


def test_dispatched_ops_shows_which_attention_kernel_runs():
    import torch
    import torch.nn.functional as F

    import book_support as bk

    q = torch.randn(2, 5, 8)
    three_d = bk.dispatched_ops(lambda: F.scaled_dot_product_attention(q, q, q))
    four_d = bk.dispatched_ops(lambda: F.scaled_dot_product_attention(q[:, None], q[:, None], q[:, None]))
    assert three_d.count("bmm") == 2 and not any("flash" in name for name in three_d)
    assert any("flash" in name for name in four_d) and "bmm" not in four_d
    with pytest.raises(TypeError, match="fn must be callable"):
        bk.dispatched_ops(3)


def test_format_table_and_rounded():
    import book_support as bk

    text = bk.format_table(["d_k", "variance"], [[4, 3.98765], [64, -0.00001]], digits=2)
    assert text.splitlines() == ["d_k  variance", "---  --------", "  4      3.99", " 64      0.00"]
    with pytest.raises(ValueError, match="every row must have 2 cells"):
        bk.format_table(["a", "b"], [[1]])
    # the conclusion first, where a phone shows it; the others keep their order
    moved = bk.format_table(["n", "x", "y", "equal"], [[1, 2, 3, True]], lead=["equal"])
    assert moved.splitlines()[0].split() == ["n", "equal", "x", "y"]
    assert moved.splitlines()[2].split() == ["1", "True", "2", "3"]
    assert bk.format_table(["n", "equal"], [[1, True]], lead=["n"]).splitlines()[0].split() == ["n", "equal"]
    with pytest.raises(ValueError, match="lead must be a list of header names"):
        bk.format_table(["a", "b"], [[1, 2]], lead=["c"])
    with pytest.raises(ValueError, match="lead must be a list of header names"):
        bk.format_table(["a", "b"], [[1, 2]], lead="b")
    assert bk.rounded(-0.00001, 3) == 0.0 and str(bk.rounded(-0.00001, 3)) == "0.0"
    assert bk.rounded({"a": [1.23456]}, 2) == {"a": [1.23]}


def test_bounds_are_rounded_the_safe_way():
    """A lower bound is never printed above the value, an upper bound never below (chapter 10 printed 0.8995 as
    'at least 90.0 %')."""
    assert bk.rounded_down(100 * 0.8995, 1) == 89.9 and bk.rounded_up(100 * 0.8995, 1) == 90.0
    assert bk.rounded_down(0.29, 2) == 0.29 and bk.rounded_up(0.29, 2) == 0.29  # repr's digits, not binary noise
    assert bk.rounded_down(-0.051, 1) == -0.1 and bk.rounded_up(-0.051, 1) == 0.0
    rng = torch.Generator().manual_seed(0)
    for x in torch.rand(1000, generator=rng, dtype=torch.float64).tolist():
        assert bk.rounded_down(x, 3) <= x <= bk.rounded_up(x, 3) and bk.rounded_up(x, 3) - bk.rounded_down(x, 3) <= 1.001e-3
    with pytest.raises(TypeError, match=r"x must be a real number, got str"):
        bk.rounded_down("0.5", 1)
    with pytest.raises(ValueError, match=r"digits"):
        bk.rounded_up(0.5, -1)
