"""The TensorFlow half of ``tfmigrate validate``: runs in a child process, never imported by the parent.

Protocol: one JSON object a line on the original stdout (everything else the child or the user's
code prints goes to stderr, which the parent keeps out of the terminal):

    {"event": "stage-start", "name": ...}
    {"event": "progress", "name": ..., "step": k, "total": n}
    {"event": "stage", "name", "passed", "seconds", "detail", ...}
    {"event": "info", ...}                    device, estimator, model_dir
    {"event": "checkpoint", "analysis": {...}} a `ckpt diff`-shaped analysis
    {"event": "done"}
    {"event": "fatal", "error": "one line", "stage": ...}   could not run (exit 2; "environment": true when TensorFlow is missing)

Invoked as ``python -m tfmigrate.validate._child CONFIG_JSON``.
"""

from __future__ import annotations

import json
import os
import sys
import time
from typing import Any

_PROTO = None  # the protocol stream (the original stdout)


def emit(event: str, **data: Any) -> None:
    _PROTO.write(json.dumps({"event": event, **data}, default=str) + "\n")
    _PROTO.flush()


class CouldNotRun(Exception):
    """Validation cannot proceed (bad target, no GPU, ...): exit 2 with this one line."""


class NoTensorFlow(CouldNotRun):
    """TensorFlow cannot be imported here: nothing can validate (``report --validate`` stops at it, exit 2)."""


class StageFailed(Exception):
    """A stage ran and found a problem; the message is its detail."""


def regular_files_only(path: str) -> None:
    """CouldNotRun, one line naming the file, when a checkpoint file TensorFlow would open at ``path``
    (a model_dir or a prefix) is a FIFO, socket or device: TensorFlow would wait on it for ever."""
    from tfmigrate.checkpoint.index import CheckpointError, refuse_special_files

    try:
        refuse_special_files(path)
    except CheckpointError as exc:
        raise CouldNotRun(str(exc)) from None


def latest_checkpoint(tf, directory: str):
    """``tf.train.latest_checkpoint``, once its files are known to be regular files."""
    regular_files_only(directory)
    return tf.train.latest_checkpoint(directory)


def load_checkpoint(tf, path: str):
    """``tf.train.load_checkpoint``, once its files are known to be regular files."""
    regular_files_only(path)
    return tf.train.load_checkpoint(path)


# --------------------------------------------------------------------------- TensorFlow setup


def quiet_tensorflow():
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    os.environ.setdefault("ABSL_MIN_LOG_LEVEL", "3")
    import warnings

    warnings.filterwarnings("ignore")
    try:
        import absl.logging
        import tensorflow as tf
    except ImportError as exc:
        raise NoTensorFlow(f"TensorFlow 2.15 is not installed in {sys.executable} ({exc}): pip install 'tfmigrate[tf]' (or 'tfmigrate[gpu]')") from None

    absl.logging.set_verbosity(absl.logging.ERROR)

    tf.get_logger().setLevel("ERROR")
    tf.compat.v1.logging.set_verbosity(tf.compat.v1.logging.ERROR)
    return tf


# --------------------------------------------------------------------------- the target


def load_target(tf, target: str, model_dir: str, program: bool = False, program_args: list | None = None):
    """Build the estimator TARGET describes, with its checkpoints going to ``model_dir``.

    Returns (estimator, factory, declared_model_dir): ``factory(model_dir)`` builds another one from
    the same definition, ``declared_model_dir`` is the model_dir the definition itself names (or None).
    """
    from tfmigrate.validate import targets

    factory, where = targets.factory_for(target, program=program, program_args=program_args)

    def build(directory: str):
        tf.keras.backend.clear_session()  # each build names its Keras layers as a fresh process would
        obj = factory(directory)
        return as_estimator(tf, obj, directory, where)

    first, declared = build(model_dir)
    named = getattr(factory, "declared_model_dir", None)
    declared = declared or (None if named is None or made_by_tf(named) else str(named))
    again = lambda d: build(d)[0]  # noqa: E731
    again.input_fn = getattr(factory, "input_fn", None)
    again.note = getattr(factory, "note", None)
    return first, again, declared


def from_input_fn(tf, np, input_fn, batch: int):
    """Features and labels taken from the module's own ``train_input_fn`` (first batches, as numpy)."""
    import inspect

    try:
        takes = inspect.signature(input_fn).parameters
    except (TypeError, ValueError):
        takes = {}
    kwargs = {k: v for k, v in {"params": {}, "mode": tf.estimator.ModeKeys.TRAIN}.items() if k in takes}
    try:
        features, labels = _eager_batches(tf, np, input_fn, kwargs, batch)
    except CouldNotRun:
        raise
    except Exception:  # noqa: BLE001 - graph-only input (queues, placeholders' defaults, v1 iterators): run it in a graph
        features, labels = _graph_batches(tf, np, input_fn, kwargs, batch)
    features = {k: v[:batch] for k, v in features.items()}
    name = getattr(input_fn, "__name__", "input_fn")
    kinds = {k: f"from {name}() {list(v.shape[1:])}" for k, v in features.items()}
    kinds["(label)"] = f"from {name}() {list(labels.shape[1:])}"
    return features, labels[:batch], kinds


def _graph_batches(tf, np, input_fn, kwargs, batch: int):
    """The first batches of an input_fn that only works in a graph (tf.compat.v1.train.shuffle_batch queues...),
    read in a MonitoredSession (it starts the queue runners and initializes tables)."""
    with tf.Graph().as_default():
        value = input_fn(**kwargs)
        if isinstance(value, tf.data.Dataset):
            value = tf.compat.v1.data.make_one_shot_iterator(value).get_next()
        if not (isinstance(value, tuple) and len(value) == 2):
            raise CouldNotRun(f"{getattr(input_fn, '__name__', 'input_fn')}() must return a tf.data.Dataset of (features, labels) or that pair")
        f, y = value
        f = f if isinstance(f, dict) else {SINGLE: f}
        feats: dict[str, list] = {}
        labs: list = []
        rows = 0
        with tf.compat.v1.train.MonitoredSession() as sess:
            for _ in range(64):
                fv, yv = sess.run((f, y))
                for k, v in fv.items():
                    feats.setdefault(k, []).append(np.asarray(v))
                labs.append(np.asarray(yv))
                rows += len(yv) if np.ndim(yv) else 1
                if rows >= batch:
                    break
    return {k: np.concatenate(v) for k, v in feats.items()}, np.concatenate(labs)


def _eager_batches(tf, np, input_fn, kwargs, batch: int):
    value = input_fn(**kwargs)
    if isinstance(value, tf.data.Dataset):
        feats: dict[str, list] = {}
        labs: list = []
        rows = 0
        for f, y in value.take(64):
            if not isinstance(f, dict):
                f = {SINGLE: f}
            for k, v in f.items():
                feats.setdefault(k, []).append(v.numpy())
            labs.append(y.numpy())
            rows += int(y.shape[0]) if y.shape.rank else 1
            if rows >= batch:
                break
        features = {k: np.concatenate(v) for k, v in feats.items()}
        labels = np.concatenate(labs)
    elif isinstance(value, tuple) and len(value) == 2:
        features = {k: np.asarray(v) for k, v in (value[0] if isinstance(value[0], dict) else {SINGLE: value[0]}).items()}
        labels = np.asarray(value[1])
    else:
        raise CouldNotRun(f"{getattr(input_fn, '__name__', 'input_fn')}() must return a tf.data.Dataset of (features dict, labels) or that pair")
    return features, labels


def made_by_tf(directory) -> bool:
    """model_dir=None: TensorFlow made itself a temporary directory, not one the user names."""
    import tempfile

    directory = str(directory)
    return os.path.dirname(os.path.realpath(directory)) == os.path.realpath(tempfile.gettempdir()) \
        and os.path.basename(directory).startswith("tmp")


SINGLE = "(features)"  # an input_fn whose features are one tensor, not a dict


def unpack(features: dict):
    return features[SINGLE] if set(features) == {SINGLE} else dict(features)


def as_estimator(tf, obj, model_dir: str, where: str):
    """(estimator, declared model_dir) from what a target returned."""
    import tensorflow_estimator.python.estimator.estimator as est_lib

    declared = None
    if isinstance(obj, (tuple, list)) and any(isinstance(x, est_lib.Estimator) for x in obj):
        # (estimator, TrainSpec, EvalSpec) from an experiment_fn: train on the TrainSpec's input_fn
        spec = next((x for x in obj if isinstance(x, tf.estimator.TrainSpec)), None)
        obj = next(x for x in obj if isinstance(x, est_lib.Estimator))
        if spec is not None:
            obj._tfmigrate_input_fn = spec.input_fn
    if isinstance(obj, tuple) and len(obj) == 2 and callable(obj[0]):
        model_fn, params = obj
        return tf.estimator.Estimator(model_fn=model_fn, params=params, model_dir=model_dir), None
    if isinstance(obj, tf.keras.Model):
        if not obj.optimizer:
            raise CouldNotRun(f"{where} returned an uncompiled Keras model: compile it (optimizer, loss) first")
        # name-based checkpoints, so every stage reads them like a canned estimator's
        est = tf.keras.estimator.model_to_estimator(keras_model=obj, model_dir=model_dir, checkpoint_format="saver")
        est._tfmigrate_keras = obj
        return est, None
    if not isinstance(obj, est_lib.Estimator):
        raise CouldNotRun(f"{where} returned {type(obj).__name__}, not a tf.estimator.Estimator, a Keras model or (model_fn, params)")
    declared = getattr(obj, "_tfmigrate_declared_model_dir", None)
    if os.path.realpath(obj.model_dir) != os.path.realpath(model_dir):
        declared = declared or (None if made_by_tf(obj.model_dir) else obj.model_dir)
        # Point the estimator at the validation model_dir (the definition may name its own).
        obj._model_dir = model_dir
        obj._config = obj._config.replace(model_dir=model_dir)
    return obj, declared


# --------------------------------------------------------------------------- inputs


def _closure(fn) -> dict[str, Any]:
    out: dict[str, Any] = {}
    seen = set()
    stack = [fn]
    while stack:
        f = stack.pop()
        if id(f) in seen or not callable(f):
            continue
        seen.add(id(f))
        f = getattr(f, "__func__", f)
        cells = getattr(f, "__closure__", None) or ()
        names = getattr(getattr(f, "__code__", None), "co_freevars", ())
        for name, cell in zip(names, cells):
            try:
                value = cell.cell_contents
            except ValueError:
                continue
            out.setdefault(name, value)
            if callable(value) and getattr(value, "__closure__", None):
                stack.append(value)
        wrapped = getattr(f, "__wrapped__", None)
        if wrapped is not None:
            stack.append(wrapped)
    return out


def _is_column(obj) -> bool:
    return hasattr(obj, "parse_example_spec") or hasattr(obj, "_parse_example_spec")


def _columns_in(value) -> list:
    if _is_column(value):
        return [value]
    if isinstance(value, (list, tuple, set, frozenset)):
        return [c for v in value for c in _columns_in(v)]
    if isinstance(value, dict):
        return [c for v in value.values() for c in _columns_in(v)]
    return []


def keras_inputs(np, model, batch: int):
    """Features and labels for an estimator made from a Keras model (model_to_estimator)."""
    rng = np.random.default_rng(0)
    features, kinds = {}, {}
    for name, tensor in zip(model.input_names, model.inputs):
        shape = tuple(d or 1 for d in tensor.shape[1:])
        dtype = tensor.dtype.as_numpy_dtype
        features[name] = rng.normal(size=(batch, *shape)).astype(dtype) if tensor.dtype.is_floating else rng.integers(0, 3, size=(batch, *shape)).astype(dtype)
        kinds[name] = f"keras input {list(shape)}"
    out = model.outputs[0]
    width = int(out.shape[-1] or 1)
    loss = model.loss if isinstance(model.loss, str) else getattr(model.loss, "__name__", type(model.loss).__name__)
    loss = str(loss).lower()
    if "sparse" in loss:
        labels = np.array([[i % width] for i in range(batch)], dtype="int64")
        kinds["(label)"] = f"{width} classes (sparse)"
    elif "categorical" in loss:
        labels = np.eye(width, dtype="float32")[[i % width for i in range(batch)]]
        kinds["(label)"] = f"{width} classes (one-hot)"
    elif "binary" in loss:
        labels = np.array([[(i % 2)] * width for i in range(batch)], dtype="float32")
        kinds["(label)"] = "binary"
    else:
        labels = rng.normal(size=(batch, width)).astype("float32")
        kinds["(label)"] = f"regression, {width} value(s)"
    return features, labels, kinds


def describe_model(estimator) -> tuple[list, Any, dict]:
    """(feature columns, head or None, params) the estimator was defined with."""
    scope = _closure(estimator._model_fn)
    params = dict(getattr(estimator, "params", None) or {})
    columns: list = []
    for name, value in list(scope.items()) + list(params.items()):
        if "column" in name:
            columns += _columns_in(value)
    unique, ids = [], set()
    for c in columns:
        if id(c) not in ids:
            ids.add(id(c))
            unique.append(c)
    return unique, scope.get("head"), params


class Synth:
    """Deterministic feature values for a set of feature columns (every bucket, id and word hit)."""

    def __init__(self, np, batch: int):
        self.np = np
        self.rng = np.random.default_rng(0)
        self.batch = batch
        self.features: dict[str, Any] = {}
        self.kinds: dict[str, str] = {}

    def add(self, col) -> None:
        np, n = self.np, self.batch
        kind = type(col).__name__.lstrip("_")
        if hasattr(col, "categorical_column"):  # embedding, indicator, weighted, sequence
            self.add(col.categorical_column)
            weight_key = getattr(col, "weight_feature_key", None)
            if weight_key:
                self._put(weight_key, self.rng.random((n, 1)).astype("float32"), "weight")
            return
        if hasattr(col, "source_column") and hasattr(col, "boundaries"):  # bucketized
            src = col.source_column
            shape = tuple(src.shape)
            b = list(col.boundaries)
            points = [b[0] - 1.0] + [(x + y) / 2 for x, y in zip(b, b[1:])] + [b[-1] + 1.0] if b else [0.0]
            values = np.array([points[i % len(points)] for i in range(n * int(np.prod(shape or (1,))))], dtype=src.dtype.as_numpy_dtype)
            # overrides plain numeric values of the same key: every bucket is hit
            self._put(src.key, values.reshape((n, *shape)), f"bucketized {len(b) + 1} buckets", override=True)
            return
        if hasattr(col, "keys") and hasattr(col, "hash_bucket_size") and not hasattr(col, "key"):  # crossed
            for k in col.keys:
                if isinstance(k, str):
                    if k not in self.features:
                        self._put(k, np.array([[f"v{i % 5}"] for i in range(n)]), "crossed key")
                else:
                    self.add(k)
            return
        if hasattr(col, "vocabulary_list"):
            vocab = list(col.vocabulary_list)
            values = np.array([[vocab[i % len(vocab)]] for i in range(n)])
            self._put(col.key, values, f"vocabulary of {len(vocab)}")
            return
        if hasattr(col, "vocabulary_file"):
            with open(col.vocabulary_file, encoding="utf-8") as fh:
                vocab = [line.strip() for line in fh if line.strip()][: col.vocabulary_size or None] or ["x"]
            values = np.array([[vocab[i % len(vocab)]] for i in range(n)])
            if col.dtype.is_integer:
                values = values.astype("int64")
            self._put(col.key, values, f"vocabulary file of {len(vocab)}")
            return
        if hasattr(col, "number_buckets") or (hasattr(col, "num_buckets") and "Identity" in kind):
            buckets = getattr(col, "number_buckets", None) or col.num_buckets
            self._put(col.key, np.array([[i % buckets] for i in range(n)], dtype="int64"), f"identity 0..{buckets - 1}")
            return
        if hasattr(col, "hash_bucket_size") and hasattr(col, "key"):
            if col.dtype.is_integer:
                values = np.array([[i % 7] for i in range(n)], dtype="int64")
            else:
                values = np.array([[f"h{i % 7}"] for i in range(n)])
            self._put(col.key, values, "hashed")
            return
        if hasattr(col, "shape") and hasattr(col, "key"):  # numeric
            shape = tuple(col.shape)
            dtype = col.dtype.as_numpy_dtype
            values = self.rng.normal(size=(n, *shape)).astype(dtype) if col.dtype.is_floating else self.rng.integers(0, 5, size=(n, *shape)).astype(dtype)
            self._put(col.key, values, f"numeric {list(shape)}")
            return
        spec = getattr(col, "parse_example_spec", None) or getattr(col, "_parse_example_spec")
        for key, feature in spec.items():  # generic fallback
            dtype = feature.dtype
            shape = tuple(getattr(feature, "shape", (1,)) or (1,))
            if dtype.is_floating:
                values = self.rng.normal(size=(n, *shape)).astype(dtype.as_numpy_dtype)
            elif dtype.is_integer:
                values = self.rng.integers(0, 3, size=(n, *shape)).astype(dtype.as_numpy_dtype)
            else:
                values = np.array([[f"s{i % 3}"] * int(np.prod(shape)) for i in range(n)]).reshape((n, *shape))
            self._put(key, values, f"{kind} (from its parse spec)")

    def _put(self, key: str, values, kind: str, override: bool = False) -> None:
        if key in self.features and not (override and self.kinds[key].startswith("numeric")):
            return
        self.features[key] = values
        self.kinds[key] = kind


def synthesize(np, columns, head, params, batch: int):
    if not columns:
        raise CouldNotRun("cannot find the feature columns this estimator was defined with: canned estimators, params['feature_columns'], "
                          "or a module-level train_input_fn() next to the target function")
    synth = Synth(np, batch)
    for col in columns:
        synth.add(col)
    head_kind = type(head).__name__ if head is not None else ""
    n_classes = getattr(head, "_n_classes", None) or params.get("n_classes")
    vocab = getattr(head, "_label_vocabulary", None) or params.get("label_vocabulary")
    if "Regression" in head_kind or (head is None and params.get("label_dimension")):
        dim = getattr(head, "logits_dimension", None) or getattr(head, "_label_dimension", None) or params.get("label_dimension") or 1
        labels = synth.rng.normal(size=(batch, dim)).astype("float32")
        label_kind = f"regression, {dim} value(s)"
    elif vocab:
        labels = np.array([[vocab[i % len(vocab)]] for i in range(batch)])
        label_kind = f"classes {list(vocab)}"
    else:
        k = int(n_classes or 2)
        labels = np.array([[i % k] for i in range(batch)], dtype="int64")
        label_kind = f"{k} classes"
    return synth.features, labels, {**synth.kinds, "(label)": label_kind}


# --------------------------------------------------------------------------- hooks


VARIABLE_OPS = ("VarHandleOp", "VariableV2", "Variable", "_VarHandlesOp")


def dense_placement(partition_graphs) -> dict[str, str]:
    """{op name: device} for the dense layers, whatever this CPU's build fused or renamed their kernels to:
    the name scopes that hold a matrix product (MatMul, _FusedMatMul, _MklMatMul, _MklNativeFusedMatMul...),
    then every op under those scopes (forward), under ``gradients/SCOPE`` (backward) and their variables."""
    nodes = [(node.name, node.op, node.device) for graph in partition_graphs for node in graph.node if node.device]
    scopes = set()
    for name, op, _ in nodes:
        if "MatMul" in op and "/" in name:
            scope = name.rsplit("/", 1)[0]
            scope = scope.rsplit("gradients/", 1)[-1]  # training/Adagrad/gradients/gradients/dnn/... -> dnn/...
            if scope.endswith("_grad") or scope.endswith(("/MatMul", "/Tensordot")):  # .../MatMul_grad/MatMul_1
                scope = scope.rsplit("/", 1)[0] if "/" in scope else ""
            if scope:
                scopes.add(scope)
    out: dict[str, str] = {name: device for name, op, device in nodes if "MatMul" in op}  # the kernels first
    for name, op, device in nodes:
        inner = name.rsplit("gradients/", 1)[-1]
        if "MatMul" in op or any(inner.startswith(scope + "/") for scope in scopes):
            out[name] = device
            if op in VARIABLE_OPS:
                out[f"(variable) {name}"] = device
    return out


def make_hooks(tf, name: str, total: int, placement: dict | None, timing: dict):
    class Progress(tf.estimator.SessionRunHook):
        def begin(self):
            self.step = 0
            self.started = None
            timing[name] = 0.0
            self.global_step = tf.compat.v1.train.get_global_step()

        def before_run(self, run_context):
            if self.started is None:
                self.started = time.perf_counter()  # steps/s counts steps, not graph building
            if placement is not None and not placement:
                return tf.estimator.SessionRunArgs({}, options=tf.compat.v1.RunOptions(output_partition_graphs=True))
            return None

        def after_run(self, run_context, run_values):
            self.step += 1
            timing[name] = time.perf_counter() - self.started
            if placement is not None and not placement and run_values.run_metadata is not None:
                placement.update(dense_placement(run_values.run_metadata.partition_graphs))
                placement.setdefault("(none)", "")
            if self.step == total or self.step % max(1, total // 50) == 0:
                emit("progress", name=name, step=self.step, total=total)

    return [Progress()]


# --------------------------------------------------------------------------- checkpoint analysis


def model_variables(tf, factory, features, labels, columns, spec: str) -> tuple[dict, list[dict]]:
    """(model info, variables) the definition creates in TRAIN mode, as the checkpoint analyser sees them.

    Each attempt builds its own instance from the definition (an optimizer instance serves one graph only)."""
    import tempfile

    with tempfile.TemporaryDirectory(prefix="tfmigrate-vars-") as scratch:
        try:
            return _analyser_variables(factory(scratch), columns, spec)
        except Exception:  # noqa: BLE001 - e.g. its label placeholder misses a head's label_vocabulary: build from our inputs
            pass
    with tempfile.TemporaryDirectory(prefix="tfmigrate-vars-") as scratch:
        return _own_variables(tf, factory(scratch), features, labels)


def _analyser_variables(estimator, columns, spec: str) -> tuple[dict, list[dict]]:
    try:
        from tfmigrate.checkpoint import _tfchild, targets

        if not columns:
            raise ImportError("the analyser derives variables from feature columns")
        target = targets.parse_target(spec)
        loaded = targets.Loaded(target, estimator=estimator, feature_columns=columns or None,
                                model_dir=getattr(estimator, "_tfmigrate_declared_model_dir", None))
        return _tfchild.estimator_variables(loaded)
    except ImportError as exc:
        raise RuntimeError("no analyser variables") from exc


def _own_variables(tf, estimator, features, labels) -> tuple[dict, list[dict]]:
    with tf.Graph().as_default():
        tf.compat.v1.train.get_or_create_global_step()
        feats = unpack({k: tf.constant(v[:2]) for k, v in features.items()})
        labs = tf.constant(labels[:2])
        estimator._call_model_fn(feats, labs, tf.estimator.ModeKeys.TRAIN, estimator.config)
        tf.compat.v1.train.get_or_create_global_step()
        out = [{"name": v.op.name, "shape": v.shape.as_list(), "dtype": v.dtype.base_dtype.name} for v in tf.compat.v1.global_variables()]
    api = "v2" if type(estimator).__name__.endswith("V2") else "custom"
    return {"kind": "estimator", "class": type(estimator).__name__.removesuffix("V2"), "api": api}, out


def analyse(tf, checkpoint: str, model: tuple[dict, list[dict]], spec: str) -> dict:
    """The `ckpt diff` JSON object for a checkpoint against the definition's variables."""
    info, model_vars = model
    try:
        from tfmigrate.checkpoint import api  # the analyser: era name maps, TF 2.15 verdicts
    except ImportError:
        api = None
    if api is not None:
        return api.diff(checkpoint, spec, model_result={"model": dict(info), "variables": model_vars})
    variables = {v["name"]: (list(v["shape"]), v["dtype"]) for v in model_vars}
    reader = load_checkpoint(tf, checkpoint)
    shapes = reader.get_variable_to_shape_map()
    dtypes = reader.get_variable_to_dtype_map()
    pairs = []
    for name in sorted(set(shapes) | set(variables)):
        in_ckpt, in_model = name in shapes, name in variables
        cshape = list(shapes[name]) if in_ckpt else None
        mshape = variables[name][0] if in_model else None
        if in_ckpt and in_model:
            same_dtype = dtypes[name].base_dtype.name == variables[name][1]
            status = "match" if cshape == mshape and same_dtype else ("shape-mismatch" if cshape != mshape else "dtype-mismatch")
        elif in_ckpt:
            status = "unused"  # only in the checkpoint
        else:
            status = "missing"  # the model needs it, the checkpoint lacks it
        pairs.append({
            "checkpoint_name": name if in_ckpt else None,
            "model_name": name if in_model else None,
            "status": status,
            "checkpoint_shape": cshape,
            "model_shape": mshape,
        })
    bad = [p for p in pairs if p["status"] in ("shape-mismatch", "dtype-mismatch", "missing")]
    counts: dict[str, int] = {}
    for p in pairs:
        counts[p["status"]] = counts.get(p["status"], 0) + 1
    if bad:
        first = bad[0]
        name = first["model_name"] or first["checkpoint_name"]
        verdict = (
            f"{len(bad)} variable(s) do not fit: {name} is {first['checkpoint_shape']} in the checkpoint, "
            f"{first['model_shape']} in the definition"
            if first["status"] == "shape-mismatch"
            else f"{len(bad)} variable(s) do not fit: {name} is {first['status']}"
        )
    else:
        verdict = f"all {counts.get('match', 0)} model variables found with matching shapes"
    return {
        "schema": 1,
        "checkpoint": checkpoint,
        "model": model,
        "compatible": not bad,
        "verdict": verdict,
        "summary": counts,
        "pairs": pairs,
    }


# --------------------------------------------------------------------------- the run


class Run:
    def __init__(self, config: dict):
        self.config = config
        self.failed = False

    def stage(self, name: str, fn, *, fatal: bool = False):
        emit("stage-start", name=name)
        start = time.perf_counter()
        extra: dict[str, Any] = {}
        try:
            result = fn()
            detail, extra = (result if isinstance(result, tuple) else (result, {}))
            passed = True
        except StageFailed as exc:
            detail, passed = str(exc), False
        except CouldNotRun:
            raise
        except Exception as exc:  # TensorFlow errors in a stage: that stage fails, with TF's first line
            detail, passed = f"{type(exc).__name__}: {first_line(exc)}", False
        seconds = time.perf_counter() - start
        emit("stage", name=name, passed=passed, seconds=round(seconds, 3), detail=detail, **extra)
        if not passed:
            self.failed = True
            if fatal:
                raise _Stop()
        return passed

    def main(self) -> None:
        cfg = self.config
        emit("stage-start", name="load")
        t0 = time.perf_counter()
        if cfg["device"] == "cpu":
            os.environ["CUDA_VISIBLE_DEVICES"] = "-1"
        tf = quiet_tensorflow()
        import numpy as np

        gpus = tf.config.list_physical_devices("GPU")
        if cfg["device"] == "gpu" and not gpus:
            raise CouldNotRun("--device gpu: TensorFlow sees no GPU here (tf.config.list_physical_devices('GPU') is empty; is a CUDA build of TensorFlow installed?)")
        device = "GPU" if gpus and cfg["device"] != "cpu" else "CPU"
        if device == "GPU":
            for g in gpus:
                try:
                    tf.config.experimental.set_memory_growth(g, True)
                except RuntimeError:
                    pass
        model_dir = cfg["model_dir"]
        steps, more, batch = cfg["steps"], cfg["resume_steps"], cfg["batch_size"]
        if cfg.get("analyse_batch") is not None:  # `tfmigrate report`: compare checkpoints, train nothing
            for job in cfg["analyse_batch"]:
                try:
                    *_, variables = prepare(tf, np, job["target"], model_dir, batch)
                    for path in job["paths"]:
                        ckpt = latest_checkpoint(tf, path) if os.path.isdir(path) else path
                        if not ckpt:
                            emit("target-error", target=job["target"], error=f"{path}: no checkpoint there")
                            continue
                        emit("checkpoint", target=job["target"], analysis=analyse(tf, ckpt, variables, job["target"]))
                except Exception as exc:  # noqa: BLE001 - one target's problem, reported as one line
                    emit("target-error", target=job["target"], error=str(exc) if isinstance(exc, CouldNotRun) else f"{type(exc).__name__}: {first_line(exc)}")
            return
        est, factory, declared, columns, features, labels, kinds, variables = prepare(
            tf, np, cfg["target"], model_dir, batch, bool(cfg.get("program")), cfg.get("program_args"))
        gpu_name = ""
        if device == "GPU":
            try:
                gpu_name = tf.config.experimental.get_device_details(gpus[0]).get("device_name", "")
            except Exception:  # noqa: BLE001 - details are cosmetic
                gpu_name = ""
        emit("info", device=device, device_name=gpu_name, estimator=type(est).__name__, model_dir=model_dir,
             declared_model_dir=declared, inputs=kinds, tensorflow=tf.__version__)
        emit("stage", name="load", passed=True, seconds=round(time.perf_counter() - t0, 3),
             detail=(f"Keras model '{est._tfmigrate_keras.name}' via tf.keras.estimator.model_to_estimator (name-based checkpoints)"
                     if getattr(est, "_tfmigrate_keras", None) is not None
                     else f"{type(est).__name__.removesuffix('V2')} with {len(columns)} feature column(s)" if columns
                     else f"{type(est).__name__.removesuffix('V2')} with a custom model_fn")
             + "; inputs: "
             + ", ".join(f"{k}: {v}" for k, v in kinds.items())
             + (f"; its own model_dir {declared} ({declared_path(declared, cfg)}) holds no checkpoint yet"
                if declared and not own_model_dir(tf, declared, cfg) else "")
             + (f"; {factory.note}" if getattr(factory, "note", None) else ""))

        def input_fn(repeat: bool = True):
            def fn():
                ds = tf.data.Dataset.from_tensor_slices((unpack(features), labels))
                return (ds.repeat() if repeat else ds).batch(min(batch, 32))
            return fn

        # Existing checkpoints the definition points at must fit it before anything trains into them.
        # The definition's own model_dir is only read (never trained into): TF 2.15 would restore it
        # silently, whatever its shapes, the first time the user's program runs.
        existing = []
        own = own_model_dir(tf, declared, cfg)
        if own and os.path.realpath(own) != os.path.realpath(model_dir):
            existing.append(("model_dir checkpoint", own, False))
        if latest_checkpoint(tf, model_dir):
            existing.append(("existing checkpoint", model_dir, True))
        for name, directory, blocks in existing:
            def check_existing(directory=directory, own=not blocks):
                result = analyse(tf, latest_checkpoint(tf, directory), variables, cfg["target"])
                emit("checkpoint", analysis=result)
                where = f"the model's own model_dir {declared!r} ({directory})" if own else directory
                if not result["compatible"]:
                    shapes = any("shape" in str(p.get("status")) for p in result.get("pairs", []))
                    hint = " (TensorFlow 2.15 restores mismatched shapes silently)" if shapes and "silent" not in result["verdict"].lower() else ""
                    raise StageFailed(f"{where}: {result['verdict']}{hint}")
                if own:
                    return f"{where} holds a compatible checkpoint (read only, nothing written there): {result['verdict']}"
                return f"{directory}: {result['verdict']}"
            self.stage(name, check_existing, fatal=blocks)

        placement: dict[str, str] = {}
        # a --model-dir that already holds a (compatible) checkpoint: training continues from its step
        start = 0
        if latest_checkpoint(tf, model_dir):
            try:
                start = int(load_checkpoint(tf, model_dir).get_tensor("global_step"))
            except Exception:  # noqa: BLE001 - no global_step: the estimator starts at 0
                start = 0
        timing: dict[str, float] = {}

        def train():
            hooks = make_hooks(tf, "train", steps, placement, timing)
            start = time.perf_counter()
            est.train(input_fn(), steps=steps, hooks=hooks)
            wall = time.perf_counter() - start
            dense = {k: v for k, v in placement.items() if k != "(none)"}
            devices = sorted({d.split("device:")[-1] for d in dense.values()})
            if device == "GPU" and dense and not any(d.startswith("GPU") for d in devices):
                raise StageFailed(f"--device {cfg['device']}: the dense layers ran on {', '.join(devices) or 'an unknown device'}, not the GPU")
            rate = steps / max(timing["train"], 1e-9)
            where = ", ".join(devices) or "(no MatMul in this model)"
            variables = [n for n in dense if n.startswith("(variable) ")]
            ops = [n for n in dense if not n.startswith("(variable) ")]
            forward = sorted(n for n in ops if "gradients/" not in n)
            backward = [n for n in ops if "gradients/" in n]
            sample = ([n for n in ops if "gradients/" not in n] or ops or [""])[0]  # a forward kernel (they come first)
            counts = f"; {len(forward)} forward op(s), {len(backward)} backward op(s), {len(variables)} variable(s)" if dense else ""
            return (f"{steps} steps, {rate:.1f} steps/s ({wall:.2f} s with graph building); dense layers on {where}"
                    + (f" (e.g. {sample})" if sample else "") + counts,
                    {"steps_per_second": round(rate, 2), "dense_device": where})

        self.stage("train", train, fatal=True)

        def checkpoint_files():
            rc = est.config
            state = tf.train.get_checkpoint_state(model_dir)
            files = sorted(f for f in os.listdir(model_dir) if f.startswith("model.ckpt-") and f.endswith(".index"))
            promise = (f"RunConfig(save_checkpoints_steps={rc.save_checkpoints_steps}, "
                       f"save_checkpoints_secs={rc.save_checkpoints_secs}, keep_checkpoint_max={rc.keep_checkpoint_max})")
            if not files or not state:
                raise StageFailed(f"no checkpoint in {model_dir} after {steps} steps: {promise} saves none, so a restart loses all training")
            latest = state.model_checkpoint_path
            last_step = int(latest.rsplit("-", 1)[-1])
            if last_step != start + steps:
                raise StageFailed(f"latest checkpoint is step {last_step}, expected {start + steps} ({promise})")
            saved = [int(f[len("model.ckpt-"):-len(".index")]) for f in files]
            keep = rc.keep_checkpoint_max
            if keep and len(files) > keep:
                raise StageFailed(f"{len(files)} checkpoints on disk, keep_checkpoint_max={keep} promised at most {keep}")
            if rc.save_checkpoints_steps and not start:
                expected = sorted({0, *range(rc.save_checkpoints_steps, steps + 1, rc.save_checkpoints_steps), steps})
                if keep:
                    expected = expected[-keep:]
                if sorted(saved) != expected:
                    raise StageFailed(f"checkpoints at steps {sorted(saved)}, {promise} promised {expected}")
            return f"{len(files)} checkpoint(s) kept (steps {sorted(saved)}), latest at step {last_step}; {promise}", {"checkpoint_steps": sorted(saved)}

        self.stage("checkpoint files", checkpoint_files, fatal=True)

        predict_x = {k: v[: min(batch, 16)] for k, v in features.items()}

        def predict_input():
            return tf.data.Dataset.from_tensor_slices(unpack(predict_x)).batch(16)

        predict_y = labels[: min(batch, 16)]
        how = {"what": "predictions"}

        def predictions(e, hooks=()):
            import copy

            # a graph seed, so dropout a model_fn leaves on outside TRAIN draws the same both times
            seeded = copy.copy(e)
            seeded._config = e.config.replace(tf_random_seed=e.config.tf_random_seed or 1)
            if how["what"] == "evaluation":  # a model_fn without a PREDICT mode: the evaluation loss instead
                def eval_input():
                    return tf.data.Dataset.from_tensor_slices((unpack(predict_x), predict_y)).batch(16)
                got = seeded.evaluate(eval_input, steps=1, hooks=list(hooks))
                return {"loss": np.asarray(got["loss"])}
            out = list(seeded.predict(predict_input, hooks=list(hooks), yield_single_examples=False))
            if not isinstance(out[0], dict):
                out = [{"predictions": b} for b in out]
            return {k: np.concatenate([b[k] for b in out]) for k in out[0]}

        def restore():
            try:
                first = predictions(est)
            except Exception:  # noqa: BLE001 - e.g. the model_fn needs labels in every mode
                how["what"] = "evaluation"
                first = predictions(est)
            second_est = factory(model_dir)
            restored: dict[str, Any] = {}
            declared_shapes: dict[str, list] = {}

            class Grab(tf.estimator.SessionRunHook):
                def after_create_session(self, session, coord):
                    vs = tf.compat.v1.global_variables()
                    for v, value in zip(vs, session.run(vs)):
                        restored[v.op.name] = value
                        declared_shapes[v.op.name] = v.shape.as_list()

            second = predictions(second_est, [Grab()])
            for key in first:
                if first[key].shape != second[key].shape or not np.array_equal(first[key], second[key]):
                    raise StageFailed(f"{how['what']} differ after restore ('{key}')")
            reader = load_checkpoint(tf, model_dir)
            names = reader.get_variable_to_shape_map()
            compared = 0
            for name, value in restored.items():
                if name not in names:
                    raise StageFailed(f"the second estimator has {name}, the checkpoint does not")
                saved = reader.get_tensor(name)
                if list(value.shape) != declared_shapes[name]:
                    raise StageFailed(f"{name}: restored a {list(value.shape)} value into a variable declared {declared_shapes[name]}")
                if saved.dtype != value.dtype or saved.shape != value.shape or saved.tobytes() != value.tobytes():
                    raise StageFailed(f"{name}: restored value is not bit-identical to the checkpoint")
                compared += 1
            n = len(next(iter(predict_x.values())))
            what = f"{n} predictions equal" if how["what"] == "predictions" else f"evaluation loss on {n} examples equal (the model_fn has no PREDICT mode)"
            return f"second estimator: {what}, {compared} variables bit-identical to the checkpoint"

        self.stage("restore", restore)

        def resume():
            hooks = make_hooks(tf, "resume", more, None, timing)
            again = factory(model_dir)
            again.train(input_fn(), steps=more, hooks=hooks)
            seconds = max(timing["resume"], 1e-9)
            step = int(load_checkpoint(tf, model_dir).get_tensor("global_step"))
            before = start + steps
            if step != before + more:
                raise StageFailed(f"global_step is {step} after {before} + {more} steps (expected {before + more}): training did not resume from the checkpoint")
            return f"global_step {before} + {more} = {step} ({more / seconds:.1f} steps/s)", {"steps_per_second": round(more / seconds, 2)}

        self.stage("resume", resume)

        def analysis():
            result = analyse(tf, latest_checkpoint(tf, model_dir), variables, cfg["target"])
            emit("checkpoint", analysis=result)
            if not result["compatible"]:
                raise StageFailed(result["verdict"])
            return result["verdict"]

        self.stage("checkpoint analysis", analysis)

        if cfg.get("checkpoint"):
            def legacy():
                path = cfg["checkpoint"]
                ckpt = latest_checkpoint(tf, path) if os.path.isdir(path) else path
                if not ckpt:
                    raise StageFailed(f"{path}: no checkpoint there")
                result = analyse(tf, ckpt, variables, cfg["target"])
                emit("checkpoint", analysis=result)
                if not result["compatible"]:
                    raise StageFailed(f"{ckpt}: {result['verdict']}")
                return f"{ckpt}: {result['verdict']}"

            self.stage("legacy checkpoint", legacy)

        if cfg.get("converted"):
            def converted():
                result = analyse(tf, cfg["converted"], variables, cfg["target"])
                emit("checkpoint", analysis=result)
                if not result["compatible"]:
                    raise StageFailed(f"{cfg['converted']}: {result['verdict']}")
                return f"{cfg['converted']}: {result['verdict']}"

            self.stage("converted checkpoint", converted)


def declared_path(declared: str, cfg: dict) -> str:
    """The absolute directory a definition's own model_dir names. A relative one is resolved as the program
    resolves it when run from ``cfg["model_dir_base"]`` (the program's own directory, or ``--cwd``), never
    against this process's working directory (tfmigrate's, or a scratch copy's)."""
    if os.path.isabs(declared):
        return os.path.abspath(declared)
    base = cfg.get("model_dir_base")
    if not base:
        from tfmigrate.validate import targets

        base = os.path.dirname(os.path.abspath(targets.split(cfg["target"])[0]))
    return os.path.abspath(os.path.join(base, declared))


def own_model_dir(tf, declared: str | None, cfg: dict) -> str | None:
    """The directory the definition's own model_dir names (:func:`declared_path`), when it holds a checkpoint."""
    if not declared:
        return None
    directory = declared_path(declared, cfg)
    return directory if os.path.isdir(directory) and latest_checkpoint(tf, directory) else None


def prepare(tf, np, target: str, model_dir: str, batch: int, program: bool = False, program_args: list | None = None):
    """Build TARGET and everything the stages need; CouldNotRun (one line) when it cannot be built."""
    try:
        est, factory, declared = load_target(tf, target, model_dir, program, program_args)
        keras = getattr(est, "_tfmigrate_keras", None)
        if keras is not None:
            columns = []
            features, labels, kinds = keras_inputs(np, keras, batch)
        else:
            columns, head, params = describe_model(est)
            own_input = getattr(est, "_tfmigrate_input_fn", None) or getattr(factory, "input_fn", None)
            if not columns and own_input is not None:
                features, labels, kinds = from_input_fn(tf, np, own_input, batch)
            else:
                features, labels, kinds = synthesize(np, columns, head, params, batch)
        variables = model_variables(tf, factory, features, labels, columns, target)
    except CouldNotRun:
        raise
    except Exception as exc:  # noqa: BLE001
        if type(exc).__name__ == "TargetError":
            raise CouldNotRun(str(exc)) from None
        raise CouldNotRun(f"cannot build {target}: {type(exc).__name__}: {first_line(exc)}") from None
    return est, factory, declared, columns, features, labels, kinds, variables


class _Stop(Exception):
    pass


def first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    for line in text.splitlines():
        line = line.strip()
        if line and not line.startswith(("Traceback", "File ")):
            return line[:400]
    return type(exc).__name__


def main(argv: list[str], run: type[Run] = Run) -> int:
    """``run``: the Run class (``_keras_child.KerasRun`` for --target keras)."""
    global _PROTO
    _PROTO = os.fdopen(os.dup(1), "w", buffering=1, encoding="utf-8")
    os.dup2(2, 1)  # the user's prints and TensorFlow's go to stderr
    sys.stdout = sys.stderr
    config = json.loads(argv[0])
    if config.get("program_copy"):
        from tfmigrate.validate import targets

        targets.PROGRAM_COPY = config["program_copy"]  # the program runs there (the parent made the copy)
    try:
        run(config).main()
    except _Stop:
        pass
    except CouldNotRun as exc:
        emit("fatal", error=str(exc), **({"environment": True} if isinstance(exc, NoTensorFlow) else {}))
        return 2
    except Exception as exc:  # noqa: BLE001 - reported as one line; the parent shows it
        import traceback

        traceback.print_exc()
        emit("fatal", error=f"{type(exc).__name__}: {first_line(exc)}")
        return 2
    emit("done")
    return 0


def _exit(code: int) -> None:
    """End the child now: the parent has every event it needs. Summary writers are closed (their events
    reach the disk), then ``os._exit`` skips the interpreter's teardown of TensorFlow's graphs, sessions
    and thread pools, which took 0.5 s idle and 2 s on a loaded machine after the last stage."""
    try:
        tf = sys.modules.get("tensorflow")
        if tf is not None:
            tf.compat.v1.summary.FileWriterCache.clear()
    except Exception:  # noqa: BLE001 - best effort; the exit code is what matters
        pass
    for stream in (sys.stdout, sys.stderr, _PROTO):
        try:
            if stream is not None:
                stream.flush()
        except Exception:  # noqa: BLE001
            pass
    os._exit(code)


if __name__ == "__main__":
    _exit(main(sys.argv[1:]))
