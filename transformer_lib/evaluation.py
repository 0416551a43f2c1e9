"""Held-out evaluation: the loss per target token and the exact match of greedy decoding.

Book: ch-training.
"""

from __future__ import annotations

from collections.abc import Sequence

import torch
import torch.nn.functional as F
from torch import Tensor, nn

from ._checks import check_positive_int
from .data import BOS_ID, EOS_ID, PAD_ID, Batch, Example, collate
from .decoding import greedy_decode, sample
from .model import model_device, unwrap
from .variants import DecoderOnlyLM


def evaluate(
    model: nn.Module,
    examples: Sequence[Example],
    *,
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

    Examples:
        >>> task = tl.make_task("copy", n_symbols=5)
        >>> model = tl.Transformer(tl.TransformerConfig.tiny(src_vocab_size=len(task.vocab), tgt_vocab_size=len(task.vocab)))
        >>> metrics = tl.evaluate(model, task.examples(20, seed=1, split="held_out"))
        >>> sorted(metrics), 0 <= metrics["accuracy"] <= 1
        (['accuracy', 'loss'], True)
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
                batch = collate(group, pad_id=pad_id, bos_id=bos_id, eos_id=eos_id, device=device)
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


__all__ = ["evaluate"]
