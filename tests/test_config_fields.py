"""Every config field the models read changes what they compute, and each dropout site acts.

Each test here fails when one line of the library ignores a field (a dropout
module built with p=0 or skipped in forward, a LayerNorm built without the
config's eps, a projection that keeps its bias, Pre-LN wired as Post-LN, an
embedding not scaled, a tying not done), or reads the wrong position
(ViT's class token, the language models' per-position read-out). Also beam
search's score bookkeeping, on a hand-built model where the length penalty
decides the winner.
"""

import math

import pytest
import torch
from torch import nn

import transformer_lib as tl

V = 11


def _config(**changes):
    values = dict(
        src_vocab_size=V,
        tgt_vocab_size=V,
        d_model=16,
        n_heads=2,
        d_ff=24,
        n_encoder_layers=2,
        n_decoder_layers=2,
        dropout=0.0,
        max_len=16,
    )
    values.update(changes)
    return tl.TransformerConfig(**values)


def _inputs(seed=0):
    g = torch.Generator().manual_seed(seed)
    return torch.randint(1, V, (3, 6), generator=g), torch.randint(1, V, (3, 5), generator=g)


def _models(config):
    return {
        "Transformer": (tl.Transformer(config), lambda m, s, t: m(s, t)),
        "DecoderOnlyLM": (tl.DecoderOnlyLM(config), lambda m, s, t: m(t)),
        "EncoderOnlyLM": (tl.EncoderOnlyLM(config), lambda m, s, t: m(s)),
    }


def _twins(config_a, config_b, build=tl.Transformer):
    """Two models built from configs that differ in one field, with the same weights where they share them."""
    torch.manual_seed(0)
    a = build(config_a).double().eval()
    torch.manual_seed(0)
    b = build(config_b).double().eval()
    b.load_state_dict(a.state_dict(), strict=False)
    return a, b


# --- dropout: every site is built with the config's rate and its output is used -------------


def _dropout_sites(model):
    return {name: module for name, module in model.named_modules() if isinstance(module, nn.Dropout)}


def _expected_rate(name, config):
    return config.ffn_dropout if name.endswith("ffn.dropout") else config.dropout


@pytest.mark.parametrize("norm_first", [False, True])
@pytest.mark.parametrize("model_name", ["Transformer", "DecoderOnlyLM", "EncoderOnlyLM"])
def test_every_dropout_site_has_the_config_rate_and_acts(model_name, norm_first):
    config = _config(dropout=0.3, ffn_dropout=0.2, norm_first=norm_first)
    torch.manual_seed(0)
    model, run = _models(config)[model_name]
    model = model.double()
    src, tgt = _inputs()
    sites = _dropout_sites(model)
    expected_sites = {"Transformer": 1 + 2 * 3 + 2 * 4, "DecoderOnlyLM": 1 + 2 * 3, "EncoderOnlyLM": 1 + 2 * 3}
    assert len(sites) == expected_sites[model_name]  # embeddings+positions, residual after each sub-layer, FFN inner
    for name, module in sites.items():
        assert module.p == _expected_rate(name, config), name
    # each site alone: switched on (p=0.5) with every other site off, training mode must differ from eval mode
    for name, module in sites.items():
        for other in sites.values():
            other.p = 0.0
        module.p = 0.5
        model.eval()
        with torch.no_grad():
            reference = run(model, src, tgt)
            model.train()
            torch.manual_seed(1)
            dropped = run(model, src, tgt)
        assert not torch.allclose(dropped, reference), f"dropout site {name} has no effect"


@pytest.mark.parametrize("model_name", ["Transformer", "DecoderOnlyLM", "EncoderOnlyLM"])
def test_attention_dropout_is_the_config_rate_and_acts(model_name):
    config = _config(attention_dropout=0.4)
    torch.manual_seed(0)
    model, run = _models(config)[model_name]
    model = model.double()
    attention = [m for m in model.modules() if isinstance(m, tl.MultiHeadAttention)]
    assert attention and all(m.dropout == 0.4 for m in attention)
    src, tgt = _inputs()
    with torch.no_grad():
        reference = run(model.eval(), src, tgt)
        for layer in attention:  # one module at a time: its own dropout changes the training-mode output
            for other in attention:
                other.dropout = 0.0
            layer.dropout = 0.5
            torch.manual_seed(2)
            assert not torch.allclose(run(model.train(), src, tgt), reference)
            torch.testing.assert_close(run(model.eval(), src, tgt), reference, rtol=0, atol=0)


def test_attention_dropout_acts_on_the_weights_in_both_kernels():
    mha = tl.MultiHeadAttention(16, 2, dropout=0.5).double().train()
    v_only = torch.randn(1, 5, 16, dtype=torch.float64)
    for kernel in ("fused", "explicit"):
        torch.manual_seed(0)
        out, _ = mha(v_only, v_only, v_only, kernel=kernel)
        mha.eval()
        clean, _ = mha(v_only, v_only, v_only, kernel=kernel)
        mha.train()
        assert not torch.allclose(out, clean), kernel


# --- LayerNorm epsilon, bias, norm_first, activation, sizes -------------------------------


@pytest.mark.parametrize("norm_first", [False, True])
def test_layer_norm_eps_reaches_every_layer_norm(norm_first):
    config = _config(norm_first=norm_first, layer_norm_eps=0.5)
    for model, _ in _models(config).values():
        norms = [m for m in model.modules() if isinstance(m, nn.LayerNorm)]
        assert norms and all(m.eps == 0.5 for m in norms)
    a, b = _twins(_config(norm_first=norm_first), config)
    src, tgt = _inputs()
    assert not torch.allclose(a(src, tgt), b(src, tgt))


def test_bias_false_removes_every_projection_bias():
    for bias in (True, False):
        model = tl.Transformer(_config(bias=bias))
        linears = [m for name, m in model.named_modules() if isinstance(m, nn.Linear) and name != "output_projection"]
        assert len(linears) == 2 * (4 + 2) + 2 * (8 + 2)  # encoder layers: 4 + 2, decoder layers: 8 + 2
        assert all((m.bias is not None) == bias for m in linears)
    D, F = 16, 24
    with_bias, without = tl.count_parameters(tl.Transformer(_config())), tl.count_parameters(tl.Transformer(_config(bias=False)))
    assert with_bias - without == 6 * 4 * D + 4 * (F + D)  # 6 attention modules x 4 biases, 4 FFNs x (b_1, b_2)


def test_norm_first_wires_the_residual_branches():
    """Pre-LN: x + Dropout(Sublayer(LN(x))); Post-LN: LN(x + Dropout(Sublayer(x))), written out by hand."""
    torch.manual_seed(0)
    x = torch.randn(2, 5, 16, dtype=torch.float64)
    memory = torch.randn(2, 4, 16, dtype=torch.float64)
    for norm_first in (False, True):
        layer = tl.EncoderLayer(16, 2, 24, dropout=0.0, norm_first=norm_first).double().eval()

        def attn(y, layer=layer):
            return layer.self_attn(y, y, y)[0]

        if norm_first:
            h = x + attn(layer.norm1(x))
            expected = h + layer.ffn(layer.norm2(h))
        else:
            h = layer.norm1(x + attn(x))
            expected = layer.norm2(h + layer.ffn(h))
        torch.testing.assert_close(layer(x), expected, rtol=0, atol=1e-12)
        dec = tl.DecoderLayer(16, 2, 24, dropout=0.0, norm_first=norm_first).double().eval()
        mask = tl.causal_mask(5)

        def self_attn(y, dec=dec, mask=mask):
            return dec.self_attn(y, y, y, mask=mask)[0]

        def cross(y, dec=dec):
            return dec.cross_attn(y, memory, memory)[0]

        if norm_first:
            h = x + self_attn(dec.norm1(x))
            h = h + cross(dec.norm2(h))
            expected = h + dec.ffn(dec.norm3(h))
        else:
            h = dec.norm1(x + self_attn(x))
            h = dec.norm2(h + cross(h))
            expected = dec.norm3(h + dec.ffn(h))
        torch.testing.assert_close(dec(x, memory, tgt_mask=mask), expected, rtol=0, atol=1e-12)


def test_activation_d_ff_and_layer_counts_are_read():
    model = tl.Transformer(_config(activation="gelu", d_ff=40, n_encoder_layers=3, n_decoder_layers=1))
    ffns = [m for m in model.modules() if isinstance(m, tl.PositionwiseFeedForward)]
    assert len(ffns) == 4 and all(isinstance(f.activation, nn.GELU) and f.linear1.out_features == 40 for f in ffns)
    assert len(model.encoder.layers) == 3 and len(model.decoder.layers) == 1
    a, b = _twins(_config(), _config(activation="gelu"))
    src, tgt = _inputs()
    assert not torch.allclose(a(src, tgt), b(src, tgt))


# --- embeddings: sharing and scaling ------------------------------------------------------


def test_share_embeddings_ties_three_matrices_or_none():
    shared = tl.Transformer(_config(share_embeddings=True))
    assert shared.src_embed is shared.tgt_embed and shared.output_projection.weight is shared.tgt_embed.weight
    separate = tl.Transformer(_config(share_embeddings=False))
    weights = {id(separate.src_embed.weight), id(separate.tgt_embed.weight), id(separate.output_projection.weight)}
    assert len(weights) == 3
    for model in (tl.DecoderOnlyLM(_config(share_embeddings=False)), tl.EncoderOnlyLM(_config(share_embeddings=False))):
        assert model.output_projection.weight is not model.embed.weight


@pytest.mark.parametrize("scale", [True, False])
def test_scale_embedding_multiplies_by_sqrt_d_model(scale):
    config = _config(scale_embedding=scale, positional="none")
    tokens = _inputs()[0]
    factor = math.sqrt(16) if scale else 1.0
    speech = tl.SpeechTransformer(config, n_features=3)
    for model, embed in [
        (tl.Transformer(config), "src_embed"),
        (tl.DecoderOnlyLM(config), "embed"),
        (tl.EncoderOnlyLM(config), "embed"),
        (speech, "tgt_embed"),
    ]:
        table = getattr(model, embed)
        torch.testing.assert_close(table(tokens), table.weight[tokens] * factor)
    a, b = _twins(_config(scale_embedding=True), _config(scale_embedding=False))
    src, tgt = _inputs()
    assert not torch.allclose(a(src, tgt), b(src, tgt))


# --- read-out positions ---------------------------------------------------------------------


def _with_changed_output(module, positions):
    """A forward hook that adds 1 to ``module``'s output at the given positions (axis 1)."""

    def hook(mod, args, output):
        output = output.clone()
        output[:, positions] += 1.0
        return output

    return module.register_forward_hook(hook)


def test_vision_transformer_reads_the_class_token_only():
    torch.manual_seed(0)
    vit = tl.VisionTransformer(_config(norm_first=True), 8, 4, 1, 3).double().eval()
    images = torch.randn(4, 1, 8, 8, dtype=torch.float64)
    logits = vit(images)
    handle = _with_changed_output(vit.encoder, slice(1, None))  # every patch token's final state
    torch.testing.assert_close(vit(images), logits, rtol=0, atol=0)
    handle.remove()
    handle = _with_changed_output(vit.encoder, 0)  # the class token's final state
    assert not torch.allclose(vit(images), logits)
    handle.remove()


@pytest.mark.parametrize("model_name", ["Transformer", "DecoderOnlyLM", "EncoderOnlyLM", "SpeechTransformer"])
def test_logits_at_position_t_read_the_final_state_at_t(model_name):
    torch.manual_seed(0)
    config = _config(norm_first=True)
    src, tgt = _inputs()
    features = torch.randn(3, 6, 3, dtype=torch.float64)
    model, run, last = {
        "Transformer": (tl.Transformer(config), lambda m: m(src, tgt), "decoder"),
        "DecoderOnlyLM": (tl.DecoderOnlyLM(config), lambda m: m(tgt), "norm"),
        "EncoderOnlyLM": (tl.EncoderOnlyLM(config), lambda m: m(src), "encoder"),
        "SpeechTransformer": (tl.SpeechTransformer(config, n_features=3), lambda m: m(features, tgt), "decoder"),
    }[model_name]
    model = model.double().eval()
    logits = run(model)
    handle = _with_changed_output(getattr(model, last), 2)
    changed = run(model)
    handle.remove()
    moved = (changed - logits).abs().amax(dim=(0, 2))  # per position
    assert moved[2] > 0 and (moved[torch.arange(len(moved)) != 2] == 0).all()


# --- beam search bookkeeping ------------------------------------------------------------------

PAD, BOS, EOS, A, B, C = range(6)


class TableModel(nn.Module):
    """Next-token probabilities looked up by generated prefix (one source)."""

    def __init__(self, table):
        super().__init__()
        self.table = table
        self.output_projection = nn.Identity()

    def encode(self, src, *, src_mask=None):
        return src[..., None].float()

    def decode(self, tgt, memory, *, src_mask=None, tgt_mask=None):
        out = torch.full((*tgt.shape, 6), -1e4)
        for b in range(tgt.shape[0]):
            for t in range(tgt.shape[1]):
                prefix = tuple(int(i) for i in tgt[b, 1 : t + 1])
                for token, p in self.table.get(prefix, {EOS: 1.0}).items():
                    out[b, t, token] = math.log(p)
        return out


# "<eos>" at once: log 0.5 = -0.693, |Y| = 1.  "A <eos>": log 0.45 = -0.799, |Y| = 2, lp(2) = (7/6)^alpha.
# alpha = 0: the short one wins; alpha = 1: -0.799 / (7/6) = -0.685 > -0.693, the long one wins.
LENGTH_TABLE = {(): {EOS: 0.5, A: 0.5}, (A,): {EOS: 0.9, B: 0.1}, (A, B): {EOS: 1.0}}


@pytest.mark.parametrize(("alpha", "winner"), [(0.0, [EOS]), (0.6, [EOS]), (1.0, [A, EOS]), (2.0, [A, EOS])])
def test_the_length_penalty_decides_the_winner(alpha, winner):
    """Fails if a finished hypothesis is ranked with the current step's length instead of its own,
    if the penalty is applied to the wrong length, or if the final ranking forgets the penalty."""
    out = tl.beam_search(
        TableModel(LENGTH_TABLE), torch.tensor([[A]]), bos_id=BOS, eos_id=EOS, max_new_tokens=5, beam_size=2, alpha=alpha
    )
    assert out.tolist() == [winner]
    short, long = math.log(0.5), math.log(0.45) / tl.gnmt_length_penalty(2, alpha).item()
    assert (long > short) == (winner[0] == A)  # the table's arithmetic, computed


def test_beam_search_keeps_a_finished_hypothesis_while_others_grow():
    # "<eos>" (0.4) finishes at step 1; "A ..." grows to "A B C <eos>" whose total is 0.6 * 0.9^3 = 0.437 > 0.4
    table = {(): {EOS: 0.4, A: 0.6}, (A,): {B: 0.9, EOS: 0.1}, (A, B): {C: 0.9, EOS: 0.1}, (A, B, C): {EOS: 0.9, A: 0.1}}
    model = TableModel(table)
    assert tl.beam_search(model, torch.tensor([[A]]), bos_id=BOS, eos_id=EOS, max_new_tokens=6, beam_size=2, alpha=0.0)[
        0
    ].tolist() == [A, B, C, EOS]
    # cut at max_len=2: the unfinished "A B" (0.54) is ranked with the finished "<eos>" (0.4) and wins
    assert tl.beam_search(
        model, torch.tensor([[A]]), bos_id=BOS, eos_id=EOS, max_new_tokens=2, beam_size=2, alpha=0.0
    ).tolist() == [[A, B]]


# --- which model reads which vocabulary and depth (the table in TransformerConfig's docstring) ---

READS = {  # model -> (its build, the fields it reads, the fields it ignores)
    "EncoderOnlyLM": (tl.EncoderOnlyLM, ("src_vocab_size", "n_encoder_layers"), ("tgt_vocab_size", "n_decoder_layers")),
    "DecoderOnlyLM": (tl.DecoderOnlyLM, ("tgt_vocab_size", "n_decoder_layers"), ("src_vocab_size", "n_encoder_layers")),
    "VisionTransformer": (
        lambda c: tl.VisionTransformer(c, image_size=8, patch_size=4, in_channels=1, n_classes=3),
        ("n_encoder_layers",),
        ("src_vocab_size", "tgt_vocab_size", "n_decoder_layers"),
    ),
}
BIGGER = {"src_vocab_size": 2 * V, "tgt_vocab_size": 2 * V, "n_encoder_layers": 3, "n_decoder_layers": 3}


def _shapes(build, config):
    torch.manual_seed(0)
    return {name: tuple(p.shape) for name, p in build(config).named_parameters()}


@pytest.mark.parametrize("model_name", sorted(READS))
def test_each_model_reads_the_fields_its_docstring_names_and_ignores_the_others(model_name):
    build, read, ignored = READS[model_name]
    plain = _shapes(build, _config(share_embeddings=False))
    for field in read:
        assert _shapes(build, _config(share_embeddings=False, **{field: BIGGER[field]})) != plain, field
    for field in ignored:
        assert _shapes(build, _config(share_embeddings=False, **{field: BIGGER[field]})) == plain, field
    row = next(line for line in tl.TransformerConfig.__doc__.splitlines() if line.split()[:1] == [model_name])
    assert all(field in row for field in read) and not any(field in row for field in ignored), row
