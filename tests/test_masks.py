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
