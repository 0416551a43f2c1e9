"""The two worked examples of the source notes, as data, and the library models built from them.

Book: ch-numbers ("Every number, computed").
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
from torch import Tensor, nn

from transformer_lib.config import TransformerConfig
from transformer_lib.model import Transformer

from .loading import (
    load_attention,
    load_embedding,
    load_feed_forward,
    load_layer_norm,
    load_linear,
    load_positions,
    minimum_norm_weight,
    refresh_sinusoidal_tables,
)

# --- source 000, §8: "我 爱 机器学习" -> "I love machine learning" -------------------


@dataclass(frozen=True)
class Example000:
    """The numbers that source 000 (§8) gives for its worked example.

    d_model = 4, h = 2, d_k = d_v = 2, d_ff = 8, a vocabulary of 10. One encoder
    and one decoder layer. The source gives one matrix ``W_qkv`` used as W_q, W_k
    and W_v, an output projection ``W_o``, FFN weights ``W1``, ``W2`` with zero
    biases, and LayerNorm with gamma = 1, beta = 0, eps = 1e-6. The output layer
    is the transposed embedding matrix (weight tying). Embeddings are *not*
    multiplied by sqrt(d_model).
    """

    vocab: tuple[str, ...] = ("<pad>", "我", "爱", "机器学习", "I", "love", "machine", "learning", "<s>", "</s>")
    embedding: tuple[tuple[float, ...], ...] = (
        (0.0, 0.0, 0.0, 0.0),
        (0.2, 0.5, 0.1, 0.3),
        (0.4, 0.1, 0.6, 0.2),
        (0.3, 0.7, 0.2, 0.5),
        (0.1, 0.3, 0.4, 0.2),
        (0.5, 0.2, 0.1, 0.6),
        (0.2, 0.6, 0.3, 0.1),
        (0.6, 0.1, 0.5, 0.3),
        (0.1, 0.1, 0.1, 0.1),
        (0.9, 0.9, 0.9, 0.9),
    )
    src_ids: tuple[int, ...] = (1, 2, 3)
    tgt_ids: tuple[int, ...] = (4, 5, 6, 7)
    W_qkv: tuple[tuple[float, ...], ...] = ((1, 0, 0, 1), (0, 1, 1, 0), (1, 0, 0, 1), (0, 1, 1, 0))
    W_o: tuple[tuple[float, ...], ...] = (
        (0.5, 0, 0, 0.5),
        (0, 0.5, 0.5, 0),
        (0, 0.5, 0.5, 0),
        (0.5, 0, 0, 0.5),
    )
    W1: tuple[tuple[float, ...], ...] = (
        (1, 0, 1, 0, 1, 0, 1, 0),
        (0, 1, 0, 1, 0, 1, 0, 1),
        (1, 0, 1, 0, 1, 0, 1, 0),
        (0, 1, 0, 1, 0, 1, 0, 1),
    )
    W2: tuple[tuple[float, ...], ...] = (
        (0.5, 0, 0.5, 0),
        (0, 0.5, 0, 0.5),
        (0.5, 0, 0.5, 0),
        (0, 0.5, 0, 0.5),
        (0.5, 0, 0.5, 0),
        (0, 0.5, 0, 0.5),
        (0.5, 0, 0.5, 0),
        (0, 0.5, 0, 0.5),
    )
    layer_norm_eps: float = 1e-6
    d_model: int = 4
    n_heads: int = 2
    d_ff: int = 8

    def config(self) -> TransformerConfig:
        """The library configuration of this example (one layer each side, no dropout, no sqrt(D) scale)."""
        return TransformerConfig(
            src_vocab_size=len(self.vocab),
            tgt_vocab_size=len(self.vocab),
            d_model=self.d_model,
            n_heads=self.n_heads,
            d_ff=self.d_ff,
            n_encoder_layers=1,
            n_decoder_layers=1,
            dropout=0.0,
            layer_norm_eps=self.layer_norm_eps,
            positional="sinusoidal",
            max_len=8,
            share_embeddings=True,
            scale_embedding=False,
        )


EXAMPLE_000 = Example000()


@dataclass(frozen=True)
class Printed000:
    """The numbers that source 000 *prints* in its worked example (§8) and in §5.2.2, as text.

    Kept as text, row by row, so that the number of printed digits is known (the rule
    :func:`~book_support.worked_examples.printed_digits` needs it). These are the source's
    claims, not its givens (those are in :class:`Example000`); ch-numbers and the errata
    appendix check them against the library.
    """

    positions: tuple[str, ...] = ("0 1 0 1", "0.84 0.54 0.001 1.0", "0.91 -0.42 0.002 1.0", "0.14 -0.99 0.003 1.0")
    inputs_src: tuple[str, ...] = ("0.2 1.5 0.1 1.3", "1.24 0.64 0.601 1.2", "1.21 0.28 0.202 1.5")
    inputs_tgt: tuple[str, ...] = ("0.1 1.3 0.4 1.2", "1.34 0.74 0.101 1.6", "1.11 0.18 0.302 1.1", "0.74 -0.89 0.503 1.3")
    q: tuple[str, ...] = ("0.3 2.8 2.8 0.3", "1.841 1.84 1.84 1.841", "1.412 1.78 1.78 1.412")
    scores: tuple[str, ...] = ("7.93 5.7043 5.4076", "5.7043 6.7746 5.874", "5.4076 5.874 5.162")
    scaled: tuple[str, ...] = ("5.61 4.035 3.825", "4.035 4.791 4.155", "3.825 4.155 3.65")
    weights: tuple[str, ...] = ("0.728 0.150 0.122", "0.145 0.510 0.345", "0.130 0.365 0.505")
    head1: tuple[str, ...] = ("0.666 2.531", "1.52 1.81", "1.38 1.72")
    head2: tuple[str, ...] = ("2.48 0.65", "1.79 1.53", "1.69 1.39")
    concat: tuple[str, ...] = ("0.666 2.531 2.48 0.65", "1.52 1.81 1.79 1.53", "1.38 1.72 1.69 1.39")
    multihead: tuple[str, ...] = ("0.658 2.505 2.505 0.658", "1.525 1.80 1.80 1.525", "1.385 1.705 1.705 1.385")
    residual1: tuple[str, ...] = ("0.858 4.005 2.605 1.958", "2.765 2.44 2.401 2.725", "2.595 1.985 1.907 2.885")
    norm1: tuple[str, ...] = ("-1.33 1.46 0.22 -0.35", "0.89 0.27 0.21 0.85", "0.63 -0.16 -0.26 1.05")
    hidden: tuple[str, ...] = (" ".join(["-1.11", "1.11"] * 4), " ".join(["1.10", "1.12"] * 4), " ".join(["0.37", "0.89"] * 4))
    relu: tuple[str, ...] = (" ".join(["0", "1.11"] * 4), " ".join(["1.10", "1.12"] * 4), " ".join(["0.37", "0.89"] * 4))
    ffn: tuple[str, ...] = ("2.22 2.22 2.22 2.22", "4.44 4.44 4.44 4.44", "2.52 2.52 2.52 2.52")
    residual2: tuple[str, ...] = ("0.89 3.68 2.44 1.87", "5.33 4.71 4.65 5.29", "3.15 2.36 2.26 3.57")
    encoder: tuple[str, ...] = ("-1.25 1.32 0.35 -0.42", "1.05 0.48 0.42 1.01", "0.28 -0.31 -0.41 0.44")
    masked_scores: tuple[str, ...] = ("3.2 -inf -inf -inf", "2.8 4.1 -inf -inf", "2.5 3.9 3.7 -inf", "2.1 3.5 3.3 4.5")
    masked_weights: tuple[str, ...] = ("1.0 0 0 0", "0.18 0.82 0 0", "0.12 0.35 0.53 0", "0.08 0.22 0.25 0.45")
    cross_weights: tuple[str, ...] = ("0.65 0.25 0.10", "0.15 0.70 0.15", "0.10 0.20 0.70", "0.08 0.12 0.80")
    target_probabilities: tuple[str, ...] = ("0.94", "0.92", "0.93", "0.95")  # every other entry of a row: 0.01
    mask_example_scores: tuple[str, ...] = ("1.2 0.8 0.5 0.3", "0.9 1.5 0.7 0.4", "0.6 0.9 1.8 0.6", "0.4 0.7 1.2 2.0")
    mask_example_weights: tuple[str, ...] = ("1.0", "0.3 0.7", "0.1 0.2 0.7", "0.05 0.1 0.25 0.6")
    attention_example_weights: str = "0.6 0.1 0.2 0.1"  # §2.1: the weights of its attention example
    # §9.2.1: (setting, LSTM BLEU, Transformer BLEU) for four learning rates and four dropout rates
    sensitivity: tuple[tuple[str, float, float], ...] = (
        ("lr 1e-5", 23.1, 25.8), ("lr 5e-5", 24.2, 27.5), ("lr 1e-4", 24.1, 28.2), ("lr 5e-4", 22.5, 27.1),
        ("dropout 0.1", 24.0, 27.9), ("dropout 0.2", 24.5, 28.4), ("dropout 0.3", 23.8, 27.8), ("dropout 0.4", 22.9, 26.5),
    )  # fmt: skip

    def probabilities(self, vocab_size: int = 10, first_target: int = 4) -> tuple[str, ...]:
        """The printed probability rows: the target's probability, 0.01 everywhere else."""
        return tuple(
            " ".join(p if j == first_target + i else "0.01" for j in range(vocab_size))
            for i, p in enumerate(self.target_probabilities)
        )


PRINTED_000 = Printed000()


def build_model_000(
    example: Example000 = EXAMPLE_000,
    dtype: torch.dtype = torch.float64,
) -> Transformer:
    """The library's ``Transformer`` with every weight of source 000's example.

    The source gives weights for the encoder; for the decoder it says that the
    self-attention projects with "the same W_q, W_k, W_v as the encoder" (§8.3.1)
    and that the FFN is the encoder's (§8.3.3), and gives nothing else. The stated
    choice here: every attention module of the decoder (masked self-attention and
    cross-attention) uses the encoder's W_q = W_k = W_v and W_o, and the decoder's
    FFN uses W1, W2. All biases are zero, every LayerNorm has gamma = 1, beta = 0,
    eps = 1e-6.
    """
    model = Transformer(example.config()).to(dtype).eval()
    refresh_sinusoidal_tables(model)
    # one matrix: shared with tgt_embed and the output projection
    load_embedding(model.src_embed, example.embedding)
    encoder, decoder = model.encoder.layers[0], model.decoder.layers[0]
    for mha in (encoder.self_attn, decoder.self_attn, decoder.cross_attn):
        load_attention(mha, example.W_qkv, example.W_qkv, example.W_qkv, example.W_o)
    for layer in (encoder, decoder):
        load_feed_forward(layer.ffn, example.W1, None, example.W2, None)
    for module in model.modules():
        if isinstance(module, nn.LayerNorm):
            load_layer_norm(module, eps=example.layer_norm_eps)
    return model


# --- source 003: "the 8 steps of training" ---------------------------------------

_IDENTITY_4 = ((1, 0, 0, 0), (0, 1, 0, 0), (0, 0, 1, 0), (0, 0, 0, 1))


@dataclass(frozen=True)
class Example003:
    """The numbers that source 003 gives for its eight training steps.

    d_model = 4, one head (d_k = 4), d_ff = 8, two encoder and two decoder
    layers. Source "I am" (positions 0, 1), target "我 是", decoder input
    "<s> 我". The source gives the embeddings and two position vectors (not the
    sinusoidal ones), W_Q, W_K, W_V and gamma_1, beta_1 of encoder layer 1, and
    no output projection (so W_O = I). Everything else it does not give.

    The ``reconstructed_*`` fields are *not* in the source: they are one choice
    (of many) that reproduces numbers the source prints, documented in ch-numbers.
    """

    src_vocab: tuple[str, ...] = ("I", "am")
    tgt_vocab: tuple[str, ...] = ("<s>", "我", "是", "</s>")
    src_embedding: tuple[tuple[float, ...], ...] = ((1.0, 2.0, 3.0, 4.0), (5.0, 6.0, 7.0, 8.0))
    tgt_embedding_given: tuple[tuple[float, ...], ...] = ((1.0, 0.0, 1.0, 0.0), (4.0, 3.0, 2.0, 1.0))  # <s>, 我
    positions: tuple[tuple[float, ...], ...] = ((0.1, 0.2, 0.3, 0.4), (0.5, 0.6, 0.7, 0.8))
    W_Q: tuple[tuple[float, ...], ...] = ((1, 0, 1, 0), (0, 1, 0, 1), (1, 0, 2, 0), (0, 1, 0, 2))
    W_K: tuple[tuple[float, ...], ...] = ((2, 0, 1, 0), (0, 2, 0, 1), (0, 1, 0, 0), (1, 0, 0, 0))
    W_V: tuple[tuple[float, ...], ...] = ((0, 0, 1, 2), (0, 1, 0, 0), (2, 0, 1, 0), (0, 1, 0, 1))
    W_O: tuple[tuple[float, ...], ...] = _IDENTITY_4
    gamma_1: tuple[float, ...] = (1.0, 1.0, 1.2, 1.2)
    beta_1: tuple[float, ...] = (0.0, 0.0, 0.5, 0.5)
    src_ids: tuple[int, ...] = (0, 1)
    decoder_input_ids: tuple[int, ...] = (0, 1)  # <s> 我
    target_ids: tuple[int, ...] = (1, 2)  # 我 是
    # Not given by the source. W1, b1 reproduce its printed hidden layer h1 from its y1;
    # W2, b2 reproduce its printed FFN output from h1 (ch-numbers checks both).
    reconstructed_W1: tuple[tuple[float, ...], ...] = (
        (1, 0, 1, 0, 2, 0, 2, 0),
        (0, 1, 0, 1, 0, 2, 0, 2),
        (1, 0, 1, 0, 1, 0, 1, 0),
        (0, 1, 0, 1, 0, 1, 0, 1),
    )
    reconstructed_b1: tuple[float, ...] = (0.1, 0.1, 0.1, 0.1, 0.2, 0.2, 0.2, 0.2)
    reconstructed_W2: tuple[tuple[float, ...], ...] = (
        (0, 0, 0, 0),
        (0, 1, 0, 1),
        (0, 0, 0, 0),
        (0, 2, 0, 2),
        (0, 0, 0, 0),
        (0, 2, 1, 0),
        (0, 0, 0, 0),
        (0, 2, 2, 0),
    )
    reconstructed_b2: tuple[float, ...] = (0.5, 0.0, 0.5, 0.0)
    # Not given by the source: LayerNorm settings of decoder layer 1 that reproduce its printed y and y_cross.
    reconstructed_dec_gamma_1: tuple[float, ...] = (1.0, 1.0, 1.2, 1.2)
    reconstructed_dec_beta_1: tuple[float, ...] = (0.0, 0.0, 0.1, 0.1)
    reconstructed_dec_gamma_2: tuple[float, ...] = (1.0, 1.0, 1.0, 1.0)
    reconstructed_dec_beta_2: tuple[float, ...] = (0.1, 0.1, 0.1, 0.1)
    # Printed q, k, v of decoder layer 1 (masked self-attention), rows <s>, 我; the source gives no weights.
    printed_dec_q: tuple[tuple[float, ...], ...] = ((1.5, 1.3, 1.5, 1.7), (6.3, 8.1, 8.1, 4.5))
    printed_dec_k: tuple[tuple[float, ...], ...] = ((2.8, 1.9, 3.5, 0.8), (9.0, 8.1, 11.7, 9.0))
    printed_dec_v: tuple[tuple[float, ...], ...] = ((3.7, 0.8, 3.5, 1.0), (9.9, 9.0, 11.7, 7.2))
    layer_norm_eps: float = 1e-5
    d_model: int = 4
    n_heads: int = 1
    d_ff: int = 8

    def config(self) -> TransformerConfig:
        """Two encoder and two decoder layers, one head, learned positions (the source's vectors), no dropout."""
        return TransformerConfig(
            src_vocab_size=len(self.src_vocab),
            tgt_vocab_size=len(self.tgt_vocab),
            d_model=self.d_model,
            n_heads=self.n_heads,
            d_ff=self.d_ff,
            n_encoder_layers=2,
            n_decoder_layers=2,
            dropout=0.0,
            layer_norm_eps=self.layer_norm_eps,
            positional="learned",
            max_len=len(self.positions),
            share_embeddings=False,
            scale_embedding=False,
        )

    def decoder_input(self, dtype: torch.dtype = torch.float64) -> Tensor:
        """Embedding + position of the decoder input "<s> 我", as the source computes it (2, 4)."""
        return torch.tensor(self.tgt_embedding_given, dtype=dtype) + torch.tensor(self.positions, dtype=dtype)


EXAMPLE_003 = Example003()


def build_model_003(example: Example003 = EXAMPLE_003, dtype: torch.dtype = torch.float64, seed: int = 0) -> Transformer:
    """The library's ``Transformer`` for source 003, with the stated choices of ch-numbers.

    Given by the source and loaded: source embeddings, the embeddings of "<s>"
    and "我", the two position vectors, W_Q, W_K, W_V, gamma_1 and beta_1 of
    encoder layer 1 (with W_O = I and zero biases, as the source has no output
    projection).

    Reconstructed (consistent with printed numbers, not given): the FFN of
    encoder layer 1; the minimum-norm W_Q, W_K, W_V of decoder layer 1's masked
    self-attention that reproduce its printed q, k, v; the LayerNorm gamma, beta
    of decoder layer 1's first two sub-layers.

    Chosen (the source gives nothing): every other weight is the library's
    default initialisation after ``torch.manual_seed(seed)``, every other
    attention output projection is the identity and its biases zero, every
    other LayerNorm has gamma = 1, beta = 0.
    """
    generator_state = torch.random.get_rng_state()
    torch.manual_seed(seed)
    try:
        model = Transformer(example.config())
    finally:
        torch.random.set_rng_state(generator_state)
    model = model.to(dtype).eval()
    load_embedding(model.src_embed, example.src_embedding)
    with torch.no_grad():
        given = torch.tensor(example.tgt_embedding_given, dtype=dtype)
        model.tgt_embed.embedding.weight[: given.shape[0]] = given
    load_positions(model.positional, example.positions)
    identity = example.W_O
    for layer in (*model.encoder.layers, *model.decoder.layers):
        for mha in (layer.self_attn, getattr(layer, "cross_attn", None)):
            if mha is not None:
                load_linear(mha.out_proj, identity, None, name="W_O")
                for linear in (mha.q_proj, mha.k_proj, mha.v_proj):
                    with torch.no_grad():
                        linear.bias.zero_()
    enc1 = model.encoder.layers[0]
    load_attention(enc1.self_attn, example.W_Q, example.W_K, example.W_V, identity)
    load_layer_norm(enc1.norm1, example.gamma_1, example.beta_1)
    load_feed_forward(
        enc1.ffn, example.reconstructed_W1, example.reconstructed_b1, example.reconstructed_W2, example.reconstructed_b2
    )
    dec1 = model.decoder.layers[0]
    x_dec = example.decoder_input()
    load_attention(
        dec1.self_attn,
        minimum_norm_weight(x_dec, example.printed_dec_q),
        minimum_norm_weight(x_dec, example.printed_dec_k),
        minimum_norm_weight(x_dec, example.printed_dec_v),
        identity,
    )
    load_layer_norm(dec1.norm1, example.reconstructed_dec_gamma_1, example.reconstructed_dec_beta_1)
    load_layer_norm(dec1.norm2, example.reconstructed_dec_gamma_2, example.reconstructed_dec_beta_2)
    return model


@dataclass(frozen=True)
class Printed003:
    """Numbers that source 003 *prints* for its cross-attention (step 3.4), as text.

    The cross-attention's weights are not given, so these vectors cannot be recomputed;
    what can be checked is the arithmetic the source does on them (ch-numbers, errata).
    """

    encoder_output: str = "-1.028 1.479 -0.187 -0.263"  # both tokens: K_enc, V_enc
    cross_q: tuple[str, ...] = ("1.6452 -1.5886 1.6452 -1.5886", "1.3556 -0.9298 1.3556 -0.9298")
    cross_k: str = "-1.291 1.479 1.292 -1.291"  # k_1 = k_2
    cross_v: str = "1.292 -1.291 -1.215 1.216"  # v_1 = v_2


PRINTED_003 = Printed003()
