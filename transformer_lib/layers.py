"""The feed-forward network and the encoder and decoder layers.

Each sub-layer (attention or FFN) is wrapped in a residual connection and a
LayerNorm. The paper puts the norm after the sum (Post-LN):

    x = LayerNorm(x + Dropout(Sublayer(x)))          # norm_first=False, paper §3.1

Later models put it before the sub-layer (Pre-LN):

    x = x + Dropout(Sublayer(LayerNorm(x)))          # norm_first=True

Attribute names follow ``torch.nn.TransformerEncoderLayer`` where they can
(``self_attn``, ``norm1`` ...), so weights copy across (see ``interop.py``).

Paper: §3.1 (Add & Norm), §3.3 (FFN, Eq. 2), §5.4 (residual dropout).
Book: ch-feedforward (FFN), ch-residual-norm (residuals and normalisation), ch-model.
"""

from __future__ import annotations

from typing import Any

from torch import Tensor, nn

from ._checks import check_bool, check_choice, check_fraction, check_positive, check_positive_int, check_tensor
from .attention import KVCache, MultiHeadAttention
from .config import TransformerConfig

_ACTIVATIONS = {"relu": nn.ReLU, "gelu": nn.GELU, "silu": nn.SiLU}  # nn.GELU is the exact (erf) form


class PositionwiseFeedForward(nn.Module):
    """FFN(x) = activation(x W_1 + b_1) W_2 + b_2, applied to every position alone.

    Args:
        d_model: D, input and output width. d_ff: F, hidden width (4 D in the paper).
        dropout: dropout on the hidden layer (the paper uses none; torch.nn does).
        activation: "relu" (the paper), "gelu" (the erf form, BERT's) or "silu" (x sigmoid(x),
            called swish in Marian's opus-mt models).
        bias: whether the two linear maps have biases b_1, b_2 (the paper's do).

    Shape: x (..., D) -> (..., D).
    Paper: §3.3, Eq. 2. Book: ch-feedforward.

    Examples:
        >>> ffn = tl.PositionwiseFeedForward(d_model=8, d_ff=32)
        >>> ffn(torch.randn(2, 5, 8)).shape
        torch.Size([2, 5, 8])
    """

    def __init__(self, d_model: int, d_ff: int, dropout: float = 0.0, activation: str = "relu", bias: bool = True) -> None:
        super().__init__()
        check_positive_int("d_model", d_model)
        check_positive_int("d_ff", d_ff)
        check_fraction("dropout", dropout)
        check_choice("activation", activation, tuple(_ACTIVATIONS))
        check_bool("bias", bias)
        self.d_model = d_model
        self.linear1 = nn.Linear(d_model, d_ff, bias=bias)  # W_1, b_1: expand D -> F
        self.activation = _ACTIVATIONS[activation]()
        self.dropout = nn.Dropout(dropout)
        self.linear2 = nn.Linear(d_ff, d_model, bias=bias)  # W_2, b_2: compress F -> D

    def forward(self, x: Tensor) -> Tensor:
        check_tensor("x", x, f"(..., D={self.d_model})", last_dim=self.d_model)
        return self.linear2(self.dropout(self.activation(self.linear1(x))))


def _check_layer_arguments(dropout: object, norm_first: object, layer_norm_eps: object) -> None:
    check_fraction("dropout", dropout)
    check_bool("norm_first", norm_first)
    check_positive("layer_norm_eps", layer_norm_eps)


def _layer_kwargs(config: TransformerConfig) -> dict[str, Any]:
    return dict(
        d_model=config.d_model,
        n_heads=config.n_heads,
        d_ff=config.d_ff,
        dropout=config.dropout,
        activation=config.activation,
        norm_first=config.norm_first,
        layer_norm_eps=config.layer_norm_eps,
        attention_dropout=config.attention_dropout,
        ffn_dropout=config.ffn_dropout,
        bias=config.bias,
    )


class EncoderLayer(nn.Module):
    """Self-attention then FFN, each with a residual connection and a LayerNorm.

    Args:
        d_model, n_heads, d_ff: D, H, F.
        dropout: residual dropout on each sub-layer's output (P_drop).
        activation: FFN non-linearity. norm_first: False = Post-LN (paper), True = Pre-LN.
        layer_norm_eps: LayerNorm epsilon.
        attention_dropout, ffn_dropout: dropout inside attention and FFN (0 in the paper).
        bias: biases in the projections.

    Forward: ``forward(x, *, mask=None, cache=None)``; ``mask`` (keyword-only) is the
    self-attention mask, broadcastable to (B, H, S, S); None = every position visible.
    With a :class:`~transformer_lib.attention.KVCache`, ``x`` holds only new positions
    and attends to the cached past too (a decoder-only LM decoding incrementally).

    Shape: x (B, S, D) -> (B, S, D).
    Paper: §3.1, "Encoder". Book: ch-residual-norm and ch-model.

    Examples:
        >>> layer = tl.EncoderLayer(d_model=8, n_heads=2, d_ff=32)
        >>> x = torch.randn(2, 5, 8)
        >>> layer(x, mask=tl.padding_mask(torch.tensor([[4, 5, 6, 0, 0], [4, 5, 6, 7, 8]]), 0)).shape
        torch.Size([2, 5, 8])
    """

    def __init__(
        self,
        d_model: int,
        n_heads: int,
        d_ff: int,
        dropout: float = 0.1,
        activation: str = "relu",
        norm_first: bool = False,
        layer_norm_eps: float = 1e-5,
        attention_dropout: float = 0.0,
        ffn_dropout: float = 0.0,
        bias: bool = True,
    ) -> None:
        super().__init__()
        _check_layer_arguments(dropout, norm_first, layer_norm_eps)
        self.norm_first = norm_first
        self.self_attn = MultiHeadAttention(d_model, n_heads, dropout=attention_dropout, bias=bias)
        self.ffn = PositionwiseFeedForward(d_model, d_ff, dropout=ffn_dropout, activation=activation, bias=bias)
        self.norm1 = nn.LayerNorm(d_model, eps=layer_norm_eps)
        self.norm2 = nn.LayerNorm(d_model, eps=layer_norm_eps)
        self.dropout1 = nn.Dropout(dropout)
        self.dropout2 = nn.Dropout(dropout)

    @classmethod
    def from_config(cls, config: TransformerConfig) -> EncoderLayer:
        return cls(**_layer_kwargs(config))

    def forward(self, x: Tensor, *, mask: Tensor | None = None, cache: KVCache | None = None) -> Tensor:
        if self.norm_first:  # Pre-LN
            x = x + self._self_attention(self.norm1(x), mask, cache)
            x = x + self.dropout2(self.ffn(self.norm2(x)))
        else:  # Post-LN, the paper's order
            x = self.norm1(x + self._self_attention(x, mask, cache))
            x = self.norm2(x + self.dropout2(self.ffn(x)))
        return x

    def _self_attention(self, x: Tensor, mask: Tensor | None, cache: KVCache | None) -> Tensor:
        if cache is not None:  # x holds only the new positions; the past keys/values are cached
            return self.dropout1(self.self_attn.incremental(x, x, cache, mask=mask))
        return self.dropout1(self.self_attn(x, x, x, mask=mask)[0])


class DecoderLayer(nn.Module):
    """Masked self-attention, cross-attention over the encoder output, then FFN.

    In cross-attention the queries come from the decoder and the keys and
    values from ``memory``, the encoder's output.

    Args: as :class:`EncoderLayer`.

    Forward: ``forward(x, memory, *, src_mask=None, tgt_mask=None, cache=None)``; masks are
    keyword-only; with a :class:`~transformer_lib.attention.KVCache`, ``x`` holds only new
    positions (see :meth:`MultiHeadAttention.incremental`).

    Shape:
        x (B, T, D), memory (B, S, D), src_mask (which memory positions may be
        attended to) broadcastable to (B, H, T, S), tgt_mask broadcastable to
        (B, H, T, T) -> (B, T, D). None = no mask.

    A single layer uses ``tgt_mask`` exactly as given (as ``nn.TransformerDecoderLayer``
    does): pass a causal mask (``masks.causal_mask`` or ``masks.decoder_mask``) for
    autoregressive training. :class:`~transformer_lib.model.Decoder` always adds the
    causal mask itself.

    Paper: §3.1, "Decoder". Book: ch-masking and ch-model.

    Examples:
        >>> layer = tl.DecoderLayer(d_model=8, n_heads=2, d_ff=32)
        >>> x, memory = torch.randn(2, 3, 8), torch.randn(2, 5, 8)
        >>> layer(x, memory, tgt_mask=tl.causal_mask(3)).shape
        torch.Size([2, 3, 8])
    """

    def __init__(
        self,
        d_model: int,
        n_heads: int,
        d_ff: int,
        dropout: float = 0.1,
        activation: str = "relu",
        norm_first: bool = False,
        layer_norm_eps: float = 1e-5,
        attention_dropout: float = 0.0,
        ffn_dropout: float = 0.0,
        bias: bool = True,
    ) -> None:
        super().__init__()
        _check_layer_arguments(dropout, norm_first, layer_norm_eps)
        self.norm_first = norm_first
        self.self_attn = MultiHeadAttention(d_model, n_heads, dropout=attention_dropout, bias=bias)
        self.cross_attn = MultiHeadAttention(d_model, n_heads, dropout=attention_dropout, bias=bias)
        self.ffn = PositionwiseFeedForward(d_model, d_ff, dropout=ffn_dropout, activation=activation, bias=bias)
        self.norm1 = nn.LayerNorm(d_model, eps=layer_norm_eps)
        self.norm2 = nn.LayerNorm(d_model, eps=layer_norm_eps)
        self.norm3 = nn.LayerNorm(d_model, eps=layer_norm_eps)
        self.dropout1 = nn.Dropout(dropout)
        self.dropout2 = nn.Dropout(dropout)
        self.dropout3 = nn.Dropout(dropout)

    @classmethod
    def from_config(cls, config: TransformerConfig) -> DecoderLayer:
        return cls(**_layer_kwargs(config))

    def forward(
        self,
        x: Tensor,
        memory: Tensor,
        *,
        src_mask: Tensor | None = None,
        tgt_mask: Tensor | None = None,
        cache: KVCache | None = None,
    ) -> Tensor:
        if self.norm_first:  # Pre-LN
            x = x + self._self_attention(self.norm1(x), tgt_mask, cache)
            x = x + self._cross_attention(self.norm2(x), memory, src_mask, cache)
            x = x + self.dropout3(self.ffn(self.norm3(x)))
        else:  # Post-LN, the paper's order
            x = self.norm1(x + self._self_attention(x, tgt_mask, cache))
            x = self.norm2(x + self._cross_attention(x, memory, src_mask, cache))
            x = self.norm3(x + self.dropout3(self.ffn(x)))
        return x

    def _self_attention(self, x: Tensor, mask: Tensor | None, cache: KVCache | None) -> Tensor:
        if cache is not None:  # x holds only the new positions; the past keys/values are cached
            return self.dropout1(self.self_attn.incremental(x, x, cache, mask=mask))
        return self.dropout1(self.self_attn(x, x, x, mask=mask)[0])

    def _cross_attention(self, x: Tensor, memory: Tensor, mask: Tensor | None, cache: KVCache | None) -> Tensor:
        if cache is not None:  # the memory's keys/values are computed once
            return self.dropout2(self.cross_attn.incremental(x, memory, cache, mask=mask, static=True))
        return self.dropout2(self.cross_attn(x, memory, memory, mask=mask)[0])
