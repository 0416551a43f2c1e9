"""Recurrent baselines: Elman, LSTM and GRU cells, a layer that unrolls them, and an RNN seq2seq.

The Transformer was introduced as a replacement for these models, so the book
needs them written out: the cells below compute their equations line by line,
store their weights exactly as ``torch.nn.RNNCell`` / ``LSTMCell`` / ``GRUCell``
do (so a state dict copies across; parity is tested in float64 to 1e-10), and
the layer runs the time loop in plain Python so that every hidden state
``h_t`` is a separate node of the autograd graph whose gradient can be read.

Every cell stores two bias vectors, ``bias_ih`` and ``bias_hh``, as torch does;
the equations' single bias is their sum.

Paper: §1 and §4 (why self-attention replaces recurrence), Table 1. Book: ch-recurrence.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import torch
from torch import Tensor, nn

from ._checks import check_float, check_mask, check_positive_int, check_tensor, check_tokens, reads_values
from .attention import AdditiveAttention
from .counting import RECURRENT_GATE_BLOCKS

#: How many (H, ·) blocks each kind of cell stacks in its weight matrices.
GATE_BLOCKS = RECURRENT_GATE_BLOCKS  # one table, in counting.py, for the cells and their parameter count

LSTMState = tuple[Tensor, Tensor]


def _check_size(name: str, value: object) -> int:
    return check_positive_int(name, value)


def _check_kind(kind: object) -> str:
    if kind not in GATE_BLOCKS:
        raise ValueError(f"kind must be one of {sorted(GATE_BLOCKS)}, got {kind!r}")
    return str(kind)


class _RecurrentCell(nn.Module):
    """Weights shared by the three cells: ``blocks`` stacked (H, I) and (H, H) matrices, two biases."""

    kind = ""

    def __init__(self, input_size: int, hidden_size: int) -> None:
        super().__init__()
        self.input_size = _check_size("input_size", input_size)
        self.hidden_size = _check_size("hidden_size", hidden_size)
        blocks = GATE_BLOCKS[self.kind] * hidden_size
        self.weight_ih = nn.Parameter(torch.empty(blocks, input_size))  # W_x, one (H, I) block per gate
        self.weight_hh = nn.Parameter(torch.empty(blocks, hidden_size))  # W_h, one (H, H) block per gate
        self.bias_ih = nn.Parameter(torch.empty(blocks))
        self.bias_hh = nn.Parameter(torch.empty(blocks))
        self.reset_parameters()

    def reset_parameters(self) -> None:
        """Uniform on [-1/sqrt(H), 1/sqrt(H)], the initialisation of ``torch.nn.RNNCell`` and friends."""
        bound = 1.0 / math.sqrt(self.hidden_size)
        for weight in self.parameters():
            nn.init.uniform_(weight, -bound, bound)

    def _check_input(self, x: object) -> Tensor:
        return check_tensor("x", x, f"(B, input_size={self.input_size})", 2, self.input_size)

    def _check_hidden(self, name: str, h: object, x: Tensor) -> Tensor:
        shape = f"(B={x.shape[0]}, hidden_size={self.hidden_size})"
        h = check_tensor(name, h, shape, 2, self.hidden_size)
        if h.shape[0] != x.shape[0]:
            raise ValueError(f"{name} must have shape {shape}, got shape {tuple(h.shape)}")
        return h

    def _zeros(self, x: Tensor) -> Tensor:
        return x.new_zeros(x.shape[0], self.hidden_size)

    def extra_repr(self) -> str:
        return f"input_size={self.input_size}, hidden_size={self.hidden_size}"


class ElmanCell(_RecurrentCell):
    """The vanilla (Elman) recurrent cell: h_t = tanh(W_h h_{t-1} + W_x x_t + b).

    Same parameters and outputs as ``torch.nn.RNNCell(input_size, hidden_size)``
    (tanh, with biases); ``b`` is ``bias_ih + bias_hh``.

    Args:
        input_size: width I of x_t. hidden_size: width H of h_t.

    Shape: x (B, I), h (B, H) or None (zeros) -> h_t (B, H).

    Paper: §1 ("h_t as a function of the previous hidden state h_{t-1} and the
    input for position t"). Book: ch-recurrence.

    Examples:
        >>> cell, theirs = tl.ElmanCell(input_size=3, hidden_size=4), torch.nn.RNNCell(3, 4)
        >>> theirs.load_state_dict(cell.state_dict())  # the same parameters, under the same names
        <All keys matched successfully>
        >>> x = torch.randn(2, 3)
        >>> torch.allclose(cell(x), theirs(x), atol=1e-6)
        True
    """

    kind = "elman"

    def forward(self, x: Tensor, h: Tensor | None = None) -> Tensor:
        x = self._check_input(x)
        h = self._zeros(x) if h is None else self._check_hidden("h", h, x)
        pre_activation = x @ self.weight_ih.T + self.bias_ih + h @ self.weight_hh.T + self.bias_hh  # (B, H)
        return torch.tanh(pre_activation)


class LSTMCell(_RecurrentCell):
    """The LSTM cell with a forget gate, as ``torch.nn.LSTMCell`` computes it.

    i, f, o = sigmoid(W_x· x_t + W_h· h_{t-1} + b·)   input, forget, output gates
    g       = tanh(W_xg x_t + W_hg h_{t-1} + b_g)       candidate
    c_t = f * c_{t-1} + i * g                           the cell state: no matrix on this path
    h_t = o * tanh(c_t)

    The four gate blocks are stacked in torch's order (i, f, g, o), so
    ``load_state_dict`` works in both directions with ``torch.nn.LSTMCell``.

    Args:
        input_size: width I of x_t. hidden_size: width H of h_t and c_t.
        forget_bias: if given, the forget gate's total bias (``bias_ih + bias_hh``
            over the f block) is set to this value (``bias_hh`` part 0) instead
            of torch's random initialisation; 1.0 is a common choice.

    Shape: x (B, I), state (h, c) with h, c (B, H), or None (zeros) -> (h_t, c_t).

    Paper: §1 cites LSTM (Hochreiter and Schmidhuber, 1997). Book: ch-recurrence.

    Examples:
        >>> cell = tl.LSTMCell(input_size=3, hidden_size=4, forget_bias=1.0)
        >>> h, c = cell(torch.randn(2, 3))
        >>> h.shape, c.shape
        (torch.Size([2, 4]), torch.Size([2, 4]))
        >>> (cell.bias_ih + cell.bias_hh)[4:8].tolist()  # the f block of (i, f, g, o)
        [1.0, 1.0, 1.0, 1.0]
    """

    kind = "lstm"

    def __init__(self, input_size: int, hidden_size: int, forget_bias: float | None = None) -> None:
        super().__init__(input_size, hidden_size)
        if forget_bias is not None:
            check_float("forget_bias", forget_bias)
            forget = slice(hidden_size, 2 * hidden_size)  # blocks are (i, f, g, o)
            with torch.no_grad():
                self.bias_ih[forget] = float(forget_bias)
                self.bias_hh[forget] = 0.0

    def forward(self, x: Tensor, state: LSTMState | None = None) -> LSTMState:
        x = self._check_input(x)
        if state is None:
            h, c = self._zeros(x), self._zeros(x)
        else:
            if not isinstance(state, (tuple, list)) or len(state) != 2:
                raise TypeError(f"state must be a tuple (h, c) of two (B, {self.hidden_size}) tensors or None")
            h, c = self._check_hidden("h", state[0], x), self._check_hidden("c", state[1], x)
        gates = x @ self.weight_ih.T + self.bias_ih + h @ self.weight_hh.T + self.bias_hh  # (B, 4H)
        i, f, g, o = gates.chunk(4, dim=-1)  # each (B, H)
        i, f, o = torch.sigmoid(i), torch.sigmoid(f), torch.sigmoid(o)
        g = torch.tanh(g)
        c = f * c + i * g  # (B, H)
        h = o * torch.tanh(c)  # (B, H)
        return h, c


class GRUCell(_RecurrentCell):
    """The gated recurrent unit, as ``torch.nn.GRUCell`` computes it.

    r = sigmoid(W_xr x_t + b_xr + W_hr h_{t-1} + b_hr)    reset gate
    z = sigmoid(W_xz x_t + b_xz + W_hz h_{t-1} + b_hz)    update gate
    n = tanh(W_xn x_t + b_xn + r * (W_hn h_{t-1} + b_hn)) candidate
    h_t = (1 - z) * n + z * h_{t-1}

    Blocks are stacked in torch's order (r, z, n).

    Args:
        input_size: width I of x_t. hidden_size: width H of h_t.

    Shape: x (B, I), h (B, H) or None (zeros) -> h_t (B, H).

    Paper: §1 cites gated recurrent networks (Chung et al., 2014; the GRU is
    from Cho et al., 2014). Book: ch-recurrence.

    Examples:
        >>> cell = tl.GRUCell(input_size=3, hidden_size=4)
        >>> cell.weight_ih.shape, cell(torch.randn(2, 3)).shape  # three (H, I) blocks: r, z, n
        (torch.Size([12, 3]), torch.Size([2, 4]))
    """

    kind = "gru"

    def forward(self, x: Tensor, h: Tensor | None = None) -> Tensor:
        x = self._check_input(x)
        h = self._zeros(x) if h is None else self._check_hidden("h", h, x)
        from_input = x @ self.weight_ih.T + self.bias_ih  # (B, 3H)
        from_hidden = h @ self.weight_hh.T + self.bias_hh  # (B, 3H)
        x_r, x_z, x_n = from_input.chunk(3, dim=-1)
        h_r, h_z, h_n = from_hidden.chunk(3, dim=-1)
        r = torch.sigmoid(x_r + h_r)
        z = torch.sigmoid(x_z + h_z)
        n = torch.tanh(x_n + r * h_n)
        return (1 - z) * n + z * h


_CELLS: dict[str, type[_RecurrentCell]] = {"elman": ElmanCell, "lstm": LSTMCell, "gru": GRUCell}


def make_cell(kind: str, input_size: int, hidden_size: int) -> ElmanCell | LSTMCell | GRUCell:
    """A freshly initialised cell of the given kind: ``"elman"``, ``"lstm"`` or ``"gru"``.

    Examples:
        >>> tl.make_cell("gru", 3, 4)
        GRUCell(input_size=3, hidden_size=4)
    """
    return _CELLS[_check_kind(kind)](input_size, hidden_size)  # type: ignore[return-value]


def hidden_of(state: Tensor | LSTMState) -> Tensor:
    """The hidden vector h of a cell state: the state itself, or h of an LSTM's (h, c).

    Examples:
        >>> h, c = torch.zeros(2, 4), torch.ones(2, 4)
        >>> tl.rnn.hidden_of((h, c)) is h, tl.rnn.hidden_of(h) is h
        (True, True)
    """
    return state[0] if isinstance(state, tuple) else state


class RecurrentLayer(nn.Module):
    """Run a cell over a sequence, one step at a time: h_t = cell(x_t, h_{t-1}).

    The loop is plain Python on purpose: it is the sequential dependence the
    Transformer removes (T steps, each waiting for the previous one), and it
    keeps every h_t as its own autograd node (see :meth:`unroll`).

    Args:
        cell: an :class:`ElmanCell`, :class:`LSTMCell` or :class:`GRUCell`.

    Shape:
        x (B, T, I), state (B, H) (or (h, c) for an LSTM) or None
        -> outputs (B, T, H) holding h_1 ... h_T, and the final state.

    Paper: §1 ("this inherently sequential nature precludes parallelization
    within training examples"). Book: ch-recurrence.

    Examples:
        >>> layer = tl.RecurrentLayer(tl.make_cell("lstm", 3, 4))
        >>> outputs, (h, c) = layer(torch.randn(2, 5, 3))
        >>> outputs.shape, torch.equal(outputs[:, -1], h)  # h_1 ... h_T; the last is the final state
        (torch.Size([2, 5, 4]), True)
        >>> len(layer.unroll(torch.randn(2, 5, 3)))  # one state per step
        5
    """

    def __init__(self, cell: nn.Module) -> None:
        super().__init__()
        if not isinstance(cell, _RecurrentCell):
            raise TypeError(f"cell must be an ElmanCell, LSTMCell or GRUCell, got {type(cell).__name__}")
        self.cell = cell
        self.input_size = cell.input_size
        self.hidden_size = cell.hidden_size

    def unroll(self, x: Tensor | Sequence[Tensor], state: Tensor | LSTMState | None = None) -> list[Tensor | LSTMState]:
        """The states after each step, [state_1, ..., state_T], each a separate tensor.

        ``x`` is a (B, T, I) tensor or a list of T tensors of shape (B, I); a
        list keeps the positions apart in the autograd graph (slices of one
        tensor all lead back to the whole tensor), which
        ``book_support.graphs.graph_path_lengths`` needs. Call ``hidden_of(s).retain_grad()`` on
        the states before ``backward()`` to read the gradient with respect to
        every h_t (``book_support.graphs.state_gradient_norms`` does).
        """
        if isinstance(x, (list, tuple)):
            steps = [
                check_tensor(f"x[{t}]", x_t, f"(B, input_size={self.input_size})", 2, self.input_size) for t, x_t in enumerate(x)
            ]
            if not steps:
                raise ValueError("x must hold at least one step, got an empty list")
        else:
            x = check_tensor("x", x, f"(B, T, input_size={self.input_size})", 3, self.input_size)
            steps = [x[:, t] for t in range(x.shape[1])]
        states = []
        for x_t in steps:
            state = self.cell(x_t, state)  # step t needs step t - 1: no parallelism over time
            states.append(state)
        return states

    def forward(self, x: Tensor, state: Tensor | LSTMState | None = None) -> tuple[Tensor, Tensor | LSTMState]:
        states = self.unroll(x, state)
        outputs = torch.stack([hidden_of(s) for s in states], dim=1)  # (B, T, H)
        return outputs, states[-1]


class RNNSeq2Seq(nn.Module):
    """An RNN encoder-decoder, with or without additive attention: the baseline the paper replaced.

    Encoder: embeddings, then a recurrent layer over the source. Decoder:
    embeddings of the shifted target, a recurrent cell started from the
    encoder's hidden state at the last real source token (an LSTM's cell state
    starts at zero). With ``attention=True`` (Bahdanau et al., 2015) each step
    first attends from the previous decoder state to all encoder states with
    :class:`~transformer_lib.AdditiveAttention`, feeds the context vector to
    the cell together with the embedding, and predicts from [h_t; context];
    without it the decoder sees the source only through its initial state.

    The interface is the :class:`~transformer_lib.Transformer`'s: ``encode``,
    ``decode`` (features), ``output_projection``, ``forward`` -> logits, so
    ``greedy_decode`` and ``train`` accept it. ``decode`` re-runs the decoder
    over the whole prefix, as a Transformer without a cache does.

    Args:
        src_vocab_size, tgt_vocab_size: vocabulary sizes.
        embed_dim: width of the token embeddings. hidden_size: width H of the states.
        cell: ``"gru"``, ``"lstm"`` or ``"elman"``. attention: use additive attention.

    Masks are keyword-only, as in the Transformer: ``src_mask`` broadcastable to
    (B, 1, 1, S) (True = real token, as ``padding_mask`` gives); None = every source
    position is real (the decoder then starts from the state at position S).

    Shape: src (B, S) and tgt (B, T) token ids -> logits (B, T, tgt_vocab_size).

    Paper: §1 and §2 (the recurrent encoder-decoders it compares against).
    Book: ch-recurrence.

    Examples:
        >>> model = tl.RNNSeq2Seq(src_vocab_size=10, tgt_vocab_size=12, embed_dim=8, hidden_size=16)
        >>> src, tgt = torch.randint(0, 10, (2, 5)), torch.randint(0, 12, (2, 4))
        >>> model(src, tgt).shape
        torch.Size([2, 4, 12])
        >>> model.decode_with_attention(tgt, model.encode(src))[1].shape  # (B, T, S) attention weights
        torch.Size([2, 4, 5])
    """

    def __init__(
        self,
        src_vocab_size: int,
        tgt_vocab_size: int,
        embed_dim: int = 32,
        hidden_size: int = 64,
        cell: str = "gru",
        attention: bool = True,
    ) -> None:
        super().__init__()
        for name, value in (
            ("src_vocab_size", src_vocab_size),
            ("tgt_vocab_size", tgt_vocab_size),
            ("embed_dim", embed_dim),
            ("hidden_size", hidden_size),
        ):
            _check_size(name, value)
        self.src_vocab_size, self.tgt_vocab_size = src_vocab_size, tgt_vocab_size
        self.src_embed = nn.Embedding(src_vocab_size, embed_dim)
        self.tgt_embed = nn.Embedding(tgt_vocab_size, embed_dim)
        self.encoder = RecurrentLayer(make_cell(cell, embed_dim, hidden_size))
        context = hidden_size if attention else 0
        self.decoder_cell = make_cell(cell, embed_dim + context, hidden_size)
        self.attention = AdditiveAttention(hidden_size, hidden_size, hidden_size) if attention else None
        self.output_projection = nn.Linear(hidden_size + context, tgt_vocab_size)

    def _src_mask(self, src_mask: Tensor | None, B: int, S: int, device: torch.device) -> Tensor:
        if src_mask is None:
            return torch.ones(B, S, dtype=torch.bool, device=device)
        check_mask("src_mask", src_mask, (B, 1, 1, S), "(B, 1, 1, S)")
        mask = src_mask.expand(B, 1, 1, S).reshape(B, S)
        if reads_values(mask) and not bool(mask.any(dim=-1).all()):
            raise ValueError("src_mask must mark at least one real source token per sequence")
        return mask

    def encode(self, src: Tensor, *, src_mask: Tensor | None = None) -> Tensor:
        """Encoder states h_1 ... h_S. Shape: src (B, S) -> memory (B, S, H)."""
        src = check_tokens("src", src, self.src_vocab_size)
        B, S = src.shape
        self._src_mask(src_mask, B, S, src.device)
        memory, _ = self.encoder(self.src_embed(src))
        return memory

    def decode_with_attention(
        self, tgt: Tensor, memory: Tensor, *, src_mask: Tensor | None = None
    ) -> tuple[Tensor, Tensor | None]:
        """Decoder features and attention weights (None without attention).

        Shape: tgt (B, T), memory (B, S, H) -> features (B, T, F), weights (B, T, S);
        F = 2H with attention, H without.
        """
        tgt = check_tokens("tgt", tgt, self.tgt_vocab_size)
        H = self.decoder_cell.hidden_size
        memory = check_tensor("memory", memory, f"(B, S, H={H})", 3, H)
        B, S, _ = memory.shape
        if tgt.shape[0] != B:
            raise ValueError(f"tgt and memory must share the batch size: got {tuple(tgt.shape)} and {tuple(memory.shape)}")
        mask = self._src_mask(src_mask, B, S, memory.device)  # (B, S)
        last_real = mask.shape[1] - 1 - mask.flip(-1).int().argmax(dim=-1)  # index of the last True per row
        h = memory[torch.arange(B, device=memory.device), last_real]  # (B, H)
        state: Tensor | LSTMState = (h, torch.zeros_like(h)) if isinstance(self.decoder_cell, LSTMCell) else h
        embedded = self.tgt_embed(tgt)  # (B, T, E)
        features, weights = [], []
        for t in range(tgt.shape[1]):
            step_input = embedded[:, t]
            if self.attention is not None:
                query = hidden_of(state)[:, None, :]  # (B, 1, H): the previous decoder state asks
                context, alpha = self.attention(query, memory, memory, mask[:, None, :])  # (B, 1, H), (B, 1, S)
                step_input = torch.cat([step_input, context[:, 0]], dim=-1)
                weights.append(alpha[:, 0])
            state = self.decoder_cell(step_input, state)
            out = hidden_of(state)
            features.append(out if self.attention is None else torch.cat([out, context[:, 0]], dim=-1))
        return torch.stack(features, dim=1), (torch.stack(weights, dim=1) if weights else None)

    def decode(self, tgt: Tensor, memory: Tensor, *, src_mask: Tensor | None = None, tgt_mask: Tensor | None = None) -> Tensor:
        """Decoder features for every target position. Shape: tgt (B, T), memory (B, S, H) -> (B, T, F).

        ``tgt_mask`` is accepted for the Transformer's interface and not used: a
        recurrent decoder cannot see later positions anyway.
        """
        return self.decode_with_attention(tgt, memory, src_mask=src_mask)[0]

    def forward(self, src: Tensor, tgt: Tensor, *, src_mask: Tensor | None = None, tgt_mask: Tensor | None = None) -> Tensor:
        memory = self.encode(src, src_mask=src_mask)
        return self.output_projection(self.decode(tgt, memory, src_mask=src_mask))  # (B, T, V)
