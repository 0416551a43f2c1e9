"""The formulas of chapters 15 and 16 (book_support.derivations.variants) agree with the library."""

import math

import pytest
import sympy as sp
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

import book_support as bk
import transformer_lib as tl
from book_support.derivations import Step
from book_support.derivations.variants import conv_output_length, mlm_probabilities, patch_count

# ---------------------------------------------------------------- BERT's corruption


@pytest.mark.parametrize(("p", "vocab_size"), [(0.15, 10), (0.15, 1000), (0.5, 7)])
def test_mlm_probabilities_match_mask_tokens(p, vocab_size):
    generator = torch.Generator().manual_seed(0)
    original = torch.randint(3, vocab_size, (1000, 400), generator=torch.Generator().manual_seed(1))
    corrupted, labels = tl.mask_tokens(original, 2, vocab_size, generator, p=p, special_ids=(0, 1, 2))
    chosen = labels != -100
    unchanged = corrupted == original
    measured = {
        "chosen": chosen.double().mean().item(),
        "masked_or_drawn": (corrupted == 2).double().mean().item(),
        "input_changed": (~unchanged).double().mean().item(),
        "unchanged_given_chosen": (unchanged & chosen).sum().item() / chosen.sum().item(),
        "chosen_given_unchanged": (unchanged & chosen).sum().item() / unchanged.sum().item(),
    }
    predicted = mlm_probabilities(p, vocab_size)
    for key, value in measured.items():  # 400 000 positions: 4 standard deviations are below 0.004
        assert value == pytest.approx(float(predicted[key]), abs=0.004), key


def test_mlm_probabilities_exact_values():
    probs = mlm_probabilities(sp.Rational(15, 100), 30000)
    assert probs["masked"] == sp.Rational(12, 100)
    assert probs["input_changed"] == sp.Rational(15, 100) * (sp.Rational(8, 10) + sp.Rational(1, 10) * 29999 / 30000)
    assert probs["unchanged_given_chosen"] == sp.Rational(1, 10) + sp.Rational(1, 300000)
    assert float(probs["chosen_given_unchanged"]) == pytest.approx(3 / 173, rel=1e-3)
    assert mlm_probabilities(0.15, 10)["chosen"] == sp.Rational(3, 20)  # floats become exact rationals


@given(p=st.floats(0.01, 1.0), vocab_size=st.integers(2, 100_000))
@settings(max_examples=50, deadline=None)
def test_mlm_probabilities_are_probabilities(p, vocab_size):
    probs = {k: float(v) for k, v in mlm_probabilities(p, vocab_size).items()}
    assert all(0.0 <= v <= 1.0 for v in probs.values())
    assert probs["masked"] <= probs["masked_or_drawn"] <= probs["chosen"] + 1e-12
    assert probs["input_changed"] <= probs["chosen"] + 1e-12  # only chosen positions change
    assert probs["input_changed"] + probs["chosen"] * probs["unchanged_given_chosen"] == pytest.approx(probs["chosen"])


def test_mlm_probabilities_reject_bad_input():
    with pytest.raises(ValueError, match=r"p must be in \(0, 1\], got 0"):
        mlm_probabilities(0, 10)
    with pytest.raises(ValueError, match="p must be in"):
        mlm_probabilities(1.5, 10)
    with pytest.raises(ValueError, match="vocab_size must be >= 2, got 1"):
        mlm_probabilities(0.15, 1)
    with pytest.raises(TypeError, match="vocab_size must be an int, got float"):
        mlm_probabilities(0.15, 10.5)
    with pytest.raises(TypeError, match="vocab_size must be an int or a sympy expression"):
        mlm_probabilities(0.15, "10")


# ---------------------------------------------------------------- ViT's patches


@pytest.mark.parametrize(("image_size", "patch_size"), [(224, 16), (224, 32), (16, 4), (8, 8)])
def test_patch_count_is_the_library_sequence_length(image_size, patch_size):
    embed = tl.PatchEmbedding(image_size, patch_size, in_channels=1, d_model=4)
    assert embed.n_patches == int(patch_count(image_size, patch_size))
    assert embed(torch.zeros(1, 1, image_size, image_size)).shape[1] == int(patch_count(image_size, patch_size))


def test_patch_count_rejects_sizes_that_do_not_divide():
    with pytest.raises(ValueError, match="image_size must be a positive multiple of patch_size"):
        patch_count(10, 4)
    with pytest.raises(ValueError, match="image_size must be a positive multiple of patch_size"):
        patch_count(16, 0)


def test_vision_transformer_score_matrix_is_n_plus_one_squared():
    config = tl.TransformerConfig.tiny(d_model=16, n_heads=2, d_ff=32, n_encoder_layers=1, dropout=0.0, norm_first=True)
    vit = tl.VisionTransformer(config, image_size=32, patch_size=8, in_channels=3, n_classes=2).eval()
    with torch.no_grad(), tl.capture_attention(vit) as maps:
        vit(torch.randn(2, 3, 32, 32))
    n = int(patch_count(32, 8))
    assert maps["encoder.layers.0.self_attn"].shape == (2, 2, n + 1, n + 1)


# ---------------------------------------------------------------- Whisper's stem


@pytest.mark.parametrize("frames", [1, 2, 3, 9, 10, 31, 64, 3000])
def test_conv_output_length_is_the_speech_stem(frames):
    expected = int(conv_output_length(frames, kernel=3, stride=2, padding=1))
    assert expected == math.ceil(frames / 2) == tl.SpeechTransformer.memory_length(frames)
    assert int(conv_output_length(frames, kernel=3, stride=1, padding=1)) == frames
    if frames <= 64:
        config = tl.TransformerConfig.tiny(d_model=8, n_heads=2, d_ff=16, n_encoder_layers=1, n_decoder_layers=1, max_len=64)
        model = tl.SpeechTransformer(config, n_features=3).eval()
        with torch.no_grad():
            assert model.encode(torch.randn(1, frames, 3)).shape[1] == expected


@given(length=st.integers(1, 500), kernel=st.integers(1, 7), stride=st.integers(1, 4), padding=st.integers(0, 3))
@settings(max_examples=60, deadline=None)
def test_conv_output_length_matches_torch(length, kernel, stride, padding):
    if length + 2 * padding < kernel:
        with pytest.raises(ValueError, match="length must be >= kernel - 2 padding"):
            conv_output_length(length, kernel, stride, padding)
        return
    conv = torch.nn.Conv1d(1, 1, kernel, stride=stride, padding=padding)
    assert int(conv_output_length(length, kernel, stride, padding)) == conv(torch.zeros(1, 1, length)).shape[-1]


def test_conv_output_length_rejects_bad_arguments():
    with pytest.raises(ValueError, match="stride must be an int >= 1, got 0"):
        conv_output_length(10, kernel=3, stride=0, padding=1)
    with pytest.raises(ValueError, match="padding must be an int >= 0, got -1"):
        conv_output_length(10, kernel=3, stride=1, padding=-1)
    with pytest.raises(ValueError, match="kernel must be an int >= 1"):
        conv_output_length(10, kernel=1.5, stride=1, padding=0)


# ---------------------------------------------------------------- sampling temperature and the derivations


def test_cold_sampling_equals_top_1():
    torch.manual_seed(0)
    config = tl.TransformerConfig.tiny(d_model=16, n_heads=2, d_ff=32, n_decoder_layers=1, dropout=0.0)
    lm = tl.DecoderOnlyLM(config).double()
    prompt = torch.randint(0, 32, (8, 3), generator=torch.Generator().manual_seed(1))
    greedy = tl.sample(lm, prompt, max_new_tokens=6, top_k=1)
    with torch.no_grad():  # the greedy path's smallest gap between the top two logits
        top_two = lm(torch.cat([prompt, greedy], dim=1)[:, :-1])[:, 2:].topk(2, dim=-1).values
    gap = (top_two[..., 0] - top_two[..., 1]).min().item()
    cold = tl.sample(lm, prompt, max_new_tokens=6, temperature=gap / 50, generator=torch.Generator().manual_seed(2))
    assert torch.equal(cold, greedy)  # every runner-up keeps at most e^-50 of the mass


@pytest.mark.parametrize(
    ("name", "chapter"),
    [("mlm_corruption", 15), ("vit_sequence_length", 16), ("whisper_stem_length", 16), ("sampling_temperature_limits", 15)],
)
def test_the_variants_derivations_are_registered_and_name_their_chapter(name, chapter):
    derivation = getattr(bk.derivations, name)()  # built, not checked: test_derivations.py checks it once
    assert name in bk.derivations.DERIVATIONS
    assert f"book chapter {chapter}" in derivation.reference


def test_a_wrong_corruption_step_fails():
    p, V = sp.symbols("p V", positive=True)
    wrong = Step("forgetting that a random token can be the original", mlm_probabilities(p, V)["input_changed"], 0.9 * p)
    assert not wrong.holds()
