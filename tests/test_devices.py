"""Any device, any dtype: every module follows the device and dtype of the model and tensors it is given.

The ``meta`` device has shapes and dtypes but no values, so a module that runs
there allocates nothing on the CPU behind its inputs' back. What must read values
(decoding stops at ``<eos>``, ``train`` logs each loss, ``evaluate`` counts exact
matches) runs instead in a second CPU dtype. The CUDA test runs where a GPU is.
"""

from __future__ import annotations

import pytest
import torch
import torch.nn.functional as F

import transformer_lib as tl

META = torch.device("meta")
TASK = tl.make_task("reverse", n_symbols=6, max_len=6)
V = len(TASK.vocab)


def _config(**changes):
    values = dict(src_vocab_size=V, tgt_vocab_size=V, d_model=16, n_heads=2, d_ff=32, max_len=16, dropout=0.0)
    return tl.TransformerConfig.tiny(**{**values, **changes})


def _on_meta(x: torch.Tensor, shape: tuple[int, ...], dtype: torch.dtype | None = None) -> None:
    assert x.device.type == "meta" and tuple(x.shape) == shape
    if dtype is not None:
        assert x.dtype == dtype


# --- meta: shapes and dtypes only --------------------------------------------


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.bfloat16])
def test_every_model_kind_runs_forward_on_meta(dtype):
    batch = tl.collate(TASK.examples(4, seed=0), vocab_size=V, device="meta")
    B, S, T = len(batch), batch.src.shape[1], batch.tgt_in.shape[1]
    transformer = tl.Transformer(_config()).to(META, dtype)
    _on_meta(transformer(batch.src, batch.tgt_in, src_mask=batch.src_mask, tgt_mask=batch.tgt_mask), (B, T, V), dtype)
    explicit = tl.set_attention_kernel(tl.Transformer(_config()).to(META, dtype), "explicit")
    _on_meta(explicit(batch.src, batch.tgt_in, src_mask=batch.src_mask, tgt_mask=batch.tgt_mask), (B, T, V), dtype)
    _on_meta(tl.DecoderOnlyLM(_config()).to(META, dtype)(batch.tgt_in, mask=batch.tgt_mask), (B, T, V), dtype)
    learned = tl.DecoderOnlyLM(_config(positional="learned")).to(META, dtype)
    _on_meta(learned(batch.tgt_in), (B, T, V), dtype)
    _on_meta(tl.EncoderOnlyLM(_config()).to(META, dtype)(batch.src, mask=batch.src_mask), (B, S, V), dtype)
    vit = tl.VisionTransformer(_config(norm_first=True), image_size=4, patch_size=2, in_channels=1, n_classes=3).to(META, dtype)
    _on_meta(vit(torch.empty(B, 1, 4, 4, device=META, dtype=dtype)), (B, 3), dtype)
    speech = tl.SpeechTransformer(_config(), n_features=5).to(META, dtype)
    features = torch.empty(B, 8, 5, device=META, dtype=dtype)
    _on_meta(speech(features, batch.tgt_in, tgt_mask=batch.tgt_mask), (B, T, V), dtype)
    rnn = tl.RNNSeq2Seq(V, V, embed_dim=8, hidden_size=16).to(META, dtype)
    _on_meta(rnn(batch.src, batch.tgt_in, src_mask=batch.src_mask), (B, T, V), dtype)


def test_a_cached_decoder_step_runs_on_meta():
    lm = tl.DecoderOnlyLM(_config()).to(META).eval()
    cache = tl.attention.KVCache()
    tokens = torch.zeros(2, 3, dtype=torch.long, device=META)
    _on_meta(lm(tokens, cache=cache), (2, 3, V))
    _on_meta(lm(torch.zeros(2, 4, dtype=torch.long, device=META), cache=cache), (2, 1, V))
    model = tl.Transformer(_config()).to(META).eval()
    memory = model.encode(tokens)
    cache = tl.attention.KVCache()
    _on_meta(model.decode(tokens, memory, cache=cache), (2, 3, 16))
    cache.reorder(torch.tensor([1, 0], device=META))


def test_label_smoothing_runs_on_meta():
    """Failed on the old code: target_distribution allocated q on the CPU, whatever the target's device."""
    loss = tl.LabelSmoothingLoss(V, 0.1, ignore_index=0)
    target = torch.zeros(3, 5, dtype=torch.long, device=META)
    _on_meta(loss.target_distribution(target), (3, 5, V), torch.get_default_dtype())
    _on_meta(loss.target_distribution(target, dtype=torch.float64), (3, 5, V), torch.float64)
    logits = torch.empty(3, 5, V, device=META, dtype=torch.float64)
    _on_meta(loss(logits, target), (), torch.float64)
    _on_meta(tl.LabelSmoothingLoss(V, 0.1, reduction="none")(logits, target), (3, 5), torch.float64)


def test_the_batch_losses_run_on_meta():
    batch = tl.collate(TASK.examples(4, seed=0), vocab_size=V, device="meta")
    model = tl.Transformer(_config()).to(META)
    loss_sum, count = tl.seq2seq_loss()(model, batch)
    _on_meta(loss_sum, ())
    assert count == tl.collate(TASK.examples(4, seed=0)).n_tgt_tokens  # counted at collation, no device read
    lm = tl.DecoderOnlyLM(_config()).to(META)
    lm_batch = tl.data.Batch(None, batch.tgt_in, batch.tgt_out, None, batch.tgt_mask, tgt_token_count=count)
    _on_meta(tl.lm_loss()(lm, lm_batch)[0], ())
    bert = tl.EncoderOnlyLM(_config()).to(META)
    tokens = torch.randint(4, V, (4, 6)).to(META)
    inputs, labels = tl.mask_tokens(tokens, 3, V, torch.Generator().manual_seed(0))  # CPU generator, meta tokens
    _on_meta(inputs, (4, 6), torch.long)
    logits = bert(inputs)
    _on_meta(F.cross_entropy(logits.transpose(1, 2), labels, reduction="sum"), ())


def test_masks_and_positions_follow_the_device():
    tokens = torch.zeros(2, 5, dtype=torch.long, device=META)
    _on_meta(tl.causal_mask(5, device=META), (5, 5), torch.bool)
    _on_meta(tl.masks.band_mask(5, 1, device=META), (5, 5), torch.bool)
    _on_meta(tl.padding_mask(tokens, 0), (2, 1, 1, 5), torch.bool)
    _on_meta(tl.decoder_mask(tokens, 0), (2, 1, 5, 5), torch.bool)
    _on_meta(tl.masks.to_additive(tl.causal_mask(5, device=META), torch.float64), (5, 5), torch.float64)
    _on_meta(tl.model.with_causal(None, 3, META, past=2), (3, 5), torch.bool)
    _on_meta(tl.positional.sinusoidal_table(8, 4, device=META), (8, 4), torch.float32)
    cpu = tl.positional.sinusoidal_table(8, 4, torch.float64)
    with torch.device(META):  # the angles are computed on the CPU even under a meta default device
        table = tl.positional.sinusoidal_table(8, 4, torch.float64, device="cpu")
    assert torch.equal(table, cpu)


def test_collate_and_batch_to():
    examples = TASK.examples(5, seed=1)
    cpu = tl.collate(examples, vocab_size=V)
    meta = tl.collate(examples, vocab_size=V, device="meta")
    moved = cpu.to("meta")
    for batch in (meta, moved):
        for name in ("src", "tgt_in", "tgt_out", "src_mask", "tgt_mask"):
            _on_meta(getattr(batch, name), tuple(getattr(cpu, name).shape), getattr(cpu, name).dtype)
        assert batch.n_tgt_tokens == cpu.n_tgt_tokens == int((cpu.tgt_out != 0).sum())
    assert cpu.to(torch.device("cpu")).src is cpu.src  # already there: not copied
    assert cpu.shard(1, 2).n_tgt_tokens == int((cpu.shard(1, 2).tgt_out != 0).sum())  # a shard counts its own rows
    assert torch.equal(tl.collate(examples).src, cpu.src) and tl.collate(examples).src.device.type == "cpu"
    with pytest.raises(TypeError, match=r"device must be a torch.device or a string such as 'cuda', got int"):
        cpu.to(0)
    with pytest.raises(TypeError, match=r"device must be a torch.device, a string such as 'cuda', or None, got int"):
        tl.collate(examples, device=0)
    with pytest.raises(ValueError, match=r"examples\[1\] must hold ids in \[0, vocab_size=6\), got 7"):
        tl.collate([((4,), (5,)), ((7,), (4,))], vocab_size=6)
    with pytest.raises(ValueError, match=r"eos_id must be an id in \[0, vocab_size=2\), got 2"):
        tl.collate([((1,), (1,))], vocab_size=2)


# --- a second dtype, where values are read ----------------------------------------


def _trained(dtype, steps=4, **kwargs):
    torch.manual_seed(0)
    model = tl.Transformer(_config()).to(dtype)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
    history = tl.train(model, optimizer, TASK.batches(60, seed=1), steps, progress=False, **kwargs)
    return model, history


@pytest.mark.parametrize("dtype", [torch.float64, torch.bfloat16])
def test_train_evaluate_and_decode_in_a_second_dtype(dtype):
    reference, ref_history = _trained(torch.float32)
    model, history = _trained(dtype)
    tolerance = 1e-4 if dtype == torch.float64 else 0.1
    assert history.losses == pytest.approx(ref_history.losses, rel=tolerance)
    assert all(p.dtype == dtype for p in model.parameters())
    held_out = TASK.examples(20, seed=2, split="held_out")
    metrics, ref_metrics = tl.evaluate(model, held_out), tl.evaluate(reference, held_out)
    assert metrics["loss"] == pytest.approx(ref_metrics["loss"], rel=tolerance)
    batch = tl.collate(held_out)
    for decode in (tl.greedy_decode, tl.beam_search):
        output = decode(model, batch.src, bos_id=tl.data.BOS_ID, eos_id=tl.data.EOS_ID, max_new_tokens=8, src_mask=batch.src_mask)
        assert output.dtype == torch.long and output.shape[0] == len(held_out)
        if dtype == torch.float64:  # the same tokens as in float32 (bfloat16 may flip a near tie)
            expected = decode(
                reference, batch.src, bos_id=tl.data.BOS_ID, eos_id=tl.data.EOS_ID, max_new_tokens=8, src_mask=batch.src_mask
            )
            assert torch.equal(output, expected)
    lm = tl.DecoderOnlyLM(_config()).to(dtype)
    prompt = torch.randint(4, V, (3, 4))
    assert tl.sample(lm, prompt, max_new_tokens=5, generator=torch.Generator().manual_seed(0)).shape == (3, 5)


def test_train_with_an_explicit_device_matches_the_default():
    _, default = _trained(torch.float32)
    _, explicit = _trained(torch.float32, device="cpu")
    assert explicit.losses == default.losses
    with pytest.raises(TypeError, match=r"device must be a torch.device, a string such as 'cuda', or None, got int"):
        _trained(torch.float32, device=0)


def test_train_moves_tuple_batches_to_the_models_device(monkeypatch):
    """The batches go where the model is. Here the model 'is' on the meta device (model_device patched), so a
    batch that was not moved arrives on the CPU: failed on the code before train knew a device."""
    torch.manual_seed(0)
    lm = tl.DecoderOnlyLM(_config()).double()
    tokens = torch.randint(4, V, (8, 6))
    seen = []

    def batch_loss(model, batch):
        seen.append(tuple(x.device.type for x in batch))
        return sum(p.sum() for p in model.parameters()) * 0.0, 5  # a loss on the CPU, whatever the batch

    monkeypatch.setattr(tl.training, "model_device", lambda model: torch.device("meta"))
    tl.train(
        lm,
        torch.optim.SGD(lm.parameters(), lr=0.1),
        [(tokens[:, :-1], tokens[:, 1:])] * 2,
        2,
        batch_loss=batch_loss,
        progress=False,
    )
    assert seen == [("meta", "meta")] * 2


def test_under_torchrun_only_this_ranks_rows_are_moved(monkeypatch):
    """A rank moves its shard, not the global batch: failed on the code that moved the whole batch first."""
    moved = []
    real = tl.training._to_device

    def recording(batch, device):
        if isinstance(batch, tuple):  # the batch itself, not the tensors it recurses into
            moved.append(tuple(x.shape[0] for x in batch))
        return real(batch, device)

    monkeypatch.setattr(tl.training, "_to_device", recording)
    monkeypatch.setattr(tl.training, "_world", lambda: (1, 2))  # rank 1 of 2

    class NoWrapper:  # one process plays rank 1: no DistributedDataParallel around the model
        def __new__(cls, module):
            return module

    monkeypatch.setattr(tl.training.nn.parallel, "DistributedDataParallel", NoWrapper)
    monkeypatch.setattr(tl.training.dist, "all_reduce", lambda tensor: tensor.mul_(2))  # two equal ranks
    torch.manual_seed(0)
    lm = tl.DecoderOnlyLM(_config()).double()
    tokens = torch.randint(4, V, (8, 6))
    tl.train(
        lm,
        torch.optim.SGD(lm.parameters(), lr=0.1),
        [(tokens[:, :-1], tokens[:, 1:])],
        1,
        batch_loss=tl.lm_loss(),
        progress=False,
    )
    assert moved == [(4, 4)]  # rows 4..7 of the 8


def test_train_keeps_the_callers_own_batch_objects():
    # a review found that moving batches rebuilt a NamedTuple from a generator (a TypeError) and turned a dict
    # subclass into a dict; a batch already on the model's device must reach batch_loss as it was given
    from typing import NamedTuple

    class LMBatch(NamedTuple):
        inputs: torch.Tensor
        targets: torch.Tensor

    class Tagged(dict):
        pass

    torch.manual_seed(0)
    lm = tl.DecoderOnlyLM(_config()).double()
    tokens = torch.randint(4, V, (8, 6))
    named, tagged = LMBatch(tokens[:, :-1], tokens[:, 1:]), Tagged(inputs=tokens[:, :-1], targets=tokens[:, 1:])
    seen = []

    def batch_loss(model, batch):
        seen.append(batch)
        inputs, targets = (batch.inputs, batch.targets) if isinstance(batch, LMBatch) else (batch["inputs"], batch["targets"])
        return tl.lm_loss()(model, (inputs, targets))

    tl.train(lm, torch.optim.SGD(lm.parameters(), lr=0.1), [named, tagged], 2, batch_loss=batch_loss, progress=False)
    assert seen[0] is named and seen[1] is tagged


# --- evaluate: every model train accepts ------------------------------------------


def test_evaluate_a_decoder_only_model():
    """Failed on the old code with a bare TypeError about src_mask."""
    torch.manual_seed(0)
    lm = tl.DecoderOnlyLM(_config()).double()
    examples = TASK.examples(12, seed=3)
    metrics = tl.evaluate(lm, examples, batch_size=5)
    assert set(metrics) == {"loss", "accuracy"} and 0.0 <= metrics["accuracy"] <= 1.0
    # the loss is the cross-entropy of target + <eos> after source + <bos>, example by example
    total, count = 0.0, 0
    lm.eval()
    for source, target in examples:
        sequence = torch.tensor([[*source, tl.data.BOS_ID, *target]])
        with torch.no_grad():
            logits = lm(sequence)[0, len(source) :]
        gold = torch.tensor([*target, tl.data.EOS_ID])
        total += float(F.cross_entropy(logits, gold, reduction="sum"))
        count += len(gold)
    assert metrics["loss"] == pytest.approx(total / count, rel=1e-12)
    # and the accuracy counts greedy continuations equal to the target
    right = 0
    for source, target in examples:
        prompt = torch.tensor([[*source, tl.data.BOS_ID]])
        out = []
        with torch.no_grad():
            while len(out) < len(target) + 1 and tl.data.EOS_ID not in out:
                out.append(int(lm(torch.cat([prompt, torch.tensor([out], dtype=torch.long)], dim=1))[0, -1].argmax()))
        right += out == [*target, tl.data.EOS_ID]
    assert metrics["accuracy"] == right / len(examples)


def test_evaluate_a_vision_transformer():
    """Failed on the old code (a ValueError: evaluate took only models that map ids to ids)."""
    torch.manual_seed(0)
    vit = tl.VisionTransformer(_config(norm_first=True), image_size=4, patch_size=2, in_channels=1, n_classes=3).double()
    images, labels = torch.randn(7, 1, 4, 4, dtype=torch.float64), torch.tensor([0, 1, 2, 0, 1, 2, 2])
    metrics = tl.evaluate(vit, list(zip(images, labels.tolist(), strict=True)), batch_size=3)
    vit.eval()
    with torch.no_grad():
        logits = vit(images)
    assert metrics["loss"] == pytest.approx(float(F.cross_entropy(logits, labels)), rel=1e-12)
    assert metrics["accuracy"] == float((logits.argmax(-1) == labels).double().mean())


def test_evaluate_an_encoder_only_model():
    """Scored on the labelled positions only, as masked_lm_loss trains it. Failed on the old code (a ValueError)."""
    torch.manual_seed(0)
    bert = tl.EncoderOnlyLM(_config()).double()
    gen = torch.Generator().manual_seed(1)
    tokens = torch.randint(4, V, (9, 6), generator=gen)
    inputs, labels = tl.mask_tokens(tokens, mask_id=3, vocab_size=V, generator=gen, p=0.3)
    metrics = tl.evaluate(bert, list(zip(inputs, labels, strict=True)), batch_size=4)
    bert.eval()
    with torch.no_grad():
        logits = bert(inputs)
    labelled = labels != -100
    assert metrics["loss"] == pytest.approx(float(F.cross_entropy(logits[labelled], labels[labelled])), rel=1e-12)
    assert metrics["accuracy"] == float((logits.argmax(-1)[labelled] == labels[labelled]).double().mean())


def test_evaluate_a_speech_model_on_features():
    """(features, target ids) examples, decoded greedily from the features. Failed on the old code (a ValueError)."""
    torch.manual_seed(0)
    speech = tl.SpeechTransformer(_config(), n_features=5).double()
    examples = [(torch.randn(8, 5, dtype=torch.float64), target) for _, target in TASK.examples(5, seed=4)]
    metrics = tl.evaluate(speech, examples)
    speech.eval()
    total, count, right = 0.0, 0, 0
    for features, target in examples:  # one by one: the library's own forward and greedy decoder
        tgt_in, tgt_out = torch.tensor([[tl.data.BOS_ID, *target]]), torch.tensor([[*target, tl.data.EOS_ID]])
        with torch.no_grad():
            total += float(F.cross_entropy(speech(features[None], tgt_in)[0], tgt_out[0], reduction="sum"))
        count += tgt_out.shape[1]
        out = tl.greedy_decode(
            speech, features[None], bos_id=tl.data.BOS_ID, eos_id=tl.data.EOS_ID, max_new_tokens=tgt_out.shape[1]
        )
        right += out[0].tolist() == tgt_out[0].tolist()
    assert metrics["loss"] == pytest.approx(total / count, rel=1e-10) and metrics["accuracy"] == right / len(examples)


def test_evaluate_refuses_a_model_train_does_not_know_and_bad_arguments():
    examples = TASK.examples(3, seed=0)
    with pytest.raises(ValueError, match=r"model must be one train accepts .* got Linear"):
        tl.evaluate(torch.nn.Linear(2, 2), examples)
    with pytest.raises(ValueError, match=r"batch_size must be a positive int, got 0"):
        tl.evaluate(tl.Transformer(_config()), examples, batch_size=0)
    with pytest.raises(ValueError, match=r"at least one item to score"):
        tl.evaluate(tl.EncoderOnlyLM(_config()), [(torch.tensor([4, 5]), torch.tensor([-100, -100]))])


def test_evaluate_an_rnn_seq2seq():
    torch.manual_seed(0)
    metrics = tl.evaluate(tl.RNNSeq2Seq(V, V, embed_dim=8, hidden_size=16), TASK.examples(6, seed=0))
    assert metrics["loss"] > 0 and 0.0 <= metrics["accuracy"] <= 1.0


# --- the GPU --------------------------------------------------------------------


@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA GPU")
def test_train_evaluate_and_decode_on_the_gpu_match_the_cpu():
    cpu_model, cpu_history = _trained(torch.float32, steps=5)
    torch.manual_seed(0)
    model = tl.Transformer(_config())
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
    model.to("cuda")  # before the first step: Adam has no state yet
    history = tl.train(model, optimizer, TASK.batches(60, seed=1), 5, progress=False, device="cuda")
    assert next(model.parameters()).device.type == "cuda"
    assert history.losses == pytest.approx(cpu_history.losses, rel=1e-3)
    held_out = TASK.examples(20, seed=2, split="held_out")
    metrics, cpu_metrics = tl.evaluate(model, held_out), tl.evaluate(cpu_model, held_out)
    assert metrics["loss"] == pytest.approx(cpu_metrics["loss"], rel=1e-3)
    batch = tl.collate(held_out, device="cuda")
    cpu_batch = tl.collate(held_out)
    for decode in (tl.greedy_decode, tl.beam_search):
        output = decode(model, batch.src, bos_id=tl.data.BOS_ID, eos_id=tl.data.EOS_ID, max_new_tokens=8, src_mask=batch.src_mask)
        expected = decode(
            cpu_model, cpu_batch.src, bos_id=tl.data.BOS_ID, eos_id=tl.data.EOS_ID, max_new_tokens=8, src_mask=cpu_batch.src_mask
        )
        assert output.device.type == "cuda"
        assert (output.cpu() == expected).float().mean() > 0.95  # a near tie may flip a token
    loss = tl.LabelSmoothingLoss(V, 0.1, ignore_index=0)
    logits = torch.randn(4, 5, V)
    target = torch.randint(0, V, (4, 5))
    torch.testing.assert_close(loss(logits.cuda(), target.cuda()).cpu(), loss(logits, target), rtol=1e-5, atol=1e-6)
    lm = tl.DecoderOnlyLM(_config()).cuda()
    out = tl.sample(lm, torch.randint(4, V, (2, 3), device="cuda"), max_new_tokens=4, generator=torch.Generator().manual_seed(0))
    assert out.device.type == "cuda" and out.shape == (2, 4)
    assert tl.evaluate(lm, held_out)["loss"] > 0
