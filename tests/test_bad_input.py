"""Bad input fails early with a ValueError/TypeError that names the argument,
the expected shape or type, and what was received."""

import pytest
import torch

import transformer_lib as tl


@pytest.fixture
def mha():
    return tl.MultiHeadAttention(16, 4)


@pytest.fixture
def model():
    return tl.Transformer(tl.TransformerConfig.tiny(src_vocab_size=10, tgt_vocab_size=10, max_len=8)).eval()


def test_d_model_not_divisible_by_heads():
    with pytest.raises(ValueError, match=r"d_model must be divisible by n_heads: got d_model=10, n_heads=3"):
        tl.MultiHeadAttention(10, 3)
    with pytest.raises(ValueError, match=r"d_model=512, n_heads=7"):
        tl.TransformerConfig.base(n_heads=7)


def test_wrong_width(mha):
    x = torch.randn(2, 5, 12)
    with pytest.raises(ValueError, match=r"query must have shape \(B, Tq, D=16\) .*got shape \(2, 5, 12\)"):
        mha(x, x, x)


def test_wrong_rank(mha):
    x = torch.randn(5, 16)
    with pytest.raises(ValueError, match=r"query must have shape \(B, Tq, D=16\) \(rank 3\), got shape \(5, 16\) \(rank 2\)"):
        mha(x, x, x)


def test_key_value_mismatch(mha):
    q, k, v = torch.randn(2, 5, 16), torch.randn(2, 4, 16), torch.randn(2, 3, 16)
    with pytest.raises(ValueError, match=r"key and value must have the same shape"):
        mha(q, k, v)


def test_integer_input_to_attention(mha):
    x = torch.ones(2, 5, 16, dtype=torch.long)
    with pytest.raises(TypeError, match=r"query must be a floating-point tensor .* got dtype torch.int64"):
        mha(x, x, x)


def test_mask_not_broadcastable(mha):
    x = torch.randn(2, 5, 16)
    with pytest.raises(ValueError, match=r"mask must be broadcastable to \(B, H, Tq, Tk\) = \(2, 4, 5, 5\), got shape \(5, 4\)"):
        mha(x, x, x, mask=torch.ones(5, 4, dtype=torch.bool))
    with pytest.raises(ValueError, match=r"got shape \(1, 1, 2, 4, 5, 5\)"):
        mha(x, x, x, mask=torch.ones(1, 1, 2, 4, 5, 5, dtype=torch.bool))


@pytest.mark.parametrize("dtype", [torch.float32, torch.float16, torch.int64])
def test_float_or_integer_mask_refused(mha, dtype):
    x = torch.randn(2, 5, 16)
    with pytest.raises(TypeError, match=r"mask must have dtype torch.bool.*True = may attend"):
        mha(x, x, x, mask=torch.zeros(5, 5, dtype=dtype))
    with pytest.raises(TypeError, match=r"mask must have dtype torch.bool"):
        tl.attend(x, x, x, torch.zeros(5, 5, dtype=dtype))


def test_non_integer_token_ids(model):
    with pytest.raises(TypeError, match=r"tokens must hold integer token ids \(torch.long\), got dtype torch.float32"):
        model(torch.zeros(2, 3), torch.zeros(2, 3, dtype=torch.long))


def test_token_ids_out_of_range(model):
    src = torch.tensor([[1, 2, 10]])
    with pytest.raises(ValueError, match=r"tokens must hold ids in \[0, 10\) \(vocabulary size 10\), got ids from 1 to 10"):
        model(src, torch.tensor([[1]]))
    with pytest.raises(ValueError, match=r"got ids from -1 to 2"):
        model(torch.tensor([[-1, 2]]), torch.tensor([[1]]))


def test_token_ids_wrong_rank(model):
    with pytest.raises(ValueError, match=r"tokens must have shape \(B, T\), got shape \(3,\) \(rank 1\)"):
        model.encode(torch.tensor([1, 2, 3]))


def test_empty_sequences(model, mha):
    with pytest.raises(ValueError, match=r"at least one token"):
        model.encode(torch.zeros(2, 0, dtype=torch.long))
    with pytest.raises(ValueError, match=r"empty sequence"):
        x = torch.randn(2, 0, 16)
        mha(x, x, x)
    with pytest.raises(ValueError, match=r"empty sequence"):
        tl.attend(torch.randn(0, 4), torch.randn(3, 4), torch.randn(3, 4))


def test_sequence_longer_than_max_len(model):
    with pytest.raises(ValueError, match=r"x has 9 positions but the positional encoding covers max_len=8"):
        model.encode(torch.ones(1, 9, dtype=torch.long))


def test_functional_shape_mismatch():
    with pytest.raises(ValueError, match=r"q and k must share d_k"):
        tl.attend(torch.randn(3, 4), torch.randn(3, 5), torch.randn(3, 5))
    with pytest.raises(ValueError, match=r"k and v must have the same length Tk"):
        tl.attend(torch.randn(3, 4), torch.randn(3, 4), torch.randn(2, 4))
    with pytest.raises(TypeError, match=r"q must be a torch.Tensor"):
        tl.attend([[1.0]], torch.randn(1, 1), torch.randn(1, 1))


def test_bad_config_values():
    with pytest.raises(TypeError, match=r"d_model must be an int, got float"):
        tl.TransformerConfig.tiny(d_model=64.0)
    with pytest.raises(ValueError, match=r"dropout must be in \[0, 1\)"):
        tl.TransformerConfig.tiny(dropout=1.5)
    with pytest.raises(ValueError, match=r"share_embeddings=True needs one vocabulary"):
        tl.TransformerConfig.tiny(src_vocab_size=10, tgt_vocab_size=12)
    with pytest.raises(ValueError, match=r"activation must be one of"):
        tl.TransformerConfig.tiny(activation="tanh")
    with pytest.raises(TypeError, match=r"config must be a TransformerConfig"):
        tl.Transformer({"d_model": 64})


def test_bad_positional_arguments():
    with pytest.raises(ValueError, match=r"d_model must be even"):
        tl.sinusoidal_table(10, 5)
    with pytest.raises(ValueError, match=r"max_len must be a positive int"):
        tl.sinusoidal_table(0, 4)


def test_feed_forward_wrong_width():
    ffn = tl.PositionwiseFeedForward(8, 16)
    with pytest.raises(ValueError, match=r"x must have shape \(\.\.\., D=8\) with last dimension 8, got shape \(2, 3, 4\)"):
        ffn(torch.randn(2, 3, 4))


def test_memory_batch_mismatch():
    layer = tl.DecoderLayer(16, 4, 32)
    with pytest.raises(ValueError, match=r"key and value must have the same shape \(B=2"):
        layer(torch.randn(2, 3, 16), torch.randn(3, 4, 16))


def test_seed_outside_the_generators_range():
    """Failed on the old code: NumPy's own ``ValueError: Seed must be between 0 and 2**32 - 1`` (not naming seed)."""
    for seed in (-1, 2**32, 10**23):
        with pytest.raises(ValueError, match=rf"seed must be an int in \[0, 2\*\*32 - 1\] .*, got {seed}"):
            tl.set_seed(seed)
    tl.set_seed(2**32 - 1)  # the largest one works
