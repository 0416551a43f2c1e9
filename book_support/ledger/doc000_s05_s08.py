"""Document 000's claims, sections 5 to 8 (see :mod:`book_support.ledger` for what a record states)."""

from book_support.claims import AGREES, AGREES_BY_CONSTRUCTION, ASSUMED, CONTRADICTED, INHERITED, NOT_DERIVABLE, SUPPORTED, UNSOURCED, WRONG
from book_support.claims import at_least, at_most, between, close, equal, holds, rounds_to
from book_support.ledger import AT_CALL, PENDING, absent, cited, computed, stated
from book_support.worked_examples.audit import PRINTED_DIGITS


# home: ch05
computed(
    "000-model-sees-future-training-fails",
    "000 §5.1",
    says="a model that sees the future in training fails at generation: generation-time minus teacher-forced loss, 5 seeds, interval above 1 nat",
    measure="FIXME",
    rule=holds(),
    verdict=PENDING,
)


# home: ch05
computed(
    "000-weights-worked-decoder-s-4x4",
    "000 §8.3.1",
    says="weights of the worked decoder's 4x4 example: largest |printed - computed|",
    measure="FIXME",
    claimed=0.0,
    rule=close(abs=0.05),
    why="",
    verdict=PENDING,
)


# home: ch05
computed(
    "000-weights-4x4-example-printed-1",
    "000 §5.2.2",
    says="weights of the 4x4 example, printed to 1-2 decimals: largest |printed - computed|",
    measure="FIXME",
    claimed=0.0,
    rule=close(abs=0.05),
    why="",
    verdict=PENDING,
)


# home: ch05
computed(
    "000-softmax-inf-about-0-largest",
    "000 §5.2.2",
    says="softmax(-inf) is about 0: largest weight on a masked key",
    measure="FIXME",
    claimed=0.0,
    rule=equal(),
    verdict=PENDING,
)


# home: ch05
computed(
    "000-mask-comes-after-scaling-before",
    "000 §5.2.2",
    says="the mask comes after the scaling and before the softmax",
    measure="the paper's Figure 2",
    claimed=('Scale', 'Mask (opt.)', 'SoftMax'),
    rule=equal(),
    verdict=PENDING,
)


# home: ch05
computed(
    "000-4x4-causal-mask-0-below",
    "000 §5.2.2, 004",
    says="the 4x4 causal mask: 0 on and below the diagonal, -inf above",
    measure="FIXME",
    rule=holds(),
    verdict=PENDING,
)


# home: ch06
computed(
    "000-input-embedding-pe-factor-embedding",
    "000 §8.1.3",
    says="input = embedding + PE: the factor on the embedding",
    measure="paper §3.4: sqrt(d_model), d_model = 4",
    claimed=1,
    rule=equal(),
    verdict=PENDING,
)


# home: ch06
computed(
    "000-target-inputs-embedding-pe-1",
    "000 §8.1.3",
    says="target inputs (embedding + PE)[1..3], dimension 2",
    measure="FIXME",
    claimed=(0.101, 0.302, 0.503),
    rule=equal(),
    verdict=PENDING,
)


# home: ch06
computed(
    "000-source-inputs-embedding-pe-1",
    "000 §8.1.3",
    says="source inputs (embedding + PE)[1..2], dimension 2",
    measure="FIXME",
    claimed=(0.601, 0.202),
    rule=equal(),
    verdict=PENDING,
)


# home: ch06
computed(
    "000-pe-1-3-dimension-2",
    "000 §8.1.3",
    says="PE(1..3, dimension 2) for d_model = 4",
    measure="FIXME",
    claimed=(0.001, 0.002, 0.003),
    rule=equal(),
    verdict=PENDING,
)


# home: ch06
stated(
    "000-sinusoids-give-higher-training-stability",
    "000 §5.4.3",
    says="sinusoids give higher training stability",
    reason="no measurement or citation; the paper says nothing about stability",
    verdict=UNSOURCED,
)


# home: ch06
computed(
    "000-sinusoids-handle-any-length-accuracy",
    "000 §5.4.3",
    says="sinusoids handle any length: accuracy at positions 16-63 (toy, 5 seeds) at least 0.9",
    measure="FIXME",
    claimed=None,
    rule=at_least(0.9),
    why="",
    verdict=PENDING,
)


# home: ch06
computed(
    "000-learned-sinusoidal-differ-0-1",
    "000 §5.4.3",
    says="learned and sinusoidal differ by 0.1 BLEU",
    measure="paper Table 3, row E, typed in",
    claimed=0.1,
    rule=close(abs=1e-9),
    why="",
    verdict=PENDING,
)


# home: ch06
computed(
    "000-learned-table-has-l-max",
    "000 §5.4.3",
    says="a learned table has L_max x d_model parameters",
    measure="L_max = d_model = 512",
    claimed=262144,
    rule=equal(),
    verdict=PENDING,
)


# home: ch06
computed(
    "000-k-3-model-needs-cos",
    "000 §5.4.2",
    says="for k = 3 the model only needs cos B and sin B: distinct angles B in M(3), d_model = 512",
    measure="FIXME",
    claimed=1,
    rule=equal(),
    verdict=PENDING,
)


# home: ch06
computed(
    "000-pe-pos-k-rotation-pe",
    "000 §5.4.2",
    says="PE(pos + k) is a rotation of PE(pos), pair by pair",
    measure="sympy",
    rule=holds(),
    verdict=PENDING,
)


# home: ch06
computed(
    "000-cat-chases-dog-dog-chases",
    "000 §5.3",
    says="'cat chases dog' and 'dog chases cat' have identical score matrices: largest difference",
    measure="FIXME",
    claimed=0.0,
    rule=close(abs=1e-12),
    why="",
    verdict=PENDING,
)


# home: ch06
computed(
    "000-self-attention-permutation-invariant-f",
    "000 §5.3",
    says="self-attention is permutation-invariant, f(PX) = f(X): largest |f(PX) - f(X)|",
    measure="FIXME",
    claimed=0.0,
    rule=close(abs=1e-12),
    why="",
    verdict=PENDING,
)


# home: ch07
computed(
    "000-attention-yields-linear-mixture-input",
    "000 §6.1",
    says="attention yields only a linear mixture of its input: |f(2x) - 2f(x)| / |2f(x)| = 0",
    measure="FIXME",
    claimed=0.0,
    rule=close(abs=0.01),
    why="",
    verdict=PENDING,
)


# home: ch07
computed(
    "000-convbert-puts-1x1-convolutions-place",
    "000 §6.2.3",
    says="ConvBERT puts 1x1 convolutions in place of the FFN; what ConvBERT replaces",
    measure="Jiang et al. 2020, abstract: 'to replace these self-attention heads'",
    claimed="FFN",
    rule=equal(),
    verdict=PENDING,
)


# home: ch07
computed(
    "000-ffn-two-convolutions-kernel-size",
    "000 §6.2.3",
    says="the FFN is two convolutions with kernel size 1 (paper §3.3): all four modules match",
    measure="FIXME",
    rule=holds(),
    verdict=PENDING,
)


# home: ch07
computed(
    "000-separate-weights-per-position-would",
    "000 §6.2.2",
    says="separate weights per position would need L = FIXME{T} times the parameters",
    measure="FIXME",
    claimed=AT_CALL,
    rule=equal(),
    verdict=PENDING,
)


# home: ch07
computed(
    "000-positions-processed-independently-other-9",
    "000 §6.2.2",
    says="positions are processed independently: the other 9 outputs do not move",
    measure="FIXME",
    claimed=0.0,
    rule=equal(),
    verdict=PENDING,
)


# home: ch07
computed(
    "000-d-model-512-d-ff",
    "000 §6.2.1, 001 §3",
    says="d_model = 512, d_ff = 2048",
    measure="paper §3.3",
    claimed=(512, 2048),
    rule=equal(),
    verdict=PENDING,
)


# home: ch08
computed(
    "000-bert-uses-order-ln-x",
    "000 §6.4.3",
    says="BERT uses the order LN",
    measure="x + F(x)",
    claimed="after",
    rule=equal(),
    verdict=PENDING,
)


# home: ch08
computed(
    "000-other-common-order-x-ln",
    "000 §6.4.3",
    says="the other common order is x + LN",
    measure="F(x)",
    claimed="x + LN(F(x))",
    rule=equal(),
    verdict=PENDING,
)


# home: ch08
computed(
    "000-ln-x-f-x-pre",
    "000 §6.4.3",
    says="LN(x + F(x)) is the 'pre-activation' order",
    measure="FIXME",
    claimed="pre-activation",
    rule=equal(),
    verdict=PENDING,
)


# home: ch08
computed(
    "000-residual-connections-stop-gradient-vanishing",
    "000 §6.4.2",
    says="residual connections stop the gradient from vanishing",
    measure="computed: gradient at the input / at the output through 32 residual FFN blocks",
    rule=at_least(0.1),
    why="",
    verdict=PENDING,
)


# home: ch08
computed(
    "000-df-dx-0-1-residual",
    "000 §6.4.2",
    says="with dF/dx = -0.1 the residual gradient decays slowly, unlike the plain one",
    measure="computed: (1 - 0.1)^100 / 0.9^100, at least 2 for 'unlike'",
    rule=at_least(2.0),
    why="",
    verdict=PENDING,
)


# home: ch08
computed(
    "000-residual-block-s-gradient-has",
    "000 §6.4.2",
    says="the residual block's gradient has the factor",
    measure="1 + dF/dx",
    rule=holds(),
    verdict=PENDING,
)


# home: ch08
computed(
    "000-0-9-100-2-65e",
    "000 §6.4.2",
    says="0.9^100 = 2.65e-5",
    measure="FIXME",
    claimed=2.65e-05,
    rule=close(rel=0.005),
    why="",
    verdict=PENDING,
)


# home: ch10
stated(
    "000-ranges-warm-up-2000-8000",
    "000 §7.3.1",
    says="ranges: warm-up 2000-8000 steps, batches of 10k-50k tokens",
    reason="the paper uses w = 4000 and 25000 tokens (§5.1, §5.3) and gives no ranges",
    verdict=UNSOURCED,
)


# home: ch10
computed(
    "000-grid-search-finds-global-optimum",
    "000 §7.3.2",
    says="grid search finds the global optimum",
    measure="computed: best grid loss minus the true minimum, 0",
    claimed=0.0,
    rule=close(abs=1e-9),
    why="",
    verdict=PENDING,
)


# home: ch10
computed(
    "000-grid-example-has-2-x",
    "000 §7.3.2",
    says="the grid example has 2 x 2 x 2 = 8 runs",
    measure="FIXME",
    claimed=8,
    rule=equal(),
    verdict=PENDING,
)


# home: ch10
computed(
    "000-label-smoothing-adds-about-0",
    "000 §7.2.3",
    says="label smoothing adds about 0.5 BLEU",
    measure="Table 3 (D)",
    claimed=0.5,
    rule=close(abs=0.05),
    why="",
    verdict=PENDING,
)


# home: ch10
computed(
    "000-label-smoothing-lowers-perplexity-computed",
    "000 §7.2.3",
    says="label smoothing lowers perplexity",
    measure="computed: Table 3 (D) perplexity with minus without",
    rule=at_most(0.0),
    why="",
    verdict=PENDING,
)


# home: ch10
computed(
    "000-0-1-36999-2-69e",
    "000 §7.2.3",
    says="0.1 / 36999 = 2.69e-6",
    measure="in units of 1e-6: 2.69",
    claimed=2.69,
    rule=rounds_to(2),
    why="",
    verdict=PENDING,
)


# home: ch10
computed(
    "000-q-1-eps-true-token",
    "000 §7.2.3",
    says="q: 1 - eps on the true token and eps/(V - 1) on the others sums to 1",
    measure="FIXME",
    claimed=1.0,
    rule=close(abs=1e-12),
    why="",
    verdict=PENDING,
)


# home: ch10
computed(
    "000-p-drop-0-1-base",
    "000 §7.2.3",
    says="P_drop 0.1 (base), 0.3",
    measure="big",
    claimed=(0.1, 0.3),
    rule=equal(),
    verdict=PENDING,
)


# home: ch10
computed(
    "000-dropout-every-sub-layer-output",
    "000 §7.2.3",
    says="dropout on every sub-layer output and on the embedding sums",
    measure="computed: dropout modules of a 2+2-layer model against 1 + 2 x 2 + 3 x 2",
    claimed=AT_CALL,
    rule=equal(),
    verdict=PENDING,
)


# home: ch10
computed(
    "000-rate-falls-0-707-value",
    "000 §7.2.2",
    says="the rate falls to 0.707 of its value every 10000 steps",
    measure="computed: from step 20000 to 30000",
    claimed=0.707,
    rule=close(abs=0.001),
    why="",
    verdict=PENDING,
)


# home: ch10
computed(
    "000-peak-rate-0-044-x",
    "000 §7.2.2",
    says="peak rate 0.044 x 0.0158 = 0.000695",
    measure="in units of 1e-4: 6.95",
    claimed=6.95,
    rule=rounds_to(2),
    why="",
    verdict=PENDING,
)


# home: ch10
computed(
    "000-512-0-5-0-044",
    "000 §7.2.2",
    says="512^-0.5 = 0.044",
    measure="FIXME",
    claimed=0.044,
    rule=rounds_to(3),
    why="",
    verdict=PENDING,
)


# home: ch10
computed(
    "000-beta1-accumulates-previous-90-computed",
    "000 §7.2.2",
    says="beta1 'accumulates the previous 90 %'",
    measure="computed: the weight of the previous average in m_t",
    claimed=0.9,
    rule=equal(),
    verdict=PENDING,
)


# home: ch10
computed(
    "000-adam-beta1-0-9-beta2",
    "000 §7.2.2",
    says="Adam with beta1 0.9, beta2 0.98, eps 1e-9",
    measure="FIXME",
    claimed=(0.9, 0.98, 1e-09),
    rule=equal(),
    verdict=PENDING,
)


# home: ch10
computed(
    "000-grouping-length-reduces-padding-computed",
    "000 §7.2.1",
    says="grouping by length reduces padding",
    measure="computed on the copy task, 1-50 symbols",
    rule=holds(),
    verdict=PENDING,
)


# home: ch10
computed(
    "000-10-x-2500-25000-500",
    "000 §7.2.1",
    says="10 x 2500 = 25000 and 500 x 50 = 25000",
    measure="FIXME",
    claimed=(25000, 25000),
    rule=equal(),
    verdict=PENDING,
)


# home: ch10
computed(
    "000-batches-about-25000-source-25000",
    "000 §7.2.1",
    says="batches of about 25000 source and 25000 target tokens",
    measure="FIXME",
    claimed=25000,
    rule=equal(),
    verdict=PENDING,
)


# home: ch10
computed(
    "000-en-fr-word-pieces-32000",
    "000 §7.2.1",
    says="EN-FR: word pieces, 32000",
    measure="FIXME",
    claimed=32000,
    rule=equal(),
    verdict=PENDING,
)


# home: ch10
computed(
    "000-en-de-byte-pair-encoding",
    "000 §7.2.1",
    says="EN-DE: byte-pair encoding, a shared vocabulary of 37000",
    measure="FIXME",
    claimed=37000,
    rule=equal(),
    verdict=PENDING,
)


# home: ch11
computed(
    "000-mask-makes-training-consistent-generation",
    "000 §5.1",
    says="the mask makes training consistent with generation",
    measure="computed: the teacher-forced outputs of all positions equal the outputs computed from each prefix alone, to 1e-10",
    rule=holds(),
    verdict=PENDING,
)


# home: errata
computed(
    "000-pre-post-ln",
    "000 §6.4.3",
    says="the paper's LayerNorm(x + F(x)) is the 'pre-activation' order",
    measure="FIXME",
    claimed="pre",
    rule=equal(),
    verdict=PENDING,
)


# home: errata
computed(
    "000-residual-argument",
    "000 §6.4.2",
    says="a factor 0.9 per layer is slow decay",
    measure="what is left after 100 layers",
    claimed=1,
    rule=at_least(0.1),
    why="",
    verdict=PENDING,
)


# home: errata
computed(
    "000-convbert",
    "000 §6.2.3",
    says="replacing the FFN by 1x1 convolutions changes the model",
    measure="1x1 convolutions with the FFN's weights compute something else",
    claimed=True,
    rule=holds(),
    verdict=PENDING,
)


# home: errata
computed(
    "000-attention-linear",
    "000 §6.1",
    says="attention is linear in its input",
    measure="|f(2x) - 2f(x)| / |2f(x)|",
    claimed=0,
    rule=at_most(1e-9),
    why="",
    verdict=PENDING,
)


# home: errata
stated(
    "000-sinusoid-claims",
    "000 §5.4.3",
    says="sinusoids were chosen for better generalisation, and train more stably",
    reason="the paper gives a hypothesis, 'may allow the model to extrapolate' (§3.5), and reports 25.7 against 25.8 BLEU (Table 3, row E); 'more stable' has no source",
    verdict=UNSOURCED,
)


# home: errata
computed(
    "000-two-coefficients",
    "000 §5.4.2",
    says="an offset of 3 needs one rotation, cos B and sin B",
    measure="distinct angles at d_model = 512",
    claimed=1,
    rule=equal(),
    verdict=PENDING,
)


# home: errata
computed(
    "000-permutation",
    "000 §5.3",
    says="self-attention is permutation-invariant",
    measure="f(Px) = f(x)",
    claimed=True,
    rule=holds(),
    verdict=PENDING,
)


# home: errata
computed(
    "000-mask-example",
    "000 §5.2.2",
    says="the masked weights, rows 2-4",
    measure="the printed numbers, recomputed",
    claimed=AT_CALL,
    rule=PRINTED_DIGITS,
    why="a printed number agrees when it is the computed value to its printed digits (chapter 12's rule)",
    verdict=PENDING,
)


# home: errata
computed(
    "000-worked-no-shift",
    "000 §8.3",
    says="the decoder reads the target unshifted",
    measure="first decoder input is <s>, paper §3.1",
    claimed=AT_CALL,
    rule=equal(),
    verdict=PENDING,
)


# home: errata
computed(
    "000-worked-decoder",
    "000 §8.3.3",
    says="P(I) = 0.94 can occur with the given weights and a last Add & Norm",
    measure="upper bound, chapter 12",
    claimed=0.94,
    rule=at_least(0.94),
    why="",
    verdict=PENDING,
)


# home: errata
computed(
    "000-worked-encoder-output",
    "000 §8.2.2 step 5",
    says="the encoder output from the note's own residual sums",
    measure="the printed numbers, recomputed",
    claimed=AT_CALL,
    rule=PRINTED_DIGITS,
    why="a printed number agrees when it is the computed value to its printed digits (chapter 12's rule)",
    verdict=PENDING,
)


# home: errata
computed(
    "000-worked-ffn",
    "000 §8.2.2 step 4",
    says="the FFN output from the note's own ReLU rows",
    measure="the printed numbers, recomputed",
    claimed=AT_CALL,
    rule=PRINTED_DIGITS,
    why="a printed number agrees when it is the computed value to its printed digits (chapter 12's rule)",
    verdict=PENDING,
)


# home: errata
computed(
    "000-worked-layernorm",
    "000 §8.2.1 step 6",
    says="the first LayerNorm, from the note's own residual sums",
    measure="the printed numbers, recomputed",
    claimed=AT_CALL,
    rule=PRINTED_DIGITS,
    why="a printed number agrees when it is the computed value to its printed digits (chapter 12's rule)",
    verdict=PENDING,
)


# home: errata
stated(
    "000-worked-head2",
    "000 §8.2.1 step 4",
    says="head 2's output",
    claimed=AT_CALL,
    reason="'假设头 2 输出' (assume head 2's output), its computation skipped as 'the same as head 1'",
    verdict=ASSUMED,
)


# home: errata
computed(
    "000-worked-head-arithmetic",
    "000 §8.2.1 step 3",
    says="head 1 rows 2, 3 from the printed weights and V",
    measure="the printed numbers, recomputed",
    claimed="1.52 1.81 1.38 1.72",
    rule=PRINTED_DIGITS,
    why="a printed number agrees when it is the computed value to its printed digits (chapter 12's rule)",
    verdict=PENDING,
)


# home: errata
computed(
    "000-worked-weights",
    "000 §8.2.1 step 3",
    says="head-1 weights, rows 2 and 3, against the softmax of the note's own scaled scores",
    measure="the printed numbers, recomputed",
    claimed=AT_CALL,
    rule=PRINTED_DIGITS,
    why="a printed number agrees when it is the computed value to its printed digits (chapter 12's rule)",
    verdict=PENDING,
)


# home: errata
computed(
    "000-worked-model",
    "000 §8.1.2",
    says="the example is the real model with smaller dimensions",
    measure="embeddings scaled by sqrt(d_model), paper §3.4",
    claimed=True,
    rule=equal(),
    verdict=PENDING,
)


# home: errata
computed(
    "000-worked-positions",
    "000 §8.1.3",
    says="sin(p/100) 'approximately' 0.001, 0.002, 0.003",
    measure="input sums 0.601, 0.202; 0.101, 0.302, 0.503",
    claimed=AT_CALL,
    rule=PRINTED_DIGITS,
    why="a printed number agrees when it is the computed value to its printed digits (chapter 12's rule)",
    verdict=PENDING,
)


# home: errata
computed(
    "000-grid-search",
    "000 §7.3.2",
    says="grid search finds the global optimum",
    measure="grid of 5 points, optimum at 0.37",
    claimed=0.37,
    rule=close(abs=0.01),
    why="",
    verdict=PENDING,
)


# home: errata
stated(
    "000-hyperparameter-table",
    "000 §7.3.1",
    says="warm-up 2 000-8 000 steps and batches of 10 000-50 000 tokens are the paper's ranges; larger models overfit",
    reason="the paper uses 4 000 warm-up steps and about 25 000 + 25 000 tokens per batch (§5.1, §5.3); Table 3 (row C) has larger d_model and d_ff scoring better",
    verdict=UNSOURCED,
)


# home: errata
computed(
    "000-smoothing-perplexity",
    "000 §7.2.3",
    says="label smoothing lowers perplexity",
    measure="change of dev perplexity, paper Table 3",
    claimed="lower",
    rule=at_most(0),
    why="",
    verdict=PENDING,
)


# home: errata
computed(
    "000-smoothing-value",
    "000 §7.2.3",
    says="0.1 / 36 999",
    measure="the printed numbers, recomputed",
    claimed="2.69e-6",
    rule=PRINTED_DIGITS,
    why="a printed number agrees when it is the computed value to its printed digits (chapter 12's rule)",
    verdict=PENDING,
)


# home: errata
computed(
    "000-dropout-big",
    "000 §7.2.3",
    says="the big model uses dropout 0.3",
    measure="English-French, paper §6.1",
    claimed=0.3,
    rule=equal(),
    verdict=PENDING,
)


# home: errata
stated(
    "000-adam",
    "000 §7.2.2",
    says="Adam combines momentum with AdaGrad",
    reason="Kingma and Ba describe Adam as combining the advantages of AdaGrad and RMSProp (abstract); beta_1, beta_2 are decay rates of moving averages (Algorithm 1)",
    verdict=UNSOURCED,
)


# home: errata
computed(
    "000-lr-schedule",
    "000 §7.2.2",
    says="peak rate (with 512^-0.5 rounded to 0.044); falls to 0.707 every 10 000 steps",
    measure="from 20 000 to 30 000",
    claimed="0.000695 0.707",
    rule=PRINTED_DIGITS,
    why="a printed number agrees when it is the computed value to its printed digits (chapter 12's rule)",
    verdict=PENDING,
)
