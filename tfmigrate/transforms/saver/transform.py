"""TFM2: the tf.train.Saver traps (findings with line numbers; the code is left as it is).

Plain Saver code keeps running on TF 2.15 (TFM5xx renames it to ``tf.compat.v1.train.Saver`` and
the sessions to ``tf.compat.v1.Session``); what a rename cannot fix are the traps of seed 002,
which behave the same on 2.15 and which this family points out:

- TFM201: ``Saver()`` snapshots the variables that exist when it is built (TF 1.x ``saver.py``:
  ``var_list=None`` means ``variables._all_saveable_objects()`` at construction), so a variable
  made later in the same graph is silently never saved;
- TFM202: ``saver.save(sess, ...)``/``restore`` run the ops named in the saver's ``SaverDef``
  (``save/Const``, ``save/control_dependency``, ``save/restore_all``) in *the session's* graph, so
  a saver handed a session of another graph saves or restores that graph's variables;
- TFM203: ``restore`` looks up every variable the restoring saver covers; a name the checkpoint
  does not hold fails with ``NotFoundError: Key ... not found in checkpoint``.

The analysis is static and conservative: one pass over each function (or the module) in source
order, tracking graphs (``with tf.Graph().as_default() as g``), sessions (``with tf.Session() as
s``, ``tf.Session(graph=g)``), savers and variables with literal names. Anything it cannot see
(a name scope, a variable made by a library call, a saver with ``var_list``) ends the finding
rather than guessing, so correct code gets none.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import libcst as cst
from libcst.metadata import PositionProvider

from tfmigrate.codemod.walk import walk
from tfmigrate.codemod.transform import FamilyTransform
from tfmigrate.rule_ids import TFM201, TFM202, TFM203
from tfmigrate.transforms.saver.screen import SCREEN
from tfmigrate.transforms.saver.tables import (
    GET_VARIABLES, GLOBAL_STEP, GRAPHS, OPAQUE_PARTS, SAVERS, SCOPES, SESSIONS, SLOT_METHODS, SLOT_OPTIMIZERS, VARIABLES,
)


class Line:
    """A node's line, found when first shown: the walk notes the line of every call and statement
    it meets, and a finding shows a few of them (each one found costs a code generation of its
    statement, once the tree is a family's output)."""

    __slots__ = ("_find", "_node", "_value")

    def __init__(self, find, node: cst.CSTNode) -> None:
        self._find, self._node, self._value = find, node, None

    @property
    def value(self) -> int:
        if self._value is None:
            self._value, self._find, self._node = self._find(self._node), None, None
        return self._value

    def __eq__(self, other: object) -> bool:
        return self.value == (other.value if isinstance(other, Line) else other)

    def __hash__(self) -> int:
        return hash(self.value)

    def __str__(self) -> str:
        return str(self.value)

    def __format__(self, spec: str) -> str:
        return format(self.value, spec)


@dataclass(eq=False)
class Graph:
    label: str  # how the user calls it: `g1`, or "the default graph"
    line: int | Line  # 0: the default graph
    variables: list[tuple[str | None, Line, int]] = field(default_factory=list)  # (name, line, event order)
    labels: dict[int, str] = field(default_factory=dict)  # event order -> how to show a variable without a name
    names: dict[str, int] = field(default_factory=dict)
    opaque: list[int] = field(default_factory=list)  # event orders of calls that may make variables
    scoped: bool = False

    def add_variable(self, name: str | None, line: Line, order: int) -> None:
        if name is not None and not self.scoped:
            if name in self.names:  # TF uniquifies: variable_1, variable_1_1, ...
                self.names[name] += 1
                unique = f"{name}_{self.names[name]}"
                while unique in self.names:
                    self.names[name] += 1
                    unique = f"{name}_{self.names[name]}"
                name = unique
            self.names.setdefault(name, 0)
        else:
            name = None
        self.variables.append((name, line, order))

    def add_unnamed(self, label: str, line: Line, order: int) -> None:
        self.variables.append((None, line, order))
        self.labels[order] = label

    def before(self, order: int) -> tuple[set[str], bool]:
        """Variable names made before event ``order``; False when some may be unknown."""
        made = [(n, o) for n, _, o in self.variables if o < order]
        known = all(n is not None for n, _ in made) and not any(o < order for o in self.opaque)
        return {n for n, _ in made if n is not None}, known


@dataclass(eq=False)
class Saver:
    name: str
    graph: Graph
    node: cst.Call
    line: Line
    order: int
    complete: bool  # no var_list, no defer_build: covers every variable existing at construction


@dataclass(eq=False)
class Optimizer:
    qn: str


@dataclass(eq=False)
class Session:
    name: str
    graph: Graph
    line: Line


@dataclass(eq=False)
class Use:
    method: str  # save | restore
    saver: Saver
    session: Session
    node: cst.Call
    path: str | None
    line: Line
    order: int


class _CallsInOrder(cst.CSTVisitor):
    """The calls an expression makes, arguments before the call (evaluation order); not those in
    a nested function or lambda, which run later if at all."""

    def __init__(self) -> None:
        super().__init__()
        self.found: list[cst.Call] = []

    def visit_Lambda(self, node: cst.Lambda) -> bool:
        return False

    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        return False

    def leave_Call(self, node: cst.Call) -> None:
        self.found.append(node)


class SaverTraps(FamilyTransform):
    FAMILY = "TFM2"
    SCREEN = SCREEN  # the words a module must hold before a trap can be reported (screen.py)

    def visit_Module(self, node: cst.Module) -> bool:
        self._order = 0
        self._uses: list[Use] = []
        self._savers: list[Saver] = []
        savers = [call for call in self.index.nodes(cst.Call) if self._qn(call.func) in SAVERS]
        if not savers:
            return False  # every trap is about a Saver this module builds: none here (the text only names one)
        self._with_savers = self._functions_holding(savers)
        self._constants = self._string_constants(node)
        self._scope(node.body, None, "module")
        self._report_all()
        return False  # findings only: nothing to rewrite

    def _functions_holding(self, calls: list[cst.Call]) -> set[int]:
        """The ids of the functions that hold one of ``calls``, nested functions included. Each function is
        a scope of its own (``_scope``: its env and default graph are new, a graph or saver of another
        scope is never seen in it; the event orders are compared within one graph only), and every finding
        is about a Saver its scope builds: the analysis skips every other function (``_statement``)."""
        parents = self.index.parents
        found: set[int] = set()
        for call in calls:
            node = parents.get(call)
            while node is not None:
                if type(node) is cst.FunctionDef:
                    if id(node) in found:
                        break  # its outer functions are in already
                    found.add(id(node))
                node = parents.get(node)
        return found

    def _string_constants(self, module: cst.Module) -> dict[str, str]:
        """Module-level ``NAME = "literal"`` bound once and never rebound anywhere in the module."""
        counts: dict[str, int] = {}
        values: dict[str, str] = {}
        for node in self.index.nodes(cst.AssignTarget):  # apply() indexes the module it visits
            if isinstance(node.target, cst.Name):
                counts[node.target.value] = counts.get(node.target.value, 0) + 1
        for stmt in module.body:
            if isinstance(stmt, cst.SimpleStatementLine) and len(stmt.body) == 1 and isinstance(stmt.body[0], cst.Assign):
                assign = stmt.body[0]
                if len(assign.targets) == 1 and isinstance(assign.targets[0].target, cst.Name) and isinstance(assign.value, cst.SimpleString):
                    value = assign.value.evaluated_value
                    if isinstance(value, str):
                        values[assign.targets[0].target.value] = value
        return {k: v for k, v in values.items() if counts.get(k) == 1}

    # --- names ---------------------------------------------------------------------------------
    def _qn(self, node: cst.CSTNode) -> str | None:
        return self.qualified_name(node)

    def _line(self, node: cst.CSTNode) -> Line:
        return Line(self._line_now, node)

    def _line_now(self, node: cst.CSTNode) -> int:
        return self.get_metadata(PositionProvider, node).start.line

    def _tick(self) -> int:
        self._order += 1
        return self._order

    # --- the walk -------------------------------------------------------------------------------
    def _scope(self, body, graph: Graph | None, scope_id: str) -> None:
        env: dict[str, object] = {}
        default = Graph("the default graph", 0)
        self._block(body, graph or default, env, scope_id)

    def _block(self, body, graph: Graph, env: dict, scope_id: str) -> None:
        for stmt in body:
            self._statement(stmt, graph, env, scope_id)

    def _statement(self, stmt: cst.CSTNode, graph: Graph, env: dict, scope_id: str) -> None:
        if isinstance(stmt, cst.FunctionDef):  # a scope's id is compared, never shown: the node's identity, not its line
            if id(stmt) not in self._with_savers:
                return  # no Saver is built in it: nothing to report there (_functions_holding)
            self._scope(stmt.body.body if isinstance(stmt.body, cst.IndentedBlock) else [stmt.body], None, f"{scope_id}.{stmt.name.value}@{id(stmt)}")
            return
        if isinstance(stmt, cst.ClassDef):
            self._block(stmt.body.body if isinstance(stmt.body, cst.IndentedBlock) else [stmt.body], graph, dict(env), scope_id)
            return
        if isinstance(stmt, cst.With):
            self._with(stmt, graph, env, scope_id)
            return
        if isinstance(stmt, cst.SimpleStatementLine):
            for small in stmt.body:
                self._small(small, graph, env, scope_id)
            return
        if isinstance(stmt, (cst.If, cst.For, cst.While, cst.Try)):
            for attr in ("test", "iter"):
                expr = getattr(stmt, attr, None)
                if expr is not None:
                    self._expression(expr, graph, env, scope_id)
            for child in self._blocks_of(stmt):
                self._block(child, graph, env, scope_id)
            return
        # anything else: look at its expressions
        self._expression(stmt, graph, env, scope_id)

    @staticmethod
    def _blocks_of(stmt: cst.CSTNode):
        blocks = []
        body = getattr(stmt, "body", None)
        if isinstance(body, cst.IndentedBlock):
            blocks.append(body.body)
        for handler in getattr(stmt, "handlers", ()):
            if isinstance(handler.body, cst.IndentedBlock):
                blocks.append(handler.body.body)
        orelse = getattr(stmt, "orelse", None)
        while orelse is not None:
            if isinstance(orelse, cst.If):
                blocks.append(orelse.body.body if isinstance(orelse.body, cst.IndentedBlock) else [])
                orelse = orelse.orelse
            else:
                if isinstance(orelse.body, cst.IndentedBlock):
                    blocks.append(orelse.body.body)
                orelse = None
        final = getattr(stmt, "finalbody", None)
        if final is not None and isinstance(final.body, cst.IndentedBlock):
            blocks.append(final.body.body)
        return blocks

    def _with(self, stmt: cst.With, graph: Graph, env: dict, scope_id: str) -> None:
        inner = graph
        scoped = False
        for item in stmt.items:
            expr = item.item
            asname = item.asname.name.value if item.asname and isinstance(item.asname.name, cst.Name) else None
            new_graph = self._graph_of_with(expr, env)
            if new_graph is not None:
                inner = new_graph
                if asname:
                    env[asname] = inner
                    inner.label = asname
                continue
            if isinstance(expr, cst.Call) and self._qn(expr.func) in SESSIONS:
                session = Session(asname or "a session", self._session_graph(expr, inner, env), self._line(expr))
                if asname:
                    env[asname] = session
                continue
            if isinstance(expr, cst.Call) and self._qn(expr.func) in SCOPES:
                scoped = True
                continue
            self._expression(expr, inner, env, scope_id)
        body = stmt.body.body if isinstance(stmt.body, cst.IndentedBlock) else [stmt.body]
        if scoped:
            was = inner.scoped
            inner.scoped = True
            self._block(body, inner, env, scope_id)
            inner.scoped = was
        else:
            self._block(body, inner, env, scope_id)

    def _graph_of_with(self, expr: cst.BaseExpression, env: dict) -> Graph | None:
        if not (isinstance(expr, cst.Call) and isinstance(expr.func, cst.Attribute) and expr.func.attr.value == "as_default"):
            return None
        target = expr.func.value
        if isinstance(target, cst.Call) and self._qn(target.func) in GRAPHS:
            return Graph("a tf.Graph()", self._line(expr))
        if isinstance(target, cst.Name) and isinstance(env.get(target.value), Graph):
            return env[target.value]
        return None

    def _session_graph(self, call: cst.Call, current: Graph, env: dict) -> Graph | None:
        for position, arg in enumerate(call.args):
            if (arg.keyword and arg.keyword.value == "graph") or (arg.keyword is None and position == 1):
                if isinstance(arg.value, cst.Name) and isinstance(env.get(arg.value.value), Graph):
                    return env[arg.value.value]
                return None  # a graph we cannot tell
        return current

    def _small(self, small: cst.CSTNode, graph: Graph, env: dict, scope_id: str) -> None:
        if isinstance(small, cst.Assign) and len(small.targets) == 1 and isinstance(small.targets[0].target, cst.Name):
            name = small.targets[0].target.value
            value = small.value
            if isinstance(value, cst.Call):
                qn = self._qn(value.func)
                if qn in GRAPHS:
                    env[name] = Graph(name, self._line(value))
                    return
                if qn in SESSIONS:
                    self._expression(value, graph, env, scope_id)
                    env[name] = Session(name, self._session_graph(value, graph, env), self._line(value))
                    return
                if qn in SAVERS:
                    self._expression(value, graph, env, scope_id, saver_name=name)
                    return
                if qn in SLOT_OPTIMIZERS:
                    self._expression(value, graph, env, scope_id)
                    env[name] = Optimizer(qn)
                    return
            self._expression(value, graph, env, scope_id)
            env.pop(name, None)  # rebound to something we do not track
            return
        self._expression(small, graph, env, scope_id)

    def _expression(self, node: cst.CSTNode, graph: Graph, env: dict, scope_id: str, saver_name: str | None = None) -> None:
        calls = _CallsInOrder()
        walk(node, calls, self.index)
        for call in calls.found:
            self._call(call, graph, env, scope_id, saver_name if call is node else None)

    def _call(self, call: cst.Call, graph: Graph, env: dict, scope_id: str, saver_name: str | None) -> None:
        qn = self._qn(call.func)
        order = self._tick()
        line = self._line(call)
        if qn in VARIABLES:
            if any(a.keyword and a.keyword.value == "collections" for a in call.args):
                return  # a local/custom-collection variable: not a saveable of the default Saver
            graph.add_variable(self._literal(call, "name", 5, default="Variable"), line, order)
            return
        if qn in GET_VARIABLES:
            graph.add_variable(self._literal(call, "name", 0, default=None), line, order)
            return
        if qn in GLOBAL_STEP:
            if "global_step" not in graph.names:
                graph.add_variable("global_step", line, order)
            return
        if qn in SLOT_OPTIMIZERS:
            return  # the optimizer object makes no variable until minimize/apply_gradients
        if isinstance(call.func, cst.Attribute) and call.func.attr.value in SLOT_METHODS:
            receiver = call.func.value
            optimizer = None
            if isinstance(receiver, cst.Call) and self._qn(receiver.func) in SLOT_OPTIMIZERS:
                optimizer = self._qn(receiver.func)
            elif isinstance(receiver, cst.Name) and isinstance(env.get(receiver.value), Optimizer):
                optimizer = env[receiver.value].qn
            if optimizer is not None:
                graph.add_unnamed(f"the slot variables of {optimizer.rsplit('.', 1)[1]}.{call.func.attr.value}()", line, order)
                return
        if qn in SAVERS:
            complete = not call.args or all(
                a.keyword is not None
                and a.keyword.value not in ("var_list", "defer_build", "saver_def")
                for a in call.args
            )
            saver = Saver(saver_name or "this Saver", graph, call, line, order, complete)
            self._savers.append(saver)
            if saver_name:
                env[saver_name] = saver
            return
        func = call.func
        if isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name):
            receiver = env.get(func.value.value)
            if isinstance(receiver, Saver) and func.attr.value in ("save", "restore") and call.args:
                session_arg = call.args[0].value
                session = env.get(session_arg.value) if isinstance(session_arg, cst.Name) else None
                if isinstance(session, Session) and session.graph is not None:
                    path = self._path_key(call, scope_id)
                    self._uses.append(Use(func.attr.value, receiver, session, call, path, line, order))
                return
            if isinstance(receiver, (Saver, Session, Graph, Optimizer)):
                return  # sess.run, saver.last_checkpoints, ...: makes no variable
        if qn is None:
            if not self.is_builtin(call.func):
                graph.opaque.append(order)  # a user function or method: may make variables
        elif qn.startswith("tensorflow") and any(part in qn.split(".") for part in OPAQUE_PARTS):
            graph.opaque.append(order)

    def _literal(self, call: cst.Call, key: str, position: int, default: str | None) -> str | None:
        for i, arg in enumerate(call.args):
            if (arg.keyword and arg.keyword.value == key) or (arg.keyword is None and i == position):
                value = arg.value
                if isinstance(value, cst.SimpleString):
                    return value.evaluated_value if isinstance(value.evaluated_value, str) else None
                return None
        return default

    def _path_key(self, call: cst.Call, scope_id: str) -> str | None:
        arg = call.args[1] if len(call.args) > 1 else None
        for a in call.args:
            if a.keyword and a.keyword.value == "save_path":
                arg = a
        if arg is None:
            return None
        if isinstance(arg.value, cst.SimpleString):
            return "literal:" + str(arg.value.evaluated_value)
        if isinstance(arg.value, cst.Name) and arg.value.value in self._constants:
            return "literal:" + self._constants[arg.value.value]
        return f"{scope_id}:" + " ".join(cst.Module([]).code_for_node(arg.value).split())

    # --- findings -------------------------------------------------------------------------------
    def _report_all(self) -> None:
        for saver in self._savers:
            if not saver.complete:
                continue
            later = [(n, line, o) for n, line, o in saver.graph.variables if o > saver.order]
            if later:
                labels = saver.graph.labels
                shown = ", ".join(
                    f"'{n}' (line {line})" if n else f"{labels.get(o, 'a variable')} (line {line})" for n, line, o in later
                )
                self.flag(
                    saver.node,
                    TFM201,
                    f"`{saver.name} = tf.train.Saver()` saves and restores only the variables that exist when it is "
                    f"built; {shown} {'is' if len(later) == 1 else 'are'} made later in the same graph and silently "
                    "left out of every checkpoint it writes: build the Saver after the last variable (or pass "
                    "var_list=[...])",
                )
        for use in self._uses:
            if use.saver.graph is not use.session.graph:
                self.flag(
                    use.node,
                    TFM202,
                    f"`{use.saver.name}` was built in {self._where(use.saver.graph)} (line {use.saver.line}) but "
                    f"`{use.session.name}` runs {self._where(use.session.graph)}: this {use.method}s the variables of "
                    f"{self._where(use.session.graph)}, not those `{use.saver.name}` was built for; use a saver built in "
                    "the session's graph",
                )
        for use in self._uses:
            if use.method != "restore" or use.path is None or not self._same_graph(use):
                continue
            writes = [w for w in self._uses if w.method == "save" and w.path == use.path and self._same_graph(w)]
            if not writes:
                continue
            needed, known = use.saver.graph.before(use.saver.order)
            if not known:
                continue
            saved: set[str] = set()
            for write in writes:
                names, known = write.saver.graph.before(write.saver.order)
                if not known or not write.saver.complete:
                    saved = None
                    break
                saved |= names
            if saved is None:
                continue
            missing = sorted(needed - saved)
            if missing:
                lines = ", ".join(str(w.line) for w in writes)
                shown = ", ".join(f"'{m}'" for m in missing)
                self.flag(
                    use.node,
                    TFM203,
                    f"`{use.saver.name}.restore` asks for {shown}, which the checkpoint written at line {lines} does not "
                    f"hold (the saving Saver covered only {sorted(saved)}): restore fails with NotFoundError \"Key "
                    f"{missing[0]} not found in checkpoint\": save after every variable is made, or restore a subset "
                    "with tf.train.Saver(var_list=[...])",
                )

    @staticmethod
    def _same_graph(use: Use) -> bool:
        return use.saver.graph is use.session.graph and use.saver.complete

    @staticmethod
    def _where(graph: Graph) -> str:
        if graph.label.startswith(("a ", "the ")):
            return graph.label if graph.line == 0 else f"{graph.label} (line {graph.line})"
        return f"graph `{graph.label}`"
