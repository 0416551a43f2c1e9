"""transformer_lib: the Transformer of "Attention Is All You Need", written to be read.

The library behind the book *The Transformer, Executed*. Batch-first shapes
(B, T, D); one mask convention (boolean, True = may attend).

``import transformer_lib as tl`` is cheap: sympy (``tl.derivations``) and
matplotlib (``tl.plotting``) load on first use.
"""

from __future__ import annotations

import importlib
from typing import Any

from .attention import AdditiveAttention, MultiHeadAttention, masked_softmax, scaled_dot_product_attention
from .config import TransformerConfig
from .layers import DecoderLayer, EncoderLayer, PositionwiseFeedForward
from .masks import (
    causal_mask,
    decoder_mask,
    from_key_padding_mask,
    from_torch_attn_mask,
    padding_mask,
    to_additive,
    to_key_padding_mask,
    to_torch_attn_mask,
)
from .model import Decoder, DecoderOnlyLM, Encoder, Transformer, capture_attention, count_parameters
from .positional import (
    LearnedPositionalEncoding,
    SinusoidalPositionalEncoding,
    TokenEmbedding,
    sinusoidal_table,
)
from .rnn import (
    ElmanCell,
    GRUCell,
    LSTMCell,
    RecurrentLayer,
    RNNSeq2Seq,
    cell_parameter_count,
    graph_depth,
    graph_path_lengths,
    make_cell,
    state_gradient_norms,
)
from .utils import deterministic, format_table, rounded, set_seed

from . import interop, masks, rnn, utils  # noqa: E402,I001  (light submodules, also as namespaces)

__version__ = "0.1.0"

_LAZY_SUBMODULES = ("derivations", "plotting")


def __getattr__(name: str) -> Any:
    if name in _LAZY_SUBMODULES:
        return importlib.import_module(f".{name}", __name__)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "AdditiveAttention",
    "Decoder",
    "DecoderLayer",
    "DecoderOnlyLM",
    "ElmanCell",
    "Encoder",
    "EncoderLayer",
    "GRUCell",
    "LSTMCell",
    "LearnedPositionalEncoding",
    "MultiHeadAttention",
    "PositionwiseFeedForward",
    "RNNSeq2Seq",
    "RecurrentLayer",
    "SinusoidalPositionalEncoding",
    "TokenEmbedding",
    "Transformer",
    "TransformerConfig",
    "capture_attention",
    "causal_mask",
    "cell_parameter_count",
    "count_parameters",
    "decoder_mask",
    "deterministic",
    "format_table",
    "from_key_padding_mask",
    "from_torch_attn_mask",
    "graph_depth",
    "graph_path_lengths",
    "interop",
    "make_cell",
    "masked_softmax",
    "masks",
    "padding_mask",
    "rnn",
    "rounded",
    "scaled_dot_product_attention",
    "set_seed",
    "sinusoidal_table",
    "state_gradient_norms",
    "to_additive",
    "to_key_padding_mask",
    "to_torch_attn_mask",
    "utils",
]
