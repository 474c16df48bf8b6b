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
def test_a_restore_is_decided_over_the_whole_module(other: str, chunk_lines: int) -> None:
    data = (HEADER + program("0") + "\n\n" + OTHERS[other]()).encode()
    plan = chunks.plan(data, threshold=0, chunk_lines=chunk_lines)
    assert plan is not None and len(plan.cuts) >= 2
    expected = engine.rewrite_source(data, ENABLED, catalog=CATALOG, whole=True)
    new, findings, _, _ = chunks.rewrite_in_chunks(
        data, plan, lambda module, facts: engine.rewrite_source(module, ENABLED, catalog=CATALOG, facts=facts, whole=True), "x.py"
    )
    assert new == expected.new
    declined = [f for f in expected.findings if f.rule == "TFM108" and not f.fixable]
    assert bool(declined) == (other != "another_class")  # the case this test is about is there
    assert any(f.rule == "TFM108" for f in findings)
