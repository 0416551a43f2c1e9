"""Recurrence: the Jacobians behind vanishing gradients, gated cells, parameter counts, path lengths.

Paper: §1 and §4, Table 1 (complexity per layer, sequential operations,
maximum path length). Book: chapter 1.
"""

from __future__ import annotations

import sympy as sp

from .core import Derivation, Step, register


def _tanh_rnn_two_steps() -> dict:
    """A 2-unit tanh RNN run for two steps, with every weight symbolic."""
    W = sp.Matrix(2, 2, sp.symbols("w11 w12 w21 w22", real=True))  # W_h
    U = sp.Matrix(sp.symbols("u1 u2", real=True))  # W_x for a scalar input
    b = sp.Matrix(sp.symbols("b1 b2", real=True))
    h0 = sp.Matrix(sp.symbols("h01 h02", real=True))
    x1, x2 = sp.symbols("x1 x2", real=True)
    h1 = (W * h0 + U * x1 + b).applyfunc(sp.tanh)
    h2 = (W * h1 + U * x2 + b).applyfunc(sp.tanh)
    return {"W": W, "h0": h0, "h1": h1, "h2": h2}


def _expanded(m: sp.Matrix) -> sp.Matrix:
    """Every entry expanded into a sum of monomials in the weights and the tanh atoms.

    Two sides that expand to the same monomials differ by exactly 0, which is a
    proof (polynomial identity) that sympy checks instantly; ``simplify`` on the
    unexpanded nested tanh expressions can take minutes.
    """
    return m.applyfunc(sp.expand)


def _tanh_derivative(h: sp.Matrix) -> sp.Matrix:
    """diag(1 - h_i^2): the derivative of tanh at the pre-activation, written with the output h."""
    return sp.diag(*[1 - hi**2 for hi in h])


@register
def rnn_state_jacobian() -> Derivation:
    """dh_t/dh_{t-1} = diag(1 - h_t^2) W_h, and the Jacobian over k steps is the product of k of them."""
    z = sp.Symbol("z", real=True)
    rnn = _tanh_rnn_two_steps()
    W, h0, h1, h2 = rnn["W"], rnn["h0"], rnn["h1"], rnn["h2"]
    J1 = _tanh_derivative(h1) * W  # dh1/dh0
    J2 = _tanh_derivative(h2) * W  # dh2/dh1
    g = sp.Matrix(sp.symbols("g1 g2", real=True))  # dL/dh1, any upstream gradient
    loss = (g.T * h1)[0, 0]
    steps = [
        Step("tanh'(z) = 1 - tanh(z)^2", sp.diff(sp.tanh(z), z), 1 - sp.tanh(z) ** 2),
        Step("one step: dh_1/dh_0 = diag(1 - h_1^2) W_h (2 units, symbolic weights)",
             _expanded(h1.jacobian(h0)), _expanded(J1)),
        Step("two steps: dh_2/dh_0 = diag(1 - h_2^2) W_h diag(1 - h_1^2) W_h (chain rule)",
             _expanded(h2.jacobian(h0)), _expanded(J2 * J1)),
        Step(
            "backward, the gradient is multiplied by the transpose: dL/dh_0 = W_h^T diag(1 - h_1^2) dL/dh_1",
            _expanded(sp.Matrix([loss]).jacobian(h0).T),
            _expanded(W.T * _tanh_derivative(h1) * g),
        ),
    ]
    return Derivation(
        name="rnn_state_jacobian",
        statement="dh_T/dh_t = prod_{s=t+1}^{T} diag(1 - h_s^2) W_h for h_t = tanh(W_h h_{t-1} + W_x x_t + b)",
        reference="Bengio et al. 1994; Pascanu et al. 2013; book chapter 1",
        steps=tuple(steps),
    )


@register
def rnn_orthogonal_gradient() -> Derivation:
    """For a linear RNN with W_h = rho R (R a rotation), every singular value of W_h^k is rho^k."""
    rho = sp.Symbol("rho", positive=True)
    t = sp.Symbol("t", real=True)  # tan(theta / 2): a rotation by theta with rational entries
    R = sp.Matrix([[1 - t**2, -2 * t], [2 * t, 1 - t**2]]) / (1 + t**2)
    W = rho * R
    steps = [Step("R is orthogonal: R^T R = I", R.T * R, sp.eye(2))]
    for k in range(1, 5):
        Wk = W**k
        steps.append(Step(f"k = {k}: (W^k)^T W^k = rho^{2 * k} I, so |dh_T/dh_(T-{k}) g| = rho^{k} |g|", Wk.T * Wk,
                          rho ** (2 * k) * sp.eye(2)))
    steps.append(Step("0.9^100 = 2.6561...e-5: floor(10^9 * 0.9^100) = 26561",
                      sp.floor(sp.Rational(9, 10) ** 100 * 10**9), 26561))
    return Derivation(
        name="rnn_orthogonal_gradient",
        statement="with W_h = rho R, R orthogonal and no tanh, the gradient norm after k steps is exactly rho^k times",
        reference="book chapter 1",
        steps=tuple(steps),
    )


def _sigmoid(a: sp.Expr) -> sp.Expr:
    return 1 / (1 + sp.exp(-a))


@register
def lstm_cell_state_gradient() -> Derivation:
    """The LSTM's cell state passes gradient back through the forget gate alone: dc_t/dc_{t-1} = f_t.

    The gates are left as arbitrary functions f, i, g, o of the previous hidden
    state (the input x_t is fixed), so the result holds for any gate weights.
    """
    c0, h0, c_free, h_free = sp.symbols("c0 h0 c h", real=True)
    f, i, g, o = (sp.Function(name) for name in ("f", "i", "g", "o"))

    def step(h: sp.Expr, c: sp.Expr, forget: bool = True) -> tuple[sp.Expr, sp.Expr]:
        c_new = (f(h) if forget else 1) * c + i(h) * g(h)  # c_t = f_t c_{t-1} + i_t g_t
        return o(h) * sp.tanh(c_new), c_new  # h_t = o_t tanh(c_t)

    h1, c1 = step(h0, c0)
    _, c2 = step(h1, c1)
    _, c2_of_free = step(h_free, c_free)  # c_2 as a function of (h_1, c_1) treated as free variables
    steps = [
        Step("one step, with h_0 a separate state: dc_1/dc_0 = f(h_0) (no matrix, no tanh)", sp.diff(c1, c0), f(h0)),
        Step("without a forget gate (the 1997 LSTM) the cell state passes gradient unchanged",
             sp.diff(step(h0, c0, forget=False)[1], c0), 1),
        Step(
            "two steps: dc_2/dc_0 = f_2 f_1 + (dc_2/dh_1)(dh_1/dc_0); the product of forget gates is the direct path",
            sp.expand(sp.diff(c2, c0)),
            sp.expand(f(h1) * f(h0) + sp.diff(c2_of_free, h_free).subs({c_free: c1, h_free: h1}) * sp.diff(h1, c0)),
        ),
    ]
    return Derivation(
        name="lstm_cell_state_gradient",
        statement="c_t = f_t c_{t-1} + i_t g_t gives dc_t/dc_{t-1} = f_t: a product of forget gates over many steps",
        reference="Hochreiter and Schmidhuber 1997; book chapter 1",
        steps=tuple(steps),
    )


@register
def gru_state_gradient() -> Derivation:
    """For the GRU, dh_t/dh_{t-1} = z_t + (1 - z_t) dn_t/dh_{t-1} + (h_{t-1} - n_t) dz_t/dh_{t-1}."""
    x, h = sp.symbols("x h", real=True)
    w = {name: sp.symbols(f"w_{name} u_{name} b_{name} bh_{name}", real=True) for name in "rzn"}
    r = _sigmoid(w["r"][0] * h + w["r"][1] * x + w["r"][2] + w["r"][3])
    z = _sigmoid(w["z"][0] * h + w["z"][1] * x + w["z"][2] + w["z"][3])
    n = sp.tanh(w["n"][1] * x + w["n"][2] + r * (w["n"][0] * h + w["n"][3]))
    h_new = (1 - z) * n + z * h
    steps = [
        Step(
            "product rule on h_t = (1 - z) n + z h_{t-1}: the direct term is z_t",
            sp.expand(sp.diff(h_new, h)),
            sp.expand(z + (1 - z) * sp.diff(n, h) + (h - n) * sp.diff(z, h)),
        ),
    ]
    return Derivation(
        name="gru_state_gradient",
        statement="a GRU passes gradient back through its update gate z_t (plus the gated candidate's terms)",
        reference="Cho et al. 2014; book chapter 1",
        steps=tuple(steps),
    )


@register
def recurrent_parameter_counts() -> Derivation:
    """Elman H(I + H + 2), GRU three times that, LSTM four times; GRU / LSTM = 3/4."""
    n_in, H = sp.symbols("I H", positive=True, integer=True)  # input and hidden widths

    def count(blocks: int) -> sp.Expr:
        # weight_ih (blocks H, I), weight_hh (blocks H, H), bias_ih and bias_hh (blocks H)
        return blocks * H * n_in + blocks * H * H + 2 * blocks * H

    elman, gru, lstm = count(1), count(3), count(4)
    steps = [
        Step("Elman cell: H I + H H + 2 H = H (I + H + 2)", elman, H * (n_in + H + 2)),
        Step("LSTM / Elman = 4 for every I, H", sp.simplify(lstm / elman), 4),
        Step("GRU / Elman = 3 for every I, H", sp.simplify(gru / elman), 3),
        Step("GRU / LSTM = 3/4 (not 1/2)", sp.simplify(gru / lstm), sp.Rational(3, 4)),
        Step("I = H = 512: LSTM cell = 2 101 248 parameters", lstm.subs({n_in: 512, H: 512}), 2_101_248),
    ]
    return Derivation(
        name="recurrent_parameter_counts",
        statement="parameters of Elman, GRU and LSTM cells with torch's two bias vectors",
        reference="book chapter 1",
        steps=tuple(steps),
    )


@register
def convolution_receptive_field() -> Derivation:
    """L layers of width k see 1 + L(k - 1) positions; with dilations 1, k, k^2, ... they see k^L."""
    k, L = sp.symbols("k L", positive=True, integer=True)
    layer = sp.Symbol("l", integer=True, nonnegative=True)
    contiguous = 1 + sp.summation(k - 1, (layer, 1, L))
    dilated = 1 + sp.summation((k - 1) * k**layer, (layer, 0, L - 1))
    steps = [
        Step("each contiguous layer of width k adds k - 1 positions: 1 + L (k - 1)", contiguous, 1 + L * (k - 1)),
        Step("layer l with dilation k^l adds (k - 1) k^l: the geometric series sums to k^L",
             dilated, k**L),
        Step("so ceil(log_k n) dilated layers reach n positions: k^(log_k n) = n",
             k ** (sp.log(sp.Symbol("n", positive=True)) / sp.log(k)), sp.Symbol("n", positive=True)),
    ]
    return Derivation(
        name="convolution_receptive_field",
        statement="receptive field of L convolution layers of width k: 1 + L(k-1) contiguous, k^L dilated",
        reference="Paper Table 1 and §4; Kalchbrenner et al. 2016; book chapter 1",
        steps=tuple(steps),
    )


@register
def self_attention_versus_recurrence_cost() -> Derivation:
    """Per layer, self-attention costs n^2 d and recurrence n d^2: attention is cheaper exactly when n < d."""
    n, d = sp.symbols("n d", positive=True)
    attention, recurrent = n**2 * d, n * d**2
    steps = [
        Step("cost ratio self-attention / recurrent = n / d", sp.simplify(attention / recurrent), n / d),
        Step("the two costs are equal at n = d (the only positive root)",
             sp.Matrix(sp.solve(sp.Eq(attention, recurrent), n)), sp.Matrix([d])),
        Step("base model, d = 512, n = 50 tokens: self-attention needs 50/512 of the recurrent work",
             (attention / recurrent).subs({n: 50, d: 512}), sp.Rational(50, 512)),
        Step("with constants: self-attention layer (8 n d^2 + 4 n^2 d FLOPs) / LSTM layer (16 n d^2) = 1/2 + n/(4d)",
             sp.apart((8 * n * d**2 + 4 * n**2 * d) / (16 * n * d**2), n), sp.Rational(1, 2) + n / (4 * d)),
        Step("so a self-attention layer costs less than an LSTM layer exactly when n < 2d",
             sp.Matrix(sp.solve(sp.Eq(8 * n * d**2 + 4 * n**2 * d, 16 * n * d**2), n)), sp.Matrix([2 * d])),
    ]
    return Derivation(
        name="self_attention_versus_recurrence_cost",
        statement="O(n^2 d) for self-attention versus O(n d^2) for a recurrent layer (Table 1): equal at n = d",
        reference="Paper §4, Table 1; book chapter 1",
        steps=tuple(steps),
    )
