"""The full models: parameter counts, weight tying, shapes, causality, attention capture."""

import pytest
import torch

import transformer_lib as tl

PAPER_PARAMETERS = {"base": 65e6, "big": 213e6}  # Table 3 of the paper


@pytest.mark.parametrize("preset", ["base", "big"])
def test_presets_reproduce_table_3_parameter_counts(preset):
    config = getattr(tl.TransformerConfig, preset)()
    with torch.device("meta"):  # count without allocating 0.9 GB
        model = tl.Transformer(config)
    count = tl.count_parameters(model)
    relative = count / PAPER_PARAMETERS[preset] - 1
    print(f"{preset}: {count:,} parameters, paper {PAPER_PARAMETERS[preset]:,.0f}, difference {relative:+.2%}")
    assert abs(relative) < 0.05


def test_base_count_by_formula():
    V, D, F, N = 37000, 512, 2048, 6
    attention = 4 * (D * D + D)
    ffn = D * F + F + F * D + D
    expected = V * D + N * (attention + ffn + 2 * 2 * D) + N * (2 * attention + ffn + 3 * 2 * D)
    with torch.device("meta"):
        assert tl.count_parameters(tl.Transformer(tl.TransformerConfig.base())) == expected == 63_082_496


def test_three_way_weight_tying():
    model = tl.Transformer(tl.TransformerConfig.tiny())
    assert model.src_embed.weight is model.tgt_embed.weight is model.output_projection.weight
    untied = tl.Transformer(tl.TransformerConfig.tiny(share_embeddings=False, tgt_vocab_size=40))
    D = 64
    # untied: source (32 x D), target (40 x D) and output (40 x D) matrices; tied: one (32 x D) matrix
    assert tl.count_parameters(untied) - tl.count_parameters(model) == (32 + 40 + 40) * D - 32 * D


def test_forward_shapes_and_encode_decode_split():
    config = tl.TransformerConfig.tiny(dropout=0.0)
    model = tl.Transformer(config).eval()
    src = torch.randint(1, 32, (3, 7))
    tgt = torch.randint(1, 32, (3, 5))
    logits = model(src, tgt)
    assert logits.shape == (3, 5, 32)
    memory = model.encode(src)
    assert memory.shape == (3, 7, 64)
    torch.testing.assert_close(model.output_projection(model.decode(tgt, memory)), logits)


def test_decoder_is_causal_by_default():
    model = tl.Transformer(tl.TransformerConfig.tiny(dropout=0.0)).eval()
    src = torch.randint(1, 32, (2, 6))
    tgt = torch.randint(1, 32, (2, 5))
    changed = tgt.clone()
    changed[:, 3:] = (changed[:, 3:] + 1) % 32
    a, b = model(src, tgt), model(src, changed)
    torch.testing.assert_close(a[:, :3], b[:, :3])
    assert not torch.allclose(a[:, 3:], b[:, 3:])


def test_padding_in_source_does_not_change_output():
    model = tl.Transformer(tl.TransformerConfig.tiny(dropout=0.0)).eval()
    src = torch.tensor([[5, 6, 7, 0, 0]])
    other_padding = torch.tensor([[5, 6, 7, 9, 3]])  # different tokens in the padded slots
    tgt = torch.tensor([[1, 2, 3]])
    mask = tl.padding_mask(src, 0)
    torch.testing.assert_close(model(src, tgt, src_mask=mask), model(other_padding, tgt, src_mask=mask))


def test_decoder_only_lm_is_causal_and_tied():
    lm = tl.DecoderOnlyLM(tl.TransformerConfig.tiny(dropout=0.0)).eval()
    assert lm.output_projection.weight is lm.embed.weight
    tokens = torch.randint(0, 32, (2, 6))
    changed = tokens.clone()
    changed[:, 4] = (changed[:, 4] + 1) % 32
    a, b = lm(tokens), lm(changed)
    assert a.shape == (2, 6, 32)
    torch.testing.assert_close(a[:, :4], b[:, :4])


def test_pre_ln_model_has_final_norms():
    model = tl.Transformer(tl.TransformerConfig.tiny(norm_first=True))
    assert model.encoder.norm is not None and model.decoder.norm is not None
    assert tl.Transformer(tl.TransformerConfig.tiny()).encoder.norm is None


def test_capture_attention_records_every_module_and_removes_hooks():
    model = tl.Transformer(tl.TransformerConfig.tiny(dropout=0.0)).eval()
    src, tgt = torch.randint(1, 32, (2, 6)), torch.randint(1, 32, (2, 4))
    with tl.capture_attention(model) as maps:
        logits = model(src, tgt)
    assert set(maps) == {
        "encoder.layers.0.self_attn", "encoder.layers.1.self_attn",
        "decoder.layers.0.self_attn", "decoder.layers.0.cross_attn",
        "decoder.layers.1.self_attn", "decoder.layers.1.cross_attn",
    }
    assert maps["decoder.layers.1.cross_attn"].shape == (2, 4, 4, 6)
    assert maps["decoder.layers.0.self_attn"][0, 0].triu(1).abs().sum() == 0  # causal
    torch.testing.assert_close(logits, model(src, tgt))  # same output with and without capture
    for module in model.modules():
        assert not module._forward_hooks and not module._forward_pre_hooks


def test_learned_and_no_positions():
    for positional in ("learned", "none"):
        model = tl.Transformer(tl.TransformerConfig.tiny(positional=positional))
        assert model(torch.randint(0, 32, (1, 4)), torch.randint(0, 32, (1, 3))).shape == (1, 3, 32)
    learned = tl.Transformer(tl.TransformerConfig.tiny(positional="learned"))
    sinusoidal = tl.Transformer(tl.TransformerConfig.tiny())
    assert tl.count_parameters(learned) - tl.count_parameters(sinusoidal) == 128 * 64


def test_format_table_and_rounded():
    text = tl.format_table(["d_k", "variance"], [[4, 3.98765], [64, -0.00001]], digits=2)
    assert text.splitlines() == ["d_k  variance", "---  --------", "  4      3.99", " 64      0.00"]
    with pytest.raises(ValueError, match="every row must have 2 cells"):
        tl.format_table(["a", "b"], [[1]])
    assert tl.rounded(-0.00001, 3) == 0.0 and str(tl.rounded(-0.00001, 3)) == "0.0"
    assert tl.rounded({"a": [1.23456]}, 2) == {"a": [1.23]}
