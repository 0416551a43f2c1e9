"""bk.stats: repeated runs over seeds, t-intervals, paired differences."""

import math

import pytest

import book_support as bk
from book_support import stats


@pytest.mark.parametrize(
    ("p", "df", "table"),
    [(0.975, 1, 12.7062), (0.975, 2, 4.3027), (0.975, 4, 2.7764), (0.975, 9, 2.2622), (0.95, 4, 2.1318), (0.995, 10, 3.1693)],
)
def test_t_quantile_matches_published_tables(p, df, table):
    assert stats.t_quantile(p, df) == pytest.approx(table, abs=1e-4)
    assert stats.t_quantile(1 - p, df) == pytest.approx(-table, abs=1e-4)


def test_t_quantile_tends_to_the_normal_quantile():
    assert stats.t_quantile(0.975, 100000) == pytest.approx(1.95996, abs=1e-4)


@pytest.mark.parametrize("p", [0.5 + 2**-52, 0.5 + 1e-9, 0.6, 0.9, 0.975, 0.9995, 1 - 1e-9, 1 - 2**-53])
def test_t_quantile_is_the_closed_form_correctly_rounded(p):
    """df = 1 (Cauchy): t = tan(pi (p - 1/2)); df = 2: t = (2p - 1) / sqrt(2 p (1 - p)), at 60 digits."""
    import mpmath

    with mpmath.workdps(60):
        q = mpmath.mpf(p)
        cauchy, two = float(mpmath.tan(mpmath.pi * (q - 0.5))), float((2 * q - 1) / mpmath.sqrt(2 * q * (1 - q)))
    assert stats.t_quantile(p, 1) == cauchy and stats.t_quantile(1 - p, 1) == -cauchy
    assert stats.t_quantile(p, 2) == two
    assert stats.t_quantile(0.5, 7) == 0.0


def test_t_quantile_names_bad_input():
    for p in (0.0, 1.0, 1.5):
        with pytest.raises(ValueError, match="p must be"):
            stats.t_quantile(p, 4)
    with pytest.raises(ValueError, match="df must be"):
        stats.t_quantile(0.975, 0)
    with pytest.raises(TypeError, match="df must be"):
        stats.t_quantile(0.975, 4.0)


def test_summary_of_known_values():
    s = stats.summarize([1.0, 2.0, 3.0, 4.0, 5.0])
    assert s.mean == 3.0
    assert s.std == pytest.approx(math.sqrt(2.5))
    half = 2.776445 * math.sqrt(2.5) / math.sqrt(5)
    assert (s.low, s.high) == pytest.approx((3 - half, 3 + half), abs=1e-5)
    assert s.format(2) == "3.00 ± 1.97 (95 % CI [1.03, 4.97], n = 5)"  # half-width 1.963: ends round outward
    assert s.excludes(0.0) and not s.excludes(3.5)


def test_over_seeds_calls_the_run_once_per_seed():
    calls = []
    s = bk.stats.over_seeds(lambda seed: calls.append(seed) or float(seed), seeds=[3, 5, 7])
    assert calls == [3, 5, 7] and s.seeds == (3, 5, 7) and s.values == (3.0, 5.0, 7.0)
    assert bk.stats.over_seeds(float, seeds=4).seeds == (0, 1, 2, 3)


def test_pairing_removes_the_shared_seed_effect():
    seed_effect = [0.0, 1.0, -1.0, 2.0, -2.0]
    a = [0.5 + e for e in seed_effect]
    b = [0.4 + e + d for e, d in zip(seed_effect, [0.01, -0.01, 0.0, 0.01, -0.01], strict=True)]
    paired = stats.paired_difference(a, b)
    unpaired_half = stats.summarize(a).half_width + stats.summarize(b).half_width
    assert paired.excludes(0.0)
    assert paired.half_width < unpaired_half / 50


def test_bad_input_is_named():
    with pytest.raises(ValueError, match="at least 2 runs"):
        stats.summarize([1.0])
    with pytest.raises(ValueError, match="must be finite"):
        stats.summarize([1.0, float("nan")])
    with pytest.raises(TypeError, match=r"values\[1\] must be a real number"):
        stats.summarize([1.0, "2"])
    with pytest.raises(ValueError, match="same seeds"):
        stats.paired_difference(stats.summarize([1, 2], seeds=[0, 1]), stats.summarize([1, 2], seeds=[1, 2]))
    with pytest.raises(ValueError, match="one value per seed"):
        stats.paired_difference([1, 2, 3], [1, 2])
    with pytest.raises(TypeError, match="run must be callable"):
        stats.over_seeds(3.0)
    with pytest.raises(ValueError, match="level must be"):
        stats.summarize([1, 2], level=1.0)


def test_an_interval_with_bounds_stays_in_the_range():
    """Chapter 10's exact match over 3 seeds: the t-interval reaches 1.028, above any exact match."""
    em = [0.975, 0.9235, 0.8995]
    free = stats.summarize(em)
    assert free.high > 1.0 and free.cut == ""
    cut = stats.summarize(em, bounds=(0.0, 1.0))
    assert (cut.low, cut.high, cut.cut) == (free.low, 1.0, "high")
    assert cut.format() == "0.933 (95 % CI [0.836, 1.000], n = 3, cut at 1)"
    assert cut.short() == "0.933 [0.836, 1.000]"
    kl = stats.summarize([0.0308, 0.0176, 0.0586], bounds=(0.0, math.inf))
    assert kl.low == 0.0 and kl.cut == "low" and "cut at 0" in kl.format(4)
    inside = stats.summarize([0.5, 0.6, 0.55], bounds=(0.0, 1.0))
    assert inside.cut == "" and (inside.low, inside.high) == (
        stats.summarize([0.5, 0.6, 0.55]).low,
        stats.summarize([0.5, 0.6, 0.55]).high,
    )
    assert stats.paired_difference([0.9, 1.0, 0.95], [0.0, 0.02, 0.5], bounds=(-1.0, 1.0)).high == 1.0
    assert stats.over_seeds(lambda s: 0.99 + 0.005 * s, seeds=3, bounds=(0.0, 1.0)).high == 1.0


def test_printed_interval_ends_round_outward():
    """The printed interval contains the computed one: 0.8995 prints as a lower end of 0.899, not 0.900."""
    s = stats.summarize([0.1, 0.2, 0.35])
    assert (s.low, s.high) == pytest.approx((-0.0959, 0.5292), abs=1e-4)
    assert s.interval(3) == "[-0.096, 0.530]" and s.interval(2) == "[-0.10, 0.53]"
    assert s.short(2) == "0.22 ± 0.32"  # half-width 0.3127 rounded up


def test_bounds_are_checked():
    with pytest.raises(ValueError, match=r"values\[1\] must lie in bounds"):
        stats.summarize([0.5, 1.2], bounds=(0.0, 1.0))
    with pytest.raises(ValueError, match="lo < hi"):
        stats.summarize([0.5, 0.6], bounds=(1.0, 0.0))
    with pytest.raises(TypeError, match="bounds must be a pair"):
        stats.summarize([0.5, 0.6], bounds=[0.0, 1.0])


def test_runs_of_train_seeds_are_summarised_and_paired_by_seed():
    from types import SimpleNamespace

    a = {3: SimpleNamespace(score=0.9), 1: SimpleNamespace(score=0.7), 2: SimpleNamespace(score=0.8)}
    b = {1: SimpleNamespace(score=0.6), 2: SimpleNamespace(score=0.75), 3: SimpleNamespace(score=0.5)}
    s = stats.over_runs(a, lambda run: run.score, bounds=(0.0, 1.0))
    assert s.seeds == (3, 1, 2) and s.values == (0.9, 0.7, 0.8)
    d = stats.paired_runs(a, b, lambda run: run.score)
    assert d.seeds == (3, 1, 2) and d.values == pytest.approx((0.4, 0.1, 0.05))  # seed by seed, not position
    with pytest.raises(ValueError, match="same seeds"):
        stats.paired_runs(a, {1: b[1]}, lambda run: run.score)
    with pytest.raises(TypeError, match=r"tl\.train_seeds returns"):
        stats.over_runs([0.9], lambda run: run)
