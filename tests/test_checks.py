"""The shared input checks (transformer_lib/_checks.py) and their use across the library.

One rule everywhere: a wrong *type* (a float or a bool where an int is needed, a string
where a number is needed) is a ``TypeError``; a value of the right type out of range is a
``ValueError``; the message names the argument and shows what was received.
"""

from __future__ import annotations

import math

import pytest
import torch

import transformer_lib as tl
from transformer_lib import _checks


@pytest.mark.parametrize("bad", [16.0, True, False, "4", None, torch.tensor(4)])
def test_check_int_refuses_non_ints_with_type_error(bad):
    with pytest.raises(TypeError, match=r"^d_model must be an int, got "):
        _checks.check_int("d_model", bad)


def test_check_int_range_and_message():
    assert _checks.check_int("n", 7) == 7
    assert _checks.check_int("n", -7) == -7  # no bound, no limit
    with pytest.raises(ValueError, match=r"^n must be a positive int, got 0$"):
        _checks.check_positive_int("n", 0)
    assert _checks.check_positive_int("n", 1) == 1
    with pytest.raises(ValueError, match=r"^step must be an int >= 0, got -1$"):
        _checks.check_nonnegative_int("step", -1)
    assert _checks.check_nonnegative_int("step", 0) == 0
    with pytest.raises(ValueError, match=r"^k must be an int in \[1, 6\], got 7$"):
        _checks.check_int("k", 7, low=1, high=6)
    assert _checks.check_int("k", 6, low=1, high=6) == 6
    with pytest.raises(ValueError, match=r"^k must be an int <= 2, got 3$"):
        _checks.check_int("k", 3, high=2)


def test_check_float_bounds_open_and_closed():
    assert _checks.check_fraction("dropout", 0) == 0.0
    assert isinstance(_checks.check_fraction("dropout", 0), float)
    assert _checks.check_fraction("dropout", 0.999) == 0.999
    with pytest.raises(ValueError, match=r"^dropout must be in \[0, 1\), got 1.0$"):
        _checks.check_fraction("dropout", 1.0)
    with pytest.raises(ValueError, match=r"^dropout must be in \[0, 1\), got -0.1$"):
        _checks.check_fraction("dropout", -0.1)
    with pytest.raises(ValueError, match=r"^temperature must be > 0, got 0$"):
        _checks.check_positive("temperature", 0)
    assert _checks.check_nonnegative("alpha", 0) == 0.0
    with pytest.raises(ValueError, match=r"^alpha must be >= 0, got -1$"):
        _checks.check_nonnegative("alpha", -1)
    with pytest.raises(ValueError, match=r"in \(0, 1\)"):
        _checks.check_float("f", 0.0, low=0.0, high=1.0, low_open=True, high_open=True)
    for bound_check in (_checks.check_fraction, _checks.check_positive, _checks.check_nonnegative):
        with pytest.raises(ValueError):
            bound_check("x", math.nan)  # NaN is in no interval


@pytest.mark.parametrize("bad", [True, "0.1", None, torch.tensor(0.1)])
def test_check_float_refuses_non_numbers_with_type_error(bad):
    with pytest.raises(TypeError, match=r"^dropout must be a number \(int or float\), got "):
        _checks.check_fraction("dropout", bad)


def test_check_bool_and_choice():
    assert _checks.check_bool("bias", False) is False
    for bad in (0, 1, "True", None):
        with pytest.raises(TypeError, match=r"^bias must be a bool \(True or False\), got "):
            _checks.check_bool("bias", bad)
    assert _checks.check_choice("kernel", "fused", ("fused", "explicit")) == "fused"
    with pytest.raises(ValueError, match=r"^kernel must be one of 'fused', 'explicit', got 'fast'$"):
        _checks.check_choice("kernel", "fast", ("fused", "explicit"))


# --- the same mistake gives the same exception in every module -------------------------------------------------
# Each case says what the code before the shared checks did.

TYPE_MISTAKES = [
    # already right before (kept as guards)
    ("causal_mask(4.0)", lambda: tl.causal_mask(4.0), "size"),
    ("band_mask(4, True)", lambda: tl.band_mask(4, True), "radius"),
    ("TransformerConfig.tiny(d_model=16.0)", lambda: tl.TransformerConfig.tiny(d_model=16.0), "d_model"),
    # was ValueError
    ("TransformerConfig.tiny(n_encoder_layers=2.0)", lambda: tl.TransformerConfig.tiny(n_encoder_layers=2.0), "n_encoder_layers"),
    # was accepted (a truthy int in a bool field)
    ("TransformerConfig.tiny(bias=1)", lambda: tl.TransformerConfig.tiny(bias=1), "bias"),
    ("TransformerConfig.tiny(norm_first='yes')", lambda: tl.TransformerConfig.tiny(norm_first="yes"), "norm_first"),
    # was TypeError from comparing a str with a float, without the argument's name
    ("TransformerConfig.tiny(dropout='0.1')", lambda: tl.TransformerConfig.tiny(dropout="0.1"), "dropout"),
    # was ValueError
    ("sinusoidal_table(8, 16.0)", lambda: tl.sinusoidal_table(8, 16.0), "d_model"),
    # was accepted (then nn.Embedding's own error)
    ("TokenEmbedding(10.0, 4)", lambda: tl.TokenEmbedding(10.0, 4), "vocab_size"),
    ("LearnedPositionalEncoding(8, max_len=4.0)", lambda: tl.LearnedPositionalEncoding(8, max_len=4.0), "max_len"),
    # was ValueError
    ("number_words(3.0)", lambda: tl.tasks.number_words(3.0), "n"),
    ("batch_by_tokens(..., 8.0)", lambda: tl.batch_by_tokens([((4,), (5,))], 8.0), "max_tokens"),
    ("numbers_task(max_digits=2.0)", lambda: tl.tasks.numbers_task(max_digits=2.0), "max_digits"),
    ("Task.examples(2.0)", lambda: tl.make_task("copy").examples(2.0), "n"),
    ("Vocab.decode([4.0])", lambda: tl.Vocab(["a"]).decode([4.0]), "id"),
]

VALUE_MISTAKES = [
    # already right before (kept as guards)
    ("TransformerConfig.tiny(n_heads=0)", lambda: tl.TransformerConfig.tiny(n_heads=0), "n_heads"),
    ("causal_mask(0)", lambda: tl.causal_mask(0), "size"),
    # was accepted (an embedding with no rows)
    ("TokenEmbedding(0, 4)", lambda: tl.TokenEmbedding(0, 4), "vocab_size"),
    ("TokenEmbedding(4, 0)", lambda: tl.TokenEmbedding(4, 0), "d_model"),
    # was accepted (a LayerNorm dividing by sqrt(0 + var))
    ("TransformerConfig.tiny(layer_norm_eps=0.0)", lambda: tl.TransformerConfig.tiny(layer_norm_eps=0.0), "layer_norm_eps"),
    # was accepted (dropout 1 zeroes every position)
    ("SinusoidalPositionalEncoding(8, dropout=1.0)", lambda: tl.SinusoidalPositionalEncoding(8, dropout=1.0), "dropout"),
    # was accepted (a negative pad id silently pads with -1)
    ("collate(pad_id=-1)", lambda: tl.collate([((4,), (5,))], pad_id=-1), "pad_id"),
]


@pytest.mark.parametrize(("call", "make", "name"), TYPE_MISTAKES, ids=[c for c, _, _ in TYPE_MISTAKES])
def test_wrong_type_is_a_type_error_naming_the_argument(call, make, name):
    with pytest.raises(TypeError, match=rf"\b{name} must be "):
        make()


@pytest.mark.parametrize(("call", "make", "name"), VALUE_MISTAKES, ids=[c for c, _, _ in VALUE_MISTAKES])
def test_wrong_value_is_a_value_error_naming_the_argument(call, make, name):
    with pytest.raises(ValueError, match=rf"\b{name} must "):
        make()


# --- the same rule in the modules of the model (LIBAPI's, routed through _checks) --------------------------------


MODEL_MISTAKES = [
    # (call, make, exception, argument name); each was a different exception, or none, before
    ("MultiHeadAttention(16.0, 4)", lambda: tl.MultiHeadAttention(16.0, 4), TypeError, "d_model"),  # was ValueError
    ("MultiHeadAttention(16, 4, dropout=1.0)", lambda: tl.MultiHeadAttention(16, 4, dropout=1.0), ValueError, "dropout"),
    ("PositionwiseFeedForward(8.0, 16)", lambda: tl.PositionwiseFeedForward(8.0, 16), TypeError, "d_model"),  # was torch's
    ("PositionwiseFeedForward(0, 16)", lambda: tl.PositionwiseFeedForward(0, 16), ValueError, "d_model"),  # was accepted
    pytest.param(
        "gnmt_length_penalty(3, -1)",
        lambda: tl.gnmt_length_penalty(3, -1),
        ValueError,
        "alpha",
    ),  # accepted
    pytest.param(
        "noam_lr(1.0, 512)",
        lambda: tl.noam_lr(1.0, 512),
        TypeError,
        "step",
    ),  # ValueError
    pytest.param(
        "make_cell('gru', 4.0, 8)",
        lambda: tl.make_cell("gru", 4.0, 8),
        TypeError,
        "input_size",
    ),  # ValueError
]


@pytest.mark.parametrize(("call", "make", "exception", "name"), MODEL_MISTAKES)
def test_model_modules_follow_the_same_rule(call, make, exception, name):
    with pytest.raises(exception, match=rf"\b{name} must "):
        make()
