"""Weight copies between this library and ``torch.nn``.

``nn.MultiheadAttention`` keeps the three input projections in one matrix,
``in_proj_weight = cat([W_q, W_k, W_v])`` of shape (3D, D) (and likewise
``in_proj_bias``); this library keeps ``q_proj``, ``k_proj``, ``v_proj`` as
three ``nn.Linear(D, D)``. ``nn.TransformerDecoderLayer`` calls its
cross-attention ``multihead_attn``; this library calls it ``cross_attn``.
The torch modules are built with ``batch_first=True``.

``bias=False`` means two different things. This library's ``bias=False``
removes the biases of the linear maps (attention projections, FFN) and keeps
the LayerNorms' biases beta; torch's ``bias=False`` removes the LayerNorm
biases too. So a layer copied *from* torch with ``bias=False`` gets LayerNorm
biases of zero (the same function), and a library layer with ``bias=False``
copies *to* torch exactly only if its LayerNorm biases are all zero (as they
are at initialisation); otherwise no torch layer with ``bias=False``
computes the same function and the copy raises a ``ValueError`` naming the
non-zero biases.

Masks are not converted here; see ``masks.to_torch_attn_mask`` and
``masks.to_key_padding_mask``.

Book: ch-multihead (attention parity) and ch-model (layer and stack parity).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar, cast

import torch
from torch import Tensor, nn

from .attention import MultiHeadAttention
from .layers import DecoderLayer, EncoderLayer
from .model import Decoder, Encoder

M = TypeVar("M", bound=nn.Module)


def _like(module: M, reference: nn.Module) -> M:
    parameter = next(reference.parameters())
    return module.to(dtype=parameter.dtype, device=parameter.device)


def _require(name: str, value: object, kind: type) -> None:
    if not isinstance(value, kind):
        raise TypeError(f"{name} must be a {kind.__module__}.{kind.__qualname__}, got {type(value).__name__}")


@torch.no_grad()
def copy_mha_to_torch(ours: MultiHeadAttention, theirs: nn.MultiheadAttention) -> None:
    """Copy our four projections into ``theirs`` (in place).

    Examples:
        >>> ours, theirs = tl.MultiHeadAttention(8, 2), torch.nn.MultiheadAttention(8, 2, batch_first=True)
        >>> tl.interop.copy_mha_to_torch(ours, theirs)
        >>> x = torch.randn(1, 3, 8)
        >>> torch.allclose(ours(x, x, x)[0], theirs(x, x, x)[0], atol=1e-6)
        True
    """
    _require("ours", ours, MultiHeadAttention)
    _require("theirs", theirs, nn.MultiheadAttention)
    if theirs.embed_dim != ours.d_model or theirs.num_heads != ours.n_heads:
        raise ValueError(
            f"sizes differ: ours D={ours.d_model}, H={ours.n_heads}; theirs D={theirs.embed_dim}, H={theirs.num_heads}"
        )
    if (theirs.in_proj_bias is None) != (ours.q_proj.bias is None):
        raise ValueError("one module has biases and the other has not; build both with the same bias flag")
    theirs.in_proj_weight.copy_(torch.cat([ours.q_proj.weight, ours.k_proj.weight, ours.v_proj.weight]))
    theirs.out_proj.weight.copy_(ours.out_proj.weight)
    if theirs.in_proj_bias is not None:
        theirs.in_proj_bias.copy_(torch.cat([ours.q_proj.bias, ours.k_proj.bias, ours.v_proj.bias]))
        theirs.out_proj.bias.copy_(ours.out_proj.bias)


@torch.no_grad()
def copy_mha_from_torch(theirs: nn.MultiheadAttention, ours: MultiHeadAttention) -> None:
    """Copy ``theirs`` into our four projections (in place).

    Examples:
        >>> theirs, ours = torch.nn.MultiheadAttention(8, 2, batch_first=True), tl.MultiHeadAttention(8, 2)
        >>> tl.interop.copy_mha_from_torch(theirs, ours)
        >>> torch.equal(ours.k_proj.weight, theirs.in_proj_weight[8:16])  # W_k: the middle third
        True
    """
    _require("theirs", theirs, nn.MultiheadAttention)
    _require("ours", ours, MultiHeadAttention)
    if theirs.in_proj_weight is None:
        raise ValueError("nn.MultiheadAttention with kdim/vdim != embed_dim has no in_proj_weight; not supported")
    if theirs.embed_dim != ours.d_model or theirs.num_heads != ours.n_heads:
        raise ValueError(
            f"sizes differ: ours D={ours.d_model}, H={ours.n_heads}; theirs D={theirs.embed_dim}, H={theirs.num_heads}"
        )
    if (theirs.in_proj_bias is None) != (ours.q_proj.bias is None):
        raise ValueError("one module has biases and the other has not; build both with the same bias flag")
    w_q, w_k, w_v = theirs.in_proj_weight.chunk(3)
    for proj, w in zip((ours.q_proj, ours.k_proj, ours.v_proj), (w_q, w_k, w_v), strict=True):
        proj.weight.copy_(w)
    ours.out_proj.weight.copy_(theirs.out_proj.weight)
    if theirs.in_proj_bias is not None:
        for proj, b in zip((ours.q_proj, ours.k_proj, ours.v_proj), theirs.in_proj_bias.chunk(3), strict=True):
            proj.bias.copy_(b)
        ours.out_proj.bias.copy_(theirs.out_proj.bias)


def to_torch_mha(ours: MultiHeadAttention) -> nn.MultiheadAttention:
    """A new ``nn.MultiheadAttention(batch_first=True)`` with our weights.

    Examples:
        >>> theirs = tl.interop.to_torch_mha(tl.MultiHeadAttention(8, 2))
        >>> theirs.in_proj_weight.shape, theirs.batch_first  # W_q, W_k, W_v in one (3D, D) matrix
        (torch.Size([24, 8]), True)
    """
    _require("ours", ours, MultiHeadAttention)
    theirs = nn.MultiheadAttention(
        ours.d_model, ours.n_heads, dropout=ours.dropout, bias=ours.q_proj.bias is not None, batch_first=True
    )
    theirs = _like(theirs, ours)
    copy_mha_to_torch(ours, theirs)
    return theirs


def from_torch_mha(theirs: nn.MultiheadAttention) -> MultiHeadAttention:
    """A new :class:`MultiHeadAttention` with the weights of ``theirs``.

    Examples:
        >>> ours = tl.interop.from_torch_mha(torch.nn.MultiheadAttention(8, 2, batch_first=True))
        >>> ours.q_proj.weight.shape, ours.n_heads
        (torch.Size([8, 8]), 2)
    """
    _require("theirs", theirs, nn.MultiheadAttention)
    ours = MultiHeadAttention(theirs.embed_dim, theirs.num_heads, dropout=theirs.dropout, bias=theirs.in_proj_bias is not None)
    ours = _like(ours, theirs)
    copy_mha_from_torch(theirs, ours)
    return ours


def _torch_activation(layer: EncoderLayer | DecoderLayer) -> str | Callable[[Tensor], Tensor]:
    """What torch's layers take as ``activation``: the names "relu" and "gelu", or a function (SiLU has no name there)."""
    if isinstance(layer.ffn.activation, nn.SiLU):
        return torch.nn.functional.silu
    return "gelu" if isinstance(layer.ffn.activation, nn.GELU) else "relu"


TorchLayer = nn.TransformerEncoderLayer | nn.TransformerDecoderLayer


def _torch_activation_name(layer: TorchLayer) -> str:
    activation = layer.activation
    if activation in (torch.nn.functional.gelu,) or isinstance(activation, nn.GELU):
        return "gelu"
    if activation in (torch.nn.functional.relu,) or isinstance(activation, nn.ReLU):
        return "relu"
    if activation in (torch.nn.functional.silu,) or isinstance(activation, nn.SiLU):
        return "silu"
    raise ValueError(f"only relu, gelu and silu activations are supported, got {activation!r}")


@torch.no_grad()
def _copy_ffn_and_norms(src_linears, dst_linears, src_norms, dst_norms) -> None:
    """Copy the FFN's two linear maps and the LayerNorms; a LayerNorm without a bias counts as bias 0."""
    for src, dst in zip(src_linears, dst_linears, strict=True):
        if (src.bias is None) != (dst.bias is None):
            raise ValueError("one FFN has biases and the other has not; build both with the same bias flag")
        dst.weight.copy_(src.weight)
        if src.bias is not None:
            dst.bias.copy_(src.bias)
    for src, dst in zip(src_norms, dst_norms, strict=True):
        dst.weight.copy_(src.weight)
        if dst.bias is not None:
            dst.bias.copy_(src.bias if src.bias is not None else torch.zeros_like(dst.bias))
        elif src.bias is not None and bool(src.bias.any()):  # checked by _check_norm_biases before copying
            raise ValueError("a non-zero LayerNorm bias cannot be copied into a LayerNorm without a bias")
        dst.eps = src.eps


def _check_norm_biases(ours: EncoderLayer | DecoderLayer) -> None:
    """Refuse a bias=False layer whose LayerNorm biases are non-zero: torch's bias=False layer has none."""
    if ours.self_attn.q_proj.bias is not None:
        return
    nonzero = {
        f"{name}.bias": float(norm.bias.detach().abs().max())
        for name, norm in ours.named_children()
        if isinstance(norm, nn.LayerNorm) and norm.bias is not None and bool(norm.bias.detach().any())
    }
    if nonzero:
        raise ValueError(
            f"ours is a {type(ours).__name__} with bias=False but non-zero LayerNorm biases "
            f"({', '.join(nonzero)}; largest |b| = {max(nonzero.values()):.3g}): torch's bias=False also removes "
            "the LayerNorm biases (the library's keeps them), so no torch layer with bias=False computes the same "
            "function; only a layer whose LayerNorm biases are all 0 can be copied"
        )


def _torch_layer_kwargs(layer: EncoderLayer | DecoderLayer) -> dict[str, Any]:
    return dict(
        d_model=layer.self_attn.d_model,
        nhead=layer.self_attn.n_heads,
        dim_feedforward=layer.ffn.linear1.out_features,
        dropout=layer.dropout1.p,
        activation=_torch_activation(layer),
        layer_norm_eps=layer.norm1.eps,
        batch_first=True,
        norm_first=layer.norm_first,
        bias=layer.self_attn.q_proj.bias is not None,
    )


def _our_layer_kwargs(layer: TorchLayer) -> dict[str, Any]:
    return dict(
        d_model=layer.self_attn.embed_dim,
        n_heads=layer.self_attn.num_heads,
        d_ff=layer.linear1.out_features,
        dropout=layer.dropout1.p,
        activation=_torch_activation_name(layer),
        norm_first=layer.norm_first,
        layer_norm_eps=layer.norm1.eps,
        attention_dropout=layer.self_attn.dropout,
        ffn_dropout=layer.dropout.p,
        bias=layer.self_attn.in_proj_bias is not None,
    )


def _check_batch_first(layer: TorchLayer) -> None:
    if not layer.self_attn.batch_first:
        raise ValueError("the torch layer must be built with batch_first=True (this library is batch-first)")


def to_torch_encoder_layer(ours: EncoderLayer) -> nn.TransformerEncoderLayer:
    """A new ``nn.TransformerEncoderLayer(batch_first=True)`` with our weights.

    With ``bias=False`` the torch layer has no LayerNorm biases: ValueError unless ours are all 0
    (see the module docstring).

    Examples:
        >>> ours = tl.EncoderLayer(d_model=8, n_heads=2, d_ff=16).eval()
        >>> theirs = tl.interop.to_torch_encoder_layer(ours).eval()
        >>> x = torch.randn(2, 3, 8)
        >>> torch.allclose(ours(x), theirs(x), atol=1e-5)
        True
    """
    _require("ours", ours, EncoderLayer)
    _check_norm_biases(ours)
    theirs = _like(nn.TransformerEncoderLayer(**_torch_layer_kwargs(ours)), ours)
    copy_mha_to_torch(ours.self_attn, theirs.self_attn)
    _copy_ffn_and_norms(
        (ours.ffn.linear1, ours.ffn.linear2),
        (theirs.linear1, theirs.linear2),
        (ours.norm1, ours.norm2),
        (theirs.norm1, theirs.norm2),
    )
    return theirs


def from_torch_encoder_layer(theirs: nn.TransformerEncoderLayer) -> EncoderLayer:
    """A new :class:`EncoderLayer` with the weights of ``theirs``.

    From a torch layer with ``bias=False`` (no LayerNorm biases), our LayerNorm biases are 0.

    Examples:
        >>> theirs = torch.nn.TransformerEncoderLayer(8, 2, dim_feedforward=16, batch_first=True).eval()
        >>> ours = tl.interop.from_torch_encoder_layer(theirs).eval()
        >>> x = torch.randn(2, 3, 8)
        >>> torch.allclose(ours(x), theirs(x), atol=1e-5)
        True
    """
    _require("theirs", theirs, nn.TransformerEncoderLayer)
    _check_batch_first(theirs)
    ours = _like(EncoderLayer(**_our_layer_kwargs(theirs)), theirs)
    copy_mha_from_torch(theirs.self_attn, ours.self_attn)
    _copy_ffn_and_norms(
        (theirs.linear1, theirs.linear2),
        (ours.ffn.linear1, ours.ffn.linear2),
        (theirs.norm1, theirs.norm2),
        (ours.norm1, ours.norm2),
    )
    return ours


def to_torch_decoder_layer(ours: DecoderLayer) -> nn.TransformerDecoderLayer:
    """A new ``nn.TransformerDecoderLayer(batch_first=True)`` with our weights.

    ``bias=False``: as :func:`to_torch_encoder_layer` (our LayerNorm biases must be 0).

    Examples:
        >>> ours = tl.DecoderLayer(d_model=8, n_heads=2, d_ff=16).eval()
        >>> theirs = tl.interop.to_torch_decoder_layer(ours).eval()
        >>> x, memory = torch.randn(2, 3, 8), torch.randn(2, 5, 8)
        >>> torch.allclose(ours(x, memory), theirs(x, memory), atol=1e-5)
        True
    """
    _require("ours", ours, DecoderLayer)
    _check_norm_biases(ours)
    theirs = _like(nn.TransformerDecoderLayer(**_torch_layer_kwargs(ours)), ours)
    copy_mha_to_torch(ours.self_attn, theirs.self_attn)
    copy_mha_to_torch(ours.cross_attn, theirs.multihead_attn)
    _copy_ffn_and_norms(
        (ours.ffn.linear1, ours.ffn.linear2),
        (theirs.linear1, theirs.linear2),
        (ours.norm1, ours.norm2, ours.norm3),
        (theirs.norm1, theirs.norm2, theirs.norm3),
    )
    return theirs


def from_torch_decoder_layer(theirs: nn.TransformerDecoderLayer) -> DecoderLayer:
    """A new :class:`DecoderLayer` with the weights of ``theirs``.

    From a torch layer with ``bias=False`` (no LayerNorm biases), our LayerNorm biases are 0.

    Examples:
        >>> theirs = torch.nn.TransformerDecoderLayer(8, 2, dim_feedforward=16, batch_first=True)
        >>> ours = tl.interop.from_torch_decoder_layer(theirs)
        >>> type(ours).__name__, torch.equal(ours.cross_attn.out_proj.weight, theirs.multihead_attn.out_proj.weight)
        ('DecoderLayer', True)
    """
    _require("theirs", theirs, nn.TransformerDecoderLayer)
    _check_batch_first(theirs)
    ours = _like(DecoderLayer(**_our_layer_kwargs(theirs)), theirs)
    copy_mha_from_torch(theirs.self_attn, ours.self_attn)
    copy_mha_from_torch(theirs.multihead_attn, ours.cross_attn)
    _copy_ffn_and_norms(
        (theirs.linear1, theirs.linear2),
        (ours.ffn.linear1, ours.ffn.linear2),
        (theirs.norm1, theirs.norm2, theirs.norm3),
        (ours.norm1, ours.norm2, ours.norm3),
    )
    return ours


def _copied_norm(norm: nn.LayerNorm | None) -> nn.LayerNorm | None:
    if norm is None:
        return None
    copy = _like(nn.LayerNorm(norm.normalized_shape, eps=norm.eps), norm)
    copy.load_state_dict(norm.state_dict())
    return copy


def to_torch_encoder(ours: Encoder) -> nn.TransformerEncoder:
    """A new ``nn.TransformerEncoder`` with our layers' weights.

    ``norm`` is None for the paper's Post-LN stack and a copy of our final
    LayerNorm for Pre-LN. (``nn.Transformer`` always adds a final norm, which
    the paper's Post-LN model does not have.)

    Examples:
        >>> ours = tl.Encoder(tl.TransformerConfig.tiny()).eval()
        >>> theirs = tl.interop.to_torch_encoder(ours).eval()
        >>> x = torch.randn(2, 5, 64)
        >>> len(theirs.layers), theirs.norm, torch.allclose(ours(x), theirs(x), atol=1e-5)  # Post-LN: no final norm
        (2, None, True)
    """
    _require("ours", ours, Encoder)
    layers = [to_torch_encoder_layer(cast(EncoderLayer, layer)) for layer in ours.layers]
    theirs = nn.TransformerEncoder(layers[0], len(layers), norm=_copied_norm(ours.norm), enable_nested_tensor=False)
    theirs.layers = nn.ModuleList(layers)
    return theirs


def to_torch_decoder(ours: Decoder) -> nn.TransformerDecoder:
    """A new ``nn.TransformerDecoder`` with our layers' weights (final norm as in :func:`to_torch_encoder`).

    Examples:
        >>> ours = tl.Decoder(tl.TransformerConfig.tiny(norm_first=True)).eval()
        >>> theirs = tl.interop.to_torch_decoder(ours)  # Pre-LN: with a copy of the final LayerNorm
        >>> len(theirs.layers), theirs.norm is ours.norm, torch.equal(theirs.norm.weight, ours.norm.weight)
        (2, False, True)
    """
    _require("ours", ours, Decoder)
    layers = [to_torch_decoder_layer(cast(DecoderLayer, layer)) for layer in ours.layers]
    theirs = nn.TransformerDecoder(layers[0], len(layers), norm=_copied_norm(ours.norm))
    theirs.layers = nn.ModuleList(layers)
    return theirs
