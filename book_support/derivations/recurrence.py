"""Recurrence: the Jacobians behind vanishing gradients, gated cells, parameter counts, path lengths.

Paper: §1 and §4, Table 1 (complexity per layer, sequential operations,
maximum path length). Book: ch-recurrence.
"""

from __future__ import annotations

import sympy as sp

from transformer_lib.counting import recurrent_cell_parameters

from .core import Derivation, Step, register, symbol_matrix, symbol_vector

__all__ = [
    "convolution_receptive_field",
    "gru_state_gradient",
    "lstm_cell_state_gradient",
    "recurrent_parameter_counts",
    "rnn_orthogonal_gradient",
    "rnn_state_jacobian",
    "self_attention_versus_recurrence_cost",
]


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
    sizes = "d = 2 units, symbolic weights"
    steps = [
        Step.computed(
            "tanh'(z) = 1 - tanh(z)^2", sp.diff(sp.tanh(z), z), 1 - sp.tanh(z) ** 2, variables=(z,), operand=sp.tanh(z)
        ),
        Step.computed(
            "one step: dh_1/dh_0 = diag(1 - h_1^2) W_h",
            _expanded(h1.jacobian(h0)),
            _expanded(J1),
            variables=tuple(h0),
            operand=h1,
            sizes=sizes,
        ),
        Step.computed(
            "two steps: dh_2/dh_0 = diag(1 - h_2^2) W_h diag(1 - h_1^2) W_h (chain rule)",
            _expanded(h2.jacobian(h0)),
            _expanded(J2 * J1),
            variables=tuple(h0),
            operand=h2,
            sizes=sizes,
        ),
        Step.computed(
            "backward, the gradient is multiplied by the transpose: dL/dh_0 = W_h^T diag(1 - h_1^2) dL/dh_1",
            _expanded(sp.Matrix([loss]).jacobian(h0).T),
            _expanded(W.T * _tanh_derivative(h1) * g),
            variables=tuple(h0),
            operand=loss,
            sizes=sizes,
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
    steps = [Step.identity("R is orthogonal: R^T R = I", R.T * R, sp.eye(2))]
    for k in range(1, 5):
        Wk = W**k
        steps.append(
            Step.for_sizes(
                f"(W^k)^T W^k = rho^{2 * k} I, so |dh_T/dh_(T-{k}) g| = rho^{k} |g|",
                Wk.T * Wk,
                rho ** (2 * k) * sp.eye(2),
                f"k = {k}",
            )
        )
    steps_k = sp.Symbol("k", positive=True, integer=True)
    steps.append(
        Step.value(
            "rho = 0.9, k = 100: rho^k = 2.6561...e-5, floor(10^9 rho^k) = 26561",
            sp.floor(10**9 * rho**steps_k),
            {rho: sp.Rational(9, 10), steps_k: 100},
            26561,
        )
    )
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
    no_forget = step(h0, c0, forget=False)[1]
    steps = [
        Step.computed(
            "one step, with h_0 a separate state: dc_1/dc_0 = f(h_0) (no matrix, no tanh)",
            sp.diff(c1, c0),
            f(h0),
            variables=(c0,),
            operand=c1,
        ),
        Step.computed(
            "without a forget gate (the 1997 LSTM) the cell state passes gradient unchanged",
            sp.diff(no_forget, c0),
            1,
            variables=(c0,),
            operand=no_forget,
        ),
        Step.computed(
            "two steps: dc_2/dc_0 = f_2 f_1 + (dc_2/dh_1)(dh_1/dc_0); the product of forget gates is the direct path",
            sp.diff(c2, c0),
            f(h1) * f(h0) + sp.diff(c2_of_free, h_free).subs({c_free: c1, h_free: h1}) * sp.diff(h1, c0),
            variables=(c0,),
            operand=c2,
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
        Step.computed(
            "product rule on h_t = (1 - z) n + z h_{t-1}: the direct term is z_t",
            sp.diff(h_new, h),
            z + (1 - z) * sp.diff(n, h) + (h - n) * sp.diff(z, h),
            variables=(h,),
            operand=h_new,
        ),
    ]
    return Derivation(
        name="gru_state_gradient",
        statement="a GRU passes gradient back through its update gate z_t (plus the gated candidate's terms)",
        reference="Cho et al. 2014; book chapter 1",
        steps=tuple(steps),
    )


def _written_out_cell_parameters(cell: str, n_in: int, hidden: int) -> int:
    """Distinct weight symbols in one step of the cell written out with torch's two bias vectors per block."""
    x, h, c = symbol_vector("x", n_in), symbol_vector("h", hidden), symbol_vector("c", hidden)

    def block(name: str) -> sp.Matrix:  # W_i* x + b_i* + W_h* h + b_h*, as in torch's RNN, GRU and LSTM
        return (
            symbol_matrix(f"Wi{name}", hidden, n_in) * x
            + symbol_vector(f"bi{name}_", hidden)
            + symbol_matrix(f"Wh{name}", hidden, hidden) * h
            + symbol_vector(f"bh{name}_", hidden)
        )

    def sigmoid(m: sp.Matrix) -> sp.Matrix:
        return m.applyfunc(_sigmoid)

    if cell == "elman":
        outputs = block("").applyfunc(sp.tanh)
    elif cell == "gru":
        r, z = sigmoid(block("r")), sigmoid(block("z"))
        w_in, b_in = symbol_matrix("Win", hidden, n_in), symbol_vector("bin_", hidden)
        w_hn, b_hn = symbol_matrix("Whn", hidden, hidden), symbol_vector("bhn_", hidden)
        candidate = (w_in * x + b_in + r.multiply_elementwise(w_hn * h + b_hn)).applyfunc(sp.tanh)
        outputs = (sp.ones(hidden, 1) - z).multiply_elementwise(candidate) + z.multiply_elementwise(h)
    else:
        i, f, o = sigmoid(block("i")), sigmoid(block("f")), sigmoid(block("o"))
        g = block("g").applyfunc(sp.tanh)
        cell_state = f.multiply_elementwise(c) + i.multiply_elementwise(g)
        outputs = o.multiply_elementwise(cell_state.applyfunc(sp.tanh)).col_join(cell_state)
    return len(outputs.free_symbols - set(x) - set(h) - set(c))


@register
def recurrent_parameter_counts() -> Derivation:
    """Elman d(d_x + d + 2), GRU three times that, LSTM four times: counted on the cells' equations written out."""
    n_in, H = sp.symbols("d_x d", positive=True, integer=True)  # input and hidden widths
    steps = []
    counts = {}
    for cell, blocks in (("elman", "one block"), ("gru", "three blocks r, z, n"), ("lstm", "four blocks i, f, g, o")):
        counts[cell] = _written_out_cell_parameters(cell, 2, 3)
        steps.append(
            Step.value(
                f"{cell}: the cell written out for d_x = 2, d = 3 has {counts[cell]} distinct weights, "
                f"{blocks} of d (d_x + d + 2)",
                recurrent_cell_parameters(n_in, H, cell),
                {n_in: 2, H: 3},
                counts[cell],
            )
        )
    steps.append(
        Step.identity(
            f"GRU / LSTM = 3 d (d_x + d + 2) / (4 d (d_x + d + 2)) = 3/4 for every d_x, d (not 1/2; written out: "
            f"{counts['gru']} / {counts['lstm']})",
            recurrent_cell_parameters(n_in, H, "gru") / recurrent_cell_parameters(n_in, H, "lstm"),
            sp.Rational(3, 4),
        )
    )
    steps.append(
        Step.value(
            "d_x = d = 512: an LSTM cell has 2 101 248 parameters",
            recurrent_cell_parameters(n_in, H, "lstm"),
            {n_in: 512, H: 512},
            2_101_248,
        )
    )
    return Derivation(
        name="recurrent_parameter_counts",
        statement="parameters of Elman, GRU and LSTM cells with torch's two bias vectors: 1, 3 and 4 times d (d_x + d + 2)",
        reference="book chapter 1",
        steps=tuple(steps),
    )


@register
def convolution_receptive_field() -> Derivation:
    """L layers of width k see 1 + L(k - 1) positions; with dilations 1, k, k^2, ... they see k^L."""
    k, L = sp.symbols("k L", positive=True, integer=True)
    layer = sp.Symbol("l", integer=True, nonnegative=True)
    contiguous = 1 + sp.Sum(k - 1, (layer, 1, L))
    dilated = 1 + sp.Sum((k - 1) * k**layer, (layer, 0, L - 1))
    steps = [
        Step.identity("each contiguous layer of width k adds k - 1 positions: 1 + L (k - 1)", contiguous, 1 + L * (k - 1)),
        Step.identity(
            "layer l with dilation k^l adds (k - 1) k^l: the geometric series sums to k^L, "
            "so ceil(log_k n) dilated layers reach n positions",
            dilated,
            k**L,
        ),
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
    layer_attention, layer_lstm = 8 * n * d**2 + 4 * n**2 * d, 16 * n * d**2
    gap = sp.Symbol("e", positive=True)
    steps = [
        Step.computed(
            "the two costs n^2 d and n d^2 are equal at n = d (the only positive root)",
            sp.Matrix(sp.solve(sp.Eq(attention, recurrent), n)),
            sp.Matrix([d]),
            variables=(n,),
            operand=attention - recurrent,
        ),
        Step.inequality(
            "self-attention is cheaper whenever 0 < n < d: n d^2 - n^2 d > 0 (written with d = n + e, e > 0)",
            (recurrent - attention).subs(d, n + gap),
            ">",
            0,
        ),
        Step.value(
            "base model, d = 512, n = 50 tokens: self-attention needs 50/512 of the recurrent work",
            attention / recurrent,
            {n: 50, d: 512},
            sp.Rational(50, 512),
        ),
        Step.identity(
            "with constants: self-attention layer (8 n d^2 + 4 n^2 d FLOPs) / LSTM layer (16 n d^2) = 1/2 + n/(4d)",
            layer_attention / layer_lstm,
            sp.Rational(1, 2) + n / (4 * d),
        ),
        Step.computed(
            "so a self-attention layer costs less than an LSTM layer exactly when n < 2d",
            sp.Matrix(sp.solve(sp.Eq(layer_attention, layer_lstm), n)),
            sp.Matrix([2 * d]),
            variables=(n,),
            operand=layer_attention - layer_lstm,
        ),
        Step.inequality(
            "below it the LSTM layer costs more: 16 n d^2 - (8 n d^2 + 4 n^2 d) > 0 for 2 d = n + e (e > 0)",
            (layer_lstm - layer_attention).subs(d, (n + gap) / 2),
            ">",
            0,
        ),
    ]
    return Derivation(
        name="self_attention_versus_recurrence_cost",
        statement="O(n^2 d) for self-attention versus O(n d^2) for a recurrent layer (Table 1): equal at n = d",
        reference="Paper §4, Table 1; book chapter 1",
        steps=tuple(steps),
    )
