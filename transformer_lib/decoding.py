"""Turning a trained model into outputs: greedy decoding, beam search, sampling.

One convention for every decoder (:func:`greedy_decode`, :func:`beam_search`, :func:`sample`):

* the output holds the **generated tokens only**: no ``<bos>``, no prompt; position 0
  is the first generated token (to see a prompt with its continuation,
  ``torch.cat([prompt, output], dim=1)``);
* it contains the ``<eos>`` a sequence ended with; after it come ``pad_id`` tokens
  (default 0, the ``<pad>`` id of :class:`transformer_lib.data.Vocab`);
* ``max_new_tokens`` bounds the number of generated tokens, ``<eos>`` included; a
  sequence that reaches it without ``<eos>`` is cut there;
* the output is as wide as its longest sequence, so (B, <= max_new_tokens);
* the special ids (``bos_id``, ``eos_id``, ``pad_id``) and the length are keyword-only:
  ``greedy_decode(model, src, bos_id=1, eos_id=2, max_new_tokens=20)``;
* ``src`` holds token ids (B, S), or float features (B, S, F) for a model with an
  ``n_features`` attribute whose ``encode`` reads features (``SpeechTransformer``);
* ``src_mask`` (keyword-only) means what it means in ``Transformer.forward``: which
  source positions may be attended to; ``src_mask=None`` means no mask (every
  position, padding included). A padded batch needs ``src_mask=padding_mask(src, pad_id)``
  (``batch.src_mask`` of a :class:`~transformer_lib.data.Batch`);
* the model runs in eval mode without gradients, and gets its mode back afterwards.

The model never sees a future token. With ``use_cache=True`` (the default, for
models with ``supports_cache``: Transformer, SpeechTransformer, DecoderOnlyLM)
each step computes only the new position: the keys and values of the earlier
positions are kept in a :class:`~transformer_lib.attention.KVCache`, and the
cross-attention keys and values of the memory are computed once. The tokens are
those of ``use_cache=False``, which re-runs the decoder over the whole prefix
at every step (tested in float64 and float32, with padding, ``<eos>`` mid-batch
and beam reordering); only rounding in the last float digits differs.

Paper: §6.1 (beam size 4, length penalty alpha = 0.6, maximum output length
input + 50, "terminate early when possible"); the length penalty is Wu et al.
(2016), Eq. 14. Book: ch-decoding.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Protocol, cast

import torch
from torch import Tensor, nn

from ._checks import (
    check_bool,
    check_nonnegative,
    check_nonnegative_int,
    check_positive,
    check_positive_int,
    check_tensor,
    check_tokens,
)
from .attention import KVCache
from .model import unwrap


@contextmanager
def _evaluating(model: nn.Module) -> Iterator[nn.Module]:
    """Eval mode and inference mode inside; the model's previous mode restored on exit.

    ``torch.inference_mode`` is ``no_grad`` without autograd's per-tensor bookkeeping
    (about 10 % of a cached decoding step of the toy model). Tensors made inside are
    inference tensors, which autograd refuses to save: the decoders return clones.
    """
    was_training = model.training
    model.eval()
    try:
        with torch.inference_mode():
            yield model
    finally:
        model.train(was_training)


class EncoderDecoder(Protocol):
    """What the decoders call on a model: :class:`~transformer_lib.Transformer`,
    :class:`~transformer_lib.SpeechTransformer` and :class:`~transformer_lib.RNNSeq2Seq` have it
    (``decode`` takes ``cache`` only where the model's ``supports_cache`` is True).
    For the type checker only: a model need not subclass it."""

    def encode(self, src: Tensor, /, *, src_mask: Tensor | None = None) -> Tensor: ...

    def decode(
        self, tgt: Tensor, memory: Tensor, /, *, src_mask: Tensor | None = None, cache: KVCache | None = None
    ) -> Tensor: ...

    def output_projection(self, states: Tensor, /) -> Tensor: ...


class _EncoderDecoderModule(nn.Module, EncoderDecoder):
    """An nn.Module that is an :class:`EncoderDecoder`: the type :func:`_encoder_decoder` returns (never built)."""


def _encoder_decoder(model: nn.Module, src: Tensor, max_new_tokens: int, pad_id: int) -> _EncoderDecoderModule:
    """The model, unwrapped, once it and the arguments are checked: an encoder-decoder, a positive
    ``max_new_tokens`` within its positional table, ``src`` ids (or features), a pad id >= 0."""
    model = unwrap(model)
    if not isinstance(model, nn.Module) or not hasattr(model, "encode") or not hasattr(model, "decode"):
        raise TypeError(f"model must be an encoder-decoder with encode() and decode(), got {type(model).__name__}")
    check_positive_int("max_new_tokens", max_new_tokens)
    config = getattr(model, "config", None)
    if config is not None and max_new_tokens > config.max_len:
        raise ValueError(
            f"max_new_tokens={max_new_tokens} is longer than the model's positional table (config.max_len={config.max_len})"
        )
    n_features = getattr(model, "n_features", None)
    if n_features is not None:
        # a model that reads continuous features (B, S, F), e.g. SpeechTransformer's spectrogram frames:
        check_tensor("src", src, f"(B, S, F={n_features}) features", rank=3, last_dim=n_features)
    else:
        check_tokens("src", src, config.src_vocab_size if config is not None else 2**62)
    check_nonnegative_int("pad_id", pad_id)
    return cast(_EncoderDecoderModule, model)


def _new_cache(model: nn.Module, use_cache: object) -> KVCache | None:
    """A fresh cache if asked for and the model's decode accepts one (``supports_cache``), else None."""
    return KVCache() if check_bool("use_cache", use_cache) and getattr(model, "supports_cache", False) else None


def _next_log_probs(
    model: EncoderDecoder, tgt: Tensor, memory: Tensor, src_mask: Tensor | None, cache: KVCache | None = None
) -> Tensor:
    """Log-probabilities of the token after the prefix ``tgt``. Shape: tgt (N, t) -> (N, V)."""
    if cache is None:
        states = model.decode(tgt, memory, src_mask=src_mask)  # the whole prefix again
    else:
        states = model.decode(tgt, memory, src_mask=src_mask, cache=cache)  # only the new position
    logits = model.output_projection(states[:, -1])
    return _scoring_precision(logits).log_softmax(dim=-1)


def _scoring_precision(logits: Tensor) -> Tensor:
    """Logits in float32 at least: half precision is widened, float64 stays float64 (its scores keep their digits)."""
    return logits.to(torch.promote_types(logits.dtype, torch.float32))


def greedy_decode(
    model: nn.Module,
    src: Tensor,
    *,
    bos_id: int,
    eos_id: int,
    max_new_tokens: int,
    src_mask: Tensor | None = None,
    pad_id: int = 0,
    use_cache: bool = True,
) -> Tensor:
    """Decode a batch by taking the most probable token at each step.

    Args:
        model: an encoder-decoder with ``encode``, ``decode`` and ``output_projection``
            (a :class:`transformer_lib.Transformer`).
        src: source ids.
        bos_id, eos_id: the start and end ids.
        max_new_tokens: most tokens to generate per sequence, ``<eos>`` included.
        src_mask: which source positions may be attended to, broadcastable to (B, 1, 1, S);
            None = all of them. A padded batch needs ``tl.padding_mask(src, pad_id)``.
        pad_id: written after a sequence's ``<eos>``.
        use_cache: reuse the past positions' keys and values (a :class:`KVCache`); False
            re-runs the decoder over the whole prefix at every step. Same tokens.

    Shape: src (B, S) -> (B, L) LongTensor with L <= max_new_tokens, no ``<bos>``.
    Paper: §3.1 (the decoder is auto-regressive). Book: ch-decoding.

    Examples:
        >>> import torch, transformer_lib as tl
        >>> model = tl.Transformer(tl.TransformerConfig.tiny())
        >>> out = tl.greedy_decode(model, torch.tensor([[4, 5, 6]]), bos_id=1, eos_id=2, max_new_tokens=5)
        >>> out.shape[0], out.shape[1] <= 5, out.dtype  # no <bos>; at most 5 tokens
        (1, True, torch.int64)
    """
    model = _encoder_decoder(model, src, max_new_tokens, pad_id)  # unwrapped; the arguments checked
    B = src.shape[0]
    with _evaluating(model):
        memory = model.encode(src, src_mask=src_mask)  # (B, S, D), computed once
        tgt = torch.full((B, 1), bos_id, dtype=torch.long, device=src.device)  # (B, 1): <bos>
        finished = torch.zeros(B, dtype=torch.bool, device=src.device)
        cache = _new_cache(model, use_cache)
        for _ in range(max_new_tokens):
            next_token = _next_log_probs(model, tgt, memory, src_mask, cache).argmax(dim=-1)  # (B,)
            next_token = next_token.masked_fill(finished, pad_id)
            tgt = torch.cat([tgt, next_token[:, None]], dim=1)
            finished |= next_token == eos_id
            if bool(finished.all()):
                break
    return tgt[:, 1:].clone()  # a normal tensor, usable by autograd (e.g. as training targets)


def gnmt_length_penalty(length: Tensor | int, alpha: float, *, dtype: torch.dtype | None = None) -> Tensor:
    """GNMT length penalty lp(Y) = (5 + |Y|)^alpha / (5 + 1)^alpha.

    Beam search ranks a hypothesis by log P(Y | X) / lp(Y); with alpha > 0 long
    hypotheses are penalised less for their many negative log-probabilities.
    alpha = 0 gives lp = 1 (plain log-probability). (Not the ``length_penalty`` argument
    of Hugging Face's ``generate``, which divides by |Y|^alpha.)

    Args:
        length: |Y|, the generated tokens counted with ``<eos>`` (an int or a tensor).
        alpha: the exponent, >= 0 (0.6 in the paper); :func:`beam_search`'s ``alpha``.
        dtype: the floating dtype of the result. None: a floating ``length``'s dtype, else
            ``torch.get_default_dtype()`` (as torch's factory functions). Beam search passes its
            scores' dtype.

    Shape: length (...) -> (...), on ``length``'s device.
    Paper: §6.1 (alpha = 0.6), citing Wu et al. (2016), Eq. 14. Book: ch-decoding.

    Examples:
        >>> import transformer_lib as tl
        >>> float(tl.gnmt_length_penalty(1, alpha=0.6))  # one token: no penalty
        1.0
        >>> round(float(tl.gnmt_length_penalty(7, alpha=0.5)), 4)  # sqrt(12 / 6)
        1.4142
    """
    length, alpha = torch.as_tensor(length), check_nonnegative("alpha", alpha)
    if dtype is not None and not (isinstance(dtype, torch.dtype) and dtype.is_floating_point):
        raise TypeError(f"dtype must be a floating torch.dtype or None, got {dtype!r}")
    if dtype is None:
        dtype = length.dtype if length.is_floating_point() else torch.get_default_dtype()
    return ((5.0 + length.to(dtype)) / 6.0) ** alpha


def sequence_log_prob(
    model: nn.Module,
    src: Tensor,
    output: Tensor,
    *,
    bos_id: int,
    eos_id: int,
    src_mask: Tensor | None = None,
    pad_id: int = 0,
) -> Tensor:
    """log P(output | src) summed over each output's tokens up to and including its ``<eos>``.

    ``output`` has the format of :func:`greedy_decode` (no ``<bos>``, ``pad_id``
    after ``<eos>``). Used to compare decoders by the score they maximise.
    ``src_mask`` as in :func:`greedy_decode` (None = no mask).

    Shape: src (B, S), output (B, L) -> (B,) float tensor in the model's precision
    (float32 at least: a float64 model's scores keep float64 digits).
    Book: ch-decoding (beam search against greedy decoding).

    Examples:
        >>> import torch, transformer_lib as tl
        >>> model = tl.Transformer(tl.TransformerConfig.tiny())
        >>> src = torch.tensor([[4, 5, 6]])
        >>> out = tl.greedy_decode(model, src, bos_id=1, eos_id=2, max_new_tokens=5)
        >>> score = tl.sequence_log_prob(model, src, out, bos_id=1, eos_id=2)
        >>> score.shape, bool(score <= 0)  # a log-probability
        (torch.Size([1]), True)
    """
    model = _encoder_decoder(model, src, max(output.shape[1], 1), pad_id)
    B = output.shape[0]
    tgt_in = torch.cat([torch.full((B, 1), bos_id, dtype=torch.long, device=src.device), output[:, :-1]], dim=1)
    ended_before = torch.cumsum((output == eos_id).long(), dim=1) - (output == eos_id).long()  # (B, L)
    counted = ended_before == 0  # tokens up to and including the first <eos>
    with _evaluating(model):
        memory = model.encode(src, src_mask=src_mask)
        logits = model.output_projection(model.decode(tgt_in, memory, src_mask=src_mask))  # (B, L, V), causal
        log_probs = _scoring_precision(logits).log_softmax(dim=-1).gather(-1, output[..., None]).squeeze(-1)  # (B, L)
    return (log_probs * counted).sum(dim=1)


def beam_search(
    model: nn.Module,
    src: Tensor,
    *,
    bos_id: int,
    eos_id: int,
    max_new_tokens: int,
    beam_size: int = 4,
    alpha: float = 0.6,
    src_mask: Tensor | None = None,
    pad_id: int = 0,
    use_cache: bool = True,
) -> Tensor:
    """Beam search with the GNMT length penalty, batched over the B sources.

    Each source keeps ``beam_size`` hypotheses. At every step each unfinished
    hypothesis is extended by every token; a finished one (ended by ``<eos>``)
    stays as it is. All candidates are ranked by log P / lp(|Y|), where |Y|
    counts the generated tokens (``<eos>`` included), and the best
    ``beam_size`` survive. The search stops when all of a batch's hypotheses
    have finished or after ``max_new_tokens`` tokens; the best-ranked one is returned.
    With ``beam_size=1`` this is exactly :func:`greedy_decode`: all candidates
    of one step have the same length, so the penalty does not change their order.

    Args:
        model, src, bos_id, eos_id, max_new_tokens, src_mask, pad_id, use_cache: as :func:`greedy_decode`
            (with the cache, each surviving hypothesis takes its parent's cached past).
        beam_size: hypotheses kept per source (4 in the paper).
        alpha: the exponent of :func:`gnmt_length_penalty` (0.6 in the paper; 0 = no penalty).

    Shape: src (B, S) -> (B, L) LongTensor, L <= max_new_tokens, the format of :func:`greedy_decode`.
    Paper: §6.1; Wu et al. (2016) §7. Book: ch-decoding.

    Examples:
        >>> import torch, transformer_lib as tl
        >>> model = tl.Transformer(tl.TransformerConfig.tiny())
        >>> src = torch.tensor([[4, 5, 6]])
        >>> one = tl.beam_search(model, src, bos_id=1, eos_id=2, max_new_tokens=5, beam_size=1)
        >>> torch.equal(one, tl.greedy_decode(model, src, bos_id=1, eos_id=2, max_new_tokens=5))  # a beam of one is greedy
        True
    """
    model = _encoder_decoder(model, src, max_new_tokens, pad_id)  # unwrapped; the arguments checked
    K = check_positive_int("beam_size", beam_size)
    alpha = check_nonnegative("alpha", alpha)
    B, device = src.shape[0], src.device
    with _evaluating(model):
        memory = model.encode(src, src_mask=src_mask)  # (B, S, D)
        memory = memory.repeat_interleave(K, dim=0)  # (B*K, S, D): one copy per hypothesis
        beam_src_mask = None if src_mask is None else _per_hypothesis(src_mask, B, K)
        tokens = torch.full((B, K, 1), bos_id, dtype=torch.long, device=device)  # (B, K, 1 + t)
        log_p = torch.full((B, K), float("-inf"), device=device)
        log_p[:, 0] = 0.0  # K identical start hypotheses: keep only one, or the beam fills with copies
        finished = torch.zeros(B, K, dtype=torch.bool, device=device)
        lengths = torch.zeros(B, K, dtype=torch.long, device=device)  # |Y| of each hypothesis
        cache = _new_cache(model, use_cache)
        for t in range(1, max_new_tokens + 1):
            step = _next_log_probs(model, tokens.view(B * K, t), memory, beam_src_mask, cache)  # (B*K, V)
            V = step.shape[-1]
            if t == 1 and K > V:
                raise ValueError(f"beam_size={K} is larger than the vocabulary ({V} tokens)")
            step = step.view(B, K, V)
            # a finished hypothesis has one continuation, pad_id, at no cost
            kept = torch.full_like(step, float("-inf"))
            kept[..., pad_id] = 0.0
            step = torch.where(finished[..., None], kept, step)
            candidates = log_p[..., None] + step  # (B, K, V)
            cand_len = torch.where(finished, lengths, torch.full_like(lengths, t))  # (B, K)
            ranked = candidates / gnmt_length_penalty(cand_len, alpha, dtype=candidates.dtype)[..., None]  # (B, K, V)
            best = ranked.view(B, K * V).topk(K, dim=-1).indices  # (B, K)
            parent, token = best // V, best % V
            log_p = candidates.view(B, K * V).gather(1, best)
            lengths = cand_len.gather(1, parent)
            was_finished = finished.gather(1, parent)
            finished = was_finished | (token == eos_id)
            history = tokens.gather(1, parent[..., None].expand(B, K, t))  # (B, K, t)
            tokens = torch.cat([history, token[..., None]], dim=-1)  # (B, K, t + 1)
            if cache is not None:  # hypothesis (b, k) continues parent (b, parent[b, k]): take its past
                cache.reorder((parent + K * torch.arange(B, device=device)[:, None]).flatten())
            if bool(finished.all()):
                break
        # hypotheses cut at max_new_tokens count their length so far
        score = log_p / gnmt_length_penalty(lengths, alpha, dtype=log_p.dtype)
        winner = score.argmax(dim=-1)  # (B,)
        out = tokens[torch.arange(B, device=device), winner, 1:]  # (B, t), drop <bos>
        longest = int(lengths.gather(1, winner[:, None]).max())
    return out[:, :longest].clone()  # a normal tensor, as greedy_decode's


def _per_hypothesis(src_mask: Tensor, B: int, K: int) -> Tensor:
    """A (B or 1, ...) mask repeated for the K hypotheses of each source: (B*K, ...)."""
    if src_mask.dim() < 4:
        return src_mask  # no batch axis: the same for every row
    return src_mask.expand(B, *src_mask.shape[1:]).repeat_interleave(K, dim=0)


def sample(
    lm: nn.Module,
    prompt: Tensor,
    *,
    max_new_tokens: int,
    eos_id: int | None = None,
    temperature: float = 1.0,
    top_k: int | None = None,
    generator: torch.Generator | None = None,
    pad_id: int = 0,
    use_cache: bool = True,
) -> Tensor:
    """Continue prompts with a decoder-only language model by sampling.

    At each step the next token is drawn from softmax(logits / temperature),
    restricted to the ``top_k`` most probable tokens if given. Lower
    temperatures sharpen the distribution (it tends to the argmax as the
    temperature tends to 0); ``top_k=1`` is greedy decoding.

    Args:
        lm: a :class:`transformer_lib.DecoderOnlyLM` (tokens (B, T) -> logits (B, T, V)).
        prompt: the (B, P) token ids to continue, all of length P (no padding).
        max_new_tokens: tokens to add. temperature: > 0. top_k: keep this many tokens, or None for all.
        eos_id: if given, a sequence that samples it stops; ``pad_id`` follows.
        generator: the torch.Generator to draw from (default: torch's global one); the draws
            are made on its device, so a CPU generator serves a model on any device.
        use_cache: reuse past keys and values (for an ``lm`` with ``supports_cache``); same tokens.

    Shape: prompt (B, P) -> (B, L) with L <= max_new_tokens: the generated tokens only, as
    every decoder here (``torch.cat([prompt, output], dim=1)`` is the whole sequence).
    Book: ch-variants (decoder-only models), ch-decoding (decoding).

    Examples:
        >>> import torch, transformer_lib as tl
        >>> lm = tl.DecoderOnlyLM(tl.TransformerConfig.tiny())
        >>> prompt = torch.tensor([[1, 4]])
        >>> out = tl.sample(lm, prompt, max_new_tokens=3, generator=torch.Generator().manual_seed(0))
        >>> out.shape  # the continuation only; torch.cat([prompt, out], dim=1) is the whole sequence
        torch.Size([1, 3])
    """
    lm = unwrap(lm)
    if not isinstance(lm, nn.Module):
        raise TypeError(f"lm must be an nn.Module (a DecoderOnlyLM), got {type(lm).__name__}")
    check_positive_int("max_new_tokens", max_new_tokens)
    check_positive("temperature", temperature)
    if top_k is not None:
        check_positive_int("top_k", top_k)
    config = getattr(lm, "config", None)
    check_tokens("prompt", prompt, config.tgt_vocab_size if config is not None else 2**62)
    if config is not None and prompt.shape[1] + max_new_tokens > config.max_len:
        raise ValueError(
            f"prompt length {prompt.shape[1]} + max_new_tokens={max_new_tokens} exceeds the model's "
            f"positional table (config.max_len={config.max_len})"
        )
    tokens = prompt
    finished = torch.zeros(prompt.shape[0], dtype=torch.bool, device=prompt.device)
    with _evaluating(lm):
        cache = _new_cache(lm, use_cache)
        for _ in range(max_new_tokens):
            logits = (lm(tokens) if cache is None else lm(tokens, cache=cache))[:, -1]
            logits = _scoring_precision(logits) / temperature  # (B, V)
            if top_k is not None and top_k < logits.shape[-1]:
                kth = logits.topk(top_k, dim=-1).values[:, -1:]  # (B, 1): the k-th largest logit
                logits = logits.masked_fill(logits < kth, float("-inf"))
            probs = logits.softmax(dim=-1)
            if generator is not None and generator.device != probs.device:  # draw where the generator lives
                probs = probs.to(generator.device)
            next_token = torch.multinomial(probs, 1, generator=generator).squeeze(1).to(tokens.device)  # (B,)
            next_token = next_token.masked_fill(finished, pad_id)
            tokens = torch.cat([tokens, next_token[:, None]], dim=1)
            if eos_id is not None:
                finished |= next_token == eos_id
                if bool(finished.all()):
                    break
    return tokens[:, prompt.shape[1] :].clone()  # the continuation; a normal tensor, as greedy_decode's


__all__ = ["beam_search", "gnmt_length_penalty", "greedy_decode", "sample", "sequence_log_prob"]
