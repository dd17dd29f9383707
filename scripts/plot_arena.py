"""The figures of one arena dataset: each method's scores with their intervals, the judges' position bias
and their pairwise agreement."""
import pandas as pd

from manyjudges.arena.judge_plots import plot_position_bias
from manyjudges.arena.plots import plot_agreement, plot_leaderboard
from manyjudges.pipeline.workflow_support import setup_logging

setup_logging(snakemake.log[0])
dataset, out = snakemake.wildcards.arena_dataset, snakemake.output
plot_leaderboard(pd.read_csv(snakemake.input.leaderboard, sep="\t"), [out.leaderboard, out.leaderboard_pdf],
                 title=f"Leaderboard of {dataset}", method_of=snakemake.params.methods)
judges = pd.read_csv(snakemake.input.judges, sep="\t", keep_default_na=False, na_values=[""])
plot_position_bias(judges, [out.position_bias, out.position_bias_pdf],
                   title=f"Position bias of the judges of {dataset}")
pairs = pd.read_csv(snakemake.input.pairs, sep="\t", keep_default_na=False, na_values=[""])
plot_agreement(pairs, judges, [out.agreement, out.agreement_pdf],
               title=f"Agreement between the judges of {dataset}")
