"""What a Transformer costs: parameters, FLOPs, training compute, decoding, memory.

Conventions (those of ``torch.utils.flop_counter.FlopCounterMode``): a
multiply-add is 2 FLOPs and only matrix products are counted, so biases,
LayerNorm, softmax, ReLU and the embedding look-up cost nothing here. Sizes:
``D`` = d_model, ``F`` = d_ff, ``N`` layers per stack, ``V`` vocabulary,
``S`` source and ``T`` target positions, ``L`` generated tokens.

The FLOPs of one attention sub-layer come from
:func:`transformer_lib.derivations.multihead.attention_flops` (chapter 4) and
the parameter counts of the sub-layers from
:mod:`transformer_lib.derivations.feedforward` (chapter 7); this module adds
them up into layers and whole models. Every helper accepts Python ints (exact
results) or sympy symbols (formulas).

Paper: §3 and Table 3 (sizes), Table 1 (complexity per layer), §5.1-5.2 and
Table 2 (training cost). Kaplan et al. (2020), §2.1 (C = 6 N per token).
Book: chapter 13.
"""

from __future__ import annotations

import sympy as sp

from . import feedforward
from .core import Derivation, Step, matrix_gradient, pairing, register, symbol_matrix
from .multihead import attention_flops

Size = int | sp.Expr

#: Sustained single-precision TFLOPS per GPU that the paper assumes (§6.1, footnote 5).
PAPER_GPU_TFLOPS = {"K80": 2.8, "K40": 3.7, "M40": 6.0, "P100": 9.5}


def _size(name: str, value: object, minimum: int = 1) -> sp.Expr:
    """A size as a sympy expression; Python ints must be >= minimum."""
    if isinstance(value, bool) or not isinstance(value, (int, sp.Basic)):
        raise TypeError(f"{name} must be an int or a sympy expression, got {type(value).__name__} ({value!r})")
    if isinstance(value, int) and value < minimum:
        raise ValueError(f"{name} must be >= {minimum}, got {value}")
    return sp.sympify(value)


def _multiply_adds(product: sp.Matrix) -> int:
    """Multiply-adds in a symbolic matrix product: the terms of every entry, added up."""
    return sum(len(sp.Add.make_args(sp.expand(entry))) for entry in product)


def _positive_number(name: str, value: object) -> sp.Expr:
    """A positive real quantity (seconds, FLOPS) as an exact sympy number or expression."""
    if isinstance(value, bool) or not isinstance(value, (int, float, sp.Basic)):
        raise TypeError(f"{name} must be a number or a sympy expression, got {type(value).__name__} ({value!r})")
    if isinstance(value, (int, float)) and not value > 0:
        raise ValueError(f"{name} must be positive, got {value}")
    return sp.nsimplify(value) if isinstance(value, float) else sp.sympify(value)


# --------------------------------------------------------------------------
# Parameters
# --------------------------------------------------------------------------


def encoder_layer_parameters(d_model: Size, d_ff: Size) -> sp.Expr:
    """Self-attention 4(D^2 + D), feed-forward 2 D F + F + D, two LayerNorms 2 D each (chapter 7's count, checked sizes)."""
    return feedforward.encoder_layer_parameters(_size("d_model", d_model), _size("d_ff", d_ff))


def decoder_layer_parameters(d_model: Size, d_ff: Size) -> sp.Expr:
    """Self- and cross-attention 4(D^2 + D) each, feed-forward, three LayerNorms (chapter 7's count, checked sizes)."""
    return feedforward.decoder_layer_parameters(_size("d_model", d_model), _size("d_ff", d_ff))


def transformer_parameters(
    d_model: Size, d_ff: Size, n_encoder_layers: Size, n_decoder_layers: Size, vocab_size: Size
) -> sp.Expr:
    """Parameters of the paper's model: one shared V x D embedding, N encoder and N decoder layers.

    Post-LN, so no final LayerNorm; sinusoidal positions, so no position parameters.
    Equals ``tl.count_parameters(tl.Transformer(config))`` for such a config.
    """
    n_enc = _size("n_encoder_layers", n_encoder_layers, 0)
    n_dec = _size("n_decoder_layers", n_decoder_layers, 0)
    v = _size("vocab_size", vocab_size)
    return (
        v * _size("d_model", d_model)
        + n_enc * encoder_layer_parameters(d_model, d_ff)
        + n_dec * decoder_layer_parameters(d_model, d_ff)
    )


# --------------------------------------------------------------------------
# Forward FLOPs
# --------------------------------------------------------------------------


def _attention_matmul_flops(t_q: sp.Expr, t_k: sp.Expr, d: sp.Expr) -> dict[str, sp.Expr]:
    parts = attention_flops(t_q, t_k, d, 1)  # matrix-product FLOPs do not depend on the head count (chapter 4)
    return {"projections": parts["projections"], "attention": parts["scores"] + parts["weighted values"]}


def encoder_layer_flops(n: Size, d_model: Size, d_ff: Size) -> dict[str, sp.Expr]:
    """Forward matrix-product FLOPs of one encoder layer on one sequence of n positions, by part.

    ``"projections"`` 8 n D^2 (W^Q, W^K, W^V, W^O), ``"ffn"`` 4 n D F, ``"attention"``
    4 n^2 D (Q K^T and the weighted sum of values), ``"total"``.
    """
    n, d, f = _size("n", n), _size("d_model", d_model), _size("d_ff", d_ff)
    attn = _attention_matmul_flops(n, n, d)
    parts = {"projections": attn["projections"], "ffn": 4 * n * d * f, "attention": attn["attention"]}
    parts["total"] = sum(parts.values())
    return parts


def decoder_layer_flops(t: Size, s: Size, d_model: Size, d_ff: Size) -> dict[str, sp.Expr]:
    """Forward matrix-product FLOPs of one decoder layer: t target positions, s source positions.

    The causal mask saves nothing: the full t x t score matrix is computed.
    Parts: ``"projections"`` (self 8 t D^2; cross 4 t D^2 for W^Q, W^O on the
    target and 4 s D^2 for W^K, W^V on the memory), ``"ffn"`` 4 t D F,
    ``"attention"`` 4 t^2 D + 4 t s D, ``"total"``.
    """
    t, s, d, f = _size("t", t), _size("s", s), _size("d_model", d_model), _size("d_ff", d_ff)
    self_attn, cross_attn = _attention_matmul_flops(t, t, d), _attention_matmul_flops(t, s, d)
    parts = {
        "projections": self_attn["projections"] + cross_attn["projections"],
        "ffn": 4 * t * d * f,
        "attention": self_attn["attention"] + cross_attn["attention"],
    }
    parts["total"] = sum(parts.values())
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
) -> sp.Expr:
    """Forward matrix-product FLOPs of ``Transformer.forward`` on a batch: encoder, decoder, output projection.

    The output projection maps every target position to V logits (2 T D V); the
    embedding look-up is a table read and costs nothing.
    """
    n_enc = _size("n_encoder_layers", n_encoder_layers, 0)
    n_dec = _size("n_decoder_layers", n_decoder_layers, 0)
    b, v = _size("batch", batch), _size("vocab_size", vocab_size)
    s, t, d = _size("src_len", src_len), _size("tgt_len", tgt_len), _size("d_model", d_model)
    encoder = n_enc * encoder_layer_flops(s, d, d_ff)["total"]
    decoder = n_dec * decoder_layer_flops(t, s, d, d_ff)["total"]
    return b * (encoder + decoder + 2 * t * d * v)


def matmul_weights(d_model: Size, d_ff: Size, n_encoder_layers: Size, n_decoder_layers: Size, vocab_size: Size) -> sp.Expr:
    """Entries of every weight matrix used in a matrix product: the parameters without biases and LayerNorms.

    The tied V x D matrix counts once, as the output projection (its use as the
    embedding is a look-up). Forward FLOPs per (source, target) token pair are
    2 x this number plus the attention terms.
    """
    d, f = _size("d_model", d_model), _size("d_ff", d_ff)
    n_enc = _size("n_encoder_layers", n_encoder_layers, 0)
    n_dec = _size("n_decoder_layers", n_decoder_layers, 0)
    return n_enc * (4 * d**2 + 2 * d * f) + n_dec * (8 * d**2 + 2 * d * f) + _size("vocab_size", vocab_size) * d


def kaplan_training_flops(n_params: Size, tokens: Size) -> sp.Expr:
    """C = 6 N D: 2 N FLOPs per token forward, 4 N backward (Kaplan et al. 2020, §2.1)."""
    return 6 * _size("n_params", n_params) * _size("tokens", tokens)


def hardware_flops(seconds: object, n_gpus: object, flops_per_gpu: object) -> sp.Expr:
    """The paper's way of estimating training cost (§6.1): time x number of GPUs x sustained FLOPS per GPU."""
    return (
        _positive_number("seconds", seconds)
        * _positive_number("n_gpus", n_gpus)
        * _positive_number("flops_per_gpu", flops_per_gpu)
    )


# --------------------------------------------------------------------------
# Decoding
# --------------------------------------------------------------------------


def decoding_step_flops(
    t: Size, src_len: Size, d_model: Size, d_ff: Size, n_decoder_layers: Size, vocab_size: Size, cached: bool = False
) -> sp.Expr:
    """FLOPs of the decoding step that predicts token t from a prefix of t tokens (<bos> included).

    ``cached=False`` is :func:`transformer_lib.greedy_decode`: the decoder runs
    on all t positions again, cross-attention projects the memory (s positions)
    again, and only the last position goes through the output projection.
    ``cached=True`` is decoding with a key/value cache: one new position per
    layer (8 D^2 + 4 t D self-attention, 4 D^2 + 4 s D cross-attention,
    4 D F feed-forward); the memory's keys and values are projected once,
    outside the steps (:func:`greedy_decode_flops` adds them).
    """
    if not isinstance(cached, bool):
        raise TypeError(f"cached must be a bool, got {type(cached).__name__}")
    t, s = _size("t", t), _size("src_len", src_len)
    d, f = _size("d_model", d_model), _size("d_ff", d_ff)
    n_dec, v = _size("n_decoder_layers", n_decoder_layers, 0), _size("vocab_size", vocab_size)
    if cached:
        per_layer = 8 * d**2 + 4 * t * d + 4 * d**2 + 4 * s * d + 4 * d * f
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
) -> sp.Expr:
    """Total FLOPs of greedy decoding of ``out_len`` tokens: the encoder once plus every step.

    Step t = 1 .. L sees a prefix of t tokens. With ``cached=True`` the keys
    and values of the memory are projected once (4 s D^2 per decoder layer).
    """
    t = sp.Symbol("t", positive=True, integer=True)
    length = _size("out_len", out_len)
    s, d = _size("src_len", src_len), _size("d_model", d_model)
    n_enc, n_dec = _size("n_encoder_layers", n_encoder_layers, 0), _size("n_decoder_layers", n_decoder_layers, 0)
    encoder = n_enc * encoder_layer_flops(s, d, d_ff)["total"]
    memory_kv = n_dec * 4 * s * d**2 if cached else 0
    step = decoding_step_flops(t, s, d, d_ff, n_dec, vocab_size, cached)
    steps = sp.summation(sp.expand(step), (t, 1, length))
    return sp.expand(_size("batch", batch) * (encoder + memory_kv + steps))


def kv_cache_numbers(n_decoder_layers: Size, d_model: Size, tgt_len: Size, src_len: Size = 0) -> sp.Expr:
    """Numbers a key/value cache holds for one sequence: 2 N D per target position (self-attention
    keys and values) plus 2 N D per source position (cross-attention keys and values, computed once)."""
    n_dec, d = _size("n_decoder_layers", n_decoder_layers, 0), _size("d_model", d_model)
    return 2 * n_dec * d * (_size("tgt_len", tgt_len, 0) + _size("src_len", src_len, 0))


def attention_weight_bytes(batch: Size, n_heads: Size, t_q: Size, t_k: Size, bytes_per_number: Size = 4) -> sp.Expr:
    """Memory of one layer's attention weights, B H T_q T_k numbers (4 bytes each in float32)."""
    return (
        _size("batch", batch)
        * _size("n_heads", n_heads)
        * _size("t_q", t_q)
        * _size("t_k", t_k)
        * _size("bytes_per_number", bytes_per_number)
    )


# --------------------------------------------------------------------------
# Beyond O(n^2): windowed and linear attention
# --------------------------------------------------------------------------


def windowed_attention_flops(n: Size, radius: Size, d_k: Size, d_v: Size) -> sp.Expr:
    """Each query attends to the 2r + 1 keys around it (padded at the ends): 2 n (2r+1)(d_k + d_v)."""
    n, r = _size("n", n), _size("radius", radius, 0)
    return 2 * n * (2 * r + 1) * (_size("d_k", d_k) + _size("d_v", d_v))


def linear_attention_flops(n: Size, d_k: Size, d_v: Size) -> sp.Expr:
    """phi(Q) (phi(K)^T V) and the normaliser phi(Q) (phi(K)^T 1): 4 n d_k d_v + 2 n d_k.

    The sum phi(K)^T 1 is a reduction, not a matrix product, and is not counted.
    """
    n, dk, dv = _size("n", n), _size("d_k", d_k), _size("d_v", d_v)
    return 2 * n * dk * dv + 2 * n * dk * dv + 2 * n * dk


# --------------------------------------------------------------------------
# Derivations
# --------------------------------------------------------------------------


@register
def transformer_parameter_count() -> Derivation:
    """Parameters of the whole model from its parts; 12 N D^2 per stack of encoder layers, 28 N D^2 for both stacks."""
    d, f, n, v = sp.symbols("D F N V", positive=True, integer=True)
    enc, dec = encoder_layer_parameters(d, f), decoder_layer_parameters(d, f)
    non_embedding = sp.expand((n * enc + n * dec).subs(f, 4 * d))
    steps = [
        Step(
            "encoder layer: 4(D^2 + D) + (2 D F + F + D) + 2 (2 D) = 4 D^2 + 2 D F + 9 D + F",
            enc,
            4 * d**2 + 2 * d * f + 9 * d + f,
        ),
        Step(
            "decoder layer: 2 x 4(D^2 + D) + (2 D F + F + D) + 3 (2 D) = 8 D^2 + 2 D F + 15 D + F",
            dec,
            8 * d**2 + 2 * d * f + 15 * d + f,
        ),
        Step("base (D 512, F 2048, N 6, V 37000): 63 082 496", transformer_parameters(512, 2048, 6, 6, 37000), 63_082_496),
        Step("big (D 1024, F 4096, N 6, V 37000): 214 245 376", transformer_parameters(1024, 4096, 6, 6, 37000), 214_245_376),
        Step(
            "with F = 4 D, N encoder layers hold 12 N D^2 + 13 N D", sp.expand(n * enc.subs(f, 4 * d)), 12 * n * d**2 + 13 * n * d
        ),
        Step(
            "so N (12 D^2 + 13 D) / (12 N D^2) -> 1 as D grows: the 12 N D^2 rule",
            sp.limit(n * enc.subs(f, 4 * d) / (12 * n * d**2), d, sp.oo),
            1,
        ),
        Step("both stacks: 28 N D^2 + 32 N D, so 28 N D^2 for the encoder-decoder", non_embedding, 28 * n * d**2 + 32 * n * d),
        Step(
            "doubling D (F = 4 D) multiplies the layers' parameters by a factor that tends to 4",
            sp.limit(non_embedding.subs(d, 2 * d) / non_embedding, d, sp.oo),
            4,
        ),
        Step("... and the V x D embedding by exactly 2", (v * 2 * d) / (v * d), 2),
        Step(
            "base: the embedding V D holds 18 944 000 / 63 082 496 of the parameters (30.0 %)",
            (v * d / transformer_parameters(d, f, n, n, v)).subs({d: 512, f: 2048, n: 6, v: 37000}),
            sp.Rational(18_944_000, 63_082_496),
        ),
    ]
    return Derivation(
        name="transformer_parameter_count",
        statement="params = V D + N (4 D^2 + 2 D F + 9 D + F) + N (8 D^2 + 2 D F + 15 D + F); about 28 N D^2 + V D for F = 4 D",
        reference="Paper §3 and Table 3; Kaplan et al. (2020) §2.1; book chapter 13",
        steps=tuple(steps),
    )


@register
def transformer_flops_per_token() -> Derivation:
    """Forward FLOPs = 2 x (weights in matrix products) x tokens + attention; backward = 2 x forward."""
    d, f, n = sp.symbols("D F n", positive=True, integer=True)
    enc = encoder_layer_flops(n, d, f)
    dec = decoder_layer_flops(n, n, d, f)
    x, w, g = symbol_matrix("x", 2, 3), symbol_matrix("w", 3, 4), symbol_matrix("g", 2, 4)  # X (m x k), W (k x c), dL/dY (m x c)
    loss = pairing(g, x * w)
    enc_crossover = sp.solve(sp.Eq(enc["projections"] + enc["ffn"], enc["attention"]), n)
    dec_crossover = sp.solve(sp.Eq(dec["projections"] + dec["ffn"], dec["attention"]), n)
    steps = [
        Step("Y = X W with X 2 x 3, W 3 x 4: m k c = 24 multiply-adds (48 FLOPs)", _multiply_adds(x * w), 24),
        Step("backward: dL/dX = dY W^T", matrix_gradient(loss, x), g * w.T),
        Step("backward: dL/dW = X^T dY", matrix_gradient(loss, w), x.T * g),
        Step(
            "dY W^T and X^T dY take m k c multiply-adds each: backward = 2 x forward",
            _multiply_adds(g * w.T) + _multiply_adds(x.T * g),
            2 * 24,
        ),
        Step("so a training step costs 3 x forward: 2 + 4 = 6 FLOPs per weight per token", 2 + 2 * 2, 6),
        Step(
            "encoder layer on n positions: 2 n (4 D^2 + 2 D F) + 4 n^2 D = 2 x weights x n + attention",
            enc["total"],
            2 * n * (4 * d**2 + 2 * d * f) + 4 * n**2 * d,
        ),
        Step(
            "per token: 2 (4 D^2 + 2 D F) + 4 n D, growing linearly with the context n",
            sp.expand(enc["total"] / n),
            8 * d**2 + 4 * d * f + 4 * n * d,
        ),
        Step("the n^2 term of an encoder layer overtakes the rest at n = 2 D + F", enc_crossover[0], 2 * d + f),
        Step("base model (D 512, F 2048): at n = 3072", (2 * d + f).subs({d: 512, f: 2048}), 3072),
        Step("big model (D 1024, F 4096): at n = 6144", (2 * d + f).subs({d: 1024, f: 4096}), 6144),
        Step("a decoder layer (s = t = n) attends twice: crossover at n = 2 D + F / 2", dec_crossover[0], 2 * d + f / 2),
        Step(
            "base, n = 10 000: attention is 20 480 000 / 26 771 456 (76.5 %) of an encoder layer's FLOPs",
            (enc["attention"] / enc["total"]).subs({d: 512, f: 2048, n: 10_000}),
            sp.Rational(20_480_000, 26_771_456),
        ),
    ]
    return Derivation(
        name="transformer_flops_per_token",
        statement="forward FLOPs = 2 x weights x tokens + 4 n D per attention and token; backward = 2 x forward",
        reference="Paper Table 1 and §4; Kaplan et al. (2020) §2.1; book chapter 13",
        steps=tuple(steps),
    )


@register
def paper_training_cost() -> Derivation:
    """Table 2's training costs are GPU time x 8 x 9.5 TFLOPS (§5.2, §6.1), reproduced exactly."""
    p100 = sp.nsimplify(PAPER_GPU_TFLOPS["P100"]) * 10**12
    base = hardware_flops(12 * 3600, 8, p100)
    big = hardware_flops(sp.Rational(7, 2) * 24 * 3600, 8, p100)
    steps = [
        Step(
            "base: 12 h x 3600 s x 8 GPUs x 9.5e12 FLOPS = 3.2832e18 (the paper: 3.3e18)",
            base,
            sp.Rational(32832, 10**4) * 10**18,
        ),
        Step("big: 3.5 d x 86 400 s x 8 x 9.5e12 = 2.29824e19 (the paper: 2.3e19)", big, sp.Rational(229824, 10**5) * 10**19),
        Step(
            "base: 100 000 steps x 0.4 s = 40 000 s, 11.1 hours (the paper says 12)",
            sp.Integer(100_000) * sp.Rational(2, 5) / 3600,
            sp.Rational(100, 9),
        ),
        Step("big: 300 000 steps x 1.0 s = 3.47 days (the paper says 3.5)", sp.Integer(300_000) / 86_400, sp.Rational(125, 36)),
        Step(
            "base from the step count: 40 000 s x 8 x 9.5e12 = 3.04e18",
            hardware_flops(40_000, 8, p100),
            sp.Rational(304, 100) * 10**18,
        ),
        Step(
            "6 x weights x tokens, base: 6 x 62 984 192 x 25 000 pairs x 100 000 steps = 9.4476e17",
            kaplan_training_flops(matmul_weights(512, 2048, 6, 6, 37000), 25_000 * 100_000),
            sp.Rational(944762880, 10**9) * 10**18,
        ),
        Step(
            "6 x weights x tokens, big: 6 x 214 048 768 x 25 000 x 300 000 = 9.6322e18",
            kaplan_training_flops(matmul_weights(1024, 4096, 6, 6, 37000), 25_000 * 300_000),
            sp.Rational(9632194560, 10**9) * 10**18,
        ),
    ]
    return Derivation(
        name="paper_training_cost",
        statement="Table 2's 3.3e18 and 2.3e19 FLOPs are time x 8 P100 x 9.5 TFLOPS; the model's work is 29 % and 42 % of that",
        reference="Paper §5.1, §5.2, §6.1 (footnote 5) and Table 2; book chapter 13",
        steps=tuple(steps),
    )


@register
def decoding_cost() -> Derivation:
    """Uncached greedy decoding: quadratic in L for the projections, cubic for attention; a KV cache removes a factor L."""
    t, length, s, d, f, n, v = sp.symbols("t L S D F N V", positive=True, integer=True)
    uncached = greedy_decode_flops(s, length, d, f, n, n, v)
    cached = greedy_decode_flops(s, length, d, f, n, n, v, cached=True)
    position_wise = n * (12 * d**2 + 4 * d * f)  # per token: self 8D^2, cross W^Q and W^O 4D^2, FFN 4DF
    steps = [
        Step("sum_{t=1}^{L} t = L (L + 1) / 2", sp.summation(t, (t, 1, length)), length * (length + 1) / 2),
        Step(
            "sum_{t=1}^{L} t^2 = L (L + 1)(2 L + 1) / 6",
            sp.summation(t**2, (t, 1, length)),
            length * (length + 1) * (2 * length + 1) / 6,
        ),
        Step(
            "uncached: the L^3 term is N (4/3) D L^3, from self-attention over every prefix",
            sp.Poly(uncached, length).coeff_monomial(length**3),
            sp.Rational(4, 3) * n * d,
        ),
        Step(
            "uncached: the L^2 term is N (6 D^2 + 2 D F + 2 D + 2 S D) (re-projecting every prefix)",
            sp.Poly(uncached, length).coeff_monomial(length**2),
            n * (6 * d**2 + 2 * d * f + 2 * d + 2 * s * d),
        ),
        Step("cached: no L^3 term", sp.Poly(cached, length).coeff_monomial(length**3), 0),
        Step(
            "cached: the L^2 term is 2 N D (attention over the growing cache)",
            sp.Poly(cached, length).coeff_monomial(length**2),
            2 * n * d,
        ),
        Step(
            "the position-wise work alone: uncached / cached = (L + 1) / 2",
            (position_wise * length * (length + 1) / 2) / (position_wise * length),
            (length + 1) / 2,
        ),
        Step(
            "for long outputs uncached / cached grows like 2 L / 3",
            sp.limit(uncached / (cached * length), length, sp.oo),
            sp.Rational(2, 3),
        ),
        Step("KV cache: 2 N D numbers per generated token; base (N 6, D 512): 6144", kv_cache_numbers(6, 512, 1), 6144),
        Step("... 24 576 bytes in float32; big (D 1024): 49 152 bytes", 4 * kv_cache_numbers(6, 1024, 1), 49_152),
    ]
    return Derivation(
        name="decoding_cost",
        statement="greedy decoding without a cache costs O(L^2 D^2 + L^3 D); with a key/value cache O(L D^2 + L^2 D)",
        reference="Paper §3.1 (auto-regressive decoder); book chapter 13",
        steps=tuple(steps),
    )


@register
def linear_attention_identity() -> Derivation:
    """(A B^T) C = A (B^T C): the reordering behind linear attention, its normaliser, and its recurrent form."""
    n, dk, dv = 3, 2, 2
    a = sp.Matrix(n, dk, lambda i, j: sp.Symbol(f"a_{i}{j}", positive=True))  # phi(Q), entries > 0
    b = sp.Matrix(n, dk, lambda i, j: sp.Symbol(f"b_{i}{j}", positive=True))  # phi(K)
    c = sp.Matrix(n, dv, lambda i, j: sp.Symbol(f"c_{i}{j}", real=True))  # V
    ones = sp.ones(n, 1)
    kernel = a * b.T  # (n, n): the attention matrix linear attention never forms
    causal = sp.Matrix(n, n, lambda i, j: 1 if j <= i else 0)
    state = [sum((b[j, :].T * c[j, :] for j in range(i + 1)), sp.zeros(dk, dv)) for i in range(n)]  # S_i
    recurrent = sp.Matrix.vstack(*(a[i, :] * state[i] for i in range(n)))
    nn_, d_ = sp.symbols("n d", positive=True)
    steps = [
        Step("associativity: (phi(Q) phi(K)^T) V = phi(Q) (phi(K)^T V)", kernel * c, a * (b.T * c)),
        Step("the normaliser too: (phi(Q) phi(K)^T) 1 = phi(Q) (phi(K)^T 1)", kernel * ones, a * (b.T * ones)),
        Step(
            "causal form: row i of (M o phi(Q) phi(K)^T) V = phi(q_i)^T S_i with S_i = S_{i-1} + phi(k_i) v_i^T",
            causal.multiply_elementwise(kernel) * c,
            recurrent,
        ),
        Step(
            "cost: phi(K)^T V and phi(Q) (.) are 2 n d^2 each, against 4 n^2 d for (phi(Q) phi(K)^T) V",
            linear_attention_flops(nn_, d_, d_) - 2 * nn_ * d_,
            4 * nn_ * d_**2,
        ),
        Step("the linear form is cheaper exactly when n > d", sp.solve(sp.Eq(4 * nn_ * d_**2, 4 * nn_**2 * d_), nn_)[0], d_),
        Step(
            "a window of radius r: 4 n (2 r + 1) d, a fraction (2 r + 1) / n of dense attention",
            windowed_attention_flops(nn_, sp.Symbol("r", positive=True), d_, d_) / (4 * nn_**2 * d_),
            (2 * sp.Symbol("r", positive=True) + 1) / nn_,
        ),
    ]
    return Derivation(
        name="linear_attention_identity",
        statement="(phi(Q) phi(K)^T) V = phi(Q) (phi(K)^T V): O(n d^2) instead of O(n^2 d); causal: a state of constant size",
        reference="Katharopoulos et al. (2020) §3.2-3.4; paper Table 1 (restricted self-attention); book chapter 13",
        steps=tuple(steps),
    )
