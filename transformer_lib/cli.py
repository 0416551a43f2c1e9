"""The training command line: ``python -m transformer_lib``, or ``transformer-lib`` where the library is installed.

Trains a small Transformer on one of the generated tasks with the paper's
recipe scaled down: Adam (beta1 = 0.9, beta2 = 0.98, eps = 1e-9), the warm-up
schedule, label smoothing 0.1, token-count batches. Every ``--eval-every``
steps it reports the held-out loss and the exact-match accuracy of greedy
decoding; checkpoints and ``history.json`` go to ``--out``; ``--resume``
continues a stopped run exactly. Under ``torchrun --nproc_per_node=2`` it trains
data-parallel (gloo, CPU), each rank on its shard of the same global batch.

Examples::

    transformer-lib --help
    python -m transformer_lib --task dates --steps 1000 --eval-every 250 --out runs/dates
    torchrun --nproc_per_node=2 -m transformer_lib --task copy --steps 200 --out runs/copy

``transformer-lib`` is the console script of ``pyproject.toml``'s ``[project.scripts]``; it calls
:func:`main`, as ``python -m transformer_lib`` does.

Exit status (also in ``--help``): 0 when the run is done; 2 for a bad argument or a checkpoint that
``--resume`` cannot continue, said in one line naming the flag before anything is trained (as
argparse does); 1 when a run fails on its way (the loss diverges, a file in ``--out`` cannot be
written, memory runs out), in one line too; 130 when interrupted (Ctrl-C). Never a traceback,
except for a bug of the library itself.

Book: ch-training.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import math
import os
import sys
import tempfile
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, NoReturn

import torch
import torch.distributed as dist

from .checkpoint import CHECKPOINT_NAME, load_checkpoint
from .config import TransformerConfig
from .counting import transformer_parameters
from .evaluation import evaluate
from .losses import seq2seq_loss
from .model import Transformer, count_parameters
from .schedule import noam_scheduler
from .tasks import TASKS, BatchStream, Task, make_task
from .training import TrainHistory, train
from .utils import set_seed

PROG = "python -m transformer_lib"
SCRIPT = "transformer-lib"  # the console script ([project.scripts] in pyproject.toml)
EXIT_RUN_FAILED = 1  # a run that fails on its way; 2, a bad argument, is argparse's
EXIT_INTERRUPTED = 130  # 128 + SIGINT, the shells' convention

_EPILOG = (
    "Exit status: 0 done; 2 a bad argument, or a checkpoint that --resume cannot continue (one line naming the flag, "
    "before anything is trained); 1 a run that fails on its way: the loss diverges, a file in --out cannot be written, "
    "memory runs out (one line); 130 interrupted. Sizes are refused when the model's training state, the pool of "
    "training batches or the held-out examples alone cannot fit in this machine's memory."
)

# the arguments that define a run besides the model's config (whose fields the checkpoint stores): a resumed
# run must repeat them; --steps, --eval-every, --eval-examples, --checkpoint-every, --threads may change
_RUN_ARGUMENTS = ("task", "seed", "batch_tokens", "warmup", "lr_factor", "smoothing", "clip")
_FLAG_OF_FIELD = {  # TransformerConfig field -> the flag that sets it
    "d_model": "--d-model",
    "n_heads": "--heads",
    "d_ff": "--d-ff",
    "n_encoder_layers": "--layers",
    "n_decoder_layers": "--layers",
    "dropout": "--dropout",
    "src_vocab_size": "--task",
    "tgt_vocab_size": "--task",
    "max_len": "--task",
}


class _HelpFormatter(argparse.ArgumentDefaultsHelpFormatter):
    """``--help`` shows each option's default, except for required options (which have none)."""

    def _get_help_string(self, action: argparse.Action) -> str | None:
        if action.required or action.default is None or isinstance(action.default, bool):
            return action.help
        return super()._get_help_string(action)


class _Parser(argparse.ArgumentParser):
    """An argument parser whose errors are one line: ``prog: error: argument --steps: ...``."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {' '.join(message.split())} (see --help)\n")


class _ArgumentError(ValueError):
    """A bad argument found only once the run has started (``main`` reports it as argparse would)."""


def _shown(text: str) -> str:
    """``text`` for an error message: a 5,000-digit number is cut, so the message stays one readable line."""
    return text if len(text) <= 40 else f"{text[:30]}... ({len(text)} characters)"


def _int_in(low: int, high: int | None = None, why: str = "") -> Callable[[str], int]:
    expected = f"an integer >= {low}" if high is None else f"an integer in [{low}, {high}]{why}"

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:  # also a number of more than 4,300 digits, which int() refuses
            raise argparse.ArgumentTypeError(f"must be {expected}, got {_shown(repr(text))}") from None
        if value < low or (high is not None and value > high):
            raise argparse.ArgumentTypeError(f"must be {expected}, got {_shown(str(value))}")
        return value

    parse.__name__ = expected
    return parse


def _number_in(low: float, high: float | None, *, low_open: bool, high_open: bool) -> Callable[[str], float]:
    """A float in the interval; ``high=None`` means finite (``inf`` and ``1e400``, which is ``inf``, are refused)."""
    interval = f"{'(' if low_open else '['}{low:g}, {'inf' if high is None else f'{high:g}'}{')' if high_open else ']'}"

    def parse(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"must be a number in {interval}, got {_shown(repr(text))}") from None
        above = value > low if low_open else value >= low
        below = math.isfinite(value) if high is None else (value < high if high_open else value <= high)
        if not (above and below):  # NaN fails both
            raise argparse.ArgumentTypeError(f"must be a number in {interval}, got {_shown(text)}")
        return value

    parse.__name__ = f"number in {interval}"
    return parse


def _folder(text: str) -> Path:
    if not text.strip():  # Path("") is Path("."): the run would write into the current folder unasked
        raise argparse.ArgumentTypeError(f"must name a folder, got {text!r} (for the current folder, say '.')")
    return Path(text)


def _usable_cpus() -> int:
    """The CPU cores this process may run on (its affinity where the OS has one, else all)."""
    affinity = getattr(os, "sched_getaffinity", None)
    return len(affinity(0)) if affinity is not None else os.cpu_count() or 1


_positive_int, _nonnegative_int = _int_in(1), _int_in(0)
_fraction = _number_in(0.0, 1.0, low_open=False, high_open=True)
_positive = _number_in(0.0, None, low_open=True, high_open=True)
_seed = _int_in(0, 2**32 - 1, " (NumPy's seeds are 32-bit)")
_warmup = _int_in(1, 2**53, " (the schedule computes in float64, exact for integers up to 2**53)")


def build_parser(prog: str = PROG) -> argparse.ArgumentParser:
    """The argument parser; the defaults: the paper's recipe scaled down for the dates task. Book: ch-training.

    Examples:
        >>> from transformer_lib import cli
        >>> args = cli.build_parser().parse_args(["--task", "dates", "--steps", "1000", "--out", "runs/dates"])
        >>> args.d_model, args.heads, args.layers, args.warmup, args.smoothing
        (64, 4, 2, 200, 0.1)
    """
    cpus = _usable_cpus()
    parser = _Parser(
        prog=prog,
        description=(
            "Train a small Transformer on a generated task with the paper's recipe, scaled down (the book's training chapter)."
        ),
        epilog=_EPILOG,
        formatter_class=_HelpFormatter,
        allow_abbrev=False,  # --lr 0.5 would be --lr-factor 0.5, a learning rate read as a factor
    )
    parser.add_argument("--task", choices=sorted(TASKS), required=True, help="the generated task to learn")
    parser.add_argument("--steps", type=_positive_int, required=True, help="total number of updates (resumed ones included)")
    parser.add_argument(
        "--out", type=_folder, required=True, help="folder for checkpoint.pt, history.json and summary.json (created if missing)"
    )
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
    parser.add_argument(
        "--resume",
        action="store_true",
        help="continue from OUT/checkpoint.pt if it exists; the task, the model and schedule flags, --seed, "
        "--batch-tokens, --smoothing and --clip must be those of the stopped run (bit for bit with the same --threads)",
    )
    parser.add_argument("--seed", type=_seed, default=0, help="seed of the weights, the data and dropout, in [0, 2**32 - 1]")
    parser.add_argument("--d-model", type=_positive_int, default=64, help="D (even: sinusoidal positions come in sin/cos pairs)")
    parser.add_argument("--heads", type=_positive_int, default=4, help="H (must divide D)")
    parser.add_argument("--d-ff", type=_positive_int, default=256, help="F")
    parser.add_argument("--layers", type=_positive_int, default=2, help="N, for the encoder and for the decoder")
    parser.add_argument("--dropout", type=_fraction, default=0.0, help="residual and embedding dropout")
    parser.add_argument(
        "--warmup", type=_warmup, default=200, help="warm-up steps of the schedule (4000 in the paper), at most 2**53"
    )
    parser.add_argument(
        "--lr-factor",
        type=_positive,
        default=0.3,
        help="factor of the schedule (1 in the paper), at most sqrt(D * warmup) (113 with the defaults): the peak rate "
        "factor * (D * warmup)^-0.5 may not exceed 1: Adam moves every weight by about the rate at each step, and the "
        "weights start at 1 or less",
    )
    parser.add_argument("--smoothing", type=_fraction, default=0.1, help="label smoothing eps")
    parser.add_argument(
        "--clip", type=_positive, default=None, help="clip the gradient norm to this value (default: no clipping)"
    )
    parser.add_argument(
        "--threads",
        type=_int_in(1, cpus, " (the CPU cores this process may use)"),
        default=1,
        help=f"torch threads per process, at most the CPU cores it may use ({cpus} here)",
    )
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")
    return parser


def check_args(parser: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    """The checks that involve more than one argument, the machine or the files in ``--out``.

    Each failure is ``parser.error`` naming the flag (one line, exit status 2). Only when all
    pass is ``--out`` created (and tried with a temporary file), so a bad argument writes nothing.

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
    _check_memory(parser, args, task)
    _check_schedule(parser, args)
    try:
        _check_out(parser, args)
        _check_resume(parser, args, _config(args, task))
        _create_out(args)
    except OSError as error:  # a name too long, a folder that cannot be made or written in, ...
        parser.error(f"argument --out: cannot write in the folder {str(args.out)!r}: {error.strerror or error}")


def _check_memory(parser: argparse.ArgumentParser, args: argparse.Namespace, task: Task) -> None:
    """Refuse sizes whose memory surely exceeds the machine's: lower bounds, each alone against the physical memory."""
    try:
        memory = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (AttributeError, ValueError, OSError):  # no sysconf (Windows): nothing to compare with
        return

    def approx(n: int | float) -> str:  # an int of 400 digits has no float
        return f"{n:.3g}" if n < 1e300 else f"about 1e{math.log10(n):.0f}"

    def gib(n: int) -> str:
        return f"{approx(n / 2**30) if n < 1e300 else approx(n // 2**30)} GiB"

    has = f"more than this machine's {gib(memory)}"
    parameters = transformer_parameters(args.d_model, args.d_ff, args.layers, args.layers, len(task.vocab))
    if 16 * parameters > memory:
        parser.error(
            f"arguments --d-model, --d-ff, --layers: a model of {approx(parameters)} parameters needs at least "
            f"{gib(16 * parameters)} to train (float32 weights, gradients and Adam's two moments: 16 bytes a parameter), "
            f"{has}; got --d-model {_shown(str(args.d_model))} --d-ff {_shown(str(args.d_ff))} "
            f"--layers {_shown(str(args.layers))}"
        )
    pool = BatchStream.pool_batches * args.batch_tokens * 8
    if pool > memory:
        parser.error(
            f"argument --batch-tokens: the stream of training batches draws {BatchStream.pool_batches} batches at a time, "
            f"at least 8 bytes a token (a pointer in a Python tuple), so {gib(pool)}, {has}; "
            f"got {_shown(str(args.batch_tokens))}"
        )
    if 100 * args.eval_examples > memory:
        parser.error(
            f"argument --eval-examples: held-out examples take at least 100 bytes each (three Python tuples), so "
            f"{gib(100 * args.eval_examples)}, {has}; got {_shown(str(args.eval_examples))}"
        )


def _check_schedule(parser: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    """The schedule's peak rate at most 1 and its first rate a normal float64 (in logarithms: D may be huge)."""
    log_sqrt_dw = 0.5 * (math.log(args.d_model) + math.log(args.warmup))
    if math.log(args.lr_factor) > log_sqrt_dw:
        parser.error(
            f"argument --lr-factor: the peak rate factor * (D * warmup)^-0.5 must be at most 1 (Adam moves every weight "
            f"by about the rate at each step, and the weights start at 1 or less), so with --d-model {args.d_model} "
            f"and --warmup {args.warmup} at most "
            f"{math.exp(log_sqrt_dw):.4g}, got {args.lr_factor!r}"
        )
    log_first = math.log(args.lr_factor) - 0.5 * math.log(args.d_model) - 1.5 * math.log(args.warmup)
    if log_first < math.log(sys.float_info.min):
        parser.error(
            f"argument --lr-factor: the first rate factor * D^-0.5 * warmup^-1.5 is about 1e{log_first / math.log(10):.0f}, "
            f"below the smallest normal float64 ({sys.float_info.min:.3g}): the run would not train; "
            f"got {args.lr_factor!r} with --d-model {args.d_model} and --warmup {args.warmup}"
        )


def _check_out(parser: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    """``--out`` is a folder, or can become one; the files the run writes are not folders there."""
    out = args.out
    if out.exists() and not out.is_dir():
        parser.error(f"argument --out: must be a folder, got the file {str(out)!r}")
    above = next((p for p in out.parents if p.exists()), None)  # the nearest existing folder above --out
    if not out.exists() and above is not None and not above.is_dir():
        parser.error(f"argument --out: cannot create the folder {str(out)!r}: {str(above)!r} is a file")
    for name in (CHECKPOINT_NAME, "history.json", "summary.json"):
        if (out / name).exists() and not (out / name).is_file():
            parser.error(f"argument --out: the run writes the file {name} there, but {str(out / name)!r} is a folder")


def _check_resume(parser: argparse.ArgumentParser, args: argparse.Namespace, config: TransformerConfig) -> None:
    """With ``--resume``, the checkpoint in ``--out`` must be readable, of the same run, and not finished."""
    path = args.out / CHECKPOINT_NAME
    if not (args.resume and path.is_file()):
        return
    try:
        state = load_checkpoint(path)
    except ValueError as error:
        parser.error(f"argument --resume: {error}")
    differ = _differences(state, args, config)  # (flag, the checkpoint's, the command's)
    if differ:
        flags = list(dict.fromkeys(flag for flag, _, _ in differ))
        was = " ".join(dict.fromkeys(old for _, old, _ in differ))
        got = " ".join(dict.fromkeys(new for _, _, new in differ))
        same = "value" if len(flags) == 1 else "values"
        parser.error(
            f"argument{'s' if len(flags) > 1 else ''} {', '.join(flags)}: the checkpoint in {str(args.out)!r} is of a run "
            f"with {was}; --resume continues that run, so it needs the same {same} (or another --out), got {got}"
        )
    done = int(state["step"])
    if args.steps <= done:
        parser.error(
            f"argument --steps: the checkpoint in {str(args.out)!r} is at step {done}; "
            f"to continue, --steps must be larger, got {args.steps}"
        )


def _differences(state: Mapping[str, Any], args: argparse.Namespace, config: TransformerConfig) -> list[tuple[str, str, str]]:
    """What the checkpoint's run and this command disagree on, as (flag, the checkpoint's, the command's)."""

    def shown(flag: str, value: object) -> str:
        return f"no {flag}" if value is None else f"{flag} {value}"

    def plain_dict(value: object) -> dict[str, Any]:  # None in a checkpoint written without it
        return value if isinstance(value, dict) else {}

    run_info, stored = plain_dict(state.get("run_info")), plain_dict(state.get("config"))
    differ = []
    for name in _RUN_ARGUMENTS:
        flag = f"--{name.replace('_', '-')}"
        if name in run_info and run_info[name] != getattr(args, name):
            differ.append((flag, shown(flag, run_info[name]), shown(flag, getattr(args, name))))
    task_named = any(flag == "--task" for flag, _, _ in differ)
    for field in dataclasses.fields(config):
        ours = getattr(config, field.name)
        theirs = stored.get(field.name, field.default)  # a field added since the checkpoint was written: its default
        if theirs == ours:
            continue
        flag = _FLAG_OF_FIELD.get(field.name, "--out")  # --out: a model this command does not build
        if flag == "--task" and task_named:
            continue  # follows from the task already named
        if flag in ("--task", "--out"):
            differ.append((flag, f"{field.name}={theirs!r}", f"{field.name}={ours!r}"))
        else:
            differ.append((flag, f"{flag} {theirs}", f"{flag} {ours}"))
    return differ


def _create_out(args: argparse.Namespace) -> None:
    """Create ``--out`` and write a temporary file in it: a folder that cannot be made or written is found now."""
    args.out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryFile(dir=args.out):
        pass


def _config(args: argparse.Namespace, task: Task) -> TransformerConfig:
    V = len(task.vocab)
    return TransformerConfig.tiny(
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
    config = _config(args, task)
    task.check_config(config)
    try:
        held_out = task.examples(args.eval_examples, seed=0, split="held_out")  # fixed: comparable across seeds
    except ValueError as error:  # a finite task (dates, numbers) has fewer distinct held-out sources
        raise _ArgumentError(f"argument --eval-examples: {error}, got {args.eval_examples}") from None
    set_seed(args.seed)  # the same initial weights on every rank
    model = Transformer(config)
    optimizer = torch.optim.Adam(model.parameters(), lr=1.0, betas=(0.9, 0.98), eps=1e-9)  # the schedule multiplies lr
    scheduler = noam_scheduler(optimizer, config.d_model, warmup=args.warmup, factor=args.lr_factor)
    batches = task.batches(args.batch_tokens, seed=args.seed, max_len=config.max_len)
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
        run_info={name: getattr(args, name) for name in _RUN_ARGUMENTS},  # what --resume compares
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


def _fail(prog: str, message: str, status: int = EXIT_RUN_FAILED) -> int:
    """Print ``message`` as one line on stderr and return ``status``."""
    kind = "" if status == EXIT_INTERRUPTED else "error: "
    print(f"{prog}: {kind}{' '.join(message.split())}", file=sys.stderr, flush=True)
    return status


def main(argv: Sequence[str] | None = None) -> int:
    """Parse and check ``argv`` (default: the command line), train, return the exit status (0: done).

    A bad argument ends the program with a one-line error naming the flag (``SystemExit(2)``, as
    argparse does); a run that fails on its way prints one line and returns 1 (130 if interrupted).
    The console script ``transformer-lib`` and ``python -m transformer_lib`` both call
    ``sys.exit(main())``. Book: ch-training.

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
    prog = SCRIPT if argv is None and Path(sys.argv[0]).stem == SCRIPT else PROG
    parser = build_parser(prog)
    args = parser.parse_args(argv)
    check_args(parser, args)
    try:
        run(args)
    except _ArgumentError as error:
        parser.error(str(error))
    except FloatingPointError as error:  # train's check of every loss
        peak = args.lr_factor * (args.d_model * args.warmup) ** -0.5
        return _fail(
            prog,
            f"training diverged ({error}): --lr-factor {args.lr_factor!r} gives a peak rate of {peak:.3g}; "
            "lower it, or clip with --clip",
        )
    except OSError as error:
        return _fail(prog, f"a file in --out {str(args.out)!r} could not be written or read: {error}")
    except MemoryError:
        return _fail(prog, "out of memory: lower --batch-tokens, --d-model, --d-ff or --layers")
    except RuntimeError as error:
        said = [line for line in str(error).splitlines() if "can't allocate memory" in line]
        if not said:  # not torch's allocator running out: a bug, shown in full
            raise
        return _fail(prog, f"out of memory ({said[0].strip()}): lower --batch-tokens, --d-model, --d-ff or --layers")
    except KeyboardInterrupt:
        return _fail(
            prog,
            f"interrupted; --resume continues from the last checkpoint in --out {str(args.out)!r}, "
            "if one was written (see --checkpoint-every)",
            EXIT_INTERRUPTED,
        )
    return 0


__all__ = ["build_parser", "check_args", "main", "run"]
