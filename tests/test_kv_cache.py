"""Incremental decoding with a KV cache: the same tokens as re-running the whole prefix.

Checked in float64 and float32, Post-LN and Pre-LN, with padded sources,
sequences that end (<eos>) at different steps, beam search (whose hypotheses
change parents, so the cache must be reordered) and sampling. Book: chapter 14.
"""

import pytest
import torch

import transformer_lib as tl

PAD, BOS, EOS = 0, 1, 2
V = 13


def _config(norm_first=False, **changes):
    return tl.TransformerConfig.tiny(
        src_vocab_size=V,
        tgt_vocab_size=V,
        d_model=32,
        n_heads=4,
        d_ff=64,
        max_len=40,
        dropout=0.1,
        norm_first=norm_first,
        **changes,
    )


def _model(dtype, norm_first=False, seed=0):
    torch.manual_seed(seed)
    model = tl.Transformer(_config(norm_first)).to(dtype)
    with torch.no_grad():
        model.output_projection.weight[EOS] *= 1.4  # <eos> likely enough that sequences end mid-batch
    return model


def _padded_source(seed=1, B=7, S=9):
    g = torch.Generator().manual_seed(seed)
    src = torch.randint(3, V, (B, S), generator=g)
    for b, length in enumerate(torch.randint(1, S + 1, (B,), generator=g).tolist()):
        src[b, length:] = PAD
    return src


def _ended_at(out):
    return [row.tolist().index(EOS) + 1 if EOS in row.tolist() else None for row in out]


@pytest.mark.parametrize("dtype", [torch.float64, torch.float32])
@pytest.mark.parametrize("norm_first", [False, True])
def test_greedy_cached_equals_uncached(dtype, norm_first):
    model = _model(dtype, norm_first)
    src = _padded_source()
    mask = tl.padding_mask(src, PAD)
    cached = tl.greedy_decode(model, src, bos_id=BOS, eos_id=EOS, max_new_tokens=30, src_mask=mask)
    uncached = tl.greedy_decode(model, src, bos_id=BOS, eos_id=EOS, max_new_tokens=30, src_mask=mask, use_cache=False)
    assert torch.equal(cached, uncached)
    ends = _ended_at(cached)
    finished = [e for e in ends if e is not None]
    assert finished and (None in ends or max(finished) > min(finished))  # <eos> mid-batch: others go on


@pytest.mark.parametrize("dtype", [torch.float64, torch.float32])
def test_beam_search_cached_equals_uncached_and_needs_the_reordering(dtype, monkeypatch):
    model = _model(dtype, seed=3)
    src = _padded_source(seed=4)
    mask = tl.padding_mask(src, PAD)
    kwargs = dict(beam_size=4, alpha=0.6, src_mask=mask)
    cached = tl.beam_search(model, src, bos_id=BOS, eos_id=EOS, max_new_tokens=25, **kwargs)
    assert torch.equal(cached, tl.beam_search(model, src, bos_id=BOS, eos_id=EOS, max_new_tokens=25, use_cache=False, **kwargs))
    # the reordering matters here: without it each hypothesis would keep another's past
    monkeypatch.setattr(tl.attention.KVCache, "reorder", lambda self, index: None)
    assert not torch.equal(cached, tl.beam_search(model, src, bos_id=BOS, eos_id=EOS, max_new_tokens=25, **kwargs))


def test_speech_model_decodes_the_same_with_the_cache():
    torch.manual_seed(0)
    model = tl.SpeechTransformer(_config(norm_first=True), n_features=6).double()
    features = torch.randn(5, 14, 6, dtype=torch.float64)
    for decode in (tl.greedy_decode, tl.beam_search):
        cached = decode(model, features, bos_id=BOS, eos_id=EOS, max_new_tokens=20)
        assert torch.equal(cached, decode(model, features, bos_id=BOS, eos_id=EOS, max_new_tokens=20, use_cache=False))


@pytest.mark.parametrize("dtype", [torch.float64, torch.float32])
def test_sampling_cached_equals_uncached(dtype):
    torch.manual_seed(5)
    lm = tl.DecoderOnlyLM(_config()).to(dtype)
    prompt = torch.randint(3, V, (6, 3), generator=torch.Generator().manual_seed(2))
    for options in (dict(temperature=1.0), dict(top_k=3, eos_id=EOS), dict(top_k=1)):
        cached = tl.sample(lm, prompt, max_new_tokens=25, generator=torch.Generator().manual_seed(9), **options)
        uncached = tl.sample(
            lm, prompt, max_new_tokens=25, generator=torch.Generator().manual_seed(9), use_cache=False, **options
        )
        assert torch.equal(cached, uncached), options


def test_incremental_states_equal_the_full_pass():
    model = _model(torch.float64).eval()
    src, tgt = _padded_source(), torch.randint(3, V, (7, 8))
    mask = tl.padding_mask(src, PAD)
    with torch.no_grad():
        memory = model.encode(src, src_mask=mask)
        full = model.decode(tgt, memory, src_mask=mask)
        cache = tl.attention.KVCache()
        first = model.decode(tgt[:, :3], memory, src_mask=mask, cache=cache)  # a prompt of 3, then one by one
        steps = [model.decode(tgt[:, : t + 1], memory, src_mask=mask, cache=cache) for t in range(3, 8)]
    assert cache.length == 8 and first.shape == (7, 3, 32) and all(s.shape == (7, 1, 32) for s in steps)
    torch.testing.assert_close(torch.cat([first, *steps], dim=1), full, rtol=0, atol=1e-12)
    lm = tl.DecoderOnlyLM(_config()).double().eval()
    with torch.no_grad():
        cache = tl.attention.KVCache()
        pieces = [lm(tgt[:, :2], cache=cache)] + [lm(tgt[:, : t + 1], cache=cache) for t in range(2, 8)]
        torch.testing.assert_close(torch.cat(pieces, dim=1), lm(tgt), rtol=0, atol=1e-12)


@pytest.mark.parametrize("positional", ["sinusoidal", "learned", "none"])
def test_each_step_embeds_only_its_new_position(positional, monkeypatch):
    """The cached step looks up and positions one token, at its offset, and gets the full pass's states."""
    torch.manual_seed(0)
    model = tl.Transformer(_config(positional=positional)).double().eval()
    src, tgt = _padded_source(), torch.randint(3, V, (7, 6))
    mask = tl.padding_mask(src, PAD)
    seen = []
    original = model.tgt_embed.forward
    monkeypatch.setattr(model.tgt_embed, "forward", lambda tokens: seen.append(tokens.shape[1]) or original(tokens))
    with torch.no_grad():
        memory = model.encode(src, src_mask=mask)
        full = model.decode(tgt, memory, src_mask=mask)
        seen.clear()
        cache = tl.attention.KVCache()
        steps = [model.decode(tgt[:, : t + 1], memory, src_mask=mask, cache=cache) for t in range(6)]
    assert seen == [1] * 6  # not 1, 2, ..., 6: the prefix is not re-embedded
    torch.testing.assert_close(torch.cat(steps, dim=1), full, rtol=0, atol=1e-12)


def test_cross_attention_keys_and_values_are_computed_once(monkeypatch):
    model = _model(torch.float64).eval()
    src = _padded_source()
    calls = {"cross": 0}
    cross = model.decoder.layers[0].cross_attn
    original = cross.k_proj.forward

    def counting(x):
        calls["cross"] += 1
        return original(x)

    monkeypatch.setattr(cross.k_proj, "forward", counting)
    tl.greedy_decode(model, src, bos_id=BOS, eos_id=EOS, max_new_tokens=12, src_mask=tl.padding_mask(src, PAD))
    assert calls["cross"] == 1
    calls["cross"] = 0
    out = tl.greedy_decode(
        model, src, bos_id=BOS, eos_id=EOS, max_new_tokens=12, src_mask=tl.padding_mask(src, PAD), use_cache=False
    )
    assert calls["cross"] == out.shape[1]  # once per step without the cache


def test_use_cache_must_be_a_bool():
    model = _model(torch.float64)
    with pytest.raises(TypeError, match=r"use_cache must be a bool \(True or False\), got int \(1\)"):
        tl.greedy_decode(model, _padded_source(), bos_id=BOS, eos_id=EOS, max_new_tokens=3, use_cache=1)


@pytest.mark.parametrize("out_len", [1, 3, 6])
def test_cached_decoding_does_the_flops_of_the_cost_formula(out_len):
    """FlopCounterMode on the explicit kernel equals tl.counting.greedy_decode_flops, cached and uncached."""
    from torch.utils.flop_counter import FlopCounterMode

    config = tl.TransformerConfig(
        src_vocab_size=50,
        tgt_vocab_size=50,
        d_model=32,
        n_heads=2,
        d_ff=64,
        n_encoder_layers=2,
        n_decoder_layers=2,
        dropout=0.0,
        max_len=64,
    )
    model = tl.model.set_attention_kernel(tl.Transformer(config).eval(), "explicit")
    src = torch.randint(4, 50, (2, 7), generator=torch.Generator().manual_seed(0))
    for cached in (False, True):
        with FlopCounterMode(display=False) as counter:
            tl.greedy_decode(model, src, max_new_tokens=out_len, bos_id=1, eos_id=-1, use_cache=cached)  # every step runs
        expected = tl.counting.greedy_decode_flops(7, out_len, 32, 64, 2, 2, 50, batch=2, cached=cached)
        assert counter.get_total_flops() == expected, cached
