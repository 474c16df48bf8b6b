"""Legacy programs of the moved contrib modules (contrib.data of TF 1.2-1.3 and 1.4+, contrib.lookup,
contrib.keras), of TF 0.x seq2seq / rnn_cell and of TF 0.x summaries, rewritten by tfmigrate and run on
TensorFlow 2.15 in ONE child process (tests/fixtures/moved_programs/run_all.py); each result is compared
with what the legacy release computed, read from its source:

- TF 1.3 contrib/data/python/ops/dataset_ops.py: ``map(num_threads, output_buffer_size)`` keeps the order;
  ``list_files`` lists without shuffling (matching_files, sorted); ``group_by_window`` emits a window when
  full and flushes the partial ones at the end; ``dense_to_sparse_batch`` (its docstring's example);
  ``rejection_resample`` yields (class, element) pairs; TF 1.8 batching.py: ``batch_and_drop_remainder``
  and ``padded_batch_and_drop_remainder`` drop the last partial batch; ``sloppy_interleave`` is
  ``parallel_interleave`` in any order.
- TF 1.3 contrib/keras (Keras 2.0): LSTM/GRU ``recurrent_activation="hard_sigmoid"``, GRU without
  ``reset_after``; Adam/Adagrad/Adadelta ``epsilon=1e-8``, Adagrad from a zero accumulator at 0.01,
  Adadelta at 1.0 (optimizers.py).
- TF 0.12 python/ops/seq2seq.py: ``sequence_loss_by_example`` is the weighted cross-entropy over time divided
  by the total weight, ``softmax_loss_function(logit, target)`` called positionally; ``sequence_loss`` sums
  it over the batch and divides by the batch size.
- TF 1.15 python/ops/lookup_ops.py (contrib.lookup's index_table_from_* / index_to_string_table_from_*): run
  as they are from TF 2.15's private modules (reference_lookup.py), the ids TFM613's helpers must give;
- TF 0.12 logging_ops.py: ``scalar_summary(tags, values)`` writes one value a tag; the tag is used as given.
"""

from __future__ import annotations

import json
import math
import os
from pathlib import Path

import pytest

from tfmigrate.codemod.engine import rewrite_source
from tfmigrate.codemod.rule import load_catalog
from tests.tfchildren import run_python

ENABLED = load_catalog().selected(None)
PROGRAMS = Path(__file__).parent / "fixtures" / "moved_programs"
NAMES = ["data13", "data_forms", "lookup", "keras", "seq2seq", "summary"]


def _cross_entropy(logits: list[float], label: int) -> float:
    top = max(logits)
    return math.log(sum(math.exp(v - top) for v in logits)) + top - logits[label]


def _legacy_results() -> dict:
    """What the legacy releases computed for the programs (see the module docstring)."""
    ce = [_cross_entropy([2.0, 1.0, 0.1], 0), _cross_entropy([0.5, 2.5, 0.3], 2)]
    by_example = (ce[0] * 1.0 + ce[1] * 0.5) / (1.5 + 1e-12)
    return {
        "data13": {"batches": [[0, 2, 4], [6, 8, 10], [12, 14, 16]], "files": ["a.txt", "b.txt"],
                   "lines": [1.0, 2.0, 3.0]},
        "data_forms": {
            "windows": [[1, 3], [2, 4], [5, 7], [6]],
            "padded": [[[1, 0, 0], [2, 3, 0]]],
            "sparse": [[[[0, 0], [0, 1], [1, 0], [1, 1]], [1, 2, 3, 4], [2, 4]], [[[0, 0], [0, 1]], [5, 6], [1, 4]]],
            "resampled": [[1, x] for x in range(1, 40, 2)],  # class 0 has target probability 0, class 1 is kept
            "sloppy": [0, 0, 1, 1, 2, 2],
        },
        "lookup": {"lookup": [1, -1, 2], "mutable": [7, -1]},
        "keras": {
            "gru": ["hard_sigmoid", False], "lstm": "hard_sigmoid", "adam": [0.01, 1e-08],
            "adagrad": {"learning_rate": 0.01, "epsilon": 1e-08, "initial_accumulator_value": 0.0},
            "adadelta": {"learning_rate": 1.0, "rho": 0.95, "epsilon": 1e-08},
            "session": ["Session", "Session"], "predict": [2, 3], "rnn_finite": True,
            "small_optimizer": ["legacy", 1e-08],
        },
        "seq2seq": {"by_example": [round(by_example, 5)], "custom": round(2 * by_example, 5), "decoder": [2, [1, 3]]},
        "summary": {
            "pair": [["a", 1.0], ["b", 2.0]],
            "tags": ["a", "b", "img/image", "loss", "w"],
            "scalars": [["a", 1.0], ["b", 2.0], ["loss", 3.0]],
        },
    }


def test_programs_rewrite_without_manual_work():
    for name in NAMES:
        result = rewrite_source((PROGRAMS / f"legacy_{name}.py").read_bytes(), ENABLED)
        manual = [(f.line, f.rule, f.message) for f in result.findings if not f.fixable]
        assert not manual, (name, manual)
        imports = [x for x in result.new.decode().splitlines() if x.startswith(("import ", "from "))]
        assert not [x for x in imports if "contrib" in x or "models" in x or "seq2seq" in x], (name, imports)


@pytest.mark.slow
def test_moved_programs_run_on_tf215(tmp_path: Path):
    data = tmp_path / "data"
    data.mkdir()
    for file, text in (("b.txt", "2\n3\n"), ("a.txt", "1\n"), ("c.csv", "x\n"), ("words.vocab", "a\nb\nc\n")):
        (data / file).write_text(text)
    paths = []
    for name in NAMES:
        path = tmp_path / f"{name}.py"
        path.write_bytes(rewrite_source((PROGRAMS / f"legacy_{name}.py").read_bytes(), ENABLED).new)
        paths.append(str(path))
    paths.append(str(PROGRAMS / "reference_lookup.py"))  # the TF 1.15 lookup functions, as they are
    out = tmp_path / "results.json"
    env = {**os.environ, "TF_CPP_MIN_LOG_LEVEL": "3"}
    run = run_python([str(PROGRAMS / "run_all.py"), str(data), str(out), *paths], env=env, timeout=400, cwd=tmp_path)
    assert run.returncode == 0, run.stderr[-3000:]
    results = json.loads(out.read_text())
    legacy = _legacy_results()
    reference = results["reference_lookup"]  # TFM613's helpers give the ids of the TF 1.15 functions
    assert "error" not in reference, reference
    assert reference["to_string"] == ["a", "b", "UNK"] and reference["from_file"] == [0, 0, 1, 0, 2, 0]
    legacy["lookup"].update(reference)
    for name in NAMES:
        got = results[name]
        assert "error" not in got, (name, got["error"])
        if name == "keras":
            got["adagrad"]["learning_rate"] = round(got["adagrad"]["learning_rate"], 6)
        assert got == legacy[name], name


def test_without_the_new_rules_the_programs_keep_contrib():
    """The contrib family without TFM610-TFM615 leaves what the programs die on (a check that the
    slow test measures these rules, not code that ran anyway)."""
    others = frozenset(r for r in ENABLED if r not in {"TFM610", "TFM611", "TFM612", "TFM615"})
    kept = rewrite_source((PROGRAMS / "legacy_data13.py").read_bytes(), others).new.decode()
    assert "tf.contrib.data" in kept
