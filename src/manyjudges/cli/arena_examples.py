"""The help examples of the arena's verbs (``manyjudges arena leaderboard|judges|verdicts|winrate|convert``).

Each is run as written by the tests of the help examples; the paragraphs of ``--human``, ``--save-state`` /
``--resume`` and self-preference come from the modules of those options.
"""
from __future__ import annotations

from manyjudges.cli.arena_human import _HUMAN_EXAMPLE
from manyjudges.cli.arena_resume import _RESUME_EXAMPLE, _SELF_PREFERENCE_EXAMPLE

__all__ = ["EXAMPLES"]

EXAMPLES = {
    "arena convert": """\
        VERDICTS are pairwise verdicts as a project published them, read by --from (docs/data.md 9.9):
        one or more files, or folders standing for the files in them that the format reads (PRD's
        data/vicuna80 or one ratings-* folder, Arena-Hard's model_judgment/<judge>/). Every verb of the
        arena reads them the same way (VERDICTS... --from FORMAT); convert writes what was read as the
        canonical verdicts table prompt, judge, model_a, model_b, winner (model_a the answer shown first),
        so that `manyjudges arena leaderboard OUT` gives the same table as `... VERDICTS --from FORMAT`.
        A bad line is an error naming the file, the line (or record) and the value; nothing is written.

        example (LLMFAO's GPT-4 file: left is the answer shown first, the judge gpt4):
          printf 'id,prompt,model_x,model_y,winner,left,right\\n0,8,1,2,left,x,y\\n1,8,2,1,right,y,x\\n2,9,1,3,tie,x,z\\n3,9,2,3,left,y,z\\n' > gpt4-crowd-comparisons.csv
          manyjudges arena convert gpt4-crowd-comparisons.csv --from llmfao -o verdicts.tsv
          manyjudges arena leaderboard verdicts.tsv --bootstrap 0 -o board.tsv
        writes prompt, judge, model_a, model_b, winner to verdicts.tsv (8, gpt4, x, y, model_a; 8, gpt4, y,
        x, model_b; 9, gpt4, x, z, tie; 9, gpt4, y, z, model_a), and the leaderboard of x, y, z to board.tsv.""",
    "arena judges": """\
        VERDICTS has the columns prompt, judge, model_a, model_b, winner: one row per verdict of a judge on
        the answers of two models to a prompt. model_a is the answer shown FIRST to the judge, model_b the
        one shown second; winner is model_a, model_b, tie or tie (bothbad). --reference FILE has the same
        columns (human votes or gold; its judge column is not used: each row is one vote on its prompt and
        unordered model pair, and the majority of a pair's votes is its reference, a shared top a tie).

        example (j1 always picks the answer shown first; j2 prefers x in either order):
          printf 'prompt\\tjudge\\tmodel_a\\tmodel_b\\twinner\\np1\\tj1\\tx\\ty\\tmodel_a\\np1\\tj1\\ty\\tx\\tmodel_a\\np2\\tj1\\tx\\ty\\tmodel_a\\np2\\tj1\\ty\\tx\\tmodel_a\\np1\\tj2\\tx\\ty\\tmodel_a\\np1\\tj2\\ty\\tx\\tmodel_b\\np2\\tj2\\tx\\ty\\tmodel_a\\np2\\tj2\\ty\\tx\\tmodel_b\\n' > verdicts.tsv
          printf 'prompt\\tjudge\\tmodel_a\\tmodel_b\\twinner\\np1\\th1\\tx\\ty\\tmodel_a\\np2\\th1\\ty\\tx\\tmodel_b\\n' > human.tsv
          manyjudges arena judges verdicts.tsv --reference human.tsv --pairs pairs.tsv --summary summary.tsv -o judges.tsv
        writes one row per judge to judges.tsv: verdicts, decisive (not ties), first_win_rate (the share of
        decisive verdicts won by the answer shown first: j1 1.0, j2 0.5) with its Wilson interval
        (first_win_low, first_win_high; --ci sets the level), flip_pairs (pairs seen in both orders),
        flip_rate (j1 1.0, j2 0.0), tie_rate and, with --reference, n_matched, accuracy (j1 0.5, j2 1.0)
        and kappa; one row per pair of judges to pairs.tsv (n_common, agreement, n_error_units,
        error_correlation, and error_correlation_shrunk = error_correlation x n_error_units /
        (n_error_units + 20)) and one row to summary.tsv (n_judges, n_units, alpha, error_reference,
        mean_error_correlation, effective_judges). On a terminal the judges table is aligned and rounded
        (first_win_rate and its interval to the decimal place of the leading digit of the interval's
        width, plus one); to a file or a pipe, full precision. One line on stderr says what was read
        (--quiet: none).

        With a length feature (columns length_a, length_b, or --length FEATURE for FEATURE_a, FEATURE_b)
        the judges table ends with length_preference (the judge's log-odds toward the longer answer per
        standard deviation of the normalised length difference, the models' scores shared by all judges),
        length_low and length_high (its Wald interval at --ci); NaN for a judge with fewer than 20 verdicts.""" + _SELF_PREFERENCE_EXAMPLE,
    "arena leaderboard": """\
        VERDICTS is a verdicts table (model_a, model_b, winner; prompt and judge optional), one row per
        verdict: model_a is the answer shown first, model_b the second, and winner is model_a, model_b,
        tie or tie (bothbad) (a tie, or left out with --bothbad drop). All models are rated in one pool.
        Scores are centred to mean 0: natural-log strengths (bradley_terry, davidson, crowd_bt; a tie is
        half a win each way for bradley_terry and crowd_bt) or Elo points (elo). ci_low, ci_high and
        rank_low, rank_high are bootstrap percentile intervals (rank 1 = best, ranked within each
        replicate), resampling verdicts, whole prompts or whole judges; empty with --bootstrap 0.
        After them: verdicts (the verdicts the model is in), win_rate (its expected win rate against the
        pool's average model, a model whose score is the mean score, 0: sigma(score) for log-strengths,
        1 / (1 + 10^(-score / 400)) for Elo points, Davidson's win probability with ties counted half;
        or against --baseline MODEL, whose own row is 0.5) and win_low, win_high (its percentile
        interval over the same replicates). On a terminal the table is aligned and rounded: a value and
        its interval to the decimal place of the leading digit of the interval's width, plus one (width
        0.234: 2 decimals; 23.4: 0), other numbers to three significant digits of their column's largest
        value; to a file or a pipe, full precision. One line on stderr says what was read (--quiet: none).

        example (three models, x the strongest):
          printf 'prompt\\tmodel_a\\tmodel_b\\twinner\\np1\\tx\\ty\\tmodel_a\\np1\\ty\\tz\\tmodel_a\\np1\\tz\\tx\\tmodel_b\\np2\\tx\\ty\\ttie\\np2\\ty\\tz\\tmodel_b\\np2\\tx\\tz\\tmodel_a\\np3\\ty\\tx\\tmodel_b\\np3\\tz\\ty\\ttie\\np3\\tx\\tz\\tmodel_a\\np4\\tx\\ty\\tmodel_b\\np4\\ty\\tz\\tmodel_a\\np4\\tz\\tx\\ttie (bothbad)\\n' > verdicts.tsv
          manyjudges arena leaderboard verdicts.tsv --method bradley_terry --bootstrap 200 --resample prompts -o board.tsv
        writes model, rank, score, ci_low, ci_high, rank_low, rank_high, verdicts, win_rate, win_low and
        win_high to board.tsv, best first (x, y, z).

        Refused: verdicts whose comparison graph is in several pieces (models never compared with each
        other, directly or through others: their scores would not be comparable); the error names the
        pieces and their first models: keep the verdicts of one piece. Warned of: models that won every
        verdict they were in, or lost every one (only the ridge or prior holds their scores), and models
        whose bootstrap replicates are fewer than two or all equal (e.g. a table of one verdict): their
        interval columns are left empty rather than a zero-width interval.

        Style control (--method bradley_terry only): --control length,bold rates the models with the
        answers' features held fixed, each FEATURE being the columns FEATURE_a (the answer shown first)
        and FEATURE_b (numbers >= 0) of VERDICTS: per verdict d = (f_a - f_b) / (f_a + f_b), standardised
        over the verdicts, and P(model_a wins) = sigma(s_a - s_b + gamma . d). The table's scores and
        intervals are then the controlled ones; --coefficients FILE writes feature, coefficient, ci_low,
        ci_high (gamma with its bootstrap interval). A FEATURE the verdicts lack is an error listing theirs.
          printf 'prompt\\tmodel_a\\tmodel_b\\twinner\\tlength_a\\tlength_b\\np1\\tx\\ty\\tmodel_a\\t120\\t300\\np1\\ty\\tz\\tmodel_a\\t300\\t90\\np1\\tz\\tx\\tmodel_b\\t90\\t120\\np2\\tx\\ty\\tmodel_b\\t100\\t280\\np2\\ty\\tz\\tmodel_a\\t280\\t80\\np2\\tx\\tz\\tmodel_a\\t100\\t80\\np3\\ty\\tx\\tmodel_a\\t310\\t110\\np3\\tz\\ty\\ttie\\t95\\t310\\np3\\tx\\tz\\tmodel_a\\t110\\t95\\n' > styled.tsv
          manyjudges arena leaderboard styled.tsv --control length --bootstrap 50 --coefficients coef.tsv -o board.tsv
        writes the controlled board to board.tsv and the length coefficient with its interval to coef.tsv.

""" + _HUMAN_EXAMPLE + _RESUME_EXAMPLE,
    "arena verdicts": """\
        VERDICTS has the columns prompt, judge, model_a, model_b, winner (model_a shown FIRST; winner
        model_a, model_b, tie or tie (bothbad), a tie counting half a verdict each way). Each (prompt,
        unordered model pair) has one true winner; every judge has a reliability eta (the probability
        of naming the true winner, order aside) and a position effect gamma (log-odds towards the answer
        shown first), fitted with the models' strengths; judges whose errors correlate above 0.5 are
        grouped and down-weighted to their effective number (Kish). --params as JudgeAwareVerdicts's
        (e.g. '{"clusters": null}', '{"clusters": {"gpt4-a": "gpt4", "gpt4-b": "gpt4"}}').

        example (j1 always picks the answer shown first; j2 and j3 prefer x in either order):
          printf 'prompt\\tjudge\\tmodel_a\\tmodel_b\\twinner\\np1\\tj1\\tx\\ty\\tmodel_a\\np1\\tj1\\ty\\tx\\tmodel_a\\np1\\tj2\\tx\\ty\\tmodel_a\\np1\\tj2\\ty\\tx\\tmodel_b\\np1\\tj3\\tx\\ty\\tmodel_a\\np1\\tj3\\ty\\tx\\tmodel_b\\np2\\tj1\\ty\\tx\\tmodel_a\\np2\\tj1\\tx\\ty\\tmodel_a\\np2\\tj2\\ty\\tx\\tmodel_b\\np2\\tj3\\tx\\ty\\tmodel_a\\n' > verdicts.tsv
          manyjudges arena verdicts verdicts.tsv --judges judges.tsv -o units.tsv
        writes prompt, model_1, model_2, verdicts, p_model_1 (the posterior that model_1 wins) and winner
        (the more probable model: x on p1 and p2) to units.tsv, and judge, eta, gamma, cluster, weight
        to judges.tsv.""",
    "arena winrate": """\
        VERDICTS has the columns prompt, judge, model_a, model_b, winner (model_a shown FIRST; prompt and judge
        optional), and may have p_b (the judge's probability that model_b's answer is the better, AlpacaEval's
        preference - 1: where there is one it counts, not the winner) and an answer feature NAME_a, NAME_b
        (e.g. length_a, length_b: the lengths of the answers shown first and second). Every verdict of a
        model against --baseline MODEL, in either order, gives p = the probability that the model's answer is
        the better (from p_b, else 1 for a win, 0 for a loss, 1/2 for a tie or tie (bothbad)); verdicts
        between two other models are not used. Per model (AlpacaEval, Li et al. 2023): win_rate = mean p,
        se = sd(p) / sqrt(n) (ddof 1), ci_low, ci_high = win_rate -+ z se clipped to [0, 1] (--ci), or with
        --bootstrap N the percentile interval of N replicates that resample whole prompts (--seed);
        discrete_win_rate = the share of verdicts with p > 1/2, p = 1/2 counted half; n its verdicts against
        the baseline. Fractions in [0, 1], not AlpacaEval's percentages. With --control FEATURE (the answers'
        length), win_rate, se and the interval are the length-controlled win rate (AlpacaEval 2.0, Dubois
        et al. 2024): per model a logistic GLM of p on its strength, tanh(the length difference / its sd)
        and the prompt's difficulty (the other models' smoothed log-odds against the baseline on it),
        predicted with the length term 0 and averaged over the model's verdicts (se: the bootstrap
        replicates' sd, or the delta-method sandwich se); raw_win_rate, after n, is the win rate without
        control. The baseline has no row; models that never met it are warned of; a model with one verdict
        has no se and no interval. On a terminal the table is aligned and rounded (win_rate with its
        interval); to a file or a pipe, full precision. One line on stderr says what was read (--quiet: none).

        example (x and y against the baseline base; y's answers are the longer):
          printf 'prompt\\tmodel_a\\tmodel_b\\twinner\\tlength_a\\tlength_b\\np1\\tx\\tbase\\tmodel_a\\t120\\t100\\np1\\tbase\\ty\\tmodel_b\\t90\\t300\\np2\\tbase\\tx\\ttie\\t100\\t110\\np2\\ty\\tbase\\tmodel_a\\t280\\t100\\np3\\tx\\tbase\\tmodel_b\\t90\\t100\\np3\\tbase\\ty\\tmodel_a\\t100\\t260\\np4\\tbase\\tx\\tmodel_b\\t100\\t130\\np4\\ty\\tbase\\tmodel_b\\t310\\t100\\np4\\tx\\ty\\tmodel_b\\t130\\t310\\n' > verdicts.tsv
          manyjudges arena winrate verdicts.tsv --baseline base -o winrates.tsv
          manyjudges arena winrate verdicts.tsv --baseline base --control length --bootstrap 200 -o controlled.tsv
        writes model, win_rate, se, ci_low, ci_high, discrete_win_rate and n to winrates.tsv, best first (x
        0.625 from a win, a tie, a loss and a win; y 0.5; the verdict of x against y is not used), and the
        length-controlled win rates, then raw_win_rate, to controlled.tsv.

        With --human HUMAN_VERDICTS (human verdicts on some of the same prompts and models, read like VERDICTS)
        the win rates are calibrated to the humans' preference by prediction-powered inference (PPI++, a
        power-tuned lambda per model, --human-lambda to fix it): the table is model, win_rate, ci_low,
        ci_high, lambda, n_human, n_llm_units, worth (the human-labelled units the LLM verdicts are worth),
        human_win_rate (the humans' alone) and llm_win_rate (the LLM's, uncalibrated); --human-summary FILE
        writes model, lambda, n_human, n_llm_units, worth. A human unit (prompt, model) without an LLM
        verdict is an error naming it; --human takes neither --control nor --bootstrap.""",
}
