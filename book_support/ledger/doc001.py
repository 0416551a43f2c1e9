"""Document 001's claims (see :mod:`book_support.ledger` for what a record states)."""

from book_support.claims import AGREES, AGREES_BY_CONSTRUCTION, ASSUMED, CONTRADICTED, INHERITED, NOT_DERIVABLE, SUPPORTED, UNSOURCED, WRONG
from book_support.claims import at_least, at_most, between, close, equal, holds, rounds_to
from book_support.ledger import AT_CALL, PENDING, absent, cited, computed, stated
from book_support.worked_examples.audit import PRINTED_DIGITS


# home: ch02
computed(
    "001-weights-returns-attention-weights-rows",
    "001 §2.1 code",
    says="the weights it returns are attention weights, rows summing to 1",
    measure="weights after dropout in evaluation mode: largest |row sum - 1|, rounding noise shown as its bound",
    claimed=0.0,
    rule=close(abs=1e-12),
    why="",
    verdict=PENDING,
)

# home: ch02
computed(
    "001-softmax-maps-scores-into-0",
    "001 §2.1",
    says="softmax maps scores into (0, 1)",
    measure="exact arithmetic: the smaller weight at a score gap of 110",
    rule=holds(),
    verdict=PENDING,
)

# home: ch04
computed(
    "001-attn-weights-prints-shape-batch",
    "001 §2.2.3",
    says="the attn_weights it prints, shape (batch, seq, seq), are one map for all heads: their mean",
    measure="FIXME",
    rule=holds(),
    verdict=PENDING,
)

# home: ch05
computed(
    "001-masked-fill-mask-0-1e9",
    "001",
    says="masked_fill(mask == 0, -1e9) leaves a masked key weight 0",
    measure="float32, a row with a visible key",
    claimed=0.0,
    rule=equal(),
    verdict=PENDING,
)

# home: ch06
computed(
    "001-even-positions-use-sin-odd",
    "001 §6",
    says="'even positions use sin, odd use cos'",
    measure="paper §3.5: PE(pos, 2i) = sin, dimension 2i",
    claimed="positions",
    rule=equal(),
    verdict=PENDING,
)

# home: ch06
computed(
    "001-module-gives-each-position-batch",
    "001 §6",
    says="its module gives each position of a batch-first input (B, T, D), T != max_len, its own encoding",
    measure="the 3 x 5 demo",
    rule=holds(),
    verdict=PENDING,
)

# home: ch08
computed(
    "001-bert-gpt-put-layernorm-after",
    "001 §4.2",
    says="BERT and GPT put LayerNorm after attention and the FFN",
    measure="FIXME",
    claimed=True,
    rule=equal(),
    verdict=PENDING,
)

# home: ch08
computed(
    "001-layernorm-normalises-sample-s-features",
    "001 §4.2",
    says="LayerNorm normalises one sample's features",
    measure="computed: entries behind one statistic",
    claimed=AT_CALL,
    rule=equal(),
    verdict=PENDING,
)

# home: ch08
computed(
    "001-more-layernorm-after-post-ln",
    "001 §1.3.2",
    says="one more LayerNorm after the Post-LN stack, as in the paper's model",
    measure="computed: final norms of the paper's Post-LN stack, §3.1",
    claimed=1,
    rule=equal(),
    verdict=PENDING,
)

# home: ch08
computed(
    "001-norm-x-dropout-sublayer-x",
    "001 §4.1",
    says="norm(x + dropout(sublayer(x))) is the 'modern' order, not the paper's",
    measure="computed: the paper's Post-LN layer equals it",
    claimed=False,
    rule=equal(),
    verdict=PENDING,
)

# home: ch08
computed(
    "001-paper-computes-x-dropout-sublayer",
    "001 §4.1",
    says="the paper computes x + dropout(sublayer(norm(x)))",
    measure="computed: the library's Post-LN layer, the paper's §3.1 order, equals it",
    claimed=True,
    rule=equal(),
    verdict=PENDING,
)

# home: ch09
computed(
    "001-separate-source-target-output-matrices",
    "001 §5",
    says="separate source, target and output matrices",
    measure="computed: distinct matrices in the paper's model, §3.4",
    claimed=3,
    rule=equal(),
    verdict=PENDING,
)

# home: ch09
computed(
    "001-more-layernorm-after-post-ln-2",
    "001 §1.3",
    says="one more LayerNorm after the Post-LN encoder and decoder stacks, as in the paper's model",
    measure="computed: final norms of the paper's Post-LN stack, paper §3.1",
    claimed=1,
    rule=equal(),
    verdict=PENDING,
)

# home: errata
computed(
    "001-model-output",
    "001 full model",
    says="a model returning probabilities trains with cross-entropy",
    measure="loss of a confident, correct prediction",
    claimed=0.2,
    rule=at_most(1),
    why="",
    verdict=PENDING,
)

# home: errata
computed(
    "001-pe-batch",
    "001 §6.1",
    says="batch-first input gets a different vector per position",
    measure="FIXME",
    claimed=True,
    rule=holds(),
    verdict=PENDING,
)

# home: errata
stated(
    "001-ln-placement",
    "001 §4.2",
    says="BERT and GPT put LayerNorm after each sub-layer",
    reason="true of BERT and GPT-1; GPT-2 moves it before each sub-block (Radford et al. 2019, §2.3)",
    verdict=UNSOURCED,
)

# home: errata
stated(
    "001-degradation",
    "001 §4.1",
    says="degradation comes from vanishing gradients",
    reason="He et al. 2016 (§4.1) argue it is unlikely to be caused by vanishing gradients",
    verdict=UNSOURCED,
)

# home: errata
computed(
    "001-ln-labels",
    "001 §4.1",
    says="the paper computes x + dropout(sublayer(norm(x)))",
    measure="FIXME",
    claimed="pre",
    rule=equal(),
    verdict=PENDING,
)

# home: errata
computed(
    "001-averaged-weights",
    "001 §2.2.3",
    says="nn.MultiheadAttention returns per-head weights",
    measure="shape by default",
    claimed=(1, 2, 6, 6),
    rule=equal(),
    verdict=PENDING,
)

# home: errata
stated(
    "001-mha-formula",
    "001 §2.2.1",
    says="MultiHead(Q, K, V) = softmax(QK^T / sqrt(d_k)) V",
    reason="the paper's formula is Concat(head_1, ..., head_h) W^O (§3.2.2)",
    verdict=UNSOURCED,
)

# home: errata
computed(
    "001-minus-1e9",
    "001 §2.1.3",
    says="filling with -1e9 works like -inf",
    measure="float16",
    claimed=True,
    rule=holds(),
    verdict=PENDING,
)

# home: errata
computed(
    "001-mask-conventions",
    "001 §2.1.3, §2.2.3",
    says="the helper's causal mask keeps the hand-written attention causal",
    measure="weight on future keys",
    claimed=0,
    rule=close(abs=1e-9),
    why="",
    verdict=PENDING,
)

# home: errata
computed(
    "001-dropped-weights",
    "001 §2.1.3",
    says="the module returns the attention weights",
    measure="in evaluation mode rows sum to 1, as in nn.MultiheadAttention",
    claimed=True,
    rule=holds(),
    verdict=PENDING,
)

# home: errata
computed(
    "001-cross-mask",
    "001 §1.3.3",
    says="a (S, S) mask expands to the cross-attention mask",
    measure="S = 3, T = 4",
    claimed=True,
    rule=holds(),
    verdict=PENDING,
)

# home: errata
computed(
    "001-decoder-return",
    "001 §1.3.4",
    says="Decoder.forward returns the normalised states",
    measure="FIXME",
    claimed=True,
    rule=holds(),
    verdict=PENDING,
)

# home: errata
computed(
    "001-final-norm",
    "001 §1.3.2",
    says="the Post-LN stack ends with one more LayerNorm",
    measure="final norms in the paper's Post-LN model, §3.1",
    claimed=1,
    rule=equal(),
    verdict=PENDING,
)
