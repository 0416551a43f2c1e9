"""Parity with torch.nn: same weights (copied through tl.interop), same outputs.

float64 to 1e-10 and float32 to 1e-5, with padding and causal masks, for the
paper's Post-LN and for Pre-LN.
"""

import pytest
import torch
from torch import nn

import transformer_lib as tl

TOLERANCE = {torch.float64: 1e-10, torch.float32: 1e-5}
B, S, T, D, H, F = 3, 7, 5, 32, 4, 64


def _inputs(dtype):
    g = torch.Generator().manual_seed(1)
    src = torch.randn(B, S, D, generator=g, dtype=dtype)
    tgt = torch.randn(B, T, D, generator=g, dtype=dtype)
    lengths = torch.tensor([S, S - 2, 3])
    key_is_real = torch.arange(S)[None, :] < lengths[:, None]  # (B, S)
    return src, tgt, key_is_real


def _close(ours, theirs, dtype):
    assert ours.dtype == theirs.dtype == dtype
    torch.testing.assert_close(ours, theirs, atol=TOLERANCE[dtype], rtol=TOLERANCE[dtype])


@pytest.mark.parametrize("dtype", [torch.float64, torch.float32])
@pytest.mark.parametrize("need_weights", [False, True])
@pytest.mark.parametrize("masking", ["none", "causal", "padding", "both"])
def test_multi_head_attention_equals_torch(dtype, need_weights, masking):
    ours = tl.MultiHeadAttention(D, H).to(dtype).eval()
    theirs = tl.interop.to_torch_mha(ours).eval()
    x, _, key_is_real = _inputs(dtype)
    x = x[:, :S]
    mask = None
    torch_kwargs = {}
    if masking in ("causal", "both"):
        mask = tl.causal_mask(S)
        torch_kwargs["attn_mask"] = tl.to_torch_attn_mask(mask)
    if masking in ("padding", "both"):
        pad = key_is_real[:, None, None, :]
        mask = pad if mask is None else mask & pad
        torch_kwargs["key_padding_mask"] = tl.to_key_padding_mask(pad)
    out, weights = ours(x, x, x, mask=mask, need_weights=need_weights)
    expected, expected_weights = theirs(x, x, x, need_weights=True, average_attn_weights=False, **torch_kwargs)
    _close(out, expected, dtype)
    if need_weights:
        _close(weights, expected_weights, dtype)
    else:
        assert weights is None


@pytest.mark.parametrize("dtype", [torch.float64, torch.float32])
def test_cross_attention_equals_torch(dtype):
    ours = tl.MultiHeadAttention(D, H).to(dtype).eval()
    theirs = tl.interop.to_torch_mha(ours).eval()
    memory, tgt, key_is_real = _inputs(dtype)
    mask = key_is_real[:, None, None, :]
    out, _ = ours(tgt, memory, memory, mask=mask)
    expected, _ = theirs(tgt, memory, memory, key_padding_mask=tl.to_key_padding_mask(mask), need_weights=False)
    _close(out, expected, dtype)


def test_copy_from_torch_round_trip():
    theirs = nn.MultiheadAttention(D, H, batch_first=True).double().eval()
    ours = tl.interop.from_torch_mha(theirs).eval()
    x = torch.randn(2, 4, D, dtype=torch.float64)
    _close(ours(x, x, x)[0], theirs(x, x, x, need_weights=False)[0], torch.float64)
    back = tl.interop.to_torch_mha(ours)
    for name, p in theirs.state_dict().items():
        torch.testing.assert_close(back.state_dict()[name], p, atol=0, rtol=0)


@pytest.mark.parametrize("dtype", [torch.float64, torch.float32])
@pytest.mark.parametrize("norm_first", [False, True])
@pytest.mark.parametrize("activation", ["relu", "gelu"])
def test_encoder_layer_equals_torch(dtype, norm_first, activation):
    ours = tl.EncoderLayer(D, H, F, dropout=0.1, activation=activation, norm_first=norm_first).to(dtype).eval()
    theirs = tl.interop.to_torch_encoder_layer(ours).eval()
    src, _, key_is_real = _inputs(dtype)
    mask = key_is_real[:, None, None, :]
    out = ours(src, mask=mask)
    expected = theirs(src, src_key_padding_mask=tl.to_key_padding_mask(mask))
    _close(out, expected, dtype)
    back = tl.interop.from_torch_encoder_layer(theirs).eval()
    _close(back(src, mask=mask), expected, dtype)


@pytest.mark.parametrize("dtype", [torch.float64, torch.float32])
@pytest.mark.parametrize("norm_first", [False, True])
def test_decoder_layer_equals_torch(dtype, norm_first):
    ours = tl.DecoderLayer(D, H, F, dropout=0.1, norm_first=norm_first).to(dtype).eval()
    theirs = tl.interop.to_torch_decoder_layer(ours).eval()
    memory, tgt, key_is_real = _inputs(dtype)
    memory_mask = key_is_real[:, None, None, :]
    tgt_mask = tl.causal_mask(T)
    out = ours(tgt, memory, tgt_mask=tgt_mask, src_mask=memory_mask)
    expected = theirs(
        tgt,
        memory,
        tgt_mask=tl.to_torch_attn_mask(tgt_mask),
        memory_key_padding_mask=tl.to_key_padding_mask(memory_mask),
    )
    _close(out, expected, dtype)
    back = tl.interop.from_torch_decoder_layer(theirs).eval()
    _close(back(tgt, memory, tgt_mask=tgt_mask, src_mask=memory_mask), expected, dtype)


@pytest.mark.parametrize("dtype", [torch.float64, torch.float32])
@pytest.mark.parametrize("norm_first", [False, True])
def test_encoder_and_decoder_stacks_equal_torch(dtype, norm_first):
    config = tl.TransformerConfig.tiny(
        d_model=D, n_heads=H, d_ff=F, n_encoder_layers=3, n_decoder_layers=2, norm_first=norm_first
    )
    encoder = tl.Encoder(config).to(dtype).eval()
    decoder = tl.Decoder(config).to(dtype).eval()
    torch_encoder = tl.interop.to_torch_encoder(encoder).eval()
    torch_decoder = tl.interop.to_torch_decoder(decoder).eval()
    assert (torch_encoder.norm is None) == (not norm_first)  # the paper's Post-LN stack has no final norm
    src, tgt, key_is_real = _inputs(dtype)
    src_mask = key_is_real[:, None, None, :]
    memory = encoder(src, src_mask=src_mask)
    expected_memory = torch_encoder(src, src_key_padding_mask=tl.to_key_padding_mask(src_mask))
    _close(memory, expected_memory, dtype)
    out = decoder(tgt, memory, src_mask=src_mask)  # always causal
    expected = torch_decoder(
        tgt,
        expected_memory,
        tgt_mask=tl.to_torch_attn_mask(tl.causal_mask(T)),
        memory_key_padding_mask=tl.to_key_padding_mask(src_mask),
    )
    _close(out, expected, dtype)


def test_gradients_equal_torch():
    ours = tl.EncoderLayer(D, H, F, dropout=0.0).double()
    theirs = tl.interop.to_torch_encoder_layer(ours)
    x = torch.randn(2, 6, D, dtype=torch.float64)
    mask = tl.causal_mask(6)
    ours(x, mask=mask).square().sum().backward()
    theirs(x, src_mask=tl.to_torch_attn_mask(mask)).square().sum().backward()
    expected_q = theirs.self_attn.in_proj_weight.grad[:D]
    torch.testing.assert_close(ours.self_attn.q_proj.weight.grad, expected_q, atol=1e-10, rtol=1e-10)
    torch.testing.assert_close(ours.ffn.linear1.weight.grad, theirs.linear1.weight.grad, atol=1e-10, rtol=1e-10)


def test_interop_refuses_mismatched_modules():
    with pytest.raises(ValueError, match="sizes differ"):
        tl.interop.copy_mha_to_torch(tl.MultiHeadAttention(D, H), nn.MultiheadAttention(D, 2))
    with pytest.raises(TypeError, match="must be a"):
        tl.interop.to_torch_mha(nn.Linear(3, 3))
    with pytest.raises(ValueError, match="batch_first"):
        tl.interop.from_torch_encoder_layer(nn.TransformerEncoderLayer(D, H, F))
