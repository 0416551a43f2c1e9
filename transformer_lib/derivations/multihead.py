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

Paper: §3.2.2. Book: chapter 4.
"""

from __future__ import annotations

import sympy as sp

from .core import Derivation, Step, matrix_gradient, pairing, register, symbol_matrix
from .softmax import softmax_vector


def _row_softmax(z: sp.Matrix) -> sp.Matrix:
    """softmax applied to each row of z."""
    return sp.Matrix.vstack(*[softmax_vector(z[i, :].T).T for i in range(z.rows)])






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
        Step("the softmax Jacobian is symmetric, J^T = J", jacobian.T, jacobian),
        Step(
            "n = 3: J^T g = s * (g - (s . g) 1), so the n x n Jacobian is never needed",
            jacobian.T * g,
            s.multiply_elementwise(g - (s.T * g)[0, 0] * sp.ones(n, 1)),
        ),
        Step(
            "2 x 3 scores, softmax per row: dZ = S * (dS - rowsum(dS * S)) for any loss",
            matrix_gradient(pairing(upstream, weights), z_mat),
            softmax_rows_backward(weights, upstream),
        ),
        Step(
            "a row of scores gets no gradient from the upstream gradient of another row",
            sp.diff(pairing(upstream[0, :], weights[0, :]), z_mat[1, 0]),
            0,
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
    steps = [
        Step("O = S V: dS = dO V^T", matrix_gradient(pairing(d_out, s_free * v), s_free), d_out * v.T),
        Step("O = S V: dV = S^T dO", matrix_gradient(pairing(d_out, s_free * v), v), s_free.T * d_out),
        Step(
            "Z = Q K^T / sqrt(d_k): dQ = dZ K / sqrt(d_k) (K, not K^T)", matrix_gradient(pairing(d_z, scores), q), d_z * k / scale
        ),
        Step("Z = Q K^T / sqrt(d_k): dK = dZ^T Q / sqrt(d_k)", matrix_gradient(pairing(d_z, scores), k), d_z.T * q / scale),
    ]
    # the chain composed: L = <dO, softmax(Q K^T / sqrt(d_k)) V>, differentiated directly in Q
    t_q, t_k = 1, 2
    q, k, v = symbol_matrix("q", t_q, d_k), symbol_matrix("k", t_k, d_k), symbol_matrix("v", t_k, d_k)
    d_out = symbol_matrix("gO", t_q, d_k)
    weights = _row_softmax(q * k.T / scale)
    loss = pairing(d_out, weights * v)
    chained = softmax_rows_backward(weights, d_out * v.T) * k / scale
    claim = "composed (1 query, 2 keys): dQ = [S * (dO V^T - rowsum)] K / sqrt(d_k)"
    steps.append(Step(claim, matrix_gradient(loss, q), chained))
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
    steps = [
        Step(
            "Q = X W^Q: dW^Q = X^T dQ (the input's transpose on the left)", matrix_gradient(pairing(d_q, x * w_q), w_q), x.T * d_q
        ),
    ]
    for i in range(h):
        block = slice(i * d_k, (i + 1) * d_k)
        w_q_i = w_q[:, block]
        steps.append(
            Step(
                f"head {i + 1}: W_{i + 1}^Q is columns {i * d_k + 1}..{(i + 1) * d_k} of W^Q and dW_{i + 1}^Q = X^T dQ_{i + 1}",
                matrix_gradient(pairing(d_q[:, block], x * w_q_i), w_q_i),
                x.T * d_q[:, block],
            )
        )
        steps.append(
            Step(
                f"Y = Concat(heads) W^O: d head_{i + 1} = block {i + 1} of dY (W^O)^T = dY (W_{i + 1}^O)^T",
                matrix_gradient(loss_y, heads[i]),
                (d_y * w_o.T)[:, block],
            )
        )
    steps.append(
        Step(
            "Concat(head_1, ..., head_h) W^O = sum_i head_i W_i^O (W_i^O: rows of W^O for head i)",
            concat * w_o,
            sum((heads[i] * w_o[i * d_k : (i + 1) * d_k, :] for i in range(h)), sp.zeros(t, d_model)),
        )
    )
    return Derivation(
        name="multihead_weight_gradient",
        statement="dL/dW_i^Q = X^T dL/dQ_i, and dL/dhead_i = dL/dY (W_i^O)^T",
        reference="Paper §3.2.2; book chapter 4; corrects source 000 §4.2.3",
        steps=tuple(steps),
    )


def attention_flops(t_q: sp.Expr, t_k: sp.Expr, d_model: sp.Expr, n_heads: sp.Expr) -> dict[str, sp.Expr]:
    """Multiply-add FLOPs (2 per multiply-add) of one multi-head attention layer, by part.

    Matrix products only, biases left out (what ``torch.utils.flop_counter``
    counts); the scale and the softmax act on the n_heads * t_q * t_k scores,
    reported as ``score_entries``. Works for numbers (exact sympy integers) and
    for symbols.
    """
    t_q, t_k, d_model, n_heads = (sp.sympify(v) for v in (t_q, t_k, d_model, n_heads))
    d_k = d_model / n_heads
    return {
        "projections": 2 * t_q * d_model * d_model + 2 * 2 * t_k * d_model * d_model + 2 * t_q * d_model * d_model,
        "scores": n_heads * 2 * t_q * t_k * d_k,  # Q_i K_i^T for each head
        "weighted values": n_heads * 2 * t_q * t_k * d_k,  # S_i V_i for each head
        "score_entries": n_heads * t_q * t_k,
    }


@register
def multihead_cost() -> Derivation:
    """h heads of width D/h cost the same matrix-product FLOPs and parameters as one head of width D."""
    t_q, t_k, d_model, h = sp.symbols("T_q T_k D h", positive=True)
    multi = attention_flops(t_q, t_k, d_model, h)
    single = attention_flops(t_q, t_k, d_model, sp.Integer(1))
    matmul = ("projections", "scores", "weighted values")
    steps = [
        Step("h heads of width D/h: h * 2 T_q T_k (D/h) = 2 T_q T_k D for the scores", multi["scores"], 2 * t_q * t_k * d_model),
        Step("the same for the weighted sum of values", multi["weighted values"], single["weighted values"]),
        Step("the four projections do not depend on h", multi["projections"], single["projections"]),
        Step(
            "total matrix-product FLOPs: 4 T_q D^2 + 4 T_k D^2 + 4 T_q T_k D for every h",
            sum(multi[part] for part in matmul),
            4 * t_q * d_model**2 + 4 * t_k * d_model**2 + 4 * t_q * t_k * d_model,
        ),
        Step(
            "but the score matrix has h times as many entries (softmax work and memory)",
            multi["score_entries"] / single["score_entries"],
            h,
        ),
        Step(
            "parameters 4 (D^2 + D) do not depend on h: h (3 D (D/h) + 3 D/h) + D^2 + D",
            h * (3 * d_model * (d_model / h) + 3 * d_model / h) + d_model**2 + d_model,
            4 * (d_model**2 + d_model),
        ),
    ]
    return Derivation(
        name="multihead_cost",
        statement="multi-head attention with d_k = D/h has the matrix-product FLOPs and parameters of one head of width D",
        reference="Paper §3.2.2 ('the total computational cost is similar'); book chapter 4",
        steps=tuple(steps),
    )
