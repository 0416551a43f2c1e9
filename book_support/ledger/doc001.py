"""Document 001's claims (see :mod:`book_support.ledger` for what a record states).

Document 001 is a PyTorch walk-through: most of its claims are made by its code and the docstrings
and comments in it, so most records here judge what a piece of its code does against what the
document says it does. Section numbers are the document's own (§1.3.2 is the encoder stack, §2.1.3
the scaled dot-product module, §6.1 the positional module); its complete model and its causal-mask
helper come after §6.1, under a heading without a number ("full model").
"""

from book_support.claims import (
    AGREES,
    AGREES_BY_CONSTRUCTION,
    CONTRADICTED,
    NOT_DERIVABLE,
    SUPPORTED,
    WRONG,
    close,
    holds,
)
from book_support.ledger import cited, computed, stated

# --- §1.3: the encoder and decoder stacks -----------------------------------------------------

# home: errata (also ch08, ch09)
cited(
    "001-final-norm",
    "001 §1.3.2, §1.3.4",
    says=(
        "its encoder and decoder stacks, built from the Post-LN layers of §1.3.1 and §1.3.3 (as §1.1 "
        "puts it, each sub-layer's output is LayerNorm(x + Sublayer(x))), each end with one more, "
        "'final' LayerNorm after the last layer; the walk-through presents its code as the model of "
        "the 2017 paper, so it implies that the paper's stacks end the same way"
    ),
    cited=(
        "paper §3.1: 'the output of each sub-layer is LayerNorm(x + Sublayer(x))', so every layer "
        "already ends with a LayerNorm; Figure 1: nothing between the last of the N encoder layers and "
        "the encoder-decoder attention, nor between the last decoder layer and the output Linear"
    ),
    reading=CONTRADICTED,
    true_if="the paper's stacks also end with a LayerNorm after their last layer (its description of its own code is true)",
)

# home: errata
computed(
    "001-decoder-return",
    "001 §1.3.4",
    says=(
        "its Decoder.forward returns the decoded output, of shape (batch, tgt_len, d_model), as its "
        "docstring says; the listing ends with the final LayerNorm"
    ),
    measure="does a method that ends like the printed listing, a LayerNorm and no return, return anything but None",
    true_if="the listing as printed returns the normalised states (the full project it links to is not judged)",
    rule=holds(),
    verdict=WRONG,
)

# home: errata
computed(
    "001-cross-mask",
    "001 §1.3.3",
    says=(
        "its decoder layer turns a two-dimensional source mask, (S, S), into the cross-attention mask "
        "(batch, T, S) with unsqueeze(0) and expand(batch, T, -1); a three-dimensional one by "
        "repeating its last row"
    ),
    measure="the two-dimensional path: does expand succeed for S = 3 source and T = 4 target positions",
    true_if="the two-dimensional path gives a (batch, T, S) mask when S != T, the usual case in translation",
    rule=holds(),
    verdict=WRONG,
)

# --- §2: attention ----------------------------------------------------------------------------

# home: ch02
computed(
    "001-softmax-range",
    "001 §2.1.2",
    says=(
        "the softmax normalises the scaled scores, squeezing each weight into the open interval (0, 1) "
        "(§2.1.1: the weights are positive and sum to 1)"
    ),
    measure="exact arithmetic (sympy): the smaller of two weights whose scores differ by 110",
    true_if=(
        "every softmax weight lies strictly between 0 and 1 in exact arithmetic (in floating point a tiny weight can round to 0)"
    ),
    rule=holds(),
    verdict=AGREES,
)

# home: errata (also ch02)
computed(
    "001-dropped-weights",
    "001 §2.1.3",
    says=(
        "its scaled dot-product module applies dropout to the softmax weights and returns the output "
        "together with 'the attention weight matrix', (batch, seq_q, seq_k); in §2.1.1 the attention "
        "weights are the softmax's, positive and summing to 1"
    ),
    measure=(
        "training mode, where its dropout acts: largest |row sum - 1| of the weights it returns, "
        "softmax then dropout p = 0.1 as the module orders them"
    ),
    true_if=(
        "the tensor it returns while training is the attention weights in §2.1.1's sense, rows summing "
        "to 1 (so it is in evaluation mode, where dropout does nothing; while training it is their "
        "dropped-out copy, the matrix it applies to the values, as nn.MultiheadAttention's is: read as "
        "'the matrix applied to the values', the name holds, hence severity cosmetic)"
    ),
    claimed=0.0,
    rule=close(abs=1e-12),
    why=("§2.1.1's weights sum to 1 exactly; 1e-12 admits only float64 rounding (below 1e-15 for a few keys, bk.claims.below)"),
    verdict=WRONG,
)

# home: errata (also ch05)
computed(
    "001-minus-1e9",
    "001 §2.1.3",
    says="masked scores are set to a very small value, -1e9, so that their weight after the softmax is close to 0",
    measure=(
        "float32, the dtype its code runs in: the weight left on a masked key that holds the row's "
        "largest score, after masked_fill(-1e9), in a row with visible keys"
    ),
    true_if=(
        "a masked key keeps a negligible weight; so in float32 for every row with a visible key (a row "
        "with none gets uniform weights, and float16 refuses the fill)"
    ),
    claimed=0.0,
    rule=close(abs=1e-6),
    why=(
        "the document promises only 'close to 0'; a weight below 1e-6 moves a float32 output of order 1 "
        "by less than ten units in its last place"
    ),
    verdict=AGREES,
)

# home: errata (also ch05)
computed(
    "001-mask-conventions",
    "001 full model, §2.1.3",
    says=(
        "its model's helper builds the mask 'for the decoder's autoregressive training', which it calls "
        "lower-triangular: 0 on and below the diagonal, -inf above; its attention (§2.1.3), which the "
        "decoder uses, masks the scores where mask == 0"
    ),
    measure="total weight on future keys, over T = 4 query rows, when its attention reads the helper's mask",
    true_if="passed to the decoder it is written for, the helper's mask keeps every query off later positions",
    claimed=0,
    rule=close(abs=1e-9),
    why=(
        "a causal mask leaves exactly 0 on future keys (exp(-1e9) underflows); 1e-9 absorbs only "
        "rounding, far below the whole rows of weight an inverted mask moves"
    ),
    verdict=WRONG,
)

# home: errata
cited(
    "001-mha-formula",
    "001 §2.2.1",
    says=(
        "it introduces multi-head attention with the single-head formula Attention(Q, K, V) = "
        "softmax(QK^T / sqrt(d_k)) V, followed by 'where head_i = Attention(QW_i^Q, KW_i^K, VW_i^V)'; "
        "the formula that uses head_i is not written (its steps below describe concatenating the heads "
        "and a final linear layer)"
    ),
    cited=(
        "paper §3.2.2: MultiHead(Q, K, V) = Concat(head_1, ..., head_h) W^O, where head_i = "
        "Attention(QW_i^Q, KW_i^K, VW_i^V); the display puts the single-head formula in its place"
    ),
    reading=CONTRADICTED,
    true_if="the formula displayed is the paper's multi-head formula",
)

# home: errata (also ch04)
stated(
    "001-averaged-weights",
    "001 §2.2.3",
    says=(
        "it presents nn.MultiheadAttention as the built-in counterpart of its hand-written module; its "
        "example (batch 2, d_model 512, 8 heads, 10 positions) calls it with need_weights=True and "
        "prints the shape of what it returns, which it calls the attention weights"
    ),
    verdict=NOT_DERIVABLE,
    reason=(
        "the example states no shape or meaning beyond 'attention weights'; the built-in returns their "
        "mean over heads, (2, 10, 10), unless average_attn_weights=False"
    ),
    true_if=(
        "the weights it prints are the per-head weights its hand-written module documents, (batch, "
        "heads, seq_q, seq_k): the document does not say so, and called as in the example they are not"
    ),
)

# --- §4: residual connections and LayerNorm -------------------------------------------------

# home: errata (also ch08)
cited(
    "001-ln-labels",
    "001 §4.1",
    says=(
        "a comment in its residual sub-layer says the original paper computes x + dropout(sublayer(norm(x))) "
        "and modern implementations norm(x + dropout(sublayer(x))); the line under it computes the second"
    ),
    cited=(
        "paper §3.1: 'the output of each sub-layer is LayerNorm(x + Sublayer(x))' (Post-LN, the "
        "comment's 'modern' formula and the code's line); §5.4: dropout is applied to each sub-layer's "
        "output before it is added to the sub-layer input and normalised"
    ),
    reading=CONTRADICTED,
    true_if="the paper's order is x + sublayer(norm(x)) (Pre-LN)",
)

# home: errata
cited(
    "001-degradation",
    "001 §4.1",
    says=(
        "residual blocks mainly prevent degradation (accuracy that stops improving, and may fall markedly, "
        "as a network gets deeper), a problem that arises mainly from vanishing and exploding gradients"
    ),
    cited=(
        "He et al. 2016, §1: vanishing/exploding gradients are largely addressed by normalised "
        "initialisation and normalisation layers, and degradation shows once deep plain networks do "
        "converge; §4.1: their plain networks, trained with BatchNorm, keep healthy forward signals "
        "and backward gradient norms, so the difficulty is unlikely to come from vanishing gradients"
    ),
    reading=CONTRADICTED,
    true_if="degradation in deep plain networks comes mainly from vanishing or exploding gradients",
)

# home: ch08
computed(
    "001-layernorm-axes",
    "001 §4.2",
    says=(
        "LayerNorm normalises all the features of a single sample, where BatchNorm normalises each "
        "feature over all the samples of a batch"
    ),
    measure=(
        "a (B, T, D) batch, one input entry moved: the outputs that move are exactly that token's D "
        "features under LayerNorm(D), and exactly that feature's B x T entries under BatchNorm"
    ),
    true_if=(
        "a sample is one token's vector x_i, its D = d_model features (the reading given to 002's "
        "'sample vector' too, and the one its own nn.LayerNorm(d_model) implements): its statistics "
        "cover that vector and nothing else, and BatchNorm's one feature over the batch's B x T vectors; "
        "read so, nn.LayerNorm(D) spans those D features by its definition (Ba et al. 2016, §3 and "
        "§3.1: one case's hidden units, at each time step), so the check reads it back: by construction"
    ),
    rule=holds(),
    by_construction=True,
    verdict=AGREES_BY_CONSTRUCTION,
)

# home: errata (also ch08)
cited(
    "001-ln-placement",
    "001 §4.2",
    says=(
        "LayerNorm is a core part of Transformer models such as BERT and GPT (judged for BERT and "
        "GPT-1), where it usually normalises after the self-attention and after the feed-forward "
        "network, to keep the numbers stable"
    ),
    cited=(
        "BERT: Devlin et al. 2019, §3, build on the original Transformer, whose LayerNorm follows each "
        "residual sum (paper §3.1); GPT-1: Radford et al. 2018, Figure 1, LayerNorm after each "
        "residual sum"
    ),
    reading=SUPPORTED,
    true_if=(
        "BERT and GPT-1 put LayerNorm after each sub-layer's residual sum; the unversioned 'GPT' needs "
        "that qualifier (the pages' note): from GPT-2 on it moves to each sub-block's input (Radford "
        "et al. 2019, §2.3)"
    ),
)

# --- §5, §6 and the full model --------------------------------------------------------------

# home: ch06 (the errata entry on the module mentions it)
computed(
    "001-pe-parity",
    "001 §6.1",
    says=(
        "its module's docstring: the sine gives PE(pos, 2i) = sin(pos / 10000^(2i/d_model)) and the "
        "cosine PE(pos, 2i+1) = cos(pos / 10000^(2i/d_model)), which it calls 'even positions' and "
        "'odd positions' (where pos is the position)"
    ),
    measure=(
        "largest |table - formula| over 50 positions and d_model = 8: the table its __init__ lines build "
        "(in float64) against its docstring's two formulas, entry by entry"
    ),
    true_if=(
        "the module builds the docstring's formulas: sine in dimension 2i, cosine in 2i+1; the parity "
        "is the dimension's, so the words 'even/odd positions' misname it (a caveat, as 000-permutation's "
        "'invariant' for equivariance: the name is wrong, the formula beside it right)"
    ),
    claimed=0.0,
    rule=close(abs=1e-12),
    why=(
        "the code's exp(-2i ln(10000) / d_model) and the formula's 10000^(-2i/d_model) differ by float64 "
        "rounding, times pos < 50: far below 1e-12; a wrong frequency or a swapped sin/cos moves an "
        "entry by order 1"
    ),
    verdict=AGREES,
)

# home: errata (also ch06)
computed(
    "001-pe-batch",
    "001 §6.1",
    says=(
        "its positional-encoding module takes sequence-first (T, B, D) or batch-first (B, T, D) input, "
        "tells the two apart itself, and adds each position its encoding"
    ),
    measure=(
        "a batch-first 3 x 5 input (T != max_len = 5000) through the module's branch test and the "
        "addition it selects: are the vectors added at different positions different"
    ),
    true_if="a batch-first input of any length gets a different vector at each position",
    rule=holds(),
    verdict=WRONG,
)

# home: errata (also ch09)
cited(
    "001-model-output",
    "001 full model, §5",
    says=(
        "its §5 follows the paper's §3.4 on learned embeddings and the output softmax, and its "
        "complete model, presented as the paper's, gives the source embedding, the target embedding "
        "and the output layer a matrix each; it implies that the paper's model has three"
    ),
    cited=(
        "paper §3.4: 'we share the same weight matrix between the two embedding layers and the "
        "pre-softmax linear transformation' (the sentence 001's §5 leaves out)"
    ),
    reading=CONTRADICTED,
    true_if="the paper's model also keeps three separate matrices (its description of its own code is true)",
)
