"""The decoding facts of chapter 11 (length penalty, BLEU's worked examples) hold for the library's functions."""

import itertools
import math
import random

import pytest
import torch

import transformer_lib as tl


@pytest.mark.parametrize("alpha", [0.0, 0.2, 0.6, 1.0])
def test_length_penalty_is_the_gnmt_formula_and_one_at_length_one(alpha):
    for length in range(1, 30):
        expected = ((5 + length) / 6) ** alpha
        assert tl.gnmt_length_penalty(length, alpha).item() == pytest.approx(expected, rel=1e-6)
    assert tl.gnmt_length_penalty(1, alpha).item() == pytest.approx(1.0, abs=1e-7)


def test_length_penalty_grows_with_the_length_for_positive_alpha():
    values = [tl.gnmt_length_penalty(n, 0.6).item() for n in range(1, 50)]
    assert all(b > a for a, b in itertools.pairwise(values))


def test_equal_lengths_are_ranked_by_log_probability_whatever_alpha():
    gen = torch.Generator().manual_seed(0)
    log_p = -10 * torch.rand(200, generator=gen, dtype=torch.float64)
    for alpha in (0.0, 0.6, 2.0):
        penalised = log_p / tl.gnmt_length_penalty(torch.full((200,), 11), alpha).double()
        assert torch.equal(penalised.argsort(), log_p.argsort())


@pytest.mark.parametrize("alpha", [0.3, 0.6, 0.9])
def test_a_fixed_cost_per_token_still_decreases_with_the_length_below_alpha_one(alpha):
    scores = [-0.5 * n / tl.gnmt_length_penalty(n, alpha).item() for n in range(1, 200)]
    assert all(b < a for a, b in itertools.pairwise(scores))


@pytest.mark.parametrize("length", [8, 10, 14])
def test_one_wrong_middle_token_gives_the_closed_form_bleu(length):
    reference = [f"w{i}" for i in range(length)]  # distinct tokens: no accidental matches
    output = list(reference)
    output[length // 2] = "wrong"
    precisions = [(length - 2 * n + 1) / (length - n + 1) for n in range(1, 5)]  # n-grams not touching the error
    expected = 100 * math.prod(precisions) ** 0.25
    assert tl.bleu.corpus_bleu([output], [reference]).score == pytest.approx(expected, rel=1e-12)
    if length == 10:
        assert expected == pytest.approx(50 * 3**0.25, rel=1e-12)  # the chapter's 100 (3/16)^(1/4)


def test_a_shorter_output_loses_exactly_the_brevity_penalty():
    reference = [f"w{i}" for i in range(12)]
    output = reference[:8]  # every n-gram matches; c = r / (1 + u) with u = 0.5
    assert tl.bleu.corpus_bleu([output], [reference]).score == pytest.approx(100 * math.exp(-0.5), rel=1e-12)


def test_corpus_bleu_is_at_least_the_mean_sentence_bleu_for_equal_lengths():
    rng = random.Random(0)
    reference = [[str(rng.randrange(10)) for _ in range(10)] for _ in range(50)]
    outputs = [[t if rng.random() < 0.9 else "x" for t in ref] for ref in reference]
    corpus = tl.bleu.corpus_bleu(outputs, reference).score
    sentences = [tl.bleu.corpus_bleu([o], [r]).score for o, r in zip(outputs, reference, strict=True)]
    assert corpus >= sum(sentences) / len(sentences)
