# Config validation and the input functions every rule shares.
import os

from manyjudges.crowd.data import PREFERENCE_SOURCES, RATING_SOURCES, processed_files
from manyjudges.workflow_support import (
    all_datasets,
    check_config_methods,
    check_config_references,
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
    method_spec,
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

ORD = config_section(config, "orderings", SCHEMA)
CONS = config.get("consensus") or {}
GRADED = config_section(config, "graded", SCHEMA)
CROWD = config_section(config, "crowd", SCHEMA)
TRUTH = config_section(config, "truth", SCHEMA)
MIRROR = config["mirror"] or os.environ.get("MANYJUDGES_MIRROR")


def crowd_names(section, sources):
    return [d for d, spec in section["datasets"].items() if spec["source"] in sources]


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
    crowd_dataset=_alternatives(list(CROWD["datasets"])),
    crowd_sim=_alternatives(crowd_names(CROWD, ("simulate",))),
    crowd_pref_raw=_alternatives(crowd_names(CROWD, [s for s in PREFERENCE_SOURCES if s != "simulate"])),
    crowd_rating_raw=_alternatives(crowd_names(CROWD, RATING_SOURCES)),
    truth_dataset=_alternatives(list(TRUTH["datasets"])),
    spammer="random|malicious",
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


def ordering_tables():
    """{dataset: its orderings table} of every ordered-list dataset."""
    return {d: f"data/processed/{d}/orderings.tsv" for d in ORD["datasets"]}


def ed_tables():
    """{dataset: Table 1 (ED by noise ratio)} of every ordered-list dataset."""
    return {d: f"results/orderings/{d}/ed_by_noise.tsv" for d in ORD["datasets"]}


def sweep_tables():
    """{dataset: Tables 2-4 (the FreSPA sweep)} of every ordered-list dataset, when the config sweeps."""
    return {d: f"results/orderings/{d}/frespa_sweep.tsv" for d in ORD["datasets"]} if sweep_parameters(ORD) else {}


ED_JOBS = ed_jobs(ORD) if ORD.get("methods") else {}
CROWD_JOBS = method_units(CROWD) if CROWD.get("methods") else {}


def ed_parts(wildcards):
    return [
        f"results/orderings/{wildcards.dataset}/ed/{m}/part_{c}.tsv"
        for m, jobs in ED_JOBS.items()
        for c in range(len(jobs))
    ]


def reading_tables():
    """Table 1 under each other reading of the noise experiment (orderings.readings): {dataset: {variant: path}}."""
    variants = list(((ORD.get("readings") or {}).get("variants") or {}))
    if not variants:
        return {}
    return {
        d: {v: f"results/orderings/{d}/readings/{v}/ed_by_noise.tsv" for v in variants} for d in reading_datasets(ORD)
    }


def sweep_parts(wildcards):
    sweep = ORD.get("sweep", {})
    return expand(
        "results/orderings/{dataset}/sweep/{parameter}.tsv",
        dataset=wildcards.dataset,
        parameter=sweep_parameters(ORD) if sweep.get("noise_ratios") else [],
    )


def sweep_values(wildcards):
    return ORD["sweep"]["parameters"][wildcards.parameter]


def sweep_replicates(wildcards):
    sweep = ORD["sweep"]
    return (sweep.get("replicates_by_parameter") or {}).get(
        wildcards.parameter, sweep.get("replicates", ORD["replicates"])
    )


def sweep_reading_parts(wildcards):
    return expand(
        "results/orderings/{dataset}/readings/{reading}/sweep/{parameter}.tsv",
        dataset=wildcards.dataset,
        reading=wildcards.reading,
        parameter=sweep_reading_parameters(ORD, wildcards.reading),
    )


def sweep_reading_tables():
    """The sweep's parameters under each of orderings.sweep.readings (e.g. Table 3 by another length rounding):
    {dataset: {variant: path}}."""
    variants = list((ORD.get("sweep") or {}).get("readings") or {})
    if not variants:
        return {}
    return {
        d: {v: f"results/orderings/{d}/readings/{v}/frespa_sweep.tsv" for v in variants}
        for d in sweep_reading_datasets(ORD)
    }


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


_GRADED_JOBS = {}


def graded_jobs(dataset):
    if dataset not in _GRADED_JOBS:  # planned once per dataset: every graded_part job asks
        _GRADED_JOBS[dataset] = planned_jobs(GRADED, dataset)
    return _GRADED_JOBS[dataset]


def graded_job_parts(dataset, name, job):
    return graded_jobs(dataset)[name][int(job)]


def graded_job_methods(dataset, name, job):
    return list(dict.fromkeys(part[0] for part in graded_job_parts(dataset, name, job)))


def graded_parts(dataset):
    return [
        f"results/graded/{dataset}/parts/{m}/{j}.tsv"
        for m, jobs in graded_jobs(dataset).items()
        for j in range(len(jobs))
    ]


def graded_tables():
    return [
        f"results/graded/{d}/{t}.tsv"
        for d in GRADED["datasets"]
        for t in ("loglik_by_judge", "pairwise_tests", "parameters")
    ]


def graded_report_files():
    """{dataset: {"loglik", "pairwise", "parameters", "grades": path}}: what the report reads of each graded dataset."""
    return {
        d: {
            "loglik": f"results/graded/{d}/loglik_by_judge.tsv",
            "pairwise": f"results/graded/{d}/pairwise_tests.tsv",
            "parameters": f"results/graded/{d}/parameters.tsv",
            "grades": f"data/processed/{d}/grades.tsv",
        }
        for d in GRADED["datasets"]
    }


def graded_outputs():
    out = graded_tables()
    for d in GRADED["datasets"]:
        out += [f"results/figures/graded/{d}/loglik_by_judge.{ext}" for ext in ("png", "pdf")]
    return out


def crowd_raw_input(dataset):
    spec = CROWD["datasets"][dataset]
    if spec["source"].endswith("_table"):
        return [spec["path"], spec["truth"]]
    return expand("data/raw/{d}/{f}", d=dataset, f=sorted(raw_files(config, dataset)))


def crowd_processed(wildcards):
    d = wildcards.crowd_dataset
    files = processed_files(CROWD["datasets"][d]["source"])
    return {role: f"data/processed/crowd/{d}/{name}" for role, name in files.items()}


def crowd_robustness_datasets():
    return list((CROWD.get("robustness") or {}).get("datasets") or [])


def crowd_robustness_parts(wildcards):
    robust = CROWD["robustness"]
    return expand(
        "results/crowd/{d}/robustness/{spammer}/part_{chunk}.tsv",
        d=wildcards.crowd_dataset,
        spammer=robust["spammers"],
        chunk=range(job_count(robust["ratios"], robust["jobs"])),
    )


def crowd_baselines():
    if CROWD.get("baselines"):
        return list(CROWD["baselines"])
    return [m for m in CROWD["methods"] if not method_spec(CROWD, m)["method"].startswith("crowdagg")]


def crowd_robustness_methods():
    robust = CROWD.get("robustness") or {}
    names = robust.get("methods") or list(CROWD["methods"])
    return {n: method_spec(CROWD, n) for n in names}


CROWD_TABLES = (
    "ranking_metrics",
    "ranking_metrics_by_relevance",
    "metrics_by_topic",
    "significance",
    "runtime",
    "quality",
    "quality_kl",
    "truth_coverage",
)


def crowd_report_files():
    """{dataset: {table name: path}}: each crowd dataset's tables (CROWD_TABLES), and robustness_cv where it runs."""
    robust = crowd_robustness_datasets()
    return {
        d: {
            **{t: f"results/crowd/{d}/{t}.tsv" for t in CROWD_TABLES},
            **({"robustness_cv": f"results/crowd/{d}/robustness_cv.tsv"} if d in robust else {}),
        }
        for d in CROWD["datasets"]
    }


def crowd_outputs():
    out = []
    for d in CROWD["datasets"]:
        out += [f"results/crowd/{d}/{t}.tsv" for t in CROWD_TABLES]
        figures = ["table2"] + (["quality_ablation"] if CROWD.get("ablation") else []) + ["quality_distributions"]
        if d in crowd_robustness_datasets():
            out += [f"results/crowd/{d}/robustness.tsv", f"results/crowd/{d}/robustness_cv.tsv"]
            figures += [f"robustness_{s}" for s in CROWD["robustness"]["spammers"]]
        out += [f"results/figures/crowd/{d}/{f}.{ext}" for f in figures for ext in ("png", "pdf")]
    return out


TRUTH_TABLES = ("accuracy", "labels", "workers", "summary")


def truth_report_files():
    """{dataset: {"accuracy": path, "summary": path}}: what the report reads of each truth dataset."""
    return {d: {t: f"results/truth/{d}/{t}.tsv" for t in ("accuracy", "summary")} for d in TRUTH["datasets"]}


def truth_raw_input(dataset):
    spec = TRUTH["datasets"][dataset]
    if spec["source"] == "labels_table":
        return [spec["path"]] + ([spec["truth"]] if spec.get("truth") else [])
    if spec["source"] == "simulate":
        return []
    return expand("data/raw/{d}/{f}", d=dataset, f=sorted(raw_files(config, dataset)))


def truth_tables():
    return [f"results/truth/{d}/{t}.tsv" for d in TRUTH["datasets"] for t in TRUTH_TABLES]


def truth_active_datasets():
    """The datasets the truth.active replay runs on: those with a truth, when the section is configured."""
    if "active" not in TRUTH:
        return []
    return [d for d, spec in TRUTH["datasets"].items() if spec["source"] != "labels_table" or spec.get("truth")]


def truth_outputs():
    figures = [f"results/figures/truth/{d}/accuracy.{ext}" for d in TRUTH["datasets"] for ext in ("png", "pdf")]
    active = [f"results/truth/{d}/{t}.tsv" for d in truth_active_datasets() for t in ("active", "active_curves")]
    active += [f"results/figures/truth/{d}/active.{ext}" for d in truth_active_datasets() for ext in ("png", "pdf")]
    return truth_tables() + figures + active


def orderings_outputs():
    out = []
    for dataset in ORD["datasets"]:
        out.append(f"results/orderings/{dataset}/ed_by_noise.tsv")
        out += [f"results/figures/orderings/{dataset}/ed_by_noise.{ext}" for ext in ("png", "pdf")]
        if sweep_parameters(ORD):
            out.append(f"results/orderings/{dataset}/frespa_sweep.tsv")
            out += [f"results/figures/orderings/{dataset}/frespa_sweep.{ext}" for ext in ("png", "pdf")]
    return out


# Each family's part of the reproduction report: (the files its section reads, the arguments of its
# report.report_section); the report rule gathers them for every family of manyjudges.families.families()
# (a plug-in family defines its own <family>_outputs() and <family>_report() in its rules file).


def orderings_report():
    kwargs = dict(
        ed_tables=ed_tables(),
        sweep_tables=sweep_tables(),
        datasets=ORD["datasets"],
        orderings_tables=ordering_tables(),
        methods=ORD["methods"],
        noise_reading=noise_reading(ORD),
        reading_tables=reading_tables(),
        reading_variants=(ORD.get("readings") or {}).get("variants") or {},
        sweep_noise_ratios=(ORD.get("sweep") or {}).get("noise_ratios") or [],
        sweep_reading_tables=sweep_reading_tables(),
        sweep_reading_variants=(ORD.get("sweep") or {}).get("readings") or {},
        sweep_method=(ORD.get("sweep") or {}).get("method", "frespa"),
    )
    files = [ed_tables(), reading_tables(), sweep_reading_tables(), ordering_tables(), sweep_tables()]
    return [p for f in files for p in paths_of(f)], kwargs


def consensus_report():
    tables = consensus_tables()
    return tables, dict(tables=tables, datasets={**ORD["datasets"], **(CONS.get("datasets") or {})})


def graded_report():
    results = graded_report_files()
    return paths_of(results), dict(results=results, datasets=GRADED["datasets"], methods=GRADED["methods"])


def crowd_report():
    results = crowd_report_files()
    kwargs = dict(
        results=results,
        datasets=CROWD["datasets"],
        methods=CROWD["methods"],
        ks=CROWD["ks"],
        ablation=CROWD["ablation"],
    )
    return paths_of(results), kwargs


def truth_report():
    results = truth_report_files()
    return paths_of(results), dict(results=results, datasets=TRUTH["datasets"], methods=TRUTH["methods"])


def report_inputs():
    """Every file the report's sections read, family by family."""
    return [path for family in families() for path in globals()[f"{family}_report"]()[0]]


def report_sections():
    """{family: the arguments of its report_section}, in the order of manyjudges.families.families()."""
    return {family: globals()[f"{family}_report"]()[1] for family in families()}


def all_outputs():
    """The report, then every family's outputs (its <family>_outputs())."""
    return ["results/REPRODUCTION.md"] + [path for family in families() for path in globals()[f"{family}_outputs"]()]
