"""Loading given matrices into the library's modules, and recording a forward pass.

The sources write a linear map as ``y = x @ W + b`` with ``W`` of shape (in, out).
``torch.nn.Linear`` stores ``weight`` as (out, in) and computes
``x @ weight.T + bias``. Every ``load_*`` function here takes matrices in the
sources' (in, out) convention and transposes them; a matrix of the wrong shape
raises a ``ValueError`` naming the argument, the expected and the received shape.

Book: ch-numbers.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import numpy as np
import torch
from torch import Tensor, nn

from transformer_lib.attention import MultiHeadAttention
from transformer_lib.layers import PositionwiseFeedForward
from transformer_lib.positional import LearnedPositionalEncoding, SinusoidalPositionalEncoding, TokenEmbedding, sinusoidal_table


def to_float64(name: str, value: Any) -> Tensor:
    """Any matrix-like value (tensor, array, nested lists, sympy Matrix) -> float64 tensor."""
    if isinstance(value, Tensor):
        if value.is_complex() or value.dtype == torch.bool:
            raise TypeError(f"{name} must hold real numbers, got a tensor of dtype {value.dtype}")
        return value.detach().to(torch.float64)
    if hasattr(value, "tolist") and not isinstance(value, np.ndarray):  # sympy matrices
        value = value.tolist()
    try:
        array = np.asarray(value, dtype=np.float64)
    except (TypeError, ValueError) as error:
        raise TypeError(f"{name} must be a matrix of real numbers, got {type(value).__name__}") from error
    return torch.from_numpy(array.copy())


def _matrix(name: str, value: Any, shape: tuple[int, ...], meaning: str) -> Tensor:
    tensor = to_float64(name, value)
    if tuple(tensor.shape) != shape:
        raise ValueError(f"{name} must have shape {meaning} = {shape}, got shape {tuple(tensor.shape)}")
    return tensor


@torch.no_grad()
def _copy(parameter: Tensor, value: Tensor) -> None:
    parameter.copy_(value.to(dtype=parameter.dtype, device=parameter.device))


def load_linear(
    linear: nn.Linear,
    weight: Any,
    bias: Any = None,
    *,
    name: str = "weight",
) -> None:
    """Set ``linear`` to compute ``x @ weight + bias`` (the sources' convention).

    Args:
        linear: an ``nn.Linear(in_features, out_features)``.
        weight: (in_features, out_features) as in the sources; stored transposed.
        bias: (out_features,), or None for zeros (for a layer without bias, None or
            zeros; a non-zero bias for a bias-free layer is an error).
        name: the argument name used in error messages.

    Shape: weight (in, out) -> ``linear.weight`` (out, in).
    """
    if not isinstance(linear, nn.Linear):
        raise TypeError(f"linear must be an nn.Linear, got {type(linear).__name__}")
    n_in, n_out = linear.in_features, linear.out_features
    w = _matrix(name, weight, (n_in, n_out), "(in_features, out_features)")
    _copy(linear.weight, w.T)
    if linear.bias is None:
        given = None if bias is None else to_float64(f"bias of {name}", bias)
        if given is not None and bool(given.ne(0).any()):
            raise ValueError(f"non-zero bias given for {name}; layer has bias=False")
        return
    if bias is None:
        b = torch.zeros(n_out, dtype=torch.float64)
    else:
        b = _matrix(f"bias of {name}", bias, (n_out,), "(out_features,)")
    _copy(linear.bias, b)


def load_attention(
    mha: object,
    W_q: Any,
    W_k: Any,
    W_v: Any,
    W_o: Any,
    biases: Mapping[str, Any] | Sequence[Any] | None = None,
) -> MultiHeadAttention:
    """Load the four (D, D) projection matrices of multi-head attention.

    ``W_q`` holds the h per-head matrices W_i^Q (D, d_k) side by side, head i in
    columns i*d_k to (i+1)*d_k - 1, which is how the sources (and the paper's
    Concat) split heads. Likewise ``W_k``, ``W_v``; ``W_o`` maps the
    concatenated heads (D) back to D.

    Args:
        mha: a :class:`~transformer_lib.attention.MultiHeadAttention`.
        W_q, W_k, W_v, W_o: (D, D) in the sources' (in, out) convention.
        biases: None (zeros), a mapping with keys among ``"q", "k", "v", "o"``, or
            a sequence of four (D,) vectors in that order.

    Returns: ``mha`` (loaded in place).
    Paper: §3.2.2. Book: ch-numbers.
    """
    if not isinstance(mha, MultiHeadAttention):
        raise TypeError(f"mha must be a transformer_lib MultiHeadAttention, got {type(mha).__name__}")
    if biases is None:
        bias_map: dict[str, Any] = {}
    elif isinstance(biases, Mapping):
        unknown = sorted(set(biases) - {"q", "k", "v", "o"})
        if unknown:
            raise ValueError(f"biases has unknown keys {unknown}; expected keys among 'q', 'k', 'v', 'o'")
        bias_map = dict(biases)
    else:
        if len(biases) != 4:
            raise ValueError(f"biases must hold 4 vectors (q, k, v, o), got {len(biases)}")
        bias_map = dict(zip("qkvo", biases, strict=True))
    projections = {"q": (mha.q_proj, W_q), "k": (mha.k_proj, W_k), "v": (mha.v_proj, W_v), "o": (mha.out_proj, W_o)}
    for key, (linear, matrix) in projections.items():
        load_linear(linear, matrix, bias_map.get(key), name=f"W_{key}")
    return mha


def load_feed_forward(ffn: object, W1: Any, b1: Any, W2: Any, b2: Any) -> PositionwiseFeedForward:
    """Load FFN(x) = max(0, x W1 + b1) W2 + b2 (paper Eq. 2, the sources' convention).

    Args:
        ffn: a :class:`~transformer_lib.layers.PositionwiseFeedForward` of widths D and F.
        W1: (D, F). b1: (F,) or None for zeros. W2: (F, D). b2: (D,) or None for zeros.

    Returns: ``ffn`` (loaded in place).
    """
    if not isinstance(ffn, PositionwiseFeedForward):
        raise TypeError(f"ffn must be a transformer_lib PositionwiseFeedForward, got {type(ffn).__name__}")
    load_linear(ffn.linear1, W1, b1, name="W1")
    load_linear(ffn.linear2, W2, b2, name="W2")
    return ffn


def load_layer_norm(norm: object, gamma: Any = None, beta: Any = None, eps: float | None = None) -> nn.LayerNorm:
    """Set a LayerNorm's scale gamma (None: ones), shift beta (None: zeros) and, if given, epsilon.

    LayerNorm(y) = gamma * (y - mean) / sqrt(var + eps) + beta, with the biased variance.
    """
    if not isinstance(norm, nn.LayerNorm):
        raise TypeError(f"norm must be a torch.nn.LayerNorm, got {type(norm).__name__}")
    if len(norm.normalized_shape) != 1 or norm.weight is None:
        raise ValueError("norm must normalise one axis and have a learnable scale and shift (elementwise_affine=True)")
    (width,) = norm.normalized_shape
    g = torch.ones(width, dtype=torch.float64) if gamma is None else _matrix("gamma", gamma, (width,), "(D,)")
    b = torch.zeros(width, dtype=torch.float64) if beta is None else _matrix("beta", beta, (width,), "(D,)")
    _copy(norm.weight, g)
    _copy(norm.bias, b)
    if eps is not None:
        if not eps >= 0:
            raise ValueError(f"eps must be a non-negative number, got {eps!r}")
        norm.eps = float(eps)
    return norm


def load_embedding(embedding: TokenEmbedding | nn.Embedding, table: Any) -> None:
    """Set the (V, D) embedding table; row i is the vector of token id i (no transpose)."""
    if isinstance(embedding, TokenEmbedding):
        embedding = embedding.embedding
    if not isinstance(embedding, nn.Embedding):
        raise TypeError(f"embedding must be a TokenEmbedding or nn.Embedding, got {type(embedding).__name__}")
    shape = (embedding.num_embeddings, embedding.embedding_dim)
    _copy(embedding.weight, _matrix("table", table, shape, "(V, D)"))


def load_positions(positional: object, table: Any) -> None:
    """Set the first T rows of a learned position table; row t is added at position t."""
    if not isinstance(positional, LearnedPositionalEncoding):
        raise TypeError(f"positional must be a LearnedPositionalEncoding, got {type(positional).__name__}")
    values = to_float64("table", table)
    if values.dim() != 2 or values.shape[1] != positional.d_model or not 0 < values.shape[0] <= positional.max_len:
        raise ValueError(
            f"table must have shape (T, D) with D = {positional.d_model} and 1 <= T <= max_len = {positional.max_len}, "
            f"got shape {tuple(values.shape)}"
        )
    with torch.no_grad():
        positional.embedding.weight[: values.shape[0]] = values.to(positional.embedding.weight.dtype)


def refresh_sinusoidal_tables(model: nn.Module) -> nn.Module:
    """Recompute every sinusoidal table in ``model``'s own dtype.

    ``model.double()`` casts the float32 table to float64 but keeps its float32
    rounding (about 1e-8); this rebuilds it from the float64 angles so that a
    float64 model is accurate to float64.
    """
    for module in model.modules():
        if isinstance(module, SinusoidalPositionalEncoding):
            table = module.table
            module.table = sinusoidal_table(module.max_len, module.d_model, dtype=table.dtype).to(table.device)
    return model


def minimum_norm_weight(inputs: Any, outputs: Any) -> Tensor:
    """The (in, out) matrix W of least Frobenius norm with ``inputs @ W = outputs`` (when one exists).

    With fewer input rows than columns many matrices fit; the pseudo-inverse
    picks the smallest. Used where a source prints the inputs and outputs of a
    projection but not its weights.
    """
    x = to_float64("inputs", inputs)
    y = to_float64("outputs", outputs)
    if x.dim() != 2 or y.dim() != 2 or x.shape[0] != y.shape[0]:
        raise ValueError(
            f"inputs and outputs must be (N, in) and (N, out) with the same N, got {tuple(x.shape)} and {tuple(y.shape)}"
        )
    return torch.linalg.pinv(x) @ y


# --- recording intermediates -----------------------------------------------------


@dataclass
class Call:
    """One call of a module: its positional inputs and its output (detached copies)."""

    inputs: tuple[Any, ...]
    output: Any


def _detach(value: Any) -> Any:
    if isinstance(value, Tensor):
        return value.detach().clone()
    if isinstance(value, tuple):
        return tuple(_detach(v) for v in value)
    return value


@contextmanager
def record_activations(model: nn.Module, names: Sequence[str] | None = None) -> Iterator[dict[str, list[Call]]]:
    """Record the inputs and output of every call of the named sub-modules.

    Inside the ``with`` block each recorded module appends a :class:`Call` to
    ``records[name]`` each time it runs (a module used twice, such as a shared
    positional encoding, has two calls). The residual sum ``x + Sublayer(x)`` of
    a Post-LN layer is the input of its LayerNorm, so ``records["...norm1"][0].inputs[0]``.

    Args:
        model: any module. names: sub-module names as in ``model.named_modules()``;
            None records every sub-module.

    Example::

        with record_activations(model, ["encoder.layers.0.norm1"]) as records:
            model(src, tgt)
        residual_sum = records["encoder.layers.0.norm1"][0].inputs[0]
    """
    modules = dict(model.named_modules())
    if names is None:
        names = [name for name in modules if name]
    missing = [name for name in names if name not in modules]
    if missing:
        raise ValueError(f"model has no sub-modules named {missing}; available: {sorted(n for n in modules if n)}")
    records: dict[str, list[Call]] = {name: [] for name in names}
    handles = []
    for name in names:

        def hook(module, args, output, name=name):
            records[name].append(Call(_detach(args), _detach(output)))

        handles.append(modules[name].register_forward_hook(hook))
    try:
        yield records
    finally:
        for handle in handles:
            handle.remove()
