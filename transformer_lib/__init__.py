"""transformer_lib: the Transformer of "Attention Is All You Need", written to be read.

The library behind the book *The Transformer, Executed*. Batch-first shapes
(B, T, D); one mask convention (boolean, True = may attend).

What a reader reuses lives here: configuration, masks, attention, positions,
layers, models and their variants, recurrent baselines, data and tasks,
training, decoding, checkpoints, BLEU, parameter and FLOP counts, weight
exchange with ``torch.nn``, and the command line. The book's own apparatus
(its audits, derivations, statistics, figures and notebook helpers) is the
sibling package ``book_support``, which imports this one and is never
imported by it.
"""

from __future__ import annotations

from . import (
    bleu,
    checkpoint,
    counting,
    data,
    decoding,
    evaluation,
    interop,
    interop_hf,
    losses,
    masks,
    rnn,
    schedule,
    tasks,
    training,
    utils,
    variants,
)
from .attention import AdditiveAttention, KVCache, MultiHeadAttention, attend, masked_softmax
from .checkpoint import load_checkpoint, save_checkpoint
from .config import TransformerConfig
from .data import Batch, Vocab, batch_by_tokens, collate, padding_fraction
from .decoding import beam_search, gnmt_length_penalty, greedy_decode, sample, sequence_log_prob
from .evaluation import evaluate
from .layers import DecoderLayer, EncoderLayer, PositionwiseFeedForward
from .losses import (
    LabelSmoothingLoss,
    classification_loss,
    default_batch_loss,
    lm_loss,
    masked_lm_loss,
    seq2seq_loss,
)
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
    make_cell,
)
from .schedule import noam_lr, noam_scheduler
from .tasks import make_task
from .training import SeedRun, TrainHistory, train, train_seeds
from .utils import portable_numerics, set_seed
from .variants import (
    DecoderOnlyLM,
    EncoderOnlyLM,
    PatchEmbedding,
    SpeechTransformer,
    VisionTransformer,
    log_spectrogram,
    mask_tokens,
)

__version__ = "0.3.0"


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
    "SeedRun",
    "SinusoidalPositionalEncoding",
    "SpeechTransformer",
    "TokenEmbedding",
    "TrainHistory",
    "Transformer",
    "TransformerConfig",
    "VisionTransformer",
    "Vocab",
    "attend",
    "band_mask",
    "batch_by_tokens",
    "beam_search",
    "bleu",
    "capture_attention",
    "causal_mask",
    "checkpoint",
    "classification_loss",
    "collate",
    "count_parameters",
    "counting",
    "data",
    "decoder_mask",
    "decoding",
    "default_batch_loss",
    "evaluate",
    "evaluation",
    "from_key_padding_mask",
    "from_torch_attn_mask",
    "gnmt_length_penalty",
    "greedy_decode",
    "interop",
    "interop_hf",
    "lm_loss",
    "load_checkpoint",
    "log_spectrogram",
    "losses",
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
    "sample",
    "save_checkpoint",
    "schedule",
    "seq2seq_loss",
    "sequence_log_prob",
    "set_attention_kernel",
    "set_seed",
    "sinusoidal_table",
    "tasks",
    "to_additive",
    "to_key_padding_mask",
    "to_torch_attn_mask",
    "train",
    "train_seeds",
    "training",
    "utils",
    "variants",
]
