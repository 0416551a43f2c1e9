"""Library support for chapter 4: the multi-head derivations' helpers agree with torch.

The registered derivations themselves (softmax_backward, attention_backward,
multihead_weight_gradient, multihead_cost) are proved in test_derivations.py;
here the helpers are checked against numbers: the FLOP formula against
PyTorch's FLOP counter, the row-wise softmax backward against autograd.
"""

import pytest
import sympy as sp
import torch
from torch.utils.flop_counter import FlopCounterMode

import transformer_lib as tl
from book_support.derivations import Step, derivation_names
from book_support.derivations.multihead import softmax_rows_backward
from transformer_lib.counting import attention_flops


def test_chapter_4_derivations_are_registered():
    assert {"softmax_backward", "attention_backward", "multihead_weight_gradient", "multihead_cost"} <= set(derivation_names())


@pytest.mark.parametrize("n_heads", [1, 2, 4, 8])
@pytest.mark.parametrize(("t_q", "t_k"), [(7, 7), (5, 11)])
def test_attention_flops_equal_the_flop_counter(n_heads, t_q, t_k):
    d_model = 32
    layer = tl.MultiHeadAttention(d_model, n_heads)
    query, memory = torch.randn(2, t_q, d_model), torch.randn(2, t_k, d_model)
    with torch.no_grad(), FlopCounterMode(display=False) as counter:
        layer(query, memory, memory, kernel="explicit")  # the explicit path: ordinary matrix products
    parts = attention_flops(t_q, t_k, d_model, n_heads)
    per_example = parts["projections"] + parts["scores"] + parts["weighted values"]
    assert counter.get_total_flops() == 2 * per_example
    assert parts["score_entries"] == n_heads * t_q * t_k


def test_attention_flops_do_not_depend_on_heads_symbolically():
    t_q, t_k, d_model, h = sp.symbols("T_q T_k D h", positive=True)
    parts = attention_flops(t_q, t_k, d_model, h)
    total = parts["projections"] + parts["scores"] + parts["weighted values"]
    assert sp.simplify(sp.diff(total, h)) == 0
    assert sp.simplify(parts["score_entries"] / h - t_q * t_k) == 0


def test_softmax_rows_backward_matches_autograd():
    g = torch.Generator().manual_seed(0)
    scores = torch.randn(3, 5, generator=g, dtype=torch.float64, requires_grad=True)
    upstream = torch.randn(3, 5, generator=g, dtype=torch.float64)
    weights = scores.softmax(dim=-1)
    (weights * upstream).sum().backward()
    formula = softmax_rows_backward(sp.Matrix(weights.detach().tolist()), sp.Matrix(upstream.tolist()))
    torch.testing.assert_close(torch.tensor(formula.tolist(), dtype=torch.float64), scores.grad, atol=1e-12, rtol=0)


def test_the_sources_k_transpose_fails_the_check():
    """With square shapes the wrong rule dQ = dZ K^T / sqrt(d_k) type-checks, and the Step rejects it."""
    q = sp.Matrix(2, 2, sp.symbols("q1:5", real=True))
    k = sp.Matrix(2, 2, sp.symbols("k1:5", real=True))
    d_z = sp.Matrix(2, 2, sp.symbols("g1:5", real=True))
    scores = q * k.T / sp.sqrt(2)
    loss = sum(a * b for a, b in zip(d_z, scores, strict=True))
    gradient = q.applyfunc(lambda entry: sp.diff(loss, entry))
    assert Step("right", gradient, d_z * k / sp.sqrt(2)).holds()
    assert not Step("source", gradient, d_z * k.T / sp.sqrt(2)).holds()
