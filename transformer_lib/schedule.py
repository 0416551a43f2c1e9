"""The learning-rate schedule of the paper: warm-up, then decay with 1/sqrt(step).

Paper: §5.3 (Adam and the warm-up schedule, Eq. 3). Book: ch-training.
"""

from __future__ import annotations

from torch.optim import Optimizer
from torch.optim.lr_scheduler import LambdaLR

from ._checks import check_nonnegative_int, check_positive, check_positive_int


def noam_lr(step: int, d_model: int, warmup: int = 4000, factor: float = 1.0) -> float:
    """The paper's learning rate at update number ``step``.

    lrate = factor * d_model^-0.5 * min(step^-0.5, step * warmup^-1.5):
    a linear rise for ``warmup`` steps, then decay with 1/sqrt(step). The two
    branches meet at step = warmup, where the rate peaks at
    factor * (d_model * warmup)^-0.5.

    ``step`` counts updates from 1 (the paper's step_num). ``step=0`` gives 0.0,
    the limit of the formula (min(inf, 0) = 0): "before any update".

    Args:
        step: update number, an int >= 0. d_model: D. warmup: warm-up steps (4000 in the paper).
        factor: a multiplier (1.0 in the paper).

    Paper: §5.3, Eq. 3. Book: ch-training.

    Examples:
        >>> round(tl.noam_lr(4000, d_model=512, warmup=4000), 7)  # the peak: (512 * 4000)^-0.5
        0.0006988
        >>> round(tl.noam_lr(2000, 512, 4000) / tl.noam_lr(4000, 512, 4000), 12)  # the linear warm-up
        0.5
    """
    check_nonnegative_int("step", step)
    check_positive_int("d_model", d_model)
    check_positive_int("warmup", warmup)
    check_positive("factor", factor)
    if step == 0:
        return 0.0
    return factor * d_model**-0.5 * min(step**-0.5, step * warmup**-1.5)


def noam_scheduler(optimizer: Optimizer, d_model: int, warmup: int = 4000, factor: float = 1.0) -> LambdaLR:
    """A ``LambdaLR`` whose learning rate is :func:`noam_lr`.

    ``LambdaLR`` multiplies the optimizer's ``lr`` by a function of the update
    number, here ``noam_lr(n, d_model, warmup, factor)`` for update n (counted
    from 1). So the optimizer is built with ``lr=1.0`` and any scale goes into
    ``factor``; another ``lr`` would scale the schedule unseen, and is refused.
    Call ``scheduler.step()`` after each ``optimizer.step()``.

    Paper: §5.3 (with Adam, beta1 = 0.9, beta2 = 0.98, eps = 1e-9). Book: ch-training.

    Examples:
        >>> weight = torch.nn.Parameter(torch.zeros(3))
        >>> optimizer = torch.optim.Adam([weight], lr=1.0, betas=(0.9, 0.98), eps=1e-9)
        >>> scheduler = tl.noam_scheduler(optimizer, d_model=64, warmup=10)
        >>> optimizer.param_groups[0]["lr"] == tl.noam_lr(1, 64, 10)  # the rate of update 1
        True
        >>> tl.noam_scheduler(torch.optim.Adam([weight]), d_model=64)  # Adam's default lr=0.001
        Traceback (most recent call last):
            ...
        ValueError: optimizer must be built with lr=1.0: ...
    """
    if not isinstance(optimizer, Optimizer):
        raise TypeError(f"optimizer must be a torch.optim.Optimizer, got {type(optimizer).__name__}")
    noam_lr(1, d_model, warmup, factor)  # validates the arguments
    for i, group in enumerate(optimizer.param_groups):
        for key in ("lr", "initial_lr"):  # LambdaLR's base rate: initial_lr if an earlier scheduler set it, else lr
            if key in group and float(group[key]) != 1.0:
                raise ValueError(
                    "optimizer must be built with lr=1.0: the schedule multiplies the optimizer's lr by "
                    "factor * noam_lr(step, d_model, warmup), so put any scale into factor; "
                    f"got {key}={float(group[key])} in param group {i}"
                )

    def rate(completed_updates: int) -> float:  # LambdaLR counts from 0 before the first update
        return noam_lr(completed_updates + 1, d_model, warmup, factor)

    return LambdaLR(optimizer, rate)


__all__ = ["noam_lr", "noam_scheduler"]
