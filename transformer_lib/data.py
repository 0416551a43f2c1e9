"""Vocabulary and batches: token ids, padding, masks, length-grouped batches.

Everything between a list of (source ids, target ids) pairs and the tensors a
model reads: :class:`Vocab` (tokens <-> ids, four special tokens with fixed ids),
:func:`collate` (pad and mask one batch), :func:`batch_by_tokens` (group examples
of similar length under a token budget, as in the paper), :func:`padding_fraction`,
and the building blocks of a training stream.

The generated tasks (copy, reverse, sort, dates, numbers) and
:class:`~transformer_lib.tasks.BatchStream`, the endless, resumable stream of
a task's training batches, live in :mod:`transformer_lib.tasks`.

Paper: §5.1 ("Sentence pairs were batched together by approximate sequence
length"). Book: ch-training.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace

import torch
from torch import Tensor

from ._checks import (
    check_bool,
    check_choice,
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

    Book: ch-training.

    Examples:
        >>> vocab = tl.Vocab(["a", "b"])
        >>> vocab, vocab.encode(["b", "a"])
        (Vocab(6 tokens: 4 special + a, b), [5, 4])
        >>> vocab.decode([vocab.bos_id, 5, 4, vocab.eos_id, vocab.pad_id])
        ['b', 'a']
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

    The tensors live on one device (the CPU unless :func:`collate` was given
    another); ``batch.to(device)`` moves them all.

    Book: ch-training.

    Examples:
        >>> batch = tl.collate([((4, 5), (6,)), ((4,), (6, 7))])
        >>> batch.tgt_in.tolist(), batch.tgt_out.tolist()  # <bos> + target, target + <eos>
        ([[1, 6, 0], [1, 6, 7]], [[6, 2, 0], [6, 7, 2]])
        >>> len(batch), batch.n_tgt_tokens
        (2, 5)
    """

    src: Tensor | None
    tgt_in: Tensor
    tgt_out: Tensor
    src_mask: Tensor | None
    tgt_mask: Tensor
    pad_id: int = PAD_ID
    vocab_size: int | None = None  # size of the vocabulary the ids come from, if known
    # counted by collate from the id lists, so n_tgt_tokens reads nothing from the device:
    tgt_token_count: int | None = field(default=None, repr=False, compare=False)

    def __len__(self) -> int:
        return self.tgt_in.shape[0]

    @property
    def n_tgt_tokens(self) -> int:
        """Number of target tokens to predict (non-padding positions of ``tgt_out``).

        Counted at collation when the batch comes from :func:`collate`; read from
        ``tgt_out`` otherwise (a host read: a synchronisation on a GPU).
        """
        if self.tgt_token_count is not None:
            return self.tgt_token_count
        return int((self.tgt_out != self.pad_id).sum())

    def to(self, device: torch.device | str) -> Batch:
        """The same batch with every tensor on ``device`` (ids stay ``torch.long``, features keep their dtype).

        Tensors already there are kept, not copied; the target-token count goes along.

        Args:
            device: e.g. ``"cuda"``, ``torch.device("cuda", 1)``, ``"meta"``.

        Book: ch-training.
        """
        if not isinstance(device, (torch.device, str)):
            raise TypeError(f"device must be a torch.device or a string such as 'cuda', got {type(device).__name__}")
        device = torch.device(device)

        def move(x: Tensor | None) -> Tensor | None:
            return None if x is None else x.to(device)

        tgt_in, tgt_out, tgt_mask = self.tgt_in.to(device), self.tgt_out.to(device), self.tgt_mask.to(device)
        return replace(self, src=move(self.src), tgt_in=tgt_in, tgt_out=tgt_out, src_mask=move(self.src_mask), tgt_mask=tgt_mask)

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

        def part(x: Tensor) -> Tensor:
            return torch.tensor_split(x, world_size)[rank]

        return replace(
            self,
            src=None if self.src is None else part(self.src),
            tgt_in=part(self.tgt_in),
            tgt_out=part(self.tgt_out),
            src_mask=None if self.src_mask is None else part(self.src_mask),
            tgt_mask=part(self.tgt_mask),
            tgt_token_count=None,  # the shard's own count, read from its rows
        )


def collate(
    examples: Sequence[Example],
    *,
    pad_id: int = PAD_ID,
    bos_id: int = BOS_ID,
    eos_id: int = EOS_ID,
    max_len: int | None = None,
    vocab_size: int | None = None,
    device: torch.device | str | None = None,
) -> Batch:
    """Pad a list of (source ids, target ids) pairs into a :class:`Batch`.

    Args:
        examples: pairs of id sequences without ``<bos>``/``<eos>``.
        pad_id, bos_id, eos_id: the special ids (the :class:`Vocab` defaults); these and all that follow are keywords.
        max_len: if given, refuse sources longer than ``max_len`` and targets
            whose ``tgt_in`` (target + 1) would be longer.
        vocab_size: recorded in the batch so ``train`` can check it against the model;
            the ids (and the special ids) are checked to lie in [0, vocab_size) here,
            on the host, where checking costs no device read.
        device: where the batch's tensors are made (None: torch's default
            device, the CPU unless changed). The target tokens are counted here too.

    Shape: B examples -> src (B, S), tgt_in/tgt_out (B, T) with T = longest target + 1.
    Paper: §3.1 ("output embeddings offset by one position"). Book: ch-training.

    Examples:
        >>> batch = tl.collate([((4, 5), (6,)), ((4,), (6, 7))])
        >>> batch.src.tolist(), batch.src_mask.shape, batch.tgt_mask.shape
        ([[4, 5], [4, 0]], torch.Size([2, 1, 1, 2]), torch.Size([2, 1, 3, 3]))
    """
    for name, value in (("pad_id", pad_id), ("bos_id", bos_id), ("eos_id", eos_id)):
        check_nonnegative_int(name, value)
    if max_len is not None:
        check_positive_int("max_len", max_len)
    if vocab_size is not None:
        check_positive_int("vocab_size", vocab_size)
        for name, value in (("pad_id", pad_id), ("bos_id", bos_id), ("eos_id", eos_id)):
            if value >= vocab_size:
                raise ValueError(f"{name} must be an id in [0, vocab_size={vocab_size}), got {value}")
    if device is not None and not isinstance(device, (torch.device, str)):
        raise TypeError(f"device must be a torch.device, a string such as 'cuda', or None, got {type(device).__name__}")
    if not isinstance(examples, Sequence) or len(examples) == 0:
        got = f"an empty {type(examples).__name__}" if isinstance(examples, Sequence) else type(examples).__name__
        raise ValueError(f"examples must be a non-empty sequence of (source, target) pairs, got {got}")
    for i, pair in enumerate(examples):
        if not isinstance(pair, (tuple, list)) or len(pair) != 2:
            raise TypeError(f"examples[{i}] must be a (source ids, target ids) pair, got {pair!r}")
        source, target = pair
        if len(source) == 0 or len(target) == 0:
            raise ValueError(f"examples[{i}] has an empty source or target (lengths {len(source)}, {len(target)})")
        if max_len is not None and (len(source) > max_len or len(target) + 1 > max_len):
            raise ValueError(
                f"examples[{i}] is longer than max_len={max_len}: source {len(source)} tokens, "
                f"target {len(target)} + 1 tokens (with <bos>/<eos>)"
            )
        if vocab_size is not None:
            outside = [i for i in (*source, *target) if not 0 <= i < vocab_size]
            if outside:
                raise ValueError(
                    f"examples[{i}] must hold ids in [0, vocab_size={vocab_size}), got {outside[0]!r}: "
                    "the ids come from a larger vocabulary than the one given"
                )
    S = max(len(s) for s, _ in examples)
    T = max(len(t) for _, t in examples) + 1
    src = torch.tensor([[*s] + [pad_id] * (S - len(s)) for s, _ in examples], device=device)
    tgt_in = torch.tensor([[bos_id, *t] + [pad_id] * (T - 1 - len(t)) for _, t in examples], device=device)  # shifted right
    tgt_out = torch.tensor([[*t, eos_id] + [pad_id] * (T - 1 - len(t)) for _, t in examples], device=device)  # to predict
    count = sum(token != pad_id for _, t in examples for token in (*t, eos_id))  # the non-padding entries of tgt_out
    return Batch(
        src=src,
        tgt_in=tgt_in,
        tgt_out=tgt_out,
        src_mask=padding_mask(src, pad_id),  # (B, 1, 1, S)
        tgt_mask=decoder_mask(tgt_in, pad_id),  # (B, 1, T, T)
        pad_id=pad_id,
        vocab_size=vocab_size,
        tgt_token_count=count,
    )


def _padded_sizes(group: Sequence[Example]) -> tuple[int, int]:
    """Padded (source, target) token counts of one batch; the target counts <bos> or <eos> once."""
    return len(group) * max(len(s) for s, _ in group), len(group) * (max(len(t) for _, t in group) + 1)


def batch_by_tokens(examples: Sequence[Example], max_tokens: int, sort_by_length: bool = True) -> list[list[Example]]:
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

    Paper: §5.1 (about 25000 source and 25000 target tokens per batch). Book: ch-training.

    Examples:
        >>> examples = [((4,) * n, (5,) * n) for n in (1, 3, 2, 3)]
        >>> [[len(src) for src, _ in batch] for batch in tl.batch_by_tokens(examples, max_tokens=8)]
        [[1, 2], [3, 3]]
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
                f"max_tokens={max_tokens} is smaller than one example: source {len(src)} tokens, target {len(tgt)} + 1 tokens"
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
    :class:`Batch` objects. Book: ch-training (length-grouped versus random batches).

    Examples:
        >>> batch = [((4,), (5,)), ((4, 4, 4), (5, 5, 5))]  # padded to 2 x 3 source and 2 x 4 target tokens
        >>> round(tl.padding_fraction([batch]), 4)  # 4 of those 14 positions are padding
        0.2857
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


__all__ = [
    "BOS_ID",
    "EOS_ID",
    "PAD_ID",
    "SPECIAL_TOKENS",
    "UNK_ID",
    "Batch",
    "Example",
    "Vocab",
    "batch_by_tokens",
    "collate",
    "padding_fraction",
]
