"""Training: the warm-up schedule's peak, label smoothing's optimum, Adam's first step.

lrate(s) = D^-1/2 * min(s^-1/2, s * w^-3/2) (paper Eq. 3), with step s, width D
and w warm-up steps; the smoothed target q(k) = (1 - eps) [k = y] + eps / V
(Szegedy et al. 2016, as ``tl.LabelSmoothingLoss``); Adam's bias-corrected
moments (Kingma and Ba 2015, Algorithm 1).

Paper: §5.3 (Adam, Eq. 3), §5.4 (label smoothing). Book: ch-training.
"""

from __future__ import annotations

import sympy as sp

from .core import Derivation, Step, register, softmax_vector

__all__ = [
    "adam_first_step",
    "label_smoothing_optimum",
    "noam_branches",
    "noam_peak",
    "noam_schedule_peak",
    "smoothed_entropy",
    "smoothed_target",
]


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


@register
def noam_schedule_peak() -> Derivation:
    """The two branches of Eq. 3 cross at s = w; the rate rises before and falls after, so it peaks there."""
    s, d, w = sp.symbols("s D w", positive=True)
    rising, falling = noam_branches(s, d, w)
    peak = noam_peak(d, w)
    s_1, s_2 = sp.symbols("s_1 s_2", positive=True)
    steps = (
        Step.computed(
            "the branches are equal only at s = w (solving D^-1/2 s w^-3/2 = D^-1/2 s^-1/2 for s > 0)",
            sp.Matrix(sp.solve(sp.Eq(rising, falling), s)),
            sp.Matrix([w]),
            variables=(s,),
            operand=rising - falling,
        ),
        Step.inequality(
            "the rising branch D^-1/2 s w^-3/2 increases: its derivative D^-1/2 w^-3/2 is > 0", sp.diff(rising, s), ">", 0
        ),
        Step.inequality(
            "the falling branch D^-1/2 s^-1/2 decreases: its derivative -1/2 D^-1/2 s^-3/2 is < 0", sp.diff(falling, s), "<", 0
        ),
        Step.computed("value at s = w: lr_peak = D^-1/2 w^-1/2", rising.subs(s, w), peak, variables=(s,), operand=rising),
        Step.value(
            "base model (D = 512, w = 4000): lr_peak = 1 / sqrt(2 048 000)", peak, {d: 512, w: 4000}, 1 / sp.sqrt(2_048_000)
        ),
        Step.value(
            "big model (D = 1024, w = 4000): lr_peak = 1 / sqrt(4 096 000)", peak, {d: 1024, w: 4000}, 1 / sp.sqrt(4_096_000)
        ),
        Step.computed(
            "doubling the step multiplies the rate by 1/sqrt(2) (only doubling, not adding 10 000 steps)",
            falling.subs(s, 2 * s) / falling,
            1 / sp.sqrt(2),
            variables=(s,),
            operand=falling,
        ),
        Step.value(
            "from 20 000 to 30 000 steps the factor is sqrt(2/3)",
            falling.subs(s, s_2) / falling.subs(s, s_1),
            {s_1: 20_000, s_2: 30_000},
            sp.sqrt(sp.Rational(2, 3)),
        ),
        Step.computed(
            "the rate falls back to half the peak at s = 4 w",
            falling.subs(s, 4 * w) / peak,
            sp.Rational(1, 2),
            variables=(s,),
            operand=falling,
        ),
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
    p = list(softmax_vector(sp.Matrix(z)))
    q = [q_true.subs(big_v, n)] + [q_other.subs(big_v, n)] * (n - 1)
    cross_entropy = -sum(qk * sp.log(pk) for qk, pk in zip(q, p, strict=True))
    log_p = [zk - sp.log(sum(sp.exp(zj) for zj in z)) for zk in z]  # log softmax written out
    ce_logs = -sum(qk * lk for qk, lk in zip(q, log_p, strict=True))
    decomposed = (1 - eps) * (-log_p[0]) + eps * sum(-lk for lk in log_p) / n
    gradient = sp.Matrix([sp.diff(ce_logs, zk) for zk in z])
    optimum_logits = [sp.log(qk) for qk in q]  # softmax(log q) = q because sum(q) = 1
    entropy = smoothed_entropy(eps, big_v)
    at_optimum = dict(zip(z, optimum_logits, strict=True))
    steps = (
        Step.identity("q sums to one: (1 - eps + eps/V) + (V - 1) eps/V = 1", q_true + (big_v - 1) * q_other, 1),
        Step.for_sizes("cross-entropy -sum q log p = (1 - eps)(-log p_y) + eps mean_k(-log p_k)", ce_logs, decomposed, "V = 4"),
        Step.computed(
            "its gradient with respect to the logits is p - q",
            gradient,
            sp.Matrix(p) - sp.Matrix(q),
            variables=tuple(z),
            operand=ce_logs,
            sizes="V = 4",
        ),
        Step.computed(
            "the gradient vanishes at logits z = log q (p = q)",
            gradient.subs(at_optimum),
            sp.zeros(n, 1),
            variables=tuple(z),
            operand=gradient,
            sizes="V = 4",
        ),
        Step.computed(
            "there the loss equals the entropy H(q)",
            cross_entropy.subs(at_optimum),
            entropy.subs(big_v, n),
            variables=tuple(z),
            operand=cross_entropy,
            sizes="V = 4",
        ),
        Step.for_sizes(
            "cross-entropy minus H(q) is KL(q || p) (which Gibbs' inequality makes >= 0; not checked here)",
            sp.expand_log(cross_entropy - entropy.subs(big_v, n), force=True),
            sp.expand_log(sum(qk * sp.log(qk / pk) for qk, pk in zip(q, p, strict=True)), force=True),
            "V = 4",
        ),
        Step.identity(
            "the optimal logit gap z_y - z_k = log(1 + V (1 - eps)/eps): finite, so logits stay bounded",
            sp.expand_log(sp.log(q_true / q_other), force=True),
            sp.expand_log(sp.log(1 + big_v * (1 - eps) / eps), force=True),
        ),
        Step.limit(
            "at the optimum the plain loss -log p_y = -log(1 - eps + eps/V) tends to -log(1 - eps) as V grows "
            "(perplexity 1/(1 - eps) = 10/9 at the optimum for eps = 0.1; not a lower bound)",
            -sp.log(q_true),
            big_v,
            sp.oo,
            -sp.log(1 - eps),
        ),
        Step.limit("with eps -> 0 the minimum smoothed loss tends to 0 (one-hot targets)", entropy, eps, 0, 0),
    )
    return Derivation(
        name="label_smoothing_optimum",
        statement=(
            "with q = (1 - eps) one_hot + eps/V the best model predicts p = q; "
            "its smoothed loss is H(q); its plain perplexity there is 1/(1 - eps + eps/V) (a value at the optimum, not a bound)"
        ),
        reference="paper §5.4; Szegedy et al. (2016) §7; book chapter 10",
        steps=steps,
    )


@register
def adam_first_step() -> Derivation:
    """After bias correction, Adam's first update has size lr whatever the size of the gradient."""
    lr, b1, b2, eps = sp.symbols("eta beta_1 beta_2 epsilon", positive=True)
    g = sp.Symbol("g", real=True)
    m, v = sp.symbols("m v")  # the moments after one step
    update_rule = lr * (m / (1 - b1)) / (sp.sqrt(v / (1 - b2)) + eps)  # bias-corrected update at t = 1
    first = {m: (1 - b1) * g, v: (1 - b2) * g**2}  # m_1 = beta_1 m_0 + (1 - beta_1) g with m_0 = 0; v_1 likewise
    update = update_rule.subs(first)
    # an exponential moving average with decay beta in (0, 1) weights the gradient of t steps ago by (1 - beta) beta^t
    r = sp.Symbol("r", positive=True)
    t = sp.Symbol("t", integer=True, nonnegative=True)
    b = sp.Symbol("beta", positive=True)
    beta_r = 1 / (1 + r)  # every beta in (0, 1) is 1 / (1 + r) for some r > 0
    steps = (
        Step.computed(
            "from m_0 = v_0 = 0, the bias-corrected first update is lr g / (|g| + eps)",
            update,
            lr * g / (sp.Abs(g) + eps),
            variables=(m, v),
            operand=update_rule,
        ),
        Step.limit(
            "as eps -> 0 it is lr g / |g| = lr sign(g): the step size does not depend on |g|", update, eps, 0, lr * g / sp.Abs(g)
        ),
        Step.identity(
            "the weights (1 - beta) beta^t of an exponential average sum to 1 for every beta in (0, 1), "
            "written beta = 1 / (1 + r) with r > 0",
            sp.Sum((1 - beta_r) * beta_r**t, (t, 0, sp.oo)),
            1,
        ),
        Step.identity(
            "the mean age sum_t t (1 - beta) beta^t of the averaged gradients is beta / (1 - beta) "
            "for every beta in (0, 1), written beta = 1 / (1 + r) with r > 0",
            sp.Sum(t * (1 - beta_r) * beta_r**t, (t, 0, sp.oo)),
            beta_r / (1 - beta_r),
        ),
        Step.value("beta_1 = 0.9: mean age 9 steps", b / (1 - b), {b: sp.Rational(9, 10)}, 9),
        Step.value("beta_2 = 0.98: mean age 49 steps", b / (1 - b), {b: sp.Rational(49, 50)}, 49),
    )
    return Derivation(
        name="adam_first_step",
        statement="Adam's first update is lr g / (|g| + eps), about lr sign(g); its averages have mean age beta / (1 - beta)",
        reference="Kingma and Ba (2015), Algorithm 1; paper §5.3; book chapter 10",
        steps=steps,
    )
