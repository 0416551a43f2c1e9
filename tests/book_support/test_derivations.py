"""Every registered sympy derivation holds, says honestly what sympy checked, and fails when one step is false.

Each derivation is built and checked once per test process, on first use (never at
collection): ``_built`` caches it, and one test per derivation does every check on it,
so that pytest-xdist runs each derivation in exactly one worker.
"""

import ast
import dataclasses
import functools

import pytest
import sympy as sp

import book_support as bk
import transformer_lib as tl
from book_support.derivations import DERIVATIONS, KINDS, Derivation, Step, derivation_names
from book_support.derivations.core import _REGISTRY, REPORT_WIDTH

NAMES = derivation_names()  # names only: nothing is built at collection


@functools.cache
def _built(name: str) -> Derivation:
    return _REGISTRY[name]()


def test_registry_is_the_explicit_list():
    """derivations/__init__.py names every derivation (grep finds them); the registry holds exactly those."""
    assert set(NAMES) == set(DERIVATIONS)
    assert len(NAMES) >= 50
    for name in NAMES:
        assert getattr(bk.derivations, name) is _REGISTRY[name]
        assert name in bk.derivations.__all__


@pytest.mark.parametrize("name", NAMES)
def test_derivation_holds_is_honest_and_every_step_can_fail(name):
    derivation = _built(name)
    report = derivation.report()
    # 1. sympy proves every step
    assert derivation.check(), report
    assert "FAILS" not in report
    # 2. every step is honestly labelled: no step compares an expression with itself, no step acts on a
    #    variable its expression does not contain, the kind matches the expression
    problems = {f"step {i}: {step.claim}": step.problems() for i, step in enumerate(derivation.steps, 1) if step.problems()}
    assert not problems, problems
    # 3. the report shows each step's kind and fits the book's column
    assert all(len(line) <= REPORT_WIDTH for line in report.splitlines()), report
    for number, step in enumerate(derivation.steps, 1):
        assert step.kind in KINDS
        assert f"  {number}. {step.label()}: " in report
    # 4. making any one step false (rhs + 1, or the opposite inequality) makes check() False
    for i, step in enumerate(derivation.steps):
        wrong = step.perturbed()
        assert not wrong.holds(), f"step {i + 1} still holds when perturbed: {step.claim}"
        broken = dataclasses.replace(derivation, steps=(*derivation.steps[:i], wrong, *derivation.steps[i + 1 :]))
        assert not broken.check()
        assert f"  {i + 1}. FAILS " in broken.report()


# ---------------------------------------------------------------- the machinery, on steps the old code had


def test_a_wrong_step_fails():
    x = sp.Symbol("x")
    wrong = Derivation("wrong", "(x + 1)^2 = x^2 + 1", "test", (Step("expand", (x + 1) ** 2, x**2 + 1),))
    assert not wrong.check()
    assert "FAILS" in wrong.report()
    assert not Step("shape mismatch", sp.eye(2), sp.eye(3)).holds()


def test_steps_whose_sides_are_the_same_expression_are_rejected():
    """Four steps the derivations used to make; sympy evaluates each side to the same expression."""
    sigma, n, beta, eps, big_v = sp.symbols("sigma n beta epsilon V", positive=True)
    old_steps = [
        # ablation: Var(c) = 4 sigma^2 / n as sum(1, 1, 1, 1) sigma^2 / n
        Step("Var(c) = 4 sigma^2 / n", sum(c**2 for c in (1, -1, -1, 1)) * sigma**2 / n, 4 * sigma**2 / n),
        # adam: (1 - beta) / (1 - beta) = 1
        Step("the weights sum to 1", (1 - beta) * (1 / (1 - beta)), 1),
        # label smoothing: the 'floor' -log q_y against its own definition
        Step("the floor", -sp.log(1 - eps + eps / big_v), -sp.log(1 - eps + eps / big_v)),
        # residual: (1 - 0.1)^100 = 0.9^100
        Step("(1 - 0.1)^100 = 0.9^100", (1 - sp.Rational(1, 10)) ** 100, sp.Rational(9, 10) ** 100),
    ]
    for step in old_steps:
        assert step.holds()  # true, which is why check() never noticed
        assert any("same expression" in p for p in step.problems()), step.claim


def test_a_step_acting_on_a_symbol_absent_from_its_expression_is_rejected():
    """The old 'dR/dpos = 0' differentiated a rotation matrix that contains no pos."""
    pos, k, omega = sp.symbols("pos k omega", real=True)
    rotation = sp.Matrix([[sp.cos(k * omega), sp.sin(k * omega)], [-sp.sin(k * omega), sp.cos(k * omega)]])
    step = Step.computed("dR/dpos = 0", sp.diff(rotation, pos), sp.zeros(2, 2), variables=(pos,), operand=rotation)
    assert step.holds()
    assert any("pos" in p and "does not occur" in p for p in step.problems())
    honest = Step.computed(
        "d/dpos sin(pos) = cos(pos)", sp.diff(sp.sin(pos), pos), sp.cos(pos), variables=(pos,), operand=sp.sin(pos)
    )
    assert honest.holds() and not honest.problems()


def test_a_sign_stated_but_not_checked_is_rejected():
    """The old attention_convexity said "0 < s_1 < 1" and ">= 0" but checked only an equality."""
    z = sp.Matrix(sp.symbols("z1:4", real=True))
    s = z.applyfunc(sp.exp) / sum(z.applyfunc(sp.exp))
    old = Step(
        "s_1 = 1 / (1 + sum_{k != 1} exp(z_k - z_1)): a denominator > 1, so 0 < s_1 < 1",
        s[0],
        1 / (1 + sp.exp(z[1] - z[0]) + sp.exp(z[2] - z[0])),
    )
    assert old.holds()  # the equality is true; the claim it prints was never checked
    assert any("sign or bound" in p for p in old.problems())
    assert set(old.unchecked_signs()) >= {"0 < s_1", "< 1"}
    assert not Step.inequality("0 < s_1", s[0], ">", 0).unchecked_signs()  # an inequality checks its own
    c = sp.Symbol("c", positive=True)
    assumption = Step.identity("for c > 0: sqrt(c^2) = c", sp.sqrt(c**2) + c, 2 * c)  # an assumption, not a claim
    assert not assumption.unchecked_signs()
    cited = Step("KL(q || p), which Gibbs' inequality makes >= 0 (not checked here)", c + c, 2 * c)
    assert not cited.unchecked_signs()


def test_kinds_must_match_the_expressions():
    x = sp.Symbol("x", real=True)
    assert Step.identity("no symbols", sp.Integer(2) + 2, 4).problems()  # arithmetic, not an identity
    assert Step.value("value", x**2, {x: 3}, 9).holds()
    assert not Step.value("value", x**2, {x: 3}, 9).problems()
    assert Step.value("value", x**2, {x: 3}, 10).holds() is False
    assert Step.for_sizes("sizes", x + x, 2 * x + 0 * x + x - x, "").problems()  # no sizes stated
    typed = Step("typed arithmetic", sp.Integer(63_082_496), 63_082_496, kind="exact arithmetic")
    assert any("Step.value" in p for p in typed.problems())


def test_inequalities_are_proved_not_sampled():
    z = sp.Matrix(sp.symbols("z1:4", real=True))
    weights = z.applyfunc(sp.exp) / sum(z.applyfunc(sp.exp))
    assert Step.inequality("s_1 > 0", weights[0], ">", 0).holds()
    assert Step.inequality("s_1 < 1", weights[0], "<", 1).holds()
    assert not Step.inequality("s_1 > 1/2 (false)", weights[0], ">", sp.Rational(1, 2)).holds()
    a = sp.Symbol("a", real=True)
    assert not Step.inequality("a^2 - 2 a >= 0 (false at a = 1)", a**2 - 2 * a, ">=", 0).holds()
    assert Step.inequality("(a - 1)^2 >= 0", a**2 - 2 * a + 1, ">=", 0).holds()
    unknown = sp.Symbol("u")  # no assumptions: sympy cannot prove a sign, so the step does not hold
    assert not Step.inequality("u^2 >= 0 for complex u", unknown**2, ">=", 0).holds()
    assert "inequality (z1..z3 real)" in Step.inequality("s_1 > 0", weights[0], ">", 0).label()


def test_limits_are_computed_when_checked_and_name_their_variable():
    c = sp.Symbol("c", positive=True)
    step = Step.limit("1/c -> 0", 1 / c, c, sp.oo, 0)
    assert isinstance(step.lhs, sp.Limit)  # not evaluated at build time
    assert step.holds() and not step.problems()
    assert not step.perturbed().holds()
    d = sp.Symbol("d", positive=True)
    assert Step.limit("a limit in d of an expression without d", 1 / c, d, sp.oo, 1 / c).problems()


def test_numerical_checks_say_so():
    x = sp.Symbol("x", real=True)
    step = Step.numerical("sin^2 + cos^2 = 1 at two points", sp.sin(x) ** 2 + sp.cos(x) ** 2, 1, [{x: 0.3}, {x: 2.0}])
    assert step.holds() and step.label() == "numerical check at 2 points"
    assert not step.perturbed().holds()


def test_variance_needs_zero_mean():
    """With a non-zero mean the variance is not d_k: the assumption is load-bearing."""
    q, k = sp.symbols("q k")
    mu = sp.Symbol("mu", positive=True)
    moments = {
        q: bk.derivations.standard_moments(mu, sp.Integer(1), "q"),
        k: bk.derivations.standard_moments(mu, sp.Integer(1), "k"),
    }
    from book_support.derivations.scaling import variance

    assert sp.simplify(variance(q * k, moments) - (1 + 2 * mu**2)) == 0


def test_expectation_uses_independence():
    x, y = sp.symbols("x y")
    moments = {x: lambda n: sp.Integer(n), y: lambda n: sp.Integer(2) ** n}
    # E[x^2 y + 3 x] = E[x^2] E[y] + 3 E[x] = 2 * 2 + 3 * 1
    assert bk.derivations.expectation(x**2 * y + 3 * x, moments) == 7


def test_numeric_helpers_live_outside_derivations_and_need_no_sympy():
    """counting and stats give exact Python ints / floats for numbers, without sympy or torch."""
    import book_support.stats as stats
    import transformer_lib.counting as counting

    assert counting.transformer_parameters(512, 2048, 6, 6, 37000) == 63_082_496
    assert type(counting.greedy_decode_flops(16, 9, 64, 256, 2, 2, 100, batch=2)) is int
    assert tl.counting.transformer_parameters is counting.transformer_parameters
    assert not hasattr(bk.derivations, "transformer_parameters")  # no re-export left in derivations
    for module in (counting, stats):
        tree = ast.parse(open(module.__file__).read())
        imported = {alias.name for node in ast.walk(tree) if isinstance(node, ast.Import) for alias in node.names}
        imported |= {node.module for node in ast.walk(tree) if isinstance(node, ast.ImportFrom) and node.module}
        assert not {name for name in imported if name.split(".")[0] in ("sympy", "torch")}, module.__name__


def test_one_formula_per_idea():
    """The attention FLOPs of chapters 2, 4 and 13 come from one formula; one softmax; one symbol matrix."""
    import transformer_lib.counting as counting

    n, d = sp.symbols("n d", positive=True)
    parts = counting.attention_flops(n, n, d, 4)
    assert sp.expand(parts["scores"] + parts["weighted values"] - counting.dot_product_attention_flops(n, n, d, d)) == 0
    assert sp.expand(counting.encoder_layer_flops(n, d, 4 * d)["attention"] - 4 * n**2 * d) == 0
    assert bk.derivations.softmax.softmax_vector is bk.derivations.core.softmax_vector
    assert bk.derivations.positional.softmax_vector is bk.derivations.core.softmax_vector
    assert bk.derivations.residual.symbolic_matrix("x", 2, 2) == bk.derivations.symbol_matrix("x", 2, 2, start=0)
