"""Sinusoidal table, positional modules and token embeddings."""

import math

import pytest
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


# --- odd widths and the edges of each module ---------------------------------------------------------------


def test_sinusoidal_refuses_an_odd_width_and_names_it():
    with pytest.raises(ValueError, match=r"d_model must be even \(sin/cos pairs\), got 7"):
        tl.sinusoidal_table(10, 7)
    with pytest.raises(ValueError, match=r"d_model must be even \(sin/cos pairs\), got 7"):
        tl.SinusoidalPositionalEncoding(7)
    with pytest.raises(ValueError, match=r"sinusoidal positions need an even d_model, got d_model=15"):
        tl.TransformerConfig.tiny(d_model=15, n_heads=3)


def test_learned_positions_at_an_odd_width_add_row_t_to_position_t():
    module = tl.LearnedPositionalEncoding(5, max_len=6).eval()
    x = torch.randn(2, 4, 5)
    torch.testing.assert_close(module(x), x + module.embedding.weight[:4], rtol=0, atol=0)
    config = tl.TransformerConfig.tiny(d_model=15, n_heads=3, positional="learned", dropout=0.0)
    model = tl.Transformer(config).eval()  # an odd width is fine without sin/cos pairs
    src = torch.randint(4, config.src_vocab_size, (2, 5))
    assert model(src, src).shape == (2, 5, config.tgt_vocab_size)


def test_token_embedding_scale_and_initial_size_at_an_odd_width():
    emb = tl.TokenEmbedding(3000, 25)
    tokens = torch.tensor([[0, 7, 2999]])
    torch.testing.assert_close(emb(tokens), emb.weight[tokens] * 5.0, rtol=0, atol=0)  # sqrt(25)
    # weights start as N(0, 1/D): after the sqrt(D) scale the entries have unit variance
    assert abs(float(emb.weight.detach().std()) - 25**-0.5) < 0.01
    assert abs(float(emb(torch.arange(3000)[None]).detach().std()) - 1.0) < 0.05
    learned = tl.LearnedPositionalEncoding(25, max_len=3000)
    assert abs(float(learned.embedding.weight.detach().std()) - 25**-0.5) < 0.01


@pytest.mark.parametrize("module", [tl.SinusoidalPositionalEncoding(6, max_len=4), tl.LearnedPositionalEncoding(5, max_len=4)])
def test_positions_up_to_max_len_exactly(module):
    d = module.d_model
    assert module(torch.zeros(1, 4, d)).shape == (1, 4, d)  # T = max_len is allowed
    with pytest.raises(ValueError, match=r"x has 5 positions but the positional encoding covers max_len=4"):
        module(torch.zeros(1, 5, d))


def test_positional_dropout_acts_on_the_sum_in_training_only():
    module = tl.SinusoidalPositionalEncoding(8, max_len=16, dropout=0.5)
    x = torch.ones(64, 16, 8)
    torch.manual_seed(0)
    out = module.train()(x)
    total = x + tl.sinusoidal_table(16, 8)
    kept = out != 0
    assert 0.4 < float(kept.float().mean()) < 0.6
    torch.testing.assert_close(out[kept], (total * 2.0)[kept])  # survivors scaled by 1 / (1 - p)
    torch.testing.assert_close(module.eval()(x), total)


@pytest.mark.parametrize("kind", ["sinusoidal", "learned"])
def test_offset_adds_the_rows_of_the_positions_it_names(kind):
    """Incremental decoding embeds only new positions: rows offset ... offset + T - 1 of the full pass."""
    torch.manual_seed(0)
    module = tl.SinusoidalPositionalEncoding(8, max_len=10) if kind == "sinusoidal" else tl.LearnedPositionalEncoding(8, 10)
    x = torch.randn(2, 10, 8)
    full = module(x)
    torch.testing.assert_close(module(x[:, 6:9], offset=6), full[:, 6:9], rtol=0, atol=0)
    assert module(x[:, 9:], offset=9).shape == (2, 1, 8)  # the last position, max_len - 1
    with pytest.raises(ValueError, match=r"x has positions 8\.\.10 but the positional encoding covers max_len=10"):
        module(x[:, :3], offset=8)
    with pytest.raises(ValueError, match=r"offset must be .*>= 0"):
        module(x[:, :1], offset=-1)
    with pytest.raises(TypeError, match=r"offset must be an int"):
        module(x[:, :1], offset=1.0)


def test_no_positions_has_the_same_limits_as_the_tables():
    layer = tl.Transformer(tl.TransformerConfig.tiny(positional="none", max_len=10, dropout=0.0)).positional
    x = torch.randn(2, 3, 64)
    assert torch.equal(layer(x, offset=7), x)  # positions 7, 8, 9: no signal added
    with pytest.raises(ValueError, match=r"x has positions 8\.\.10 but the positional encoding covers max_len=10"):
        layer(x, offset=8)
    with pytest.raises(TypeError, match=r"offset must be an int"):
        layer(x, offset=1.0)
