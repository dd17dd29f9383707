# Config validation and the input functions every rule shares.
import os

from snakemake.utils import validate

from manyjudges.graded.experiment import method_jobs, planned_parts
from manyjudges.pipeline import (
    all_datasets,
    check_config_references,
    dataset_names,
    method_spec,
    pinned_dataset_names,
    ratio_label,
    raw_files,
    sweep_parameters,
)

validate(config, schema="../schemas/config.schema.yaml")
check_config_references(config)

ORD = config.get("orderings") or {"datasets": {}, "methods": {}, "noise_ratios": [], "replicates": 1}
CONS = config.get("consensus") or {}
GRADED = config.get("graded") or {"datasets": {}, "methods": {}}
MIRROR = config.get("mirror") or os.environ.get("MANYJUDGES_MIRROR")


def _alternatives(names):
    return "|".join(names) if names else "(?!x)x"


wildcard_constraints:
    sim_dataset=_alternatives(dataset_names(ORD, "simulate")),
    preflib_dataset=_alternatives(dataset_names(ORD, "preflib")),
    raw_dataset=_alternatives(pinned_dataset_names(config)),
    search_dataset=_alternatives(dataset_names(CONS, "search_results") if CONS.get("datasets") else []),
    clef_dataset=_alternatives(dataset_names(CONS, "clef_runs") if CONS.get("datasets") else []),
    table_dataset=_alternatives(dataset_names(ORD, "table")),
    graded_sim=_alternatives(dataset_names(GRADED, "simulate")),
    graded_raw=_alternatives([d for d in GRADED["datasets"] if GRADED["datasets"][d]["source"] != "simulate"]),
    protocol="cross_induction|single_parameter",
    chunk="[0-9]+",
    method="[A-Za-z0-9_]+",
    parameter="[A-Za-z_]+",
    ratio="[0-9.]+",


def ordering_tables():
    return expand("data/processed/{dataset}/orderings.tsv", dataset=list(ORD["datasets"]))


def ed_parts(wildcards):
    return expand(
        "results/orderings/{dataset}/ed/{method}/noise_{ratio}.tsv",
        dataset=wildcards.dataset,
        method=list(ORD["methods"]),
        ratio=[ratio_label(r) for r in ORD["noise_ratios"]],
    )


def sweep_parts(wildcards):
    sweep = ORD.get("sweep", {})
    return expand(
        "results/orderings/{dataset}/sweep/{parameter}/noise_{ratio}.tsv",
        dataset=wildcards.dataset,
        parameter=sweep_parameters(ORD),
        ratio=[ratio_label(r) for r in sweep.get("noise_ratios", [])],
    )


def consensus_input(wildcards):
    spec = all_datasets(config)[wildcards.dataset]
    kind = "rankings" if spec["source"] in ("search_results", "clef_runs") else "orderings"
    return f"data/processed/{wildcards.dataset}/{kind}.tsv"


def consensus_outputs():
    out = []
    if CONS.get("search"):
        d = CONS["search"]["dataset"]
        out += [f"results/consensus/{d}/consensus.tsv"]
        out += [f"results/figures/consensus/{d}/consensus_grid.{ext}" for ext in ("png", "pdf")]
    for d in (CONS.get("aggregation") or {}).get("datasets", []):
        out += [f"results/consensus/{d}/aggregators.tsv"]
        out += [f"results/figures/consensus/{d}/aggregators.{ext}" for ext in ("png", "pdf")]
    if CONS.get("sensitivity"):
        out += ["results/consensus/sensitivity/sensitivity.tsv"]
        out += [f"results/figures/consensus/sensitivity/sensitivity.{ext}" for ext in ("png", "pdf")]
    return out


def consensus_tables():
    return [p for p in consensus_outputs() if p.endswith(".tsv")]


def graded_raw_input(dataset):
    spec = GRADED["datasets"][dataset]
    if spec["source"] == "table":
        return [spec["path"]]
    return expand("data/raw/{d}/{f}", d=dataset, f=sorted(raw_files(config, dataset)))


def graded_chunks(method, protocol):
    return method_jobs(GRADED, method, protocol)


def graded_parts(dataset):
    return [
        f"results/graded/{dataset}/parts/{m}/{p}/{c}.tsv" for m, p, c in planned_parts(GRADED, dataset)
    ]


def graded_tables():
    return [f"results/graded/{d}/{t}.tsv" for d in GRADED["datasets"] for t in ("loglik_by_judge", "pairwise_tests", "parameters")]


def graded_outputs():
    out = graded_tables()
    for d in GRADED["datasets"]:
        out += [f"results/figures/graded/{d}/loglik_by_judge.{ext}" for ext in ("png", "pdf")]
    return out


def all_outputs():
    out = ["results/REPRODUCTION.md"] + consensus_outputs() + graded_outputs()
    for dataset in ORD["datasets"]:
        out.append(f"results/orderings/{dataset}/ed_by_noise.tsv")
        out += [f"results/figures/orderings/{dataset}/ed_by_noise.{ext}" for ext in ("png", "pdf")]
        if sweep_parameters(ORD):
            out.append(f"results/orderings/{dataset}/frespa_sweep.tsv")
            out += [f"results/figures/orderings/{dataset}/frespa_sweep.{ext}" for ext in ("png", "pdf")]
    return out
