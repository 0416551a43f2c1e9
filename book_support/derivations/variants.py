"""The variants: BERT's corruption, ViT's sequence length, Whisper's stem, sampling temperature.

BERT chooses each position with probability p and replaces a chosen token by
[MASK] (80 %), by a random token (10 %) or by itself (10 %) (Devlin et al.
2019, §3.1 and appendix C.2). ViT cuts an H x W image into N = HW / P^2
patches (Dosovitskiy et al. 2021, §3.1). Whisper's stem halves the frame rate
with a stride-2 convolution (Radford et al. 2023, §2.3). A language model
samples from softmax(z / tau).

Book: ch-variants (BERT, sampling), ch-vision-speech (ViT, Whisper).
"""

from __future__ import annotations

from numbers import Integral, Real

import sympy as sp

from .core import Derivation, Step, register, softmax_vector

__all__ = [
    "KEEP_SHARE",
    "MASK_SHARE",
    "RANDOM_SHARE",
    "conv_output_length",
    "mlm_corruption",
    "mlm_probabilities",
    "patch_count",
    "sampling_temperature_limits",
    "vit_sequence_length",
    "whisper_stem_length",
]

MASK_SHARE = sp.Rational(8, 10)  # a chosen token becomes [MASK]
RANDOM_SHARE = sp.Rational(1, 10)  # a chosen token becomes a uniformly random token (possibly itself)
KEEP_SHARE = sp.Rational(1, 10)  # a chosen token is left as it is


def _is_number(value: object) -> bool:
    return isinstance(value, (Real, sp.Number)) and not isinstance(value, bool)


def mlm_probabilities(p: float | sp.Expr, vocab_size: int | sp.Expr) -> dict[str, sp.Expr]:
    """What BERT's corruption does to one eligible position, as exact expressions.

    Args:
        p: the probability that a position is chosen for the loss (0.15 in BERT), a number in (0, 1] or a symbol.
        vocab_size: V, the number of tokens a random replacement is drawn from, an int >= 2 or a symbol.

    Returns a dict of sympy expressions:
        ``chosen``: p; ``masked``: P(the input is [MASK]) = 0.8 p (the random branch can also draw
        [MASK], which ``mask_tokens`` allows: ``masked_or_drawn`` adds that 0.1 p / V);
        ``input_changed``: P(input != original) = p (0.8 + 0.1 (V - 1) / V);
        ``unchanged_given_chosen``: 0.1 + 0.1 / V, the share of the loss carried by chosen
        positions whose input shows the original token;
        ``chosen_given_unchanged``: P(chosen | the input shows the original token), how often a
        token that looks untouched is in the loss.

    Raises ``ValueError`` for a numeric ``p`` outside (0, 1] or a numeric ``vocab_size`` below 2,
    ``TypeError`` for a non-integer numeric ``vocab_size``.
    Paper: Devlin et al. (2019), §3.1 and appendix C.2. Book: ch-variants.
    """
    if _is_number(p) and not 0 < float(p) <= 1:
        raise ValueError(f"p must be in (0, 1], got {p!r}")
    if _is_number(vocab_size):
        if not isinstance(vocab_size, (Integral, sp.Integer)):
            raise TypeError(f"vocab_size must be an int, got {type(vocab_size).__name__} ({vocab_size!r})")
        if int(vocab_size) < 2:
            raise ValueError(f"vocab_size must be >= 2, got {vocab_size}")
    elif isinstance(vocab_size, (bool, str)) or not isinstance(vocab_size, sp.Expr):
        raise TypeError(f"vocab_size must be an int or a sympy expression, got {type(vocab_size).__name__}")
    p, V = sp.nsimplify(p) if _is_number(p) else p, sp.sympify(vocab_size)
    unchanged_given_chosen = KEEP_SHARE + RANDOM_SHARE / V
    unchanged = (1 - p) + p * unchanged_given_chosen  # unchosen positions are untouched
    return {
        "chosen": p,
        "masked": MASK_SHARE * p,
        "masked_or_drawn": MASK_SHARE * p + RANDOM_SHARE * p / V,
        "input_changed": p * (MASK_SHARE + RANDOM_SHARE * (V - 1) / V),
        "unchanged_given_chosen": unchanged_given_chosen,
        "chosen_given_unchanged": p * unchanged_given_chosen / unchanged,
    }


def conv_output_length(length: int | sp.Expr, kernel: int, stride: int, padding: int) -> sp.Expr:
    """Positions after a 1-d convolution: floor((L + 2 padding - kernel) / stride) + 1.

    Raises ``ValueError`` for a kernel or stride below 1, a negative padding, or a numeric length
    too short for the kernel. Book: ch-vision-speech (Whisper's stem).
    """
    for name, value, low in (("kernel", kernel, 1), ("stride", stride, 1), ("padding", padding, 0)):
        if not isinstance(value, Integral) or isinstance(value, bool) or value < low:
            raise ValueError(f"{name} must be an int >= {low}, got {value!r}")
    if _is_number(length) and int(length) + 2 * padding < kernel:
        raise ValueError(f"length must be >= kernel - 2 padding = {kernel - 2 * padding}, got {length}")
    return sp.floor((sp.sympify(length) + 2 * padding - kernel) / stride) + 1


def patch_count(image_size: int | sp.Expr, patch_size: int | sp.Expr) -> sp.Expr:
    """N = (image_size / patch_size)^2, the number of tokens ViT makes of a square image (class token not counted).

    Raises ``ValueError`` when a numeric image size is not a positive multiple of a numeric patch size.
    Paper: Dosovitskiy et al. (2021), §3.1. Book: ch-vision-speech.
    """
    if _is_number(image_size) and _is_number(patch_size):
        if int(patch_size) <= 0 or int(image_size) <= 0 or int(image_size) % int(patch_size):
            raise ValueError(f"image_size must be a positive multiple of patch_size, got {image_size} and {patch_size}")
    return (sp.sympify(image_size) / sp.sympify(patch_size)) ** 2


@register
def mlm_corruption() -> Derivation:
    """BERT's 80/10/10 corruption: how often the input differs, and what the loss sees.

    p is the chance that a position is chosen, V the vocabulary size. A chosen
    token becomes [MASK] with probability 0.8, a uniformly random token with 0.1
    (which is the original token again with probability 1/V), and stays with 0.1.
    """
    p = sp.Symbol("p", positive=True)
    V = sp.Symbol("V", positive=True)
    probs = mlm_probabilities(p, V)
    changed_given_chosen = MASK_SHARE + RANDOM_SHARE * (V - 1) / V
    at_bert = mlm_probabilities(sp.Rational(15, 100), V)
    shares = sp.symbols("mask random keep", positive=True)
    steps = (
        Step.value(
            "the three branches of a chosen token add up to one: 0.8 + 0.1 + 0.1 = 1",
            sum(shares),
            dict(zip(shares, (MASK_SHARE, RANDOM_SHARE, KEEP_SHARE), strict=True)),
            1,
        ),
        Step.identity(
            "given chosen, input changed and input unchanged add up to one",
            changed_given_chosen + probs["unchanged_given_chosen"],
            1,
        ),
        Step.identity(
            "P(input != original) = p (0.8 + 0.1 (V - 1)/V) = p (9V - 1) / (10 V)",
            probs["input_changed"],
            p * (9 * V - 1) / (10 * V),
        ),
        Step.identity(
            "share of the loss on unchanged inputs: 0.1 + 0.1/V = (V + 1) / (10 V)",
            probs["unchanged_given_chosen"],
            (V + 1) / (10 * V),
        ),
        Step.limit(
            "for a large vocabulary P(input != original) -> 0.9 p", probs["input_changed"], V, sp.oo, sp.Rational(9, 10) * p
        ),
        Step.limit(
            "and the loss share of unchanged inputs -> 1/10", probs["unchanged_given_chosen"], V, sp.oo, sp.Rational(1, 10)
        ),
        Step.identity(
            "P(chosen | input unchanged) = p (V + 1) / (10 V (1 - p) + p (V + 1))",
            probs["chosen_given_unchanged"],
            p * (V + 1) / (10 * V * (1 - p) + p * (V + 1)),
        ),
        Step.limit(
            "at p = 0.15 and V -> oo a token that looks untouched is in the loss with probability 3/173",
            at_bert["chosen_given_unchanged"],
            V,
            sp.oo,
            sp.Rational(3, 173),
        ),
        Step.limit(
            "at p = 0.15 and V -> oo the input differs at 27/200 = 13.5 % of the positions",
            at_bert["input_changed"],
            V,
            sp.oo,
            sp.Rational(27, 200),
        ),
    )
    return Derivation(
        name="mlm_corruption",
        statement=(
            "under BERT's corruption P(input != original) = p (0.8 + 0.1 (V-1)/V); unchanged inputs carry 0.1 + 0.1/V of the loss"
        ),
        reference="Devlin et al. 2019 §3.1 and appendix C.2; book chapter 15",
        steps=steps,
    )


@register
def vit_sequence_length() -> Derivation:
    """ViT's sequence: n = ab / r^2 patches, and a score matrix r^4 times smaller than with pixels as tokens.

    n = ab / r^2 is ViT's definition (the paper writes N = HW / P^2), so (ab)^2 / n^2 = r^4 holds by
    construction and proves nothing. The steps instead count the patches of stated images one by one
    (every pixel assigned to its patch) and check the formula and the r^4 ratio on those counts, for the stated sizes
    only; then the book's numbers at 224 x 224.
    """
    H, W, P = sp.symbols("a b r", positive=True, integer=True)  # height, width, patch side
    N = H * W / P**2
    sizes = ((6, 6, 2), (16, 16, 4), (12, 8, 4), (224, 224, 16), (224, 224, 32))  # (a, b, r)
    stated = ", ".join(f"{h} x {w} / {p}" for h, w, p in sizes)
    counted = sp.symbols(f"n1:{len(sizes) + 1}", positive=True, integer=True)  # the counts, one per size
    values = {}
    for n, (height, width, side) in zip(counted, sizes, strict=True):
        values[n] = len({(row // side, col // side) for row in range(height) for col in range(width)})
    steps = (
        Step.value(
            f"patches counted pixel by pixel equal ab/r^2 at a x b / r = {stated}",
            sp.Matrix([n * p**2 for n, (_, _, p) in zip(counted, sizes, strict=True)]),
            values,
            sp.Matrix([h * w for h, w, _ in sizes]),
        ),
        Step.value(
            f"pixels as tokens give (ab)^2 / n^2 = r^4 times the scores, with n counted, at the same {len(sizes)} sizes",
            sp.Matrix([(h * w) ** 2 / n**2 for n, (h, w, _) in zip(counted, sizes, strict=True)]),
            values,
            sp.Matrix([p**4 for _, _, p in sizes]),
        ),
        Step.value("224 x 224 pixels, r = 16: n = 196", N, {H: 224, W: 224, P: 16}, 196),
        Step.value("224 x 224 pixels, r = 16: (n + 1)^2 = 38809 scores per head", (N + 1) ** 2, {H: 224, W: 224, P: 16}, 38809),
        Step.value(
            "224 x 224 pixels as tokens: (ab)^2 = 2 517 630 976 scores per head",
            (H * W) ** 2,
            {H: 224, W: 224},
            2_517_630_976,
        ),
    )
    return Derivation(
        name="vit_sequence_length",
        statement="ViT turns an a x b image into n = ab/r^2 tokens; the score matrix shrinks by r^4 against pixels as tokens",
        reference="Dosovitskiy et al. 2021 §3.1, Eq. 1; book chapter 16",
        steps=steps,
    )


@register
def whisper_stem_length() -> Derivation:
    """Whisper's stem: width-3 convolutions with padding 1; the second, with stride 2, halves the frames."""
    m = sp.Symbol("m", integer=True, positive=True)
    L = sp.Symbol("L", integer=True, positive=True)
    first, second = conv_output_length(L, kernel=3, stride=1, padding=1), conv_output_length(L, kernel=3, stride=2, padding=1)
    steps = (
        Step.computed(
            "the first convolution (kernel 3, stride 1, padding 1) keeps the length: L' = L = 2m",
            first.subs(L, 2 * m),
            2 * m,
            variables=(L,),
            operand=first,
        ),
        Step.computed(
            "the second (kernel 3, stride 2, padding 1) on an even length 2m gives m = L/2",
            second.subs(L, 2 * m),
            m,
            variables=(L,),
            operand=second,
        ),
        Step.computed(
            "on an odd length 2m + 1 it gives m + 1 = ceil(L/2)", second.subs(L, 2 * m + 1), m + 1, variables=(L,), operand=second
        ),
        Step.value("30 s at a 10 ms hop is 3000 frames, 1500 after the stem", second, {L: 3000}, 1500),
        Step.value("and 9 000 000 scores per head become 2 250 000 (4 times fewer)", second**2, {L: 3000}, 2_250_000),
    )
    return Derivation(
        name="whisper_stem_length",
        statement="a width-3, stride-2 convolution with padding 1 maps S frames to ceil(S/2): the score matrix shrinks 4-fold",
        reference="Radford et al. 2023 §2.2-2.3; book chapter 16",
        steps=steps,
    )


@register
def sampling_temperature_limits() -> Derivation:
    """softmax(z / tau): the argmax as tau -> 0, the uniform distribution as tau -> oo."""
    z1, z2, z3 = sp.symbols("z1 z2 z3", real=True)
    tau = sp.Symbol("tau", positive=True)
    gap = sp.Symbol("delta", positive=True)  # z1 - z2 > 0: token 1 has the largest logit

    def probabilities(logits: list[sp.Expr]) -> list[sp.Expr]:
        return list(softmax_vector(sp.Matrix(logits) / tau))

    p1, p2, _ = probabilities([z1, z2, z3])
    runner_up = sp.exp(-gap / tau)  # p2 / p1 with z1 - z2 = delta
    steps = (
        Step.identity("p2 / p1 = exp((z2 - z1) / tau): only the logit gap and tau matter", p2 / p1, sp.exp((z2 - z1) / tau)),
        Step.limit("with z1 - z2 = delta > 0, p2 / p1 -> 0 as tau -> 0: the argmax takes all the mass", runner_up, tau, 0, 0),
        Step.limit("as tau -> oo, p2 / p1 -> 1: every token becomes equally likely", runner_up, tau, sp.oo, 1),
        Step.computed(
            "the runner-up keeps e^-20 of the argmax's mass at tau = delta / 20 (solved for tau)",
            sp.Matrix(sp.solve(sp.Eq(runner_up, sp.exp(-20)), tau)),
            sp.Matrix([gap / 20]),
            variables=(tau,),
            operand=runner_up,
        ),
        Step.inequality(
            "... and less below it: p2 / p1 = exp(-delta / tau) increases with tau",
            sp.diff(runner_up, tau),
            ">",
            0,
        ),
    )
    return Derivation(
        name="sampling_temperature_limits",
        statement="softmax(z/tau) tends to the argmax as tau -> 0 and to uniform as tau -> oo",
        reference="book chapter 15 (sampling from a decoder-only model)",
        steps=steps,
    )
