"""Parameter, FLOP and memory counts of attention, Transformers and recurrent cells: one formula each.

No sympy is needed: every function is plain arithmetic, so Python ints give
exact Python ints, and sympy symbols (``sp.Symbol("n")``) give the formula as a
sympy expression. The derivations in :mod:`book_support.derivations` prove
these formulas, and the chapters that use them (ch-recurrence, ch-attention, ch-multihead,
ch-feedforward, ch-cost, ch-variants) compare them with
``torch.utils.flop_counter.FlopCounterMode`` and ``tl.count_parameters``.

Conventions (those of ``FlopCounterMode``): a multiply-add is 2 FLOPs and only
matrix products are counted, so biases, LayerNorm, softmax, ReLU and the
embedding look-up cost nothing here. Sizes: ``D`` = d_model, ``F`` = d_ff,
``N`` layers per stack, ``V`` vocabulary, ``S`` source and ``T`` target
positions, ``L`` generated tokens.

Paper: §3 and Table 3 (sizes), Table 1 (complexity per layer), §5.1-5.2 and
Table 2 (training cost). Kaplan et al. (2020), §2.1 (C = 6 N per token).
Bahdanau et al. (2015) §3.1 (additive attention).
"""

from __future__ import annotations

from numbers import Integral, Real
from typing import Any

__all__ = [
    "PAPER_GPU_TFLOPS",
    "RECURRENT_GATE_BLOCKS",
    "additive_attention_flops",
    "additive_elementwise_ops",
    "attention_flops",
    "attention_parameters",
    "attention_weight_bytes",
    "decoder_layer_flops",
    "decoder_layer_parameters",
    "decoding_step_flops",
    "dot_product_attention_flops",
    "encoder_layer_flops",
    "encoder_layer_parameters",
    "ffn_parameters",
    "greedy_decode_flops",
    "hardware_flops",
    "kaplan_training_flops",
    "kv_cache_numbers",
    "layer_norm_parameters",
    "linear_attention_flops",
    "matmul_weights",
    "recurrent_cell_parameters",
    "self_attention_flops",
    "transformer_forward_flops",
    "transformer_parameters",
    "windowed_attention_flops",
]

#: A size or count: a Python int (exact results) or a sympy expression (formulas). ``Any`` because
#: sympy ships no type information.
Size = Any

#: Sustained single-precision TFLOPS per GPU that the paper assumes (§6.1, footnote 5).
PAPER_GPU_TFLOPS = {"K80": 2.8, "K40": 3.7, "M40": 6.0, "P100": 9.5}

#: Weight blocks of each recurrent cell: Elman one (the candidate), GRU three (r, z, n), LSTM four (i, f, g, o).
RECURRENT_GATE_BLOCKS = {"elman": 1, "gru": 3, "lstm": 4}


def _is_symbolic(value: object) -> bool:
    return type(value).__module__.split(".")[0] == "sympy"


def _size(name: str, value: Size, minimum: int = 1) -> Size:
    """A size: a Python int >= minimum, or a sympy expression (kept as it is)."""
    if _is_symbolic(value):
        return value
    if isinstance(value, bool) or not isinstance(value, Integral):
        raise TypeError(f"{name} must be an int or a sympy expression, got {type(value).__name__} ({value!r})")
    if value < minimum:
        raise ValueError(f"{name} must be >= {minimum}, got {value}")
    return int(value)


def _positive_number(name: str, value: Size) -> Size:
    """A positive real quantity (seconds, FLOPS): an int, a float or a sympy expression."""
    if _is_symbolic(value):
        return value
    if isinstance(value, bool) or not isinstance(value, Real):
        raise TypeError(f"{name} must be a number or a sympy expression, got {type(value).__name__} ({value!r})")
    if not float(value) > 0:
        raise ValueError(f"{name} must be positive, got {value}")
    return value


def _divide_exactly(value: Size, divisor: int) -> Size:
    """value / divisor: floor division for ints (the callers divide exactly), true division for sympy."""
    return value // divisor if isinstance(value, int) else value / divisor


def _expanded(value: Size) -> Size:
    return value.expand() if _is_symbolic(value) else value


# --------------------------------------------------------------------------
# Parameters
# --------------------------------------------------------------------------


def ffn_parameters(d_model: Size, d_ff: Size) -> Size:
    """|W_1| + |b_1| + |W_2| + |b_2| = D F + F + F D + D (paper §3.3, Eq. 2).

    Examples:
        >>> tl.counting.ffn_parameters(512, 2048)  # the base model's FFN
        2099712
        >>> import sympy as sp
        >>> tl.counting.ffn_parameters(*sp.symbols("D F"))
        2*D*F + D + F
    """
    d, f = _size("d_model", d_model), _size("d_ff", d_ff)
    return d * f + f + f * d + d


def attention_parameters(d_model: Size) -> Size:
    """Four (D, D) projections W^Q, W^K, W^V, W^O, each with a bias of D: 4 (D^2 + D), for any head count.

    Examples:
        >>> tl.counting.attention_parameters(512) == tl.count_parameters(tl.MultiHeadAttention(512, 8))
        True
    """
    d = _size("d_model", d_model)
    return 4 * (d * d + d)


def layer_norm_parameters(d_model: Size) -> Size:
    """gamma and beta, D each.

    Examples:
        >>> tl.counting.layer_norm_parameters(512)
        1024
    """
    return 2 * _size("d_model", d_model)


def encoder_layer_parameters(d_model: Size, d_ff: Size) -> Size:
    """Self-attention, the FFN and two LayerNorms: 4 D^2 + 2 D F + 9 D + F.

    Examples:
        >>> tl.counting.encoder_layer_parameters(512, 2048)
        3152384
    """
    return attention_parameters(d_model) + ffn_parameters(d_model, d_ff) + 2 * layer_norm_parameters(d_model)


def decoder_layer_parameters(d_model: Size, d_ff: Size) -> Size:
    """Self- and cross-attention, the FFN and three LayerNorms: 8 D^2 + 2 D F + 15 D + F.

    Examples:
        >>> tl.counting.decoder_layer_parameters(512, 2048)
        4204032
    """
    return 2 * attention_parameters(d_model) + ffn_parameters(d_model, d_ff) + 3 * layer_norm_parameters(d_model)


def transformer_parameters(d_model: Size, d_ff: Size, n_encoder_layers: Size, n_decoder_layers: Size, vocab_size: Size) -> Size:
    """Parameters of the paper's model: one shared V x D embedding, N encoder and N decoder layers.

    Post-LN, so no final LayerNorm; sinusoidal positions, so no position parameters.
    Equals ``tl.count_parameters(tl.Transformer(config))`` for such a config.

    Examples:
        >>> tl.counting.transformer_parameters(512, 2048, 6, 6, 37000)  # the base model: about 63M (Table 3: 65M)
        63082496
        >>> model = tl.Transformer(tl.TransformerConfig.tiny())  # D=64, F=128, N=2, V=32
        >>> tl.counting.transformer_parameters(64, 128, 2, 2, 32) == tl.count_parameters(model)
        True
    """
    n_enc = _size("n_encoder_layers", n_encoder_layers, 0)
    n_dec = _size("n_decoder_layers", n_decoder_layers, 0)
    v = _size("vocab_size", vocab_size)
    return (
        v * _size("d_model", d_model)
        + n_enc * encoder_layer_parameters(d_model, d_ff)
        + n_dec * decoder_layer_parameters(d_model, d_ff)
    )


def recurrent_cell_parameters(input_size: Size, hidden_size: Size, cell: str) -> Size:
    """Parameters of one torch recurrent cell with its two bias vectors: blocks x H (I + H + 2).

    ``cell``: ``"elman"`` (nn.RNN, 1 block), ``"gru"`` (3) or ``"lstm"`` (4); each block has
    weight_ih (H, I), weight_hh (H, H), bias_ih and bias_hh (H). Book: ch-recurrence.

    Examples:
        >>> tl.counting.recurrent_cell_parameters(3, 4, "lstm"), tl.count_parameters(torch.nn.LSTMCell(3, 4))
        (144, 144)
    """
    if cell not in RECURRENT_GATE_BLOCKS:
        raise ValueError(f"cell must be one of {sorted(RECURRENT_GATE_BLOCKS)}, got {cell!r}")
    i, h = _size("input_size", input_size), _size("hidden_size", hidden_size)
    return RECURRENT_GATE_BLOCKS[cell] * (h * i + h * h + 2 * h)


# --------------------------------------------------------------------------
# Attention FLOPs: one formula for Q K^T and weights @ V
# --------------------------------------------------------------------------


def dot_product_attention_flops(t_q: Size, t_k: Size, d_k: Size, d_v: Size) -> Size:
    """Matrix-product FLOPs of softmax(Q K^T / sqrt(d_k)) V for one sequence: 2 t_q t_k d_k + 2 t_q t_k d_v.

    Q K^T: t_q t_k d_k multiply-adds; weights @ V: t_q t_k d_v multiply-adds.

    Examples:
        >>> tl.counting.dot_product_attention_flops(4, 6, 8, 8)  # 2 * 4 * 6 * 8 for Q K^T, as much for weights @ V
        768
    """
    return _dot_product_attention(_size("t_q", t_q), _size("t_k", t_k), _size("d_k", d_k), _size("d_v", d_v))


def _dot_product_attention(t_q: Size, t_k: Size, d_k: Size, d_v: Size) -> Size:
    return 2 * t_q * t_k * d_k + 2 * t_q * t_k * d_v  # the one formula: Q K^T, then weights @ V


def _attention_parts(t_q: Size, t_k: Size, d: Size, h: Size = 1) -> dict[str, Size]:
    core = _dot_product_attention(t_q, t_k, d, d)  # h heads of width D/h together
    return {
        "projections": 2 * (2 * t_q + 2 * t_k) * d * d,
        "scores": _divide_exactly(core, 2),
        "weighted values": _divide_exactly(core, 2),
        "score_entries": h * t_q * t_k,
    }


def attention_flops(t_q: Size, t_k: Size, d_model: Size, n_heads: Size = 1) -> dict[str, Size]:
    """Matrix-product FLOPs of one multi-head attention layer, by part (biases left out).

    ``"projections"``: W^Q and W^O on t_q rows, W^K and W^V on t_k rows, 2 D^2 each;
    ``"scores"`` and ``"weighted values"``: h heads of width D/h, i.e. 2 t_q t_k D each,
    whatever h is; ``"score_entries"``: h t_q t_k, the numbers the scale and the softmax act on.

    Examples:
        >>> tl.counting.attention_flops(4, 6, d_model=8, n_heads=2)
        {'projections': 2560, 'scores': 384, 'weighted values': 384, 'score_entries': 48}
    """
    t_q, t_k, d = _size("t_q", t_q), _size("t_k", t_k), _size("d_model", d_model)
    return _attention_parts(t_q, t_k, d, _size("n_heads", n_heads))


def self_attention_flops(n: Size, d: Size, output_projection: bool = False) -> Size:
    """Matrix-product FLOPs of single-head self-attention with d x d projections W_Q, W_K, W_V.

    Three projections of n rows (2 n d^2 each) plus the attention itself (4 n^2 d);
    with ``output_projection`` also W_O, as in ``MultiHeadAttention(d, 1)``.

    Examples:
        >>> tl.counting.self_attention_flops(10, 8), tl.counting.self_attention_flops(10, 8, output_projection=True)
        (7040, 8320)
        >>> import sympy as sp
        >>> tl.counting.self_attention_flops(*sp.symbols("n d"))
        6*d**2*n + 4*d*n**2
    """
    parts = attention_flops(n, n, d, 1)
    without_output = 0 if output_projection else 2 * _size("n", n) * _size("d", d) ** 2
    return parts["projections"] - without_output + parts["scores"] + parts["weighted values"]


def additive_attention_flops(t_q: Size, t_k: Size, d_q: Size, d_k: Size, hidden: Size, d_v: Size) -> Size:
    """Matrix-product FLOPs of additive attention w^T tanh(W_q q + W_k k), weights @ V.

    W_q on every query and W_k on every key (each once: Bahdanau et al. note
    that U_a h_j can be precomputed), then the scoring vector w on each of the
    t_q t_k hidden vectors, then weights @ V.

    Examples:
        >>> tl.counting.additive_attention_flops(1, 5, d_q=8, d_k=8, hidden=4, d_v=8)
        504
    """
    t_q, t_k, hidden = _size("t_q", t_q), _size("t_k", t_k), _size("hidden", hidden)
    projections = 2 * t_q * _size("d_q", d_q) * hidden + 2 * t_k * _size("d_k", d_k) * hidden
    return projections + dot_product_attention_flops(t_q, t_k, hidden, d_v)


def additive_elementwise_ops(t_q: Size, t_k: Size, hidden: Size) -> Size:
    """Element-wise operations additive attention adds on top: the broadcast sum and the tanh.

    Examples:
        >>> tl.counting.additive_elementwise_ops(1, 5, hidden=4)  # a sum and a tanh per hidden entry
        40
    """
    return 2 * _size("t_q", t_q) * _size("t_k", t_k) * _size("hidden", hidden)


def windowed_attention_flops(n: Size, radius: Size, d_k: Size, d_v: Size) -> Size:
    """Each query attends to the 2r + 1 keys around it (padded at the ends): 2 n (2r+1)(d_k + d_v).

    Examples:
        >>> tl.counting.windowed_attention_flops(10, radius=1, d_k=8, d_v=8)  # 3 keys per query
        960
    """
    return dot_product_attention_flops(n, 2 * _size("radius", radius, 0) + 1, d_k, d_v)


def linear_attention_flops(n: Size, d_k: Size, d_v: Size) -> Size:
    """phi(Q) (phi(K)^T V) and the normaliser phi(Q) (phi(K)^T 1): 4 n d_k d_v + 2 n d_k.

    The sum phi(K)^T 1 is a reduction, not a matrix product, and is not counted.

    Examples:
        >>> tl.counting.linear_attention_flops(10, 8, 8)
        2720
    """
    n, dk, dv = _size("n", n), _size("d_k", d_k), _size("d_v", d_v)
    return 2 * n * dk * dv + 2 * n * dk * dv + 2 * n * dk


# --------------------------------------------------------------------------
# Layers and whole models
# --------------------------------------------------------------------------


def encoder_layer_flops(n: Size, d_model: Size, d_ff: Size) -> dict[str, Size]:
    """Forward matrix-product FLOPs of one encoder layer on one sequence of n positions, by part.

    ``"projections"`` 8 n D^2 (W^Q, W^K, W^V, W^O), ``"ffn"`` 4 n D F, ``"attention"``
    4 n^2 D (Q K^T and the weighted sum of values), ``"total"``.

    Examples:
        >>> tl.counting.encoder_layer_flops(10, d_model=8, d_ff=32)
        {'projections': 5120, 'ffn': 10240, 'attention': 3200, 'total': 18560}
    """
    n, d, f = _size("n", n), _size("d_model", d_model), _size("d_ff", d_ff)
    attn = attention_flops(n, n, d)
    parts = {"projections": attn["projections"], "ffn": 4 * n * d * f, "attention": attn["scores"] + attn["weighted values"]}
    parts["total"] = parts["projections"] + parts["ffn"] + parts["attention"]
    return parts


def decoder_layer_flops(t: Size, s: Size, d_model: Size, d_ff: Size) -> dict[str, Size]:
    """Forward matrix-product FLOPs of one decoder layer: t target positions, s source positions.

    The causal mask saves nothing: the full t x t score matrix is computed.
    Parts: ``"projections"`` (self 8 t D^2; cross 4 t D^2 for W^Q, W^O on the
    target and 4 s D^2 for W^K, W^V on the memory), ``"ffn"`` 4 t D F,
    ``"attention"`` 4 t^2 D + 4 t s D, ``"total"``.

    Examples:
        >>> tl.counting.decoder_layer_flops(3, 10, d_model=8, d_ff=32)
        {'projections': 4864, 'ffn': 3072, 'attention': 1248, 'total': 9184}
    """
    return _decoder_parts(_size("t", t), _size("s", s), _size("d_model", d_model), _size("d_ff", d_ff))


def _decoder_parts(t: Size, s: Size, d: Size, f: Size) -> dict[str, Size]:
    self_attn, cross_attn = _attention_parts(t, t, d), _attention_parts(t, s, d)
    parts = {
        "projections": self_attn["projections"] + cross_attn["projections"],
        "ffn": 4 * t * d * f,
        "attention": sum(part[key] for part in (self_attn, cross_attn) for key in ("scores", "weighted values")),
    }
    parts["total"] = parts["projections"] + parts["ffn"] + parts["attention"]
    return parts


def transformer_forward_flops(
    src_len: Size,
    tgt_len: Size,
    d_model: Size,
    d_ff: Size,
    n_encoder_layers: Size,
    n_decoder_layers: Size,
    vocab_size: Size,
    batch: Size = 1,
) -> Size:
    """Forward matrix-product FLOPs of ``Transformer.forward`` on a batch: encoder, decoder, output projection.

    The output projection maps every target position to V logits (2 T D V); the
    embedding look-up is a table read and costs nothing.

    Examples:
        >>> tl.counting.transformer_forward_flops(10, 3, 8, 32, 1, 1, vocab_size=20)
        28704
    """
    n_enc = _size("n_encoder_layers", n_encoder_layers, 0)
    n_dec = _size("n_decoder_layers", n_decoder_layers, 0)
    b, v = _size("batch", batch), _size("vocab_size", vocab_size)
    s, t, d = _size("src_len", src_len), _size("tgt_len", tgt_len), _size("d_model", d_model)
    encoder = n_enc * encoder_layer_flops(s, d, d_ff)["total"]
    decoder = n_dec * decoder_layer_flops(t, s, d, d_ff)["total"]
    return b * (encoder + decoder + 2 * t * d * v)


def matmul_weights(d_model: Size, d_ff: Size, n_encoder_layers: Size, n_decoder_layers: Size, vocab_size: Size) -> Size:
    """Entries of every weight matrix used in a matrix product: the parameters without biases and LayerNorms.

    The tied V x D matrix counts once, as the output projection (its use as the
    embedding is a look-up). Forward FLOPs per (source, target) token pair are
    2 x this number plus the attention terms.

    Examples:
        >>> tl.counting.matmul_weights(512, 2048, 6, 6, 37000)  # the base model, without biases and LayerNorms
        62984192
    """
    d, f = _size("d_model", d_model), _size("d_ff", d_ff)
    n_enc = _size("n_encoder_layers", n_encoder_layers, 0)
    n_dec = _size("n_decoder_layers", n_decoder_layers, 0)
    return n_enc * (4 * d**2 + 2 * d * f) + n_dec * (8 * d**2 + 2 * d * f) + _size("vocab_size", vocab_size) * d


def kaplan_training_flops(n_params: Size, tokens: Size) -> Size:
    """C = 6 N D: 2 N FLOPs per token forward, 4 N backward (Kaplan et al. 2020, §2.1).

    Examples:
        >>> tl.counting.kaplan_training_flops(10**6, 10**3)  # 6 N D
        6000000000
    """
    return 6 * _size("n_params", n_params) * _size("tokens", tokens)


def hardware_flops(seconds: Size, n_gpus: Size, flops_per_gpu: Size) -> Size:
    """The paper's way of estimating training cost (§6.1): time x number of GPUs x sustained FLOPS per GPU.

    Examples:
        >>> f"{tl.counting.hardware_flops(3.5 * 86400, 8, 9.5e12):.1e}"  # the big model: 3.5 days on 8 P100 (Table 2)
        '2.3e+19'
    """
    return (
        _positive_number("seconds", seconds)
        * _positive_number("n_gpus", n_gpus)
        * _positive_number("flops_per_gpu", flops_per_gpu)
    )


# --------------------------------------------------------------------------
# Decoding and memory
# --------------------------------------------------------------------------


def decoding_step_flops(
    t: Size,
    src_len: Size,
    d_model: Size,
    d_ff: Size,
    n_decoder_layers: Size,
    vocab_size: Size,
    cached: bool = False,
) -> Size:
    """FLOPs of the decoding step that predicts token t from a prefix of t tokens (<bos> included).

    ``cached=False`` is :func:`transformer_lib.greedy_decode` without a cache: the
    decoder runs on all t positions again, cross-attention projects the memory
    (s positions) again, and only the last position goes through the output
    projection. ``cached=True`` is decoding with a key/value cache: one new
    position per layer (8 D^2 + 4 t D self-attention, 4 D^2 + 4 s D
    cross-attention, 4 D F feed-forward); the memory's keys and values are
    projected once, outside the steps (:func:`greedy_decode_flops` adds them).

    Examples:
        >>> c = tl.counting
        >>> c.decoding_step_flops(3, 10, 8, 32, 1, 20), c.decoding_step_flops(3, 10, 8, 32, 1, 20, cached=True)
        (9504, 2528)
    """
    if not isinstance(cached, bool):
        raise TypeError(f"cached must be a bool, got {type(cached).__name__}")
    t, s = _size("t", t), _size("src_len", src_len)
    d, f = _size("d_model", d_model), _size("d_ff", d_ff)
    n_dec, v = _size("n_decoder_layers", n_decoder_layers, 0), _size("vocab_size", vocab_size)
    if cached:  # one new query row per layer, against t cached keys and s memory keys
        self_attn, cross_attn = attention_flops(1, t, d), attention_flops(1, s, d)
        per_layer = (
            self_attn["projections"]
            - 4 * (t - 1) * d * d  # W^K, W^V on the new row only: the rest is cached
            + cross_attn["projections"]
            - 4 * s * d * d  # the memory's keys and values: projected once
            + sum(part[key] for part in (self_attn, cross_attn) for key in ("scores", "weighted values"))
            + 4 * d * f
        )
    else:
        per_layer = decoder_layer_flops(t, s, d, f)["total"]
    return n_dec * per_layer + 2 * d * v


def greedy_decode_flops(
    src_len: Size,
    out_len: Size,
    d_model: Size,
    d_ff: Size,
    n_encoder_layers: Size,
    n_decoder_layers: Size,
    vocab_size: Size,
    batch: Size = 1,
    cached: bool = False,
) -> Size:
    """Total FLOPs of greedy decoding of ``out_len`` tokens: the encoder once plus every step.

    Step t = 1 .. L sees a prefix of t tokens; a step's cost is a polynomial
    a + b t + c t^2 in t, so the sum over the steps is a L + b L (L + 1) / 2 +
    c L (L + 1)(2 L + 1) / 6. With ``cached=True`` the keys and values of the
    memory are projected once (4 s D^2 per decoder layer).

    Examples:
        >>> c = tl.counting
        >>> steps = sum(c.decoding_step_flops(t, 10, 8, 32, 1, 20) for t in (1, 2, 3))
        >>> c.greedy_decode_flops(10, 3, 8, 32, 1, 1, 20) == c.encoder_layer_flops(10, 8, 32)["total"] + steps
        True
    """
    length = _size("out_len", out_len)
    s, d = _size("src_len", src_len), _size("d_model", d_model)
    n_enc, n_dec = _size("n_encoder_layers", n_encoder_layers, 0), _size("n_decoder_layers", n_decoder_layers, 0)
    f, v = _size("d_ff", d_ff), _size("vocab_size", vocab_size)
    if not isinstance(cached, bool):
        raise TypeError(f"cached must be a bool, got {type(cached).__name__}")
    encoder = n_enc * encoder_layer_flops(s, d, f)["total"]
    memory_kv = n_dec * 4 * s * d**2 if cached else 0
    f1, f2, f3 = (decoding_step_flops(t, s, d, f, n_dec, v, cached) for t in (1, 2, 3))
    c = _divide_exactly(f3 - 2 * f2 + f1, 2)  # the step cost a + b t + c t^2, through t = 1, 2, 3
    b = f2 - f1 - 3 * c
    a = f1 - b - c
    steps = (
        a * length
        + b * _divide_exactly(length * (length + 1), 2)
        + c * _divide_exactly(length * (length + 1) * (2 * length + 1), 6)
    )
    return _expanded(_size("batch", batch) * (encoder + memory_kv + steps))


def kv_cache_numbers(n_decoder_layers: Size, d_model: Size, tgt_len: Size, src_len: Size = 0) -> Size:
    """Numbers a key/value cache holds for one sequence: 2 N D per target position (self-attention
    keys and values) plus 2 N D per source position (cross-attention keys and values, computed once).

    Examples:
        >>> tl.counting.kv_cache_numbers(6, 512, tgt_len=100, src_len=100)
        1228800
    """
    n_dec, d = _size("n_decoder_layers", n_decoder_layers, 0), _size("d_model", d_model)
    return 2 * n_dec * d * (_size("tgt_len", tgt_len, 0) + _size("src_len", src_len, 0))


def attention_weight_bytes(batch: Size, n_heads: Size, t_q: Size, t_k: Size, bytes_per_number: Size = 4) -> Size:
    """Memory of one layer's attention weights, B H T_q T_k numbers (4 bytes each in float32).

    Examples:
        >>> tl.counting.attention_weight_bytes(batch=1, n_heads=8, t_q=100, t_k=100)  # float32
        320000
    """
    return (
        _size("batch", batch)
        * _size("n_heads", n_heads)
        * _size("t_q", t_q)
        * _size("t_k", t_k)
        * _size("bytes_per_number", bytes_per_number)
    )
