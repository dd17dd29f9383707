"""One grammar for the command: ``manyjudges FAMILY VERB ...`` in every family, the default verb's shorthand
(``truth LABELS`` = ``truth infer LABELS``, ``consensus RANKINGS`` = ``consensus measure RANKINGS``) giving
the same bytes, each family's ``--help`` listing its verbs, and a word that is neither a verb nor a file."""
import re

import pytest
from command import run_command

from manyjudges.cli import main

run = run_command

LABELS = "item\tjudge\tlabel\n" + "".join(f"i{i}\tw{w}\t{(i + (w == 2 and i % 3 == 0)) % 2}\n"
                                           for i in range(12) for w in range(4))
TRUTH = "item\ttruth\n" + "".join(f"i{i}\t{i % 2}\n" for i in range(12))
RANKINGS = ("list_set\tlist_id\titem\trank\n" + "".join(f"g\t{e}\t{item}\t{r}\n" for e, order in
                                                         (("google", "abcd"), ("bing", "bacd"), ("ddg", "abdc"))
                                                         for r, item in enumerate(order, 1)))
VERBS = {"orderings": ["ed", "score"], "consensus": ["measure"], "graded": ["evaluate", "predict"],
         "crowd": ["aggregate", "judges", "leaderboard", "verdicts"], "truth": ["infer", "next"]}


@pytest.fixture
def files(tmp_path):
    for name, text in (("labels.tsv", LABELS), ("truth.tsv", TRUTH), ("rankings.tsv", RANKINGS)):
        (tmp_path / name).write_text(text)
    return tmp_path


# (the verb spelling, the shorthand): {f} is the folder of the files, {o} an output file of each spelling's own
SAME = [
    (["truth", "infer", "{f}/labels.tsv", "--method", "majority_vote"],
     ["truth", "{f}/labels.tsv", "--method", "majority_vote"]),
    (["truth", "infer", "{f}/labels.tsv", "--method", "dawid_skene", "--truth", "{f}/truth.tsv",
      "--judges", "{o}.judges.tsv", "-o", "{o}.tsv"],
     ["truth", "{f}/labels.tsv", "--method", "dawid_skene", "--truth", "{f}/truth.tsv",
      "--judges", "{o}.judges.tsv", "-o", "{o}.tsv"]),
    (["truth", "infer", "--method", "wawa", "{f}/labels.tsv"],
     ["truth", "--method", "wawa", "{f}/labels.tsv"]),  # options before the data, as before
    (["truth", "next", "{f}/labels.tsv", "--method", "dawid_skene", "--budget", "4"], None),
    (["consensus", "measure", "{f}/rankings.tsv", "--lambda", "0.9", "--gamma", "0.95"],
     ["consensus", "{f}/rankings.tsv", "--lambda", "0.9", "--gamma", "0.95"]),
    (["consensus", "measure", "{f}/rankings.tsv", "-o", "{o}.csv"],
     ["consensus", "{f}/rankings.tsv", "-o", "{o}.csv"]),
]


def seconds_masked(text):
    """``text`` with the seconds of the accuracy line (``(dawid_skene, 0.01 s)``) as ``S``."""
    return re.sub(r"\d+\.\d+ s\)", "S s)", text)


@pytest.mark.parametrize("verb_argv, short_argv", SAME)
def test_the_verb_and_its_shorthand_give_the_same_bytes(capsys, files, verb_argv, short_argv):
    """Each spelling writes to files of its own; stdout, stderr and every file written are byte-identical (the
    fitted truth methods are deterministic; the seconds of a fit in the accuracy line aside). ``truth next``
    has no shorthand: it runs as spelled, and does not read ``next`` as a LABELS file."""
    outputs = []
    for name, argv in (("verb", verb_argv), ("short", short_argv or verb_argv)):
        status, out, err = run(capsys, *[a.format(f=files, o=files / name) for a in argv])
        assert status == 0, err
        written = {p.name.removeprefix(name): p.read_bytes() for p in sorted(files.glob(f"{name}.*"))}
        outputs.append((seconds_masked(out), seconds_masked(err), written))
    assert outputs[0] == outputs[1]
    assert outputs[0][0] or outputs[0][2]  # something was written


@pytest.mark.parametrize("family", sorted(VERBS))
def test_a_familys_help_lists_its_verbs(capsys, family):
    with pytest.raises(SystemExit) as done:
        main([family, "--help"])
    assert done.value.code == 0
    out = capsys.readouterr().out
    assert out.startswith(f"usage: manyjudges {family} [-h] VERB ...")
    listed = [line.split()[0] for line in out.splitlines() if line.startswith("    ") and line[4] != " "]
    assert listed == VERBS[family]
    shorthand = {"truth": "manyjudges truth LABELS ... is short for manyjudges truth infer LABELS ...",
                 "consensus": "manyjudges consensus RANKINGS ... is short for manyjudges consensus measure "
                              "RANKINGS ..."}
    assert (shorthand[family] in out) if family in shorthand else ("shorthand" not in out)


@pytest.mark.parametrize("argv, fragments", [
    (["truth", "infre", "labels.tsv", "--method", "majority_vote"],
     ["'infre' is neither a verb of manyjudges truth (infer, next) nor a readable LABELS file",
      "manyjudges truth LABELS ... is short for manyjudges truth infer LABELS ..."]),
    (["consensus", "mesure"], ["'mesure' is neither a verb of manyjudges consensus (measure) nor a readable "
                               "RANKINGS file"]),
    (["truth", "truth-next", "labels.tsv", "--method", "majority_vote", "--budget", "2"], ["'truth-next'"]),
    (["truth-next", "labels.tsv", "--method", "majority_vote", "--budget", "2"], ["invalid choice: 'truth-next'"]),
    (["truth"], ["the following arguments are required: VERB"]),
    (["orderings", "edd", "panel.tsv"], ["invalid choice: 'edd'", "'ed', 'score'"]),
])
def test_a_word_that_is_neither_a_verb_nor_a_file(capsys, files, monkeypatch, argv, fragments):
    """A command-line mistake (status 2) naming the word, the family's verbs and, with a shorthand, the file it
    could have named; no file is read or written."""
    monkeypatch.chdir(files)
    before = sorted(files.iterdir())
    with pytest.raises(SystemExit) as done:
        main(argv)
    assert done.value.code == 2
    err = capsys.readouterr().err
    for fragment in fragments:
        assert fragment in " ".join(err.split()), (fragment, err)
    assert sorted(files.iterdir()) == before


def test_a_bare_word_naming_a_file_is_the_shorthands_data(capsys, files, monkeypatch):
    """``labels`` (no dot, no folder) is read as LABELS when such a file exists; a file named like a verb is read
    with the verb spelled out."""
    monkeypatch.chdir(files)
    (files / "labels").write_text(LABELS)
    (files / "next").write_text(LABELS)
    expected = run(capsys, "truth", "infer", "labels.tsv", "--method", "majority_vote")
    assert expected[0] == 0 and expected[1]
    assert run(capsys, "truth", "labels", "--method", "majority_vote") == expected
    assert run(capsys, "truth", "infer", "next", "--method", "majority_vote") == expected
    assert run(capsys, "truth", "./next", "--method", "majority_vote") == expected
