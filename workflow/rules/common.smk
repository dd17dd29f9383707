# The input functions every family's rules share (each family's own: <family>_common.smk); the config
# was validated by the Snakefile.
import os

from manyjudges.core.registry import method_spec
from manyjudges.pipeline.workflow_support import (
    all_datasets,
    config_section,
    dataset_names,
    ed_jobs,
    entry_jobs,
    job_count,
    job_share,
    method_jobs,
    method_units,
    noise_reading,
    reading_datasets,
    pinned_dataset_names,
    planned_jobs,
    raw_files,
    sweep_parameters,
    sweep_reading_datasets,
    sweep_reading_parameters,
    sweep_reading_spec,
)

MIRROR = config["mirror"] or os.environ.get("MANYJUDGES_MIRROR")


def _alternatives(names):
    return "|".join(names) if names else "(?!x)x"


wildcard_constraints:
    raw_dataset=_alternatives(pinned_dataset_names(config)),
    job="[0-9]+",
    chunk="[0-9]+",
    method="[A-Za-z0-9_]+",
    reading="[A-Za-z0-9_]+",
    dataset="[A-Za-z0-9_]+",


def paths_of(files):
    """Every path of a {dataset: path} or {dataset: {name: path}} mapping, in its order (a rule's input
    listing the files a script is given by dataset in params)."""
    return [p for v in files.values() for p in (v.values() if isinstance(v, dict) else [v])]


# Each family's part of the reproduction report: (the files its section reads, the arguments of its
# report.report_section); the report rule gathers them for every family of manyjudges.families.families()
# (a plug-in family defines its own <family>_outputs() and <family>_report() in its rules file).


def report_inputs():
    """Every file the report's sections read, family by family."""
    return [path for family in families() for path in globals()[f"{family}_report"]()[0]]


def report_sections():
    """{family: the arguments of its report_section}, in the order of manyjudges.families.families()."""
    return {family: globals()[f"{family}_report"]()[1] for family in families()}


def all_outputs():
    """The report, then every family's outputs (its <family>_outputs())."""
    return ["results/REPRODUCTION.md"] + [path for family in families() for path in globals()[f"{family}_outputs"]()]
