# Evaluating an ordered list against many gold orderings (Kim, Zhai, Han 2010).


# One job per method and dataset covers every noise ratio (a method's `jobs` entry splits
# the ratios over more jobs): each job's Python start-up is paid once, not once per ratio.
rule ed_noise:
    input:
        "data/processed/{dataset}/orderings.tsv",
    output:
        "results/orderings/{dataset}/ed/{method}/part_{chunk}.tsv",
    log:
        "logs/orderings/{dataset}/ed/{method}/part_{chunk}.log",
    benchmark:
        "logs/benchmarks/ed_noise/{dataset}/{method}/part_{chunk}.tsv"
    conda:
        "../envs/manyjudges.yaml"
    threads: 1
    resources:
        mem_mb=2000,
        runtime=60,
    params:
        specs=lambda wc: {m: method_spec(ORD, m) for m in ED_JOBS[wc.method][int(wc.chunk)][0]},
        ratios=lambda wc: ED_JOBS[wc.method][int(wc.chunk)][1],
        replicates=ORD["replicates"],
        seed=config["seed"],
        reading=noise_reading(ORD),
    script:
        "../../scripts/ed_noise.py"


rule ed_by_noise:
    input:
        ed_parts,
    output:
        "results/orderings/{dataset}/ed_by_noise.tsv",
    log:
        "logs/orderings/{dataset}/ed_by_noise.log",
    localrule: True
    conda:
        "../envs/manyjudges.yaml"
    threads: 1
    resources:
        mem_mb=1000,
        runtime=10,
    params:
        methods=list(ORD.get("methods") or {}),  # the rows' order (a job may hold several methods)
    script:
        "../../scripts/concat_tables.py"


rule ed_reading:
    input:
        "data/processed/{dataset}/orderings.tsv",
    output:
        "results/orderings/{dataset}/readings/{reading}/ed_by_noise.tsv",
    log:
        "logs/orderings/{dataset}/readings/{reading}.log",
    benchmark:
        "logs/benchmarks/ed_reading/{dataset}/{reading}.tsv"
    conda:
        "../envs/manyjudges.yaml"
    threads: 1
    resources:
        mem_mb=2000,
        runtime=120,
    # Table 1 (every method, every noise ratio) under another reading of the noise experiment
    params:
        specs=lambda wc: {m: method_spec(ORD, m) for m in ORD["methods"]},
        ratios=ORD["noise_ratios"],
        replicates=ORD["replicates"],
        seed=config["seed"],
        reading=lambda wc: noise_reading(ORD, wc.reading),
    script:
        "../../scripts/ed_noise.py"


rule frespa_sweep_part:
    input:
        "data/processed/{dataset}/orderings.tsv",
    output:
        "results/orderings/{dataset}/sweep/part_{chunk}.tsv",
    log:
        "logs/orderings/{dataset}/sweep/part_{chunk}.log",
    benchmark:
        "logs/benchmarks/frespa_sweep_part/{dataset}/part_{chunk}.tsv"
    # the swept parameters split over orderings.sweep.jobs jobs per dataset (default 1), each over
    # every noise ratio of the sweep; started early, as the longer jobs, so the run's tail is not
    # one job on one core
    priority: 10
    conda:
        "../envs/manyjudges.yaml"
    threads: 1
    resources:
        mem_mb=2000,
        runtime=120,
    params:
        ratios=lambda wc: ORD["sweep"].get("noise_ratios", []),
        spec=lambda wc: sweep_reading_spec(ORD),
        sweeps=lambda wc: sweep_job(sweep_parameters(ORD), wc.chunk),
        seed=config["seed"],
        reading=noise_reading(ORD),
    script:
        "../../scripts/frespa_sweep.py"


rule frespa_sweep:
    input:
        sweep_parts,
    output:
        "results/orderings/{dataset}/frespa_sweep.tsv",
    log:
        "logs/orderings/{dataset}/frespa_sweep.log",
    localrule: True
    conda:
        "../envs/manyjudges.yaml"
    threads: 1
    resources:
        mem_mb=1000,
        runtime=10,
    script:
        "../../scripts/concat_tables.py"


rule frespa_sweep_reading_part:
    input:
        "data/processed/{dataset}/orderings.tsv",
    output:
        "results/orderings/{dataset}/readings/{reading}/sweep/part_{chunk}.tsv",
    log:
        "logs/orderings/{dataset}/readings/{reading}/sweep/part_{chunk}.log",
    benchmark:
        "logs/benchmarks/frespa_sweep_reading_part/{dataset}/{reading}/part_{chunk}.tsv"
    # the swept parameters a reading changes (e.g. Table 3's length ratios) with the sweep method's
    # parameters changed by orderings.sweep.readings.{reading}; otherwise as frespa_sweep_part
    priority: 10
    conda:
        "../envs/manyjudges.yaml"
    threads: 1
    resources:
        mem_mb=2000,
        runtime=120,
    params:
        ratios=lambda wc: ORD["sweep"].get("noise_ratios", []),
        spec=lambda wc: sweep_reading_spec(ORD, wc.reading),
        sweeps=lambda wc: sweep_job(sweep_reading_parameters(ORD, wc.reading), wc.chunk),
        seed=config["seed"],
        reading=noise_reading(ORD),
    script:
        "../../scripts/frespa_sweep.py"


rule frespa_sweep_reading:
    input:
        sweep_reading_parts,
    output:
        "results/orderings/{dataset}/readings/{reading}/frespa_sweep.tsv",
    log:
        "logs/orderings/{dataset}/readings/{reading}/frespa_sweep.log",
    localrule: True
    conda:
        "../envs/manyjudges.yaml"
    threads: 1
    resources:
        mem_mb=1000,
        runtime=10,
    script:
        "../../scripts/concat_tables.py"


# The orderings: simulated, parsed from PrefLib, or a table of the user's own.
rule parse_preflib:
    input:
        lambda wc: expand("data/raw/{d}/{f}", d=wc.preflib_dataset, f=sorted(raw_files(config, wc.preflib_dataset))),
    output:
        "data/processed/{preflib_dataset}/orderings.tsv",
    log:
        "logs/parse/{preflib_dataset}.log",
    conda:
        "../envs/manyjudges.yaml"
    threads: 1
    resources:
        mem_mb=1000,
        runtime=15,
    script:
        "../../scripts/parse_preflib.py"


rule copy_user_table:
    input:
        lambda wc: ORD["datasets"][wc.table_dataset]["path"],
    output:
        "data/processed/{table_dataset}/orderings.tsv",
    log:
        "logs/parse/{table_dataset}.log",
    localrule: True
    conda:
        "../envs/manyjudges.yaml"
    threads: 1
    resources:
        mem_mb=1000,
        runtime=10,
    params:
        duplicates=lambda wc: ORD["datasets"][wc.table_dataset].get("duplicates", "error"),
    script:
        "../../scripts/validate_orderings.py"


rule simulate_orderings:
    output:
        "data/processed/{sim_dataset}/orderings.tsv",
    log:
        "logs/simulate/{sim_dataset}.log",
    conda:
        "../envs/manyjudges.yaml"
    threads: 1
    resources:
        mem_mb=1000,
        runtime=15,
    params:
        spec=lambda wc: ORD["datasets"][wc.sim_dataset],
        seed=config["seed"],
    script:
        "../../scripts/simulate_orderings.py"


# Figures: a dataset's (ORDERINGS_FIGURES), each drawn from the table of its name, in one job.
rule orderings_figures:
    input:
        **{f: f"results/orderings/{{dataset}}/{f}.tsv" for f in ORDERINGS_FIGURES},
    output:
        **{
            f: report(
                f"results/figures/orderings/{{dataset}}/{f}.png",
                caption=f"../report/{f}.rst",
                category="Ordered lists",
                subcategory="{dataset}",
            )
            for f in ORDERINGS_FIGURES
        },
        **{f"{f}_pdf": f"results/figures/orderings/{{dataset}}/{f}.pdf" for f in ORDERINGS_FIGURES},
    log:
        "logs/figures/orderings/{dataset}.log",
    localrule: True
    conda:
        "../envs/manyjudges.yaml"
    threads: 1
    resources:
        mem_mb=1000,
        runtime=10,
    script:
        "../../scripts/plot_orderings.py"
