# Config validation and the input functions every family's rules share (each family's own:
# <family>_common.smk).
import os
import sys

from manyjudges.pipeline.config_aliases import rename_config_aliases
from manyjudges.pipeline.config_checks import check_config_methods, check_config_references
from manyjudges.core.registry import method_spec
from manyjudges.pipeline.workflow_support import (
    all_datasets,
    check_config_schema,
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

# Every config mistake stops the run here, before any job: the schema (key path, nearest known key;
# the schema's defaults are filled in), then the cross-references and every configured method
# (built-in or module:callable, with its parameters). A --configfile replaces the default config
# (Snakefile): when it lacks a top-level key, the message says how to add to the default instead.
SCHEMA = workflow.current_basedir.join("../schemas/config.schema.yaml").get_path_or_uri(secret_free=True)
# a key's former name (config_aliases.CONFIG_ALIASES) is renamed first, said once on stderr
for _renamed in rename_config_aliases(config):
    print(f"config: {_renamed} (a former name, still read)", file=sys.stderr)
GIVEN = [
    os.path.relpath(f) if not os.path.relpath(f).startswith("..") else str(f) for f in workflow.overwrite_configfiles
]
check_config_schema(
    config,
    SCHEMA,
    missing_hint=(
        "a --configfile replaces the default config; to add to it, pass both: "
        f"--configfile config/config.yaml {' '.join(GIVEN)}"
        if GIVEN and not any(os.path.abspath(f) == os.path.abspath("config/config.yaml") for f in GIVEN)
        else None
    ),
)
check_config_references(config)
check_config_methods(config)

MIRROR = config["mirror"] or os.environ.get("MANYJUDGES_MIRROR")


def _alternatives(names):
    return "|".join(names) if names else "(?!x)x"


wildcard_constraints:
    raw_dataset=_alternatives(pinned_dataset_names(config)),
    job="[0-9]+",
    chunk="[0-9]+",
    method="[A-Za-z0-9_]+",
    parameter="[A-Za-z_]+",
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
