"""Scaled dot-product, additive and multi-head attention: values, masks, paths."""

import math

import pytest
import torch
import torch.nn.functional as F

import transformer_lib as tl


def test_explicit_formula_on_a_small_example():
    q = torch.tensor([[1.0, 0.0], [0.0, 2.0]])
    k = torch.tensor([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
    v = torch.tensor([[1.0], [2.0], [3.0]])
    out, weights = tl.attend(q, k, v)
    scores = torch.tensor([[1.0, 0.0, 1.0], [0.0, 2.0, 2.0]]) / math.sqrt(2)
    expected_weights = scores.exp() / scores.exp().sum(-1, keepdim=True)
    torch.testing.assert_close(weights, expected_weights)
    torch.testing.assert_close(out, expected_weights @ v)


def test_equals_torch_functional_sdpa():
    q, k, v = (torch.randn(2, 3, 5, 8, dtype=torch.float64) for _ in range(3))
    mask = torch.rand(2, 1, 5, 5) > 0.3
    mask[..., 0] = True  # every row sees a key, so torch gives no NaN
    out, _ = tl.attend(q, k, v, mask)
    torch.testing.assert_close(out, F.scaled_dot_product_attention(q, k, v, attn_mask=mask), atol=1e-12, rtol=1e-12)


def test_weights_are_a_convex_combination():
    q, k, v = torch.randn(4, 6, 16), torch.randn(4, 9, 16), torch.randn(4, 9, 3)
    mask = torch.rand(4, 6, 9) > 0.5
    mask[:, :, 0] = True
    _, weights = tl.attend(q, k, v, mask)
    assert (weights >= 0).all()
    torch.testing.assert_close(weights.sum(-1), torch.ones(4, 6))
    assert (weights[~mask] == 0).all()


@pytest.mark.parametrize("need_weights", [False, True])
def test_fully_masked_rows_give_zeros_not_nan(need_weights):
    mha = tl.MultiHeadAttention(16, 4)
    x = torch.randn(2, 5, 16, requires_grad=True)
    mask = torch.ones(2, 1, 5, 5, dtype=torch.bool)
    mask[0, 0, 2] = False  # query 2 of sequence 0 sees nothing
    out, weights = mha(x, x, x, mask=mask, need_weights=need_weights)
    assert torch.isfinite(out).all()
    # with every key masked, the head outputs are 0, so the row is the out_proj bias (zero at init)
    torch.testing.assert_close(out[0, 2], mha.out_proj.bias.expand(16))
    if need_weights:
        assert (weights[0, :, 2] == 0).all()
        torch.testing.assert_close(weights[0, :, 1].sum(-1), torch.ones(4))
    out.sum().backward()
    assert torch.isfinite(x.grad).all()


def test_functional_fully_masked_row_and_gradient():
    q = torch.randn(3, 4, requires_grad=True)
    k, v = torch.randn(5, 4), torch.randn(5, 2)
    mask = torch.ones(3, 5, dtype=torch.bool)
    mask[1] = False
    out, weights = tl.attend(q, k, v, mask)
    assert (out[1] == 0).all() and (weights[1] == 0).all()
    out.sum().backward()
    assert torch.isfinite(q.grad).all() and (q.grad[1] == 0).all()


@pytest.mark.parametrize("masking", ["none", "causal", "padding"])
def test_fast_and_explicit_paths_agree(masking):
    mha = tl.MultiHeadAttention(32, 4).double()
    x = torch.randn(3, 6, 32, dtype=torch.float64)
    mask = {"none": None, "causal": tl.causal_mask(6), "padding": torch.rand(3, 1, 1, 6) > 0.3}[masking]
    fast, _ = mha(x, x, x, mask=mask, kernel="fused")
    explicit, _ = mha(x, x, x, mask=mask, kernel="explicit")
    torch.testing.assert_close(fast, explicit, atol=1e-10, rtol=1e-10)


def test_attention_dropout_only_in_training():
    mha = tl.MultiHeadAttention(16, 2, dropout=0.5)
    x = torch.randn(2, 4, 16)
    mha.eval()
    a, _ = mha(x, x, x)
    b, _ = mha(x, x, x)
    torch.testing.assert_close(a, b)
    mha.train()
    c, _ = mha(x, x, x)
    assert not torch.allclose(a, c)


def test_multi_head_equals_independent_heads():
    """The reshape into heads is the same as h separate attentions with their own W_i."""
    D, H = 12, 3
    mha = tl.MultiHeadAttention(D, H).double()
    x = torch.randn(2, 5, D, dtype=torch.float64)
    out, _ = mha(x, x, x)
    Dh = D // H
    heads = []
    for i in range(H):
        rows = slice(i * Dh, (i + 1) * Dh)
        q = x @ mha.q_proj.weight[rows].T + mha.q_proj.bias[rows]
        k = x @ mha.k_proj.weight[rows].T + mha.k_proj.bias[rows]
        v = x @ mha.v_proj.weight[rows].T + mha.v_proj.bias[rows]
        heads.append(tl.attend(q, k, v)[0])
    expected = mha.out_proj(torch.cat(heads, dim=-1))
    torch.testing.assert_close(out, expected, atol=1e-12, rtol=1e-12)


def test_additive_attention_matches_its_formula():
    torch.manual_seed(3)
    attn = tl.AdditiveAttention(query_dim=3, key_dim=5, hidden_dim=7).double()
    q, k, v = torch.randn(2, 4, 3).double(), torch.randn(2, 6, 5).double(), torch.randn(2, 6, 2).double()
    out, weights = attn(q, k, v)
    w_q, w_k, w = attn.query_proj.weight, attn.key_proj.weight, attn.score_proj.weight[0]
    scores = torch.empty(2, 4, 6, dtype=torch.float64)
    for b in range(2):
        for i in range(4):
            for j in range(6):
                scores[b, i, j] = w @ torch.tanh(w_q @ q[b, i] + w_k @ k[b, j])
    torch.testing.assert_close(weights, scores.softmax(-1))
    torch.testing.assert_close(out, scores.softmax(-1) @ v)


def test_additive_attention_masks():
    attn = tl.AdditiveAttention(4, 4, 8)
    q, k, v = torch.randn(1, 2, 4), torch.randn(1, 3, 4), torch.randn(1, 3, 4)
    mask = torch.tensor([[[True, False, True], [False, False, False]]])
    out, weights = attn(q, k, v, mask)
    assert weights[0, 0, 1] == 0 and (weights[0, 1] == 0).all() and (out[0, 1] == 0).all()


@pytest.mark.parametrize("kernel", [None, "explicit"])
def test_need_weights_does_not_change_the_output(kernel):
    """Old: need_weights=True switched the fused kernel to the explicit one; now the kernel is chosen apart."""
    torch.manual_seed(0)
    mha = tl.MultiHeadAttention(64, 4) if kernel is None else tl.MultiHeadAttention(64, 4, kernel=kernel)
    mha.eval()
    x = torch.randn(3, 11, 64)
    mask = torch.rand(3, 1, 1, 11) > 0.3
    without, none = mha(x, x, x, mask=mask)
    with_weights, weights = mha(x, x, x, mask=mask, need_weights=True)
    assert none is None and torch.equal(without, with_weights)
    explicit_weights = tl.masked_softmax(
        mha.split_heads(mha.q_proj(x)) @ mha.split_heads(mha.k_proj(x)).transpose(-2, -1) / 4.0, mask
    )  # d_k = 16
    torch.testing.assert_close(weights, explicit_weights)
    assert weights.shape == (3, 4, 11, 11)


def test_kernel_choice_and_bad_input():
    mha = tl.MultiHeadAttention(16, 2).double()
    x = torch.randn(2, 5, 16, dtype=torch.float64)
    fused, _ = mha(x, x, x)
    explicit, _ = mha(x, x, x, kernel="explicit")
    torch.testing.assert_close(fused, explicit, atol=1e-12, rtol=0)
    with pytest.raises(ValueError, match=r"kernel must be one of 'fused', 'explicit', got 'flash'"):
        tl.MultiHeadAttention(16, 2, kernel="flash")
    with pytest.raises(ValueError, match=r"kernel must be one of 'fused', 'explicit', got 'fast'"):
        mha(x, x, x, kernel="fast")
    with pytest.raises(TypeError, match=r"d_model must be an int, got float \(16.0\)"):
        tl.MultiHeadAttention(16.0, 4)


def test_fused_attention_without_fully_masked_rows_is_the_plain_kernel_bit_for_bit():
    """Off the CPU the fix-up for fully masked rows runs without asking: where no row is, it changes nothing."""
    g = torch.Generator().manual_seed(0)
    q, k, v = (torch.randn(2, 2, 5, 4, generator=g) for _ in range(3))
    for mask in (tl.causal_mask(5), torch.rand(2, 1, 1, 5, generator=g) > 0.3):
        mask = mask | torch.eye(5, dtype=torch.bool)  # every query sees at least itself
        no_visible_key = ~mask.any(dim=-1, keepdim=True)
        expected = F.scaled_dot_product_attention(q, k, v, attn_mask=mask)
        fixed_up = F.scaled_dot_product_attention(q, k, v, attn_mask=mask | no_visible_key).masked_fill(no_visible_key, 0.0)
        assert torch.equal(fixed_up, expected)
        assert torch.equal(tl.attention._fused_attention(q, k, v, mask, 0.0), expected)
