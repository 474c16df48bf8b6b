"""Real TF 2.15 checkpoints under legacy names and shapes, for the checkpoint analyser's tests.

Run as a child process (one per test module): ``python tests/ckpt_factory.py OUT KIND...`` writes
``OUT/<kind>/`` model_dirs and ``OUT/manifest.json``: for each kind its prefix, what
``tf.train.list_variables`` and the reader's dtype map say, and the weights the tests need
(``... KIND... --variables TARGET...``: also the variables tfmigrate's TF child lists for each TARGET,
in the same process).
``python tests/ckpt_factory.py --predict REQUEST.json`` loads a ``tf.estimator.DNNClassifier``
from a model_dir and prints its probabilities (JSON).

Importing this module does not import TensorFlow: the LevelDB table writer and the snappy
compressor below are plain Python (used to build snappy-compressed and hostile indexes).
"""

from __future__ import annotations

import json
import os
import struct
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tfmigrate.checkpoint.index import MAGIC, Table, crc32c, mask_crc  # noqa: E402

KINDS = ("skflow", "skflow_binary", "contrib09", "contrib1x", "estimator_v1", "estimator_v2", "keras", "tfcheckpoint",
         "partitioned", "v2_iris_10x10", "tfe_network")
# trained canned models of other kinds (ckpt convert --to keras); not in KINDS, which test_ckpt_reader writes all of
CANNED_KINDS = ("estimator_linear", "estimator_embedding", "estimator_partitioned", "estimator_batchnorm")
# skflow with trained Adagrad accumulators, contrib.learn 1.x Linear / DNNLinearCombined classifiers with trained Ftrl state (ckpt convert
# --model: train() resumes); not in KINDS either
RESUME_KINDS = ("skflow_resume", "contrib1x_linear", "contrib1x_combined")
HIDDEN = [10, 10]
N_FEATURES = 4
N_CLASSES = 3


# ------------------------------------------------------------------------------ pure Python helpers

def varint(n: int) -> bytes:
    out = bytearray()
    while True:
        b = n & 0x7F
        n >>= 7
        if n:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def snappy_compress(data: bytes) -> bytes:
    """A small greedy snappy compressor (literals + 1- and 2-byte-offset copies)."""
    out = bytearray(varint(len(data)))
    lit_start = 0
    pos = 0
    table: dict[bytes, int] = {}

    def literal(chunk: bytes) -> None:
        i = 0
        while i < len(chunk):
            piece = chunk[i:i + 60]
            out.append((len(piece) - 1) << 2)
            out.extend(piece)
            i += len(piece)

    while pos + 4 <= len(data):
        key = data[pos:pos + 4]
        cand = table.get(key)
        table[key] = pos
        if cand is not None and pos - cand < 65536:
            length = 4
            while pos + length < len(data) and data[cand + length] == data[pos + length] and length < 64:
                length += 1
            literal(data[lit_start:pos])
            offset = pos - cand
            if length <= 11 and offset < 2048:
                out.append(1 | ((length - 4) << 2) | ((offset >> 8) << 5))
                out.append(offset & 0xFF)
            else:
                out.append(2 | ((length - 1) << 2))
                out.extend(struct.pack("<H", offset))
            pos += length
            lit_start = pos
        else:
            pos += 1
    literal(data[lit_start:])
    return bytes(out)


def block(entries: list[tuple[bytes, bytes]], restart_interval: int = 16) -> bytes:
    out = bytearray()
    restarts = []
    prev = b""
    for i, (key, value) in enumerate(entries):
        if i % restart_interval == 0:
            restarts.append(len(out))
            shared = 0
        else:
            shared = 0
            while shared < min(len(prev), len(key)) and prev[shared] == key[shared]:
                shared += 1
        out += varint(shared) + varint(len(key) - shared) + varint(len(value)) + key[shared:] + value
        prev = key
    for r in restarts or [0]:
        out += struct.pack("<I", r)
    out += struct.pack("<I", len(restarts) or 1)
    return bytes(out)


def write_table(entries: list[tuple[bytes, bytes]], snappy: bool = False, per_block: int = 3) -> bytes:
    """A LevelDB-format table of sorted ``entries``, optionally with snappy-compressed blocks."""
    out = bytearray()

    def emit(contents: bytes) -> bytes:
        kind = 0
        if snappy:
            contents, kind = snappy_compress(contents), 1
        handle = varint(len(out)) + varint(len(contents))
        trailer = bytes([kind])
        out.extend(contents + trailer + struct.pack("<I", mask_crc(crc32c(contents + trailer))))
        return handle

    index_entries = []
    for i in range(0, len(entries), per_block):
        chunk = entries[i:i + per_block]
        index_entries.append((chunk[-1][0] + b"\xff", emit(block(chunk))))
    meta = emit(block([]))
    index = emit(block(index_entries, restart_interval=1))
    footer = (meta + index).ljust(40, b"\x00") + struct.pack("<Q", MAGIC)
    return bytes(out + footer)


def table_entries(index_path: str | Path) -> list[tuple[bytes, bytes]]:
    return Table.open(Path(index_path)).items()


# ------------------------------------------------------------------------------ TF side (child only)

def _weights(seed: int, dims: list[int]) -> list:
    import numpy as np

    rng = np.random.RandomState(seed)
    return [(rng.normal(size=(a, b)).astype("float32") * 0.5, rng.normal(size=(b,)).astype("float32") * 0.1)
            for a, b in zip(dims[:-1], dims[1:])]


def _save_graph(prefix: str, tensors: dict, v1: bool = False, partition: dict | None = None) -> None:
    """Write ``{name: ndarray}`` with a graph-mode Saver (V1 or V2 format), like the legacy programs did."""
    import tensorflow as tf

    with tf.Graph().as_default():
        variables = []
        for name, value in tensors.items():
            if partition and name in partition:
                v = tf.compat.v1.get_variable(name, initializer=tf.constant(value),
                                              partitioner=tf.compat.v1.fixed_size_partitioner(partition[name]))
            else:
                v = tf.compat.v1.get_variable(name, initializer=tf.constant(value), use_resource=False)
            variables.append(v)
        fmt = tf.compat.v1.train.SaverDef.V1 if v1 else tf.compat.v1.train.SaverDef.V2
        saver = tf.compat.v1.train.Saver(write_version=fmt)
        with tf.compat.v1.Session() as sess:
            sess.run(tf.compat.v1.global_variables_initializer())
            os.makedirs(os.path.dirname(prefix), exist_ok=True)
            saver.save(sess, prefix, write_meta_graph=False)


def _iris(n: int = 24):
    import numpy as np

    rng = np.random.RandomState(0)
    x = rng.normal(size=(n, N_FEATURES)).astype("float32")
    y = rng.randint(0, N_CLASSES, size=(n,)).astype("int64")
    return x, y


def _train_estimator(model_dir: str, v1: bool) -> None:
    import tensorflow as tf

    x, y = _iris()
    cols = [tf.feature_column.numeric_column("x", shape=[N_FEATURES])]
    if v1:
        est = tf.compat.v1.estimator.DNNClassifier(hidden_units=HIDDEN, feature_columns=cols, n_classes=N_CLASSES, model_dir=model_dir)
    else:
        est = tf.estimator.DNNClassifier(hidden_units=HIDDEN, feature_columns=cols, n_classes=N_CLASSES, model_dir=model_dir,
                                         optimizer=tf.keras.optimizers.legacy.Adagrad(learning_rate=0.05))
    est.train(lambda: tf.data.Dataset.from_tensor_slices(({"x": x}, y)).repeat().batch(8), steps=1)


COLORS = ["red", "green", "blue"]


def canned_features(n: int = 24) -> dict:
    """The features of the canned models below (x: 4 floats, z: 1 float, color: a word of COLORS)."""
    import numpy as np

    x, _ = _iris(n)
    rng = np.random.RandomState(5)
    return {"x": x, "z": rng.normal(size=(n, 1)).astype("float32"), "color": np.asarray(COLORS, dtype=object)[np.arange(n) % 3].reshape(n, 1)}


def _train_canned(model_dir: str, kind: str) -> None:
    """A tf.estimator LinearClassifier (numeric, bucketized and vocabulary columns), a DNNRegressor
    with an embedding column and tanh, or a TF1 DNNClassifier whose embedding is partitioned, trained
    a few steps."""
    import tensorflow as tf

    feats = canned_features()
    _, y = _iris()
    fc = tf.feature_column
    color = fc.categorical_column_with_vocabulary_list("color", COLORS)
    if kind == "estimator_partitioned":  # TF1 tf.estimator: the input layer split 3 ways (slice keys in the index)
        cols = [fc.numeric_column("x", shape=[N_FEATURES]), fc.embedding_column(color, dimension=2)]
        est = tf.compat.v1.estimator.DNNClassifier(feature_columns=cols, hidden_units=[8], n_classes=N_CLASSES, model_dir=model_dir,
                                                   input_layer_partitioner=tf.compat.v1.fixed_size_partitioner(3))
        labels = y
    elif kind == "estimator_batchnorm":  # batch normalisation after each hidden layer: weights canned_keras_model has no place for
        cols = [fc.numeric_column("x", shape=[N_FEATURES])]
        est = tf.estimator.DNNClassifier(feature_columns=cols, hidden_units=[8], n_classes=N_CLASSES, model_dir=model_dir, batch_norm=True)
        labels = y
    elif kind == "estimator_linear":
        cols = [fc.numeric_column("x", shape=[N_FEATURES]), fc.bucketized_column(fc.numeric_column("z"), boundaries=[-0.5, 0.0, 0.5]), color]
        est = tf.estimator.LinearClassifier(feature_columns=cols, n_classes=N_CLASSES, model_dir=model_dir)
        labels = y
    else:
        cols = [fc.numeric_column("x", shape=[N_FEATURES]), fc.embedding_column(color, dimension=2)]
        est = tf.estimator.DNNRegressor(feature_columns=cols, hidden_units=[8], activation_fn=tf.nn.tanh, model_dir=model_dir)
        labels = y.astype("float32")
    est.train(lambda: tf.data.Dataset.from_tensor_slices((dict(feats), labels)).repeat().batch(8), steps=3)


def _tfe_network(d: Path) -> tuple[str, dict]:
    """The 2017 eager MNIST ``tfe.Network`` (samples/eager_mnist/legacy.py, channels_last: 28x28 -> conv 5x5 valid -> pool -> conv -> pool: 4x4x64) saved by
    ``tfe.Saver(model.variables)``: full variable names ``<network scope>/<layer>/kernel``. The
    anonymous network (``name=''`` is falsy, so ``_finalize_name`` makes one up) is scoped
    ``mnist_model`` (snake case of the class name); track_layer renames each default-named layer
    unique within the network (``conv2d``, ``conv2d_1``, ``dense``, ``dense_1``); Momentum slots
    and ``global_step`` as the legacy train loop leaves them. Also writes the migrated Keras model's
    own object-based checkpoint (``tf.train.Checkpoint(model=model)``, samples/eager_mnist/expected.py)
    under ``keras_new/`` and the legacy weights as ``weights.npz``."""
    import importlib.util

    import numpy as np
    import tensorflow as tf

    rng = np.random.RandomState(3)
    shapes = [("conv2d", [5, 5, 1, 32]), ("conv2d_1", [5, 5, 32, 64]), ("dense", [4 * 4 * 64, 1024]), ("dense_1", [1024, 10])]
    t: dict = {}
    for layer, kshape in shapes:
        fan_in = int(np.prod(kshape[:-1]))
        t[f"mnist_model/{layer}/kernel"] = (rng.normal(size=kshape) / np.sqrt(fan_in)).astype("float32")
        t[f"mnist_model/{layer}/bias"] = (rng.normal(size=kshape[-1:]) * 0.1).astype("float32")
    d.mkdir(parents=True, exist_ok=True)
    np.savez(d / "weights.npz", **{k.replace("/", "__"): v for k, v in t.items()})
    for name in list(t):
        t[name + "/Momentum"] = np.zeros_like(t[name])
    t["global_step"] = np.int64(4)
    prefix = str(d / "ckpt-4")
    _save_graph(prefix, t)
    spec = importlib.util.spec_from_file_location("eager_mnist_expected", Path(__file__).resolve().parents[1] / "samples" / "eager_mnist" / "expected.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)  # type: ignore[union-attr]
    model = mod.MNISTModel("channels_last")
    model(tf.zeros([1, 784]), training=False)
    new_prefix = tf.train.Checkpoint(model=model).save(str(d / "keras_new" / "ckpt"))
    return prefix, {"weights_npz": str(d / "weights.npz"), "keras_new": new_prefix}


def make(out: Path, kinds: list[str]) -> dict:
    import numpy as np
    import tensorflow as tf

    tf.get_logger().setLevel("ERROR")
    manifest: dict = {}
    dims = [N_FEATURES, *HIDDEN, N_CLASSES]
    w = _weights(1, dims)
    for kind in kinds:
        d = out / kind
        prefix = str(d / "model.ckpt-1")
        extra: dict = {}
        if kind in ("skflow", "skflow_binary", "skflow_resume"):  # TF 0.8 skflow TensorFlowDNNClassifier, V1 format
            if kind == "skflow_binary":
                w = _weights(2, [N_FEATURES, *HIDDEN, 2])
            t: dict = {}
            for i, (k, b) in enumerate(w[:-1]):
                t[f"dnn/layer{i}/Linear/Matrix"], t[f"dnn/layer{i}/Linear/Bias"] = k, b
            t["logistic_regression/weights"], t["logistic_regression/bias"] = w[-1]
            for name in list(t):  # skflow_resume: accumulators after 200 steps (0.1 + the squared gradients), not the initial 0.1
                t[name + "/Adagrad"] = np.full_like(t[name], 0.1) + (np.random.RandomState(7).uniform(size=t[name].shape).astype("float32")
                                                                     if kind == "skflow_resume" else 0)
            t["global_step"] = np.int32(200)
            t["learning_rate"] = np.float32(0.1)
            prefix = str(d / "model.ckpt-200")
            _save_graph(prefix, t, v1=True)
            extra["weights"] = [[k.tolist(), b.tolist()] for k, b in w]
            w = _weights(1, dims)
        elif kind == "contrib09":  # contrib.learn 0.9 DNNClassifier (dnn_linear_combined), V1 format
            t = {}
            for i, (k, b) in enumerate(w[:-1]):
                t[f"hiddenlayer_{i}/weights"], t[f"hiddenlayer_{i}/bias"] = k, b
            t["dnn_logit/weights"], t["dnn_logit/bias"] = w[-1]
            t["centered_bias_weight"] = np.array([0.5, -0.25, 0.0], "float32")
            for name in list(t):
                t[name + "/Adagrad"] = np.full_like(t[name], 0.1)
            t["global_step"] = np.int64(100)
            _save_graph(prefix, t, v1=True)
            extra["weights"] = [[k.tolist(), b.tolist()] for k, b in w]
            extra["centered_bias"] = t["centered_bias_weight"].tolist()
        elif kind == "contrib1x":  # contrib.learn 1.x DNNClassifier, V2 format
            t = {}
            for i, (k, b) in enumerate(w[:-1]):
                t[f"dnn/hiddenlayer_{i}/weights"], t[f"dnn/hiddenlayer_{i}/biases"] = k, b
            t["dnn/logits/weights"], t["dnn/logits/biases"] = w[-1]
            t["centered_bias_weight"] = np.zeros([N_CLASSES], "float32")
            for name in list(t):
                t[name + "/Adagrad"] = np.full_like(t[name], 0.1)
            t["global_step"] = np.int64(100)
            _save_graph(prefix, t)
        elif kind in ("contrib1x_linear", "contrib1x_combined"):  # contrib.learn 1.x LinearClassifier / DNNLinearCombinedClassifier
            # (real_valued_column "x"; the linear part trained by Ftrl, the DNN by Adagrad), V2 format, step 150
            rng = np.random.RandomState(11)
            t = {"linear/x/weight": rng.normal(size=(N_FEATURES, N_CLASSES)).astype("float32"),
                 "linear/bias_weight": rng.normal(size=(N_CLASSES,)).astype("float32")}
            for name in list(t):  # trained Ftrl state: accumulator ("Ftrl", from 0.1 up) and linear ("Ftrl_1")
                t[name + "/Ftrl"] = (0.1 + rng.uniform(size=t[name].shape)).astype("float32")
                t[name + "/Ftrl_1"] = rng.normal(size=t[name].shape).astype("float32")
            if kind == "contrib1x_combined":
                for i, (k, b) in enumerate(w[:-1]):
                    t[f"dnn/hiddenlayer_{i}/weights"], t[f"dnn/hiddenlayer_{i}/biases"] = k, b
                t["dnn/logits/weights"], t["dnn/logits/biases"] = w[-1]
                for name in [n for n in t if n.startswith("dnn/")]:
                    t[name + "/Adagrad"] = (0.1 + rng.uniform(size=t[name].shape)).astype("float32")
            t["global_step"] = np.int64(150)
            prefix = str(d / "model.ckpt-150")
            _save_graph(prefix, t)
        elif kind == "partitioned":  # an embedding split in 3 slices (slice keys in the index)
            t = {"dnn/input_from_feature_columns/words_embedding/weights": np.arange(30 * 4, dtype="float32").reshape(30, 4),
                 "dnn/hiddenlayer_0/weights": w[0][0], "global_step": np.int64(7)}
            _save_graph(prefix, t, partition={"dnn/input_from_feature_columns/words_embedding/weights": 3})
        elif kind in CANNED_KINDS:
            _train_canned(str(d), kind)
            prefix = tf.train.latest_checkpoint(str(d))
        elif kind in ("estimator_v1", "estimator_v2", "v2_iris_10x10"):
            _train_estimator(str(d), v1=kind == "estimator_v1")
            prefix = tf.train.latest_checkpoint(str(d))
        elif kind == "keras":
            model = tf.keras.Sequential([tf.keras.Input((N_FEATURES,)), tf.keras.layers.Dense(10, activation="relu"),
                                         tf.keras.layers.Dense(N_CLASSES)])
            model.compile(optimizer=tf.keras.optimizers.legacy.Adam(), loss="mse")
            x, _ = _iris()
            model.fit(x, np.zeros((len(x), N_CLASSES), "float32"), epochs=1, verbose=0)
            prefix = str(d / "weights")
            model.save_weights(prefix)
        elif kind == "tfcheckpoint":
            v = tf.Variable(tf.ones([3, 2]))
            ck = tf.train.Checkpoint(dense=tf.keras.layers.Dense(2), v=v, step=tf.Variable(5, dtype=tf.int64))
            ck.dense(tf.ones([1, 3]))
            prefix = ck.save(str(d / "ckpt"))
        elif kind == "tfe_network":
            prefix, extra = _tfe_network(d)
        else:
            raise SystemExit(f"unknown kind {kind}")
        reader = tf.train.load_checkpoint(prefix)
        manifest[kind] = {
            "prefix": prefix, "dir": str(d),
            "list_variables": [[n, list(s)] for n, s in tf.train.list_variables(prefix)],
            "dtypes": {n: dt.name for n, dt in reader.get_variable_to_dtype_map().items()},
            **extra,
        }
    (out / "manifest.json").write_text(json.dumps(manifest, indent=1))
    return manifest


def _resume(request: dict) -> dict:
    """Build ``model`` (a TARGET) on ``model_dir`` and ``train(steps=...)`` from it: the value of every
    variable right after the restore (a hook, before the first step), the global step after training,
    or the error (type, first line)."""
    import numpy as np
    import tensorflow as tf

    from tfmigrate.checkpoint import targets

    restored: dict = {}

    class Restored(tf.estimator.SessionRunHook):
        def begin(self):  # noqa: ANN202
            self.reads = {var.op.name: var.value() for var in tf.compat.v1.global_variables()}

        def after_create_session(self, session, coord):  # noqa: ANN001, ARG002
            restored.update({k: v.tolist() for k, v in session.run(self.reads).items()})

    x, y = _iris(16)
    try:
        est = targets.load(targets.parse_target(request["model"]), model_dir=request["model_dir"]).estimator
        est.train(lambda: tf.data.Dataset.from_tensor_slices(({"x": x}, y)).repeat().batch(8), steps=request["steps"], hooks=[Restored()])
    except Exception as exc:  # noqa: BLE001 - the behaviour under test
        lines = [ln for ln in str(exc).splitlines() if ln.strip()]
        return {"error": type(exc).__name__, "message": lines[0][:500] if lines else ""}
    return {"error": None, "restored": restored, "global_step": int(np.asarray(est.get_variable_value("global_step")))}


def predict(requests: list[dict]) -> None:
    """For each request, a migrated ``tf.estimator.DNNClassifier`` on ``model_dir`` predicts ``x``;
    a request with ``"model"`` and ``"steps"`` trains that model from ``model_dir`` instead (:func:`_resume`)."""
    import tensorflow as tf

    tf.get_logger().setLevel("ERROR")
    results = []
    resumed = []
    for request in requests:
        if "steps" in request:
            resumed.append(_resume(request))
            continue
        import numpy as np

        x = np.asarray(request["x"], "float32")
        est = tf.estimator.DNNClassifier(hidden_units=request["hidden_units"], n_classes=request["n_classes"],
                                         feature_columns=[tf.feature_column.numeric_column("x", shape=[x.shape[1]])],
                                         model_dir=request["model_dir"])
        results.append([p["probabilities"].tolist() for p in est.predict(lambda: tf.data.Dataset.from_tensor_slices({"x": x}).batch(64))])
    print(json.dumps({"probabilities": results, "resumed": resumed}))


def behave(requests: list[dict]) -> None:
    """What TF 2.15 really does: for each request, build TARGET (``model``) on a COPY of
    ``ckpt_dir`` and train one step on ``width`` features with labels in ``[0, labels)``; report
    the error (type, first line) or the shape ``kernel`` has afterwards."""
    import shutil
    import tempfile

    import numpy as np
    import tensorflow as tf

    from tfmigrate.checkpoint import targets

    tf.get_logger().setLevel("ERROR")
    results = []
    for r in requests:
        work = tempfile.mkdtemp(prefix="behave-")
        shutil.copytree(r["ckpt_dir"], work, dirs_exist_ok=True)
        rng = np.random.RandomState(0)
        x = rng.normal(size=(16, r["width"])).astype("float32")
        y = (np.arange(16) % r["labels"]).astype("int64")
        try:
            est = targets.load(targets.parse_target(r["model"]), model_dir=work).estimator
            est.train(lambda: tf.data.Dataset.from_tensor_slices(({"x": x}, y)).repeat().batch(16), steps=1)
            results.append({"error": None, "kernel": list(est.get_variable_value(r["kernel"]).shape)})
        except Exception as exc:  # noqa: BLE001 - the behaviour under test
            lines = [ln for ln in str(exc).splitlines() if ln.strip()]
            results.append({"error": type(exc).__name__, "message": " ".join(lines)[:20000]})
    print(json.dumps({"results": results}))


if __name__ == "__main__":
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    if sys.argv[1] == "--behave":
        behave(json.loads(Path(sys.argv[2]).read_text()))
    elif sys.argv[1] == "--predict":
        predict(json.loads(Path(sys.argv[2]).read_text()))
    else:  # OUT KIND... [--variables TARGET...]: also what tfmigrate's TF child lists for each TARGET (manifest "variables")
        kinds, _, specs = " ".join(sys.argv[2:]).partition("--variables")
        manifest = make(Path(sys.argv[1]), kinds.split() or list(KINDS))
        if specs.split():
            from tfmigrate.checkpoint._tfchild import cmd_variables

            manifest["variables"] = [cmd_variables(spec) for spec in specs.split()]
            (Path(sys.argv[1]) / "manifest.json").write_text(json.dumps(manifest, indent=1))
