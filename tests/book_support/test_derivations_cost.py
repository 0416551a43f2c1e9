"""book_support.derivations.cost: the cost derivations are registered, and a wrong crossover fails its step.

The registered derivations are proved in tests/book_support/test_derivations.py; the formulas they use
(transformer_lib.counting) are tested in tests/test_counting.py.
"""

import sympy as sp

from book_support.derivations import Step, derivation_names
from transformer_lib import counting


def test_chapter_13_derivations_are_registered():
    names = {
        "transformer_parameter_count",
        "transformer_flops_per_token",
        "paper_training_cost",
        "decoding_cost",
        "linear_attention_identity",
    }
    assert names <= set(derivation_names())  # built and checked once, by test_derivations.py


def test_a_wrong_crossover_fails():
    n, d, f = sp.symbols("n D F", positive=True)
    parts = counting.encoder_layer_flops(n, d, f)
    crossover = sp.solve(sp.Eq(parts["projections"] + parts["ffn"], parts["attention"]), n)[0]
    assert not Step("crossover at n = d", crossover, d).holds()
    assert Step("crossover at n = 2D + F", crossover, 2 * d + f).holds()
