"""Losses: label smoothing, and the batch losses that turn one batch into (loss_sum, count).

:func:`~transformer_lib.training.train` minimises whatever ``batch_loss(model, batch) -> (loss_sum,
count)`` it is given; the ones here are the usual losses of the book's models
(:func:`seq2seq_loss`, :func:`lm_loss`, :func:`masked_lm_loss`, :func:`classification_loss`),
and :func:`default_batch_loss` chooses one from a model's type.

Paper: §5.4 (label smoothing, eps_ls = 0.1). Book: ch-training.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import torch
import torch.nn.functional as F
from torch import Tensor, nn

from ._checks import check_choice, check_fraction, check_int, check_positive_int, reads_values
from .data import Batch
from .masks import padding_mask
from .model import unwrap
from .variants import DecoderOnlyLM, EncoderOnlyLM, VisionTransformer, mask_tokens

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

    Examples:
        >>> loss_fn = tl.LabelSmoothingLoss(vocab_size=5, smoothing=0.1, ignore_index=0)
        >>> [round(q, 4) for q in loss_fn.target_distribution(torch.tensor([2]))[0].tolist()]  # eps / V = 0.02 each
        [0.02, 0.02, 0.92, 0.02, 0.02]
        >>> logits, target = torch.randn(3, 5), torch.tensor([2, 4, 0])  # the last one is padding
        >>> torch.allclose(loss_fn(logits, target), torch.nn.functional.cross_entropy(
        ...     logits, target, ignore_index=0, label_smoothing=0.1))
        True
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


# --- batch losses: the step that turns a batch into (loss_sum, count) ----------------

#: ``batch_loss(model, batch) -> (loss_sum, count)``: the summed loss of one batch and the
#: number of items (target tokens, labels, images) it is summed over; :func:`~transformer_lib.training.train` divides.
BatchLoss = Callable[[nn.Module, Any], tuple[Tensor, int]]


#: ``loss_fn(logits, targets) -> loss``: a token loss summed over the targets (``reduction="sum"``).
TokenLoss = Callable[[Tensor, Tensor], Tensor]


def _check_token_loss(loss_fn: TokenLoss | None) -> None:
    """A ``loss_fn`` given to a batch loss must be a function that sums (the loop divides by the count itself)."""
    if loss_fn is None:
        return
    if not callable(loss_fn):
        raise TypeError(f"loss_fn must be a function (logits, targets) -> summed loss, got {type(loss_fn).__name__}")
    reduction = getattr(loss_fn, "reduction", "sum")
    if reduction != "sum":
        raise ValueError(
            f"loss_fn must sum over tokens (reduction='sum'), got reduction={reduction!r}: "
            "train divides by the number of target tokens of the whole batch itself"
        )


def _sum_loss(loss_fn: TokenLoss | None, smoothing: float, ignore_index: int, V: int) -> TokenLoss:
    """``loss_fn``, or label smoothing summed over the targets that are not ``ignore_index``."""
    if loss_fn is None:
        return LabelSmoothingLoss(V, smoothing, ignore_index=ignore_index, reduction="sum")
    ignored = getattr(loss_fn, "ignore_index", ignore_index)
    if ignored != ignore_index:
        raise ValueError(
            f"loss_fn.ignore_index={ignored} differs from the padding id the count leaves out, {ignore_index}: "
            f"build the loss with ignore_index={ignore_index}"
        )
    return loss_fn


def _check_smoothing(smoothing: object) -> float:
    return check_fraction("smoothing", smoothing)


def seq2seq_loss(smoothing: float = 0.1, *, loss_fn: TokenLoss | None = None) -> BatchLoss:
    """The batch loss of an encoder-decoder: teacher forcing on a :class:`~transformer_lib.data.Batch`.

    Calls ``model(batch.src, batch.tgt_in, src_mask=batch.src_mask, tgt_mask=batch.tgt_mask)``
    and sums the label-smoothed cross-entropy of the logits against ``batch.tgt_out``
    (padding ignored); the count is ``batch.n_tgt_tokens``. Works for
    :class:`~transformer_lib.Transformer`, :class:`~transformer_lib.SpeechTransformer`
    (``batch.src`` holds float features (B, S, F)) and :class:`~transformer_lib.RNNSeq2Seq`.

    Args:
        smoothing: eps of :class:`LabelSmoothingLoss` (0.1 in the paper; 0 = plain cross-entropy).
        loss_fn: instead of smoothing, a loss that sums over tokens (``reduction="sum"``)
            and ignores ``batch.pad_id``, e.g.
            ``seq2seq_loss(loss_fn=LabelSmoothingLoss(V, 0.1, ignore_index=pad_id, reduction="sum"))``.

    Paper: §5.4 (label smoothing). Book: ch-training.

    Examples:
        >>> model = tl.Transformer(tl.TransformerConfig.tiny())
        >>> batch = tl.collate([([4, 5, 6], [6, 5, 4]), ([7, 8], [8, 7])])
        >>> loss_sum, count = tl.seq2seq_loss(smoothing=0.0)(model, batch)
        >>> count  # target tokens, <eos> included
        7
    """
    smoothing = _check_smoothing(smoothing)
    _check_token_loss(loss_fn)

    def batch_loss(model: nn.Module, batch: Batch) -> tuple[Tensor, int]:
        if not isinstance(batch, Batch):
            raise TypeError(
                f"batch must be a transformer_lib.data.Batch (seq2seq_loss reads its source, target and masks), "
                f"got {type(batch).__name__}; other batches need a batch_loss of their own"
            )
        logits = model(batch.src, batch.tgt_in, src_mask=batch.src_mask, tgt_mask=batch.tgt_mask)  # (B, T, V)
        return _sum_loss(loss_fn, smoothing, batch.pad_id, logits.shape[-1])(logits, batch.tgt_out), batch.n_tgt_tokens

    return batch_loss


def lm_loss(smoothing: float = 0.1, *, pad_id: int | None = None, loss_fn: TokenLoss | None = None) -> BatchLoss:
    """The batch loss of a decoder-only language model: predict every next token.

    A batch is either a :class:`~transformer_lib.data.Batch` with ``src=None``
    (calls ``model(batch.tgt_in, mask=batch.tgt_mask)`` and scores ``batch.tgt_out``,
    ignoring ``batch.pad_id``), or a pair ``(inputs, targets)`` of (B, T) ids, targets
    being the inputs shifted left (calls ``model(inputs)``; ``pad_id`` targets, if
    given, are ignored). The count is the number of scored targets.

    Args:
        smoothing: eps of :class:`LabelSmoothingLoss`. pad_id: for ``(inputs, targets)`` pairs.
        loss_fn: instead of smoothing, a loss summing over tokens (``reduction="sum"``) that
            ignores the padding id (``batch.pad_id``, or ``pad_id``, or -100 when that is None).

    Book: ch-variants.

    Examples:
        >>> lm = tl.DecoderOnlyLM(tl.TransformerConfig.tiny())
        >>> tokens = torch.tensor([[1, 4, 5, 6, 2]])
        >>> loss_sum, count = tl.lm_loss()(lm, (tokens[:, :-1], tokens[:, 1:]))  # inputs, and targets shifted left
        >>> count  # each input position predicts the next token
        4
    """
    smoothing = _check_smoothing(smoothing)
    _check_token_loss(loss_fn)

    def batch_loss(model: nn.Module, batch: Any) -> tuple[Tensor, int]:
        if isinstance(batch, Batch):
            logits = model(batch.tgt_in, mask=batch.tgt_mask)
            return _sum_loss(loss_fn, smoothing, batch.pad_id, logits.shape[-1])(logits, batch.tgt_out), batch.n_tgt_tokens
        inputs, targets = _pair("batch", batch, "(inputs, targets)")
        ignore = -100 if pad_id is None else pad_id
        logits = model(inputs)
        return _sum_loss(loss_fn, smoothing, ignore, logits.shape[-1])(logits, targets), int((targets != ignore).sum())

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
    :func:`~transformer_lib.training.train` so resuming restores it). Calls ``model(inputs, mask=...)``, the
    mask being ``padding_mask(inputs, pad_id)`` if ``pad_id`` is given, else None.
    The count is the number of chosen positions.

    Paper: Devlin et al. (2019), §3.1 "Masked LM". Book: ch-variants.

    Examples:
        >>> bert = tl.EncoderOnlyLM(tl.TransformerConfig.tiny())
        >>> inputs, labels = torch.tensor([[4, 3, 6]]), torch.tensor([[-100, 5, -100]])  # 3 = [MASK]
        >>> loss_sum, count = tl.masked_lm_loss()(bert, (inputs, labels))
        >>> count  # only the chosen position is scored
        1
    """
    smoothing = _check_smoothing(smoothing)
    if mask_id is not None and generator is None:
        generator = torch.Generator().manual_seed(0)

    def batch_loss(model: nn.Module, batch: Any) -> tuple[Tensor, int]:
        if isinstance(batch, Tensor):
            if mask_id is None or generator is None:  # a mask_id comes with a generator (set above)
                raise TypeError(
                    "batch is a tensor of clean tokens but masked_lm_loss has no mask_id to corrupt it with: "
                    "pass batch_loss=tl.masked_lm_loss(mask_id=...), or give (inputs, labels) pairs"
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

    Paper: Dosovitskiy et al. (2021), §3.1. Book: ch-variants (fine-tuning), ch-vision-speech (ViT).

    Examples:
        >>> vit = tl.VisionTransformer(tl.TransformerConfig.tiny(), image_size=8, patch_size=4, in_channels=1, n_classes=3)
        >>> loss_sum, count = tl.classification_loss()(vit, (torch.zeros(2, 1, 8, 8), torch.tensor([0, 2])))
        >>> count
        2
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


def default_batch_loss(model: nn.Module, loss_fn: TokenLoss | None = None) -> BatchLoss:
    """The batch loss :func:`~transformer_lib.training.train` uses for ``model`` when none is given, chosen from its type.

    :class:`~transformer_lib.DecoderOnlyLM`: :func:`lm_loss` ``(0.1)``;
    :class:`~transformer_lib.EncoderOnlyLM`: :func:`masked_lm_loss` ``()`` (batches of
    ``(inputs, labels)``); :class:`~transformer_lib.VisionTransformer`:
    :func:`classification_loss` ``()``; any model with ``encode`` and ``decode``
    (:class:`~transformer_lib.Transformer`, :class:`~transformer_lib.SpeechTransformer`,
    :class:`~transformer_lib.RNNSeq2Seq`): :func:`seq2seq_loss` ``(0.1)``.
    ``loss_fn`` (a summing token loss) replaces the label smoothing of the first and last:
    ``train(..., batch_loss=default_batch_loss(model, loss_fn=...))``. Book: ch-training.

    Examples:
        >>> lm = tl.DecoderOnlyLM(tl.TransformerConfig.tiny())
        >>> tokens = torch.tensor([[1, 4, 5, 2]])
        >>> loss_sum, count = tl.default_batch_loss(lm)(lm, (tokens[:, :-1], tokens[:, 1:]))  # lm_loss(0.1)
        >>> count
        3
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


__all__ = [
    "BatchLoss",
    "LabelSmoothingLoss",
    "classification_loss",
    "default_batch_loss",
    "lm_loss",
    "masked_lm_loss",
    "seq2seq_loss",
]
