"""The helpers behind chapters 7 (FFN) and 8 (residuals and normalisation) agree with the library and torch.nn."""

import sympy as sp
import torch

import transformer_lib as tl
from book_support.derivations import Step
from book_support.derivations.feedforward import conv1d, symbolic_ffn
from transformer_lib.counting import attention_parameters, ffn_parameters, layer_norm_parameters


def test_parameter_formulas_match_the_library():
    for d_model, d_ff, n_heads in ((8, 32, 2), (64, 256, 4), (512, 2048, 8)):
        layer = tl.EncoderLayer(d_model, n_heads, d_ff)
        assert tl.count_parameters(layer.ffn) == ffn_parameters(d_model, d_ff)
        assert tl.count_parameters(layer.self_attn) == attention_parameters(d_model)
        assert tl.count_parameters(layer.norm1) == layer_norm_parameters(d_model)
        assert tl.count_parameters(layer) == 12 * d_model**2 + 13 * d_model + 2 * d_model * (d_ff - 4 * d_model)


def test_a_count_without_biases_fails():
    d, f = sp.symbols("D F", positive=True)
    assert not Step("no biases", ffn_parameters(d, f), 2 * d * f).holds()


def test_symbolic_ffn_equals_the_library_numerically():
    gen = tl.set_seed(0)
    ffn = tl.PositionwiseFeedForward(3, 5).double()
    x = torch.randn(4, 3, generator=gen, dtype=torch.float64)
    as_matrix = lambda t: sp.Matrix(t.detach().tolist())  # noqa: E731
    symbolic = symbolic_ffn(
        as_matrix(x),
        as_matrix(ffn.linear1.weight.T),
        as_matrix(ffn.linear1.bias[None]),
        as_matrix(ffn.linear2.weight.T),
        as_matrix(ffn.linear2.bias[None]),
    )
    expected = ffn(x)
    assert torch.allclose(torch.tensor(sp.matrix2numpy(symbolic, dtype=float)), expected, atol=1e-12, rtol=0)


def test_symbolic_conv1d_equals_torch():
    gen = tl.set_seed(1)
    conv = torch.nn.Conv1d(3, 2, kernel_size=2).double()
    x = torch.randn(1, 3, 5, generator=gen, dtype=torch.float64)  # (B, C, T)
    kernel = [sp.Matrix(conv.weight[:, :, k].detach().tolist()) for k in range(2)]
    bias = sp.Matrix(conv.bias.detach().tolist())
    symbolic = conv1d(kernel, bias, sp.Matrix(x[0].tolist()))
    assert torch.allclose(torch.tensor(sp.matrix2numpy(symbolic, dtype=float)), conv(x)[0], atol=1e-12, rtol=0)


def test_symbolic_layer_norm_equals_torch():
    from book_support.derivations.residual import layer_norm_vector

    gen = tl.set_seed(2)
    x = torch.randn(5, generator=gen, dtype=torch.float64)
    for eps in (0.0, 1e-5, 0.5):
        symbolic = layer_norm_vector(sp.Matrix(x.tolist()), sp.Float(eps))
        expected = torch.nn.functional.layer_norm(x, (5,), eps=eps)
        as_tensor = torch.tensor([float(v) for v in symbolic], dtype=torch.float64)
        assert torch.allclose(as_tensor, expected, atol=1e-12, rtol=0)


def test_layer_norm_with_unbiased_variance_fails_the_moment_step():
    from book_support.derivations.residual import symbolic_vector

    x = symbolic_vector("x", 3)
    centred = x - sp.ones(3, 1) * (sum(x) / 3)
    unbiased = centred / sp.sqrt(sum(c**2 for c in centred) / 2)  # divides by D - 1
    assert not Step("biased variance 1", sum(v**2 for v in unbiased) / 3, 1).holds()


def test_residual_gradient_theorem_matches_a_monte_carlo_estimate():
    gen = tl.set_seed(3)
    d, v, n = 8, 0.05, 20000
    jac = torch.randn(n, d, d, generator=gen, dtype=torch.float64) * v**0.5
    g = torch.randn(d, generator=gen, dtype=torch.float64)
    plain = (jac @ g).square().sum(-1).mean() / g.square().sum()
    residual = (g + jac @ g).square().sum(-1).mean() / g.square().sum()
    assert abs(plain.item() - d * v) < 0.02
    assert abs(residual.item() - (1 + d * v)) < 0.02
