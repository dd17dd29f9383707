# The toy family's rules: each configured method on each dataset (results/toy/<dataset>/<method>.tsv),
# and the two functions the pipeline calls for every family: toy_outputs() and toy_report().
TOY = config_section(config, "toy", SCHEMA)


def toy_outputs():
    return [f"results/toy/{d}/{m}.tsv" for d in TOY["datasets"] for m in TOY["methods"]]


def toy_report():
    results = {d: {m: f"results/toy/{d}/{m}.tsv" for m in TOY["methods"]} for d in TOY["datasets"]}
    return toy_outputs(), dict(results=results, datasets=TOY["datasets"])


rule toy_scores:
    input:
        lambda wildcards: TOY["datasets"][wildcards.dataset]["path"],
    output:
        "results/toy/{dataset}/{method}.tsv",
    params:
        spec=lambda wildcards: method_spec(TOY, wildcards.method),
    log:
        "logs/toy/{dataset}/{method}.log",
    script:
        "scripts/toy_scores.py"
