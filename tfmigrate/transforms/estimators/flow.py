"""Following a legacy estimator's value for the TFM1 planner (issue 13).

Real programs build the estimator in a helper and return it (``def build(): return
learn.LinearClassifier(...)``; ``m = build(); m.fit(...)``), keep it in ``self`` attributes
(``self.model = build()``) or pass it on. The planner (``EstimatorTransform._receiver``) follows
names and ``self`` attributes bound to a constructor; this module adds:

- ``follow_call``: a call of a module-level function (or a method of the same class through
  ``self.f()``) whose every ``return`` gives the same estimator binding;
- ``self_attributes``: ``self.x = <value that follows to an estimator>``, when it is the attribute's
  only assignment in the module;
- ``escapes`` (TFM131): the reads of a rewritten estimator that leave what the planner can follow
  (passed to a function, stored in a container, returned from a function nobody calls, ...). The
  code there may call ``fit``/``evaluate``/``predict`` with the legacy signature, which tf.estimator
  does not have: a manual finding says so, on the line, instead of a silent crash later.

What the estimator's inputs become (input functions TFM134, decay schedules, MetricSpec metrics, the
linear default rate) is ``estimator_inputs.py``.
"""

from __future__ import annotations

import builtins
from typing import TYPE_CHECKING

import libcst as cst
from libcst.metadata import PositionProvider

from tfmigrate.codemod.walk import iter_nodes
from tfmigrate.rule_ids import TFM131, TFM133
from tfmigrate.transforms.estimators import sklearn
from tfmigrate.transforms.common.builders import code_of
from tfmigrate.transforms.estimators.model_fn.planner import list_holds

if TYPE_CHECKING:  # pragma: no cover
    from tfmigrate.transforms.estimators.state import Est, Planner

_BUILTINS = frozenset(dir(builtins))
LEGACY_METHODS = ("fit", "partial_fit", "evaluate", "predict", "predict_proba", "predict_classes", "predict_scores",
                  "save", "score", "export", "get_variable_names", "get_variable_value", "get_params", "set_params",
                  "weights_", "bias_", "model_dir", "config", "params")


def _functions(t: Planner) -> dict[str, list[cst.FunctionDef]]:
    table = getattr(t, "_flow_functions", None)
    if table is None:
        table = {}
        for fn in t.index.nodes(cst.FunctionDef):
            table.setdefault(fn.name.value, []).append(fn)
        t._flow_functions = table
    return table


_RETURNS: dict[int, tuple[cst.FunctionDef, list[cst.Return]]] = {}


def _returns(fn: cst.FunctionDef) -> list[cst.Return]:
    cached = _RETURNS.get(id(fn))
    if cached is not None and cached[0] is fn:
        return cached[1]
    inside = lambda node: node is fn or not isinstance(node, (cst.FunctionDef, cst.ClassDef, cst.Lambda))  # noqa: E731
    found = [node for node in iter_nodes(fn, inside, trivia=False) if isinstance(node, cst.Return)]
    if len(_RETURNS) > 512:
        _RETURNS.clear()
    _RETURNS[id(fn)] = (fn, found)
    return found


def _enclosing(t: Planner, node: cst.CSTNode, kind: type) -> cst.CSTNode | None:
    parent = t._parent(node)
    while parent is not None and not isinstance(parent, kind):
        parent = t._parent(parent)
    return parent


def called_function(t: Planner, call: cst.Call) -> cst.FunctionDef | None:
    """The one def a call reaches: ``build()`` (a module-level def of that name, bound once) or
    ``self.build()`` (a method of the class the call is written in)."""
    func = call.func
    defs = _functions(t)
    if isinstance(func, cst.Name):
        found = [fn for fn in defs.get(func.value, []) if isinstance(t._parent(fn), cst.Module)]
        if len(found) == 1 and len(defs.get(func.value, [])) == 1 and not t._assigned_by_statement(func.value):
            return found[0]
        return None
    if isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name) and func.value.value == "self":
        cls = _enclosing(t, call, cst.ClassDef)
        if cls is None:
            return None
        found = [fn for fn in defs.get(func.attr.value, []) if _enclosing(t, fn, cst.ClassDef) is cls]
        return found[0] if len(found) == 1 else None
    return None


def follow_call(t: Planner, call: cst.Call, depth: int) -> Est | None:
    """The estimator a helper call returns, when every ``return`` of the helper gives the same one."""
    fn = called_function(t, call)
    if fn is None:
        return None
    returns = _returns(fn)
    if not returns or any(r.value is None for r in returns):
        return None
    found = {id(est): est for est in (t._receiver(r.value, depth + 1) for r in returns) if est is not None}
    if len(found) != 1 or len([r for r in returns if t._receiver(r.value, depth + 1) is None]):
        return None
    est = next(iter(found.values()))
    followed = getattr(t, "_flow_followed_returns", None)
    if followed is None:
        followed = t._flow_followed_returns = set()
    followed.update(returns)
    return est


def self_attribute(t: Planner, attr: str, depth: int) -> Est | None:
    """``self.<attr> = value`` assigned once in the module, with a value that follows to an estimator."""
    assigned = [target for target in t.self_targets if target.attr.value == attr]
    if len(assigned) != 1:
        return None
    target = assigned[0]
    assign_target = t._parent(target)
    assign = t._parent(assign_target) if isinstance(assign_target, cst.AssignTarget) else None
    if not isinstance(assign, cst.Assign) or len(assign.targets) != 1 or assign.targets[0].target is not target:
        return None
    if isinstance(assign.value, cst.Call) and assign.value in t.by_call:
        return None  # a constructor: the planner's own ("self", attr) binding
    return t._receiver(assign.value, depth + 1)


def escapes(t: Planner) -> None:
    """TFM131: flag the reads of a rewritten estimator that leave the code the planner follows."""
    if not any(est.new is not None for est in t.ests):
        return
    followed = getattr(t, "_flow_followed_returns", set())
    seen: set[int] = set()
    for est in t.ests:
        if est.new is None:
            continue
        if est.key is None:  # used where it is built: learn.X(...).fit(...), return learn.X(...), f(learn.X(...))
            _check_read(t, est, est.call, followed)
            continue
        if est.key[0] == "name":
            _check_binding(t, est, t._parent(est.call), followed, seen)
    # names bound to a followed value: m = build(), other = clf
    for assign in t.index.nodes(cst.Assign):
        if len(assign.targets) != 1 or not isinstance(assign.targets[0].target, cst.Name):
            continue
        if not isinstance(assign.value, (cst.Call, cst.Name)) or assign.value in t.by_call:
            continue
        est = t._receiver(assign.value)
        if est is not None and est.new is not None:
            _check_binding(t, est, assign, followed, seen)
    # self.<attr> reads of an attribute that holds a rewritten estimator
    for attr in t.index.nodes(cst.Attribute):
        if not (isinstance(attr.value, cst.Name) and attr.value.value == "self") or id(attr) in seen:
            continue
        if isinstance(t._parent(attr), cst.AssignTarget):
            continue
        est = t._receiver(attr)
        if est is not None and est.new is not None:
            seen.add(id(attr))
            _check_read(t, est, attr, followed)


def _check_binding(t: Planner, est: Est, assign: cst.CSTNode | None, followed: set, seen: set) -> None:
    if not isinstance(assign, cst.Assign):
        return
    target = assign.targets[0].target
    scope = t.scopes.scope_of(target)
    if scope is None:
        return
    for assignment in scope[target.value]:
        if getattr(assignment, "node", None) is not target:
            continue
        for access in assignment.references:
            node = access.node
            if id(node) in seen:
                continue
            seen.add(id(node))
            _check_read(t, est, node, followed)


def _check_read(t: Planner, est: Est, node: cst.CSTNode, followed: set) -> None:
    parent = t._parent(node)
    if isinstance(parent, cst.Attribute) and parent.value is node:
        return  # a method call or attribute: planned (or reported) by the planner
    if isinstance(parent, cst.Return) and parent in followed:
        return  # returned by a helper whose callers are followed
    if isinstance(parent, cst.Assign) and parent.value is node and _assigned_reads_followed(t, parent):
        return  # other = est: followed through the new name
    if isinstance(parent, (cst.If, cst.While, cst.UnaryOperation, cst.BooleanOperation, cst.Comparison,
                           cst.ComparisonTarget)):
        return
    if isinstance(parent, cst.Arg) and parent in getattr(t, "_flow_followed_args", ()):
        return  # passed to a parameter whose uses are followed (follow_param)
    if isinstance(parent, cst.Arg) and t._parent(parent) in getattr(t, "sk_unwrapped", ()):
        return  # SKCompat(est), replaced by est: the wrapper's reads are followed (TFM119)
    if isinstance(parent, cst.Return) and _exported(t, parent):
        return  # a public helper nobody in this module calls: its callers' legacy calls are TFM133
    if isinstance(parent, cst.Arg):
        call = t._parent(parent)
        name = (t.qualified_name(call.func) if isinstance(call, cst.Call) else None) or ""
        func = call.func if isinstance(call, cst.Call) else None
        if (isinstance(func, cst.Attribute) and func.attr.value == "append" and isinstance(func.value, cst.Name)
                and list_holds(t, func.value, 0) is est):
            return  # collected in a list whose items[i] reads are followed (TFM115)
        if isinstance(call, cst.Call) and isinstance(call.func, cst.Name) and call.func.value in (
                "print", "isinstance", "type", "id", "repr", "str") and t.is_builtin(call.func):
            return
        if name.startswith("tensorflow.estimator.") or name.endswith(".Experiment") and name.startswith(
                "tensorflow.contrib.learn."):
            return  # a tf.estimator API (train_and_evaluate, add_metrics, hooks) or the Experiment TFM154 rewrites
    if sklearn.pipeline_step(t, node) and sklearn.wrap(t, est, node):
        return  # TFM132: wrapped in the legacy fit/predict adapter
    what = f"tf.estimator.{est.cls.target}" if est.cls.target else "the estimator"
    t.flag(node, TFM131, f"{what} (rewritten from {est.cls.name}) leaves the code tfmigrate can follow here: "
           "whatever receives it must call train(input_fn=...)/evaluate(input_fn=...)/predict(input_fn=...) "
           "(tf.estimator has no fit(x, y), no save(), and predict() yields dicts); rewrite those calls by hand "
           "(a scikit-learn Pipeline/GridSearchCV needs an object with fit(x, y)/predict(x))")


def _exported(t: Planner, ret: cst.Return) -> bool:
    """``ret`` is in a module-level function whose name nothing in this module reads."""
    fn = _enclosing(t, ret, cst.FunctionDef)
    if fn is None or not isinstance(t._parent(fn), cst.Module):
        return False
    names = getattr(t, "_flow_name_counts", None)
    if names is None:
        names = t._flow_name_counts = {}
        for n in t.index.nodes(cst.Name):
            names[n.value] = names.get(n.value, 0) + 1
    return names.get(fn.name.value, 0) <= 1  # the def's own name only


LEGACY_ONLY = {  # keywords only the contrib.learn / skflow methods take (not tf.estimator, Keras or scikit-learn)
    "fit": {"input_fn", "monitors", "steps", "max_steps"},
    "partial_fit": {"input_fn", "monitors", "steps"},
    "predict": {"as_iterable"},
    "predict_classes": {"input_fn", "as_iterable"},
    "predict_proba": {"input_fn", "as_iterable"},
    "predict_scores": {"input_fn", "as_iterable"},
    "evaluate": {"feed_fn", "metrics", "log_progress"},
}


def unfollowed_calls(t: Planner, planned: set) -> None:
    """TFM133: a method call with a contrib.learn-only signature on a value the planner cannot follow."""
    for call in t.index.nodes(cst.Call):
        func = call.func
        if not isinstance(func, cst.Attribute) or func.attr.value not in LEGACY_ONLY or call in planned:
            continue
        keywords = {a.keyword.value for a in call.args if a.keyword is not None}
        legacy = sorted(keywords & LEGACY_ONLY[func.attr.value])
        if not legacy:
            continue
        if t._receiver(func.value) is not None or _tf_estimator(t, func.value):
            continue
        method = func.attr.value
        t.flag(call, TFM133, f"{method}({', '.join(k + '=' for k in legacy)}...) is the tf.contrib.learn "
               f"signature, on an object tfmigrate cannot trace to its constructor (built in another module or "
               "passed in): if it is a tf.estimator, rewrite it by hand as train(input_fn=..., steps=..., hooks=[...]) / "
               "evaluate(input_fn=...) / predict(input_fn=...), which yields dicts (p['class_ids'][0], "
               "p['predictions'][0])")


def _tf_estimator(t: Planner, expr: cst.BaseExpression) -> bool:
    """``expr`` is a name bound once to a tf.estimator constructor (a later pass over code the TFM1 rules
    already rewrote: what they left there was reported by TFM104-TFM106 in that pass)."""
    if not isinstance(expr, cst.Name):
        return False
    found = t._single_assignment(expr)
    value = found[1].value if found is not None else None
    return isinstance(value, cst.Call) and (t.qualified_name(value.func) or "").startswith("tensorflow.estimator.")


def _assigned_reads_followed(t: Planner, assign: cst.Assign) -> bool:
    """``other = est``: the new name's reads are followed by the planner like the original's."""
    if len(assign.targets) != 1 or not isinstance(assign.targets[0].target, cst.Name):
        return False
    return t._single_assignment(assign.targets[0].target) is not None


def combined_optimizers(args: dict, code) -> list[tuple[str, str]] | None:
    """The legacy default optimizers of a contrib.learn DNNLinearCombined* (dnn_optimizer=None: Adagrad at
    _DNN_LEARNING_RATE 0.05; linear_optimizer=None: Ftrl at min(_LINEAR_LEARNING_RATE 0.2, 1/sqrt(n linear
    columns)), tensorflow/contrib/learn/.../dnn_linear_combined.py), as tf.keras.optimizers.legacy callables;
    TF 2.15 would use 0.001 and min(0.005, ...). None when the number of linear columns cannot be written."""
    out: list[tuple[str, str]] = []
    linear = args.get("linear_feature_columns")
    if linear is not None and not (isinstance(linear, cst.Name) and linear.value == "None"):
        if isinstance(linear, (cst.List, cst.Tuple)) and linear.elements and not any(
                isinstance(e, cst.StarredElement) for e in linear.elements):
            rate = repr(round(min(0.2, 1.0 / len(linear.elements) ** 0.5), 12))
        elif isinstance(linear, (cst.Name, cst.Attribute)):
            rate = f"min(0.2, 1.0 / len({code(linear)}) ** 0.5)"
        else:
            return None
        out.append(("linear_optimizer", f"lambda: tf.keras.optimizers.legacy.Ftrl(learning_rate={rate})"))
    dnn = args.get("dnn_feature_columns")
    if dnn is not None and not (isinstance(dnn, cst.Name) and dnn.value == "None"):
        out.append(("dnn_optimizer", "lambda: tf.keras.optimizers.legacy.Adagrad(learning_rate=0.05)"))
    return out


def free_name(t: Planner, name: cst.Name) -> bool:
    """``name`` is bound nowhere in this module (no assignment, parameter, import, def; no star import):
    the data comes from outside (a notebook's earlier cell, an exec'd script, README-style snippets), so it
    exists before the module's first statement that reads it, as the legacy fit read it."""
    if t.index.has_star_import or name.value in _BUILTINS:
        return False
    scope = t.scopes.scope_of(name)
    if scope is None:
        return False
    return not [a for a in scope[name.value] if getattr(a, "node", None) is not None]


# calls that build a path from their arguments and nothing else
PURE_PATH_CALLS = {"os.path.join", "os.getcwd", "os.path.abspath", "os.path.expanduser", "os.path.dirname",
                   "os.path.basename", "os.path.normpath", "os.path.realpath", "builtins.str"}
# calls that delete or (re)create a directory
CLEARING_CALLS = {"shutil.rmtree", "os.makedirs", "os.mkdir", "os.rmdir", "os.removedirs", "os.remove",
                  "tensorflow.gfile.DeleteRecursively", "tensorflow.gfile.MakeDirs", "tensorflow.gfile.Remove",
                  "tensorflow.io.gfile.rmtree", "tensorflow.io.gfile.makedirs", "tensorflow.io.gfile.remove",
                  "tensorflow.compat.v1.gfile.DeleteRecursively", "tensorflow.compat.v1.gfile.MakeDirs"}


def path_known(t: Planner, est: Est, path: cst.BaseExpression, depth: int = 0) -> bool:
    """A save path computed only from strings, numbers, names known where the estimator is built and
    path functions (``os.path.join(os.getcwd(), "m")``, ``base + "/model"``, f-strings of such names)."""
    if depth > 6:
        return False
    if isinstance(path, (cst.SimpleString, cst.Integer)):
        return True
    if isinstance(path, cst.Name):
        return t._known_at_construction(est, path)
    if isinstance(path, cst.BinaryOperation):
        return path_known(t, est, path.left, depth + 1) and path_known(t, est, path.right, depth + 1)
    if isinstance(path, cst.FormattedString):
        return all(path_known(t, est, part.expression, depth + 1) for part in path.parts
                   if isinstance(part, cst.FormattedStringExpression))
    if isinstance(path, cst.Call):
        if (t.qualified_name(path.func) or "") not in PURE_PATH_CALLS:
            return False
        return all(not a.star and path_known(t, est, a.value, depth + 1) for a in path.args)
    return False


def path_cleared(t: Planner, est: Est, save: cst.Call, path: cst.BaseExpression) -> cst.Call | None:
    """A call between the constructor and ``save(path)`` that deletes or (re)creates ``path`` (the program
    cleans the directory before saving): with model_dir=path it would delete the checkpoints train()
    wrote there. Compared by the path's code text."""
    text = code_of(path)
    first, last = t._line(est.call), t._line(save)
    for call in t.index.nodes(cst.Call):
        if (t.qualified_name(call.func) or "") not in CLEARING_CALLS or not call.args:
            continue
        if first <= t._line(call) <= last and code_of(call.args[0].value) == text:
            return call
    return None


def cleared_before_training(t: Planner, est: Est, cleared: cst.Call) -> bool:
    """``cleared`` (a call that deletes or recreates the save path) certainly runs before the estimator's
    first fit(): on an earlier line, and in no loop that also holds a fit() (a loop could run it again
    after training). tf.estimator writes nothing to model_dir before train(), so the path can be model_dir."""
    if not est.fits:
        return False
    fits = [t._line(f) for f in est.fits]
    if t._line(cleared) >= min(fits):
        return False
    node = t._parent(cleared)
    while node is not None and not isinstance(node, (cst.FunctionDef, cst.Module)):
        if isinstance(node, (cst.For, cst.While)):
            span = t.get_metadata(PositionProvider, node)
            if any(span.start.line <= line <= span.end.line for line in fits):
                return False
        node = t._parent(node)
    return True


LAZY_CONSUMERS = {"builtins.next", "itertools.islice", "itertools.takewhile", "itertools.dropwhile"}


def consumed_lazily(t: Planner, call: cst.Call) -> bool:
    """``next(clf.predict(x))``, ``itertools.islice(clf.predict(x), n)``: the result is consumed as an
    iterator, which only a generator (contrib.learn 1.x's predict default as_iterable=True) supports."""
    arg = t._parent(call)
    consumer = t._parent(arg) if isinstance(arg, cst.Arg) else None
    if not isinstance(consumer, cst.Call) or consumer.args[0] is not arg:
        return False
    if isinstance(consumer.func, cst.Name) and consumer.func.value == "next":
        return t.is_builtin(consumer.func)
    return (t.qualified_name(consumer.func) or "") in LAZY_CONSUMERS


def fit_data(est: Est) -> cst.BaseExpression | None:
    """The x of the estimator's first fit(x, y) / fit(x=...) (contrib.learn signature)."""
    for fit in est.fits:
        positional = [a for a in fit.args if a.keyword is None and not a.star]
        for arg in fit.args:
            if arg.keyword is not None and arg.keyword.value == "x":
                return arg.value
        if positional:
            return positional[0].value
    return None


def _plain_reference(node: cst.BaseExpression) -> bool:
    if isinstance(node, cst.Name):
        return True
    if isinstance(node, cst.Attribute):
        return _plain_reference(node.value)
    if isinstance(node, cst.BinaryOperation) and isinstance(node.operator, cst.Add):
        return _plain_reference(node.left) and _plain_reference(node.right)
    return False


def follow_param(t: Planner, name: cst.Name, depth: int) -> Est | None:
    """``def train(classifier, x, y): classifier.fit(...)``: the parameter holds the estimator when the
    function (a def bound once, only ever called by name) is called everywhere with the same estimator at
    that position, and the parameter is never reassigned."""
    scope = t.scopes.scope_of(name)
    assignments = list(scope[name.value]) if scope is not None else []
    if len(assignments) != 1 or not isinstance(getattr(assignments[0], "node", None), cst.Param):
        return None
    param = assignments[0].node
    fn = _enclosing(t, param, cst.FunctionDef)
    if fn is None or param not in fn.params.params or fn.params.posonly_params:
        return None
    if len(_functions(t).get(fn.name.value, [])) != 1 or t._assigned_by_statement(fn.name.value):
        return None
    position = list(fn.params.params).index(param)
    if isinstance(t._parent(fn), cst.IndentedBlock) and isinstance(_enclosing(t, fn, cst.ClassDef), cst.ClassDef) \
            and _enclosing(t, fn, cst.FunctionDef) is None:
        return None  # a method: self shifts the positions; not followed
    calls, reads = _calls_of(t, fn)
    if not calls or len(calls) != reads:
        return None  # the function is also read otherwise (passed on, stored): its callers are unknown
    found: dict[int, Est] = {}
    args = []
    for call in calls:
        arg = _argument(call, position, param.name.value)
        if arg is None:
            return None
        est = t._receiver(arg.value, depth + 1)
        if est is None:
            return None
        found[id(est)] = est
        args.append(arg)
    if len(found) != 1:
        return None
    followed = getattr(t, "_flow_followed_args", None)
    if followed is None:
        followed = t._flow_followed_args = set()
    followed.update(args)
    return next(iter(found.values()))


def _calls_of(t: Planner, fn: cst.FunctionDef) -> tuple[list[cst.Call], int]:
    """The calls ``fn(...)`` by name, and how many times the name is read at all."""
    cache = getattr(t, "_flow_calls_of", None)
    if cache is None:
        cache = t._flow_calls_of = {}
    if id(fn) in cache:
        return cache[id(fn)]
    name = fn.name.value
    calls, reads = [], 0
    for node in t.index.nodes(cst.Name):
        if node.value != name or node is fn.name:
            continue
        parent = t._parent(node)
        if isinstance(parent, cst.Attribute) and parent.attr is node:
            continue
        if isinstance(parent, (cst.Arg,)) and parent.keyword is node:
            continue
        reads += 1
        if isinstance(parent, cst.Call) and parent.func is node:
            calls.append(parent)
    cache[id(fn)] = (calls, reads)
    return calls, reads


def _argument(call: cst.Call, position: int, keyword: str) -> cst.Arg | None:
    positional = 0
    for arg in call.args:
        if arg.star:
            return None
        if arg.keyword is None:
            if positional == position:
                return arg
            positional += 1
        elif arg.keyword.value == keyword:
            return arg
    return None
