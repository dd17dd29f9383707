"""A graded panel's number of classes is n_classes; the former name n_labels still reads, with a DeprecationWarning."""
import numpy as np
import pandas as pd
import pytest

from manyjudges import build_method
from manyjudges.graded import GradedPanel

LABELS = np.array([[0, 1, 2], [1, 1, -1], [2, 0, 2], [0, -1, 1]])


def test_the_former_name_n_labels_reads_as_n_classes():
    panel = GradedPanel.from_matrix(LABELS, n_classes=3)
    assert panel.n_classes == 3
    with pytest.warns(DeprecationWarning, match="n_classes"):
        old = GradedPanel.from_matrix(LABELS, n_labels=3)
    assert old.n_classes == 3 and np.array_equal(old.to_matrix(), panel.to_matrix())
    with pytest.warns(DeprecationWarning, match="n_labels is now n_classes"):
        assert panel.n_labels == 3
    with pytest.raises(TypeError, match="not both"):
        GradedPanel.from_matrix(LABELS, 3, n_labels=3)
    with pytest.raises(TypeError, match="required"):
        GradedPanel.from_matrix(LABELS)


def test_fit_predict_proba_reads_n_labels_as_n_classes():
    table = pd.DataFrame([(i, j, int(v)) for i, row in enumerate(LABELS) for j, v in enumerate(row) if v >= 0],
                         columns=["item", "judge", "label"])
    method = build_method("graded", "m1")
    new = method.fit_predict_proba(table, n_classes=4)
    assert method.n_classes_ == 4 and list(new.columns) == [0, 1, 2, 3]
    with pytest.warns(DeprecationWarning, match="now n_classes"):
        old = build_method("graded", "m1").fit_predict_proba(table, n_labels=4)
    pd.testing.assert_frame_equal(old, new)
