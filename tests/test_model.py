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
        "encoder.layers.0.self_attn",
        "encoder.layers.1.self_attn",
        "decoder.layers.0.self_attn",
        "decoder.layers.0.cross_attn",
        "decoder.layers.1.self_attn",
        "decoder.layers.1.cross_attn",
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


# --- the traps of issue 9 (each failed on the old code) -------------------------------


def test_capture_attention_does_not_change_the_output_bit_for_bit():
    """Old: capture_attention switched every module to the explicit kernel (float32 outputs moved ~1e-7)."""
    torch.manual_seed(0)
    model = tl.Transformer(tl.TransformerConfig.tiny(dropout=0.0, d_model=64, n_heads=4, d_ff=128)).eval()
    src, tgt = torch.randint(1, 32, (4, 9)), torch.randint(1, 32, (4, 7))
    with torch.no_grad():
        plain = model(src, tgt, src_mask=tl.padding_mask(src, 0))
        with tl.capture_attention(model) as maps:
            captured = model(src, tgt, src_mask=tl.padding_mask(src, 0))
    assert torch.equal(plain, captured)
    assert len(maps) == 6
    explicit = tl.model.set_attention_kernel(model, "explicit")
    with torch.no_grad():
        torch.testing.assert_close(explicit(src, tgt, src_mask=tl.padding_mask(src, 0)), plain, atol=1e-5, rtol=1e-5)


def test_masks_are_keyword_only_everywhere():
    """Old: Transformer.decode(tgt, memory, src_mask, tgt_mask) passed them on as Decoder(x, memory, tgt_mask,
    memory_mask): two masks swapped by position with S == T raised nothing."""
    config = tl.TransformerConfig.tiny(dropout=0.0)
    model = tl.Transformer(config).eval()
    src, tgt = torch.randint(1, 32, (2, 5)), torch.randint(1, 32, (2, 5))
    mask = tl.padding_mask(src, 0)
    memory = model.encode(src)
    x = torch.randn(2, 5, config.d_model)
    calls = {
        "Transformer.forward": lambda: model(src, tgt, mask),
        "Transformer.encode": lambda: model.encode(src, mask),
        "Transformer.decode": lambda: model.decode(tgt, memory, mask),
        "Encoder.forward": lambda: model.encoder(x, mask),
        "Decoder.forward": lambda: model.decoder(x, memory, mask),
        "EncoderLayer.forward": lambda: model.encoder.layers[0](x, mask),
        "DecoderLayer.forward": lambda: model.decoder.layers[0](x, memory, mask),
        "MultiHeadAttention.forward": lambda: model.encoder.layers[0].self_attn(x, x, x, mask),
        "DecoderOnlyLM.forward": lambda: tl.DecoderOnlyLM(config)(tgt, mask),
        "EncoderOnlyLM.forward": lambda: tl.EncoderOnlyLM(config)(tgt, mask),
    }
    for name, call in calls.items():
        with pytest.raises(TypeError, match=r"positional argument"):
            call()
        assert name


def test_decoder_combines_a_padding_tgt_mask_with_the_causal_mask():
    """Old: Decoder applied the causal mask only when tgt_mask was None (chapter 5 printed LEAKS for this)."""
    torch.manual_seed(0)
    model = tl.Transformer(tl.TransformerConfig.tiny(dropout=0.0)).double().eval()
    src, tgt = torch.randint(1, 32, (2, 5)), torch.randint(1, 32, (2, 6))
    tgt_mask = tl.padding_mask(tgt, 0)
    reference = model(src, tgt, tgt_mask=tl.decoder_mask(tgt, 0))
    torch.testing.assert_close(model(src, tgt, tgt_mask=tgt_mask), reference, rtol=0, atol=0)
    leaky = model(src, tgt, tgt_mask=tgt_mask, causal=False)
    assert not torch.allclose(leaky, reference)  # the named opt-out does what it says
    with pytest.raises(TypeError, match=r"causal must be a bool"):
        model(src, tgt, causal=1)


def test_one_output_projection_helper_ties_every_model():
    config = tl.TransformerConfig.tiny(share_embeddings=True)
    for model, embedding in [
        (tl.Transformer(config), "tgt_embed"),
        (tl.DecoderOnlyLM(config), "embed"),
        (tl.EncoderOnlyLM(config), "embed"),
        (tl.SpeechTransformer(config, n_features=4), "tgt_embed"),
    ]:
        assert model.output_projection.weight is getattr(model, embedding).weight
        assert model.output_projection.bias is None
    untied = tl.DecoderOnlyLM(config.replace(share_embeddings=False))
    assert untied.output_projection.weight is not untied.embed.weight
    with pytest.raises(ValueError, match=r"tie_to must have a \(7, 64\) weight to tie, got \(32, 64\)"):
        tl.model.output_projection(64, 7, tie_to=untied.embed)
