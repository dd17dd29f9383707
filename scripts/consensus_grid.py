"""kappa, kappa_l and LCS length of each list set over a lambda x gamma grid."""
from manyjudges.consensus.experiment import search_engine_grid
from manyjudges.io.tables.rankings import rankings_to_lists, read_rankings
from manyjudges.pipeline.workflow_support import setup_logging, write_tsv

setup_logging(snakemake.log[0])
list_sets = {name: list(lists.values()) for name, lists in rankings_to_lists(read_rankings(snakemake.input[0])).items()}
write_tsv(search_engine_grid(list_sets, snakemake.params.lambdas, snakemake.params.gammas), snakemake.output[0])
