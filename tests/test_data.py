"""Data: the vocabulary, the generated tasks, the held-out split, batching and collation."""

import datetime
import random

import pytest
import torch

import transformer_lib as tl
from transformer_lib import data, tasks


def test_vocab_fixed_special_ids_and_round_trip():
    vocab = tl.Vocab(["a", "b", "c"])
    assert (vocab.pad_id, vocab.bos_id, vocab.eos_id, vocab.unk_id) == (0, 1, 2, 3)
    assert vocab.itos[:4] == ("<pad>", "<bos>", "<eos>", "<unk>") and len(vocab) == 7
    ids = vocab.encode(["c", "a", "b"])
    assert ids == [6, 4, 5]
    assert vocab.decode(ids) == ["c", "a", "b"]
    # strip=True drops <bos>/<pad> and stops at the first <eos>
    assert vocab.decode(torch.tensor([1, 6, 2, 4, 0])) == ["c"]
    assert vocab.decode([1, 6, 2, 0], strip=False) == ["<bos>", "c", "<eos>", "<pad>"]
    assert vocab.encode(["a", "zzz"], unknown="unk") == [4, 3]


def test_vocab_errors():
    vocab = tl.Vocab(["a", "b"])
    with pytest.raises(ValueError, match=r"token 'x' is not in the vocabulary \(6 tokens\)"):
        vocab.encode(["a", "x"])
    with pytest.raises(ValueError, match=r"id 6 is not in the vocabulary: ids must be ints in \[0, 6\)"):
        vocab.decode([4, 6])
    with pytest.raises(ValueError, match=r"id -1"):
        vocab.decode([-1])
    with pytest.raises(ValueError, match=r"distinct.*\['a'\]"):
        tl.Vocab(["a", "b", "a"])
    with pytest.raises(ValueError, match=r"special tokens"):
        tl.Vocab(["<eos>"])
    with pytest.raises(TypeError, match=r"got the string 'ab'"):
        vocab.encode("ab")


@pytest.mark.parametrize(("name", "rule"), [("copy", list), ("reverse", lambda s: s[::-1]), ("sort", sorted)])
def test_integer_tasks(name, rule):
    task = tl.make_task(name, n_symbols=8, min_len=2, max_len=7)
    rng = random.Random(0)
    lengths = set()
    for _ in range(200):
        src, tgt = task.sample(rng)
        values = [int(t) for t in task.vocab.decode(src)]
        assert [int(t) for t in task.vocab.decode(tgt)] == rule(values)
        assert all(0 <= v < 8 for v in values)
        lengths.add(len(src))
    assert lengths == set(range(2, 8))  # variable length


def _parse_date(text: str) -> datetime.date:
    for fmt in ("%d %B %Y", "%B %d, %Y", "%d %b %Y", "%b %d, %Y", "%d.%m.%Y", "%m/%d/%Y"):
        try:
            return datetime.datetime.strptime(text, fmt).date()
        except ValueError:
            continue
    raise AssertionError(f"unparsable date {text!r}")


def test_dates_task_targets_are_iso_dates_of_the_sources():
    task = tl.make_task("dates")
    assert len(task.vocab) < 50 and task.max_src_len == 10 and task.max_tgt_len == 10
    for src, tgt in task.examples(300, seed=1):
        source, target = task.to_text(src), "".join(task.vocab.decode(tgt))
        assert _parse_date(source).isoformat() == target, (source, target)
    seen_formats = {task.to_text(src).count(" ") + 10 * ("," in task.to_text(src)) for src, _ in task.examples(300)}
    assert len(seen_formats) >= 3


@pytest.mark.parametrize(
    ("n", "words"),
    [
        (0, "zero"),
        (13, "thirteen"),
        (40, "forty"),
        (312, "three hundred and twelve"),
        (100, "one hundred"),
        (2005, "two thousand and five"),
        (21_400, "twenty one thousand four hundred"),
        (100_000, "one hundred thousand"),
        (999_999, "nine hundred and ninety nine thousand nine hundred and ninety nine"),
    ],
)
def test_number_words(n, words):
    assert " ".join(tasks.number_words(n)) == words


def test_numbers_task_both_directions():
    forward, backward = tl.make_task("numbers"), tl.make_task("numbers", direction="digits_to_words")
    rng = random.Random(0)
    for _ in range(100):
        src, tgt = forward.sample(rng)
        n = int("".join(forward.vocab.decode(tgt)))
        assert forward.vocab.decode(src) == tasks.number_words(n)
        assert len(src) <= forward.max_src_len and len(tgt) <= forward.max_tgt_len
    src, tgt = backward.sample(rng)
    assert backward.vocab.decode(tgt) == tasks.number_words(int("".join(backward.vocab.decode(src))))


@pytest.mark.parametrize("name", ["copy", "dates", "numbers"])
def test_held_out_sources_never_appear_in_training(name):
    task = tl.make_task(name)
    held_out = task.examples(300, seed=5, split="held_out")
    assert len({src for src, _ in held_out}) == 300  # distinct
    train_sources = {src for src, _ in task.examples(3000, seed=6)}
    stream = task.batches(400, seed=7)
    for _ in range(20):
        batch = next(stream)
        train_sources |= {tuple(int(i) for i in row if i != 0) for row in batch.src}
    assert not train_sources & {src for src, _ in held_out}
    assert all(task.is_held_out(task.vocab.decode(src)) for src, _ in held_out)


def test_examples_are_deterministic():
    task = tl.make_task("dates")
    assert task.examples(50, seed=3) == task.examples(50, seed=3) != task.examples(50, seed=4)


def test_collate_shift_masks_and_shapes():
    examples = [((5, 6, 7), (8, 9)), ((5,), (6, 7, 8, 9))]
    batch = tl.collate(examples, vocab_size=10)
    assert batch.src.tolist() == [[5, 6, 7], [5, 0, 0]]
    assert batch.tgt_in.tolist() == [[1, 8, 9, 0, 0], [1, 6, 7, 8, 9]]  # <bos> + target, shifted right
    assert batch.tgt_out.tolist() == [[8, 9, 2, 0, 0], [6, 7, 8, 9, 2]]  # target + <eos>
    assert batch.src_mask.shape == (2, 1, 1, 3) and batch.tgt_mask.shape == (2, 1, 5, 5)
    assert torch.equal(batch.src_mask, tl.padding_mask(batch.src, 0))
    assert torch.equal(batch.tgt_mask, tl.decoder_mask(batch.tgt_in, 0))
    assert batch.n_tgt_tokens == 3 + 5 and len(batch) == 2 and batch.vocab_size == 10


def test_collate_bad_input():
    with pytest.raises(ValueError, match=r"examples must be a non-empty sequence.*got an empty list"):
        tl.collate([])
    with pytest.raises(ValueError, match=r"examples\[1\] has an empty source or target"):
        tl.collate([((4,), (5,)), ((), (5,))])
    with pytest.raises(ValueError, match=r"examples\[0\] is longer than max_len=4: source 5 tokens"):
        tl.collate([((4, 4, 4, 4, 4), (5,))], max_len=4)
    with pytest.raises(TypeError, match=r"examples\[0\] must be a \(source ids, target ids\) pair"):
        tl.collate([(1, 2, 3)])


def test_batch_by_tokens_respects_the_budget_and_keeps_every_example():
    task = tl.make_task("numbers")
    examples = task.examples(2000, seed=2)
    for sort in (True, False):
        groups = tl.batch_by_tokens(examples, 300, sort_by_length=sort)
        assert sorted(e for g in groups for e in g) == sorted(examples)
        for group in groups:
            batch = tl.collate(group)
            assert batch.src.numel() <= 300 and batch.tgt_in.numel() <= 300
    sorted_padding = tl.padding_fraction(tl.batch_by_tokens(examples, 300))
    random_padding = tl.padding_fraction(tl.batch_by_tokens(examples, 300, sort_by_length=False))
    print(f"padding: length-grouped {sorted_padding:.3f}, random {random_padding:.3f}")
    assert sorted_padding < 0.05 < 0.3 < random_padding


def test_padding_fraction_by_hand():
    group = [((4, 4, 4), (5,)), ((4,), (5, 5, 5))]
    # source: 2 x 3 positions, 4 real; target: 2 x 4 positions, (1 + 1) + (3 + 1) real
    assert tl.padding_fraction([group]) == pytest.approx(1 - (4 + 6) / (6 + 8))
    assert tl.padding_fraction([tl.collate(group)]) == pytest.approx(1 - (4 + 6) / (6 + 8))
    with pytest.raises(ValueError, match=r"smaller than one example"):
        tl.batch_by_tokens(group, 3)
    with pytest.raises(ValueError, match=r"at least one batch"):
        tl.padding_fraction([])


def test_batch_stream_state_round_trip():
    task = tl.make_task("reverse")
    stream = task.batches(200, seed=3)
    for _ in range(70):  # past the first refill of the pool
        next(stream)
    state = stream.state_dict()
    expected = [next(stream) for _ in range(5)]
    restored = task.batches(200, seed=99)
    restored.load_state_dict(state)
    for a, b in zip(expected, (next(restored) for _ in range(5)), strict=True):
        assert torch.equal(a.src, b.src) and torch.equal(a.tgt_out, b.tgt_out)


def test_shards_reassemble_the_batch():
    batch = next(tl.make_task("copy").batches(300))
    shards = [batch.shard(r, 3) for r in range(3)]
    for name in ("src", "tgt_in", "tgt_out", "src_mask", "tgt_mask"):
        assert torch.equal(torch.cat([getattr(s, name) for s in shards]), getattr(batch, name))
    assert sum(s.n_tgt_tokens for s in shards) == batch.n_tgt_tokens
    with pytest.raises(ValueError, match=r"cannot be split over world_size=4"):
        tl.collate([((4,), (5,))] * 3).shard(0, 4)


def test_task_and_config_mismatch():
    task = tl.make_task("dates")
    with pytest.raises(ValueError, match=r"config.src_vocab_size=32 does not match the vocabulary of task 'dates' \(41 tokens\)"):
        task.check_config(tl.TransformerConfig.tiny())
    with pytest.raises(ValueError, match=r"up to 11 positions, more than config.max_len=8"):
        task.check_config(tl.TransformerConfig.tiny(src_vocab_size=41, tgt_vocab_size=41, max_len=8))
    with pytest.raises(ValueError, match=r"more than max_len=8"):
        task.batches(500, max_len=8)
    with pytest.raises(ValueError, match=r"name must be one of"):
        tl.make_task("parity")


def test_a_task_streams_batches_and_the_stream_lives_with_the_tasks():
    """BatchStream needs a Task, so it lives in tasks.py beside it: data.py does not import tasks (no circle)."""
    from transformer_lib import tasks

    assert isinstance(next(tl.make_task("copy").batches(64)), data.Batch)
    assert not hasattr(data, "BatchStream") and not hasattr(data, "make_task")
    with pytest.raises(TypeError, match="task must be a Task"):
        tasks.BatchStream(object(), 64)


# --- a pad id other than 0 (every place that pads, masks or counts must use the pad id it is given) ----------

PAD = 7  # with 0 as an ordinary token, so code that assumes "0 = padding" is caught


def test_collate_with_another_pad_id():
    examples = [((0, 4, 4), (5, 0)), ((4,), (6, 5, 0, 4))]  # as many 0s as pads would hide a pad/0 mix-up in counts
    batch = tl.collate(examples, pad_id=PAD)
    assert batch.src.tolist() == [[0, 4, 4], [4, PAD, PAD]]
    assert batch.tgt_in.tolist() == [[1, 5, 0, PAD, PAD], [1, 6, 5, 0, 4]]
    assert batch.tgt_out.tolist() == [[5, 0, 2, PAD, PAD], [6, 5, 0, 4, 2]]
    assert batch.pad_id == PAD
    # source keys: the 0s are real tokens, the 7s are padding
    assert batch.src_mask[:, 0, 0, :].tolist() == [[True, True, True], [True, False, False]]
    # target: query i sees keys j <= i that are not padding
    real = [[True, True, True, False, False], [True] * 5]
    for b in range(2):
        for i in range(5):
            expected = [j <= i and real[b][j] for j in range(5)]
            assert batch.tgt_mask[b, 0, i].tolist() == expected, (b, i)
    assert batch.n_tgt_tokens == 3 + 5  # counts tgt_out positions that are not PAD (its 0s count)
    assert tl.padding_fraction([batch]) == pytest.approx(1 - (4 + 8) / (6 + 10))
    # a shard keeps the pad id, so its token count is right too
    assert batch.shard(0, 2).pad_id == PAD and batch.shard(0, 2).n_tgt_tokens == 3


def test_masks_with_another_pad_id():
    tokens = torch.tensor([[0, 3, PAD, PAD], [PAD, 0, 0, 3]])
    assert tl.padding_mask(tokens, PAD)[:, 0, 0, :].tolist() == [[True, True, False, False], [False, True, True, True]]
    assert tl.padding_mask(tokens, 0)[:, 0, 0, :].tolist() == [[False, True, True, True], [True, False, False, True]]
    mask = tl.decoder_mask(tokens, PAD)
    assert mask.shape == (2, 1, 4, 4)
    assert mask[0, 0].tolist() == [
        [True, False, False, False],
        [True, True, False, False],
        [True, True, False, False],
        [True, True, False, False],
    ]
    assert mask[1, 0].tolist() == [
        [False, False, False, False],  # the padded first position attends to nothing real before it
        [False, True, False, False],
        [False, True, True, False],
        [False, True, True, True],
    ]


def test_vocab_decode_strips_only_its_own_specials():
    vocab = tl.Vocab(["a", "b"])  # <pad>=0 <bos>=1 <eos>=2 <unk>=3 a=4 b=5
    assert vocab.decode([1, 4, 0, 5, 2, 4]) == ["a", "b"]  # <bos> and <pad> dropped, stop at <eos>
    assert vocab.decode([1, 4, 0, 5, 2, 4], strip=False) == ["<bos>", "a", "<pad>", "b", "<eos>", "a"]
    assert vocab.decode([3, 4]) == ["<unk>", "a"]  # <unk> is kept: it stands for a real token
