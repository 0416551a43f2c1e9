"""The training command line, run as ``python -m transformer_lib``.

Trains a small Transformer on one of the generated tasks with the paper's
recipe scaled down: Adam (beta1 = 0.9, beta2 = 0.98, eps = 1e-9), the warm-up
schedule, label smoothing 0.1, token-count batches. Every ``--eval-every``
steps it reports the held-out loss and the exact-match accuracy of greedy
decoding; checkpoints and ``history.json`` go to ``--out``; ``--resume``
continues a stopped run exactly. Under ``torchrun --nproc_per_node=2`` it trains
data-parallel (gloo, CPU), each rank on its shard of the same global batch.

Examples::

    python -m transformer_lib --task dates --steps 1000 --eval-every 250 --out runs/dates
    torchrun --nproc_per_node=2 -m transformer_lib --task copy --steps 200 --out runs/copy

Book: ch-training.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, NoReturn

import torch
import torch.distributed as dist

from .checkpoint import CHECKPOINT_NAME
from .config import TransformerConfig
from .evaluation import evaluate
from .losses import seq2seq_loss
from .model import Transformer, count_parameters
from .schedule import noam_scheduler
from .tasks import TASKS, make_task
from .training import TrainHistory, train
from .utils import set_seed


class _HelpFormatter(argparse.ArgumentDefaultsHelpFormatter):
    """``--help`` shows each option's default, except for required options (which have none)."""

    def _get_help_string(self, action: argparse.Action) -> str | None:
        if action.required or action.default is None or isinstance(action.default, bool):
            return action.help
        return super()._get_help_string(action)


class _Parser(argparse.ArgumentParser):
    """An argument parser whose errors are one line: ``prog: error: argument --steps: ...``."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {message} (see --help)\n")


def _int_at_least(low: int) -> Callable[[str], int]:
    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"must be an integer >= {low}, got {text!r}") from None
        if value < low:
            raise argparse.ArgumentTypeError(f"must be an integer >= {low}, got {value}")
        return value

    parse.__name__ = f"int >= {low}"
    return parse


def _number_in(low: float, high: float | None, *, low_open: bool, high_open: bool) -> Callable[[str], float]:
    interval = f"{'(' if low_open else '['}{low:g}, {'inf' if high is None else f'{high:g}'}{')' if high_open else ']'}"

    def parse(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"must be a number in {interval}, got {text!r}") from None
        above = value > low if low_open else value >= low
        below = high is None or (value < high if high_open else value <= high)
        if not (above and below):  # NaN fails both
            raise argparse.ArgumentTypeError(f"must be a number in {interval}, got {text}")
        return value

    parse.__name__ = f"number in {interval}"
    return parse


_positive_int, _nonnegative_int = _int_at_least(1), _int_at_least(0)
_fraction = _number_in(0.0, 1.0, low_open=False, high_open=True)
_positive = _number_in(0.0, None, low_open=True, high_open=True)


def build_parser() -> argparse.ArgumentParser:
    """The argument parser; the defaults: the paper's recipe scaled down for the dates task. Book: ch-training.

    Examples:
        >>> from transformer_lib import cli
        >>> args = cli.build_parser().parse_args(["--task", "dates", "--steps", "1000", "--out", "runs/dates"])
        >>> args.d_model, args.heads, args.layers, args.warmup, args.smoothing
        (64, 4, 2, 200, 0.1)
    """
    parser = _Parser(
        prog="python -m transformer_lib",
        description=(
            "Train a small Transformer on a generated task with the paper's recipe, scaled down (the book's training chapter)."
        ),
        formatter_class=_HelpFormatter,
    )
    parser.add_argument("--task", choices=sorted(TASKS), required=True, help="the generated task to learn")
    parser.add_argument("--steps", type=_positive_int, required=True, help="total number of updates (resumed ones included)")
    parser.add_argument("--out", type=Path, required=True, help="folder for checkpoint.pt, history.json and summary.json")
    parser.add_argument(
        "--batch-tokens", type=_positive_int, default=1000, help="source and target tokens per batch, padding included"
    )
    parser.add_argument(
        "--eval-every", type=_positive_int, default=None, help="evaluate every N steps (default: at the end only)"
    )
    parser.add_argument("--eval-examples", type=_positive_int, default=1000, help="held-out examples to evaluate on")
    parser.add_argument(
        "--checkpoint-every", type=_positive_int, default=None, help="checkpoint every N steps (default: at the end only)"
    )
    parser.add_argument("--resume", action="store_true", help="continue from OUT/checkpoint.pt if it exists")
    parser.add_argument("--seed", type=_nonnegative_int, default=0, help="seed of the weights, the data and dropout")
    parser.add_argument("--d-model", type=_positive_int, default=64, help="D (even: sinusoidal positions come in sin/cos pairs)")
    parser.add_argument("--heads", type=_positive_int, default=4, help="H (must divide D)")
    parser.add_argument("--d-ff", type=_positive_int, default=256, help="F")
    parser.add_argument("--layers", type=_positive_int, default=2, help="N, for the encoder and for the decoder")
    parser.add_argument("--dropout", type=_fraction, default=0.0, help="residual and embedding dropout")
    parser.add_argument("--warmup", type=_positive_int, default=200, help="warm-up steps of the schedule (4000 in the paper)")
    parser.add_argument("--lr-factor", type=_positive, default=0.3, help="factor of the schedule (1 in the paper)")
    parser.add_argument("--smoothing", type=_fraction, default=0.1, help="label smoothing eps")
    parser.add_argument(
        "--clip", type=_positive, default=None, help="clip the gradient norm to this value (default: no clipping)"
    )
    parser.add_argument("--threads", type=_positive_int, default=1, help="torch threads per process")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")
    return parser


def check_args(parser: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    """The checks that involve more than one argument; each failure is ``parser.error`` naming the flag.

    Examples:
        >>> from transformer_lib import cli
        >>> parser = cli.build_parser()
        >>> args = parser.parse_args(["--task", "dates", "--steps", "1000", "--out", "runs/dates", "--heads", "3"])
        >>> cli.check_args(parser, args)  # on stderr: "... error: argument --heads: must divide --d-model=64 ..."
        Traceback (most recent call last):
            ...
        SystemExit: 2
    """
    if args.d_model % args.heads != 0:
        parser.error(f"argument --heads: must divide --d-model={args.d_model} (each head has width D / H), got {args.heads}")
    if args.d_model % 2 != 0:
        parser.error(f"argument --d-model: must be even (sinusoidal positions come in sin/cos pairs), got {args.d_model}")
    task = make_task(args.task)
    longest_src, longest_tgt = task.max_src_len, task.max_tgt_len + 1
    if args.batch_tokens < max(longest_src, longest_tgt):
        parser.error(
            f"argument --batch-tokens: must hold the longest example of task {args.task!r} "
            f"(source {longest_src} tokens, target {longest_tgt} with <bos>/<eos>), so at least "
            f"{max(longest_src, longest_tgt)}, got {args.batch_tokens}"
        )
    if args.out.exists() and not args.out.is_dir():
        parser.error(f"argument --out: must be a folder, got the file {str(args.out)!r}")
    checkpoint = args.out / CHECKPOINT_NAME
    if args.resume and checkpoint.is_file():
        try:
            done = int(torch.load(checkpoint, map_location="cpu", weights_only=True)["step"])
        except Exception:  # an unreadable checkpoint: train's own error says why
            return
        if args.steps <= done:
            parser.error(
                f"argument --steps: the checkpoint in {str(args.out)!r} is at step {done}; "
                f"to continue, --steps must be larger, got {args.steps}"
            )


def run(args: argparse.Namespace) -> dict[str, Any]:
    """Train as ``args`` say; return the summary (also written to OUT/summary.json by rank 0). Book: ch-training.

    Examples:
        >>> import tempfile
        >>> from transformer_lib import cli
        >>> small = "--d-model 8 --heads 2 --d-ff 16 --layers 1 --batch-tokens 32 --eval-examples 10".split()
        >>> with tempfile.TemporaryDirectory() as out:
        ...     args = cli.build_parser().parse_args(["--task", "copy", "--steps", "2", "--out", out, "--no-progress", *small])
        ...     summary = cli.run(args)
        eval: step=2 held_out_loss=... exact_match=...% of 10 held-out examples
        summary: task=copy steps=2 parameters=1616 train_loss=... seconds=...
        >>> summary["steps"], summary["parameters"]
        (2, 1616)
    """
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
    optimizer = torch.optim.Adam(model.parameters(), lr=1.0, betas=(0.9, 0.98), eps=1e-9)  # the schedule multiplies lr
    scheduler = noam_scheduler(optimizer, config.d_model, warmup=args.warmup, factor=args.lr_factor)
    batches = task.batches(args.batch_tokens, seed=args.seed, max_len=config.max_len)
    held_out = task.examples(args.eval_examples, seed=0, split="held_out")  # fixed: comparable across seeds
    report = rank == 0 and _print_evaluations(args)

    def eval_fn(m: torch.nn.Module) -> dict[str, float]:
        metrics = evaluate(m, held_out)
        if report:
            _print_evaluation(scheduler.last_epoch, metrics, len(held_out))
        return metrics

    start = time.perf_counter()
    history: TrainHistory = train(
        model,
        optimizer,
        batches,
        args.steps,
        batch_loss=seq2seq_loss(args.smoothing),  # LabelSmoothingLoss(V, eps, ignore_index=pad, reduction="sum")
        scheduler=scheduler,
        clip_grad_norm=args.clip,
        eval_fn=eval_fn,
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


def _print_evaluations(args: argparse.Namespace) -> bool:
    """Print a line per evaluation unless a progress bar on a terminal already shows it."""
    bar_shown = not args.no_progress and sys.stderr.isatty()
    return not (bar_shown and sys.stdout.isatty())


def _print_evaluation(step: int, metrics: Mapping[str, float], n_examples: int) -> None:
    print(
        f"eval: step={step} held_out_loss={metrics['loss']:.4f} "
        f"exact_match={metrics['accuracy']:.2%} of {n_examples} held-out examples",
        flush=True,
    )


def main(argv: Sequence[str] | None = None) -> int:
    """Parse and check ``argv`` (default: the command line), train, return the exit status 0.

    A bad argument ends the program with a one-line error naming the flag (exit status 2).
    Book: ch-training.

    Examples:
        >>> import tempfile
        >>> from transformer_lib import cli
        >>> small = "--d-model 8 --heads 2 --d-ff 16 --layers 1 --batch-tokens 32 --eval-examples 10".split()
        >>> with tempfile.TemporaryDirectory() as out:
        ...     cli.main(["--task", "copy", "--steps", "1", "--out", out, "--no-progress", *small])
        eval: step=1 held_out_loss=... exact_match=...% of 10 held-out examples
        summary: task=copy steps=1 parameters=1616 ...
        0
    """
    parser = build_parser()
    args = parser.parse_args(argv)
    check_args(parser, args)
    run(args)
    return 0


__all__ = ["build_parser", "check_args", "main", "run"]
