"""transformer_lib: the Transformer of "Attention Is All You Need", written to be read.

The library behind the book *The Transformer, Executed*. Batch-first shapes
(B, T, D); one mask convention (boolean, True = may attend).

``import transformer_lib as tl`` is cheap: sympy (``tl.derivations``) and
matplotlib (``tl.plotting``) load on first use.
"""

from __future__ import annotations

import importlib
from typing import Any

from . import (
    bleu,
    checkpoint,
    claims,
    counting,
    data,
    decoding,
    graphs,
    interop,
    interop_hf,
    masks,
    rnn,
    stats,
    tasks,
    training,
    utils,
    variants,
)
from .attention import AdditiveAttention, KVCache, MultiHeadAttention, masked_softmax, scaled_dot_product_attention
from .checkpoint import load_checkpoint, save_checkpoint
from .config import TransformerConfig
from .data import Batch, Vocab, batch_by_tokens, collate, padding_fraction
from .decoding import beam_search, greedy_decode, length_penalty, sample, sequence_log_prob
from .graphs import graph_depth, graph_path_lengths, state_gradient_norms
from .layers import DecoderLayer, EncoderLayer, PositionwiseFeedForward
from .masks import (
    band_mask,
    causal_mask,
    decoder_mask,
    from_key_padding_mask,
    from_torch_attn_mask,
    padding_mask,
    to_additive,
    to_key_padding_mask,
    to_torch_attn_mask,
)
from .model import (
    Decoder,
    DecoderOnlyLM,
    Encoder,
    Transformer,
    capture_attention,
    count_parameters,
    set_attention_kernel,
)
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
    make_cell,
)
from .tasks import make_task
from .training import (
    LabelSmoothingLoss,
    TrainHistory,
    classification_loss,
    evaluate,
    lm_loss,
    masked_lm_loss,
    noam_lr,
    noam_scheduler,
    seq2seq_loss,
    train,
)
from .utils import (
    cpu_seconds,
    deterministic,
    dispatched_ops,
    format_table,
    glue,
    portable_numerics,
    rounded,
    set_seed,
)
from .variants import EncoderOnlyLM, PatchEmbedding, SpeechTransformer, VisionTransformer, log_spectrogram, mask_tokens

__version__ = "0.2.0"

_LAZY_SUBMODULES = ("derivations", "plotting", "worked_examples")


def __getattr__(name: str) -> Any:
    if name in _LAZY_SUBMODULES:
        return importlib.import_module(f".{name}", __name__)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "AdditiveAttention",
    "Batch",
    "Decoder",
    "DecoderLayer",
    "DecoderOnlyLM",
    "ElmanCell",
    "Encoder",
    "EncoderLayer",
    "EncoderOnlyLM",
    "GRUCell",
    "KVCache",
    "LSTMCell",
    "LabelSmoothingLoss",
    "LearnedPositionalEncoding",
    "MultiHeadAttention",
    "PatchEmbedding",
    "PositionwiseFeedForward",
    "RNNSeq2Seq",
    "RecurrentLayer",
    "SinusoidalPositionalEncoding",
    "SpeechTransformer",
    "TokenEmbedding",
    "TrainHistory",
    "Transformer",
    "TransformerConfig",
    "VisionTransformer",
    "Vocab",
    "band_mask",
    "batch_by_tokens",
    "beam_search",
    "bleu",
    "capture_attention",
    "causal_mask",
    "cell_parameter_count",
    "checkpoint",
    "claims",
    "classification_loss",
    "collate",
    "count_parameters",
    "counting",
    "cpu_seconds",
    "data",
    "decoder_mask",
    "decoding",
    "deterministic",
    "dispatched_ops",
    "evaluate",
    "format_table",
    "from_key_padding_mask",
    "from_torch_attn_mask",
    "glue",
    "graph_depth",
    "graph_path_lengths",
    "graphs",
    "greedy_decode",
    "interop",
    "interop_hf",
    "length_penalty",
    "lm_loss",
    "load_checkpoint",
    "log_spectrogram",
    "make_cell",
    "make_task",
    "mask_tokens",
    "masked_lm_loss",
    "masked_softmax",
    "masks",
    "noam_lr",
    "noam_scheduler",
    "padding_fraction",
    "padding_mask",
    "portable_numerics",
    "rnn",
    "rounded",
    "sample",
    "save_checkpoint",
    "scaled_dot_product_attention",
    "seq2seq_loss",
    "sequence_log_prob",
    "set_attention_kernel",
    "set_seed",
    "sinusoidal_table",
    "state_gradient_norms",
    "stats",
    "tasks",
    "to_additive",
    "to_key_padding_mask",
    "to_torch_attn_mask",
    "train",
    "training",
    "utils",
    "variants",
]
