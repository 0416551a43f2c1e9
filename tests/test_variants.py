"""Encoder-only, vision and speech variants (transformer_lib.variants), and decoding from features."""

import math

import pytest
import torch

import transformer_lib as tl


def _config(**changes):
    values = dict(
        src_vocab_size=12,
        tgt_vocab_size=12,
        d_model=16,
        n_heads=2,
        d_ff=32,
        n_encoder_layers=2,
        n_decoder_layers=1,
        dropout=0.0,
        max_len=40,
    )
    values.update(changes)
    return tl.TransformerConfig.tiny(**values)


# ---------------------------------------------------------------- encoder-only


def test_encoder_only_lm_sees_both_directions_and_ties_its_output():
    model = tl.EncoderOnlyLM(_config()).double().eval()
    tokens = torch.randint(0, 12, (3, 7), generator=torch.Generator().manual_seed(0))
    logits = model(tokens)
    assert logits.shape == (3, 7, 12)
    assert model.output_projection.weight is model.embed.weight
    changed = tokens.clone()
    changed[:, -1] = (changed[:, -1] + 1) % 12  # only the last token changes
    assert not torch.allclose(model(changed)[:, 0], logits[:, 0])  # position 0 sees the future
    decoder_only = tl.DecoderOnlyLM(_config()).double().eval()
    torch.testing.assert_close(decoder_only(changed)[:, 0], decoder_only(tokens)[:, 0], rtol=0, atol=0)  # it does not


def test_encoder_only_lm_padding_mask_hides_padded_positions():
    model = tl.EncoderOnlyLM(_config()).double().eval()
    tokens = torch.tensor([[3, 4, 5, 0, 0], [6, 7, 0, 0, 0]])
    other = torch.where(tokens == 0, torch.tensor(9), tokens)  # new tokens in the padded slots only
    mask = tl.padding_mask(tokens, 0)
    real = tokens != 0
    torch.testing.assert_close(model(tokens, mask=mask)[real], model(other, mask=mask)[real], rtol=0, atol=1e-12)
    assert not torch.allclose(model(tokens)[real], model(other)[real])


def test_encoder_only_lm_rejects_bad_tokens():
    model = tl.EncoderOnlyLM(_config())
    with pytest.raises(TypeError, match="integer token ids"):
        model(torch.zeros(2, 3))
    with pytest.raises(ValueError, match=r"ids in \[0, 12\)"):
        model(torch.tensor([[1, 12]]))
    with pytest.raises(TypeError, match="config must be a TransformerConfig"):
        tl.EncoderOnlyLM({"d_model": 16})


# ---------------------------------------------------------------- masked-LM corruption


def test_mask_tokens_follows_the_80_10_10_rule():
    generator = torch.Generator().manual_seed(0)
    tokens = torch.randint(2, 50, (400, 500), generator=torch.Generator().manual_seed(1))
    tokens[:, 0] = 0  # a special id in every row
    inputs, labels = tl.mask_tokens(tokens, mask_id=1, vocab_size=50, generator=generator, special_ids=(0,))
    chosen = labels != -100
    assert not chosen[:, 0].any()  # special ids are never chosen
    assert torch.equal(labels[chosen], tokens[chosen])
    assert torch.equal(inputs[~chosen], tokens[~chosen])  # unchosen positions are untouched
    eligible = tokens.numel() - tokens.shape[0]
    share = chosen.sum().item() / eligible
    assert abs(share - 0.15) < 0.003  # 199 600 eligible positions: 3 standard deviations ~ 0.0024
    masked = (inputs == 1) & chosen
    kept = (inputs == tokens) & chosen
    replaced = chosen & ~masked & ~kept
    n = chosen.sum().item()
    assert abs(masked.sum().item() / n - 0.8) < 0.01
    assert abs(replaced.sum().item() / n - 0.1 * 49 / 50) < 0.01  # a random token may equal the original
    assert abs(kept.sum().item() / n - (0.1 + 0.1 / 50)) < 0.01


def test_mask_tokens_is_reproducible_and_checks_arguments():
    tokens = torch.randint(0, 10, (4, 9), generator=torch.Generator().manual_seed(2))
    a = tl.mask_tokens(tokens, 9, 10, torch.Generator().manual_seed(5), p=0.5)
    b = tl.mask_tokens(tokens, 9, 10, torch.Generator().manual_seed(5), p=0.5)
    assert all(torch.equal(x, y) for x, y in zip(a, b, strict=True))
    with pytest.raises(ValueError, match=r"p must be in \(0, 1\], got 0.0"):
        tl.mask_tokens(tokens, 9, 10, torch.Generator(), p=0.0)
    with pytest.raises(ValueError, match=r"mask_id must be a token id in \[0, 10\), got 10"):
        tl.mask_tokens(tokens, 10, 10, torch.Generator())
    with pytest.raises(TypeError, match=r"generator must be a torch\.Generator"):
        tl.mask_tokens(tokens, 9, 10, 0)
    with pytest.raises(TypeError, match="integer token ids"):
        tl.mask_tokens(tokens.float(), 9, 10, torch.Generator())


# ---------------------------------------------------------------- vision


def test_patch_embedding_is_flatten_then_one_matrix():
    torch.manual_seed(0)
    embed = tl.PatchEmbedding(image_size=8, patch_size=4, in_channels=3, d_model=5).double()
    images = torch.randn(2, 3, 8, 8, dtype=torch.float64)
    out = embed(images)
    assert out.shape == (2, 4, 5) and embed.n_patches == 4
    weight = embed.projection.weight.reshape(5, -1)  # (D, C*p*p)
    for index, (row, col) in enumerate([(0, 0), (0, 1), (1, 0), (1, 1)]):  # row-major patch order
        patch = images[:, :, 4 * row : 4 * row + 4, 4 * col : 4 * col + 4].reshape(2, -1)  # channels, rows, columns
        torch.testing.assert_close(out[:, index], patch @ weight.T + embed.projection.bias, rtol=0, atol=1e-12)


def test_patch_embedding_checks_sizes():
    with pytest.raises(ValueError, match="image_size must be a multiple of patch_size"):
        tl.PatchEmbedding(10, 4, 1, 8)
    with pytest.raises(ValueError, match="patch_size must be a positive int"):
        tl.PatchEmbedding(8, 0, 1, 8)
    embed = tl.PatchEmbedding(8, 4, 1, 8)
    with pytest.raises(ValueError, match=r"images must have shape \(B, 1, 8, 8\), got \(2, 1, 8, 4\)"):
        embed(torch.zeros(2, 1, 8, 4))
    with pytest.raises(ValueError, match="rank 4"):
        embed(torch.zeros(1, 8, 8))


def test_vision_transformer_classifies_from_the_class_token():
    torch.manual_seed(0)
    config = _config(norm_first=True, max_len=8)
    vit = tl.VisionTransformer(config, image_size=8, patch_size=4, in_channels=1, n_classes=3).double().eval()
    images = torch.randn(5, 1, 8, 8, dtype=torch.float64)
    logits = vit(images)
    assert logits.shape == (5, 3)
    assert vit.positional.embedding.weight.shape == (5, 16)  # 4 patches + the class token
    changed = images.clone()
    changed[:, :, 4:, 4:] += 1.0  # the last patch only
    assert not torch.allclose(vit(changed), logits)  # the class token reads every patch
    logits.sum().backward()
    assert vit.class_token.grad is not None and vit.class_token.grad.abs().sum() > 0
    with pytest.raises(ValueError, match="n_classes must be an int >= 2"):
        tl.VisionTransformer(config, 8, 4, 1, 1)


# ---------------------------------------------------------------- speech


def test_log_spectrogram_finds_a_pure_tone():
    rate, n_fft = 1024, 64
    t = torch.arange(2048, dtype=torch.float64) / rate
    tone = torch.sin(2 * math.pi * 160.0 * t)[None]  # 160 Hz: bin 160 / (1024 / 64) = 10
    spec = tl.log_spectrogram(tone, n_fft=n_fft, hop_length=32)
    assert spec.shape == (1, 2048 // 32 + 1, n_fft // 2 + 1)
    middle = spec[0, 5:-5]  # frames away from the padded ends
    assert bool((middle.argmax(dim=-1) == 10).all())
    window = torch.hann_window(n_fft, dtype=torch.float64)
    frame = tone[0, 32 * 10 - n_fft // 2 : 32 * 10 + n_fft // 2] * window  # frame 10, centred on sample 320
    power = torch.fft.rfft(frame).abs().square()
    torch.testing.assert_close(spec[0, 10], torch.log(power + 1e-6), rtol=1e-10, atol=1e-10)
    with pytest.raises(ValueError, match="rank 2"):
        tl.log_spectrogram(tone[0])
    with pytest.raises(ValueError, match="n_fft must be a positive int"):
        tl.log_spectrogram(tone, n_fft=0)


def test_speech_transformer_halves_the_frames_and_decodes_from_features():
    torch.manual_seed(0)
    config = _config(share_embeddings=False, src_vocab_size=2)
    model = tl.SpeechTransformer(config, n_features=6).double().eval()
    for frames in (9, 10):
        memory = model.encode(torch.randn(2, frames, 6, dtype=torch.float64))
        assert memory.shape == (2, model.memory_length(frames), 16) == (2, 5, 16)
    features = torch.randn(2, 10, 6, dtype=torch.float64)
    tgt = torch.randint(0, 12, (2, 4), generator=torch.Generator().manual_seed(3))
    logits = model(features, tgt)
    assert logits.shape == (2, 4, 12)
    changed = tgt.clone()
    changed[:, -1] = (changed[:, -1] + 1) % 12
    torch.testing.assert_close(model(features, changed)[:, :-1], logits[:, :-1], rtol=0, atol=1e-12)  # causal decoder
    greedy = tl.greedy_decode(model, features, max_new_tokens=6, bos_id=1, eos_id=2)
    beam = tl.beam_search(model, features, max_new_tokens=6, bos_id=1, eos_id=2, beam_size=3)
    assert greedy.shape[0] == beam.shape[0] == 2 and greedy.shape[1] <= 6 and beam.shape[1] <= 6
    assert int(greedy.max()) < 12 and int(beam.max()) < 12
    log_p = tl.sequence_log_prob(model, features, greedy, bos_id=1, eos_id=2)
    assert log_p.shape == (2,) and bool(torch.isfinite(log_p).all()) and bool((log_p <= 0).all())


def test_speech_transformer_and_decoding_check_features():
    model = tl.SpeechTransformer(_config(share_embeddings=False, src_vocab_size=2), n_features=6)
    with pytest.raises(ValueError, match="last dimension 6"):
        model.encode(torch.zeros(1, 8, 5))
    with pytest.raises(ValueError, match=r"\(B, S, F=6\) features"):
        tl.greedy_decode(model, torch.zeros(8, 6), max_new_tokens=3, bos_id=1, eos_id=2)
    with pytest.raises(TypeError, match="floating-point tensor"):
        tl.greedy_decode(model, torch.zeros(1, 8, 6, dtype=torch.long), max_new_tokens=3, bos_id=1, eos_id=2)
    with pytest.raises(ValueError, match="n_features must be a positive int"):
        tl.SpeechTransformer(_config(), n_features=0)
