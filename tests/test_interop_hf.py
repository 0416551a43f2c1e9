"""tl.interop_hf: Hugging Face's MarianMTModel and BertLayer/BertEncoder, converted, compute what they computed.

Small random models built from configs (nothing downloaded), in float64, every parameter
(biases, LayerNorms, final_logits_bias) filled with random values so a misplaced tensor shows.
Marian builds its sinusoid table in float32 even in a float64 model; the library's is exact,
so the comparisons give Marian the exact table too (its own float32 one is tested apart).
"""

from __future__ import annotations

import pytest
import torch

import transformer_lib as tl
from transformer_lib.interop_hf import from_bert_encoder, from_bert_layer, from_marian, marian_permutation, to_marian

transformers = pytest.importorskip("transformers")

V, PAD, EOS, D, MAX_LEN = 23, 22, 0, 16, 32
TIGHT = 1e-12  # float64: what rounding alone leaves


def _marian(seed=0, **changes):
    values = dict(
        vocab_size=V,
        d_model=D,
        encoder_layers=2,
        decoder_layers=2,
        encoder_attention_heads=2,
        decoder_attention_heads=2,
        encoder_ffn_dim=24,
        decoder_ffn_dim=24,
        max_position_embeddings=MAX_LEN,
        activation_function="swish",  # opus-mt's
        scale_embedding=True,  # opus-mt's
        pad_token_id=PAD,
        decoder_start_token_id=PAD,
        eos_token_id=EOS,
        forced_eos_token_id=EOS,
        dropout=0.0,
        attn_implementation="eager",
    )
    values.update(changes)
    torch.manual_seed(seed)
    hf = transformers.MarianMTModel(transformers.MarianConfig(**values)).double().eval()
    g = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for name, p in hf.named_parameters():
            if "embed_positions" not in name:  # the sinusoids stay sinusoids
                p.copy_(0.5 * torch.randn(p.shape, generator=g, dtype=p.dtype))
        hf.final_logits_bias.copy_(torch.randn(hf.final_logits_bias.shape, generator=g, dtype=torch.float64))
    return hf


def _exact_positions(hf):
    """Marian's table computed in float64 (Marian rounds it to float32), in Marian's sin-then-cos layout."""
    table = tl.sinusoidal_table(MAX_LEN, D, torch.float64)[:, torch.argsort(marian_permutation(D))]
    with torch.no_grad():
        hf.model.encoder.embed_positions.weight.copy_(table)
        hf.model.decoder.embed_positions.weight.copy_(table)
    return hf


def _batch(seed=1, B=3, S=7, T=5):
    g = torch.Generator().manual_seed(seed)
    src = torch.randint(1, PAD, (B, S), generator=g)
    src[1, 5:] = PAD  # padding
    src[2, 3:] = PAD
    tgt = torch.cat([torch.full((B, 1), PAD), torch.randint(1, PAD, (B, T - 1), generator=g)], dim=1)  # starts at pad
    return src, tgt


def _logits_gap(hf, ours, src, tgt):
    with torch.no_grad():
        theirs = hf(input_ids=src, attention_mask=(src != PAD).long(), decoder_input_ids=tgt).logits
        mine = ours.eval()(src, tgt, src_mask=tl.padding_mask(src, PAD))
    return float((theirs - mine).abs().max())


def test_marian_logits_agree_to_rounding():
    hf = _exact_positions(_marian())
    ours = from_marian(hf)
    assert ours.config.activation == "silu" and ours.config.output_bias and ours.config.share_embeddings
    assert ours.config.scale_embedding and not ours.config.norm_first and ours.config.layer_norm_eps == 1e-5
    assert _logits_gap(hf, ours, *_batch()) < TIGHT


def test_marian_own_float32_table_is_the_only_difference():
    hf = _marian()  # Marian's own table: float32 sinusoids in a float64 model
    gap = _logits_gap(hf, from_marian(hf), *_batch())
    assert 1e-12 < gap < 1e-6  # float32 rounding of the table (6e-8 per entry), carried through the model


def test_each_conversion_step_matters():
    """Without the permutation, the bias, swish or the sqrt(D) scale the logits differ."""
    hf = _exact_positions(_marian())
    src, tgt = _batch()
    right = from_marian(hf)
    assert _logits_gap(hf, right, src, tgt) < TIGHT
    state = right.state_dict()
    wrong = {
        "activation relu for swish": right.config.replace(activation="relu"),
        "no final_logits_bias": right.config.replace(output_bias=False),
        "no sqrt(D) embedding scale": right.config.replace(scale_embedding=False),
    }
    for reason, config in wrong.items():
        model = tl.Transformer(config).double()
        model.load_state_dict(state, strict=False)
        assert _logits_gap(hf, model, src, tgt) > 1e-3, reason
    unpermuted = tl.Transformer(right.config).double()  # Marian's weights as they are, read with the interleaved table
    unpermuted.load_state_dict(_unpermuted_state(right, perm=marian_permutation(D)))
    assert _logits_gap(hf, unpermuted, src, tgt) > 1e-3, "sinusoid layouts not reconciled"


def _unpermuted_state(model, perm):
    """``model``'s weights with the D-axis permutation undone: Marian's own numbers in the library's places."""
    inverse = torch.argsort(perm)
    state = {}
    for key, value in model.state_dict().items():
        if value.dim() == 2 and value.shape[1] == D and "ffn.linear2" not in key and "out_proj" not in key:
            value = value[:, inverse]
        elif value.shape[0] == D and ("out_proj" in key or "linear2" in key or "norm" in key):
            value = value[inverse]
        state[key] = value
    return state


def _hf_generate(hf, src, max_new_tokens, **kwargs):
    with torch.no_grad():
        return hf.generate(
            input_ids=src,
            attention_mask=(src != PAD).long(),
            do_sample=False,
            max_new_tokens=max_new_tokens,
            decoder_start_token_id=PAD,
            pad_token_id=PAD,
            eos_token_id=EOS,
            **kwargs,
        )


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_greedy_decoding_matches_generate(seed):
    """Same tokens, once the conventions are lined up: Marian starts from the pad id (bos_id=PAD),
    generate's output keeps that start token (dropped here), and generate forces <eos> at the limit."""
    hf = _exact_positions(_marian(seed))
    ours = from_marian(hf)
    src, _ = _batch(seed + 10, B=4)
    L = 8
    mine = tl.greedy_decode(ours, src, max_new_tokens=L, bos_id=PAD, eos_id=EOS, src_mask=tl.padding_mask(src, PAD), pad_id=PAD)
    theirs = _hf_generate(hf, src, L, num_beams=1, forced_eos_token_id=None)
    assert torch.equal(theirs[:, 1:], mine)
    forced = _hf_generate(hf, src, L, num_beams=1, forced_eos_token_id=EOS)[:, 1:]
    unfinished = (mine != EOS).all(dim=1)
    expected = mine.clone()
    expected[unfinished, -1] = EOS  # Marian's forced <eos> replaces the last token of a sequence cut at the limit
    assert torch.equal(forced, expected)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_beam_search_matches_generate_without_length_penalty(seed):
    """With alpha = 0 both rank by log P; HF's length_penalty=0 divides by L^0 and the library's by ((5+L)/6)^0."""
    hf = _exact_positions(_marian(seed))
    ours = from_marian(hf)
    src, _ = _batch(seed + 20, B=3)
    L, K = 6, 3
    mine = tl.beam_search(
        ours,
        src,
        max_new_tokens=L,
        bos_id=PAD,
        eos_id=EOS,
        beam_size=K,
        alpha=0.0,
        src_mask=tl.padding_mask(src, PAD),
        pad_id=PAD,
    )
    theirs = _hf_generate(hf, src, L, num_beams=K, length_penalty=0.0, early_stopping=True, forced_eos_token_id=None)
    assert torch.equal(theirs[:, 1 : 1 + mine.shape[1]], mine)


def test_one_cached_decoder_step_matches():
    hf = _exact_positions(_marian())
    ours = from_marian(hf).eval()
    src, tgt = _batch()
    src_mask, attention_mask = tl.padding_mask(src, PAD), (src != PAD).long()
    with torch.no_grad():
        prefix = hf(input_ids=src, attention_mask=attention_mask, decoder_input_ids=tgt[:, :-1], use_cache=True)
        step = hf(
            encoder_outputs=(prefix.encoder_last_hidden_state,),
            attention_mask=attention_mask,
            decoder_input_ids=tgt[:, -1:],
            cache=prefix.cache,
            use_cache=True,
        ).logits[:, -1]
        memory = ours.encode(src, src_mask=src_mask)
        cache = tl.KVCache()
        ours.decode(tgt[:, :-1], memory, src_mask=src_mask, cache=cache)
        mine = ours.output_projection(ours.decode(tgt, memory, src_mask=src_mask, cache=cache))[:, -1]
    assert float((step - mine).abs().max()) < TIGHT


@pytest.mark.parametrize("activation", ["relu", "gelu", "silu"])
@pytest.mark.parametrize("share", [True, False])
def test_round_trip_through_marian_is_exact(activation, share):
    config = tl.TransformerConfig.tiny(
        src_vocab_size=V, tgt_vocab_size=V if share else V + 4, share_embeddings=share, activation=activation, dropout=0.0
    )
    torch.manual_seed(0)
    ours = tl.Transformer(config).double().eval()
    hf = to_marian(ours, pad_id=PAD, eos_id=EOS).eval()
    src, tgt = _batch()
    with torch.no_grad():
        theirs = hf(input_ids=src, attention_mask=(src != PAD).long(), decoder_input_ids=tgt).logits
        mine = ours(src, tgt, src_mask=tl.padding_mask(src, PAD))
    assert float((theirs - mine).abs().max()) < TIGHT
    back = from_marian(hf)
    assert back.config == config.replace(output_bias=True)
    for key, value in ours.state_dict().items():
        assert torch.equal(back.state_dict()[key], value), key
    assert not back.output_projection.bias.any()


def _bert(seed=0, **changes):
    values = dict(
        vocab_size=V,
        hidden_size=D,
        num_hidden_layers=2,
        num_attention_heads=2,
        intermediate_size=24,
        max_position_embeddings=MAX_LEN,
        hidden_dropout_prob=0.0,
        attention_probs_dropout_prob=0.0,
        attn_implementation="eager",
    )
    values.update(changes)
    torch.manual_seed(seed)
    encoder = transformers.BertModel(transformers.BertConfig(**values)).encoder.double().eval()
    g = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for p in encoder.parameters():
            p.copy_(0.5 * torch.randn(p.shape, generator=g, dtype=p.dtype))
    return encoder


def _bert_inputs():
    g = torch.Generator().manual_seed(3)
    x = torch.randn(3, 6, D, generator=g, dtype=torch.float64)
    keep = torch.ones(3, 6, dtype=torch.bool)
    keep[1, 4:] = False
    keep[2, 2:] = False
    additive = torch.zeros(3, 1, 1, 6, dtype=torch.float64).masked_fill(~keep[:, None, None, :], torch.finfo(torch.float64).min)
    return x, keep[:, None, None, :], additive


@pytest.mark.parametrize("hidden_act", ["gelu", "relu"])
def test_bert_layer_and_encoder_match_with_a_padding_mask(hidden_act):
    encoder = _bert(hidden_act=hidden_act)
    x, mask, additive = _bert_inputs()
    ours_layer = from_bert_layer(encoder.layer[0]).eval()
    ours_encoder = from_bert_encoder(encoder).eval()
    assert ours_layer.norm1.eps == 1e-12 and ours_encoder.norm is None
    with torch.no_grad():
        layer_gap = (encoder.layer[0](x, additive) - ours_layer(x, mask=mask)).abs()
        stack_gap = (encoder(x, additive).last_hidden_state - ours_encoder(x, src_mask=mask)).abs()
    assert float(layer_gap.max()) < TIGHT and float(stack_gap.max()) < TIGHT


def test_bert_layer_norm_eps_matters():
    encoder = _bert()
    x, mask, additive = _bert_inputs()
    ours = from_bert_layer(encoder.layer[0]).eval()
    for norm in (ours.norm1, ours.norm2):
        norm.eps = 1e-5  # the library's default instead of BERT's 1e-12
    with torch.no_grad():
        gap = (encoder.layer[0](x, additive) - ours(x, mask=mask)).abs().max()
    assert float(gap) > 1e-9


def test_what_cannot_be_converted_is_refused_by_name():
    with pytest.raises(TypeError, match=r"theirs must be a transformers MarianMTModel.*got Linear"):
        from_marian(torch.nn.Linear(2, 2))
    with pytest.raises(TypeError, match=r"theirs must be a transformers BertLayer"):
        from_bert_layer(torch.nn.Linear(2, 2))
    with pytest.raises(ValueError, match=r"activation_function must be one of .* got 'gelu_new'"):
        from_marian(_marian(activation_function="gelu_new"))
    with pytest.raises(ValueError, match=r"encoder_ffn_dim=24, decoder_ffn_dim=32"):
        from_marian(_marian(decoder_ffn_dim=32))
    hf = _marian()
    with torch.no_grad():
        hf.model.encoder.embed_positions.weight.add_(0.01)
    with pytest.raises(ValueError, match=r"embed_positions.weight is not the sinusoidal table"):
        from_marian(hf)
    with pytest.raises(ValueError, match=r"hidden_act must be one of .* got 'gelu_new'"):
        from_bert_encoder(_bert(hidden_act="gelu_new"))
    config = tl.TransformerConfig.tiny(src_vocab_size=V, tgt_vocab_size=V)
    with pytest.raises(ValueError, match=r"norm_first=True \(Marian has False\)"):
        to_marian(tl.Transformer(config.replace(norm_first=True)), pad_id=PAD, eos_id=EOS)
    with pytest.raises(ValueError, match=r"pad_id must be an id in both vocabularies \(< 23\), got 23"):
        to_marian(tl.Transformer(config), pad_id=V, eos_id=EOS)
    with pytest.raises(TypeError, match=r"ours must be a transformer_lib.Transformer, got DecoderOnlyLM"):
        to_marian(tl.DecoderOnlyLM(config), pad_id=PAD, eos_id=EOS)


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
def test_a_half_precision_marian_loads(dtype):
    # a review found float16 and bfloat16 models refused as 'not the sinusoidal table' (their table is the
    # sinusoids rounded to the model's precision); the check allows that rounding and nothing more
    hf = _marian().to(dtype)
    ours = from_marian(hf)
    assert ours.output_projection.weight.dtype == dtype
    with torch.no_grad():
        hf.model.encoder.embed_positions.weight.add_(0.1)
    with pytest.raises(ValueError, match=r"embed_positions.weight is not the sinusoidal table"):
        from_marian(hf)
