"""What the arena verbs show: a rounded table on a terminal (full precision elsewhere), the line saying what was
read, --plot (PNG, SVG) and --html (one self-contained page)."""
import base64
import io
import sys
import xml.etree.ElementTree as ET
from html.parser import HTMLParser

import numpy as np
import pandas as pd
import pytest

from manyjudges.arena import bootstrap
from manyjudges.arena.leaderboard.estimator import _LEADERBOARD_COLUMNS
from manyjudges.cli.terminal import _terminal_table, _write_output
from manyjudges.io.engine.table_text import write_tsv_to
from tests.command import run_command

pytestmark = pytest.mark.filterwarnings("ignore:.*absent from some bootstrap replicates")

ROWS = [(p, j, a, b, w) for p, j in (("p1", "j1"), ("p2", "j2"), ("p3", "j1"), ("p4", "j2"))
        for a, b, w in (("x", "y", "model_a"), ("y", "z", "model_a"), ("z", "x", "model_b"), ("y", "x", "tie"),
                        ("w", "z", "model_b"), ("x", "w", "model_a"))]
ROWS[3] = ("p1", "j1", "y", "x", "model_a")
ROWS[9] = ("p2", "j2", "x", "y", "model_b")


def write(path, rows=ROWS):
    path.write_text("prompt\tjudge\tmodel_a\tmodel_b\twinner\n" + "".join("\t".join(r) + "\n" for r in rows))
    return path


class Cells(HTMLParser):
    """The text of a page's table cells, its images' sources and every address it links to."""

    def __init__(self):
        super().__init__()
        self.cells, self.images, self.links, self.in_cell = [], [], [], False

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        self.in_cell = tag == "td"
        if tag == "td":
            self.cells.append("")
        if tag == "img":
            self.images.append(attrs["src"])
        self.links += [v for k, v in attrs.items() if k in ("href", "src") and not v.startswith("data:")]

    def handle_endtag(self, tag):
        self.in_cell = False if tag == "td" else self.in_cell

    def handle_data(self, data):
        if self.in_cell:
            self.cells[-1] += data


def test_a_value_and_its_interval_round_to_the_widths_leading_digit_plus_one():
    table = pd.DataFrame({"model": ["a", "b", "c", "d"], "rank": np.array([1, 2, 3, 4], dtype=np.int64),
                          "score": [1.23456, 138.97, -0.00031, 0.5], "ci_low": [1.0, 56.3, -0.2, np.nan],
                          "ci_high": [1.234, 192.6, 0.1, np.nan], "verdicts": np.array([8931, 12, 0, 7]),
                          "other": [0.5234, 0.1, 0.2, 0.3]})
    lines = _terminal_table(table).splitlines()
    assert lines[0].split() == list(table.columns)
    assert lines[1].split() == ["a", "1", "1.23", "1.00", "1.23", "8,931", "0.523"]  # width 0.234: 2 decimals
    assert lines[2].split() == ["b", "2", "139", "56", "193", "12", "0.100"]  # width 136: 0 decimals
    assert lines[3].split() == ["c", "3", "0.00", "-0.20", "0.10", "0", "0.200"]  # width 0.3; no "-0.00"
    # no interval: 3 significant digits of the column's largest |value| (138.97 -> 0 decimals)
    assert lines[4].split() == ["d", "4", "0", "7", "0.300"]
    assert len({line.index("rank") + 4 for line in lines[:1]} | {len(line[:lines[0].index("rank") + 4].rstrip())
                                                                   for line in lines[1:]}) == 1  # right-aligned


def test_a_terminal_gets_the_rounded_table_a_pipe_the_full_precision(capsys):
    table = bootstrap(pd.DataFrame(ROWS, columns=["prompt", "judge", "model_a", "model_b", "winner"]), n=20)
    _write_output(table, None, tty=True)
    assert capsys.readouterr().out == _terminal_table(table)
    _write_output(table, None, tty=False)
    text = io.StringIO()
    write_tsv_to(table, text)
    assert capsys.readouterr().out == text.getvalue()


def test_the_file_keeps_the_existing_columns_byte_for_byte(capsys, tmp_path):
    path = write(tmp_path / "v.tsv")
    out = tmp_path / "board.tsv"
    status, stdout, err = run_command(capsys, "arena", "leaderboard", path, "--bootstrap", "30", "--seed", "2",
                                      "-o", out)
    assert status == 0 and stdout == ""
    ties = sum(r[4] == "tie" for r in ROWS)
    assert err.splitlines()[0] == (f"manyjudges: read {len(ROWS)} verdicts from {path}: 4 models, 2 judges, 4 prompts, "
                                   f"{ties} ties ({ties / len(ROWS):.0%}); comparison graph connected")
    # the only other line: w lost every verdict it was in
    assert [line.split(":")[2] for line in err.splitlines()[1:]] == [" models that lost every verdict they were in"]
    table = bootstrap(pd.read_csv(path, sep="\t"), n=30, seed=2)
    old = io.StringIO()
    write_tsv_to(table[_LEADERBOARD_COLUMNS], old)
    written = out.read_text().splitlines()
    assert ["\t".join(line.split("\t")[:7]) for line in written] == old.getvalue().splitlines()
    assert "e-" in out.read_text() or len(written[1].split("\t")[2]) > 10  # full precision, not rounded
    status, _, err = run_command(capsys, "arena", "leaderboard", path, "--bootstrap", "0", "--quiet")
    assert status == 0 and "read" not in err and err.count("\n") == 1  # --quiet: the warning only


def test_html_names_every_model_and_links_nothing(capsys, tmp_path):
    path = write(tmp_path / "v.tsv")
    page = tmp_path / "board.html"
    status, _, err = run_command(capsys, "arena", "leaderboard", path, "--bootstrap", "20", "--html", page,
                                 "--quiet", "-o", tmp_path / "board.tsv")
    assert status == 0, err
    parser = Cells()
    parser.feed(page.read_text())
    assert {"w", "x", "y", "z"} <= set(parser.cells) and parser.links == []
    assert len(parser.images) == 3  # the scores, the judges' position bias, their agreement
    for src in parser.images:
        assert src.startswith("data:image/png;base64,")
        assert base64.b64decode(src.split(",", 1)[1])[:8] == b"\x89PNG\r\n\x1a\n"
    assert "read 24 verdicts" in page.read_text()


def test_png_opens_and_svg_parses(capsys, tmp_path):
    image = pytest.importorskip("matplotlib.image")
    path = write(tmp_path / "v.tsv")
    for name in ("board.png", "board.svg"):
        status, _, err = run_command(capsys, "arena", "leaderboard", path, "--bootstrap", "20", "--plot",
                                     tmp_path / name, "-o", tmp_path / "board.tsv")
        assert status == 0, err
    pixels = image.imread(tmp_path / "board.png")
    assert pixels.ndim == 3 and pixels.shape[0] > 100
    root = ET.parse(tmp_path / "board.svg").getroot()
    texts = "".join(root.itertext())
    assert root.tag.endswith("svg") and "Leaderboard (bradley_terry)" in texts
    status, _, _ = run_command(capsys, "arena", "leaderboard", path, "--plot", tmp_path / "board.pdf")
    assert status == 2 and not (tmp_path / "board.pdf").exists()


def test_the_judges_verb_draws_and_writes_its_page(capsys, tmp_path):
    path = write(tmp_path / "v.tsv")
    status, _, err = run_command(capsys, "arena", "judges", path, "--plot", tmp_path / "bias.png", "--html",
                                 tmp_path / "judges.html", "-o", tmp_path / "judges.tsv")
    assert status == 0, err
    assert err.startswith("manyjudges: read 24 verdicts")
    parser = Cells()
    parser.feed((tmp_path / "judges.html").read_text())
    assert {"j1", "j2"} <= set(parser.cells) and len(parser.images) == 2 and parser.links == []
    assert (tmp_path / "bias.png").read_bytes()[:4] == b"\x89PNG"


def test_without_matplotlib_plot_fails_and_the_page_has_no_figure(capsys, tmp_path, monkeypatch):
    import manyjudges.arena.page as page

    monkeypatch.setattr(page, "figures_missing", lambda: "the figures need matplotlib: pip install "
                                                         "'manyjudges[figures]'")
    path = write(tmp_path / "v.tsv")
    status, _, err = run_command(capsys, "arena", "leaderboard", path, "--plot", tmp_path / "b.png",
                                 "-o", tmp_path / "b.tsv")
    assert status == 2 and "pip install 'manyjudges[figures]'" in err
    assert not (tmp_path / "b.png").exists() and not (tmp_path / "b.tsv").exists()
    status, _, err = run_command(capsys, "arena", "leaderboard", path, "--bootstrap", "0", "--html",
                                 tmp_path / "b.html", "-o", tmp_path / "b.tsv")
    assert status == 0 and "has no figures" in err
    parser = Cells()
    parser.feed((tmp_path / "b.html").read_text())
    assert parser.images == [] and {"w", "x", "y", "z"} <= set(parser.cells)


def test_a_baseline_row_is_one_half_and_a_bad_one_writes_nothing(capsys, tmp_path):
    path = write(tmp_path / "v.tsv")
    status, out, _ = run_command(capsys, "arena", "leaderboard", path, "--bootstrap", "0", "--baseline", "y")
    table = pd.read_csv(io.StringIO(out), sep="\t").set_index("model")
    assert status == 0 and table.loc["y", "win_rate"] == 0.5
    assert np.allclose(table["win_rate"], 1 / (1 + np.exp(-(table["score"] - table.loc["y", "score"]))))
    status, _, err = run_command(capsys, "arena", "leaderboard", path, "--baseline", "q", "--html",
                                 tmp_path / "b.html", "-o", tmp_path / "b.tsv")
    assert status == 1 and "v.tsv" in err and "baseline 'q' is not a model" in err
    assert list(tmp_path.iterdir()) == [path]


def test_plot_leaderboard_takes_the_commands_table():
    pytest.importorskip("matplotlib")
    from manyjudges.arena.plots import plot_leaderboard
    from manyjudges.reporting.figures import plt

    table = bootstrap(pd.DataFrame(ROWS, columns=["prompt", "judge", "model_a", "model_b", "winner"]), n=10)
    fig = plot_leaderboard(table, method="elo")
    ax = fig.axes[0]
    at = {t.get_text(): y for t, y in zip(ax.get_yticklabels(), ax.get_yticks())}
    assert sorted(at, key=at.get, reverse=True) == list(table["model"])  # the best at the top
    assert ax.get_xlabel() == "Elo points"
    plt.close(fig)


def test_svg_bytes_are_the_same_on_a_rerun():
    pytest.importorskip("matplotlib")
    from manyjudges.arena.plots import plot_leaderboard
    from manyjudges.reporting.figures import figure_bytes

    table = bootstrap(pd.DataFrame(ROWS, columns=["prompt", "judge", "model_a", "model_b", "winner"]), n=10)
    assert figure_bytes(plot_leaderboard(table), "svg") == figure_bytes(plot_leaderboard(table), "svg")


def test_stdout_on_a_terminal_gets_the_aligned_table(capsys, tmp_path, monkeypatch):
    path = write(tmp_path / "v.tsv")
    monkeypatch.setattr(sys.stdout, "isatty", lambda: True)
    status, out, _ = run_command(capsys, "arena", "leaderboard", path, "--bootstrap", "10", "--quiet")
    assert status == 0 and "\t" not in out and out.split("\n")[0].split() == [*_LEADERBOARD_COLUMNS, "verdicts",
                                                                               "win_rate", "win_low", "win_high"]
