"""Following the value of a legacy ``predict()`` (issue 27): is it consumed lazily?

A TF 1.x ``tf.contrib.learn`` canned estimator's ``predict``/``predict_classes``/``predict_proba``/
``predict_scores`` took ``as_iterable=True`` by default (``tensorflow/contrib/learn/python/learn/
estimators/{dnn,linear,dnn_linear_combined}.py``, r1.0-r1.15) and returned a generator that yields until
the input ends. The TFM106 rewrite reads the tf.estimator generator into an array, which is what an
eager program wants (``list(...)``, indexing, ``len``); over an input that never ends (the program's own
``input_fn`` of constant tensors, ``numpy_input_fn(num_epochs=None)``) the array never ends either, and
a program that only took a few predictions (``y = est.predict(...)``; ``islice(y, 6)``) hangs.

``uses`` follows the result the way ``flow`` follows an estimator: through a name binding (module,
function, method scope), a ``self.<attr>`` assigned once, a function's ``return`` (callers found by
name, ``self.f()``), and a parameter of a def the call reaches. Each read is classified:

- ``NEXT``: ``next(preds)``, which only an iterator allows (an array raises TypeError);
- ``LAZY``: ``islice``/``takewhile``/``dropwhile``, ``zip`` with a partner, a ``for`` that can leave
  early (``break``/``return``/``raise``), a generator expression over it, ``yield from``, a result
  discarded or never read (the legacy generator never ran);
- ``EAGER``: ``list``/``tuple``/``np.array``/``len``/``print``..., indexing, attributes, a ``for`` or
  list comprehension that reads it all;
- ``ESCAPE``: anything else (passed to code that cannot be followed, stored in a container...).

``finite`` says whether the input is known to end (a ``numpy_input_fn``/``pandas_input_fn`` with an
integer ``num_epochs``, its default 1, or the one the family writes from ``x=``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import libcst as cst

from tfmigrate.transforms.estimators import flow

if TYPE_CHECKING:  # pragma: no cover
    from tfmigrate.transforms.estimators.state import Planner

NEXT, LAZY, EAGER, ESCAPE = "next", "lazy", "eager", "escape"
_DEPTH = 10

LAZY_CALLS = {"itertools.islice", "itertools.takewhile", "itertools.dropwhile"}
# calls whose result is an iterator over the argument: the result's own uses decide
PASS_THROUGH = {"builtins.enumerate", "builtins.map", "builtins.filter", "builtins.iter", "itertools.chain",
                "itertools.starmap", "itertools.compress"}
EAGER_CALLS = {f"builtins.{n}" for n in ("list", "tuple", "sorted", "len", "sum", "set", "frozenset", "print",
                                         "str", "repr", "max", "min", "any", "all", "dict", "isinstance", "type",
                                         "id", "bool")} | {
    f"numpy.{n}" for n in ("array", "asarray", "asanyarray", "concatenate", "stack", "vstack", "hstack", "argmax",
                           "mean", "squeeze", "fromiter", "ravel", "sum", "round", "save", "savetxt")}
EXITS = {"sys.exit", "builtins.exit", "builtins.quit", "os._exit"}
INPUT_FNS = ("numpy_input_fn", "pandas_input_fn")


def callee(t: Planner, call: cst.Call) -> str:
    """The dotted name a call reaches (``builtins.next`` for a builtin), or ''."""
    func = call.func
    if isinstance(func, cst.Name) and t.is_builtin(func):
        return f"builtins.{func.value}"
    return t.qualified_name(func) or ""


def uses(t: Planner, node: cst.BaseExpression, depth: int = 0, seen: set[int] | None = None) -> set[str]:
    """How the value of ``node`` (a predict call, or a read of a name holding its result) is consumed."""
    if depth > _DEPTH:
        return {ESCAPE}
    if seen is None:
        seen = set()
    if id(node) in seen:
        return set()  # reached again (a recursive helper): its uses are counted once
    seen.add(id(node))
    return _uses(t, node, depth, seen)


def _uses(t: Planner, node: cst.BaseExpression, depth: int, seen: set[int]) -> set[str]:
    parent = t._parent(node)
    if isinstance(parent, cst.Arg) and parent.value is node:
        return _argument_uses(t, parent, depth, seen)
    if isinstance(parent, cst.Assign) and parent.value is node:
        if len(parent.targets) != 1:
            return {ESCAPE}
        target = parent.targets[0].target
        if isinstance(target, cst.Name):
            return _name_uses(t, target, depth, seen)
        if isinstance(target, cst.Attribute) and isinstance(target.value, cst.Name) and target.value.value == "self":
            return _self_uses(t, target, depth, seen)
        return {ESCAPE}
    if isinstance(parent, cst.For) and parent.iter is node:
        return {LAZY} if _leaves_early(parent) else {EAGER}
    if isinstance(parent, cst.CompFor) and parent.iter is node:
        comp = t._parent(parent)
        while isinstance(comp, cst.CompFor):
            comp = t._parent(comp)
        return uses(t, comp, depth + 1, seen) if isinstance(comp, cst.GeneratorExp) else {EAGER}
    if isinstance(parent, cst.Return):
        return _return_uses(t, parent, depth, seen)
    if isinstance(parent, cst.Expr):
        return {LAZY}  # discarded: the legacy generator never ran
    if isinstance(parent, cst.From) and isinstance(t._parent(parent), cst.Yield):
        return {LAZY}  # yield from preds
    if isinstance(parent, (cst.Subscript, cst.Attribute)) and parent.value is node:
        return {EAGER}
    if isinstance(parent, (cst.Comparison, cst.ComparisonTarget, cst.BooleanOperation, cst.UnaryOperation, cst.If,
                           cst.While, cst.BinaryOperation)):
        return {EAGER}
    return {ESCAPE}


def _argument_uses(t: Planner, arg: cst.Arg, depth: int, seen: set[int]) -> set[str]:
    call = t._parent(arg)
    if not isinstance(call, cst.Call):
        return {ESCAPE}
    if arg.star:
        return {EAGER}  # f(*preds) reads it all
    name = callee(t, call)
    if name == "builtins.next":
        return {NEXT}
    if name in LAZY_CALLS:
        return {LAZY}
    if name == "builtins.zip":
        return {LAZY} if len(call.args) > 1 else uses(t, call, depth + 1, seen)
    if name in PASS_THROUGH:
        return uses(t, call, depth + 1, seen)
    if name in EAGER_CALLS:
        return {EAGER}
    fn = flow.called_function(t, call)
    if fn is None:
        return {ESCAPE}
    return _param_uses(t, fn, call, arg, depth, seen)


def _references(t: Planner, bound: cst.CSTNode, name: cst.Name) -> list | None:
    """The reads of the binding ``bound`` (a Name target or a Param) of ``name``."""
    scope = t.scopes.scope_of(name)
    if scope is None:
        return None
    mine = [a for a in scope[name.value] if getattr(a, "node", None) is bound]
    if len(mine) != 1:
        return None
    return [access.node for access in mine[0].references]


def _name_uses(t: Planner, target: cst.Name, depth: int, seen: set[int]) -> set[str]:
    refs = _references(t, target, target)
    if refs is None:
        return {ESCAPE}
    if not refs:
        return {LAZY}  # never read: the legacy generator never ran
    out: set[str] = set()
    for ref in refs:
        out |= uses(t, ref, depth + 1, seen)
    return out


def _self_uses(t: Planner, target: cst.Attribute, depth: int, seen: set[int]) -> set[str]:
    """``self.preds = est.predict(...)``: its reads in the class, when it is the attribute's only assignment
    and nothing outside reads an attribute of that name."""
    cls = flow._enclosing(t, target, cst.ClassDef)
    if cls is None:
        return {ESCAPE}
    attr = target.attr.value
    reads = []
    for node in t.index.nodes(cst.Attribute):
        if node.attr.value != attr or node is target:
            continue
        if not (isinstance(node.value, cst.Name) and node.value.value == "self") \
                or flow._enclosing(t, node, cst.ClassDef) is not cls:
            return {ESCAPE}  # read (or written) where it cannot be followed
        if isinstance(t._parent(node), (cst.AssignTarget, cst.AugAssign, cst.Del)):
            return {ESCAPE}  # assigned again
        reads.append(node)
    if not reads:
        return {LAZY}
    out: set[str] = set()
    for node in reads:
        out |= uses(t, node, depth + 1, seen)
    return out


def _callers(t: Planner, fn: cst.FunctionDef) -> list[cst.Call] | None:
    """Every call of ``fn`` when nothing else reads it: ``f()`` for a module-level def, ``self.f()`` for
    a method (no attribute of that name read otherwise anywhere)."""
    parent = t._parent(fn)
    if isinstance(parent, cst.Module):
        if len(flow._functions(t).get(fn.name.value, [])) != 1 or t._assigned_by_statement(fn.name.value):
            return None
        calls, reads = flow._calls_of(t, fn)
        return calls if calls and len(calls) == reads else None
    cls = flow._enclosing(t, fn, cst.ClassDef)
    if cls is None or flow._enclosing(t, fn, cst.FunctionDef) is not None:
        return None
    if len([f for f in flow._functions(t).get(fn.name.value, []) if flow._enclosing(t, f, cst.ClassDef) is cls]) != 1:
        return None
    calls = []
    for node in t.index.nodes(cst.Attribute):
        if node.attr.value != fn.name.value:
            continue
        call = t._parent(node)
        if not (isinstance(node.value, cst.Name) and node.value.value == "self" and isinstance(call, cst.Call)
                and call.func is node and flow._enclosing(t, node, cst.ClassDef) is cls):
            return None
        calls.append(call)
    return calls or None


def _return_uses(t: Planner, ret: cst.Return, depth: int, seen: set[int]) -> set[str]:
    fn = flow._enclosing(t, ret, cst.FunctionDef)
    if fn is None:
        return {ESCAPE}
    calls = _callers(t, fn)
    if calls is None:
        return {ESCAPE}
    out: set[str] = set()
    for call in calls:
        out |= uses(t, call, depth + 1, seen)
    return out


def _param_uses(t: Planner, fn: cst.FunctionDef, call: cst.Call, arg: cst.Arg, depth: int,
                seen: set[int]) -> set[str]:
    params = list(fn.params.params)
    if fn.params.posonly_params:
        return {ESCAPE}
    if arg.keyword is not None:
        found = [p for p in params if p.name.value == arg.keyword.value]
        if len(found) != 1:
            return {ESCAPE}
        param = found[0]
    else:
        positional = [a for a in call.args if a.keyword is None]
        if any(a.star for a in positional[:positional.index(arg) + 1]):
            return {ESCAPE}
        position = positional.index(arg) + (1 if isinstance(call.func, cst.Attribute) else 0)  # self.f(x)
        if position >= len(params):
            return {ESCAPE}
        param = params[position]
    refs = _references(t, param, param.name)
    if refs is None:
        return {ESCAPE}
    out: set[str] = set()
    for ref in refs:
        out |= uses(t, ref, depth + 1, seen)
    return out or {LAZY}


def _leaves_early(loop: cst.For) -> bool:
    """The loop's body can stop it before its iterable ends: ``break`` (of this loop), ``return``,
    ``raise``, or a ``sys.exit()``-like call written as such."""

    def visit(node: cst.CSTNode, nested: bool) -> bool:
        for child in node.children:
            if isinstance(child, (cst.FunctionDef, cst.ClassDef, cst.Lambda)):
                continue
            if isinstance(child, cst.Break) and not nested:
                return True
            if isinstance(child, (cst.Return, cst.Raise)):
                return True
            if isinstance(child, cst.Call) and _dotted(child.func) in ("sys.exit", "exit", "quit", "os._exit"):
                return True
            if visit(child, nested or isinstance(child, (cst.For, cst.While))):
                return True
        return False

    return visit(loop.body, False)


def _dotted(node: cst.BaseExpression) -> str:
    if isinstance(node, cst.Name):
        return node.value
    if isinstance(node, cst.Attribute):
        return f"{_dotted(node.value)}.{node.attr.value}"
    return ""


def finite(t: Planner, input_fn: cst.BaseExpression, depth: int = 0) -> bool:
    """The input function is known to end: ``numpy_input_fn``/``pandas_input_fn`` with an integer
    ``num_epochs`` (their default is 1), directly or through a name bound once."""
    if depth > 4:
        return False
    if isinstance(input_fn, cst.Name):
        found = t._single_assignment(input_fn)
        value = found[1].value if found is not None else None
        return value is not None and finite(t, value, depth + 1)
    if not isinstance(input_fn, cst.Call):
        return False
    name = callee(t, input_fn) or _dotted(input_fn.func)
    if not name.endswith(INPUT_FNS):
        return False
    epochs = None
    for position, arg in enumerate(input_fn.args):
        if arg.star:
            return False
        if arg.keyword is not None and arg.keyword.value == "num_epochs":
            epochs = arg.value
        elif arg.keyword is None and position == 3:  # numpy_input_fn(x, y, batch_size, num_epochs, ...)
            epochs = arg.value
    return epochs is None or isinstance(epochs, cst.Integer)
