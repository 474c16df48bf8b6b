"""The TensorFlow 2.21 half of ``tfmigrate validate --target keras``: runs in a child process started with
the second interpreter (``.venv-keras``, ``--python``), never imported by the parent.

TARGET is ``file.py[:LINE]`` of a ``canned_keras_model("DNNClassifier", ...)`` call, the Keras model
``tfmigrate rewrite --target keras`` writes for a canned estimator. The model is built here the way the
migrated module builds it: ``tfmigrate.keras_runtime.program_text()`` (the helpers the rewrite writes,
the same text) is executed, and the call's arguments are evaluated statically
(``tfmigrate.targets_static.build_keras``), with the model_dir replaced by the validation's own.
Then: train a few steps on generated data matching the inputs, find ``model.ckpt-STEP.weights.h5`` in
model_dir, build a second model the same way (it restores the newest checkpoint: equal predictions,
equal weights, ``optimizer.iterations == STEP``), train it again (the step count goes on).

The protocol is ``tfmigrate.validate._child``'s (one JSON event a line on the original stdout); this
module imports nothing of tfmigrate but that protocol, ``keras_runtime`` and ``targets_static``
(stdlib only), so it runs in an interpreter that has TensorFlow 2.21 and no tfmigrate dependencies.

Invoked as ``python -P -m tfmigrate.validate._keras_child CONFIG_JSON``.
"""

from __future__ import annotations

import os
import sys
import time
from typing import Any

from tfmigrate.validate._child import CouldNotRun, NoTensorFlow, Run, StageFailed, _exit, emit, first_line, main, regular_files_only

CHECKPOINT_PREFIX, CHECKPOINT_SUFFIX = "model.ckpt-", ".weights.h5"


def quiet_tensorflow():
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    os.environ.setdefault("ABSL_MIN_LOG_LEVEL", "3")
    import warnings

    warnings.filterwarnings("ignore")
    try:
        import tensorflow as tf
    except ImportError as exc:
        raise NoTensorFlow(f"TensorFlow is not installed in {sys.executable} ({exc}): `make keras` builds .venv-keras "
                          "(TensorFlow 2.21); name it with --python") from None
    try:
        import absl.logging

        absl.logging.set_verbosity(absl.logging.ERROR)
    except ImportError:
        pass
    tf.get_logger().setLevel("ERROR")
    return tf


def checkpoint_steps(model_dir: str) -> list[int]:
    """The STEPs of the model.ckpt-STEP.weights.h5 files in model_dir, ascending."""
    if not model_dir or not os.path.isdir(model_dir):
        return []
    regular_files_only(model_dir)  # a FIFO named like a checkpoint would block Keras for ever
    steps = []
    for name in os.listdir(model_dir):
        middle = name[len(CHECKPOINT_PREFIX):-len(CHECKPOINT_SUFFIX)]
        if name.startswith(CHECKPOINT_PREFIX) and name.endswith(CHECKPOINT_SUFFIX) and middle.isdigit():
            steps.append(int(middle))
    return sorted(steps)


def base_columns(columns) -> list:
    """The columns that read a feature (NumericColumn, the categorical ones), under embeddings, indicators, buckets."""
    out, todo = [], list(columns)
    while todo:
        column = todo.pop(0)
        kind = type(column).__name__
        if kind in ("EmbeddingColumn", "IndicatorColumn"):
            todo.append(column.categorical_column)
        elif kind == "BucketizedColumn":
            todo.append(column.source_column)
        else:
            out.append(column)
    return out


def synthesize(tf, np, model, columns, batch: int):
    """Features for every input of ``model`` (from its feature columns where they say more: vocabularies,
    bucket counts) and labels for its head; (features, labels, {name: what was generated})."""
    rng = np.random.default_rng(0)
    n = batch
    features: dict[str, Any] = {}
    kinds: dict[str, str] = {}
    for column in base_columns(columns or []):
        key, kind = column.key, type(column).__name__
        if key in features:
            continue
        if kind == "NumericColumn":
            shape = tuple(column.shape)
            if column.dtype.is_floating:
                features[key] = rng.normal(size=(n, *shape)).astype(column.dtype.as_numpy_dtype)
            else:
                features[key] = rng.integers(0, 5, size=(n, *shape)).astype(column.dtype.as_numpy_dtype)
            kinds[key] = f"numeric {list(shape)}"
        elif kind == "VocabularyListCategoricalColumn":
            vocab = list(column.vocabulary_list)
            values = np.array([[vocab[i % len(vocab)]] for i in range(n)])
            features[key] = values.astype("int64") if column.dtype.is_integer else values.astype(object)
            kinds[key] = f"vocabulary of {len(vocab)}"
        elif kind == "IdentityCategoricalColumn":
            features[key] = np.array([[i % column.num_buckets] for i in range(n)], dtype="int64")
            kinds[key] = f"identity 0..{column.num_buckets - 1}"
        elif kind == "HashedCategoricalColumn":
            features[key] = (np.array([[i % 7] for i in range(n)], dtype="int64") if column.dtype.is_integer
                             else np.array([[f"h{i % 7}"] for i in range(n)], dtype=object))
            kinds[key] = "hashed"
    for name, tensor in (model.input.items() if isinstance(model.input, dict) else []):
        if name in features:
            continue
        shape = tuple(d or 1 for d in tensor.shape[1:])
        dtype = str(getattr(tensor, "dtype", "float32"))
        if "string" in dtype:
            features[name] = np.array([["s"] * int(np.prod(shape)) for _ in range(n)], dtype=object).reshape((n, *shape))
        elif "int" in dtype:
            features[name] = np.zeros((n, *shape), dtype=dtype)
        else:
            features[name] = rng.normal(size=(n, *shape)).astype(dtype)
        kinds[name] = f"{dtype} {list(shape)}"
    width = int(model.output.shape[-1])
    if model.head == "regression":
        labels = rng.normal(size=(n, width)).astype("float32")
        kinds["(label)"] = f"regression, {width} value(s)"
    elif model.head == "binary":
        labels = np.array([[i % 2] for i in range(n)], dtype="float32")
        kinds["(label)"] = "2 classes"
    else:
        labels = np.array([i % width for i in range(n)], dtype="int64")
        kinds["(label)"] = f"{width} classes"
    return features, labels, kinds


class KerasRun(Run):
    def main(self) -> None:
        cfg = self.config
        emit("stage-start", name="load")
        t0 = time.perf_counter()
        if cfg["device"] == "cpu":
            os.environ["CUDA_VISIBLE_DEVICES"] = "-1"
        tf = quiet_tensorflow()
        import numpy as np

        from tfmigrate import keras_runtime
        from tfmigrate import targets_static as static

        gpus = tf.config.list_physical_devices("GPU")
        if cfg["device"] == "gpu" and not gpus:
            raise CouldNotRun("--device gpu: TensorFlow sees no GPU here (tf.config.list_physical_devices('GPU') is empty)")
        device = "GPU" if gpus and cfg["device"] != "cpu" else "CPU"
        helpers: dict[str, Any] = {"__name__": "tfmigrate_keras_helpers"}
        exec(compile(keras_runtime.program_text(), "<tfmigrate.keras_runtime>", "exec"), helpers)  # noqa: S102 - our own text
        target = cfg["target"]
        path, _, line = target.rpartition(":") if target.rpartition(":")[2].isdigit() else (target, "", "")
        line_no = int(line) if line else None
        model_dir = cfg["model_dir"]
        steps, more, batch = cfg["steps"], cfg["resume_steps"], cfg["batch_size"]

        def build(directory: str):
            tf.keras.backend.clear_session()  # each build names its layers as a fresh process would
            try:
                return static.build_keras(path, line_no, directory, helpers)
            except static.StaticError as exc:
                raise CouldNotRun(str(exc)) from None

        start = (checkpoint_steps(model_dir) or [0])[-1]  # a --model-dir with checkpoints: training goes on from there
        if start:
            built: dict[str, Any] = {}

            def existing():
                try:
                    built["model"] = build(model_dir)
                except CouldNotRun as exc:
                    raise StageFailed(f"{model_dir}: {CHECKPOINT_PREFIX}{start}{CHECKPOINT_SUFFIX} does not restore: {exc}") from None
                return f"{model_dir}: {CHECKPOINT_PREFIX}{start}{CHECKPOINT_SUFFIX} restores; training goes on from step {start}"

            self.stage("existing checkpoint", existing, fatal=True)
            model, site, kwargs = built["model"]
            start = int(model.optimizer.iterations)
        else:
            model, site, kwargs = build(model_dir)
        columns = kwargs.get("feature_columns") or []
        try:
            features, labels, kinds = synthesize(tf, np, model, columns, batch)
        except Exception as exc:  # noqa: BLE001
            raise CouldNotRun(f"cannot generate inputs for {target}: {type(exc).__name__}: {first_line(exc)}") from None
        declared = site.model_dir
        own = None
        if declared:
            for candidate in (declared, os.path.join(os.path.dirname(os.path.abspath(path)), declared)):
                if checkpoint_steps(candidate) and os.path.realpath(candidate) != os.path.realpath(model_dir):
                    own = candidate
                    break
        optimizer = model.optimizer
        rate = float(np.asarray(optimizer.learning_rate)) if hasattr(optimizer, "learning_rate") else None
        emit("info", device=device, estimator=model.name, model_dir=model_dir, declared_model_dir=declared, inputs=kinds,
             tensorflow=tf.__version__, keras=tf.keras.__version__ if hasattr(tf.keras, "__version__") else None)
        emit("stage", name="load", passed=True, seconds=round(time.perf_counter() - t0, 3),
             detail=(f"Keras model '{model.name}' from {site.cls} on line {site.line} (TensorFlow {tf.__version__}): "
                     f"{len(model.layers)} layers, {model.count_params()} parameters, {type(optimizer).__name__}"
                     + (f"(learning_rate={rate:g})" if rate is not None else "")
                     + "; inputs: " + ", ".join(f"{k}: {v}" for k, v in kinds.items())
                     + (f"; its own model_dir {declared} holds no checkpoint yet" if declared and not own else "")))

        def dataset():
            return tf.data.Dataset.from_tensor_slices((features, labels)).repeat().batch(min(batch, 32))

        if own:
            def own_checkpoint():
                newest = checkpoint_steps(own)[-1]
                try:
                    restored, _, _ = build(own)  # restores its newest checkpoint; writes nothing there
                except CouldNotRun as exc:
                    raise StageFailed(f"the model's own model_dir {own}: model.ckpt-{newest}{CHECKPOINT_SUFFIX} does not restore: {exc}") from None
                return (f"the model's own model_dir {own}: model.ckpt-{newest}{CHECKPOINT_SUFFIX} restores "
                        f"(optimizer.iterations {int(restored.optimizer.iterations)}; read only, nothing written there)")
            self.stage("model_dir checkpoint", own_checkpoint)
            model, site, kwargs = build(model_dir)

        timing: dict[str, float] = {}

        def progress(name: str, total: int):
            class Progress(tf.keras.callbacks.Callback):
                def on_train_batch_end(self, batch_index, logs=None):
                    now = time.perf_counter()
                    if batch_index == 0:
                        timing[name + "-first"] = now
                    timing[name] = now
                    step = batch_index + 1
                    if step == total or step % max(1, total // 50) == 0:
                        emit("progress", name=name, step=step, total=total)
            return Progress()

        def fit(m, name: str, count: int) -> float:
            began = time.perf_counter()
            callbacks = helpers["checkpoints"](m) + [progress(name, count)]
            m.fit(dataset(), epochs=1, steps_per_epoch=count, callbacks=callbacks, verbose=0)
            wall = time.perf_counter() - began
            if count > 1 and name + "-first" in timing:
                return (count - 1) / max(timing[name] - timing[name + "-first"], 1e-9), wall
            return count / max(wall, 1e-9), wall

        def train():
            rate, wall = fit(model, "train", steps)
            iterations = int(model.optimizer.iterations)
            if iterations != start + steps:
                raise StageFailed(f"optimizer.iterations is {iterations} after {steps} steps (expected {start + steps})")
            return (f"{steps} steps, {rate:.1f} steps/s ({wall:.2f} s with tracing); optimizer.iterations {iterations}",
                    {"steps_per_second": round(rate, 2), "dense_device": device})

        self.stage("train", train, fatal=True)

        run_config = dict(model.run_config or {})

        def checkpoint_files():
            saved = checkpoint_steps(model_dir)
            every, secs = run_config.get("save_checkpoints_steps"), run_config.get("save_checkpoints_secs")
            keep = run_config.get("keep_checkpoint_max", 5)
            promise = (f"config(save_checkpoints_steps={every}, save_checkpoints_secs={secs if every or secs else 600}, "
                       f"keep_checkpoint_max={keep})")
            if not saved:
                raise StageFailed(f"no {CHECKPOINT_PREFIX}STEP{CHECKPOINT_SUFFIX} in {model_dir} after {steps} steps: a restart loses all training")
            if saved[-1] != start + steps:
                raise StageFailed(f"latest checkpoint is step {saved[-1]}, expected {start + steps} ({promise})")
            if keep and len(saved) > keep:
                raise StageFailed(f"{len(saved)} checkpoints on disk, keep_checkpoint_max={keep} promised at most {keep}")
            if every and not start:
                expected = sorted({*range(every, steps + 1, every), steps})
                if keep:
                    expected = expected[-keep:]
                if saved != expected:
                    raise StageFailed(f"checkpoints at steps {saved}, {promise} promised {expected}")
            return (f"{len(saved)} checkpoint(s) kept (steps {saved}), latest {CHECKPOINT_PREFIX}{saved[-1]}{CHECKPOINT_SUFFIX}; {promise}",
                    {"checkpoint_steps": saved})

        self.stage("checkpoint files", checkpoint_files, fatal=True)

        sample = {k: v[:16] for k, v in features.items()}
        first_out = np.asarray(model(sample, training=False))
        first_weights = [np.asarray(w) for w in model.weights]
        first_slots = [np.asarray(v) for v in model.optimizer.variables]  # iterations, learning rate, accumulators...
        state: dict[str, Any] = {}

        def restore():
            second, _, _ = build(model_dir)
            state["model"] = second
            iterations = int(second.optimizer.iterations)
            newest = checkpoint_steps(model_dir)[-1]
            if iterations != newest:
                raise StageFailed(f"the second model's optimizer.iterations is {iterations}, the checkpoint's step {newest}: "
                                  "the optimizer state was not restored")
            weights = [np.asarray(w) for w in second.weights]
            if len(weights) != len(first_weights):
                raise StageFailed(f"the second model has {len(weights)} weights, the first {len(first_weights)}")
            for w, a, b in zip(second.weights, first_weights, weights):
                if a.shape != b.shape or a.tobytes() != b.tobytes():
                    raise StageFailed(f"{w.path}: restored value is not bit-identical to the trained model's")
            slots = [np.asarray(v) for v in second.optimizer.variables]
            if len(slots) != len(first_slots):
                raise StageFailed(f"the second model's optimizer has {len(slots)} variables, the trained one's {len(first_slots)}")
            for v, a, b in zip(second.optimizer.variables, first_slots, slots):
                if a.shape != b.shape or a.tobytes() != b.tobytes():
                    raise StageFailed(f"optimizer variable {v.path}: restored value is not bit-identical to the trained optimizer's")
            again = np.asarray(second(sample, training=False))
            if again.shape != first_out.shape or not np.array_equal(again, first_out):
                raise StageFailed("predictions differ after restore")
            n = len(first_out)
            return (f"second model from {CHECKPOINT_PREFIX}{newest}{CHECKPOINT_SUFFIX}: {n} predictions equal, "
                    f"{len(weights)} weights and {len(slots)} optimizer variables bit-identical, optimizer.iterations {iterations}")

        self.stage("restore", restore)

        def resume():
            second = state.get("model") or build(model_dir)[0]
            before = int(second.optimizer.iterations)
            rate, _ = fit(second, "resume", more)
            after = int(second.optimizer.iterations)
            newest = checkpoint_steps(model_dir)[-1]
            if after != before + more or newest != start + steps + more:
                raise StageFailed(f"optimizer.iterations {before} + {more} steps gave {after}, newest checkpoint step {newest} "
                                  f"(expected {start + steps + more}): training did not resume from the checkpoint")
            return f"optimizer.iterations {before} + {more} = {after}, {CHECKPOINT_PREFIX}{newest}{CHECKPOINT_SUFFIX} ({rate:.1f} steps/s)", \
                {"steps_per_second": round(rate, 2)}

        self.stage("resume", resume)


if __name__ == "__main__":
    _exit(main(sys.argv[1:], KerasRun))

