"""Multi-head attention: the backward pass through the softmax, and the cost of splitting into heads.

Notation (row-vector convention, as in the paper): ``X`` (T, D) input,
``Q = X W^Q`` (Tq, d_k), ``K`` (Tk, d_k), ``V`` (Tk, d_v),
``Z = Q K^T / sqrt(d_k)`` the scores, ``S = softmax(Z)`` row by row, ``O = S V``.
For a scalar loss L, ``dA`` stands for the matrix dL/dA of A's shape.

The backward pass, each factor proved below on small symbolic matrices:

    dS = dO V^T                                  (O = S V)
    dV = S^T dO
    dZ = S * (dS - rowsum(dS * S))               (softmax, one row at a time)
    dQ = dZ K / sqrt(d_k),  dK = dZ^T Q / sqrt(d_k)
    dW^Q = X^T dQ                                (Q = X W^Q)

Paper: §3.2.2. Book: ch-multihead.
"""

from __future__ import annotations

import sympy as sp

from transformer_lib.counting import attention_flops, attention_parameters

from .core import (
    Derivation,
    Step,
    matrix_gradient,
    multiply_adds,
    pairing,
    register,
    softmax_rows,
    softmax_vector,
    symbol_matrix,
)

__all__ = [
    "attention_backward",
    "multihead_cost",
    "multihead_weight_gradient",
    "softmax_backward",
    "softmax_rows_backward",
]

_row_softmax = softmax_rows


def softmax_rows_backward(weights: sp.Matrix, upstream: sp.Matrix) -> sp.Matrix:
    """dZ = S * (dS - rowsum(dS * S)) for S = softmax(Z) row by row (``*`` element-wise)."""
    products = weights.multiply_elementwise(upstream)
    row_sums = sp.Matrix(products.rows, 1, lambda i, _: sum(products[i, :]))
    return weights.multiply_elementwise(upstream - row_sums * sp.ones(1, upstream.cols))


@register
def softmax_backward() -> Derivation:
    """The vector-Jacobian product of the softmax: J^T g = s * (g - (s . g)), row by row for matrices."""
    n = 3
    z = sp.Matrix(sp.symbols(f"z1:{n + 1}", real=True))
    g = sp.Matrix(sp.symbols(f"g1:{n + 1}", real=True))
    s = softmax_vector(z)
    jacobian = s.jacobian(z)
    z_mat, upstream = symbol_matrix("z", 2, 3), symbol_matrix("g", 2, 3)
    weights = _row_softmax(z_mat)
    steps = [
        Step.computed(
            "the softmax Jacobian is symmetric, J^T = J", jacobian.T, jacobian, variables=tuple(z), operand=s, sizes="n = 3"
        ),
        Step.for_sizes(
            "J^T g = s * (g - (s . g) 1), so the n x n Jacobian is never needed",
            jacobian.T * g,
            s.multiply_elementwise(g - (s.T * g)[0, 0] * sp.ones(n, 1)),
            "n = 3",
        ),
        Step.computed(
            "softmax per row: dZ = S * (dS - rowsum(dS * S)) for any loss",
            matrix_gradient(pairing(upstream, weights), z_mat),
            softmax_rows_backward(weights, upstream),
            variables=tuple(z_mat),
            operand=pairing(upstream, weights),
            sizes="2 x 3 scores",
        ),
        Step.computed(
            "a row of scores gets no gradient from the upstream gradient of another row",
            sp.diff(pairing(upstream[0, :], weights[0, :]), z_mat[1, 0]),
            0,
            variables=(z_mat[1, 0],),
            operand=pairing(upstream, weights),
            sizes="2 x 3 scores",
        ),
    ]
    return Derivation(
        name="softmax_backward",
        statement="for S = softmax(Z) row by row, dL/dZ = S * (G - rowsum(G * S)) where G = dL/dS",
        reference="book chapter 4; corrects source 000 §4.2.3",
        steps=tuple(steps),
    )


@register
def attention_backward() -> Derivation:
    """Every factor of the backward pass of one head, then the whole chain composed."""
    t_q, t_k, d_k = 2, 3, 2
    scale = sp.sqrt(d_k)
    q, k, v = symbol_matrix("q", t_q, d_k), symbol_matrix("k", t_k, d_k), symbol_matrix("v", t_k, d_k)
    s_free = symbol_matrix("s", t_q, t_k)  # the weights as free symbols, for the O = S V step
    d_out, d_z = symbol_matrix("gO", t_q, d_k), symbol_matrix("gZ", t_q, t_k)
    scores = q * k.T / scale
    sizes = "T_q = 2, T_k = 3, d_k = 2"
    loss_o, loss_z = pairing(d_out, s_free * v), pairing(d_z, scores)
    steps = [
        Step.computed(
            "O = S V: dS = dO V^T",
            matrix_gradient(loss_o, s_free),
            d_out * v.T,
            variables=tuple(s_free),
            operand=loss_o,
            sizes=sizes,
        ),
        Step.computed(
            "O = S V: dV = S^T dO", matrix_gradient(loss_o, v), s_free.T * d_out, variables=tuple(v), operand=loss_o, sizes=sizes
        ),
        Step.computed(
            "Z = Q K^T / sqrt(d_k): dQ = dZ K / sqrt(d_k) (K, not K^T)",
            matrix_gradient(loss_z, q),
            d_z * k / scale,
            variables=tuple(q),
            operand=loss_z,
            sizes=sizes,
        ),
        Step.computed(
            "Z = Q K^T / sqrt(d_k): dK = dZ^T Q / sqrt(d_k)",
            matrix_gradient(loss_z, k),
            d_z.T * q / scale,
            variables=tuple(k),
            operand=loss_z,
            sizes=sizes,
        ),
    ]
    # the chain composed: L = <dO, softmax(Q K^T / sqrt(d_k)) V>, differentiated directly in Q
    t_q, t_k = 1, 2
    q, k, v = symbol_matrix("q", t_q, d_k), symbol_matrix("k", t_k, d_k), symbol_matrix("v", t_k, d_k)
    d_out = symbol_matrix("gO", t_q, d_k)
    weights = _row_softmax(q * k.T / scale)
    loss = pairing(d_out, weights * v)
    chained = softmax_rows_backward(weights, d_out * v.T) * k / scale
    claim = "composed: dQ = [S * (dO V^T - rowsum)] K / sqrt(d_k)"
    steps.append(
        Step.computed(
            claim, matrix_gradient(loss, q), chained, variables=tuple(q), operand=loss, sizes="1 query, 2 keys, d_k = 2"
        )
    )
    return Derivation(
        name="attention_backward",
        statement="dS = dO V^T, dV = S^T dO, dQ = dZ K / sqrt(d_k), dK = dZ^T Q / sqrt(d_k)",
        reference="book chapter 4; corrects source 000 §4.2.3",
        steps=tuple(steps),
    )


@register
def multihead_weight_gradient() -> Derivation:
    """From the layer's output back to W_i^Q: through W^O, the head's block, and the projection."""
    t, d_model, h = 2, 4, 2
    d_k = d_model // h
    x = symbol_matrix("x", t, d_model)
    w_q = symbol_matrix("w", d_model, d_model)
    d_q = symbol_matrix("gQ", t, d_model)  # dL/dQ for all heads side by side
    heads = [symbol_matrix(f"h{i + 1}", t, d_k) for i in range(h)]
    w_o = symbol_matrix("o", d_model, d_model)
    d_y = symbol_matrix("gY", t, d_model)
    concat = sp.Matrix.hstack(*heads)
    loss_y = pairing(d_y, concat * w_o)
    sizes = "T = 2, D = 4, h = 2"
    steps = [
        Step.computed(
            "Q = X W^Q: dW^Q = X^T dQ (the input's transpose on the left)",
            matrix_gradient(pairing(d_q, x * w_q), w_q),
            x.T * d_q,
            variables=tuple(w_q),
            operand=pairing(d_q, x * w_q),
            sizes=sizes,
        ),
    ]
    for i in range(h):
        block = slice(i * d_k, (i + 1) * d_k)
        w_q_i = w_q[:, block]
        loss_q = pairing(d_q[:, block], x * w_q_i)
        steps.append(
            Step.computed(
                f"head {i + 1}: W_{i + 1}^Q is columns {i * d_k + 1}..{(i + 1) * d_k} of W^Q and dW_{i + 1}^Q = X^T dQ_{i + 1}",
                matrix_gradient(loss_q, w_q_i),
                x.T * d_q[:, block],
                variables=tuple(w_q_i),
                operand=loss_q,
                sizes=sizes,
            )
        )
        steps.append(
            Step.computed(
                f"Y = Concat(heads) W^O: d head_{i + 1} = block {i + 1} of dY (W^O)^T = dY (W_{i + 1}^O)^T",
                matrix_gradient(loss_y, heads[i]),
                (d_y * w_o.T)[:, block],
                variables=tuple(heads[i]),
                operand=loss_y,
                sizes=sizes,
            )
        )
    # Concat(head_1, ..., head_h) W^O = sum_i head_i W_i^O is block multiplication: sympy's product of the
    # two sides gives the same entries term for term, so it is used above (loss_y), not claimed as a step.
    return Derivation(
        name="multihead_weight_gradient",
        statement="dL/dW_i^Q = X^T dL/dQ_i, and dL/dhead_i = dL/dY (W_i^O)^T",
        reference="Paper §3.2.2; book chapter 4; corrects source 000 §4.2.3",
        steps=tuple(steps),
    )


@register
def multihead_cost() -> Derivation:
    """h heads of width D/h cost the same matrix-product FLOPs and parameters as one head of width D."""
    t_q, t_k, d_model, h = sp.symbols("T_q T_k D h", positive=True)
    sizes = {t_q: 2, t_k: 3, d_model: 4}
    scores = attention_flops(t_q, t_k, d_model, h)["scores"]
    steps = []
    for heads in (1, 2, 4):  # split Q (2 x 4) and K (3 x 4) into heads of width 4 / heads, multiply, count
        width = 4 // heads
        q, k = symbol_matrix("q", 2, 4), symbol_matrix("k", 3, 4)
        counted = sum(
            multiply_adds(q[:, i * width : (i + 1) * width] * k[:, i * width : (i + 1) * width].T) for i in range(heads)
        )
        steps.append(
            Step.value(
                f"h = {heads}, heads of width {width}: Q_i K_i^T, counted term by term, "
                "cost the formula's 2 T_q T_k D FLOPs (T_q = 2, T_k = 3, D = 4)",
                scores,
                sizes,
                2 * counted,
            )
        )
        entries = sum(len(q[:, i * width : (i + 1) * width] * k[:, i * width : (i + 1) * width].T) for i in range(heads))
        steps.append(
            Step.value(
                f"... but the score matrices hold h T_q T_k = {entries} entries (softmax work and memory)",
                attention_flops(t_q, t_k, d_model, h)["score_entries"],
                {t_q: 2, t_k: 3, h: heads},
                entries,
            )
        )
    steps += [
        Step.identity(
            "parameters 4 (D^2 + D) do not depend on h: h (3 D (D/h) + 3 D/h) + D^2 + D",
            h * (3 * d_model * (d_model / h) + 3 * d_model / h) + d_model**2 + d_model,
            attention_parameters(d_model),
        ),
    ]
    return Derivation(
        name="multihead_cost",
        statement="multi-head attention with d_k = D/h has the matrix-product FLOPs and parameters of one head of width D",
        reference="Paper §3.2.2 ('the total computational cost is similar'); book chapter 4",
        steps=tuple(steps),
    )
