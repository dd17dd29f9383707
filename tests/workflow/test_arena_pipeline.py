"""The arena section end to end on a tiny simulated arena (a config of that section alone): its tables are
the library's on the processed verdicts (Leaderboard fitted alone with the job's bootstrap seed,
judge_measures), with and without a reference; its figures and its report section; and its config mistakes,
named by the checks the pipeline runs before any job (two of them through snakemake: nothing is run)."""
from __future__ import annotations

import copy
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pandas as pd
import pytest

from manyjudges.arena import Leaderboard, bootstrap_seed, judge_measures
from manyjudges.io.tables.verdicts import read_verdicts

from .runner import make_workdir, run

pytestmark = pytest.mark.integration

SEED = 5
ARENA = {
    "datasets": {
        "tiny_arena": {
            "source": "simulate", "n_models": 5, "n_prompts": 8, "pairs_per_prompt": 4,
            "panel": {"fair": {"skill": 0.9}, "biased": {"position_bias": 1.0}, "human": None},
            "reference": "human",
        },
        "tiny_noref": {  # one order per verdict, two judges picked by a list, no reference
            "source": "simulate", "n_models": 4, "n_prompts": 6, "both_orders": False, "nu": 0.0,
            "panel": {"j1": {}, "j2": {"position_bias": -0.5}, "j3": {}}, "judges": ["j1", "j2"],
        },
        "own_verdicts": {"source": "verdicts_table", "path": "own.tsv", "reference": "gold"},
    },
    "methods": {"bradley_terry": {}, "dav": {"method": "davidson", "params": {"reg": 0.05}}},
    "bootstrap": 25,
    "resample": "prompts",
    "ci": 0.9,
}


#: a user's own verdicts: two judges and a gold judge on three models, each pair in both orders
OWN = "prompt\tjudge\tmodel_a\tmodel_b\twinner\n" + "".join(
    f"q{q}\t{judge}\t{a}\t{b}\t{winner}\n"
    for q in range(1, 5) for a, b in (("x", "y"), ("y", "x"), ("x", "z"), ("z", "x"), ("y", "z"), ("z", "y"))
    for judge, winner in (("first", "model_a"), ("fair", "model_a" if a < b else "model_b"),
                          ("gold", "model_a" if a < b else "model_b")))


@pytest.fixture(scope="module")
def arena_run(tmp_path_factory) -> Path:
    work = make_workdir(tmp_path_factory.mktemp("arena"), {"seed": SEED, "arena": ARENA})
    (work / "own.tsv").write_text(OWN)
    run(work, "-q")
    return work


def test_the_leaderboard_is_leaderboard_fit_on_the_processed_verdicts(arena_run):
    for dataset in ARENA["datasets"]:
        verdicts = read_verdicts(arena_run / f"data/processed/arena/{dataset}/verdicts.tsv")
        table = pd.read_csv(arena_run / f"results/arena/{dataset}/leaderboard.tsv", sep="\t")
        assert list(table.columns) == ["method", "model", "rank", "score", "ci_low", "ci_high", "rank_low",
                                       "rank_high"]
        assert list(pd.unique(table["method"])) == list(ARENA["methods"])
        for name, entry in ARENA["methods"].items():
            board = Leaderboard(entry.get("method", name), entry.get("params"), n_bootstrap=25, resample="prompts",
                                ci=0.9, seed=bootstrap_seed(SEED, dataset, name)).fit(verdicts).table_
            ours = table[table["method"] == name].reset_index(drop=True)
            assert list(ours["model"]) == list(board["model"]) and list(ours["rank"]) == list(board["rank"])
            for column in ("score", "ci_low", "ci_high"):
                pd.testing.assert_series_equal(ours[column], board[column], rtol=0, atol=1e-9)
            assert list(ours["rank_low"].fillna(0)) == list(board["rank_low"].astype("Float64").fillna(0))
            # own.tsv's four prompts are alike: every replicate the same, so no interval (Leaderboard.fit)
            assert board["ci_low"].isna().all() == (dataset == "own_verdicts")


def test_the_judge_tables_are_judge_measures_with_the_reference_when_there_is_one(arena_run):
    processed = arena_run / "data/processed/arena"
    results = arena_run / "results/arena"
    panel = read_verdicts(processed / "tiny_arena/verdicts.tsv")
    reference = read_verdicts(processed / "tiny_arena/reference.tsv")
    assert set(panel["judge"]) == {"fair", "biased"} and set(reference["judge"]) == {"human"}
    expected = judge_measures(panel, reference, level=0.9)
    for table, frame in (("judges", expected.judges), ("judge_pairs", expected.pairs),
                         ("judge_summary", expected.summary)):
        pd.testing.assert_frame_equal(pd.read_csv(results / f"tiny_arena/{table}.tsv", sep="\t"), frame,
                                      check_dtype=False, atol=1e-9)
    noref = read_verdicts(processed / "tiny_noref/verdicts.tsv")
    assert set(noref["judge"]) == {"j1", "j2"}
    assert (processed / "tiny_noref/reference.tsv").read_text().strip() == "prompt\tjudge\tmodel_a\tmodel_b\twinner"
    judges = pd.read_csv(results / "tiny_noref/judges.tsv", sep="\t")
    pd.testing.assert_frame_equal(judges, judge_measures(noref, level=0.9).judges, check_dtype=False, atol=1e-9)
    summary = pd.read_csv(results / "tiny_noref/judge_summary.tsv", sep="\t")
    assert summary["error_reference"].iloc[0] == "majority of the other judges"
    # the user's own table: "first" always picks the answer shown first, "fair" always the gold answer
    own = pd.read_csv(results / "own_verdicts/judges.tsv", sep="\t").set_index("judge")
    assert own.loc["first", "first_win_rate"] == 1.0 and own.loc["fair", "first_win_rate"] == 0.5
    assert own.loc["fair", "accuracy"] == 1.0 and own.loc["first", "accuracy"] == 0.5


def test_the_figures_and_the_report_section(arena_run):
    for dataset in ARENA["datasets"]:
        for figure in ("leaderboard", "position_bias", "judge_agreement"):
            for ext in ("png", "pdf"):
                assert (arena_run / f"results/figures/arena/{dataset}/{figure}.{ext}").stat().st_size > 1000
    report = (arena_run / "results/REPRODUCTION.md").read_text()
    assert "## Arena leaderboards and LLM judges" in report
    assert "### Dataset `tiny_arena` (**simulated**)" in report and "### Dataset `tiny_noref`" in report
    assert "### Dataset `own_verdicts` (your own data)" in report
    assert "90% percentile intervals of 25 bootstrap replicates resampling prompts" in report


def _arena_with(edit):
    arena = copy.deepcopy(ARENA)
    edit(arena)
    return {"seed": SEED, "arena": arena}


MISTAKES = [
    (lambda a: a["methods"].update(bradley_terri={}),
     ["arena.methods.bradley_terri", "did you mean 'bradley_terry'"]),
    (lambda a: a.update(resample="questions"),
     ["config.arena.resample: 'questions' is not one of verdicts, prompts, judges"]),
    (lambda a: a["datasets"].update(chatbot_arena={"source": "chatbot_arena"}),
     ["config.arena.datasets.chatbot_arena.source: 'chatbot_arena' is not one of simulate, llmfao, prd, pandalm, "
      "verdicts_table"]),
    (lambda a: a["datasets"].update(mine={"source": "verdicts_table"}),
     ["config.arena.datasets.mine: required key 'path' is missing"]),
    (lambda a: a["datasets"]["tiny_arena"].update(reference="humans*"),
     ["config: arena.datasets.tiny_arena.reference: patterns ['humans*'] match no judge"]),
    (lambda a: a["datasets"]["tiny_arena"].update(pairs_per_prompt=11),
     ["config: arena.datasets.tiny_arena: pairs_per_prompt must be in 1..10"]),
    (lambda a: a["methods"].update(elo={"params": {"k": 16}}), ["arena.methods.elo", "'k'"]),
    (lambda a: a["datasets"]["tiny_arena"].update(judges="*"),
     ["config: arena.datasets.tiny_arena: judges ['human'] are both in judges and in reference"]),
    (lambda a: a["datasets"]["tiny_arena"]["panel"].update(human={"skill": 2}),
     ["config.arena.datasets.tiny_arena.panel.human.skill: 2 is greater than the maximum of 1"]),
]


def _checked(config):
    """The checks the pipeline runs before any job (common.smk), in the same order."""
    from manyjudges.pipeline.config_checks import check_config_methods, check_config_references
    from manyjudges.pipeline.workflow_support import check_config_schema

    from .runner import REPO

    check_config_schema(config, REPO / "workflow/schemas/config.schema.yaml")
    check_config_references(config)
    check_config_methods(config)


@pytest.mark.parametrize("index", range(len(MISTAKES)))
def test_an_arena_config_mistake_is_named(index):
    edit, fragments = MISTAKES[index]
    with pytest.raises(ValueError) as err:
        _checked(_arena_with(edit))
    for fragment in fragments:
        assert fragment in str(err.value)


def test_the_shipped_arena_passes_the_checks():
    _checked({"seed": SEED, "arena": copy.deepcopy(ARENA)})


def test_a_dataset_named_like_another_sections_must_read_the_same_files():
    truth = {"datasets": {"prd": {"source": "prd"}}, "methods": {"majority_vote": {}}}
    _checked({"seed": SEED, "truth": truth, "arena": {"datasets": {"prd": {"source": "prd"}},
                                                       "methods": {"bradley_terry": {}}}})
    with pytest.raises(ValueError, match="arena.datasets.prd: a dataset under truth has this name and other files"):
        _checked({"seed": SEED, "truth": truth,
                  "arena": {"datasets": {"prd": {"source": "prd", "files": ["x.jsonl"]}},
                            "methods": {"bradley_terry": {}}}})


@pytest.fixture(scope="module")
def mistaken_runs(tmp_path_factory):
    """``snakemake`` (a real run, not ``-n``) on two of the mistakes: one of the schema, one of the config check."""
    works = {i: make_workdir(tmp_path_factory.mktemp(f"arena_mistake{i}"), _arena_with(MISTAKES[i][0])) for i in (1, 4)}
    with ThreadPoolExecutor(max_workers=2) as pool:
        return dict(zip(works, pool.map(lambda work: (work, run(work, check=False)), works.values())))


@pytest.mark.parametrize("index", [1, 4])
def test_an_arena_config_mistake_stops_the_run_before_any_job(mistaken_runs, index):
    work, proc = mistaken_runs[index]
    out = proc.stdout + proc.stderr
    assert proc.returncode != 0
    for fragment in MISTAKES[index][1]:
        assert fragment in out, out[-2000:]
    assert len(out.splitlines()) < 15
    assert not any((work / d).exists() for d in ("results", "logs", "data/processed"))
