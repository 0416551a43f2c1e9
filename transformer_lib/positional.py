"""Token embeddings and positional encodings.

Paper: §3.4 (embeddings scaled by sqrt(d_model), weights shared with the
pre-softmax projection) and §3.5 (sinusoidal positional encoding, Table 3
row E for learned positions). Book: ch-positions (positions), ch-model (embeddings).
"""

from __future__ import annotations

import math

import torch
from torch import Tensor, nn

from ._checks import check_bool, check_fraction, check_int, check_positive_int, check_tensor, check_tokens


def sinusoidal_table(
    max_len: int, d_model: int, dtype: torch.dtype = torch.float32, *, device: torch.device | str | None = None
) -> Tensor:
    """The sinusoidal position table of the paper.

    PE[pos, 2i] = sin(pos / 10000^(2i / d_model)),
    PE[pos, 2i + 1] = cos(pos / 10000^(2i / d_model)).

    The angles are computed in float64 and the table cast to ``dtype``, so the
    float32 table is the correctly rounded one at every position. They are computed
    on the CPU and the table then moved to ``device`` (None: the CPU), so it holds the
    same numbers on every device.

    Shape: -> (max_len, d_model).
    Paper: §3.5. Book: ch-positions.

    Examples:
        >>> table = tl.sinusoidal_table(max_len=50, d_model=8)
        >>> table.shape, table.dtype
        (torch.Size([50, 8]), torch.float32)
        >>> table[0]  # position 0: sin 0 = 0 and cos 0 = 1 at every frequency
        tensor([0., 1., 0., 1., 0., 1., 0., 1.])
    """
    check_positive_int("max_len", max_len)
    check_positive_int("d_model", d_model)
    if d_model % 2 != 0:
        raise ValueError(f"d_model must be even (sin/cos pairs), got {d_model}")
    cpu = torch.device("cpu")  # explicit, so that a torch.device("meta") context does not empty the table
    position = torch.arange(max_len, dtype=torch.float64, device=cpu)[:, None]  # (max_len, 1)
    inv_freq = 10000.0 ** (-torch.arange(0, d_model, 2, dtype=torch.float64, device=cpu) / d_model)  # (d_model / 2,)
    angles = position * inv_freq  # (max_len, d_model / 2)
    table = torch.empty(max_len, d_model, dtype=torch.float64, device=cpu)
    table[:, 0::2] = torch.sin(angles)
    table[:, 1::2] = torch.cos(angles)
    return table.to(dtype=dtype, device=device)


class SinusoidalPositionalEncoding(nn.Module):
    """Adds the fixed sinusoidal table to the input, then applies dropout.

    ``offset``: the position of x's first row (incremental decoding adds rows
    ``offset ... offset + T - 1`` of the table).

    Shape: x (B, T, D) -> (B, T, D), with offset + T <= max_len.
    Paper: §3.5 (the table) and §5.4 (dropout on the sums). Book: ch-positions.

    Examples:
        >>> encoding = tl.SinusoidalPositionalEncoding(d_model=8, max_len=16)
        >>> x = torch.zeros(2, 5, 8)
        >>> torch.equal(encoding(x)[1], tl.sinusoidal_table(5, 8))  # zeros plus the table's first 5 rows
        True
        >>> torch.equal(encoding(x, offset=3)[1], tl.sinusoidal_table(8, 8)[3:])
        True
    """

    table: Tensor  # (max_len, D) float64 buffer, not saved in the state dict

    def __init__(self, d_model: int, max_len: int = 1024, dropout: float = 0.0) -> None:
        super().__init__()
        check_positive_int("d_model", d_model)
        check_positive_int("max_len", max_len)
        check_fraction("dropout", dropout)
        self.d_model = d_model
        self.max_len = max_len
        self.dropout = nn.Dropout(dropout)
        # kept in float64 and cast in forward, so that model.double() gets a table accurate to float64
        self.register_buffer("table", sinusoidal_table(max_len, d_model, dtype=torch.float64), persistent=False)

    def forward(self, x: Tensor, *, offset: int = 0) -> Tensor:
        check_positions(x, self.d_model, self.max_len, offset)
        return self.dropout(x + self.table[offset : offset + x.shape[1]].to(x.dtype))


class LearnedPositionalEncoding(nn.Module):
    """Adds a trained (max_len, D) position embedding, then applies dropout.

    ``offset``: the position of x's first row, as in :class:`SinusoidalPositionalEncoding`.

    Shape: x (B, T, D) -> (B, T, D), with offset + T <= max_len.
    Paper: Table 3 row E ("positional embedding instead of sinusoids"). Book: ch-positions.

    Examples:
        >>> encoding = tl.LearnedPositionalEncoding(d_model=8, max_len=16)
        >>> encoding(torch.zeros(2, 5, 8)).shape, encoding.embedding.weight.shape
        (torch.Size([2, 5, 8]), torch.Size([16, 8]))
    """

    def __init__(self, d_model: int, max_len: int = 1024, dropout: float = 0.0) -> None:
        super().__init__()
        check_positive_int("d_model", d_model)
        check_positive_int("max_len", max_len)
        check_fraction("dropout", dropout)
        self.d_model = d_model
        self.max_len = max_len
        self.dropout = nn.Dropout(dropout)
        self.embedding = nn.Embedding(max_len, d_model)
        nn.init.normal_(self.embedding.weight, std=d_model**-0.5)

    def forward(self, x: Tensor, *, offset: int = 0) -> Tensor:
        check_positions(x, self.d_model, self.max_len, offset)
        positions = torch.arange(offset, offset + x.shape[1], device=x.device)
        return self.dropout(x + self.embedding(positions))


def check_positions(x: Tensor, d_model: int, max_len: int, offset: int = 0) -> None:
    """x is (B, T, d_model) and positions offset ... offset + T - 1 fit a table of max_len rows.

    Examples:
        >>> tl.positional.check_positions(torch.zeros(1, 5, 8), d_model=8, max_len=4)
        Traceback (most recent call last):
            ...
        ValueError: x has 5 positions but the positional encoding covers max_len=4; raise max_len in the config
    """
    check_tensor("x", x, f"(B, T, D={d_model})", 3, d_model)
    check_int("offset", offset, low=0)
    if offset + x.shape[1] > max_len:
        where = f"positions {offset}..{offset + x.shape[1] - 1}" if offset else f"{x.shape[1]} positions"
        raise ValueError(f"x has {where} but the positional encoding covers max_len={max_len}; raise max_len in the config")


class TokenEmbedding(nn.Module):
    """Token ids -> vectors, multiplied by sqrt(d_model).

    A lookup in a (V, D) matrix, the same as one-hot(tokens) @ weight. The
    weights start as N(0, 1/D) so that after the sqrt(D) scale each entry has
    unit variance, the same size as the sinusoidal table's entries.

    Shape: tokens (B, T) integer ids in [0, V) -> (B, T, D).
    Paper: §3.4. Book: ch-model.

    Examples:
        >>> embed = tl.TokenEmbedding(vocab_size=10, d_model=4)
        >>> embed(torch.tensor([[1, 2, 3]])).shape, embed.scale  # scale = sqrt(4)
        (torch.Size([1, 3, 4]), 2.0)
    """

    def __init__(self, vocab_size: int, d_model: int, scale: bool = True) -> None:
        super().__init__()
        check_positive_int("vocab_size", vocab_size)
        check_positive_int("d_model", d_model)
        check_bool("scale", scale)
        self.vocab_size = vocab_size
        self.d_model = d_model
        self.scale = math.sqrt(d_model) if scale else 1.0
        self.embedding = nn.Embedding(vocab_size, d_model)
        nn.init.normal_(self.embedding.weight, std=d_model**-0.5)

    @property
    def weight(self) -> Tensor:
        """The (V, D) embedding matrix (shared with the output projection when tied)."""
        return self.embedding.weight

    def forward(self, tokens: Tensor) -> Tensor:
        check_tokens("tokens", tokens, self.vocab_size)
        return self.embedding(tokens) * self.scale
