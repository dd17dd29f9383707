# The crowd family's config section and the input functions of its rules (crowd.smk).

from manyjudges.crowd.data import PREFERENCE_SOURCES, RATING_SOURCES, processed_files

CROWD = config_section(config, "crowd", SCHEMA)


def crowd_names(section, sources):
    return [d for d, spec in section["datasets"].items() if spec["source"] in sources]


wildcard_constraints:
    crowd_dataset=_alternatives(list(CROWD["datasets"])),
    crowd_sim=_alternatives(crowd_names(CROWD, ("simulate",))),
    crowd_pref_raw=_alternatives(crowd_names(CROWD, [s for s in PREFERENCE_SOURCES if s != "simulate"])),
    crowd_rating_raw=_alternatives(crowd_names(CROWD, RATING_SOURCES)),
    spammer="random|malicious",


CROWD_JOBS = method_units(CROWD) if CROWD.get("methods") else {}
#: the figures of every crowd dataset (the rule crowd_figures draws them in one job)
CROWD_FIGURES = ["table2"] + (["quality_ablation"] if CROWD.get("ablation") else []) + ["quality_distributions"]
#: the spammer kinds of the robustness sweep, a figure each on every robustness dataset (crowd_robustness_figures),
#: none when the sweep is not configured
CROWD_SPAMMERS = list((CROWD.get("robustness") or {}).get("spammers") or [])


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
        figures = list(CROWD_FIGURES)
        if d in crowd_robustness_datasets():
            out += [f"results/crowd/{d}/robustness.tsv", f"results/crowd/{d}/robustness_cv.tsv"]
            figures += [f"robustness_{s}" for s in CROWD_SPAMMERS]
        out += [f"results/figures/crowd/{d}/{f}.{ext}" for f in figures for ext in ("png", "pdf")]
    return out


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
