"""Training: the learning-rate schedule, label smoothing, and one training loop for every model.

The loop :func:`train` does what a chapter needs and no more: a progress bar
(on stderr), gradient clipping, evaluation every N steps, atomic checkpoints
that resume bit for bit, and data parallelism under ``torchrun``
(DistributedDataParallel; every rank takes its shard of the same global batch).
What a batch is and how it becomes a loss is one argument, ``batch_loss(model,
batch) -> (loss_sum, count)``; the defaults (:func:`seq2seq_loss`,
:func:`lm_loss`, :func:`masked_lm_loss`, :func:`classification_loss`) are
chosen from the model's type by :func:`default_batch_loss`. The loop's parts
are named: ``_resume``, ``_step``, ``_evaluate_now``, ``_save``.

Paper: §5.3 (Adam and the warm-up schedule, Eq. 3), §5.4 (label smoothing,
eps_ls = 0.1). Book: ch-training.
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

from ._checks import (
    check_bool,
    check_choice,
    check_fraction,
    check_int,
    check_nonnegative_int,
    check_positive,
    check_positive_int,
    reads_values,
)
from .checkpoint import CHECKPOINT_NAME, load_checkpoint, save_checkpoint
from .data import BOS_ID, EOS_ID, PAD_ID, Batch, Example, collate
from .decoding import greedy_decode, sample
from .masks import padding_mask
from .model import model_device, unwrap
from .variants import DecoderOnlyLM, EncoderOnlyLM, VisionTransformer, mask_tokens

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

    Paper: §5.3, Eq. 3. Book: ch-training.
    """
    check_nonnegative_int("step", step)
    check_positive_int("d_model", d_model)
    check_positive_int("warmup", warmup)
    check_positive("factor", factor)
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

    Paper: §5.3 (with Adam, beta1 = 0.9, beta2 = 0.98, eps = 1e-9). Book: ch-training.
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
    Paper: §5.4, "Label Smoothing". Book: ch-training.
    """

    def __init__(self, vocab_size: int, smoothing: float = 0.1, ignore_index: int = -100, reduction: str = "mean"):
        super().__init__()
        check_positive_int("vocab_size", vocab_size)
        check_fraction("smoothing", smoothing)
        check_int("ignore_index", ignore_index)
        check_choice("reduction", reduction, ("mean", "sum", "none"))
        self.vocab_size = vocab_size
        self.smoothing = float(smoothing)
        self.ignore_index = ignore_index
        self.reduction = reduction

    def target_distribution(self, target: Tensor, *, dtype: torch.dtype | None = None) -> Tensor:
        """The smoothed distribution q for each target id; zero rows where ignored.

        Made on ``target``'s device, in ``dtype`` (None: ``torch.get_default_dtype()``).

        Shape: target (...) -> (..., V).
        """
        keep = target != self.ignore_index
        q = torch.full((*target.shape, self.vocab_size), self.smoothing / self.vocab_size, dtype=dtype, device=target.device)
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
        if reads_values(target) and bool((keep & ((target < 0) | (target >= V))).any()):  # one host read
            low, high = int(target[keep].min()), int(target[keep].max())
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
    ``book_support.plotting.loss_curves({"train": history.losses})`` (the book's apparatus) draws the curve. Book: ch-training.
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
    greedy output equals the target exactly, ``<eos>`` included. The batches are
    made on the model's device.

    An encoder-decoder (``Transformer``, ``RNNSeq2Seq``) reads the source and
    decodes the target with :func:`~transformer_lib.greedy_decode`. A
    :class:`~transformer_lib.DecoderOnlyLM` reads one sequence, the source, ``<bos>``
    and the target, and is scored on the target and ``<eos>``; its greedy output is
    the continuation of the source and ``<bos>`` (:func:`~transformer_lib.sample` with
    ``top_k=1``). Models that do not map token ids to token ids (``EncoderOnlyLM``,
    ``VisionTransformer``, ``SpeechTransformer``, which reads features) raise a
    ValueError: evaluate them with an ``eval_fn`` of your own.

    Book: ch-training.
    """
    inner = unwrap(model)
    decoder_only = isinstance(inner, DecoderOnlyLM)
    if not decoder_only and not (hasattr(inner, "encode") and hasattr(inner, "decode")):
        raise ValueError(
            "model must be an encoder-decoder with encode() and decode() (Transformer, RNNSeq2Seq) or a DecoderOnlyLM, "
            f"models that map token ids to token ids; got {type(inner).__name__}"
        )
    if getattr(inner, "n_features", None) is not None:
        raise ValueError(
            f"model must read token ids, as the (source ids, target ids) examples hold; got {type(inner).__name__}, "
            "which reads features: evaluate it with an eval_fn of your own"
        )
    check_positive_int("batch_size", batch_size)
    if len(examples) == 0:
        raise ValueError("examples must hold at least one example, got an empty sequence")
    device = model_device(inner)
    was_training = inner.training
    inner.eval()
    loss_sum, tokens, correct = 0.0, 0, 0
    try:
        with torch.no_grad():
            for group in _evaluation_batches(examples, batch_size, decoder_only):
                batch = collate(group, pad_id, bos_id, eos_id, device=device)
                assert batch.src is not None  # collate always sets the source (for the type checker)
                T = batch.tgt_out.shape[1]  # an output longer than the target is wrong anyway
                if decoder_only:
                    logits, output = _lm_logits_and_greedy_output(inner, batch, eos_id, pad_id)
                else:
                    logits = inner(batch.src, batch.tgt_in, src_mask=batch.src_mask, tgt_mask=batch.tgt_mask)
                    output = greedy_decode(
                        inner, batch.src, bos_id=bos_id, eos_id=eos_id, max_new_tokens=T, src_mask=batch.src_mask, pad_id=pad_id
                    )
                flat_logits, flat_targets = logits.flatten(0, 1), batch.tgt_out.flatten()
                loss_sum += float(F.cross_entropy(flat_logits, flat_targets, ignore_index=pad_id, reduction="sum"))
                tokens += batch.n_tgt_tokens
                output = F.pad(output, (0, T - output.shape[1]), value=pad_id)
                correct += int((output == batch.tgt_out).all(dim=1).sum())
    finally:
        inner.train(was_training)
    return {"loss": loss_sum / tokens, "accuracy": correct / len(examples)}


def _evaluation_batches(examples: Sequence[Example], batch_size: int, same_source_length: bool) -> list[Sequence[Example]]:
    """Consecutive slices of ``batch_size`` examples; for a decoder-only model, of sources of one length
    (its prompts are then unpadded, so each sequence reads exactly its own tokens)."""
    if not same_source_length:
        return [examples[start : start + batch_size] for start in range(0, len(examples), batch_size)]
    by_length: dict[int, list[Example]] = {}
    for example in examples:
        by_length.setdefault(len(example[0]), []).append(example)
    return [group[start : start + batch_size] for group in by_length.values() for start in range(0, len(group), batch_size)]


def _lm_logits_and_greedy_output(lm: nn.Module, batch: Batch, eos_id: int, pad_id: int) -> tuple[Tensor, Tensor]:
    """A decoder-only model on a batch of equal-length sources: the logits (B, T, V) of the target
    positions, and its greedy continuation (B, <= T) of the source and ``<bos>``."""
    assert batch.src is not None
    P, T = batch.src.shape[1], batch.tgt_out.shape[1]
    sequence = torch.cat([batch.src, batch.tgt_in], dim=1)  # (B, P + T): source, <bos>, target, padding after
    logits = lm(sequence)[:, P:]  # from <bos> on, each position predicts the next target token
    # top_k=1 is greedy decoding: one token keeps all the probability, so the draw is certain
    no_randomness = torch.Generator().manual_seed(0)  # a generator of its own: the global random state is untouched
    continuation = sample(
        lm, sequence[:, : P + 1], max_new_tokens=T, eos_id=eos_id, top_k=1, generator=no_randomness, pad_id=pad_id
    )
    return logits, continuation


# --- batch losses: the step that turns a batch into (loss_sum, count) ----------------

#: ``batch_loss(model, batch) -> (loss_sum, count)``: the summed loss of one batch and the
#: number of items (target tokens, labels, images) it is summed over; :func:`train` divides.
BatchLoss = Callable[[nn.Module, Any], tuple[Tensor, int]]


def _sum_loss(loss_fn: Callable[[Tensor, Tensor], Tensor] | None, smoothing: float, ignore_index: int, V: int):
    if loss_fn is not None:
        return loss_fn
    return LabelSmoothingLoss(V, smoothing, ignore_index=ignore_index, reduction="sum")


def _check_smoothing(smoothing: object) -> float:
    return check_fraction("smoothing", smoothing)


def seq2seq_loss(smoothing: float = 0.1, *, loss_fn: Callable[[Tensor, Tensor], Tensor] | None = None) -> BatchLoss:
    """The batch loss of an encoder-decoder: teacher forcing on a :class:`~transformer_lib.data.Batch`.

    Calls ``model(batch.src, batch.tgt_in, src_mask=batch.src_mask, tgt_mask=batch.tgt_mask)``
    and sums the label-smoothed cross-entropy of the logits against ``batch.tgt_out``
    (padding ignored); the count is ``batch.n_tgt_tokens``. Works for
    :class:`~transformer_lib.Transformer`, :class:`~transformer_lib.SpeechTransformer`
    (``batch.src`` holds float features (B, S, F)) and :class:`~transformer_lib.RNNSeq2Seq`.

    Args:
        smoothing: eps of :class:`LabelSmoothingLoss` (0.1 in the paper; 0 = plain cross-entropy).
        loss_fn: instead of smoothing, a loss that sums over tokens (``reduction="sum"``)
            and ignores ``batch.pad_id``.

    Paper: §5.4 (label smoothing). Book: ch-training.
    """
    smoothing = _check_smoothing(smoothing)

    def batch_loss(model: nn.Module, batch: Batch) -> tuple[Tensor, int]:
        logits = model(batch.src, batch.tgt_in, src_mask=batch.src_mask, tgt_mask=batch.tgt_mask)  # (B, T, V)
        return _sum_loss(loss_fn, smoothing, batch.pad_id, logits.shape[-1])(logits, batch.tgt_out), batch.n_tgt_tokens

    batch_loss.batch_type = Batch  # type: ignore[attr-defined]
    batch_loss.loss_fn = loss_fn  # type: ignore[attr-defined]
    return batch_loss


def lm_loss(
    smoothing: float = 0.1, *, pad_id: int | None = None, loss_fn: Callable[[Tensor, Tensor], Tensor] | None = None
) -> BatchLoss:
    """The batch loss of a decoder-only language model: predict every next token.

    A batch is either a :class:`~transformer_lib.data.Batch` with ``src=None``
    (calls ``model(batch.tgt_in, mask=batch.tgt_mask)`` and scores ``batch.tgt_out``,
    ignoring ``batch.pad_id``), or a pair ``(inputs, targets)`` of (B, T) ids, targets
    being the inputs shifted left (calls ``model(inputs)``; ``pad_id`` targets, if
    given, are ignored). The count is the number of scored targets.

    Args:
        smoothing: eps of :class:`LabelSmoothingLoss`. pad_id: for ``(inputs, targets)`` pairs.
        loss_fn: instead of smoothing, a loss summing over tokens.

    Book: ch-variants.
    """
    smoothing = _check_smoothing(smoothing)

    def batch_loss(model: nn.Module, batch: Any) -> tuple[Tensor, int]:
        if isinstance(batch, Batch):
            logits = model(batch.tgt_in, mask=batch.tgt_mask)
            return _sum_loss(loss_fn, smoothing, batch.pad_id, logits.shape[-1])(logits, batch.tgt_out), batch.n_tgt_tokens
        inputs, targets = _pair("batch", batch, "(inputs, targets)")
        ignore = -100 if pad_id is None else pad_id
        logits = model(inputs)
        return _sum_loss(loss_fn, smoothing, ignore, logits.shape[-1])(logits, targets), int((targets != ignore).sum())

    batch_loss.loss_fn = loss_fn  # type: ignore[attr-defined]
    return batch_loss


def masked_lm_loss(
    mask_id: int | None = None,
    *,
    p: float = 0.15,
    special_ids: tuple[int, ...] = (),
    pad_id: int | None = None,
    generator: torch.Generator | None = None,
    smoothing: float = 0.0,
) -> BatchLoss:
    """The batch loss of an encoder-only (BERT-style) masked language model.

    A batch is either a pair ``(inputs, labels)`` already corrupted by
    :func:`~transformer_lib.mask_tokens` (labels ``-100`` where not chosen), or,
    when ``mask_id`` is given, a (B, T) tensor of clean token ids, which this loss
    corrupts itself with ``mask_tokens(tokens, mask_id, V, generator, p, special_ids)``
    (V = the model's ``config.src_vocab_size``; pass the same ``generator`` to
    :func:`train` so resuming restores it). Calls ``model(inputs, mask=...)``, the
    mask being ``padding_mask(inputs, pad_id)`` if ``pad_id`` is given, else None.
    The count is the number of chosen positions.

    Paper: Devlin et al. (2019), §3.1 "Masked LM". Book: ch-variants.
    """
    smoothing = _check_smoothing(smoothing)
    if mask_id is not None and generator is None:
        generator = torch.Generator().manual_seed(0)

    def batch_loss(model: nn.Module, batch: Any) -> tuple[Tensor, int]:
        if isinstance(batch, Tensor):
            if mask_id is None or generator is None:  # a mask_id comes with a generator (set above)
                raise TypeError(
                    "batch is a tensor of clean tokens but masked_lm_loss has no mask_id to corrupt it with: "
                    "pass batch_loss=tl.training.masked_lm_loss(mask_id=...), or give (inputs, labels) pairs"
                )
            config: Any = unwrap(model).config  # an EncoderOnlyLM's TransformerConfig
            V = config.src_vocab_size
            inputs, labels = mask_tokens(batch, mask_id, V, generator, p=p, special_ids=special_ids)
        else:
            inputs, labels = _pair("batch", batch, "(inputs, labels) from tl.mask_tokens")
        mask = None if pad_id is None else padding_mask(inputs, pad_id)
        logits = model(inputs, mask=mask)
        return _sum_loss(None, smoothing, -100, logits.shape[-1])(logits, labels), int((labels != -100).sum())

    return batch_loss


def classification_loss(smoothing: float = 0.0) -> BatchLoss:
    """The batch loss of a classifier (e.g. :class:`~transformer_lib.VisionTransformer`).

    A batch is a pair ``(inputs, labels)``: ``model(inputs)`` gives (B, C) logits,
    labels are (B,) class ids; the count is B.

    Paper: Dosovitskiy et al. (2021), §3.1. Book: ch-variants.
    """
    smoothing = _check_smoothing(smoothing)

    def batch_loss(model: nn.Module, batch: Any) -> tuple[Tensor, int]:
        inputs, labels = _pair("batch", batch, "(inputs, labels)")
        logits = model(inputs)
        return F.cross_entropy(logits, labels, reduction="sum", label_smoothing=smoothing), labels.shape[0]

    return batch_loss


def _pair(name: str, batch: object, what: str) -> tuple[Tensor, Tensor]:
    if not isinstance(batch, (tuple, list)) or len(batch) != 2 or not all(isinstance(x, Tensor) for x in batch):
        raise TypeError(f"{name} must be a pair of tensors {what}, got {type(batch).__name__}")
    return batch[0], batch[1]


def default_batch_loss(model: nn.Module, loss_fn: Callable[[Tensor, Tensor], Tensor] | None = None) -> BatchLoss:
    """The batch loss :func:`train` uses for ``model`` when none is given, chosen from its type.

    :class:`~transformer_lib.DecoderOnlyLM`: :func:`lm_loss` ``(0.1)``;
    :class:`~transformer_lib.EncoderOnlyLM`: :func:`masked_lm_loss` ``()`` (batches of
    ``(inputs, labels)``); :class:`~transformer_lib.VisionTransformer`:
    :func:`classification_loss` ``()``; any model with ``encode`` and ``decode``
    (:class:`~transformer_lib.Transformer`, :class:`~transformer_lib.SpeechTransformer`,
    :class:`~transformer_lib.RNNSeq2Seq`): :func:`seq2seq_loss` ``(0.1)``.
    ``loss_fn`` (a summing token loss) replaces the label smoothing of the first and last.
    """
    model = unwrap(model)
    if isinstance(model, DecoderOnlyLM):
        return lm_loss(loss_fn=loss_fn)
    if isinstance(model, (EncoderOnlyLM, VisionTransformer)) and loss_fn is not None:
        raise ValueError(f"loss_fn applies to token-prediction models with a default batch loss, not {type(model).__name__}")
    if isinstance(model, EncoderOnlyLM):
        return masked_lm_loss()
    if isinstance(model, VisionTransformer):
        return classification_loss()
    if hasattr(model, "encode") and hasattr(model, "decode"):
        return seq2seq_loss(loss_fn=loss_fn)
    raise TypeError(
        f"train has no default batch loss for a {type(model).__name__}: pass batch_loss=..., "
        "a function (model, batch) -> (loss_sum, count)"
    )


# --- the loop ------------------------------------------------------------------


def _world() -> tuple[int, int]:
    if dist.is_available() and dist.is_initialized():
        return dist.get_rank(), dist.get_world_size()
    return 0, 1


def _check_batch(batch: object, step: int, config: Any, batch_type: type | None) -> None:
    if batch_type is not None and not isinstance(batch, batch_type):
        raise TypeError(
            f"batches must give transformer_lib.data.Batch objects, got {type(batch).__name__} at step {step} "
            "(other batches need batch_loss=...)"
        )
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


def _check_loss_fn(loss_fn: Callable[[Tensor, Tensor], Tensor], pad_id: int) -> None:
    reduction = getattr(loss_fn, "reduction", "sum")
    if reduction != "sum":
        raise ValueError(
            f"loss_fn must sum over tokens (reduction='sum'), got reduction={reduction!r}: "
            "train divides by the number of target tokens of the whole batch itself"
        )
    ignore_index = getattr(loss_fn, "ignore_index", pad_id)
    if ignore_index != pad_id:
        raise ValueError(f"loss_fn.ignore_index={ignore_index} differs from the batches' pad_id={pad_id}")


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
    torch.set_rng_state(rng_states[rank % len(rng_states)])
    if generator is not None and state["generator"] is not None:
        generator.set_state(state["generator"])
    return start, history, batches


def _save(path, step, inner, optimizer, scheduler, history, batches, generator, rank, world) -> None:
    """Write ``checkpoint.pt`` (rank 0) with every rank's random state."""
    rng: list[Tensor | None] = [torch.get_rng_state()]
    if world > 1:
        rng = [None] * world
        dist.all_gather_object(rng, torch.get_rng_state())
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
        )
    if world > 1:
        dist.barrier()


def _step(net, inner, optimizer, scheduler, batch, batch_loss, clip_grad_norm, step, rank, world) -> tuple[float, int]:
    """One update on one global batch; returns (mean loss per item, number of items)."""
    local = _shard(batch, rank, world) if world > 1 else batch
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


def train(
    model: nn.Module,
    optimizer: Optimizer,
    batches: Iterable[Any] | Callable[[int], Any],
    steps: int,
    *,
    batch_loss: BatchLoss | None = None,
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
    device: torch.device | str | None = None,
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
        model: any model; the default ``batch_loss`` is chosen from its type
            (:func:`default_batch_loss`): Transformer, SpeechTransformer and RNNSeq2Seq
            get :func:`seq2seq_loss` (label smoothing 0.1), DecoderOnlyLM :func:`lm_loss`,
            EncoderOnlyLM :func:`masked_lm_loss`, VisionTransformer :func:`classification_loss`.
        optimizer: e.g. ``torch.optim.Adam(model.parameters(), betas=(0.9, 0.98), eps=1e-9)``.
        batches: an iterable of batches, or a callable ``batches(step)`` (step counted from 0).
            A batch is a :class:`~transformer_lib.data.Batch` for the default seq2seq loss,
            anything ``batch_loss`` accepts otherwise. If it has ``state_dict`` /
            ``load_state_dict`` (as :class:`~transformer_lib.tasks.BatchStream`),
            its state is checkpointed; a plain iterable is fast-forwarded on resume.
        steps: total number of updates.
        batch_loss: ``batch_loss(model, batch) -> (loss_sum, count)``: the loss summed over
            the batch's items and how many items; e.g. ``tl.training.seq2seq_loss(smoothing=0.0)``.
        scheduler: stepped after every update (e.g. :func:`noam_scheduler`).
        loss_fn: with the default batch loss of a token model, a loss that sums over target
            tokens, replacing ``LabelSmoothingLoss(V, 0.1, ignore_index=pad_id, reduction="sum")``.
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

    Returns:
        the :class:`TrainHistory` of all steps (resumed ones included); ``tokens`` holds each step's count.

    Paper: §5 (training). Book: ch-training.
    """
    from tqdm import tqdm

    check_nonnegative_int("steps", steps)
    for name, value in (("eval_every", eval_every), ("checkpoint_every", checkpoint_every)):
        if value is not None:
            check_positive_int(name, value)
    if clip_grad_norm is not None:
        check_positive("clip_grad_norm", clip_grad_norm)
    check_bool("resume", resume)
    if device is not None and not isinstance(device, (torch.device, str)):
        raise TypeError(f"device must be a torch.device, a string such as 'cuda', or None, got {type(device).__name__}")
    if resume and checkpoint_dir is None:
        raise ValueError("resume=True needs checkpoint_dir, the folder holding checkpoint.pt")
    if batch_loss is not None and loss_fn is not None:
        raise ValueError("give batch_loss or loss_fn, not both (loss_fn only replaces the default batch loss's loss)")
    if batch_loss is not None and not callable(batch_loss):
        raise TypeError(f"batch_loss must be a function (model, batch) -> (loss_sum, count), got {type(batch_loss).__name__}")
    rank, world = _world()
    inner = unwrap(model)
    if device is not None:
        inner.to(device)  # in place: the optimizer's parameters are these ones
    target_device = model_device(inner)
    if batch_loss is None:
        batch_loss = default_batch_loss(inner, loss_fn)
    batch_type = getattr(batch_loss, "batch_type", None)
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
            try:
                batch = source(step) if callable(source) else next(source)
            except StopIteration:
                raise ValueError(f"batches ran out after {step} batches; steps={steps} needs more") from None
            batch = _to_device(batch, target_device)
            _check_batch(batch, step, config, batch_type)
            if loss_fn is not None and isinstance(batch, Batch):
                _check_loss_fn(loss_fn, batch.pad_id)
            lr = optimizer.param_groups[0]["lr"]
            loss, count = _step(net, inner, optimizer, scheduler, batch, batch_loss, clip_grad_norm, step, rank, world)
            history.steps.append(step + 1)
            history.losses.append(loss)
            history.learning_rates.append(float(lr))
            history.tokens.append(count)
            bar.update(1)
            postfix = {"loss": f"{loss:.4f}", "lr": f"{lr:.2e}"}
            done = step + 1 == steps
            if eval_fn is not None and rank == 0 and (done or (eval_every is not None and (step + 1) % eval_every == 0)):
                metrics = _evaluate_now(inner, eval_fn)
                history.evals.append({"step": step + 1, **metrics})
                postfix.update({k: f"{v:.4f}" for k, v in metrics.items()})
            bar.set_postfix(postfix, refresh=False)
            if path is not None and (done or (checkpoint_every is not None and (step + 1) % checkpoint_every == 0)):
                _save(path, step + 1, inner, optimizer, scheduler, history, batches, generator, rank, world)
    finally:
        bar.close()
    return history


__all__ = [
    "BatchLoss",
    "LabelSmoothingLoss",
    "TrainHistory",
    "classification_loss",
    "default_batch_loss",
    "evaluate",
    "lm_loss",
    "masked_lm_loss",
    "noam_lr",
    "noam_scheduler",
    "seq2seq_loss",
    "train",
]
