"""What a Transformer costs: parameters, FLOPs, training compute, decoding, memory.

Conventions (those of ``torch.utils.flop_counter.FlopCounterMode``): a
multiply-add is 2 FLOPs and only matrix products are counted, so biases,
LayerNorm, softmax, ReLU and the embedding look-up cost nothing here. Sizes:
``D`` = d_model, ``F`` = d_ff, ``N`` layers per stack, ``V`` vocabulary,
``S`` source and ``T`` target positions, ``L`` generated tokens.

The formulas themselves live in :mod:`transformer_lib.counting` (one formula
each, no sympy needed); this module proves
what the chapter says about them. Every helper accepts Python ints (exact
results) or sympy symbols (formulas).

Paper: §3 and Table 3 (sizes), Table 1 (complexity per layer), §5.1-5.2 and
Table 2 (training cost). Kaplan et al. (2020), §2.1 (C = 6 N per token).
Book: ch-cost.
"""

from __future__ import annotations

import sympy as sp

from transformer_lib.counting import (
    PAPER_GPU_TFLOPS,
    decoder_layer_flops,
    decoder_layer_parameters,
    decoding_step_flops,
    dot_product_attention_flops,
    encoder_layer_flops,
    encoder_layer_parameters,
    greedy_decode_flops,
    hardware_flops,
    kaplan_training_flops,
    kv_cache_numbers,
    linear_attention_flops,
    matmul_weights,
    transformer_parameters,
)

from .core import Derivation, Step, matrix_gradient, multiply_adds, pairing, register, symbol_matrix

__all__ = [
    "decoding_cost",
    "linear_attention_identity",
    "paper_training_cost",
    "transformer_flops_per_token",
    "transformer_parameter_count",
]


# --------------------------------------------------------------------------
# Derivations
# --------------------------------------------------------------------------


@register
def transformer_parameter_count() -> Derivation:
    """Parameters of the whole model from its parts; 12 N D^2 per stack of encoder layers, 28 N D^2 for both stacks."""
    d, f, n, v = sp.symbols("D F N V", positive=True, integer=True)
    enc, dec = encoder_layer_parameters(d, f), decoder_layer_parameters(d, f)
    total = transformer_parameters(d, f, n, n, v)
    non_embedding = (n * enc + n * dec).subs(f, 4 * d)
    base, big = {d: 512, f: 2048, n: 6, v: 37000}, {d: 1024, f: 4096, n: 6, v: 37000}
    steps = [
        Step.value("base (D 512, F 2048, N 6, V 37000): 63 082 496", total, base, 63_082_496),
        Step.value("big (D 1024, F 4096, N 6, V 37000): 214 245 376", total, big, 214_245_376),
        Step.limit(
            "with F = 4 D, N encoder layers (12 N D^2 + 13 N D) / (12 N D^2) -> 1 as D grows: the 12 N D^2 rule",
            n * enc.subs(f, 4 * d) / (12 * n * d**2),
            d,
            sp.oo,
            1,
        ),
        Step.limit(
            "both stacks (28 N D^2 + 32 N D) / (28 N D^2) -> 1: 28 N D^2 for the encoder-decoder",
            non_embedding / (28 * n * d**2),
            d,
            sp.oo,
            1,
        ),
        Step.limit(
            "doubling D (F = 4 D) multiplies the layers' parameters by a factor that tends to 4 (the embedding by 2)",
            non_embedding.subs(d, 2 * d) / non_embedding,
            d,
            sp.oo,
            4,
        ),
        Step.value(
            "base: the embedding V D holds 18 944 000 / 63 082 496 of the parameters (30.0 %)",
            v * d / total,
            base,
            sp.Rational(18_944_000, 63_082_496),
        ),
    ]
    return Derivation(
        name="transformer_parameter_count",
        statement="params = V D + N (4 D^2 + 2 D F + 9 D + F) + N (8 D^2 + 2 D F + 15 D + F); about 28 N D^2 + V D for F = 4 D",
        reference="Paper §3 and Table 3; Kaplan et al. (2020) §2.1; book chapter 14",
        steps=tuple(steps),
    )


@register
def transformer_flops_per_token() -> Derivation:
    """Forward FLOPs = 2 x (weights in matrix products) x tokens + attention; backward = 2 x forward."""
    d, f, n = sp.symbols("D F n", positive=True, integer=True)
    rows, inner, cols = sp.symbols("m k c", positive=True, integer=True)
    enc = encoder_layer_flops(n, d, f)
    dec = decoder_layer_flops(n, n, d, f)
    x, w, g = symbol_matrix("x", 2, 3), symbol_matrix("w", 3, 4), symbol_matrix("g", 2, 4)  # X (m x k), W (k x c), dL/dY (m x c)
    sizes = {rows: 2, inner: 3, cols: 4}
    loss = pairing(g, x * w)
    enc_gap = enc["projections"] + enc["ffn"] - enc["attention"]
    dec_gap = dec["projections"] + dec["ffn"] - dec["attention"]
    enc_crossover, dec_crossover = sp.solve(enc_gap, n), sp.solve(dec_gap, n)
    base = {d: 512, f: 2048}
    steps = [
        Step.value(
            "Y = X W with X 2 x 3, W 3 x 4: the product written out has m k c = 24 multiply-adds",
            rows * inner * cols,
            sizes,
            multiply_adds(x * w),
        ),
        Step.computed(
            "backward: dL/dX = dY W^T",
            matrix_gradient(loss, x),
            g * w.T,
            variables=tuple(x),
            operand=loss,
            sizes="m = 2, k = 3, c = 4",
        ),
        Step.computed(
            "backward: dL/dW = X^T dY",
            matrix_gradient(loss, w),
            x.T * g,
            variables=tuple(w),
            operand=loss,
            sizes="m = 2, k = 3, c = 4",
        ),
        Step.value(
            "dY W^T and X^T dY take m k c multiply-adds each: backward = 2 x forward, so a training step is 3 x forward",
            2 * rows * inner * cols,
            sizes,
            multiply_adds(g * w.T) + multiply_adds(x.T * g),
        ),
        Step.identity(
            "encoder layer on n positions: 2 n (4 D^2 + 2 D F) + 4 n^2 D = 2 x weights x n + attention",
            enc["total"],
            2 * n * (4 * d**2 + 2 * d * f) + 4 * n**2 * d,
        ),
        Step.identity(
            "per token: 2 (4 D^2 + 2 D F) + 4 n D, growing linearly with the context n",
            enc["total"] / n,
            8 * d**2 + 4 * d * f + 4 * n * d,
        ),
        Step.computed(
            "the n^2 term of an encoder layer overtakes the rest at n = 2 D + F",
            sp.Matrix(enc_crossover),
            sp.Matrix([2 * d + f]),
            variables=(n,),
            operand=enc_gap,
        ),
        Step.value("base model (D 512, F 2048): at n = 3072", enc_crossover[0], base, 3072),
        Step.value("big model (D 1024, F 4096): at n = 6144", enc_crossover[0], {d: 1024, f: 4096}, 6144),
        Step.computed(
            "a decoder layer (s = t = n) attends twice: crossover at n = 2 D + F / 2",
            sp.Matrix(dec_crossover),
            sp.Matrix([2 * d + f / 2]),
            variables=(n,),
            operand=dec_gap,
        ),
        Step.value(
            "base, n = 10 000: attention is 20 480 000 / 26 771 456 (76.5 %) of an encoder layer's FLOPs",
            enc["attention"] / enc["total"],
            {**base, n: 10_000},
            sp.Rational(20_480_000, 26_771_456),
        ),
    ]
    return Derivation(
        name="transformer_flops_per_token",
        statement="forward FLOPs = 2 x weights x tokens + 4 n D per attention and token; backward = 2 x forward",
        reference="Paper Table 1 and §4; Kaplan et al. (2020) §2.1; book chapter 14",
        steps=tuple(steps),
    )


@register
def paper_training_cost() -> Derivation:
    """Table 2's training costs are GPU time x 8 x 9.5 TFLOPS (§5.2, §6.1), reproduced exactly."""
    seconds, gpus, rate = sp.symbols("t G R", positive=True)  # seconds, GPUs, sustained FLOPS per GPU
    n_steps, per_step = sp.symbols("n_steps t_step", positive=True)
    d, f, layers, v, tokens = sp.symbols("D F N V tokens", positive=True, integer=True)
    p100 = {gpus: 8, rate: sp.nsimplify(PAPER_GPU_TFLOPS["P100"]) * 10**12}
    cost = hardware_flops(seconds, gpus, rate)
    model_work = kaplan_training_flops(matmul_weights(d, f, layers, layers, v), tokens)
    steps = [
        Step.value(
            "base: 12 h x 3600 s x 8 GPUs x 9.5e12 FLOPS = 3.2832e18 (the paper: 3.3e18)",
            cost,
            {seconds: 12 * 3600, **p100},
            sp.Rational(32832, 10**4) * 10**18,
        ),
        Step.value(
            "big: 3.5 d x 86 400 s x 8 x 9.5e12 = 2.29824e19 (the paper: 2.3e19)",
            cost,
            {seconds: sp.Rational(7, 2) * 86_400, **p100},
            sp.Rational(229824, 10**5) * 10**19,
        ),
        Step.value(
            "base: 100 000 steps x 0.4 s = 40 000 s, 11.1 hours (the paper says 12)",
            n_steps * per_step / 3600,
            {n_steps: 100_000, per_step: sp.Rational(2, 5)},
            sp.Rational(100, 9),
        ),
        Step.value(
            "big: 300 000 steps x 1.0 s = 3.47 days (the paper says 3.5)",
            n_steps * per_step / 86_400,
            {n_steps: 300_000, per_step: 1},
            sp.Rational(125, 36),
        ),
        Step.value(
            "base from the step count: 40 000 s x 8 x 9.5e12 = 3.04e18",
            cost,
            {seconds: 40_000, **p100},
            sp.Rational(304, 100) * 10**18,
        ),
        Step.value(
            "6 x weights x tokens, base: 6 x 62 984 192 x 25 000 pairs x 100 000 steps = 9.4476e17",
            model_work,
            {d: 512, f: 2048, layers: 6, v: 37000, tokens: 25_000 * 100_000},
            sp.Rational(944762880, 10**9) * 10**18,
        ),
        Step.value(
            "6 x weights x tokens, big: 6 x 214 048 768 x 25 000 x 300 000 = 9.6322e18",
            model_work,
            {d: 1024, f: 4096, layers: 6, v: 37000, tokens: 25_000 * 300_000},
            sp.Rational(9632194560, 10**9) * 10**18,
        ),
    ]
    return Derivation(
        name="paper_training_cost",
        statement="Table 2's 3.3e18 and 2.3e19 FLOPs are time x 8 P100 x 9.5 TFLOPS; the model's work is 29 % and 42 % of that",
        reference="Paper §5.1, §5.2, §6.1 (footnote 5) and Table 2; book chapter 14",
        steps=tuple(steps),
    )


@register
def decoding_cost() -> Derivation:
    """Uncached greedy decoding: quadratic in L for the projections, cubic for attention; a KV cache removes a factor L."""
    t, length, s, d, f, n, v = sp.symbols("t L S D F N V", positive=True, integer=True)
    uncached = greedy_decode_flops(s, length, d, f, n, n, v)
    cached = greedy_decode_flops(s, length, d, f, n, n, v, cached=True)
    encoder = n * encoder_layer_flops(s, d, f)["total"]
    steps = [
        Step.computed(
            "sum_{t=1}^{L} t = L (L + 1) / 2",
            sp.summation(t, (t, 1, length)),
            length * (length + 1) / 2,
            variables=(t,),
            operand=t,
        ),
        Step.computed(
            "sum_{t=1}^{L} t^2 = L (L + 1)(2 L + 1) / 6",
            sp.summation(t**2, (t, 1, length)),
            length * (length + 1) * (2 * length + 1) / 6,
            variables=(t,),
            operand=t**2,
        ),
        *(
            Step.computed(
                f"{name}: the closed form of greedy_decode_flops = encoder{extra} + sum over the L steps of "
                "decoding_step_flops (sympy's summation)",
                total,
                encoder + memory + sp.summation(decoding_step_flops(t, s, d, f, n, v, cached=flag), (t, 1, length)),
                variables=(t,),
                operand=decoding_step_flops(t, s, d, f, n, v, cached=flag),
            )
            for name, total, flag, memory, extra in (
                ("uncached", uncached, False, 0, ""),
                ("cached", cached, True, 4 * n * s * d**2, " + the memory's keys and values once"),
            )
        ),
        Step.computed(
            "uncached: the L^3 term is N (4/3) D L^3, from self-attention over every prefix",
            sp.Poly(uncached, length).coeff_monomial(length**3),
            sp.Rational(4, 3) * n * d,
            variables=(length,),
            operand=uncached,
        ),
        Step.computed(
            "uncached: the L^2 term is N (6 D^2 + 2 D F + 2 D + 2 S D) (re-projecting every prefix)",
            sp.Poly(uncached, length).coeff_monomial(length**2),
            n * (6 * d**2 + 2 * d * f + 2 * d + 2 * s * d),
            variables=(length,),
            operand=uncached,
        ),
        Step.computed(
            "cached: no L^3 term", sp.Poly(cached, length).coeff_monomial(length**3), 0, variables=(length,), operand=cached
        ),
        Step.computed(
            "cached: the L^2 term is 2 N D (attention over the growing cache)",
            sp.Poly(cached, length).coeff_monomial(length**2),
            2 * n * d,
            variables=(length,),
            operand=cached,
        ),
        Step.limit(
            "for long outputs uncached / cached grows like 2 L / 3",
            uncached / (cached * length),
            length,
            sp.oo,
            sp.Rational(2, 3),
        ),
        Step.value(
            "KV cache: 2 N D numbers per generated token; base (N 6, D 512): 6144",
            kv_cache_numbers(n, d, t),
            {n: 6, d: 512, t: 1},
            6144,
        ),
        Step.value(
            "... 24 576 bytes in float32; big (D 1024): 49 152 bytes",
            4 * kv_cache_numbers(n, d, t),
            {n: 6, d: 1024, t: 1},
            49_152,
        ),
    ]
    return Derivation(
        name="decoding_cost",
        statement="greedy decoding without a cache costs O(L^2 D^2 + L^3 D); with a key/value cache O(L D^2 + L^2 D)",
        reference="Paper §3.1 (auto-regressive decoder); book chapter 14",
        steps=tuple(steps),
    )


@register
def linear_attention_identity() -> Derivation:
    """(A B^T) C = A (B^T C): the reordering behind linear attention, its normaliser, and its recurrent form."""
    n, dk, dv = 3, 2, 2
    a = symbol_matrix("a", n, dk, start=0, positive=True)  # phi(Q), entries > 0
    b = symbol_matrix("b", n, dk, start=0, positive=True)  # phi(K)
    c = symbol_matrix("c", n, dv, start=0)  # V
    ones = sp.ones(n, 1)
    kernel = a * b.T  # (n, n): the attention matrix linear attention never forms
    causal = sp.Matrix(n, n, lambda i, j: 1 if j <= i else 0)
    state = [sum((b[j, :].T * c[j, :] for j in range(i + 1)), sp.zeros(dk, dv)) for i in range(n)]  # S_i
    recurrent = sp.Matrix.vstack(*(a[i, :] * state[i] for i in range(n)))
    nn_, dk_, dv_ = sp.symbols("n d_k d_v", positive=True, integer=True)
    sizes = {nn_: n, dk_: dk, dv_: dv}
    # multiply-adds of each product, with fresh symbols for the intermediate results
    kv, kernel_free = symbol_matrix("s", dk, dv), symbol_matrix("m", n, n)
    linear_count = 2 * (multiply_adds(b.T * c) + multiply_adds(a * kv) + multiply_adds(a * symbol_matrix("z", dk, 1)))
    dense_count = 2 * (multiply_adds(a * b.T) + multiply_adds(kernel_free * c))
    d_ = sp.Symbol("d", positive=True)
    linear_d, dense_d = linear_attention_flops(nn_, d_, d_), dot_product_attention_flops(nn_, nn_, d_, d_)
    steps = [
        Step.for_sizes("associativity: (phi(Q) phi(K)^T) V = phi(Q) (phi(K)^T V)", kernel * c, a * (b.T * c), "n = 3, d = 2"),
        Step.for_sizes(
            "the normaliser too: (phi(Q) phi(K)^T) 1 = phi(Q) (phi(K)^T 1)", kernel * ones, a * (b.T * ones), "n = 3, d = 2"
        ),
        Step.for_sizes(
            "causal form: row i of (M o phi(Q) phi(K)^T) V = phi(q_i)^T S_i with S_i = S_{i-1} + phi(k_i) v_i^T",
            causal.multiply_elementwise(kernel) * c,
            recurrent,
            "n = 3, d = 2",
        ),
        Step.value(
            "cost: phi(K)^T V, phi(Q) (.) and the normaliser, counted term by term: 4 n d_k d_v + 2 n d_k",
            linear_attention_flops(nn_, dk_, dv_),
            sizes,
            linear_count,
        ),
        Step.value(
            "against (phi(Q) phi(K)^T) V, counted the same way: 2 n^2 d_k + 2 n^2 d_v",
            dot_product_attention_flops(nn_, nn_, dk_, dv_),
            sizes,
            dense_count,
        ),
        Step.computed(
            "with d_k = d_v = d the linear form is cheaper exactly when n > d + 1/2",
            sp.Matrix(sp.solve(sp.Eq(linear_d, dense_d), nn_)),
            sp.Matrix([d_ + sp.Rational(1, 2)]),
            variables=(nn_,),
            operand=linear_d - dense_d,
        ),
        Step.inequality(
            "and cheaper above it: dense - linear > 0 for n = d + 1/2 + e (e > 0)",
            (dense_d - linear_d).subs(nn_, d_ + sp.Rational(1, 2) + sp.Symbol("e", positive=True)),
            ">",
            0,
        ),
    ]
    return Derivation(
        name="linear_attention_identity",
        statement="(phi(Q) phi(K)^T) V = phi(Q) (phi(K)^T V): O(n d^2) instead of O(n^2 d); causal: a state of constant size",
        reference="Katharopoulos et al. (2020) §3.2-3.4; paper Table 1 (restricted self-attention); book chapter 14",
        steps=tuple(steps),
    )
