"""book_support.graphs: the autograd-graph tools of the book (path lengths, depth, gradients through time).

Here, small graphs whose path lengths and depth can be counted by hand; their behaviour on recurrent
and attention layers, below.
"""

import itertools
import math

import pytest
import torch
from torch import nn

import book_support as bk
import transformer_lib as tl
from book_support import graphs

B, T, D_IN, H = 3, 6, 5, 7  # batch, steps, input width, hidden width


def test_one_definition_outside_the_library():
    for name in graphs.__all__:
        assert getattr(bk, name) is getattr(graphs, name)
        assert getattr(graphs, name).__module__ == "book_support.graphs"
        assert not hasattr(tl, name) and not hasattr(tl.rnn, name)


def test_path_lengths_and_depth_counted_by_hand():
    a, b, c = (torch.ones(2, requires_grad=True) for _ in range(3))
    # out = exp(a * b) + c: a and b reach out through mul, exp, add (3 operations); c through add alone
    out = ((a * b).exp() + c).sum()
    assert graphs.graph_path_lengths(out, [a, b, c]) == [4, 4, 2]  # ... and the final sum
    assert graphs.graph_depth(out) == 4  # mul -> exp -> add -> sum
    unused = torch.ones(2, requires_grad=True)
    assert graphs.graph_path_lengths(out, [unused]) == [-1]


def test_a_chain_of_n_operations_has_depth_n():
    x = torch.ones(3, requires_grad=True)
    y = x
    for _ in range(50):
        y = y * 1.01
    assert graphs.graph_depth(y.sum()) == 51
    assert graphs.graph_path_lengths(y.sum(), [x]) == [51]


def test_bad_input():
    with pytest.raises(ValueError, match="has no grad_fn"):
        graphs.graph_depth(torch.ones(2))
    x = torch.ones(2, requires_grad=True)
    with pytest.raises(ValueError, match=r"inputs\[0\] must be a leaf tensor"):
        graphs.graph_path_lengths((x * 2).sum(), [x * 2])
    with pytest.raises(TypeError, match="layer must be a RecurrentLayer"):
        graphs.state_gradient_norms(torch.nn.Linear(2, 2), torch.ones(1, 3, 2))


def test_state_gradient_norms_match_the_jacobian_formula():
    """T = 2, Elman: dL/dh_1 = W_h^T diag(1 - h_2^2) dL/dh_2 with L = sum(h_2)."""
    cell = tl.ElmanCell(D_IN, H).double()
    layer = tl.RecurrentLayer(cell)
    x = torch.randn(B, 2, D_IN, dtype=torch.float64)
    norms = bk.state_gradient_norms(layer, x)
    assert norms.shape == (2,)
    with torch.no_grad():
        _, h2 = layer(x)
        grad_h1 = (torch.ones(B, H, dtype=torch.float64) * (1 - h2**2)) @ cell.weight_hh  # (B, H)
    torch.testing.assert_close(norms[0], grad_h1.norm(dim=-1).mean(), atol=1e-12, rtol=1e-12)
    torch.testing.assert_close(norms[1], torch.tensor(H**0.5, dtype=torch.float64), atol=1e-12, rtol=1e-12)


def test_state_gradient_norms_with_a_loss_and_for_an_lstm():
    layer = tl.RecurrentLayer(tl.LSTMCell(D_IN, H))
    x = torch.randn(B, T, D_IN)
    direction = torch.randn(H)
    norms = bk.state_gradient_norms(layer, x, loss_fn=lambda h: (h @ direction).sum())
    assert norms.shape == (T,)
    torch.testing.assert_close(norms[-1], direction.norm())
    with pytest.raises(ValueError, match="scalar"):
        bk.state_gradient_norms(layer, x, loss_fn=lambda h: h)
    with pytest.raises(TypeError, match="RecurrentLayer"):
        bk.state_gradient_norms(nn.Linear(2, 2), x)


def test_path_lengths_grow_with_distance_for_recurrence_only():
    xs = [torch.randn(2, 8, requires_grad=True) for _ in range(6)]
    layer = tl.RecurrentLayer(tl.ElmanCell(8, 8))
    h_T = layer.unroll(xs)[-1]
    recurrent = bk.graph_path_lengths(h_T.sum(), xs)
    steps = [a - b for a, b in itertools.pairwise(recurrent)]
    assert len(set(steps)) == 1 and steps[0] > 0  # a fixed number of operations per time step
    x = torch.stack(xs, dim=1)
    out, _ = tl.MultiHeadAttention(8, 2)(x, x, x)
    attention = bk.graph_path_lengths(out[:, -1].sum(), xs)
    assert len(set(attention)) == 1
    unused = torch.randn(2, 8, requires_grad=True)
    assert bk.graph_path_lengths(h_T.sum(), [unused]) == [-1]
    with pytest.raises(ValueError, match="leaf"):
        bk.graph_path_lengths(h_T.sum(), [h_T])
    with pytest.raises(ValueError, match="grad_fn"):
        bk.graph_path_lengths(torch.ones(2), xs)


def test_graph_depth_is_linear_in_length_for_recurrence_and_constant_for_attention():
    def depths(T):
        x = torch.randn(2, T, 8, requires_grad=True)
        _, h_T = tl.RecurrentLayer(tl.GRUCell(8, 8))(x)
        out, _ = tl.MultiHeadAttention(8, 2)(x, x, x)
        return bk.graph_depth(h_T.sum()), bk.graph_depth(out.sum())

    (r4, a4), (r8, a8), (r16, a16) = depths(4), depths(8), depths(16)
    assert r16 - r8 == 2 * (r8 - r4) > 0
    assert a4 == a8 == a16
    assert bk.graph_depth((torch.ones(1, requires_grad=True) * 2).exp()) == 2


def test_cell_state_gradient_norms_confines_the_gradient_to_the_cell_state():
    # with h_(t-1) detached, dL/dc_(t-1) = f_t * dL/dc_t exactly: the ratio of successive norms of a
    # one-unit cell is the forget gate
    torch.manual_seed(0)
    cell = tl.LSTMCell(2, 1, forget_bias=3.0).double()
    x = torch.randn(1, 6, 2, dtype=torch.float64)
    norms = bk.cell_state_gradient_norms(cell, x, torch.ones(1, dtype=torch.float64), cell_path_only=True)
    h, c, gates = torch.zeros(1, 1, dtype=torch.float64), torch.zeros(1, 1, dtype=torch.float64), []
    with torch.no_grad():
        for t in range(6):
            pre = x[:, t] @ cell.weight_ih.T + cell.bias_ih + h @ cell.weight_hh.T + cell.bias_hh
            gates.append(torch.sigmoid(pre[0, 1]).item())
            h, c = cell(x[:, t], (h, c))
    for t in range(5):
        assert math.isclose((norms[t] / norms[t + 1]).item(), gates[t + 1], rel_tol=1e-12)
    full = bk.cell_state_gradient_norms(cell, x, torch.ones(1, dtype=torch.float64))
    assert not torch.allclose(full, norms)  # the paths through h_(t-1) add to it
    with pytest.raises(TypeError, match="LSTMCell"):
        bk.cell_state_gradient_norms(tl.ElmanCell(2, 1), x, torch.ones(1))
