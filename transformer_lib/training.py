"""The training loop: one loop for every model, with checkpoints that resume bit for bit.

:func:`train` does what a chapter needs and no more: a progress bar (on
stderr), gradient clipping, evaluation every N steps, atomic checkpoints that
resume bit for bit, and data parallelism under ``torchrun``
(DistributedDataParallel; every rank takes its shard of the same global batch).
What a batch is and how it becomes a loss is one argument, ``batch_loss(model,
batch) -> (loss_sum, count)`` (:mod:`~transformer_lib.losses`; the default is
chosen from the model's type by :func:`~transformer_lib.losses.default_batch_loss`).
The schedule is :mod:`~transformer_lib.schedule`, held-out evaluation
:mod:`~transformer_lib.evaluation`. The loop's parts are named: ``_resume``,
``_step``, ``_evaluate_now``, ``_save``.

Paper: §5 (training). Book: ch-training.
"""

from __future__ import annotations

import math
import sys
import warnings
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import torch
import torch.distributed as dist
from torch import Tensor, nn
from torch.optim import Optimizer
from torch.optim.lr_scheduler import LRScheduler

from ._checks import check_bool, check_nonnegative_int, check_positive, check_positive_int
from .checkpoint import CHECKPOINT_NAME, load_checkpoint, save_checkpoint
from .data import Batch
from .losses import BatchLoss, default_batch_loss
from .model import model_device, unwrap
from .utils import set_seed

# --- history -------------------------------------------------------------------


@dataclass
class TrainHistory:
    """What :func:`train` records, one entry per update (steps count from 1).

    ``losses`` are mean losses per target token of each step's whole (global)
    batch; ``learning_rates`` the rate that step's update used; ``evals`` one
    dict per evaluation, ``{"step": s, metric: value, ...}``.
    ``book_support.plotting.loss_curves({"train": history.losses})`` (the book's apparatus) draws the curve. Book: ch-training.

    Examples:
        >>> history = tl.TrainHistory(steps=[1, 2], losses=[2.5, 2.0], learning_rates=[1e-3, 1e-3], tokens=[40, 38])
        >>> tl.TrainHistory.from_dict(history.to_dict()) == history
        True
    """

    steps: list[int] = field(default_factory=list)
    losses: list[float] = field(default_factory=list)
    learning_rates: list[float] = field(default_factory=list)
    tokens: list[int] = field(default_factory=list)
    evals: list[dict[str, float]] = field(default_factory=list)

    def metric(self, name: str) -> tuple[list[int], list[float]]:
        """(steps, values) of one evaluation metric, e.g. ``history.metric("accuracy")``."""
        found = [(int(e["step"]), e[name]) for e in self.evals if name in e]
        if self.evals and not found:
            raise ValueError(f"no evaluation recorded {name!r}; metrics are {sorted(set(self.evals[0]) - {'step'})}")
        return [s for s, _ in found], [v for _, v in found]

    def to_dict(self) -> dict[str, Any]:
        return {k: list(v) for k, v in self.__dict__.items()}

    @classmethod
    def from_dict(cls, values: Mapping[str, Any]) -> TrainHistory:
        return cls(**{k: list(values[k]) for k in ("steps", "losses", "learning_rates", "tokens", "evals")})

    def __str__(self) -> str:
        if not self.steps:
            return "TrainHistory(no steps)"
        text = f"TrainHistory({len(self.steps)} steps, last loss {self.losses[-1]:.4f}"
        if self.evals:
            last = ", ".join(f"{k}={v:.4f}" for k, v in self.evals[-1].items() if k != "step")
            text += f"; evaluation at step {int(self.evals[-1]['step'])}: {last}"
        return text + ")"


# --- the loop ------------------------------------------------------------------


def _world() -> tuple[int, int]:
    if dist.is_available() and dist.is_initialized():
        return dist.get_rank(), dist.get_world_size()
    return 0, 1


def _check_batch(batch: object, step: int, config: Any) -> None:
    """A :class:`~transformer_lib.data.Batch` must hold target tokens, of the model's vocabulary, within its max_len."""
    if not isinstance(batch, Batch):
        return
    if len(batch) == 0 or batch.n_tgt_tokens == 0:
        raise ValueError(f"the batch of step {step} is empty: {len(batch)} examples, {batch.n_tgt_tokens} target tokens")
    if config is not None:
        src = batch.src if batch.src is not None and not batch.src.is_floating_point() else None  # token ids
        token_src = src is not None
        fields = ("src_vocab_size", "tgt_vocab_size") if token_src else ("tgt_vocab_size",)
        for name in fields:
            if batch.vocab_size is not None and batch.vocab_size != getattr(config, name):
                raise ValueError(
                    f"the batches come from a vocabulary of {batch.vocab_size} tokens but the model has "
                    f"config.{name}={getattr(config, name)}; build the config with {name}={batch.vocab_size}"
                )
        width = max(batch.tgt_in.shape[1], src.shape[1] if src is not None else 0)
        if width > config.max_len:
            raise ValueError(
                f"the batch of step {step} has sequences of {width} tokens, more than config.max_len={config.max_len}"
            )


def _shard(batch: Any, rank: int, world: int) -> Any:
    """This rank's rows of the global batch: ``batch.shard``, or the rows of each tensor of a tuple/list/dict."""
    if hasattr(batch, "shard"):
        return batch.shard(rank, world)
    if isinstance(batch, Tensor):
        return torch.tensor_split(batch, world)[rank]
    if isinstance(batch, (tuple, list)):
        return type(batch)(_shard(x, rank, world) for x in batch)
    if isinstance(batch, Mapping):
        return {k: _shard(v, rank, world) for k, v in batch.items()}
    raise TypeError(
        f"under torchrun every batch must be splittable by rows (a Batch, tensors, or a tuple/dict of them), "
        f"got {type(batch).__name__}"
    )


def _to_device(batch: Any, device: torch.device) -> Any:
    """``batch`` with its tensors on ``device``: ``batch.to`` for a Batch, and the tensors of a tuple/list/dict.

    Anything else (a batch ``batch_loss`` knows how to read) is passed on as it is.
    """
    if isinstance(batch, (Batch, Tensor)):
        return batch.to(device)
    if isinstance(batch, (tuple, list)):
        moved = [_to_device(x, device) for x in batch]
        if all(new is old for new, old in zip(moved, batch, strict=True)):
            return batch  # already there: the caller's own object (a NamedTuple, a list subclass) is kept
        return type(batch)(*moved) if hasattr(batch, "_fields") else type(batch)(moved)
    if isinstance(batch, Mapping):
        moved_items = {k: _to_device(v, device) for k, v in batch.items()}
        return batch if all(moved_items[k] is v for k, v in batch.items()) else moved_items
    return batch


def _resume(path, inner, optimizer, scheduler, batches, generator, rank):
    """Restore model, optimizer, schedule, data stream and random states; returns (step, history, batches)."""
    state = load_checkpoint(path, model=inner, optimizer=optimizer, scheduler=scheduler)
    start, history = state["step"], TrainHistory.from_dict(state["history"])
    if hasattr(batches, "load_state_dict") and state["data"] is not None:
        batches.load_state_dict(state["data"])
    elif not callable(batches):
        batches = iter(batches)
        for _ in range(start):  # a plain iterable: skip what was used
            next(batches)
    rng_states = state["rng"]
    _set_rng_state(rng_states[rank % len(rng_states)])
    if generator is not None and state["generator"] is not None:
        generator.set_state(state["generator"])
    return start, history, batches


def _rng_state() -> dict[str, Any]:
    """The random state a resumed run needs: the CPU generator's and, where CUDA is in use, every CUDA device's
    (dropout on a GPU draws from the device's generator, not the CPU's)."""
    cuda = torch.cuda.get_rng_state_all() if torch.cuda.is_available() and torch.cuda.is_initialized() else None
    return {"cpu": torch.get_rng_state(), "cuda": cuda}


def _set_rng_state(state: Any) -> None:
    if isinstance(state, Tensor):  # a checkpoint written before the CUDA states were kept: the CPU state alone
        torch.set_rng_state(state)
        return
    torch.set_rng_state(state["cpu"])
    if state["cuda"] is not None:
        seen = torch.cuda.device_count() if torch.cuda.is_available() else 0
        if seen != len(state["cuda"]):
            warnings.warn(
                f"the checkpoint holds the random states of {len(state['cuda'])} CUDA device(s) and this process sees "
                f"{seen}: the resumed run draws other dropout masks than an uninterrupted one would",
                stacklevel=3,
            )
            return
        torch.cuda.set_rng_state_all(state["cuda"])


def _save(path, step, inner, optimizer, scheduler, history, batches, generator, rank, world, run_info) -> None:
    """Write ``checkpoint.pt`` (rank 0) with every rank's random state and the caller's ``run_info``."""
    rng: list[Any] = [_rng_state()]
    if world > 1:
        rng = [None] * world
        dist.all_gather_object(rng, _rng_state())
    if rank == 0:
        data = batches.state_dict() if hasattr(batches, "state_dict") else None
        save_checkpoint(
            path,
            model=inner,
            optimizer=optimizer,
            scheduler=scheduler,
            step=step,
            history=history.to_dict(),
            rng=rng,
            generator=None if generator is None else generator.get_state(),
            data=data,
            run_info=run_info,
        )
    if world > 1:
        dist.barrier()


def _step(net, inner, optimizer, scheduler, local, batch_loss, clip_grad_norm, step, rank, world) -> tuple[float, int]:
    """One update on one global batch, of which ``local`` is this rank's shard (the whole batch on one
    process), already on the model's device; returns (mean loss per item, number of items of the global batch)."""
    optimizer.zero_grad(set_to_none=True)
    loss_sum, count = batch_loss(net, local)
    if isinstance(count, Tensor) and count.numel() == 1 and not count.is_floating_point():
        count = int(count)
    if not isinstance(count, int) or isinstance(count, bool):
        raise TypeError(f"batch_loss must return (loss_sum, count) with count an int, got {type(count).__name__}")
    if not isinstance(loss_sum, Tensor) or loss_sum.dim() != 0:
        raise TypeError(f"batch_loss must return (loss_sum, count) with loss_sum a 0-dim tensor, got {loss_sum!r:.60}")
    if world > 1:  # every rank needs the global count
        counts = torch.tensor([count], dtype=torch.long, device=loss_sum.device)  # where the backend reduces
        dist.all_reduce(counts)
        count = int(counts)
    if count <= 0:
        raise ValueError(f"the batch of step {step} is empty: batch_loss counted {count} items")
    # DDP averages gradients over ranks; scaling by world / count turns that
    # average into the gradient of (global loss sum) / (global count).
    (loss_sum * (world / count)).backward()
    if clip_grad_norm is not None:
        torch.nn.utils.clip_grad_norm_(inner.parameters(), clip_grad_norm)
    optimizer.step()
    if scheduler is not None:
        scheduler.step()
    total = loss_sum.detach().clone()
    if world > 1:
        dist.all_reduce(total)
    loss = float(total) / count
    if not math.isfinite(loss):
        raise FloatingPointError(f"the loss is {loss} at step {step + 1}; lower the learning rate")
    return loss, count


def _evaluate_now(inner: nn.Module, eval_fn: Callable[[nn.Module], Mapping[str, float]]) -> dict[str, float]:
    """``eval_fn(model)`` in eval mode, with the random state set aside so training does not change."""
    with torch.random.fork_rng(devices=[]):
        inner.eval()
        try:
            return {k: float(v) for k, v in eval_fn(inner).items()}
        finally:
            inner.train()


def _check_arguments(
    steps: object,
    batch_loss: object,
    clip_grad_norm: object,
    eval_every: object,
    checkpoint_dir: object,
    checkpoint_every: object,
    resume: object,
    device: object,
    run_info: object,
) -> None:
    """:func:`train`'s arguments, checked before anything is changed."""
    check_nonnegative_int("steps", steps)
    if batch_loss is not None and not callable(batch_loss):
        raise TypeError(f"batch_loss must be a function (model, batch) -> (loss_sum, count), got {type(batch_loss).__name__}")
    if clip_grad_norm is not None:
        check_positive("clip_grad_norm", clip_grad_norm)
    for name, value in (("eval_every", eval_every), ("checkpoint_every", checkpoint_every)):
        if value is not None:
            check_positive_int(name, value)
    check_bool("resume", resume)
    if resume and checkpoint_dir is None:
        raise ValueError("resume=True needs checkpoint_dir, the folder holding checkpoint.pt")
    if device is not None and not isinstance(device, (torch.device, str)):
        raise TypeError(f"device must be a torch.device, a string such as 'cuda', or None, got {type(device).__name__}")
    if run_info is not None and not isinstance(run_info, Mapping):
        raise TypeError(
            f"run_info must be a dict of plain values (str, int, float, bool, None) or None, got {type(run_info).__name__}"
        )


def _next_batch(source: Iterator[Any] | Callable[[int], Any], step: int, steps: int) -> Any:
    """The batch of update ``step`` (counted from 0): ``source(step)``, or the iterator's next one."""
    try:
        return source(step) if callable(source) else next(source)
    except StopIteration:
        raise ValueError(f"batches ran out after {step} batches; steps={steps} needs more") from None


def _due(done: int, every: int | None, steps: int) -> bool:
    """Whether an evaluation or a checkpoint follows update number ``done``: every ``every`` updates, and after the last."""
    return done == steps or (every is not None and done % every == 0)


def train(
    model: nn.Module,
    optimizer: Optimizer,
    batches: Iterable[Any] | Callable[[int], Any],
    steps: int,
    *,
    batch_loss: BatchLoss | None = None,
    scheduler: LRScheduler | None = None,
    clip_grad_norm: float | None = None,
    eval_fn: Callable[[nn.Module], Mapping[str, float]] | None = None,
    eval_every: int | None = None,
    checkpoint_dir: str | Path | None = None,
    checkpoint_every: int | None = None,
    resume: bool = False,
    generator: torch.Generator | None = None,
    progress: bool | None = None,
    device: torch.device | str | None = None,
    run_info: Mapping[str, Any] | None = None,
) -> TrainHistory:
    """Train ``model`` for ``steps`` updates (in total, counting any resumed ones).

    Each step: take a batch, ``loss_sum, count = batch_loss(model, batch)``,
    backpropagate ``loss_sum / count``, clip, update, step the schedule. Under
    ``torchrun`` (``torch.distributed`` initialised with world size > 1) the
    model is wrapped in DistributedDataParallel, every rank draws the same
    global batch and computes its shard of rows (``batch.shard(rank, world)``,
    or the rows of each tensor), and dividing each rank's sum by the *global*
    count makes the averaged gradients and the logged loss those of the whole batch.

    Args:
        model: any model; the default ``batch_loss`` is chosen from its type.
        optimizer: e.g. ``torch.optim.Adam(model.parameters(), lr=1.0, betas=(0.9, 0.98), eps=1e-9)`` with
            ``scheduler=noam_scheduler(optimizer, d_model)`` (which needs lr=1.0), or any lr without it.
        batches: an iterable of batches, or a callable ``batches(step)`` (step counted from 0).
            A batch is a :class:`~transformer_lib.data.Batch` for the default seq2seq loss,
            anything ``batch_loss`` accepts otherwise. If it has ``state_dict`` /
            ``load_state_dict`` (as :class:`~transformer_lib.tasks.BatchStream`),
            its state is checkpointed; a plain iterable is fast-forwarded on resume.
        steps: total number of updates.
        batch_loss: ``batch_loss(model, batch) -> (loss_sum, count)``: the loss summed over
            the batch's items and how many items (:mod:`~transformer_lib.losses`). None:
            :func:`~transformer_lib.losses.default_batch_loss` ``(model)``: Transformer,
            SpeechTransformer and RNNSeq2Seq get ``seq2seq_loss()`` (label smoothing 0.1),
            DecoderOnlyLM ``lm_loss()``, EncoderOnlyLM ``masked_lm_loss()``, VisionTransformer
            ``classification_loss()``. Another token loss is built into the batch loss, e.g.
            ``seq2seq_loss(loss_fn=LabelSmoothingLoss(V, 0.2, ignore_index=pad_id, reduction="sum"))``.
        scheduler: stepped after every update (e.g. :func:`~transformer_lib.schedule.noam_scheduler`).
        clip_grad_norm: clip the gradients' global norm to this value (None: no clipping).
        eval_fn: called as ``eval_fn(model)`` (in eval mode) every ``eval_every`` steps and
            after the last one, returning metrics; run with the random state set aside, so
            evaluating does not change training. Only rank 0 evaluates.
        checkpoint_dir: write ``checkpoint.pt`` here every ``checkpoint_every`` steps and at the end.
        resume: continue from ``checkpoint_dir/checkpoint.pt`` if it exists; the result is
            bit for bit that of an uninterrupted run (same thread count and world size).
        generator: a torch.Generator the batches draw from; its state is checkpointed.
        progress: a tqdm bar on stderr; None shows it only when stderr is a terminal.
        device: where to train: the model is moved there (``model.to(device)``, before the first
            step) and so is every batch (:meth:`Batch.to <transformer_lib.data.Batch.to>`, or the
            tensors of a tuple/list/dict). None: the model's device, where the batches are moved.
            Build the optimizer after moving the model, or move it before any step has made state.
        run_info: plain values (str, int, float, bool, None) stored in every checkpoint under
            ``"run_info"``, e.g. the arguments that define the run, so that a caller can compare
            them (``tl.load_checkpoint(path)["run_info"]``) before resuming; train only stores them.

    Returns:
        the :class:`TrainHistory` of all steps (resumed ones included); ``tokens`` holds each step's count.

    Paper: §5 (training). Book: ch-training.

    Examples:
        >>> task = tl.make_task("copy", n_symbols=5)
        >>> config = tl.TransformerConfig.tiny(src_vocab_size=len(task.vocab), tgt_vocab_size=len(task.vocab))
        >>> model = tl.Transformer(config)
        >>> optimizer = torch.optim.Adam(model.parameters(), lr=1.0, betas=(0.9, 0.98), eps=1e-9)
        >>> history = tl.train(model, optimizer, task.batches(200, seed=1), steps=3,
        ...                    scheduler=tl.noam_scheduler(optimizer, config.d_model, warmup=10), progress=False)
        >>> history.steps, len(history.losses)
        ([1, 2, 3], 3)
    """
    from tqdm import tqdm

    _check_arguments(steps, batch_loss, clip_grad_norm, eval_every, checkpoint_dir, checkpoint_every, resume, device, run_info)
    run_info = None if run_info is None else dict(run_info)
    rank, world = _world()
    inner = unwrap(model)
    if device is not None:
        inner.to(device)  # in place: the optimizer's parameters are these ones
    target_device = model_device(inner)
    if batch_loss is None:
        batch_loss = default_batch_loss(inner)
    net = nn.parallel.DistributedDataParallel(inner) if world > 1 else inner
    config = getattr(inner, "config", None)
    path = None if checkpoint_dir is None else Path(checkpoint_dir) / CHECKPOINT_NAME
    history, start = TrainHistory(), 0
    if resume and path is not None and path.exists():
        start, history, batches = _resume(path, inner, optimizer, scheduler, batches, generator, rank)
    source = batches if callable(batches) else iter(batches)

    inner.train()  # dropout on; evaluation switches it off and back
    hide = True if rank != 0 else (None if progress is None else not progress)  # None: only on a terminal
    bar = tqdm(total=steps, initial=start, file=sys.stderr, disable=hide, dynamic_ncols=True)
    try:
        for step in range(start, steps):
            batch = _next_batch(source, step, steps)
            _check_batch(batch, step, config)
            # this rank's rows only go to its device (under torchrun: 1/world of the global batch each)
            local = _to_device(_shard(batch, rank, world) if world > 1 else batch, target_device)
            lr = optimizer.param_groups[0]["lr"]
            loss, count = _step(net, inner, optimizer, scheduler, local, batch_loss, clip_grad_norm, step, rank, world)
            history.steps.append(step + 1)
            history.losses.append(loss)
            history.learning_rates.append(float(lr))
            history.tokens.append(count)
            bar.update(1)
            postfix = {"loss": f"{loss:.4f}", "lr": f"{lr:.2e}"}
            if eval_fn is not None and rank == 0 and _due(step + 1, eval_every, steps):
                metrics = _evaluate_now(inner, eval_fn)
                history.evals.append({"step": step + 1, **metrics})
                postfix.update({k: f"{v:.4f}" for k, v in metrics.items()})
            bar.set_postfix(postfix, refresh=False)
            if path is not None and _due(step + 1, checkpoint_every, steps):
                _save(path, step + 1, inner, optimizer, scheduler, history, batches, generator, rank, world, run_info)
    finally:
        bar.close()
    return history


# --- several seeds ----------------------------------------------------------------

_RUN_KEYS = ("model", "optimizer", "batches")
_TRAIN_KEYWORDS = (
    "batch_loss",
    "scheduler",
    "clip_grad_norm",
    "eval_fn",
    "eval_every",
    "progress",
    "device",
    "run_info",
)


@dataclass
class SeedRun:
    """One seed's run from :func:`train_seeds`: the seed, the trained model and its :class:`TrainHistory`.

    Examples:
        >>> run = tl.SeedRun(seed=0, model=torch.nn.Linear(2, 2), history=tl.TrainHistory(steps=[1], losses=[0.5]))
        >>> run.seed, run.history.losses[-1]
        (0, 0.5)
    """

    seed: int
    model: nn.Module
    history: TrainHistory


def train_seeds(
    build: Callable[[int, torch.Generator], Mapping[str, Any]],
    seeds: Iterable[int],
    steps: int,
    **train_keywords: Any,
) -> dict[int, SeedRun]:
    """Train one recipe from several seeds, one after another; ``{seed: SeedRun}`` in the order given.

    For each seed: ``generator = set_seed(seed)`` (Python's, NumPy's and torch's global generators, and a
    fresh ``torch.Generator`` for this seed alone), then ``build(seed, generator)`` returns the run as a
    dict: ``model``, ``optimizer``, ``batches`` (required) and any keyword of :func:`train` that differs
    between seeds (``scheduler`` usually, since it holds the optimizer). Keywords common to every seed are
    passed here (``batch_loss=``, ``eval_fn=``, ...). Each run is exactly the :func:`train` call it
    stands for, with ``generator`` passed on: its results equal a separate ``set_seed(seed)``, build,
    ``train`` bit for bit (tested). Seeds are not batched together: on a CPU that is not faster (the book's
    chapter 10 measures why), and each seed keeps its own batch order.

    Pair two recipes by giving them the same seeds: ``book_support.stats.paired_runs`` (the book's
    apparatus) compares them seed by seed.

    Args:
        build: ``build(seed, generator) -> {"model": ..., "optimizer": ..., "batches": ..., ...}``; the
            batches should draw from ``generator`` (or from the seed), so that each seed has its own order.
        seeds: distinct ints in [0, 2**32 - 1], at least one.
        steps: updates per seed.
        train_keywords: passed to every :func:`train` call; ``checkpoint_dir``, ``resume`` and ``generator``
            are per run and not accepted here.

    Book: ch-training.

    Examples:
        >>> task = tl.make_task("copy", n_symbols=5)
        >>> config = tl.TransformerConfig.tiny(src_vocab_size=len(task.vocab), tgt_vocab_size=len(task.vocab))
        >>> def build(seed, generator):
        ...     model = tl.Transformer(config)
        ...     optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
        ...     return {"model": model, "optimizer": optimizer, "batches": task.batches(200, seed=seed)}
        >>> runs = tl.train_seeds(build, seeds=[0, 1], steps=2, progress=False)
        >>> list(runs), [len(run.history.losses) for run in runs.values()]
        ([0, 1], [2, 2])
    """
    if not callable(build):
        raise TypeError(f"build must be a function (seed, generator) -> dict of the run, got {type(build).__name__}")
    if isinstance(seeds, (str, bytes)) or not isinstance(seeds, Iterable):
        raise TypeError(f"seeds must be an iterable of ints, got {type(seeds).__name__}")
    chosen = list(seeds)
    for i, seed in enumerate(chosen):
        check_nonnegative_int(f"seeds[{i}]", seed)
    if not chosen:
        raise ValueError("seeds must hold at least one seed, got none")
    if len(set(chosen)) != len(chosen):
        raise ValueError(f"seeds must be distinct (a repeated seed repeats its run exactly), got {chosen}")
    check_nonnegative_int("steps", steps)
    unknown = sorted(set(train_keywords) - set(_TRAIN_KEYWORDS))
    if unknown:
        raise TypeError(f"train_seeds got keywords {unknown}; it passes on only {list(_TRAIN_KEYWORDS)}")
    runs: dict[int, SeedRun] = {}
    for seed in chosen:
        generator = set_seed(seed)
        run = build(seed, generator)
        if not isinstance(run, Mapping):
            raise TypeError(f"build({seed}, generator) must return a dict with {list(_RUN_KEYS)}, got {type(run).__name__}")
        missing = [key for key in _RUN_KEYS if key not in run]
        extra = sorted(set(run) - set(_RUN_KEYS) - set(_TRAIN_KEYWORDS))
        if missing or extra:
            raise ValueError(
                f"build({seed}, generator) must return {list(_RUN_KEYS)} and keywords of tl.train;"
                f" missing {missing}, unknown {extra}"
            )
        twice = sorted(set(run) & set(train_keywords))
        if twice:
            raise ValueError(f"{twice} given both by build({seed}, generator) and to train_seeds: give each once")
        keywords = {**train_keywords, **{k: v for k, v in run.items() if k not in _RUN_KEYS}}
        history = train(run["model"], run["optimizer"], run["batches"], steps, generator=generator, **keywords)
        runs[seed] = SeedRun(seed, run["model"], history)
    return runs


__all__ = ["SeedRun", "TrainHistory", "train", "train_seeds"]
