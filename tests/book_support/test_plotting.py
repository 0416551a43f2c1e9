"""Plotting helpers draw what they are given and return the Axes."""

import matplotlib

matplotlib.use("Agg")

import numpy as np
import pytest
import torch
from matplotlib.axes import Axes

import book_support as bk
import transformer_lib as tl


def test_attention_heatmap_draws_the_matrix():
    w = torch.tensor([[0.25, 0.75], [1.0, 0.0]])
    ax = bk.plotting.attention_heatmap(w, x_labels=["a", "b"], y_labels=["c", "d"], annotate=True)
    assert isinstance(ax, Axes)
    np.testing.assert_allclose(ax.images[0].get_array(), w.numpy())
    assert [t.get_text() for t in ax.get_xticklabels()] == ["a", "b"]
    with pytest.raises(ValueError, match=r"\(Tq, Tk\)"):
        bk.plotting.attention_heatmap(torch.zeros(2, 2, 2))


def test_loss_and_lr_plots():
    ax = bk.plotting.loss_curves({"train": [3.0, 2.0, 1.0]})
    np.testing.assert_allclose(ax.lines[0].get_ydata(), [3.0, 2.0, 1.0])
    ax = bk.plotting.lr_curve([1, 2], [0.1, 0.2])
    np.testing.assert_allclose(ax.lines[0].get_ydata(), [0.1, 0.2])
    ax = bk.plotting.positional_heatmap(tl.sinusoidal_table(10, 4))
    assert ax.images[0].get_array().shape == (10, 4)


def test_book_style_is_applied_and_keeps_text_legible_in_the_column():
    import matplotlib.pyplot as plt

    plt.rcParams.update({"figure.dpi": 72, "font.size": 6})
    bk.plotting.use_book_style()
    assert plt.rcParams["figure.dpi"] == 150 and plt.rcParams["savefig.dpi"] == 150
    width_in = plt.rcParams["figure.figsize"][0]
    shrink = 780 / (width_in * plt.rcParams["figure.dpi"])  # the page fits the figure to the column
    for key in ("font.size", "xtick.labelsize", "ytick.labelsize", "legend.fontsize"):
        points = plt.rcParams[key]
        assert points / 72 * plt.rcParams["figure.dpi"] * shrink >= 10, key
    fig, _ = plt.subplots()
    assert fig.dpi == 150
    plt.close(fig)
