"""Training: the warm-up schedule's peak, label smoothing's optimum, Adam's first step.

lrate(s) = D^-1/2 * min(s^-1/2, s * w^-3/2) (paper Eq. 3), with step s, width D
and w warm-up steps; the smoothed target q(k) = (1 - eps) [k = y] + eps / V
(Szegedy et al. 2016, as ``tl.LabelSmoothingLoss``); Adam's bias-corrected
moments (Kingma and Ba 2015, Algorithm 1).

Paper: §5.3 (Adam, Eq. 3), §5.4 (label smoothing). Book: chapter 10.
"""

from __future__ import annotations

import sympy as sp

from .core import Derivation, Step, register


def noam_branches(step: sp.Expr, d_model: sp.Expr, warmup: sp.Expr) -> tuple[sp.Expr, sp.Expr]:
    """The two arguments of the min in Eq. 3, times D^-1/2: (linear warm-up, inverse square root)."""
    scale = d_model ** sp.Rational(-1, 2)
    return scale * step * warmup ** sp.Rational(-3, 2), scale * step ** sp.Rational(-1, 2)


def noam_peak(d_model: sp.Expr, warmup: sp.Expr) -> sp.Expr:
    """The schedule's largest value, D^-1/2 * w^-1/2, reached at step w."""
    return d_model ** sp.Rational(-1, 2) * warmup ** sp.Rational(-1, 2)


def smoothed_target(eps: sp.Expr, vocab_size: sp.Expr) -> tuple[sp.Expr, sp.Expr]:
    """(q of the true class, q of each other class) = (1 - eps + eps/V, eps/V)."""
    return 1 - eps + eps / vocab_size, eps / vocab_size


def smoothed_entropy(eps: sp.Expr, vocab_size: sp.Expr) -> sp.Expr:
    """H(q) = -q_y log q_y - (V - 1) q_o log q_o: the smallest smoothed loss any model can reach."""
    q_true, q_other = smoothed_target(eps, vocab_size)
    return -q_true * sp.log(q_true) - (vocab_size - 1) * q_other * sp.log(q_other)


def _softmax(z: list[sp.Expr]) -> list[sp.Expr]:
    total = sum(sp.exp(zk) for zk in z)
    return [sp.exp(zk) / total for zk in z]


@register
def noam_schedule_peak() -> Derivation:
    """The two branches of Eq. 3 cross at s = w; the rate rises before and falls after, so it peaks there."""
    s, d, w = sp.symbols("s D w", positive=True)
    rising, falling = noam_branches(s, d, w)
    peak = noam_peak(d, w)
    steps = (
        Step("the branches are equal only at s = w (solving D^-1/2 s w^-3/2 = D^-1/2 s^-1/2 for s > 0)",
             sp.Matrix(sp.solve(sp.Eq(rising, falling), s)), sp.Matrix([w])),
        Step("rising / falling = (s / w)^(3/2): below 1 before w, so the min is the rising branch", rising / falling,
             (s / w) ** sp.Rational(3, 2)),
        Step("d/ds of the rising branch = D^-1/2 w^-3/2 > 0", sp.diff(rising, s),
             d ** sp.Rational(-1, 2) * w ** sp.Rational(-3, 2)),
        Step("d/ds of the falling branch = -1/2 D^-1/2 s^-3/2 < 0", sp.diff(falling, s),
             -d ** sp.Rational(-1, 2) * s ** sp.Rational(-3, 2) / 2),
        Step("value at s = w: lr_peak = D^-1/2 w^-1/2", rising.subs(s, w), peak),
        Step("base model (D = 512, w = 4000): lr_peak = 1 / sqrt(2 048 000)", peak.subs({d: 512, w: 4000}),
             1 / sp.sqrt(2_048_000)),
        Step("big model (D = 1024, w = 4000): lr_peak = 1 / sqrt(4 096 000)", peak.subs({d: 1024, w: 4000}),
             1 / sp.sqrt(4_096_000)),
        Step("after the peak: lrate(s) / lr_peak = sqrt(w / s)", falling / peak, sp.sqrt(w / s)),
        Step("doubling the step multiplies the rate by 1/sqrt(2) (only doubling, not adding 10 000 steps)",
             falling.subs(s, 2 * s) / falling, 1 / sp.sqrt(2)),
        Step("from 20 000 to 30 000 steps the factor is sqrt(2/3)", falling.subs(s, 30_000) / falling.subs(s, 20_000),
             sp.sqrt(sp.Rational(2, 3))),
        Step("the rate falls back to half the peak at s = 4 w", falling.subs(s, 4 * w) / peak, sp.Rational(1, 2)),
    )
    return Derivation(
        name="noam_schedule_peak",
        statement="lrate = D^-1/2 min(s^-1/2, s w^-3/2) peaks at s = w with lr_peak = (D w)^-1/2 and decays as 1/sqrt(s)",
        reference="paper §5.3, Eq. 3; book chapter 10",
        steps=steps,
    )


@register
def label_smoothing_optimum() -> Derivation:
    """The smoothed target sums to one; the loss decomposes; its minimum is at p = q, where it equals H(q)."""
    eps, big_v = sp.symbols("epsilon V", positive=True)
    q_true, q_other = smoothed_target(eps, big_v)
    # a concrete vocabulary of 4 classes, true class 0, symbolic logits z_k
    n = 4
    z = list(sp.symbols(f"z0:{n}", real=True))
    p = _softmax(z)
    q = [q_true.subs(big_v, n)] + [q_other.subs(big_v, n)] * (n - 1)
    cross_entropy = -sum(qk * sp.log(pk) for qk, pk in zip(q, p, strict=True))
    log_p = [zk - sp.log(sum(sp.exp(zj) for zj in z)) for zk in z]  # log softmax written out
    ce_logs = -sum(qk * lk for qk, lk in zip(q, log_p, strict=True))
    decomposed = (1 - eps) * (-log_p[0]) + eps * sum(-lk for lk in log_p) / n
    gradient = sp.Matrix([sp.diff(ce_logs, zk) for zk in z])
    optimum_logits = [sp.log(qk) for qk in q]  # softmax(log q) = q because sum(q) = 1
    entropy = smoothed_entropy(eps, big_v)
    q_true_000, q_other_000 = 1 - eps, eps / (big_v - 1)
    steps = (
        Step("q sums to one: (1 - eps + eps/V) + (V - 1) eps/V = 1", q_true + (big_v - 1) * q_other, 1),
        Step("the convention of source 000, 1 - eps and eps/(V - 1), also sums to one",
             q_true_000 + (big_v - 1) * q_other_000, 1),
        Step("cross-entropy -sum q log p = (1 - eps)(-log p_y) + eps mean_k(-log p_k)  (V = 4)",
             sp.expand(ce_logs), sp.expand(decomposed)),
        Step("its gradient with respect to the logits is p - q  (V = 4)", gradient - sp.Matrix(p) + sp.Matrix(q),
             sp.zeros(n, 1)),
        Step("the gradient vanishes at logits z = log q (p = q)",
             gradient.subs(dict(zip(z, optimum_logits, strict=True))), sp.zeros(n, 1)),
        Step("there the loss equals the entropy H(q)",
             cross_entropy.subs(dict(zip(z, optimum_logits, strict=True))), entropy.subs(big_v, n)),
        Step("cross-entropy minus H(q) is KL(q || p), which is >= 0 (Gibbs' inequality)",
             sp.expand_log(cross_entropy - entropy.subs(big_v, n), force=True),
             sp.expand_log(sum(qk * sp.log(qk / pk) for qk, pk in zip(q, p, strict=True)), force=True)),
        Step("the optimal logit gap z_y - z_k = log(1 + V (1 - eps)/eps): finite, so logits stay bounded",
             sp.expand_log(sp.log(q_true / q_other), force=True),
             sp.expand_log(sp.log(1 + big_v * (1 - eps) / eps), force=True)),
        Step("at the optimum the plain loss -log p_y is -log(1 - eps + eps/V): a perplexity floor above 1",
             -sp.log(q_true), -sp.log(1 - eps + eps / big_v)),
        Step("as V grows the floor tends to -log(1 - eps) (perplexity 1/(1 - eps) = 10/9 for eps = 0.1)",
             sp.limit(-sp.log(q_true), big_v, sp.oo), -sp.log(1 - eps)),
        Step("with eps = 0 the minimum smoothed loss is 0 (one-hot targets)",
             sp.limit(entropy, eps, 0), 0),
    )
    return Derivation(
        name="label_smoothing_optimum",
        statement=(
            "with q = (1 - eps) one_hot + eps/V the best model predicts p = q; "
            "its loss is H(q) and its perplexity >= 1/(1 - eps + eps/V)"
        ),
        reference="paper §5.4; Szegedy et al. (2016) §7; book chapter 10",
        steps=steps,
    )


@register
def adam_first_step() -> Derivation:
    """After bias correction, Adam's first update has size lr whatever the size of the gradient."""
    g, lr, b1, b2, eps = sp.symbols("g eta beta_1 beta_2 epsilon", positive=True)
    m1 = (1 - b1) * g  # m_1 = beta_1 m_0 + (1 - beta_1) g with m_0 = 0
    v1 = (1 - b2) * g**2  # v_1 likewise, v_0 = 0
    m_hat, v_hat = m1 / (1 - b1), v1 / (1 - b2)
    update = lr * m_hat / (sp.sqrt(v_hat) + eps)
    # an exponential moving average with decay beta in (0, 1) weights the gradient of t steps ago by (1 - beta) beta^t
    r = sp.Symbol("r", positive=True)
    t = sp.Symbol("t", integer=True, nonnegative=True)
    b = sp.Symbol("beta", positive=True)
    geometric = 1 / (1 - b)  # sum_t beta^t
    mean_age = (1 - b) * b * sp.diff(geometric, b)  # sum_t t (1 - beta) beta^t = (1 - beta) beta d/dbeta sum_t beta^t
    steps = (
        Step("bias-corrected first moment after one step: m_hat = g", m_hat, g),
        Step("bias-corrected second moment after one step: v_hat = g^2", v_hat, g**2),
        Step("first update = lr g / (|g| + eps)  (g > 0)", update, lr * g / (g + eps)),
        Step("as eps -> 0 it is lr: the step size does not depend on |g|", sp.limit(update, eps, 0), lr),
        Step(
            "sum_t beta^t = 1 / (1 - beta) for 0 < beta < 1 (beta = 1 / (1 + r), r > 0)",
            sp.summation((1 / (1 + r)) ** t, (t, 0, sp.oo)),
            geometric.subs(b, 1 / (1 + r)),
        ),
        Step("so the weights (1 - beta) beta^t of an exponential average sum to 1", (1 - b) * geometric, 1),
        Step("the mean age of the averaged gradients is beta / (1 - beta)", mean_age, b / (1 - b)),
        Step("beta_1 = 0.9: mean age 9 steps", mean_age.subs(b, sp.Rational(9, 10)), 9),
        Step("beta_2 = 0.98: mean age 49 steps", mean_age.subs(b, sp.Rational(49, 50)), 49),
    )
    return Derivation(
        name="adam_first_step",
        statement="Adam's first update is lr g / (|g| + eps), about lr sign(g); its averages have mean age beta / (1 - beta)",
        reference="Kingma and Ba (2015), Algorithm 1; paper §5.3; book chapter 10",
        steps=steps,
    )
