"""The judge figures: each writes a non-empty PNG, and draws what its table holds."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from manyjudges.arena import judge_measures
from manyjudges.arena.judge_plots import plot_judge_heatmap, plot_position_bias

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


def panel() -> pd.DataFrame:
    rng = np.random.default_rng(2)
    rows = [(f"p{p}", judge, x, y, rng.choice(["model_a", "model_b", "tie"], p=[share, 0.9 - share, 0.1]))
            for judge, share in (("j1", 0.45), ("j2", 0.6), ("j3", 0.8))
            for p in range(30) for x, y in (("m1", "m2"), ("m2", "m1"), ("m1", "m3"))]
    return pd.DataFrame(rows, columns=["prompt", "judge", "model_a", "model_b", "winner"])


def test_position_bias_figure_writes_a_png_with_a_dot_and_whiskers_per_judge(tmp_path):
    judges = judge_measures(panel()).judges
    path = tmp_path / "bias.png"
    fig = plot_position_bias(judges, path)
    assert path.read_bytes().startswith(PNG_MAGIC) and path.stat().st_size > 1000
    ax = fig.axes[0]
    dots = ax.lines[0]
    assert sorted(dots.get_xdata()) == pytest.approx(sorted(judges["first_win_rate"]))
    assert [t.get_text() for t in ax.get_yticklabels()] == list(
        judges.sort_values("first_win_rate")["judge"])
    assert any(list(line.get_xdata()) == [0.5, 0.5] for line in ax.lines)  # the no-bias line


@pytest.mark.parametrize("value", ["agreement", "error_correlation"])
def test_heatmap_writes_a_png_of_the_mirrored_pairs(tmp_path, value):
    pairs = judge_measures(panel()).pairs
    path = tmp_path / f"{value}.png"
    fig = plot_judge_heatmap(pairs, [path, tmp_path / f"{value}.pdf"], value=value)
    assert path.read_bytes().startswith(PNG_MAGIC) and (tmp_path / f"{value}.pdf").stat().st_size > 0
    matrix = fig.axes[0].images[0].get_array()
    row = pairs.iloc[0]
    names = sorted(set(pairs["judge_a"]) | set(pairs["judge_b"]))
    a, b = names.index(row["judge_a"]), names.index(row["judge_b"])
    assert matrix[a, b] == matrix[b, a] == pytest.approx(row[value])
    assert np.isnan(np.diag(np.ma.filled(matrix, np.nan))).all()
    with pytest.raises(ValueError, match="value must be"):
        plot_judge_heatmap(pairs, value="kappa")
