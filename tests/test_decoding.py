"""Decoding: greedy against an unbatched loop, beam search, sampling, stopping at <eos>."""

import contextlib
import inspect
import math

import pytest
import torch
from torch import nn

import transformer_lib as tl

PAD, BOS, EOS, A, B, C = range(6)


class TableModel(nn.Module):
    """A stand-in encoder-decoder: the next-token distribution is looked up in a table.

    ``table[(first source token, generated prefix)]`` is a dict token -> probability;
    a prefix not in the table ends with <eos>. It has the interface the decoders use:
    ``encode``, ``decode`` and ``output_projection``.
    """

    def __init__(self, table, vocab_size=6, dtype=torch.float32):
        super().__init__()
        self.table, self.vocab_size, self.dtype = table, vocab_size, dtype
        self.output_projection = nn.Identity()

    def encode(self, src, *, src_mask=None):
        return src[..., None].float()  # (B, S, 1): lets decode read the source

    def decode(self, tgt, memory, *, src_mask=None, tgt_mask=None):
        out = torch.full((*tgt.shape, self.vocab_size), -1e4, dtype=self.dtype)
        for b in range(tgt.shape[0]):
            key = int(memory[b, 0, 0])
            for t in range(tgt.shape[1]):
                prefix = tuple(int(i) for i in tgt[b, 1 : t + 1])
                for token, p in self.table.get((key, prefix), {EOS: 1.0}).items():
                    out[b, t, token] = math.log(p)
        return out  # log-probabilities, (B, T, V)


# source token A: greedy takes "a" (0.55) and then only finds 0.34; "b <eos>" has 0.405
TABLE = {
    (A, ()): {A: 0.55, B: 0.45},
    (A, (A,)): {A: 0.34, B: 0.33, C: 0.33},
    (A, (B,)): {EOS: 0.9, C: 0.1},
    (B, ()): {EOS: 0.8, A: 0.2},
    (C, ()): {C: 0.9, EOS: 0.1},
    (C, (C,)): {C: 0.9, EOS: 0.1},
    (C, (C, C)): {EOS: 0.6, C: 0.4},
}


@pytest.fixture(scope="module")
def model():
    torch.manual_seed(2)
    config = tl.TransformerConfig.tiny(src_vocab_size=12, tgt_vocab_size=12, d_model=32, d_ff=64, max_len=20, dropout=0.1)
    model = tl.Transformer(config)
    with torch.no_grad():
        model.src_embed.weight[EOS] *= 3.0  # make <eos> likelier: with this seed sequences end at steps 1, 3 and 10
    return model


@pytest.fixture(scope="module")
def src():
    torch.manual_seed(2)
    src = torch.randint(3, 12, (6, 7))
    for b, length in enumerate([7, 3, 5, 1, 6, 2]):
        src[b, length:] = PAD
    return src


def _trim(row):
    """A decoded row up to its <eos>; a row without <eos> is whole (a model may predict id 0 too)."""
    row = row.tolist()
    return row[: row.index(EOS) + 1] if EOS in row else row


def _reference_greedy(model, src_row, max_len):
    """One source, no padding, no batching: the definition of greedy decoding."""
    src_row = src_row[src_row != PAD][None]
    tgt = [BOS]
    with torch.no_grad():
        for _ in range(max_len):
            next_token = int(model(src_row, torch.tensor([tgt]))[0, -1].argmax())
            tgt.append(next_token)
            if next_token == EOS:
                break
    return tgt[1:]


def test_greedy_equals_unbatched_reference(model, src):
    model.train()
    out = tl.greedy_decode(model, src, bos_id=BOS, eos_id=EOS, max_new_tokens=10, src_mask=tl.padding_mask(src, PAD))
    assert model.training  # mode restored
    model.eval()
    expected = [_reference_greedy(model, row, 10) for row in src]
    assert [_trim(row) for row in out] == expected
    lengths = {len(e) for e in expected}
    assert len(lengths) > 1 and out.shape == (6, max(lengths))  # sequences ended at different steps


def test_greedy_output_format_and_per_sequence_stop():
    table = TableModel(TABLE)
    out = tl.greedy_decode(table, torch.tensor([[A], [B], [C]]), bos_id=BOS, eos_id=EOS, max_new_tokens=10)
    # no <bos>; <eos> kept; pad after it; as wide as the longest sequence
    assert out.tolist() == [[A, A, EOS], [EOS, PAD, PAD], [C, C, EOS]]
    assert tl.greedy_decode(table, torch.tensor([[C]]), bos_id=BOS, eos_id=EOS, max_new_tokens=2).tolist() == [
        [C, C]
    ]  # cut at max_len


def test_beam_search_finds_a_better_sequence_than_greedy():
    table = TableModel(TABLE)
    src = torch.tensor([[A]])
    greedy = tl.greedy_decode(table, src, bos_id=BOS, eos_id=EOS, max_new_tokens=5)
    beam = tl.beam_search(table, src, bos_id=BOS, eos_id=EOS, max_new_tokens=5, beam_size=4, alpha=0.6)
    assert greedy.tolist() == [[A, A, EOS]] and beam.tolist() == [[B, EOS]]
    log_p = tl.sequence_log_prob(table, src.expand(2, 1), torch.tensor([[A, A, EOS], [B, EOS, PAD]]), bos_id=BOS, eos_id=EOS)
    torch.testing.assert_close(log_p, torch.tensor([math.log(0.55 * 0.34), math.log(0.45 * 0.9)]))
    scores = log_p / tl.gnmt_length_penalty(torch.tensor([3, 2]), 0.6)
    assert scores[1] > scores[0]


def test_a_float64_model_is_decoded_and_scored_in_float64():
    # B is likelier than A by 4e-12 of log-probability: float64 tells them apart, float32 rounds both to log(1/2)
    near_tie = {(A, ()): {A: 0.5 - 1e-12, B: 0.5 + 1e-12}}
    table = TableModel(near_tie, dtype=torch.float64)
    src = torch.tensor([[A]])
    assert tl.greedy_decode(table, src, bos_id=BOS, eos_id=EOS, max_new_tokens=3).tolist() == [[B, EOS]]
    assert tl.beam_search(table, src, bos_id=BOS, eos_id=EOS, max_new_tokens=3, beam_size=2).tolist() == [[B, EOS]]
    log_p = tl.sequence_log_prob(table, src.expand(2, 1), torch.tensor([[A, EOS], [B, EOS]]), bos_id=BOS, eos_id=EOS)
    assert log_p.dtype == torch.float64
    assert log_p[1] - log_p[0] == pytest.approx(4e-12, rel=1e-3)
    with _default_dtype(torch.float64):
        assert tl.gnmt_length_penalty(10, 0.6).dtype == torch.float64
    assert float(tl.gnmt_length_penalty(10, 0.6)) == pytest.approx((15 / 6) ** 0.6, rel=1e-6)


@contextlib.contextmanager
def _default_dtype(dtype):
    saved = torch.get_default_dtype()
    torch.set_default_dtype(dtype)
    try:
        yield
    finally:
        torch.set_default_dtype(saved)


def test_length_penalty_is_gnmt():
    assert float(tl.gnmt_length_penalty(1, 0.6)) == pytest.approx(1.0)
    assert float(tl.gnmt_length_penalty(10, 0.6)) == pytest.approx((15 / 6) ** 0.6)
    assert float(tl.gnmt_length_penalty(10, 0.0)) == 1.0


def test_beam_search_batched_over_sources():
    table = TableModel(TABLE)
    out = tl.beam_search(table, torch.tensor([[A], [B], [C]]), bos_id=BOS, eos_id=EOS, max_new_tokens=6, beam_size=3)
    # for C: "C C <eos>" (0.486, score -0.61) beats "C C C <eos>" (0.324, -0.88) and "<eos>" (0.1, -2.30)
    assert out.tolist() == [[B, EOS, PAD], [EOS, PAD, PAD], [C, C, EOS]]


@pytest.mark.parametrize("alpha", [0.0, 0.6])
def test_beam_size_one_is_greedy(model, src, alpha):
    model.eval()
    mask = tl.padding_mask(src, PAD)
    greedy = tl.greedy_decode(model, src, bos_id=BOS, eos_id=EOS, max_new_tokens=10, src_mask=mask)
    assert torch.equal(
        tl.beam_search(model, src, bos_id=BOS, eos_id=EOS, max_new_tokens=10, beam_size=1, alpha=alpha, src_mask=mask), greedy
    )


def test_beam_search_batched_equals_one_by_one(model, src):
    model.eval()
    batched = tl.beam_search(
        model, src, bos_id=BOS, eos_id=EOS, max_new_tokens=8, beam_size=3, src_mask=tl.padding_mask(src, PAD)
    )
    for b in range(src.shape[0]):
        row = src[b][src[b] != PAD][None]
        assert _trim(batched[b]) == _trim(tl.beam_search(model, row, bos_id=BOS, eos_id=EOS, max_new_tokens=8, beam_size=3)[0])


def test_beam_search_scores_at_least_greedy_on_the_random_model(model, src):
    model.eval()
    mask = tl.padding_mask(src, PAD)
    greedy = tl.greedy_decode(model, src, bos_id=BOS, eos_id=EOS, max_new_tokens=8, src_mask=mask)
    beam = tl.beam_search(model, src, bos_id=BOS, eos_id=EOS, max_new_tokens=8, beam_size=4, alpha=0.0, src_mask=mask)
    gain = tl.sequence_log_prob(model, src, beam, bos_id=BOS, eos_id=EOS, src_mask=mask) - tl.sequence_log_prob(
        model, src, greedy, bos_id=BOS, eos_id=EOS, src_mask=mask
    )
    assert bool((gain > -1e-5).all())


@pytest.fixture(scope="module")
def lm():
    torch.manual_seed(3)
    return tl.DecoderOnlyLM(tl.TransformerConfig.tiny(src_vocab_size=10, tgt_vocab_size=10, d_model=32, d_ff=64, max_len=24))


def _greedy_lm(lm, prompt, n):
    tokens = prompt
    with torch.no_grad():
        for _ in range(n):
            tokens = torch.cat([tokens, lm(tokens)[:, -1].argmax(-1, keepdim=True)], dim=1)
    return tokens[:, prompt.shape[1] :]  # the continuation


def test_sampling_with_top_k_one_or_tiny_temperature_is_greedy(lm):
    lm.eval()
    prompt = torch.randint(3, 10, (4, 3))
    expected = _greedy_lm(lm, prompt, 8)
    assert torch.equal(tl.sample(lm, prompt, max_new_tokens=8, top_k=1), expected)
    assert torch.equal(
        tl.sample(lm, prompt, max_new_tokens=8, temperature=1e-4, generator=torch.Generator().manual_seed(0)), expected
    )


def test_sampling_is_reproducible_with_a_generator(lm):
    prompt = torch.randint(3, 10, (3, 2))
    first = tl.sample(lm, prompt, max_new_tokens=6, generator=torch.Generator().manual_seed(7))
    again = tl.sample(lm, prompt, max_new_tokens=6, generator=torch.Generator().manual_seed(7))
    assert torch.equal(first, again) and first.shape == (3, 6)


class FixedLM(nn.Module):
    """Next-token logits fixed, whatever the prefix."""

    def __init__(self, logits):
        super().__init__()
        self.logits = logits

    def forward(self, tokens, mask=None):
        return self.logits.expand(*tokens.shape, -1)


@pytest.mark.parametrize("temperature", [0.5, 1.0, 2.0])
def test_sampling_temperature_reshapes_the_distribution(temperature):
    logits = torch.tensor([0.0, 1.0, 2.0, 3.0])
    draws = tl.sample(
        FixedLM(logits),
        torch.zeros(20000, 1, dtype=torch.long),
        max_new_tokens=1,
        temperature=temperature,
        generator=torch.Generator().manual_seed(0),
    )[:, 0]
    frequencies = torch.bincount(draws, minlength=4).float() / 20000
    torch.testing.assert_close(frequencies, (logits / temperature).softmax(-1), atol=0.015, rtol=0)


def test_sampling_top_k_keeps_only_the_k_most_probable():
    draws = tl.sample(
        FixedLM(torch.tensor([0.0, 1.0, 2.0, 3.0])),
        torch.zeros(2000, 1, dtype=torch.long),
        max_new_tokens=1,
        top_k=2,
        generator=torch.Generator().manual_seed(0),
    )[:, 0]
    assert set(draws.tolist()) == {2, 3}


def test_sampling_stops_each_sequence_at_eos():
    lm = FixedLM(torch.tensor([-9.0, -9.0, 0.0, 0.0]))  # <eos> or token 3, half and half
    out = tl.sample(lm, torch.full((64, 1), 3), max_new_tokens=30, eos_id=EOS, generator=torch.Generator().manual_seed(0))
    for row in out.tolist():
        if EOS in row:
            assert all(t == PAD for t in row[row.index(EOS) + 1 :])
    assert out.shape[1] < 31  # stopped once every sequence had ended


def test_decoding_bad_input(model, lm, src):
    with pytest.raises(ValueError, match=r"max_new_tokens=21 is longer than the model's positional table \(config.max_len=20\)"):
        tl.greedy_decode(model, src, bos_id=BOS, eos_id=EOS, max_new_tokens=21)
    with pytest.raises(ValueError, match=r"beam_size must be a positive int, got 0"):
        tl.beam_search(model, src, bos_id=BOS, eos_id=EOS, max_new_tokens=5, beam_size=0)
    with pytest.raises(ValueError, match=r"beam_size=13 is larger than the vocabulary \(12 tokens\)"):
        tl.beam_search(model, src, bos_id=BOS, eos_id=EOS, max_new_tokens=5, beam_size=13)
    with pytest.raises(ValueError, match=r"alpha must be >= 0, got -1.0"):
        tl.beam_search(model, src, bos_id=BOS, eos_id=EOS, max_new_tokens=5, alpha=-1.0)
    with pytest.raises(TypeError, match=r"src must hold integer token ids"):
        tl.greedy_decode(model, src.float(), bos_id=BOS, eos_id=EOS, max_new_tokens=5)
    with pytest.raises(ValueError, match=r"temperature must be > 0, got 0"):
        tl.sample(lm, src[:, :2], max_new_tokens=3, temperature=0)
    with pytest.raises(ValueError, match=r"prompt length 2 \+ max_new_tokens=23 exceeds"):
        tl.sample(lm, src[:, :2] % 10, max_new_tokens=23)
    with pytest.raises(TypeError, match=r"model must be an encoder-decoder"):
        tl.greedy_decode(lm, src, bos_id=BOS, eos_id=EOS, max_new_tokens=5)


def test_src_mask_none_means_no_mask_in_every_decoder(model, src):
    """Failed on the old code: greedy_decode, beam_search and sequence_log_prob built padding_mask(src) for None,
    while Transformer.forward reads None as "no mask". Now None means no mask everywhere."""
    model.eval()
    out = tl.greedy_decode(model, src, bos_id=BOS, eos_id=EOS, max_new_tokens=10)  # src is padded, and no mask is given
    with torch.no_grad():  # the definition: the model called on the padded rows, with no mask
        for b in range(src.shape[0]):
            tgt = [BOS]
            for _ in range(10):
                tgt.append(int(model(src[b : b + 1], torch.tensor([tgt]))[0, -1].argmax()))
                if tgt[-1] == EOS:
                    break
            assert _trim(out[b]) == tgt[1:]
    masked = tl.greedy_decode(model, src, bos_id=BOS, eos_id=EOS, max_new_tokens=10, src_mask=tl.padding_mask(src, PAD))
    assert not torch.equal(masked, out)  # the mask matters for this padded batch, so the test can fail
    beam = tl.beam_search(model, src, bos_id=BOS, eos_id=EOS, max_new_tokens=8, beam_size=1)
    assert torch.equal(beam, tl.greedy_decode(model, src, bos_id=BOS, eos_id=EOS, max_new_tokens=8))
    with torch.no_grad():
        tgt_in = torch.cat([torch.full((6, 1), BOS), out[:, :-1]], dim=1)
        log_p = model(src, tgt_in).log_softmax(-1).gather(-1, out[..., None]).squeeze(-1)
    counted = (torch.cumsum((out == EOS).long(), 1) - (out == EOS).long()) == 0
    torch.testing.assert_close(tl.sequence_log_prob(model, src, out, bos_id=BOS, eos_id=EOS), (log_p * counted).sum(1))


DECODERS = (tl.greedy_decode, tl.beam_search, tl.sample, tl.sequence_log_prob)


@pytest.mark.parametrize("decoder", DECODERS, ids=lambda f: f.__name__)
def test_every_decoder_takes_the_same_keyword_only_names(decoder):
    """One convention: the model and its input (and, to score, the output) are positional; the
    special ids and the length are keywords, with one name each. Failed on the old code (max_len
    beside max_new_tokens; bos_id and eos_id positional in three decoders, keywords in sample)."""
    parameters = inspect.signature(decoder).parameters.values()
    positional = [p.name for p in parameters if p.kind is not p.KEYWORD_ONLY]
    expected = {"sample": ["lm", "prompt"], "sequence_log_prob": ["model", "src", "output"]}
    assert positional == expected.get(decoder.__name__, ["model", "src"])
    names = {p.name for p in parameters}
    assert "max_len" not in names and "length_penalty" not in names
    if decoder is not tl.sequence_log_prob:
        assert "max_new_tokens" in names


def test_the_old_positional_calls_are_refused(model, lm, src):
    """Failed on the old code, where these calls ran (and src_mask was the sixth positional argument)."""
    with pytest.raises(TypeError):
        tl.greedy_decode(model, src, 5, BOS, EOS)
    with pytest.raises(TypeError):
        tl.beam_search(model, src, 5, BOS, EOS)
    with pytest.raises(TypeError):
        tl.sequence_log_prob(model, src, src, BOS, EOS)
    with pytest.raises(TypeError):
        tl.sample(lm, src[:, :2] % 10, 3)


def test_every_decoder_returns_the_generated_tokens_only(model, lm, src):
    """No <bos>, no prompt: the first column is the first generated token. Failed on the old code,
    where sample returned the prompt and its continuation."""
    table = TableModel(TABLE)
    assert tl.greedy_decode(table, torch.tensor([[A]]), bos_id=BOS, eos_id=EOS, max_new_tokens=5).tolist() == [[A, A, EOS]]
    assert tl.beam_search(table, torch.tensor([[A]]), bos_id=BOS, eos_id=EOS, max_new_tokens=5).tolist() == [[B, EOS]]
    prompt = torch.randint(3, 10, (4, 3))
    out = tl.sample(lm, prompt, max_new_tokens=5, top_k=1)
    assert out.shape == (4, 5)
    assert torch.equal(out, _greedy_lm(lm, prompt, 5))


def test_decoded_tokens_can_train_the_model_and_be_edited(model, src, lm):
    """The decoders run in inference mode; what they return must be ordinary tensors.

    An inference tensor used as training targets or edited in place raises a RuntimeError
    ("Inference tensors cannot be saved for backward"): self-training on decoded outputs is a
    common exercise.
    """
    mask = tl.padding_mask(src, PAD)
    outputs = {
        "greedy": tl.greedy_decode(model, src, bos_id=BOS, eos_id=EOS, max_new_tokens=6, src_mask=mask),
        "beam": tl.beam_search(model, src, bos_id=BOS, eos_id=EOS, max_new_tokens=6, beam_size=2, src_mask=mask),
        "sample": tl.sample(lm, src[:, :2] % 10, max_new_tokens=4, generator=torch.Generator().manual_seed(0)),
    }
    for name, out in outputs.items():
        assert not out.is_inference(), name
        out[:, 0] = out[:, 0]  # in place, outside inference mode
    model.train()
    greedy = outputs["greedy"]
    tgt_in = torch.cat([torch.full((src.shape[0], 1), BOS), greedy[:, :-1]], dim=1)
    loss = model(src, tgt_in, src_mask=mask).log_softmax(-1).gather(-1, greedy[..., None]).mean()
    loss.backward()  # the embedding saves the decoded ids for backward
    assert model.tgt_embed.weight.grad is not None
    model.zero_grad()
    model.eval()


@pytest.mark.parametrize("function", [tl.collate, tl.evaluate], ids=lambda f: f.__name__)
def test_special_ids_are_keywords_wherever_they_are_taken(function):
    """The decoders' convention holds for collate and evaluate too: failed on the old code, where pad_id, bos_id
    and eos_id were their third to fifth (collate: second to fourth) positional parameters."""
    parameters = inspect.signature(function).parameters
    assert all(parameters[name].kind is inspect.Parameter.KEYWORD_ONLY for name in ("pad_id", "bos_id", "eos_id"))
