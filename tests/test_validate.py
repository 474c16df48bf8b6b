"""``tfmigrate validate`` for real: TensorFlow trains, checkpoints, restores and resumes on CPU.

Each case is one short TF child process (a few steps on synthesized data).
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from tests.tfchildren import run_python

ROOT = Path(__file__).resolve().parents[1]

MODEL = textwrap.dedent(
    '''
    import tensorflow as tf

    def build(model_dir=None, hidden=(10, 10)):
        fc = tf.feature_column
        age = fc.numeric_column("age")
        shop = fc.categorical_column_with_identity("shop", 10)
        color = fc.categorical_column_with_vocabulary_list("color", ["red", "green", "blue"])
        city = fc.categorical_column_with_hash_bucket("city", 20)
        return tf.estimator.DNNLinearCombinedClassifier(
            linear_feature_columns=[city, fc.crossed_column(["city", color], hash_bucket_size=30),
                                    fc.weighted_categorical_column(shop, "shop_weight")],
            dnn_feature_columns=[fc.numeric_column("x", shape=(3,)), fc.bucketized_column(age, boundaries=[18, 30, 50]),
                                 fc.indicator_column(color), fc.embedding_column(shop, dimension=4)],
            dnn_hidden_units=list(hidden), n_classes=3, label_vocabulary=["low", "mid", "high"], model_dir=model_dir,
            dnn_optimizer=tf.keras.optimizers.legacy.SGD(learning_rate=0.1),
            config=tf.estimator.RunConfig(save_checkpoints_steps=2, keep_checkpoint_max=2, tf_random_seed=1))

    def wider(model_dir=None):
        return build(model_dir, hidden=(20, 20))

    def wider_on_old_dir():
        # the code names its own model_dir, which holds a [10, 10] checkpoint
        return build(OLD_DIR, hidden=(20, 20))

    def keras_model():
        inp = tf.keras.Input(shape=(4,), name="x")
        out = tf.keras.layers.Dense(3)(tf.keras.layers.Dense(8, activation="relu")(inp))
        model = tf.keras.Model(inp, out)
        model.compile(optimizer=tf.keras.optimizers.legacy.SGD(0.1),
                      loss=tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True))
        return model

    def custom(model_dir=None):
        def model_fn(features, labels, mode, params):
            logits = tf.compat.v1.layers.dense(features["x"], 3, name="out")
            if mode == tf.estimator.ModeKeys.PREDICT:
                return tf.estimator.EstimatorSpec(mode, predictions={"logits": logits})
            loss = tf.compat.v1.losses.sparse_softmax_cross_entropy(labels, logits)
            step = tf.compat.v1.train.get_global_step()
            train_op = tf.compat.v1.train.GradientDescentOptimizer(0.1).minimize(loss, global_step=step)
            return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op)
        return tf.estimator.Estimator(model_fn=model_fn, model_dir=model_dir)

    def train_input_fn():
        import numpy as np
        x = np.random.RandomState(0).rand(40, 4).astype("float32")
        return tf.data.Dataset.from_tensor_slices(({"x": x}, (x[:, 0] * 3).astype("int64"))).repeat().batch(8)

    def keeps_nothing():
        return tf.estimator.LinearRegressor(
            feature_columns=[tf.feature_column.numeric_column("x", shape=(2, 2))], label_dimension=2,
            config=tf.estimator.RunConfig(save_checkpoints_steps=None, save_checkpoints_secs=None))
    '''
)

MIGRATED = textwrap.dedent(
    '''
    import tensorflow as tf

    FEATURES = [tf.feature_column.numeric_column("x", shape=[4])]

    classifier = tf.estimator.DNNClassifier(
        feature_columns=FEATURES,
        hidden_units=[10, 10],
        n_classes=3,
        optimizer=lambda: tf.keras.optimizers.legacy.Adagrad(learning_rate=0.05),
        loss_reduction=tf.keras.losses.Reduction.SUM_OVER_BATCH_SIZE,
        config=tf.estimator.RunConfig(save_checkpoints_steps=3, keep_checkpoint_max=5),
    )
    '''
)


def validate(*args: str, fmt: str = "json") -> tuple[int, dict | str]:
    proc = subprocess.run(
        [sys.executable, "-m", "tfmigrate", "validate", *args, "--format", fmt],
        capture_output=True, text=True, cwd=ROOT, timeout=300,
    )
    if fmt == "json":
        assert proc.stdout.strip(), proc.stderr
        return proc.returncode, json.loads(proc.stdout)
    return proc.returncode, proc.stdout + proc.stderr


def stage(result: dict, name: str) -> dict:
    for st in result["stages"]:
        if st["name"] == name:
            return st
    raise AssertionError(f"no stage {name!r} in {[s['name'] for s in result['stages']]}")


@pytest.fixture(scope="module")
def model_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    d = tmp_path_factory.mktemp("target")
    path = d / "model.py"
    path.write_text(MODEL.replace("OLD_DIR", repr(str(d / "old"))), encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def trained(model_file: Path) -> tuple[int, dict, Path]:
    """One passing run that trains into a model_dir the failing cases reuse."""
    model_dir = model_file.parent / "old"
    code, result = validate(f"{model_file}:build", "--steps", "6", "--model-dir", str(model_dir), "--device", "cpu")
    return code, result, model_dir


@pytest.mark.slow
def test_validate_passes_every_stage(trained: tuple[int, dict, Path]) -> None:
    code, result, model_dir = trained
    assert code == 0, result
    assert result["schema"] == 1 and result["passed"] is True and result["steps"] == 6
    assert result["device"] == "CPU"
    names = [s["name"] for s in result["stages"]]
    assert names == ["load", "train", "checkpoint files", "restore", "resume", "checkpoint analysis"]
    assert all(s["passed"] and s["seconds"] >= 0 and s["detail"] for s in result["stages"])
    # every feature-column kind got synthesized inputs
    assert result["estimator"] == "DNNLinearCombinedClassifierV2"
    assert result["inputs"] == {
        "city": "hashed", "color": "vocabulary of 3", "shop": "identity 0..9", "shop_weight": "weight",
        "x": "numeric [3]", "age": "bucketized 4 buckets", "(label)": "classes ['low', 'mid', 'high']",
    }
    train = stage(result, "train")
    assert train["steps_per_second"] > 0 and "CPU" in train["dense_device"]
    # save every 2 steps, keep 2: steps 4 and 6 remain on disk
    assert stage(result, "checkpoint files")["checkpoint_steps"] == [4, 6]
    assert sorted(p.name for p in model_dir.glob("model.ckpt-*.index")) == ["model.ckpt-8.index", "model.ckpt-9.index"]
    assert "bit-identical" in stage(result, "restore")["detail"]
    assert "6 + 3 = 9" in stage(result, "resume")["detail"]
    assert result["checkpoints"] and result["checkpoints"][0]["compatible"] is True


@pytest.mark.slow
def test_changed_hidden_units_on_given_model_dir_fails_before_training(model_file: Path, trained: tuple[int, dict, Path]) -> None:
    _, _, model_dir = trained
    before = sorted(p.name for p in model_dir.iterdir())
    code, result = validate(f"{model_file}:wider", "--steps", "2", "--model-dir", str(model_dir))
    assert code == 1
    failed = [s for s in result["stages"] if not s["passed"]]
    assert [s["name"] for s in failed] == ["existing checkpoint"]
    assert "dnn/hiddenlayer_0" in failed[0]["detail"] and "10]" in failed[0]["detail"] and "20]" in failed[0]["detail"]
    assert "silently" in failed[0]["detail"].lower()
    assert "train" not in [s["name"] for s in result["stages"]]  # nothing trained into the user's checkpoint
    assert sorted(p.name for p in model_dir.iterdir()) == before
    analysis = result["checkpoints"][0]
    assert analysis["compatible"] is False
    bad = {p["model_name"]: p for p in analysis["pairs"] if p["status"] == "shape_mismatch"}
    assert bad["dnn/hiddenlayer_0/kernel"]["checkpoint_shape"][1] == 10 and bad["dnn/hiddenlayer_0/kernel"]["model_shape"][1] == 20


@pytest.mark.slow
def test_code_naming_a_mismatched_model_dir_fails_that_stage(model_file: Path, trained: tuple[int, dict, Path]) -> None:
    """The text form of a failed model_dir checkpoint stage: the stage, FAIL, and the report ends with the
    verdict and the remedy (the JSON form of the same stage on the seed-001 trap sample:
    tests/test_validate_samples.py's test_seed_001_trap_fails_on_the_models_own_model_dir_with_the_remedy)."""
    code, text = validate(f"{model_file}:wider_on_old_dir", "--steps", "2", fmt="text")
    assert code == 1, text
    assert "model_dir checkpoint" in text and "FAIL" in text
    flat = " ".join(text.split())
    verdict = flat[flat.index("failed on CPU: stage model_dir checkpoint"):]  # the last line: the verdict, then the stage's remedy
    assert "Remedy: " in verdict and "SILENTLY KEEPS" in verdict, verdict


@pytest.mark.slow
def test_runconfig_that_keeps_no_checkpoints_fails(model_file: Path) -> None:
    code, result = validate(f"{model_file}:keeps_nothing", "--steps", "3")
    assert code == 1
    st = stage(result, "checkpoint files")
    assert st["passed"] is False
    assert "save_checkpoints_steps=None" in st["detail"] and "saves none" in st["detail"]
    assert stage(result, "train")["passed"] is True
    assert result["inputs"] == {"x": "numeric [2, 2]", "(label)": "regression, 2 value(s)"}


@pytest.mark.slow
def test_migrated_file_with_legacy_checkpoint_and_convert(tmp_path: Path) -> None:
    """A migrated source file (what rewrite writes: lambda optimizer, tf.keras constants) is built statically;
    the user's contrib.learn 1.x checkpoint does not restore as is, --convert renames it."""
    path = tmp_path / "migrated.py"
    path.write_text(MIGRATED, encoding="utf-8")
    legacy = ROOT / "samples" / "checkpoints" / "contrib1x"
    code, result = validate(str(path), "--steps", "3", "--checkpoint", str(legacy), "--convert", str(tmp_path / "converted"))
    assert code == 1, result
    assert result["estimator"].startswith("DNNClassifier")
    for name in ("load", "train", "checkpoint files", "restore", "resume", "checkpoint analysis", "convert"):
        assert stage(result, name)["passed"], stage(result, name)
    assert stage(result, "checkpoint files")["checkpoint_steps"] == [0, 3]
    assert "3 + 1 = 4" in stage(result, "resume")["detail"]
    old = stage(result, "legacy checkpoint")
    assert old["passed"] is False and "contrib.learn 1.x" in old["detail"] and "NotFoundError" in old["detail"]
    assert "renamed" in stage(result, "convert")["detail"] and result["converted"].startswith(str(tmp_path / "converted"))
    # the renamed weights restore; the legacy Adagrad slots cannot be carried, so training from it is refused
    assert "model weights restore" in stage(result, "converted checkpoint")["detail"]
    assert [s["name"] for s in result["stages"]][-3:] == ["legacy checkpoint", "convert", "converted checkpoint"]


@pytest.mark.slow
def test_keras_model_target(model_file: Path) -> None:
    code, result = validate(f"{model_file}:keras_model", "--steps", "3")
    assert code == 0, result
    assert stage(result, "load")["detail"].startswith("Keras model")
    assert result["inputs"] == {"x": "keras input [4]", "(label)": "3 classes (sparse)"}
    assert "bit-identical" in stage(result, "restore")["detail"] and "3 + 1 = 4" in stage(result, "resume")["detail"]


@pytest.mark.slow
def test_custom_model_fn_trains_on_the_modules_input_fn(model_file: Path) -> None:
    code, result = validate(f"{model_file}:custom", "--steps", "3")
    assert code == 0, result
    assert stage(result, "load")["detail"].startswith("Estimator with a custom model_fn")
    assert result["inputs"]["x"] == "from train_input_fn() [4]"
    train = stage(result, "train")["detail"]
    assert "(e.g. out/" in train  # a forward kernel, whatever this CPU named it
    forward, backward, variables = (int(train.split(f" {kind}")[0].rsplit(" ", 1)[-1]) for kind in ("forward op(s)", "backward op(s)", "variable(s)"))
    assert forward >= 1 and backward >= 1 and variables == 2  # out/kernel, out/bias
    assert all(s["passed"] for s in result["stages"])


@pytest.mark.slow
def test_gpu_device(model_file: Path) -> None:
    """Without a GPU, --device gpu cannot run (exit 2, one line); with one, the dense layers are on it."""
    code, result = validate(f"{model_file}:build", "--steps", "2", "--device", "gpu")
    if code == 2:
        assert "no GPU" in result["error"] and "\n" not in result["error"]
        assert result["passed"] is False
    else:
        assert code == 0, result
        assert result["device"] == "GPU" and stage(result, "train")["dense_device"].startswith("GPU")


def test_missing_target_cannot_run(tmp_path: Path) -> None:
    code, result = validate(f"{tmp_path / 'nope.py'}:build")
    assert code == 2
    assert "no such file" in result["error"]
    assert result["stages"] == []


@pytest.mark.slow
def test_a_child_that_runs_too_long_is_stopped(model_file: Path) -> None:
    from tfmigrate.validate.runner import run_validation

    result = run_validation(f"{model_file}:build", steps=2, timeout=1)
    assert result["exit_code"] == 2 and result["passed"] is False
    assert result["error"] == "the validation child did not finish in 1 s and was stopped"


TRAP = ROOT / "samples" / "iris_checkpoint_trap"


def _listing(directory: Path) -> list[tuple[str, int, int]]:
    return sorted((str(p.relative_to(directory)), p.stat().st_size, p.stat().st_mtime_ns) for p in directory.rglob("*"))


@pytest.mark.slow
def test_compatible_own_model_dir_is_said_to_be_so(tmp_path: Path) -> None:
    """The same checkpoint under a definition that still fits it ([10, 10]), named as the default of the
    function's model_dir parameter: the stage passes and says so; the directory is only read."""
    path = tmp_path / "fits.py"
    path.write_text(textwrap.dedent(f'''
        import tensorflow as tf

        def build(model_dir={str(TRAP / "models" / "iris")!r}):
            return tf.estimator.DNNClassifier(
                feature_columns=[tf.feature_column.numeric_column("x", shape=[4])], hidden_units=[10, 10], n_classes=3,
                model_dir=model_dir, optimizer=lambda: tf.keras.optimizers.legacy.Adagrad(learning_rate=0.05),
                loss_reduction=tf.keras.losses.Reduction.SUM)
    '''), encoding="utf-8")
    before = _listing(TRAP / "models")
    code, result = validate(f"{path}:build", "--steps", "2", "--device", "cpu")
    assert code == 0, result
    st = stage(result, "model_dir checkpoint")
    assert st["passed"] is True and "holds a compatible checkpoint" in st["detail"] and "nothing written there" in st["detail"]
    assert result["model_dir"] != str(TRAP / "models" / "iris")
    assert _listing(TRAP / "models") == before


PROGRAM = textwrap.dedent(
    '''
    """A real program: flags, data and the estimator built inside main(), trained through train_and_evaluate."""
    import argparse
    import sys

    import numpy as np
    import tensorflow as tf


    def main():
        parser = argparse.ArgumentParser()
        parser.add_argument("--model_dir", default="runs/iris")
        parser.add_argument("--hidden", type=int, default=10)
        parser.add_argument("--fail", action="store_true")
        parser.add_argument("--add_metrics", action="store_true")
        parser.add_argument("--optimizer_instance", action="store_true")
        args = parser.parse_args()
        if args.fail:
            sys.exit("no data")
        rng = np.random.RandomState(0)
        x = rng.normal(size=(32, 4)).astype(np.float32)
        y = rng.randint(0, 3, size=32)

        def input_fn():
            return tf.data.Dataset.from_tensor_slices(({"x": x}, y)).repeat().batch(8)

        est = tf.estimator.DNNClassifier(
            feature_columns=[tf.feature_column.numeric_column("x", shape=[4])], hidden_units=[args.hidden, args.hidden],
            n_classes=3, model_dir=args.model_dir,
            optimizer=(tf.keras.optimizers.legacy.Adagrad(learning_rate=0.05) if args.optimizer_instance
                       else lambda: tf.keras.optimizers.legacy.Adagrad(learning_rate=0.05)),
            loss_reduction=tf.keras.losses.Reduction.SUM)
        if args.add_metrics:  # returns a tf.compat.v1.estimator.Estimator, not a tf.estimator one
            est = tf.estimator.add_metrics(est, lambda labels, predictions: {"n": tf.compat.v1.metrics.mean(predictions["logits"])})
        tf.estimator.train_and_evaluate(est, tf.estimator.TrainSpec(input_fn, max_steps=1000), tf.estimator.EvalSpec(input_fn, steps=1))
        open("after_training.txt", "w").write("the program ran past its training")


    if __name__ == "__main__":
        main()
    '''
)


@pytest.mark.slow
def test_program_runs_as_main_with_its_own_flags(tmp_path: Path) -> None:
    """--program --args: the program's own flags pick the layers and the model_dir; the estimator main()
    built is what trains (never its own 1000 steps), its model_dir is only read, and the trap is caught.
    The compatible run is also a v1 Estimator (add_metrics) whose model_fn holds one Keras optimizer
    instance (it serves one graph only): each graph validation builds gets a fresh one from its config."""
    path = tmp_path / "train.py"
    path.write_text(PROGRAM, encoding="utf-8")
    own = str(TRAP / "models" / "iris")
    before = _listing(TRAP / "models")
    code, result = validate(str(path), "--program", "--args", f"--model_dir {own} --hidden 20", "--steps", "2", "--device", "cpu")
    assert code == 1, result
    assert "the program ran as __main__ up to its first Estimator.train" in stage(result, "load")["detail"]
    assert result["declared_model_dir"] == own
    st = stage(result, "model_dir checkpoint")
    assert st["passed"] is False and "[4, 10] in the checkpoint, [4, 20] in the model" in st["detail"]
    assert stage(result, "train")["passed"] and "2 + 1 = 3" in stage(result, "resume")["detail"]
    code, result = validate(str(path), "--program", "--args", f"--model_dir {own} --hidden 10 --add_metrics --optimizer_instance",
                            "--steps", "2", "--device", "cpu")
    assert code == 0, result
    assert "holds a compatible checkpoint" in stage(result, "model_dir checkpoint")["detail"]
    assert result["estimator"] == "Estimator" and "2 + 1 = 3" in stage(result, "resume")["detail"]
    assert _listing(TRAP / "models") == before
    assert not (ROOT / "after_training.txt").exists() and not (ROOT / "runs").exists()


@pytest.mark.slow
def test_program_that_stops_before_training_cannot_run(tmp_path: Path) -> None:
    path = tmp_path / "train.py"
    path.write_text(PROGRAM, encoding="utf-8")
    code, result = validate(str(path), "--program", "--args", "--fail")
    assert code == 2
    assert result["error"] == f"{path}: the program exited (sys.exit('no data')) before it trained a tf.estimator.Estimator; pass its flags with --args"


def test_dense_placement_follows_name_scopes_not_one_cpus_op_names() -> None:
    """A build that renames the forward kernel beyond recognition (here `_OneDnnFusedDense`; oneDNN's
    `_MklNativeFusedMatMul` was the case that broke) still reports the forward pass: the layer's name scope
    comes from any matrix product in it (here the backward one), then every op under it counts. In a
    TensorFlow child (tests/tfchildren.py), which has TensorFlow imported already, not in this process."""
    proc = run_python(["-c", DENSE_PLACEMENT_CHECK], timeout=120)
    assert proc.returncode == 0 and proc.stdout.strip().endswith("ok"), proc.stderr[-3000:]


DENSE_PLACEMENT_CHECK = """
from tensorflow.core.framework import graph_pb2

from tfmigrate.validate._child import dense_placement

graph = graph_pb2.GraphDef()
for name, op in [
    ("dnn/hiddenlayer_0/kernel", "VarHandleOp"), ("dnn/hiddenlayer_0/Relu", "_OneDnnFusedDense"),
    ("dnn/hiddenlayer_0/BiasAdd/ReadVariableOp", "ReadVariableOp"),
    ("training/Adagrad/gradients/gradients/dnn/hiddenlayer_0/MatMul_grad/MatMul_1", "MatMul"),
    ("head/losses/Mean", "Mean"), ("global_step", "VarHandleOp"),
]:
    graph.node.add(name=name, op=op, device="/job:localhost/replica:0/task:0/device:CPU:0")
got = dense_placement([graph])
assert list(got)[0] == "training/Adagrad/gradients/gradients/dnn/hiddenlayer_0/MatMul_grad/MatMul_1"
assert got["dnn/hiddenlayer_0/Relu"].endswith("CPU:0")
assert "(variable) dnn/hiddenlayer_0/kernel" in got and "dnn/hiddenlayer_0/BiasAdd/ReadVariableOp" in got
assert "head/losses/Mean" not in got and "global_step" not in got
print("ok")
"""


def test_cluster_spec_needs_chief_worker_and_ps() -> None:
    from tfmigrate.validate.cluster import ClusterSpecError, parse

    assert parse("chief=1,worker=2,ps=1") == {"chief": 1, "worker": 2, "ps": 1}
    for bad in ("worker=2", "chief=1,worker=1", "chief=1,worker=1,ps=1,evaluator=1", "chief=two"):
        with pytest.raises(ClusterSpecError):
            parse(bad)


PS_PROGRAM = '''
import sys
import tensorflow as tf

# a 2017-style launcher with the default flags of a parameter server task
cluster = tf.train.ClusterSpec({"ps": ["127.0.0.1:PORT"], "worker": ["127.0.0.1:1"]})
server = tf.compat.v1.train.Server(cluster, job_name="ps", task_index=0)
server.join()
'''

STALLED_PROGRAM = '''
import subprocess
import sys
import time

# waits for other processes that never come, with a helper process of its own
helper = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
open(sys.argv[1], "w").write(str(helper.pid))
while True:
    time.sleep(0.1)
'''


@pytest.mark.slow
def test_program_that_becomes_a_parameter_server_names_the_cluster_run(tmp_path: Path) -> None:
    """A program whose default flags make it a ps task never trains: validate stops at its join() with the
    command that can validate it, instead of waiting for the 30-minute watchdog."""
    from tfmigrate.validate.cluster import _ports

    path = tmp_path / "dist.py"
    path.write_text(PS_PROGRAM.replace("PORT", str(_ports(1)[0])), encoding="utf-8")
    started = time.monotonic()
    code, result = validate(str(path), "--program", "--device", "cpu")
    assert code == 2, result
    assert time.monotonic() - started < 120
    assert result["error"].startswith(f"{path}: the program made this process a parameter server (Server.join() serves forever)")
    assert f"tfmigrate validate --cluster chief=1,worker=1,ps=1 {path}:FUNCTION" in result["error"] and "\n" not in result["error"]


@pytest.mark.slow
def test_program_that_never_trains_is_stopped_with_what_it_started(tmp_path: Path) -> None:
    """A program that waits forever before its first train is stopped at the limit (here 1 s), with one
    line naming the targets that can run, and the process it started does not outlive validate."""
    import os

    path = tmp_path / "stall.py"
    path.write_text(STALLED_PROGRAM, encoding="utf-8")
    pid_file = tmp_path / "helper.pid"
    proc = subprocess.run(
        [sys.executable, "-m", "tfmigrate", "validate", str(path), "--program", "--args", str(pid_file), "--format", "json"],
        capture_output=True, text=True, cwd=ROOT, timeout=120, env={**os.environ, "TFMIGRATE_PROGRAM_LIMIT": "1"},
    )
    result = json.loads(proc.stdout)
    assert proc.returncode == 2, result
    assert result["error"].startswith(f"{path}: the program ran 1 s without reaching its first Estimator.train")
    assert f"tfmigrate validate {path}:FUNCTION" in result["error"]
    helper = int(pid_file.read_text())
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and Path(f"/proc/{helper}").exists() and "Z" not in Path(f"/proc/{helper}/stat").read_text().split()[2]:
        time.sleep(0.1)
    assert not Path(f"/proc/{helper}").exists() or Path(f"/proc/{helper}/stat").read_text().split()[2] == "Z"


@pytest.mark.slow
def test_program_not_yet_migrated_says_to_rewrite_it(tmp_path: Path) -> None:
    path = tmp_path / "legacy.py"
    path.write_text("from tensorflow.contrib import learn\n\nlearn.DNNClassifier(hidden_units=[4])\n", encoding="utf-8")
    code, result = validate(str(path), "--program", "--device", "cpu")
    assert code == 2, result
    assert result["error"] == (f"{path}: the program raised ModuleNotFoundError: No module named 'tensorflow.contrib' before it "
                               f"trained a tf.estimator.Estimator; it still uses TensorFlow APIs 2.15 lacks: `tfmigrate rewrite "
                               f"{path}` migrates them or lists the manual findings left to finish")


def test_cluster_with_device_gpu_cannot_run(model_file: Path) -> None:
    """--cluster trains on CPU only: --device gpu with it is refused in one line (exit 2), before any task starts."""
    code, result = validate(f"{model_file}:custom", "--cluster", "chief=1,worker=1,ps=1", "--device", "gpu")
    assert code == 2 and result["stages"] == []
    assert result["error"].startswith("--cluster trains every task on CPU") and "\n" not in result["error"]


def test_a_file_without_an_estimator_is_refused_without_starting_tensorflow(tmp_path: Path) -> None:
    """The refusal (one line, naming file.py:build_estimator and --program) comes from the source alone: no
    TensorFlow child starts (a tensorflow module first on the path would leave a mark), for --cluster too."""
    import os

    path = tmp_path / "loop.py"
    path.write_text("import tensorflow as tf\n\nprint(tf.constant(1))\n", encoding="utf-8")
    fake = tmp_path / "fake"
    fake.mkdir()
    mark = tmp_path / "imported"
    (fake / "tensorflow.py").write_text(f"open({str(mark)!r}, 'w').close()\nraise ImportError('fake')\n", encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": str(fake)}
    for extra in ((), ("--cluster", "chief=1,worker=1,ps=1")):
        proc = subprocess.run([sys.executable, "-m", "tfmigrate", "validate", str(path), *extra, "--format", "json"],
                              capture_output=True, text=True, cwd=ROOT, timeout=120, env=env)
        result = json.loads(proc.stdout)
        assert proc.returncode == 2 and result["stages"] == [], result
        assert result["error"].startswith(f"{path}: no tf.estimator construction found") and "\n" not in result["error"]
        assert f"{path}:build_estimator" in result["error"] and f"tfmigrate validate --program {path}" in result["error"]
    assert not mark.exists()
