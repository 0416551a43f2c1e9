"""Mask builders and the converters to torch.nn's opposite convention."""

import pytest
import torch

import transformer_lib as tl


def test_causal_mask_is_lower_triangular():
    expected = torch.tensor([[1, 0, 0], [1, 1, 0], [1, 1, 1]], dtype=torch.bool)
    assert torch.equal(tl.causal_mask(3), expected)


def test_padding_mask_shape_and_values():
    tokens = torch.tensor([[5, 6, 0], [7, 0, 0]])
    mask = tl.padding_mask(tokens, pad_id=0)
    assert mask.shape == (2, 1, 1, 3)
    assert mask[:, 0, 0].tolist() == [[True, True, False], [True, False, False]]


def test_decoder_mask_combines_padding_and_causality():
    tgt = torch.tensor([[1, 2, 0]])
    mask = tl.decoder_mask(tgt, pad_id=0)
    assert mask.shape == (1, 1, 3, 3)
    assert mask[0, 0].tolist() == [[True, False, False], [True, True, False], [True, True, False]]


def test_to_additive():
    additive = tl.to_additive(tl.causal_mask(2))
    assert additive.tolist() == [[0.0, float("-inf")], [0.0, 0.0]]


def test_torch_converters_invert_and_round_trip():
    mask = tl.causal_mask(4)
    assert torch.equal(tl.to_torch_attn_mask(mask), ~mask)
    assert torch.equal(tl.from_torch_attn_mask(tl.to_torch_attn_mask(mask)), mask)
    pad = tl.padding_mask(torch.tensor([[3, 0]]), 0)
    kpm = tl.to_key_padding_mask(pad)
    assert kpm.tolist() == [[False, True]]
    assert torch.equal(tl.from_key_padding_mask(kpm), pad)


@pytest.mark.parametrize("size", [0, -1])
def test_causal_mask_rejects_empty(size):
    with pytest.raises(ValueError, match="size must be a positive int, got"):
        tl.causal_mask(size)


def test_converters_reject_wrong_input():
    with pytest.raises(TypeError, match=r"torch\.bool"):
        tl.to_torch_attn_mask(torch.zeros(3, 3))
    with pytest.raises(ValueError, match=r"\(Tq, Tk\)"):
        tl.to_torch_attn_mask(torch.ones(1, 3, 3, dtype=torch.bool))
    with pytest.raises(ValueError, match=r"\(B, 1, 1, S\)"):
        tl.to_key_padding_mask(torch.ones(2, 3, dtype=torch.bool))
    with pytest.raises(TypeError, match="integer tensor"):
        tl.padding_mask(torch.zeros(2, 3), 0)


def test_band_mask_keeps_offsets_up_to_the_radius():
    mask = tl.band_mask(5, 1)
    expected = torch.tensor([[abs(i - j) <= 1 for j in range(5)] for i in range(5)])
    assert mask.dtype == torch.bool and torch.equal(mask, expected)
    assert torch.equal(tl.band_mask(4, 0), torch.eye(4, dtype=torch.bool))
    assert bool(tl.band_mask(4, 3).all())
    assert torch.equal(tl.band_mask(6, 2) & tl.causal_mask(6), tl.band_mask(6, 2).tril())
    with pytest.raises(ValueError, match="radius must be an int >= 0, got -1"):
        tl.band_mask(4, -1)
    with pytest.raises(TypeError, match="size must be an int"):
        tl.band_mask(4.0, 1)


# --- messages for the two commonest mask mistakes -------------------------------------------------------


def test_key_padding_shaped_mask_points_to_padding_mask():
    mha = tl.MultiHeadAttention(16, 4)
    x, memory = torch.randn(2, 5, 16), torch.randn(2, 7, 16)
    tokens = torch.tensor([[5, 6, 7, 0, 0, 0, 0], [5, 6, 7, 8, 9, 4, 0]])
    key_padding = tokens != 0  # (B, S): the shape torch.nn's key_padding_mask has
    with pytest.raises(ValueError, match=r"got shape \(2, 7\)\. A \(B, S\) mask is a key-padding mask") as info:
        mha(x, memory, memory, mask=key_padding)
    message = str(info.value)
    assert "tl.padding_mask(tokens, pad_id)" in message and "mask[:, None, None, :]" in message
    assert "tl.from_key_padding_mask" in message
    # the advice works: both suggested forms are accepted and mean the same thing
    out_index = mha(x, memory, memory, mask=key_padding[:, None, None, :])[0]
    out_helper = mha(x, memory, memory, mask=tl.padding_mask(tokens, 0))[0]
    assert torch.equal(out_index, out_helper)


def test_key_padding_hint_for_rank_three_targets_gives_the_right_index():
    q, k = torch.randn(2, 5, 8), torch.randn(2, 7, 8)
    with pytest.raises(ValueError, match=r"give it the shape \(B, 1, S\) with `mask\[:, None, :\]`") as info:
        tl.attend(q, k, k, torch.ones(2, 7, dtype=torch.bool))
    assert "padding_mask" not in str(info.value)  # a (B, 1, 1, S) mask would not fit a (B, Tq, Tk) target


def test_a_mask_of_another_wrong_shape_gets_no_padding_hint():
    mha = tl.MultiHeadAttention(16, 4)
    x = torch.randn(2, 5, 16)
    with pytest.raises(ValueError, match=r"got shape \(3, 5\)$"):
        mha(x, x, x, mask=torch.ones(3, 5, dtype=torch.bool))


def test_float_mask_message_gives_both_conversions():
    mha = tl.MultiHeadAttention(16, 4)
    x = torch.randn(2, 5, 16)
    one_means_attend = tl.causal_mask(5).float()  # 1 = attend, 0 = blocked
    with pytest.raises(TypeError) as info:
        mha(x, x, x, mask=one_means_attend)
    message = str(info.value)
    assert "with 1 = attend: convert with `mask.bool()`" in message
    assert "additive mask (0 = attend, -inf" in message
    # the conversion it gives for this mask is the right one
    assert torch.equal(one_means_attend.bool(), tl.causal_mask(5))


def test_additive_float_mask_message_says_mask_eq_zero_only():
    mha = tl.MultiHeadAttention(16, 4)
    x = torch.randn(2, 5, 16)
    additive = tl.to_additive(tl.causal_mask(5))  # 0 / -inf
    with pytest.raises(TypeError, match=r"negative entries, so it looks like an additive mask") as info:
        mha(x, x, x, mask=additive)
    assert "mask.bool()" not in str(info.value)  # would turn -inf into True = attend
    assert torch.equal(additive == 0, tl.causal_mask(5))
