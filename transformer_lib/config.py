"""Model hyperparameters as one frozen dataclass, with the paper's presets.

Paper: Vaswani et al. (2017), §3 and Table 3 (rows "base" and "big").
Book: ch-model (the whole model) and ch-training (training).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

from ._checks import check_bool, check_choice, check_fraction, check_nonnegative_int, check_positive, check_positive_int

ACTIVATIONS = ("relu", "gelu", "silu")  # the values TransformerConfig.activation accepts
POSITIONALS = ("sinusoidal", "learned", "none")  # the values TransformerConfig.positional accepts
_SHOWN_WHEN_SET = frozenset({"output_bias"})  # repr shows these fields only when they are not their default


@dataclass(frozen=True)
class TransformerConfig:
    """Every size and switch of an encoder-decoder Transformer.

    The defaults are the paper's base model on WMT 2014 English-German.
    Use the presets ``base()``, ``big()`` and ``tiny()``; pass keyword
    arguments to a preset to change single fields, for example
    ``TransformerConfig.tiny(src_vocab_size=20, tgt_vocab_size=20)``.

    Which model reads which vocabulary and depth: a stack that *reads* an input with
    every position seeing every other reads the encoder's fields; one that *generates*
    tokens left to right reads the decoder's. Every other field is read by every model.

    ====================  ==================  ==================  ==================
    model                 vocabulary          encoder depth       decoder depth
    ====================  ==================  ==================  ==================
    Transformer           src_ and tgt_       n_encoder_layers    n_decoder_layers
    EncoderOnlyLM         src_vocab_size      n_encoder_layers    (ignored)
    DecoderOnlyLM         tgt_vocab_size      (ignored)           n_decoder_layers
    VisionTransformer     (ignored: patches)  n_encoder_layers    (ignored)
    SpeechTransformer     tgt_vocab_size      n_encoder_layers    n_decoder_layers
    ====================  ==================  ==================  ==================

    ``DecoderOnlyLM``'s blocks are self-attention and FFN, the layout of an encoder layer,
    but it is the decoder (causal, generating) without the cross-attention it has no
    memory for; tests check that each model ignores the fields marked so.

    Examples:
        >>> config = tl.TransformerConfig.tiny(src_vocab_size=20, tgt_vocab_size=20)
        >>> config.d_model, config.n_heads, config.d_head
        (64, 4, 16)
        >>> config.replace(n_heads=3)
        Traceback (most recent call last):
            ...
        ValueError: d_model must be divisible by n_heads: got d_model=64, n_heads=3 (remainder 1)
    """

    src_vocab_size: int = 37000  # paper §5.1: shared source-target BPE vocabulary of ~37000 tokens
    tgt_vocab_size: int = 37000  # equal to src_vocab_size when embeddings are shared
    d_model: int = 512  # D: width of every residual stream, embedding and sub-layer output
    n_heads: int = 8  # H: attention heads; each has width d_model / n_heads (= d_k = d_v = 64)
    d_ff: int = 2048  # F: hidden width of the position-wise feed-forward network
    n_encoder_layers: int = 6  # N for the encoder stack
    n_decoder_layers: int = 6  # N for the decoder stack (also the depth of DecoderOnlyLM)
    dropout: float = 0.1  # P_drop: residual dropout on sub-layer outputs and on embeddings + positions
    attention_dropout: float = 0.0  # dropout on attention weights; the paper does not use it
    ffn_dropout: float = 0.0  # dropout on the FFN hidden layer; the paper does not use it
    activation: str = "relu"  # FFN non-linearity: "relu" (paper Eq. 2), "gelu" (erf form), "silu" (Marian's swish)
    norm_first: bool = False  # False: Post-LN, LayerNorm(x + Sublayer(x)), as in the paper
    layer_norm_eps: float = 1e-5  # epsilon of every LayerNorm (the torch.nn default)
    positional: str = "sinusoidal"  # "sinusoidal" (paper §3.5), "learned" (Table 3 row E) or "none"
    max_len: int = 1024  # longest sequence the positional table covers
    share_embeddings: bool = True  # tie source, target and output-projection weights (§3.4)
    scale_embedding: bool = True  # multiply embeddings by sqrt(d_model) (§3.4)
    bias: bool = True  # biases in attention projections and the FFN
    output_bias: bool = False  # a bias on the read-out, x W^T + b (Marian's final_logits_bias); the paper has none

    def __post_init__(self) -> None:
        for name in ("src_vocab_size", "tgt_vocab_size", "d_model", "n_heads", "d_ff", "max_len"):
            check_positive_int(name, getattr(self, name))
        for name in ("n_encoder_layers", "n_decoder_layers"):
            check_nonnegative_int(name, getattr(self, name))
        if self.d_model % self.n_heads != 0:
            raise ValueError(
                f"d_model must be divisible by n_heads: got d_model={self.d_model}, "
                f"n_heads={self.n_heads} (remainder {self.d_model % self.n_heads})"
            )
        for name in ("dropout", "attention_dropout", "ffn_dropout"):
            check_fraction(name, getattr(self, name))
        check_positive("layer_norm_eps", self.layer_norm_eps)
        for name in ("norm_first", "share_embeddings", "scale_embedding", "bias", "output_bias"):
            check_bool(name, getattr(self, name))
        check_choice("activation", self.activation, ACTIVATIONS)
        check_choice("positional", self.positional, POSITIONALS)
        if self.positional == "sinusoidal" and self.d_model % 2 != 0:
            raise ValueError(f"sinusoidal positions need an even d_model, got d_model={self.d_model}")
        if self.share_embeddings and self.src_vocab_size != self.tgt_vocab_size:
            raise ValueError(
                "share_embeddings=True needs one vocabulary: got "
                f"src_vocab_size={self.src_vocab_size}, tgt_vocab_size={self.tgt_vocab_size}"
            )

    def __repr__(self) -> str:
        # Fields added after the book's chapters were printed (those of _SHOWN_WHEN_SET) are shown only
        # when they differ from their default, so a config printed in a chapter reads as it did.
        shown = [
            f"{field.name}={getattr(self, field.name)!r}"
            for field in dataclasses.fields(self)
            if field.name not in _SHOWN_WHEN_SET or getattr(self, field.name) != field.default
        ]
        return f"{type(self).__name__}({', '.join(shown)})"

    @property
    def d_head(self) -> int:
        """Dh = d_k = d_v = d_model / n_heads (64 in the base model)."""
        return self.d_model // self.n_heads

    def replace(self, **changes: Any) -> TransformerConfig:
        """A copy with some fields changed (validated again)."""
        return dataclasses.replace(self, **changes)

    @classmethod
    def base(cls, **changes: Any) -> TransformerConfig:
        """The paper's base model (Table 3): D=512, H=8, F=2048, N=6, dropout 0.1; about 63M parameters."""
        return cls(**changes)

    @classmethod
    def big(cls, **changes: Any) -> TransformerConfig:
        """The paper's big model (Table 3): D=1024, H=16, F=4096, N=6, dropout 0.3; about 214M parameters."""
        values: dict[str, Any] = dict(d_model=1024, n_heads=16, d_ff=4096, dropout=0.3)
        values.update(changes)
        return cls(**values)

    @classmethod
    def tiny(cls, **changes: Any) -> TransformerConfig:
        """A small model for toy tasks on a laptop CPU: D=64, H=4, F=128, N=2, vocabulary 32."""
        values: dict[str, Any] = dict(
            src_vocab_size=32,
            tgt_vocab_size=32,
            d_model=64,
            n_heads=4,
            d_ff=128,
            n_encoder_layers=2,
            n_decoder_layers=2,
            dropout=0.1,
            max_len=128,
        )
        values.update(changes)
        return cls(**values)
