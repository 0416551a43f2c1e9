"""The position-wise feed-forward network: parameters, independence of positions, 1x1 convolutions, GELU.

FFN(x) = max(0, x W_1 + b_1) W_2 + b_2 with W_1 (D, F), W_2 (F, D).

Paper: §3.3, Eq. 2 ("Another way of describing this is as two convolutions
with kernel size 1"). Book: ch-feedforward.
"""

from __future__ import annotations

import sympy as sp

from transformer_lib.counting import (
    decoder_layer_parameters,
    encoder_layer_parameters,
    ffn_parameters,
)

from .core import Derivation, Step, register, symbol_matrix

__all__ = [
    "conv1d",
    "ffn_as_convolution",
    "ffn_parameter_count",
    "ffn_position_wise",
    "gelu_properties",
    "symbolic_ffn",
]


def _relu(z: sp.Expr) -> sp.Expr:
    return sp.Max(0, z)


def symbolic_ffn(x: sp.Matrix, w1: sp.Matrix, b1: sp.Matrix, w2: sp.Matrix, b2: sp.Matrix) -> sp.Matrix:
    """Eq. 2 on the rows of X (T, D): max(0, X W_1 + 1 b_1^T) W_2 + 1 b_2^T, with sympy matrices.

    ``b1`` and ``b2`` are row vectors (1, F) and (1, D); ``1`` is the (T, 1) column of ones.
    """
    ones = sp.ones(x.rows, 1)
    hidden = (x * w1 + ones * b1).applyfunc(_relu)
    return hidden * w2 + ones * b2


def _symbolic_weights(d_model: int, d_ff: int) -> tuple[sp.Matrix, sp.Matrix, sp.Matrix, sp.Matrix]:
    w1, w2 = symbol_matrix("w1", d_model, d_ff, start=0), symbol_matrix("w2", d_ff, d_model, start=0)
    b1 = sp.Matrix(1, d_ff, lambda _, j: sp.Symbol(f"b1_{j}", real=True))
    b2 = sp.Matrix(1, d_model, lambda _, j: sp.Symbol(f"b2_{j}", real=True))
    return w1, b1, w2, b2


@register
def ffn_parameter_count() -> Derivation:
    """The FFN has 2 D F + D + F parameters; with F = 4 D it holds about 2/3 of an encoder layer."""
    d, f = sp.symbols("D F", positive=True, integer=True)
    ffn = ffn_parameters(d, f)
    ffn_4d = ffn.subs(f, 4 * d)
    encoder_layer = encoder_layer_parameters(d, 4 * d)
    decoder_layer = decoder_layer_parameters(d, 4 * d)
    steps = []
    for d_small, f_small in ((2, 3), (3, 5)):  # count the weight symbols of Eq. 2 written out in sympy
        x = symbol_matrix("x", 1, d_small)
        weights = symbolic_ffn(x, *_symbolic_weights(d_small, f_small)).free_symbols - set(x)
        steps.append(
            Step.value(
                f"D = {d_small}, F = {f_small}: FFN(x) written out has {len(weights)} distinct weights, D F + F + F D + D",
                ffn,
                {d: d_small, f: f_small},
                len(weights),
            )
        )
    steps += [
        Step.value("base model, D = 512, F = 2048: 2 099 712 per FFN", ffn, {d: 512, f: 2048}, 2_099_712),
        Step.value("big model, D = 1024, F = 4096: 8 393 728 per FFN", ffn, {d: 1024, f: 4096}, 8_393_728),
        Step.limit("FFN share of an encoder layer tends to 2/3 as D grows", ffn_4d / encoder_layer, d, sp.oo, sp.Rational(2, 3)),
        Step.limit("FFN share of a decoder layer tends to 1/2 as D grows", ffn_4d / decoder_layer, d, sp.oo, sp.Rational(1, 2)),
    ]
    return Derivation(
        name="ffn_parameter_count",
        statement="params(FFN) = 2 D F + D + F; with F = 4 D it is 2/3 of an encoder layer as D grows",
        reference="paper §3.3 and Table 3; book chapter 7",
        steps=tuple(steps),
    )


@register
def ffn_position_wise() -> Derivation:
    """Row i of FFN(X) depends on row i of X only, and permuting positions permutes the output."""
    n_positions, d_model, d_ff = 3, 2, 3
    x = sp.Matrix(n_positions, d_model, lambda i, j: sp.Symbol(f"x_{i}{j}", real=True))
    w1, b1, w2, b2 = _symbolic_weights(d_model, d_ff)
    y = symbolic_ffn(x, w1, b1, w2, b2)
    rows_alone = sp.Matrix.vstack(*(symbolic_ffn(x[i, :], w1, b1, w2, b2) for i in range(n_positions)))
    cross_blocks = [y[i, :].jacobian(x[j, :]) for i in range(n_positions) for j in range(n_positions) if i != j]
    cycle = sp.Matrix([[0, 1, 0], [0, 0, 1], [1, 0, 0]])  # a permutation of the three positions
    sizes = "T = 3, D = 2, F = 3"
    steps = [
        Step.computed(
            "FFN on the (T, D) matrix equals FFN on each row alone, stacked",
            y,
            rows_alone,
            variables=tuple(x),
            operand=x,
            sizes=sizes,
        ),
        Step.computed(
            "d FFN(X)_i / d x_j = 0 for every pair of positions i != j (the Jacobian is block-diagonal)",
            sp.Matrix.hstack(*cross_blocks),
            sp.zeros(d_model, d_model * len(cross_blocks)),  # six (D, D) blocks
            variables=tuple(x),
            operand=y,
            sizes=sizes,
        ),
        Step.computed(
            "FFN(Π X) = Π FFN(X) for a permutation Π of the positions",
            symbolic_ffn(cycle * x, w1, b1, w2, b2),
            cycle * y,
            variables=tuple(x),
            operand=x,
            sizes=sizes,
        ),
    ]
    return Derivation(
        name="ffn_position_wise",
        statement="FFN(X)_i = FFN(x_i): no information moves between positions; FFN commutes with permutations",
        reference="paper §3.3 ('applied to each position separately and identically'); book chapter 7",
        steps=tuple(steps),
    )


def conv1d(kernel: list[sp.Matrix], bias: sp.Matrix, x_channels_first: sp.Matrix) -> sp.Matrix:
    """A 1-d convolution without padding: y[o, t] = b[o] + sum_k sum_c kernel[k][o, c] x[c, t + k].

    ``kernel`` holds one (O, C) matrix per tap; kernel size 1 is ``[weight]``.
    Shape: x (C, T) -> y (O, T - len(kernel) + 1), channels first as in ``nn.Conv1d``.
    """
    width = len(kernel)
    n_out = kernel[0].rows
    length = x_channels_first.cols - width + 1
    return sp.Matrix(
        n_out,
        length,
        lambda o, t: bias[o] + sum(kernel[k][o, :].dot(x_channels_first[:, t + k]) for k in range(width)),
    )


@register
def ffn_as_convolution() -> Derivation:
    """A linear layer on every position equals a convolution of kernel size 1 over positions."""
    n_in, n_out, length = 3, 2, 4
    weight = sp.Matrix(n_out, n_in, lambda o, c: sp.Symbol(f"w_{o}{c}", real=True))  # torch layout (out, in)
    bias = sp.Matrix(n_out, 1, lambda o, _: sp.Symbol(f"b_{o}", real=True))
    x = sp.Matrix(length, n_in, lambda t, c: sp.Symbol(f"x_{t}{c}", real=True))  # batch-first (T, C)
    linear = x * weight.T + sp.ones(length, 1) * bias.T  # nn.Linear on each row: (T, O)
    conv = conv1d([weight], bias, x.T)  # nn.Conv1d with kernel size 1 on (C, T): (O, T)
    second_tap = sp.Matrix(n_out, n_in, lambda o, c: sp.Symbol(f"v_{o}{c}", real=True))
    wide = conv1d([weight, second_tap], bias, x.T)  # kernel size 2
    sizes = "C = 3, O = 2, T = 4"
    steps = [
        Step.computed(
            "Conv1d(kernel 1) on X^T, transposed back, equals the linear layer X W^T + b",
            conv.T,
            linear,
            variables=tuple(x),
            operand=x,
            sizes=sizes,
        ),
        Step.computed(
            "with kernel size 2 the output at t depends on x_{t+1} (so kernel size 1 is what makes it position-wise)",
            wide[0, 0].diff(x[1, 0]),
            second_tap[0, 0],
            variables=(x[1, 0],),
            operand=wide[0, 0],
            sizes=sizes,
        ),
    ]
    return Derivation(
        name="ffn_as_convolution",
        statement="Linear(D -> F) applied at every position == Conv1d(D, F, kernel_size=1)",
        reference="paper §3.3; book chapter 7",
        steps=tuple(steps),
    )


@register
def gelu_properties() -> Derivation:
    """GELU(x) = x Phi(x): its derivative, its limits, and the odd part it shares with ReLU."""
    x = sp.Symbol("x", real=True)
    phi = sp.exp(-(x**2) / 2) / sp.sqrt(2 * sp.pi)  # standard normal density
    cdf = (1 + sp.erf(x / sp.sqrt(2))) / 2  # standard normal distribution function
    gelu = x * cdf
    relu = sp.Max(0, x)
    steps = [
        Step.computed("d/dx [x Phi(x)] = Phi(x) + x phi(x)", sp.diff(gelu, x), cdf + x * phi, variables=(x,), operand=gelu),
        Step.value("GELU'(0) = 1/2", sp.diff(gelu, x), {x: 0}, sp.Rational(1, 2)),
        Step.limit("GELU(x) - x tends to 0 as x -> +oo", gelu - x, x, sp.oo, 0),
        Step.limit("GELU(x) tends to 0 as x -> -oo", gelu, x, -sp.oo, 0),
        Step.identity("GELU(x) - GELU(-x) = x, the same odd part as ReLU", gelu - gelu.subs(x, -x), x),
        Step.identity("ReLU(x) - ReLU(-x) = x (as a piecewise function)", (relu - relu.subs(x, -x)).rewrite(sp.Piecewise), x),
    ]
    return Derivation(
        name="gelu_properties",
        statement="GELU(x) = x Phi(x) is smooth, GELU'(0) = 1/2, and it differs from ReLU by an even function",
        reference="Hendrycks and Gimpel (2016); book chapter 7",
        steps=tuple(steps),
    )
