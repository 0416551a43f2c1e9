"""Generated sequence-to-sequence tasks: copy, reverse, sort, dates, numbers.

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
tokens, so no held-out example can ever appear in training. The vocabulary and
the batches (:class:`~transformer_lib.data.Vocab`, :func:`~transformer_lib.data.collate`)
live in :mod:`transformer_lib.data`; :class:`BatchStream`, a task's endless stream of training
batches, lives here, beside the task it draws from.

Book: ch-training.
"""

from __future__ import annotations

import datetime
import hashlib
import random
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any

from torch import Tensor

from ._checks import check_bool, check_choice, check_float, check_int, check_positive_int
from .data import Batch, Example, Vocab, batch_by_tokens, collate

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
    Book: ch-training.

    Examples:
        >>> task = tl.make_task("reverse", max_len=4)
        >>> task
        Task('reverse', vocabulary 14, sources up to 4 tokens, targets up to 4, 10% held out)
        >>> src, tgt = task.examples(1, seed=0)[0]
        >>> task.to_text(src), task.to_text(tgt), task.is_held_out(src)
        ('6048', '8406', False)
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
                f"task {self.name!r} has sequences of up to {longest} positions, more than config.max_len={config.max_len}"
            )

    def to_text(self, ids: Iterable[int] | Tensor) -> str:
        """Ids -> readable text: digits and punctuation joined, words separated by spaces."""
        return detokenize(self.vocab.decode(ids))


def detokenize(tokens: Sequence[str]) -> str:
    """Join tokens: a space around every word, none between digits or punctuation ("nov 22, 2026"). Book: ch-training.

    Examples:
        >>> tl.tasks.detokenize(["nov", "2", "2", ",", "2", "0", "2", "6"])
        'nov 22, 2026'
    """
    text = ""
    for i, token in enumerate(tokens):
        previous = tokens[i - 1] if i else ""
        if i and (token.isalpha() or previous.isalpha() or previous == ","):
            text += " "
        text += token
    return text


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

    Book: ch-training (a first task: the decoder must attend to the matching source position).

    Examples:
        >>> src, tgt = tl.tasks.copy_task(n_symbols=5, max_len=4).examples(1)[0]
        >>> src == tgt
        True
    """
    return _integer_task("copy", list, n_symbols, min_len, max_len)


def reverse_task(n_symbols: int = 10, min_len: int = 1, max_len: int = 10) -> Task:
    """Reverse a random sequence: "3 1 4" -> "4 1 3". Arguments as :func:`copy_task`. Book: ch-training.

    Examples:
        >>> src, tgt = tl.tasks.reverse_task().examples(1)[0]
        >>> tgt == src[::-1]
        True
    """
    return _integer_task("reverse", lambda s: s[::-1], n_symbols, min_len, max_len)


def sort_task(n_symbols: int = 10, min_len: int = 1, max_len: int = 10) -> Task:
    """Sort a random sequence by value: "3 1 4" -> "1 3 4". Arguments as :func:`copy_task`. Book: ch-training.

    Examples:
        >>> src, tgt = tl.tasks.sort_task().examples(1)[0]
        >>> tgt == tuple(sorted(src))  # the ids of "0" ... "9" are in the symbols' order
        True
    """
    return _integer_task("sort", lambda s: sorted(s, key=int), n_symbols, min_len, max_len)


MONTHS = tuple("january february march april may june july august september october november december".split())
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

    Book: ch-decoding (the attention-alignment experiment).

    Examples:
        >>> task = tl.tasks.dates_task()
        >>> [task.to_text(ids) for ids in task.examples(1, seed=0)[0]]
        ['apr 1, 2038', '2038-04-01']
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
    rest below 100 ("two thousand and five"). Book: ch-training.

    Examples:
        >>> tl.tasks.number_words(312)
        ['three', 'hundred', 'and', 'twelve']
        >>> " ".join(tl.tasks.number_words(2005))
        'two thousand and five'
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

    Book: ch-training.

    Examples:
        >>> task = tl.tasks.numbers_task(max_digits=3)
        >>> [task.to_text(ids) for ids in task.examples(1, seed=5)[0]]
        ['three hundred and sixty one', '361']
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

    Paper: §5.1. Book: ch-training.

    Examples:
        >>> stream = tl.make_task("copy").batches(max_tokens=64, seed=0)
        >>> batch = next(stream)
        >>> batch.src.numel() <= 64 and batch.tgt_in.numel() <= 64
        True
        >>> resumed = tl.make_task("copy").batches(max_tokens=64)
        >>> resumed.load_state_dict(stream.state_dict())
        >>> torch.equal(next(resumed).src, next(stream).src)  # the batch the stream would have given next
        True
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


TASKS: dict[str, Callable[..., Task]] = {
    "copy": copy_task,
    "reverse": reverse_task,
    "sort": sort_task,
    "dates": dates_task,
    "numbers": numbers_task,
}


def make_task(name: str, **kwargs: Any) -> Task:
    """The task called ``name`` (one of ``TASKS``), built with ``kwargs``. Book: ch-training.

    Examples:
        >>> tl.make_task("sort", n_symbols=5)
        Task('sort', vocabulary 9, sources up to 10 tokens, targets up to 10, 10% held out)
    """
    check_choice("name", name, sorted(TASKS))
    return TASKS[name](**kwargs)


__all__ = [
    "DATE_FORMATS",
    "DIGITS",
    "MONTHS",
    "MONTH_ABBREVIATIONS",
    "TASKS",
    "BatchStream",
    "Generator",
    "Task",
    "copy_task",
    "dates_task",
    "detokenize",
    "make_task",
    "number_words",
    "numbers_task",
    "reverse_task",
    "sort_task",
]
