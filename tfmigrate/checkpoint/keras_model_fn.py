"""``ckpt convert --to keras`` of a custom ``tf.estimator.Estimator(model_fn=F)``: the model_dir an Estimator
trained, as the weights of the Keras class ``rewrite --target keras`` lowers ``F`` to (TFM707).

    model_fn_spec(spec) -> ModelFnSpec | None          # file.py:LINE names an Estimator(model_fn=...) construction
    legacy_variables(layers) -> [Mapped, ...]           # the variable names the model_fn's layers create on TF 1.x / 2.15
    convert_model_fns(jobs, python) -> [KerasConversion | CheckpointError]

The map is static: the layers TFM707 creates, in the order the model_fn created them
(:func:`tfmigrate.transforms.keras_target.model_fn_plan`, the lowering's own plan), named as the legacy layers
named their variables (TF 1.15 ``layers/base.py`` ``_set_scope``, ``ops/variable_scope.py``
``_get_unique_variable_scope``): each layer opens ``variable_scope(name_or_scope, default_name=BASE)``, where a
``tf.layers`` function's ``name=`` is the scope itself, a ``tf.layers`` class's ``name=`` (or its snake-case class
name) the default name made unique in the enclosing scope (``dense``, ``dense_1``...), a tf_slim /
``tf.contrib.layers`` function's ``scope=`` the scope itself, else ``fully_connected`` / ``Conv`` made unique;
``variable_scope("NAME")`` blocks nest, ``name_scope`` names no variable. Its variables are ``kernel``/``bias``
(slim: ``weights``/``biases``) and ``gamma``/``beta``/``moving_mean``/``moving_variance``. Nothing of the user's
code runs for the map.

The check is the canned models' one: the same predictions. One TensorFlow 2.15 child restores the checkpoint into
the model_fn's graph in mode PREDICT (the estimator-target module's definitions: its imports, functions, classes
and literal assignments, never its program) and predicts on deterministic inputs; one TensorFlow 2.21 child sets
the Keras model's weights, writes the ``.weights.h5``, restores it into a fresh model (from ``model_dir``, as the
migrated program does) and predicts on the same inputs.
"""

from __future__ import annotations

import ast
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tfmigrate.checkpoint import classify, index, values
from tfmigrate.checkpoint.index import CheckpointError
from tfmigrate.checkpoint.keras_conversion import KerasConversion, LayerTransfer, out_path, run_child

ROWS = 8
ATOL = 1e-5
# legacy layer -> (the base name of its variable scope, its variables: (legacy suffix, Keras weight name, present unless))
_DENSE_VARS = (("kernel", "kernel", None), ("bias", "bias", "use_bias"))
_BN_VARS = (("gamma", "gamma", "scale"), ("beta", "beta", "center"), ("moving_mean", "moving_mean", None),
            ("moving_variance", "moving_variance", None))
_SLIM_VARS = (("weights", "kernel", None), ("biases", "bias", None))
LAYERS = {  # tf.layers functions and classes: every one opens a variable scope (base.Layer.__call__)
    "dense": ("dense", _DENSE_VARS), "Dense": ("dense", _DENSE_VARS),
    "conv1d": ("conv1d", _DENSE_VARS), "Conv1D": ("conv1d", _DENSE_VARS),
    "conv2d": ("conv2d", _DENSE_VARS), "Conv2D": ("conv2d", _DENSE_VARS),
    "batch_normalization": ("batch_normalization", _BN_VARS), "BatchNormalization": ("batch_normalization", _BN_VARS),
    "max_pooling1d": ("max_pooling1d", ()), "MaxPooling1D": ("max_pooling1d", ()),
    "max_pooling2d": ("max_pooling2d", ()), "MaxPooling2D": ("max_pooling2d", ()),
    "average_pooling1d": ("average_pooling1d", ()), "AveragePooling1D": ("average_pooling1d", ()),
    "average_pooling2d": ("average_pooling2d", ()), "AveragePooling2D": ("average_pooling2d", ()),
    "dropout": ("dropout", ()), "Dropout": ("dropout", ()), "flatten": ("flatten", ()), "Flatten": ("flatten", ()),
}
SLIM_LAYERS = {  # tf_slim / contrib.layers: only these open a variable scope (the others a name scope)
    "fully_connected": ("fully_connected", _SLIM_VARS), "conv2d": ("Conv", _SLIM_VARS),
}


@dataclass
class Mapped:
    """One legacy variable and the Keras weight it becomes."""

    legacy: str  # dense_1/kernel
    attr: str  # the Keras model's layer attribute
    weight: str  # its weight's name (kernel, bias, gamma ...)


@dataclass
class ModelFnSpec:
    path: str
    line: int


class _Scopes:
    """TF 1.x's variable-scope store: how many times each full scope name was opened."""

    def __init__(self) -> None:
        self.counts: dict[str, int] = {}
        self.stack: list[str] = []

    def full(self, name: str) -> str:
        return f"{self.stack[-1]}/{name}" if self.stack else name

    def open(self, name: str) -> str:
        full = self.full(name)
        self.counts[full] = self.counts.get(full, 0) + 1
        self.stack.append(full)
        return full

    def close(self) -> None:
        full = self.stack.pop()
        for key in self.counts:  # close_variable_subscopes
            if key.startswith(full + "/"):
                self.counts[key] = 0

    def unique(self, prefix: str) -> str:
        if self.counts.get(self.full(prefix), 0) == 0:
            return prefix
        i = 1
        while self.counts.get(self.full(f"{prefix}_{i}"), 0) > 0:
            i += 1
        return f"{prefix}_{i}"


def _flag(record: Any, key: str) -> bool:
    """A legacy boolean keyword (use_bias, center, scale): True unless written False; ValueError where not a literal."""
    written = dict(record.keywords).get(key)
    if written is None or written == "True":
        return True
    if written == "False":
        return False
    raise ValueError(f"line {record.line}: {record.legacy}({key}={written}): not a literal, the layer's variables are not known statically")


def legacy_variables(layers: list[Any]) -> list[Mapped]:
    """The variables the model_fn's layers create on TF 1.x / TF 2.15, in creation order, each with its Keras weight.
    ValueError (one line) where a name cannot be known statically."""
    scopes = _Scopes()
    opened: list[str] = []  # the user's variable_scope blocks now open
    out: list[Mapped] = []
    for r in layers:
        where = f"line {r.line}: {r.legacy}"
        if r.legacy.startswith("keras."):
            raise ValueError(f"{where}: a tf.keras layer in the model_fn (named by Keras in the legacy graph, not mapped)")
        if "?" in r.scopes:
            raise ValueError(f"{where}: inside a variable_scope whose name is not a literal (its variables' names are not known statically)")
        if r.name == "?":
            raise ValueError(f"{where}: its {'scope' if r.slim else 'name'}= is not a literal")
        common = 0
        while common < min(len(opened), len(r.scopes)) and opened[common] == r.scopes[common]:
            common += 1
        while len(opened) > common:
            scopes.close()
            opened.pop()
        for name in r.scopes[common:]:
            scopes.open(name)
            opened.append(name)
        table = SLIM_LAYERS if r.slim else LAYERS
        if r.legacy not in table:
            if r.slim:  # slim's pooling, dropout, flatten: a name scope, no variables
                continue
            raise ValueError(f"{where}: no legacy variable names known for it")
        base, variables = table[r.legacy]
        if r.name is not None and (r.slim or r.function):  # the scope itself (slim scope=, tf.layers.dense(name=))
            full = scopes.open(r.name)
        else:  # a default name made unique (a class's name= is its default name)
            full = scopes.open(scopes.unique(r.name or base))
        scopes.close()
        for suffix, weight, unless in variables:
            if unless is not None and not _flag(r, unless):
                continue
            out.append(Mapped(f"{full}/{suffix}", r.attr, weight))
    return out


# ------------------------------------------------------------------------------------ the model (static)


def model_fn_spec(spec: str) -> ModelFnSpec | None:
    """``file.py:LINE`` on an Estimator(model_fn=...) construction, or ``file.py`` whose only model is one; else None.
    CheckpointError where ``file.py`` alone holds a custom Estimator and other models."""
    from tfmigrate.transforms.keras_target import estimator_calls

    base, sep, tail = spec.rpartition(":")
    path, line = (base, int(tail)) if sep and base.endswith(".py") and tail.isdigit() else (spec, None)
    if not path.endswith(".py") or not Path(path).is_file():
        return None
    try:
        calls = estimator_calls(Path(path).read_text(encoding="utf-8"), path)
    except Exception:  # noqa: BLE001 - not a module tfmigrate reads: the canned path reports it in its own words
        return None
    if line is None:  # the file's only model (with a canned one beside it, the canned path asks for a LINE)
        from tfmigrate import targets_static as static

        others = [c for c, name in static._constructions(static._Module(Path(path).read_text(encoding="utf-8"), path))
                  if not name.endswith(".Estimator")]
        if len(calls) + len(others) > 1 and calls:
            listed = ", ".join(f"{path}:{line}" for line in sorted([c[0] for c in calls] + [c.lineno for c in others]))
            raise CheckpointError(f"{path}: {len(calls) + len(others)} models ({listed}); name one with --model FILE.py:LINE")
        return ModelFnSpec(path, calls[0][0]) if calls else None
    inside = [c for c in calls if c[0] <= line <= c[1]]
    return ModelFnSpec(path, max(inside)[0]) if inside else None


_KEEP = (ast.Import, ast.ImportFrom, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)


def definitions(source: str) -> str:
    """The module's definitions, not its program: imports, functions, classes, and assignments with no call in them
    (``PARAMS = {...}``); what a child imports to build the model."""
    tree = ast.parse(source)
    keep = []
    for node in tree.body:
        if isinstance(node, _KEEP):
            keep.append(node)
        elif isinstance(node, (ast.Assign, ast.AnnAssign)) and node.value is not None \
                and not any(isinstance(n, (ast.Call, ast.Lambda, ast.Await, ast.Yield)) for n in ast.walk(node.value)):
            keep.append(node)
    return "\n".join(ast.get_source_segment(source, n) or ast.unparse(n) for n in keep) + "\n"


def _params(text: str | None, module_source: str) -> dict[str, Any]:
    """How a child gets params: {"literal": value} or {"name": module-level name}."""
    if text is None or text == "None":
        return {"literal": None}
    if text.isidentifier():
        if not re.search(rf"^{re.escape(text)}\s*[:=]", definitions(module_source), re.M):
            raise ValueError(f"params={text}: not a module-level assignment of literals")
        return {"name": text}
    try:
        return {"literal": ast.literal_eval(text)}
    except (ValueError, SyntaxError):
        raise ValueError(f"params={text}: not a literal or a module-level name") from None


_KEY = re.compile(r"""features\s*\[\s*(["'])(\w+)\1\s*\]""")
_RESHAPE = re.compile(r"""reshape\(\s*features\s*\[\s*(["'])(\w+)\1\s*\]\s*,\s*\[\s*-1\s*((?:,\s*\d+\s*)+)\]""")


def input_shapes(sources: list[str], first: Mapped | None, arrays: dict[str, Any]) -> dict[str, list[int]]:
    """The features the comparison feeds, {key: shape of one example}: a model_fn that reads one key, reshaped with
    literal sizes, or fed to a first dense layer (its kernel's rows). ValueError (one line) otherwise."""
    text = "\n".join(sources)
    keys = sorted({m.group(2) for m in _KEY.finditer(text)})
    if len(keys) != 1:
        raise ValueError(f"the model_fn reads the features {keys or 'not as features[KEY]'}: their shapes are not known statically")
    if m := _RESHAPE.search(text):
        sizes = [int(x) for x in m.group(3).strip(" ,").split(",")]
        width = 1
        for s in sizes:
            width *= s
        return {keys[0]: [width]}
    if first is not None and first.weight == "kernel" and first.legacy in arrays and len(arrays[first.legacy].shape) == 2:
        return {keys[0]: [int(arrays[first.legacy].shape[0])]}
    raise ValueError(f"the shape of features[{keys[0]!r}] is not known statically (no reshape of literal sizes, no first dense layer)")


def example_inputs(shapes: dict[str, list[int]], rows: int = ROWS) -> dict[str, Any]:
    """The deterministic inputs both sides predict on."""
    np = values._np()
    rng = np.random.RandomState(31)
    return {key: rng.uniform(-1.5, 1.5, size=(rows, *shape)).astype("float32") for key, shape in sorted(shapes.items())}


# ------------------------------------------------------------------------------------ convert


@dataclass
class _Job:
    n: int
    ck: index.Checkpoint
    spec: ModelFnSpec
    fn: str
    class_name: str
    mapped: list[Mapped]
    arrays: dict[str, Any]
    step: int | None
    target: Path
    model_dir: str | None
    request: dict[str, Any] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)


def _class_name(keras_source: str, fn: str) -> str:
    m = re.search(rf'^class (\w+)\(ModelFnModel\):\s*\n\s*"""The tf\.estimator model_fn {re.escape(fn)} as a Keras model', keras_source, re.M)
    if not m:
        raise ValueError(f"rewrite --target keras did not lower the model_fn {fn}")
    return m.group(1)


def prepare(checkpoint: str | os.PathLike[str], spec: ModelFnSpec, out: str | os.PathLike[str], work: str, n: int) -> _Job:
    """The static half: the map, the checkpoint's arrays, the two modules the children import. CheckpointError (one line)."""
    from tfmigrate.codemod.engine import rewrite_source
    from tfmigrate.codemod.rule import load_catalog
    from tfmigrate.transforms.keras_target import model_fn_plan

    ck = index.read(checkpoint)
    source = Path(spec.path).read_text(encoding="utf-8")
    where = f"{spec.path}:{spec.line}"
    try:
        plan = model_fn_plan(source, spec.path, spec.line)
        mapped = legacy_variables(plan.layers)
    except ValueError as exc:
        raise CheckpointError(f"{where}: {exc}" if not str(exc).startswith(spec.path) else str(exc)) from None
    model_names = [e.name for e in ck.entries if classify.kind(e.name) == "model" and e.dtype in values.NUMPY]
    wanted = {m.legacy for m in mapped}
    extra = [name for name in model_names if name not in wanted]
    if extra:
        raise CheckpointError(f"{where}: the checkpoint's {extra[0]} is a variable the Keras model does not create "
                              f"({len(extra)} such; the model_fn's layers create {', '.join(sorted(wanted)[:4]) or 'none'}"
                              f"{', ...' if len(wanted) > 4 else ''}): nothing written")
    missing = [m for m in mapped if m.legacy not in model_names]
    if missing:
        raise CheckpointError(f"{where}: the checkpoint has no {missing[0].legacy} (the Keras layer {missing[0].attr}'s "
                              f"{missing[0].weight}): is it this model_fn's model_dir? nothing written")
    arrays = values.read_arrays(ck, [m.legacy for m in mapped])
    step = None
    if any(e.name == "global_step" for e in ck.entries):
        step = int(values.read_arrays(ck, ["global_step"])["global_step"])
    target, model_dir = out_path(out, step, ck)
    catalog = load_catalog()
    keras_source = rewrite_source(source.encode("utf-8"), catalog.selected(None, target="keras"), path=spec.path).new.decode("utf-8")
    estimator_source = rewrite_source(source.encode("utf-8"), catalog.selected(None), path=spec.path).new.decode("utf-8")
    try:
        class_name = _class_name(keras_source, plan.model_fn)
        params = _params(plan.params, source)
        shapes = input_shapes(plan.sources, mapped[0] if mapped else None, arrays)
    except ValueError as exc:
        raise CheckpointError(f"{where}: {exc}") from None
    np = values._np()
    root = Path(work)
    (root / f"tfm_keras_{n}.py").write_text(definitions(keras_source), encoding="utf-8")
    (root / f"tfm_estimator_{n}.py").write_text(definitions(estimator_source), encoding="utf-8")
    np.savez(root / f"weights-{n}.npz", **{f"w{i}": np.asarray(arrays[m.legacy]) for i, m in enumerate(mapped)})
    np.savez(root / f"inputs-{n}.npz", **example_inputs(shapes))
    job = _Job(n, ck, spec, plan.model_fn, class_name, mapped, arrays, step, target, model_dir)
    job.request = {"n": n, "work": str(root), "fn": plan.model_fn, "class": class_name, "params": params,
                   "checkpoint": ck.prefix, "map": [[m.attr, m.weight] for m in mapped], "step": step,
                   "out": str(target.resolve()), "model_dir": str(Path(model_dir).resolve()) if model_dir else None}
    return job


def _flat(predictions: Any) -> dict[str, Any]:
    np = values._np()
    if isinstance(predictions, dict):
        return {k: np.asarray(v, dtype="float64") for k, v in predictions.items()}
    return {"": np.asarray(predictions, dtype="float64")}


def convert_model_fns(jobs: list[tuple[str | os.PathLike[str], ModelFnSpec, str | os.PathLike[str]]], work: str,
                      python: str, timeout: float) -> list[Any]:
    """Each job's KerasConversion or CheckpointError, with one TensorFlow 2.15 child and one TensorFlow 2.21 child."""
    from tfmigrate.childproc import interpreter_command, module_command
    from tfmigrate.results import ModelRef

    results: list[Any] = []
    prepared: list[_Job] = []
    for n, (checkpoint, spec, out) in enumerate(jobs):
        try:
            prepared.append(prepare(checkpoint, spec, out, work, 1000 + n))
            results.append(None)
        except CheckpointError as exc:
            results.append(exc)
        except (OSError, ValueError, KeyError) as exc:
            results.append(CheckpointError(f"{checkpoint}: {type(exc).__name__}: {exc}"))
    if not prepared:
        return results
    from tfmigrate import keras_runtime

    (Path(work) / f"{keras_runtime.DEFAULT_HELPERS_MODULE}.py").write_text(keras_runtime.helpers_module_text(), encoding="utf-8")
    reference = run_child(module_command("tfmigrate.checkpoint._modelfn_estimator_child"), {"jobs": [j.request for j in prepared]},
                          work, "TensorFlow 2.15 (the Estimator's predictions)", timeout)
    created = []
    for job in prepared:
        if job.model_dir and not Path(job.model_dir).exists():
            Path(job.model_dir).mkdir(parents=True)
            created.append(job)
    try:
        keras = run_child(interpreter_command(python, "tfmigrate.checkpoint._modelfn_keras_child"), {"jobs": [j.request for j in prepared]},
                          work, "TensorFlow 2.21", timeout)
    finally:
        for job in created:
            if not job.target.exists():
                Path(job.model_dir).rmdir()  # type: ignore[arg-type]
    np = values._np()
    done = []
    for job, ref, got in zip(prepared, reference["results"], keras["results"]):
        if not ref.get("ok"):
            done.append(CheckpointError(ref.get("error") or "the Estimator's predictions failed"))
            continue
        if not got.get("ok"):
            done.append(CheckpointError(got.get("error") or "TensorFlow 2.21 child failed"))
            continue
        by_attr: dict[str, list[Mapped]] = {}
        for m in job.mapped:
            by_attr.setdefault(m.attr, []).append(m)
        rows = [LayerTransfer(attr, [m.legacy for m in ms], [list(np.shape(job.arrays[m.legacy])) for m in ms], "copy",
                              keras_shapes=[got["shapes"][f"{attr}/{m.weight}"] for m in ms]) for attr, ms in by_attr.items()]
        ref_model = ModelRef(target=f"{job.spec.path}:{job.spec.line} {job.class_name}", kind="keras", cls=job.class_name, api="keras",
                             model_dir=job.model_dir)
        conv = KerasConversion(checkpoint=job.ck.prefix, model=ref_model, out=got["out"], compatible=False, verdict="", layers=rows,
                               step=job.step, writer=classify.writer(job.ck.entries), notes=list(got.get("notes", [])))
        want, have = _flat(ref["predictions"]), _flat(got["predictions"])
        conv.rows = ROWS
        if sorted(want) != sorted(have) or any(want[k].shape != have[k].shape for k in want):
            conv.verdict = (f"predictions differ in form: the Estimator's {sorted(want)} {[list(want[k].shape) for k in sorted(want)]}, "
                            f"Keras' {sorted(have)} {[list(have[k].shape) for k in sorted(have)]}")
            done.append(conv)
            continue
        conv.max_abs_diff = max((float(np.max(np.abs(want[k] - have[k]))) if want[k].size else 0.0) for k in want)
        ok = conv.max_abs_diff <= ATOL
        step_ok = got.get("restored_step") == (job.step or 0)
        conv.compatible = ok and step_ok
        conv.notes.append(f"the model_fn's {len(job.mapped)} variables mapped by name (TFM707's layers in creation order); "
                          "the optimizer's slots are not carried (the Keras optimizer starts its moments afresh)")
        where = f"{job.class_name}(model_dir={job.model_dir!r})" if job.model_dir else f"a fresh {job.class_name}(...)"
        if ok:
            conv.verdict = (f"same predictions: {where} restored the converted weights and its predictions equal the Estimator's "
                            f"(TensorFlow 2.15, mode PREDICT, from the checkpoint) on {ROWS} inputs (max abs difference {conv.max_abs_diff:.3g})")
            if job.model_dir and job.step is not None:
                conv.verdict += f"; training goes on from step {got.get('restored_step')}"
            if not step_ok:
                conv.verdict += f"; but the restored optimizer's iterations are {got.get('restored_step')}, not the checkpoint's step {job.step}"
        else:
            conv.verdict = (f"predictions differ: Keras vs the Estimator's (TensorFlow 2.15), max abs difference {conv.max_abs_diff:.3g} "
                            f"on {ROWS} inputs (the file {conv.out} is written but wrong)")
        conv.predictions = {k: v.tolist() for k, v in have.items()}  # type: ignore[attr-defined]
        done.append(conv)
    it = iter(done)
    return [r if r is not None else next(it) for r in results]
