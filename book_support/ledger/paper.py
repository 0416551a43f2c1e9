"""Document paper's claims (see :mod:`book_support.ledger` for what a record states)."""

from book_support.claims import AGREES, AGREES_BY_CONSTRUCTION, ASSUMED, CONTRADICTED, INHERITED, NOT_DERIVABLE, SUPPORTED, UNSOURCED, WRONG
from book_support.claims import at_least, at_most, between, close, equal, holds, rounds_to
from book_support.ledger import AT_CALL, PENDING, absent, cited, computed, stated
from book_support.worked_examples.audit import PRINTED_DIGITS


# home: ch11
computed(
    "paper-beam-size-4-length-penalty",
    "paper §6.1",
    says="beam size 4 and length penalty alpha = 0.6",
    measure="computed: the defaults of tl.beam_search",
    claimed=(4, 0.6),
    rule=equal(),
    verdict=PENDING,
)

# home: ch14
computed(
    "paper-base-training-cost-3-3e18",
    "paper Table 2",
    says="base training cost 3.3e18 FLOPs = time x 8 GPUs x 9.5 TFLOPS",
    measure="FIXME",
    claimed=3.3e+18,
    rule=close(rel=0.02),
    why="",
    verdict=PENDING,
)
