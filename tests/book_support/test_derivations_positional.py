"""Chapter 6 support: the positional-encoding derivations are not vacuous and match the library's table."""

import math

import sympy as sp
import torch

import book_support as bk
import transformer_lib as tl
from book_support.derivations import Step
from book_support.derivations.positional import _self_attention, frequency, rotation, sinusoid_pair

POSITIONAL = (
    "sinusoid_relative_rotation",
    "sinusoid_dot_product",
    "sinusoid_wavelengths",
    "attention_permutation_equivariance",
    "add_versus_concatenate",
)


def test_chapter_6_derivations_are_registered():
    assert set(POSITIONAL) <= set(bk.derivations.__all__)  # built and checked by test_derivations.py


def test_the_rotation_needs_the_right_sign():
    """Rotating the other way (R(k omega)^T) does not give PE(pos + k): the proof is not vacuous."""
    pos, k = sp.symbols("pos k", real=True)
    omega = sp.Symbol("omega", positive=True)
    assert Step("right", sinusoid_pair(pos + k, omega), rotation(k * omega) * sinusoid_pair(pos, omega)).holds()
    assert not Step("wrong", sinusoid_pair(pos + k, omega), rotation(k * omega).T * sinusoid_pair(pos, omega)).holds()


def test_positions_break_the_equivariance():
    """Adding a fixed vector per row (a position signal) makes attention(P X) != P attention(X)."""
    x = sp.Matrix(3, 2, sp.symbols("x0:6", real=True))
    positions = sp.Matrix([[0, 1], [1, 0], [2, 3]])
    w = [sp.Matrix(2, 2, sp.symbols(f"{n}0:4", real=True)) for n in "qkv"]
    swap = sp.Matrix([[0, 1, 0], [1, 0, 0], [0, 0, 1]])
    lhs = _self_attention(swap * x + positions, *w)
    rhs = swap * _self_attention(x + positions, *w)
    # one numeric point where the two sides differ is a counterexample (simplify on a non-identity is slow)
    point = {s: sp.Rational((7 * n) % 11 - 5, 10) for n, s in enumerate(sorted(lhs.free_symbols, key=str))}
    assert max(abs(sp.N(entry)) for entry in (lhs - rhs).subs(point)) > 1e-2
    # without the positions the same point gives equality
    plain = (_self_attention(swap * x, *w) - swap * _self_attention(x, *w)).subs(point)
    assert max(abs(sp.N(entry)) for entry in plain) < 1e-12


def test_rotation_matches_the_library_table():
    """The symbolic M(k) applied to the float64 table reproduces the table k rows later."""
    d, k = 16, 7
    table = tl.sinusoidal_table(64, d, dtype=torch.float64)
    blocks = []
    for i in range(d // 2):
        omega = float(frequency(i, d))
        blocks.append(torch.tensor(sp.matrix2numpy(rotation(k * omega), dtype=float)))
    m = torch.block_diag(*blocks)  # (d, d)
    torch.testing.assert_close(table[k:], table[:-k] @ m.T, rtol=0, atol=1e-12)


def test_dot_product_matches_the_library_table():
    d = 32
    table = tl.sinusoidal_table(200, d, dtype=torch.float64)
    omegas = [1 / 10000 ** (2 * i / d) for i in range(d // 2)]
    for k in (0, 1, 5, 40):
        expected = sum(math.cos(k * w) for w in omegas)
        dots = (table[: 200 - k] * table[k:]).sum(-1)
        torch.testing.assert_close(dots, torch.full_like(dots, expected), rtol=0, atol=1e-11)


def test_wavelengths_of_the_base_model():
    d = 512
    wavelengths = [2 * math.pi * 10000 ** (2 * i / d) for i in range(d // 2)]
    assert math.isclose(wavelengths[0], 2 * math.pi)
    assert wavelengths[-1] < 10000 * 2 * math.pi
    assert math.isclose(wavelengths[-1], 2 * math.pi * 10000 ** (255 / 256))
