# The truth family's config section and the input functions of its rules (truth.smk).

TRUTH = config_section(config, "truth", SCHEMA)


wildcard_constraints:
    truth_dataset=_alternatives(list(TRUTH["datasets"])),


TRUTH_TABLES = ("accuracy", "labels", "judges", "summary")


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


def truth_report():
    results = truth_report_files()
    return paths_of(results), dict(results=results, datasets=TRUTH["datasets"], methods=TRUTH["methods"])
