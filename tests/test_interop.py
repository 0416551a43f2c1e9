"""tl.interop copies every parameter to the right place, biases included, in both directions.

The parity tests (test_parity.py) compare outputs, which cannot see every misplaced tensor:
nn.MultiheadAttention starts with all biases 0, and a key bias has no effect on attention's
output at all (it adds the same number to every score of a query, which the softmax removes).
So here every parameter is first filled with its own random values, and each one is followed
to where it must land: a swapped or dropped bias fails its own test.
"""

from __future__ import annotations

import pytest
import torch
from torch import nn

import transformer_lib as tl

D, H, F = 8, 2, 16
PROJECTIONS = ("q", "k", "v")  # the order of the chunks in torch's in_proj_weight / in_proj_bias


def _randomize(module: nn.Module, seed: int) -> nn.Module:
    """Every parameter gets distinct random values, so no two tensors (or slices) are equal."""
    g = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for p in module.parameters():
            p.copy_(torch.randn(p.shape, generator=g, dtype=p.dtype))
    return module


def _attention_pairs(ours: tl.MultiHeadAttention, theirs: nn.MultiheadAttention, prefix: str = ""):
    """(name, our tensor, their tensor) for the eight tensors of one attention module."""
    weights, biases = theirs.in_proj_weight.chunk(3), theirs.in_proj_bias.chunk(3)
    pairs = []
    for i, name in enumerate(PROJECTIONS):
        proj = getattr(ours, f"{name}_proj")
        pairs.append((f"{prefix}{name}_proj.bias", proj.bias, biases[i]))
        pairs.append((f"{prefix}{name}_proj.weight", proj.weight, weights[i]))
    pairs.append((f"{prefix}out_proj.bias", ours.out_proj.bias, theirs.out_proj.bias))
    pairs.append((f"{prefix}out_proj.weight", ours.out_proj.weight, theirs.out_proj.weight))
    return pairs


def _layer_pairs(ours, theirs):
    pairs = _attention_pairs(ours.self_attn, theirs.self_attn, "self_attn.")
    if isinstance(ours, tl.DecoderLayer):
        pairs += _attention_pairs(ours.cross_attn, theirs.multihead_attn, "cross_attn.")
    for i in (1, 2):
        linear_ours, linear_theirs = getattr(ours.ffn, f"linear{i}"), getattr(theirs, f"linear{i}")
        pairs += [(f"ffn.linear{i}.{n}", getattr(linear_ours, n), getattr(linear_theirs, n)) for n in ("weight", "bias")]
    for i in (1, 2, 3) if isinstance(ours, tl.DecoderLayer) else (1, 2):
        norm_ours, norm_theirs = getattr(ours, f"norm{i}"), getattr(theirs, f"norm{i}")
        pairs += [(f"norm{i}.{n}", getattr(norm_ours, n), getattr(norm_theirs, n)) for n in ("weight", "bias")]
    return pairs


def _check(pairs, name):
    found = [(ours, theirs) for n, ours, theirs in pairs if n == name]
    assert len(found) == 1, f"{name} not in the mapping"
    ours, theirs = found[0]
    torch.testing.assert_close(ours, theirs, rtol=0, atol=0, msg=f"{name} was not copied to its place")


ATTENTION_TENSORS = [f"{p}_proj.{kind}" for p in (*PROJECTIONS, "out") for kind in ("bias", "weight")]


@pytest.mark.parametrize("name", ATTENTION_TENSORS)
def test_mha_to_torch_puts_each_tensor_in_its_place(name):
    ours = _randomize(tl.MultiHeadAttention(D, H), seed=1)
    theirs = tl.interop.to_torch_mha(ours)
    _check(_attention_pairs(ours, theirs), name)


@pytest.mark.parametrize("name", ATTENTION_TENSORS)
def test_mha_from_torch_puts_each_tensor_in_its_place(name):
    theirs = _randomize(nn.MultiheadAttention(D, H, batch_first=True), seed=2)  # biases no longer 0
    ours = tl.interop.from_torch_mha(theirs)
    _check(_attention_pairs(ours, theirs), name)


@pytest.mark.parametrize("name", ATTENTION_TENSORS)
def test_copy_into_existing_modules_both_ways(name):
    ours = _randomize(tl.MultiHeadAttention(D, H), seed=3)
    theirs = _randomize(nn.MultiheadAttention(D, H, batch_first=True), seed=4)
    tl.interop.copy_mha_to_torch(ours, theirs)
    _check(_attention_pairs(ours, theirs), name)
    theirs = _randomize(theirs, seed=5)
    tl.interop.copy_mha_from_torch(theirs, ours)
    _check(_attention_pairs(ours, theirs), name)


ENCODER_TENSORS = [
    n for n, _, _ in _layer_pairs(tl.EncoderLayer(D, H, F), tl.interop.to_torch_encoder_layer(tl.EncoderLayer(D, H, F)))
]
DECODER_TENSORS = [
    n for n, _, _ in _layer_pairs(tl.DecoderLayer(D, H, F), tl.interop.to_torch_decoder_layer(tl.DecoderLayer(D, H, F)))
]


def test_the_mappings_cover_every_parameter():
    for ours, tensors in ((tl.EncoderLayer(D, H, F), ENCODER_TENSORS), (tl.DecoderLayer(D, H, F), DECODER_TENSORS)):
        assert sorted(tensors) == sorted(n for n, _ in ours.named_parameters())


@pytest.mark.parametrize("name", ENCODER_TENSORS)
def test_encoder_layer_tensors_both_ways(name):
    ours = _randomize(tl.EncoderLayer(D, H, F, dropout=0.0), seed=6)
    _check(_layer_pairs(ours, tl.interop.to_torch_encoder_layer(ours)), name)
    theirs = _randomize(nn.TransformerEncoderLayer(D, H, F, dropout=0.0, batch_first=True), seed=7)
    _check(_layer_pairs(tl.interop.from_torch_encoder_layer(theirs), theirs), name)


@pytest.mark.parametrize("name", DECODER_TENSORS)
def test_decoder_layer_tensors_both_ways(name):
    ours = _randomize(tl.DecoderLayer(D, H, F, dropout=0.0), seed=8)
    _check(_layer_pairs(ours, tl.interop.to_torch_decoder_layer(ours)), name)
    theirs = _randomize(nn.TransformerDecoderLayer(D, H, F, dropout=0.0, batch_first=True), seed=9)
    _check(_layer_pairs(tl.interop.from_torch_decoder_layer(theirs), theirs), name)


def test_a_key_bias_is_invisible_in_the_output():
    """Why the tests above compare tensors: moving the key bias leaves every output unchanged."""
    ours = _randomize(tl.MultiHeadAttention(D, H), seed=10).double().eval()
    x = torch.randn(2, 5, D, dtype=torch.float64)
    before = ours(x, x, x)[0]
    with torch.no_grad():
        ours.k_proj.bias.add_(torch.randn(D, dtype=torch.float64))
    torch.testing.assert_close(ours(x, x, x)[0], before, rtol=1e-12, atol=1e-12)


# --- bias=False: torch's flag also removes the LayerNorm biases; the library's keeps them ---------------


def _bias_free_layer(kind: str, norm_first: bool, seed: int):
    """A library layer built with bias=False, random weights, and LayerNorm biases of 0 (as at initialisation)."""
    layer_type = tl.EncoderLayer if kind == "encoder" else tl.DecoderLayer
    layer = _randomize(layer_type(D, H, F, dropout=0.0, norm_first=norm_first, bias=False), seed)
    with torch.no_grad():
        for module in layer.modules():
            if isinstance(module, nn.LayerNorm):
                module.bias.zero_()
    return layer.double().eval()


def _run(layer, x, memory):
    """The layer's output on x (and memory, for a decoder layer, with a causal mask), for ours and torch's."""
    if isinstance(layer, tl.EncoderLayer):
        return layer(x)
    if isinstance(layer, nn.TransformerEncoderLayer):
        return layer(x)
    if isinstance(layer, tl.DecoderLayer):
        return layer(x, memory, tgt_mask=tl.causal_mask(x.shape[1]))
    return layer(x, memory, tgt_mask=tl.to_torch_attn_mask(tl.causal_mask(x.shape[1])))


def _torch_tensor_of(ours, name: str) -> torch.Tensor:
    """Our tensor that a bias-free torch layer's parameter ``name`` must hold."""
    parts = name.split(".")
    if parts[0] == "multihead_attn":
        parts[0] = "cross_attn"
    if parts[-1] == "in_proj_weight":
        attn = getattr(ours, parts[0])
        return torch.cat([attn.q_proj.weight, attn.k_proj.weight, attn.v_proj.weight])
    if parts[0].startswith("linear"):
        parts.insert(0, "ffn")
    return ours.get_parameter(".".join(parts))


@pytest.mark.parametrize("kind", ["encoder", "decoder"])
@pytest.mark.parametrize("norm_first", [False, True])
def test_bias_false_layer_copies_to_torch_and_back_exactly(kind, norm_first):
    ours = _bias_free_layer(kind, norm_first, seed=11)
    to_torch = tl.interop.to_torch_encoder_layer if kind == "encoder" else tl.interop.to_torch_decoder_layer
    theirs = to_torch(ours).eval()
    names = [n for n, _ in theirs.named_parameters()]
    assert not [n for n in names if "bias" in n], "torch's bias=False layer has no biases at all"
    for name, p in theirs.named_parameters():
        torch.testing.assert_close(p, _torch_tensor_of(ours, name), rtol=0, atol=0, msg=f"{name} not copied")
    x, memory = torch.randn(2, 5, D, dtype=torch.float64), torch.randn(2, 4, D, dtype=torch.float64)
    torch.testing.assert_close(_run(ours, x, memory), _run(theirs, x, memory), rtol=1e-12, atol=1e-12)
    from_torch = tl.interop.from_torch_encoder_layer if kind == "encoder" else tl.interop.from_torch_decoder_layer
    back = from_torch(theirs)
    assert back.ffn.linear1.bias is None and back.self_attn.q_proj.bias is None
    for name, p in ours.state_dict().items():
        torch.testing.assert_close(back.state_dict()[name], p, rtol=0, atol=0, msg=f"{name} changed on the round trip")


@pytest.mark.parametrize("kind", ["encoder", "decoder"])
def test_bias_false_torch_layer_copies_with_zero_layer_norm_biases(kind):
    torch_type = nn.TransformerEncoderLayer if kind == "encoder" else nn.TransformerDecoderLayer
    theirs = _randomize(torch_type(D, H, F, dropout=0.0, batch_first=True, bias=False), seed=12).double().eval()
    from_torch = tl.interop.from_torch_encoder_layer if kind == "encoder" else tl.interop.from_torch_decoder_layer
    ours = from_torch(theirs).eval()
    norms = [m for m in ours.modules() if isinstance(m, nn.LayerNorm)]
    assert len(norms) == (2 if kind == "encoder" else 3)
    assert all(bool((norm.bias == 0).all()) for norm in norms)
    for name, p in theirs.named_parameters():
        torch.testing.assert_close(_torch_tensor_of(ours, name), p, rtol=0, atol=0, msg=f"{name} not copied")
    x, memory = torch.randn(2, 5, D, dtype=torch.float64), torch.randn(2, 4, D, dtype=torch.float64)
    torch.testing.assert_close(_run(ours, x, memory), _run(theirs, x, memory), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("kind", ["encoder", "decoder"])
def test_bias_false_layer_with_a_nonzero_layer_norm_bias_is_refused(kind):
    ours = _bias_free_layer(kind, norm_first=False, seed=13)
    with torch.no_grad():
        ours.norm2.bias[3] = 0.25  # one entry of one LayerNorm bias
    to_torch = tl.interop.to_torch_encoder_layer if kind == "encoder" else tl.interop.to_torch_decoder_layer
    with pytest.raises(ValueError, match=r"bias=False but non-zero LayerNorm biases \(norm2\.bias; largest \|b\| = 0\.25\)"):
        to_torch(ours)


def test_bias_false_stacks_copy_to_torch():
    config = tl.TransformerConfig.tiny(d_model=D, n_heads=H, d_ff=F, n_encoder_layers=2, norm_first=True, bias=False)
    encoder = tl.Encoder(config).double().eval()  # LayerNorm biases 0, as built
    theirs = tl.interop.to_torch_encoder(encoder).eval()
    x = torch.randn(2, 5, D, dtype=torch.float64)
    torch.testing.assert_close(encoder(x), theirs(x), rtol=1e-12, atol=1e-12)
