"""``tfmigrate ckpt convert --to keras``: a canned estimator's checkpoint as the weights of the Keras
model ``--target keras`` generates for it (``canned_keras_model`` of :mod:`tfmigrate.keras_runtime`).

    convert_to_keras(checkpoint, model_spec, out, python=None) -> KerasConversion
    convert_many([(checkpoint, model_spec, out), ...], python=None) -> [KerasConversion | CheckpointError]  # one TF child

``checkpoint``: an Estimator, TF Learn / contrib.learn or skflow checkpoint of a canned
``DNNClassifier``/``DNNRegressor``/``LinearClassifier``/``LinearRegressor`` (prefix, ``.index`` or
model_dir; V1 or V2; partitioned variables put together). ``model_spec``: ``file.py:LINE`` (or
``file.py``, its first construction) of

* a ``canned_keras_model("DNNClassifier", feature_columns=..., ...)`` call (a file rewritten with
  ``--target keras``), or
* a ``tf.estimator`` construction (``DNNClassifier(feature_columns=..., hidden_units=...)``, a file
  rewritten for the estimator target): the Keras model is the one ``--target keras`` makes of it.

Its arguments are read statically here (:mod:`tfmigrate.targets_static`, :mod:`tfmigrate.static_values`:
literals, constants and a fixed table of TensorFlow constructors; nothing of the file is run) and built in a TensorFlow 2.21 child
(``python``: ``--python``, else :func:`tfmigrate.childproc.keras_interpreter`). ``out``: a
``.weights.h5`` file, or a model_dir that gets ``model.ckpt-STEP.weights.h5`` (STEP the
checkpoint's global step, also the optimizer's ``iterations``), which ``canned_keras_model(...,
model_dir=out)`` restores.

Layer by layer: ``dnn/hiddenlayer_N`` (every era's names, :mod:`tfmigrate.checkpoint.names`) ->
``hiddenlayer_N``; ``dnn/logits`` -> ``logits`` (a 2-class softmax becomes 1 sigmoid logit,
``centered_bias_weight`` is added to the bias); a linear model's per-column ``weights`` stacked in
the model's column order -> ``logits`` kernel, ``bias_weights`` -> its bias; embedding weights ->
the ``Embedding`` layer named as the column. The legacy Adagrad accumulators go into the Keras
Adagrad's where every layer is a plain copy. Verified by equal predictions: a numpy forward pass
computed here from the checkpoint's own arrays, against Keras ``predict`` of a fresh model that
loaded the written file, on the same deterministic inputs.
"""

from __future__ import annotations

import ast
import os
import re
import tempfile
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from tfmigrate import static_values
from tfmigrate import targets_static as static
from tfmigrate.checkpoint import classify, index, names, values
from tfmigrate.checkpoint.index import CheckpointError
from tfmigrate.checkpoint.keras_conversion import KerasConversion, LayerTransfer, conversion_from_json, out_path, run_child  # noqa: F401 - the names callers read here
from tfmigrate.results import ModelRef, shape_text

CHILD_TIMEOUT_S = 300
SUPPORTED = ("DNNClassifier", "DNNRegressor", "LinearClassifier", "LinearRegressor")
# the canned_keras_model keywords that shape the model's weights (model_dir, config, loss_reduction do not)
MODEL_KEYWORDS = ("feature_columns", "hidden_units", "n_classes", "label_dimension", "activation_fn", "dropout", "optimizer")
ROWS = 16  # inputs compared
ATOL, RTOL = 1e-4, 1e-4


@dataclass
class ModelSpec:
    """A canned model found statically: what the TensorFlow 2.21 child evaluates."""

    spec: str
    path: str
    line: int
    form: str  # "keras" (a canned_keras_model call) | "estimator" (a tf.estimator construction)
    estimator: str  # DNNClassifier ...
    kwargs: dict[str, Any] = field(default_factory=dict)  # keyword -> its plan (tfmigrate.static_values), the ones in MODEL_KEYWORDS

    @property
    def target(self) -> str:
        return f"{self.path}:{self.line} {self.estimator}"


# ------------------------------------------------------------------------------------ the model side (static)


def _spec_path(spec: str) -> tuple[str, int | str | None]:
    """(file, LINE | function name | None)."""
    base, sep, tail = spec.rpartition(":")
    where: int | str | None
    if sep and base.endswith(".py") and tail.isdigit():
        path, where = base, int(tail)
    elif sep and base.endswith(".py") and tail.isidentifier():
        path, where = base, tail
    elif spec.endswith(".py"):
        path, where = spec, None
    else:
        raise CheckpointError(f"{spec}: --model for --to keras is file.py:LINE (a canned_keras_model(...) call or a tf.estimator "
                              f"construction), or file.py:function (the first one in it)")
    if not Path(path).is_file():
        raise CheckpointError(f"{path}: no such file")
    return path, where


def _keras_calls(mod: static._Module) -> list[ast.Call]:
    out = []
    for node in ast.walk(mod.tree):
        if isinstance(node, ast.Call):
            f = node.func
            name = f.attr if isinstance(f, ast.Attribute) else f.id if isinstance(f, ast.Name) else ""
            if name == "canned_keras_model":
                out.append(node)
    return out


def _estimator_optimizer(plan: Any) -> Any:
    """The optimizer of a tf.estimator construction as Keras 3 code: ``lambda: X`` -> ``X``,
    ``tf.keras.optimizers.legacy.Adagrad`` -> ``tf.keras.optimizers.Adagrad``."""
    if isinstance(plan, dict) and "factory" in plan:
        plan = plan["factory"]
    return static_values.unlegacy(plan)


# legacy estimator code that `tfmigrate rewrite` turns into a construction --to keras reads
LEGACY_ESTIMATOR_CODE = re.compile(r"\bskflow\b|contrib\.learn\b|contrib import learn\b|\bTensorFlow(?:DNN|Linear)\w*\(|\blearn\.(?:DNN|Linear)\w*\(")


def _rewrite_first_hint(source: str, path: str, line: int | str | None) -> str:
    """``; run tfmigrate rewrite first`` where the named line (or the file) holds skflow or
    tf.contrib.learn code: its estimator becomes a construction ``--to keras`` reads once rewritten."""
    lines = source.splitlines()
    text = lines[line - 1] if isinstance(line, int) and 0 < line <= len(lines) else source if line is None else ""
    if not LEGACY_ESTIMATOR_CODE.search(text):
        return ""
    return (f"; it is skflow / tf.contrib.learn code: run `tfmigrate rewrite --target keras {path}` first, then name the "
            "canned_keras_model(...) call it writes (or `tfmigrate rewrite` and the tf.estimator construction)")


def _model_label(call: ast.Call, form: str, cls: str) -> str:
    if form == "keras":
        first = call.args[0] if call.args else None
        return f"canned_keras_model({first.value!r})" if isinstance(first, ast.Constant) else "canned_keras_model(...)"
    return cls


def parse_model(spec: str) -> ModelSpec:
    """The canned model at ``file.py:LINE``, checked statically (no TensorFlow). CheckpointError (one line)."""
    path, line = _spec_path(spec)
    try:
        source = Path(path).read_text(encoding="utf-8")
        mod = static._Module(source, path)
    except (OSError, UnicodeDecodeError) as exc:
        raise CheckpointError(f"{path}: cannot read: {exc}") from None
    except SyntaxError as exc:
        raise CheckpointError(f"{path}:{exc.lineno}: cannot parse: {exc.msg}") from None
    found: list[tuple[ast.Call, str, str]] = [(c, "keras", "") for c in _keras_calls(mod)]
    found += [(c, "estimator", name.rsplit(".", 1)[-1]) for c, name in static._constructions(mod)]
    found.sort(key=lambda t: (t[0].lineno, t[0].col_offset))
    if isinstance(line, str):  # the first one in the function
        defs = [n for n in ast.walk(mod.tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and n.name == line]
        if not defs:
            raise CheckpointError(f"{path}: no function {line!r}")
        found = [t for t in found if defs[0].lineno <= t[0].lineno <= (defs[0].end_lineno or 0)]
    elif line is not None:  # the call on LINE, or the one LINE is inside
        found = [t for t in found if t[0].lineno == line] or [t for t in found if t[0].lineno <= line <= (t[0].end_lineno or 0)]
    if not found:
        where = f"{path}:{line}" if line is not None else path
        raise CheckpointError(f"{where}: no canned_keras_model(...) call or tf.estimator construction there"
                              + _rewrite_first_hint(source, path, line))
    if line is None and len(found) > 1:  # file.py alone: the only model, else the choice is the user's
        listed = ", ".join(f"{path}:{c.lineno} {_model_label(c, form, cls)}" for c, form, cls in found)
        raise CheckpointError(f"{path}: {len(found)} models ({listed}); name one with --model FILE.py:LINE")
    call, form, cls = found[0]
    kwargs = {k.arg: k.value for k in call.keywords if k.arg}
    if form == "keras":
        first = call.args[0] if call.args else kwargs.get("estimator")
        if not (isinstance(first, ast.Constant) and isinstance(first.value, str)):
            raise CheckpointError(f"{path}:{call.lineno}: canned_keras_model's first argument is not a string constant")
        cls = first.value
    if cls not in SUPPORTED:
        raise CheckpointError(f"{path}:{call.lineno}: {cls}: --to keras converts {', '.join(SUPPORTED)}")
    if form == "estimator" and (call.args or any(k.arg is None for k in call.keywords)):
        raise CheckpointError(f"{path}:{call.lineno}: {cls}: positional or ** arguments; write them as keywords")
    out = ModelSpec(spec, path, call.lineno, form, cls)
    reading = static._Reading({})
    scopes = mod.scopes_of(call)
    mod.call = call
    for key in MODEL_KEYWORDS:
        if key not in kwargs:
            continue
        try:
            plan = mod.plan(kwargs[key], reading, scopes, key)
        except static.StaticError as exc:
            if key == "optimizer":  # the weights do not depend on it: the child uses the estimator's default
                continue
            raise CheckpointError(str(exc)) from None
        out.kwargs[key] = _estimator_optimizer(plan) if key == "optimizer" and form == "estimator" else plan
    if "feature_columns" not in out.kwargs:
        raise CheckpointError(f"{path}:{call.lineno}: {cls}(...) has no feature_columns=")
    return out


# ------------------------------------------------------------------------------------ the checkpoint side (no TF)

_PART_RE = re.compile(r"^(?P<base>.+)/part_(?P<i>\d+)$")
_LINEAR_W = re.compile(r"^linear/(?:linear_model/)?(?P<col>[^/]+)/weights?$")
_LINEAR_B = re.compile(r"^linear/(?:linear_model/)?bias_weights?$")
_EMBEDDING = re.compile(r"^dnn/input_from_feature_columns/(?:input_layer/)?(?P<col>[^/]+)/(?:embedding_)?weights$")


@dataclass
class CheckpointModel:
    """The canned model's weights in a checkpoint, under their own names (arrays by name)."""

    arrays: dict[str, Any]
    hidden: list[tuple[str, str | None]] = field(default_factory=list)  # (kernel, bias) names
    logits: tuple[str, str | None] | None = None
    centered_bias: str | None = None
    linear: dict[str, str] = field(default_factory=dict)  # column name -> weights name
    linear_bias: str | None = None
    embeddings: dict[str, str] = field(default_factory=dict)  # column name -> weights name
    step: int | None = None
    era: str = "?"
    unused: list[str] = field(default_factory=list)  # model tensors nothing here reads


def read_checkpoint_model(ck: index.Checkpoint) -> CheckpointModel:
    model_names = [e.name for e in ck.entries if classify.kind(e.name) == "model" and e.dtype in values.NUMPY]
    arrays = values.read_arrays(ck, model_names)
    np = values._np()
    parts: dict[str, dict[int, str]] = {}
    for n in list(arrays):
        if m := _PART_RE.match(n):  # partitions saved under names of their own: joined along the first axis
            parts.setdefault(m.group("base"), {})[int(m.group("i"))] = n
    for base, by_i in parts.items():
        arrays[base] = np.concatenate([arrays.pop(by_i[i]) for i in sorted(by_i)], axis=0)
    cm = CheckpointModel(arrays)
    used: set[str] = set()
    for n in arrays:
        if m := _LINEAR_W.match(n):
            cm.linear[m.group("col")] = n
        elif _LINEAR_B.match(n):
            cm.linear_bias = n
        elif m := _EMBEDDING.match(n):
            cm.embeddings[m.group("col")] = n
        elif n == "centered_bias_weight":
            cm.centered_bias = n
    used |= {*cm.linear.values(), *cm.embeddings.values(), *(x for x in (cm.linear_bias, cm.centered_bias) if x)}
    rest = {n: list(a.shape) for n, a in arrays.items() if n not in used}
    s = names.structure(rest)
    if s is not None and s.era not in ("tfe-network", "object-based", "keras"):
        cm.era = s.era
        for layer in s.layers:
            if layer.role == "hidden":
                cm.hidden.append((layer.kernel, layer.bias))
            else:
                cm.logits = (layer.kernel, layer.bias)
            used |= {x for x in (layer.kernel, layer.bias) if x}
    elif cm.linear:
        cm.era = "linear"
    if cm.linear and cm.era not in ("linear",):
        cm.era = "dnn+linear"
    cm.unused = sorted(n for n in arrays if n not in used)
    steps = [e.name for e in ck.entries if e.name == "global_step"]
    if steps:
        step = values.read_arrays(ck, steps)["global_step"]
        cm.step = int(step)
    return cm


def _activation(name: str) -> Any:
    np = values._np()
    table = {
        "relu": lambda x: np.maximum(x, 0),
        "relu6": lambda x: np.clip(x, 0, 6),
        "tanh": np.tanh,
        "sigmoid": lambda x: 1 / (1 + np.exp(-x)),
        "elu": lambda x: np.where(x > 0, x, np.expm1(np.minimum(x, 0))),
        "selu": lambda x: 1.0507009873554805 * np.where(x > 0, x, 1.6732632423543772 * np.expm1(np.minimum(x, 0))),
        "softplus": lambda x: np.logaddexp(0, x),
        "softsign": lambda x: x / (1 + np.abs(x)),
        "leaky_relu": lambda x: np.where(x > 0, x, 0.2 * x),
        "linear": lambda x: x,
        "identity": lambda x: x,
        "gelu": None,
    }
    fn = table.get(name)
    if fn is None:
        raise CheckpointError(f"activation_fn {name}: the numpy check knows {', '.join(k for k, v in table.items() if v)}")
    return fn


def _ids(col: dict[str, Any], inputs: dict[str, Any], np: Any) -> Any:
    """The categorical ids tf.feature_column gives the inputs (vocabulary position, identity, bucket)."""
    x = np.asarray(inputs[col["key"]])
    x = x.reshape(x.shape[0], -1)
    kind = col["kind"]
    if kind == "VocabularyListCategoricalColumn":
        lookup = {str(v): i for i, v in enumerate(col["vocabulary"])}
        return np.asarray([[lookup[str(v)] for v in row] for row in x])
    if kind == "IdentityCategoricalColumn":
        return x.astype("int64")
    if kind == "BucketizedColumn":
        return np.searchsorted(np.asarray(col["boundaries"], dtype="float64"), x.astype("float64"), side="right")
    raise CheckpointError(f"column {col['name']}: {kind} is not checked by the numpy forward pass")


def _multi_hot(ids: Any, size: int, np: Any) -> Any:
    out = np.zeros((ids.shape[0], size))
    for r, row in enumerate(ids):
        out[r, row] = 1.0
    return out


def _column_values(col: dict[str, Any], inputs: dict[str, Any], cm: CheckpointModel, np: Any) -> Any:
    """One feature column's dense value (what tf.feature_column's input layer gives), from the inputs."""
    kind = col["kind"]
    if kind == "NumericColumn":
        x = np.asarray(inputs[col["key"]])
        return x.reshape(x.shape[0], -1).astype("float64")
    if kind == "EmbeddingColumn":
        name = cm.embeddings.get(col["name"])
        if name is None:
            raise CheckpointError(f"the checkpoint has no embedding weights for column {col['name']}")
        return cm.arrays[name].astype("float64")[_ids(col["categorical"], inputs, np)].mean(axis=1)
    cat = col["categorical"] if kind == "IndicatorColumn" else col
    return _multi_hot(_ids(cat, inputs, np), cat["size"], np)


def numpy_logits(cm: CheckpointModel, info: dict[str, Any], inputs: dict[str, Any]) -> Any:
    """The estimator's logits for ``inputs`` from the checkpoint's own arrays, as its model_fn computed
    them (legacy head included: a 2-class softmax as its sigmoid logit, the centered bias added)."""
    np = values._np()
    cols = sorted(info["columns"], key=lambda c: c["name"])
    a = cm.arrays
    if info["estimator"].startswith("Linear"):
        logits = 0.0
        for col in cols:
            logits = logits + _column_values(col, inputs, cm, np) @ a[cm.linear[col["name"]]].astype("float64")
        if cm.linear_bias:
            logits = logits + a[cm.linear_bias].astype("float64")
    else:
        act = _activation(info["activation"])
        net = np.concatenate([_column_values(c, inputs, cm, np) for c in cols], axis=1)
        for k, b in cm.hidden:
            net = act(net @ a[k].astype("float64") + (a[b].astype("float64") if b else 0.0))
        k, b = cm.logits  # type: ignore[misc]
        logits = net @ a[k].astype("float64") + (a[b].astype("float64") if b else 0.0)
    if cm.centered_bias:
        logits = logits + a[cm.centered_bias].astype("float64")
    logits = np.asarray(logits)
    if logits.shape[-1] == 2 and info["width"] == 1:
        logits = logits[:, 1:2] - logits[:, 0:1]
    return logits


# ------------------------------------------------------------------------------------ the layer plan


def _diff_last(x: Any) -> Any:
    return x[..., 1:2] - x[..., 0:1]


def plan_layers(cm: CheckpointModel, estimator: str) -> tuple[dict[str, list[Any]], list[LayerTransfer], list[str]]:
    """Keras layer name -> the arrays its weights get (kernel, bias) and how; the notes. The model's
    shapes are checked by the child (it knows them)."""
    np = values._np()
    arrays: dict[str, list[Any]] = {}
    rows: list[LayerTransfer] = []
    notes: list[str] = []
    a = cm.arrays

    def shape(n: str | None) -> list[int] | None:
        return list(a[n].shape) if n else None

    if estimator.startswith("DNN"):
        if cm.logits is None:
            what = f"{len(cm.hidden)} hidden layers but no logits layer" if cm.hidden else f"no DNN layers ({cm.era} tensors)"
            raise CheckpointError(f"the checkpoint has {what}: not a canned {estimator}'s checkpoint")
        for i, (k, b) in enumerate(cm.hidden):
            bias = a[b] if b else np.zeros(a[k].shape[-1], a[k].dtype)
            arrays[f"hiddenlayer_{i}"] = [a[k], bias]
            rows.append(LayerTransfer(f"hiddenlayer_{i}", [k, *([b] if b else [])], [shape(k), shape(b)], "copy"))
        k, b = cm.logits
        kernel, bias = a[k], a[b] if b else np.zeros(a[k].shape[-1], a[k].dtype)
        op = "copy"
        if cm.centered_bias:
            bias = bias + a[cm.centered_bias]
            op = "add centered_bias_weight"
            notes.append(f"centered_bias_weight is added to the logits bias ({b}): same logits")
        src = [k, *([b] if b else []), *([cm.centered_bias] if cm.centered_bias else [])]
        arrays["logits"] = [kernel, bias]
        rows.append(LayerTransfer("logits", src, [shape(k), shape(b)], op))
        for col, n in cm.embeddings.items():
            arrays[col] = [a[n]]
            rows.append(LayerTransfer(col, [n], [shape(n)], "copy"))
    else:
        if not cm.linear:
            if cm.logits is not None and not cm.hidden:  # skflow's linear/logistic regression
                k, b = cm.logits
                arrays["logits"] = [a[k], a[b] if b else np.zeros(a[k].shape[-1], a[k].dtype)]
                rows.append(LayerTransfer("logits", [k, *([b] if b else [])], [shape(k), shape(b)], "copy"))
                return arrays, rows, notes
            raise CheckpointError(f"no linear-model weights in the checkpoint (found {cm.era} tensors); is it a {estimator}'s checkpoint?")
        # the child stacks the columns in the model's order: one array per column, then the bias
        cols = sorted(cm.linear)
        width = a[cm.linear[cols[0]]].shape[-1]
        bias = a[cm.linear_bias] if cm.linear_bias else np.zeros(width, "float32")
        arrays["logits"] = [*(a[cm.linear[c]] for c in cols), bias]
        rows.append(LayerTransfer("logits", [*(cm.linear[c] for c in cols), *([cm.linear_bias] if cm.linear_bias else [])],
                                  [*(shape(cm.linear[c]) for c in cols), shape(cm.linear_bias)], "stack columns"))
        arrays["_linear_columns"] = cols  # type: ignore[assignment]
    return arrays, rows, notes


# ------------------------------------------------------------------------------------ the TensorFlow 2.21 child


def _python(python: str | None) -> str:
    from tfmigrate.childproc import keras_interpreter

    found = keras_interpreter(python)
    if not found:
        raise CheckpointError("no TensorFlow 2.21 interpreter for --to keras: run `make keras` (builds .venv-keras), "
                              "or name one with --python or $TFMIGRATE_KERAS_PYTHON")
    if not Path(found).exists():
        raise CheckpointError(f"{found}: no such interpreter (--python / $TFMIGRATE_KERAS_PYTHON); `make keras` builds .venv-keras")
    return found


def run_keras_child(python: str, request: dict[str, Any], workdir: str, timeout: float = CHILD_TIMEOUT_S) -> dict[str, Any]:
    from tfmigrate.childproc import interpreter_command

    return run_child(interpreter_command(python, "tfmigrate.checkpoint._keraschild"), request, workdir, "TensorFlow 2.21", timeout)


# ------------------------------------------------------------------------------------ convert


def _verdict_mismatch(rows: list[LayerTransfer]) -> str:
    bad = [r for r in rows if r.status != "match"]
    parts = []
    for r in bad:
        if r.status == "shape_mismatch":
            parts.append(f"layer {r.keras_layer}: checkpoint {_shapes(r.checkpoint_shapes)} ({', '.join(r.checkpoint_names)}) "
                         f"but the Keras model's is {_shapes(r.keras_shapes)}")
        else:
            parts.append(f"layer {r.keras_layer}: {r.status.replace('_', ' ')}")
    return ("the checkpoint does not fit the Keras model, nothing written: " + "; ".join(parts)
            + ". Build the model with the layers the checkpoint was trained with (hidden_units, n_classes, feature columns), "
              "or train the new layers from scratch")


def _shapes(shapes: list[list[int] | None]) -> str:
    return " + ".join(shape_text(s) for s in shapes if s is not None)


@dataclass
class _Job:
    ck: index.Checkpoint
    spec: ModelSpec
    cm: CheckpointModel
    arrays: dict[str, list[Any]]
    rows: list[LayerTransfer]
    notes: list[str]
    target: Path
    model_dir: str | None
    request: dict[str, Any]
    created: bool = False


SLOT_FORMS = ("{}/Adagrad", "training/Adagrad/{}/accumulator")  # TF1 Adagrad; tf.keras legacy Adagrad (TF2 tf.estimator)


def adagrad_slots(ck: index.Checkpoint, cm: CheckpointModel, rows: list[LayerTransfer], arrays: dict[str, list[Any]]) -> tuple[dict[str, list[Any]], str]:
    """The Adagrad accumulators of the carried weights, laid out as ``arrays`` (layer -> [kernel, bias]
    or the linear columns then the bias), and a note. Empty when any weight has none or is not a plain
    copy (a centered bias, a 2-class head: no accumulator of the sum or difference is meaningful)."""
    names = {e.name for e in ck.entries}
    slots: dict[str, list[str]] = {}
    for r in rows:
        if r.op not in ("copy", "stack columns") or len(r.checkpoint_names) != len(arrays.get(r.keras_layer, [])):
            return {}, f"Adagrad accumulators not carried: {r.keras_layer} is not a plain copy ({r.op})"
        found = []
        for n in r.checkpoint_names:
            slot = next((f.format(n) for f in SLOT_FORMS if f.format(n) in names), None)
            if slot is None:
                return {}, ""
            found.append(slot)
        slots[r.keras_layer] = found
    if not slots:
        return {}, ""
    read = values.read_arrays(ck, [n for ns in slots.values() for n in ns])
    out = {layer: [read[n] for n in ns] for layer, ns in slots.items()}
    if any(list(a.shape) != list(w.shape) for layer in out for a, w in zip(out[layer], arrays[layer])):
        return {}, "Adagrad accumulators not carried: their shapes differ from the weights'"
    return out, ""


def _prepare(checkpoint: str | os.PathLike[str], model_spec: str, out: str | os.PathLike[str], work: str, n: int) -> _Job:
    ck = index.read(checkpoint)
    spec = parse_model(model_spec)
    cm = read_checkpoint_model(ck)
    arrays, rows, notes = plan_layers(cm, spec.estimator)
    target, model_dir = out_path(out, cm.step, ck)
    np = values._np()
    linear_cols = arrays.pop("_linear_columns", None)
    npz = Path(work) / f"weights-{n}.npz"
    slots, why = adagrad_slots(ck, cm, rows, arrays)
    if why:
        notes.append(why)
    np.savez(npz, **{f"{layer}::{i}": np.asarray(x) for layer, xs in arrays.items() for i, x in enumerate(xs)},
             **{f"slot::{layer}::{i}": np.asarray(x) for layer, xs in slots.items() for i, x in enumerate(xs)})
    request = {
        "estimator": spec.estimator, "form": spec.form, "kwargs": spec.kwargs, "weights": str(npz), "layers": {k: len(v) for k, v in arrays.items()},
        "slots": {k: len(v) for k, v in slots.items()},
        "linear_columns": linear_cols, "out": str(target.resolve()),
        "model_dir": str(Path(model_dir).resolve()) if model_dir else None, "step": cm.step, "rows": ROWS,
    }
    return _Job(ck, spec, cm, arrays, rows, notes, target, model_dir, request)


def convert_many(jobs: list[tuple[str | os.PathLike[str], str, str | os.PathLike[str]]], python: str | None = None,
                 timeout: float = CHILD_TIMEOUT_S) -> list[KerasConversion | CheckpointError]:
    """:func:`convert_to_keras` for several ``(checkpoint, model_spec, out)`` with ONE TensorFlow 2.21
    child; each result is a KerasConversion or the CheckpointError that one conversion raised. No
    interpreter, or the child failing as a whole, raises CheckpointError."""
    from tfmigrate.checkpoint import keras_model_fn

    py = _python(python)
    results: list[KerasConversion | CheckpointError | None] = []
    prepared: list[_Job] = []
    custom: dict[int, tuple[str | os.PathLike[str], keras_model_fn.ModelFnSpec, str | os.PathLike[str]]] = {}
    with tempfile.TemporaryDirectory(prefix="tfmigrate-keras-") as work:
        for n, (checkpoint, model_spec, out) in enumerate(jobs):
            try:
                model_fn = keras_model_fn.model_fn_spec(model_spec)
            except CheckpointError as exc:
                results.append(exc)
                continue
            if model_fn is not None:  # Estimator(model_fn=...): TFM707's class
                custom[n] = (checkpoint, model_fn, out)
                results.append(None)
                continue
            try:
                prepared.append(_prepare(checkpoint, model_spec, out, work, n))
                results.append(None)
            except CheckpointError as exc:
                results.append(exc)
            except (OSError, ValueError, KeyError) as exc:
                results.append(CheckpointError(f"{checkpoint}: {type(exc).__name__}: {exc}"))
        lowered = dict(zip(custom, keras_model_fn.convert_model_fns(list(custom.values()), work, py, timeout))) if custom else {}
        if not prepared:
            return [lowered.get(n, r) for n, r in enumerate(results)]  # type: ignore[misc]
        for job in prepared:
            if job.model_dir:
                job.created = not Path(job.model_dir).exists()
                Path(job.model_dir).mkdir(parents=True, exist_ok=True)
        try:
            answer = run_keras_child(py, {"jobs": [j.request for j in prepared]}, work, timeout=timeout)
        finally:
            for job in prepared:
                if job.created and not job.target.exists():
                    Path(job.model_dir).rmdir()  # type: ignore[arg-type]  # nothing written: no empty model_dir left behind
    done = iter(_finish(job, r) if r.get("ok") else CheckpointError(r.get("error") or "failed")
                for job, r in zip(prepared, answer["results"]))
    return [lowered[n] if n in lowered else r if r is not None else next(done) for n, r in enumerate(results)]


def convert_to_keras(checkpoint: str | os.PathLike[str], model_spec: str, out: str | os.PathLike[str],
                     python: str | None = None, timeout: float = CHILD_TIMEOUT_S) -> KerasConversion:
    """Convert CHECKPOINT to the Keras model MODEL_SPEC builds, write OUT, verify by predictions.

    Returns the verdict (``compatible`` False: a layer's shapes differ, nothing written; or the
    predictions differ). Raises CheckpointError (one line) when it cannot run: unreadable checkpoint
    or model, no TensorFlow 2.21 interpreter, the child failing."""
    from tfmigrate.checkpoint import keras_model_fn

    index.read(checkpoint)  # checkpoint and model errors before the interpreter's
    if keras_model_fn.model_fn_spec(model_spec) is None:
        parse_model(model_spec)
    result = convert_many([(checkpoint, model_spec, out)], python=python, timeout=timeout)[0]
    if isinstance(result, CheckpointError):
        raise result
    return result


def _finish(job: _Job, result: dict[str, Any]) -> KerasConversion:
    ck, spec, cm, arrays, rows, notes, model_dir = job.ck, job.spec, job.cm, job.arrays, job.rows, job.notes, job.model_dir
    np = values._np()
    ref = ModelRef(target=spec.target, kind="keras", cls=spec.estimator, api="keras", model_dir=model_dir)
    notes += result.get("notes", [])
    shapes = result["layer_shapes"]  # keras layer -> [shape, ...]
    for r in rows:
        r.keras_shapes = shapes.get(r.keras_layer)
        if r.keras_shapes is None:
            r.status = "missing_from_model"
        elif r.keras_layer == "logits" and r.op == "stack columns":
            r.status = result["stack_status"]
        else:
            want = [list(s) for s in r.keras_shapes]
            have = [list(np.shape(x)) for x in arrays[r.keras_layer]]
            if have != want and r.keras_layer == "logits" and have[0][-1] == 2 and want[0][-1] == 1 and have[0][:-1] == want[0][:-1]:
                r.op = "2-class softmax -> sigmoid logit (column 1 - column 0)"
                r.status = "match"
            else:
                r.status = "match" if have == want else "shape_mismatch"
    for layer in result.get("unfilled", []):
        rows.append(LayerTransfer(layer, [], [], "-", keras_shapes=shapes.get(layer), status="missing_from_checkpoint"))
    conv = KerasConversion(checkpoint=ck.prefix, model=ref, out=None, compatible=False, verdict="", layers=rows,
                           not_carried={n: "the Keras model has no such weight" for n in cm.unused}, step=cm.step,
                           writer=classify.writer(ck.entries), notes=notes)
    if not result.get("written"):
        conv.verdict = _verdict_mismatch(rows) if any(r.status != "match" for r in rows) else result.get("why", "nothing written")
        return conv
    conv.out = result["out"]
    info = {"estimator": spec.estimator, "activation": result["activation"], "columns": result["columns"], "width": result["width"]}
    inputs = {k: np.asarray(v) for k, v in result["inputs"].items()}
    expect = numpy_logits(cm, info, inputs)
    got = np.asarray(result["predictions"], dtype="float64")
    conv.rows = int(got.shape[0])
    if expect.shape != got.shape:
        conv.verdict = f"predictions differ in shape: numpy {list(expect.shape)}, Keras {list(got.shape)}"
        return conv
    conv.max_abs_diff = float(np.max(np.abs(expect - got))) if got.size else 0.0
    ok = bool(np.allclose(got, expect, atol=ATOL, rtol=RTOL))
    step_ok = result.get("restored_step") == (cm.step or 0)
    conv.compatible = ok and step_ok
    where = f"canned_keras_model(..., model_dir={model_dir!r})" if model_dir else "a fresh canned_keras_model(...)"
    if ok:
        conv.verdict = (f"same predictions: {where} restored the converted weights and its predict() matches the numpy forward pass "
                        f"of the checkpoint's arrays on {conv.rows} inputs (max abs difference {conv.max_abs_diff:.3g})")
        if model_dir and cm.step is not None:
            conv.verdict += f"; training goes on from step {result.get('restored_step')}"
    else:
        conv.verdict = (f"predictions differ: Keras predict() vs the numpy forward pass of the checkpoint's arrays, max abs "
                        f"difference {conv.max_abs_diff:.3g} on {conv.rows} inputs (the file {conv.out} is written but wrong)")
    if ok and not step_ok:
        conv.verdict += f"; but the restored optimizer's iterations are {result.get('restored_step')}, not the checkpoint's step {cm.step}"
    if cm.unused:  # weights of the legacy model the Keras model has no place for: it does not compute what the legacy one did
        conv.compatible = False
        conv.verdict = (f"the Keras model has no place for {len(cm.unused)} of the checkpoint's model weights ({', '.join(cm.unused[:3])}"
                        f"{', ...' if len(cm.unused) > 3 else ''}): the legacy model computed more than the Keras one "
                        f"(e.g. batch_norm, or a column the model does not have); the layers that fit are written")
    return conv


_out_path = out_path


def conversion_json(conv: KerasConversion) -> dict[str, Any]:
    return {"schema": 1, "to": "keras", **asdict(conv)}
