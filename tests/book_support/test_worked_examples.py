"""The worked-example helpers: weight loading in the sources' x @ W convention, recording,
the comparison rule, the two example models and the exact (sympy) arithmetic."""

import math

import numpy as np
import pytest
import sympy as sp
import torch
from torch import nn

import book_support as bk
import book_support.worked_examples as wx
import transformer_lib as tl

F64 = torch.float64


# --- the convention: sources write x @ W with W (in, out); nn.Linear stores (out, in) ---


def test_load_linear_transposes_the_sources_convention():
    W = torch.tensor([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])  # (in=3, out=2), not symmetric
    b = torch.tensor([0.5, -1.0])
    linear = nn.Linear(3, 2).double()
    wx.load_linear(linear, W, b)
    assert torch.equal(linear.weight, W.T.double())  # stored (out, in)
    x = torch.randn(4, 3, dtype=F64)
    torch.testing.assert_close(linear(x), x @ W.double() + b.double())


def test_load_linear_accepts_lists_arrays_and_sympy_and_defaults_bias_to_zero():
    linear = nn.Linear(2, 2).double()
    for value in ([[1, 2], [3, 4]], np.array([[1, 2], [3, 4]]), sp.Matrix([[1, 2], [3, 4]])):
        wx.load_linear(linear, value)
        assert linear.weight.tolist() == [[1, 3], [2, 4]]
        assert linear.bias.tolist() == [0, 0]


def test_load_linear_refuses_a_nonzero_bias_for_a_bias_free_layer():
    linear = nn.Linear(2, 2, bias=False)
    wx.load_linear(linear, torch.eye(2), None)
    wx.load_linear(linear, torch.eye(2), torch.zeros(2))  # zeros are fine
    with pytest.raises(ValueError, match="non-zero bias given for weight"):
        wx.load_linear(linear, torch.eye(2), torch.ones(2))


def test_source_000_query_row_needs_the_transpose():
    """Q row 1 of source 000 is [0.3, 2.8, 2.8, 0.3]; the untransposed matrix would give another row."""
    ex = wx.EXAMPLE_000
    mha = tl.MultiHeadAttention(4, 2).double()
    wx.load_attention(mha, ex.W_qkv, ex.W_qkv, ex.W_qkv, ex.W_o)
    x = torch.tensor([[0.2, 1.5, 0.1, 1.3]], dtype=F64)
    torch.testing.assert_close(mha.q_proj(x), torch.tensor([[0.3, 2.8, 2.8, 0.3]], dtype=F64))
    wrong = x @ torch.tensor(ex.W_qkv, dtype=F64).T
    assert not torch.allclose(wrong, mha.q_proj(x))


def test_hand_computed_attention():
    """Two tokens e1, e2; W_q = W_k = I, W_v = [[1, 2], [3, 4]], W_o = I, one head of width 2.

    Scores e_i . e_j / sqrt(2) are 1/sqrt(2) on the diagonal and 0 elsewhere, so token 1
    puts weight a = e^(1/sqrt 2) / (e^(1/sqrt 2) + 1) on itself; its output is
    a * [1, 2] + (1 - a) * [3, 4].
    """
    mha = tl.MultiHeadAttention(2, 1).double()
    wx.load_attention(mha, torch.eye(2), torch.eye(2), [[1, 2], [3, 4]], torch.eye(2))
    x = torch.eye(2, dtype=F64)[None]  # (1, 2, 2)
    out, weights = mha(x, x, x, need_weights=True)
    a = math.exp(1 / math.sqrt(2)) / (math.exp(1 / math.sqrt(2)) + 1)
    torch.testing.assert_close(weights[0, 0], torch.tensor([[a, 1 - a], [1 - a, a]], dtype=F64))
    torch.testing.assert_close(out[0, 0], torch.tensor([a * 1 + (1 - a) * 3, a * 2 + (1 - a) * 4], dtype=F64))


def test_load_attention_biases_as_mapping_or_sequence():
    mha = tl.MultiHeadAttention(2, 1).double()
    eye = torch.eye(2)
    wx.load_attention(mha, eye, eye, eye, eye, biases={"o": [1.0, 2.0]})
    assert mha.out_proj.bias.tolist() == [1.0, 2.0] and mha.q_proj.bias.tolist() == [0.0, 0.0]
    wx.load_attention(mha, eye, eye, eye, eye, biases=[[1, 1], [2, 2], [3, 3], [4, 4]])
    assert mha.v_proj.bias.tolist() == [3.0, 3.0]
    with pytest.raises(ValueError, match=r"biases has unknown keys \['x'\]"):
        wx.load_attention(mha, eye, eye, eye, eye, biases={"x": [0, 0]})
    with pytest.raises(ValueError, match="biases must hold 4 vectors"):
        wx.load_attention(mha, eye, eye, eye, eye, biases=[[0, 0]])


def test_load_feed_forward_is_eq_2():
    W1, b1 = torch.randn(3, 5, dtype=F64), torch.randn(5, dtype=F64)
    W2, b2 = torch.randn(5, 3, dtype=F64), torch.randn(3, dtype=F64)
    ffn = tl.PositionwiseFeedForward(3, 5).double()
    wx.load_feed_forward(ffn, W1, b1, W2, b2)
    x = torch.randn(2, 4, 3, dtype=F64)
    torch.testing.assert_close(ffn(x), torch.relu(x @ W1 + b1) @ W2 + b2)


def test_load_layer_norm_sets_gamma_beta_eps():
    norm = nn.LayerNorm(4).double()
    wx.load_layer_norm(norm, [1, 1, 1.2, 1.2], [0, 0, 0.5, 0.5], eps=0.0)
    y = torch.tensor([[16.5, 17.6, 16.5, 24.2]], dtype=F64)  # source 003, step 1.3
    out = norm(y)
    torch.testing.assert_close(out, torch.tensor([[-0.6860, -0.3430, -0.3232, 2.5579]], dtype=F64), atol=1e-4, rtol=0)
    assert norm.eps == 0.0
    wx.load_layer_norm(norm)
    assert norm.weight.tolist() == [1, 1, 1, 1] and norm.bias.tolist() == [0, 0, 0, 0]


# --- bad input: ValueError naming the argument, the expected shape and the received one ---


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (
            lambda m: wx.load_attention(m, torch.zeros(3, 4), torch.eye(4), torch.eye(4), torch.eye(4)),
            r"W_q must have shape \(in_features, out_features\) = \(4, 4\), got shape \(3, 4\)",
        ),
        (
            lambda m: wx.load_attention(m, torch.eye(4), torch.eye(4), torch.eye(4), torch.zeros(4)),
            r"W_o must have shape \(in_features, out_features\) = \(4, 4\), got shape \(4,\)",
        ),
        (
            lambda m: wx.load_attention(m, torch.eye(4), torch.eye(4), torch.eye(4), torch.eye(4), biases=[[0] * 3] * 4),
            r"bias of W_q must have shape \(out_features,\) = \(4,\), got shape \(3,\)",
        ),
    ],
)
def test_attention_shape_errors(call, message):
    with pytest.raises(ValueError, match=message):
        call(tl.MultiHeadAttention(4, 2))


def test_feed_forward_given_in_torch_layout_is_refused():
    ffn = tl.PositionwiseFeedForward(4, 8)
    with pytest.raises(ValueError, match=r"W1 must have shape \(in_features, out_features\) = \(4, 8\), got shape \(8, 4\)"):
        wx.load_feed_forward(ffn, torch.zeros(8, 4), None, torch.zeros(8, 4), None)
    with pytest.raises(ValueError, match=r"W2 must have shape \(in_features, out_features\) = \(8, 4\), got shape \(4, 8\)"):
        wx.load_feed_forward(ffn, torch.zeros(4, 8), None, torch.zeros(4, 8), None)
    with pytest.raises(ValueError, match=r"bias of W1 must have shape \(out_features,\) = \(8,\), got shape \(4,\)"):
        wx.load_feed_forward(ffn, torch.zeros(4, 8), torch.zeros(4), torch.zeros(8, 4), None)


def test_other_shape_and_type_errors():
    with pytest.raises(ValueError, match=r"gamma must have shape \(D,\) = \(4,\), got shape \(3,\)"):
        wx.load_layer_norm(nn.LayerNorm(4), gamma=[1, 1, 1])
    with pytest.raises(ValueError, match="eps must be a non-negative number"):
        wx.load_layer_norm(nn.LayerNorm(4), eps=-1.0)
    with pytest.raises(ValueError, match=r"table must have shape \(V, D\) = \(10, 4\), got shape \(4, 10\)"):
        wx.load_embedding(tl.TokenEmbedding(10, 4), torch.zeros(4, 10))
    with pytest.raises(ValueError, match=r"table must have shape \(T, D\) with D = 4 and 1 <= T <= max_len = 2"):
        wx.load_positions(tl.LearnedPositionalEncoding(4, max_len=2), torch.zeros(3, 4))
    with pytest.raises(TypeError, match="mha must be a transformer_lib MultiHeadAttention, got MultiheadAttention"):
        wx.load_attention(nn.MultiheadAttention(4, 2), *[torch.eye(4)] * 4)
    with pytest.raises(TypeError, match="W_q must be a matrix of real numbers, got str"):
        wx.load_attention(tl.MultiHeadAttention(4, 2), "eye", *[torch.eye(4)] * 3)
    with pytest.raises(TypeError, match=r"linear must be an nn\.Linear"):
        wx.load_linear(tl.MultiHeadAttention(4, 2), torch.eye(4))


def test_load_positions_and_embedding():
    positional = tl.LearnedPositionalEncoding(4, max_len=3).double()
    wx.load_positions(positional, [[0.1, 0.2, 0.3, 0.4], [0.5, 0.6, 0.7, 0.8]])
    out = positional(torch.zeros(1, 2, 4, dtype=F64))
    assert out[0, 1].tolist() == [0.5, 0.6, 0.7, 0.8]
    embedding = tl.TokenEmbedding(2, 4, scale=False).double()
    wx.load_embedding(embedding, [[1, 2, 3, 4], [5, 6, 7, 8]])
    assert embedding(torch.tensor([[1]]))[0, 0].tolist() == [5, 6, 7, 8]


def test_minimum_norm_weight_reproduces_the_outputs():
    x = torch.tensor([[1.1, 0.2, 1.3, 0.4], [4.5, 3.6, 2.7, 1.8]], dtype=F64)
    y = torch.tensor([[1.5, 1.3, 1.5, 1.7], [6.3, 8.1, 8.1, 4.5]], dtype=F64)
    W = wx.minimum_norm_weight(x, y)
    torch.testing.assert_close(x @ W, y)
    with pytest.raises(ValueError, match="same N"):
        wx.minimum_norm_weight(x, y[:1])


# --- recording ---


def test_record_activations_records_every_call_and_removes_its_hooks():
    model = wx.build_model_000()
    ex = wx.EXAMPLE_000
    with wx.record_activations(model, ["positional", "encoder.layers.0.norm1"]) as records:
        model(torch.tensor([ex.src_ids]), torch.tensor([ex.tgt_ids]))
    assert len(records["positional"]) == 2  # source and target
    residual_sum = records["encoder.layers.0.norm1"][0].inputs[0]
    assert residual_sum.shape == (1, 3, 4)
    torch.testing.assert_close(residual_sum[0, 0, 0], torch.tensor(0.2 + 0.6733, dtype=F64), atol=1e-4, rtol=0)
    assert all(not m._forward_hooks for m in model.modules())
    with pytest.raises(ValueError, match=r"model has no sub-modules named \['encoder.layer.0'\]"):
        with wx.record_activations(model, ["encoder.layer.0"]):
            pass


# --- the comparison rule ---


@pytest.mark.parametrize(
    ("printed", "value", "agrees"),
    [
        ("0.3", 0.30000000000000004, True),
        ("0", 0.0, True),
        ("0", 4.0e-50, True),  # a printed 0 for a tiny weight
        ("0.727", 0.72712, True),  # rounds
        ("0.728", 0.72712, True),  # one unit off, 0.1 %
        ("5.874", 5.874692, True),  # truncated
        ("2.65e-5", 0.9**100, True),
        ("123456789012345678", 123456789012345678.0 + 16, True),  # equal but for float64 rounding (unit 1)
        ("0.1", 0.176, False),  # one unit off but 43 %
        ("-1.33", -1.3163, False),  # more than one unit
        ("0.001", 0.0099998, False),
        ("-inf", float("-inf"), True),  # a masked score
        ("-inf", -1e9, False),
        ("0.5", float("nan"), False),
    ],
)
def test_within_printed_digits(printed, value, agrees):
    assert wx.within_printed_digits(printed, value) is agrees


def test_printed_unit_and_within_printed_digits():
    assert wx.printed_unit("0.150") == pytest.approx(1e-3)
    assert wx.printed_unit("2.65e-5") == pytest.approx(1e-7)
    assert wx.printed_unit("125") == 1
    assert wx.within_printed_digits("0.2", 0.238)  # 0.238 printed to one digit is 0.2
    assert not wx.within_printed_digits("0.1", 0.176)  # 0.176 rounds to 0.2
    assert wx.within_printed_digits("0.73", 0.7271)
    with pytest.raises(TypeError, match="as text"):
        wx.within_printed_digits(0.3, 0.3)


# --- the two example models ---


def test_model_000_float64_positions_and_head_symmetry():
    model = wx.build_model_000()
    table = model.positional.table
    assert table.dtype == F64
    torch.testing.assert_close(table, tl.sinusoidal_table(model.positional.max_len, 4, dtype=F64), atol=0, rtol=0)
    ex = wx.EXAMPLE_000
    with tl.capture_attention(model) as maps:
        logits = model(torch.tensor([ex.src_ids]), torch.tensor([ex.tgt_ids]))
    assert logits.shape == (1, 4, 10)
    weights = maps["encoder.layers.0.self_attn"][0]  # (H, S, S)
    # with this W_q = W_k, head 2 sees head 1's coordinates swapped: the same scores
    torch.testing.assert_close(weights[0], weights[1])
    torch.testing.assert_close(weights[0, 0], torch.tensor([0.7259, 0.1508, 0.1233], dtype=F64), atol=1e-4, rtol=0)


def test_model_003_reproduces_the_given_step_1():
    model = wx.build_model_003()
    ex = wx.EXAMPLE_003
    layer = model.encoder.layers[0]
    with wx.record_activations(model, ["encoder.layers.0.self_attn.q_proj", "encoder.layers.0.norm1"]) as rec:
        model(torch.tensor([ex.src_ids]), torch.tensor([ex.decoder_input_ids]))
    q = rec["encoder.layers.0.self_attn.q_proj"][0].output[0]
    torch.testing.assert_close(q, torch.tensor([[4.4, 6.6, 7.7, 11.0], [13.2, 15.4, 20.9, 24.2]], dtype=F64))
    y = rec["encoder.layers.0.norm1"][0].output[0]
    torch.testing.assert_close(y[0], y[1])  # the two tokens become identical
    torch.testing.assert_close(y[0], torch.tensor([-0.686, -0.343, -0.3232, 2.558], dtype=F64), atol=6e-4, rtol=0)
    # the reconstructed FFN reproduces the printed hidden layer and output
    hidden = layer.ffn.linear1(y[:1])
    torch.testing.assert_close(hidden[0, :2], torch.tensor([-0.9092, 2.315], dtype=F64), atol=6e-4, rtol=0)
    torch.testing.assert_close(layer.ffn(y[:1])[0], torch.tensor([0.5, 15.233, 6.716, 6.945], dtype=F64), atol=6e-4, rtol=0)


def test_model_003_is_deterministic_and_keeps_the_global_generator():
    state = torch.random.get_rng_state()
    a, b = wx.build_model_003(seed=3), wx.build_model_003(seed=3)
    assert torch.equal(torch.random.get_rng_state(), state)
    for p, q in zip(a.parameters(), b.parameters(), strict=True):
        assert torch.equal(p, q)


# --- exact arithmetic ---


def test_exact_reads_decimals_exactly():
    m = wx.exact([[0.1, "0.25", 3]])
    assert m[0, 0] == sp.Rational(1, 10) and m[0, 1] == sp.Rational(1, 4) and m[0, 2] == 3
    with pytest.raises(TypeError, match="needs numbers"):
        wx.exact([[True]])


def test_exact_attention_and_layer_norm_match_the_library_float64():
    ex = wx.EXAMPLE_003
    x = wx.exact(ex.src_embedding) + wx.exact(ex.positions)
    att = wx.exact_attention(x, x, *(wx.exact(m) for m in (ex.W_Q, ex.W_K, ex.W_V, ex.W_O)), n_heads=1)
    assert att["scores"][0] == sp.Matrix(
        [[sp.Rational("112.53"), sp.Rational("340.01")], [sp.Rational("281.93"), sp.Rational("857.89")]]
    )
    weight = wx.evaluate(att["weights"][0])
    assert weight[0, 0].item() == pytest.approx(math.exp(-113.74) / (1 + math.exp(-113.74)), rel=1e-12)
    norm = wx.exact_layer_norm(x + att["output"], wx.exact(ex.gamma_1), wx.exact(ex.beta_1), eps="1e-5")
    assert abs(wx.evaluate(norm["mean"][0]).item() - 18.7) < 1e-13
    model = wx.build_model_003()
    with wx.record_activations(model, ["encoder.layers.0.norm1"]) as rec:
        model(torch.tensor([ex.src_ids]), torch.tensor([ex.decoder_input_ids]))
    torch.testing.assert_close(wx.evaluate(norm["output"]), rec["encoder.layers.0.norm1"][0].output[0], atol=1e-12, rtol=0)


def test_exact_softmax_masks_and_feed_forward_relu():
    scores = wx.exact([[1, 5], [2, 3]])
    weights = wx.exact_softmax_rows(scores, mask=[[True, False], [True, True]])
    assert weights[0, 1] == 0 and wx.evaluate(weights[0, 0]).item() == 1.0
    assert wx.evaluate(weights[1, :]).sum().item() == pytest.approx(1.0, abs=1e-15)
    ffn = wx.exact_feed_forward(
        wx.exact([[1, -2]]), wx.exact([[1, 0], [0, 1]]), wx.exact([[0, 0]]), wx.exact([[1], [1]]), wx.exact([[0]])
    )
    assert ffn["relu"] == sp.Matrix([[1, 0]]) and ffn["output"] == sp.Matrix([[1]])


def test_exact_sinusoidal_table_matches_the_library():
    exact_table = wx.evaluate(wx.exact_sinusoidal_table(4, 4))
    torch.testing.assert_close(exact_table, tl.sinusoidal_table(4, 4, dtype=F64), atol=1e-15, rtol=0)


# --- the audit of a worked example: bk.claims verdicts per printed number, per step ---


def test_printed_digits_rule_is_the_comparison_rule():
    rule = wx.printed_digits()
    assert bk.claims.verdict("0.728", wx.Values([0.72712], ["0.728"]), rule) == "agrees"  # one unit, < 1 %
    assert bk.claims.verdict("0.1", wx.Values([0.176], ["0.1"]), rule) == "wrong"
    assert bk.claims.verdict("0.3 0.7", wx.Values([0.3, 0.7], ["0.3", "0.7"]), rule) == "agrees"
    assert bk.claims.verdict("0.3 0.1", wx.Values([0.3, 0.7], ["0.3", "0.1"]), rule) == "wrong"
    with pytest.raises(TypeError, match="Values"):
        rule("0.3", 0.3)
    with pytest.raises(ValueError, match="2 printed numbers against 1"):
        rule("0.3 0.4", wx.Values([0.3], ["0.3"]))


def test_values_shows_one_digit_more_than_printed():
    assert str(wx.Values([0.727121, 2.0], ["0.728", "2"])) == "0.7271 2.0000"
    assert str(wx.Values([0.0100002], ["0.0099998"])) == "0.01000020"
    with pytest.raises(ValueError, match="prints 2 numbers but 3 values"):
        wx.Values([1, 2, 3], ["1", "2"])


def test_worked_audit_separates_introduced_from_inherited_and_circular():
    audit = wx.WorkedAudit("t", ["positions", "inputs", "weights"])
    # the rounding of sin(1/100) to 0.001 is introduced where it is written ...
    assert audit.check("positions", "000", "sin(1/100)", "0.001", math.sin(0.01)) == "wrong"
    # ... and inherited where the rounded value is used correctly
    assert audit.check("inputs", "000", "x", "1.24 0.601", [1.2415, 0.6100], from_source=[1.24, 0.601]) == "inherited"
    # a step that is wrong even on its own input is introduced, whatever it inherits
    assert audit.check("inputs", "000", "y", "1.52", [1.38], from_source=[1.4695]) == "wrong"
    assert audit.check("weights", "003", "q", "1.5 1.3", [1.5, 1.3], by_construction=True) == "agrees by construction"
    assert audit.assumed("weights", "003", "dS", "0.1 -0.1", reason="the document says so") == "assumed"
    assert audit.not_derivable("weights", "003", "k", "1 2 3", reason="W_K not given") == "not derivable"
    # numbers, not claims: the inherited row counts its agreeing entry as agreeing
    assert audit.number_counts() == {
        "agrees": 1, "agrees by construction": 2, "wrong": 2, "inherited": 1, "assumed": 2, "not derivable": 3,
    }  # fmt: skip
    assert audit.counts()["wrong"] == 2 and len(audit) == 6
    colours = {step: colour for step, (colour, _) in audit.step_verdicts().items()}
    assert colours == {"positions": "wrong", "inputs": "wrong", "weights": "assumed"}
    assert audit.where("inherited") == ["x"]
    assert audit.where("wrong", step="inputs") == ["y"]


def test_worked_audit_step_colour_priority_and_summary():
    audit = wx.WorkedAudit("t", ["a", "b", "c"])
    audit.check("a", "s", "ok", "1", 1.0)
    audit.check("b", "s", "inh", "2", 2.7, from_source=2.0)
    audit.check("b", "s", "ok", "1", 1.0)
    audit.not_derivable("c", "s", "nd", "3", reason="no weights")
    audit.check("c", "s", "fit", "4", 4.0, by_construction=True)
    verdicts = audit.step_verdicts()
    assert [v[0] for v in verdicts.values()] == ["agrees", "inherited", "not derivable"]
    text = audit.step_summary()
    assert text.splitlines()[1].startswith("b") and "inherits an error: 1 agrees, 1 inherited" in text
    assert audit.step_summary(steps=["c"]).startswith("c  gives nothing to derive it from")


def test_worked_audit_refuses_unknown_steps_and_missing_reasons():
    audit = wx.WorkedAudit("t", ["a"])
    with pytest.raises(ValueError, match="step must be one of"):
        audit.check("b", "s", "x", "1", 1.0)
    with pytest.raises(ValueError, match="needs a reason"):
        audit.assumed("a", "s", "x", "1", reason="")
    with pytest.raises(ValueError, match="steps must be distinct"):
        wx.WorkedAudit("t", ["a", "a"])
    with pytest.raises(ValueError, match="verdicts must be among"):
        audit.format(verdicts=["fine"])


def test_worked_audit_format_filters_and_fits_the_column():
    audit = wx.WorkedAudit("a long title", ["a", "b"])
    audit.check(
        "a", "000 §8.2.1", "alpha row 2", "0.145 0.510 0.345", [0.2296, 0.5020, 0.2684], from_source=[0.2349, 0.5003, 0.2648]
    )
    audit.check("b", "000 §8.2.1", "fine row", "0.3", 0.3)
    text = audit.format(verdicts=[bk.claims.WRONG])
    assert "alpha row 2" in text and "fine row" not in text and "a long title" not in text
    assert "from the source's own input: 0.2349 0.5003 0.2648" in text
    assert max(len(line) for line in str(audit).splitlines()) <= 90
    assert "fine row" in audit.format(steps=["b"])


def test_plot_dataflow_draws_one_box_per_step():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    audit = wx.WorkedAudit("t", ["a", "b", "c"])
    audit.check("a", "s", "x", "1", 1.0)
    audit.check("c", "s", "y", "1", 2.0)
    ax = wx.plot_dataflow(audit, per_row=2)
    assert len(ax.patches) == 2  # step b has no claims and no box
    colours = {tuple(round(v, 3) for v in p.get_facecolor()[:3]) for p in ax.patches}
    expected = {tuple(round(v, 3) for v in matplotlib.colors.to_rgb(wx.STEP_COLOURS[w])) for w in ("agrees", "wrong")}
    assert colours == expected
    plt.close(ax.figure)


def test_printed_000_is_consistent_with_itself_where_the_source_is():
    """The source's printed rows, typed once: checks that catch a typing slip in the data."""
    P = wx.PRINTED_000
    for head1, head2, concat in zip(P.head1, P.head2, P.concat, strict=True):
        assert f"{head1} {head2}" == concat  # the printed Concat is the printed heads side by side
    for row, scores in zip(P.masked_weights, P.masked_scores, strict=True):
        assert len(row.split()) == len(scores.split()) == 4
    rows = P.probabilities()
    assert [round(sum(float(v) for v in row.split()), 2) for row in rows] == [1.03, 1.01, 1.02, 1.04]
    assert rows[0].split()[4] == "0.94" and rows[3].split()[7] == "0.95"
    assert [row.split()[2] for row in P.positions] == ["0", "0.001", "0.002", "0.003"]
    embedding = torch.tensor(wx.EXAMPLE_000.embedding, dtype=F64)
    positions = torch.tensor([[float(v) for v in row.split()] for row in P.positions], dtype=F64)
    inputs = torch.tensor([[float(v) for v in row.split()] for row in P.inputs_src], dtype=F64)
    torch.testing.assert_close(inputs, embedding[list(wx.EXAMPLE_000.src_ids)] + positions[:3])
    assert len(P.sensitivity) == 8 and all(t > s for _, s, t in P.sensitivity)


def test_printed_003_cross_attention_vectors():
    P3 = wx.PRINTED_003
    assert len(P3.cross_q) == 2 and all(len(row.split()) == 4 for row in (*P3.cross_q, P3.cross_k, P3.cross_v))
    # the source's -0.173 is q_2 . k without the division by sqrt(d_k) = 2 (chapter 12)
    q2 = torch.tensor([float(v) for v in P3.cross_q[1].split()], dtype=F64)
    k = torch.tensor([float(v) for v in P3.cross_k.split()], dtype=F64)
    assert round((q2 @ k).item(), 3) == -0.173
