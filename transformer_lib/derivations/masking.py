"""Masks in the softmax: the -inf limit, a finite constant, and fully masked rows.

Paper: §3.2.3 ("masking out (setting to -inf) all values in the input of the
softmax which correspond to illegal connections"), Figure 2 (Mask after Scale,
before SoftMax). Book: chapter 5.
"""

from __future__ import annotations

import sympy as sp

from .core import Derivation, Step, register
from .softmax import softmax_vector


def _logits(n: int) -> sp.Matrix:
    return sp.Matrix(sp.symbols(f"z1:{n + 1}", real=True))


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
    scaled_after = softmax_vector(sp.Matrix([z1, z2, z3 - c]) / sp.sqrt(d))  # mask, then scale
    scaled_before = softmax_vector(sp.Matrix([z1 / sp.sqrt(d), z2 / sp.sqrt(d), z3 / sp.sqrt(d) - c]))  # scale, then mask
    visible_scaled = softmax_vector(sp.Matrix([z1, z2]) / sp.sqrt(d))
    steps = (
        Step("the masked key's weight tends to 0 as c -> oo", sp.limit(masked[2], c, sp.oo), 0),
        Step(
            "each visible key's weight tends to its softmax over the visible keys alone",
            sp.Matrix([sp.limit(masked[0], c, sp.oo), sp.limit(masked[1], c, sp.oo)]),
            visible,
        ),
        Step(
            "for finite c the masked key keeps weight e^(z3 - z1 - c) relative to key 1 (the leak)",
            masked[2] / masked[0],
            sp.exp(z3 - z1 - c),
        ),
        Step(
            "the gradient of a visible weight with respect to the masked score, -s1 s3, tends to 0",
            sp.limit(sp.diff(masked[0], z3), c, sp.oo),
            0,
        ),
        Step(
            "zeroing masked weights after the softmax and renormalising gives the same weights",
            sp.simplify(renormalised),
            visible,
        ),
        Step(
            "masking before the 1/sqrt(d_k) scale (c/sqrt(d_k) -> oo) or after it gives the same limit",
            sp.Matrix([sp.limit(scaled_after[i], c, sp.oo) - sp.limit(scaled_before[i], c, sp.oo) for i in range(3)]),
            sp.zeros(3, 1),
        ),
        Step(
            "and that limit is the softmax of the scaled visible scores",
            sp.Matrix([sp.limit(scaled_before[0], c, sp.oo), sp.limit(scaled_before[1], c, sp.oo)]),
            visible_scaled,
        ),
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
        Step(
            "adding the same -c to every score changes nothing: softmax(z - c) = softmax(z)",
            sp.simplify(shifted),
            softmax_vector(z),
        ),
        Step("replacing every score by the same -c gives uniform weights 1/n", sp.simplify(filled), sp.ones(n, 1) / n),
        Step(
            "with masked_fill the weights do not depend on c, so the row has no limit other than uniform",
            sp.Matrix([sp.limit(filled[i], c, sp.oo) for i in range(n)]),
            sp.ones(n, 1) / n,
        ),
        Step(
            "each weight of an all-masked row is e^(z_i - c) / sum_j e^(z_j - c), a ratio of two terms that both tend to 0",
            sp.Matrix([sp.limit(sp.exp(z[0] - c), c, sp.oo), sp.limit(sum(sp.exp(zj - c) for zj in z), c, sp.oo)]),
            sp.zeros(2, 1),
        ),
    )
    return Derivation(
        name="fully_masked_row",
        statement="a fully masked row gets its unmasked weights (additive -c), uniform weights (fill -c), or 0/0 (-inf)",
        reference="book chapter 5",
        steps=steps,
    )
