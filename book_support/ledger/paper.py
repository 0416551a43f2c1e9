"""The paper's own statements that the book checks against the library (see :mod:`book_support.ledger`).

These are not errors to find: each is a setting or a figure of the paper. A figure the paper derives
from others (the training cost) is recomputed from them; a setting is read in the paper (a citation),
since the library's defaults were written from it and reading them back would test nothing.
"""

from book_support.claims import AGREES, SUPPORTED, rounds_to
from book_support.ledger import cited, computed

# pages: ch11
cited(
    "paper-beam-settings",
    "paper §6.1",
    says="translations are decoded by beam search with a beam of 4 and a length penalty alpha = 0.6,"
    " chosen on the development set",
    cited="paper §6.1: 'We used beam search with a beam size of 4 and length penalty alpha = 0.6."
    " These hyperparameters were chosen after experimentation on the development set.' The"
    " library's tl.beam_search was written with these defaults, so reading them back would not test"
    " the paper (the page shows them as a note)",
    reading=SUPPORTED,
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
