"""Positional encoding: why attention needs it, and what the sinusoids guarantee.

Paper: §3.5 (the sinusoids, "PE_{pos+k} can be represented as a linear function
of PE_pos", wavelengths from 2π to 10000·2π) and §3.4 (embeddings summed with
the encodings). Book: chapter 6.
"""

from __future__ import annotations

import itertools

import sympy as sp

from .core import Derivation, Step, register
from .softmax import softmax_vector


def rotation(angle: sp.Expr) -> sp.Matrix:
    """The 2x2 matrix that maps (sin a, cos a) to (sin(a + angle), cos(a + angle))."""
    return sp.Matrix([[sp.cos(angle), sp.sin(angle)], [-sp.sin(angle), sp.cos(angle)]])


def sinusoid_pair(position: sp.Expr, frequency: sp.Expr) -> sp.Matrix:
    """One (sin, cos) pair of the encoding, (PE[pos, 2i], PE[pos, 2i+1]), with frequency omega_i."""
    return sp.Matrix([sp.sin(position * frequency), sp.cos(position * frequency)])


def frequency(i: sp.Expr, d_model: sp.Expr) -> sp.Expr:
    """omega_i = 1 / 10000^(2i / d_model), the angular frequency of pair i."""
    return sp.Integer(10000) ** (-2 * i / d_model)


@register
def sinusoid_relative_rotation() -> Derivation:
    """PE(pos + k) is a rotation of PE(pos), pair by pair, by an angle that depends on k only."""
    a, b = sp.symbols("a b", real=True)
    pos, k = sp.symbols("pos k", real=True)
    omega = sp.Symbol("omega", positive=True)
    shifted = sinusoid_pair(pos + k, omega)
    rotated = rotation(k * omega) * sinusoid_pair(pos, omega)
    steps = [
        Step(
            "angle addition: sin(a + b) = sin a cos b + cos a sin b",
            sp.sin(a + b),
            sp.sin(a) * sp.cos(b) + sp.cos(a) * sp.sin(b),
        ),
        Step(
            "angle addition: cos(a + b) = cos a cos b - sin a sin b",
            sp.cos(a + b),
            sp.cos(a) * sp.cos(b) - sp.sin(a) * sp.sin(b),
        ),
        Step("so (PE[pos+k, 2i], PE[pos+k, 2i+1]) = R(k omega_i) (PE[pos, 2i], PE[pos, 2i+1])", shifted, rotated),
        Step("R(k omega) does not depend on pos: dR/dpos = 0", sp.diff(rotation(k * omega), pos), sp.zeros(2, 2)),
        Step(
            "R is orthogonal: R R^T = I (a rotation, lengths are kept)",
            rotation(k * omega) * rotation(k * omega).T,
            sp.eye(2),
        ),
        Step("R has determinant 1 (a rotation, not a reflection)", rotation(k * omega).det(), 1),
        Step(
            "shifts compose: R(a) R(b) = R(a + b)",
            (rotation(a) * rotation(b)).applyfunc(sp.expand_trig),
            rotation(a + b).applyfunc(sp.expand_trig),
        ),
        Step("a shift by -k undoes a shift by k: R(-b) = R(b)^T", rotation(-b), rotation(b).T),
    ]
    # the whole vector for d_model = 4: a block-diagonal matrix with one rotation per pair
    d_model = 4
    omegas = [frequency(i, d_model) for i in range(d_model // 2)]
    pe = lambda p: sp.Matrix.vstack(*(sinusoid_pair(p, w) for w in omegas))  # noqa: E731
    block = sp.diag(*(rotation(k * w) for w in omegas))
    steps.append(
        Step("d_model = 4: the frequencies are 1 and 1/100", sp.Matrix(omegas), sp.Matrix([1, sp.Rational(1, 100)]))
    )
    steps.append(
        Step("d_model = 4: PE(pos + k) = M(k) PE(pos) with M(k) = diag(R(k), R(k/100))", pe(pos + k), block * pe(pos))
    )
    return Derivation(
        name="sinusoid_relative_rotation",
        statement="PE(pos + k) = M(k) PE(pos), M(k) block-diagonal with rotations R(k omega_i), independent of pos",
        reference="Paper §3.5; book chapter 6",
        steps=tuple(steps),
    )


@register
def sinusoid_dot_product() -> Derivation:
    """PE(pos) . PE(pos + k) = sum_i cos(k omega_i): it depends on the offset k only, and only on |k|."""
    pos, k = sp.symbols("pos k", real=True)
    steps = []
    omega = sp.Symbol("omega", positive=True)
    one_pair = (sinusoid_pair(pos, omega).T * sinusoid_pair(pos + k, omega))[0]
    steps.append(
        Step(
            "one pair: sin(a) sin(a + b) + cos(a) cos(a + b) = cos(b), with a = pos omega, b = k omega",
            one_pair,
            sp.cos(k * omega),
        )
    )
    steps.append(
        Step(
            "one pair has unit length: sin^2 + cos^2 = 1",
            (sinusoid_pair(pos, omega).T * sinusoid_pair(pos, omega))[0],
            1,
        )
    )
    for n_pairs in (1, 2, 3):
        omegas = sp.symbols(f"omega_0:{n_pairs}", positive=True)
        pe = lambda p, ws=omegas: sp.Matrix.vstack(*(sinusoid_pair(p, w) for w in ws))  # noqa: E731
        dot = (pe(pos).T * pe(pos + k))[0]
        target = sum(sp.cos(k * w) for w in omegas)
        steps.append(Step(f"d_model = {2 * n_pairs}: PE(pos) . PE(pos + k) = sum_i cos(k omega_i)", dot, target))
    # dot and target are those of d_model = 6 after the loop
    steps += [
        Step("d_model = 6: it does not depend on pos, d/dpos [PE(pos) . PE(pos + k)] = 0", sp.diff(dot, pos), 0),
        Step(
            "it is even in k: the offsets +k and -k give the same dot product (cos is even)", target.subs(k, -k), target
        ),
        Step("at k = 0 it is the squared length, d_model / 2, the same at every position", dot.subs(k, 0), 3),
    ]
    return Derivation(
        name="sinusoid_dot_product",
        statement="PE(pos) . PE(pos + k) = sum_i cos(k omega_i), independent of pos and of the sign of k",
        reference="book chapter 6 (a consequence of Paper §3.5)",
        steps=tuple(steps),
    )


@register
def sinusoid_wavelengths() -> Derivation:
    """Pair i has wavelength 2 pi 10000^(2i/d_model): a geometric progression from 2 pi towards 10000 * 2 pi."""
    i = sp.Symbol("i", integer=True, nonnegative=True)
    d = sp.Symbol("d_model", positive=True, integer=True)
    pos = sp.Symbol("pos", real=True)
    omega = frequency(i, d)
    wavelength = 2 * sp.pi / omega
    last = wavelength.subs(i, d / 2 - 1)
    steps = [
        Step(
            "wavelength = 2 pi / omega_i = 2 pi 10000^(2i / d_model)",
            wavelength,
            2 * sp.pi * sp.Integer(10000) ** (2 * i / d),
        ),
        Step(
            "sin(omega (pos + wavelength)) = sin(omega pos): one period",
            sp.sin(omega * (pos + wavelength)),
            sp.sin(omega * pos),
        ),
        Step("the first pair (i = 0) has wavelength 2 pi", wavelength.subs(i, 0), 2 * sp.pi),
        Step(
            "consecutive wavelengths have a constant ratio 10000^(2 / d_model): a geometric progression",
            sp.powsimp(wavelength.subs(i, i + 1) / wavelength),
            sp.Integer(10000) ** (2 / d),
        ),
        Step(
            "the last pair (i = d_model/2 - 1) has wavelength 10000 * 2 pi / 10000^(2 / d_model)",
            sp.powsimp(last / (2 * sp.pi * 10000)),
            sp.Integer(10000) ** (-2 / d),
        ),
        Step(
            "which tends to 10000 * 2 pi as d_model grows (and by the step above stays below it)",
            sp.limit(last, d, sp.oo),
            10000 * 2 * sp.pi,
        ),
        Step(
            "d_model = 512: the last wavelength is 2 pi 10000^(255/256)",
            last.subs(d, 512),
            2 * sp.pi * sp.Integer(10000) ** sp.Rational(255, 256),
        ),
    ]
    return Derivation(
        name="sinusoid_wavelengths",
        statement=(
            "wavelength_i = 2 pi 10000^(2i/d_model), i = 0 .. d_model/2 - 1: from 2 pi to 2 pi 10000^(1 - 2/d_model)"
        ),
        reference="Paper §3.5; book chapter 6",
        steps=tuple(steps),
    )


def _self_attention(x: sp.Matrix, w_q: sp.Matrix, w_k: sp.Matrix, w_v: sp.Matrix) -> sp.Matrix:
    """softmax(X W_Q (X W_K)^T / sqrt(d)) X W_V, row by row, in sympy."""
    q, k, v = x * w_q, x * w_k, x * w_v
    scores = q * k.T / sp.sqrt(w_q.shape[1])
    weights = sp.Matrix.vstack(*(softmax_vector(scores.row(r).T).T for r in range(scores.rows)))
    return weights * v


@register
def attention_permutation_equivariance() -> Derivation:
    """Self-attention without positions commutes with every permutation of the positions: f(P X) = P f(X)."""
    n, d = 3, 2
    x = sp.Matrix(n, d, sp.symbols(f"x0:{n * d}", real=True))
    w_q, w_k, w_v = (sp.Matrix(d, d, sp.symbols(f"{name}0:{d * d}", real=True)) for name in ("q", "k", "v"))
    z = sp.Matrix(sp.symbols("z0:3", real=True))
    out = _self_attention(x, w_q, w_k, w_v)
    steps = []
    for order in itertools.permutations(range(n)):
        p = sp.Matrix(n, n, lambda r, c, order=order: 1 if order[r] == c else 0)
        steps.append(
            Step(f"softmax(P z) = P softmax(z) for P = {list(order)}", softmax_vector(p * z), p * softmax_vector(z))
        )
    for order in itertools.permutations(range(n)):
        p = sp.Matrix(n, n, lambda r, c, order=order: 1 if order[r] == c else 0)
        steps.append(
            Step(
                f"n = 3, d = 2: attention(P X) = P attention(X) for P = {list(order)}",
                _self_attention(p * x, w_q, w_k, w_v),
                p * out,
            )
        )
    return Derivation(
        name="attention_permutation_equivariance",
        statement="without positions, self-attention is permutation-equivariant: attention(P X) = P attention(X)",
        reference="book chapter 6",
        steps=tuple(steps),
    )


@register
def add_versus_concatenate() -> Derivation:
    """Concatenate-then-project equals project-each-then-add; added inputs give four score terms."""
    d = 2
    e, p, e2, p2 = (sp.Matrix(d, 1, sp.symbols(f"{name}0:{d}", real=True)) for name in ("e", "p", "f", "r"))
    w = sp.Matrix(d, 2 * d, sp.symbols(f"w0:{2 * d * d}", real=True))
    a = sp.Matrix(d, d, sp.symbols(f"a0:{d * d}", real=True))
    steps = [
        Step("W [e; p] = W_e e + W_p p, with W = [W_e  W_p]", w * sp.Matrix.vstack(e, p), w[:, :d] * e + w[:, d:] * p),
        Step(
            "(e + p)^T A (e' + p') = content-content + content-position + position-content + position-position",
            ((e + p).T * a * (e2 + p2))[0],
            (e.T * a * e2)[0] + (e.T * a * p2)[0] + (p.T * a * e2)[0] + (p.T * a * p2)[0],
        ),
    ]
    return Derivation(
        name="add_versus_concatenate",
        statement="W [e; p] is a sum of linear maps of e and p; a bilinear score of e + p splits into four terms",
        reference="book chapter 6",
        steps=tuple(steps),
    )
