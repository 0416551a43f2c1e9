"""Attention masks: one convention everywhere, converters at the border.

The convention of this library: a mask is a **boolean** tensor, broadcastable
to (B, H, Tq, Tk), with **True = this query may attend to this key**. It is the
convention of ``torch.nn.functional.scaled_dot_product_attention``.

``torch.nn.MultiheadAttention`` and ``torch.nn.Transformer*`` use the opposite
boolean meaning (True = blocked) for ``attn_mask`` and ``key_padding_mask``.
The converters at the bottom of this file are the only place in the library
where a mask is inverted.

Paper: §3.2.3 ("masking out (setting to -inf) all values in the input of the
softmax which correspond to illegal connections"). Book: ch-masking.
"""

from __future__ import annotations

from typing import Any

import torch
from torch import Tensor

from ._checks import check_mask, check_nonnegative_int, check_positive_int


def causal_mask(size: int, device: torch.device | str | None = None) -> Tensor:
    """The (size, size) lower-triangular mask: query i may attend to keys 0..i.

    Shape: (T, T), broadcastable to (B, H, T, T).
    Paper: §3.2.3, the decoder's masked self-attention.

    Examples:
        >>> tl.causal_mask(3).int()
        tensor([[1, 0, 0],
                [1, 1, 0],
                [1, 1, 1]], dtype=torch.int32)
    """
    check_positive_int("size", size)
    kwargs: dict[str, Any] = {} if device is None else {"device": device}  # passing device=None is measurably slower
    return torch.ones(size, size, dtype=torch.bool, **kwargs).tril()


def band_mask(size: int, radius: int, device: torch.device | str | None = None) -> Tensor:
    """The (size, size) band mask: query i may attend to keys j with |i - j| <= radius.

    The paper's "restricted self-attention" (Table 1, neighbourhood of size r
    around each position). Applied to a dense score matrix it limits what each
    query sees but saves no arithmetic (ch-cost measures this).

    Shape: (T, T), broadcastable to (B, H, T, T).
    Paper: Table 1 and §4. Book: ch-positions and ch-ablations.

    Examples:
        >>> tl.band_mask(4, radius=1).int()
        tensor([[1, 1, 0, 0],
                [1, 1, 1, 0],
                [0, 1, 1, 1],
                [0, 0, 1, 1]], dtype=torch.int32)
    """
    check_positive_int("size", size)
    check_nonnegative_int("radius", radius)
    index = torch.arange(size, device=device)
    return (index[:, None] - index[None, :]).abs() <= radius


def padding_mask(tokens: Tensor, pad_id: int) -> Tensor:
    """Mask of the keys that are real tokens (not padding).

    Shape: tokens (B, S) -> mask (B, 1, 1, S); True where ``tokens != pad_id``.

    Examples:
        >>> tl.padding_mask(torch.tensor([[5, 6, 0], [7, 0, 0]]), pad_id=0)
        tensor([[[[ True,  True, False]]],
                [[[ True, False, False]]]])
    """
    if not isinstance(tokens, Tensor) or tokens.is_floating_point() or tokens.dtype == torch.bool:
        got = tokens.dtype if isinstance(tokens, Tensor) else type(tokens).__name__
        raise TypeError(f"tokens must be an integer tensor of shape (B, S), got {got}")
    if tokens.dim() != 2:
        raise ValueError(f"tokens must have shape (B, S), got shape {tuple(tokens.shape)}")
    return (tokens != pad_id)[:, None, None, :]


def decoder_mask(tgt: Tensor, pad_id: int) -> Tensor:
    """Causal mask combined with the target's padding mask.

    Shape: tgt (B, T) -> mask (B, 1, T, T); True where query i may attend to
    key j, i.e. j <= i and token j is not padding.

    Examples:
        >>> tl.decoder_mask(torch.tensor([[1, 5, 0]]), pad_id=0)[0, 0].int()  # the padding is never a key
        tensor([[1, 0, 0],
                [1, 1, 0],
                [1, 1, 0]], dtype=torch.int32)
    """
    return padding_mask(tgt, pad_id) & causal_mask(tgt.shape[1], device=tgt.device)


def to_additive(mask: Tensor, dtype: torch.dtype = torch.float32) -> Tensor:
    """Boolean mask -> additive mask: 0.0 where True, -inf where False.

    Adding it to the scores before the softmax removes the blocked keys.

    Examples:
        >>> tl.to_additive(tl.causal_mask(2))
        tensor([[0., -inf],
                [0., 0.]])
    """
    check_mask("mask", mask, mask.shape if isinstance(mask, Tensor) else (), "its own shape")
    zeros = torch.zeros(mask.shape, dtype=dtype, device=mask.device)
    return zeros.masked_fill(~mask, float("-inf"))


# --- converters to and from torch.nn's "True = blocked" convention -------------


def to_torch_attn_mask(mask: Tensor) -> Tensor:
    """Our (Tq, Tk) mask -> ``attn_mask`` for ``nn.MultiheadAttention`` (True = blocked).

    Examples:
        >>> tl.to_torch_attn_mask(tl.causal_mask(2))  # True = blocked: the future
        tensor([[False,  True],
                [False, False]])
    """
    check_mask("mask", mask, mask.shape, "its own shape")
    if mask.dim() != 2:
        raise ValueError(f"mask must have shape (Tq, Tk) for attn_mask, got shape {tuple(mask.shape)}")
    return ~mask


def to_key_padding_mask(mask: Tensor) -> Tensor:
    """Our (B, 1, 1, S) padding mask -> ``key_padding_mask`` (B, S) with True = padding.

    Examples:
        >>> tl.to_key_padding_mask(tl.padding_mask(torch.tensor([[7, 0]]), pad_id=0))  # True = padding
        tensor([[False,  True]])
    """
    check_mask("mask", mask, mask.shape, "its own shape")
    if mask.dim() != 4 or mask.shape[1] != 1 or mask.shape[2] != 1:
        raise ValueError(f"mask must have shape (B, 1, 1, S), got shape {tuple(mask.shape)}")
    return ~mask[:, 0, 0, :]


def from_torch_attn_mask(attn_mask: Tensor) -> Tensor:
    """``nn.MultiheadAttention`` boolean ``attn_mask`` (True = blocked) -> our convention.

    Examples:
        >>> blocked = torch.tensor([[False, True], [False, False]])
        >>> torch.equal(tl.from_torch_attn_mask(blocked), tl.causal_mask(2))
        True
    """
    if not isinstance(attn_mask, Tensor) or attn_mask.dtype != torch.bool:
        raise TypeError("attn_mask must be a boolean tensor; float attn_masks have no single inverse")
    return ~attn_mask


def from_key_padding_mask(key_padding_mask: Tensor) -> Tensor:
    """``key_padding_mask`` (B, S), True = padding -> our (B, 1, 1, S) mask.

    Examples:
        >>> mask = tl.from_key_padding_mask(torch.tensor([[False, True]]))
        >>> mask.shape, mask.flatten().tolist()
        (torch.Size([1, 1, 1, 2]), [True, False])
    """
    if not isinstance(key_padding_mask, Tensor) or key_padding_mask.dtype != torch.bool:
        raise TypeError("key_padding_mask must be a boolean tensor of shape (B, S)")
    if key_padding_mask.dim() != 2:
        raise ValueError(f"key_padding_mask must have shape (B, S), got {tuple(key_padding_mask.shape)}")
    return ~key_padding_mask[:, None, None, :]
