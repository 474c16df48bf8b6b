"""TFM17: ``tf.contrib.learn`` input functions, metrics and exports around the canned estimators.

- TFM170 ``learn.io.numpy_input_fn`` / ``pandas_input_fn`` -> ``tf.compat.v1.estimator.inputs.*``.
  The contrib versions are thin wrappers of the core ones that default to ``shuffle=True``
  (tensorflow/contrib/learn/python/learn/learn_io/{numpy,pandas}_io.py, TF 1.x); the core versions
  take ``shuffle=None`` and raise, so the legacy default is written out.

- TFM171 ``learn.utils.input_fn_utils.InputFnOps(features, None, default_inputs)`` (what a legacy
  serving_input_fn returned) -> ``tf.estimator.export.ServingInputReceiver(features, default_inputs)``.
- TFM172 ``saved_model_export_utils.make_export_strategy(serving_input_fn, ...)`` in an ``Experiment``'s
  ``export_strategies`` -> ``tf.estimator.LatestExporter("Servo", serving_input_fn, ...)`` (the legacy
  strategy was named "Servo": exports land in the same ``<model_dir>/export/Servo/<timestamp>``); TFM154
  moves the list into ``EvalSpec(exporters=...)``.
- TFM173 ``learn.MetricSpec(metric_fn, prediction_key)`` -> a ``lambda labels, predictions: ...`` that
  calls the metric as the legacy MetricSpec did (by the names ``labels=``/``predictions=``), on the
  tf.estimator prediction of the legacy key; the contrib streaming metrics become their
  ``tf.compat.v1.metrics`` twins (same computation, (labels, predictions) order, called by keyword).
  TFM154 hands such a dict of metrics to ``tf.estimator.add_metrics``.
- TFM175 ``learn.datasets.base.load_csv_with_header`` / ``load_csv_without_header`` (the data loading of
  TensorFlow's contrib.learn quickstart): the function, which TF 2 lacks, is written into the module
  (the same reading: a header row of sample and feature counts, the target column popped from each
  row, the same dtypes, a ``Dataset(data, target)`` named tuple) and the calls use it.
- TFM174 ``string_input_producer(files)`` where ``files = match_filenames_once(...)`` (the Cloud ML
  trainers' input_fn) -> ``string_input_producer(tf.convert_to_tensor(files))``.

Names are matched by qualified name (every import form); what cannot be proven is flagged.
"""

from __future__ import annotations

import libcst as cst
from libcst.metadata import ParentNodeProvider

from tfmigrate.codemod.transform import FamilyTransform
from tfmigrate.codemod.tree import expression, without_comments
from tfmigrate.rule_ids import TFM170, TFM171, TFM172, TFM173, TFM174, TFM175
from tfmigrate.transforms.common.builders import code_of, is_none, str_value

_LEARN = "tensorflow.contrib.learn."
INPUT_FN_OPS_ORDER = ("features", "labels", "default_inputs")
EXPORT_ORDER = ("serving_input_fn", "default_output_alternative_key")  # later positions differ between releases
EXPORT_KEYWORDS = {"serving_input_fn", "default_output_alternative_key", "assets_extra", "as_text", "exports_to_keep",
                   "strip_default_attrs"}
METRIC_SPEC_ORDER = ("metric_fn", "prediction_key", "label_key", "weight_key")
# contrib streaming metrics -> tf.compat.v1.metrics (same ops; MetricSpec passes labels/predictions by name)
STREAMING = {
    "streaming_root_mean_squared_error": "root_mean_squared_error",
    "streaming_mean_squared_error": "mean_squared_error",
    "streaming_mean_absolute_error": "mean_absolute_error",
    "streaming_accuracy": "accuracy",
    "streaming_auc": "auc",
    "streaming_precision": "precision",
    "streaming_recall": "recall",
}
# tf.contrib.learn.datasets.base CSV readers, written into a module that used them (TFM175)
CSV_LOADERS = {
    "load_csv_with_header": '''def load_csv_with_header(filename, target_dtype, features_dtype, target_column=-1):
    """tf.contrib.learn.datasets.base.load_csv_with_header, which TensorFlow 2 lacks (written by tfmigrate,
    TFM175): a CSV file whose first row holds the number of samples and of features."""
    import collections
    import csv
    import numpy as np
    import tensorflow as tf
    with tf.io.gfile.GFile(filename) as csv_file:
        rows = csv.reader(csv_file)
        header = next(rows)
        n_samples, n_features = int(header[0]), int(header[1])
        data = np.zeros((n_samples, n_features), dtype=features_dtype)
        target = np.zeros((n_samples,), dtype=target_dtype)
        for i, row in enumerate(rows):
            target[i] = np.asarray(row.pop(target_column), dtype=target_dtype)
            data[i] = np.asarray(row, dtype=features_dtype)
    return collections.namedtuple("Dataset", ["data", "target"])(data=data, target=target)
''',
    "load_csv_without_header": '''def load_csv_without_header(filename, target_dtype, features_dtype, target_column=-1):
    """tf.contrib.learn.datasets.base.load_csv_without_header, which TensorFlow 2 lacks (written by tfmigrate,
    TFM175): a CSV file of samples, the target in target_column."""
    import collections
    import csv
    import numpy as np
    import tensorflow as tf
    data, target = [], []
    with tf.io.gfile.GFile(filename) as csv_file:
        for row in csv.reader(csv_file):
            target.append(row.pop(target_column))
            data.append(np.asarray(row, dtype=features_dtype))
    return collections.namedtuple("Dataset", ["data", "target"])(
        data=np.array(data), target=np.array(target, dtype=target_dtype))
''',
}
# contrib.learn prediction keys -> the tf.estimator canned heads' keys
PREDICTION_KEYS = {"scores": "predictions", "classes": "class_ids", "probabilities": "probabilities",
                   "logits": "logits", "logistic": "logistic"}
# legacy positional orders (identical in every TF 1.x release of learn_io)
INPUT_FNS = {
    "numpy_input_fn": ("x", "y", "batch_size", "num_epochs", "shuffle", "queue_capacity", "num_threads"),
    "pandas_input_fn": ("x", "y", "batch_size", "num_epochs", "shuffle", "queue_capacity", "num_threads",
                        "target_column"),
}


def learn_io_function(qualified: str | None) -> str | None:
    """``numpy_input_fn`` / ``pandas_input_fn`` when ``qualified`` names the contrib.learn version."""
    if not qualified or not qualified.startswith(_LEARN):
        return None
    parts = qualified[len(_LEARN):].split(".")
    if parts[-1] not in INPUT_FNS:
        return None
    # learn.io.numpy_input_fn, learn.learn_io.numpy_input_fn, learn.python.learn.learn_io.numpy_io.numpy_input_fn
    if set(parts[:-1]) <= {"io", "learn_io", "python", "learn", "numpy_io", "pandas_io"} and (
        {"io", "learn_io"} & set(parts[:-1])
    ):
        return parts[-1]
    return None


class LearnIOTransform(FamilyTransform):
    FAMILY = "TFM17"

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self._tf = "tf"
        self._loaders_added: set[str] = set()

    def visit_Module(self, node: cst.Module) -> bool:
        self._tf = _tensorflow_alias(node)
        return True

    def leave_Call(self, original: cst.Call, updated: cst.Call) -> cst.BaseExpression:
        qualified = self.qualified_name(original.func)
        name = learn_io_function(qualified)
        if name is not None:
            return self._input_fn(name, original, updated)
        last = (qualified or "").rpartition(".")[2]
        if qualified in ("tensorflow.train.string_input_producer", "tensorflow.compat.v1.train.string_input_producer"):
            return self._string_input_producer(original, updated)
        if not (qualified or "").startswith(_LEARN):
            return updated
        if last in CSV_LOADERS and ".datasets" in (qualified or ""):
            return self._csv_loader(last, original, updated)
        if last == "InputFnOps":
            return self._input_fn_ops(original, updated)
        if last == "make_export_strategy":
            return self._export_strategy(original, updated)
        if last == "MetricSpec":
            return self._metric_spec(original, updated)
        return updated

    def _bind(self, call: cst.Call, order: tuple[str, ...], keywords: set[str]) -> dict[str, cst.Arg] | str:
        bound: dict[str, cst.Arg] = {}
        for i, arg in enumerate(call.args):
            if arg.star:
                return "the call uses *args/**kwargs: spell the arguments out"
            if arg.keyword is None:
                if i >= len(order):
                    return f"positional argument {i + 1} differs between TF 1.x releases: pass it by keyword"
                bound[order[i]] = arg
            elif arg.keyword.value in keywords:
                bound[arg.keyword.value] = arg
            else:
                return f"{arg.keyword.value}= is not an argument of the legacy function"
        return bound

    def _tf_name(self, dotted: str) -> cst.BaseExpression:
        self.imports.add("tensorflow", asname=None if self._tf == "tensorflow" else self._tf)
        return expression(f"{self._tf}.{dotted}")

    # --- TFM175 load_csv_with_header / load_csv_without_header ------------------------------------
    def _csv_loader(self, name: str, original: cst.Call, updated: cst.Call) -> cst.BaseExpression:
        defined = [d for d in self.index.nodes(cst.FunctionDef) if d.name.value == name]
        if defined and not self._loaders_added:
            self.flag(original, TFM175, f"tf.contrib.learn.datasets.base.{name}: the module defines its own {name}; "
                      "read the CSV with numpy (np.loadtxt) or csv by hand")
            return updated
        if any(a.star for a in updated.args):
            self.flag(original, TFM175, f"{name}(*args/**kwargs): spell the arguments out")
            return updated
        if not self.fix(original, TFM175, f"tf.contrib.learn.datasets.base.{name} (gone in TF 2) is written into "
                        "this module with the same reading and dtypes, returning the same Dataset(data, target)"):
            return updated
        self.remove_imports_of(original.func)
        self._loaders_added.add(name)
        return updated.with_changes(func=cst.Name(name))

    def leave_Module(self, original: cst.Module, updated: cst.Module) -> cst.Module:
        if not self._loaders_added:
            return updated
        body = list(updated.body)
        position = 0
        for i, stmt in enumerate(body):
            if isinstance(stmt, cst.SimpleStatementLine) and all(
                    isinstance(small, (cst.Import, cst.ImportFrom)) for small in stmt.body):
                position = i + 1
            elif i == 0 and isinstance(stmt, cst.SimpleStatementLine) and isinstance(stmt.body[0], cst.Expr):
                position = 1
            elif position or not isinstance(stmt, cst.SimpleStatementLine):
                break
        for name in sorted(self._loaders_added, reverse=True):
            code = CSV_LOADERS[name]
            if updated.default_indent != "    ":
                code = code.replace("    ", updated.default_indent)
            node = cst.parse_statement(code, config=updated.config_for_parsing)
            lines = [cst.EmptyLine(), cst.EmptyLine()] if position else []
            body.insert(position, node.with_changes(leading_lines=lines))
        return updated.with_changes(body=body)

    # --- TFM174 string_input_producer(match_filenames_once(...)) ---------------------------------------
    def _string_input_producer(self, original: cst.Call, updated: cst.Call) -> cst.BaseExpression:
        """TF 2 variables are resource variables, whose truth value is a tensor: string_input_producer's
        ``not string_tensor`` check on the match_filenames_once variable raises in graph mode (a TF 1 ref
        variable was simply true). Converting the variable to a tensor first is what the function did next."""
        args = list(updated.args)
        position = next((i for i, a in enumerate(original.args)
                         if (a.keyword is None and not a.star and i == 0)
                         or (a.keyword is not None and a.keyword.value == "string_tensor")), None)
        if position is None:
            return updated
        value = original.args[position].value
        if not isinstance(value, cst.Name):
            return updated
        scope = self.scopes.scope_of(value)
        assignments = list(scope[value.value]) if scope is not None else []
        if len(assignments) != 1 or not isinstance(getattr(assignments[0], "node", None), cst.Name):
            return updated
        target = assignments[0].node
        assign_target = self.get_metadata(ParentNodeProvider, target, None)
        assign = self.get_metadata(ParentNodeProvider, assign_target, None) if isinstance(assign_target, cst.AssignTarget) else None
        if not isinstance(assign, cst.Assign) or not isinstance(assign.value, cst.Call):
            return updated
        if (self.qualified_name(assign.value.func) or "").rpartition(".")[2] != "match_filenames_once":
            return updated
        if not self.fix(original, TFM174, f"string_input_producer({value.value}) of a match_filenames_once variable: "
                        f"fed as {self._tf}.convert_to_tensor({value.value}) (a TF 2 resource variable has no Python "
                        "truth value in graph mode; the function converted it to a tensor next anyway)"):
            return updated
        args[position] = args[position].with_changes(value=cst.Call(
            func=self._tf_name("convert_to_tensor"), args=[cst.Arg(value=args[position].value)]))
        return updated.with_changes(args=args)

    # --- TFM171 InputFnOps -----------------------------------------------------------------------
    def _input_fn_ops(self, original: cst.Call, updated: cst.Call) -> cst.BaseExpression:
        bound = self._bind(updated, INPUT_FN_OPS_ORDER, set(INPUT_FN_OPS_ORDER))
        if isinstance(bound, str) or set(bound) != set(INPUT_FN_OPS_ORDER) or not is_none(bound["labels"].value):
            self.flag(original, TFM171, "InputFnOps(features, labels, default_inputs): " + (
                bound if isinstance(bound, str) else "only the serving form (labels None) is rewritten") +
                "; a serving_input_fn returns tf.estimator.export.ServingInputReceiver(features, default_inputs), "
                "a training input_fn returns (features, labels)")
            return updated
        if not self.fix(original, TFM171, "InputFnOps(features, None, default_inputs) is "
                        "tf.estimator.export.ServingInputReceiver(features, receiver_tensors=default_inputs)"):
            return updated
        self.remove_imports_of(original.func)
        args = [bound["features"].value, bound["default_inputs"].value]
        return updated.with_changes(func=self._tf_name("estimator.export.ServingInputReceiver"),
                                    args=_args(updated, [(None, args[0]), (None, args[1])]))

    # --- TFM172 make_export_strategy ------------------------------------------------------------------
    def _export_strategy(self, original: cst.Call, updated: cst.Call) -> cst.BaseExpression:
        if not self._in_experiment_exports(original):
            self.flag(original, TFM172, "make_export_strategy(...) outside an Experiment's export_strategies: use "
                      "tf.estimator.LatestExporter('Servo', serving_input_receiver_fn, exports_to_keep=...) in "
                      "tf.estimator.EvalSpec(exporters=[...]), or estimator.export_saved_model(dir, serving_input_fn)")
            return updated
        bound = self._bind(updated, EXPORT_ORDER, EXPORT_KEYWORDS)
        problem = bound if isinstance(bound, str) else None
        if problem is None and "serving_input_fn" not in bound:
            problem = "serving_input_fn is missing"
        if problem is None and "default_output_alternative_key" in bound and not is_none(
                bound["default_output_alternative_key"].value):
            problem = "default_output_alternative_key names a head of a multi-head model, which canned estimators are not"
        if problem is not None:
            self.flag(original, TFM172, f"make_export_strategy: {problem}; use tf.estimator.LatestExporter('Servo', "
                      "serving_input_receiver_fn, exports_to_keep=...) in EvalSpec(exporters=[...])")
            return updated
        if not self.fix(original, TFM172, "make_export_strategy(serving_input_fn, ...) is tf.estimator.LatestExporter("
                        "'Servo', serving_input_fn, ...): exports to the same <model_dir>/export/Servo/<timestamp>, "
                        "keeping exports_to_keep (default 5 in both); TF 2 strips default attributes from the saved graph"):
            return updated
        self.remove_imports_of(original.func)
        pairs: list[tuple[str | None, cst.BaseExpression]] = [(None, cst.SimpleString('"Servo"')),
                                                               (None, bound["serving_input_fn"].value)]
        for key in ("assets_extra", "as_text", "exports_to_keep"):
            if key in bound:
                pairs.append((key, bound[key].value))
        return updated.with_changes(func=self._tf_name("estimator.LatestExporter"), args=_args(updated, pairs))

    def _in_experiment_exports(self, call: cst.Call) -> bool:
        element = self.get_metadata(ParentNodeProvider, call, None)
        container = self.get_metadata(ParentNodeProvider, element, None) if isinstance(element, cst.Element) else None
        arg = self.get_metadata(ParentNodeProvider, container, None) if isinstance(container, (cst.List, cst.Tuple)) else None
        if not isinstance(arg, cst.Arg) or arg.keyword is None or arg.keyword.value != "export_strategies":
            return False
        experiment = self.get_metadata(ParentNodeProvider, arg, None)
        name = self.qualified_name(experiment.func) if isinstance(experiment, cst.Call) else None
        return bool(name) and name.startswith(_LEARN) and name.endswith(".Experiment")

    # --- TFM173 MetricSpec -------------------------------------------------------------------------
    def _metric_spec(self, original: cst.Call, updated: cst.Call) -> cst.BaseExpression:
        bound = self._bind(original, METRIC_SPEC_ORDER, set(METRIC_SPEC_ORDER))
        problem = bound if isinstance(bound, str) else None
        if problem is None and "metric_fn" not in bound:
            problem = "metric_fn is missing"
        key = None
        if problem is None:
            for name in ("label_key", "weight_key"):
                if name in bound and not is_none(bound[name].value):
                    problem = f"{name}= (labels or weights from a dict) has no rewrite here"
            given = bound.get("prediction_key")
            if given is None or is_none(given.value):
                key = "predictions"  # the single prediction of a regressor ("scores", now "predictions")
            else:
                legacy = str_value(given.value) or self._prediction_key_constant(given.value)
                key = PREDICTION_KEYS.get(legacy or "")
                if key is None:
                    problem = f"prediction_key={code_of(given.value)} is not a key this rewrite knows"
        metric = None
        if problem is None:
            metric = self._metric_fn(original, bound["metric_fn"].value)
            if metric is None:
                problem = (f"metric_fn={code_of(bound['metric_fn'].value)} is neither a contrib streaming metric nor a "
                           "function of this module that takes labels= and predictions=")
        if problem is not None:
            self.flag(original, TFM173, f"MetricSpec: {problem}; write a function (labels, predictions) returning "
                      "(value, update_op) from tf.compat.v1.metrics and add it with tf.estimator.add_metrics")
            return updated
        if not self.fix(original, TFM173, f"MetricSpec(metric_fn=...) -> lambda labels, predictions: metric(labels="
                        f"labels, predictions=predictions[\"{key}\"]) (the legacy MetricSpec called the metric by "
                        "these names; tf.estimator.add_metrics gives the prediction dict)"):
            return updated
        self.remove_imports_of(original.func)
        if isinstance(metric, str):
            self.remove_imports_of(bound["metric_fn"].value)
            metric_code = metric
        else:
            metric_code = code_of(metric)
        return expression(f'lambda labels, predictions: {metric_code}(labels=labels, predictions=predictions["{key}"])')

    def _prediction_key_constant(self, node: cst.BaseExpression) -> str | None:
        """``learn.prediction_key.PredictionKey.CLASSES`` -> "classes" (the legacy constants' values)."""
        name = self.qualified_name(node) or ""
        owner, _, constant = name.rpartition(".")
        if name.startswith(_LEARN) and owner.endswith("PredictionKey"):
            return constant.lower()
        return None

    def _metric_fn(self, call: cst.Call, fn: cst.BaseExpression) -> str | cst.BaseExpression | None:
        name = self.qualified_name(fn) or ""
        if name.startswith("tensorflow.contrib.metrics.") or name.startswith("tensorflow.contrib.metrics.python."):
            new = STREAMING.get(name.rpartition(".")[2])
            if new is None:
                return None
            self.imports.add("tensorflow", asname=None if self._tf == "tensorflow" else self._tf)
            return f"{self._tf}.compat.v1.metrics.{new}"
        if name.startswith("tensorflow.compat.v1.metrics.") or name.startswith("tensorflow.metrics."):
            return fn  # already (labels, predictions) by name
        if isinstance(fn, cst.Name):
            defs = [d for d in self.index.nodes(cst.FunctionDef) if d.name.value == fn.value]
            if len(defs) == 1:
                params = {p.name.value for p in defs[0].params.params} | {p.name.value for p in defs[0].params.kwonly_params}
                if {"labels", "predictions"} <= params:
                    return fn
        return None

    # --- TFM170 -----------------------------------------------------------------------------------
    def _input_fn(self, name: str, original: cst.Call, updated: cst.Call) -> cst.BaseExpression:
        order = INPUT_FNS[name]
        given: set[str] = set()
        for i, arg in enumerate(updated.args):
            if arg.star:
                self.flag(original, TFM170, f"tf.contrib.learn.io.{name}(*args/**kwargs): spell the arguments "
                          f"out, or call tf.compat.v1.estimator.inputs.{name} with shuffle=True (the legacy "
                          "default; the core function has no default and raises)")
                return updated
            if arg.keyword is None:
                if i >= len(order):
                    self.flag(original, TFM170, f"tf.contrib.learn.io.{name}: too many positional arguments")
                    return updated
                given.add(order[i])
            else:
                given.add(arg.keyword.value)
        unknown = given - set(order)
        if unknown:
            self.flag(original, TFM170, f"tf.contrib.learn.io.{name}({', '.join(sorted(unknown))}=...): not an "
                      f"argument of the legacy function; rewrite by hand as tf.compat.v1.estimator.inputs.{name}")
            return updated
        note = "" if "shuffle" in given else " and shuffle=True written out (the legacy default; the core function raises without it)"
        if not self.fix(original, TFM170, f"tf.contrib.learn.io.{name} is tf.compat.v1.estimator.inputs.{name}"
                        + note):
            return updated
        self.remove_imports_of(original.func)
        self.imports.add("tensorflow", asname=None if self._tf == "tensorflow" else self._tf)
        args = list(updated.args)
        if "shuffle" not in given:
            keyword = cst.Arg(
                value=cst.Name("True"), keyword=cst.Name("shuffle"),
                equal=cst.AssignEqual(whitespace_before=cst.SimpleWhitespace(""),
                                      whitespace_after=cst.SimpleWhitespace("")),
            )
            if args:
                last = args[-1]
                comma = cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))
                if isinstance(last.comma, cst.Comma) and len(args) > 1 and isinstance(args[-2].comma, cst.Comma):
                    comma = without_comments(args[-2].comma)  # one argument a line: the new one on a line of its own
                elif isinstance(last.comma, cst.Comma):
                    comma = without_comments(last.comma)
                tail = last.comma
                space = last.comma.whitespace_after if isinstance(last.comma, cst.Comma) else None
                if isinstance(space, cst.ParenthesizedWhitespace) and space.first_line.comment is not None:
                    # the last argument's comment stays on its line; the lines before ")" stay before it
                    indent = comma.whitespace_after.last_line if isinstance(comma.whitespace_after, cst.ParenthesizedWhitespace) else space.last_line
                    comma = comma.with_changes(whitespace_after=space.with_changes(empty_lines=[], last_line=indent))
                    tail = last.comma.with_changes(whitespace_after=space.with_changes(first_line=cst.TrailingWhitespace(newline=space.first_line.newline)))
                args[-1] = last.with_changes(comma=comma)
                keyword = keyword.with_changes(comma=cst.MaybeSentinel.DEFAULT if not isinstance(last.comma, cst.Comma) else tail)
            args.append(keyword)
        return updated.with_changes(func=expression(f"{self._tf}.compat.v1.estimator.inputs.{name}"), args=args)


def _args(call: cst.Call, pairs: list[tuple[str | None, cst.BaseExpression]]) -> list[cst.Arg]:
    """New arguments, with the call's own comma style (one a line stays one a line)."""
    commas = [a.comma for a in call.args if isinstance(a.comma, cst.Comma)]
    # the layout of the call's separators, not their comments (the engine puts those back by argument)
    inner = without_comments(commas[0]) if commas else cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))
    last = call.args[-1].comma if call.args else cst.MaybeSentinel.DEFAULT
    last = without_comments(last) if isinstance(last, cst.Comma) else last
    out = []
    for i, (keyword, value) in enumerate(pairs):
        arg = cst.Arg(value=value)
        if keyword is not None:
            arg = arg.with_changes(keyword=cst.Name(keyword), equal=cst.AssignEqual(
                whitespace_before=cst.SimpleWhitespace(""), whitespace_after=cst.SimpleWhitespace("")))
        if i < len(pairs) - 1:
            out.append(arg.with_changes(comma=inner))
        else:  # the last keeps the whitespace before the closing parenthesis
            tail = call.args[-1].whitespace_after_arg if call.args else cst.SimpleWhitespace("")
            if isinstance(tail, cst.ParenthesizedWhitespace):
                tail = without_comments(cst.Comma(whitespace_after=tail)).whitespace_after
            out.append(arg.with_changes(comma=last, whitespace_after_arg=tail))
    return out


def _tensorflow_alias(module: cst.Module) -> str:
    """The name new code spells TensorFlow with: ``import tensorflow as X`` at module level, else ``tf``."""
    for stmt in module.body:
        if isinstance(stmt, cst.SimpleStatementLine):
            for small in stmt.body:
                if isinstance(small, cst.Import):
                    for alias in small.names:
                        if code_of(alias.name) == "tensorflow":
                            return alias.asname.name.value if alias.asname else "tensorflow"  # type: ignore[union-attr]
    return "tf"
