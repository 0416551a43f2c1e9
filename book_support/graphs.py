"""Measuring a computation by its autograd graph: path lengths, depth, gradients through time.

Table 1 of the paper compares layer types by the "maximum path length"
between positions and the number of "sequential operations". Both are
properties of the computation graph, so they can be measured rather than
argued: :func:`graph_path_lengths` counts the operations on the shortest chain
from each input position to an output, :func:`graph_depth` the operations on
the longest chain (what must run one after another however many processors
there are). :func:`state_gradient_norms` reads the gradient that
backpropagation through time delivers to each hidden state of a recurrent layer;
:func:`cell_state_gradient_norms` does the same for an LSTM's cell state, optionally with the
gradient confined to the cell-state path (the control of chapter 1).

Paper: §4 and Table 1. Book: ch-recurrence.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import torch
from torch import Tensor

from transformer_lib.rnn import LSTMCell, RecurrentLayer, hidden_of


def state_gradient_norms(layer: RecurrentLayer, x: Tensor, loss_fn: Callable[[Tensor], Tensor] | None = None) -> Tensor:
    """||dL/dh_t|| for t = 1..T, where the loss L = loss_fn(h_T) reads only the last state.

    The gradient is the total derivative through every later step, which is
    what backpropagation through time delivers to step t. Each sequence of the
    batch gets its own norm (L sums over the batch and sequences do not
    interact); the result is their mean.

    Args:
        layer: the recurrent layer. x: its input.
        loss_fn: maps h_T (B, H) to a scalar; default ``h_T.sum()``.

    Shape: x (B, T, I) -> (T,), entry t-1 for h_t (the last entry is for h_T).

    Paper: §4 (path length and long-range dependencies). Book: ch-recurrence.
    """

    if not isinstance(layer, RecurrentLayer):
        raise TypeError(f"layer must be a RecurrentLayer, got {type(layer).__name__}")
    hidden = [hidden_of(s) for s in layer.unroll(x)]
    for h in hidden:
        h.retain_grad()
    loss = hidden[-1].sum() if loss_fn is None else loss_fn(hidden[-1])
    if not isinstance(loss, Tensor) or loss.dim() != 0:
        raise ValueError(f"loss_fn must return a scalar tensor, got {loss!r:.80}")
    loss.backward()
    return torch.stack([h.grad.norm(dim=-1).mean() for h in hidden]).detach()  # type: ignore[union-attr]


def cell_state_gradient_norms(cell: LSTMCell, x: Tensor, u: Tensor, cell_path_only: bool = False) -> Tensor:
    """||dL/dc_t|| for t = 1..T of an LSTM cell run over x from zero states, with L = u . h_T.

    With ``cell_path_only`` the previous output h_(t-1) is detached where it enters each step (the
    gates and the candidate), so the gradient reaches c_t only along the cell state,
    c_(t+1) = f_(t+1) * c_t + ...: the path the cell state adds, without the paths through h_(t-1)
    and the gates. Each sequence of the batch gets its own norm; the result is their mean.

    Args:
        cell: the LSTM cell. x: its input. u: the read-out vector of the loss, shape (H,).
        cell_path_only: confine the gradient to the cell-state path (the control).

    Shape: x (B, T, I) -> (T,), entry t-1 for c_t (the last entry is for c_T).

    Paper: §1 and §4 (long-range dependencies). Book: ch-recurrence.
    """

    if not isinstance(cell, LSTMCell):
        raise TypeError(f"cell must be an LSTMCell, got {type(cell).__name__}")
    if not isinstance(x, Tensor) or x.dim() != 3:
        raise ValueError(f"x must be a (B, T, I) tensor, got {getattr(x, 'shape', x)!r}")
    h = torch.zeros(x.shape[0], cell.hidden_size, dtype=x.dtype)
    c = torch.zeros_like(h)
    states = []
    for t in range(x.shape[1]):
        h, c = cell(x[:, t], (h.detach() if cell_path_only else h, c))
        c.retain_grad()
        states.append(c)
    (h @ u).sum().backward()
    return torch.stack([c.grad.norm(dim=-1).mean() for c in states]).detach()


def _graph_from(output: Tensor) -> dict[Any, list[Any]]:
    """The autograd graph reachable from ``output``: node -> the nodes it feeds gradients to."""
    if not isinstance(output, Tensor) or output.grad_fn is None:
        raise ValueError("output must be a tensor computed with autograd (it has no grad_fn)")
    children: dict[Any, list[Any]] = {}  # autograd Node -> Nodes
    stack = [output.grad_fn]
    while stack:  # iterative: a recurrent graph is thousands of nodes deep
        node = stack.pop()
        if node not in children:
            children[node] = [child for child, _ in node.next_functions if child is not None]
            stack.extend(children[node])
    return children


def graph_path_lengths(output: Tensor, inputs: Sequence[Tensor]) -> list[int]:
    """Operations on the shortest path from each input to ``output`` in the autograd graph.

    A measured version of Table 1's "path length between positions": build a
    computation from separate leaf tensors (one per position, e.g. stacked with
    ``torch.stack``), and count the operations (autograd nodes) on the shortest
    chain from input i to the output. For a recurrent layer the count grows
    with the distance between the positions; for a self-attention layer it is
    the same small number for every position. Inputs that the output does not
    depend on get -1.

    Args:
        output: a tensor computed with autograd from ``inputs``.
        inputs: leaf tensors with ``requires_grad=True``.

    Returns: one int per input.

    Paper: §4 and Table 1 ("maximum path length"). Book: ch-recurrence.
    """
    leaves = {}
    for index, x in enumerate(inputs):
        if not isinstance(x, Tensor) or not x.requires_grad or x.grad_fn is not None:
            raise ValueError(f"inputs[{index}] must be a leaf tensor with requires_grad=True")
        leaves[id(x)] = index
    children = _graph_from(output)
    distance = {output.grad_fn: 1}
    frontier = [output.grad_fn]
    while frontier:  # breadth-first: the first visit is along a shortest path
        following = []
        for node in frontier:
            for child in children[node]:
                if child not in distance:
                    distance[child] = distance[node] + 1
                    following.append(child)
        frontier = following
    lengths = [-1] * len(inputs)
    for node, length in distance.items():
        variable = getattr(node, "variable", None)  # AccumulateGrad nodes hold their leaf tensor
        if variable is not None and id(variable) in leaves:
            lengths[leaves[id(variable)]] = length - 1  # AccumulateGrad itself is not an operation
    return lengths


def graph_depth(output: Tensor) -> int:
    """Operations on the longest chain in the autograd graph of ``output``.

    Operations on one chain must run one after another, whatever the hardware;
    so this is the number of sequential steps a computation needs with
    unlimited parallel units (Table 1's "sequential operations", measured on
    the actual graph). It grows linearly with T for a recurrent layer and does
    not grow for self-attention.

    Paper: §4 and Table 1 ("sequential operations"). Book: ch-recurrence.
    """
    children = _graph_from(output)
    indegree = dict.fromkeys(children, 0)
    for node in children:
        for child in children[node]:
            indegree[child] += 1
    longest = dict.fromkeys(children, 1)
    ready = [output.grad_fn]
    while ready:  # longest paths in topological order (the graph is acyclic)
        node = ready.pop()
        for child in children[node]:
            longest[child] = max(longest[child], longest[node] + 1)
            indegree[child] -= 1
            if indegree[child] == 0:
                ready.append(child)
    operations = {node: n - 1 if hasattr(node, "variable") else n for node, n in longest.items()}
    return max(operations.values())


__all__ = ["graph_depth", "graph_path_lengths", "state_gradient_norms"]
