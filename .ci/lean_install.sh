#!/usr/bin/env bash
# The library without the pipeline: a wheel built from this checkout, installed into a clean virtual
# environment with the core dependencies only (no extras), must give every family and the `manyjudges`
# command, and neither matplotlib nor snakemake. Run by .ci/run; locally: .ci/lean_install.sh
set -euo pipefail
cd "$(dirname "$0")/.."
start=$SECONDS
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

# The wheel, built from a copy of the files git knows (committed or not, ignored ones left out), so that
# nothing stale under build/ or *.egg-info/ gets into it and the checkout is left as it was.
mkdir "$work/source"
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
    git ls-files -z --cached --others --exclude-standard | while IFS= read -r -d '' f; do
        [ -e "$f" ] && printf '%s\0' "$f"
    done | tar --null -T - -cf - | tar -xf - -C "$work/source"
else
    tar --exclude='./.venv*' --exclude=./build --exclude='*.egg-info' -cf - . | tar -xf - -C "$work/source"
fi
python3 -m venv "$work/venv"
py="$work/venv/bin/python"
"$py" -m pip install --quiet --upgrade pip
"$py" -m pip wheel --quiet --no-deps -w "$work/wheel" "$work/source"
wheel=$(ls "$work"/wheel/manyjudges-*.whl)
echo "built $(basename "$wheel")"
"$py" -m zipfile -l "$wheel" | grep 'manyjudges/py.typed' >/dev/null || { echo "py.typed is not in the wheel"; exit 1; }
"$py" -m pip install --quiet "$wheel"

# Everything below runs outside the checkout, so only the installed wheel can be imported.
cd "$work"
for absent in matplotlib snakemake; do
    if "$py" -c "import $absent" 2>/dev/null; then
        echo "$absent is installed with the library alone"
        exit 1
    fi
done
echo "matplotlib and snakemake: not installed"
"$py" - <<'EOF'
import importlib
import sys

families = ["orderings", "consensus", "graded", "crowd", "truth", "arena"]
for name in families + ["cli"]:
    importlib.import_module(f"manyjudges.{name}")
loaded = sorted(m for m in ("matplotlib", "snakemake") if m in sys.modules)
assert not loaded, loaded
try:
    importlib.import_module("manyjudges.truth.plots")
except ImportError as error:
    assert "pip install 'manyjudges[figures]'" in str(error), error
else:
    raise AssertionError("manyjudges.truth.plots imported without matplotlib")
print("imported:", ", ".join(families), "and the command; a plot module asks for manyjudges[figures]")
EOF

mj="$work/venv/bin/manyjudges"
"$mj" methods >methods.txt
# truth: the example of `manyjudges truth --help` (three judges, three items; w3 disagrees)
printf 'item\tjudge\tlabel\ni1\tw1\t1\ni1\tw2\t1\ni1\tw3\t0\ni2\tw1\t0\ni2\tw2\t0\ni2\tw3\t1\ni3\tw1\t1\ni3\tw2\t1\ni3\tw3\t1\n' >labels.tsv
printf 'item\ttruth\ni1\t1\ni2\t0\n' >truth.tsv
"$mj" truth labels.tsv --method dawid_skene --truth truth.tsv --judges judges.tsv -o labels_inferred.tsv >truth.out
got=$(cut -f1,2 labels_inferred.tsv | tr '\t\n' ' ,')
[ "$got" = "item label,i1 1,i2 0,i3 1," ] || { cat labels_inferred.tsv; exit 1; }
grep 'accuracy 1.0000 on 2 items' truth.out >/dev/null || { cat truth.out; exit 1; }
echo "manyjudges truth: $got $(cat truth.out)"
# crowd: two judges order three documents of one topic by pairwise preference
printf 'topic\tjudge\tleft\tright\toutcome\nt1\tw1\td1\td2\tleft\nt1\tw1\td2\td3\tleft\nt1\tw1\td1\td3\tleft\nt1\tw2\td1\td2\tleft\nt1\tw2\td2\td3\tleft\nt1\tw2\td1\td3\tleft\n' >preferences.tsv
"$mj" crowd aggregate preferences.tsv --method borda -o ranking.tsv
got=$(cut -f2,3 ranking.tsv | tr '\t\n' ' ,')
[ "$got" = "item rank,d1 1,d2 2,d3 3," ] || { cat ranking.tsv; exit 1; }
echo "manyjudges crowd aggregate: $got"
# graded: three judges grade four documents on three grades; P(grade) for an unseen judge
printf 'item\tjudge\tlabel\nd1\ta\t2\nd1\tb\t2\nd1\tc\t1\nd2\ta\t0\nd2\tb\t0\nd2\tc\t0\nd3\ta\t1\nd3\tb\t2\nd3\tc\t1\nd4\ta\t0\nd4\tb\t1\nd4\tc\t0\n' >grades.tsv
"$mj" graded predict grades.tsv --method m1 -o predicted.tsv
got=$(cut -f1 predicted.tsv | tr '\n' ' ')$(head -1 predicted.tsv | tr '\t' ' ')
[ "$got" = "item d1 d2 d3 d4 item 0 1 2" ] || { cat predicted.tsv; exit 1; }
echo "manyjudges graded predict: P(grade 0, 1, 2) of d1..d4 for an unseen judge"
# arena: three models, x the strongest; --plot asks for the figures extra
printf 'prompt\tmodel_a\tmodel_b\twinner\np1\tx\ty\tmodel_a\np1\ty\tz\tmodel_a\np1\tz\tx\tmodel_b\np2\tx\ty\ttie\np2\ty\tz\tmodel_b\np2\tx\tz\tmodel_a\n' >verdicts.tsv
"$mj" arena leaderboard verdicts.tsv --bootstrap 0 --quiet -o board.tsv 2>arena.err
got=$(cut -f1,2 board.tsv | tr '\t\n' ' ,')
[ "$got" = "model rank,x 1,y 2,z 3," ] || { cat board.tsv arena.err; exit 1; }
if "$mj" arena leaderboard verdicts.tsv --bootstrap 0 --quiet --plot board.png 2>plot.err; then exit 1; fi
grep "pip install 'manyjudges\[figures\]'" plot.err >/dev/null || { cat plot.err; exit 1; }
echo "manyjudges arena leaderboard: $got; --plot asks for manyjudges[figures]"
echo "lean install: passed in $((SECONDS - start)) s"
