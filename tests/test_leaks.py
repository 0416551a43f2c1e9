"""Leak tests (hypothesis): no position sees the future, no query sees padding.

A model is causal when changing the inputs after position t changes nothing at
positions <= t. These properties are checked for the decoder stack, the full
encoder-decoder model with padding, and the decoder-only language model, in
both attention paths (fused and explicit), together with negative controls
that show the test catches a missing or inverted mask. Book: chapter 5.
"""

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

import transformer_lib as tl

SETTINGS = settings(max_examples=15, deadline=None)
PAD = 0
VOCAB = 12


def _config(n_heads=2, n_layers=2, norm_first=False, **changes):
    return tl.TransformerConfig.tiny(
        src_vocab_size=VOCAB,
        tgt_vocab_size=VOCAB,
        d_model=8,
        n_heads=n_heads,
        d_ff=16,
        n_encoder_layers=1,
        n_decoder_layers=n_layers,
        dropout=0.0,
        norm_first=norm_first,
        max_len=16,
        **changes,
    )


@st.composite
def decoder_case(draw):
    config = _config(draw(st.sampled_from([1, 2, 4])), draw(st.integers(1, 2)), draw(st.booleans()))
    T = draw(st.integers(2, 7))
    t = draw(st.integers(0, T - 2))  # the last position we expect to be unaffected
    return config, T, t, draw(st.integers(0, 2**16)), draw(st.booleans())


def _right_padded(g, B, T, min_len=1):
    lengths = torch.randint(min_len, T + 1, (B,), generator=g)
    tokens = torch.randint(1, VOCAB, (B, T), generator=g)
    return tokens.masked_fill(torch.arange(T) >= lengths[:, None], PAD)


@SETTINGS
@given(decoder_case())
def test_decoder_stack_never_sees_the_future(case):
    """Outputs <= t are unchanged by new inputs after t, and their gradient there is exactly 0."""
    config, T, t, seed, explicit = case
    torch.manual_seed(seed)
    decoder = tl.Decoder(config).double().eval()
    x = torch.randn(2, T, config.d_model, dtype=torch.float64, requires_grad=True)
    memory = torch.randn(2, 3, config.d_model, dtype=torch.float64)
    changed = x.detach().clone()
    changed[:, t + 1 :] = torch.randn(2, T - t - 1, config.d_model, dtype=torch.float64)
    if explicit:  # the explicit kernel instead of the fused one
        tl.set_attention_kernel(decoder, "explicit")
    out, out_changed = decoder(x, memory), decoder(changed, memory)
    torch.testing.assert_close(out[:, : t + 1], out_changed[:, : t + 1], atol=1e-12, rtol=0)
    out[:, t].sum().backward()
    assert (x.grad[:, t + 1 :] == 0).all()  # exactly zero, not merely small


@SETTINGS
@given(decoder_case())
def test_full_model_with_padding_is_causal_and_ignores_source_padding(case):
    config, T, t, seed, _ = case
    g = torch.Generator().manual_seed(seed)
    torch.manual_seed(seed)
    model = tl.Transformer(config).double().eval()
    src = _right_padded(g, 3, 5)
    tgt = _right_padded(g, 3, T)
    src_mask = tl.padding_mask(src, PAD)
    logits = model(src, tgt, src_mask=src_mask, tgt_mask=tl.decoder_mask(tgt, PAD))

    # 1. new target tokens after t (padding included) change nothing at positions <= t
    changed = tgt.clone()
    changed[:, t + 1 :] = torch.randint(0, VOCAB, (3, T - t - 1), generator=g)
    logits_changed = model(src, changed, src_mask=src_mask, tgt_mask=tl.decoder_mask(changed, PAD))
    torch.testing.assert_close(logits[:, : t + 1], logits_changed[:, : t + 1], atol=1e-12, rtol=0)

    # 2. other tokens in the padded source slots (same mask) change nothing anywhere
    other_src = torch.where(src == PAD, torch.randint(1, VOCAB, src.shape, generator=g), src)
    logits_other = model(other_src, tgt, src_mask=src_mask, tgt_mask=tl.decoder_mask(tgt, PAD))
    torch.testing.assert_close(logits, logits_other, atol=1e-12, rtol=0)


@SETTINGS
@given(decoder_case(), st.sampled_from(["sinusoidal", "learned", "none"]))
def test_decoder_only_lm_is_causal_with_padding(case, positional):
    config, T, t, seed, _ = case
    g = torch.Generator().manual_seed(seed)
    torch.manual_seed(seed)
    lm = tl.DecoderOnlyLM(config.replace(positional=positional)).double().eval()
    tokens = _right_padded(g, 3, T)
    changed = tokens.clone()
    changed[:, t + 1 :] = torch.randint(0, VOCAB, (3, T - t - 1), generator=g)
    a = lm(tokens, mask=tl.decoder_mask(tokens, PAD))
    b = lm(changed, mask=tl.decoder_mask(changed, PAD))
    torch.testing.assert_close(a[:, : t + 1], b[:, : t + 1], atol=1e-12, rtol=0)


@SETTINGS
@given(decoder_case())
def test_a_prefix_gives_the_same_logits_as_the_whole_sequence(case):
    """Causality is what makes token-by-token decoding equal to one parallel pass."""
    config, T, t, seed, _ = case
    g = torch.Generator().manual_seed(seed)
    torch.manual_seed(seed)
    model = tl.Transformer(config).double().eval()
    lm = tl.DecoderOnlyLM(config).double().eval()
    src = torch.randint(1, VOCAB, (2, 4), generator=g)
    tgt = torch.randint(1, VOCAB, (2, T), generator=g)
    memory = model.encode(src)
    torch.testing.assert_close(model.decode(tgt[:, : t + 1], memory), model.decode(tgt, memory)[:, : t + 1], atol=1e-12, rtol=0)
    torch.testing.assert_close(lm(tgt[:, : t + 1]), lm(tgt)[:, : t + 1], atol=1e-12, rtol=0)


def _leak(model, src, tgt, t, tgt_mask_of, causal=True):
    """Largest change of the logits at positions <= t when the tokens after t change."""
    changed = tgt.clone()
    changed[:, t + 1 :] = (changed[:, t + 1 :] + 1) % (VOCAB - 1) + 1  # every later token changes, none is PAD
    opt_out = {} if causal else {"causal": False}
    with torch.no_grad():
        a = model(src, tgt, tgt_mask=tgt_mask_of(tgt), **opt_out)
        b = model(src, changed, tgt_mask=tgt_mask_of(changed), **opt_out)
    return (a[:, : t + 1] - b[:, : t + 1]).abs().max().item()


MASKS = {
    "None": lambda tgt: None,
    "decoder_mask": lambda tgt: tl.decoder_mask(tgt, PAD),
    "all True": lambda tgt: torch.ones(tgt.shape[1], tgt.shape[1], dtype=torch.bool),
    "padding mask only": lambda tgt: tl.padding_mask(tgt, PAD),
    "inverted causal mask": lambda tgt: ~tl.causal_mask(tgt.shape[1]),
}


@pytest.mark.parametrize("name", list(MASKS))
def test_the_decoder_is_causal_whatever_tgt_mask_it_is_given(name):
    """The trap of issue 9: a padding mask as tgt_mask used to replace the causal mask (this failed)."""
    torch.manual_seed(0)
    model = tl.Transformer(_config()).double().eval()
    src = torch.randint(1, VOCAB, (2, 4))
    tgt = torch.randint(1, VOCAB, (2, 6))
    leak = max(_leak(model, src, tgt, t, MASKS[name]) for t in range(5))
    assert leak < 1e-12, f"{name}: leak {leak:.2e}"


@pytest.mark.parametrize(
    ("name", "leaks"),
    [("None", True), ("decoder_mask", False), ("all True", True), ("padding mask only", True), ("inverted causal mask", True)],
)
def test_the_leak_test_catches_a_missing_or_inverted_mask(name, leaks):
    """A negative control with the named opt-out causal=False: the property above is not vacuous."""
    torch.manual_seed(0)
    model = tl.Transformer(_config()).double().eval()
    src = torch.randint(1, VOCAB, (2, 4))
    tgt = torch.randint(1, VOCAB, (2, 6))
    leak = max(_leak(model, src, tgt, t, MASKS[name], causal=False) for t in range(5))
    assert (leak > 1e-6) == leaks, f"{name}: leak {leak:.2e}"


def test_decoder_only_lm_is_causal_with_a_padding_mask():
    """Failed on the old code: DecoderOnlyLM used a given mask instead of adding it to the causal one."""
    torch.manual_seed(0)
    lm = tl.DecoderOnlyLM(_config()).double().eval()
    tokens = torch.randint(1, VOCAB, (2, 6))
    changed = tokens.clone()
    changed[:, 3:] = (changed[:, 3:] + 1) % (VOCAB - 1) + 1
    a = lm(tokens, mask=tl.padding_mask(tokens, PAD))
    b = lm(changed, mask=tl.padding_mask(changed, PAD))
    torch.testing.assert_close(a[:, :3], b[:, :3], atol=1e-12, rtol=0)


@settings(max_examples=25, deadline=None)
@given(
    st.sampled_from([torch.float64, torch.float32, torch.bfloat16, torch.float16]),
    st.integers(1, 5),
    st.integers(1, 5),
    st.integers(0, 2**16),
)
def test_rows_without_a_visible_key_are_zero_in_every_dtype(dtype, Tq, Tk, seed):
    g = torch.Generator().manual_seed(seed)
    q, k, v = (torch.randn(2, 2, T, 4, generator=g).to(dtype) for T in (Tq, Tk, Tk))
    mask = torch.rand(2, 1, Tq, Tk, generator=g) < 0.5
    mask[0, 0, 0] = False  # at least one query sees nothing
    q.requires_grad_(True)
    out, weights = tl.attend(q, k, v, mask)
    empty = ~mask.any(-1)  # (2, 1, Tq)
    assert torch.isfinite(out).all() and torch.isfinite(weights).all()
    assert (out[empty.expand(2, 2, Tq)] == 0).all()
    assert (weights.masked_select(~mask.expand_as(weights)) == 0).all()
    out.float().sum().backward()
    assert torch.isfinite(q.grad).all()
