"""Training: the learning-rate schedule, label smoothing, and a small training loop.

The loop :func:`train` does what a chapter needs and no more: a progress bar
(on stderr), gradient clipping, evaluation every N steps, atomic checkpoints
that resume bit for bit, and data parallelism under ``torchrun``
(DistributedDataParallel; every rank takes its shard of the same global batch).

Paper: §5.3 (Adam and the warm-up schedule, Eq. 3), §5.4 (label smoothing,
eps_ls = 0.1). Book: chapter 10.
"""

from __future__ import annotations

import math
import sys
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import torch
import torch.distributed as dist
import torch.nn.functional as F
from torch import Tensor, nn
from torch.optim import Optimizer
from torch.optim.lr_scheduler import LambdaLR, LRScheduler

from .checkpoint import CHECKPOINT_NAME, load_checkpoint, save_checkpoint
from .data import BOS_ID, EOS_ID, PAD_ID, Batch, Example, collate
from .decoding import greedy_decode

# --- learning-rate schedule ------------------------------------------------------


def noam_lr(step: int, d_model: int, warmup: int = 4000, factor: float = 1.0) -> float:
    """The paper's learning rate at update number ``step``.

    lrate = factor * d_model^-0.5 * min(step^-0.5, step * warmup^-1.5):
    a linear rise for ``warmup`` steps, then decay with 1/sqrt(step). The two
    branches meet at step = warmup, where the rate peaks at
    factor * (d_model * warmup)^-0.5.

    ``step`` counts updates from 1 (the paper's step_num). ``step=0`` gives 0.0,
    the limit of the formula (min(inf, 0) = 0): "before any update".

    Args:
        step: update number, an int >= 0. d_model: D. warmup: warm-up steps (4000 in the paper).
        factor: a multiplier (1.0 in the paper).

    Paper: §5.3, Eq. 3. Book: chapter 10.
    """
    if not isinstance(step, int) or isinstance(step, bool) or step < 0:
        raise ValueError(f"step must be an int >= 0, got {step!r}")
    for name, value in (("d_model", d_model), ("warmup", warmup)):
        if not isinstance(value, int) or isinstance(value, bool) or value <= 0:
            raise ValueError(f"{name} must be a positive int, got {value!r}")
    if not isinstance(factor, (int, float)) or not factor > 0:
        raise ValueError(f"factor must be a number > 0, got {factor!r}")
    if step == 0:
        return 0.0
    return factor * d_model**-0.5 * min(step**-0.5, step * warmup**-1.5)


def noam_scheduler(optimizer: Optimizer, d_model: int, warmup: int = 4000, factor: float = 1.0) -> LambdaLR:
    """A ``LambdaLR`` that sets the optimizer's learning rate to :func:`noam_lr`.

    Update number n (counted from 1) uses ``noam_lr(n, d_model, warmup, factor)``:
    call ``scheduler.step()`` after each ``optimizer.step()``.

    The schedule owns the learning rate. ``LambdaLR`` multiplies a base rate
    by the lambda, so this function sets every parameter group's base rate to
    1.0: the optimizer may be built with any ``lr`` and its rate is still
    exactly ``noam_lr``.

    Paper: §5.3 (with Adam, beta1 = 0.9, beta2 = 0.98, eps = 1e-9). Book: chapter 10.
    """
    if not isinstance(optimizer, Optimizer):
        raise TypeError(f"optimizer must be a torch.optim.Optimizer, got {type(optimizer).__name__}")
    noam_lr(1, d_model, warmup, factor)  # validates the arguments

    def rate(completed_updates: int) -> float:  # LambdaLR counts from 0 before the first update
        return noam_lr(completed_updates + 1, d_model, warmup, factor)

    for group in optimizer.param_groups:
        group["lr"] = 1.0
        group["initial_lr"] = 1.0  # LambdaLR reads its base rate from here
    return LambdaLR(optimizer, rate)


# --- label smoothing -----------------------------------------------------------


class LabelSmoothingLoss(nn.Module):
    """Cross-entropy against a smoothed target distribution.

    For a token whose true class is y, the target distribution over the V
    classes is

        q(k) = (1 - eps) * [k == y] + eps / V        for every class k,

    (Szegedy et al. 2016, §7: the uniform share eps / V goes to every class,
    the true one and ``<pad>`` included) and the loss is the cross-entropy
    -sum_k q(k) log p(k) = (1 - eps) * (-log p(y)) + eps * mean_k(-log p(k)).
    This is the definition of ``F.cross_entropy(..., label_smoothing=eps)``,
    and the result equals it (tested). Positions whose target is
    ``ignore_index`` (the padding) contribute nothing.

    (The Annotated Transformer puts eps / (V - 2) on every class except the
    true one and padding, and uses a KL divergence, which differs from the
    cross-entropy by the entropy of q, a constant. Its minimiser differs
    slightly from this one; both are "label smoothing".)

    Args:
        vocab_size: V. smoothing: eps in [0, 1) (0.1 in the paper).
        ignore_index: target id that is not a token to predict (pass the pad id).
        reduction: "mean" over counted tokens, "sum", or "none" (per position, 0 where ignored).

    Shape: logits (..., V), target (...) -> scalar, or (...) for "none".
    Paper: §5.4, "Label Smoothing". Book: chapter 10.
    """

    def __init__(self, vocab_size: int, smoothing: float = 0.1, ignore_index: int = -100, reduction: str = "mean"):
        super().__init__()
        if not isinstance(vocab_size, int) or isinstance(vocab_size, bool) or vocab_size <= 0:
            raise ValueError(f"vocab_size must be a positive int, got {vocab_size!r}")
        if not isinstance(smoothing, (int, float)) or not 0.0 <= smoothing < 1.0:
            raise ValueError(f"smoothing must be in [0, 1), got {smoothing!r}")
        if reduction not in ("mean", "sum", "none"):
            raise ValueError(f"reduction must be 'mean', 'sum' or 'none', got {reduction!r}")
        self.vocab_size = vocab_size
        self.smoothing = float(smoothing)
        self.ignore_index = ignore_index
        self.reduction = reduction

    def target_distribution(self, target: Tensor) -> Tensor:
        """The smoothed distribution q for each target id; zero rows where ignored.

        Shape: target (...) -> (..., V).
        """
        keep = target != self.ignore_index
        q = torch.full((*target.shape, self.vocab_size), self.smoothing / self.vocab_size)
        q.scatter_add_(-1, target.clamp(0, self.vocab_size - 1)[..., None], torch.full_like(q[..., :1], 1 - self.smoothing))
        return q * keep[..., None]

    def forward(self, logits: Tensor, target: Tensor) -> Tensor:
        V = self.vocab_size
        if not isinstance(logits, Tensor) or not logits.is_floating_point():
            raise TypeError(f"logits must be a floating-point tensor of shape (..., V={V}), got {logits!r:.60}")
        if logits.shape[-1] != V:
            raise ValueError(
                f"logits must have shape (..., V={V}) (the loss's vocab_size), got shape {tuple(logits.shape)}: "
                "the model's vocabulary and the loss's differ"
            )
        if not isinstance(target, Tensor) or target.is_floating_point() or target.shape != logits.shape[:-1]:
            got = tuple(target.shape) if isinstance(target, Tensor) else type(target).__name__
            raise ValueError(f"target must be integer ids of shape {tuple(logits.shape[:-1])}, got {got}")
        keep = target != self.ignore_index
        if bool(keep.any()):
            low, high = int(target[keep].min()), int(target[keep].max())
            if low < 0 or high >= V:
                raise ValueError(f"target must hold ids in [0, {V}) or ignore_index={self.ignore_index}, got {low}..{high}")
        log_p = logits.log_softmax(dim=-1)  # (..., V)
        nll = -log_p.gather(-1, target.clamp(0, V - 1)[..., None]).squeeze(-1)  # -log p(y)
        uniform = -log_p.mean(dim=-1)  # -(1/V) sum_k log p(k)
        loss = torch.where(keep, (1.0 - self.smoothing) * nll + self.smoothing * uniform, 0.0)
        if self.reduction == "none":
            return loss
        if self.reduction == "sum":
            return loss.sum()
        return loss.sum() / keep.sum()


# --- history -------------------------------------------------------------------


@dataclass
class TrainHistory:
    """What :func:`train` records, one entry per update (steps count from 1).

    ``losses`` are mean losses per target token of each step's whole (global)
    batch; ``learning_rates`` the rate that step's update used; ``evals`` one
    dict per evaluation, ``{"step": s, metric: value, ...}``.
    ``tl.plotting.loss_curves({"train": history.losses})`` draws the curve. Book: chapter 10.
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


# --- evaluation ----------------------------------------------------------------


def evaluate(
    model: nn.Module,
    examples: Sequence[Example],
    batch_size: int = 500,
    pad_id: int = PAD_ID,
    bos_id: int = BOS_ID,
    eos_id: int = EOS_ID,
) -> dict[str, float]:
    """Held-out loss and exact-match accuracy of greedy decoding.

    ``loss`` is the plain cross-entropy per target token (no smoothing, so
    exp(loss) is the perplexity); ``accuracy`` the fraction of examples whose
    greedy output equals the target exactly, ``<eos>`` included.

    Book: chapter 10.
    """
    if len(examples) == 0:
        raise ValueError("examples must hold at least one example, got an empty sequence")
    was_training = model.training
    model.eval()
    loss_sum, tokens, correct = 0.0, 0, 0
    with torch.no_grad():
        for start in range(0, len(examples), batch_size):
            batch = collate(examples[start : start + batch_size], pad_id, bos_id, eos_id)
            logits = model(batch.src, batch.tgt_in, batch.src_mask, batch.tgt_mask)
            token_losses = F.cross_entropy(logits.flatten(0, 1), batch.tgt_out.flatten(), ignore_index=pad_id, reduction="sum")
            loss_sum += float(token_losses)
            tokens += batch.n_tgt_tokens
            T = batch.tgt_out.shape[1]  # an output longer than the target is wrong anyway
            output = greedy_decode(model, batch.src, T, bos_id, eos_id, batch.src_mask, pad_id)
            output = F.pad(output, (0, T - output.shape[1]), value=pad_id)
            correct += int((output == batch.tgt_out).all(dim=1).sum())
    model.train(was_training)
    return {"loss": loss_sum / tokens, "accuracy": correct / len(examples)}


# --- the loop ------------------------------------------------------------------


def _world() -> tuple[int, int]:
    if dist.is_available() and dist.is_initialized():
        return dist.get_rank(), dist.get_world_size()
    return 0, 1


def _unwrap(model: nn.Module) -> nn.Module:
    return model.module if isinstance(model, nn.parallel.DistributedDataParallel) else model


def _forward(net: nn.Module, batch: Batch) -> Tensor:
    if batch.src is None:  # decoder-only language model
        return net(batch.tgt_in, batch.tgt_mask)
    return net(batch.src, batch.tgt_in, batch.src_mask, batch.tgt_mask)


def _check_batch(batch: object, step: int, config: Any) -> Batch:
    if not isinstance(batch, Batch):
        raise TypeError(f"batches must give transformer_lib.data.Batch objects, got {type(batch).__name__} at step {step}")
    if len(batch) == 0 or batch.n_tgt_tokens == 0:
        raise ValueError(f"the batch of step {step} is empty: {len(batch)} examples, {batch.n_tgt_tokens} target tokens")
    if config is not None:
        fields = ("tgt_vocab_size",) if batch.src is None else ("src_vocab_size", "tgt_vocab_size")
        for name in fields:
            if batch.vocab_size is not None and batch.vocab_size != getattr(config, name):
                raise ValueError(
                    f"the batches come from a vocabulary of {batch.vocab_size} tokens but the model has "
                    f"config.{name}={getattr(config, name)}; build the config with {name}={batch.vocab_size}"
                )
        width = max(batch.tgt_in.shape[1], 0 if batch.src is None else batch.src.shape[1])
        if width > config.max_len:
            raise ValueError(
                f"the batch of step {step} has sequences of {width} tokens, more than config.max_len={config.max_len}"
            )
    return batch


def _check_loss_fn(loss_fn: Callable[[Tensor, Tensor], Tensor], pad_id: int) -> None:
    if getattr(loss_fn, "reduction", "sum") != "sum":
        raise ValueError(
            f"loss_fn must sum over tokens (reduction='sum'), got reduction={loss_fn.reduction!r}: "
            "train divides by the number of target tokens of the whole batch itself"
        )
    if getattr(loss_fn, "ignore_index", pad_id) != pad_id:
        raise ValueError(f"loss_fn.ignore_index={loss_fn.ignore_index} differs from the batches' pad_id={pad_id}")


def train(
    model: nn.Module,
    optimizer: Optimizer,
    batches: Iterable[Batch] | Callable[[int], Batch],
    steps: int,
    *,
    scheduler: LRScheduler | None = None,
    loss_fn: Callable[[Tensor, Tensor], Tensor] | None = None,
    clip_grad_norm: float | None = None,
    eval_fn: Callable[[nn.Module], Mapping[str, float]] | None = None,
    eval_every: int | None = None,
    checkpoint_dir: str | Path | None = None,
    checkpoint_every: int | None = None,
    resume: bool = False,
    generator: torch.Generator | None = None,
    progress: bool | None = None,
) -> TrainHistory:
    """Train ``model`` for ``steps`` updates (in total, counting any resumed ones).

    Each step: take a batch, compute the summed loss over its target tokens,
    divide by the number of target tokens, backpropagate, clip, update, step
    the schedule. Under ``torchrun`` (``torch.distributed`` initialised with
    world size > 1) the model is wrapped in DistributedDataParallel, every rank
    draws the same global batch and computes its shard (:meth:`Batch.shard`),
    and dividing each rank's token sum by the *global* token count makes the
    averaged gradients and the logged loss those of the whole batch.

    Args:
        model: a :class:`Transformer` (or :class:`DecoderOnlyLM` with ``src=None`` batches).
        optimizer: e.g. ``torch.optim.Adam(model.parameters(), betas=(0.9, 0.98), eps=1e-9)``.
        batches: an iterable of :class:`~transformer_lib.data.Batch`, or a callable
            ``batches(step)`` (step counted from 0). If it has ``state_dict`` /
            ``load_state_dict`` (as :class:`~transformer_lib.data.BatchStream`),
            its state is checkpointed; a plain iterable is fast-forwarded on resume.
        steps: total number of updates.
        scheduler: stepped after every update (e.g. :func:`noam_scheduler`).
        loss_fn: must return the *sum* over target tokens; default
            ``LabelSmoothingLoss(V, 0.1, ignore_index=pad_id, reduction="sum")``.
        clip_grad_norm: clip the gradients' global norm to this value (None: no clipping).
        eval_fn: called as ``eval_fn(model)`` (in eval mode) every ``eval_every`` steps and
            after the last one, returning metrics; run with the random state set aside, so
            evaluating does not change training. Only rank 0 evaluates.
        checkpoint_dir: write ``checkpoint.pt`` here every ``checkpoint_every`` steps and at the end.
        resume: continue from ``checkpoint_dir/checkpoint.pt`` if it exists; the result is
            bit for bit that of an uninterrupted run (same thread count and world size).
        generator: a torch.Generator the batches draw from; its state is checkpointed.
        progress: a tqdm bar on stderr; None shows it only when stderr is a terminal.

    Returns:
        the :class:`TrainHistory` of all steps (resumed ones included).

    Paper: §5 (training). Book: chapter 10.
    """
    from tqdm import tqdm

    if not isinstance(steps, int) or isinstance(steps, bool) or steps < 0:
        raise ValueError(f"steps must be an int >= 0, got {steps!r}")
    for name, value in (("eval_every", eval_every), ("checkpoint_every", checkpoint_every)):
        if value is not None and (not isinstance(value, int) or value <= 0):
            raise ValueError(f"{name} must be a positive int or None, got {value!r}")
    if clip_grad_norm is not None and not clip_grad_norm > 0:
        raise ValueError(f"clip_grad_norm must be > 0 or None, got {clip_grad_norm!r}")
    if resume and checkpoint_dir is None:
        raise ValueError("resume=True needs checkpoint_dir, the folder holding checkpoint.pt")
    rank, world = _world()
    inner = _unwrap(model)
    net = nn.parallel.DistributedDataParallel(inner) if world > 1 else inner
    config = getattr(inner, "config", None)
    path = None if checkpoint_dir is None else Path(checkpoint_dir) / CHECKPOINT_NAME
    history, start = TrainHistory(), 0

    if resume and path is not None and path.exists():
        state = load_checkpoint(path, model=inner, optimizer=optimizer, scheduler=scheduler)
        start, history = state["step"], TrainHistory.from_dict(state["history"])
        if hasattr(batches, "load_state_dict") and state["data"] is not None:
            batches.load_state_dict(state["data"])
        elif not callable(batches):
            batches = iter(batches)
            for _ in range(start):  # a plain iterable: skip what was used
                next(batches)
        rng_states = state["rng"]
        torch.set_rng_state(rng_states[rank % len(rng_states)])
        if generator is not None and state["generator"] is not None:
            generator.set_state(state["generator"])
    source = batches if callable(batches) else iter(batches)

    def checkpoint(step: int) -> None:
        rng = [torch.get_rng_state()]
        if world > 1:
            rng = [None] * world
            dist.all_gather_object(rng, torch.get_rng_state())
        if rank == 0:
            data = batches.state_dict() if hasattr(batches, "state_dict") else None
            save_checkpoint(
                path, model=inner, optimizer=optimizer, scheduler=scheduler, step=step, history=history.to_dict(),
                rng=rng, generator=None if generator is None else generator.get_state(), data=data,
            )
        if world > 1:
            dist.barrier()

    inner.train()  # dropout on; evaluation switches it off and back
    hide = True if rank != 0 else (None if progress is None else not progress)  # None: only on a terminal
    bar = tqdm(total=steps, initial=start, file=sys.stderr, disable=hide, dynamic_ncols=True)
    try:
        for step in range(start, steps):
            try:
                batch = source(step) if callable(source) else next(source)
            except StopIteration:
                raise ValueError(f"batches ran out after {step} batches; steps={steps} needs more") from None
            batch = _check_batch(batch, step, config)
            if loss_fn is None:
                loss_fn = LabelSmoothingLoss(config.tgt_vocab_size, 0.1, ignore_index=batch.pad_id, reduction="sum")
            _check_loss_fn(loss_fn, batch.pad_id)
            n_tokens = batch.n_tgt_tokens  # of the global batch: every rank knows it
            local = batch.shard(rank, world) if world > 1 else batch
            lr = optimizer.param_groups[0]["lr"]
            optimizer.zero_grad(set_to_none=True)
            loss_sum = loss_fn(_forward(net, local), local.tgt_out)
            # DDP averages gradients over ranks; scaling by world / n_tokens turns that
            # average into the gradient of (global token sum) / (global token count).
            (loss_sum * (world / n_tokens)).backward()
            if clip_grad_norm is not None:
                torch.nn.utils.clip_grad_norm_(inner.parameters(), clip_grad_norm)
            optimizer.step()
            if scheduler is not None:
                scheduler.step()
            total = loss_sum.detach().clone()
            if world > 1:
                dist.all_reduce(total)
            loss = float(total) / n_tokens
            if not math.isfinite(loss):
                raise FloatingPointError(f"the loss is {loss} at step {step + 1}; lower the learning rate")
            history.steps.append(step + 1)
            history.losses.append(loss)
            history.learning_rates.append(float(lr))
            history.tokens.append(n_tokens)
            bar.update(1)
            postfix = {"loss": f"{loss:.4f}", "lr": f"{lr:.2e}"}
            done = step + 1 == steps
            if eval_fn is not None and rank == 0 and (done or (eval_every is not None and (step + 1) % eval_every == 0)):
                with torch.random.fork_rng(devices=[]):
                    inner.eval()
                    metrics = {k: float(v) for k, v in eval_fn(inner).items()}
                    inner.train()
                history.evals.append({"step": step + 1, **metrics})
                postfix.update({k: f"{v:.4f}" for k, v in metrics.items()})
            bar.set_postfix(postfix, refresh=False)
            if path is not None and (done or (checkpoint_every is not None and (step + 1) % checkpoint_every == 0)):
                checkpoint(step + 1)
    finally:
        bar.close()
    return history


__all__ = ["LabelSmoothingLoss", "TrainHistory", "evaluate", "noam_lr", "noam_scheduler", "train"]
