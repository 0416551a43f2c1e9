"""transformer_lib.counting: the parameter, FLOP and memory formulas agree with the library's modules and with
PyTorch's FLOP counter."""

import math

import pytest
import sympy as sp
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from torch.utils.flop_counter import FlopCounterMode

import transformer_lib as tl
from transformer_lib import counting


def _config(d_model=32, n_heads=4, d_ff=64, n_layers=2, vocab=50, max_len=128):
    return tl.TransformerConfig.tiny(
        d_model=d_model,
        n_heads=n_heads,
        d_ff=d_ff,
        n_encoder_layers=n_layers,
        n_decoder_layers=n_layers,
        src_vocab_size=vocab,
        tgt_vocab_size=vocab,
        dropout=0.0,
        max_len=max_len,
    )


def _forward_backward_on_meta(config, batch, src_len, tgt_len):
    with torch.device("meta"):
        model = tl.Transformer(config)
        src_x = torch.empty(batch, src_len, config.d_model, requires_grad=True)
        tgt_x = torch.empty(batch, tgt_len, config.d_model, requires_grad=True)
    forward, backward = FlopCounterMode(display=False), FlopCounterMode(display=False)
    tl.set_attention_kernel(model, "explicit")  # ordinary matrix products that FlopCounterMode counts
    with forward:
        logits = model.output_projection(model.decoder(tgt_x, model.encoder(src_x)))
    with backward:
        logits.sum().backward()
    return forward.get_total_flops(), backward.get_total_flops()


@settings(max_examples=15, deadline=None)
@given(
    half_width=st.integers(1, 24),
    d_ff=st.integers(1, 100),
    n_encoder=st.integers(0, 3),
    n_decoder=st.integers(0, 3),
    vocab=st.integers(1, 300),
)
def test_parameter_formula_equals_count_parameters(half_width, d_ff, n_encoder, n_decoder, vocab):
    d_model = 2 * half_width  # sinusoidal positions need an even width
    config = tl.TransformerConfig(
        src_vocab_size=vocab,
        tgt_vocab_size=vocab,
        d_model=d_model,
        n_heads=1,
        d_ff=d_ff,
        n_encoder_layers=n_encoder,
        n_decoder_layers=n_decoder,
        max_len=16,
    )
    with torch.device("meta"):
        counted = tl.count_parameters(tl.Transformer(config))
        encoder_layer = tl.count_parameters(tl.EncoderLayer.from_config(config))
        decoder_layer = tl.count_parameters(tl.DecoderLayer.from_config(config))
    assert counted == counting.transformer_parameters(d_model, d_ff, n_encoder, n_decoder, vocab)
    assert encoder_layer == counting.encoder_layer_parameters(d_model, d_ff)
    assert decoder_layer == counting.decoder_layer_parameters(d_model, d_ff)


def test_paper_presets_parameter_counts():
    assert counting.transformer_parameters(512, 2048, 6, 6, 37000) == 63_082_496
    assert counting.transformer_parameters(1024, 4096, 6, 6, 37000) == 214_245_376


@pytest.mark.parametrize(("batch", "src_len", "tgt_len"), [(1, 1, 1), (2, 5, 9), (3, 12, 4)])
@pytest.mark.parametrize("n_layers", [1, 2])
def test_forward_flops_equal_the_flop_counter_and_backward_is_twice(batch, src_len, tgt_len, n_layers):
    config = _config(n_layers=n_layers)
    forward, backward = _forward_backward_on_meta(config, batch, src_len, tgt_len)
    assert forward == counting.transformer_forward_flops(src_len, tgt_len, 32, 64, n_layers, n_layers, 50, batch=batch)
    assert backward == 2 * forward


def test_encoder_layer_flops_match_a_real_layer_and_chapter_2():
    layer = tl.EncoderLayer(24, 3, 40, dropout=0.0)
    x = torch.randn(2, 9, 24)
    tl.set_attention_kernel(layer, "explicit")
    with torch.no_grad(), FlopCounterMode(display=False) as counter:
        layer(x)
    assert counter.get_total_flops() == 2 * counting.encoder_layer_flops(9, 24, 40)["total"]
    n, d = sp.symbols("n d", positive=True)
    parts = counting.encoder_layer_flops(n, d, 4 * d)
    chapter2 = tl.counting.self_attention_flops(n, d, output_projection=True)
    assert sp.expand(parts["projections"] + parts["attention"] - chapter2) == 0


def test_per_token_cost_is_twice_the_matmul_weights_for_short_sequences():
    n = sp.Symbol("n", positive=True)
    per_token = counting.transformer_forward_flops(n, n, 512, 2048, 6, 6, 37000) / n
    weights = counting.matmul_weights(512, 2048, 6, 6, 37000)
    assert sp.limit(per_token, n, 0) == 2 * weights
    assert weights == 62_984_192


@pytest.mark.parametrize("use_cache", [False, True])
@pytest.mark.parametrize("out_len", [1, 3, 6])
def test_greedy_decode_flops_equal_the_counted_decoder(out_len, use_cache):
    config = _config(max_len=64)
    model = tl.Transformer(config).eval()
    src = torch.randint(4, 50, (2, 7), generator=torch.Generator().manual_seed(0))
    tl.set_attention_kernel(model, "explicit")
    with FlopCounterMode(display=False) as counter:  # eos never produced: full length
        output = tl.greedy_decode(model, src, max_new_tokens=out_len, bos_id=1, eos_id=-1, use_cache=use_cache)
    assert output.shape == (2, out_len)
    formula = counting.greedy_decode_flops(7, out_len, 32, 64, 2, 2, 50, batch=2, cached=use_cache)
    assert counter.get_total_flops() == formula


def test_cache_changes_nothing_for_the_first_token_and_saves_later():
    uncached = counting.greedy_decode_flops(10, 1, 64, 256, 2, 2, 100)
    cached = counting.greedy_decode_flops(10, 1, 64, 256, 2, 2, 100, cached=True)
    assert uncached == cached
    assert counting.greedy_decode_flops(10, 20, 64, 256, 2, 2, 100) > counting.greedy_decode_flops(
        10, 20, 64, 256, 2, 2, 100, cached=True
    )
    t = sp.Symbol("t", positive=True)
    step = counting.decoding_step_flops(t, 10, 64, 256, 2, 100)
    assert sp.degree(sp.expand(step), t) == 2  # uncached step: quadratic in the prefix length
    assert sp.degree(sp.expand(counting.decoding_step_flops(t, 10, 64, 256, 2, 100, cached=True)), t) == 1


def test_kv_cache_and_attention_memory():
    assert counting.kv_cache_numbers(6, 512, 1) == 6144
    assert counting.kv_cache_numbers(6, 512, 100, 100) == 2 * 6 * 512 * 200
    assert counting.attention_weight_bytes(1, 8, 10_000, 10_000) == 3_200_000_000
    attention = tl.MultiHeadAttention(16, 4)
    x = torch.randn(3, 11, 16)
    with torch.no_grad():
        _, weights = attention(x, x, x, need_weights=True)
    assert weights.numel() * weights.element_size() == counting.attention_weight_bytes(3, 4, 11, 11)


def test_windowed_and_linear_attention_flops():
    n, radius, d = 40, 3, 8
    q, k, v = torch.randn(3, n, d)
    k_windows = torch.nn.functional.pad(k, (0, 0, radius, radius)).unfold(0, 2 * radius + 1, 1).transpose(-1, -2)
    v_windows = torch.nn.functional.pad(v, (0, 0, radius, radius)).unfold(0, 2 * radius + 1, 1).transpose(-1, -2)
    with FlopCounterMode(display=False) as windowed:
        weights = (q.unsqueeze(-2) @ k_windows.transpose(-1, -2)).softmax(-1)
        weights @ v_windows
    assert windowed.get_total_flops() == counting.windowed_attention_flops(n, radius, d, d)
    phi_q, phi_k = torch.nn.functional.elu(q) + 1, torch.nn.functional.elu(k) + 1
    with FlopCounterMode(display=False) as linear:
        (phi_q @ (phi_k.T @ v)) / (phi_q @ phi_k.sum(0).unsqueeze(-1))
    assert linear.get_total_flops() == counting.linear_attention_flops(n, d, d)


def test_paper_training_cost_numbers():
    p100 = counting.PAPER_GPU_TFLOPS["P100"] * 1e12
    assert float(counting.hardware_flops(12 * 3600, 8, p100)) == pytest.approx(3.2832e18, rel=1e-12)
    assert f"{float(counting.hardware_flops(3.5 * 24 * 3600, 8, p100)):.1e}" == "2.3e+19"
    assert counting.kaplan_training_flops(10, 7) == 420
    base = float(counting.kaplan_training_flops(counting.matmul_weights(512, 2048, 6, 6, 37000), 25_000 * 100_000))
    assert math.isclose(base / 3.2832e18, 0.2878, abs_tol=1e-3)


@pytest.mark.parametrize(
    ("call", "error", "name"),
    [
        (lambda: counting.encoder_layer_parameters(512.0, 2048), TypeError, "d_model"),
        (lambda: counting.encoder_layer_parameters(True, 2048), TypeError, "d_model"),
        (lambda: counting.decoder_layer_parameters(512, 0), ValueError, "d_ff"),
        (lambda: counting.transformer_parameters(512, 2048, -1, 6, 37000), ValueError, "n_encoder_layers"),
        (lambda: counting.encoder_layer_flops(0, 512, 2048), ValueError, "n"),
        (lambda: counting.transformer_forward_flops(5, 5, 512, 2048, 6, 6, 37000, batch="2"), TypeError, "batch"),
        (lambda: counting.decoding_step_flops(3, 5, 64, 256, 2, 100, cached=1), TypeError, "cached"),
        (lambda: counting.greedy_decode_flops(5, 0, 64, 256, 2, 2, 100), ValueError, "out_len"),
        (lambda: counting.kv_cache_numbers(6, 512, -1), ValueError, "tgt_len"),
        (lambda: counting.attention_weight_bytes(1, 8, 10, 10, bytes_per_number=0), ValueError, "bytes_per_number"),
        (lambda: counting.hardware_flops(-1, 8, 9.5e12), ValueError, "seconds"),
        (lambda: counting.hardware_flops(10, "8", 9.5e12), TypeError, "n_gpus"),
        (lambda: counting.windowed_attention_flops(10, -1, 8, 8), ValueError, "radius"),
        (lambda: counting.linear_attention_flops(10, 8, None), TypeError, "d_v"),
    ],
)
def test_bad_input_names_the_argument(call, error, name):
    with pytest.raises(error, match=name):
        call()
