"""bk.memory: the peak memory of a training step, measured in a fresh process (VmHWM on Linux, else profiler)."""

import sys

import pytest

import transformer_lib as tl
from book_support import memory

SMALL = dict(B=4, S=16, T=16, D=16, F=64, H=2, N=1)

linux_only = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc (Linux)")


@linux_only
def test_a_step_sets_a_new_peak_that_grows_with_the_vocabulary():
    # two sizes in increasing order: the step with 8 times the vocabulary holds 8 times the logits' bytes
    small, large = memory.training_step_peaks([dict(SMALL, V=1000), dict(SMALL, V=16000)])
    for run in (small, large):
        assert run["new_high"], run
        assert run["step_bytes"] > 0 and run["peak"] >= run["before"] >= run["built"] // 2
        assert run["child_cpu_seconds"] > 0
        assert run["method"] == "VmHWM" and run["seen"]
        # the profiler's allocator peak agrees with the resident set's within a few MiB
        assert abs(run["profiler_bytes"] - run["step_bytes"]) < 4 * 2**20, run
    # the logits (B T V floats), log p and their gradients: several MiB more at the larger vocabulary
    assert large["step_bytes"] - small["step_bytes"] > 3 * 4 * 4 * 16 * (16000 - 1000) // 2
    # the parameters of a Post-LN tl.Transformer with a tied embedding, as tl.counting counts them
    assert small["parameters"] == tl.counting.transformer_parameters(16, 64, 1, 1, 1000)


@pytest.mark.parametrize(
    "spec, message",
    [
        (dict(SMALL, V=0), r"specs\[0\]\['V'\] must be a positive int"),
        (dict(SMALL), r"specs\[0\]\['V'\] must be a positive int, got None"),
        (dict(SMALL, V=10, B=2.0), r"specs\[0\]\['B'\] must be a positive int"),
        (dict(SMALL, V=10, kernel="flash"), r"kernel'\] must be 'explicit' or 'fused'"),
    ],
)
def test_bad_specs_are_refused_before_a_process_starts(spec, message):
    with pytest.raises(ValueError, match=message):
        memory.training_step_peaks([spec])


def test_the_apparatus_imports_where_the_resource_module_does_not_exist():
    """Windows has no `resource`: importing book_support (every chapter does) must not need it."""
    import subprocess
    import sys

    code = "import sys; sys.modules['resource'] = None; import book_support; print(book_support.memory.__name__)"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr


def test_without_proc_the_profiler_measures_and_names_the_peak_operator(monkeypatch):
    """macOS and Windows have no /proc: the allocator's peak from torch.profiler is the measurement."""
    real_exists = memory.os.path.exists
    monkeypatch.setattr(memory.os.path, "exists", lambda path: not str(path).startswith("/proc") and real_exists(path))
    (run,) = memory._measure([dict(SMALL, V=4000, kernel="explicit")])
    assert run["method"] == "profiler" and run["seen"] and "peak" not in run
    # the logits' gradient, log p and its gradient: at least three B T V float tensors
    assert run["step_bytes"] == run["profiler_bytes"] > 3 * 4 * 4 * 16 * 4000
    # the peak is in the loss's backward pass, where those three exist together
    assert run["peak_op"] in ("GatherBackward0", "LogSoftmaxBackward0", "NegBackward0"), run
