"""A chunk of a huge module decides as the whole module would where a rule reads "the whole module"
(tfmigrate/codemod/chunks.py; issue 28: speed must not change a single rewrite).

TFM108 rewrites ``TensorFlowDNNClassifier.restore(path)`` only where the constructor that saved it is
the only one of its class in the module. A chunk holding one copy of the program saw one constructor
and rewrote the restore that the whole-module engine declines (benchmarks/bench_huge.py --whole at
10,000 lines: the last chunk). Modules of a few dozen lines cut into chunks of a few lines show it at
no cost."""

from __future__ import annotations

from pathlib import Path

import pytest

from tfmigrate.codemod import chunks, engine
from tfmigrate.codemod.rule import load_catalog

from .generate import _suffixed

ROOT = Path(__file__).resolve().parents[2]
CATALOG = load_catalog()
ENABLED = CATALOG.selected(None)
SKFLOW = (ROOT / "samples" / "skflow_dnn_save_restore" / "legacy.py").read_text()
HEADER = "import numpy as np\nimport tensorflow as tf\nfrom tensorflow.contrib import learn\nimport skflow\n\n"


def chunked(data: bytes, chunk_lines: int, monkeypatch: pytest.MonkeyPatch) -> engine.SourceResult:
    """The engine's own chunked rewrite (rewrite_source cuts a module over the threshold), at tiny sizes."""
    monkeypatch.setattr(chunks, "THRESHOLD_LINES", 0)
    monkeypatch.setattr(chunks, "CHUNK_LINES", chunk_lines)
    plan = chunks.plan(data)
    assert plan is not None and len(plan.cuts) >= 2
    result = engine._in_chunks(data, ENABLED, "x.py", CATALOG)
    assert result is not None  # cut, not rewritten whole
    return result


def program(suffix: str, form: str = "learn.TensorFlowDNNClassifier") -> str:
    body = "".join(line for line in SKFLOW.split('"""', 2)[2].splitlines(keepends=True) if not line.startswith(("import ", "from ")))
    return _suffixed(body.replace("learn.TensorFlowDNNClassifier", form), suffix)


# the other chunk's statements: another copy of the program (whole: two constructors, TFM108 declines
# both restores), another class's constructor (one TensorFlowDNNClassifier: rewritten), another
# program's restore through the era's base class. (Not covered: a chunk counts the calls of a class by
# its name, so `skflow.TensorFlowDNNClassifier` elsewhere, another era's class of the same name, makes a
# chunk decline a restore the whole engine rewrites: flagged TFM108, not silent.)
OTHERS = {
    "another_copy": lambda: program("1"),
    "another_class": lambda: "other = learn.TensorFlowLinearClassifier(n_classes=3)\nother.fit(features_0, labels_0)\n",
    "a_base_class_restore": lambda: program("1") + "again = learn.TensorFlowEstimator.restore(model_dir_1)\n",
}


@pytest.mark.parametrize("other", sorted(OTHERS))
@pytest.mark.parametrize("chunk_lines", [6, 10])
def test_a_restore_is_decided_over_the_whole_module(other: str, chunk_lines: int, monkeypatch: pytest.MonkeyPatch) -> None:
    data = (HEADER + program("0") + "\n\n" + OTHERS[other]()).encode()
    expected = engine.rewrite_source(data, ENABLED, catalog=CATALOG, whole=True)
    result = chunked(data, chunk_lines, monkeypatch)
    new, findings = result.new, result.findings
    assert new == expected.new
    declined = [f for f in expected.findings if f.rule == "TFM108" and not f.fixable]
    assert bool(declined) == (other != "another_class")  # the case this test is about is there
    assert any(f.rule == "TFM108" for f in findings)


# The eager family decides once for the module whether it is eager (it names tf.contrib.eager or
# enable_eager_execution), and rewrites a graph program's optimizer and dropout the eager way in one
# that is: a chunk holding only the graph program of such a module must do the same.
GRAPH = (
    "import tensorflow as tf\n\n"
    "def build(x, rate):\n    return tf.layers.dropout(x, 0.2, training=True)\n\n\n"
    "optimizer = tf.train.AdamOptimizer(0.1)\n\n\n"
)
EAGER_FORMS = {
    "import_as_tfe": "import tensorflow as tf\nimport tensorflow.contrib.eager as tfe\n\ntfe.enable_eager_execution()\nv = tfe.Variable(1.0)\n",
    "from_contrib_import": "import tensorflow as tf\nfrom tensorflow.contrib import eager as tfe\n\ntfe.enable_eager_execution()\nv = tfe.Variable(1.0)\n",
    "tf_enable_eager": "import tensorflow as tf\n\ntf.enable_eager_execution()\nv = tf.Variable(1.0)\n",
    "attribute_chain": "import tensorflow as tf\n\nv = tf.contrib.eager.Variable(1.0)\n",
}


@pytest.mark.parametrize("form", sorted(EAGER_FORMS))
def test_a_chunk_of_an_eager_module_is_rewritten_as_eager(form: str, monkeypatch: pytest.MonkeyPatch) -> None:
    filler = "".join(f"def f{i}(x):\n    return x + {i}\n\n\n" for i in range(3))
    parts = [GRAPH + filler, EAGER_FORMS[form]]
    data = "\n\n".join(parts).encode()  # (the eager program first: these tiny chunks cannot be put back together, rewritten whole)
    expected = engine.rewrite_source(data, ENABLED, catalog=CATALOG, whole=True)
    graph_only = engine.rewrite_source((GRAPH + filler).encode(), ENABLED, catalog=CATALOG, whole=True)
    assert b"optimizer = tf.compat.v1.train.AdamOptimizer(0.1)" in graph_only.new
    assert chunked(data, 8, monkeypatch).new == expected.new
