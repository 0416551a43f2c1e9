"""Attention: scaled dot-product, additive, and multi-head.

Mask convention (see ``masks.py``): boolean, True = may attend, broadcastable
to (B, H, Tq, Tk). A query whose keys are all masked gets zero weights and a
zero output, never NaN.

Paper: §3.2.1 (Eq. 1), §3.2.2 (multi-head). Book: ch-attention, ch-scaling and ch-multihead.
"""

from __future__ import annotations

import math

import torch
import torch.nn.functional as F
from torch import Tensor, nn

from ._checks import check_bool, check_choice, check_fraction, check_mask, check_positive_int, check_tensor


def masked_softmax(scores: Tensor, mask: Tensor | None) -> Tensor:
    """Softmax over the last axis that ignores masked keys.

    Masked keys get weight exactly 0. A row with no visible key gets all-zero
    weights: its scores are replaced by 0 before the softmax so that neither the
    forward nor the backward pass meets ``exp(-inf) / 0 = NaN``.

    Shape: scores (..., Tq, Tk), mask broadcastable to it -> weights (..., Tq, Tk).

    Examples:
        >>> import torch, transformer_lib as tl
        >>> weights = tl.masked_softmax(torch.tensor([[1.0, 2.0, 3.0]]), torch.tensor([[True, True, False]]))
        >>> [round(w, 4) for w in weights[0].tolist()]  # the masked key gets exactly 0
        [0.2689, 0.7311, 0.0]
    """
    if mask is None:
        return scores.softmax(dim=-1)
    blocked = ~mask
    no_visible_key = blocked.all(dim=-1, keepdim=True)  # (..., Tq, 1)
    scores = scores.masked_fill(blocked, float("-inf")).masked_fill(no_visible_key, 0.0)
    return scores.softmax(dim=-1).masked_fill(blocked, 0.0)


def attend(q: Tensor, k: Tensor, v: Tensor, mask: Tensor | None = None, dropout_p: float = 0.0) -> tuple[Tensor, Tensor]:
    """Scaled dot-product attention, softmax(Q K^T / sqrt(d_k)) V, written out step by step,
    returning the output **and** the weights.

    ``torch.nn.functional.scaled_dot_product_attention`` computes the same output (a fused
    kernel, tested equal) and returns it alone; this function is named apart from it because
    it returns a pair.

    Args:
        q: queries. k: keys. v: values.
        mask: boolean, True = may attend; broadcastable to (..., Tq, Tk).
        dropout_p: dropout on the attention weights (applied whenever > 0;
            modules pass 0.0 in eval mode).

    Returns:
        ``(out, weights)``; ``weights`` are the softmax probabilities before dropout.

    Shape:
        q (..., Tq, d_k), k (..., Tk, d_k), v (..., Tk, d_v)
        -> out (..., Tq, d_v), weights (..., Tq, Tk).

    Paper: §3.2.1, Eq. 1. Book: ch-attention (the computation) and ch-scaling (the scale).

    Examples:
        >>> import torch, transformer_lib as tl
        >>> q = k = v = torch.eye(3)[None]  # (1, 3, 3): one sequence of three positions
        >>> out, weights = tl.attend(q, k, v, mask=tl.causal_mask(3))  # (3, 3): query i sees keys 0..i
        >>> out.shape, weights.shape
        (torch.Size([1, 3, 3]), torch.Size([1, 3, 3]))
        >>> (weights[0] > 0).int().tolist()  # which keys each query weighs
        [[1, 0, 0], [1, 1, 0], [1, 1, 1]]
    """
    _check_qkv(q, k, v)
    if mask is not None:
        check_mask("mask", mask, (*q.shape[:-1], k.shape[-2]), "(..., Tq, Tk)")
    if not 0.0 <= dropout_p < 1.0:
        raise ValueError(f"dropout_p must be in [0, 1), got {dropout_p!r}")
    d_k = q.shape[-1]
    scores = q @ k.transpose(-2, -1) / math.sqrt(d_k)  # (..., Tq, Tk)
    weights = masked_softmax(scores, mask)  # (..., Tq, Tk), rows sum to 1 (or 0 if fully masked)
    dropped = F.dropout(weights, p=dropout_p) if dropout_p > 0.0 else weights
    return dropped @ v, weights  # (..., Tq, d_v)


def _check_qkv(q: Tensor, k: Tensor, v: Tensor) -> None:
    check_tensor("q", q, "(..., Tq, d_k)")
    check_tensor("k", k, "(..., Tk, d_k)")
    check_tensor("v", v, "(..., Tk, d_v)")
    if q.dim() < 2 or k.dim() < 2 or v.dim() < 2:
        raise ValueError(
            f"q, k and v need rank >= 2 (..., T, d), got shapes {tuple(q.shape)}, {tuple(k.shape)}, {tuple(v.shape)}"
        )
    if q.shape[-1] != k.shape[-1]:
        raise ValueError(f"q and k must share d_k: got q {tuple(q.shape)} and k {tuple(k.shape)}")
    if k.shape[-2] != v.shape[-2]:
        raise ValueError(f"k and v must have the same length Tk: got k {tuple(k.shape)} and v {tuple(v.shape)}")


class AdditiveAttention(nn.Module):
    """Additive ("Bahdanau") attention: score(q, k) = w^T tanh(W_q q + W_k k).

    The scores go through the same masked softmax as dot-product attention and
    weight the values. Unlike the dot product, query and key may have different
    widths, and the cost has an extra factor: a (B, Tq, Tk, hidden) tensor.

    Args:
        query_dim: width of the queries. key_dim: width of the keys.
        hidden_dim: width of the tanh layer.

    Shape:
        query (B, Tq, query_dim), key (B, Tk, key_dim), value (B, Tk, d_v)
        -> out (B, Tq, d_v), weights (B, Tq, Tk).

    Paper: §3.2.1 (compared with dot-product attention), citing Bahdanau et al.
    (2015), §3.1 and appendix A.1.2 (the tanh score). Book: ch-attention.

    Examples:
        >>> import torch, transformer_lib as tl
        >>> attention = tl.AdditiveAttention(query_dim=4, key_dim=6, hidden_dim=8)
        >>> out, weights = attention(torch.randn(2, 3, 4), torch.randn(2, 5, 6), torch.randn(2, 5, 7))
        >>> out.shape, weights.shape
        (torch.Size([2, 3, 7]), torch.Size([2, 3, 5]))
    """

    def __init__(self, query_dim: int, key_dim: int, hidden_dim: int) -> None:
        super().__init__()
        self.query_proj = nn.Linear(query_dim, hidden_dim, bias=False)  # W_q
        self.key_proj = nn.Linear(key_dim, hidden_dim, bias=False)  # W_k
        self.score_proj = nn.Linear(hidden_dim, 1, bias=False)  # w

    def forward(self, query: Tensor, key: Tensor, value: Tensor, mask: Tensor | None = None) -> tuple[Tensor, Tensor]:
        check_tensor("query", query, f"(B, Tq, {self.query_proj.in_features})", 3, self.query_proj.in_features)
        check_tensor("key", key, f"(B, Tk, {self.key_proj.in_features})", 3, self.key_proj.in_features)
        check_tensor("value", value, "(B, Tk, d_v)", 3)
        if key.shape[:2] != value.shape[:2] or query.shape[0] != key.shape[0]:
            raise ValueError(
                "query, key and value must share B and key/value must share Tk: got "
                f"{tuple(query.shape)}, {tuple(key.shape)}, {tuple(value.shape)}"
            )
        if mask is not None:
            check_mask("mask", mask, (query.shape[0], query.shape[1], key.shape[1]), "(B, Tq, Tk)")
        hidden = self.query_proj(query)[:, :, None, :] + self.key_proj(key)[:, None, :, :]  # (B, Tq, Tk, hidden)
        scores = self.score_proj(torch.tanh(hidden)).squeeze(-1)  # (B, Tq, Tk)
        weights = masked_softmax(scores, mask)
        return weights @ value, weights  # (B, Tq, d_v)


KERNELS = ("fused", "explicit")


class KVCache:
    """Keys and values of the positions decoded so far, for incremental (cached) decoding.

    Each :class:`MultiHeadAttention` of a decoder stores its keys and values here,
    shape (B, H, positions, D/H): self-attention entries grow by the new positions
    at every step; cross-attention entries (the encoder memory's, ``static``) are
    computed once. ``length`` counts the positions already decoded; the model that
    owns the positions advances it. Used by ``greedy_decode``, ``beam_search`` and
    ``sample`` (``use_cache=True``); a model's ``decode``/``forward`` with
    ``cache=KVCache()`` returns only the outputs of the positions it has not seen.

    Paper: §3.1 (the decoder is auto-regressive: position i depends only on
    positions < i, so their keys and values never change). Book: ch-cost.

    Examples:
        >>> import torch, transformer_lib as tl
        >>> lm = tl.DecoderOnlyLM(tl.TransformerConfig.tiny()).eval()
        >>> cache = tl.KVCache()
        >>> with torch.no_grad():
        ...     first = lm(torch.tensor([[1, 5, 6]]), cache=cache)  # three positions, all new
        ...     step = lm(torch.tensor([[1, 5, 6, 7]]), cache=cache)  # one new position
        >>> cache.length, first.shape, step.shape
        (4, torch.Size([1, 3, 32]), torch.Size([1, 1, 32]))
    """

    def __init__(self) -> None:
        self.length = 0
        self._entries: dict[nn.Module, tuple[Tensor, Tensor]] = {}
        self._static: set[nn.Module] = set()

    def __contains__(self, module: object) -> bool:
        return module in self._entries

    def __getitem__(self, module: nn.Module) -> tuple[Tensor, Tensor]:
        return self._entries[module]

    def store(self, module: nn.Module, k: Tensor, v: Tensor, *, static: bool = False) -> None:
        """Keep ``module``'s keys and values (all positions so far, or the memory's if ``static``)."""
        self._entries[module] = (k, v)
        if static:
            self._static.add(module)

    def reorder(self, index: Tensor) -> None:
        """Keep rows ``index`` of every growing entry (beam search: each hypothesis takes its parent's past).

        Static entries (the memory's keys and values) are left as they are: the rows
        must be reordered within groups that share a source, as beam search does.
        """
        for module, (k, v) in self._entries.items():
            if module not in self._static:
                self._entries[module] = (k.index_select(0, index), v.index_select(0, index))


class MultiHeadAttention(nn.Module):
    """Multi-head attention: h scaled dot-product attentions in subspaces of width d_model / h.

    MultiHead(Q, K, V) = Concat(head_1, ..., head_h) W_O with
    head_i = Attention(Q W_i^Q, K W_i^K, V W_i^V). The h projections W_i^Q are
    the column blocks of one (D, D) matrix, so ``q_proj`` computes all heads at once.

    Args:
        d_model: D, the width of inputs and output.
        n_heads: H; D must be divisible by H.
        dropout: dropout on the attention weights (training mode only).
        bias: whether the four projections have biases.
        kernel: how softmax(Q K^T / sqrt(d_k)) V is computed: ``"fused"``
            (``F.scaled_dot_product_attention``, the default) or ``"explicit"``
            (:func:`attend`, every step written out). The
            two agree to rounding (1e-10 in float64, about 1e-6 in float32, tested);
            they differ in memory (the explicit one stores the (B, H, Tq, Tk) weights)
            and in last float32 digits, so pick one and keep it.

    Forward: ``forward(query, key, value, *, mask=None, need_weights=False, kernel=None)``.
        mask: boolean, True = may attend, broadcastable to (B, H, Tq, Tk).
        need_weights: also return the per-head weights (before dropout). The output
            does NOT depend on it: with the fused kernel the weights are computed
            beside it, so ``tl.capture_attention`` never changes a model's numbers.
        kernel: overrides the module's ``kernel`` for this call.

    Shape:
        query (B, Tq, D), key and value (B, Tk, D) -> out (B, Tq, D),
        weights (B, H, Tq, Tk) or None.

    Paper: §3.2.2. Book: ch-multihead.

    Examples:
        >>> import torch, transformer_lib as tl
        >>> attention = tl.MultiHeadAttention(d_model=16, n_heads=4)
        >>> x = torch.randn(2, 5, 16)
        >>> out, weights = attention(x, x, x, need_weights=True)  # self-attention
        >>> out.shape, weights.shape  # weights per head: (B, H, Tq, Tk)
        (torch.Size([2, 5, 16]), torch.Size([2, 4, 5, 5]))
    """

    def __init__(self, d_model: int, n_heads: int, dropout: float = 0.0, bias: bool = True, kernel: str = "fused") -> None:
        super().__init__()
        check_positive_int("d_model", d_model)
        check_positive_int("n_heads", n_heads)
        if d_model % n_heads != 0:
            raise ValueError(f"d_model must be divisible by n_heads: got d_model={d_model}, n_heads={n_heads}")
        check_fraction("dropout", dropout)
        check_bool("bias", bias)
        self.d_model = d_model
        self.n_heads = n_heads
        self.d_head = d_model // n_heads  # d_k = d_v = D / H
        self.dropout = dropout
        self.kernel = str(check_choice("kernel", kernel, KERNELS))
        self.q_proj = nn.Linear(d_model, d_model, bias=bias)  # [W_1^Q ... W_h^Q]
        self.k_proj = nn.Linear(d_model, d_model, bias=bias)  # [W_1^K ... W_h^K]
        self.v_proj = nn.Linear(d_model, d_model, bias=bias)  # [W_1^V ... W_h^V]
        self.out_proj = nn.Linear(d_model, d_model, bias=bias)  # W^O
        self.reset_parameters()

    def reset_parameters(self) -> None:
        """Xavier-uniform weights and zero biases, as ``nn.MultiheadAttention`` does for its projections."""
        for proj in (self.q_proj, self.k_proj, self.v_proj, self.out_proj):
            nn.init.xavier_uniform_(proj.weight)
            if proj.bias is not None:
                nn.init.zeros_(proj.bias)

    def forward(
        self,
        query: Tensor,
        key: Tensor,
        value: Tensor,
        *,
        mask: Tensor | None = None,
        need_weights: bool = False,
        kernel: str | None = None,
    ) -> tuple[Tensor, Tensor | None]:
        kernel = self._check_inputs(query, key, value, mask, kernel)
        q = self.split_heads(self.q_proj(query))  # (B, H, Tq, Dh)
        k = self.split_heads(self.k_proj(key))  # (B, H, Tk, Dh)
        v = self.split_heads(self.v_proj(value))  # (B, H, Tk, Dh)
        out, weights = self.attend_heads(q, k, v, mask, need_weights, kernel)  # (B, H, Tq, Dh)
        return self.out_proj(self.merge_heads(out)), weights  # concat heads, then W^O

    def split_heads(self, x: Tensor) -> Tensor:
        """(B, T, D) -> (B, H, T, D/H): head i reads columns i*D/H ... (i+1)*D/H - 1."""
        B, T, _ = x.shape
        return x.view(B, T, self.n_heads, self.d_head).transpose(1, 2)

    def merge_heads(self, x: Tensor) -> Tensor:
        """(B, H, T, D/H) -> (B, T, D): the heads side by side (Concat)."""
        B, _, T, _ = x.shape
        return x.transpose(1, 2).reshape(B, T, self.d_model)

    def attend_heads(
        self, q: Tensor, k: Tensor, v: Tensor, mask: Tensor | None, need_weights: bool, kernel: str
    ) -> tuple[Tensor, Tensor | None]:
        """Attention of every head with the chosen kernel; the weights computed only if asked."""
        dropout_p = self.dropout if self.training else 0.0
        if kernel == "explicit":
            out, explicit_weights = attend(q, k, v, mask, dropout_p)
            return out, (explicit_weights if need_weights else None)
        out = _fused_attention(q, k, v, mask, dropout_p)
        if not need_weights:
            return out, None
        return out, masked_softmax(q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1]), mask)

    def incremental(
        self, query: Tensor, source: Tensor, cache: KVCache, *, mask: Tensor | None = None, static: bool = False
    ) -> Tensor:
        """Attention of new queries with the keys and values of past positions kept in ``cache``.

        Self-attention (``static=False``): the keys and values of ``source`` (the new
        positions) are appended to this module's cached ones, and the queries attend
        to all of them. Cross-attention (``static=True``): ``source`` is the encoder
        memory; its keys and values are computed on the first call and reused after.
        Equal to :meth:`forward` on the whole prefix, row for row (tested).

        Shape: query (B, t, D), source (B, t or S, D), mask broadcastable to
        (B, H, t, past + t) or (B, H, t, S) -> (B, t, D).
        """
        q = self.split_heads(self.q_proj(query))  # (B, H, t, Dh)
        if static and self in cache:
            k, v = cache[self]
        else:
            k, v = self.split_heads(self.k_proj(source)), self.split_heads(self.v_proj(source))
            if self in cache:  # append the new positions to the past ones
                past_k, past_v = cache[self]
                k, v = torch.cat([past_k, k], dim=2), torch.cat([past_v, v], dim=2)
            cache.store(self, k, v, static=static)
        out, _ = self.attend_heads(q, k, v, mask, False, self.kernel)
        return self.out_proj(self.merge_heads(out))

    def _check_inputs(self, query: object, key: object, value: object, mask: object, kernel: object) -> str:
        D, H = self.d_model, self.n_heads
        query = check_tensor("query", query, f"(B, Tq, D={D})", 3, D)
        key = check_tensor("key", key, f"(B, Tk, D={D})", 3, D)
        value = check_tensor("value", value, f"(B, Tk, D={D})", 3, D)
        B, Tq, _ = query.shape
        if key.shape != value.shape or key.shape[0] != B:
            raise ValueError(
                f"key and value must have the same shape (B={B}, Tk, {D}): got "
                f"query {tuple(query.shape)}, key {tuple(key.shape)}, value {tuple(value.shape)}"
            )
        if mask is not None:
            check_mask("mask", mask, (B, H, Tq, key.shape[1]), "(B, H, Tq, Tk)")
        return self.kernel if kernel is None else str(check_choice("kernel", kernel, KERNELS))

    def extra_repr(self) -> str:
        return f"d_model={self.d_model}, n_heads={self.n_heads}, dropout={self.dropout}, kernel={self.kernel!r}"


def _fused_attention(q: Tensor, k: Tensor, v: Tensor, mask: Tensor | None, dropout_p: float) -> Tensor:
    """``F.scaled_dot_product_attention`` with fully masked rows returning zeros.

    A row with no visible key is given every key (so the kernel stays finite in
    both passes) and its output is then set to zero, as in :func:`masked_softmax`.
    Where no row is fully masked both steps change nothing. On the CPU the kernel
    first asks whether any row is (a free read there, and the backward pass then
    keeps two tensors fewer); on other devices the read would be a synchronisation
    in every attention call (and ``meta`` has no values), so the steps run always.
    """
    if mask is None:
        return F.scaled_dot_product_attention(q, k, v, dropout_p=dropout_p)
    no_visible_key = ~mask.any(dim=-1, keepdim=True)  # (..., Tq, 1)
    if mask.device.type == "cpu" and not bool(no_visible_key.any()):
        return F.scaled_dot_product_attention(q, k, v, attn_mask=mask, dropout_p=dropout_p)
    out = F.scaled_dot_product_attention(q, k, v, attn_mask=mask | no_visible_key, dropout_p=dropout_p)
    return out.masked_fill(no_visible_key, 0.0)
