"""Document 003's claims (see :mod:`book_support.ledger` for what a record states)."""

from book_support.claims import AGREES, AGREES_BY_CONSTRUCTION, ASSUMED, CONTRADICTED, INHERITED, NOT_DERIVABLE, SUPPORTED, UNSOURCED, WRONG
from book_support.claims import at_least, at_most, between, close, equal, holds, rounds_to
from book_support.ledger import AT_CALL, PENDING, absent, cited, computed, stated
from book_support.worked_examples.audit import PRINTED_DIGITS


# home: ch05
computed(
    "003-masked-weights-1-0-0",
    "003 step 3",
    says="masked weights [[1, 0], [0, 1]]: largest difference",
    measure="FIXME",
    claimed=0.0,
    rule=close(abs=1e-12),
    why="",
    verdict=PENDING,
)

# home: ch05
computed(
    "003-scores-qk-t-mask-sqrt",
    "003 step 3",
    says="Scores = (QK^T + Mask) / sqrt(d_k) gives the weights of masking after the scale",
    measure="FIXME",
    rule=holds(),
    verdict=PENDING,
)

# home: ch05
computed(
    "003-masked-score-q1-k2-about",
    "003 step 3",
    says="the masked score q1.k2 is about 250",
    measure="FIXME",
    claimed=250,
    rule=close(rel=0.1),
    why="",
    verdict=PENDING,
)

# home: ch05
computed(
    "003-q1-k1-q2-k1-q2",
    "003 step 3",
    says="q1.k1, q2.k1, q2.k2 from its own vectors",
    measure="FIXME",
    claimed=(13.28, 64.98, 257.58),
    rule=equal(),
    verdict=PENDING,
)

# home: ch06
computed(
    "003-pe-1-0-5-0",
    "003 step 1.1",
    says="PE(1) = [0.5, 0.6, 0.7, 0.8] for d_model = 4: largest difference",
    measure="FIXME",
    claimed=0.0,
    rule=close(abs=0.005),
    why="",
    verdict=PENDING,
)

# home: ch06
computed(
    "003-pe-0-0-1-0",
    "003 step 1.1",
    says="PE(0) = [0.1, 0.2, 0.3, 0.4] for d_model = 4: largest difference",
    measure="FIXME",
    claimed=0.0,
    rule=close(abs=0.005),
    why="",
    verdict=PENDING,
)

# home: ch10
computed(
    "003-positions-gradients-add-up-gradient",
    "003 5-8",
    says="the positions' gradients add up by 'gradient accumulation'",
    measure="computed: the name of what adds them",
    claimed="gradient accumulation",
    rule=equal(),
    verdict=PENDING,
)

# home: ch10
computed(
    "003-update-0-0-01-x",
    "003 8",
    says="update 0 - 0.01 x (-0.2056) = 0.002056",
    measure="plain gradient descent; in units of 1e-3: 2.056",
    claimed=2.056,
    rule=rounds_to(3),
    why="",
    verdict=PENDING,
)

# home: ch10
computed(
    "003-dl-dw-v-0-0",
    "003 8",
    says="dL/dW_V[0,0] = -0.2056",
    measure="FIXME",
    claimed=-0.2056,
    rule=rounds_to(4),
    why="",
    verdict=PENDING,
)

# home: ch10
computed(
    "003-v-k-row-1-0",
    "003 7",
    says="from V + from K, row 1 = [-0.097, 0.153, 0.032, 0.103]",
    measure="FIXME",
    claimed=[-0.097, 0.153, 0.032, 0.103],
    rule=equal(),
    verdict=PENDING,
)

# home: ch10
computed(
    "003-gradient-labelled-dl-dz-2",
    "003 5-6",
    says="the gradient is labelled dL/dz_2 and uses q_1",
    measure="computed: the output q_1 belongs to, step 3.4",
    claimed="z_2",
    rule=equal(),
    verdict=PENDING,
)

# home: ch10
computed(
    "003-dl-dk-rows-0-082",
    "003 5-6",
    says="dL/dK rows +-[0.082, -0.079, ...]",
    measure="computed from 003's assumed score gradient",
    claimed=0.082,
    rule=close(abs=0.0005),
    why="",
    verdict=PENDING,
)

# home: ch10
computed(
    "003-dl-dq-0-keys-equal",
    "003 5-6",
    says="dL/dQ = 0",
    measure="the keys are equal",
    claimed=[0.0, 0.0, 0.0, 0.0],
    rule=equal(),
    verdict=PENDING,
)

# home: ch10
stated(
    "003-dl-dscores-0-1-0",
    "003 5-6",
    says="dL/dscores = [0.1, -0.1]",
    claimed=[0.1, -0.1],
    reason="FIXME \"003 says it assumes a non-zero gradient into the Q/K/V path so that the computation can\"\n        f\" go on; autograd gives {as_list(d_scores[0])} (dL/dA has two equal entries, because the\"\n        \" two values are equal)\"",
    verdict=ASSUMED,
)

# home: ch10
computed(
    "003-dl-da-0-6154-0",
    "003 5-6",
    says="dL/dA = [0.6154, 0.6154]",
    measure="FIXME",
    claimed=[0.6154, 0.6154],
    rule=equal(),
    verdict=PENDING,
)

# home: ch10
computed(
    "003-dl-dv-rows-0-1",
    "003 5-6",
    says="dL/dV rows [0.1, 0.05, -0.15, 0.05]",
    measure="FIXME",
    claimed=[0.1, 0.05, -0.15, 0.05],
    rule=equal(),
    verdict=PENDING,
)

# home: ch10
computed(
    "003-decoder-targets-let-model-learn",
    "003 3",
    says="decoder targets [我, 是] let the model learn when to stop",
    measure="computed: an end token among them",
    claimed=True,
    rule=equal(),
    verdict=PENDING,
)

# home: ch10
computed(
    "003-p-0-04-logit-0",
    "003 final",
    says="p = 0.04 at logit 0.8 when p = 0.70 at logit 4.0",
    measure="computed: the softmax ratio e^(0.8 - 4.0)",
    claimed=0.04,
    rule=close(abs=0.005),
    why="",
    verdict=PENDING,
)

# home: ch10
computed(
    "003-total-loss-0-76-sum",
    "003 final",
    says="total loss 0.76",
    measure="a sum over positions",
    claimed=0.76,
    rule=rounds_to(2),
    why="",
    verdict=PENDING,
)

# home: ch10
computed(
    "003-loss-2-log-0-70",
    "003 final",
    says="Loss_2 = -log 0.70 = 0.36",
    measure="FIXME",
    claimed=0.36,
    rule=rounds_to(2),
    why="",
    verdict=PENDING,
)

# home: ch10
computed(
    "003-loss-1-log-0-670",
    "003 final",
    says="Loss_1 = -log 0.670 = 0.40",
    measure="FIXME",
    claimed=0.4,
    rule=rounds_to(2),
    why="",
    verdict=PENDING,
)

# home: errata
computed(
    "003-gradient-label",
    "003 steps 5-6",
    says="the key-path numbers are 0.05 q_1",
    measure="q_1's output is z_3 in step 3.4; labelled z_2",
    claimed="0.082 -0.079",
    rule=PRINTED_DIGITS,
    why="a printed number agrees when it is the computed value to its printed digits (chapter 12's rule)",
    verdict=PENDING,
)

# home: errata
computed(
    "003-no-end-token",
    "003 steps 3-4",
    says="the targets end with an end token",
    measure="end tokens among the targets",
    claimed=1,
    rule=equal(),
    verdict=PENDING,
)

# home: errata
computed(
    "003-probabilities",
    "003 final step",
    says="probability at logit 0.8, given 0.70 at 4.0",
    measure="the printed numbers, recomputed",
    claimed="0.04",
    rule=PRINTED_DIGITS,
    why="a printed number agrees when it is the computed value to its printed digits (chapter 12's rule)",
    verdict=PENDING,
)

# home: errata
computed(
    "003-accumulation",
    "003 steps 5-8",
    says="the two positions' gradients add up in a shared weight",
    measure="autograd's gradient of the summed loss is the sum",
    claimed=True,
    rule=holds(),
    verdict=PENDING,
)

# home: errata
stated(
    "003-assumed-gradient",
    "003 steps 5-6",
    says="dL/dScores = [0.1, -0.1]",
    claimed="0.1 -0.1",
    reason="'我们假设一个非零梯度' (we assume a non-zero gradient) so that the computation does not end; the exact value is [0, 0]",
    verdict=ASSUMED,
)

# home: errata
computed(
    "003-cross-scores",
    "003 step 3.4",
    says="the scaled cross-attention scores of q_1, q_2",
    measure="the printed numbers, recomputed",
    claimed="-0.173 -0.173",
    rule=PRINTED_DIGITS,
    why="a printed number agrees when it is the computed value to its printed digits (chapter 12's rule)",
    verdict=PENDING,
)

# home: errata
computed(
    "003-masked-score",
    "003 step 3.2",
    says="q_1 . k_2 from the printed vectors",
    measure="printed about 250, scaled 125",
    claimed="250",
    rule=PRINTED_DIGITS,
    why="a printed number agrees when it is the computed value to its printed digits (chapter 12's rule)",
    verdict=PENDING,
)

# home: errata
stated(
    "003-missing-weights",
    "003 steps 1.4-8",
    says="numbers for the FFN, the second encoder layer, the decoder, the loss and the gradients",
    reason="only W_Q, W_K, W_V, gamma_1, beta_1 of the first encoder layer are given",
    verdict=NOT_DERIVABLE,
)

# home: errata
computed(
    "003-coincidence",
    "003 step 1.3",
    says="the two normalised vectors are equal by coincidence",
    measure="LayerNorm(z + c) differs from LayerNorm(z) for the constant shift c between them",
    claimed=True,
    rule=holds(),
    verdict=PENDING,
)

# home: errata
computed(
    "003-positions",
    "003 step 1.1",
    says="position 1 is encoded as [0.5, 0.6, 0.7, 0.8]",
    measure="paper's sinusoid, first entry",
    claimed=0.5,
    rule=close(abs=0.005),
    why="",
    verdict=PENDING,
)
