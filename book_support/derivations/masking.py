"""Masks in the softmax: the -inf limit, a finite constant, and fully masked rows.

Paper: §3.2.3 ("masking out (setting to -inf) all values in the input of the
softmax which correspond to illegal connections"), Figure 2 (Mask after Scale,
before SoftMax). Book: ch-masking.
"""

from __future__ import annotations

import sympy as sp

from .core import Derivation, Step, register, softmax_vector, symbol_vector

__all__ = ["additive_mask_limit", "fully_masked_row"]


def _logits(n: int) -> sp.Matrix:
    return symbol_vector("z", n)


@register
def additive_mask_limit() -> Derivation:
    """Adding -c to a key's score and letting c grow removes the key exactly.

    Three logits z1, z2, z3; key 3 is masked by adding -c. As c -> oo the
    weights become the softmax over the visible keys alone, the masked key's
    weight and its gradient vanish, and it does not matter whether the mask is
    added before or after the division by sqrt(d_k).
    """
    z1, z2, z3 = z = _logits(3)
    c = sp.Symbol("c", positive=True)  # the size of the additive mask constant
    d = sp.Symbol("d_k", positive=True)
    masked = softmax_vector(sp.Matrix([z1, z2, z3 - c]))  # softmax(z + m) with m = (0, 0, -c)
    visible = softmax_vector(sp.Matrix([z1, z2]))  # softmax over the visible keys only
    unmasked = softmax_vector(z)
    renormalised = sp.Matrix([unmasked[0], unmasked[1]]) / (unmasked[0] + unmasked[1])
    mask_then_scale = softmax_vector(sp.Matrix([z1, z2, z3 - c]) / sp.sqrt(d))  # the mask added before the scale
    scale_then_mask = softmax_vector(sp.Matrix([z1 / sp.sqrt(d), z2 / sp.sqrt(d), z3 / sp.sqrt(d) - c]))  # the paper's order
    visible_scaled = softmax_vector(sp.Matrix([z1, z2]) / sp.sqrt(d))
    limit_scaled = visible_scaled.col_join(sp.Matrix([0]))
    steps = (
        Step.limit("the masked key's weight tends to 0 as c -> oo", masked[2], c, sp.oo, 0),
        Step.limit(
            "each visible key's weight tends to its softmax over the visible keys alone",
            sp.Matrix([masked[0], masked[1]]),
            c,
            sp.oo,
            visible,
        ),
        Step.identity(
            "for finite c the masked key keeps weight e^(z3 - z1 - c) relative to key 1 (the leak)",
            masked[2] / masked[0],
            sp.exp(z3 - z1 - c),
        ),
        Step.limit(
            "the gradient of a visible weight with respect to the masked score, -s1 s3, tends to 0",
            sp.diff(masked[0], z3),
            c,
            sp.oo,
            0,
        ),
        Step.for_sizes(
            "zeroing masked weights after the softmax and renormalising gives the same weights", renormalised, visible, "n = 3"
        ),
        Step.limit(
            "masking after the 1/sqrt(d_k) scale: the weights tend to the softmax of the scaled visible scores",
            scale_then_mask,
            c,
            sp.oo,
            limit_scaled,
        ),
        Step.limit("masking before it (c/sqrt(d_k) -> oo as well) gives the same limit", mask_then_scale, c, sp.oo, limit_scaled),
    )
    return Derivation(
        name="additive_mask_limit",
        statement="softmax(z + m) with m_j = -c on masked keys tends to the softmax over the visible keys as c -> oo",
        reference="paper §3.2.3 and Figure 2; book chapter 5",
        steps=steps,
    )


@register
def fully_masked_row() -> Derivation:
    """What a row whose every key is masked gets, for each way of masking.

    With an additive finite constant the row gets its *unmasked* weights (the
    softmax ignores a common shift); with ``masked_fill`` by a constant it gets
    uniform weights; with -inf the softmax is 0/0 (NaN in floating point).
    """
    n = 4
    z = _logits(n)
    c = sp.Symbol("c", positive=True)
    shifted = softmax_vector(z - c * sp.ones(n, 1))  # every key masked by adding -c
    filled = softmax_vector(-c * sp.ones(n, 1))  # every score replaced by -c (masked_fill)
    steps = (
        Step.for_sizes(
            "adding the same -c to every score changes nothing: softmax(z - c) = softmax(z)",
            shifted,
            softmax_vector(z),
            f"n = {n}",
        ),
        Step.computed(
            "replacing every score by the same -c gives uniform weights 1/n, whatever c is (so no other limit)",
            filled,
            sp.ones(n, 1) / n,
            variables=(c,),
            operand=-c * sp.ones(n, 1),
            sizes=f"n = {n}",
        ),
        Step.limit(
            "each weight of an all-masked row is e^(z_i - c) / sum_j e^(z_j - c), a ratio of two terms that both tend to 0",
            sp.Matrix([sp.exp(z[0] - c), sum(sp.exp(zj - c) for zj in z)]),
            c,
            sp.oo,
            sp.zeros(2, 1),
        ),
    )
    return Derivation(
        name="fully_masked_row",
        statement="a fully masked row gets its unmasked weights (additive -c), uniform weights (fill -c), or 0/0 (-inf)",
        reference="book chapter 5",
        steps=steps,
    )
