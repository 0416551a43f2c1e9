"""Document 000's claims, sections 5 to 8 (see :mod:`book_support.ledger` for what a record states)."""

from book_support.claims import (
    AGREES,
    ASSUMED,
    CONTRADICTED,
    INHERITED,
    SUPPORTED,
    UNSOURCED,
    WRONG,
    at_least,
    close,
    equal,
    holds,
    rounds_to,
)
from book_support.ledger import AT_CALL, cited, computed, stated
from book_support.worked_examples.audit import PRINTED_DIGITS

_PRINTED_WHY = (
    "the rule of chapter 12 for every printed number: the computed value to the printed digits (half a"
    " unit of the last digit, or one unit and 1 % for a truncated digit), which allows the document's"
    " '≈' its rounding and nothing more"
)


# --- §5: masking ---------------------------------------------------------------------------------

# home: ch05
computed(
    "000-peeking",
    "000 §5.1",
    says="a model that could see the later words while training would lean on them ('cheat'); at"
    " generation time, when they are missing, its sentences would come out garbled",
    measure="a model trained without the mask, 5 seeds: generation-time minus teacher-forced test loss,"
    " lower end of the 95 % interval, in nats",
    true_if="the model trained without the mask does much worse when it must generate than its training loss promises",
    rule=at_least(1.0),
    why="an honest predictor of random digits has loss ln 10 = 2.3 nats; a gap of at least 1 nat, over"
    " two fifths of that, is a collapse at generation time, not a rounding of the training loss",
    verdict=AGREES,
)


# home: ch11
computed(
    "000-mask-consistency",
    "000 §5.1",
    says="setting the scores of future positions to -inf keeps the model from attending to future words,"
    " so that training and generation follow the same logic",
    measure="the teacher-forced outputs of all positions against the outputs computed from each prefix alone, to 1e-10",
    true_if="in training, each position's output is what the model would compute from the prefix alone",
    rule=holds(),
    verdict=AGREES,
)


# home: ch05
computed(
    "000-mask-matrix",
    "000 §5.2.1, 004",
    says="the L_t x L_t mask holds 0 where j <= i and -inf where j > i; for L_t = 4 it prints that matrix"
    " (document 004 prints the same one)",
    measure="the printed 4 x 4 matrix against the library's additive causal mask",
    rule=holds(),
    verdict=AGREES,
)


# home: ch05
cited(
    "000-mask-order",
    "000 §5.2.2",
    says="the mask acts after the scaled dot product and before the softmax: S = QK^T / sqrt(d_k), then"
    " S + Mask, then the softmax",
    cited="paper, Figure 2 (left): MatMul, Scale, Mask (opt.), SoftMax, MatMul, in that order",
    reading=SUPPORTED,
)


# home: ch05
computed(
    "000-masked-weight-zero",
    "000 §5.2.2",
    says="after the softmax the weights of masked (-inf) positions are approximately 0 (softmax(-inf)"
    " ≈ 0), so no position attends to a later one",
    measure="largest weight on a masked key, library masked softmax of random 6 x 6 scores",
    true_if="every masked weight is 0 or negligibly small",
    claimed=0.0,
    rule=equal(),
    verdict=AGREES,
)


# home: errata (also ch05)
computed(
    "000-mask-example",
    "000 §5.2.2",
    says="the softmax of its masked 4 x 4 example scores is, approximately, [1.0], [0.3, 0.7],"
    " [0.1, 0.2, 0.7] and [0.05, 0.1, 0.25, 0.6]",
    measure="rows 2-4 recomputed from its printed scores, each against its printed digits",
    true_if="each printed weight is the softmax of the printed scores to its printed digits",
    claimed=AT_CALL,
    rule=PRINTED_DIGITS,
    why=_PRINTED_WHY,
    verdict=WRONG,
)


# --- §5.3-5.4: positions -------------------------------------------------------------------------

# home: errata (also ch06)
computed(
    "000-permutation",
    "000 §5.3",
    says="self-attention is 'permutation-invariant' (置换不变), which it explains as: reorder the input"
    " and the output is reordered in the same way, so that without positions the model cannot tell"
    " orders apart",
    measure="largest |f(PX) - P f(X)| of self-attention without positions (the property it describes)",
    true_if="reordering the input reorders the output the same way; the name for that is equivariance",
    claimed=0.0,
    rule=close(abs=1e-12),
    why="float64 rounding: a reordered input sums the same terms in another order, which moves the last"
    " bits; 1e-12 is far above that and far below any real effect",
    verdict=AGREES,
)


# home: ch06
computed(
    "000-cat-dog",
    "000 §5.3",
    says="without positions, 'cat chases dog' and 'dog chases cat' give the same similarity matrix: only"
    " the order of Q and K changes, not the values",
    measure="largest |S(dog chases cat) - P S(cat chases dog) P^T|, the matrix with rows and columns reordered",
    true_if="the two matrices hold the same values, reordered",
    claimed=0.0,
    rule=close(abs=1e-12),
    why="float64 rounding of the same dot products summed in another order; 1e-12 is far above it",
    verdict=AGREES,
)


# home: ch06
computed(
    "000-relative-rotation",
    "000 §5.4.2",
    says="for any fixed offset k, PE(pos + k) is a linear combination of PE(pos) whose coefficients"
    " depend on k only, by the angle-sum formulas, pair by pair",
    measure="sympy: the angle-sum identity for one frequency pair, for every pos and k",
    rule=holds(),
    verdict=AGREES,
)


# home: errata (also ch06)
computed(
    "000-two-coefficients",
    "000 §5.4.2",
    says="for an offset k = 3 the model only has to learn two coefficients, cos B and sin B, to relate"
    " any position to the one three places later, instead of learning it for each position",
    measure="distinct coefficients cos B_i, sin B_i of the map from PE(pos) to PE(pos + 3), d_model = 512",
    true_if="one pair of numbers served every frequency; read per frequency pair (B carries the pair"
    " index i in its definition) there are d_model of them, fixed by k and not learned",
    claimed=2,
    rule=equal(),
    verdict=WRONG,
)


# home: ch06
computed(
    "000-learned-table-size",
    "000 §5.4.3",
    says="a learned encoding is an L_max x d_model matrix trained with the model: 262 144 parameters for"
    " L_max = 512 (and d_model = 512)",
    measure="parameters of the library's learned encoding with L_max = d_model = 512",
    claimed=262144,
    rule=equal(),
    verdict=AGREES,
)


# home: ch06
cited(
    "000-learned-vs-sinusoid-bleu",
    "000 §5.4.3",
    says="the paper's experiments found the learned and the sinusoidal encoding about equally good, 0.1"
    " BLEU apart on the English-German development set",
    cited="paper, Table 3, row (E) 'positional embedding instead of sinusoids': 25.7 BLEU against the"
    " base model's 25.8 on newstest2013; §3.5: 'nearly identical results'",
    reading=SUPPORTED,
)


# home: errata (also ch06)
stated(
    "000-sinusoid-claims",
    "000 §5.4.3",
    says="sinusoidal encodings train more stably than learned ones (a fixed, not a random, start), and"
    " the paper made them the default because they generalise better",
    reason="the paper reports nothing on the stability of either; its reason for the choice is a"
    " hypothesis, that sinusoids 'may allow the model to extrapolate to sequence lengths longer than the"
    " ones encountered during training' (§3.5), which it did not test",
    verdict=UNSOURCED,
)


# home: ch06
computed(
    "000-any-length",
    "000 §5.4.3",
    says="sinusoidal encodings generalise well: they can handle sequences of any length, where a learned"
    " table cannot go beyond L_max",
    measure="toy task, 5 seeds, trained on positions 1-15: accuracy at positions 16-63 over accuracy at 1-15, sinusoidal model",
    true_if="a model trained on short sequences keeps most of its accuracy on longer ones",
    rule=at_least(0.9),
    why="'generalises well to any length' asks that little be lost beyond the trained lengths; 0.9 allows"
    " a tenth of the in-range accuracy to be lost",
    verdict=WRONG,
    narrows=("000-sinusoid-claims", "the length generalisation alone, measured on a toy task instead of looked for in the paper"),
)


# --- §6: the feed-forward network ----------------------------------------------------------------

# home: errata (also ch07)
computed(
    "000-attention-linear",
    "000 §6.1",
    says="attention's output is a linear fusion of the whole sentence's vectors, and a linear fusion"
    " cannot capture complex relations; the non-linearity comes from the FFN",
    measure="|f(2x) - 2f(x)| / |2f(x)| for a library attention layer without biases",
    true_if="attention were linear in its input (a map without biases then gives f(2x) = 2f(x)); it is"
    " linear only in the values, for fixed weights",
    claimed=0.0,
    rule=close(abs=0.01),
    why="a map linear in its input gives 0 up to rounding (the bias-free linear layer beside it prints"
    " 0.00); 0.01 is far above float32 rounding",
    verdict=WRONG,
)


# home: ch07
computed(
    "000-ffn-sizes",
    "000 §6.2.1, 001 §3",
    says="the FFN maps d_model = 512 to d_ff = 2048 and back (the paper's setting)",
    measure="d_model and d_ff of the library's base configuration (paper §3.3)",
    claimed=(512, 2048),
    rule=equal(),
    verdict=AGREES,
)


# home: ch07
computed(
    "000-position-wise",
    "000 §6.2.2",
    says="the FFN processes each position's vector on its own; positions do not exchange information",
    measure="largest change of the other 9 outputs when one position's input changes",
    claimed=0.0,
    rule=equal(),
    verdict=AGREES,
)


# home: ch07
computed(
    "000-per-position-weights",
    "000 §6.2.2",
    says="with separate parameters for each position the FFN would have L times as many parameters (L the"
    " sequence length), and overfit easily",
    measure="parameters of L separate FFNs over those of one shared FFN",
    claimed=AT_CALL,
    rule=equal(),
    verdict=AGREES,
)


# home: ch07
computed(
    "000-ffn-conv-equivalence",
    "000 §6.2.3",
    says="the FFN can be seen as two convolutions with kernel size 1 (the paper's words), and in practice"
    " the FFN and 1 x 1 convolutions are interchangeable",
    measure="the FFN's weights copied into Conv1d and Conv2d with kernel size 1: same outputs",
    rule=holds(),
    verdict=AGREES,
)


# home: errata (also ch07)
cited(
    "000-convbert",
    "000 §6.2.3",
    says="some improved models, such as ConvBERT, use 1 x 1 convolutions in place of the FFN, with similar performance",
    cited="Jiang et al. 2020 (ConvBERT), abstract: a span-based dynamic convolution is proposed 'to"
    " replace these self-attention heads'; its feed-forward module becomes a grouped linear operator,"
    " not a 1 x 1 convolution",
    reading=CONTRADICTED,
)


# --- §6.4: residual connections and the order of LayerNorm --------------------------------------

# home: ch08
computed(
    "000-residual-gradient",
    "000 §6.4.2",
    says="for y = x + F(x) the gradient is dL/dy (1 + dF/dx), against dL/dy dF/dx without the residual",
    measure="sympy: the Jacobian of x + F(x) is I + J_F",
    rule=holds(),
    verdict=AGREES,
)


# home: ch08
computed(
    "000-decay-power",
    "000 §6.4.2",
    says="over 100 layers a factor 0.9 per layer leaves 0.9^100 ≈ 2.65 x 10^-5 of the gradient, almost 0",
    measure="0.9^100",
    claimed=2.65e-05,
    rule=close(rel=0.005),
    why="the document writes '≈' and three digits; 0.5 % accepts its truncation (2.656 to 2.65) and nothing coarser",
    verdict=AGREES,
)


# home: errata (also ch08)
computed(
    "000-residual-argument",
    "000 §6.4.2",
    says="with a residual connection, dF/dx = -0.1 gives a factor 1 - 0.1 = 0.9 per layer, so the"
    " gradient decays slowly (and +0.1 gives 1.1, which amplifies it)",
    measure="what a factor 1 - 0.1 per layer leaves of the gradient after 100 layers, the depth of its own example",
    true_if="a factor 0.9 per layer kept a usable gradient over the 100 layers the section discusses; the"
    " same section calls 0.9^100 'almost 0'",
    rule=at_least(0.1),
    why="the bound chapter 8 uses for a gradient that has not vanished (000-residual-vanishing): a tenth"
    " left after the stack; the document itself calls 0.9^100 almost zero",
    verdict=WRONG,
)


# home: ch08
computed(
    "000-residual-vanishing",
    "000 §6.4.2",
    says="so residual connections keep the gradient at a usable size in deep networks and effectively alleviate its vanishing",
    measure="gradient norm at the input over that at the output of 32 residual FFN blocks, PyTorch's default initialisation",
    rule=at_least(0.1),
    why="'alleviate' asks only that the gradient not shrink by orders of magnitude; the plain stack beside"
    " it loses about twenty, so a tenth separates the two",
    verdict=AGREES,
)


# home: errata (also ch08)
cited(
    "000-pre-post-ln",
    "000 §6.4.3",
    says="the Transformer uses the 'pre-activation' order LayerNorm(x + F(x)) rather than the"
    " 'post-activation' order x + LayerNorm(F(x)); later work such as BERT confirmed it, and it became"
    " the standard of Transformer models",
    cited="Xiong et al. 2020, §3 and Figure 1: LayerNorm(x + F(x)) is the Post-LN Transformer,"
    " x + F(LayerNorm(x)) the Pre-LN one; He et al. 2016b call 'pre-activation' the unit that normalises"
    " inside the branch, before the weights; Radford et al. 2019 (GPT-2), §2.3: layer normalisation"
    " 'was moved to the input of each sub-block'",
    true_if="LayerNorm(x + F(x)) were the arrangement the literature calls pre-activation, and later models had kept it",
    reading=CONTRADICTED,
)


# home: ch08
cited(
    "000-bert-order",
    "000 §6.4.3",
    says="BERT kept the order LayerNorm(x + F(x))",
    cited="Devlin et al. 2019, §3: BERT's architecture is 'almost identical' to the original"
    " implementation in tensor2tensor, which normalises after the residual sum (Post-LN)",
    reading=SUPPORTED,
    narrows=("000-pre-post-ln", "BERT alone, not the name of the order or what later models did"),
)


# --- §7: training ------------------------------------------------------------------------------

# home: ch10
cited(
    "000-vocab-en-de",
    "000 §7.2.1",
    says="for English-German the paper uses byte-pair encoding with a vocabulary of 37 000 tokens shared by source and target",
    cited="paper §5.1: 'byte-pair encoding, which has a shared source-target vocabulary of about 37000 tokens'",
    reading=SUPPORTED,
)


# home: ch10
cited(
    "000-vocab-en-fr",
    "000 §7.2.1",
    says="for English-French it uses word pieces, a vocabulary of 32 000 tokens",
    cited="paper §5.1: tokens split 'into a 32000 word-piece vocabulary'",
    reading=SUPPORTED,
)


# home: ch10
cited(
    "000-batch-tokens",
    "000 §7.2.1",
    says="sentences of similar length are batched together, about 25 000 source and 25 000 target tokens per batch",
    cited="paper §5.1: pairs 'batched together by approximate sequence length', each batch with"
    " 'approximately 25000 source tokens and 25000 target tokens'",
    reading=SUPPORTED,
)


# home: ch10
computed(
    "000-batch-arithmetic",
    "000 §7.2.1",
    says="a batch of length-10 sentences holds 2 500 of them (10 x 2 500 = 25 000), one of length-500"
    " sentences 50 (500 x 50 = 25 000)",
    measure="its two products",
    claimed=(25000, 25000),
    rule=equal(),
    verdict=AGREES,
)


# home: ch10
computed(
    "000-length-grouping",
    "000 §7.2.1",
    says="grouping sentences by length avoids most of the padding, and so the wasted computation, that"
    " mixing short and long sentences causes",
    measure="share of padding positions in length-sorted against randomly ordered batches, copy task with 1-50 symbols",
    rule=holds(),
    verdict=AGREES,
)


# home: ch10
cited(
    "000-adam-values",
    "000 §7.2.2",
    says="Adam with beta_1 = 0.9, beta_2 = 0.98 and epsilon = 10^-9",
    cited="paper §5.3: 'the Adam optimizer with β1 = 0.9, β2 = 0.98 and ε = 10^-9'",
    reading=SUPPORTED,
)


# home: ch10
computed(
    "000-beta1",
    "000 §7.2.2",
    says="beta_1 = 0.9 is a momentum parameter that accumulates the previous 90 % of the gradient direction",
    measure="the fraction of the previous moving average that torch.optim.Adam's m_t keeps, beta_1 = 0.9",
    true_if="each step keeps 90 % of the previous average of the gradients",
    claimed=0.9,
    rule=close(abs=1e-6),
    why="the optimiser keeps its state in float32, whose 0.9 differs from float64's by about 2e-8",
    verdict=AGREES,
)


# home: errata
cited(
    "000-adam",
    "000 §7.2.2",
    says="Adam combines the strengths of momentum and of adaptive learning rates, which it names AdaGrad",
    cited="Kingma and Ba 2015, abstract: Adam combines 'the advantages of two recently popular methods:"
    " AdaGrad ... and RMSProp'; Algorithm 1: m_t, a moving average of the gradient (a momentum term), and"
    " v_t, a moving average of its square, as in RMSProp (AdaGrad sums the squares without decay)",
    reading=SUPPORTED,
)


# home: ch10
computed(
    "000-lr-scale",
    "000 §7.2.2",
    says="512^-0.5 ≈ 0.044",
    measure="512^-0.5",
    claimed=0.044,
    rule=rounds_to(3),
    why="printed to three decimals",
    verdict=AGREES,
)


# home: ch10
computed(
    "000-lr-peak",
    "000 §7.2.2",
    says="the rate peaks at step 4 000 at 0.044 x 0.0158 ≈ 0.000695",
    measure="the peak of the paper's schedule, d_model = 512, 4 000 warm-up steps, in units of 1e-4",
    claimed=6.95,
    rule=rounds_to(2),
    why="0.000695 has three significant digits: two decimals in units of 1e-4",
    verdict=INHERITED,
)


# home: errata (also ch10)
computed(
    "000-lr-schedule",
    "000 §7.2.2",
    says="after the warm-up the rate falls to sqrt(10000 / 20000) = 0.707 of its value every 10 000 steps",
    measure="the rate at step 30 000 over the rate at step 20 000",
    true_if="every 10 000 steps cost the same factor 0.707 (an exponential decay)",
    claimed=0.707,
    rule=close(abs=0.001),
    why="0.707 is printed to three decimals; 0.001 allows its rounding",
    verdict=WRONG,
)


# home: ch10
computed(
    "000-dropout-sites",
    "000 §7.2.3",
    says="dropout is applied to the output of every sub-layer of the encoder and decoder, and to the sums"
    " of embeddings and positional encodings",
    measure="dropout modules of a 2 + 2-layer library model, against one per embedding sum and one per sub-layer",
    claimed=AT_CALL,
    rule=equal(),
    verdict=AGREES,
)


# home: errata (also ch10)
cited(
    "000-dropout-big",
    "000 §7.2.3",
    says="the paper sets P_drop = 0.1 for the base model and 0.3 for the big one",
    cited="paper §5.4: 'For the base model, we use a rate of P_drop = 0.1'; Table 3, row 'big': P_drop ="
    " 0.3 (English-German); §6.1: the big English-French model 'used dropout rate P_drop = 0.1, instead"
    " of 0.3'",
    true_if="the big model used 0.3: true for English-German, the task of the document's examples; the"
    " English-French big model used 0.1",
    reading=SUPPORTED,
)


# home: ch10
computed(
    "000-smoothing-sums",
    "000 §7.2.3",
    says="the smoothed target puts 1 - eps_ls on the true token and eps_ls / (V - 1) on each other token",
    measure="the total of that target for eps_ls = 0.1, V = 37 000",
    true_if="the target is a probability distribution",
    claimed=1.0,
    rule=close(abs=1e-12),
    why="float64 rounding of one product and one sum",
    verdict=AGREES,
)


# home: errata (also ch10)
computed(
    "000-smoothing-value",
    "000 §7.2.3",
    says="with eps_ls = 0.1 and V = 37 000 each of the other 36 999 tokens gets 0.1 / 36 999 ≈ 2.69e-6",
    measure="0.1 / 36 999 against the printed digits",
    claimed="2.69e-6",
    rule=PRINTED_DIGITS,
    why=_PRINTED_WHY,
    verdict=WRONG,
)


# home: ch10
cited(
    "000-smoothing-bleu",
    "000 §7.2.3",
    says="the paper found that label smoothing raises English-German BLEU by about 0.5",
    cited="paper, Table 3: row (D) with eps_ls = 0 scores 25.3 BLEU, the base model (eps_ls = 0.1) 25.8, on newstest2013",
    reading=SUPPORTED,
)


# home: errata (also ch10)
cited(
    "000-smoothing-perplexity",
    "000 §7.2.3",
    says="the paper found that label smoothing also lowers perplexity",
    cited="paper §5.4: label smoothing 'hurts perplexity, as the model learns to be more unsure, but"
    " improves accuracy and BLEU score'; Table 3, row (D): perplexity 4.67 with eps_ls = 0 against 4.92"
    " for the base model",
    reading=CONTRADICTED,
)


# home: errata (also ch10)
stated(
    "000-hyperparameter-table",
    "000 §7.3.1",
    says="a table of the paper's base values with ranges and effects drawn from 'the paper's experiments"
    " and practical experience': warm-up 2 000-8 000 steps, batches of 10 000-50 000 tokens; larger"
    " d_model, d_ff or batches overfit easily",
    reason="the ranges and the effects cite no source: the paper used 4 000 warm-up steps (§5.3) and about"
    " 25 000 source and 25 000 target tokens per batch (§5.1) throughout and varied neither, and in its"
    " Table 3 (row C) larger d_model and d_ff score better on the development set",
    verdict=UNSOURCED,
)


# home: ch10
computed(
    "000-grid-count",
    "000 §7.3.2",
    says="its grid, d_model in {256, 512}, h in {4, 8}, P_drop in {0.1, 0.2}, has 2 x 2 x 2 = 8 combinations",
    measure="the product",
    claimed=8,
    rule=equal(),
    verdict=AGREES,
)


# home: errata (also ch10)
computed(
    "000-grid-search",
    "000 §7.3.2",
    says="grid search is simple and intuitive and finds the globally best combination of hyperparameters;"
    " its drawback is the cost",
    measure="loss of the best grid point minus the true minimum, on a smooth toy objective",
    true_if="the best grid point were the best setting overall, not only the best of the values tried",
    claimed=0.0,
    rule=close(abs=1e-9),
    why="the global optimum leaves no gap at all; 1e-9 allows float rounding",
    verdict=WRONG,
)


# --- §8: the worked example --------------------------------------------------------------------

# home: errata (also ch06)
computed(
    "000-worked-positions",
    "000 §8.1.3",
    says="sin(1/100) ≈ 0.0099998, 'approximately 0.001', and likewise 0.002 and 0.003 for positions 2 and"
    " 3; these enter its positional table",
    measure="sin(p / 100), p = 1, 2, 3, against the printed digits",
    claimed=AT_CALL,
    rule=PRINTED_DIGITS,
    why=_PRINTED_WHY,
    verdict=WRONG,
)


# home: ch06
computed(
    "000-worked-source-inputs",
    "000 §8.1.3",
    says="the source inputs (embedding + positional encoding) have 0.601 and 0.202 in dimension 2 of rows 1 and 2",
    measure="embedding + library encoding, dimension 2, rounded to 3 decimals; with its own encoding for 'inherited'",
    claimed=(0.601, 0.202),
    rule=equal(),
    verdict=INHERITED,
)


# home: ch06
computed(
    "000-worked-target-inputs",
    "000 §8.1.3",
    says="the target inputs have 0.101, 0.302 and 0.503 in dimension 2 of rows 1 to 3",
    measure="embedding + library encoding, dimension 2, rounded to 3 decimals; with its own encoding for 'inherited'",
    claimed=(0.101, 0.302, 0.503),
    rule=equal(),
    verdict=INHERITED,
)


# home: errata (also ch09, ch12)
computed(
    "000-worked-model",
    "000 §8.4",
    says="with its simplified sizes the example follows the real model exactly: only the dimensions grow,"
    " the computation is unchanged",
    measure="whether the example, built as the note describes it, scales the embeddings by sqrt(d_model)"
    " as the paper does (§3.4)",
    true_if="the example computed what the paper's model computes, at smaller sizes",
    claimed=True,
    rule=equal(),
    verdict=WRONG,
)


# home: ch06
computed(
    "000-worked-embedding-scale",
    "000 §8.1.3",
    says="the model's input is the embedding plus the positional encoding, added as they are",
    measure="the factor the library's token embedding (paper §3.4) puts on an embedding at d_model = 4",
    claimed=1,
    rule=equal(),
    verdict=WRONG,
    narrows=("000-worked-model", "the input step alone: the factor on the embedding"),
)


# home: errata
computed(
    "000-worked-weights",
    "000 §8.2.1 step 3",
    says="head 1's attention weights are [0.728, 0.150, 0.122], [0.145, 0.510, 0.345] and [0.130, 0.365,"
    " 0.505], the softmax of its scaled scores",
    measure="rows 2 and 3 recomputed from its own printed scaled scores",
    claimed=AT_CALL,
    rule=PRINTED_DIGITS,
    why=_PRINTED_WHY,
    verdict=WRONG,
)


# home: errata
computed(
    "000-worked-head-arithmetic",
    "000 §8.2.1 step 3",
    says="rows 2 and 3 of head 1's output are [1.52, 1.81] and [1.38, 1.72], its printed weights times V",
    measure="its printed weights times its printed V_1",
    claimed="1.52 1.81 1.38 1.72",
    rule=PRINTED_DIGITS,
    why=_PRINTED_WHY,
    verdict=WRONG,
)


# home: errata
stated(
    "000-worked-head2",
    "000 §8.2.1 step 4",
    says="head 2 is computed like head 1 (skipped), and its output is assumed",
    claimed=AT_CALL,
    reason="'假设头 2 输出' (assume head 2's output), its computation skipped as 'the same as head 1'",
    verdict=ASSUMED,
)


# home: errata
computed(
    "000-worked-layernorm",
    "000 §8.2.1 step 6",
    says="the first LayerNorm (gamma = 1, beta = 0) of its residual sums gives [-1.33, 1.46, 0.22, -0.35],"
    " [0.89, 0.27, 0.21, 0.85] and [0.63, -0.16, -0.26, 1.05]",
    measure="the library's LayerNorm of its own printed residual sums",
    claimed=AT_CALL,
    rule=PRINTED_DIGITS,
    why=_PRINTED_WHY,
    verdict=WRONG,
)


# home: errata
computed(
    "000-worked-ffn",
    "000 §8.2.2 step 4",
    says="the FFN's second layer turns its ReLU rows into [2.22, 2.22, 2.22, 2.22], [4.44, ...] and [2.52, ...]",
    measure="its printed ReLU rows times its printed W_2",
    claimed=AT_CALL,
    rule=PRINTED_DIGITS,
    why=_PRINTED_WHY,
    verdict=WRONG,
)


# home: errata
computed(
    "000-worked-encoder-output",
    "000 §8.2.2 step 5",
    says="the LayerNorm of its second residual sums, the encoder output, is [-1.25, 1.32, 0.35, -0.42],"
    " [1.05, 0.48, 0.42, 1.01] and [0.28, -0.31, -0.41, 0.44]",
    measure="the library's LayerNorm of its own printed residual sums",
    claimed=AT_CALL,
    rule=PRINTED_DIGITS,
    why=_PRINTED_WHY,
    verdict=WRONG,
)


# home: ch05
computed(
    "000-worked-masked-weights",
    "000 §8.3.1 step 4",
    says="the softmax of its example masked decoder scores gives the example weights [1.0], [0.18, 0.82],"
    " [0.12, 0.35, 0.53] and [0.08, 0.22, 0.25, 0.45]",
    measure="rows 2-4 recomputed from its printed example scores, each against its printed digits",
    true_if="the example weights are the softmax of the example scores printed just before them",
    claimed=AT_CALL,
    rule=PRINTED_DIGITS,
    why=_PRINTED_WHY,
    verdict=WRONG,
)


# home: errata
computed(
    "000-worked-decoder",
    "000 §8.3.3",
    says="its example output probabilities give about 0.94 to 'I' at the first position (0.92-0.95 to each"
    " target word), and the prediction matches the target",
    measure="upper bound on the probability of 'I' when the decoder layer ends in Add & Norm (gamma = 1,"
    " beta = 0), as the paper's (§3.1) and its own encoder layer do, with its embedding matrix as output"
    " layer (chapter 12)",
    true_if="some decoder with the given weights and a final Add & Norm could give 'I' 0.94",
    claimed=0.94,
    rule=at_least(0.94),
    why="0.94 can be printed only if the bound reaches it",
    verdict=WRONG,
)


# home: errata
computed(
    "000-worked-no-shift",
    "000 §8.3",
    says="the decoder reads the target [I, love, machine, learning] and predicts [I, love, machine,"
    " learning] at the same positions",
    measure="the first decoder input that the library's collate (paper §3.1, outputs shifted right) builds from that target",
    claimed=AT_CALL,
    rule=equal(),
    verdict=WRONG,
)
