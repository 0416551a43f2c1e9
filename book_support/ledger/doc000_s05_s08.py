"""Document 000's claims, sections 5 to 8 (see :mod:`book_support.ledger` for what a record states)."""

from book_support.claims import (
    AGREES,
    AGREES_BY_CONSTRUCTION,
    ASSUMED,
    CONTRADICTED,
    INHERITED,
    NOT_DERIVABLE,
    SUPPORTED,
    UNSOURCED,
    WRONG,
    at_least,
    at_most,
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
    measure="generation-time test loss of a model trained without the mask minus that of the same model"
    " trained with it, paired over 5 seeds, lower end of the 95 % interval, rounded down to whole nats,"
    " capped at 3",
    true_if="the model trained without the mask generates worse than the masked one; a model that copied in"
    " training but guessed honestly at generation would give 0 and fail the rule",
    rule=at_least(1.0),
    why="the data are random tokens, so copying the next input is all a model can learn and the masked"
    " model's honest loss is ln 10 = 2.3 nats: the case most favourable to the claim; 'garbled' asks for"
    " a clear loss beyond honest guessing, and 1 nat (the right token's probability cut by e) is that",
    verdict=AGREES,
)


# home: ch11
computed(
    "000-mask-consistency",
    "000 §5.1",
    says="setting the attention weights of future positions to -inf (the scores, as its §5.2.2 does) keeps"
    " the model from attending to future words, so that training and generation follow the same logic",
    measure="the teacher-forced outputs of all positions against the outputs computed from each prefix"
    " alone, to 1e-10 (without the causal mask the two differ: the page's control)",
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
    measure="largest weight on a masked key after adding the -inf mask and taking the softmax (its recipe), random 6 x 6 scores",
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
    measure="largest |S(dog chases cat) - P S(cat chases dog) P^T| for head 0's scaled scores S = QK^T /"
    " sqrt(d_k), the matrix with rows and columns reordered",
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
    says="to relate position pos to pos + k the model need not learn a map for each absolute position,"
    " only the coefficients that depend on k: for k = 3 it 'only needs to learn' (只需学习) cos B and sin"
    " B to relate any position to the one three places later",
    measure="argmax over the keys j of the score PE(q) M(k)^T PE(j), whose 2 x 2 blocks hold only cos B_i"
    " and sin B_i (B_i = k w_i), d_model = 512, a length-64 sequence, k = -1 and 3: at key q + k for"
    " every query q with q + k in range",
    true_if="a bilinear score whose only numbers are the cos B and sin B of each frequency pair attends"
    " at offset k from every position; a learned W^Q W^K^T can hold such blocks (exercise"
    " ex-ch6-direction). It would fail if the blocks shifted the other way or two positions shared an"
    " encoding",
    rule=holds(),
    verdict=AGREES,
)


# home: ch06
stated(
    "000-easier-to-learn",
    "000 §5.4.2",
    says="that the model needs to learn only the coefficients for k greatly lowers the difficulty of learning (大幅降低学习难度)",
    reason="the paper only 'hypothesized' that the encoding 'would allow the model to easily learn to"
    " attend by relative positions' (§3.5) and reports no test of it; the note drops the hedge and"
    " cites no measurement, and no page here measures how hard the task is to learn with either"
    " encoding",
    true_if="a measurement showed that models with sinusoidal positions learn relative attention with"
    " less effort than models without them",
    verdict=UNSOURCED,
)


# home: ch06
computed(
    "000-coefficients-per-pair",
    "000 §5.4.2",
    says="for k = 3 the map from PE(pos) to PE(pos + 3) has two coefficients, cos B and sin B, for each"
    " frequency pair i (B = 3 / 10000^(2i/d_model) carries the pair's index)",
    measure="most distinct magnitudes in one 2 x 2 block of the shift matrix M(3), d_model = 512 (by"
    " construction: a rotation block [[c, s], [-s, c]] has two unless |cos B| = |sin B|)",
    true_if="read per pair, as the definition of B allows, two numbers per pair; read as one pair for all"
    " frequencies it would be wrong (the page prints the number of distinct angles)",
    claimed=2,
    rule=equal(),
    why="structural: the count follows from the form of the rotation block, not from a measurement, so it agrees by construction",
    by_construction=True,
    verdict=AGREES_BY_CONSTRUCTION,
    narrows=(
        "000-two-coefficients",
        "the count of coefficients per frequency pair, not whether they suffice for attention",
    ),
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
    "000-sinusoid-stability",
    "000 §5.4.3",
    says="sinusoidal encodings train more stably than learned ones: their start is fixed, with no training"
    " fluctuation, where a learned table starts random and needs stable training",
    reason="neither the paper nor the note reports a measurement of the stability of either; the paper"
    " found the two 'nearly identical' in results (§3.5, Table 3 row E) and says nothing of stability",
    verdict=UNSOURCED,
)


# home: errata (also ch06)
cited(
    "000-sinusoid-reason",
    "000 §5.4.3",
    says="the paper made the sinusoidal encoding the default because it generalises better (the two being"
    " about equally good in its experiments); judged as the paper's hedged reason, the 'may' the note"
    " drops noted",
    cited="paper §3.5: 'We chose the sinusoidal version because it may allow the model to extrapolate to"
    " sequence lengths longer than the ones encountered during training': the reason is the paper's,"
    " given there as a possibility ('may') that the note drops",
    true_if="the paper's stated reason for its choice is extrapolation to longer sequences",
    reading=SUPPORTED,
)


# home: ch06
cited(
    "000-sinusoid-verified",
    "000 §5.4.3",
    says="the paper verified by experiment (通过实验验证) that the two encodings perform about equally well"
    " (0.1 BLEU apart); judged in the sentence's natural reading, where the verb covers that parity only"
    " and the clause after 'but' (但: sinusoids generalise better, hence the default) is the paper's"
    " reason, not something verified (that clause: 000-sinusoid-reason)",
    cited="paper, Table 3, row (E) and §3.5: its one experiment comparing the two encodings, at the"
    " training lengths, found 'nearly identical results' (25.7 against 25.8 BLEU on newstest2013). Read"
    " instead as saying the experiment verified better generalisation, the sentence would have no"
    " source: the paper reports no comparison beyond the trained lengths",
    true_if="the paper's experiments compared the two encodings and found them about equally good",
    reading=SUPPORTED,
    narrows=("000-learned-vs-sinusoid-bleu", "what the note says the paper verified by experiment"),
)


# home: ch06
computed(
    "000-any-length",
    "000 §5.4.3",
    says="its table's generalisation row, read as what each encoding defines (reading 1 of 2, 'defined at"
    " any length'; reading 2, 'works at any length', is 000-sinusoid-generalises-well): a sinusoidal"
    " encoding can handle sequences of any length (可处理任意长度序列); a learned one cannot handle"
    " sequences longer than L_max, the longest sequence length in training",
    measure="toy task trained on lengths 4-16 with a 64-row learned table, 5 seeds: the learned rows for"
    " positions 16-63 left at their random start by training in every seed (the sinusoidal rows exist"
    " at every position by their formula)",
    true_if="the learned table's rows beyond the trained lengths get nothing from training, while the"
    " sinusoidal formula gives every position a row. It holds by construction: Adam gives a row that no"
    " input indexes a zero gradient, and the note's table has exactly L_max rows",
    rule=holds(),
    by_construction=True,
    verdict=AGREES_BY_CONSTRUCTION,
)


# home: ch06
computed(
    "000-sinusoid-better",
    "000 §5.4.3",
    says="in generalisation to lengths beyond training, the sinusoidal encoding is strong and the learned"
    " one weak: sinusoids generalise better",
    measure="toy task, 5 seeds, trained on lengths 4-16, tested at length 64: sinusoidal minus learned"
    " accuracy at positions 16-63, full attention, lower end of the paired 95 % interval",
    true_if="the sinusoidal model does better than the learned one beyond the trained lengths",
    rule=at_least(0.1),
    why="'strong' against 'weak' claims an order, not a size, so any lower end above 0 would do; the page"
    " floors the lower end to a tenth (its digits differ between CPUs), and 0.1 is the smallest floored"
    " value above 0: the rule is stricter than the order needs, never looser",
    verdict=AGREES,
)


# home: errata (also ch06)
cited(
    "000-sinusoid-generalises-well",
    "000 §5.4.3",
    says="its table's generalisation row, read as what a model with the encoding achieves (reading 2 of 2,"
    " 'works at any length', the one the row's heading 泛化性, generalisation, points to; reading 1,"
    " 'defined at any length', is 000-any-length): sinusoidal encodings generalise well to sequences"
    " longer than those seen in training: the table rates them '强(可处理任意长度序列)' (strong: can handle"
    " sequences of any length)",
    cited="Press et al. 2022, Figure 1 and §2: language models with sinusoidal positions trained on L ="
    " 512 or 1024 tokens get worse perplexity as the input grows beyond L; the paper offers"
    " extrapolation only as a hope ('may', §3.5); chapter 6's toy task illustrates it. Having a row"
    " for every length (reading 1, 000-any-length) does not make the model good at those lengths",
    true_if="a model with sinusoidal positions kept most of its quality on sequences longer than those it was trained on",
    reading=CONTRADICTED,
)


# --- §6: the feed-forward network ----------------------------------------------------------------

# home: errata (also ch07)
computed(
    "000-attention-linear",
    "000 §6.1",
    says="attention's output is a linear fusion of the sentence's vectors (a weighted sum of them, for given"
    " weights), which cannot capture complex relations; so attention adds no non-linearity, and the FFN"
    " must supply it (引入, it brings it in)",
    measure="|f(2x) - 2f(x)| / |2f(x)| for a library attention layer without biases, inputs with entries"
    " of unit variance (the scale of LayerNorm outputs)",
    true_if="attention were linear in its input (a map without biases then gives f(2x) = 2f(x)); it is"
    " linear in the values only for given weights. The verdict depends on the input scale: at x / 100 the"
    " weights are nearly uniform, the error is about 3e-4 and the rule would pass; at the unit scale a"
    " model's sub-layers see, it fails",
    claimed=0.0,
    rule=close(abs=0.01),
    why="a map linear in its input gives 0 up to rounding (the bias-free linear layer beside it prints"
    " 0.00); 0.01 is far above float32 rounding",
    verdict=WRONG,
)


# home: ch07
cited(
    "000-ffn-sizes",
    "000 §6.2.1, 001 §3",
    says="the FFN maps d_model = 512 to d_ff = 2048 and back (the paper's setting)",
    cited="paper §3.3: 'The dimensionality of input and output is d_model = 512, and the inner-layer has"
    " dimensionality d_ff = 2048'",
    reading=SUPPORTED,
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
    says="with separate parameters for each position the FFN would have L times as many parameters (L the sequence length)",
    measure="parameters of T separate FFNs over those of one shared FFN (T, the book's letter for the"
    " document's L; T copies of one: so by construction)",
    claimed=AT_CALL,
    rule=equal(),
    by_construction=True,
    verdict=AGREES_BY_CONSTRUCTION,
)


# home: ch07
stated(
    "000-per-position-overfit",
    "000 §6.2.2",
    says="an FFN with separate parameters for each position would overfit easily",
    reason="no experiment in the note or the paper (which never tried per-position weights), and none"
    " here: whether T (the document's L) times the parameters overfit depends on the data, the training and the"
    " regularisation, so the claim cannot be derived from what is given",
    verdict=NOT_DERIVABLE,
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
    says="as an example of that interchangeable swap (the FFN computed as 1 x 1 convolutions), some improved"
    " models, such as ConvBERT, use 1 x 1 convolutions in place of the FFN, with similar performance",
    cited="Jiang et al. 2020 (ConvBERT): the abstract proposes span-based dynamic convolution heads 'to"
    " replace these self-attention heads'; its method section (§3, the grouped feed-forward module)"
    " replaces the dense FFN by a grouped linear operator, block-diagonal weights with fewer"
    " parameters: a grouped 1 x 1 convolution, which computes a different function from the FFN, not"
    " the equivalent swap",
    true_if="ConvBERT's feed-forward module computed the same function as the FFN, written as 1 x 1 convolutions",
    reading=CONTRADICTED,
)


# --- §6.4: residual connections and the order of LayerNorm --------------------------------------

# home: ch08
computed(
    "000-residual-gradient",
    "000 §6.4.2",
    says="for y = x + F(x) the gradient is dL/dy (1 + dF/dx), against dL/dy dF/dx without the residual",
    measure="sympy: the Jacobian of x + F(x) is I + J_F (D = 2)",
    rule=holds(),
    verdict=AGREES,
)


# home: ch08
stated(
    "000-deep-gradient-factor",
    "000 §6.4.2",
    says="when the network is deep, |dF/dx| is usually below 1 (0.9, say), so that without residual"
    " connections the repeated products drive the gradient to almost 0",
    reason="the note gives no initialisation, and the premise depends on it: at PyTorch's default"
    " (s^2 = 1/18 per FFN block, which the library's FFN keeps) the factor is below 1 and the premise"
    " holds; at He et al.'s variance-preserving initialisation it is about 1 and fails. 'Usually'"
    " cannot be decided from what is given (chapter 8, Initialisation and scale)",
    true_if="the initialisations in use made each layer's factor smaller than 1",
    verdict=NOT_DERIVABLE,
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
    says="with a residual connection, dF/dx = -0.1 gives a factor 1 - 0.1 = 0.9 per layer, so the gradient decays slowly",
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
    "000-residual-amplify",
    "000 §6.4.2",
    says="with a residual connection, dF/dx = 0.1 gives a factor 1 + 0.1 = 1.1 per layer, which amplifies the gradient",
    measure="what a factor 1 + 0.1 per layer makes of the gradient after 100 layers, the depth of its own example",
    rule=at_least(1.0),
    why="'amplifies' (放大) asks only that the gradient come out larger than it went in",
    verdict=AGREES,
)


# home: ch08
computed(
    "000-residual-vanishing",
    "000 §6.4.2",
    says="so residual connections keep the gradient at relatively large values (较大数值) in deep networks"
    " and effectively alleviate its vanishing",
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
    says="the Transformer uses the order it calls 'pre-activation', LayerNorm(x + F(x)), rather than the"
    " 'post-activation' order x + LayerNorm(F(x))",
    cited="Xiong et al. 2020, §3 and Figure 1: LayerNorm(x + F(x)) is the Post-LN Transformer,"
    " x + F(LayerNorm(x)) the Pre-LN one; He et al. 2016b call 'pre-activation' the unit that normalises"
    " inside the branch, before the weights; Radford et al. 2019 (GPT-2), §2.3: layer normalisation"
    " 'was moved to the input of each sub-block'",
    true_if="LayerNorm(x + F(x)) were the arrangement the literature calls pre-activation",
    reading=CONTRADICTED,
)


# home: ch08
cited(
    "000-bert-kept-order",
    "000 §6.4.3",
    says="later work such as BERT kept this order, LayerNorm(x + F(x))",
    cited="BERT's released code (google-research/bert, modeling.py, transformer_model): attention_output ="
    " layer_norm(attention_output + layer_input), layer_output = layer_norm(layer_output +"
    " attention_output); GPT-1 too: Radford et al. 2018, Figure 1, LayerNorm after each residual sum",
    reading=SUPPORTED,
    narrows=("000-pre-post-ln", "what later models did, not the name of the order"),
)


# home: ch08
cited(
    "000-post-ln-standard",
    "000 §6.4.3",
    says="this order, LayerNorm(x + F(x)), became the standard design of Transformer models",
    cited="Radford et al. 2019 (GPT-2), §2.3: layer normalisation 'was moved to the input of each"
    " sub-block'; most later models do the same, among them LLaMA (Touvron et al. 2023, §2.2: 'we"
    " normalize the input of each transformer sub-layer'), which 000's own abstract names among the"
    " Transformer's successors; BERT and GPT-1 kept the order, the later majority did not",
    true_if="most Transformer models after the paper normalised after each residual sum; that held for"
    " the models of 2018 (BERT, GPT-1) only",
    reading=CONTRADICTED,
    narrows=("000-pre-post-ln", "what later models did, not the name of the order"),
)


# home: ch08
stated(
    "000-bert-order",
    "000 §6.4.3",
    says="later work such as BERT confirmed (验证了) the effectiveness of this order",
    reason="BERT uses the order (its released modeling.py normalises after each residual sum), but its"
    " paper compares no placements of LayerNorm: keeping an order is not confirming it; the placements"
    " were compared later (Xiong et al. 2020), and not by BERT",
    verdict=UNSOURCED,
    narrows=("000-bert-kept-order", "that BERT confirmed the order works, not that it kept it"),
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
    measure="share of padding positions in length-sorted batches over that in randomly ordered ones, copy task with 1-50 symbols",
    true_if="grouping by length leaves less than half of the padding that random batching makes",
    rule=at_most(0.5),
    why="'avoids most of the padding' asks that grouping remove more than half of it: at most half of the"
    " random order's padding may be left",
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
    cited="Kingma and Ba 2015, §1 (Introduction): Adam combines 'the advantages of two recently popular methods:"
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
cited(
    "000-dropout-sites",
    "000 §7.2.3",
    says="dropout is applied to the output of every sub-layer of the encoder and decoder, and to the sums"
    " of embeddings and positional encodings",
    cited="paper §5.4: 'We apply dropout to the output of each sub-layer, before it is added to the"
    " sub-layer input and normalized. In addition, we apply dropout to the sums of the embeddings and"
    " the positional encodings in both the encoder and decoder stacks'",
    reading=SUPPORTED,
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
    reason="the warm-up and batch ranges and the overfitting effects cite no source: the paper used 4 000"
    " warm-up steps (§5.3) and about 25 000 source and 25 000 target tokens per batch (§5.1) throughout"
    " and varied neither, and in its Table 3 (row C) larger d_model and d_ff score better on the"
    " development set (the d_model, d_ff and eps_ls ranges are Table 3's variations)",
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
cited(
    "000-grid-search",
    "000 §7.3.2",
    says="grid search, which trains every combination of the listed values and keeps the best, is simple"
    " and intuitive and finds the best combination, which it calls the global optimum (全局最优组合); its"
    " drawback is the cost",
    cited="Bergstra and Bengio 2012, §1: grid search tries every combination of the values listed for each"
    " hyperparameter, so it returns the best of those combinations; values between the grid points are"
    " never tried, and for the same budget random search often finds better settings",
    true_if="'global optimum' means the best of the grid's combinations, as the sentence before it"
    " describes; read as the best setting overall it would be wrong (chapter 10's toy objective, whose"
    " optimum lies off the grid by construction, illustrates the difference)",
    reading=SUPPORTED,
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
cited(
    "000-worked-model",
    "000 §8.4",
    says="with its simplified sizes the example's core logic (核心逻辑) is exactly that of the real model:"
    " only the dimensions grow, the computation is unchanged",
    cited="paper §3.4: 'In the embedding layers, we multiply those weights by sqrt(d_model)' (000 §8.1.3"
    " adds the embeddings unscaled); §3.1 and §3.2.2, read as an inference: every attention sub-layer has"
    " its own projections W_i^Q, W_i^K, W_i^V and no sharing between encoder and decoder is stated (§3.4"
    " states the one sharing, of the embeddings), where 000 §8.3.1 reuses the encoder's W_q, W_k, W_v;"
    " §3.1: every sub-layer is followed by Add & Norm"
    " (000 §8.3.3 goes from the FFN straight to the output layer) and the output embeddings are offset"
    " by one position (000 §8.3 reads the target unshifted)",
    true_if="the example computed what the paper's model computes, at smaller sizes",
    reading=CONTRADICTED,
)


# home: ch06
cited(
    "000-worked-embedding-scale",
    "000 §8.1.3",
    says="the model's input is the embedding plus the positional encoding, added as they are",
    cited="paper §3.4: 'In the embedding layers, we multiply those weights by sqrt(d_model)', a factor 2"
    " at the example's d_model = 4",
    reading=CONTRADICTED,
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
cited(
    "000-worked-no-shift",
    "000 §8.3",
    says="the decoder reads the target [I, love, machine, learning] and predicts [I, love, machine,"
    " learning] at the same positions",
    cited="paper §3.1: the decoder's 'output embeddings are offset by one position', so that 'the"
    " predictions for position i can depend only on the known outputs at positions less than i'; the"
    " note's own §5.1 generates the first word from nothing, or a start symbol",
    true_if="in training the decoder read the target itself, unshifted, as its input",
    reading=CONTRADICTED,
)
