"""Weight conversions between this library and Hugging Face ``transformers``.

``from_marian`` turns a ``MarianMTModel`` (the opus-mt translation models) into a
:class:`~transformer_lib.Transformer` computing the same logits; ``to_marian`` goes
back. ``from_bert_layer`` and ``from_bert_encoder`` turn BERT's layers into
:class:`~transformer_lib.EncoderLayer` and :class:`~transformer_lib.Encoder`.

The library does not need ``transformers``: the conversions from Hugging Face read
the model's ``state_dict()`` and ``config`` only (any object with those works);
``to_marian`` imports ``transformers`` when it is called.

Marian's sinusoids are laid out as all sines, then all cosines (same frequencies);
the library interleaves them (``PE[:, 2i] = sin``, ``PE[:, 2i + 1] = cos``). The
position table is not a weight (it is rebuilt, not saved), so the conversion
instead renames the D axis of the residual stream: library coordinate ``l`` holds
Marian coordinate ``perm[l]`` (:func:`marian_permutation`). Every matrix that reads
the stream has its columns permuted, every matrix or bias that writes it has its
rows permuted, LayerNorm's gamma and beta are permuted (LayerNorm does not care
about the order of its inputs), and the read-out, which reads the stream, undoes
the permutation: the logits are the same numbers.

Book: ch-model (the model), ch-decoding (decoding).
"""

from __future__ import annotations

from typing import Any

import torch
from torch import Tensor

from ._checks import check_nonnegative_int
from .config import TransformerConfig
from .layers import EncoderLayer
from .model import Encoder, Transformer
from .positional import sinusoidal_table

# Hugging Face's activation names -> the library's; "gelu" is the exact erf form in both.
# Refused: "gelu_new" and the other tanh approximations (up to about 5e-4 away from erf's GELU).
_HF_ACTIVATIONS = {"relu": "relu", "gelu": "gelu", "swish": "silu", "silu": "silu"}
_MARIAN_ACTIVATIONS = {"relu": "relu", "gelu": "gelu", "silu": "swish"}  # the library's -> Marian's (opus-mt says swish)
_MARIAN_LAYER_NORM_EPS = 1e-5  # Marian builds nn.LayerNorm(d_model) with torch's default eps; its config has no field
# Marian's table is float32 (rounded by up to 6e-8) or the model's half precision; a different table is refused
_POSITION_TOLERANCE = 1e-6


def marian_permutation(d_model: int) -> Tensor:
    """``perm`` with library coordinate ``l`` = Marian coordinate ``perm[l]``: [0, h, 1, h + 1, ...], h = D / 2.

    Marian's position vector is [sin_0 ... sin_{h-1}, cos_0 ... cos_{h-1}], the library's
    [sin_0, cos_0, sin_1, cos_1, ...]; ``marian_vector[perm]`` is the library's.

    Shape: -> (d_model,) LongTensor.
    Paper: §3.5 (the sinusoids). Book: ch-positions.

    Examples:
        >>> perm = tl.interop_hf.marian_permutation(6)
        >>> perm
        tensor([0, 3, 1, 4, 2, 5])
        >>> marian = torch.tensor([10, 11, 12, 20, 21, 22])  # sin_0 sin_1 sin_2 cos_0 cos_1 cos_2
        >>> marian[perm]  # the library's order: sin_0 cos_0 sin_1 cos_1 ...
        tensor([10, 20, 11, 21, 12, 22])
    """
    check_nonnegative_int("d_model", d_model)
    if d_model == 0 or d_model % 2 != 0:
        raise ValueError(f"d_model must be even and positive (sin/cos pairs), got {d_model}")
    half = d_model // 2
    return torch.stack([torch.arange(half), torch.arange(half, d_model)], dim=1).flatten()


def _marian_pairs(n_encoder_layers: int, n_decoder_layers: int) -> list[tuple[str, str, str]]:
    """(library key, Marian key, how the D axis is permuted): "in" = columns (reads the stream),
    "out" = rows (writes it), "none" = no D axis. The read-out's bias is handled apart."""
    pairs: list[tuple[str, str, str]] = [
        ("src_embed.embedding.weight", "model.encoder.embed_tokens.weight", "in"),
        ("tgt_embed.embedding.weight", "model.decoder.embed_tokens.weight", "in"),
        ("output_projection.weight", "lm_head.weight", "in"),
    ]

    def attention(ours: str, theirs: str) -> None:
        for name in ("q_proj", "k_proj", "v_proj"):  # each reads the stream (cross-attention: the memory, permuted too)
            pairs.append((f"{ours}.{name}.weight", f"{theirs}.{name}.weight", "in"))
            pairs.append((f"{ours}.{name}.bias", f"{theirs}.{name}.bias", "none"))
        pairs.append((f"{ours}.out_proj.weight", f"{theirs}.out_proj.weight", "out"))
        pairs.append((f"{ours}.out_proj.bias", f"{theirs}.out_proj.bias", "out"))

    def feed_forward_and_norms(ours: str, theirs: str, norms: dict[str, str]) -> None:
        pairs.append((f"{ours}.ffn.linear1.weight", f"{theirs}.fc1.weight", "in"))
        pairs.append((f"{ours}.ffn.linear1.bias", f"{theirs}.fc1.bias", "none"))
        pairs.append((f"{ours}.ffn.linear2.weight", f"{theirs}.fc2.weight", "out"))
        pairs.append((f"{ours}.ffn.linear2.bias", f"{theirs}.fc2.bias", "out"))
        for our_norm, their_norm in norms.items():
            for part in ("weight", "bias"):
                pairs.append((f"{ours}.{our_norm}.{part}", f"{theirs}.{their_norm}.{part}", "out"))

    for i in range(n_encoder_layers):
        ours, theirs = f"encoder.layers.{i}", f"model.encoder.layers.{i}"
        attention(f"{ours}.self_attn", f"{theirs}.self_attn")
        feed_forward_and_norms(ours, theirs, {"norm1": "self_attn_layer_norm", "norm2": "final_layer_norm"})
    for i in range(n_decoder_layers):
        ours, theirs = f"decoder.layers.{i}", f"model.decoder.layers.{i}"
        attention(f"{ours}.self_attn", f"{theirs}.self_attn")
        attention(f"{ours}.cross_attn", f"{theirs}.encoder_attn")
        feed_forward_and_norms(
            ours,
            theirs,
            {"norm1": "self_attn_layer_norm", "norm2": "encoder_attn_layer_norm", "norm3": "final_layer_norm"},
        )
    return pairs


def _permuted(tensor: Tensor, axis: str, perm: Tensor) -> Tensor:
    if axis == "in":
        return tensor[:, perm]
    if axis == "out":
        return tensor[perm]
    return tensor


def _state_and_config(theirs: Any, name: str, kind: str) -> tuple[dict[str, Tensor], Any]:
    """``theirs.state_dict()`` and ``theirs.config``, or a TypeError naming what was expected."""
    if not callable(getattr(theirs, "state_dict", None)) or not hasattr(theirs, "config"):
        raise TypeError(f"{name} must be a transformers {kind} (with .state_dict() and .config), got {type(theirs).__name__}")
    return theirs.state_dict(), theirs.config


def _require_keys(state: dict[str, Tensor], keys: list[str], name: str, kind: str) -> None:
    missing = [key for key in keys if key not in state]
    if missing:
        raise TypeError(
            f"{name} must be a transformers {kind}: its state_dict lacks {len(missing)} expected keys, "
            f"e.g. {missing[:3]} (found e.g. {sorted(state)[:3]})"
        )


def _activation(value: object, name: str) -> str:
    if value not in _HF_ACTIVATIONS:
        raise ValueError(
            f"{name} must be one of {', '.join(map(repr, _HF_ACTIVATIONS))} (the library has relu, erf GELU and SiLU), "
            f"got {value!r}; 'gelu_new' and the other tanh approximations of GELU differ from erf's by up to 5e-4"
        )
    return _HF_ACTIVATIONS[str(value)]


def _same_or_refuse(config: Any, first: str, second: str) -> int:
    a, b = getattr(config, first), getattr(config, second)
    if a != b:
        raise ValueError(f"the library uses one value for both stacks: got {first}={a}, {second}={b}")
    return int(a)


@torch.no_grad()
def from_marian(theirs: Any) -> Transformer:
    """A new :class:`~transformer_lib.Transformer` that computes the logits of a ``MarianMTModel``.

    The weights are copied with the model dimension permuted (see the module docstring); the
    logits agree to rounding (tested in float64: about 1e-15). The model is in the dtype of
    ``theirs`` and in training mode (call ``.eval()``, as for any new module).

    Converted: token embeddings (times sqrt(D) when ``config.scale_embedding``, True in opus-mt),
    the sinusoidal positions (checked against the library's table, not copied), every Post-LN
    layer (Marian's only order; attention scaled by 1/sqrt(d_head), as here), LayerNorm eps 1e-5,
    the FFN activation (opus-mt's ``swish`` becomes ``silu``; ``gelu`` is erf's GELU in both),
    ``final_logits_bias`` (as ``output_bias=True``), and the dropout rates (``dropout``,
    ``attention_dropout``, ``activation_dropout`` -> ``ffn_dropout``). ``share_embeddings`` is
    True when the encoder's and decoder's embeddings and the read-out are one matrix (opus-mt);
    otherwise the three are copied apart, which computes the same but unties them in training.

    Not converted: ``encoder_layerdrop`` / ``decoder_layerdrop`` (training only), the embeddings'
    ``padding_idx`` (it only stops the pad row's gradient), and the tokenizer: ids go in and out.

    Decoding is not emulated. To decode as Marian does, note that:

    * Marian starts from the pad id (``config.decoder_start_token_id == config.pad_token_id``):
      pass ``bos_id=config.decoder_start_token_id``, ``eos_id=config.eos_token_id`` and
      ``pad_id=config.pad_token_id`` to ``greedy_decode`` / ``beam_search``, and
      ``src_mask=padding_mask(src, config.pad_token_id)``;
    * Hugging Face's ``generate`` forces ``<eos>`` as the last token when it reaches the length
      limit (``forced_eos_token_id``); the library cuts the sequence there without ``<eos>``;
    * its beam search divides log P by L^alpha (``length_penalty``, default alpha = 1.0) and keeps
      finished hypotheses apart from the ``num_beams`` live ones; the library's divides by GNMT's
      ((5 + L) / 6)^alpha and keeps finished hypotheses in the beam (ch-decoding), so beams may differ;
    * ``generate`` also applies what the checkpoint's ``generation_config`` asks (banned ids,
      ``num_beams``, ``max_length`` ...); the library's decoders apply none of it.

    Args:
        theirs: a ``transformers.MarianMTModel`` (anything with its ``state_dict()`` and ``config``).

    Raises:
        TypeError: ``theirs`` is not a MarianMTModel (its state_dict lacks Marian's keys).
        ValueError: something the library cannot compute: different encoder and decoder widths,
            heads or FFN sizes, an activation other than relu, gelu and swish/silu, or a position
            table that is not the sinusoids.

    Paper: §3.4-3.5 (embeddings, sinusoids); Junczys-Dowmunt et al. (2018), Marian. Book: ch-model.

    Examples:
        Skipped as doctests: they need the optional package ``transformers``, whose import alone takes
        seconds; ``tests/test_interop_hf.py`` checks the same conversions.

        >>> ours = tl.Transformer(tl.TransformerConfig.tiny())
        >>> theirs = tl.interop_hf.to_marian(ours, pad_id=0, eos_id=2)  # doctest: +SKIP
        >>> back = tl.interop_hf.from_marian(theirs)  # doctest: +SKIP
        >>> back.config == ours.config.replace(output_bias=True)  # doctest: +SKIP
        True
        >>> torch.equal(back.encoder.layers[0].ffn.linear1.weight, ours.encoder.layers[0].ffn.linear1.weight)  # doctest: +SKIP
        True
    """
    state, hf = _state_and_config(theirs, "theirs", "MarianMTModel")
    n_enc, n_dec = int(hf.encoder_layers), int(hf.decoder_layers)
    pairs = _marian_pairs(n_enc, n_dec)
    _require_keys(state, [key for _, key, _ in pairs] + ["final_logits_bias"], "theirs", "MarianMTModel")
    d_model = int(hf.d_model)
    src_embed, tgt_embed, read_out = (
        state[key] for key in ("model.encoder.embed_tokens.weight", "model.decoder.embed_tokens.weight", "lm_head.weight")
    )
    shared = src_embed.shape == tgt_embed.shape == read_out.shape and all(
        torch.equal(src_embed, other) for other in (tgt_embed, read_out)
    )
    config = TransformerConfig(
        src_vocab_size=src_embed.shape[0],
        tgt_vocab_size=tgt_embed.shape[0],
        d_model=d_model,
        n_heads=_same_or_refuse(hf, "encoder_attention_heads", "decoder_attention_heads"),
        d_ff=_same_or_refuse(hf, "encoder_ffn_dim", "decoder_ffn_dim"),
        n_encoder_layers=n_enc,
        n_decoder_layers=n_dec,
        dropout=float(hf.dropout),
        attention_dropout=float(hf.attention_dropout),
        ffn_dropout=float(hf.activation_dropout),
        activation=_activation(hf.activation_function, "theirs.config.activation_function"),
        norm_first=False,
        layer_norm_eps=_MARIAN_LAYER_NORM_EPS,
        positional="sinusoidal",
        max_len=int(hf.max_position_embeddings),
        share_embeddings=shared,
        scale_embedding=bool(hf.scale_embedding),
        bias=True,
        output_bias=True,
    )
    perm = marian_permutation(d_model)
    for key in ("model.encoder.embed_positions.weight", "model.decoder.embed_positions.weight"):
        if key in state:
            _check_marian_positions(state[key], perm, key)
    dtype = read_out.dtype
    ours = Transformer(config).to(device=read_out.device, dtype=dtype)
    converted = {our_key: _permuted(state[their_key], axis, perm) for our_key, their_key, axis in pairs}
    converted["output_projection.bias"] = state["final_logits_bias"].reshape(-1)
    ours.load_state_dict(converted)
    return ours


def _check_marian_positions(table: Tensor, perm: Tensor, key: str) -> None:
    """Refuse a Marian position table that is not the sinusoids (the library computes its own)."""
    expected = sinusoidal_table(table.shape[0], table.shape[1], dtype=torch.float64)
    gap = float((table.detach().cpu().double()[:, perm] - expected).abs().max())
    # values in [-1, 1] rounded to the table's dtype: a float16 or bfloat16 model's table is off by half its eps
    tolerance = max(_POSITION_TOLERANCE, torch.finfo(table.dtype).eps) if table.is_floating_point() else _POSITION_TOLERANCE
    if gap > tolerance:
        raise ValueError(
            f"{key} is not the sinusoidal table (largest difference {gap:.3g} > {tolerance:g}); "
            "the library cannot load a different position table"
        )


@torch.no_grad()
def to_marian(ours: Transformer, *, pad_id: int, eos_id: int) -> Any:
    """A new ``transformers.MarianMTModel`` that computes the logits of ``ours``.

    Exact where the function is the same: a :class:`~transformer_lib.Transformer` with sinusoidal
    positions, Post-LN (``norm_first=False``), biases (``bias=True``) and LayerNorm eps 1e-5, the
    only kind Marian builds. Its position tables are overwritten with the library's (in the
    model's dtype; Marian computes them in float32). ``from_marian(to_marian(m, ...))`` gives back
    ``m``'s weights exactly (``output_bias`` becomes True; a model without it gets a zero bias).

    The ids go into the Marian config: ``pad_token_id = decoder_start_token_id = pad_id`` (Marian
    starts decoding from the pad id) and ``eos_token_id = forced_eos_token_id = eos_id``; they
    change ``generate`` only, not the logits (see :func:`from_marian` for the decoding differences).

    Args:
        ours: the model to convert. pad_id, eos_id: ids in both vocabularies.

    Raises:
        ImportError: ``transformers`` is not installed.
        TypeError / ValueError: ``ours`` is not a Transformer, or one Marian cannot express.

    Book: ch-model.

    Examples:
        Skipped as doctests, as those of :func:`from_marian` (``transformers`` is optional and slow to import).

        >>> ours = tl.Transformer(tl.TransformerConfig.tiny()).eval()
        >>> theirs = tl.interop_hf.to_marian(ours, pad_id=0, eos_id=2).eval()  # doctest: +SKIP
        >>> src, tgt = torch.randint(3, 32, (1, 5)), torch.randint(3, 32, (1, 4))
        >>> logits = theirs(input_ids=src, decoder_input_ids=tgt).logits  # doctest: +SKIP
        >>> torch.allclose(ours(src, tgt), logits, atol=1e-5)  # doctest: +SKIP
        True
    """
    if not isinstance(ours, Transformer):
        raise TypeError(f"ours must be a transformer_lib.Transformer, got {type(ours).__name__}")
    config = ours.config
    smaller = min(config.src_vocab_size, config.tgt_vocab_size)
    for name, value in (("pad_id", pad_id), ("eos_id", eos_id)):
        check_nonnegative_int(name, value)
        if value >= smaller:
            raise ValueError(f"{name} must be an id in both vocabularies (< {smaller}), got {value}")
    unsupported = {
        "positional": (config.positional, "sinusoidal"),
        "norm_first": (config.norm_first, False),
        "bias": (config.bias, True),
        "layer_norm_eps": (config.layer_norm_eps, _MARIAN_LAYER_NORM_EPS),
    }
    wrong = [f"{name}={got!r} (Marian has {needed!r})" for name, (got, needed) in unsupported.items() if got != needed]
    if wrong:
        raise ValueError(f"ours cannot be expressed as a MarianMTModel: {', '.join(wrong)}")
    try:
        from transformers import MarianConfig, MarianMTModel
    except ImportError as error:
        raise ImportError(
            "to_marian needs the transformers package (pip install transformers); from_marian and from_bert_* do not"
        ) from error
    hf_config = MarianConfig(
        vocab_size=config.src_vocab_size,
        decoder_vocab_size=config.tgt_vocab_size,
        d_model=config.d_model,
        encoder_layers=config.n_encoder_layers,
        decoder_layers=config.n_decoder_layers,
        encoder_attention_heads=config.n_heads,
        decoder_attention_heads=config.n_heads,
        encoder_ffn_dim=config.d_ff,
        decoder_ffn_dim=config.d_ff,
        activation_function=_MARIAN_ACTIVATIONS[config.activation],
        dropout=config.dropout,
        attention_dropout=config.attention_dropout,
        activation_dropout=config.ffn_dropout,
        max_position_embeddings=config.max_len,
        scale_embedding=config.scale_embedding,
        share_encoder_decoder_embeddings=config.share_embeddings,
        tie_word_embeddings=config.share_embeddings,
        pad_token_id=pad_id,
        decoder_start_token_id=pad_id,
        eos_token_id=eos_id,
        forced_eos_token_id=eos_id,
    )
    reference = ours.output_projection.weight
    theirs = MarianMTModel(hf_config).to(device=reference.device, dtype=reference.dtype)
    inverse = torch.argsort(marian_permutation(config.d_model))  # Marian coordinate m = library coordinate inverse[m]
    state = ours.state_dict()
    converted = {
        their_key: _permuted(state[our_key], axis, inverse)
        for our_key, their_key, axis in _marian_pairs(config.n_encoder_layers, config.n_decoder_layers)
    }
    bias = ours.output_projection.bias
    converted["final_logits_bias"] = (torch.zeros_like(reference[:, 0]) if bias is None else bias).reshape(1, -1)
    table = sinusoidal_table(config.max_len, config.d_model, dtype=torch.float64)[:, inverse]
    for stack in ("encoder", "decoder"):
        converted[f"model.{stack}.embed_positions.weight"] = table
    if config.share_embeddings:
        converted["model.shared.weight"] = converted["model.encoder.embed_tokens.weight"]
    missing, unexpected = theirs.load_state_dict(converted, strict=False)
    if unexpected or missing:  # every tensor of theirs must have been written
        raise RuntimeError(f"to_marian left Marian tensors unset {missing} or wrote unknown ones {unexpected}")
    return theirs


def _bert_layer_pairs(prefix: str = "") -> list[tuple[str, str]]:
    """(library key, BERT key) of one layer; BERT has no FFN-internal dropout and no D-axis permutation."""
    pairs = []
    for ours, theirs in (("q_proj", "query"), ("k_proj", "key"), ("v_proj", "value")):
        pairs += [(f"self_attn.{ours}.{p}", f"{prefix}attention.self.{theirs}.{p}") for p in ("weight", "bias")]
    for ours, theirs in (
        ("self_attn.out_proj", "attention.output.dense"),
        ("norm1", "attention.output.LayerNorm"),
        ("ffn.linear1", "intermediate.dense"),
        ("ffn.linear2", "output.dense"),
        ("norm2", "output.LayerNorm"),
    ):
        pairs += [(f"{ours}.{p}", f"{prefix}{theirs}.{p}") for p in ("weight", "bias")]
    return pairs


def _bert_config(hf: Any, n_layers: int) -> TransformerConfig:
    if getattr(hf, "is_decoder", False) or getattr(hf, "add_cross_attention", False):
        raise ValueError("a BERT decoder (is_decoder or add_cross_attention) has no counterpart here; only encoder layers")
    hidden_act = hf.hidden_act
    if not isinstance(hidden_act, str):
        raise ValueError(f"config.hidden_act must be an activation's name, got {type(hidden_act).__name__}")
    return TransformerConfig(
        src_vocab_size=int(hf.vocab_size),
        tgt_vocab_size=int(hf.vocab_size),
        d_model=int(hf.hidden_size),
        n_heads=int(hf.num_attention_heads),
        d_ff=int(hf.intermediate_size),
        n_encoder_layers=n_layers,
        n_decoder_layers=0,
        dropout=float(hf.hidden_dropout_prob),
        attention_dropout=float(hf.attention_probs_dropout_prob),
        ffn_dropout=0.0,
        activation=_activation(hidden_act, "config.hidden_act"),
        norm_first=False,
        layer_norm_eps=float(hf.layer_norm_eps),
        max_len=int(hf.max_position_embeddings),
    )


def _bert_parts(theirs: Any, name: str, kind: str) -> tuple[dict[str, Tensor], Any]:
    if not callable(getattr(theirs, "state_dict", None)):
        raise TypeError(f"{name} must be a transformers {kind}, got {type(theirs).__name__}")
    config = getattr(theirs, "config", None)
    if config is None:  # a BertLayer keeps its config on its self-attention
        config = getattr(getattr(getattr(theirs, "attention", None), "self", None), "config", None)
    if config is None:
        raise TypeError(f"{name} must be a transformers {kind} (with a BertConfig), got {type(theirs).__name__}")
    return theirs.state_dict(), config


@torch.no_grad()
def from_bert_layer(theirs: Any) -> EncoderLayer:
    """A new :class:`~transformer_lib.EncoderLayer` that computes what a ``BertLayer`` does.

    BERT's layer is the paper's Post-LN encoder layer: the same attention (scaled by
    1/sqrt(d_head)), LayerNorm eps from ``config.layer_norm_eps`` (1e-12 in BERT), the FFN
    activation (``gelu`` is erf's GELU here too; ``gelu_new`` is refused), and the dropout rates
    (``hidden_dropout_prob`` -> ``dropout``, ``attention_probs_dropout_prob`` -> ``attention_dropout``).

    Not converted, because they are not in BertLayer: the token, token-type (segment) and learned
    position embeddings and their LayerNorm (``BertEmbeddings``), the pooler and the MLM head.
    Masks: BERT's layer takes an additive float mask (0 = attend, a large negative number =
    not); the library's layer takes a boolean mask, True = may attend (``padding_mask``).

    Args:
        theirs: a ``transformers`` ``BertLayer`` of an encoder (not ``is_decoder``).

    Shape: as :class:`~transformer_lib.EncoderLayer`, x (B, S, D) -> (B, S, D).
    Paper: Devlin et al. (2019), §3; Vaswani et al. §3.1. Book: ch-model and ch-variants.

    Examples:
        Skipped as doctests, as those of :func:`from_marian` (``transformers`` is optional and slow to import).

        >>> import transformers  # doctest: +SKIP
        >>> hf_config = transformers.BertConfig(hidden_size=16, num_attention_heads=2, intermediate_size=32)  # doctest: +SKIP
        >>> theirs = transformers.BertModel(hf_config).encoder.layer[0].eval()  # doctest: +SKIP
        >>> ours = tl.interop_hf.from_bert_layer(theirs).eval()  # doctest: +SKIP
        >>> x = torch.randn(2, 5, 16)
        >>> torch.allclose(ours(x), theirs(x), atol=1e-5)  # doctest: +SKIP
        True
    """
    state, hf = _bert_parts(theirs, "theirs", "BertLayer")
    pairs = _bert_layer_pairs()
    _require_keys(state, [key for _, key in pairs], "theirs", "BertLayer")
    config = _bert_config(hf, 1)
    reference = state["attention.self.query.weight"]
    ours = EncoderLayer.from_config(config).to(device=reference.device, dtype=reference.dtype)
    ours.load_state_dict({our_key: state[their_key] for our_key, their_key in pairs})
    return ours


@torch.no_grad()
def from_bert_encoder(theirs: Any) -> Encoder:
    """A new :class:`~transformer_lib.Encoder` that computes what a ``BertEncoder`` does.

    Each ``BertLayer`` is converted as in :func:`from_bert_layer`; the stack is Post-LN, so
    it has no final LayerNorm (``Encoder.norm`` is None), as BERT's has none. The embeddings
    (``BertEmbeddings``: tokens, token types, learned positions, their LayerNorm) are not part
    of ``BertEncoder`` and are not converted.

    Args:
        theirs: a ``transformers`` ``BertEncoder`` (e.g. ``BertModel(...).encoder``).

    Shape: as :class:`~transformer_lib.Encoder`, x (B, S, D) -> (B, S, D).
    Paper: Devlin et al. (2019), §3. Book: ch-model and ch-variants.

    Examples:
        Skipped as doctests, as those of :func:`from_marian` (``transformers`` is optional and slow to import).

        >>> import transformers  # doctest: +SKIP
        >>> hf_config = transformers.BertConfig(hidden_size=16, num_attention_heads=2, intermediate_size=32)  # doctest: +SKIP
        >>> theirs = transformers.BertModel(hf_config).encoder.eval()  # doctest: +SKIP
        >>> ours = tl.interop_hf.from_bert_encoder(theirs).eval()  # doctest: +SKIP
        >>> x = torch.randn(2, 5, 16)
        >>> len(ours.layers), torch.allclose(ours(x), theirs(x).last_hidden_state, atol=1e-5)  # doctest: +SKIP
        (12, True)
    """
    state, hf = _bert_parts(theirs, "theirs", "BertEncoder")
    n_layers = int(hf.num_hidden_layers)
    pairs = [(f"layers.{i}.{ours}", their_key) for i in range(n_layers) for ours, their_key in _bert_layer_pairs(f"layer.{i}.")]
    _require_keys(state, [key for _, key in pairs], "theirs", "BertEncoder")
    config = _bert_config(hf, n_layers)
    reference = state["layer.0.attention.self.query.weight"] if n_layers else torch.empty(0)
    ours = Encoder(config).to(device=reference.device, dtype=reference.dtype)
    ours.load_state_dict({our_key: state[their_key] for our_key, their_key in pairs})
    return ours


__all__ = ["from_bert_encoder", "from_bert_layer", "from_marian", "marian_permutation", "to_marian"]
