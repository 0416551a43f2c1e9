"""Support code of chapter 2: the FLOP formulas and the cosine-attention bound.

The derivations themselves are checked by tests/book_support/test_derivations.py; here the
public helpers of ``derivations.attention_basics`` are checked against what
PyTorch counts and computes.
"""

import math

import pytest
import torch
import torch.nn.functional as F
from torch.utils.flop_counter import FlopCounterMode

import book_support as bk
import transformer_lib as tl

flops = bk.derivations.attention_basics


def _counted(fn) -> int:
    counter = FlopCounterMode(display=False)
    with counter, torch.no_grad():
        fn()
    return counter.get_total_flops()


@pytest.mark.parametrize(("t_q", "t_k", "d_k", "d_v"), [(5, 7, 16, 3), (32, 32, 64, 64), (1, 9, 8, 12)])
def test_dot_product_flops_match_flop_counter(t_q, t_k, d_k, d_v):
    q, k, v = torch.randn(2, t_q, d_k), torch.randn(2, t_k, d_k), torch.randn(2, t_k, d_v)
    expected = 2 * flops.dot_product_attention_flops(t_q, t_k, d_k, d_v)
    assert _counted(lambda: tl.attend(q, k, v)) == expected
    assert _counted(lambda: F.scaled_dot_product_attention(q, k, v)) == expected


@pytest.mark.parametrize(("t_q", "t_k", "d_q", "d_k", "hidden", "d_v"), [(3, 4, 5, 7, 6, 2), (16, 16, 32, 32, 32, 8)])
def test_additive_flops_match_flop_counter(t_q, t_k, d_q, d_k, hidden, d_v):
    module = tl.AdditiveAttention(d_q, d_k, hidden)
    q, k, v = torch.randn(2, t_q, d_q), torch.randn(2, t_k, d_k), torch.randn(2, t_k, d_v)
    expected = 2 * flops.additive_attention_flops(t_q, t_k, d_q, d_k, hidden, d_v)
    assert _counted(lambda: module(q, k, v)) == expected


def test_additive_elementwise_ops_is_two_per_hidden_entry():
    assert flops.additive_elementwise_ops(3, 4, 5) == 2 * 3 * 4 * 5


@pytest.mark.parametrize("n_heads", [1, 4])
@pytest.mark.parametrize("n", [8, 100])
def test_self_attention_flops_match_multi_head_attention(n, n_heads):
    d = 32
    layer = tl.MultiHeadAttention(d, n_heads).to("meta")
    x = torch.empty(1, n, d, device="meta")
    assert _counted(lambda: layer(x, x, x)) == flops.self_attention_flops(n, d, output_projection=True)


def test_self_attention_flops_without_output_projection():
    assert flops.self_attention_flops(10, 4) == 6 * 10 * 4**2 + 4 * 10**2 * 4


@pytest.mark.parametrize(("n_keys", "temperature"), [(16, 1.0), (4, 0.5), (100, 2.0)])
def test_cosine_bound_is_reached_and_never_exceeded(n_keys, temperature):
    bound = float(flops.cosine_attention_max_weight(n_keys, temperature))
    extreme_scores = torch.full((n_keys,), -1.0 / temperature, dtype=torch.float64)
    extreme_scores[0] = 1.0 / temperature  # one key along the query, the rest against it
    assert math.isclose(torch.softmax(extreme_scores, 0)[0].item(), bound, rel_tol=1e-12)
    generator = torch.Generator().manual_seed(0)
    q = torch.randn(500, 1, 8, generator=generator, dtype=torch.float64)
    k = torch.randn(500, n_keys, 8, generator=generator, dtype=torch.float64)
    cosines = F.cosine_similarity(q, k, dim=-1)  # (500, n_keys)
    assert torch.softmax(cosines / temperature, dim=-1).max().item() <= bound + 1e-12


def test_the_oddness_step_fails_with_a_bias():
    # the step "s(q, k) + s(-q, -k) = 0" of additive_attention_structure holds because the score has no bias:
    # the same check with a bias inside the tanh must fail
    import sympy as sp

    from book_support.derivations.core import Step

    q, k, beta, w = sp.symbols("q k beta w", real=True)

    def score(x, y, b):
        return w * sp.tanh(x + y + b, evaluate=False)

    assert Step.for_sizes("odd", score(q, k, 0) + score(-q, -k, 0), 0, "d = 1").holds()
    assert not Step.for_sizes("odd", score(q, k, beta) + score(-q, -k, beta), 0, "d = 1").holds()
