"""Document 000's claims, sections 1 to 4 (see :mod:`book_support.ledger` for what a record states)."""

from book_support.claims import AGREES, AGREES_BY_CONSTRUCTION, ASSUMED, CONTRADICTED, INHERITED, NOT_DERIVABLE, SUPPORTED, UNSOURCED, WRONG
from book_support.claims import at_least, at_most, between, close, equal, holds, rounds_to
from book_support.ledger import AT_CALL, PENDING, absent, cited, computed, stated
from book_support.worked_examples.audit import PRINTED_DIGITS


# home: ch01
stated(
    "000-transformer-has-fewer-parameters-lstm",
    "000 §1.3",
    says="the Transformer has fewer parameters than an LSTM",
    reason="FIXME \"names no LSTM system; at width 512 a self-attention sub-layer has \"\n        f\"{attention_sublayer / lstm_layer:.2f} x an LSTM layer's parameters, an encoder layer \"\n        f\"{encoder_layer / lstm_layer:.2f} x\"",
    verdict=UNSOURCED,
)


# home: ch01
stated(
    "000-transformer-trains-more-10-times",
    "000 §1.3",
    says="the Transformer trains more than 10 times faster than an LSTM",
    reason="no measurement or citation; the paper compares training cost in FLOPs (Table 2), not a speed-up over an LSTM",
    verdict=UNSOURCED,
)


# home: ch01
computed(
    "000-self-attention-path-length-o",
    "000 §1.3",
    says="self-attention: path length O(1)",
    measure="distinct path lengths for T = 8 ... 64",
    claimed=1,
    rule=equal(),
    verdict=PENDING,
)


# home: ch01
computed(
    "000-bytenet-1024-positions-dilated-kernels",
    "000 §1.2.3",
    says="ByteNet: 1024 positions with dilated kernels of width 2 need 10 layers",
    measure="FIXME",
    claimed=10,
    rule=equal(),
    verdict=PENDING,
)


# home: ch01
computed(
    "000-positions-1-100-need-100",
    "000 §1.2.3",
    says="positions 1 and 100 need 100 contiguous convolution layers",
    measure="layers for kernel width 3",
    claimed=100,
    rule=equal(),
    verdict=PENDING,
)


# home: ch01
stated(
    "000-gru-does-slightly-worse-lstm",
    "000 §1.2.2",
    says="a GRU does slightly worse than an LSTM on long tasks such as translation",
    reason="no experiment or citation; Britz et al. (2017) found LSTMs better in translation, Chung et al. (2014) comparable on music and speech",
    verdict=UNSOURCED,
)


# home: ch01
computed(
    "000-gru-has-1-2-parameters",
    "000 §1.2.2",
    says="a GRU has 1/2 the parameters of an LSTM",
    measure="FIXME",
    claimed=0.5,
    rule=equal(),
    verdict=PENDING,
)


# home: ch01
computed(
    "000-lstm-has-4-times-parameters",
    "000 §1.2.2",
    says="an LSTM has 4 times the parameters of a plain RNN",
    measure="FIXME",
    claimed=4,
    rule=equal(),
    verdict=PENDING,
)


# home: ch01
computed(
    "000-along-cell-state-gradient-meets",
    "000 §1.2.2",
    says="along the cell state the gradient meets no matrix product: dc_t/dc_(t-1) = f_t",
    measure="sympy",
    rule=holds(),
    verdict=PENDING,
)


# home: ch01
computed(
    "000-t-512-takes-512-times",
    "000 §1.2.1",
    says="T = 512 takes 512 times the steps of T = 1",
    measure="cell calls, one after another; time not measured",
    claimed=512,
    rule=equal(),
    verdict=PENDING,
)


# home: ch01
computed(
    "000-w-h-1-gradient-tends",
    "000 §1.2.1",
    says="||W_h|| > 1: the gradient tends to infinity",
    measure="fraction left after 50 steps at rho = 1.2",
    rule=at_least(1),
    why="",
    verdict=PENDING,
)


# home: ch01
computed(
    "000-w-h-1-gradient-vanishes",
    "000 §1.2.1",
    says="||W_h|| < 1: the gradient vanishes",
    measure="fraction left after 50 steps at rho = 0.9, at most rho^50",
    rule=at_most(0.9**50),
    why="",
    verdict=PENDING,
)


# home: ch01
computed(
    "000-dh-t-dh-t-1",
    "000 §1.2.1",
    says="dh_t/dh_(t-1) = W_h^T diag(1 - tanh^2(...)), read as the factor that multiplies the gradient going back",
    measure="the transposed Jacobian; sympy, rnn_state_jacobian",
    rule=holds(),
    verdict=PENDING,
)


# home: ch01
computed(
    "000-0-9-100-about-2",
    "000 §1.2.1",
    says="0.9^100 is about 2.65e-5",
    measure="FIXME",
    claimed=2.65e-05,
    rule=close(rel=0.005),
    why="",
    verdict=PENDING,
)


# home: ch02
computed(
    "000-transformer-s-d-k-512",
    "000 §2.2.3",
    says="the Transformer's d_k is 512",
    measure="FIXME",
    claimed=512,
    rule=equal(),
    verdict=PENDING,
)


# home: ch02
stated(
    "000-dot-products-suit-d-k",
    "000 §2.2.3",
    says="dot products suit d_k <= 512, additive attention larger d_k",
    reason="no source for the threshold; the paper (§3.2.1) says additive attention beats the dot product *without scaling* for large d_k, which is why it scales",
    verdict=UNSOURCED,
)


# home: ch02
computed(
    "000-additive-attention-needs-more-space",
    "000 §2.2.3",
    says="additive attention needs more space because it stores W_a and b_a",
    measure="its weights, as a fraction of its hidden activations in one forward pass",
    rule=at_least(1),
    why="",
    verdict=PENDING,
)


# home: ch02
computed(
    "000-dot-product-attention-computes-faster",
    "000 §2.2.3",
    says="dot-product attention computes faster",
    measure="additive takes more than 5 x its CPU time here",
    rule=holds(),
    verdict=PENDING,
)


# home: ch02
computed(
    "000-additive-dot-product-attention-cost",
    "000 §2.2.3",
    says="additive and dot-product attention cost the same order, O(L_q L_k d_k)",
    measure="matrix-product FLOP ratio, additive / dot",
    rule=between(0.5, 2),
    why="",
    verdict=PENDING,
)


# home: ch02
computed(
    "000-additive-softmax-w-q-k",
    "000 §2.2.3",
    says="additive = softmax((W_a[Q;K] + b_a)/d_k) V lets the weights depend on the query",
    measure="weights of three queries under the only scalar reading differ",
    rule=holds(),
    verdict=PENDING,
)


# home: ch02
computed(
    "000-qk-t-l-q-x",
    "000 §2.2.1",
    says="QK^T is L_q x L_k and the output L_q x d_v",
    measure="shapes of the cross-attention example",
    claimed=AT_CALL,
    rule=equal(),
    verdict=PENDING,
)


# home: ch02
computed(
    "000-example-weights-0-6-0",
    "000 §2.1",
    says="the example weights [0.6, 0.1, 0.2, 0.1] sum to 1",
    measure="FIXME",
    claimed=1.0,
    rule=close(abs=1e-12),
    why="",
    verdict=PENDING,
)


# home: ch03
computed(
    "000-initialisation-such-xavier-usually-gives",
    "000 §2.2.2",
    says="initialisation such as Xavier usually gives q and k unit variance",
    measure="layouts of the table above that do, of 3",
    rule=at_least(2),
    why="",
    verdict=PENDING,
)


# home: ch03
computed(
    "000-scaled-scores-lie-about-2",
    "000 §2.2.2",
    says="scaled scores lie in about [-2, 2]",
    measure="probability of |s| <= 2 for unit variance",
    rule=at_least(0.9),
    why="",
    verdict=PENDING,
)


# home: ch03
computed(
    "000-d-k-512-unscaled-scores",
    "000 §2.2.2",
    says="at d_k = 512 unscaled scores may reach [-100, 100]",
    measure="typical largest of 64 scores, Monte Carlo; rule: the right order of magnitude, within a factor 2",
    claimed=100,
    rule=close(rel=0.5),
    why="",
    verdict=PENDING,
)


# home: ch03
computed(
    "000-d-k-512-transformer-base",
    "000 §2.2.2",
    says="d_k = 512, as in the Transformer",
    measure="the base model's d_k = d_model / h",
    claimed=512,
    rule=equal(),
    verdict=PENDING,
)


# home: ch03
computed(
    "000-e-100-about-3-72",
    "000 §2.2.2",
    says="e^-100 is about 3.72 x 10^-44",
    measure="mantissa",
    claimed=3.72,
    rule=close(rel=0.005),
    why="",
    verdict=PENDING,
)


# home: ch03
computed(
    "000-e-100-about-2-68",
    "000 §2.2.2",
    says="e^100 is about 2.68 x 10^43",
    measure="mantissa",
    claimed=2.68,
    rule=close(rel=0.005),
    why="",
    verdict=PENDING,
)


# home: ch04
computed(
    "000-dl-dw-i-q-x",
    "000 §4.2.3",
    says="dL/dW_i^Q = (...) X^T: relative error against autograd",
    measure="square case",
    claimed=0.0,
    rule=close(abs=1e-9),
    why="",
    verdict=PENDING,
)


# home: ch04
computed(
    "000-d-head-dq-uses-k",
    "000 §4.2.3",
    says="d head / dQ uses K^T: relative error against autograd",
    measure="square case",
    claimed=0.0,
    rule=close(abs=1e-9),
    why="",
    verdict=PENDING,
)


# home: ch04
computed(
    "000-softmax-jacobian-diag-s-s",
    "000 §4.2.3",
    says="one softmax Jacobian diag(s) - s s^T for the score matrix; Jacobians needed for T = FIXME{T} query rows",
    measure="FIXME",
    claimed=1,
    rule=equal(),
    verdict=PENDING,
)


# home: ch04
computed(
    "000-dl-d-head-i-head",
    "000 §4.2.3",
    says="dL/d head_i is head i's block of dL/dY (W^O)^T",
    measure="autograd, float64",
    rule=holds(),
    verdict=PENDING,
)


# home: ch04
computed(
    "000-head-cannot-replace-several-tested",
    "000 §4.2.2",
    says="one head cannot replace several; tested here: one head followed by an FFN fails the two-offset task",
    measure="worst output < 0.9 in some seed",
    rule=holds(),
    verdict=PENDING,
)


# home: ch04
computed(
    "000-paper-s-figures-show-heads",
    "000 §4.2.2",
    says="the paper's figures show heads for red->apple, he->John, eat->apple, because->so: how many of the four appear in its Figures 3-5",
    measure="typed from the paper",
    claimed=4,
    rule=equal(),
    verdict=PENDING,
)


# home: ch04
computed(
    "000-h-heads-width-d-model",
    "000 §4.2.2",
    says="h heads of width d_model/h cost what one full-width head costs",
    measure="matrix-product FLOPs, h = 1 vs 64",
    rule=holds(),
    verdict=PENDING,
)


# home: ch04
computed(
    "000-w-i-q-512-x",
    "000 §4.2.1",
    says="W_i^Q is 512 x 64; the concatenation is 512 wide",
    measure="FIXME",
    claimed=((512, 64), 512),
    rule=equal(),
    verdict=PENDING,
)


# home: ch04
computed(
    "000-base-model-d-k-d",
    "000 §4.2.1",
    says="base model: d_k = d_v = d_model / h = 64",
    measure="FIXME",
    claimed=64,
    rule=equal(),
    verdict=PENDING,
)


# home: ch07
computed(
    "000-whole-model-source-s-words",
    "000 §3.3",
    says="... and for the whole model",
    measure="the source's words: the model's parameters",
    claimed=4,
    rule=close(rel=0.01),
    why="",
    verdict=PENDING,
)


# home: ch07
computed(
    "000-1024-dimensional-model-has-4x",
    "000 §3.3",
    says="a 1024-dimensional model has 4x the parameters of a 512-dimensional one: per layer",
    measure="FIXME",
    claimed=4,
    rule=close(rel=0.01),
    why="",
    verdict=PENDING,
)


# home: ch08
computed(
    "000-variance-1",
    "000 §3.2.1",
    says="... and variance 1",
    measure="FIXME",
    claimed=1.0,
    rule=close(abs=1e-3),
    why="",
    verdict=PENDING,
)


# home: ch08
computed(
    "000-layernorm-s-output-has-mean",
    "000 §3.2.1",
    says="LayerNorm's output has mean 0",
    measure="FIXME",
    claimed=0.0,
    rule=close(abs=1e-4),
    why="",
    verdict=PENDING,
)


# home: ch09
computed(
    "000-1024-dimensions-overfit-1024-wide",
    "000 §3.3",
    says="1024 dimensions overfit: the 1024-wide variant does worse than the 512-wide base",
    measure="computed: its dev BLEU minus the base's, paper Table 3 rows (C) and base: 26.0 - 25.8",
    rule=at_most(0.0),
    why="",
    verdict=PENDING,
)


# home: ch09
computed(
    "000-256-512-projection-adds-131072",
    "000 §3.3",
    says="a 256 -> 512 projection adds 131072 parameters",
    measure="FIXME",
    claimed=131072,
    rule=equal(),
    verdict=PENDING,
)


# home: ch09
computed(
    "000-1024-wide-model-has-4",
    "000 §3.3",
    says="a 1024-wide model has 4 times the parameters of the 512-wide one",
    measure="FIXME",
    claimed=4,
    rule=close(rel=0.05),
    why="",
    verdict=PENDING,
)


# home: ch11
computed(
    "000-encoder-decoder-attention-aligns-output",
    "000 §3.2.2",
    says="encoder-decoder attention aligns the output with the input",
    measure="computed: lowest share over three seeds of output digits whose most-attended source token in decoder layer 2 is in their field",
    rule=at_least(0.8),
    why="",
    verdict=PENDING,
)


# home: ch11
computed(
    "000-decoder-writes-output-auto-regressively",
    "000 §3.1",
    says="the decoder writes the output auto-regressively from the encoder's output and the tokens written so far",
    measure="computed: greedy_decode equals a loop that feeds each chosen token back, seed 0, 500 dates",
    rule=holds(),
    verdict=PENDING,
)


# home: ch14
computed(
    "000-1024-wide-model-has-4-2",
    "000 §3.3",
    says="a 1024-wide model has 4 x the parameters of a 512-wide one",
    measure="FIXME",
    claimed=4.0,
    rule=close(rel=0.05),
    why="",
    verdict=PENDING,
)


# home: errata
computed(
    "000-mha-backward",
    "000 §4.2.3",
    says="dL/dW_Q = (...) Q^T has the shape of W_Q",
    measure="T = 3, D = 4, d_k = 2",
    claimed=AT_CALL,
    rule=equal(),
    verdict=PENDING,
)


# home: errata
computed(
    "000-one-head",
    "000 §4.2.2",
    says="one head does worse than eight",
    measure="BLEU lost, paper Table 3 row A",
    claimed=True,
    rule=at_least(0.0),
    why="",
    verdict=PENDING,
)


# home: errata
computed(
    "000-head-figures",
    "000 §4.2.2",
    says="the paper's figures show the four head roles",
    measure="how many of the four appear in the paper's Figures 3-5",
    claimed=4,
    rule=equal(),
    verdict=PENDING,
)


# home: errata
computed(
    "000-model-width",
    "000 §3.3",
    says="a 1024-wide model has four times the parameters",
    measure="big / base",
    claimed=4,
    rule=close(rel=0.1),
    why="",
    verdict=PENDING,
)


# home: errata
computed(
    "000-additive-table",
    "000 §2.2.3",
    says="additive attention's extra space is its weights W_a, b_a",
    measure="hidden activations / weights, d_k = 64, n = 256",
    claimed=1,
    rule=at_most(1),
    why="",
    verdict=PENDING,
)


# home: errata
computed(
    "000-additive-formula",
    "000 §2.2.3",
    says="the printed formula (linear in [Q; K]) lets two queries weight the keys differently",
    measure="FIXME",
    claimed=True,
    rule=holds(),
    verdict=PENDING,
)


# home: errata
computed(
    "000-xavier",
    "000 §2.2.2",
    says="Xavier init gives unit-variance queries",
    measure="512 -> 64 projection",
    claimed=1.0,
    rule=close(abs=0.05),
    why="",
    verdict=PENDING,
)


# home: errata
computed(
    "000-score-range",
    "000 §2.2.2",
    says="unscaled scores reach about +-100 at d_k = 512",
    measure="median largest of 64",
    claimed=100,
    rule=close(rel=0.25),
    why="",
    verdict=PENDING,
)


# home: errata
computed(
    "000-dk-512",
    "000 §2.2.2",
    says="the Transformer's d_k is 512",
    measure="TransformerConfig.base().d_head",
    claimed=512,
    rule=equal(),
    verdict=PENDING,
)


# home: errata
stated(
    "000-speed-params",
    "000 abstract, §1.3",
    says="more than 10x faster than an LSTM, fewer parameters",
    reason="no source; the paper compares neither speed nor parameter count with an LSTM (its Table 2 gives BLEU and training FLOPs of published systems)",
    verdict=UNSOURCED,
)


# home: errata
computed(
    "000-convs2s-layers",
    "000 §1.2.3",
    says="100 layers connect positions 1 and 100",
    measure="kernel 3",
    claimed=100,
    rule=equal(),
    verdict=PENDING,
)


# home: errata
computed(
    "000-lstm-cell",
    "000 §1.2.2",
    says="the cell state passes the gradient back directly",
    measure="largest dc_100/dc_0 over 16 units, default init",
    claimed=1.0,
    rule=close(rel=0.5),
    why="",
    verdict=PENDING,
)


# home: errata
computed(
    "000-gru-params",
    "000 §1.2.2",
    says="a GRU has half an LSTM's parameters",
    measure="ratio at width 512",
    claimed=0.5,
    rule=close(abs=0.01),
    why="",
    verdict=PENDING,
)


# home: errata
computed(
    "000-rnn-explode",
    "000 §1.2.1",
    says="|W_h| > 1 makes the gradient explode",
    measure="|dh_100/dh_0|, w = 1.2",
    claimed="explodes",
    rule=at_least(1),
    why="",
    verdict=PENDING,
)
