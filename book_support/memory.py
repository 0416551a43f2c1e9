"""The peak memory of a real training step, measured by the operating system (Linux) or PyTorch's profiler.

Chapter 14's budget for the memory of training was read off the tensors the library's layers save, so
checking it against the bytes autograd saves checks the bookkeeping, not the model of memory. This module
measures the step from outside: it runs one training step of a ``tl.Transformer`` (forward, backward,
Adam's update) in a fresh Python process and reads the kernel's count of the process's resident memory,
which sees every page any allocation touched (PyTorch's CPU tensors, the autograd graph, the kernels'
workspaces, Python's objects), whoever made it.

How, in the child process (:func:`_measure_one`):

1. build the model, Adam and the batch; read the resident set (``/proc/self/statm``): ``built``;
2. run one step, so that Adam's moments exist and every kernel has been initialised, and drop the
   gradients as ``tl.train`` does (``zero_grad(set_to_none=True)``); reset the kernel's high-water mark of
   the resident set (``5`` written to ``/proc/self/clear_refs``) and read the resident set: ``before``;
3. run a second step (the steady state of training) and read the high-water mark (``VmHWM`` in
   ``/proc/self/status``): ``peak``.

``peak - before`` is what the step needs above what the process holds between steps. The high-water mark
is the one of the process's own memory, which ``exec`` starts afresh; ``getrusage``'s ``ru_maxrss`` is
not: Linux carries it across ``exec``, so a child of a large process (a Jupyter kernel) starts with its
parent's peak. Where the reset is refused (``reset`` False), a step's peak is seen only if it exceeds every
earlier one, which ``new_high`` reports.

Limits: the resident set counts pages, not bytes, and counts memory the C allocator keeps after a tensor
is freed. glibc's ``malloc`` returns a large block to the kernel on ``free`` only while the block is above
its mmap threshold, a threshold it raises as blocks are freed; the child therefore fixes it
(``MALLOC_MMAP_THRESHOLD_``), so that every tensor above 64 KiB is its own mapping and goes back to the
kernel when freed. Small tensors, Python objects and the kernels' scratch buffers are still counted as
the allocator holds them. Linux only (``/proc`` and glibc).
"""

from __future__ import annotations

import gc
import json
import os
import re
import subprocess
import sys
import time
from collections.abc import Callable
from typing import Any

import torch

import transformer_lib as tl

#: glibc's environment settings for the child: tensors above 64 KiB are mapped and unmapped one by one.
MALLOC_ENVIRONMENT = {"MALLOC_MMAP_THRESHOLD_": "65536", "MALLOC_TRIM_THRESHOLD_": "131072"}


def _resident_bytes() -> int:
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def _peak_bytes() -> int:
    """The high-water mark of this process's resident set since exec or the last reset."""
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) * 1024  # kB
    raise OSError("/proc/self/status has no VmHWM line")


def _reset_peak() -> bool:
    """Reset the high-water mark to the present resident set (Linux 4.0 and later); False where refused."""
    try:
        with open("/proc/self/clear_refs", "w") as clear_refs:
            clear_refs.write("5")
    except OSError:
        return False
    return True


def _profiled_peak(step: Callable[[], None]) -> tuple[int, str]:
    """The allocator's peak during ``step`` above its start (bytes), and the operator open at that peak."""
    from torch.profiler import ProfilerActivity, profile

    with profile(activities=[ProfilerActivity.CPU], profile_memory=True) as profiler:
        step()
    events = list(profiler.profiler.kineto_results.events())
    allocations = sorted((e for e in events if e.name() == "[memory]"), key=lambda e: e.start_ns())
    total = peak = 0
    peak_ns = None
    for event in allocations:
        total += event.nbytes()
        if total > peak:
            peak, peak_ns = total, event.start_ns()
    if peak_ns is None:
        return 0, "none"
    open_ops = sorted(
        (e for e in events if e.name() != "[memory]" and e.start_ns() <= peak_ns <= e.end_ns()),
        key=lambda e: e.start_ns(),
    )
    nodes = [e.name() for e in open_ops if re.fullmatch(r"\w+Backward\d+", e.name())]
    operators = [e.name() for e in open_ops if e.name().startswith("aten::")]
    return peak, (nodes or operators or ["unknown"])[-1]


def _measure_one(spec: dict[str, Any], profiled: bool) -> dict[str, Any]:
    """Run in the child: build, one step, then the measured or the profiled step (see the module's text)."""
    torch.manual_seed(0)
    config = tl.TransformerConfig(
        src_vocab_size=spec["V"],
        tgt_vocab_size=spec["V"],
        d_model=spec["D"],
        n_heads=spec["H"],
        d_ff=spec["F"],
        n_encoder_layers=spec["N"],
        n_decoder_layers=spec["N"],
        max_len=max(spec["S"], spec["T"]),
        dropout=0.0,
    )
    model = tl.set_attention_kernel(tl.Transformer(config), spec["kernel"])
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-4, betas=(0.9, 0.98), eps=1e-9)
    loss_fn = tl.LabelSmoothingLoss(spec["V"], 0.1, reduction="sum")
    B, S, T = spec["B"], spec["S"], spec["T"]
    src = torch.randint(4, spec["V"], (B, S))
    tgt = torch.randint(4, spec["V"], (B, T + 1))
    causal = tl.causal_mask(T)

    def step() -> None:  # the step of tl.train: zero_grad, forward, loss, backward, update
        optimizer.zero_grad(set_to_none=True)
        loss_sum = loss_fn(model(src, tgt[:, :-1], tgt_mask=causal), tgt[:, 1:])
        (loss_sum / (B * T)).backward()
        optimizer.step()

    result: dict[str, Any] = {"parameters": sum(p.numel() for p in model.parameters())}
    if profiled:  # a step, then the profiled step
        step()
        optimizer.zero_grad(set_to_none=True)
        gc.collect()
        result["profiler_bytes"], result["peak_op"] = _profiled_peak(step)
        return result
    built = _resident_bytes()
    step()
    optimizer.zero_grad(set_to_none=True)
    gc.collect()
    reset = _reset_peak()
    before, high_before = _resident_bytes(), _peak_bytes()
    step()
    peak = _peak_bytes()
    result.update(built=built, before=before, peak=peak, new_high=peak > high_before, reset=reset)
    result.update(method="VmHWM", step_bytes=peak - before, seen=reset or peak > high_before)
    return result


def _measure(specs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Each spec in turn, in one process; what one leaves is freed before the next is built.

    On Linux every spec is measured by VmHWM before any is profiled, then each is profiled.
    """
    linux = os.path.exists("/proc/self/status") and os.path.exists("/proc/self/statm")
    results = []
    for spec in specs:  # VmHWM first: the profiler's buffers, once freed, would be reused by the step
        results.append(_measure_one(spec, profiled=False) if linux else {})
        gc.collect()
    for spec, result in zip(specs, results, strict=True):
        profiled = _measure_one(spec, profiled=True)
        gc.collect()
        result.update(profiled)
        if not linux:  # the profiler sees every allocation of the step: no mark to reset
            result.update(method="profiler", step_bytes=result["profiler_bytes"], seen=True)
    for result in results:
        result["child_cpu_seconds"] = time.process_time()  # since the child started
    return results


SIZES = ("B", "S", "T", "D", "F", "H", "N", "V")


def training_step_peaks(specs: list[dict[str, Any]], timeout: float = 300) -> list[dict[str, Any]]:
    """The peak memory of one Adam step of a Post-LN ``tl.Transformer`` in a fresh process, per spec.

    The specs run one after another in one child process (one import of torch). On Linux the step is
    measured by the resident set's high-water mark, reset before each measured step; where the kernel
    refuses the reset, list the specs in increasing order of the memory they need, since a step's peak is
    then seen only if it exceeds every earlier one. A further step runs under ``torch.profiler``: its
    allocator peak is the measurement where ``/proc`` is missing (macOS, Windows), a cross-check on Linux.

    Args:
        specs: dicts with ``B``, ``S``, ``T`` (sequences per batch, source and target length), ``D``, ``F``,
            ``H``, ``N``, ``V`` (width, feed-forward width, heads, layers per stack, shared vocabulary;
            dropout 0) and optionally ``kernel``: ``"explicit"`` (stores the attention weights, the
            default) or ``"fused"``.
        timeout: seconds the child may take.

    Returns:
        One dict per spec: ``parameters``; ``method`` (``"VmHWM"`` or ``"profiler"``); ``step_bytes`` (the
        step's peak above what the process held before it, by that method); ``seen`` (whether that peak
        was seen: always with the profiler); ``profiler_bytes`` and ``peak_op`` (the profiled step's
        allocator peak, and the autograd node or operator open at it); ``child_cpu_seconds`` (the child's
        CPU time, the same in every dict). With ``VmHWM`` also ``built`` and ``before`` (bytes resident
        after building, and between the two steps), ``peak`` (the high-water mark after the measured
        step), ``reset`` (whether the mark was reset before it) and ``new_high`` (whether it set a new
        one); ``step_bytes`` is then ``peak - before``.

    Raises:
        ValueError: a spec with a missing or non-positive size, or an unknown kernel.
        RuntimeError: the child failed; its error output is in the message.
    """
    checked = []
    for i, spec in enumerate(specs):
        for name in SIZES:
            value = spec.get(name)
            if not isinstance(value, int) or isinstance(value, bool) or value <= 0:
                raise ValueError(f"specs[{i}][{name!r}] must be a positive int, got {value!r}")
        kernel = spec.get("kernel", "explicit")
        if kernel not in ("explicit", "fused"):
            raise ValueError(f"specs[{i}]['kernel'] must be 'explicit' or 'fused', got {kernel!r}")
        checked.append({**{name: spec[name] for name in SIZES}, "kernel": kernel})
    child = subprocess.run(
        [sys.executable, "-m", "book_support.memory", json.dumps(checked)],
        capture_output=True,
        text=True,
        timeout=timeout,
        env={**os.environ, **MALLOC_ENVIRONMENT},
    )
    if child.returncode != 0:
        raise RuntimeError(f"the measuring process failed ({child.returncode}):\n{child.stderr[-2000:]}")
    results: list[dict[str, Any]] = json.loads(child.stdout.strip().splitlines()[-1])
    return results


if __name__ == "__main__":  # the child: one JSON spec in, one JSON line out
    print(json.dumps(_measure(json.loads(sys.argv[1]))))
