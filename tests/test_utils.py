"""tl.portable_numerics, in a fresh interpreter (it acts once per process)."""

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
