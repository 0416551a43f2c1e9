"""The recurrent baselines: parity with torch.nn cells and layers, shapes, bad input, counts, seq2seq."""

import pytest
import torch
from torch import nn

import transformer_lib as tl
from transformer_lib.rnn import hidden_of

TOLERANCE = {torch.float64: 1e-10, torch.float32: 1e-5}
TORCH_CELLS = {"elman": nn.RNNCell, "lstm": nn.LSTMCell, "gru": nn.GRUCell}
TORCH_LAYERS = {"elman": nn.RNN, "lstm": nn.LSTM, "gru": nn.GRU}
B, T, D_IN, H = 3, 6, 5, 7  # batch, steps, input width, hidden width


def _close(ours, theirs, dtype):
    torch.testing.assert_close(ours, theirs, atol=TOLERANCE[dtype], rtol=TOLERANCE[dtype])


def _state(kind, dtype, g):
    h = torch.randn(B, H, generator=g, dtype=dtype)
    return (h, torch.randn(B, H, generator=g, dtype=dtype)) if kind == "lstm" else h


@pytest.mark.parametrize("dtype", [torch.float64, torch.float32])
@pytest.mark.parametrize("kind", ["elman", "lstm", "gru"])
@pytest.mark.parametrize("with_state", [False, True])
def test_cells_equal_torch_cells(kind, dtype, with_state):
    g = torch.Generator().manual_seed(1)
    theirs = TORCH_CELLS[kind](D_IN, H).to(dtype)
    ours = tl.make_cell(kind, D_IN, H).to(dtype)
    ours.load_state_dict(theirs.state_dict())  # same parameter names and shapes
    x = torch.randn(B, D_IN, generator=g, dtype=dtype)
    state = _state(kind, dtype, g) if with_state else None
    out, expected = ours(x, state), theirs(x, state)
    if kind == "lstm":
        for a, b in zip(out, expected, strict=True):
            _close(a, b, dtype)
    else:
        _close(out, expected, dtype)


@pytest.mark.parametrize("kind", ["elman", "lstm", "gru"])
def test_torch_cells_accept_our_weights(kind):
    ours = tl.make_cell(kind, D_IN, H).double()
    theirs = TORCH_CELLS[kind](D_IN, H).double()
    theirs.load_state_dict(ours.state_dict())
    x = torch.randn(B, D_IN, dtype=torch.float64)
    _close(hidden_of(ours(x)), theirs(x)[0] if kind == "lstm" else theirs(x), torch.float64)


@pytest.mark.parametrize("dtype", [torch.float64, torch.float32])
@pytest.mark.parametrize("kind", ["elman", "lstm", "gru"])
def test_layer_equals_torch_layer(kind, dtype):
    g = torch.Generator().manual_seed(2)
    theirs = TORCH_LAYERS[kind](D_IN, H, batch_first=True).to(dtype)
    layer = tl.RecurrentLayer(tl.make_cell(kind, D_IN, H)).to(dtype)
    layer.cell.load_state_dict({name.removesuffix("_l0"): p for name, p in theirs.state_dict().items()})
    x = torch.randn(B, T, D_IN, generator=g, dtype=dtype)
    state = _state(kind, dtype, g)
    outputs, final = layer(x, state)
    torch_state = (state[0][None], state[1][None]) if kind == "lstm" else state[None]
    expected, expected_final = theirs(x, torch_state)
    assert outputs.shape == (B, T, H)
    _close(outputs, expected, dtype)
    if kind == "lstm":
        _close(final[0], expected_final[0][0], dtype)
        _close(final[1], expected_final[1][0], dtype)
    else:
        _close(final, expected_final[0], dtype)


def test_unroll_list_input_equals_tensor_input():
    layer = tl.RecurrentLayer(tl.LSTMCell(D_IN, H)).double()
    x = torch.randn(B, T, D_IN, dtype=torch.float64)
    from_tensor = layer.unroll(x)
    from_list = layer.unroll(list(x.unbind(1)))
    assert len(from_tensor) == len(from_list) == T
    for a, b in zip(from_tensor, from_list, strict=True):
        _close(a[0], b[0], torch.float64)
        _close(a[1], b[1], torch.float64)


@pytest.mark.parametrize("kind", ["elman", "lstm", "gru"])
@pytest.mark.parametrize(("n_in", "n_hidden"), [(1, 1), (5, 7), (512, 512), (300, 128)])
def test_parameter_count_formula(kind, n_in, n_hidden):
    expected = tl.counting.recurrent_cell_parameters(n_in, n_hidden, kind)
    assert sum(p.numel() for p in tl.make_cell(kind, n_in, n_hidden).parameters()) == expected
    assert sum(p.numel() for p in TORCH_CELLS[kind](n_in, n_hidden).parameters()) == expected
    assert tl.count_parameters(tl.make_cell(kind, n_in, n_hidden)) == expected


def test_parameter_count_ratios():
    elman = tl.counting.recurrent_cell_parameters(64, 32, "elman")
    assert tl.counting.recurrent_cell_parameters(64, 32, "lstm") == 4 * elman
    assert tl.counting.recurrent_cell_parameters(64, 32, "gru") == 3 * elman


def test_forget_bias_sets_the_total_forget_bias():
    cell = tl.LSTMCell(D_IN, H, forget_bias=2.5)
    total = (cell.bias_ih + cell.bias_hh).detach()
    assert torch.equal(total[H : 2 * H], torch.full((H,), 2.5))
    assert not torch.equal(total[:H], torch.full((H,), 2.5))  # other gates keep torch's initialisation


def test_cell_bad_input():
    cell = tl.LSTMCell(D_IN, H)
    with pytest.raises(ValueError, match=r"x must have shape \(B, input_size=5\) \(rank 2\)"):
        cell(torch.randn(B, T, D_IN))
    with pytest.raises(ValueError, match="last dimension 5"):
        cell(torch.randn(B, 4))
    with pytest.raises(TypeError, match="floating-point"):
        cell(torch.ones(B, D_IN, dtype=torch.long))
    with pytest.raises(TypeError, match=r"tuple \(h, c\)"):
        cell(torch.randn(B, D_IN), torch.randn(B, H))
    with pytest.raises(ValueError, match=r"h must have shape \(B=3, hidden_size=7\)"):
        cell(torch.randn(B, D_IN), (torch.randn(B + 1, H), torch.randn(B, H)))
    with pytest.raises(ValueError, match="last dimension 7"):
        tl.GRUCell(D_IN, H)(torch.randn(B, D_IN), torch.randn(B, H + 1))
    with pytest.raises(TypeError, match="forget_bias"):
        tl.LSTMCell(D_IN, H, forget_bias="1")


def test_construction_bad_input():
    with pytest.raises(ValueError, match="hidden_size must be a positive int"):
        tl.ElmanCell(D_IN, 0)
    with pytest.raises(TypeError, match=r"input_size must be an int, got float \(2.0\)"):
        tl.GRUCell(2.0, H)
    with pytest.raises(ValueError, match="kind must be one of"):
        tl.make_cell("rnn", D_IN, H)
    with pytest.raises(ValueError, match="cell must be one of"):
        tl.counting.recurrent_cell_parameters(D_IN, H, "transformer")
    with pytest.raises(TypeError, match="cell must be"):
        tl.RecurrentLayer(nn.RNNCell(D_IN, H))


def test_layer_bad_input():
    layer = tl.RecurrentLayer(tl.ElmanCell(D_IN, H))
    with pytest.raises(ValueError, match=r"x must have shape \(B, T, input_size=5\)"):
        layer(torch.randn(B, D_IN))
    with pytest.raises(ValueError, match="at least one position"):
        layer(torch.randn(B, 0, D_IN))
    with pytest.raises(ValueError, match="at least one step"):
        layer.unroll([])
    with pytest.raises(ValueError, match=r"x\[1\] must have shape"):
        layer.unroll([torch.randn(B, D_IN), torch.randn(B, D_IN + 1)])


@pytest.mark.parametrize("kind", ["gru", "lstm", "elman"])
@pytest.mark.parametrize("attention", [True, False])
def test_seq2seq_shapes(kind, attention):
    model = tl.RNNSeq2Seq(11, 13, embed_dim=8, hidden_size=16, cell=kind, attention=attention)
    src, tgt = torch.randint(0, 11, (B, 5)), torch.randint(0, 13, (B, 4))
    assert model(src, tgt).shape == (B, 4, 13)
    memory = model.encode(src)
    features, weights = model.decode_with_attention(tgt, memory)
    assert memory.shape == (B, 5, 16)
    assert features.shape == (B, 4, 32 if attention else 16)
    assert (weights is None) == (not attention)
    if attention:
        assert weights.shape == (B, 4, 5)
        torch.testing.assert_close(weights.sum(-1), torch.ones(B, 4))


def test_seq2seq_ignores_padding_after_the_source():
    """Trailing pads change nothing: attention masks them, the decoder starts from the last real state."""
    model = tl.RNNSeq2Seq(10, 10, embed_dim=8, hidden_size=16).double()
    src = torch.randint(1, 10, (2, 4))
    tgt = torch.randint(1, 10, (2, 3))
    padded = torch.cat([src, torch.zeros(2, 3, dtype=torch.long)], dim=1)
    expected = model(src, tgt)
    logits = model(padded, tgt, src_mask=tl.padding_mask(padded, pad_id=0))
    _close(logits, expected, torch.float64)
    _, weights = model.decode_with_attention(tgt, model.encode(padded), src_mask=tl.padding_mask(padded, 0))
    assert torch.equal(weights[..., 4:], torch.zeros(2, 3, 3, dtype=torch.float64))


def test_seq2seq_bad_input():
    model = tl.RNNSeq2Seq(10, 12, embed_dim=8, hidden_size=16)
    src, tgt = torch.randint(0, 10, (2, 4)), torch.randint(0, 12, (2, 3))
    with pytest.raises(ValueError, match=r"src must hold ids in \[0, 10\)"):
        model(src + 10, tgt)
    with pytest.raises(TypeError, match="integer token ids"):
        model(src.float(), tgt)
    with pytest.raises(TypeError, match=r"torch\.bool"):
        model(src, tgt, src_mask=torch.ones(2, 1, 1, 4))
    with pytest.raises(ValueError, match="broadcastable"):
        model(src, tgt, src_mask=torch.ones(2, 1, 1, 5, dtype=torch.bool))
    with pytest.raises(ValueError, match="at least one real source token"):
        model(src, tgt, src_mask=torch.zeros(2, 1, 1, 4, dtype=torch.bool))
    with pytest.raises(ValueError, match="share the batch size"):
        model.decode(tgt[:1], model.encode(src))
    with pytest.raises(ValueError, match="tgt_vocab_size must be a positive int"):
        tl.RNNSeq2Seq(10, 0)


@pytest.mark.parametrize("attention", [True, False])
def test_seq2seq_learns_a_tiny_copy_task(attention):
    gen = tl.set_seed(0)
    vocab, length, bos = 6, 4, 1  # ids 2..5 are symbols, 1 is <bos>
    model = tl.RNNSeq2Seq(vocab, vocab, embed_dim=16, hidden_size=32, attention=attention)
    optimizer = torch.optim.Adam(model.parameters(), lr=0.02)
    for _ in range(60):
        src = torch.randint(2, vocab, (32, length), generator=gen)
        tgt_in = torch.cat([torch.full((32, 1), bos), src[:, :-1]], dim=1)  # teacher forcing
        loss = nn.functional.cross_entropy(model(src, tgt_in).flatten(0, 1), src.flatten())
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    src = torch.randint(2, vocab, (64, length), generator=gen)
    tgt_in = torch.cat([torch.full((64, 1), bos), src[:, :-1]], dim=1)
    with torch.no_grad():
        accuracy = (model(src, tgt_in).argmax(-1) == src).double().mean().item()
    assert accuracy > 0.9
