"""tl.deterministic and tl.portable_numerics, each in a fresh interpreter (both act once per process)."""

import os
import platform
import subprocess
import sys

import pytest

X86 = platform.machine().lower() in {"x86_64", "amd64"}


def _run(code: str, **env: str) -> subprocess.CompletedProcess:
    clean = {k: v for k, v in os.environ.items() if k not in {"ATEN_CPU_CAPABILITY", "ONEDNN_MAX_CPU_ISA"}}
    return subprocess.run([sys.executable, "-c", code], env={**clean, **env}, capture_output=True, text=True, timeout=120)


@pytest.mark.skipif(not X86, reason="the caps apply to x86-64 CPUs only")
def test_portable_numerics_caps_both_back_ends_before_the_first_operation():
    result = _run(
        "import os, torch, transformer_lib as tl\n"
        "report = tl.portable_numerics()\n"
        "print(report['aten'], report['onednn'], os.environ['ATEN_CPU_CAPABILITY'], os.environ['ONEDNN_MAX_CPU_ISA'], sep='|')\n"
    )
    assert result.returncode == 0, result.stderr
    aten, onednn, env_aten, env_onednn = result.stdout.strip().split("|")
    assert aten in {"AVX2", "DEFAULT"}  # never an AVX-512 level, whatever the CPU
    assert (onednn, env_aten, env_onednn) == ("max ISA AVX2", "avx2", "AVX2")
    assert "RuntimeWarning" not in result.stderr


@pytest.mark.skipif(not X86, reason="the caps apply to x86-64 CPUs only")
def test_portable_numerics_keeps_a_level_the_user_chose():
    result = _run("import transformer_lib as tl\nprint(tl.portable_numerics()['aten'])\n", ATEN_CPU_CAPABILITY="default")
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "DEFAULT"


def test_deterministic_seeds_threads_and_reports_bad_arguments():
    result = _run(
        "import torch, transformer_lib as tl\n"
        "g = tl.deterministic(seed=3, threads=1)\n"
        "a = torch.randn(3, generator=g)\n"
        "b = torch.randn(3, generator=tl.set_seed(3))\n"
        "print(torch.equal(a, b), torch.get_num_threads(), torch.are_deterministic_algorithms_enabled())\n"
        "for bad in (0, -1, True, 1.5):\n"
        "    try:\n"
        "        tl.deterministic(threads=bad)\n"
        "    except (TypeError, ValueError) as error:\n"
        "        print(type(error).__name__, 'threads' in str(error))\n"
    )
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0] == "True 1 True"
    assert lines[1:] == ["ValueError True", "ValueError True", "TypeError True", "TypeError True"]


def test_deterministic_without_portable_leaves_the_environment_alone():
    result = _run(
        "import os, transformer_lib as tl\n"
        "tl.deterministic(portable=False)\n"
        "print('ATEN_CPU_CAPABILITY' in os.environ, 'ONEDNN_MAX_CPU_ISA' in os.environ)\n"
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "False False"


def test_cpu_seconds_is_the_least_thread_time_and_checks_its_arguments():
    import time

    import transformer_lib as tl

    calls = []

    def busy():
        calls.append(1)
        end = time.thread_time() + 0.02
        while time.thread_time() < end:
            pass

    seconds = tl.cpu_seconds(busy, repeats=3, warmup=2)
    assert len(calls) == 5
    assert 0.02 <= seconds < 0.2
    sleeping = tl.cpu_seconds(lambda: time.sleep(0.05), repeats=2, warmup=0)
    assert sleeping < 0.02  # waiting is not CPU time
    with pytest.raises(TypeError, match="fn must be callable"):
        tl.cpu_seconds(1.0)
    with pytest.raises(ValueError, match="repeats must be a positive int, got 0"):
        tl.cpu_seconds(busy, repeats=0)
    with pytest.raises(ValueError, match="warmup must be an int >= 0, got -1"):
        tl.cpu_seconds(busy, warmup=-1)


def test_glue_emits_what_myst_nb_glue_emits(monkeypatch):
    """tl.glue needs no myst_nb (absent on Colab) but must produce the bundle myst-nb reads."""
    import IPython.display
    import myst_nb

    import transformer_lib as tl

    seen = []
    monkeypatch.setattr(IPython.display, "display", lambda *args, **kwargs: seen.append((args, kwargs)))
    monkeypatch.setattr("myst_nb.ext.glue.ipy_display", lambda *args, **kwargs: seen.append((args, kwargs)))
    for display in (False, True):
        tl.glue("ch0-value", "0.354", display=display)
        myst_nb.glue("ch0-value", "0.354", display=display)
        ours, theirs = seen[-2], seen[-1]
        assert ours == theirs
    assert seen[0][0][0] == {"application/papermill.record/text/plain": "'0.354'"}


def test_dispatched_ops_shows_which_attention_kernel_runs():
    import torch
    import torch.nn.functional as F

    import transformer_lib as tl

    q = torch.randn(2, 5, 8)
    three_d = tl.dispatched_ops(lambda: F.scaled_dot_product_attention(q, q, q))
    four_d = tl.dispatched_ops(lambda: F.scaled_dot_product_attention(q[:, None], q[:, None], q[:, None]))
    assert three_d.count("bmm") == 2 and not any("flash" in name for name in three_d)
    assert any("flash" in name for name in four_d) and "bmm" not in four_d
    with pytest.raises(TypeError, match="fn must be callable"):
        tl.dispatched_ops(3)
