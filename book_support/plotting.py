"""Figures used across the book. Each function draws on an Axes and returns it.

matplotlib is imported here; ``import transformer_lib`` never loads it.
A chapter that plots also prints the numbers it plots (nbval does not compare
images), so these functions take plain tensors/arrays and do no computing of
their own beyond what is drawn.

Importing this module applies :data:`BOOK_STYLE` (:func:`use_book_style`):
figures are rendered at 150 dpi, and a figure of the default width (8 in) keeps
its text at 10 px or more when the page shrinks it to the 780 px column.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import matplotlib.pyplot as plt
import numpy as np
import torch
from matplotlib.axes import Axes

#: matplotlib settings of the book's figures. 8 in at 150 dpi is 1200 px; fitted to the 780 px page
#: column that is a factor 0.65, so 11 pt text (23 px at 150 dpi) is still about 15 px, ticks about 13 px.
BOOK_STYLE: dict[str, Any] = {
    "figure.dpi": 150,
    "savefig.dpi": 150,
    "figure.figsize": (8.0, 3.5),
    "font.size": 11,
    "axes.titlesize": 12,
    "axes.labelsize": 11,
    "xtick.labelsize": 10,
    "ytick.labelsize": 10,
    "legend.fontsize": 10,
}


def use_book_style() -> None:
    """Apply :data:`BOOK_STYLE` to matplotlib's defaults (done once when this module is imported)."""
    plt.style.use(BOOK_STYLE)


use_book_style()


def _array(x) -> np.ndarray:
    if isinstance(x, torch.Tensor):
        return x.detach().cpu().double().numpy()
    return np.asarray(x, dtype=float)


def _axes(ax: Axes | None, figsize: tuple[float, float] = (5.0, 4.0)) -> Axes:
    if ax is None:
        _, ax = plt.subplots(figsize=figsize)
    return ax


def attention_heatmap(
    weights,
    x_labels: Sequence[str] | None = None,
    y_labels: Sequence[str] | None = None,
    ax: Axes | None = None,
    title: str | None = None,
    annotate: bool = False,
    colorbar: bool = True,
) -> Axes:
    """Heatmap of a (Tq, Tk) attention matrix: rows are queries, columns keys."""
    w = _array(weights)
    if w.ndim != 2:
        raise ValueError(f"weights must have shape (Tq, Tk), got shape {w.shape}")
    ax = _axes(ax)
    image = ax.imshow(w, cmap="viridis", vmin=0.0, vmax=max(1e-12, float(w.max())), aspect="auto")
    ax.set_xlabel("key position")
    ax.set_ylabel("query position")
    if x_labels is not None:
        ax.set_xticks(range(len(x_labels)), labels=list(x_labels), rotation=90)
    if y_labels is not None:
        ax.set_yticks(range(len(y_labels)), labels=list(y_labels))
    if annotate:
        for i in range(w.shape[0]):
            for j in range(w.shape[1]):
                colour = "w" if w[i, j] < 0.5 * w.max() else "k"
                ax.text(j, i, f"{w[i, j]:.2f}", ha="center", va="center", color=colour, fontsize=8)
    if colorbar:
        ax.figure.colorbar(image, ax=ax)
    if title:
        ax.set_title(title)
    return ax


def positional_heatmap(table, ax: Axes | None = None, title: str | None = "Sinusoidal positional encoding") -> Axes:
    """Heatmap of a (max_len, D) positional table: rows are positions, columns dimensions."""
    t = _array(table)
    ax = _axes(ax, (7.0, 4.0))
    image = ax.imshow(t, cmap="RdBu", vmin=-1.0, vmax=1.0, aspect="auto")
    ax.set_xlabel("dimension")
    ax.set_ylabel("position")
    ax.figure.colorbar(image, ax=ax)
    if title:
        ax.set_title(title)
    return ax


def lr_curve(steps, rates: Mapping[str, Sequence[float]] | Sequence[float], ax: Axes | None = None) -> Axes:
    """Learning rate against step; ``rates`` is one curve or a mapping name -> curve."""
    ax = _axes(ax, (6.0, 3.5))
    curves = rates if isinstance(rates, Mapping) else {"learning rate": rates}
    for name, curve in curves.items():
        ax.plot(_array(steps), _array(curve), label=name)
    ax.set_xlabel("step")
    ax.set_ylabel("learning rate")
    if len(curves) > 1:
        ax.legend()
    return ax


def loss_curves(curves: Mapping[str, Sequence[float]], ax: Axes | None = None, logy: bool = False) -> Axes:
    """Training curves (loss per step) by name."""
    ax = _axes(ax, (6.0, 3.8))
    for name, curve in curves.items():
        y = _array(curve)
        ax.plot(np.arange(1, len(y) + 1), y, label=name)
    ax.set_xlabel("step")
    ax.set_ylabel("loss")
    if logy:
        ax.set_yscale("log")
    if len(curves) > 1:
        ax.legend()
    ax.grid(alpha=0.3)
    return ax
