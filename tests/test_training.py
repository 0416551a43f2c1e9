"""Training: the schedule, label smoothing, the loop, checkpoints and exact resumption."""

import inspect
import pickle

import pytest
import torch
import torch.nn.functional as F

import transformer_lib as tl
from transformer_lib import checkpoint as checkpoint_module

# --- schedule ------------------------------------------------------------------


def test_noam_lr_is_equation_3():
    d, w = 512, 4000
    assert tl.noam_lr(0, d, w) == 0.0
    assert tl.noam_lr(1, d, w) == pytest.approx(512**-0.5 * 4000**-1.5)
    assert tl.noam_lr(w, d, w) == pytest.approx((d * w) ** -0.5)  # the peak, where both branches meet
    assert tl.noam_lr(w, d, w) == pytest.approx(6.987712429686844e-4)
    assert tl.noam_lr(2 * w, d, w) == pytest.approx(tl.noam_lr(w, d, w) / 2**0.5)  # 1/sqrt(step) decay
    assert tl.noam_lr(w // 2, d, w) == pytest.approx(tl.noam_lr(w, d, w) / 2)  # linear warm-up
    assert tl.noam_lr(100, 64, 10, factor=3.0) == pytest.approx(3 * 64**-0.5 * 100**-0.5)
    rates = [tl.noam_lr(s, d, w) for s in range(1, 3 * w)]
    assert max(range(len(rates)), key=rates.__getitem__) + 1 == w


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        (dict(step=-1, d_model=8), r"step must be an int >= 0, got -1"),
        (dict(step=-3, d_model=8), r"step must be an int >= 0, got -3"),
        (dict(step=1, d_model=0), r"d_model must be a positive int, got 0"),
        (dict(step=1, d_model=8, warmup=0), r"warmup must be a positive int"),
        (dict(step=1, d_model=8, factor=0), r"factor must be > 0, got 0"),
    ],
)
def test_noam_lr_bad_input(kwargs, message):
    with pytest.raises(ValueError, match=message):
        tl.noam_lr(**kwargs)


def test_noam_scheduler_sets_exactly_noam_lr_with_an_optimizer_lr_of_one():
    weight = torch.nn.Parameter(torch.ones(3))
    optimizer = torch.optim.Adam([weight], lr=1.0, betas=(0.9, 0.98), eps=1e-9)
    scheduler = tl.noam_scheduler(optimizer, d_model=64, warmup=5, factor=2.0)
    for update in range(1, 12):
        assert optimizer.param_groups[0]["lr"] == tl.noam_lr(update, 64, 5, 2.0)  # exactly, not approximately
        weight.sum().backward()
        optimizer.step()
        scheduler.step()
    with pytest.raises(TypeError, match=r"optimizer must be a torch.optim.Optimizer"):
        tl.noam_scheduler([weight], 64)


@pytest.mark.parametrize("optimizer_lr", [1e-3, 0.5])
def test_noam_scheduler_refuses_an_optimizer_lr_other_than_one(optimizer_lr):
    # failed before: the scheduler set every group's lr to 1.0 unseen, so Adam(lr=1e-3) trained at noam_lr
    weight = torch.nn.Parameter(torch.ones(3))
    optimizer = torch.optim.Adam([weight], lr=optimizer_lr)
    message = (
        r"optimizer must be built with lr=1.0: the schedule multiplies the optimizer's lr by factor \* noam_lr\(step, "
        rf"d_model, warmup\), so put any scale into factor; got lr={optimizer_lr} in param group 0"
    )
    with pytest.raises(ValueError, match=message):
        tl.noam_scheduler(optimizer, d_model=64, warmup=5)
    assert optimizer.param_groups[0]["lr"] == optimizer_lr  # left as it was
    two_groups = torch.optim.Adam([{"params": [weight]}, {"params": [torch.nn.Parameter(torch.ones(1))], "lr": 0.1}], lr=1.0)
    with pytest.raises(ValueError, match=r"got lr=0.1 in param group 1"):
        tl.noam_scheduler(two_groups, d_model=64)


# --- label smoothing -----------------------------------------------------------


@pytest.mark.parametrize("smoothing", [0.0, 0.1, 0.35])
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_label_smoothing_equals_torch_cross_entropy(smoothing, reduction):
    V, pad = 11, 0
    logits = torch.randn(4, 6, V, dtype=torch.float64, requires_grad=True)
    target = torch.randint(1, V, (4, 6))
    target[:, 4:] = pad
    ours = tl.LabelSmoothingLoss(V, smoothing, ignore_index=pad, reduction=reduction)(logits, target)
    theirs = F.cross_entropy(logits.transpose(1, 2), target, ignore_index=pad, label_smoothing=smoothing, reduction=reduction)
    torch.testing.assert_close(ours, theirs, rtol=1e-12, atol=1e-12)
    (grad_ours,) = torch.autograd.grad(ours.sum(), logits)
    (grad_theirs,) = torch.autograd.grad(theirs.sum(), logits)
    torch.testing.assert_close(grad_ours, grad_theirs, rtol=1e-12, atol=1e-12)


def test_label_smoothing_target_distribution_and_gradient():
    V, eps = 5, 0.1
    loss_fn = tl.LabelSmoothingLoss(V, eps, ignore_index=0, reduction="sum")
    target = torch.tensor([3, 0, 1])
    q = loss_fn.target_distribution(target)
    expected = torch.tensor(
        [
            [eps / V, eps / V, eps / V, 1 - eps + eps / V, eps / V],
            [0.0] * V,  # padding: no target at all
            [eps / V, 1 - eps + eps / V, eps / V, eps / V, eps / V],
        ]
    )
    torch.testing.assert_close(q, expected)
    logits = torch.randn(3, V, dtype=torch.float64, requires_grad=True)
    loss = loss_fn(logits, target)
    torch.testing.assert_close(loss, -(q.double() * logits.log_softmax(-1)).sum())
    (grad,) = torch.autograd.grad(loss, logits)
    keep = (target != 0)[:, None]
    torch.testing.assert_close(grad, (logits.softmax(-1) - q.double()) * keep)  # d loss / d logits = p - q


def test_label_smoothing_ignores_padding_positions():
    V = 7
    loss_fn = tl.LabelSmoothingLoss(V, 0.1, ignore_index=0)
    logits = torch.randn(2, 5, V, requires_grad=True)
    target = torch.tensor([[3, 4, 5, 0, 0], [6, 0, 0, 0, 0]])
    changed = logits.detach().clone()
    changed[target == 0] = 100 * torch.randn(6, V)
    torch.testing.assert_close(loss_fn(logits, target), loss_fn(changed, target))
    loss_fn(logits, target).backward()
    assert logits.grad[target == 0].abs().max() == 0
    assert loss_fn.reduction == "mean" and torch.isclose(
        loss_fn(logits, target), tl.LabelSmoothingLoss(V, 0.1, 0, "sum")(logits, target) / 4
    )


def test_label_smoothing_bad_input():
    loss_fn = tl.LabelSmoothingLoss(10, 0.1, ignore_index=0)
    with pytest.raises(ValueError, match=r"logits must have shape \(\.\.\., V=10\).*got shape \(2, 3, 12\): the model's"):
        loss_fn(torch.randn(2, 3, 12), torch.ones(2, 3, dtype=torch.long))
    with pytest.raises(ValueError, match=r"target must be integer ids of shape \(2, 3\), got \(2, 4\)"):
        loss_fn(torch.randn(2, 3, 10), torch.ones(2, 4, dtype=torch.long))
    with pytest.raises(ValueError, match=r"target must hold ids in \[0, 10\)"):
        loss_fn(torch.randn(1, 10), torch.tensor([10]))
    with pytest.raises(ValueError, match=r"smoothing must be in \[0, 1\)"):
        tl.LabelSmoothingLoss(10, 1.0)


# --- the loop ------------------------------------------------------------------

TASK = tl.make_task("reverse", n_symbols=6, max_len=6)


def _setup(dropout=0.1, d_model=32, seed=0):
    torch.manual_seed(seed)
    V = len(TASK.vocab)
    config = tl.TransformerConfig.tiny(src_vocab_size=V, tgt_vocab_size=V, d_model=d_model, d_ff=64, max_len=8, dropout=dropout)
    model = tl.Transformer(config)
    optimizer = torch.optim.Adam(model.parameters(), lr=1.0, betas=(0.9, 0.98), eps=1e-9)
    scheduler = tl.noam_scheduler(optimizer, d_model, warmup=4)
    return model, optimizer, scheduler


def _run(steps, out=None, resume=False, eval_fn=None, **kwargs):
    model, optimizer, scheduler = _setup(**kwargs)
    batches = TASK.batches(120, seed=1)
    history = tl.train(
        model,
        optimizer,
        batches,
        steps,
        scheduler=scheduler,
        checkpoint_dir=out,
        resume=resume,
        eval_fn=eval_fn,
        eval_every=3,
        progress=False,
    )
    return model, history


def test_checkpoints_keep_the_cuda_random_states_where_cuda_is_in_use(tmp_path, monkeypatch):
    """Dropout on a GPU draws from the device's generator: a resumed run restores it too. Failed on the old code,
    which saved torch.get_rng_state() (the CPU's) alone. CUDA is simulated: two devices with states 7 and 8."""
    restored = []
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    monkeypatch.setattr(torch.cuda, "is_initialized", lambda: True)
    monkeypatch.setattr(torch.cuda, "device_count", lambda: 2)
    monkeypatch.setattr(torch.cuda, "get_rng_state_all", lambda: [torch.full((4,), 7, dtype=torch.uint8)] * 2)
    monkeypatch.setattr(torch.cuda, "set_rng_state_all", restored.append)
    _run(2, out=tmp_path)
    saved = tl.load_checkpoint(tmp_path / "checkpoint.pt")["rng"][0]
    assert saved["cpu"].dtype == torch.uint8 and [int(x[0]) for x in saved["cuda"]] == [7, 7]
    _run(3, out=tmp_path, resume=True)
    assert len(restored) == 1 and [int(x[0]) for x in restored[0]] == [7, 7]
    monkeypatch.setattr(torch.cuda, "device_count", lambda: 1)  # resumed where there is one GPU: said, not silent
    with pytest.warns(UserWarning, match=r"holds the random states of 2 CUDA device\(s\) and this process sees 1"):
        _run(4, out=tmp_path, resume=True)


def test_resume_is_bit_for_bit(tmp_path):
    # dropout, the data stream and Adam's moments all carry state across the stop
    whole_model, whole = _run(12)
    _run(6, out=tmp_path)
    resumed_model, resumed = _run(12, out=tmp_path, resume=True)
    assert resumed.steps == list(range(1, 13))
    assert resumed.losses == whole.losses  # exactly equal floats
    assert resumed.learning_rates == whole.learning_rates
    for a, b in zip(whole_model.parameters(), resumed_model.parameters(), strict=True):
        assert torch.equal(a, b)
    assert whole.losses[-1] < whole.losses[0]


def test_resume_with_a_callable_and_a_generator(tmp_path):
    examples = TASK.examples(400, seed=3)

    def run(steps, resume):
        model, optimizer, scheduler = _setup()
        generator = torch.Generator().manual_seed(5)

        def batches(step):
            picks = torch.randint(len(examples), (16,), generator=generator).tolist()
            return tl.collate([examples[i] for i in picks], vocab_size=len(TASK.vocab))

        return tl.train(
            model,
            optimizer,
            batches,
            steps,
            scheduler=scheduler,
            checkpoint_dir=tmp_path,
            resume=resume,
            generator=generator,
            progress=False,
        ).losses

    whole = run(8, resume=False)
    run(5, resume=False)
    assert run(8, resume=True) == whole


def test_evaluation_hook_does_not_change_training():
    held_out = TASK.examples(30, split="held_out")
    calls = []

    def eval_fn(model):
        calls.append(model.training)
        torch.rand(100)  # uses the global generator; train sets its state aside
        return tl.evaluate(model, held_out)

    _, with_eval = _run(7, eval_fn=eval_fn)
    _, without = _run(7)
    assert with_eval.losses == without.losses
    assert [e["step"] for e in with_eval.evals] == [3, 6, 7] and calls == [False] * 3
    steps, accuracy = with_eval.metric("accuracy")
    assert steps == [3, 6, 7] and all(0.0 <= a <= 1.0 for a in accuracy)
    assert "evaluation at step 7" in str(with_eval)
    assert tl.TrainHistory.from_dict(with_eval.to_dict()) == with_eval


def test_evaluate_scores_a_perfect_model():
    class Oracle(torch.nn.Module):  # predicts tgt_out from tgt_in by looking it up
        def __init__(self, examples):
            super().__init__()
            self.answers = {src: tgt for src, tgt in examples}

        def forward(self, src, tgt_in, src_mask=None, tgt_mask=None):
            logits = torch.full((*tgt_in.shape, 10), -50.0)
            for b in range(src.shape[0]):
                answer = [*self.answers[tuple(int(i) for i in src[b] if i != 0)], 2]
                for t in range(tgt_in.shape[1]):
                    logits[b, t, answer[t] if t < len(answer) else 0] = 50.0
            return logits

        def encode(self, src, src_mask=None):
            return src

        def decode(self, tgt, memory, src_mask=None, tgt_mask=None):
            return self.forward(memory, tgt)

        output_projection = torch.nn.Identity()

    examples = TASK.examples(20, split="held_out")
    result = tl.evaluate(Oracle(examples), examples, batch_size=7)
    assert result["accuracy"] == 1.0 and result["loss"] < 1e-6


def test_progress_bar_goes_to_stderr(capsys):
    model, optimizer, scheduler = _setup()
    tl.train(model, optimizer, TASK.batches(100), 3, scheduler=scheduler, progress=True)
    captured = capsys.readouterr()
    assert captured.out == "" and "3/3" in captured.err


def test_gradient_clipping():
    model, _, _ = _setup(dropout=0.0)
    before = [p.detach().clone() for p in model.parameters()]
    optimizer = torch.optim.SGD(model.parameters(), lr=1.0)
    tl.train(model, optimizer, TASK.batches(100), 1, clip_grad_norm=1e-3, progress=False)
    with torch.no_grad():
        moved = torch.sqrt(sum(((p - b) ** 2).sum() for p, b in zip(model.parameters(), before, strict=True)))
    assert 0 < float(moved) <= 1e-3 * (1 + 1e-4)


# --- checkpoints -----------------------------------------------------------------


def test_checkpoint_is_written_atomically(tmp_path, monkeypatch):
    model, optimizer, _ = _setup()
    path = tl.save_checkpoint(tmp_path / "checkpoint.pt", model=model, optimizer=optimizer, step=1)
    good = path.read_bytes()

    def crash(content, file):
        file.write(b"PK\x03\x04 half a file")
        raise KeyboardInterrupt

    monkeypatch.setattr(checkpoint_module.torch, "save", crash)
    with pytest.raises(KeyboardInterrupt):
        tl.save_checkpoint(path, model=model, step=2)
    assert path.read_bytes() == good  # the old checkpoint is untouched
    assert [p.name for p in tmp_path.iterdir()] == ["checkpoint.pt"]  # no temporary file left


def test_truncated_checkpoint_is_a_clear_error(tmp_path):
    model, _, _ = _setup()
    path = tl.save_checkpoint(tmp_path / "checkpoint.pt", model=model, step=1)
    path.write_bytes(path.read_bytes()[: path.stat().st_size // 2])
    with pytest.raises(ValueError, match=rf"checkpoint {path} cannot be read: the file is truncated"):
        tl.load_checkpoint(path, model=model)
    (tmp_path / "empty.pt").write_bytes(b"")
    with pytest.raises(ValueError, match=r"empty.pt cannot be read"):
        tl.load_checkpoint(tmp_path / "empty.pt")
    (tmp_path / "text.pt").write_bytes(b"junk")  # was a struct.error from torch.load
    with pytest.raises(ValueError, match=r"text.pt cannot be read: the file is truncated or is not a torch.save file"):
        tl.load_checkpoint(tmp_path / "text.pt")


class Foreign:
    pass


def test_foreign_checkpoints_are_refused(tmp_path):
    model, _, _ = _setup()
    torch.save(model.state_dict(), tmp_path / "weights.pt")
    with pytest.raises(ValueError, match=r"weights.pt is not a transformer_lib training checkpoint"):
        tl.load_checkpoint(tmp_path / "weights.pt", model=model)
    with open(tmp_path / "object.pt", "wb") as file:
        pickle.dump(Foreign(), file, protocol=2)
    with pytest.raises(ValueError, match=r"object.pt holds objects other than tensors and plain data"):
        tl.load_checkpoint(tmp_path / "object.pt")
    (tmp_path / "notes.txt").write_text("not a checkpoint")
    with pytest.raises(ValueError, match=r"notes.txt"):
        tl.load_checkpoint(tmp_path / "notes.txt")
    with pytest.raises(FileNotFoundError, match=r"no checkpoint at"):
        tl.load_checkpoint(tmp_path / "missing.pt")


def test_checkpoint_from_a_different_config_is_refused(tmp_path):
    small, optimizer, scheduler = _setup(d_model=16)
    tl.train(small, optimizer, TASK.batches(100), 1, scheduler=scheduler, checkpoint_dir=tmp_path, progress=False)
    stored = tl.load_checkpoint(tmp_path / "checkpoint.pt")
    assert stored["config"]["d_model"] == 16 and stored["step"] == 1  # a plain dict
    big, optimizer, scheduler = _setup(d_model=32)
    with pytest.raises(ValueError, match=r"written for a different model config; d_model: checkpoint 16, model 32"):
        tl.train(big, optimizer, TASK.batches(100), 2, scheduler=scheduler, checkpoint_dir=tmp_path, resume=True, progress=False)


# --- bad input to train ------------------------------------------------------------


def test_train_bad_input(tmp_path):
    model, optimizer, _ = _setup()
    other = tl.make_task("dates")
    with pytest.raises(ValueError, match=r"vocabulary of 41 tokens but the model has config.src_vocab_size=10"):
        tl.train(model, optimizer, other.batches(200), 1, progress=False)
    empty = tl.data.Batch(
        torch.zeros(0, 3, dtype=torch.long),
        torch.zeros(0, 3, dtype=torch.long),
        torch.zeros(0, 3, dtype=torch.long),
        None,
        torch.ones(0, 1, 3, 3, dtype=torch.bool),
    )
    with pytest.raises(ValueError, match=r"the batch of step 0 is empty: 0 examples"):
        tl.train(model, optimizer, [empty], 1, progress=False)
    long_batch = tl.collate([((4,) * 9, (5,) * 3)])
    with pytest.raises(ValueError, match=r"sequences of 9 tokens, more than config.max_len=8"):
        tl.train(model, optimizer, [long_batch], 1, progress=False)
    with pytest.raises(ValueError, match=r"batches ran out after 1 batches; steps=2"):
        tl.train(model, optimizer, [next(TASK.batches(100))], 2, progress=False)
    with pytest.raises(TypeError, match=r"batch must be a transformer_lib.data.Batch .*, got tuple; other batches need"):
        tl.train(model, optimizer, [(1, 2)], 1, progress=False)
    with pytest.raises(ValueError, match=r"resume=True needs checkpoint_dir"):
        tl.train(model, optimizer, [], 1, resume=True)
    with pytest.raises(ValueError, match=r"steps must be an int >= 0"):
        tl.train(model, optimizer, [], -1)


# --- batch_loss: one loop for every model ---------------------------------------------


def _batches_of(task, max_tokens=120, seed=1):
    return task.batches(max_tokens, seed=seed)


def test_train_an_rnn_seq2seq_with_the_default_loss():
    # failed before batch_loss: train read config.tgt_vocab_size of a model without a config
    torch.manual_seed(0)
    V = len(TASK.vocab)
    model = tl.RNNSeq2Seq(V, V, embed_dim=16, hidden_size=32)
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    history = tl.train(model, optimizer, _batches_of(TASK), 30, progress=False)
    assert len(history.losses) == 30 and history.losses[-1] < history.losses[0]
    assert history.tokens[0] > 0


def _speech_batch(generator, B=8, frames=12, features=5, vocab=9):
    tgt = torch.randint(3, vocab, (B, 4), generator=generator)
    tgt_in = torch.cat([torch.full((B, 1), 1), tgt[:, :-1]], dim=1)
    src = torch.randn(B, frames, features, generator=generator) + tgt[:, :1, None].float()  # the first token is audible
    return tl.data.Batch(src, tgt_in, tgt, None, tl.causal_mask(4), pad_id=0, vocab_size=vocab)


def test_train_a_speech_transformer_with_the_default_loss():
    # failed before batch_loss: train called SpeechTransformer.forward(features, tgt, src_mask, tgt_mask)
    torch.manual_seed(0)
    config = tl.TransformerConfig.tiny(src_vocab_size=9, tgt_vocab_size=9, d_model=16, d_ff=32, max_len=16, dropout=0.0)
    model = tl.SpeechTransformer(config, n_features=5)
    generator = torch.Generator().manual_seed(0)
    history = tl.train(
        model, torch.optim.Adam(model.parameters(), lr=3e-3), lambda step: _speech_batch(generator), 40, progress=False
    )
    assert history.losses[-1] < history.losses[0] and history.tokens == [32] * 40


def test_batch_loss_takes_any_batch_and_is_what_train_minimises():
    torch.manual_seed(0)
    V = len(TASK.vocab)
    config = tl.TransformerConfig.tiny(src_vocab_size=V, tgt_vocab_size=V, d_model=16, d_ff=32, max_len=8, dropout=0.0)
    seen = []

    def batch_loss(model, batch):  # a dict, not a Batch
        logits = model(batch["src"], batch["tgt_in"], src_mask=batch["src_mask"])
        seen.append(type(batch))
        return F.cross_entropy(logits.flatten(0, 1), batch["tgt_out"].flatten(), ignore_index=0, reduction="sum"), 7

    def as_dict(b):
        return {"src": b.src, "tgt_in": b.tgt_in, "tgt_out": b.tgt_out, "src_mask": b.src_mask}

    model = tl.Transformer(config)
    batch = next(TASK.batches(100, seed=2))
    before = F.cross_entropy(
        model(batch.src, batch.tgt_in, src_mask=batch.src_mask).flatten(0, 1),
        batch.tgt_out.flatten(),
        ignore_index=0,
        reduction="sum",
    ).item()
    history = tl.train(
        model, torch.optim.SGD(model.parameters(), lr=0.0), [as_dict(batch)], 1, batch_loss=batch_loss, progress=False
    )
    assert seen == [dict] and history.tokens == [7]
    assert history.losses[0] == pytest.approx(before / 7)  # train divides by the returned count


def test_default_batch_loss_is_chosen_from_the_model_type():
    config = tl.TransformerConfig.tiny(src_vocab_size=12, tgt_vocab_size=12, d_model=16, d_ff=32, max_len=8, dropout=0.0)
    g = torch.Generator().manual_seed(0)
    # decoder-only: (inputs, targets) pairs; pad_id targets ignored
    lm = tl.DecoderOnlyLM(config)
    tokens = torch.randint(1, 12, (4, 6), generator=g)
    loss, count = tl.default_batch_loss(lm)(lm, (tokens[:, :-1], tokens[:, 1:]))
    assert count == 20
    expected = tl.LabelSmoothingLoss(12, 0.1, reduction="sum")(lm(tokens[:, :-1]), tokens[:, 1:])
    torch.testing.assert_close(loss, expected)
    # encoder-only: (inputs, labels) from mask_tokens; count = chosen positions
    bert = tl.EncoderOnlyLM(config)
    inputs, labels = tl.mask_tokens(tokens, 2, 12, g, p=0.5)
    loss, count = tl.default_batch_loss(bert)(bert, (inputs, labels))
    assert count == int((labels != -100).sum()) > 0
    torch.testing.assert_close(loss, F.cross_entropy(bert(inputs).transpose(1, 2), labels, reduction="sum"))
    # ... or clean tokens that the loss corrupts itself
    corrupting = tl.masked_lm_loss(mask_id=2, p=0.5, generator=torch.Generator().manual_seed(3))
    _, count = corrupting(bert, tokens)
    assert count > 0
    # ViT: (images, labels), count = B
    vit = tl.VisionTransformer(config.replace(norm_first=True), image_size=4, patch_size=2, in_channels=1, n_classes=3)
    images, classes = torch.randn(5, 1, 4, 4, generator=g), torch.tensor([0, 1, 2, 1, 0])
    loss, count = tl.default_batch_loss(vit)(vit, (images, classes))
    assert count == 5
    torch.testing.assert_close(loss, F.cross_entropy(vit(images), classes, reduction="sum"))
    with pytest.raises(TypeError, match=r"no default batch loss for a Linear: pass batch_loss"):
        tl.default_batch_loss(torch.nn.Linear(2, 2))


def test_train_decoder_only_and_masked_lm_models():
    config = tl.TransformerConfig.tiny(src_vocab_size=12, tgt_vocab_size=12, d_model=16, d_ff=32, max_len=8, dropout=0.0)
    g = torch.Generator().manual_seed(0)

    def copies(step):  # every sequence repeats its first token
        first = torch.randint(3, 12, (16, 1), generator=g)
        return first.expand(16, 6).clone()

    torch.manual_seed(0)
    lm = tl.DecoderOnlyLM(config)
    history = tl.train(
        lm, torch.optim.Adam(lm.parameters(), lr=1e-2), lambda s: (copies(s)[:, :-1], copies(s)[:, 1:]), 30, progress=False
    )
    assert history.losses[-1] < history.losses[0]
    torch.manual_seed(0)
    bert = tl.EncoderOnlyLM(config)
    history = tl.train(
        bert,
        torch.optim.Adam(bert.parameters(), lr=1e-2),
        copies,
        30,
        generator=g,
        batch_loss=tl.masked_lm_loss(mask_id=2, p=0.3, generator=g),
        progress=False,
    )
    assert history.losses[-1] < history.losses[0]


def test_seq2seq_loss_smoothing_is_configurable():
    model, _, _ = _setup(dropout=0.0)
    batch = next(TASK.batches(100, seed=4))
    logits = model(batch.src, batch.tgt_in, src_mask=batch.src_mask, tgt_mask=batch.tgt_mask)
    for eps in (0.0, 0.1, 0.3):
        loss, count = tl.seq2seq_loss(smoothing=eps)(model, batch)
        assert count == batch.n_tgt_tokens
        expected = F.cross_entropy(logits.transpose(1, 2), batch.tgt_out, ignore_index=0, label_smoothing=eps, reduction="sum")
        torch.testing.assert_close(loss, expected)
    with pytest.raises(ValueError, match=r"smoothing must be in \[0, 1\), got 1.5"):
        tl.seq2seq_loss(smoothing=1.5)


def test_batch_loss_bad_input():
    model, optimizer, _ = _setup()
    batches = TASK.batches(100)
    with pytest.raises(TypeError, match=r"batch_loss must be a function \(model, batch\) -> \(loss_sum, count\), got str"):
        tl.train(model, optimizer, batches, 1, batch_loss="seq2seq")
    with pytest.raises(TypeError, match=r"count an int, got float"):
        tl.train(
            model, optimizer, batches, 1, batch_loss=lambda m, b: (torch.tensor(1.0, requires_grad=True), 2.0), progress=False
        )
    with pytest.raises(ValueError, match=r"the batch of step 0 is empty: batch_loss counted 0 items"):
        tl.train(model, optimizer, batches, 1, batch_loss=lambda m, b: (torch.tensor(1.0, requires_grad=True), 0), progress=False)
    with pytest.raises(TypeError, match=r"batch must be a pair of tensors \(inputs, targets\), got str"):
        tl.lm_loss()(model, "tokens")


def test_the_default_batch_loss_is_the_paper_label_smoothing():
    model, _, _ = _setup(dropout=0.0)
    batch = next(TASK.batches(100, seed=4))
    default, count = tl.default_batch_loss(model)(model, batch)
    paper, _ = tl.seq2seq_loss(smoothing=0.1)(model, batch)
    plain, _ = tl.seq2seq_loss(smoothing=0.0)(model, batch)
    torch.testing.assert_close(default, paper, rtol=0, atol=0)
    assert count == batch.n_tgt_tokens and not torch.allclose(default, plain)
    losses = {}
    for name, batch_loss in (("default", None), ("explicit", tl.seq2seq_loss(0.1))):
        model, optimizer, scheduler = _setup(dropout=0.0)
        losses[name] = tl.train(
            model, optimizer, TASK.batches(100, seed=1), 3, scheduler=scheduler, batch_loss=batch_loss, progress=False
        ).losses
    assert losses["default"] == losses["explicit"]


def test_noam_lr_wrong_types_are_type_errors():
    with pytest.raises(TypeError, match=r"step must be an int, got float \(1.5\)"):
        tl.noam_lr(1.5, 8)
    with pytest.raises(TypeError, match=r"d_model must be an int, got float \(512.0\)"):
        tl.noam_lr(1, 512.0)


# --- one knob for the loss: batch_loss, with the token loss built into it -------------------


def test_train_has_one_loss_argument_and_batch_losses_carry_no_attributes():
    # failed before: train took batch_loss and loss_fn, and seq2seq_loss/lm_loss wrote batch_type and loss_fn
    # attributes on the functions they returned (loss_fn was never read)
    assert "loss_fn" not in inspect.signature(tl.train).parameters
    token_loss = tl.LabelSmoothingLoss(10, 0.1, ignore_index=0, reduction="sum")
    for batch_loss in (tl.seq2seq_loss(loss_fn=token_loss), tl.lm_loss(loss_fn=token_loss), tl.seq2seq_loss()):
        assert vars(batch_loss) == {}


def test_a_token_loss_built_into_the_batch_loss_trains_exactly_as_the_default():
    # what the chapters pass: the paper's label smoothing, written out as a token loss
    V = len(TASK.vocab)
    token_loss = tl.LabelSmoothingLoss(V, 0.1, ignore_index=TASK.vocab.pad_id, reduction="sum")
    losses = {}
    for name, batch_loss in (
        ("default", None),
        ("seq2seq_loss", tl.seq2seq_loss(loss_fn=token_loss)),
        ("default_batch_loss", tl.default_batch_loss(_setup()[0], loss_fn=token_loss)),
    ):
        model, optimizer, scheduler = _setup(dropout=0.0)
        history = tl.train(
            model, optimizer, TASK.batches(100, seed=1), 3, scheduler=scheduler, batch_loss=batch_loss, progress=False
        )
        losses[name] = history.losses
    assert losses["seq2seq_loss"] == losses["default"] == losses["default_batch_loss"]  # bit for bit


def test_a_token_loss_must_sum_and_skip_the_padding_the_count_skips():
    model, _, _ = _setup(dropout=0.0)
    batch = next(TASK.batches(100, seed=4))
    V = len(TASK.vocab)
    with pytest.raises(ValueError, match=r"loss_fn must sum over tokens \(reduction='sum'\), got reduction='mean'"):
        tl.seq2seq_loss(loss_fn=torch.nn.CrossEntropyLoss(ignore_index=0))
    with pytest.raises(ValueError, match=r"loss_fn must sum over tokens \(reduction='sum'\), got reduction='none'"):
        tl.lm_loss(loss_fn=tl.LabelSmoothingLoss(V, reduction="none"))
    with pytest.raises(TypeError, match=r"loss_fn must be a function \(logits, targets\) -> summed loss, got str"):
        tl.seq2seq_loss(loss_fn="sum")
    wrong_padding = tl.LabelSmoothingLoss(V, 0.1, ignore_index=3, reduction="sum")
    with pytest.raises(ValueError, match=r"loss_fn.ignore_index=3 differs from the padding id the count leaves out, 0"):
        tl.seq2seq_loss(loss_fn=wrong_padding)(model, batch)
    lm = tl.DecoderOnlyLM(model.config)
    tokens = torch.randint(1, V, (2, 5))
    with pytest.raises(ValueError, match=r"loss_fn.ignore_index=3 differs from the padding id the count leaves out, -100"):
        tl.lm_loss(loss_fn=wrong_padding)(lm, (tokens[:, :-1], tokens[:, 1:]))
    with pytest.raises(ValueError, match=r"loss_fn applies to token-prediction models"):
        tl.default_batch_loss(tl.EncoderOnlyLM(model.config), loss_fn=wrong_padding)


def _seed_build(seed, generator):
    """A run whose weights, dropout and batch order all depend on the seed (the batches via the generator)."""
    V = len(TASK.vocab)
    config = tl.TransformerConfig.tiny(src_vocab_size=V, tgt_vocab_size=V, d_model=32, d_ff=64, max_len=8, dropout=0.1)
    model = tl.Transformer(config)
    optimizer = torch.optim.Adam(model.parameters(), lr=1.0, betas=(0.9, 0.98), eps=1e-9)
    examples = TASK.examples(200, seed=3)

    def batches(step):
        picks = torch.randint(len(examples), (16,), generator=generator).tolist()
        return tl.collate([examples[i] for i in picks], vocab_size=V)

    return {"model": model, "optimizer": optimizer, "batches": batches, "scheduler": tl.noam_scheduler(optimizer, 32, warmup=4)}


def test_train_seeds_equals_separate_train_calls_bit_for_bit():
    held_out = TASK.examples(20, split="held_out")
    runs = tl.train_seeds(_seed_build, seeds=[3, 1], steps=5, eval_fn=lambda m: tl.evaluate(m, held_out), progress=False)
    assert list(runs) == [3, 1] and all(run.seed == seed for seed, run in runs.items())
    for seed in (1, 3):  # the other order: each seed's run owes nothing to the run before it
        generator = tl.set_seed(seed)
        alone = _seed_build(seed, generator)
        history = tl.train(
            alone["model"],
            alone["optimizer"],
            alone["batches"],
            5,
            scheduler=alone["scheduler"],
            generator=generator,
            eval_fn=lambda m: tl.evaluate(m, held_out),
            progress=False,
        )
        assert runs[seed].history == history
        for a, b in zip(runs[seed].model.parameters(), alone["model"].parameters(), strict=True):
            assert torch.equal(a, b)
    assert runs[1].history.losses != runs[3].history.losses  # the seeds differ


def test_train_seeds_bad_input():
    with pytest.raises(TypeError, match="build must be a function"):
        tl.train_seeds(3, seeds=[0], steps=1)
    with pytest.raises(ValueError, match="seeds must be distinct"):
        tl.train_seeds(_seed_build, seeds=[0, 0], steps=1)
    with pytest.raises(ValueError, match="at least one seed"):
        tl.train_seeds(_seed_build, seeds=[], steps=1)
    with pytest.raises(ValueError, match=r"seeds\[1\] must be"):
        tl.train_seeds(_seed_build, seeds=[0, -1], steps=1)
    with pytest.raises(TypeError, match="passes on only"):
        tl.train_seeds(_seed_build, seeds=[0], steps=1, checkpoint_dir="x")
    with pytest.raises(ValueError, match=r"missing \['batches'\]"):
        tl.train_seeds(lambda s, g: {"model": 1, "optimizer": 2}, seeds=[0], steps=1)
    with pytest.raises(ValueError, match="given both"):
        tl.train_seeds(_seed_build, seeds=[0], steps=1, scheduler=None)
    with pytest.raises(TypeError, match="must return a dict"):
        tl.train_seeds(lambda s, g: (1, 2, 3), seeds=[0], steps=1)
