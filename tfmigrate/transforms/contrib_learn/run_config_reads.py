"""Reads of the legacy-only attributes of a ``tf.contrib.learn.RunConfig`` (TFM150).

The legacy RunConfig (TF 1.0-1.15 ``contrib/learn/python/learn/estimators/run_config.py``) exposed
``tf_config``, the session ``ConfigProto`` it built from ``num_cores``, ``log_device_placement`` and
``gpu_memory_fraction`` (no ``allow_soft_placement``), and programs mutated it after construction
(google/seq2seq ``bin/train.py``: ``config.tf_config.gpu_options.allow_growth = ...``).
``tf.estimator.RunConfig`` has no ``tf_config``: its ``session_config`` is the proto the estimator
runs its sessions with (copied when the estimator is built, so a change made before then is used).
When the value read is a RunConfig this family rewrites, followed through a name bound once in the
same scope, a ``self`` attribute assigned once, a module function whose every return is one, or the
call itself, the read becomes ``.session_config`` and the rewrite writes a ``session_config=``
(``planned``). Any other read (a RunConfig it cannot follow, an explicit ``session_config=`` the
legacy Estimator ran with instead, an assignment to the attribute, ``environment``, which TF 2.15's
RunConfig lacks) gets a finding on its line.
"""

from __future__ import annotations

import libcst as cst
from libcst.metadata import ParentNodeProvider

LEGACY_ONLY = ("tf_config", "environment")


def _parent(t, node: cst.CSTNode) -> cst.CSTNode | None:
    return t.get_metadata(ParentNodeProvider, node, None)


def _scope(t, node: cst.CSTNode) -> cst.CSTNode | None:
    parent = _parent(t, node)
    while parent is not None and not isinstance(parent, (cst.FunctionDef, cst.Lambda, cst.ClassDef)):
        parent = _parent(t, parent)
    return parent


def _run_config(t, expr: cst.BaseExpression) -> bool:
    return isinstance(expr, cst.Call) and t.legacy(expr.func) == "learn.RunConfig"


def plan(t) -> dict[cst.Attribute, cst.Call | None]:
    """Every read ``X.tf_config`` / ``X.environment`` -> the RunConfig call X holds, or None when X is not
    followed to one. Empty when the module never names the legacy RunConfig."""
    calls = [c for c in t.index.nodes(cst.Call) if _run_config(t, c)]
    reads = [a for a in t.index.nodes(cst.Attribute) if a.attr.value in LEGACY_ONLY]
    if not calls or not reads:
        return {}
    names: dict[str, list[tuple[cst.CSTNode | None, cst.BaseExpression]]] = {}  # name -> (scope, value)
    selfs: dict[str, list[cst.BaseExpression]] = {}
    for assign in t.index.nodes(cst.Assign):
        for target in assign.targets:
            node = target.target
            if isinstance(node, cst.Name):
                names.setdefault(node.value, []).append((_scope(t, assign), assign.value))
            elif isinstance(node, cst.Attribute) and isinstance(node.value, cst.Name) and node.value.value == "self":
                selfs.setdefault(node.attr.value, []).append(assign.value)
    for kind in (cst.AugAssign, cst.AnnAssign):
        for assign in t.index.nodes(kind):
            node = assign.target
            if isinstance(node, cst.Name):
                names.setdefault(node.value, []).append((_scope(t, assign), None))
            elif isinstance(node, cst.Attribute) and isinstance(node.value, cst.Name) and node.value.value == "self":
                selfs.setdefault(node.attr.value, []).append(None)
    for fn in t.index.nodes(cst.FunctionDef):  # parameters rebind a name too
        for param in (*fn.params.params, *fn.params.posonly_params, *fn.params.kwonly_params):
            names.setdefault(param.name.value, []).append((fn, None))
    for loop in t.index.nodes(cst.For):
        if isinstance(loop.target, cst.Name):
            names.setdefault(loop.target.value, []).append((_scope(t, loop), None))
    for item in t.index.nodes(cst.WithItem):  # `with ... as config`
        if item.asname is not None and isinstance(item.asname.name, cst.Name):
            names.setdefault(item.asname.name.value, []).append((_scope(t, item), None))
    for walrus in t.index.nodes(cst.NamedExpr):
        if isinstance(walrus.target, cst.Name):
            names.setdefault(walrus.target.value, []).append((_scope(t, walrus), None))
    for kind in (cst.Global, cst.Nonlocal):  # rebound from another scope: not followed
        for decl in t.index.nodes(kind):
            for item in decl.names:
                names.setdefault(item.name.value, []).extend([(None, None), (None, None)])

    def follow(expr: cst.BaseExpression, where: cst.CSTNode, depth: int = 0) -> cst.Call | None:
        if depth > 3:
            return None
        if _run_config(t, expr):
            return expr
        if isinstance(expr, cst.Name):
            bound = names.get(expr.value, [])
            scope = _scope(t, where)
            bound = [value for where_bound, value in bound if where_bound is scope]
            if len(bound) == 1 and bound[0] is not None:
                return follow(bound[0], where, depth + 1)
            return None
        if isinstance(expr, cst.Attribute) and isinstance(expr.value, cst.Name) and expr.value.value == "self":
            bound = selfs.get(expr.attr.value, [])
            if len(bound) == 1 and bound[0] is not None:
                return follow(bound[0], bound[0], depth + 1)
            return None
        if isinstance(expr, cst.Call):  # make(...): a def bound once whose every return is the same RunConfig
            fn = t.function(expr.func)
            returns = t.returns(fn) if fn is not None else []
            found = [follow(r.value, r, depth + 1) if r.value is not None else None for r in returns]
            if found and None not in found and len({id(c) for c in found}) == 1:
                return found[0]
        return None

    planned: dict[cst.Attribute, cst.Call | None] = {}
    for read in reads:
        parent = _parent(t, read)
        target = isinstance(parent, (cst.AssignTarget, cst.AugAssign, cst.AnnAssign, cst.Del)) and \
            getattr(parent, "target", None) is read
        call = follow(read.value, read)
        if read.attr.value == "tf_config" and call is not None and not target and not _explicit_session(call):
            planned[read] = call
        elif call is not None or read.attr.value == "tf_config":
            planned[read] = None
    return planned


def _explicit_session(call: cst.Call) -> bool:
    return any(a.keyword is not None and a.keyword.value == "session_config" for a in call.args) or \
        any(a.star for a in call.args)
