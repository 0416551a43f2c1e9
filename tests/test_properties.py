"""Property tests (hypothesis): masking invariants, permutation equivariance, shapes."""

import torch
from hypothesis import given, settings
from hypothesis import strategies as st

import transformer_lib as tl

SETTINGS = settings(max_examples=40, deadline=None)


@st.composite
def attention_case(draw):
    B = draw(st.integers(1, 3))
    H = draw(st.sampled_from([1, 2, 4]))
    Dh = draw(st.sampled_from([2, 4]))
    Tq = draw(st.integers(1, 6))
    Tk = draw(st.integers(1, 6))
    seed = draw(st.integers(0, 2**16))
    return B, H, Dh, Tq, Tk, seed


@SETTINGS
@given(attention_case(), st.floats(0.0, 1.0))
def test_masked_keys_have_no_influence(case, keep):
    """Changing a masked key or value never changes the output."""
    B, H, Dh, Tq, Tk, seed = case
    g = torch.Generator().manual_seed(seed)
    q, k, v = (torch.randn(B, H, T, Dh, generator=g, dtype=torch.float64) for T in (Tq, Tk, Tk))
    mask = torch.rand(B, 1, Tq, Tk, generator=g) < keep
    out, weights = tl.attend(q, k, v, mask)
    noise = torch.randn(B, H, Tk, Dh, generator=g, dtype=torch.float64)
    hidden = (~mask.any(dim=2))[..., None]  # keys that no query may see: (B, 1, Tk, 1)
    k2, v2 = k + noise * hidden, v + noise * hidden
    out2, _ = tl.attend(q, k2, v2, mask)
    torch.testing.assert_close(out, out2)
    assert torch.isfinite(out).all()
    assert (weights.masked_select(~mask.expand_as(weights)) == 0).all()
    visible = mask.any(-1).expand(B, H, Tq)
    torch.testing.assert_close(weights.sum(-1)[visible], torch.ones(int(visible.sum()), dtype=torch.float64))


@SETTINGS
@given(attention_case())
def test_self_attention_is_permutation_equivariant(case):
    """Without positions, permuting the tokens permutes the output the same way."""
    B, H, Dh, T, _, seed = case
    torch.manual_seed(seed)
    D = H * Dh
    mha = tl.MultiHeadAttention(D, H).double()
    x = torch.randn(B, T, D, dtype=torch.float64)
    perm = torch.randperm(T)
    out, _ = mha(x, x, x)
    out_perm, _ = mha(x[:, perm], x[:, perm], x[:, perm])
    torch.testing.assert_close(out_perm, out[:, perm], atol=1e-12, rtol=1e-12)


@SETTINGS
@given(st.integers(1, 8), st.integers(0, 2**16))
def test_causal_decoder_never_sees_the_future(T, seed):
    torch.manual_seed(seed)
    model = tl.Transformer(tl.TransformerConfig.tiny(dropout=0.0, n_encoder_layers=1, n_decoder_layers=1)).eval()
    src = torch.randint(0, 32, (2, 5))
    tgt = torch.randint(0, 32, (2, T))
    t = int(torch.randint(0, T, ()))
    changed = tgt.clone()
    changed[:, t:] = torch.randint(0, 32, (2, T - t))
    torch.testing.assert_close(model(src, tgt)[:, :t], model(src, changed)[:, :t])


@SETTINGS
@given(attention_case(), st.booleans())
def test_output_shapes(case, need_weights):
    B, H, Dh, Tq, Tk, _ = case
    D = H * Dh
    mha = tl.MultiHeadAttention(D, H)
    q, kv = torch.randn(B, Tq, D), torch.randn(B, Tk, D)
    out, weights = mha(q, kv, kv, need_weights=need_weights)
    assert out.shape == (B, Tq, D)
    assert (weights is None) != need_weights
    if need_weights:
        assert weights.shape == (B, H, Tq, Tk)


@SETTINGS
@given(st.integers(1, 6), st.integers(1, 5), st.integers(0, 2**16))
def test_padding_mask_marks_exactly_the_pads(B, S, seed):
    g = torch.Generator().manual_seed(seed)
    tokens = torch.randint(0, 4, (B, S), generator=g)
    mask = tl.padding_mask(tokens, pad_id=0)
    assert torch.equal(mask[:, 0, 0], tokens != 0)
