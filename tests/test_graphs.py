"""transformer_lib.graphs: the autograd-graph tools (moved out of rnn.py; tl.rnn.<name> still works).

Their behaviour on recurrent and attention layers is tested in test_rnn.py; here, small graphs
whose path lengths and depth can be counted by hand.
"""

import pytest
import torch

import transformer_lib as tl
from transformer_lib import graphs, rnn


def test_one_definition_reachable_from_three_places():
    for name in graphs.__all__:
        assert getattr(rnn, name) is getattr(graphs, name) is getattr(tl, name)
        assert getattr(graphs, name).__module__ == "transformer_lib.graphs"


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
