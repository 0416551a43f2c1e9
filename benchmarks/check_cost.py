"""What the input checks that read tensor values cost per training step (forward + backward).

A check that reads a value (the token ids' range, the loss targets' range, "is
any query row fully masked?") must bring a number back to the host: free of
waiting on the CPU, a synchronisation on a GPU. This script times one step of a
small Transformer on the CPU with the library as it is ("ours") and with those
value reads patched out ("theirs": the same shape and type checks, the same
arithmetic), interleaved in one process, and prints the ratio.

Patched out: ``positional.check_tokens`` (the embedding's id range), the
target-range check of ``LabelSmoothingLoss.forward`` and the any-row-fully-masked
test of ``attention._fused_attention`` (asked on the CPU only: elsewhere the kernel's
fix-up runs without asking). The step's batch comes from ``collate``, which counts
the target tokens, so ``n_tgt_tokens`` reads nothing.

Run it with the library to measure first on the path (``PYTHONPATH=.`` from a
checkout): the script's own folder, not the current one, is first on ``sys.path``.

It also counts the values one ``tl.train`` step reads back to the host (``bool``,
``int``, ``float``, ``item``, ``tolist`` on a tensor from Python): on a GPU each is a
synchronisation.

Default size: the tiny config (D=64, H=4, F=128, N=2, V=32), copy-task batches of
about 600 tokens, one thread. Run: ``OMP_NUM_THREADS=1 python benchmarks/check_cost.py``.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import torch
import torch.nn.functional as F
from torch import Tensor

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _timing import interleaved

import transformer_lib as tl
from transformer_lib import attention, losses, positional


def _tokens_unread(name: str, tokens: Tensor, vocab_size: int) -> Tensor:
    """check_tokens without the value read: type and shape only."""
    if not isinstance(tokens, Tensor) or tokens.is_floating_point() or tokens.dim() != 2:
        raise TypeError(f"{name} must be (B, T) integer ids")
    return tokens


def _fused_unread(q: Tensor, k: Tensor, v: Tensor, mask: Tensor | None, dropout_p: float) -> Tensor:
    """The fused kernel without asking whether a row is fully masked (the batches here have none)."""
    return F.scaled_dot_product_attention(q, k, v, attn_mask=mask, dropout_p=dropout_p)


def _loss_unread(self: tl.LabelSmoothingLoss, logits: Tensor, target: Tensor) -> Tensor:
    """LabelSmoothingLoss.forward without its target-range check (the same arithmetic)."""
    V = self.vocab_size
    keep = target != self.ignore_index
    log_p = logits.log_softmax(dim=-1)
    nll = -log_p.gather(-1, target.clamp(0, V - 1)[..., None]).squeeze(-1)
    uniform = -log_p.mean(dim=-1)
    loss = torch.where(keep, (1.0 - self.smoothing) * nll + self.smoothing * uniform, 0.0)
    if self.reduction == "none":
        return loss
    return loss.sum() if self.reduction == "sum" else loss.sum() / keep.sum()


@contextmanager
def value_reads_removed() -> Iterator[None]:
    saved = (positional.check_tokens, attention._fused_attention, losses.LabelSmoothingLoss.forward)
    positional.check_tokens = _tokens_unread  # type: ignore[assignment]
    attention._fused_attention = _fused_unread
    losses.LabelSmoothingLoss.forward = _loss_unread  # type: ignore[method-assign]
    try:
        yield
    finally:
        positional.check_tokens, attention._fused_attention, losses.LabelSmoothingLoss.forward = saved


@contextmanager
def counting_host_reads() -> Iterator[list[str]]:
    """Count the Python-level reads of tensor values inside the block (by method name)."""
    reads: list[str] = []
    names = ("__bool__", "__int__", "__float__", "item", "tolist")
    saved = {name: getattr(Tensor, name) for name in names}

    def counted(name: str):
        original = saved[name]

        def read(self, *args, **kwargs):
            reads.append(name)
            return original(self, *args, **kwargs)

        return read

    for name in names:
        setattr(Tensor, name, counted(name))
    try:
        yield reads
    finally:
        for name, original in saved.items():
            setattr(Tensor, name, original)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--max-tokens", type=int, default=600)
    parser.add_argument("--rounds", type=int, default=200)
    args = parser.parse_args()
    torch.manual_seed(0)
    task = tl.make_task("copy")
    config = tl.TransformerConfig.tiny(dropout=0.0, src_vocab_size=len(task.vocab), tgt_vocab_size=len(task.vocab))
    model = tl.Transformer(config)
    batch = next(task.batches(args.max_tokens, seed=0))
    batch_loss = tl.seq2seq_loss(0.1)

    def step() -> None:
        model.zero_grad(set_to_none=True)
        loss_sum, count = batch_loss(model, batch)
        (loss_sum / count).backward()

    def step_unread() -> None:
        with value_reads_removed():
            step()

    optimizer = torch.optim.SGD(model.parameters(), lr=0.0)
    with counting_host_reads() as reads:
        tl.train(model, optimizer, [batch], 1, progress=False)
    print(f"host reads in one tl.train step: {len(reads)} ({', '.join(sorted(set(reads)))})")
    result = interleaved(step, step_unread, rounds=args.rounds, warmup=20)
    low, high = result["ratio_iqr"]
    print(
        f"forward + backward, B={len(batch)}, S={batch.src.shape[1]}, T={batch.tgt_in.shape[1]} on {torch.__version__}: "
        f"with value checks {result['ours_ms']:.3f} ms, without {result['theirs_ms']:.3f} ms, "
        f"ratio {result['ratio']:.3f} (interquartile {low:.3f}-{high:.3f}); "
        f"checks cost {result['ours_ms'] - result['theirs_ms']:.3f} ms per step"
    )


if __name__ == "__main__":
    main()
