"""TFM132: a contrib.learn canned estimator inside a scikit-learn Pipeline (issue 13).

The contrib.learn estimators had scikit-learn's shape: ``fit(x, y, steps=..., batch_size=...)`` returning
self and ``predict(x)`` giving the classes (or values), so programs put them in ``Pipeline([...,
("dnn", classifier)])`` and called ``pipeline.fit(x, y, dnn__steps=200)``. tf.estimator has neither
(TF 2.15 has no SKCompat), and scikit-learn refuses the estimator ("Last step of Pipeline should
implement fit"). The rewrite keeps the program's behaviour with a small adapter class written into the
module once: its ``fit`` is the TFM104 rewrite of the legacy ``fit(x, y, steps, batch_size,
max_steps)`` (numpy_input_fn over ``{"x": x}``, the whole data set as one batch when no batch_size was
given, class labels cast to int64 as the legacy DataFeeder did) and its ``predict`` the TFM106 rewrite of
``predict(x, batch_size, as_iterable)`` (``class_ids`` / ``predictions`` of each example; an array
unless ``as_iterable=True``), and ``predict_proba`` gives the ``probabilities``. The estimator is wrapped where it enters the Pipeline
(``Pipeline([..., ("dnn", LegacyEstimatorAdapter(classifier, classifier=True))])``, ``make_pipeline``);
the wrapped object is the same estimator, so its own train/evaluate/predict elsewhere are unchanged.
Other scikit-learn uses (GridSearchCV and friends clone their estimator through get_params) are
reported by TFM131.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import libcst as cst

from tfmigrate.rule_ids import TFM132

if TYPE_CHECKING:  # pragma: no cover
    from tfmigrate.transforms.estimators.state import Est, Planner

ADAPTER = "LegacyEstimatorAdapter"
PIPELINES = ("sklearn.pipeline.Pipeline", "sklearn.pipeline.make_pipeline")

ADAPTER_CODE = '''class LegacyEstimatorAdapter(object):
    """The tf.contrib.learn fit(x, y)/predict(x) of a tf.estimator canned estimator, for scikit-learn
    (written by tfmigrate, TFM132: the legacy estimators had this interface, tf.estimator has not)."""

    def __init__(self, estimator, classifier):
        self.estimator = estimator
        self.classifier = classifier

    def fit(self, x, y, steps=None, batch_size=None, max_steps=None):
        if self.classifier:  # the legacy DataFeeder cast class labels to int64
            y = np.asarray(y, dtype=np.int64)
        self.estimator.train(
            input_fn=tf.compat.v1.estimator.inputs.numpy_input_fn(
                x={"x": x},
                y=y,
                batch_size=len(x) if batch_size is None else batch_size,  # legacy: the whole data set
                shuffle=True,
                num_epochs=None,
            ),
            steps=steps,
            max_steps=max_steps,
        )
        return self

    def predict(self, x, batch_size=None, as_iterable=False):
        key = "class_ids" if self.classifier else "predictions"
        predictions = (p[key][0] for p in self.estimator.predict(
            input_fn=tf.compat.v1.estimator.inputs.numpy_input_fn(
                x={"x": x},
                batch_size=len(x) if batch_size is None else batch_size,
                shuffle=False,
                num_epochs=1,
            ),
        ))
        return predictions if as_iterable else np.array(list(predictions))

    def predict_proba(self, x, batch_size=None, as_iterable=False):
        probabilities = (p["probabilities"] for p in self.estimator.predict(
            input_fn=tf.compat.v1.estimator.inputs.numpy_input_fn(
                x={"x": x},
                batch_size=len(x) if batch_size is None else batch_size,
                shuffle=False,
                num_epochs=1,
            ),
        ))
        return probabilities if as_iterable else np.array(list(probabilities))
'''


def pipeline_step(t: Planner, node: cst.CSTNode) -> bool:
    """``node`` is a step of a scikit-learn pipeline: ``Pipeline([(name, node), ...])`` or ``make_pipeline(..., node)``."""
    parent = t._parent(node)
    if isinstance(parent, cst.Arg):
        call = t._parent(parent)
        return isinstance(call, cst.Call) and t.qualified_name(call.func) == "sklearn.pipeline.make_pipeline"
    if not isinstance(parent, cst.Element):
        return False
    pair = t._parent(parent)
    if not isinstance(pair, cst.Tuple) or len(pair.elements) != 2 or pair.elements[1] is not parent:
        return False
    element = t._parent(pair)
    steps = t._parent(element) if isinstance(element, cst.Element) else None
    arg = t._parent(steps) if isinstance(steps, (cst.List, cst.Tuple)) else None
    call = t._parent(arg) if isinstance(arg, cst.Arg) else None
    if not isinstance(call, cst.Call) or t.qualified_name(call.func) != "sklearn.pipeline.Pipeline":
        return False
    return arg.keyword is None or arg.keyword.value == "steps"


def wrap(t: Planner, est: Est, node: cst.CSTNode) -> bool:
    """Plan ``LegacyEstimatorAdapter(node, classifier=...)`` where the estimator enters a pipeline."""
    if est.cls.era != "learn" or not est.key_matches or est.cls.target is None:
        return False
    if not isinstance(node, (cst.Name, cst.Attribute)):
        return False
    if t.index.module_binding_count(ADAPTER) not in (0, None):
        return False  # the module already has something of that name
    classifier = "True" if est.cls.classifier else "False"
    if not t.fix(node, TFM132, f"{est.cls.name} in a scikit-learn pipeline: tf.estimator.{est.cls.target} has no "
                 "fit(x, y)/predict(x); it is wrapped in LegacyEstimatorAdapter (written into this module), whose "
                 "fit/predict are the legacy ones (numpy_input_fn over {\"x\": x}, the whole data set as one batch "
                 "when no batch_size is given, classes of predict as an array)"):
        return False
    t.replace[node] = cst.Call(
        func=cst.Name(ADAPTER),
        args=[
            cst.Arg(value=node.deep_clone(), comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))),
            cst.Arg(value=cst.Name(classifier), keyword=cst.Name("classifier"),
                    equal=cst.AssignEqual(whitespace_before=cst.SimpleWhitespace(""),
                                          whitespace_after=cst.SimpleWhitespace(""))),
        ],
    )
    t.changed = True
    t.need_np = True
    t.need_tf = True
    t._flow_adapter = True
    return True


def add_adapter(t: Planner, module: cst.Module) -> cst.Module:
    """The module with the adapter class after its imports (once)."""
    if not getattr(t, "_flow_adapter", False):
        return module
    body = list(module.body)
    position = 0
    for i, stmt in enumerate(body):
        if isinstance(stmt, cst.SimpleStatementLine) and all(
            isinstance(s, (cst.Import, cst.ImportFrom)) for s in stmt.body
        ):
            position = i + 1
        elif i == 0 and isinstance(stmt, cst.SimpleStatementLine) and isinstance(stmt.body[0], cst.Expr):
            position = 1  # the docstring
        elif position or not isinstance(stmt, cst.SimpleStatementLine):
            break
    code = ADAPTER_CODE
    indent = module.default_indent
    if indent != "    ":
        code = code.replace("    ", indent)
    adapter = cst.parse_statement(code, config=module.config_for_parsing)
    adapter = adapter.with_changes(leading_lines=[cst.EmptyLine(), cst.EmptyLine()])
    body.insert(position, adapter)
    return module.with_changes(body=body)
