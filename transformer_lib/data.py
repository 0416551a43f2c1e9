"""Toy data for training: a vocabulary, generated tasks, length-grouped batches.

Every task is generated in code from a seeded ``random.Random``; nothing is
downloaded. Four kinds of task:

* ``copy``, ``reverse``, ``sort``: random integer sequences of variable length;
* ``dates``: "22 november 2026", "nov 22, 2026", "22.11.2026" ... -> "2026-11-22";
* ``numbers``: "three hundred and twelve" -> "312" (or back).

The last two are *translation-like*: each output token comes from one or two
input tokens, so a trained model's cross-attention shows a readable alignment.
Numbers are written digit by digit and words as whole tokens, so the vocabulary
stays small (under 50 tokens).

A fixed fraction of all possible *sources* is held out by hashing the source
tokens, so no held-out example can ever appear in training. Batches are built
as in the paper: examples of similar length are grouped and each batch is
filled up to a token budget (:func:`batch_by_tokens`).

Paper: §5.1 ("Sentence pairs were batched together by approximate sequence
length"). Book: chapter 10.
"""

from __future__ import annotations

import datetime
import hashlib
import random
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, replace
from typing import Any

import torch
from torch import Tensor

from ._checks import (
    check_bool,
    check_choice,
    check_float,
    check_int,
    check_nonnegative_int,
    check_positive_int,
)
from .masks import decoder_mask, padding_mask

PAD_ID, BOS_ID, EOS_ID, UNK_ID = 0, 1, 2, 3
SPECIAL_TOKENS = ("<pad>", "<bos>", "<eos>", "<unk>")  # ids 0, 1, 2, 3 in every Vocab

Example = tuple[tuple[int, ...], tuple[int, ...]]  # (source ids, target ids), no BOS/EOS


class Vocab:
    """Tokens <-> ids. The four special tokens come first, with fixed ids.

    ``<pad>`` = 0, ``<bos>`` = 1, ``<eos>`` = 2, ``<unk>`` = 3, then ``tokens``
    in the order given.

    Args:
        tokens: the ordinary tokens (strings, distinct, not special tokens).

    Book: chapter 10.
    """

    pad_id, bos_id, eos_id, unk_id = PAD_ID, BOS_ID, EOS_ID, UNK_ID

    def __init__(self, tokens: Iterable[str]) -> None:
        tokens = list(tokens)
        for token in tokens:
            if not isinstance(token, str) or not token:
                raise TypeError(f"tokens must be non-empty strings, got {token!r}")
        clash = sorted(set(tokens) & set(SPECIAL_TOKENS))
        if clash:
            raise ValueError(f"tokens must not contain the special tokens {SPECIAL_TOKENS}, got {clash}")
        if len(set(tokens)) != len(tokens):
            repeated = sorted({t for t in tokens if tokens.count(t) > 1})
            raise ValueError(f"tokens must be distinct, got repeated tokens {repeated}")
        self.itos: tuple[str, ...] = (*SPECIAL_TOKENS, *tokens)
        self.stoi: dict[str, int] = {token: i for i, token in enumerate(self.itos)}

    def __len__(self) -> int:
        return len(self.itos)

    def __contains__(self, token: object) -> bool:
        return token in self.stoi

    def __repr__(self) -> str:
        shown = ", ".join(self.itos[4:12]) + (", ..." if len(self) > 12 else "")
        return f"Vocab({len(self)} tokens: 4 special + {shown})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Vocab) and self.itos == other.itos

    def __hash__(self) -> int:
        return hash(self.itos)

    def encode(self, tokens: Iterable[str], unknown: str = "error") -> list[int]:
        """Tokens -> ids. An unknown token raises ``ValueError`` (``unknown="error"``) or maps to ``<unk>``."""
        check_choice("unknown", unknown, ("error", "unk"))
        if isinstance(tokens, str):
            raise TypeError(f"tokens must be a sequence of tokens, got the string {tokens!r}; split it first")
        ids = []
        for token in tokens:
            if token in self.stoi:
                ids.append(self.stoi[token])
            elif unknown == "unk":
                ids.append(self.unk_id)
            else:
                raise ValueError(f"token {token!r} is not in the vocabulary ({len(self)} tokens); pass unknown='unk'")
        return ids

    def decode(self, ids: Iterable[int] | Tensor, strip: bool = True) -> list[str]:
        """Ids -> tokens. With ``strip=True`` stop at the first ``<eos>`` and drop ``<pad>`` and ``<bos>``."""
        if isinstance(ids, Tensor):
            if ids.dim() != 1:
                raise ValueError(f"ids must be one sequence of shape (T,), got shape {tuple(ids.shape)}")
            ids = ids.tolist()
        tokens = []
        for i in ids:
            check_int("id", i)
            if not 0 <= i < len(self):
                raise ValueError(f"id {i!r} is not in the vocabulary: ids must be ints in [0, {len(self)})")
            if strip and i == self.eos_id:
                break
            if strip and i in (self.pad_id, self.bos_id):
                continue
            tokens.append(self.itos[i])
        return tokens


# --- batches -------------------------------------------------------------------


@dataclass(frozen=True)
class Batch:
    """One training batch of a sequence-to-sequence task, padded and masked.

    ``tgt_in`` is the target shifted right behind ``<bos>`` (what the decoder
    reads), ``tgt_out`` the target followed by ``<eos>`` (what it must predict).
    Masks follow the library's convention: boolean, True = may attend.

    Shape:
        src (B, S), tgt_in and tgt_out (B, T), src_mask (B, 1, 1, S),
        tgt_mask (B, 1, T, T). For a decoder-only model ``src`` and
        ``src_mask`` are None.

    Book: chapter 10.
    """

    src: Tensor | None
    tgt_in: Tensor
    tgt_out: Tensor
    src_mask: Tensor | None
    tgt_mask: Tensor
    pad_id: int = PAD_ID
    vocab_size: int | None = None  # size of the vocabulary the ids come from, if known

    def __len__(self) -> int:
        return self.tgt_in.shape[0]

    @property
    def n_tgt_tokens(self) -> int:
        """Number of target tokens to predict (non-padding positions of ``tgt_out``)."""
        return int((self.tgt_out != self.pad_id).sum())

    def shard(self, rank: int, world_size: int) -> Batch:
        """Rows ``rank``-th of ``world_size`` near-equal contiguous chunks (for data parallelism).

        The shard keeps the padded widths S and T of the whole batch, so every
        row is computed exactly as in the unsharded batch.
        """
        check_positive_int("world_size", world_size)
        check_nonnegative_int("rank", rank)
        if not 0 <= rank < world_size:
            raise ValueError(f"rank must be in [0, world_size={world_size}), got {rank}")
        if len(self) < world_size:
            raise ValueError(f"a batch of {len(self)} examples cannot be split over world_size={world_size} ranks")

        def part(x: Tensor | None) -> Tensor | None:
            return None if x is None else torch.tensor_split(x, world_size)[rank]

        return replace(
            self,
            src=part(self.src),
            tgt_in=part(self.tgt_in),
            tgt_out=part(self.tgt_out),
            src_mask=part(self.src_mask),
            tgt_mask=part(self.tgt_mask),
        )


def collate(
    examples: Sequence[Example],
    pad_id: int = PAD_ID,
    bos_id: int = BOS_ID,
    eos_id: int = EOS_ID,
    max_len: int | None = None,
    vocab_size: int | None = None,
) -> Batch:
    """Pad a list of (source ids, target ids) pairs into a :class:`Batch`.

    Args:
        examples: pairs of id sequences without ``<bos>``/``<eos>``.
        pad_id, bos_id, eos_id: the special ids (the :class:`Vocab` defaults).
        max_len: if given, refuse sources longer than ``max_len`` and targets
            whose ``tgt_in`` (target + 1) would be longer.
        vocab_size: recorded in the batch so ``train`` can check it against the model.

    Shape: B examples -> src (B, S), tgt_in/tgt_out (B, T) with T = longest target + 1.
    Paper: §3.1 ("output embeddings offset by one position"). Book: chapter 10.
    """
    for name, value in (("pad_id", pad_id), ("bos_id", bos_id), ("eos_id", eos_id)):
        check_nonnegative_int(name, value)
    if max_len is not None:
        check_positive_int("max_len", max_len)
    if not isinstance(examples, Sequence) or len(examples) == 0:
        got = f"an empty {type(examples).__name__}" if isinstance(examples, Sequence) else type(examples).__name__
        raise ValueError(f"examples must be a non-empty sequence of (source, target) pairs, got {got}")
    for i, pair in enumerate(examples):
        if not isinstance(pair, (tuple, list)) or len(pair) != 2:
            raise TypeError(f"examples[{i}] must be a (source ids, target ids) pair, got {pair!r}")
        src, tgt = pair
        if len(src) == 0 or len(tgt) == 0:
            raise ValueError(f"examples[{i}] has an empty source or target (lengths {len(src)}, {len(tgt)})")
        if max_len is not None and (len(src) > max_len or len(tgt) + 1 > max_len):
            raise ValueError(
                f"examples[{i}] is longer than max_len={max_len}: source {len(src)} tokens, "
                f"target {len(tgt)} + 1 tokens (with <bos>/<eos>)"
            )
    S = max(len(src) for src, _ in examples)
    T = max(len(tgt) for _, tgt in examples) + 1
    src = torch.tensor([[*s] + [pad_id] * (S - len(s)) for s, _ in examples])
    tgt_in = torch.tensor([[bos_id, *t] + [pad_id] * (T - 1 - len(t)) for _, t in examples])  # shifted right
    tgt_out = torch.tensor([[*t, eos_id] + [pad_id] * (T - 1 - len(t)) for _, t in examples])  # to predict
    return Batch(
        src=src,
        tgt_in=tgt_in,
        tgt_out=tgt_out,
        src_mask=padding_mask(src, pad_id),  # (B, 1, 1, S)
        tgt_mask=decoder_mask(tgt_in, pad_id),  # (B, 1, T, T)
        pad_id=pad_id,
        vocab_size=vocab_size,
    )


def _padded_sizes(group: Sequence[Example]) -> tuple[int, int]:
    """Padded (source, target) token counts of one batch; the target counts <bos> or <eos> once."""
    return len(group) * max(len(s) for s, _ in group), len(group) * (max(len(t) for _, t in group) + 1)


def batch_by_tokens(
    examples: Sequence[Example], max_tokens: int, sort_by_length: bool = True
) -> list[list[Example]]:
    """Cut examples into batches of at most ``max_tokens`` source and target tokens each.

    Token counts include padding (B x longest sequence), so ``max_tokens``
    bounds the size of every tensor. With ``sort_by_length=True`` the
    examples are first sorted by (source length, target length), so each batch
    holds sequences of similar length and little padding; with ``False`` they
    are packed in the order given (random batching, for comparison).

    Args:
        examples: (source ids, target ids) pairs.
        max_tokens: token budget per batch for the source side and for the target side.
        sort_by_length: group by length (the paper) or keep the given order.

    Paper: §5.1 (about 25000 source and 25000 target tokens per batch). Book: chapter 10.
    """
    check_positive_int("max_tokens", max_tokens)
    check_bool("sort_by_length", sort_by_length)
    if len(examples) == 0:
        raise ValueError("examples must hold at least one example, got an empty sequence")
    ordered = sorted(examples, key=lambda e: (len(e[0]), len(e[1]))) if sort_by_length else list(examples)
    batches: list[list[Example]] = []
    current: list[Example] = []
    longest_src = longest_tgt = 0  # of the current batch; the target counts <bos> or <eos> once
    for src, tgt in ordered:
        if max(len(src), len(tgt) + 1) > max_tokens:
            raise ValueError(
                f"max_tokens={max_tokens} is smaller than one example: source {len(src)} tokens, "
                f"target {len(tgt)} + 1 tokens"
            )
        grown_src, grown_tgt = max(longest_src, len(src)), max(longest_tgt, len(tgt) + 1)
        if current and (len(current) + 1) * max(grown_src, grown_tgt) > max_tokens:
            batches.append(current)
            current, grown_src, grown_tgt = [], len(src), len(tgt) + 1
        current.append((src, tgt))
        longest_src, longest_tgt = grown_src, grown_tgt
    batches.append(current)
    return batches


def padding_fraction(batches: Iterable[Sequence[Example] | Batch]) -> float:
    """Fraction of all source and target positions that are padding.

    Accepts lists of examples (as from :func:`batch_by_tokens`) or collated
    :class:`Batch` objects. Book: chapter 10 (length-grouped versus random batches).
    """
    padded = real = 0
    for batch in batches:
        if isinstance(batch, Batch):
            tensors = [batch.tgt_out] if batch.src is None else [batch.src, batch.tgt_out]
            padded += sum(t.numel() for t in tensors)
            real += sum(int((t != batch.pad_id).sum()) for t in tensors)
        else:
            if len(batch) == 0:
                raise ValueError("padding_fraction got an empty batch")
            padded += sum(_padded_sizes(batch))
            real += sum(len(s) + len(t) + 1 for s, t in batch)
    if padded == 0:
        raise ValueError("padding_fraction needs at least one batch, got none")
    return 1.0 - real / padded


# --- tasks ---------------------------------------------------------------------

Generator = Callable[[random.Random], tuple[list[str], list[str]]]


class Task:
    """A generated sequence-to-sequence task over one shared vocabulary.

    Args:
        name: a short name ("dates").
        tokens: the ordinary tokens of the vocabulary (specials are added).
        generate: draws one (source tokens, target tokens) pair from a ``random.Random``.
        max_src_len, max_tgt_len: the longest source and target the generator makes.
        held_out_fraction: share of all possible sources reserved for evaluation.

    Use :meth:`examples` for fixed lists (``split="held_out"`` for evaluation)
    and :meth:`batches` for an endless, resumable stream of training batches.
    Book: chapter 10.
    """

    def __init__(
        self,
        name: str,
        tokens: Iterable[str],
        generate: Generator,
        max_src_len: int,
        max_tgt_len: int,
        held_out_fraction: float = 0.1,
    ) -> None:
        check_float("held_out_fraction", held_out_fraction, low=0.0, high=1.0, low_open=True, high_open=True)
        check_positive_int("max_src_len", max_src_len)
        check_positive_int("max_tgt_len", max_tgt_len)
        self.name = name
        self.vocab = Vocab(tokens)
        self.generate = generate
        self.max_src_len = max_src_len
        self.max_tgt_len = max_tgt_len
        self.held_out_fraction = held_out_fraction

    def __repr__(self) -> str:
        return (
            f"Task({self.name!r}, vocabulary {len(self.vocab)}, sources up to {self.max_src_len} tokens, "
            f"targets up to {self.max_tgt_len}, {self.held_out_fraction:.0%} held out)"
        )

    def is_held_out(self, source: Sequence[str] | Sequence[int]) -> bool:
        """Whether a source belongs to the held-out split (a stable hash of its tokens)."""
        text = " ".join(str(s) for s in source).encode()
        bucket = int.from_bytes(hashlib.blake2b(text, digest_size=8).digest(), "big") % 1_000_000
        return bucket < self.held_out_fraction * 1_000_000

    def sample(self, rng: random.Random, split: str = "train") -> Example:
        """Draw one example of ``split`` ("train" or "held_out"), as ids."""
        check_choice("split", split, ("train", "held_out"))
        want_held_out = split == "held_out"
        for _ in range(100_000):
            src, tgt = self.generate(rng)
            if self.is_held_out(src) == want_held_out:
                return tuple(self.vocab.encode(src)), tuple(self.vocab.encode(tgt))
        raise ValueError(f"task {self.name!r} produced no {split} example in 100000 draws; is it too small?")

    def examples(self, n: int, seed: int = 0, split: str = "train", distinct: bool | None = None) -> list[Example]:
        """``n`` examples of ``split``, drawn with ``random.Random(seed)``.

        ``distinct`` (default: True for "held_out", False for "train") drops
        repeated sources, so an accuracy is measured on ``n`` different inputs.
        """
        check_positive_int("n", n)
        check_choice("split", split, ("train", "held_out"))
        if distinct is not None:
            check_bool("distinct", distinct)
        distinct = split == "held_out" if distinct is None else distinct
        rng = random.Random(seed)
        out: list[Example] = []
        seen: set[tuple[int, ...]] = set()
        for _ in range(100 * n + 1000):
            example = self.sample(rng, split)
            if distinct and example[0] in seen:
                continue
            seen.add(example[0])
            out.append(example)
            if len(out) == n:
                return out
        raise ValueError(f"task {self.name!r} has fewer than n={n} distinct {split} sources (found {len(out)})")

    def batches(self, max_tokens: int, seed: int = 0, max_len: int | None = None) -> BatchStream:
        """An endless stream of length-grouped training batches (see :class:`BatchStream`)."""
        return BatchStream(self, max_tokens, seed=seed, max_len=max_len)

    def check_config(self, config: Any) -> None:
        """Raise ``ValueError`` if a model config cannot hold this task's vocabulary or lengths."""
        for field in ("src_vocab_size", "tgt_vocab_size"):
            if getattr(config, field) != len(self.vocab):
                raise ValueError(
                    f"config.{field}={getattr(config, field)} does not match the vocabulary of task "
                    f"{self.name!r} ({len(self.vocab)} tokens); build the config with {field}={len(self.vocab)}"
                )
        longest = max(self.max_src_len, self.max_tgt_len + 1)
        if longest > config.max_len:
            raise ValueError(
                f"task {self.name!r} has sequences of up to {longest} positions, more than "
                f"config.max_len={config.max_len}"
            )

    def to_text(self, ids: Iterable[int] | Tensor) -> str:
        """Ids -> readable text: digits and punctuation joined, words separated by spaces."""
        return detokenize(self.vocab.decode(ids))


def detokenize(tokens: Sequence[str]) -> str:
    """Join tokens: a space around every word, none between digits or punctuation ("nov 22, 2026"). Book: chapter 10."""
    text = ""
    for i, token in enumerate(tokens):
        previous = tokens[i - 1] if i else ""
        if i and (token.isalpha() or previous.isalpha() or previous == ","):
            text += " "
        text += token
    return text


class BatchStream(Iterator[Batch]):
    """An endless, resumable stream of training batches grouped by length.

    Draws a pool of about 64 batches' worth of training examples, groups them
    with :func:`batch_by_tokens`, shuffles the batches and yields them one by
    one. ``state_dict()`` / ``load_state_dict()`` save and restore the random
    generator and the batches not yet yielded, so a resumed run sees exactly
    the batches an uninterrupted run would.

    Args:
        task: the task to draw from (its "train" split).
        max_tokens: token budget per batch (source and target, padding included).
        seed: seed of the stream's ``random.Random``.
        max_len: if given, refuse a task whose sequences are longer.

    Paper: §5.1. Book: chapter 10.
    """

    pool_batches = 64

    def __init__(self, task: Task, max_tokens: int, seed: int = 0, max_len: int | None = None) -> None:
        if not isinstance(task, Task):
            raise TypeError(f"task must be a Task, got {type(task).__name__}")
        if max_len is not None and max(task.max_src_len, task.max_tgt_len + 1) > max_len:
            raise ValueError(
                f"task {task.name!r} has sequences of up to {max(task.max_src_len, task.max_tgt_len + 1)} "
                f"positions, more than max_len={max_len}"
            )
        longest = max(task.max_src_len, task.max_tgt_len + 1)
        check_int("max_tokens", max_tokens)
        if max_tokens < longest:
            raise ValueError(f"max_tokens must be an int >= the longest sequence ({longest}), got {max_tokens!r}")
        self.task = task
        self.max_tokens = max_tokens
        self.rng = random.Random(seed)
        self._pending: list[list[Example]] = []

    def __next__(self) -> Batch:
        if not self._pending:
            self._refill()
        return collate(self._pending.pop(), vocab_size=len(self.task.vocab))

    def _refill(self) -> None:
        pool: list[Example] = []
        tokens = 0
        while tokens < self.pool_batches * self.max_tokens:
            example = self.task.sample(self.rng)
            pool.append(example)
            tokens += len(example[0]) + len(example[1]) + 1
        groups = batch_by_tokens(pool, self.max_tokens)
        self.rng.shuffle(groups)
        self._pending = groups

    def state_dict(self) -> dict[str, Any]:
        """The generator state and the pending batches, as plain Python values."""
        pending = [[[list(s), list(t)] for s, t in group] for group in self._pending]
        return {"rng": self.rng.getstate(), "pending": pending}

    def load_state_dict(self, state: dict[str, Any]) -> None:
        self.rng.setstate(state["rng"])
        self._pending = [[(tuple(s), tuple(t)) for s, t in group] for group in state["pending"]]


# --- the tasks -----------------------------------------------------------------

DIGITS = tuple("0123456789")


def _integer_task(name: str, transform: Callable[[list[str]], list[str]], n_symbols: int, min_len: int, max_len: int):
    for arg, value in (("n_symbols", n_symbols), ("min_len", min_len), ("max_len", max_len)):
        check_positive_int(arg, value)
    if not 1 <= n_symbols or not 1 <= min_len <= max_len:
        raise ValueError(f"need n_symbols >= 1 and 1 <= min_len <= max_len, got {n_symbols}, {min_len}, {max_len}")
    symbols = [str(i) for i in range(n_symbols)]

    def generate(rng: random.Random) -> tuple[list[str], list[str]]:
        seq = [rng.choice(symbols) for _ in range(rng.randint(min_len, max_len))]
        return seq, transform(seq)

    return Task(name, symbols, generate, max_len, max_len)


def copy_task(n_symbols: int = 10, min_len: int = 1, max_len: int = 10) -> Task:
    """Copy a random sequence of integer symbols: "3 1 4" -> "3 1 4".

    Args:
        n_symbols: symbols "0" .. str(n_symbols - 1). min_len, max_len: length range (inclusive).

    Book: chapter 10 (a first task: the decoder must attend to the matching source position).
    """
    return _integer_task("copy", list, n_symbols, min_len, max_len)


def reverse_task(n_symbols: int = 10, min_len: int = 1, max_len: int = 10) -> Task:
    """Reverse a random sequence: "3 1 4" -> "4 1 3". Arguments as :func:`copy_task`. Book: chapter 10."""
    return _integer_task("reverse", lambda s: s[::-1], n_symbols, min_len, max_len)


def sort_task(n_symbols: int = 10, min_len: int = 1, max_len: int = 10) -> Task:
    """Sort a random sequence by value: "3 1 4" -> "1 3 4". Arguments as :func:`copy_task`. Book: chapter 10."""
    return _integer_task("sort", lambda s: sorted(s, key=int), n_symbols, min_len, max_len)


MONTHS = tuple(
    "january february march april may june july august september october november december".split()
)
MONTH_ABBREVIATIONS = tuple(m[:3] for m in MONTHS)
DATE_FORMATS = (
    "{d} {month} {yyyy}",  # 22 november 2026
    "{month} {d}, {yyyy}",  # november 22, 2026
    "{d} {mon} {yyyy}",  # 22 nov 2026
    "{mon} {d}, {yyyy}",  # nov 22, 2026
    "{dd}.{mm}.{yyyy}",  # 22.11.2026 (day first)
    "{mm}/{dd}/{yyyy}",  # 11/22/2026 (month first)
)


def _date_tokens(date: datetime.date, fmt: str) -> list[str]:
    fields = {
        "d": str(date.day),
        "dd": f"{date.day:02d}",
        "mm": f"{date.month:02d}",
        "yyyy": f"{date.year:04d}",
        "month": MONTHS[date.month - 1],
        "mon": MONTH_ABBREVIATIONS[date.month - 1],
    }
    tokens: list[str] = []
    for word in fmt.replace(",", " , ").replace(".", " . ").replace("/", " / ").split():
        value = fields[word[1:-1]] if word.startswith("{") else word
        tokens.extend([value] if value.isalpha() else list(value))  # words whole, numbers digit by digit
    return tokens


def dates_task(min_year: int = 1900, max_year: int = 2099, formats: Sequence[str] = DATE_FORMATS) -> Task:
    """Rewrite a date in one of six human formats as ISO 8601: "nov 22, 2026" -> "2026-11-22".

    Source tokens: month names whole, numbers digit by digit ("2 2 november 2 0 2 6").
    Target: the ten characters of YYYY-MM-DD. The year moves from the end to the
    front and the month name becomes two digits, so the alignment crosses.

    Args:
        min_year, max_year: range of the years (inclusive). formats: templates as in ``DATE_FORMATS``.

    Book: chapter 10 (the attention-alignment experiment).
    """
    check_int("min_year", min_year)
    check_int("max_year", max_year)
    if not 1 <= min_year <= max_year <= 9999:
        raise ValueError(f"need 1 <= min_year <= max_year <= 9999, got {min_year}, {max_year}")
    first = datetime.date(min_year, 1, 1).toordinal()
    last = datetime.date(max_year, 12, 31).toordinal()
    formats = tuple(formats)

    def generate(rng: random.Random) -> tuple[list[str], list[str]]:
        date = datetime.date.fromordinal(rng.randint(first, last))
        return _date_tokens(date, rng.choice(formats)), list(date.isoformat())

    tokens = [*DIGITS, "-", ",", ".", "/", *MONTHS, *(m for m in MONTH_ABBREVIATIONS if m not in MONTHS)]
    longest = max(len(_date_tokens(datetime.date(max_year, 9, 30), f)) for f in formats)
    return Task("dates", tokens, generate, longest, 10)


_ONES = (
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen "
    "sixteen seventeen eighteen nineteen"
).split()
_TENS = "_ _ twenty thirty forty fifty sixty seventy eighty ninety".split()


def number_words(n: int) -> list[str]:
    """British English words for 0 <= n < 1,000,000: 312 -> ["three", "hundred", "and", "twelve"].

    "and" joins hundreds to the rest ("one hundred and five") and thousands to a
    rest below 100 ("two thousand and five"). Book: chapter 10.
    """
    check_int("n", n, low=0, high=999_999)

    def below_hundred(r: int) -> list[str]:
        return [_ONES[r]] if r < 20 else [_TENS[r // 10]] + ([_ONES[r % 10]] if r % 10 else [])

    def below_thousand(r: int) -> list[str]:
        hundreds, rest = divmod(r, 100)
        words = [_ONES[hundreds], "hundred"] if hundreds else []
        if rest:
            words += (["and"] if hundreds else []) + below_hundred(rest)
        return words

    if n == 0:
        return ["zero"]
    thousands, rest = divmod(n, 1000)
    words = [*below_thousand(thousands), "thousand"] if thousands else []
    if rest:
        words += (["and"] if thousands and rest < 100 else []) + below_thousand(rest)
    return words


def numbers_task(max_digits: int = 6, direction: str = "words_to_digits") -> Task:
    """English number words <-> digits: "three hundred and twelve" -> "3 1 2".

    The number of digits is drawn uniformly from 1..``max_digits`` (at most 6),
    then the number uniformly among those with that many digits.

    Args:
        max_digits: 1..6. direction: "words_to_digits" or "digits_to_words".

    Book: chapter 10.
    """
    check_int("max_digits", max_digits, low=1, high=6)
    check_choice("direction", direction, ("words_to_digits", "digits_to_words"))

    def generate(rng: random.Random) -> tuple[list[str], list[str]]:
        digits = rng.randint(1, max_digits)
        n = rng.randint(0 if digits == 1 else 10 ** (digits - 1), 10**digits - 1)
        words, figures = number_words(n), list(str(n))
        return (words, figures) if direction == "words_to_digits" else (figures, words)

    tokens = [*DIGITS, *_ONES, *_TENS[2:], "hundred", "thousand", "and"]
    # 7, 77, 777, ...: every group has the most words (a hundreds word, "and", two tens/ones words)
    longest_words = max(len(number_words(int("7" * k))) for k in range(1, max_digits + 1))
    src_len, tgt_len = (longest_words, max_digits) if direction == "words_to_digits" else (max_digits, longest_words)
    return Task("numbers", tokens, generate, src_len, tgt_len)


TASKS: dict[str, Callable[..., Task]] = {
    "copy": copy_task,
    "reverse": reverse_task,
    "sort": sort_task,
    "dates": dates_task,
    "numbers": numbers_task,
}


def make_task(name: str, **kwargs: Any) -> Task:
    """The task called ``name`` (one of ``TASKS``), built with ``kwargs``. Book: chapter 10."""
    check_choice("name", name, sorted(TASKS))
    return TASKS[name](**kwargs)


__all__ = [
    "BOS_ID",
    "DATE_FORMATS",
    "EOS_ID",
    "PAD_ID",
    "SPECIAL_TOKENS",
    "TASKS",
    "UNK_ID",
    "Batch",
    "BatchStream",
    "Example",
    "Task",
    "Vocab",
    "batch_by_tokens",
    "collate",
    "copy_task",
    "dates_task",
    "detokenize",
    "make_task",
    "number_words",
    "numbers_task",
    "padding_fraction",
    "reverse_task",
    "sort_task",
]

