"""One training step of tl.Transformer against the same model built from torch.nn.

A step is: forward, label-smoothed loss, backward, Adam update. Both models
have the same weights (the stacks copied with tl.interop, the embedding,
positions and tied output projection shared in arrangement), see the same
padded batches with the same masks, and are timed interleaved in one process.
The torch.nn model uses ``nn.TransformerEncoder``/``nn.TransformerDecoder``
without the final LayerNorm (the paper's Post-LN model has none).

Default size: D=256, H=4, F=1024, N=2, B=32, S=T=32, V=1000, dropout 0.
Target: ratio <= 1.10. Run: ``python benchmarks/training_speed.py``.
"""

from __future__ import annotations

import argparse
import math
import sys
from pathlib import Path

import torch
from torch import Tensor, nn

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _timing import interleaved, report

import transformer_lib as tl


class TorchSeq2Seq(nn.Module):
    """The same Transformer with torch.nn's encoder and decoder stacks (weights copied from ``ours``)."""

    def __init__(self, ours: tl.Transformer) -> None:
        super().__init__()
        config = ours.config
        self.scale = math.sqrt(config.d_model)
        self.embedding = nn.Embedding(config.src_vocab_size, config.d_model)
        with torch.no_grad():
            self.embedding.weight.copy_(ours.src_embed.weight)
        self.register_buffer("table", tl.sinusoidal_table(config.max_len, config.d_model), persistent=False)
        self.dropout = nn.Dropout(config.dropout)
        self.encoder = tl.interop.to_torch_encoder(ours.encoder)
        self.decoder = tl.interop.to_torch_decoder(ours.decoder)

    def embed(self, tokens: Tensor) -> Tensor:
        return self.dropout(self.embedding(tokens) * self.scale + self.table[: tokens.shape[1]])

    def forward(self, src: Tensor, tgt: Tensor, src_padding: Tensor, tgt_padding: Tensor, causal: Tensor) -> Tensor:
        memory = self.encoder(self.embed(src), src_key_padding_mask=src_padding)
        out = self.decoder(
            self.embed(tgt),
            memory,
            tgt_mask=causal,
            tgt_key_padding_mask=tgt_padding,
            memory_key_padding_mask=src_padding,
            tgt_is_causal=True,
        )
        return out @ self.embedding.weight.T  # tied output projection, (B, T, V)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--d-model", type=int, default=256)
    parser.add_argument("--heads", type=int, default=4)
    parser.add_argument("--d-ff", type=int, default=1024)
    parser.add_argument("--layers", type=int, default=2)
    parser.add_argument("--batch", type=int, default=32)
    parser.add_argument("--length", type=int, default=32)
    parser.add_argument("--vocab", type=int, default=1000)
    parser.add_argument("--dropout", type=float, default=0.0)
    parser.add_argument("--rounds", type=int, default=20)
    parser.add_argument("--threads", type=int, default=1, help="1, as in the notebooks (steadier on a shared machine)")
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    torch.manual_seed(0)

    config = tl.TransformerConfig.base(
        src_vocab_size=args.vocab,
        tgt_vocab_size=args.vocab,
        d_model=args.d_model,
        n_heads=args.heads,
        d_ff=args.d_ff,
        n_encoder_layers=args.layers,
        n_decoder_layers=args.layers,
        dropout=args.dropout,
        max_len=args.length + 1,
    )
    ours = tl.Transformer(config)
    theirs = TorchSeq2Seq(ours)

    # one fixed set of batches of variable-length sequences, padded, used by both
    examples = []
    for _ in range(args.batch * 4):
        n_src, n_tgt = torch.randint(args.length // 2, args.length + 1, (2,)).tolist()
        examples.append(
            (tuple(torch.randint(4, args.vocab, (n_src,)).tolist()), tuple(torch.randint(4, args.vocab, (n_tgt - 1,)).tolist()))
        )
    batches = [tl.collate(examples[i : i + args.batch]) for i in range(0, len(examples), args.batch)]
    loss_fn = tl.LabelSmoothingLoss(args.vocab, 0.1, ignore_index=0, reduction="sum")

    def torch_masks(batch: tl.Batch) -> tuple[Tensor, Tensor, Tensor]:
        causal = tl.to_torch_attn_mask(tl.causal_mask(batch.tgt_in.shape[1]))  # True = blocked
        return batch.src == 0, batch.tgt_in == 0, causal

    torch_inputs = [torch_masks(b) for b in batches]
    with torch.no_grad():
        ours.eval(), theirs.eval()
        b = batches[0]
        ours_logits = ours(b.src, b.tgt_in, src_mask=b.src_mask, tgt_mask=b.tgt_mask)
        difference = (ours_logits - theirs(b.src, b.tgt_in, *torch_inputs[0])).abs()
        real = b.tgt_out != 0  # padded query rows differ by design (torch.nn lets them attend to nothing)
        print(f"same function: max |logits difference| on real positions {difference[real].max():.2e}")
        ours.train(), theirs.train()

    adam = dict(betas=(0.9, 0.98), eps=1e-9, lr=1e-4)
    opt_ours, opt_theirs = torch.optim.Adam(ours.parameters(), **adam), torch.optim.Adam(theirs.parameters(), **adam)
    counter = {"ours": 0, "theirs": 0}

    def step_ours() -> None:
        batch = batches[counter["ours"] % len(batches)]
        counter["ours"] += 1
        opt_ours.zero_grad(set_to_none=True)
        logits = ours(batch.src, batch.tgt_in, src_mask=batch.src_mask, tgt_mask=batch.tgt_mask)
        (loss_fn(logits, batch.tgt_out) / batch.n_tgt_tokens).backward()
        opt_ours.step()

    def step_theirs() -> None:
        i = counter["theirs"] % len(batches)
        counter["theirs"] += 1
        batch = batches[i]
        opt_theirs.zero_grad(set_to_none=True)
        logits = theirs(batch.src, batch.tgt_in, *torch_inputs[i])
        (loss_fn(logits, batch.tgt_out) / batch.n_tgt_tokens).backward()
        opt_theirs.step()

    print(
        f"torch {torch.__version__}, {args.threads} threads, D={args.d_model} H={args.heads} F={args.d_ff} "
        f"N={args.layers} B={args.batch} S=T<={args.length} V={args.vocab} dropout={args.dropout}"
    )
    print(report("training step (forward, loss, backward, Adam)", interleaved(step_ours, step_theirs, args.rounds)))


if __name__ == "__main__":
    main()
