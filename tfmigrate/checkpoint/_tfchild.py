"""The TensorFlow side of the checkpoint analyser; runs only as a child process.

    python -m tfmigrate.checkpoint._tfchild variables TARGET
    python -m tfmigrate.checkpoint._tfchild convert < {"source": prefix, "out": prefix, "map": {...}, "keep": [...]}

Prints one JSON line on stdout: ``{"ok": true, ...}`` or ``{"ok": false, "error": "one line"}``.
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
import traceback
from typing import Any

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")


def _fail(message: str) -> None:
    print(json.dumps({"ok": False, "error": " ".join(message.split())[:500]}))
    sys.exit(0)


def estimator_variables(loaded: Any) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    import tensorflow as tf
    from tensorflow.python.training.saving import saveable_object_util

    from tfmigrate.checkpoint.targets import TargetError

    est = loaded.estimator
    ModeKeys = tf.estimator.ModeKeys
    with tf.Graph().as_default():
        tf.compat.v1.train.get_or_create_global_step()
        if loaded.feature_columns:
            spec = tf.compat.v1.feature_column.make_parse_example_spec(loaded.feature_columns)
            serialized = tf.compat.v1.placeholder(tf.string, [None], name="tfmigrate_examples")
            features = tf.io.parse_example(serialized, spec)
        elif loaded.input_fn is not None:
            features, _labels = est._get_features_and_labels_from_input_fn(loaded.input_fn, ModeKeys.TRAIN)  # noqa: SLF001
        else:
            raise TargetError(f"{loaded.target.spec}: cannot derive the model's features: give params['feature_columns'] or define train_input_fn in {loaded.target.path}")
        cls = type(est).__name__
        if "Regressor" in cls:
            labels = tf.compat.v1.placeholder(tf.float32, [None, 1])
        elif "Classifier" in cls and _closure_has_vocab(est):
            labels = tf.compat.v1.placeholder(tf.string, [None, 1])
        else:
            labels = tf.compat.v1.placeholder(tf.int64, [None, 1])
        est._call_model_fn(features, labels, ModeKeys.TRAIN, est.config)  # noqa: SLF001
        var_list = tf.compat.v1.global_variables() + tf.compat.v1.get_collection(tf.compat.v1.GraphKeys.SAVEABLE_OBJECTS)
        names = saveable_object_util.op_list_to_dict(var_list)
        out = []
        for name, var in names.items():
            parts = var if isinstance(var, (list, tuple)) else [var]
            first = parts[0]
            info = getattr(first, "_save_slice_info", None)
            shape = list(info.full_shape) if info is not None else first.shape.as_list()
            dtype = first.dtype.base_dtype.name
            resource = not first.dtype._is_ref_dtype  # noqa: SLF001
            out.append({"name": name, "dtype": dtype, "shape": shape, "resource": bool(resource),
                        "partitioned": info is not None})
        _initial_values(out)
    module = type(est).__module__
    api = "custom"
    if ".canned." in module:
        api = "v2" if cls.endswith("V2") else "v1"
    info = {"kind": "estimator", "class": cls.removesuffix("V2"), "api": api,
            "model_dir": loaded.model_dir, "construction_line": loaded.construction.line if loaded.construction else None}
    return info, sorted(out, key=lambda v: v["name"])


def _initial_values(out: list[dict[str, Any]]) -> None:
    """``init`` of each optimizer variable (slots and hyperparameters): the value its own initializer
    gives, when that is one number everywhere (``{"fill": 0.1}``; Adagrad's accumulators, Adam's
    zeros, a learning rate). ``ckpt convert`` writes it for a slot the checkpoint cannot give."""
    import numpy as np
    import tensorflow as tf

    from tfmigrate.checkpoint import classify

    by_op = {var.op.name: var for var in tf.compat.v1.global_variables()}
    wanted = {v["name"]: by_op[v["name"]] for v in out
              if classify.kind(v["name"]) != "model" and v["name"] != "global_step" and v["name"] in by_op}
    if not wanted:
        return
    try:
        with tf.compat.v1.Session() as sess:
            sess.run(tf.compat.v1.variables_initializer(list(wanted.values())))
            values = sess.run({n: var.value() for n, var in wanted.items()})
    except Exception:  # noqa: BLE001 - an initializer that needs a feed: no init given, the slot is said not carried
        return
    for v in out:
        value = values.get(v["name"])
        if value is None:
            continue
        flat = np.asarray(value).reshape(-1)
        if flat.size and np.all(flat == flat[0]) and np.asarray(value).dtype.kind in "fiub":
            v["init"] = {"fill": flat[0].item()}


def _closure_has_vocab(est: Any) -> bool:
    """Whether a canned classifier takes string labels (``label_vocabulary=``). V2 canned estimators
    keep it on the head their model_fn closes over (``head._label_vocabulary``), V1 ones may close
    over ``label_vocabulary`` itself."""
    from tfmigrate.checkpoint.targets import _closure_value

    fn = getattr(est, "_model_fn", None)
    head = _closure_value(fn, "head")
    return bool(getattr(head, "_label_vocabulary", None) or _closure_value(fn, "label_vocabulary"))


def keras_variables(loaded: Any) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    import tensorflow as tf

    from tfmigrate.checkpoint.targets import TargetError

    model = loaded.keras_model
    if not model.built:
        raise TargetError(f"{loaded.target.spec}: the Keras model is not built (give it an Input or input_shape)")
    with tempfile.TemporaryDirectory(prefix="tfmigrate-keras-") as tmp:
        model.save_weights(os.path.join(tmp, "w"))
        reader = tf.train.load_checkpoint(os.path.join(tmp, "w"))
        dtypes = reader.get_variable_to_dtype_map()
        shapes = reader.get_variable_to_shape_map()
    out = [{"name": n, "dtype": dtypes[n].name, "shape": list(shapes[n]), "resource": True} for n in sorted(shapes)]
    return {"kind": "keras", "class": type(model).__name__, "api": "keras", "model_dir": None}, out


def cmd_variables(spec: str) -> dict[str, Any]:
    from tfmigrate.checkpoint.targets import load, parse_target

    loaded = load(parse_target(spec))
    info, variables = keras_variables(loaded) if loaded.keras_model is not None else estimator_variables(loaded)
    return {"ok": True, "model": info, "variables": variables}


def _object_graph(ops: list[dict[str, Any]]) -> bytes:
    """A serialized ``TrackableObjectGraph`` for the object-based keys the ops write
    (``model/conv1/kernel/.ATTRIBUTES/VARIABLE_VALUE``: root -> ``model`` -> ``conv1`` -> ``kernel``,
    whose attribute ``VARIABLE_VALUE`` is that key), so that ``tf.train.Checkpoint.restore``
    matches them to the model's objects by path. Key segments are escaped as TF escapes local
    names (``.S`` for ``/``, ``..`` for ``.``)."""
    import re

    from tensorflow.core.protobuf import trackable_object_graph_pb2

    def unescape(part: str) -> str:
        return re.sub(r"\.(S|\.)", lambda m: "/" if m.group(1) == "S" else ".", part)

    graph = trackable_object_graph_pb2.TrackableObjectGraph()
    graph.nodes.add()
    ids: dict[tuple[str, ...], int] = {(): 0}
    for op in sorted(ops, key=lambda o: o["new"]):
        key = op["new"]
        if "/.ATTRIBUTES/" not in key:
            continue
        path, attribute = key.split("/.ATTRIBUTES/", 1)
        parts = tuple(path.split("/"))
        for j in range(1, len(parts) + 1):
            if parts[:j] not in ids:
                ids[parts[:j]] = len(graph.nodes)
                graph.nodes.add()
                ref = graph.nodes[ids[parts[:j - 1]]].children.add()
                ref.node_id = ids[parts[:j]]
                ref.local_name = unescape(parts[j - 1])
        attr = graph.nodes[ids[parts]].attributes.add()
        attr.name = attribute
        attr.checkpoint_key = key
        attr.full_name = op["src"][0]
    return graph.SerializeToString()


def cmd_convert(request: dict[str, Any]) -> dict[str, Any]:
    """Read ``source``; for each op ``{"new", "op": copy|add|diff_last|const|fill|object_graph, "src": [...]}`` compute the
    tensor; write ``out_dir/model.ckpt-STEP`` with SaveV2; read it back and compare every tensor."""
    import numpy as np
    import tensorflow as tf

    from tfmigrate.checkpoint.index import refuse_special_files

    refuse_special_files(request["source"])  # a FIFO would block TensorFlow for ever
    reader = tf.train.load_checkpoint(request["source"])
    shapes = reader.get_variable_to_shape_map()
    values: dict[str, Any] = {}
    for op in request["ops"]:
        if op["op"] == "object_graph":
            values[op["new"]] = np.array(_object_graph(request["ops"]), dtype=object)
            continue
        if op["op"] == "const":
            values[op["new"]] = np.asarray(op["value"], dtype=op["dtype"])
            continue
        if op["op"] == "fill":  # an optimizer variable as its optimizer initialises it
            values[op["new"]] = np.full(op["shape"], op["value"], dtype=op["dtype"])
            continue
        for src in op["src"]:
            if src not in shapes:
                raise KeyError(f"{src} is not in {request['source']}")
        arrays = [reader.get_tensor(s) for s in op["src"]]
        if op["op"] == "copy":
            value = arrays[0]
        elif op["op"] == "add":
            value = arrays[0]
            for a in arrays[1:]:
                value = value + a.reshape(value.shape)
        elif op["op"] == "diff_last":  # 2-class softmax -> 1 sigmoid logit
            value = arrays[0][..., 1:2] - arrays[0][..., 0:1]
            if value.ndim == 1:
                value = value.reshape(1)
        else:
            raise ValueError(f"unknown op {op['op']}")
        if op["new"] == "global_step":
            value = np.asarray(value).astype(np.int64)
        values[op["new"]] = np.asarray(value)
    step = int(values["global_step"]) if "global_step" in values and values["global_step"].size == 1 else 0
    prefix = os.path.join(request["out_dir"], f"model.ckpt-{step}")
    os.makedirs(request["out_dir"], exist_ok=True)
    names = sorted(values)
    tf.raw_ops.SaveV2(prefix=prefix, tensor_names=names, shape_and_slices=[""] * len(names),
                      tensors=[tf.constant(values[n]) for n in names])
    check = tf.train.load_checkpoint(prefix)
    for n in names:
        if not np.array_equal(check.get_tensor(n), values[n]):
            raise ValueError(f"read-back check failed for {n}")
    return {"ok": True, "prefix": prefix, "written": names}


def main(argv: list[str]) -> None:
    from tfmigrate.checkpoint.index import CheckpointError

    try:
        import tensorflow as tf

        tf.get_logger().setLevel("ERROR")
        if argv[:1] == ["variables"] and len(argv) == 2:
            result = cmd_variables(argv[1])
        elif argv[:1] == ["variables-many"] and len(argv) == 2:
            results = []
            for spec in json.loads(argv[1]):
                try:
                    results.append(cmd_variables(spec))
                except Exception as exc:  # noqa: BLE001 - one line per target
                    lines = [ln for ln in str(exc).strip().splitlines() if ln.strip()]
                    msg = str(exc) if isinstance(exc, CheckpointError) else f"{type(exc).__name__}: {lines[0] if lines else ''}"
                    results.append({"ok": False, "error": " ".join(msg.split())[:500]})
            result = {"ok": True, "results": results}
        elif argv[:1] == ["convert"]:
            result = cmd_convert(json.loads(sys.stdin.read()))
        else:
            _fail(f"usage: _tfchild variables TARGET | convert < request.json (got {argv})")
            return
    except SystemExit:
        raise
    except BaseException as exc:  # noqa: BLE001 - everything becomes one line for the parent
        from tfmigrate.checkpoint.index import CheckpointError

        if isinstance(exc, CheckpointError):
            _fail(str(exc))
        if os.environ.get("TFMIGRATE_DEBUG"):
            traceback.print_exc()
        lines = [ln for ln in str(exc).strip().splitlines() if ln.strip()]
        _fail(f"{type(exc).__name__}: {lines[0] if lines else ''}")
        return
    print(json.dumps(result))


if __name__ == "__main__":
    main(sys.argv[1:])
