"""Document 002's claims (see :mod:`book_support.ledger` for what a record states)."""

from book_support.claims import AGREES, AGREES_BY_CONSTRUCTION, ASSUMED, CONTRADICTED, INHERITED, NOT_DERIVABLE, SUPPORTED, UNSOURCED, WRONG
from book_support.claims import at_least, at_most, between, close, equal, holds, rounds_to
from book_support.ledger import AT_CALL, PENDING, absent, cited, computed, stated
from book_support.worked_examples.audit import PRINTED_DIGITS


# home: ch01
computed(
    "002-parallel-speed-up-needs-large",
    "002 §7.1 (TF -)",
    says="the parallel speed-up needs large batches",
    measure="sequential operations added per position by self-attention, batch of 2",
    rule=at_least(1),
    why="",
    verdict=PENDING,
)

# home: ch01
stated(
    "002-expensive-deploy",
    "002 §7.1 (TF -)",
    says="expensive to deploy",
    reason="a property of model size, not of the architecture",
    verdict=UNSOURCED,
)

# home: ch01
computed(
    "002-latency-grows-l-2-decoding",
    "002 §7.1 (TF -)",
    says="latency grows with L^2",
    measure="decoding L tokens with a KV cache: FLOPs per doubling of L",
    rule=at_least(3.5),
    why="",
    verdict=PENDING,
)

# home: ch01
computed(
    "002-time-o-l-2-flops",
    "002 §7.1 (TF -)",
    says="time O(L^2)",
    measure="FLOPs per doubling of L at L = 16384, d = 512",
    rule=at_least(3.5),
    why="",
    verdict=PENDING,
)

# home: ch01
stated(
    "002-general-across-modalities",
    "002 §7.1 (TF +)",
    says="general across modalities",
    reason="no citation; see ViT and Whisper; not tested here",
    verdict=UNSOURCED,
)

# home: ch01
stated(
    "002-scales-well-width-depth",
    "002 §7.1 (TF +)",
    says="scales well with width and depth",
    reason="no citation; see Kaplan et al. (2020); not tested here",
    verdict=UNSOURCED,
)

# home: ch01
computed(
    "002-o-1-path-between-positions",
    "002 §7.1 (TF +)",
    says="O(1) path between positions",
    measure="distinct path lengths for T = 8 ... 64",
    claimed=1,
    rule=equal(),
    verdict=PENDING,
)

# home: ch01
computed(
    "002-highly-parallel-sequential-operations-added",
    "002 §7.1 (TF +)",
    says="highly parallel",
    measure="sequential operations added per position, self-attention",
    claimed=0,
    rule=equal(),
    verdict=PENDING,
)

# home: ch01
stated(
    "002-effective-memory-few-hundred-tokens",
    "002 §7.1 (RNN -)",
    says="effective memory of a few hundred tokens",
    reason="no citation; consistent with Khandelwal et al. (2018), about 200 tokens",
    verdict=UNSOURCED,
)

# home: ch01
computed(
    "002-stacking-layers-worsens-serial-bottleneck",
    "002 §7.1 (RNN -)",
    says="stacking layers worsens the serial bottleneck",
    measure="depth of 2 stacked Elman layers / 1, T = 64",
    rule=at_least(1.5),
    why="",
    verdict=PENDING,
)

# home: ch01
computed(
    "002-vanishing-gradients-gated-cells-too",
    "002 §7.1 (RNN -)",
    says="vanishing gradients, gated cells too",
    measure="GRU: fraction left after 100 steps",
    rule=at_most(1e-6),
    why="",
    verdict=PENDING,
)

# home: ch01
computed(
    "002-no-parallelism-over-time-sequential",
    "002 §7.1 (RNN -)",
    says="no parallelism over time",
    measure="sequential operations added per position, Elman",
    rule=at_least(1),
    why="",
    verdict=PENDING,
)

# home: ch01
stated(
    "002-short-inputs-faster-single-steps",
    "002 §7.1 (RNN +)",
    says="short inputs: faster single steps in small models",
    reason="FIXME f\"a latency claim for unnamed models; per-step FLOPs at d = {d}: Elman \"\n        f\"{forward_flops('Elman', 1, d):,}, LSTM {forward_flops('LSTM', 1, d):,}, attention with a \"\n        f\"cache of t tokens {8 * d * d:,} + 4td\"",
    verdict=NOT_DERIVABLE,
)

# home: ch01
computed(
    "002-memory-o-n-streaming-hidden",
    "002 §7.1 (RNN +)",
    says="memory O(n) and streaming: one hidden state suffices",
    measure="state carried step by step == the layer's last state",
    rule=holds(),
    verdict=PENDING,
)

# home: ch01
computed(
    "002-step-costs-o-n-n",
    "002 §7.1 (RNN +)",
    says="one step costs O(n), n the hidden size",
    measure="exponent of n in an Elman step's FLOPs",
    claimed=1,
    rule=equal(),
    verdict=PENDING,
)

# home: ch02
computed(
    "002-scale-there-numerical-stability-torch",
    "002 §7.2.1",
    says="the scale is there for numerical stability",
    measure="torch.softmax of the unscaled float32 scores 100, 90, 80 is not finite",
    rule=holds(),
    verdict=PENDING,
)

# home: ch02
computed(
    "002-computing-y-costs-o-n",
    "002 §7.2.1",
    says="computing Y costs O(N^2 d)",
    measure="share of 4 N^2 d in a single-head layer at N = 128, d = 64",
    rule=at_least(0.5),
    why="",
    verdict=PENDING,
)

# home: ch02
computed(
    "002-alpha-ij-0-sum-j",
    "002 §7.2.1",
    says="alpha_ij >= 0 and sum_j alpha_ij = 1",
    measure="the library's weights on random input",
    rule=holds(),
    verdict=PENDING,
)

# home: ch04
computed(
    "002-cost-o-h-n-2",
    "002 §7.2.2",
    says="cost O(H N^2 d) for its heads of full width d: FLOPs of 8 such heads / one head",
    measure="FIXME",
    claimed=8,
    rule=equal(),
    verdict=PENDING,
)

# home: ch06
computed(
    "002-low-dimensions-change-fast-high",
    "002 §7.3.2",
    says="low dimensions change fast, high ones slowly: the wavelength rises with i",
    measure="FIXME",
    rule=holds(),
    verdict=PENDING,
)

# home: ch07
computed(
    "002-fc-relu-fc-biases-paper",
    "002 §7.3.1",
    says="FC - ReLU - FC, with biases",
    measure="paper Eq. 2 has b_1, b_2",
    rule=holds(),
    verdict=PENDING,
)

# home: ch08
computed(
    "002-layernorm-does-not-depend-other",
    "002 §7.3.3",
    says="LayerNorm does not depend on the other examples of the batch",
    measure="computed: example 0's output unchanged when the others change, and equal to its output alone",
    rule=holds(),
    verdict=PENDING,
)

# home: ch08
computed(
    "002-groupnorm-sample-group-channels-t",
    "002 §7.3.3",
    says="GroupNorm: one sample, a group of channels",
    measure="T x D/G entries",
    claimed=AT_CALL,
    rule=equal(),
    verdict=PENDING,
)

# home: ch08
computed(
    "002-instancenorm-sample-channel-t-entries",
    "002 §7.3.3",
    says="InstanceNorm: one sample, one channel",
    measure="T entries",
    claimed=AT_CALL,
    rule=equal(),
    verdict=PENDING,
)

# home: ch08
computed(
    "002-layernorm-over-sample-all-features",
    "002 §7.3.3",
    says="LayerNorm: over one sample, all features",
    measure="T x D entries",
    claimed=AT_CALL,
    rule=equal(),
    verdict=PENDING,
)

# home: ch08
computed(
    "002-batchnorm-per-channel-over-batch",
    "002 §7.3.3",
    says="BatchNorm: per channel, over the batch",
    measure="B entries per statistic",
    claimed=AT_CALL,
    rule=equal(),
    verdict=PENDING,
)

# home: ch09
computed(
    "002-encoder-needs-no-mask-computed",
    "002 §7.3.4",
    says="the encoder needs no mask",
    measure="computed: how far padding content moves the real tokens' outputs without a mask",
    claimed=0.0,
    rule=close(abs=1e-6),
    why="",
    verdict=PENDING,
)

# home: ch14
stated(
    "002-transformer-scales-well-width-depth",
    "002 §7.1",
    says="the Transformer scales well with width and depth",
    reason="no measurement or citation given (Kaplan et al. 2020 is the evidence; this chapter's sweep shows a power law for one tiny model family only)",
    verdict=UNSOURCED,
)

# home: ch14
computed(
    "002-kv-cache-remedy-flops-saved",
    "002 §7.1",
    says="a KV cache is a remedy",
    measure="FLOPs saved for L = S = 100, base",
    rule=at_least(2),
    why="",
    verdict=PENDING,
)

# home: ch14
computed(
    "002-inference-latency-grows-l-2",
    "002 §7.1",
    says="inference latency grows with L^2",
    measure="degree in L of cached decoding",
    claimed=2,
    rule=equal(),
    verdict=PENDING,
)

# home: ch14
stated(
    "002-above-about-4k-tokens-cost",
    "002 §7.1",
    says="above about 4k tokens the cost explodes",
    reason="no computation given; for the base model attention overtakes the rest of a layer at n = 3072",
    verdict=UNSOURCED,
)

# home: ch14
computed(
    "002-transformer-memory-o-l-2",
    "002 §7.1",
    says="Transformer memory is O(L^2)",
    measure="explicit kernel, 8 x longer input",
    claimed=64.0,
    rule=close(rel=0.01),
    why="",
    verdict=PENDING,
)

# home: ch14
computed(
    "002-transformer-time-o-l-2",
    "002 §7.1",
    says="Transformer time is O(L^2)",
    measure="degree in n of a layer's FLOPs",
    claimed=2,
    rule=equal(),
    verdict=PENDING,
)

# home: ch14
computed(
    "002-rnn-streams-constant-work-per",
    "002 §7.1",
    says="an RNN streams: constant work per step",
    measure="FLOPs, 8 x longer input",
    claimed=8.0,
    rule=close(rel=0.01),
    why="",
    verdict=PENDING,
)

# home: ch14
computed(
    "002-rnn-keeps-hidden-state-constant",
    "002 §7.1",
    says="an RNN keeps one hidden state: constant memory",
    measure="state after 256 / after 32 steps",
    claimed=1.0,
    rule=close(rel=0.01),
    why="",
    verdict=PENDING,
)

# home: ch15
computed(
    "002-pre-trained-mlm-cloze-next",
    "002 §7.4",
    says="pre-trained with MLM (cloze) and next sentence prediction",
    measure="Devlin et al. §3.1: two tasks",
    claimed=2,
    rule=equal(),
    verdict=PENDING,
)

# home: ch15
computed(
    "002-bert-bidirectional-transformer-encoder",
    "002 §7.4",
    says="BERT is a bidirectional Transformer",
    measure="encoder",
    claimed=True,
    rule=equal(),
    verdict=PENDING,
)

# home: errata
computed(
    "002-encoder-mask",
    "002 §7.3.4",
    says="the encoder needs no mask",
    measure="positions a padded sequence must hide",
    claimed=0,
    rule=equal(),
    verdict=PENDING,
)

# home: errata
stated(
    "002-norm-axes",
    "002 §7.3.3",
    says="LayerNorm normalises over all features of one sample",
    reason="the Transformer's LayerNorm normalises each position separately; the table's drawbacks have no source",
    verdict=UNSOURCED,
)

# home: errata
computed(
    "002-mha-cost",
    "002 §7.2.2",
    says="multi-head attention costs H times one head",
    measure="the paper's heads, d_model / h wide: total over single full-width head, §3.2.2",
    claimed=8,
    rule=equal(),
    verdict=PENDING,
)

# home: errata
stated(
    "002-query-key-indices",
    "002 §7.2.1",
    says="y_i uses the query x_j and the key x_i",
    reason="the notes' own definitions give y_i the query x_i and keys x_j, weights alpha_ij",
    verdict=UNSOURCED,
)

# home: errata
computed(
    "002-cost",
    "002 §7.2.1",
    says="the cost is O(N^2 d)",
    measure="share of the projections, N = 100, d = 512",
    claimed=0,
    rule=at_most(0.5),
    why="",
    verdict=PENDING,
)

# home: errata
computed(
    "002-stability",
    "002 §7.2.1",
    says="without the scale the softmax of large scores overflows",
    measure="torch.softmax of 1000, 999, 0 is not finite",
    claimed=True,
    rule=holds(),
    verdict=PENDING,
)

# home: errata
computed(
    "002-rnn-list",
    "002 §7.1",
    says="an RNN step costs O(n) for hidden size n",
    measure="multiply-adds of one step W_h h, n = 512",
    claimed=AT_CALL,
    rule=equal(),
    verdict=PENDING,
)
