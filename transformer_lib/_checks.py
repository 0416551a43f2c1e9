"""Input checks shared by every module.

Each check raises ``TypeError`` or ``ValueError`` with a message that names
the argument, what was expected and what was received, so a reader's mistake
is reported where it is made rather than as a shape error deep inside torch.
"""

from __future__ import annotations

from collections.abc import Sequence

import torch
from torch import Tensor

MASK_CONVENTION = "masks are boolean with True = may attend (the convention of torch.nn.functional.scaled_dot_product_attention)"


def _got(value: object) -> str:
    return f"{type(value).__name__} ({value!r})"


def _interval(low: float | None, high: float | None, low_open: bool = False, high_open: bool = False) -> str:
    if low is not None and high is not None:
        return f"in {'(' if low_open else '['}{low:g}, {high:g}{')' if high_open else ']'}"
    if low is not None:
        return f"{'>' if low_open else '>='} {low:g}"
    return f"{'<' if high_open else '<='} {high:g}"


def check_int(name: str, value: object, *, low: int | None = None, high: int | None = None) -> int:
    """Check that ``value`` is an ``int`` (not a ``bool``, not a float) in ``[low, high]``.

    ``TypeError`` when the type is wrong (``16.0``, ``True``, ``"4"``), ``ValueError``
    when an integer is out of range. Returns the value so a call can be an assignment.
    """
    if not isinstance(value, int) or isinstance(value, bool):
        raise TypeError(f"{name} must be an int, got {_got(value)}")
    if (low is not None and value < low) or (high is not None and value > high):
        bound = "a positive int" if (low, high) == (1, None) else f"an int {_interval(low, high)}"
        raise ValueError(f"{name} must be {bound}, got {value}")
    return value


def check_positive_int(name: str, value: object) -> int:
    """Check that ``value`` is an ``int`` >= 1 (a size, a count, a number of heads)."""
    return check_int(name, value, low=1)


def check_nonnegative_int(name: str, value: object) -> int:
    """Check that ``value`` is an ``int`` >= 0 (a step, an id, a number of warm-up repeats)."""
    return check_int(name, value, low=0)


def check_float(
    name: str,
    value: object,
    *,
    low: float | None = None,
    high: float | None = None,
    low_open: bool = False,
    high_open: bool = False,
) -> float:
    """Check that ``value`` is a real number (``int`` or ``float``, not ``bool``) in a range.

    ``low_open``/``high_open`` exclude the bound itself. NaN is rejected whenever a bound is given.
    Returns ``float(value)``.
    """
    if not isinstance(value, (int, float)) or isinstance(value, bool):
        raise TypeError(f"{name} must be a number (int or float), got {_got(value)}")
    x = float(value)
    too_low = low is not None and not (x > low if low_open else x >= low)
    too_high = high is not None and not (x < high if high_open else x <= high)
    if too_low or too_high:
        raise ValueError(f"{name} must be {_interval(low, high, low_open, high_open)}, got {value!r}")
    return x


def check_positive(name: str, value: object) -> float:
    """Check that ``value`` is a number > 0 (a temperature, a learning-rate factor)."""
    return check_float(name, value, low=0.0, low_open=True)


def check_nonnegative(name: str, value: object) -> float:
    """Check that ``value`` is a number >= 0 (a length penalty, a weight)."""
    return check_float(name, value, low=0.0)


def check_fraction(name: str, value: object) -> float:
    """Check that ``value`` is in [0, 1): a dropout rate or a label-smoothing epsilon (1 would drop everything)."""
    return check_float(name, value, low=0.0, high=1.0, high_open=True)


def check_bool(name: str, value: object) -> bool:
    """Check that ``value`` is a ``bool`` (``0``/``1`` and strings are refused: they hide mistakes)."""
    if not isinstance(value, bool):
        raise TypeError(f"{name} must be a bool (True or False), got {_got(value)}")
    return value


def check_choice(name: str, value: object, choices: Sequence[object]) -> object:
    """Check that ``value`` is one of ``choices`` (compared with ``==``)."""
    if value not in tuple(choices):
        options = ", ".join(repr(c) for c in choices)
        raise ValueError(f"{name} must be one of {options}, got {value!r}")
    return value


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


def reads_values(x: Tensor) -> bool:
    """Whether a check may read ``x``'s values: not on the ``meta`` device, whose tensors have none.

    Reading a value brings it to the host: free on the CPU, a synchronisation on a GPU,
    so the checks that read one do it once per call (one reduction, one transfer).
    """
    return x.device.type != "meta"


def check_tokens(name: str, tokens: object, vocab_size: int) -> Tensor:
    """Check a (B, T) tensor of integer token ids in [0, vocab_size).

    The id range is read from the tensor (one host read; skipped on the ``meta`` device).
    """
    if not isinstance(tokens, Tensor):
        raise TypeError(f"{name} must be a torch.Tensor of integer token ids, shape (B, T), got {type(tokens).__name__}")
    if tokens.is_floating_point() or tokens.is_complex() or tokens.dtype == torch.bool:
        raise TypeError(f"{name} must hold integer token ids (torch.long), got dtype {tokens.dtype}")
    if tokens.dim() != 2:
        raise ValueError(f"{name} must have shape (B, T), got shape {tuple(tokens.shape)} (rank {tokens.dim()})")
    if tokens.shape[1] == 0:
        raise ValueError(f"{name} must hold at least one token per sequence, got shape {tuple(tokens.shape)}")
    if tokens.numel() > 0 and reads_values(tokens):
        low, high = torch.stack(torch.aminmax(tokens)).tolist()  # one read from the device, not two
        if low < 0 or high >= vocab_size:
            raise ValueError(
                f"{name} must hold ids in [0, {vocab_size}) (vocabulary size {vocab_size}), got ids from {low} to {high}"
            )
    return tokens


def _float_mask_advice(mask: Tensor) -> str:
    """How to convert a non-boolean mask, from what its values say about its convention."""
    additive = "an additive mask (0 = attend, -inf or a large negative number = blocked): convert with `mask == 0`"
    attend_one = "a 0/1 mask with 1 = attend: convert with `mask.bool()`"
    blocked_one = "a 0/1 mask with 1 = blocked (torch.nn's convention): convert with `mask == 0`"
    values = mask.detach()
    if values.is_floating_point() and reads_values(values) and bool((values < 0).any()):
        return f"Yours has negative entries, so it looks like {additive}"
    return f"If yours is {attend_one}; if it is {blocked_one}; if it is {additive}"


def check_mask(name: str, mask: object, target: Sequence[int], target_names: str) -> Tensor:
    """Check a boolean mask broadcastable to ``target`` (e.g. (B, H, Tq, Tk)).

    The messages say how to convert a float or integer mask (which conversion depends on
    what 1 means in it) and how to expand a (B, S) key-padding mask.
    """
    if not isinstance(mask, Tensor):
        raise TypeError(f"{name} must be a boolean torch.Tensor; {MASK_CONVENTION}; got {type(mask).__name__}")
    if mask.dtype != torch.bool:
        raise TypeError(f"{name} must have dtype torch.bool, got {mask.dtype}: {MASK_CONVENTION}. {_float_mask_advice(mask)}")
    target = tuple(int(t) for t in target)
    ok = mask.dim() <= len(target) and all(m in (1, t) for m, t in zip(reversed(mask.shape), reversed(target), strict=False))
    if not ok:
        message = f"{name} must be broadcastable to {target_names} = {target}, got shape {tuple(mask.shape)}"
        if mask.dim() == 2 and len(target) >= 3 and tuple(mask.shape) == (target[0], target[-1]):
            index = "[:, " + "None, " * (len(target) - 2) + ":]"
            message += (
                f". A (B, S) mask is a key-padding mask: give it the shape (B{', 1' * (len(target) - 2)}, S) with `{name}{index}`"
            )
            if len(target) == 4:
                message += (
                    ", or build it from the tokens with tl.padding_mask(tokens, pad_id); "
                    "a torch.nn key_padding_mask (True = padding) converts with tl.from_key_padding_mask"
                )
        raise ValueError(message)
    return mask
