"""Document 004's claims (see :mod:`book_support.ledger` for what a record states).

Document 004 has no numbered sections below its one chapter heading; ``where`` names the part by its
own heading: embeddings (the word-vector discussion and the embedding matrix), positional encoding,
scaled dot-product attention (with the initialisation remark and the literature it cites),
multi-head attention and decoder.
"""

from book_support.claims import AGREES, CONTRADICTED, NOT_DERIVABLE, UNSOURCED, WRONG, close, equal, holds
from book_support.ledger import AT_CALL, cited, computed, stated

# --- embeddings -------------------------------------------------------------------------------

# pages: ch01, errata
computed(
    "004-fixed-width",
    "004 embeddings",
    says="all word vectors have one fixed width so that the words can be stacked as the rows of a"
    " matrix and processed together by matrix operations, in parallel, where an LSTM has to go word"
    " by word; fixed-width vectors are what makes the parallel computation possible",
    measure="sequential operations added per position by an Elman layer, whose vectors are fixed-width too",
    true_if="a layer whose vectors have a fixed width computes all positions at once: it adds no"
    " sequential operation per position",
    claimed=0,
    rule=equal(),
    verdict=WRONG,
)

# pages: ch09, ch10, errata
cited(
    "004-embeddings",
    "004 embeddings",
    says="the Transformer's embedding matrix is obtained by pre-training",
    cited="paper §3.4: the model uses learned embeddings for its input and output tokens, the same"
    " matrix as the pre-softmax projection, so they are trained with the rest of the model on the"
    " translation data (§5); no separate pre-training stage (BERT's matrix, which the document also"
    " names, does come from pre-training)",
    true_if="the original Transformer's embedding matrix was trained in a stage of its own before the translation model",
    reading=CONTRADICTED,
)

# pages: ch09, ch10, errata
cited(
    "004-words",
    "004 embeddings",
    says="the original model's 37000 x 512 embedding matrix is a dictionary whose 37000 rows are"
    " words, one fixed-width vector per word",
    cited="paper §5.1: English-German sentences were encoded with byte-pair encoding, a shared"
    " source-target vocabulary of about 37000 tokens (English-French: 32000 word pieces); the rows"
    " are sub-word tokens of both languages, not words",
    true_if="each of the 37000 rows stands for a whole word",
    reading=CONTRADICTED,
)

# pages: ch10
computed(
    "004-unk",
    "004 embeddings",
    says="a keyword that the embedding matrix does not contain is given the vector of the token 'UNK'",
    measure="whether byte-pair encoding (the paper's tokens, §5.1) writes 'lowest', absent from a toy vocabulary, with <unk>",
    true_if="with the paper's sub-word vocabulary a word that is not an entry becomes <unk>",
    claimed=True,
    rule=equal(),
    verdict=WRONG,
)

# pages: ch15
computed(
    "004-original-matrix",
    "004 embeddings",
    says="the original English Transformer's embedding matrix is 37000 x 512",
    measure="(vocabulary, width) of the library's base configuration, which follows paper §5.1 and Table 3",
    claimed=(37000, 512),
    rule=equal(),
    verdict=AGREES,
)

# pages: ch15
stated(
    "004-japanese-bert-size",
    "004 embeddings",
    says="a Japanese BERT model's embedding matrix is 32000 x 768",
    claimed=(32000, 768),
    reason="the document names no model and gives no source; the size matches Tohoku University's"
    " Japanese BERT-base (32000 entries, width 768)",
    verdict=UNSOURCED,
)

# --- positional encoding ----------------------------------------------------------------------

# pages: ch06, errata
computed(
    "004-positional-indices",
    "004 positional encoding",
    says="in the sinusoidal formula, i is the index of the embedding dimension; with d_model = 768"
    " (its Japanese example) i runs from 1 to 768",
    measure="number of distinct frequencies, one per value of i, in the library's sinusoidal table for d_model = 768",
    true_if="i takes d_model = 768 values",
    claimed=768,
    rule=equal(),
    verdict=WRONG,
)

# pages: ch06
stated(
    "004-first-position",
    "004 positional encoding",
    says="positions are counted from 1: the first token of a sentence has pos = 1",
    reason="a convention the paper does not fix; the library and the paper's reference implementation"
    " start at 0, and the relative-position property holds either way",
    verdict=NOT_DERIVABLE,
)

# pages: ch06, errata
cited(
    "004-sinusoid-reasons",
    "004 scaled dot-product attention",
    says="paper §3.5 explains in detail why the encoding is built from sines and cosines: it is fixed,"
    " not learned, keeps every position distinct and avoids learning an order dependence",
    cited="paper §3.5 gives two reasons: the hypothesis that the model can easily attend by relative"
    " positions, PE(pos + k) being a linear function of PE(pos); and that the fixed version, chosen"
    " over learned embeddings that gave nearly identical results (Table 3, row E), may extrapolate to"
    " longer sequences; it does not mention distinct positions. Fixed, not learned, is right",
    true_if="§3.5 gives distinct positions and avoiding a learned order as its reasons",
    reading=CONTRADICTED,
)

# --- scaled dot-product attention -------------------------------------------------------------

# pages: ch02
computed(
    "004-qkv-shapes",
    "004 scaled dot-product attention",
    says="W_Q, W_K and W_V are d_model x d_k (d_v for W_V), so that Q = X W_Q is T x d_k",
    measure="W_Q of the library's base attention module: (input width, output width per head)",
    claimed=(512, 64),
    rule=equal(),
    verdict=AGREES,
)

# pages: ch04
computed(
    "004-head-width",
    "004 scaled dot-product attention",
    says="d_k = d_v = d_model / h",
    measure="(d_k, d_v) per head of the library's base attention module; claimed: d_model / h",
    claimed=AT_CALL,
    rule=equal(),
    verdict=AGREES,
)

# pages: ch02
stated(
    "004-attention-width",
    "004 scaled dot-product attention",
    says="the output A V is T x d, rows that are word vectors enriched with their context",
    reason="the document does not define d: A V has the width of V, d_v per head, and d_model only"
    " for a single head or after the heads are concatenated and projected by W_o, as the document"
    " says next",
    verdict=NOT_DERIVABLE,
)

# pages: ch02, errata
cited(
    "004-citations",
    "004 scaled dot-product attention",
    says="the paper's ablation study compares the dot product with other similarity functions,"
    " additive attention among them, and explains that it is efficient and works well; the paper says"
    " it tried cosine-like variants and found the dot product better in practice",
    cited="paper, Table 3 and §6.2: the variations are the number of heads, d_k and d_v, the number"
    " of layers and the widths, dropout, label smoothing and the positional encoding, never the"
    " compatibility function; after row (B) the paper suggests that a more sophisticated function"
    " than the dot product may be beneficial. Additive attention is compared in §3.2.1 by citing"
    " Britz et al., not by an experiment; no cosine-like variant is mentioned",
    true_if="an ablation of the paper varies the compatibility function",
    reading=CONTRADICTED,
)

# pages: ch02, errata
cited(
    "004-cosine-papers",
    "004 scaled dot-product attention",
    says="Xiong et al. (2020) explain that no extra cosine normalisation is needed because layer"
    " normalisation already handles the lengths, and that the sqrt(d_k) scale is enough in place of"
    " cosine; Lu et al. (2019) explain why the dot product, unlike cosine, lets the model use the"
    " vectors' lengths",
    cited="Xiong et al. (2020, arXiv:2002.04745) study where layer normalisation goes, the gradients at"
    " initialisation and the learning-rate warm-up; Lu et al. (2019, arXiv:1906.02762) read the"
    " Transformer as a numerical solver of a multi-particle dynamic system and propose the Macaron"
    " layer; neither compares cosine with dot-product attention",
    true_if="the two papers compare cosine with dot-product attention",
    reading=CONTRADICTED,
)

# pages: ch04
stated(
    "004-init-schemes",
    "004 scaled dot-product attention",
    says="in many cases Transformer-based models initialise W_Q, W_K and W_V with Xavier (Glorot) or Kaiming (He) initialisation",
    reason="no source is given, and the paper does not say how it initialised its weights",
    verdict=UNSOURCED,
)

# --- multi-head attention ---------------------------------------------------------------------

# pages: ch04, errata
computed(
    "004-heads-init",
    "004 multi-head attention",
    says="because weights started from different random numbers end up different, several heads"
    " started from different random numbers should give scores that take in more information than"
    " one attention does",
    measure="two heads started equal get equal gradients, to 1e-12 relative: without different starts several heads act as one",
    true_if="different random starts are needed for heads to differ (heads started equal stay equal)",
    rule=holds(),
    verdict=AGREES,
)

# --- decoder ----------------------------------------------------------------------------------

# pages: errata
computed(
    "004-decoder-difference",
    "004 decoder",
    says="the decoder's only difference from the encoder is that its multi-head attention is masked",
    measure="sub-layers of a decoder layer (claimed: those of an encoder layer)",
    claimed=AT_CALL,
    rule=equal(),
    verdict=WRONG,
)

# pages: ch05, errata
computed(
    "004-first-input",
    "004 decoder",
    says="learning 'I am a cat', the decoder first reads 'I' and predicts 'am', then reads 'I am' and predicts 'a'",
    measure="first decoder input of 'I am a cat' shifted right for teacher forcing (tl.collate)",
    true_if="the first target word is the decoder's first input, so that it is never predicted",
    claimed="I",
    rule=equal(),
    verdict=WRONG,
)

# pages: ch02, ch05, errata
computed(
    "004-multiply-dk",
    "004 decoder",
    says="in the masking step the scores Q K^T are multiplied by d_k to scale them, then the mask M is"
    " added and the softmax applied",
    measure="factor the library's attention (paper Eq. 1) applies to the scores, d_k = 64",
    claimed=64,
    rule=close(rel=1e-6),
    why="the factor is read back from float64 attention weights, exact to about 1e-15: the tolerance only absorbs rounding",
    verdict=WRONG,
)
