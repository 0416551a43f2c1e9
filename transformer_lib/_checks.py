"""Input checks shared by every module.

Each check raises ``TypeError`` or ``ValueError`` with a message that names
the argument, what was expected and what was received, so a reader's mistake
is reported where it is made rather than as a shape error deep inside torch.
"""

from __future__ import annotations

from collections.abc import Sequence

import torch
from torch import Tensor

MASK_CONVENTION = (
    "masks are boolean with True = may attend (the convention of "
    "torch.nn.functional.scaled_dot_product_attention)"
)


def check_tensor(name: str, x: object, shape: str, rank: int | None = None, last_dim: int | None = None) -> Tensor:
    """Check that ``x`` is a floating tensor of the given rank and last width.

    ``shape`` is the human-readable expected shape, e.g. ``"(B, T, D=512)"``.
    """
    if not isinstance(x, Tensor):
        raise TypeError(f"{name} must be a torch.Tensor of shape {shape}, got {type(x).__name__}")
    if not x.is_floating_point():
        raise TypeError(f"{name} must be a floating-point tensor of shape {shape}, got dtype {x.dtype}")
    if rank is not None and x.dim() != rank:
        raise ValueError(f"{name} must have shape {shape} (rank {rank}), got shape {tuple(x.shape)} (rank {x.dim()})")
    if last_dim is not None and (x.dim() == 0 or x.shape[-1] != last_dim):
        raise ValueError(f"{name} must have shape {shape} with last dimension {last_dim}, got shape {tuple(x.shape)}")
    if x.dim() >= 2 and x.shape[-2] == 0:
        raise ValueError(f"{name} must hold at least one position, got an empty sequence of shape {tuple(x.shape)}")
    return x


def check_tokens(name: str, tokens: object, vocab_size: int) -> Tensor:
    """Check a (B, T) tensor of integer token ids in [0, vocab_size)."""
    if not isinstance(tokens, Tensor):
        raise TypeError(f"{name} must be a torch.Tensor of integer token ids, shape (B, T), got {type(tokens).__name__}")
    if tokens.is_floating_point() or tokens.is_complex() or tokens.dtype == torch.bool:
        raise TypeError(f"{name} must hold integer token ids (torch.long), got dtype {tokens.dtype}")
    if tokens.dim() != 2:
        raise ValueError(f"{name} must have shape (B, T), got shape {tuple(tokens.shape)} (rank {tokens.dim()})")
    if tokens.shape[1] == 0:
        raise ValueError(f"{name} must hold at least one token per sequence, got shape {tuple(tokens.shape)}")
    if tokens.numel() > 0:
        low, high = int(tokens.min()), int(tokens.max())
        if low < 0 or high >= vocab_size:
            raise ValueError(
                f"{name} must hold ids in [0, {vocab_size}) (vocabulary size {vocab_size}), "
                f"got ids from {low} to {high}"
            )
    return tokens


def check_mask(name: str, mask: object, target: Sequence[int], target_names: str) -> Tensor:
    """Check a boolean mask broadcastable to ``target`` (e.g. (B, H, Tq, Tk))."""
    if not isinstance(mask, Tensor):
        raise TypeError(f"{name} must be a boolean torch.Tensor; {MASK_CONVENTION}; got {type(mask).__name__}")
    if mask.dtype != torch.bool:
        raise TypeError(
            f"{name} must have dtype torch.bool, got {mask.dtype}: {MASK_CONVENTION}. "
            "Additive float masks (0 / -inf) are not accepted; convert with `mask == 0` "
            "if yours is 0 where attention is allowed"
        )
    target = tuple(int(t) for t in target)
    ok = mask.dim() <= len(target) and all(
        m in (1, t) for m, t in zip(reversed(mask.shape), reversed(target), strict=False)
    )
    if not ok:
        raise ValueError(
            f"{name} must be broadcastable to {target_names} = {target}, got shape {tuple(mask.shape)}"
        )
    return mask
