"""Attention as a weighted average; dot product, cosine and additive scores; what attention costs.

Each builder returns a :class:`Derivation` whose steps sympy proves. The FLOP
formulas live in :mod:`transformer_lib.counting`, so that a chapter can evaluate them and compare them with
``torch.utils.flop_counter.FlopCounterMode``.

Paper: §3.2.1 (scaled dot-product and additive attention), Table 1 (O(n^2 d)).
Bahdanau et al. (2015), §3.1 and appendix A.1.2 (the additive score).
Book: ch-attention.
"""

from __future__ import annotations

from typing import Any

import sympy as sp

from transformer_lib.counting import (
    additive_attention_flops,
    additive_elementwise_ops,
    dot_product_attention_flops,
    self_attention_flops,
)

from .core import Derivation, Step, register, softmax_vector, symbol_vector

__all__ = [
    "additive_attention_structure",
    "attention_convexity",
    "attention_cost",
    "cosine_attention_bound",
    "cosine_attention_max_weight",
    "dot_product_similarity",
]


def _dot(a: sp.Matrix, b: sp.Matrix) -> sp.Expr:
    return (a.T * b)[0, 0]


def _vector(name: str, n: int, **assumptions: Any) -> sp.Matrix:
    return symbol_vector(name, n, **assumptions)


# --------------------------------------------------------------------------
# Derivations
# --------------------------------------------------------------------------


@register
def attention_convexity() -> Derivation:
    """Softmax weights are positive and sum to 1, so an attention output is a weighted mean of the values."""
    steps = []
    for n in (2, 3, 4):
        s = softmax_vector(_vector("z", n))
        steps.append(Step.for_sizes("the softmax weights sum to 1", sum(s), 1, f"n = {n}"))
    z = _vector("z", 3)
    s = softmax_vector(z)
    steps += [
        Step.inequality("every weight is positive: s_1 > 0", s[0], ">", 0),
        Step.inequality("and below 1: s_1 < 1", s[0], "<", 1),
    ]
    c = sp.Symbol("c", real=True)
    shift = sp.Matrix([c, c, c])
    steps.append(
        Step.for_sizes("softmax(z + c) = softmax(z): only differences of scores matter", softmax_vector(z + shift), s, "n = 3")
    )
    v = _vector("v", 3)  # one coordinate of three value vectors
    steps.append(
        Step.for_sizes(
            "sum_j s_j (v_j + c) = sum_j s_j v_j + c: shifting every value shifts the output",
            _dot(s, v + shift),
            _dot(s, v) + c,
            "n = 3",
        )
    )
    steps.append(Step.for_sizes("equal values give that value back: sum_j s_j c = c", _dot(s, shift), c, "n = 3"))
    low, high = sp.Symbol("m", real=True), sp.Symbol("M", real=True)
    above = _vector("a", 3, nonnegative=True)  # v_j = m + a_j with a_j >= 0: m is a lower bound of the values
    below = _vector("b", 3, nonnegative=True)  # v_j = M - b_j with b_j >= 0: M is an upper bound
    steps += [
        Step.inequality("y = sum_j s_j v_j >= m when every v_j = m + a_j >= m", _dot(s, low * sp.ones(3, 1) + above), ">=", low),
        Step.inequality(
            "y <= M when every v_j = M - b_j <= M: the output lies between the values",
            _dot(s, high * sp.ones(3, 1) - below),
            "<=",
            high,
        ),
    ]
    return Derivation(
        name="attention_convexity",
        statement="alpha_ij > 0, sum_j alpha_ij = 1: y_i = sum_j alpha_ij v_j lies between the least and largest value",
        reference="book chapter 2; paper §3.2 ('a weighted sum of the values')",
        steps=tuple(steps),
    )


@register
def dot_product_similarity() -> Derivation:
    """What a dot product measures: angle, lengths, and distance."""
    r, s_len = sp.symbols("r s", positive=True)
    a, b = sp.symbols("a b", real=True)
    q_polar = sp.Matrix([r * sp.cos(a), r * sp.sin(a)])
    k_polar = sp.Matrix([s_len * sp.cos(b), s_len * sp.sin(b)])
    q, k, k2 = _vector("q", 3), _vector("k", 3), _vector("l", 3)
    c = sp.Symbol("c", positive=True)

    def norm2(x: sp.Matrix) -> sp.Expr:
        return _dot(x, x)

    def cosine(x: sp.Matrix, y: sp.Matrix) -> sp.Expr:
        return _dot(x, y) / sp.sqrt(norm2(x) * norm2(y))

    steps = [
        Step.identity("in the plane, q . k = |q| |k| cos(angle between them)", _dot(q_polar, k_polar), r * s_len * sp.cos(a - b)),
        Step.for_sizes(
            "Lagrange's identity: |q|^2 |k|^2 - (q . k)^2 = |q x k|^2",
            norm2(q) * norm2(k) - _dot(q, k) ** 2,
            norm2(q.cross(k)),
            "d = 3",
        ),
        Step.inequality("|q x k|^2 >= 0 (a sum of squares), so |q . k| <= |q| |k| and |cos| <= 1", norm2(q.cross(k)), ">=", 0),
        Step.for_sizes(
            "polarisation: q . k = (|q|^2 + |k|^2 - |q - k|^2) / 2", _dot(q, k), (norm2(q) + norm2(k) - norm2(q - k)) / 2, "d = 3"
        ),
        Step.for_sizes(
            "so between two keys the score difference is (|k|^2 - |l|^2)/2 - (|q - k|^2 - |q - l|^2)/2: "
            "a bonus for the longer key, a penalty for the farther one",
            _dot(q, k) - _dot(q, k2),
            (norm2(k) - norm2(k2)) / 2 - (norm2(q - k) - norm2(q - k2)) / 2,
            "d = 3",
        ),
        Step.for_sizes(
            "scaling the query by c scales every score by c (an inverse temperature)", _dot(c * q, k), c * _dot(q, k), "d = 3"
        ),
        Step.for_sizes(
            "cosine similarity ignores the query's length: cos(c q, k) = cos(q, k)", cosine(c * q, k), cosine(q, k), "d = 3"
        ),
        Step.for_sizes("... and the key's length: cos(q, c k) = cos(q, k)", cosine(q, c * k), cosine(q, k), "d = 3"),
    ]
    return Derivation(
        name="dot_product_similarity",
        statement="q . k = |q||k| cos(theta) = (|q|^2 + |k|^2 - |q - k|^2)/2; cosine keeps only the angle",
        reference="book chapter 2",
        steps=tuple(steps),
    )


def cosine_attention_max_weight(n_keys, temperature) -> sp.Expr:
    """The largest weight attention can give one of ``n_keys`` keys when scores are cos / temperature."""
    n_keys, temperature = sp.sympify(n_keys), sp.sympify(temperature)
    return sp.exp(2 / temperature) / (sp.exp(2 / temperature) + n_keys - 1)


@register
def cosine_attention_bound() -> Derivation:
    """With scores cos(q, k_j) / tau in [-1/tau, 1/tau], no weight can exceed e^{2/tau} / (e^{2/tau} + n - 1)."""
    z = _vector("z", 4)
    s = softmax_vector(z)
    n, tau, p = (
        sp.Symbol("n", positive=True, integer=True),
        sp.Symbol("tau", positive=True),
        sp.Symbol("p", positive=True),
    )
    extreme = sp.exp(1 / tau) / (sp.exp(1 / tau) + (n - 1) * sp.exp(-1 / tau))
    tau_needed = 2 / sp.log(p * (n - 1) / (1 - p))
    at_extremes = {z[0]: 1 / tau, z[1]: -1 / tau, z[2]: -1 / tau, z[3]: -1 / tau}
    steps = [
        Step.computed(
            "d s_1 / d z_1 = s_1 (1 - s_1)",
            sp.diff(s[0], z[0]),
            s[0] * (1 - s[0]),
            variables=(z[0],),
            operand=s[0],
            sizes="n = 4",
        ),
        Step.inequality("which is > 0: raising a key's own score raises its weight", sp.diff(s[0], z[0]), ">", 0),
        Step.computed(
            "d s_1 / d z_k = -s_1 s_k", sp.diff(s[0], z[1]), -s[0] * s[1], variables=(z[1],), operand=s[0], sizes="n = 4"
        ),
        Step.inequality("which is < 0: raising another key's score lowers it", sp.diff(s[0], z[1]), "<", 0),
        Step.computed(
            "so s_1 is largest at z_1 = 1/tau, z_k = -1/tau, where it equals e^{2/tau} / (e^{2/tau} + n - 1)",
            s[0].subs(at_extremes),
            cosine_attention_max_weight(4, tau),
            variables=tuple(z),
            operand=s[0],
            sizes="n = 4",
        ),
        Step.identity(
            "for n keys: e^{1/tau} / (e^{1/tau} + (n - 1) e^{-1/tau}) = e^{2/tau} / (e^{2/tau} + n - 1)",
            extreme,
            cosine_attention_max_weight(n, tau),
        ),
        Step.identity(
            "the temperature that lets the bound reach p is tau = 2 / log(p (n - 1) / (1 - p))",
            cosine_attention_max_weight(n, tau_needed),
            p,
        ),
    ]
    return Derivation(
        name="cosine_attention_bound",
        statement="softmax(cos / tau) over n keys gives every key weight <= e^{2/tau} / (e^{2/tau} + n - 1)",
        reference="book chapter 2",
        steps=tuple(steps),
    )


@register
def additive_attention_structure() -> Derivation:
    """Additive attention w^T tanh(W_q q + W_k k): the concatenation form, and what the tanh and a bias add."""
    q, k, k2 = _vector("q", 2), _vector("k", 2), _vector("l", 2)
    w_q = sp.Matrix(2, 2, sp.symbols("a1:5", real=True))
    w_k = sp.Matrix(2, 2, sp.symbols("b1:5", real=True))
    w = _vector("w", 2)
    bias = sp.Symbol("beta", real=True)
    w_concat = w_q.row_join(w_k)  # W = [W_q  W_k], shape (hidden, d_q + d_k); W [q; k] = W_q q + W_k k

    # the source's form, without tanh: a linear function of [q; k] plus a bias
    def linear_score(key: sp.Matrix) -> sp.Expr:
        return _dot(w, w_concat * q.col_join(key)) + bias

    # one hidden unit is enough to see the structure of the tanh form
    eps, c = sp.symbols("epsilon c", real=True)
    a_vec, b_vec = _vector("a", 2), _vector("b", 2)
    w1 = sp.Symbol("w", real=True)

    def unit_score(qv: sp.Matrix, kv: sp.Matrix, shift: sp.Expr) -> sp.Expr:
        return w1 * sp.tanh(_dot(a_vec, qv) + _dot(b_vec, kv) + shift)

    expansion = sp.expand(sp.series(unit_score(eps * q, eps * k, c), eps, 0, 3).removeO())
    second_order = expansion.coeff(eps, 2)
    first_order = expansion.coeff(eps, 1)
    tanh_second = sp.diff(sp.tanh(c), c, 2)
    pre = _dot(a_vec, q) + _dot(b_vec, k)
    score = unit_score(eps * q, eps * k, c)

    def full_score(qv: sp.Matrix, kv: sp.Matrix) -> sp.Expr:  # hidden width 2 (W_q is 2 x 2), no bias
        # unevaluated: sympy would otherwise pull the sign out of tanh(-x) before the step is checked
        return _dot(w, (w_q * qv + w_k * kv).applyfunc(lambda x: sp.tanh(x, evaluate=False)))

    steps = [
        *(
            Step.computed(
                f"without tanh, the score difference between two keys does not depend on q_{i + 1}: "
                "the softmax over keys ignores the query",
                sp.diff(linear_score(k) - linear_score(k2), q[i]),
                0,
                variables=(q[i],),
                operand=linear_score(k) - linear_score(k2),
                sizes="d = 2",
            )
            for i in range(2)
        ),
        Step.computed(
            "first order in a small input scale eps: w (1 - tanh(c)^2)(a.q + b.k), "
            "a query term (cancels in the softmax) plus a key term",
            first_order,
            w1 * (1 - sp.tanh(c) ** 2) * pre,
            variables=(eps,),
            operand=score,
            sizes="d = 2",
        ),
        Step.computed(
            "second order: (w/2) tanh''(c) (a.q + b.k)^2, whose cross term w tanh''(c) (a.q)(b.k) is a bilinear similarity",
            second_order,
            w1 * tanh_second / 2 * pre**2,
            variables=(eps,),
            operand=score,
            sizes="d = 2",
        ),
        Step.value("tanh''(0) = 0: without a bias the bilinear (dot-product-like) term vanishes", tanh_second, {c: 0}, 0),
        Step.for_sizes(
            "without a bias the score is odd: s(q, k) + s(-q, -k) = 0, for every W_q, W_k, w",
            full_score(q, k) + full_score(-q, -k),
            0,
            "d = 2, hidden width 2",
        ),
    ]
    return Derivation(
        name="additive_attention_structure",
        statement="score = w^T tanh(W_q q + W_k k [+ b]); without tanh it ignores q; without b it is odd in "
        "(q, k) and, with tanh(0) = 0, has no bilinear term",
        reference="Bahdanau et al. (2015) appendix A.1.2; paper §3.2.1; book chapter 2",
        steps=tuple(steps),
    )


@register
def attention_cost() -> Derivation:
    """FLOPs of dot-product and additive attention, and of a self-attention layer: O(n^2 d) and O(n d^2)."""
    t, d, n = sp.symbols("T d n", positive=True)
    dot = dot_product_attention_flops(t, t, d, d)
    additive = additive_attention_flops(t, t, d, d, d, d)
    layer = self_attention_flops(n, d)
    projections = layer - dot_product_attention_flops(n, n, d, d)
    crossover = sp.solve(sp.Eq(projections, dot_product_attention_flops(n, n, d, d)), n)
    steps = [
        Step.limit(
            "as T grows the matrix-product FLOPs of additive (4 T d^2 + 4 T^2 d) and dot-product "
            "attention (4 T^2 d) agree: ratio -> 1",
            additive / dot,
            t,
            sp.oo,
            1,
        ),
        Step.limit(
            "counting the broadcast sum and tanh as well (2 T^2 d more), the ratio tends to 3/2",
            (additive + additive_elementwise_ops(t, t, d)) / dot,
            t,
            sp.oo,
            sp.Rational(3, 2),
        ),
        Step.computed(
            "a single-head self-attention layer, 6 n d^2 + 4 n^2 d: the n^2 d term overtakes the projections at n = 3 d / 2",
            sp.Matrix(crossover),
            sp.Matrix([sp.Rational(3, 2) * d]),
            variables=(n,),
            operand=layer,
        ),
        Step.limit(
            "doubling n multiplies the cost by a factor that tends to 4 (quadratic)", layer.subs(n, 2 * n) / layer, n, sp.oo, 4
        ),
        Step.limit("for n much smaller than d, doubling n doubles the cost (linear)", layer.subs(n, 2 * n) / layer, n, 0, 2),
    ]
    return Derivation(
        name="attention_cost",
        statement="dot-product attention: 4 T^2 d FLOPs; additive: same order; self-attention layer: 6 n d^2 + 4 n^2 d",
        reference="paper §3.2.1 and Table 1; book chapter 2",
        steps=tuple(steps),
    )
