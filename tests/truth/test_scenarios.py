"""The simulated scenarios (manyjudges.truth.scenarios): each generator's statistics on large draws
against the values its parameters imply (computed by hand in each test), seeding, bad options, and the
config keys (schema, checks before any job, truth_tables)."""
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import yaml

from manyjudges.truth.data import truth_tables
from manyjudges.truth.scenarios import (
    _OPTION_KEYS,
    _SCENARIOS,
    _SUITE,
    DEFAULT_SCENARIO,
    adversarial_majority,
    correlated,
    difficulty,
    scenario_options,
    simulated_suite,
    sparse_biased,
)

REPO = Path(__file__).parents[2]
SCHEMA = REPO / "workflow" / "schemas" / "truth.schema.yaml"


def _with_truth(labels: pd.DataFrame, truth: pd.DataFrame) -> pd.DataFrame:
    return labels.assign(y=labels["item"].map(dict(zip(truth["item"], truth["truth"]))))


def _table_shape(labels: pd.DataFrame, truth: pd.DataFrame, n_classes: int) -> None:
    assert list(labels.columns) == ["item", "judge", "label"] and list(truth.columns) == ["item", "truth"]
    assert not labels.duplicated(["item", "judge"]).any()
    assert set(labels["item"]) <= set(truth["item"]) and truth["item"].is_unique
    assert labels["label"].between(0, n_classes - 1).all() and truth["truth"].between(0, n_classes - 1).all()
    assert labels["item"].str.match(r"^i\d{4,}$").all() and labels["judge"].str.match(r"^w\d{3,}$").all()


# --- sparse_biased -------------------------------------------------------------------------------

def test_sparse_workloads_follow_the_truncated_power_law():
    n_items, per_item, top, alpha = 20000, 5, 200, 2.0
    labels, truth = sparse_biased(np.random.default_rng(1), n_items=n_items, labels_per_item=per_item,
                                  max_workload=top, workload_exponent=alpha)
    _table_shape(labels, truth, 2)
    assert labels.groupby("item").size().eq(per_item).all() and len(truth) == n_items
    loads = labels.groupby("judge").size()
    assert loads.max() <= top and loads.sum() == n_items * per_item
    # P(n_w = k) = k^-2 / sum_{j<=200} j^-2, by hand: sum_{j<=200} j^-2 = 1.639946...
    norm = sum(j ** -2.0 for j in range(1, top + 1))
    for k in (1, 2, 3, 4, 5):
        assert abs((loads == k).mean() - k ** -2.0 / norm) < 0.01, k
    heavy = sum(j ** -2.0 for j in range(50, top + 1)) / norm  # 0.0122
    assert abs((loads >= 50).mean() - heavy) < 0.003
    # a generator drawing workloads with exponent 1.5 would give P(1) = 0.40, not 0.61
    assert abs((loads == 1).mean() - 1 / norm) < 0.01 and 1 / norm > 0.6


def test_sparse_judges_bias_and_accuracy_are_the_models():
    lo, hi, beta = 0.3, 0.8, 0.3
    labels, truth = sparse_biased(np.random.default_rng(2), n_items=50000, max_workload=50, n_classes=2,
                                  accuracy=(lo, hi), bias_concentration=beta)
    data = _with_truth(labels, truth)
    # class priors by default proportional to 0.35^k: P(y = 0) = 1 / 1.35
    assert abs((truth["truth"] == 0).mean() - 1 / 1.35) < 0.01
    # pooled accuracy a_bar + (1 - a_bar) / K = 0.55 + 0.45 / 2 = 0.775, on either class
    for y in (0, 1):
        rows = data[data["y"] == y]
        assert abs((rows["label"] == y).mean() - 0.775) < 0.01, y
    # two labels of one judge on class-0 items both say 1: E[(1 - a)^2] E[theta_1^2]
    # = (0.7^3 - 0.2^3) / (3 x 0.5) x (beta + 1) / (K (K beta + 1)) = 0.22333 x 0.40625 = 0.09073
    # (no personal bias, theta = 1/2: 0.22333 x 0.25 = 0.0558)
    counts = data[data["y"] == 0].groupby("judge")["label"].agg(["size", "sum"]).to_numpy(float)
    n, c = counts[:, 0], counts[:, 1]
    pairs = (c * (c - 1)).sum() / (n * (n - 1)).sum()
    assert abs(pairs - 0.22333 * 0.40625) < 0.008


def test_sparse_k_classes_and_given_priors():
    labels, truth = sparse_biased(np.random.default_rng(3), n_items=5000, n_classes=4,
                                  class_priors=[0.1, 0.2, 0.3, 0.4])
    _table_shape(labels, truth, 4)
    shares = truth["truth"].value_counts(normalize=True).sort_index().to_numpy()
    assert np.abs(shares - [0.1, 0.2, 0.3, 0.4]).max() < 0.02


# --- correlated ----------------------------------------------------------------------------------

def _error_matrix(labels: pd.DataFrame, truth: pd.DataFrame) -> np.ndarray:
    data = _with_truth(labels, truth)
    wide = (data["label"] != data["y"]).astype(float).to_frame("e").assign(item=data["item"], judge=data["judge"])
    return wide.pivot(index="item", columns="judge", values="e").to_numpy()


def test_correlated_runs_share_errors_by_rho_squared():
    rho, models, prompts = 0.6, 3, 2
    labels, truth = correlated(np.random.default_rng(4), n_items=20000, n_classes=3, n_models=models,
                               n_prompts=prompts, rho=rho, accuracy=(0.7, 0.7), difficulty_sd=0.0)
    _table_shape(labels, truth, 3)
    errors = _error_matrix(labels, truth)  # items x judges, judges model after model
    assert errors.shape == (20000, models * prompts)
    assert np.abs(1 - errors.mean(axis=0) - 0.7).max() < 0.015  # every run right with probability 0.7
    corr = np.corrcoef(errors.T)
    model = np.repeat(np.arange(models), prompts)
    same = corr[(model[:, None] == model[None, :]) & ~np.eye(len(model), dtype=bool)]
    other = corr[model[:, None] != model[None, :]]
    # given the item, two runs of one model: rho^2 = 0.36; of two models: 0 (difficulty_sd = 0)
    assert np.abs(same - rho ** 2).max() < 0.03
    assert np.abs(other).max() < 0.03


def test_correlated_difficulty_and_the_big_cluster():
    labels, truth = correlated(np.random.default_rng(5), n_items=20000, n_classes=2, n_models=2, n_prompts=1,
                               accuracy=(0.8, 0.8), cluster_size=5, cluster_accuracy=0.6, rho=1.0,
                               difficulty_sd=0.0)
    errors = _error_matrix(labels, truth)
    assert errors.shape[1] == 2 + 5
    assert np.abs(1 - errors[:, :2].mean(axis=0) - 0.8).max() < 0.015
    # rho = 1: the cluster's runs all report the model's answer, right with probability 0.6
    assert (errors[:, 2:] == errors[:, [2]]).all() and abs(1 - errors[:, 2].mean() - 0.6) < 0.015
    # a shared item difficulty correlates the errors of independent models: with d ~ N(0, 1.5^2)
    labels, truth = correlated(np.random.default_rng(6), n_items=20000, n_models=2, n_prompts=1,
                               accuracy=(0.8, 0.8), difficulty_sd=1.5)
    errors = _error_matrix(labels, truth)
    # by hand: P(right) = E[logistic(logit 0.8 - d)] < 0.8, errors positively correlated
    d = np.random.default_rng(0).normal(0, 1.5, 400000)
    q = 1 / (1 + np.exp(-(np.log(4) - d)))
    assert abs(1 - errors.mean() - q.mean()) < 0.015
    cov = q.var()  # Cov(e1, e2) = Var(q) for two independent models given the item
    assert abs(np.cov(errors.T)[0, 1] - cov) < 0.01 and cov > 0.03


# --- adversarial_majority ------------------------------------------------------------------------

@pytest.mark.parametrize("n_classes", [2, 3])
def test_adversaries_follow_one_permutation(n_classes):
    f, share, n_judges = 0.85, 0.65, 20
    labels, truth = adversarial_majority(np.random.default_rng(7), n_items=20000, n_classes=n_classes,
                                         n_judges=n_judges, labels_per_item=10, adversarial_share=share,
                                         adversary_fidelity=f, accuracy=(0.7, 0.9))
    _table_shape(labels, truth, n_classes)
    data = _with_truth(labels, truth)
    accuracy = (data["label"] == data["y"]).groupby(data["judge"]).mean()
    adversaries = accuracy.index[accuracy < 1 / n_classes]
    assert len(adversaries) == round(share * n_judges) == 13
    rows = data[data["judge"].isin(adversaries)]
    assert abs((rows["label"] == rows["y"]).mean() - (1 - f) / n_classes) < 0.01  # 0.075, 0.05
    honest = accuracy.drop(adversaries)
    assert honest.min() > 0.67 and honest.max() < 0.93
    # the same fixed-point-free permutation for all: each adversary's modal label per class
    modal = rows.groupby(["judge", "y"])["label"].agg(lambda s: s.value_counts().idxmax()).unstack()
    assert (modal.nunique() == 1).all()
    tau = modal.iloc[0].to_numpy()
    assert sorted(tau) == list(range(n_classes)) and (tau != np.arange(n_classes)).all()
    said = rows["label"].to_numpy() == tau[rows["y"].to_numpy()]
    assert abs(said.mean() - (f + (1 - f) / n_classes)) < 0.01


# --- difficulty ----------------------------------------------------------------------------------

@pytest.mark.parametrize("attraction", [0.0, 0.5])
def test_hard_items_are_at_chance_or_drawn_to_an_attractor(attraction):
    K, share = 3, 0.3
    labels, truth = difficulty(np.random.default_rng(8), n_items=4000, n_classes=K, n_judges=40,
                               labels_per_item=40, hard_share=share, attraction=attraction, accuracy=(0.8, 0.95))
    _table_shape(labels, truth, K)
    data = _with_truth(labels, truth)
    right = (data["label"] == data["y"]).groupby(data["item"]).mean()
    hard = right.index[right < 0.6]  # easy items: 0.875 on average over 40 labels, hard ones 1/3 or 1/6
    assert abs(len(hard) / 4000 - share) < 0.025
    rows = data[data["item"].isin(hard)]
    assert abs((rows["label"] == rows["y"]).mean() - (1 - attraction) / K) < 0.01
    # the most frequent wrong label of a hard item: its attractor, said with probability
    # attraction + (1 - attraction) / K (at attraction 0, the larger of two wrong shares near 1/3)
    wrong = rows[rows["label"] != rows["y"]]
    top = wrong.groupby("item")["label"].agg(lambda s: s.value_counts().iloc[0]) / 40
    if attraction:
        assert abs(top.mean() - (attraction + (1 - attraction) / K)) < 0.01
    else:
        assert 1 / 3 < top.mean() < 0.45
    easy = data[~data["item"].isin(hard)]
    skill = (easy["label"] == easy["y"]).groupby(easy["judge"]).mean()
    assert 0.78 < skill.min() < 0.84 and 0.91 < skill.max() < 0.96  # a_w ~ U(0.8, 0.95), 40 judges


# --- seeding, the suite, options -----------------------------------------------------------------

@pytest.mark.parametrize("name", list(_SCENARIOS))
def test_the_same_seed_gives_the_same_tables(name):
    draw = _SCENARIOS[name]
    a = draw(np.random.default_rng(9), n_items=300)
    b = draw(np.random.default_rng(9), n_items=300)
    c = draw(np.random.default_rng(10), n_items=300)
    assert a[0].equals(b[0]) and a[1].equals(b[1])
    assert not a[0].equals(c[0])


def test_the_suite():
    suite = simulated_suite(0)
    assert list(suite) == list(_SUITE) and 8 <= len(suite) <= 12
    assert all(name.startswith("sim_") for name in suite)
    again, other = simulated_suite(0), simulated_suite(1)
    for name, (labels, truth) in suite.items():
        scenario, options = _SUITE[name]
        assert 300 <= len(truth) <= 3000
        _table_shape(labels, truth, options["n_classes"])
        assert labels.equals(again[name][0]) and truth.equals(again[name][1])
        assert not labels.equals(other[name][0])
        # the panel is what a config's truth dataset of that name and options draws
        piped, piped_truth = truth_tables(name, {"source": "simulate", "scenario": scenario, **options}, [], seed=0)
        assert piped.equals(labels) and piped_truth.equals(truth)


@pytest.mark.parametrize("draw, options, fragments", [
    (sparse_biased, {"max_workload": 0}, ["max_workload", "0"]),
    (sparse_biased, {"n_items": 10, "max_workload": 50}, ["max_workload", "1..10", "50"]),
    (sparse_biased, {"n_classes": 1}, ["n_classes", "1"]),
    (sparse_biased, {"bias_concentration": 0}, ["bias_concentration", "0"]),
    (sparse_biased, {"n_items": True}, ["n_items", "True"]),
    (correlated, {"rho": 1.5}, ["rho", "1.5"]),
    (correlated, {"accuracy": [0.9, 0.6]}, ["accuracy", "[0.9, 0.6]"]),
    (correlated, {"accuracy": [0.0, 0.6]}, ["accuracy", "0 < low"]),
    (correlated, {"n_models": 0, "cluster_size": 1}, ["n_models", ">= 2 judges"]),
    (correlated, {"cluster_accuracy": 1.0}, ["cluster_accuracy", "1.0"]),
    (adversarial_majority, {"adversarial_share": -0.1}, ["adversarial_share", "-0.1"]),
    (adversarial_majority, {"n_judges": 5, "labels_per_item": 6}, ["labels_per_item", "1..5", "6"]),
    (difficulty, {"class_priors": [1, 1]}, ["class_priors", "3 non-negative", "[1, 1]"]),
    (difficulty, {"attraction": "high"}, ["attraction", "'high'"]),
])
def test_a_bad_option_is_named_with_its_value(draw, options, fragments):
    with pytest.raises(ValueError) as err:
        draw(np.random.default_rng(0), **options)
    for fragment in fragments:
        assert fragment in str(err.value)


def test_scenario_options_from_a_config_entry():
    spec = {"source": "simulate", "scenario": "correlated", "n_items": 50, "rho": 0.5, "ordinal": False}
    assert scenario_options("correlated", spec) == {"n_items": 50, "rho": 0.5}
    with pytest.raises(ValueError, match="scenario 'difficulty' takes no option 'rho'"):
        scenario_options("difficulty", spec)
    with pytest.raises(ValueError, match=f"scenario {DEFAULT_SCENARIO!r} takes no option 'rho'"):
        scenario_options(DEFAULT_SCENARIO, {"n_items": 5, "rho": 0.5})
    with pytest.raises(ValueError, match="unknown simulate scenario 'corelated'"):
        scenario_options("corelated", spec)
    assert scenario_options(DEFAULT_SCENARIO, {"n_items": 5, "ordinal": True, "bias": 0.5}) == {
        "n_items": 5, "bias": 0.5, "ordinal": True}


def test_the_schema_has_every_scenario_and_option():
    props = yaml.safe_load(SCHEMA.read_text())["properties"]["datasets"]["additionalProperties"]["properties"]
    assert props["scenario"]["enum"] == [DEFAULT_SCENARIO, *_SCENARIOS]
    assert set(_OPTION_KEYS) <= set(props)


def _test_config(extra: dict) -> dict:
    config = yaml.safe_load((REPO / ".test" / "config" / "config.yaml").read_text())
    config["truth"]["datasets"].update(extra)
    return config


def test_a_scenario_in_the_test_config_passes_the_checks():
    from manyjudges.pipeline.config_checks import check_config_methods, check_config_references
    from manyjudges.pipeline.workflow_support import check_config_schema

    config = _test_config({"sim_judges": {"source": "simulate", "scenario": "correlated", "n_items": 60,
                                          "n_classes": 2, "n_models": 2, "n_prompts": 3, "rho": 0.7,
                                          "accuracy": [0.6, 0.8]}})
    check_config_schema(config, REPO / "workflow/schemas/config.schema.yaml")
    check_config_references(config)
    check_config_methods(config)
    labels, truth = truth_tables("sim_judges", config["truth"]["datasets"]["sim_judges"], [], seed=config["seed"])
    assert len(truth) == 60 and len(labels) == 60 * 6


@pytest.mark.parametrize("entry, fragments", [
    ({"source": "simulate", "scenario": "corelated", "n_items": 60},
     ["config.truth.datasets.bad.scenario", "'corelated'"]),
    ({"source": "simulate", "scenario": "correlated", "rho": "high"},
     ["config.truth.datasets.bad.rho", "'high'"]),
    ({"source": "simulate", "n_items": 60, "n_classes": 2},
     ["config.truth.datasets.bad: required key 'n_judges' is missing"]),
])
def test_a_bad_scenario_entry_fails_the_schema(entry, fragments):
    from manyjudges.pipeline.workflow_support import check_config_schema

    with pytest.raises(ValueError) as err:
        check_config_schema(_test_config({"bad": entry}), REPO / "workflow/schemas/config.schema.yaml")
    for fragment in fragments:
        assert fragment in str(err.value)


def test_another_scenarios_option_fails_the_config_check():
    from manyjudges.pipeline.config_checks import check_config_references

    config = _test_config({"bad": {"source": "simulate", "scenario": "difficulty", "rho": 0.5}})
    with pytest.raises(ValueError, match="truth.datasets.bad: simulate scenario 'difficulty' takes no option 'rho'"):
        check_config_references(config)


def test_snakemake_rejects_an_unknown_scenario_before_any_job(tmp_path):
    from tests.workflow.runner import offline_workdir, run

    def edit(config):
        config["truth"]["datasets"]["bad"] = {"source": "simulate", "scenario": "corelated", "n_items": 60}

    work = offline_workdir(tmp_path / "work", edit)
    proc = run(work, check=False)
    out = proc.stdout + proc.stderr
    assert proc.returncode != 0 and "config.truth.datasets.bad.scenario" in out and "'corelated'" in out
    assert not any((work / d).exists() for d in ("results", "logs", "data/processed"))
