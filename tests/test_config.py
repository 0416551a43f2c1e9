"""TransformerConfig: the paper's presets, validation on every construction, immutability.

(Whether each field reaches the model is tested in test_config_fields.py.)
"""

import dataclasses

import pytest
import torch

import transformer_lib as tl

# Vaswani et al. (2017), Table 3, rows "base" and "big" (N, d_model, d_ff, h, d_k = d_v, P_drop)
TABLE_3 = {"base": (6, 512, 2048, 8, 64, 0.1), "big": (6, 1024, 4096, 16, 64, 0.3)}


@pytest.mark.parametrize("row", sorted(TABLE_3))
def test_presets_are_the_rows_of_table_3(row):
    config = getattr(tl.TransformerConfig, row)()
    got = (config.n_encoder_layers, config.d_model, config.d_ff, config.n_heads, config.d_head, config.dropout)
    assert got == TABLE_3[row]
    assert config.n_decoder_layers == config.n_encoder_layers
    # §3.4 and §5.1: one shared source-target vocabulary of about 37000 tokens, tied embeddings scaled by sqrt(d_model)
    assert config.src_vocab_size == config.tgt_vocab_size == 37000
    assert config.share_embeddings and config.scale_embedding
    # the paper's choices that torch.nn does differently: Post-LN, ReLU, sinusoids, no attention or FFN dropout
    assert (config.norm_first, config.activation, config.positional) == (False, "relu", "sinusoidal")
    assert config.attention_dropout == config.ffn_dropout == 0.0


def test_a_preset_takes_changes_and_keeps_the_rest():
    big = tl.TransformerConfig.big(dropout=0.1, src_vocab_size=100, tgt_vocab_size=100)
    assert (big.d_model, big.dropout, big.src_vocab_size) == (1024, 0.1, 100)
    tiny = tl.TransformerConfig.tiny(d_model=32)
    assert (tiny.d_model, tiny.n_heads, tiny.d_head, tiny.max_len) == (32, 4, 8, 128)


def test_every_construction_is_validated():
    base = tl.TransformerConfig.base()
    with pytest.raises(ValueError, match=r"d_model must be divisible by n_heads: got d_model=512, n_heads=7"):
        base.replace(n_heads=7)
    with pytest.raises(ValueError, match=r"share_embeddings=True needs one vocabulary"):
        base.replace(tgt_vocab_size=100)
    with pytest.raises(ValueError, match=r"positional must be one of 'sinusoidal', 'learned', 'none', got 'rotary'"):
        tl.TransformerConfig.tiny(positional="rotary")
    assert base.replace(tgt_vocab_size=100, share_embeddings=False).tgt_vocab_size == 100
    assert tl.config.ACTIVATIONS == ("relu", "gelu", "silu") and tl.config.POSITIONALS == ("sinusoidal", "learned", "none")


def test_a_config_is_frozen_and_compares_by_value():
    config = tl.TransformerConfig.tiny()
    with pytest.raises(dataclasses.FrozenInstanceError):
        config.d_model = 16  # type: ignore[misc]
    assert config == tl.TransformerConfig.tiny() != config.replace(dropout=0.0)
    assert hash(config) == hash(tl.TransformerConfig.tiny())


def test_zero_layers_is_allowed_negative_is_not():
    assert tl.TransformerConfig.tiny(n_encoder_layers=0).n_encoder_layers == 0  # a decoder-only stack
    with pytest.raises(ValueError, match=r"n_decoder_layers must be an int >= 0, got -1"):
        tl.TransformerConfig.tiny(n_decoder_layers=-1)


def test_output_bias_and_silu_reach_every_model_and_default_to_the_old_behaviour():
    config = tl.TransformerConfig.tiny(src_vocab_size=11, tgt_vocab_size=11, dropout=0.0)
    assert config.output_bias is False and "output_bias" not in repr(config)  # chapters print the config's repr
    assert "output_bias=True" in repr(config.replace(output_bias=True))
    for build in (tl.Transformer, tl.DecoderOnlyLM, tl.EncoderOnlyLM):
        assert build(config).output_projection.bias is None
        biased = build(config.replace(output_bias=True)).output_projection
        assert biased.bias is not None and not biased.bias.any()  # starts at 0
    ffn = tl.Transformer(config.replace(activation="silu")).encoder.layers[0].ffn
    assert isinstance(ffn.activation, torch.nn.SiLU)
    with pytest.raises(TypeError, match=r"output_bias must be a bool"):
        tl.TransformerConfig.tiny(output_bias=1)


def test_a_checkpoint_written_before_output_bias_existed_still_loads(tmp_path):
    model = tl.Transformer(tl.TransformerConfig.tiny(dropout=0.0))
    path = tl.save_checkpoint(tmp_path / "old.pt", model=model)
    content = torch.load(path, weights_only=True)
    del content["config"]["output_bias"]  # as written by the library before the field was added
    torch.save(content, path)
    tl.load_checkpoint(path, model=tl.Transformer(tl.TransformerConfig.tiny(dropout=0.0)))
    with pytest.raises(ValueError, match=r"output_bias: checkpoint False, model True"):
        tl.load_checkpoint(path, model=tl.Transformer(tl.TransformerConfig.tiny(dropout=0.0, output_bias=True)))
