# The orderings family's config section and the input functions of its rules (orderings.smk).

ORD = config_section(config, "orderings", SCHEMA)


wildcard_constraints:
    sim_dataset=_alternatives(dataset_names(ORD, "simulate")),
    preflib_dataset=_alternatives(dataset_names(ORD, "preflib")),
    table_dataset=_alternatives(dataset_names(ORD, "table")),


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
#: the figures of every ordered-list dataset: ED by noise, and the FreSPA sweep when the config sweeps
#: (the rule orderings_figures draws them in one job)
ORDERINGS_FIGURES = ["ed_by_noise"] + (["frespa_sweep"] if sweep_parameters(ORD) else [])


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


def sweep_jobs(parameters):
    """The swept parameters of each sweep job, in order: orderings.sweep.jobs runs (default 1: one job)."""
    jobs = (ORD.get("sweep") or {}).get("jobs", 1)
    return [job_share(parameters, jobs, c) for c in range(job_count(parameters, jobs))] if parameters else []


def sweep_parts(wildcards):
    parameters = sweep_parameters(ORD) if ORD.get("sweep", {}).get("noise_ratios") else []
    return [f"results/orderings/{wildcards.dataset}/sweep/part_{c}.tsv" for c in range(len(sweep_jobs(parameters)))]


def sweep_job(parameters, chunk):
    """(parameter, values, replicates) of each swept parameter of one sweep job."""
    sweep = ORD["sweep"]
    by_parameter = sweep.get("replicates_by_parameter") or {}
    return [
        (p, sweep["parameters"][p], by_parameter.get(p, sweep.get("replicates", ORD["replicates"])))
        for p in sweep_jobs(parameters)[int(chunk)]
    ]


def sweep_reading_parts(wildcards):
    parameters = sweep_reading_parameters(ORD, wildcards.reading)
    return [
        f"results/orderings/{wildcards.dataset}/readings/{wildcards.reading}/sweep/part_{c}.tsv"
        for c in range(len(sweep_jobs(parameters)))
    ]


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


def orderings_outputs():
    out = []
    for dataset in ORD["datasets"]:
        for figure in ORDERINGS_FIGURES:
            out.append(f"results/orderings/{dataset}/{figure}.tsv")
            out += [f"results/figures/orderings/{dataset}/{figure}.{ext}" for ext in ("png", "pdf")]
    return out


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
