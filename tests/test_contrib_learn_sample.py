"""The contrib.learn Experiment sample: legacy -> expected migration, and the migration runs on TF 2.15.

One child process (cwd = a tmp dir, so the relative model_dir lands there) runs
``samples/contrib_learn_experiment/expected.py`` as ``__main__``: it trains through
``tf.estimator.train_and_evaluate`` for 30 steps, evaluates, and prints the program's own JSON
summary. The same child then checks what the migration relies on: the migrated RunConfig is the
estimator's config, the embedding column carries the legacy initializer (stddev 1/sqrt(3), not
TF 2's 1/sqrt(2)), and TF 2.15's defaults equal the legacy ones the rules leave implicit.
"""

import json
import math
import os
from pathlib import Path

import pytest

from tfmigrate.codemod.engine import rewrite_source
from tfmigrate.codemod.rule import load_catalog
from tests.tfchildren import run_python, skip_without_tensorflow

SAMPLE = Path(__file__).resolve().parent.parent / "samples" / "contrib_learn_experiment"

CHILD = r'''
import inspect, io, json, runpy, sys, contextlib
buffer = io.StringIO()
with contextlib.redirect_stdout(buffer):
    program = runpy.run_path(sys.argv[1], run_name="__main__")
import tensorflow as tf
summary = json.loads(buffer.getvalue().strip().splitlines()[-1])
estimator, train_spec, eval_spec = program["experiment_fn"](output_dir=program["MODEL_DIR"])
embedding = program["FEATURE_COLUMNS"][2]
run_config = inspect.signature(tf.estimator.RunConfig.__init__).parameters
facts = {
    "config_model_dir": estimator.config.model_dir,
    "config_save_checkpoints_steps": estimator.config.save_checkpoints_steps,
    "config_save_checkpoints_secs": estimator.config.save_checkpoints_secs,
    "config_tf_random_seed": estimator.config.tf_random_seed,
    "train_max_steps": train_spec.max_steps,
    "eval_steps": eval_spec.steps,
    "embedding_stddev": embedding.initializer.stddev,
    "embedding_combiner": embedding.combiner,
    "vocabulary_default_value": embedding.categorical_column.default_value,
    "defaults": {
        name: run_config[name].default
        for name in ("save_summary_steps", "keep_checkpoint_max", "keep_checkpoint_every_n_hours", "log_step_count_steps", "tf_random_seed")
    },
    "eval_spec_default_steps": tf.estimator.EvalSpec(lambda: None).steps,
    "embedding_default_combiner": inspect.signature(tf.feature_column.embedding_column).parameters["combiner"].default,
    "numeric_default_shape": list(tf.feature_column.numeric_column("a").shape),
    "hash_default_dtype": tf.feature_column.categorical_column_with_hash_bucket("h", 10).dtype.name,
    "mode_keys": [tf.estimator.ModeKeys.TRAIN, tf.estimator.ModeKeys.EVAL, tf.estimator.ModeKeys.PREDICT],
}
print("JSON" + json.dumps({"summary": summary, "facts": facts}))
'''


def _migrate(data: bytes) -> bytes:
    catalog = load_catalog()
    return rewrite_source(data, catalog.selected(None), path="legacy.py").new


def test_expected_is_the_migration_of_legacy():
    new = _migrate((SAMPLE / "legacy.py").read_bytes())
    assert new.decode() == (SAMPLE / "expected.py").read_text(encoding="utf-8")
    assert _migrate(new) == new, "a second run must change nothing"
    code = new.decode().split('"""', 2)[2]  # past the module docstring
    assert "contrib" not in code
    assert "learn_runner" not in code
    assert "tf.estimator.train_and_evaluate(*experiment_fn(output_dir=MODEL_DIR))" in code


@pytest.mark.slow
def test_expected_trains_and_evaluates_on_tf215(tmp_path):
    skip_without_tensorflow()
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3", CUDA_VISIBLE_DEVICES="")
    proc = run_python(["-c", CHILD, str(SAMPLE / "expected.py")], timeout=300, env=env, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr[-3000:]
    line = next(l for l in proc.stdout.splitlines() if l.startswith("JSON"))
    out = json.loads(line[4:])
    summary, facts = out["summary"], out["facts"]

    # trained to TrainSpec(max_steps=30) and evaluated at the end
    assert summary["global_step"] == 30
    assert 0.0 <= summary["accuracy"] <= 1.0 and math.isfinite(summary["loss"])
    assert summary["accuracy"] >= 0.75, summary  # linearly separable toy data: it really trained
    # the migrated RunConfig(save_checkpoints_steps=10) is honoured: a checkpoint every 10 steps in model_dir
    assert {10, 20, 30} <= set(summary["checkpoints"]), summary["checkpoints"]
    model_dir = tmp_path / "model_dir"  # the relative model_dir, under the child's cwd
    assert (model_dir / "checkpoint").is_file()
    assert (model_dir / "model.ckpt-30.index").is_file()
    assert (model_dir / "eval").is_dir()  # train_and_evaluate wrote its evaluation summaries
    variables = summary["variables"]
    assert variables["input_layer/color_embedding/embedding_weights"] == [3, 2]
    assert variables["dense/kernel"] == [8, 8]  # 2 (x) + 4 (age buckets) + 2 (color embedding) -> 8 units
    assert variables["dense_1/kernel"] == [8, 2]
    assert any(name.endswith("/Adam") for name in variables)

    assert facts["config_model_dir"] == "model_dir"
    assert facts["config_save_checkpoints_steps"] == 10
    assert facts["config_save_checkpoints_secs"] is None
    assert facts["config_tf_random_seed"] == 7
    assert facts["train_max_steps"] == 30 and facts["eval_steps"] == 1
    # TFM158: the legacy initializer (1/sqrt(vocabulary size 3)), not TF 2's 1/sqrt(dimension 2)
    assert facts["embedding_stddev"] == pytest.approx(1 / math.sqrt(3))
    assert facts["embedding_combiner"] == "mean"
    assert facts["vocabulary_default_value"] == -1
    # TF 2.15 defaults the rules rely on being the legacy ones (contrib.learn RunConfig / Experiment / layers)
    assert facts["defaults"] == {
        "save_summary_steps": 100,
        "keep_checkpoint_max": 5,
        "keep_checkpoint_every_n_hours": 10000,
        "log_step_count_steps": 100,
        "tf_random_seed": None,
    }
    assert facts["eval_spec_default_steps"] == 100  # legacy Experiment eval_steps=100
    assert facts["embedding_default_combiner"] == "mean"  # legacy embedding_column combiner="mean"
    assert facts["numeric_default_shape"] == [1]  # legacy real_valued_column dimension=1
    assert facts["hash_default_dtype"] == "string"  # legacy sparse_column_with_hash_bucket dtype=tf.string
    # tf.estimator.ModeKeys.PREDICT is the legacy INFER value: mode strings compare as before
    assert facts["mode_keys"] == ["train", "eval", "infer"]
