"""Corpus BLEU (transformer_lib.bleu) against sacrebleu on the same tokens, and by hand."""

import math
import random

import pytest
import torch

from transformer_lib import bleu

sacrebleu = pytest.importorskip("sacrebleu")


def sacre(hyps, refs, smooth="exp"):
    # refs: one list per sentence (several references allowed); sacrebleu wants reference streams
    n_refs = max(len(r) for r in refs)
    streams = [[" ".join(r[k]) if k < len(r) else "" for r in refs] for k in range(n_refs)]
    return sacrebleu.corpus_bleu([" ".join(h) for h in hyps], streams, tokenize="none", smooth_method=smooth)


def noisy_corpus(seed, n_sentences=40, vocab=12, n_refs=1):
    rng = random.Random(seed)
    words = [f"w{i}" for i in range(vocab)]
    hyps, refs = [], []
    for _ in range(n_sentences):
        ref = [rng.choice(words) for _ in range(rng.randint(1, 15))]
        hyp = [t if rng.random() < 0.7 else rng.choice(words) for t in ref]
        if rng.random() < 0.3:
            hyp = hyp[: rng.randint(0, len(hyp))]  # short outputs: the brevity penalty
        elif rng.random() < 0.3:
            hyp = hyp + [rng.choice(words) for _ in range(rng.randint(1, 4))]
        others = [[t if rng.random() < 0.8 else rng.choice(words) for t in ref] for _ in range(n_refs - 1)]
        hyps.append(hyp)
        refs.append([ref, *others])
    return hyps, refs


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("smooth", ["exp", "none"])
@pytest.mark.parametrize("n_refs", [1, 3])
def test_equals_sacrebleu_on_random_corpora(seed, smooth, n_refs):
    hyps, refs = noisy_corpus(seed, n_refs=n_refs)
    ours = bleu.corpus_bleu(hyps, refs if n_refs > 1 else [r[0] for r in refs], smooth=smooth)
    theirs = sacre(hyps, refs, smooth)
    assert ours.score == pytest.approx(theirs.score, abs=1e-9)
    assert list(ours.counts) == list(theirs.counts)
    assert list(ours.totals) == list(theirs.totals)
    assert ours.sys_len == theirs.sys_len and ours.ref_len == theirs.ref_len
    assert ours.brevity_penalty == pytest.approx(theirs.bp, abs=1e-12)
    assert list(ours.precisions) == pytest.approx(list(theirs.precisions), abs=1e-9)


def test_zero_matches_of_an_order_smoothed_like_sacrebleu():
    # no 3-gram or 4-gram matches: "exp" smoothing gives them 100 / (2 total) and 100 / (4 total); "none" gives 0
    hyps = [["a", "b", "x", "c", "d"], ["e", "f", "y", "g"]]
    refs = [["a", "b", "z", "c", "d"], ["e", "f", "z", "g"]]
    for smooth in ("exp", "none"):
        ours, theirs = bleu.corpus_bleu(hyps, refs, smooth=smooth), sacre(hyps, [[r] for r in refs], smooth)
        assert ours.score == pytest.approx(theirs.score, abs=1e-9)
    assert bleu.corpus_bleu(hyps, refs, smooth="none").score == 0.0
    assert bleu.corpus_bleu(hyps, refs).score > 0.0


def test_by_hand():
    # one sentence, outputs 4 of 6 reference tokens in order: p1 = 4/4, p2 = 3/3, p3 = 2/2, p4 = 1/1, BP = e^(1 - 6/4)
    result = bleu.corpus_bleu([["the", "cat", "sat", "down"]], [["so", "the", "cat", "sat", "down", "."]])
    assert result.precisions == (100.0, 100.0, 100.0, 100.0)
    assert result.brevity_penalty == pytest.approx(math.exp(1 - 6 / 4))
    assert result.score == pytest.approx(100 * math.exp(-0.5))
    # clipping: "the the the" against a reference with one "the" matches one unigram of three
    clipped = bleu.corpus_bleu([["the", "the", "the"]], [["the", "cat", "is"]], max_order=1)
    assert clipped.counts == (1,) and clipped.totals == (3,)
    assert clipped.score == pytest.approx(100 / 3)


def test_corpus_level_not_an_average_of_sentences():
    hyps = [["a", "b", "c", "d"], ["e", "f", "g", "h", "i", "j", "k", "l"]]
    refs = [["a", "b", "c", "d"], ["e", "f", "g", "h", "x", "j", "k", "l"]]
    whole = bleu.corpus_bleu(hyps, refs).score
    mean_of_sentences = sum(bleu.corpus_bleu([h], [r]).score for h, r in zip(hyps, refs, strict=True)) / 2
    assert whole == pytest.approx(sacre(hyps, [[r] for r in refs]).score, abs=1e-9)
    assert abs(whole - mean_of_sentences) > 1.0


def test_identical_is_100_and_integer_ids_and_tensors_work():
    refs = [torch.tensor([3, 4, 5, 6, 7]), torch.tensor([8, 9, 10, 11])]
    assert bleu.corpus_bleu(refs, refs).score == pytest.approx(100.0)
    assert bleu.corpus_bleu([r.tolist() for r in refs], refs).score == pytest.approx(100.0)


def test_empty_output_scores_zero():
    assert bleu.corpus_bleu([[]], [["a", "b"]]).score == 0.0


def test_str_reads_like_sacrebleu():
    text = str(bleu.corpus_bleu([["a", "b", "c", "d"]], [["a", "b", "c", "d"]]))
    assert text.startswith("BLEU = 100.00 100.0/100.0/100.0/100.0 (BP = 1.000")


def test_bad_input():
    with pytest.raises(ValueError, match="one entry per sentence"):
        bleu.corpus_bleu([["a"]], [["a"], ["b"]])
    with pytest.raises(TypeError, match="split it first"):
        bleu.corpus_bleu(["a b c"], [["a", "b", "c"]])
    with pytest.raises(ValueError, match="smooth"):
        bleu.corpus_bleu([["a"]], [["a"]], smooth="add-k")
    with pytest.raises(TypeError, match="max_order"):
        bleu.corpus_bleu([["a"]], [["a"]], max_order=4.0)
    with pytest.raises(ValueError, match="at least one sentence"):
        bleu.corpus_bleu([], [])
