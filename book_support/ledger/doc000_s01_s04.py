"""Document 000's claims: the abstract and sections 1 to 4 (see :mod:`book_support.ledger` for what a record states).

Each ``says`` paraphrases the document's Chinese text (``../shared/seeds/000_*.txt``) with its hedges; the
section numbers are the document's own. A ``# pages:`` comment names the pages that judge the record.
"""

from book_support.claims import AGREES, CONTRADICTED, SUPPORTED, UNSOURCED, WRONG, at_least, at_most, between, close, equal, holds
from book_support.ledger import AT_CALL, cited, computed, stated

# why for the numbers the document computes itself (§1.2.1, §2.2.2)
_THREE_DIGITS = (
    "'≈' with three significant digits: half a percent accepts the third digit truncated (as the document "
    "truncates) as well as rounded, and nothing further off"
)

# --- §1.2.1: the plain RNN --------------------------------------------------------------------------

# pages: ch01
computed(
    "000-rnn-decay-value",
    "000 §1.2.1",
    says="with T = 100 and ||W_h|| = 0.9 the gradient shrinks to 0.9^100, about 2.65e-5",
    measure="0.9^100",
    claimed=2.65e-05,
    rule=close(rel=0.005),
    why=_THREE_DIGITS,
    verdict=AGREES,
)

# pages: ch01
computed(
    "000-rnn-jacobian",
    "000 §1.2.1",
    says="dh_t/dh_(t-1) = W_h^T diag(1 - tanh^2(W_h h_(t-1) + W_x x_t + b)), read as the factor that "
    "multiplies the gradient going back",
    measure="sympy, rnn_state_jacobian: the transposed Jacobian of the tanh step",
    rule=holds(),
    verdict=AGREES,
)

# pages: ch01
computed(
    "000-rnn-vanish",
    "000 §1.2.1",
    says="if ||W_h^T|| < 1 the gradient tends to 0 after many multiplications (vanishing)",
    measure="fraction of the gradient left after 50 steps back, tanh RNN with all singular values of W_h equal to 0.9",
    true_if="the fraction left is no more than 0.9^50, the bound that 50 factors of norm at most 0.9 give",
    rule=at_most(0.9**50),
    why="tanh' <= 1, so 50 factors of norm at most 0.9 can leave at most 0.9^50: the bound is the one the "
    "claim's own argument gives, not a chosen tolerance",
    verdict=AGREES,
)

# pages: ch01, appendix_errata
computed(
    "000-rnn-explode",
    "000 §1.2.1",
    says="if ||W_h^T|| > 1 the gradient tends to infinity (exploding)",
    measure="fraction of the gradient left after many steps back in a tanh RNN with ||W_h|| = 1.2 "
    "(chapter 1: 50 steps, orthogonal W_h; appendix: one unit, 100 steps)",
    true_if="with a norm above 1 the gradient grows as it goes back: a fraction of at least 1",
    rule=at_least(1),
    why="growth towards infinity must at least keep the gradient's size; a fraction below 1 after 50 or "
    "100 steps is a gradient that shrank",
    verdict=WRONG,
)

# pages: ch01
computed(
    "000-rnn-serial",
    "000 §1.2.1",
    says="the steps must run in order, so one sample of length T = 512 takes 512 times the computing time of T = 1",
    measure="cell calls, one after another, for T = 512; time not measured",
    true_if="the recurrent layer makes 512 dependent cell calls for 512 positions",
    claimed=512,
    rule=equal(),
    verdict=AGREES,
)

# --- §1.2.2: LSTM and GRU ---------------------------------------------------------------------------

# pages: ch01, appendix_errata
computed(
    "000-lstm-cell",
    "000 §1.2.2",
    says="the cell state is updated only by element-wise products and sums, with no matrix product, so the "
    "gradient can flow back along it directly, which greatly relieves vanishing gradients",
    measure="sympy, lstm_cell_state_gradient: dc_t/dc_(t-1) = diag(f_t), no weight matrix",
    true_if="along the cell state the gradient is multiplied by the forget gate only; how much survives "
    "then depends on f_t (the pages' note)",
    rule=holds(),
    verdict=AGREES,
)

# pages: ch01
computed(
    "000-lstm-params",
    "000 §1.2.2",
    says="an LSTM has 4 times the parameters of a plain RNN",
    measure="LSTM / Elman cell parameters at input and hidden width 512",
    claimed=4,
    rule=equal(),
    verdict=AGREES,
)

# pages: ch01, appendix_errata
computed(
    "000-gru-params",
    "000 §1.2.2",
    says="merging the forget and input gates into an update gate cuts a GRU's parameters to half an LSTM's",
    measure="GRU / LSTM cell parameters at input and hidden width 512",
    claimed=0.5,
    rule=equal(),
    verdict=WRONG,
)

# pages: ch01
cited(
    "000-gru-worse",
    "000 §1.2.2",
    says="with its simpler gates a GRU filters information less well and does slightly worse than an LSTM "
    "on complex long-sequence tasks such as machine translation",
    cited="Britz et al. (2017), the comparison of RNN cells on WMT English-German: LSTM cells consistently "
    "outperformed GRU cells; the document gives no source, and its reason (weaker filtering) is not tested "
    "there or here. Chung et al. (2014) found the two comparable on music and speech, not translation",
    reading=SUPPORTED,
)

# --- §1.2.3: convolutional models -------------------------------------------------------------------

# pages: ch01, appendix_errata
computed(
    "000-convs2s-layers",
    "000 §1.2.3",
    says="ConvS2S's plain convolutions need k stacked layers to relate two positions k apart: 100 layers for positions 1 and 100",
    measure="fewest contiguous layers of kernel width 3 (ConvS2S's) that connect positions 1 and 100",
    claimed=100,
    rule=equal(),
    verdict=WRONG,
)

# pages: ch01
computed(
    "000-bytenet-layers",
    "000 §1.2.3",
    says="ByteNet's dilated convolutions still need log_k T layers: 10 layers for T = 1024 and k = 2",
    measure="fewest dilated layers of width 2 (dilations 1, 2, 4, ...) that cover 1024 positions",
    claimed=10,
    rule=equal(),
    verdict=AGREES,
)

# --- §1.3 and the abstract: what the Transformer changed --------------------------------------------

# pages: ch01
computed(
    "000-path-length",
    "000 §1.3",
    says="self-attention relates any two positions with one matrix product: a path length of O(1)",
    measure="distinct longest-path lengths through one self-attention layer for T = 8 ... 64 (1: the same at every length)",
    claimed=1,
    rule=equal(),
    verdict=AGREES,
)

# pages: ch01, ch14 (prose), appendix_errata
cited(
    "000-speed-params",
    "000 abstract, §1.3",
    says="because all positions are computed at once, the Transformer trains more than 10 times as efficiently as an LSTM",
    true_if="published training costs put an LSTM system at more than 10 times the Transformer's",
    cited="paper Table 2 (training FLOPs estimated from time, GPUs and an assumed throughput, §6.1): the "
    "LSTM system GNMT+RL 2.3e19 (EN-DE) and 1.4e20 (EN-FR) against 3.3e18 for the base Transformer, 7x "
    "and 42x: the claim's order, above 10 on EN-FR only; published systems, not a controlled comparison",
    reading=SUPPORTED,
)

# pages: ch01, appendix_errata
stated(
    "000-fewer-parameters",
    "000 §1.3",
    says="without recurrence or convolution the Transformer has fewer parameters than an LSTM",
    true_if="a named Transformer has fewer parameters than a named LSTM system for the same task",
    reason="no source and no systems named; the paper gives no parameter count for an LSTM system, and "
    "per layer at equal width the answer depends on what is counted (the note)",
    verdict=UNSOURCED,
)

# --- §2.1-2.2.1: attention ---------------------------------------------------------------------------

# pages: ch02
computed(
    "000-example-weights",
    "000 §2.1",
    says="for the query 'it' the attention weights might be [0.6, 0.1, 0.2, 0.1], softmax weights that sum to 1",
    measure="the sum of the four example weights",
    claimed=1.0,
    rule=close(abs=1e-12),
    why="four one-decimal numbers that sum to 1 exactly; 1e-12 allows only the rounding of a float sum",
    verdict=AGREES,
)

# pages: ch02
computed(
    "000-score-shapes",
    "000 §2.2.1",
    says="QK^T is L_q x L_k and the attention output L_q x d_v",
    measure="shapes of the cross-attention example",
    claimed=AT_CALL,
    rule=equal(),
    verdict=AGREES,
)

# --- §2.2.2: the scale factor ------------------------------------------------------------------------

# pages: ch03, appendix_errata
computed(
    "000-xavier",
    "000 §2.2.2",
    says="parameter initialisation, such as Xavier initialisation, usually gives the query and key "
    "components the zero mean and unit variance that the variance argument assumes",
    measure="of 3 common query-projection layouts (512 x 512; 512 x 64 per head; fused 512 x 1536), those "
    "whose Xavier-initialised output has variance within 0.1 of 1 for unit-variance inputs",
    true_if="most of the layouts in use give unit-variance queries at initialisation",
    rule=at_least(2),
    why="'usually' asks for most cases: at least 2 of the 3 layouts; 0.1 separates the square layout "
    "(1.0) from the others (about 1.8 and 0.5)",
    verdict=WRONG,
)

# pages: ch03, appendix_errata
computed(
    "000-score-range",
    "000 §2.2.2",
    says="when d_k is large, for example 512, the variance of a score grows to 512 and the unscaled "
    "scores may range over about [-100, 100]",
    measure="median of the largest |score| among 64 scores with variance 512",
    true_if="the scores of a sentence-length row reach the order of 100",
    claimed=100,
    rule=between(50, 200),
    why="'may reach' and 'about' give an order of magnitude, which is all the saturation argument that "
    "follows uses: a factor of 2 either way",
    verdict=AGREES,
)

# pages: ch03
computed(
    "000-exp-100",
    "000 §2.2.2",
    says="e^100 is about 2.68 x 10^43",
    measure="mantissa of e^100",
    claimed=2.68,
    rule=close(rel=0.005),
    why=_THREE_DIGITS,
    verdict=AGREES,
)

# pages: ch03
computed(
    "000-exp-minus-100",
    "000 §2.2.2",
    says="e^-100 is about 3.72 x 10^-44",
    measure="mantissa of e^-100",
    claimed=3.72,
    rule=close(rel=0.005),
    why=_THREE_DIGITS,
    verdict=AGREES,
)

# pages: ch03
computed(
    "000-scaled-range",
    "000 §2.2.2",
    says="after division by sqrt(d_k) the scores have variance 1 and stay within about [-2, 2]",
    measure="probability that a unit-variance score lies in [-2, 2]",
    true_if="most scaled scores lie in [-2, 2]",
    rule=at_least(0.9),
    why="'about [-2, 2]' says where most scores lie, not all: 0.9 asks for a large majority",
    verdict=AGREES,
)

# --- §2.2.3: additive attention ----------------------------------------------------------------------

# pages: ch02, ch03, appendix_errata
computed(
    "000-dk-512",
    "000 §2.2.3",
    says="the Transformer chose scaled dot-product attention because it is more efficient in its setting "
    "of d_k = 512 (§2.2.2 uses 512 only as an example of a large d_k)",
    measure="the base model's d_k = d_model / h (TransformerConfig.base().d_head)",
    claimed=512,
    rule=equal(),
    verdict=WRONG,
)

# pages: ch02, appendix_errata
computed(
    "000-additive-formula",
    "000 §2.2.3",
    says="additive (Bahdanau) attention is softmax((W_a[Q; K] + b_a)/d_k) V, with [Q; K] the "
    "concatenation of queries and keys and W_a, b_a the weights and bias of a feed-forward layer",
    measure="whether different queries get different weights under the formula, read the only way that "
    "gives one score per query-key pair",
    true_if="the formula, like Bahdanau et al.'s, gives weights that depend on the query",
    rule=holds(),
    verdict=WRONG,
)

# pages: ch02
computed(
    "000-additive-cost",
    "000 §2.2.3",
    says="additive and dot-product attention have the same complexity, O(L_q L_k d_k)",
    measure="matrix-product FLOPs, additive / dot-product, at the chapter's sizes",
    rule=between(0.5, 2),
    why="O(.) hides constant factors; a ratio within 2 either way is a constant, while a difference of "
    "order would grow with L_q, L_k or d_k past it",
    verdict=AGREES,
)

# pages: ch02
computed(
    "000-dot-faster",
    "000 §2.2.3",
    says="dot-product attention computes faster (highly optimised matrix products), additive attention "
    "slower (a feed-forward network)",
    measure="additive attention takes more CPU time than dot-product attention at the chapter's sizes",
    rule=holds(),
    verdict=AGREES,
)

# pages: ch02, appendix_errata
computed(
    "000-additive-table",
    "000 §2.2.3",
    says="additive attention needs more space than dot-product attention because it must store its weights W_a and b_a",
    measure="its weights as a fraction of its hidden activations in one forward pass",
    true_if="the weights are what makes additive attention's memory larger: at least as many as the activations it holds",
    rule=at_least(1),
    why="a stated cause of the extra memory must be at least as large as the other memory the module "
    "holds; 1 is the weakest such bound",
    verdict=WRONG,
)

# pages: ch02
stated(
    "000-dot-suits-small-dk",
    "000 §2.2.3",
    says="dot-product attention suits small d_k (for example d_k <= 512), additive attention large d_k",
    reason="no source for the rule or the threshold; the paper (§3.2.1) says additive attention "
    "outperforms the dot product *without scaling* for large d_k, which is why it scales",
    verdict=UNSOURCED,
)

# --- §3: the architecture ----------------------------------------------------------------------------

# pages: ch11
computed(
    "000-autoregressive-decoder",
    "000 §3.1",
    says="the decoder takes the encoder's output and the target tokens generated so far and generates "
    "the output one token at a time",
    measure="greedy_decode equals a loop that feeds each chosen token back, seed 0, 500 dates",
    rule=holds(),
    verdict=AGREES,
)

# pages: ch08
computed(
    "000-layernorm-mean",
    "000 §3.2.1",
    says="layer normalisation normalises each position's vector, for example setting the mean of the 512 components to 0 ...",
    measure="mean of 1000 normalised 512-vectors, before gamma and beta",
    claimed=0.0,
    rule=close(abs=1e-4),
    why="the mean is 0 up to float32 rounding of 512-term sums (about 1e-7); 1e-4 leaves a wide margin",
    verdict=AGREES,
)

# pages: ch08
computed(
    "000-layernorm-variance",
    "000 §3.2.1",
    says="... and their variance to 1",
    measure="mean variance of 1000 normalised 512-vectors, before gamma and beta",
    claimed=1.0,
    rule=close(abs=1e-3),
    why="eps = 1e-5 makes the variance sigma^2/(sigma^2 + eps), 1e-5 below 1 for unit-variance inputs; "
    "1e-3 allows that and rounding",
    verdict=AGREES,
)

# pages: ch11
computed(
    "000-cross-attention-aligns",
    "000 §3.2.2",
    says="encoder-decoder attention, with queries from the decoder and keys and values from the encoder, "
    "aligns the output sequence with the input ('love' with its source word)",
    measure="lowest share, over three seeds, of output digits whose most-attended source token in decoder "
    "layer 2 lies in their own field",
    true_if="most output tokens attend most to the source tokens they translate",
    rule=at_least(0.8),
    why="'aligns' describes where most of the attention goes, not all of it: at least four output tokens in five, in every seed",
    verdict=AGREES,
)

# pages: ch09
computed(
    "000-projection-params",
    "000 §3.3",
    says="a 256 -> 512 projection W in R^(256 x 512) adds 256 x 512 = 131072 parameters",
    measure="weights of nn.Linear(256, 512)",
    claimed=131072,
    rule=equal(),
    verdict=AGREES,
)

# pages: ch07, ch09, ch14, appendix_errata
computed(
    "000-model-width",
    "000 §3.3",
    says="a 1024-dimensional model has 4 times the parameters of a 512-dimensional one",
    measure="parameters of the big model (d_model = 1024, d_ff = 4096) / the base model's, with a shared 37000-token embedding",
    true_if="the whole model's count grows four-fold when the width doubles",
    claimed=4,
    rule=close(rel=0.1),
    why="'4 times' is a round factor: within 10 % (3.6 to 4.4) the round figure would be fair",
    verdict=WRONG,
)

# pages: ch07
computed(
    "000-model-width-per-layer",
    "000 §3.3",
    says="a 1024-dimensional model has 4 times the parameters of a 512-dimensional one, read per layer",
    measure="parameters of one big encoder layer / one base encoder layer",
    claimed=4,
    rule=close(rel=0.01),
    why="per layer only the linear terms (biases, LayerNorm) keep the ratio from exactly 4, under 1 % at these widths",
    narrows=("000-model-width", "one layer, not the whole model: the embedding grows only linearly"),
    verdict=AGREES,
)

# pages: ch09
cited(
    "000-overfit",
    "000 §3.3",
    says="too large a width (for example 1024) inflates the parameters, lowers efficiency and is prone to over-fitting",
    true_if="wider models need more regularisation against over-fitting",
    cited="paper §6.2: in Table 3 rows (C) and (D) 'bigger models are better, and dropout is very helpful "
    "in avoiding over-fitting'; the 1024-wide big model is trained with P_drop = 0.3 on EN-DE against 0.1 "
    "for the base (Table 3); at P_drop = 0.1 the 1024-wide variant of row (C) still scores 26.0 against "
    "25.8 BLEU: a tendency met with dropout, not a loss",
    reading=SUPPORTED,
)

# --- §4: multi-head attention ------------------------------------------------------------------------

# pages: ch04
computed(
    "000-head-width",
    "000 §4.2.1",
    says="in the paper h = 8 and d_k = d_v = d_model / h = 64",
    measure="the base model's d_head",
    claimed=64,
    rule=equal(),
    verdict=AGREES,
)

# pages: ch04
computed(
    "000-head-shapes",
    "000 §4.2.1",
    says="with d_model = 512, h = 8, d_k = 64, W_i^Q is 512 x 64 and the concatenated heads are h d_v = 512 wide",
    measure="(W_i^Q's shape, h d_v) of the base model",
    claimed=((512, 64), 512),
    rule=equal(),
    verdict=AGREES,
)

# pages: ch04
computed(
    "000-heads-cost",
    "000 §4.2.2",
    says="with d_k = d_model / h, h heads cost h x O(L_q L_k d_k) = O(L_q L_k d_model), as much as one full-width head",
    measure="matrix-product FLOPs of the scores and weighted sums, h = 1 and h = 64, equal",
    rule=holds(),
    verdict=AGREES,
)

# pages: ch04, appendix_errata
cited(
    "000-head-figures",
    "000 §4.2.2",
    says="the paper's visualisations for English-German translation show one head on adjective-noun pairs "
    "('red' -> 'apple'), one on pronouns ('he' -> 'John'), one on verb-object pairs ('eat' -> 'apple') and "
    "one on connectives ('because' -> 'so')",
    cited="paper, appendix Figures 3-5 (encoder self-attention, layer 5 of 6): heads following the "
    "long-distance dependency 'making ... more difficult', two heads apparently resolving the anaphora "
    "'its', heads whose behaviour seems related to sentence structure; none of the four examples",
    reading=CONTRADICTED,
)

# pages: ch04, appendix_errata
cited(
    "000-one-head",
    "000 §4.2.2",
    says="this division of labour shows that multi-head attention captures varied dependencies, which "
    "single-head attention cannot replace",
    true_if="a single head of the same total width could not reach comparable quality",
    cited="paper Table 3 rows (A), §6.2: with the computation held constant, one head scores 24.9 BLEU "
    "on newstest2013 against 25.8 for eight (and 32 heads 25.4): a single head is 0.9 BLEU worse, a "
    "cost, not an impossibility",
    reading=CONTRADICTED,
)

# pages: ch04
computed(
    "000-one-head-ffn",
    "000 §4.2.2",
    says="a single head cannot do the work of several, tested on a task built for two heads: one head "
    "followed by the feed-forward layer a Transformer layer has",
    measure="worst output accuracy below 0.9 in some seed (five seeds)",
    true_if="the single head with a feed-forward layer fails to read both offsets in some seed",
    rule=holds(),
    narrows=("000-one-head", "one small task and one layer, where the paper measured translation quality"),
    verdict=WRONG,
)

# pages: ch04
computed(
    "000-grad-head-block",
    "000 §4.2.3",
    says="dL/dhead_i is head i's block of dL/dMultiHead (W^O)^T",
    measure="autograd, float64",
    rule=holds(),
    verdict=AGREES,
)

# pages: ch04
computed(
    "000-one-softmax-jacobian",
    "000 §4.2.3",
    says="the softmax's derivative for the score matrix S_i is the single Jacobian diag(softmax(S_i)) - "
    "softmax(S_i) softmax(S_i)^T",
    measure="non-zero row blocks of the Jacobian of a row-wise softmax over a T x T score matrix",
    true_if="one Jacobian of that form covers the whole score matrix",
    claimed=1,
    rule=equal(),
    verdict=WRONG,
)

# pages: ch04
computed(
    "000-query-grad-k-transpose",
    "000 §4.2.3",
    says="dhead_i/dQ_i = (1/sqrt(d_k)) (dsoftmax(S_i)/dS_i V_i) K_i^T, ending in K_i^T",
    measure="relative error of the K^T variant against autograd, square case",
    claimed=0.0,
    rule=close(abs=1e-9),
    why="a right formula meets autograd in float64 to about 1e-15; 1e-9 leaves a wide margin for rounding "
    "and none for a wrong formula, whose error is of order 1",
    verdict=WRONG,
)

# pages: appendix_errata
computed(
    "000-mha-backward",
    "000 §4.2.3",
    says="the gradient for W_i^Q is the upstream product multiplied by Q^T on the right: "
    "dL/dW_i^Q = (dL/dhead_i dhead_i/dQ_i) Q^T",
    measure="shape of the printed product (dL/dQ_i) Q^T against W_i^Q's, T = 3, d_model = 4, d_k = 2",
    claimed=AT_CALL,
    rule=equal(),
    verdict=WRONG,
)

# pages: ch04
computed(
    "000-mha-backward-square",
    "000 §4.2.3",
    says="dL/dW_i^Q = (dL/dQ_i) Q^T, with the input's transpose on the right",
    measure="relative error against autograd in the square case, where the product is defined",
    claimed=0.0,
    rule=close(abs=1e-9),
    why="a right formula meets autograd in float64 to about 1e-15; 1e-9 leaves a wide margin for rounding "
    "and none for a wrong formula, whose error is of order 1",
    narrows=("000-mha-backward", "its value where the shapes happen to match (T = d_model = d_k)"),
    verdict=WRONG,
)
