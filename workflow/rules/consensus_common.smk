# The consensus family's config section and the input functions of its rules (consensus.smk);
# its datasets are the orderings family's and its own.

CONS = config.get("consensus") or {}


wildcard_constraints:
    search_dataset=_alternatives(dataset_names(CONS, "search_results") if CONS.get("datasets") else []),
    clef_dataset=_alternatives(dataset_names(CONS, "clef_runs") if CONS.get("datasets") else []),


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


def consensus_report():
    tables = consensus_tables()
    return tables, dict(tables=tables, datasets={**ORD["datasets"], **(CONS.get("datasets") or {})})
