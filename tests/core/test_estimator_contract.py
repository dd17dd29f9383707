"""Every built-in of every family follows scikit-learn's estimator rules: get_params from the
constructor, set_params, a repr, and sklearn.base.clone (scikit-learn comes with crowd-kit, a test extra)."""
import doctest
import inspect

import pytest

import manyjudges
from manyjudges import FAMILIES, build_method, family_registry
from manyjudges.core.estimator import Estimator

sklearn_base = pytest.importorskip("sklearn.base")

BUILTINS = [(family, name) for family in FAMILIES for name in family_registry(family)]


def fitted_attributes(method) -> set[str]:
    return {name for name in vars(method) if name.endswith("_") and not name.startswith("_")}


@pytest.mark.parametrize("family, name", BUILTINS, ids=[f"{f}-{n}" for f, n in BUILTINS])
def test_every_builtin_has_params_repr_and_clones(family, name):
    method = build_method(family, name)
    assert isinstance(method, Estimator)
    params = method.get_params()
    signature = inspect.signature(type(method).__init__)
    assert list(params) == [n for n, p in signature.parameters.items()
                            if n != "self" and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)]
    # the registry's preset and the defaults are what get_params reports
    assert params == {**dict.fromkeys(params), **family_registry(family).builtins[name].parameters()}
    copy = sklearn_base.clone(method)
    assert type(copy) is type(method) and copy is not method
    assert copy.get_params() == params
    assert not fitted_attributes(copy)
    assert repr(copy) == repr(method) and repr(method).startswith(type(method).__name__ + "(")
    with pytest.raises(ValueError, match="has no parameter"):
        method.set_params(no_such_parameter=1)


def test_set_params_changes_what_clone_and_repr_carry():
    method = build_method("truth", "dawid_skene")
    assert repr(method) == "DawidSkene()"
    assert method.set_params(max_iter=7, smoothing=0.5) is method
    copy = sklearn_base.clone(method)
    assert (copy.max_iter, copy.smoothing) == (7, 0.5)
    assert repr(copy) == "DawidSkene(max_iter=7, smoothing=0.5)"


def test_build_method_checks_as_a_config_does():
    assert build_method("orderings", "ac_tau").correlation == "kendall"
    assert build_method("consensus", "condorcet_fuse").fit_predict([["a", "b"], ["b", "a"], ["b", "a"]]) == ["b", "a"]
    with pytest.raises(ValueError, match="unknown family 'votes'"):
        build_method("votes", "borda")
    with pytest.raises(ValueError, match="did you mean 'dawid_skene'"):
        build_method("truth", "dawid_skeen")
    with pytest.raises(ValueError, match="bad parameter value"):
        build_method("truth", "dawid_skene", max_iter=0)


def test_the_top_level_docstring_example_runs():
    result = doctest.testmod(manyjudges)
    assert result.attempted > 0 and result.failed == 0


def test_crowd_aggregators_fit_predict_scores_keyed_by_item():
    import pandas as pd

    from manyjudges.crowd.judgments import topics_from_preferences

    prefs = pd.DataFrame({"topic": "t", "judge": ["w1", "w2", "w3", "w1", "w2"],
                          "left": ["d07", "d07", "d2", "d2", "d10"], "right": ["d2", "d10", "d10", "d10", "d07"],
                          "outcome": ["left", "left", "left", "left", "right"]})
    topic = topics_from_preferences(prefs)["t"]
    for name in family_registry("crowd"):
        method = build_method("crowd", name)
        scores = method.fit_predict(topic)
        assert isinstance(scores, pd.Series) and scores.name == "score" and scores.index.name == "item"
        assert list(scores.index) == list(topic.items) and set(scores.index) == {"d07", "d2", "d10"}
        assert (scores.to_numpy() == method.scores_).all()
    # every fitted attribute exists whatever the parameters
    for skill in (True, False):
        assert build_method("crowd", "crowdagg_ndcg", skill=skill).fit(topic).cycle_ in (True, False)


def test_a_judges_skill_has_one_name_in_every_family():
    import warnings

    import pandas as pd

    from manyjudges.crowd.judgments import topics_from_preferences

    prefs = pd.DataFrame({"topic": "t", "judge": ["w1", "w2"], "left": ["a", "b"], "right": ["b", "c"],
                          "outcome": ["left", "left"]})
    crowd = build_method("crowd", "crowd_bt").fit(topics_from_preferences(prefs)["t"])
    truth = build_method("truth", "dawid_skene").fit(
        pd.DataFrame({"item": ["i1", "i1", "i2"], "judge": ["w1", "w2", "w1"], "label": [0, 0, 1]}))
    assert crowd.skills_ is not None and truth.skills_ is not None
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert crowd.quality_ is crowd.skills_
    assert any(issubclass(w.category, DeprecationWarning) for w in caught)


@pytest.mark.parametrize("name", list(family_registry("graded")))
def test_graded_methods_fit_predict_proba_keyed_by_item(name):
    """From a long table (crowd-kit's column names), in any row order: the probabilities of fit(panel) on
    the same judgments, as items (natural order) x labels."""
    import numpy as np
    import pandas as pd

    from manyjudges.graded import GradedPanel

    rng = np.random.default_rng(3)
    items, judges = ["10", "2", "7", "1", "33", "4"], ["a", "b", "c", "d"]
    table = pd.DataFrame([(i, j, int(rng.integers(0, 3))) for i in items for j in judges if rng.random() < 0.85],
                         columns=["task", "worker", "label"])
    method = build_method("graded", name)
    proba = method.fit_predict_proba(table, n_classes=3)
    assert proba.index.name == "item" and list(proba.index) == sorted(items, key=int)
    assert list(proba.columns) == [0, 1, 2] and proba.columns.name == "label"
    panel = GradedPanel.from_table(table.rename(columns={"task": "item", "worker": "judge"}), 3)
    direct = build_method("graded", name).fit(panel).predict_proba()
    expected = pd.DataFrame(direct, index=pd.Index(panel.item_ids, name="item")).loc[proba.index]
    np.testing.assert_allclose(proba.to_numpy(), expected.to_numpy(), rtol=0, atol=1e-12)
    shuffled = build_method("graded", name).fit_predict_proba(table.sample(frac=1, random_state=1), n_classes=3)
    np.testing.assert_allclose(shuffled.to_numpy(), proba.to_numpy(), rtol=0, atol=1e-12)


def test_graded_fit_predict_proba_names_a_missing_column():
    import pandas as pd

    with pytest.raises(ValueError, match="missing column.*label"):
        build_method("graded", "m1").fit_predict_proba(pd.DataFrame({"item": ["a"], "judge": ["j"]}))


def _use_unfitted(family: str, method):
    """What each family reads from a fitted method: a score, a prediction, a ranking, fitted labels."""
    import numpy as np

    from manyjudges.core.estimator import check_is_fitted

    if family == "orderings":
        return method.score(np.array([[1, 2, 3]]))
    if family == "graded":
        return method.predict_proba()
    if family == "crowd":
        return method.ranking_
    return check_is_fitted(method, ("labels_", "proba_"))  # truth: no method reads a fit; its attributes do


@pytest.mark.parametrize("family, name", [("orderings", "ac_tau"), ("graded", "m1"), ("crowd", "crowd_bt"),
                                          ("truth", "dawid_skene")])
def test_using_a_method_before_fit_raises_not_fitted(family, name):
    from manyjudges.core.estimator import NotFittedError

    method = build_method(family, name)
    with pytest.raises(NotFittedError, match=f"This {type(method).__name__} instance is not fitted yet: call fit"):
        _use_unfitted(family, method)
    assert issubclass(NotFittedError, ValueError) and issubclass(NotFittedError, AttributeError)
    assert not issubclass(NotFittedError, RuntimeError)


def test_check_is_fitted_passes_once_fitted():
    import pandas as pd

    from manyjudges.core.estimator import check_is_fitted

    method = build_method("truth", "dawid_skene").fit(
        pd.DataFrame({"item": ["i1", "i1", "i2"], "judge": ["w1", "w2", "w1"], "label": [0, 0, 1]}))
    assert check_is_fitted(method, ["labels_", "proba_"]) is None
