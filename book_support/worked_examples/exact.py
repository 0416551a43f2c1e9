"""Exact arithmetic with sympy for the worked examples: the paper's formulas, one step at a time.

Rational steps (Q = X W, scores, means, variances) are computed and simplified
exactly. Once a step is irrational (exp in the softmax, square roots in the
LayerNorm, sines of the positions) the expressions are kept symbolic but not
simplified: sympy would otherwise expand them at every step, and the trees of
a whole encoder-decoder would take hours to build. :func:`evaluate` computes
any entry to 50 significant digits, each shared sub-expression once.

These functions are an independent check of the float computation by the
library's modules, not a model: each is one formula of the paper.

Book: ch-numbers.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

import numpy as np
import torch
from torch import Tensor


def _rational(matrices: Sequence[Any]) -> bool:
    return all(entry.is_Rational for matrix in matrices for entry in matrix)


@contextmanager
def _arithmetic(*matrices: Any) -> Iterator[None]:
    """Simplify as usual when every entry is rational; otherwise build unevaluated expressions."""
    import sympy as sp

    with sp.evaluate(_rational(matrices)):
        yield


def exact(values: Any) -> Any:
    """Decimals -> an exact sympy Matrix of Rationals: 0.2 becomes 1/5, not the nearest binary float.

    Accepts nested sequences of ints, floats and decimal strings (floats are read
    through their shortest decimal representation, so ``0.1`` is exactly 1/10).
    A flat sequence becomes a one-row matrix.
    """
    import sympy as sp

    def rational(v: Any) -> Any:
        if isinstance(v, sp.Basic):
            return v
        if isinstance(v, (bool, np.bool_)):
            raise TypeError("exact() needs numbers, got a bool")
        if isinstance(v, (int, np.integer)):
            return sp.Integer(int(v))
        if isinstance(v, (float, np.floating)):
            return sp.Rational(repr(float(v)))
        if isinstance(v, str):
            return sp.Rational(v)
        raise TypeError(f"exact() needs numbers or decimal strings, got {type(v).__name__}")

    values = values.tolist() if isinstance(values, (Tensor, np.ndarray)) else values
    rows = [list(r) for r in values] if isinstance(values[0], (list, tuple)) else [list(values)]
    return sp.Matrix([[rational(v) for v in row] for row in rows])


def exact_sinusoidal_table(max_len: int, d_model: int) -> Any:
    """The sinusoidal table with symbolic sin and cos of rational angles pos / 10000^(2i / d_model).

    Exact only when 10000^(2i / d_model) is rational for every i (d_model = 2 or 4);
    other widths give symbolic powers, which ``evaluate`` also handles.
    """
    import sympy as sp

    table = sp.zeros(max_len, d_model)
    for pos in range(max_len):
        for i in range(0, d_model, 2):
            angle = sp.Integer(pos) / sp.Integer(10000) ** sp.Rational(i, d_model)
            table[pos, i] = sp.sin(angle)
            table[pos, i + 1] = sp.cos(angle)
    return table


def matmul(a: Any, b: Any) -> Any:
    """Exact matrix product as plain sums of products (sympy's own product simplifies as it goes, which is slow)."""
    import sympy as sp

    if a.shape[1] != b.shape[0]:
        raise ValueError(f"matrix shapes do not match for a product: {a.shape} and {b.shape}")

    def entry(i: int, j: int) -> Any:
        terms = [a[i, m] * b[m, j] for m in range(a.shape[1]) if a[i, m] != 0 and b[m, j] != 0]
        return sp.Add(*terms) if terms else sp.Integer(0)

    with _arithmetic(a, b):
        return sp.Matrix(a.shape[0], b.shape[1], entry)


def exact_softmax_rows(scores: Any, mask: Any = None) -> Any:
    """Row-wise softmax with symbolic exponentials; masked entries (mask False) get weight exactly 0.

    Each row's largest score is subtracted first (it does not change the result),
    so an entry reads exp(s_j - s_max) / sum_m exp(s_m - s_max).
    """
    import sympy as sp

    rows, cols = scores.shape
    approximate = evaluate(scores, 30)  # only to find each row's largest score
    out = sp.zeros(rows, cols)
    with sp.evaluate(False):
        for i in range(rows):
            visible = [j for j in range(cols) if mask is None or bool(mask[i][j])]
            top = max(visible, key=lambda j: float(approximate[i, j]))
            terms = {j: sp.Integer(1) if j == top else sp.exp(scores[i, j] - scores[i, top]) for j in visible}
            total = sp.Add(*terms.values())
            for j in visible:
                out[i, j] = terms[j] / total
    return out


def exact_attention(x_q: Any, x_kv: Any, W_q: Any, W_k: Any, W_v: Any, W_o: Any, n_heads: int, mask: Any = None) -> dict:
    """Multi-head attention in exact arithmetic, every intermediate returned.

    Rows are positions; matrices in the sources' (in, out) convention; ``mask[i][j]``
    True where query i may see key j. Returns a dict with ``q, k, v`` (T, D),
    per-head lists ``scores`` (Q_i K_i^T), ``scaled`` (divided by sqrt(d_k)),
    ``weights`` and ``heads``, then ``concat`` and ``output`` (concat @ W_o).

    Paper: §3.2.1 Eq. 1 and §3.2.2.
    """
    import sympy as sp

    q, k, v = matmul(x_q, W_q), matmul(x_kv, W_k), matmul(x_kv, W_v)
    d_model = q.shape[1]
    if d_model % n_heads:
        raise ValueError(f"d_model must be divisible by n_heads, got {d_model} and {n_heads}")
    d_k = d_model // n_heads
    result: dict[str, Any] = {"q": q, "k": k, "v": v, "scores": [], "scaled": [], "weights": [], "heads": []}
    for h in range(n_heads):
        cols = slice(h * d_k, (h + 1) * d_k)
        scores = matmul(q[:, cols], k[:, cols].T)
        with _arithmetic(scores):
            scaled = scores.applyfunc(lambda e: e / sp.sqrt(d_k))
        weights = exact_softmax_rows(scaled, mask)
        result["scores"].append(scores)
        result["scaled"].append(scaled)
        result["weights"].append(weights)
        result["heads"].append(matmul(weights, v[:, cols]))
    result["concat"] = sp.Matrix.hstack(*result["heads"])
    result["output"] = matmul(result["concat"], W_o)
    return result


def exact_layer_norm(y: Any, gamma: Any = None, beta: Any = None, eps: Any = 0) -> dict:
    """LayerNorm of each row in exact arithmetic: mean, biased variance, normalised row, output.

    ``eps`` may be a number or a decimal string (read exactly), ``gamma`` and ``beta``
    one-row matrices (None: ones and zeros). Returns a dict with ``mean`` and
    ``variance`` (column vectors), ``normalised`` and ``output``.
    """
    import sympy as sp

    rows, width = y.shape
    eps = exact([eps])[0, 0]
    gamma = sp.ones(1, width) if gamma is None else gamma
    beta = sp.zeros(1, width) if beta is None else beta
    means, variances = sp.zeros(rows, 1), sp.zeros(rows, 1)
    normalised, output = sp.zeros(rows, width), sp.zeros(rows, width)
    with _arithmetic(y, gamma, beta):
        for i in range(rows):
            row = list(y[i, :])
            mean = sp.Add(*row) / width
            variance = sp.Add(*[(e - mean) ** 2 for e in row]) / width
            means[i], variances[i] = mean, variance
            root = sp.sqrt(variance + eps)
            for j in range(width):
                normalised[i, j] = (row[j] - mean) / root
                output[i, j] = gamma[j] * normalised[i, j] + beta[j]
    return {"mean": means, "variance": variances, "normalised": normalised, "output": output}


def exact_feed_forward(x: Any, W1: Any, b1: Any, W2: Any, b2: Any) -> dict:
    """FFN(x) = max(0, x W1 + b1) W2 + b2 in exact arithmetic; returns ``hidden``, ``relu`` and ``output``.

    The sign of each hidden unit is decided by evaluating it to 50 digits.
    """
    import sympy as sp

    rows = x.shape[0]
    with _arithmetic(x, W1, b1):
        hidden = matmul(x, W1) + matmul(sp.ones(rows, 1), b1)
    signs = evaluate(hidden) >= 0
    relu = sp.Matrix(hidden.rows, hidden.cols, lambda i, j: hidden[i, j] if signs[i, j] else sp.Integer(0))
    with _arithmetic(relu, W2, b2):
        output = matmul(relu, W2) + matmul(sp.ones(rows, 1), b2)
    return {"hidden": hidden, "relu": relu, "output": output}


def _high_precision(expression: Any, cache: dict) -> Any:
    """Value of a sympy expression as an mpmath number, each distinct sub-expression evaluated once."""
    import mpmath
    import sympy as sp

    value = cache.get(expression)
    if value is not None:
        return value
    e = expression
    if e.is_Rational:
        value = mpmath.mpf(int(e.p)) / int(e.q)
    elif e.is_Float:
        value = mpmath.mpf(e)
    elif e.is_Add:
        value = mpmath.fsum(_high_precision(a, cache) for a in e.args)
    elif e.is_Mul:
        value = mpmath.fprod(_high_precision(a, cache) for a in e.args)
    elif e.is_Pow:
        base, power = (_high_precision(a, cache) for a in e.args)
        value = mpmath.power(base, power)
    elif isinstance(e, (sp.exp, sp.sin, sp.cos)):
        value = getattr(mpmath, type(e).__name__)(_high_precision(e.args[0], cache))
    else:
        raise TypeError(f"cannot evaluate a {type(e).__name__} ({e}); expected +, *, powers, exp, sin, cos of rationals")
    cache[expression] = value
    return value


def evaluate(expression: Any, digits: int = 50) -> Tensor:
    """A sympy number or matrix evaluated with ``digits`` significant digits, returned as a float64 tensor.

    Shared sub-expressions (the same softmax denominator in many entries) are
    evaluated once, so large exact expressions evaluate in milliseconds.
    """
    import mpmath
    import sympy as sp

    matrix = expression if isinstance(expression, sp.MatrixBase) else sp.Matrix([[expression]])
    cache: dict = {}
    with mpmath.workdps(digits):
        values = [
            [float(_high_precision(sp.sympify(matrix[i, j]), cache)) for j in range(matrix.cols)] for i in range(matrix.rows)
        ]
    return torch.tensor(values, dtype=torch.float64)


def simplified(expression: Any) -> Any:
    """An unevaluated exact expression (or matrix) rebuilt with sympy's usual simplifications, for display."""
    import sympy as sp

    if isinstance(expression, sp.MatrixBase):
        return expression.applyfunc(lambda e: sp.sympify(e).doit())
    return sp.sympify(expression).doit()
