"""Document 004's claims (see :mod:`book_support.ledger` for what a record states).

Document 004 has no numbered sections below its one chapter heading; ``where`` names the part by its
own heading: embeddings (the word-vector discussion and the embedding matrix), positional encoding,
scaled dot-product attention (with the initialisation remark and the literature it cites),
multi-head attention and decoder.
"""

from book_support.claims import (
    AGREES,
    CONTRADICTED,
    NOT_DERIVABLE,
    SUPPORTED,
    UNSOURCED,
    WRONG,
    at_least,
    holds,
)
from book_support.ledger import cited, computed, stated

# --- embeddings -------------------------------------------------------------------------------

# pages: ch01, errata
computed(
    "004-fixed-width",
    "004 embeddings",
    says="all word vectors have one fixed width so that the words can be stacked as the rows of a"
    " matrix and processed together by matrix operations, in parallel, where an LSTM has to go word"
    " by word; fixed-width vectors are what makes this parallel computation possible",
    measure="do an LSTM layer and a self-attention layer, both on vectors of one fixed width (8),"
    " add equally many sequential operations per position (autograd graph depth, T = 32 to 64)",
    true_if="fixed width is what separates the parallel model from the sequential one: then two"
    " layers whose vectors are equally fixed-width add equally many sequential operations per"
    " position. (Rows of one width are indeed what a matrix needs; the LSTM's are as fixed-width,"
    " and it still goes word by word.)",
    rule=holds(),
    verdict=WRONG,
)

# pages: ch09, ch10, errata
cited(
    "004-embeddings",
    "004 embeddings",
    says="the Transformer has an embedding matrix, which the document calls 'obtained by"
    " pre-training' (预训练得到的); two readings: (a) learned in advance, before it is used to embed a"
    " sentence, as in its running example, where a trained Japanese BERT embeds the sentence; (b)"
    " learned in a pre-training stage of its own, as BERT's is",
    cited="paper §3.4: the model uses learned embeddings for its input and output tokens, the same"
    " matrix as the pre-softmax projection, trained with the rest of the model on the translation"
    " data (§5): learned before any sentence is embedded, so reading (a) holds; there is no"
    " pre-training stage of its own, so reading (b) would not hold of the 2017 model (it holds of"
    " BERT's matrix, which the document also names)",
    true_if="(a), the reading judged as fair to the document's example: the matrix holds trained"
    " values when a sentence is embedded; under (b) the verdict would be contradicted",
    reading=SUPPORTED,
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
cited(
    "004-unk",
    "004 embeddings",
    says="a keyword (a token of its tokenised example, such as 'つま' or '##ら') that the embedding"
    " matrix does not contain is given the vector of the reserved token 'UNK'",
    cited="BERT's reference tokenizer (google-research/bert, tokenization.py, WordpieceTokenizer:"
    " the scheme of the document's Japanese example) writes a word it cannot spell with the"
    " vocabulary's pieces as [UNK]. With the paper's byte-pair encoding (§5.1, after Sennrich et al."
    " 2016, who encode 'rare and unknown words as sequences of subword units') a word missing as a"
    " whole is spelled in sub-word tokens, so only a symbol outside the vocabulary needs UNK",
    true_if="a token with no row of its own is looked up as the unknown token; read of whole words"
    " missing from the paper's vocabulary it would repeat 004-words' error",
    reading=SUPPORTED,
    narrows=(
        "004-words",
        "what the lookup does with an entry the matrix lacks, not what the rows are: it holds of"
        " tokens; with sub-word tokens a missing word is spelled in pieces, not mapped to UNK",
    ),
)

# pages: ch15
cited(
    "004-original-matrix",
    "004 embeddings",
    says="the original English Transformer's embedding matrix is 37000 x 512",
    cited="paper §5.1: English-German sentences encoded with byte-pair encoding, a shared"
    " source-target vocabulary of about 37000 tokens; Table 3 (and §3.4): d_model = 512 for the base"
    " model, the embeddings' width. (English-French used 32000 word pieces, the big model 1024)",
    true_if="the base English-German model's vocabulary is about 37000 entries and its width 512",
    reading=SUPPORTED,
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
cited(
    "004-positional-indices",
    "004 positional encoding",
    says="in the sinusoidal formula, i is the index of the embedding dimension; with d_model = 768"
    " (its Japanese example) i runs from 1 to 768",
    cited="paper §3.5, the formula the document copies: PE(pos, 2i) and PE(pos, 2i+1) fill the"
    " dimensions 2i and 2i + 1, so i counts pairs of dimensions, 0 <= i < d_model / 2: 384 values"
    " for d_model = 768, not 768 (the paper's own gloss, 'i is the dimension', is loose in the same"
    " way; the dimension index runs from 0 to 767)",
    true_if="i takes d_model = 768 values",
    reading=CONTRADICTED,
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
cited(
    "004-qkv-shapes",
    "004 scaled dot-product attention",
    says="W_Q, W_K and W_V are d_model x d_k (d_v for W_V), so that Q = X W_Q is T x d_k",
    cited="paper §3.2.2: the projections are W_i^Q, W_i^K in R^(d_model x d_k) and W_i^V in"
    " R^(d_model x d_v), one per head; a T x d_model input X gives Q = X W_i^Q of T x d_k",
    reading=SUPPORTED,
)

# pages: ch04
cited(
    "004-head-width",
    "004 scaled dot-product attention",
    says="d_k = d_v = d_model / h",
    cited="paper §3.2.2: h = 8 heads, and for each d_k = d_v = d_model / h = 64",
    reading=SUPPORTED,
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
    measure="chapter 4's task of reading the tokens at t - 1 and t + 2: accuracy on the worse-read"
    " output, two heads (each from its own random start) minus one head of the same width 32,"
    " paired over five seeds: the low end of the 95 % interval, floored to 0.1",
    true_if="two randomly started heads read more than one head does: the paired interval lies at or"
    " above 0 (a task that needs two positions at once, the case the claim is about)",
    rule=at_least(0),
    why="the document says several heads 'should' take in more than one and names no amount: any"
    " gain counts, if the 95 % interval of the paired difference lies at or above 0, so that seed"
    " noise does not decide",
    verdict=AGREES,
)

# --- decoder ----------------------------------------------------------------------------------

# pages: errata
cited(
    "004-decoder-difference",
    "004 decoder",
    says="the decoder's only difference from the encoder is that its multi-head attention is masked",
    cited="paper §3.1: 'In addition to the two sub-layers in each encoder layer, the decoder inserts"
    " a third sub-layer, which performs multi-head attention over the output of the encoder stack';"
    " the masking of its self-attention is the second difference",
    true_if="a decoder layer has the encoder layer's sub-layers, with the self-attention masked",
    reading=CONTRADICTED,
)

# pages: ch05, errata
cited(
    "004-first-input",
    "004 decoder",
    says="learning 'I am a cat', the decoder first reads 'I' and predicts 'am', then reads 'I am' and predicts 'a'",
    cited="paper §3.1: the output embeddings are offset by one position, so that the prediction for"
    " position i depends only on the known outputs before i: the first word, 'I', is itself"
    " predicted, from an input that comes before it (a start token in the library's tl.collate),"
    " and in training all positions are predicted at once under the mask",
    true_if="the first target word is the decoder's first input, so that it is never predicted",
    reading=CONTRADICTED,
)

# pages: ch02, ch05, errata
cited(
    "004-multiply-dk",
    "004 decoder",
    says="in the masking step the scores Q K^T are multiplied by d_k to scale them, then the mask M is"
    " added and the softmax applied",
    cited="paper §3.2.1, Eq. 1: Attention(Q, K, V) = softmax(Q K^T / sqrt(d_k)) V, the dot products"
    " 'scaled by 1 / sqrt(d_k)'; Figure 2 puts the scale before the optional mask. The document's"
    " own formula earlier divides by sqrt(d_k) too",
    true_if="the scores are multiplied by d_k",
    reading=CONTRADICTED,
)
