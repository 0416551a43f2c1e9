"""Document 003's claims (see :mod:`book_support.ledger` for what a record states).

Document 003 ("the eight steps of training") works one toy example, "I am" -> "我 是" at d_model = 4, from
the embeddings to one weight update. Its records follow the document's order. The worked example's printed
numbers are also checked one by one in chapter 12 (:mod:`book_support.worked_examples`); where a record here
judges the same printed number, it gives the same verdict (the K path is *inherited* from the assumed
gradient, the gradient reaching the encoder is *not derivable*).

Pages: ch05 (step 3.2), ch06 (step 1.1), ch10 (steps 3-4, final step, steps 5 to 8), the errata appendix.
"""

from book_support.claims import AGREES, ASSUMED, INHERITED, NOT_DERIVABLE, SUPPORTED, WRONG, close, equal, holds, rounds_to
from book_support.ledger import cited, computed, stated
from book_support.worked_examples.audit import PRINTED_DIGITS

_PRINTED_WHY = "a printed number agrees when it is the computed value to its printed digits (chapter 12's rule)"

# --- step 1: the first encoder layer ------------------------------------------------------------

# home: errata; also ch06
stated(
    "003-positions",
    "003 step 1.1",
    says=(
        "In the highly simplified model and task it sets up to show the computation, it adds the vectors"
        " [0.1, 0.2, 0.3, 0.4] and [0.5, 0.6, 0.7, 0.8] to the embeddings of 'I' and 'am' as the positional"
        " encodings of positions 0 and 1; like the embeddings, they are given without saying how they were"
        " obtained"
    ),
    true_if=(
        "they are inputs chosen for the simplified example, like its embeddings and its first layer's"
        " weights; as the paper's sinusoidal encodings for d_model = 4 they would be wrong"
    ),
    reason=(
        "the document opens by setting up a highly simplified model and task (一个高度简化的模型和任务) and"
        " gives these vectors as inputs of that example, as it gives the embeddings [1, 2, 3, 4] and"
        " [5, 6, 7, 8] and the weights it calls random; it does not present them as the paper's"
        " sinusoidal encodings (§3.5), which they are not, and a learned position table, the paper's"
        " alternative (§3.5, Table 3 row (E)), could hold them (chapter 12 loads them into one, with"
        " the embeddings, as given values)"
    ),
    verdict=ASSUMED,
)

# home: errata
computed(
    "003-coincidence",
    "003 step 1.3",
    says=(
        "The residual sums z_1' and z_2' differ, but their deviations from their own means are the same,"
        " so the two normalised vectors come out identical; it calls this a coincidence"
    ),
    measure=(
        "on the library model loaded with the document's numbers: z_1' differs from z_2', their deviations"
        " from the mean are equal, and LayerNorm maps both to one vector"
    ),
    true_if=(
        "the two sums differ by the same amount in every coordinate, which LayerNorm removes (both tokens"
        " get the attention output v_2, and their inputs differ by a constant vector)"
    ),
    claimed=True,
    rule=holds(),
    verdict=AGREES,
)

# home: errata
stated(
    "003-missing-weights",
    "003 steps 1.4-8",
    says=(
        "From the FFN on it prints the numbers of every later step (the FFN, the second encoder layer,"
        " both decoder layers, the output layer, the losses and the gradients), computed with weights it"
        " does not give (it calls those of the later layers new)"
    ),
    reason=(
        "of the weights it gives only W_Q, W_K, W_V, gamma_1 and beta_1 of the first encoder layer (with"
        " the embeddings and positions), so these numbers cannot be reproduced; chapter 12 checks those"
        " that can be checked against each other"
    ),
    verdict=NOT_DERIVABLE,
)

# --- step 3.2: the decoder's masked self-attention ----------------------------------------------

# home: ch05
computed(
    "003-decoder-scores",
    "003 step 3.2",
    says=(
        "From its printed decoder queries and keys, the unmasked raw scores are q_1·k_1 = 13.28,"
        " q_2·k_1 = 64.98 and q_2·k_2 = 257.58 (6.64, 32.49 and 128.79 after the division by 2)"
    ),
    measure="the three scores from the printed q and k, rounded to two decimals",
    claimed=(13.28, 64.98, 257.58),
    rule=equal(),
    verdict=AGREES,
)

# home: errata; also ch05
computed(
    "003-masked-score",
    "003 step 3.2",
    says=(
        "The raw score of the masked entry, q_1·k_2, is about 250 (written '~250'), about 125 after the"
        " division by 2, and is then masked"
    ),
    measure="q_1·k_2 from the printed q_1 and k_2",
    true_if="the printed vectors give a score near 250",
    claimed=250,
    rule=close(rel=0.5),
    why=(
        "'~250' is a round figure, so 'about' is read generously, within half of it; the computed score"
        " is more than four times smaller, so no reading of 'about' changes the verdict"
    ),
    verdict=WRONG,
)

# home: ch05
computed(
    "003-mask-before-scale",
    "003 step 3.2",
    says=(
        "It writes the masked scores as (QK^T + Mask)/sqrt(d_k), adding the mask of minus infinity above"
        " the diagonal before the division by sqrt(d_k)"
    ),
    measure=("the weights with the mask added before the division equal those in the paper's order (scale, then mask; Figure 2)"),
    true_if="minus infinity divided by sqrt(d_k) is minus infinity, so the order does not change the weights",
    claimed=True,
    rule=holds(),
    verdict=AGREES,
)

# home: ch05
computed(
    "003-masked-weights",
    "003 step 3.2",
    says="After the mask, the row-wise softmax gives the weights [[1, 0], [0, 1]]",
    measure="the library's masked attention weights from the printed q and k, row by row",
    claimed="1 0 0 1",
    rule=PRINTED_DIGITS,
    why=_PRINTED_WHY,
    verdict=AGREES,
)

# --- step 3.4: cross-attention ---------------------------------------------------------------

# home: errata
computed(
    "003-cross-scores",
    "003 step 3.4",
    says=(
        "In the first decoder layer's cross-attention both queries, q_1 and q_2, score -0.173 against each"
        " of the two equal encoder keys, so their weights are [0.5, 0.5]"
    ),
    measure="q·k/2 from the printed q_1, q_2 and k (the division by sqrt(d_k) of its steps 1.2 and 3.2)",
    true_if="each printed score is its own query's score; q_1's misses with or without the division by 2",
    claimed="-0.173 -0.173",
    rule=PRINTED_DIGITS,
    why=_PRINTED_WHY,
    verdict=WRONG,
)

# --- steps 3 and 4: teacher forcing -----------------------------------------------------------

# home: errata; also ch10
cited(
    "003-no-end-token",
    "003 steps 3-4",
    says=(
        "In training the decoder is given the whole target sequence at once, shifted right by one"
        " position (teacher forcing): it reads the start token and 我 and is to predict 我 and 是, and the"
        " mask keeps position 0 from seeing position 1"
    ),
    true_if=(
        "the decoder input is the target shifted right behind a start token, and the mask hides later"
        " positions; the document's targets have no end token, and it says nothing about one"
    ),
    cited=(
        "paper §3.1 (Decoder): the output embeddings are offset by one position and the decoder's"
        " self-attention is masked, so that the prediction for position i depends only on the known"
        " outputs before i (§3.2.3: illegal connections set to -inf before the softmax); the document's"
        " input (start token, 我) against its targets (我, 是) is that offset"
    ),
    reading=SUPPORTED,
)

# --- final step: output layer, probabilities, loss ---------------------------------------------

# home: ch10
computed(
    "003-loss-1",
    "003 final step",
    says="The first position's loss is, for example, -log 0.670 = 0.40",
    measure="-log 0.670",
    claimed=0.40,
    rule=rounds_to(2),
    why="the document prints the loss to two decimals",
    verdict=AGREES,
)

# home: ch10
computed(
    "003-loss-2",
    "003 final step",
    says="The second position's loss is, for example, -log 0.70 = 0.36",
    measure="-log 0.70",
    claimed=0.36,
    rule=rounds_to(2),
    why="the document prints the loss to two decimals",
    verdict=AGREES,
)

# home: ch10
computed(
    "003-total-loss",
    "003 final step",
    says="The total loss is the sum of the two positions' losses, 0.40 + 0.36 = 0.76",
    measure="-log 0.670 - log 0.70, a sum over the positions",
    claimed=0.76,
    rule=rounds_to(2),
    why="the document prints the loss to two decimals",
    verdict=AGREES,
)

# home: errata; also ch10
computed(
    "003-probabilities",
    "003 final step",
    says=(
        "At the second position the logits [0.8, ..., 2.1, 4.0, ...] give the probabilities"
        " [0.04, ..., 0.10, 0.70, ...]; judged here: the 0.04"
    ),
    measure=(
        "0.70·e^(0.8 - 4.0), the probability of logit 0.8 when logit 4.0 has 0.70 (a softmax keeps the ratios e^(z_i - z_j))"
    ),
    true_if=(
        "0.04 is consistent with the printed 0.70 and the two logits; even with these at the ends of"
        " their rounding intervals the value stays below 0.032"
    ),
    claimed="0.04",
    rule=PRINTED_DIGITS,
    why=_PRINTED_WHY,
    verdict=WRONG,
)

# --- steps 5 to 8: the backward pass ----------------------------------------------------------

# home: errata; also ch10
computed(
    "003-accumulation",
    "003 steps 5-8",
    says=(
        "Backpropagation starts from the total loss; where the gradients from Loss_1 and Loss_2 meet a"
        " weight both positions share (W_final, W_Q of the first decoder layer) they are added,"
        " dL_total/dW = dL_1/dW + dL_2/dW, so that both positions update the one weight; it names this"
        " gradient accumulation (梯度累加)"
    ),
    measure="autograd's gradient of the summed loss against the sum of the positions' gradients, for shared weights",
    true_if=(
        "the gradient of a sum of losses is the sum of their gradients (the chain rule); the name"
        " describes that adding, as PyTorch's backward, which accumulates into .grad, does"
    ),
    claimed=True,
    rule=holds(),
    verdict=AGREES,
)

# home: ch10
computed(
    "003-value-grad",
    "003 steps 5-6",
    says=(
        "With its assumed gradient [0.2, 0.1, -0.3, 0.1] at the cross-attention output, the V path gives"
        " dL/dV = A^T·dL/dz, rows [0.1, 0.05, -0.15, 0.05] for both values"
    ),
    measure=(
        "autograd through tl.attend from the printed q_1, k and v with that assumed gradient: the first row, to four decimals"
    ),
    claimed=[0.1, 0.05, -0.15, 0.05],
    rule=equal(),
    verdict=AGREES,
)

# home: ch10
computed(
    "003-attention-weight-grad",
    "003 steps 5-6",
    says="The A path gives dL/dA = dL/dz·V^T = [0.6154, 0.6154]",
    measure="autograd's gradient of the attention weights, to four decimals",
    claimed=[0.6154, 0.6154],
    rule=equal(),
    verdict=AGREES,
)

# home: errata; also ch10
stated(
    "003-assumed-gradient",
    "003 steps 5-6",
    says=(
        "So that the computation does not stop at the softmax, as it says happened before, it assumes a"
        " non-zero gradient into the Q, K and V paths: dL/dScores = [0.1, -0.1], marked as an assumed"
        " value, like the gradient [0.2, 0.1, -0.3, 0.1] entering the attention output"
    ),
    claimed=[0.1, -0.1],
    reason=(
        "the document states the assumption (我们假设一个非零梯度) and marks the value assumed (假设值);"
        " the exact value in this model is computed on the page"
    ),
    verdict=ASSUMED,
)

# home: ch10
computed(
    "003-query-grad",
    "003 steps 5-6",
    says="The Q path gives dL/dQ = 0: because k_1 = k_2 the gradient cancels again",
    measure="autograd's gradient of q_1, to four decimals",
    true_if="with two equal keys the query's gradient is (g_1 + g_2)·k, and a softmax's score gradients sum to 0",
    claimed=[0.0, 0.0, 0.0, 0.0],
    rule=equal(),
    verdict=AGREES,
)

# home: errata; also ch10
computed(
    "003-key-path",
    "003 steps 5-6",
    says=(
        "Tracing the gradient of Loss_1, the first position, through the first decoder layer's"
        " cross-attention, it gets from its assumed score gradient [0.1, -0.1], divided by 2, the K path"
        " dL/dK with rows ±[0.082, -0.079, 0.082, -0.079]"
    ),
    measure=(
        "autograd's dL/dK for the first query q_1 of step 3.4; the value the document's own assumed score"
        " gradient gives, ±0.05·q_1, is shown in the note"
    ),
    true_if=(
        "the printed rows are ±0.05·q_1, the K path of the first query computed from the assumed score"
        " gradient: inherited, since the exact score gradient, and so dL/dK, is 0"
    ),
    claimed="0.082 -0.079 0.082 -0.079 -0.082 0.079 -0.082 0.079",
    rule=PRINTED_DIGITS,
    why=_PRINTED_WHY,
    verdict=INHERITED,
)

# home: errata; also ch10
computed(
    "003-gradient-label",
    "003 steps 5-6",
    says=(
        "In the same trace it names the gradient entering the cross-attention output dL/dz_2 and writes"
        " z_2 = A_cross·V; step 3.2 has already named z_2 the second position's masked self-attention"
        " output, [9.9, 9.0, 11.7, 7.2]"
    ),
    measure=(
        "A_cross·V for the first query, from the printed q_1 and the encoder's keys and values of"
        " step 3.4, against the document's z_2"
    ),
    true_if=(
        "the vector the document calls z_2 is the cross-attention output A_cross·V; step 3.4 calls the"
        " first query's output z_3 (and the second's z_4), both equal to v_1"
    ),
    claimed="9.9 9.0 11.7 7.2",
    rule=PRINTED_DIGITS,
    why=_PRINTED_WHY,
    verdict=WRONG,
)

# home: ch10
stated(
    "003-encoder-gradient",
    "003 step 7",
    says=(
        "The gradients reaching the encoder from the V path (dL/dV·W_V^T) and from the K path"
        " (dL/dK·W_K^T) add up to the total, first row [-0.097, 0.153, 0.032, 0.103]"
    ),
    claimed=[-0.097, 0.153, 0.032, 0.103],
    reason=(
        "the two parts need the cross-attention's W_V and W_K, which the document does not give; its K"
        " part rests on the assumed score gradient and is exactly 0 in this model (chapter 12)"
    ),
    verdict=NOT_DERIVABLE,
)

# home: ch10
computed(
    "003-wv-gradient",
    "003 weight update",
    says="Through the V path, the gradient of the cross-attention weight W_V[0, 0] is -0.2056",
    measure="dL/dW_V = (encoder output)^T·dL/dV, from the printed encoder output and autograd's dL/dV",
    claimed=-0.2056,
    rule=rounds_to(4),
    why="the document prints the gradient to four decimals",
    verdict=AGREES,
)

# home: ch10
computed(
    "003-sgd-update",
    "003 weight update",
    says=("With learning rate 0.01, plain gradient descent moves W_V[0, 0] from 0 to 0 - 0.01 × (-0.2056) = 0.002056"),
    measure="-0.01 × the computed gradient, in units of 1e-3",
    claimed=2.056,
    rule=rounds_to(3),
    why="the document prints 0.002056, three decimals in units of 1e-3",
    verdict=AGREES,
)
