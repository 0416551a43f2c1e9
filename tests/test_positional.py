"""Sinusoidal table, positional modules and token embeddings."""

import math

import torch

import transformer_lib as tl


def test_table_matches_the_formula():
    table = tl.sinusoidal_table(50, 8, dtype=torch.float64)
    for pos in (0, 1, 17, 49):
        for i in range(4):
            angle = pos / 10000 ** (2 * i / 8)
            assert math.isclose(table[pos, 2 * i].item(), math.sin(angle), abs_tol=1e-15)
            assert math.isclose(table[pos, 2 * i + 1].item(), math.cos(angle), abs_tol=1e-15)


def test_position_zero_and_range():
    table = tl.sinusoidal_table(100, 16)
    assert table[0, 0::2].eq(0).all() and table[0, 1::2].eq(1).all()
    assert table.abs().max() <= 1.0


def test_relative_position_is_a_rotation():
    """PE(pos + k) = R(k) PE(pos) for every sin/cos pair (chapter 6)."""
    d, k = 8, 5
    table = tl.sinusoidal_table(40, d, dtype=torch.float64)
    for i in range(d // 2):
        w = 1 / 10000 ** (2 * i / d)
        rotation = torch.tensor([[math.cos(k * w), math.sin(k * w)], [-math.sin(k * w), math.cos(k * w)]], dtype=torch.float64)
        pair = table[:, 2 * i : 2 * i + 2]
        torch.testing.assert_close(pair[k:], pair[:-k] @ rotation.T)


def test_sinusoidal_module_adds_table():
    module = tl.SinusoidalPositionalEncoding(6, max_len=10).eval()
    x = torch.zeros(2, 4, 6)
    torch.testing.assert_close(module(x), tl.sinusoidal_table(10, 6)[:4].expand(2, 4, 6))


def test_token_embedding_is_scaled_lookup():
    emb = tl.TokenEmbedding(7, 4)
    tokens = torch.tensor([[0, 3, 6]])
    one_hot = torch.nn.functional.one_hot(tokens, 7).float()
    torch.testing.assert_close(emb(tokens), one_hot @ emb.weight * 2.0)  # sqrt(4) = 2
    assert tl.TokenEmbedding(7, 4, scale=False)(tokens).shape == (1, 3, 4)


def test_learned_positions_have_parameters():
    module = tl.LearnedPositionalEncoding(4, max_len=6)
    assert sum(p.numel() for p in module.parameters()) == 24


def test_double_model_gets_a_float64_accurate_table():
    module = tl.SinusoidalPositionalEncoding(8, max_len=50).double()
    x = torch.zeros(1, 50, 8, dtype=torch.float64)
    torch.testing.assert_close(module(x)[0], tl.sinusoidal_table(50, 8, dtype=torch.float64), atol=0, rtol=0)
    assert module.float()(x.float()).dtype == torch.float32
