"""The eager MNIST sample: legacy (seed 003) -> expected migration, and the migration runs on TF 2.15.

The run happens in ONE child process (TensorFlow import and the training steps cost a few
seconds): it imports ``samples/eager_mnist/expected.py``, trains for a few steps through the
program's own ``main`` (both the minimize and the implicit-gradients paths), saves with
``tf.train.Checkpoint``, restores into a fresh model and prints a JSON summary.
"""

import json
import os
from pathlib import Path

import pytest

from tfmigrate.codemod.engine import rewrite_source
from tfmigrate.codemod.rule import load_catalog
from tests.tfchildren import run_python, skip_without_tensorflow

SAMPLE = Path(__file__).resolve().parent.parent / "samples" / "eager_mnist"

CHILD = r'''
import importlib.util, json, os, sys
import numpy as np
import tensorflow as tf
tf.random.set_seed(0)
spec = importlib.util.spec_from_file_location("expected", sys.argv[1])
mod = importlib.util.module_from_spec(spec)
spec.loader.exec_module(mod)
out = {}
work = sys.argv[2]
model, data_format, save_path, test_loss = mod.main(
    ["--checkpoint_dir", os.path.join(work, "ckpt"), "--output_dir", os.path.join(work, "logs"), "--no-gpu"])
out["test_loss"] = test_loss
out["save_path"] = save_path
out["step_after_minimize"] = int(tf.compat.v1.train.get_global_step().numpy())
out["data_format"] = data_format
# the implicit-gradients path trains too (same global step keeps counting)
model2, _, save_path2, test_loss2 = mod.main(
    ["--checkpoint_dir", os.path.join(work, "ckpt2"), "--output_dir", os.path.join(work, "logs2"), "--implicit",
     "--no-gpu"])
out["step_after_implicit"] = int(tf.compat.v1.train.get_global_step().numpy())
out["test_loss_implicit"] = test_loss2
images = np.random.RandomState(1).rand(8, 784).astype(np.float32)
before = model(images, training=False).numpy()
fresh = mod.MNISTModel(data_format)
status = tf.train.Checkpoint(model=fresh).restore(save_path).expect_partial()
after = fresh(images, training=False).numpy()
status.assert_existing_objects_matched()
out["restored_equal"] = bool(np.array_equal(before, after))
out["max_abs_diff"] = float(np.max(np.abs(before - after)))
# without --output_dir the legacy program wrote no summaries (create_file_writer(None) was a no-op writer)
try:
    mod.main(["--checkpoint_dir", os.path.join(work, "ckpt3"), "--no-gpu"])
    out["none_logdir"] = "ok"
except Exception as exc:
    out["none_logdir"] = f"{type(exc).__name__}: {exc}"
reader = tf.train.load_checkpoint(save_path)
out["keys"] = sorted(reader.get_variable_to_shape_map())
out["events"] = sorted(os.listdir(os.path.join(work, "logs", "train")))
print("JSON" + json.dumps(out))
'''


def test_expected_is_the_migration_of_legacy():
    catalog = load_catalog()
    legacy = (SAMPLE / "legacy.py").read_bytes()
    result = rewrite_source(legacy, catalog.selected(None), path="legacy.py")
    assert result.new.decode() == (SAMPLE / "expected.py").read_text(encoding="utf-8")
    again = rewrite_source(result.new, catalog.selected(None), path="expected.py")
    assert again.new == result.new
    code = result.new.decode().split('"""', 2)[2]  # past the module docstring
    assert "contrib" not in code
    assert "tfe." not in code


@pytest.fixture(scope="module")
def run_expected(tmp_path_factory):
    """The one TensorFlow child process of this module; its JSON summary."""
    skip_without_tensorflow()
    if not any(f.prefix == "TFM5" for f in load_catalog().families):
        pytest.skip("expected.py needs the TFM5 renames (tf.train.get_or_create_global_step -> tf.compat.v1)")
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3", CUDA_VISIBLE_DEVICES="")
    work = tmp_path_factory.mktemp("eager_mnist")
    proc = run_python(["-c", CHILD, str(SAMPLE / "expected.py"), str(work)], timeout=300, env=env)
    assert proc.returncode == 0, proc.stderr[-3000:]
    line = next(l for l in proc.stdout.splitlines() if l.startswith("JSON"))
    return json.loads(line[4:])


@pytest.mark.slow
def test_expected_trains_saves_and_restores_on_tf215(run_expected):
    out = run_expected
    # 128 examples in batches of 32: 4 steps per epoch, and the global step counts them
    assert out["step_after_minimize"] == 4
    assert out["step_after_implicit"] == 8
    assert out["data_format"] == "channels_last"
    assert out["restored_equal"], out["max_abs_diff"]
    assert 0.0 < out["test_loss"] < 10.0 and 0.0 < out["test_loss_implicit"] < 10.0
    assert "model/conv1/kernel/.ATTRIBUTES/VARIABLE_VALUE" in out["keys"]
    assert "step/.ATTRIBUTES/VARIABLE_VALUE" in out["keys"]
    assert any(k.startswith("optimizer/") for k in out["keys"])
    assert out["events"], "the summary writer wrote an event file"


@pytest.mark.slow
def test_expected_runs_without_a_summary_dir(run_expected):
    assert run_expected["none_logdir"] == "ok", run_expected["none_logdir"]
