"""The encoder and decoder stacks and the full models.

Paper: §3.1 (the stacks), §3.4 (embeddings and the output projection), Table 3.
Book: chapter 9.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from torch import Tensor, nn

from .attention import MultiHeadAttention
from .config import TransformerConfig
from .layers import DecoderLayer, EncoderLayer
from .masks import causal_mask
from .positional import LearnedPositionalEncoding, SinusoidalPositionalEncoding, TokenEmbedding


def unwrap(model: nn.Module) -> nn.Module:
    """The model inside a ``DistributedDataParallel`` wrapper (the model itself otherwise)."""
    return model.module if isinstance(model, nn.parallel.DistributedDataParallel) else model


def _check_config(config: object) -> TransformerConfig:
    if not isinstance(config, TransformerConfig):
        raise TypeError(f"config must be a TransformerConfig, got {type(config).__name__}")
    return config


def _final_norm(config: TransformerConfig) -> nn.LayerNorm | None:
    # Pre-LN stacks end un-normalised, so they need a last LayerNorm; Post-LN
    # stacks already end in one (the paper's model has no extra norm).
    return nn.LayerNorm(config.d_model, eps=config.layer_norm_eps) if config.norm_first else None


class Encoder(nn.Module):
    """N encoder layers (plus a final LayerNorm for Pre-LN).

    Shape: x (B, S, D) already embedded, mask broadcastable to (B, H, S, S) -> (B, S, D).
    Equal to ``nn.TransformerEncoder(layer, N, norm=None)`` for Post-LN (tested).
    """

    def __init__(self, config: TransformerConfig) -> None:
        super().__init__()
        config = _check_config(config)
        self.layers = nn.ModuleList(EncoderLayer.from_config(config) for _ in range(config.n_encoder_layers))
        self.norm = _final_norm(config)

    def forward(self, x: Tensor, mask: Tensor | None = None) -> Tensor:
        for layer in self.layers:
            x = layer(x, mask)
        return x if self.norm is None else self.norm(x)


class Decoder(nn.Module):
    """N decoder layers (plus a final LayerNorm for Pre-LN).

    Shape:
        x (B, T, D) already embedded, memory (B, S, D), tgt_mask broadcastable
        to (B, H, T, T), memory_mask broadcastable to (B, H, T, S) -> (B, T, D).

    ``tgt_mask=None`` means the causal mask: position i sees positions <= i.
    """

    def __init__(self, config: TransformerConfig) -> None:
        super().__init__()
        config = _check_config(config)
        self.layers = nn.ModuleList(DecoderLayer.from_config(config) for _ in range(config.n_decoder_layers))
        self.norm = _final_norm(config)

    def forward(
        self, x: Tensor, memory: Tensor, tgt_mask: Tensor | None = None, memory_mask: Tensor | None = None
    ) -> Tensor:
        if tgt_mask is None and x.dim() == 3:
            tgt_mask = causal_mask(x.shape[1], device=x.device)
        for layer in self.layers:
            x = layer(x, memory, tgt_mask, memory_mask)
        return x if self.norm is None else self.norm(x)


def _positional(config: TransformerConfig) -> nn.Module:
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

    def forward(self, x: Tensor) -> Tensor:
        if x.shape[1] > self.max_len:
            raise ValueError(f"x has {x.shape[1]} positions, more than max_len={self.max_len}")
        return self.dropout(x)


class Transformer(nn.Module):
    """The encoder-decoder Transformer of the paper.

    ``encode`` and ``decode`` are separate so decoders (``decoding.py``) can
    encode the source once and decode token by token.

    Shape:
        src (B, S) and tgt (B, T) integer ids; src_mask broadcastable to
        (B, H, 1, S) (a padding mask from ``masks.padding_mask``); tgt_mask
        broadcastable to (B, H, T, T), default causal -> logits (B, T, V).

    Paper: §3, Figure 1; §3.4 for the three-way weight sharing. Book: chapter 9.
    """

    def __init__(self, config: TransformerConfig) -> None:
        super().__init__()
        self.config = config = _check_config(config)
        scale = config.scale_embedding
        self.src_embed = TokenEmbedding(config.src_vocab_size, config.d_model, scale)
        self.tgt_embed = (
            self.src_embed
            if config.share_embeddings
            else TokenEmbedding(config.tgt_vocab_size, config.d_model, scale)
        )
        self.positional = _positional(config)
        self.encoder = Encoder(config)
        self.decoder = Decoder(config)
        self.output_projection = nn.Linear(config.d_model, config.tgt_vocab_size, bias=False)
        if config.share_embeddings:
            self.output_projection.weight = self.tgt_embed.weight  # one (V, D) matrix, three uses

    def encode(self, src: Tensor, src_mask: Tensor | None = None) -> Tensor:
        """Source ids (B, S) -> memory (B, S, D)."""
        return self.encoder(self.positional(self.src_embed(src)), src_mask)

    def decode(
        self, tgt: Tensor, memory: Tensor, src_mask: Tensor | None = None, tgt_mask: Tensor | None = None
    ) -> Tensor:
        """Target ids (B, T) and memory (B, S, D) -> decoder states (B, T, D)."""
        return self.decoder(self.positional(self.tgt_embed(tgt)), memory, tgt_mask, src_mask)

    def forward(
        self, src: Tensor, tgt: Tensor, src_mask: Tensor | None = None, tgt_mask: Tensor | None = None
    ) -> Tensor:
        memory = self.encode(src, src_mask)
        return self.output_projection(self.decode(tgt, memory, src_mask, tgt_mask))  # (B, T, V)


class DecoderOnlyLM(nn.Module):
    """A decoder-only language model (GPT-style): causal self-attention blocks only.

    Each block is an :class:`EncoderLayer` run with a causal mask; there is no
    cross-attention. Uses ``config.tgt_vocab_size`` and ``config.n_decoder_layers``.

    Shape: tokens (B, T) -> logits (B, T, V). ``mask=None`` means causal.
    Book: chapter 14.
    """

    def __init__(self, config: TransformerConfig) -> None:
        super().__init__()
        self.config = config = _check_config(config)
        self.embed = TokenEmbedding(config.tgt_vocab_size, config.d_model, config.scale_embedding)
        self.positional = _positional(config)
        self.layers = nn.ModuleList(EncoderLayer.from_config(config) for _ in range(config.n_decoder_layers))
        self.norm = _final_norm(config)
        self.output_projection = nn.Linear(config.d_model, config.tgt_vocab_size, bias=False)
        if config.share_embeddings:
            self.output_projection.weight = self.embed.weight

    def forward(self, tokens: Tensor, mask: Tensor | None = None) -> Tensor:
        x = self.positional(self.embed(tokens))
        if mask is None:
            mask = causal_mask(tokens.shape[1], device=tokens.device)
        for layer in self.layers:
            x = layer(x, mask)
        if self.norm is not None:
            x = self.norm(x)
        return self.output_projection(x)


def count_parameters(model: nn.Module, trainable_only: bool = False) -> int:
    """Number of distinct parameters; a tied matrix counts once."""
    if not isinstance(model, nn.Module):
        raise TypeError(f"model must be an nn.Module, got {type(model).__name__}")
    return sum(p.numel() for p in model.parameters() if p.requires_grad or not trainable_only)


@contextmanager
def capture_attention(model: nn.Module) -> Iterator[dict[str, Tensor]]:
    """Record the attention weights of every ``MultiHeadAttention`` in ``model``.

    Inside the ``with`` block each attention module computes its weights (the
    explicit path) and stores them, detached, under its module name, e.g.
    ``"encoder.layers.0.self_attn"``, shape (B, H, Tq, Tk). A module called
    several times keeps its last call. The hooks are removed on exit.

    Example::

        with tl.capture_attention(model) as maps:
            model(src, tgt)
        maps["decoder.layers.1.cross_attn"]
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
