# The arena section's config and the input functions of its rules (arena.smk).

ARENA = config_section(config, "arena", SCHEMA)


wildcard_constraints:
    arena_dataset=_alternatives(list(ARENA["datasets"])),


ARENA_TABLES = ("judges", "judge_pairs", "judge_summary")
ARENA_FIGURES = ("leaderboard", "position_bias", "judge_agreement")


def arena_raw_input(dataset):
    spec = ARENA["datasets"][dataset]
    if spec["source"] == "simulate":
        return []
    if spec["source"] == "verdicts_table":
        return [spec["path"]]
    return expand("data/raw/{d}/{f}", d=dataset, f=sorted(raw_files(config, dataset)))


def arena_method_names():
    """{entry name: the method it runs} (the figure's axis units)."""
    return {name: method_spec(ARENA, name)["method"] for name in ARENA["methods"]}


#: a dataset key -> the tables it asks for (arena_controlled, arena_winrate, arena_human)
ARENA_ASKED = {
    "control": ("leaderboard_controlled", "style_coefficients"),
    "baseline": ("winrate",),
    "human": ("leaderboard_human", "human_summary"),
}


def arena_tables_of(dataset):
    """The result tables of one arena dataset: every dataset's, then those its keys ask for."""
    spec = ARENA["datasets"][dataset]
    asked = [t for key, tables in ARENA_ASKED.items() if spec.get(key) is not None for t in tables]
    return ["leaderboard", *ARENA_TABLES, *asked]


def arena_report_files():
    """{dataset: {table: path}}: what the report reads of each arena dataset."""
    return {
        d: {
            t: f"results/arena/{d}/{t}.tsv"
            for t in arena_tables_of(d)
            if t in ("leaderboard", "judges", "judge_summary") or t not in ARENA_TABLES
        }
        for d in ARENA["datasets"]
    }


def arena_outputs():
    tables = [f"results/arena/{d}/{t}.tsv" for d in ARENA["datasets"] for t in arena_tables_of(d)]
    figures = [
        f"results/figures/arena/{d}/{f}.{ext}"
        for d in ARENA["datasets"]
        for f in ARENA_FIGURES
        for ext in ("png", "pdf")
    ]
    return tables + figures


def arena_report():
    results = arena_report_files()
    return paths_of(results), dict(
        results=results,
        datasets=ARENA["datasets"],
        methods=ARENA["methods"],
        bootstrap=ARENA["bootstrap"],
        resample=ARENA["resample"],
        ci=ARENA["ci"],
    )
