"""The training command line, run as ``python -m transformer_lib.train``.

Trains a small Transformer on one of the generated tasks with the paper's
recipe scaled down: Adam (beta1 = 0.9, beta2 = 0.98, eps = 1e-9), the warm-up
schedule, label smoothing 0.1, token-count batches. Every ``--eval-every``
steps it reports the held-out loss and the exact-match accuracy of greedy
decoding; checkpoints and ``history.json`` go to ``--out``; ``--resume``
continues a stopped run exactly. Under ``torchrun --nproc_per_node=2`` it trains
data-parallel (gloo, CPU), each rank on its shard of the same global batch.

Examples::

    python -m transformer_lib.train --task dates --steps 1000 --eval-every 250 --out runs/dates
    torchrun --nproc_per_node=2 -m transformer_lib.train --task copy --steps 200 --out runs/copy

Book: chapter 10.
"""

from __future__ import annotations

import argparse
import json
import os
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import torch
import torch.distributed as dist

from .config import TransformerConfig
from .data import TASKS, make_task
from .model import Transformer, count_parameters
from .training import LabelSmoothingLoss, TrainHistory, evaluate, noam_scheduler, train
from .utils import set_seed


def build_parser() -> argparse.ArgumentParser:
    """The argument parser; the defaults are the recipe of chapter 10 for the dates task. Book: chapter 10."""
    parser = argparse.ArgumentParser(prog="python -m transformer_lib.train", description=__doc__.split("\n\n")[0])
    parser.add_argument("--task", choices=sorted(TASKS), required=True, help="the generated task to learn")
    parser.add_argument("--steps", type=int, required=True, help="total number of updates")
    parser.add_argument("--out", type=Path, required=True, help="folder for checkpoint.pt and history.json")
    parser.add_argument("--batch-tokens", type=int, default=1000, help="source and target tokens per batch, padding included")
    parser.add_argument("--eval-every", type=int, default=None, help="evaluate every N steps (default: at the end only)")
    parser.add_argument("--eval-examples", type=int, default=1000, help="held-out examples to evaluate on")
    parser.add_argument("--checkpoint-every", type=int, default=None, help="checkpoint every N steps (default: at the end)")
    parser.add_argument("--resume", action="store_true", help="continue from OUT/checkpoint.pt if it exists")
    parser.add_argument("--seed", type=int, default=0, help="seed of the weights, the data and dropout")
    parser.add_argument("--d-model", type=int, default=64, help="D")
    parser.add_argument("--heads", type=int, default=4, help="H")
    parser.add_argument("--d-ff", type=int, default=256, help="F")
    parser.add_argument("--layers", type=int, default=2, help="N, for the encoder and for the decoder")
    parser.add_argument("--dropout", type=float, default=0.0, help="residual and embedding dropout")
    parser.add_argument("--warmup", type=int, default=200, help="warm-up steps of the schedule (4000 in the paper)")
    parser.add_argument("--lr-factor", type=float, default=0.3, help="factor of the schedule (1 in the paper)")
    parser.add_argument("--smoothing", type=float, default=0.1, help="label smoothing eps")
    parser.add_argument("--clip", type=float, default=None, help="clip the gradient norm to this value")
    parser.add_argument("--threads", type=int, default=1, help="torch threads per process")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")
    return parser


def run(args: argparse.Namespace) -> dict[str, Any]:
    """Train as ``args`` say; return the summary (also written to OUT/summary.json by rank 0). Book: chapter 10."""
    torch.set_num_threads(args.threads)
    started = False
    if int(os.environ.get("WORLD_SIZE", "1")) > 1 and not dist.is_initialized():
        dist.init_process_group("gloo")
        started = True
    rank = dist.get_rank() if dist.is_initialized() else 0
    try:
        return _train(args, rank)
    finally:
        if started:
            dist.destroy_process_group()


def _train(args: argparse.Namespace, rank: int) -> dict[str, Any]:
    task = make_task(args.task)
    V = len(task.vocab)
    config = TransformerConfig.tiny(
        src_vocab_size=V,
        tgt_vocab_size=V,
        d_model=args.d_model,
        n_heads=args.heads,
        d_ff=args.d_ff,
        n_encoder_layers=args.layers,
        n_decoder_layers=args.layers,
        dropout=args.dropout,
        max_len=max(task.max_src_len, task.max_tgt_len + 1),
    )
    task.check_config(config)
    set_seed(args.seed)  # the same initial weights on every rank
    model = Transformer(config)
    optimizer = torch.optim.Adam(model.parameters(), betas=(0.9, 0.98), eps=1e-9)
    scheduler = noam_scheduler(optimizer, config.d_model, warmup=args.warmup, factor=args.lr_factor)
    batches = task.batches(args.batch_tokens, seed=args.seed, max_len=config.max_len)
    held_out = task.examples(args.eval_examples, seed=0, split="held_out")  # fixed: comparable across seeds
    start = time.perf_counter()
    history: TrainHistory = train(
        model,
        optimizer,
        batches,
        args.steps,
        scheduler=scheduler,
        loss_fn=LabelSmoothingLoss(V, args.smoothing, ignore_index=task.vocab.pad_id, reduction="sum"),
        clip_grad_norm=args.clip,
        eval_fn=lambda m: evaluate(m, held_out),
        eval_every=args.eval_every,
        checkpoint_dir=args.out,
        checkpoint_every=args.checkpoint_every,
        resume=args.resume,
        progress=False if args.no_progress else None,
    )
    seconds = time.perf_counter() - start
    last = history.evals[-1] if history.evals else {}
    summary = {
        "task": args.task,
        "steps": history.steps[-1] if history.steps else 0,
        "parameters": count_parameters(model),
        "train_loss": history.losses[-1] if history.losses else float("nan"),
        "held_out_loss": last.get("loss", float("nan")),
        "held_out_accuracy": last.get("accuracy", float("nan")),
        "held_out_examples": len(held_out),
        "seconds": seconds,
    }
    if rank == 0:
        args.out.mkdir(parents=True, exist_ok=True)
        (args.out / "history.json").write_text(json.dumps(history.to_dict()))
        (args.out / "summary.json").write_text(json.dumps(summary))
        print(
            f"summary: task={summary['task']} steps={summary['steps']} parameters={summary['parameters']} "
            f"train_loss={summary['train_loss']:.4f} held_out_loss={summary['held_out_loss']:.4f} "
            f"exact_match={summary['held_out_accuracy']:.2%} of {len(held_out)} held-out examples "
            f"seconds={seconds:.1f}",
            flush=True,
        )
    return summary


def main(argv: Sequence[str] | None = None) -> int:
    """Parse ``argv`` (default: the command line), train, return the exit status 0. Book: chapter 10."""
    run(build_parser().parse_args(argv))
    return 0


__all__ = ["build_parser", "main", "run"]
