"""Held-out evaluation of every model ``train`` accepts: the loss per scored item and an accuracy.

Book: ch-training.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import torch
import torch.nn.functional as F
from torch import Tensor, nn

from ._checks import check_positive_int
from .data import BOS_ID, EOS_ID, PAD_ID, Batch, Example, collate
from .decoding import greedy_decode, sample
from .model import model_device, unwrap
from .variants import DecoderOnlyLM, EncoderOnlyLM, VisionTransformer


def evaluate(
    model: nn.Module,
    examples: Sequence[Any],
    *,
    batch_size: int = 500,
    pad_id: int = PAD_ID,
    bos_id: int = BOS_ID,
    eos_id: int = EOS_ID,
) -> dict[str, float]:
    """Held-out loss and accuracy of any model :func:`~transformer_lib.train` accepts.

    ``loss`` is the plain cross-entropy per scored item (no smoothing, so for tokens
    exp(loss) is the perplexity); what an example is, and what ``accuracy`` counts,
    follow the model (each example is a pair, as its training batches hold them):

    * an encoder-decoder (``Transformer``, ``RNNSeq2Seq``): ``(source ids, target ids)``;
      the target is decoded with :func:`~transformer_lib.greedy_decode`, and ``accuracy``
      is the fraction of examples whose output equals the target exactly, ``<eos>`` included;
    * a :class:`~transformer_lib.SpeechTransformer`: ``(features (S, F), target ids)``, the same;
    * a :class:`~transformer_lib.DecoderOnlyLM`: ``(source ids, target ids)`` read as one
      sequence, source, ``<bos>``, target, scored on the target and ``<eos>``; its greedy output
      is the continuation of the source and ``<bos>`` (:func:`~transformer_lib.sample` with
      ``top_k=1``), exact match as above;
    * an :class:`~transformer_lib.EncoderOnlyLM`: ``(input ids, labels)`` of one length each,
      labels -100 where nothing is predicted (:func:`~transformer_lib.mask_tokens` makes them);
      ``accuracy`` is the fraction of labelled positions predicted right;
    * a :class:`~transformer_lib.VisionTransformer`: ``(image (C, H, W), class)``; ``accuracy``
      is the fraction of images classified right.

    The batches are made on the model's device (sequences of one length together where a
    model reads them unpadded).

    Book: ch-training.

    Examples:
        >>> task = tl.make_task("copy", n_symbols=5)
        >>> model = tl.Transformer(tl.TransformerConfig.tiny(src_vocab_size=len(task.vocab), tgt_vocab_size=len(task.vocab)))
        >>> metrics = tl.evaluate(model, task.examples(20, seed=1, split="held_out"))
        >>> sorted(metrics), 0 <= metrics["accuracy"] <= 1
        (['accuracy', 'loss'], True)
    """
    inner = unwrap(model)
    kind = _kind(inner)
    check_positive_int("batch_size", batch_size)
    if len(examples) == 0:
        raise ValueError("examples must hold at least one example, got an empty sequence")
    device = model_device(inner)
    was_training = inner.training
    inner.eval()
    loss_sum, scored, correct = 0.0, 0, 0
    try:
        with torch.no_grad():
            for group in _evaluation_batches(examples, batch_size, same_source_length=kind != "seq2seq"):
                if kind == "classifier":
                    parts = _classifier_scores(inner, group, device)
                elif kind == "masked_lm":
                    parts = _masked_lm_scores(inner, group, device)
                else:
                    parts = _sequence_scores(inner, kind, group, device, pad_id, bos_id, eos_id)
                loss_sum, scored, correct = loss_sum + parts[0], scored + parts[1], correct + parts[2]
    finally:
        inner.train(was_training)
    if scored == 0:
        raise ValueError("examples must hold at least one item to score (a label other than -100), got none")
    per_example = kind not in ("masked_lm",)  # exact match and classification count examples; masked LM counts labels
    return {"loss": loss_sum / scored, "accuracy": correct / (len(examples) if per_example else scored)}


def _kind(model: nn.Module) -> str:
    """Which of evaluate's cases a model is (the order matters: a SpeechTransformer also decodes)."""
    if isinstance(model, VisionTransformer):
        return "classifier"
    if isinstance(model, EncoderOnlyLM):
        return "masked_lm"
    if isinstance(model, DecoderOnlyLM):
        return "decoder_only"
    if hasattr(model, "encode") and hasattr(model, "decode"):
        return "features" if getattr(model, "n_features", None) is not None else "seq2seq"
    raise ValueError(
        "model must be one train accepts (Transformer, RNNSeq2Seq, SpeechTransformer, DecoderOnlyLM, EncoderOnlyLM or "
        f"VisionTransformer): evaluate another model with an eval_fn of your own; got {type(model).__name__}"
    )


def _sequence_scores(model, kind, group, device, pad_id, bos_id, eos_id) -> tuple[float, int, int]:
    """(summed cross-entropy, target tokens, exact matches) of a model that writes a target sequence."""
    src: Tensor | None
    if kind == "features":  # (features (S, F), target ids): the targets collated, the features stacked (one length)
        batch = collate([((bos_id,), target) for _, target in group], pad_id=pad_id, bos_id=bos_id, eos_id=eos_id, device=device)
        src, src_mask = torch.stack([torch.as_tensor(f) for f, _ in group]).to(device), None
    else:
        batch = collate(group, pad_id=pad_id, bos_id=bos_id, eos_id=eos_id, device=device)
        src, src_mask = batch.src, batch.src_mask
    assert src is not None  # collate always sets the source (for the type checker)
    T = batch.tgt_out.shape[1]  # an output longer than the target is wrong anyway
    if kind == "decoder_only":
        logits, output = _lm_logits_and_greedy_output(model, batch, eos_id, pad_id)
    else:
        logits = model(src, batch.tgt_in, src_mask=src_mask, tgt_mask=batch.tgt_mask)
        output = greedy_decode(model, src, bos_id=bos_id, eos_id=eos_id, max_new_tokens=T, src_mask=src_mask, pad_id=pad_id)
    loss = F.cross_entropy(logits.flatten(0, 1), batch.tgt_out.flatten(), ignore_index=pad_id, reduction="sum")
    output = F.pad(output, (0, T - output.shape[1]), value=pad_id)
    return float(loss), batch.n_tgt_tokens, int((output == batch.tgt_out).all(dim=1).sum())


def _masked_lm_scores(model, group, device) -> tuple[float, int, int]:
    """(summed cross-entropy, labelled positions, right predictions) of an encoder-only model on (inputs, labels)."""
    inputs = torch.stack([torch.as_tensor(x) for x, _ in group]).to(device)
    labels = torch.stack([torch.as_tensor(y) for _, y in group]).to(device)
    logits = model(inputs)
    labelled = labels != -100
    loss = F.cross_entropy(logits.flatten(0, 1), labels.flatten(), ignore_index=-100, reduction="sum")
    return float(loss), int(labelled.sum()), int(((logits.argmax(-1) == labels) & labelled).sum())


def _classifier_scores(model, group, device) -> tuple[float, int, int]:
    """(summed cross-entropy, images, right classes) of a classifier on (image, class) pairs."""
    images = torch.stack([torch.as_tensor(x) for x, _ in group]).to(device)
    labels = torch.as_tensor([int(y) for _, y in group], device=device)
    logits = model(images)
    loss = F.cross_entropy(logits, labels, reduction="sum")
    return float(loss), len(group), int((logits.argmax(-1) == labels).sum())


def _evaluation_batches(examples: Sequence[Any], batch_size: int, same_source_length: bool) -> list[Sequence[Any]]:
    """Consecutive slices of ``batch_size`` examples; for the models that read their input unpadded (all but the
    encoder-decoders, whose sources are padded and masked), of inputs of one length."""
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


__all__ = ["evaluate"]
