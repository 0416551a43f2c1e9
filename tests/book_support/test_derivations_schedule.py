"""The training derivations of chapter 10 agree with the library and with torch."""

import math

import pytest
import sympy as sp
import torch
import torch.nn.functional as F

import transformer_lib as tl
from book_support.derivations import Step
from book_support.derivations.schedule import noam_branches, noam_peak, smoothed_entropy, smoothed_target


@pytest.mark.parametrize(("d_model", "warmup"), [(512, 4000), (1024, 4000), (64, 200)])
def test_noam_peak_is_the_library_maximum_at_warmup(d_model, warmup):
    rates = [tl.noam_lr(step, d_model, warmup) for step in range(1, 5 * warmup)]
    assert rates.index(max(rates)) + 1 == warmup
    assert max(rates) == pytest.approx(float(noam_peak(d_model, warmup)), rel=1e-12)
    s = sp.Symbol("s", positive=True)
    rising, falling = noam_branches(s, d_model, warmup)
    for step in (1, warmup // 2, warmup, 3 * warmup):
        expected = float(sp.Min(rising, falling).subs(s, step))
        assert tl.noam_lr(step, d_model, warmup) == pytest.approx(expected, rel=1e-12)


def test_base_model_peak_value():
    assert float(noam_peak(512, 4000)) == pytest.approx(6.988e-4, abs=5e-8)


def test_a_wrong_peak_fails():
    d, w = sp.symbols("D w", positive=True)
    assert not Step("peak at 2w", noam_branches(2 * w, d, w)[0], noam_peak(d, w)).holds()


@pytest.mark.parametrize(("vocab_size", "eps"), [(5, 0.1), (41, 0.1), (41, 0.3)])
def test_smoothed_target_matches_the_library(vocab_size, eps):
    loss = tl.LabelSmoothingLoss(vocab_size, eps)
    q = loss.target_distribution(torch.tensor([2]))[0].double()
    q_true, q_other = (float(v) for v in smoothed_target(eps, vocab_size))
    assert q[2].item() == pytest.approx(q_true, rel=1e-6)
    assert q[0].item() == pytest.approx(q_other, rel=1e-6)
    assert q.sum().item() == pytest.approx(1.0, rel=1e-6)


@pytest.mark.parametrize(("vocab_size", "eps"), [(5, 0.1), (41, 0.1)])
def test_minimum_smoothed_loss_is_the_entropy(vocab_size, eps):
    loss = tl.LabelSmoothingLoss(vocab_size, eps)
    target = torch.tensor([1])
    q = loss.target_distribution(target).double()
    at_optimum = loss(q.log(), target).item()
    assert at_optimum == pytest.approx(float(smoothed_entropy(eps, vocab_size)), rel=1e-6)  # q is built in float32
    gen = torch.Generator().manual_seed(0)
    for _ in range(20):  # any other prediction costs more
        logits = q.log() + 0.5 * torch.randn(1, vocab_size, generator=gen, dtype=torch.float64)
        assert loss(logits, target).item() > at_optimum
    plain = F.cross_entropy(q.log(), target).item()
    assert plain == pytest.approx(-math.log(float(smoothed_target(eps, vocab_size)[0])), rel=1e-6)  # q is built in float32


def test_adam_first_step_has_size_lr():
    lr = 0.01
    weights = torch.zeros(3, requires_grad=True)
    optimizer = torch.optim.Adam([weights], lr=lr, betas=(0.9, 0.98), eps=1e-9)
    weights.grad = torch.tensor([-0.2056, 3.0, 1e-4])
    optimizer.step()
    assert torch.allclose(weights.detach(), torch.tensor([lr, -lr, -lr]), atol=1e-7)
