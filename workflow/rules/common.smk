# Config validation and the input functions every rule shares.
import os

from snakemake.utils import validate

from manyjudges.pipeline import (
    dataset_names,
    method_spec,
    ratio_label,
    raw_files,
    sweep_parameters,
)

validate(config, schema="../schemas/config.schema.yaml")

ORD = config["orderings"]
MIRROR = config.get("mirror") or os.environ.get("MANYJUDGES_MIRROR")


def _alternatives(names):
    return "|".join(names) if names else "(?!x)x"


wildcard_constraints:
    sim_dataset=_alternatives(dataset_names(ORD, "simulate")),
    preflib_dataset=_alternatives(dataset_names(ORD, "preflib")),
    table_dataset=_alternatives(dataset_names(ORD, "table")),
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


def all_outputs():
    out = ["results/REPRODUCTION.md"]
    for dataset in ORD["datasets"]:
        out.append(f"results/orderings/{dataset}/ed_by_noise.tsv")
        out += [f"results/figures/orderings/{dataset}/ed_by_noise.{ext}" for ext in ("png", "pdf")]
        if sweep_parameters(ORD):
            out.append(f"results/orderings/{dataset}/frespa_sweep.tsv")
            out += [f"results/figures/orderings/{dataset}/frespa_sweep.{ext}" for ext in ("png", "pdf")]
    return out
