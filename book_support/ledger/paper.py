"""The paper's own statements that the book checks against the library (see :mod:`book_support.ledger`).

These are not errors to find: each is a setting or a figure of the paper that the book recomputes, so
that a reader sees the library follows the paper (or where it does not).
"""

from book_support.claims import AGREES, equal, rounds_to
from book_support.ledger import computed

# pages: ch11
computed(
    "paper-beam-settings",
    "paper §6.1",
    says="translations are decoded by beam search with a beam of 4 and a length penalty alpha = 0.6,"
    " chosen on the development set",
    measure="the defaults of tl.beam_search (beam_size, alpha)",
    true_if="the library decodes with the paper's settings unless told otherwise",
    claimed=(4, 0.6),
    rule=equal(),
    verdict=AGREES,
)

# pages: ch14
computed(
    "paper-training-cost",
    "paper Table 2",
    says="training the base model cost 3.3e18 FLOPs, estimated as training time x number of GPUs x"
    " each GPU's sustained single-precision rate (§6.1; 9.5 TFLOPS for a P100, footnote 5): 12 hours"
    " on 8 P100 GPUs (§5.2)",
    measure="tl.counting.hardware_flops(12 h, 8 GPUs, 9.5 TFLOPS), in units of 1e18 FLOPs",
    claimed=3.3,
    rule=rounds_to(1),
    why="Table 2 prints two significant digits, so the estimate agrees when it rounds to them",
    verdict=AGREES,
)
