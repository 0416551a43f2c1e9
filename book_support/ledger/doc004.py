"""Document 004's claims (see :mod:`book_support.ledger` for what a record states)."""

from book_support.claims import AGREES, AGREES_BY_CONSTRUCTION, ASSUMED, CONTRADICTED, INHERITED, NOT_DERIVABLE, SUPPORTED, UNSOURCED, WRONG
from book_support.claims import at_least, at_most, between, close, equal, holds, rounds_to
from book_support.ledger import AT_CALL, PENDING, absent, cited, computed, stated
from book_support.worked_examples.audit import PRINTED_DIGITS


# home: ch01
computed(
    "004-fixed-width-vectors-what-lets",
    "004",
    says="fixed-width vectors are what lets all positions be computed at once",
    measure="sequential operations added per position by an Elman layer, which also uses fixed-width vectors",
    claimed=0,
    rule=equal(),
    verdict=PENDING,
)

# home: ch02
stated(
    "004-xiong-et-al-2020-lu",
    "004",
    says="Xiong et al. 2020 and Lu et al. 2019 justify the dot product over cosine",
    reason="neither paper compares cosine with dot-product attention (layer normalisation; a multi-particle ODE view)",
    verdict=UNSOURCED,
)

# home: ch02
computed(
    "004-paper-s-ablations-compare-dot",
    "004",
    says="the paper's ablations compare dot, additive and cosine attention",
    measure="rows of Table 3 that vary the score function, read from the paper",
    claimed=True,
    rule=at_least(1),
    why="",
    verdict=PENDING,
)

# home: ch02
computed(
    "004-mask-step-scales-scores-multiplying",
    "004",
    says="the mask step scales the scores by multiplying by d_k",
    measure="factor that Eq. 1 of the paper applies, for d_k = 64",
    claimed=64.0,
    rule=equal(),
    verdict=PENDING,
)

# home: ch02
computed(
    "004-v-has-shape-t-x",
    "004",
    says="A V has shape T x d, d = d_model",
    measure="per head, width of A V",
    claimed=AT_CALL,
    rule=equal(),
    verdict=PENDING,
)

# home: ch02
computed(
    "004-w-q-d-model-x",
    "004",
    says="W_Q is d_model x d_k and Q is T x d_k, with d_k = d_model / h",
    measure="base model",
    claimed=(512, 64),
    rule=equal(),
    verdict=PENDING,
)

# home: ch04
computed(
    "004-heads-differ-because-their-initial",
    "004",
    says="heads differ because their initial weights differ; tested: two heads started equal get equal gradients",
    measure="relative difference below 1e-12",
    rule=holds(),
    verdict=PENDING,
)

# home: ch04
computed(
    "004-d-k-d-v-d",
    "004",
    says="d_k = d_v = d_model / head",
    measure="FIXME",
    claimed=64,
    rule=equal(),
    verdict=PENDING,
)

# home: ch05
computed(
    "004-decoder-s-first-input-i",
    "004",
    says="the decoder's first input is 'I', the first target word",
    measure="FIXME",
    claimed="I",
    rule=equal(),
    verdict=PENDING,
)

# home: ch05
computed(
    "004-scores-scaled-multiplying-d-k",
    "004",
    says="the scores are scaled by multiplying by d_k: the factor for d_k = 64",
    measure="paper Eq. 1: 1/sqrt(d_k)",
    claimed=64,
    rule=equal(),
    verdict=PENDING,
)

# home: ch06
computed(
    "004-3-5-chose-fixed-sinusoids",
    "004",
    says="§3.5 chose fixed sinusoids so that positions are distinct and no order is learned: the paper's stated reasons",
    measure="typed from §3.5",
    claimed=('distinct positions',),
    rule=equal(),
    verdict=PENDING,
)

# home: ch06
computed(
    "004-i-runs-1-768-d",
    "004",
    says="i runs from 1 to 768 for d_model = 768: the range of the pair index i",
    measure="FIXME",
    claimed=(1, 768),
    rule=equal(),
    verdict=PENDING,
)

# home: ch06
stated(
    "004-first-token-has-pos-1",
    "004",
    says="the first token has pos = 1",
    reason="the paper does not say where positions start; the library and the reference implementation start at 0, and the relative-position property holds either way",
    verdict=NOT_DERIVABLE,
)

# home: ch09
computed(
    "004-37000-x-512-matrix-holds",
    "004",
    says="the 37000 x 512 matrix holds 37000 words",
    measure="FIXME",
    claimed="words",
    rule=equal(),
    verdict=PENDING,
)

# home: ch09
computed(
    "004-embedding-matrix-pre-trained",
    "004",
    says="the embedding matrix is pre-trained",
    measure="FIXME",
    claimed="pre-trained",
    rule=equal(),
    verdict=PENDING,
)

# home: ch10
computed(
    "004-paper-s-sub-word-vocabulary",
    "004",
    says="with the paper's sub-word vocabulary, missing words map to UNK",
    measure="computed: 'lowest' segmented",
    claimed=True,
    rule=equal(),
    verdict=PENDING,
)

# home: ch10
computed(
    "004-embedding-matrix-pre-trained-2",
    "004",
    says="the embedding matrix is pre-trained",
    measure="FIXME",
    claimed="pre-trained",
    rule=equal(),
    verdict=PENDING,
)

# home: ch10
computed(
    "004-37000-x-512-matrix-holds-2",
    "004",
    says="the 37000 x 512 matrix holds 37000 words",
    measure="FIXME",
    claimed="words",
    rule=equal(),
    verdict=PENDING,
)

# home: ch15
stated(
    "004-japanese-bert-s-matrix-32000",
    "004",
    says="the Japanese BERT's matrix is 32000 x 768",
    claimed=AT_CALL,
    reason="no source given; the size matches Tohoku University's BERT-base (V = 32000, width 768)",
    verdict=UNSOURCED,
)

# home: ch15
computed(
    "004-original-model-s-word-matrix",
    "004",
    says="the original model's word matrix is 37000 x 512",
    measure="paper §5.1 vocabulary, Table 3 d_model",
    claimed=AT_CALL,
    rule=equal(),
    verdict=PENDING,
)

# home: errata
stated(
    "004-heads-init",
    "004 multi-head",
    says="heads differ because they start from different random numbers; many models use Xavier or He",
    reason="different starts are necessary, not sufficient; the paper does not state its initialisation",
    verdict=UNSOURCED,
)

# home: errata
computed(
    "004-first-input",
    "004 decoder",
    says="the decoder first reads 'I'",
    measure="first input of a shifted target",
    claimed="I",
    rule=equal(),
    verdict=PENDING,
)

# home: errata
computed(
    "004-decoder-difference",
    "004 decoder",
    says="the decoder differs only by the mask",
    measure="sub-layers of a decoder layer and of an encoder layer",
    claimed=AT_CALL,
    rule=equal(),
    verdict=PENDING,
)

# home: errata
computed(
    "004-multiply-dk",
    "004 decoder",
    says="scores are multiplied by d_k",
    measure="factor between the two, d_k = 64: d_k * sqrt(d_k)",
    claimed=1,
    rule=close(abs=0.01),
    why="",
    verdict=PENDING,
)

# home: errata
computed(
    "004-citations",
    "004 attention",
    says="the paper's ablations compare score functions",
    measure="Table 3 rows that vary the score function",
    claimed=1,
    rule=at_least(1),
    why="",
    verdict=PENDING,
)

# home: errata
computed(
    "004-positional-indices",
    "004 positions",
    says="i runs from 1 to 768 for d_model = 768",
    measure="number of frequency indices i",
    claimed=768,
    rule=equal(),
    verdict=PENDING,
)

# home: errata
stated(
    "004-embeddings",
    "004 embeddings",
    says="the embedding matrix comes from pre-training and its 37 000 rows are words",
    reason="the paper learns embeddings with the model (§3.4) over 37 000 shared byte-pair tokens (§5.1)",
    verdict=UNSOURCED,
)

# home: errata
stated(
    "004-fixed-width",
    "004 embeddings",
    says="fixed-width vectors make the computation parallel",
    reason="recurrent networks use fixed-width vectors too; parallelism comes from O(1) sequential operations per layer (paper §4, Table 1)",
    verdict=UNSOURCED,
)
