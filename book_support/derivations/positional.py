"""Positional encoding: why attention needs it, and what the sinusoids guarantee.

Paper: §3.5 (the sinusoids, "PE_{pos+k} can be represented as a linear function
of PE_pos", wavelengths from 2π to 10000·2π) and §3.4 (embeddings summed with
the encodings). Book: ch-positions.
"""

from __future__ import annotations

import itertools

import sympy as sp

from .core import Derivation, Step, register, softmax_rows, softmax_vector, symbol_vector

__all__ = [
    "add_versus_concatenate",
    "attention_permutation_equivariance",
    "frequency",
    "rotation",
    "sinusoid_dot_product",
    "sinusoid_pair",
    "sinusoid_relative_rotation",
    "sinusoid_wavelengths",
]


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
        Step.identity(
            "angle addition: sin(a + b) = sin a cos b + cos a sin b",
            sp.sin(a + b),
            sp.sin(a) * sp.cos(b) + sp.cos(a) * sp.sin(b),
        ),
        Step.identity(
            "angle addition: cos(a + b) = cos a cos b - sin a sin b",
            sp.cos(a + b),
            sp.cos(a) * sp.cos(b) - sp.sin(a) * sp.sin(b),
        ),
        Step.identity(
            "so (PE[pos+k, 2i], PE[pos+k, 2i+1]) = R(k omega_i) (PE[pos, 2i], PE[pos, 2i+1]), "
            "where R(k omega_i) is built from k and omega_i only (no pos)",
            shifted,
            rotated,
        ),
        Step.identity(
            "R is orthogonal: R R^T = I (a rotation, lengths are kept)",
            rotation(k * omega) * rotation(k * omega).T,
            sp.eye(2),
        ),
        Step.identity("R has determinant 1 (a rotation, not a reflection)", rotation(k * omega).det(), 1),
        Step.identity("shifts compose: R(a) R(b) = R(a + b)", rotation(a) * rotation(b), rotation(a + b)),
        Step.identity("a shift by -k undoes a shift by k: R(-b) R(b) = I", rotation(-b) * rotation(b), sp.eye(2)),
    ]
    # the whole vector for d_model = 4: a block-diagonal matrix with one rotation per pair
    d_model = 4
    omegas = [frequency(i, d_model) for i in range(d_model // 2)]
    pe = lambda p: sp.Matrix.vstack(*(sinusoid_pair(p, w) for w in omegas))  # noqa: E731
    block = sp.diag(*(rotation(k * w) for w in omegas))
    d_symbol = sp.Symbol("d_model", positive=True, integer=True)
    steps.append(
        Step.value(
            "d_model = 4: the frequencies are 1 and 1/100",
            sp.Matrix([frequency(i, d_symbol) for i in range(2)]),
            {d_symbol: d_model},
            sp.Matrix([1, sp.Rational(1, 100)]),
        )
    )
    steps.append(
        Step.for_sizes("PE(pos + k) = M(k) PE(pos) with M(k) = diag(R(k), R(k/100))", pe(pos + k), block * pe(pos), "d_model = 4")
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
        Step.identity(
            "one pair: sin(a) sin(a + b) + cos(a) cos(a + b) = cos(b), with a = pos omega, b = k omega",
            one_pair,
            sp.cos(k * omega),
        )
    )
    steps.append(
        Step.identity(
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
        steps.append(Step.for_sizes("PE(pos) . PE(pos + k) = sum_i cos(k omega_i)", dot, target, f"d_model = {2 * n_pairs}"))
    # dot and target are those of d_model = 6 after the loop; evenness in k is cos(-x) = cos(x), which sympy
    # applies on sight, so it is stated, not claimed as a step
    steps += [
        Step.computed(
            "it does not depend on pos: d/dpos [PE(pos) . PE(pos + k)] = 0",
            sp.diff(dot, pos),
            0,
            variables=(pos,),
            operand=dot,
            sizes="d_model = 6",
        ),
        Step.computed(
            "at k = 0 it is the squared length, d_model / 2 = 3, the same at every position",
            dot.subs(k, 0),
            3,
            variables=(k,),
            operand=dot,
            sizes="d_model = 6",
        ),
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
        Step.identity(
            "with wavelength = 2 pi / omega_i: sin(omega (pos + wavelength)) = sin(omega pos), one period",
            sp.sin(omega * (pos + wavelength)),
            sp.sin(omega * pos),
        ),
        Step.value("the first pair (i = 0) has wavelength 2 pi", wavelength, {i: 0}, 2 * sp.pi),
        Step.identity(
            "consecutive wavelengths have a constant ratio 10000^(2 / d_model): a geometric progression",
            wavelength.subs(i, i + 1) / wavelength,
            sp.Integer(10000) ** (2 / d),
        ),
        Step.identity(
            "the last pair (i = d_model/2 - 1) has wavelength 10000 * 2 pi / 10000^(2 / d_model)",
            last / (2 * sp.pi * 10000),
            sp.Integer(10000) ** (-2 / d),
        ),
        Step.inequality("its exponent -2 / d_model is negative, so it stays below 10000 * 2 pi", -2 / d, "<", 0),
        Step.limit("and tends to 10000 * 2 pi as d_model grows", last, d, sp.oo, 10000 * 2 * sp.pi),
        Step.value(
            "d_model = 512: the last wavelength is 2 pi 10000^(255/256)",
            last,
            {d: 512},
            2 * sp.pi * sp.Integer(10000) ** sp.Rational(255, 256),
        ),
    ]
    return Derivation(
        name="sinusoid_wavelengths",
        statement=("wavelength_i = 2 pi 10000^(2i/d_model), i = 0 .. d_model/2 - 1: from 2 pi to 2 pi 10000^(1 - 2/d_model)"),
        reference="Paper §3.5; book chapter 6",
        steps=tuple(steps),
    )


def _self_attention(x: sp.Matrix, w_q: sp.Matrix, w_k: sp.Matrix, w_v: sp.Matrix) -> sp.Matrix:
    """softmax(X W_Q (X W_K)^T / sqrt(d)) X W_V, row by row, in sympy."""
    q, k, v = x * w_q, x * w_k, x * w_v
    scores = q * k.T / sp.sqrt(w_q.shape[1])
    return softmax_rows(scores) * v


@register
def attention_permutation_equivariance() -> Derivation:
    """Self-attention without positions commutes with every permutation of the positions: f(P X) = P f(X)."""
    n, d = 3, 2
    x = sp.Matrix(n, d, sp.symbols(f"x0:{n * d}", real=True))
    w_q, w_k, w_v = (sp.Matrix(d, d, sp.symbols(f"{name}0:{d * d}", real=True)) for name in ("q", "k", "v"))
    z = symbol_vector("z", 3, start=0)
    out = _self_attention(x, w_q, w_k, w_v)
    steps = []
    for order in itertools.permutations(range(n)):
        p = sp.Matrix(n, n, lambda r, c, order=order: 1 if order[r] == c else 0)
        steps.append(
            Step.computed(
                f"softmax(P z) = P softmax(z) for P = {list(order)}",
                softmax_vector(p * z),
                p * softmax_vector(z),
                variables=tuple(z),
                operand=z,
                sizes="n = 3",
            )
        )
    for order in itertools.permutations(range(n)):
        p = sp.Matrix(n, n, lambda r, c, order=order: 1 if order[r] == c else 0)
        steps.append(
            Step.computed(
                f"attention(P X) = P attention(X) for P = {list(order)}",
                _self_attention(p * x, w_q, w_k, w_v),
                p * out,
                variables=tuple(x),
                operand=x,
                sizes="n = 3, d = 2",
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
    a = sp.Matrix(d, d, sp.symbols(f"a0:{d * d}", real=True))
    # W [e; p] = W_e e + W_p p (W = [W_e  W_p]) is block multiplication: sympy gives both sides the same
    # entries term for term, so it is stated in the docstring, not claimed as a step
    steps = [
        Step.for_sizes(
            "(e + p)^T A (e' + p') = content-content + content-position + position-content + position-position",
            ((e + p).T * a * (e2 + p2))[0],
            (e.T * a * e2)[0] + (e.T * a * p2)[0] + (p.T * a * e2)[0] + (p.T * a * p2)[0],
            "d = 2",
        ),
    ]
    return Derivation(
        name="add_versus_concatenate",
        statement="W [e; p] is a sum of linear maps of e and p; a bilinear score of e + p splits into four terms",
        reference="book chapter 6",
        steps=tuple(steps),
    )
