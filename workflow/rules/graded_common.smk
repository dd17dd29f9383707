# The graded family's config section and the input functions of its rules (graded.smk).

GRADED = config_section(config, "graded", SCHEMA)


wildcard_constraints:
    graded_sim=_alternatives(dataset_names(GRADED, "simulate")),
    graded_raw=_alternatives([d for d in GRADED["datasets"] if GRADED["datasets"][d]["source"] != "simulate"]),


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


def graded_report():
    results = graded_report_files()
    return paths_of(results), dict(results=results, datasets=GRADED["datasets"], methods=GRADED["methods"])
