"""Forward + backward time of tl.MultiHeadAttention against nn.MultiheadAttention.

CPU, B=16, T=128, D=512, H=8, causal mask, float32; the two modules hold the
same weights (copied by tl.interop) and are timed interleaved in one process.
Target: ratio <= 1.10. Run: ``make bench`` or ``python benchmarks/attention_speed.py``.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _timing import interleaved, report

import transformer_lib as tl


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--batch", type=int, default=16)
    parser.add_argument("--length", type=int, default=128)
    parser.add_argument("--d-model", type=int, default=512)
    parser.add_argument("--heads", type=int, default=8)
    parser.add_argument("--rounds", type=int, default=30)
    parser.add_argument("--threads", type=int, default=torch.get_num_threads())
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    torch.manual_seed(0)

    ours = tl.MultiHeadAttention(args.d_model, args.heads)
    theirs = tl.interop.to_torch_mha(ours)
    x = torch.randn(args.batch, args.length, args.d_model, requires_grad=True)
    mask = tl.causal_mask(args.length)  # True = may attend
    torch_mask = tl.to_torch_attn_mask(mask)  # True = blocked

    def step_ours():
        out, _ = ours(x, x, x, mask=mask)
        out.sum().backward()

    def step_theirs():
        out, _ = theirs(x, x, x, attn_mask=torch_mask, need_weights=False)
        out.sum().backward()

    def step_ours_weights():
        out, _ = ours(x, x, x, mask=mask, need_weights=True)
        out.sum().backward()

    def step_theirs_weights():
        out, _ = theirs(x, x, x, attn_mask=torch_mask, need_weights=True, average_attn_weights=False)
        out.sum().backward()

    print(f"torch {torch.__version__}, {args.threads} threads, B={args.batch} T={args.length} D={args.d_model} H={args.heads}")
    print(report("forward+backward, fast path (need_weights=False)", interleaved(step_ours, step_theirs, args.rounds)))
    with_weights = interleaved(step_ours_weights, step_theirs_weights, args.rounds)
    print(report("forward+backward, with weights (need_weights=True)", with_weights))


if __name__ == "__main__":
    main()
