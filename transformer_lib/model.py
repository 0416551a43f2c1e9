"""The encoder and decoder stacks and the full models.

Paper: §3.1 (the stacks), §3.4 (embeddings and the output projection), Table 3.
Book: ch-model.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import torch
from torch import Tensor, nn

from ._checks import check_bool, check_choice, check_tensor
from .attention import KERNELS, KVCache, MultiHeadAttention
from .config import TransformerConfig
from .layers import DecoderLayer, EncoderLayer
from .masks import causal_mask
from .positional import LearnedPositionalEncoding, SinusoidalPositionalEncoding, TokenEmbedding, check_positions


def unwrap(model: nn.Module) -> nn.Module:
    """The model inside a ``DistributedDataParallel`` wrapper (the model itself otherwise).

    Examples:
        >>> model = torch.nn.Linear(2, 2)
        >>> tl.model.unwrap(model) is model  # no DistributedDataParallel around it
        True
    """
    return model.module if isinstance(model, nn.parallel.DistributedDataParallel) else model


def model_device(model: nn.Module) -> torch.device:
    """The device of ``model``'s first parameter (or buffer); the CPU for a model with neither.

    Where ``train`` and ``evaluate`` put the batches they make or are given.

    Examples:
        >>> tl.model.model_device(torch.nn.Linear(2, 2)), tl.model.model_device(torch.nn.ReLU())
        (device(type='cpu'), device(type='cpu'))
    """
    for tensor in (*model.parameters(), *model.buffers()):
        return tensor.device
    return torch.device("cpu")


def check_config(config: object) -> TransformerConfig:
    """``config`` itself if it is a :class:`TransformerConfig`, else a TypeError naming what was given.

    Examples:
        >>> tl.model.check_config("tiny")
        Traceback (most recent call last):
            ...
        TypeError: config must be a TransformerConfig, got str
    """
    if not isinstance(config, TransformerConfig):
        raise TypeError(f"config must be a TransformerConfig, got {type(config).__name__}")
    return config


def final_norm(config: TransformerConfig) -> nn.LayerNorm | None:
    """The LayerNorm a stack ends with: one for Pre-LN (``norm_first``), None for Post-LN.

    Pre-LN stacks end un-normalised, so they need a last LayerNorm; Post-LN
    stacks already end in one (the paper's model has no extra norm).

    Examples:
        >>> tl.model.final_norm(tl.TransformerConfig.tiny(norm_first=True))
        LayerNorm((64,), eps=1e-05, elementwise_affine=True, bias=True)
        >>> tl.model.final_norm(tl.TransformerConfig.tiny()) is None  # the paper's Post-LN
        True
    """
    return nn.LayerNorm(config.d_model, eps=config.layer_norm_eps) if config.norm_first else None


def with_causal(mask: Tensor | None, T: int, device: torch.device | None = None, past: int = 0) -> Tensor | None:
    """``mask`` AND the causal mask: position i sees positions <= i, and only where ``mask`` allows.

    ``past`` > 0 is for incremental decoding: the T queries are positions
    past ... past + T - 1 and the keys positions 0 ... past + T - 1. One new query
    (T = 1) after a past sees every key, so then the result is ``mask`` itself (None: no mask).

    Shape: mask None or broadcastable to (B, H, T, past + T) -> broadcastable to (B, H, T, past + T).

    Examples:
        >>> tl.model.with_causal(None, 3).int()
        tensor([[1, 0, 0],
                [1, 1, 0],
                [1, 1, 1]], dtype=torch.int32)
        >>> tl.model.with_causal(None, 2, past=1).int()  # queries 1, 2 over keys 0, 1, 2
        tensor([[1, 1, 0],
                [1, 1, 1]], dtype=torch.int32)
    """
    if past > 0 and T == 1:
        return mask  # the last position sees all earlier ones: the causal mask hides nothing
    if past == 0:
        causal = causal_mask(T, device=device)
    else:
        keys = torch.arange(past + T, device=device)
        causal = keys[None, :] <= torch.arange(past, past + T, device=device)[:, None]  # (T, past + T)
    return causal if mask is None else mask & causal


class Encoder(nn.Module):
    """N encoder layers (plus a final LayerNorm for Pre-LN).

    Forward: ``forward(x, *, src_mask=None)``; ``src_mask`` (keyword-only): which
    source positions may be attended to, broadcastable to (B, H, S, S), e.g.
    ``padding_mask(src, pad_id)``; None = every position.

    Shape: x (B, S, D) already embedded -> (B, S, D).
    Equal to ``nn.TransformerEncoder(layer, N, norm=None)`` for Post-LN (tested).

    Examples:
        >>> encoder = tl.Encoder(tl.TransformerConfig.tiny(n_encoder_layers=3))
        >>> len(encoder.layers), encoder(torch.randn(2, 5, 64)).shape
        (3, torch.Size([2, 5, 64]))
    """

    def __init__(self, config: TransformerConfig) -> None:
        super().__init__()
        config = check_config(config)
        self.layers = nn.ModuleList(EncoderLayer.from_config(config) for _ in range(config.n_encoder_layers))
        self.norm = final_norm(config)

    def forward(self, x: Tensor, *, src_mask: Tensor | None = None) -> Tensor:
        for layer in self.layers:
            x = layer(x, mask=src_mask)
        return x if self.norm is None else self.norm(x)


class Decoder(nn.Module):
    """N decoder layers (plus a final LayerNorm for Pre-LN); always causal unless told otherwise.

    Forward: ``forward(x, memory, *, src_mask=None, tgt_mask=None, causal=True)``, masks keyword-only.
        src_mask: which memory positions may be attended to (cross-attention),
            broadcastable to (B, H, T, S); None = all.
        tgt_mask: an extra self-attention mask (e.g. the target's padding),
            broadcastable to (B, H, T, T); it is ANDed with the causal mask, so a
            position never sees a later one. None = causal mask only.
        causal: ``False`` drops the causal mask (uses ``tgt_mask`` as given): only
            to show what goes wrong without it (ch-masking).
        cache: a :class:`~transformer_lib.attention.KVCache` for incremental decoding:
            ``x`` then holds only the positions after ``cache.length``, which attend to
            the cached keys and values of the earlier ones; the cache advances.

    Shape: x (B, T, D) already embedded, memory (B, S, D) -> (B, T, D).
    Paper: §3.1 ("masking ... ensures that the predictions for position i can
    depend only on the known outputs at positions less than i"). Book: ch-masking and ch-model.

    Examples:
        >>> decoder = tl.Decoder(tl.TransformerConfig.tiny())
        >>> x, memory = torch.randn(2, 3, 64), torch.randn(2, 5, 64)
        >>> decoder(x, memory).shape
        torch.Size([2, 3, 64])
    """

    def __init__(self, config: TransformerConfig) -> None:
        super().__init__()
        config = check_config(config)
        self.layers = nn.ModuleList(DecoderLayer.from_config(config) for _ in range(config.n_decoder_layers))
        self.norm = final_norm(config)

    def forward(
        self,
        x: Tensor,
        memory: Tensor,
        *,
        src_mask: Tensor | None = None,
        tgt_mask: Tensor | None = None,
        causal: bool = True,
        cache: KVCache | None = None,
    ) -> Tensor:
        past = 0 if cache is None else cache.length
        if check_bool("causal", causal):
            check_tensor("x", x, "(B, T, D)", rank=3)
            tgt_mask = with_causal(tgt_mask, x.shape[1], x.device, past)
        for layer in self.layers:
            x = layer(x, memory, src_mask=src_mask, tgt_mask=tgt_mask, cache=cache)
        if cache is not None:
            cache.length = past + x.shape[1]
        return x if self.norm is None else self.norm(x)


def positional_layer(config: TransformerConfig) -> nn.Module:
    """The position signal (plus embedding dropout) that ``config.positional`` names.

    "sinusoidal" (the paper, §3.5), "learned" (Table 3, row E) or "none" (dropout only).

    Examples:
        >>> type(tl.model.positional_layer(tl.TransformerConfig.tiny(positional="learned"))).__name__
        'LearnedPositionalEncoding'
    """
    if config.positional == "sinusoidal":
        return SinusoidalPositionalEncoding(config.d_model, config.max_len, config.dropout)
    if config.positional == "learned":
        return LearnedPositionalEncoding(config.d_model, config.max_len, config.dropout)
    return _DropoutOnly(config.dropout, config.max_len)


class _DropoutOnly(nn.Module):
    """``positional="none"``: no position signal, only the embedding dropout."""

    def __init__(self, dropout: float, max_len: int) -> None:
        super().__init__()
        self.dropout = nn.Dropout(dropout)
        self.max_len = max_len

    def forward(self, x: Tensor, *, offset: int = 0) -> Tensor:
        check_positions(x, x.shape[-1], self.max_len, offset)  # the same limits as the position tables
        return self.dropout(x)


def output_projection(d_model: int, vocab_size: int, tie_to: TokenEmbedding | None = None, bias: bool = False) -> nn.Linear:
    """The (D -> V) read-out; with ``tie_to`` its weight IS that embedding's (V, D) matrix.

    ``bias=True`` (``TransformerConfig.output_bias``) adds a bias of its own to the logits, started
    at 0; it is not tied (Marian's ``final_logits_bias``). The paper's read-out has none.

    Paper: §3.4 ("we share the same weight matrix between the two embedding layers
    and the pre-softmax linear transformation"). Book: ch-model.

    Examples:
        >>> embed = tl.TokenEmbedding(vocab_size=10, d_model=4)
        >>> read_out = tl.model.output_projection(4, 10, tie_to=embed)
        >>> read_out.weight is embed.weight, read_out.bias
        (True, None)
    """
    check_bool("bias", bias)
    projection = nn.Linear(d_model, vocab_size, bias=bias)
    if projection.bias is not None:
        nn.init.zeros_(projection.bias)
    if tie_to is not None:
        if tuple(tie_to.weight.shape) != (vocab_size, d_model):
            raise ValueError(f"tie_to must have a ({vocab_size}, {d_model}) weight to tie, got {tuple(tie_to.weight.shape)}")
        projection.weight = tie_to.weight  # one matrix, several uses
    return projection


class Transformer(nn.Module):
    """The encoder-decoder Transformer of the paper.

    ``encode`` and ``decode`` are separate so decoders (``decoding.py``) can
    encode the source once and decode token by token.

    Masks are keyword-only, one name per meaning:
        src_mask: which source positions may be attended to (encoder
            self-attention and decoder cross-attention), broadcastable to
            (B, H, 1, S), e.g. ``padding_mask(src, pad_id)``. None = no mask:
            padding is attended to like any token.
        tgt_mask: extra decoder self-attention mask, ANDed with the causal mask.
        causal: ``False`` drops the causal mask (to demonstrate a leak only).

    Shape: src (B, S) and tgt (B, T) integer ids -> logits (B, T, V).
    Paper: §3, Figure 1; §3.4 for the three-way weight sharing. Book: ch-model.

    Examples:
        >>> _ = torch.manual_seed(0)
        >>> model = tl.Transformer(tl.TransformerConfig.tiny())
        >>> src, tgt = torch.randint(4, 32, (2, 7)), torch.randint(4, 32, (2, 5))
        >>> model(src, tgt, src_mask=tl.padding_mask(src, pad_id=0)).shape
        torch.Size([2, 5, 32])
        >>> model.encode(src).shape  # memory, which decode() reads
        torch.Size([2, 7, 64])
    """

    def __init__(self, config: TransformerConfig) -> None:
        super().__init__()
        self.config = config = check_config(config)
        scale = config.scale_embedding
        self.src_embed = TokenEmbedding(config.src_vocab_size, config.d_model, scale)
        self.tgt_embed = (
            self.src_embed if config.share_embeddings else TokenEmbedding(config.tgt_vocab_size, config.d_model, scale)
        )
        self.positional = positional_layer(config)
        self.encoder = Encoder(config)
        self.decoder = Decoder(config)
        tied = self.tgt_embed if config.share_embeddings else None
        self.output_projection = output_projection(config.d_model, config.tgt_vocab_size, tied, config.output_bias)

    supports_cache = True  # decode() accepts a KVCache

    def encode(self, src: Tensor, *, src_mask: Tensor | None = None) -> Tensor:
        """Source ids (B, S) -> memory (B, S, D)."""
        return self.encoder(self.positional(self.src_embed(src)), src_mask=src_mask)

    def decode(
        self,
        tgt: Tensor,
        memory: Tensor,
        *,
        src_mask: Tensor | None = None,
        tgt_mask: Tensor | None = None,
        causal: bool = True,
        cache: KVCache | None = None,
    ) -> Tensor:
        """Target ids (B, T) and memory (B, S, D) -> decoder states (B, T, D).

        With ``cache`` (a :class:`~transformer_lib.attention.KVCache`), ``tgt`` is still the
        whole prefix, but only the positions from ``cache.length`` on are embedded, computed and
        returned: (B, T - cache.length, D); the others' keys and values come from the cache.
        """
        past = 0 if cache is None else cache.length
        x = self.positional(self.tgt_embed(tgt[:, past:]), offset=past)  # only the positions not seen yet
        return self.decoder(x, memory, src_mask=src_mask, tgt_mask=tgt_mask, causal=causal, cache=cache)

    def forward(
        self,
        src: Tensor,
        tgt: Tensor,
        *,
        src_mask: Tensor | None = None,
        tgt_mask: Tensor | None = None,
        causal: bool = True,
    ) -> Tensor:
        memory = self.encode(src, src_mask=src_mask)
        states = self.decode(tgt, memory, src_mask=src_mask, tgt_mask=tgt_mask, causal=causal)
        return self.output_projection(states)  # (B, T, V)


def set_attention_kernel(model: nn.Module, kernel: str) -> nn.Module:
    """Set the kernel ("fused" or "explicit") of every :class:`MultiHeadAttention` in ``model``; returns it.

    Book: ch-multihead and ch-ablations (the memory of the explicit and fused paths).

    Examples:
        >>> model = tl.set_attention_kernel(tl.Transformer(tl.TransformerConfig.tiny()), "explicit")
        >>> model.decoder.layers[1].cross_attn.kernel
        'explicit'
    """
    check_choice("kernel", kernel, KERNELS)
    for module in model.modules():
        if isinstance(module, MultiHeadAttention):
            module.kernel = kernel
    return model


def count_parameters(model: nn.Module, trainable_only: bool = False) -> int:
    """Number of distinct parameters; a tied matrix counts once.

    Examples:
        >>> tl.count_parameters(torch.nn.Linear(3, 2))  # 3 x 2 weights, 2 biases
        8
        >>> model = tl.Transformer(tl.TransformerConfig.tiny(n_encoder_layers=0, n_decoder_layers=0))
        >>> tl.count_parameters(model)  # one tied 32 x 64 matrix: embeddings and read-out
        2048
    """
    if not isinstance(model, nn.Module):
        raise TypeError(f"model must be an nn.Module, got {type(model).__name__}")
    return sum(p.numel() for p in model.parameters() if p.requires_grad or not trainable_only)


@contextmanager
def capture_attention(model: nn.Module) -> Iterator[dict[str, Tensor]]:
    """Record the attention weights of every ``MultiHeadAttention`` in ``model``.

    Inside the ``with`` block each attention module also computes its weights
    (beside its kernel, so the model's output is unchanged) and stores them, detached, under its module name, e.g.
    ``"encoder.layers.0.self_attn"``, shape (B, H, Tq, Tk). A module called
    several times keeps its last call. The hooks are removed on exit.

    Examples:
        >>> model = tl.Transformer(tl.TransformerConfig.tiny()).eval()
        >>> src, tgt = torch.randint(4, 32, (1, 6)), torch.randint(4, 32, (1, 3))
        >>> with tl.capture_attention(model) as maps:
        ...     logits = model(src, tgt)
        >>> maps["decoder.layers.1.cross_attn"].shape  # (B, H, T, S)
        torch.Size([1, 4, 3, 6])
    """
    maps: dict[str, Tensor] = {}
    handles = []
    for name, module in model.named_modules():
        if isinstance(module, MultiHeadAttention):

            def ask_for_weights(mod, args, kwargs):
                return args, {**kwargs, "need_weights": True}

            def store(mod, args, kwargs, output, name=name):
                maps[name] = output[1].detach()

            handles.append(module.register_forward_pre_hook(ask_for_weights, with_kwargs=True))
            handles.append(module.register_forward_hook(store, with_kwargs=True))
    try:
        yield maps
    finally:
        for handle in handles:
            handle.remove()
