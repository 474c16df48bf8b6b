"""TFM3: MonitoredTrainingSession, Scaffold and hooks -> tf.estimator (TensorFlow 2.15).

Legacy signatures read from TensorFlow 1.x (``tensorflow/python/training/monitored_session.py``,
``basic_session_run_hooks.py``, ``saver.py``) and checked against 2.15.1
(``tf.compat.v1.train.MonitoredTrainingSession``, ``tf.estimator.RunConfig``):

- ``MonitoredTrainingSession(master='', is_chief=True, checkpoint_dir=None, scaffold=None,
  hooks=None, chief_only_hooks=None, save_checkpoint_secs=USE_DEFAULT (600 when neither secs nor
  steps is given), save_summaries_steps=USE_DEFAULT (100), save_summaries_secs=USE_DEFAULT,
  config=None, stop_grace_period_secs=120, log_step_count_steps=100, max_wait_secs=7200,
  save_checkpoint_steps=USE_DEFAULT, summary_dir=None)``;
- ``Saver(max_to_keep=5, keep_checkpoint_every_n_hours=10000.0, ...)`` (the Scaffold's saver);
- ``RunConfig(model_dir=None, save_summary_steps=100, save_checkpoints_steps=None (when
  save_checkpoints_secs is not given: 600 s), keep_checkpoint_max=5,
  keep_checkpoint_every_n_hours=10000, log_step_count_steps=100, session_config=None,
  checkpoint_save_graph_def=True)``.

The defaults agree, so a mapped argument is written exactly when the legacy code wrote it. What
has no RunConfig equivalent (``save_summaries_secs``, ``summary_dir``, ``chief_only_hooks``,
``master``/``is_chief``, a Scaffold with ops of its own, a Saver with other options) keeps the
session (the safe minimum) and a finding says how to finish by hand.

Rules: TFM301 (canonical loop -> Estimator), TFM302 (the loop that does not fit: manual steps),
TFM303 (hooks -> ``tf.estimator.*``), TFM304 (ClusterSpec/Server/master/is_chief -> TF_CONFIG),
TFM305 (TF1-only ``tf.data.Dataset`` attributes -> ``tf.compat.v1.data`` functions), TFM306 (v1
``tf.summary`` ops in graph code -> ``tf.compat.v1.summary``; ``tf.contrib.summary`` is TFM413's),
TFM307 (``tf.device(<device function>)`` -> ``tf.compat.v1.device``: transforms/device_functions.py).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

import libcst as cst
from libcst.metadata import ParentNodeProvider, PositionProvider

from tfmigrate.codemod.imports import READ_ELSEWHERE
from tfmigrate.codemod.walk import iter_nodes, walk
from tfmigrate.codemod.transform import FamilyTransform
from tfmigrate.codemod.tree import TreeIndex, expression, is_docstring
from tfmigrate.rule_ids import TFM301, TFM302, TFM303, TFM304, TFM305, TFM306
from tfmigrate.transforms.device_functions import DEVICE, device_call


def _tf1(*names: str) -> frozenset[str]:
    """A TF1 name as legacy code writes it, and its tf.compat.v1 spelling (TF 1.14+ code)."""
    return frozenset(p + n for n in names for p in ("tensorflow.", "tensorflow.compat.v1."))


MTS = _tf1("train.MonitoredTrainingSession")
SCAFFOLD = _tf1("train.Scaffold")
SAVER = _tf1("train.Saver")
GRAPH = _tf1("Graph")
STOP_AT_STEP = _tf1("train.StopAtStepHook") | {"tensorflow.estimator.StopAtStepHook"}
NAN_HOOK = _tf1("train.NanTensorHook") | {"tensorflow.estimator.NanTensorHook"}
DISTRIBUTED = _tf1("train.ClusterSpec", "train.Server", "train.replica_device_setter")

# tf.train.X -> tf.estimator.X (all present in tf.estimator of TF 2.15.1, checked by running it).
HOOKS = (
    "SessionRunHook",
    "SessionRunArgs",
    "SessionRunContext",
    "SessionRunValues",
    "LoggingTensorHook",
    "StopAtStepHook",
    "CheckpointSaverHook",
    "CheckpointSaverListener",
    "StepCounterHook",
    "NanTensorHook",
    "NanLossDuringTrainingError",
    "SummarySaverHook",
    "GlobalStepWaiterHook",
    "FinalOpsHook",
    "FeedFnHook",
    "ProfilerHook",
    "SecondOrStepTimer",
)
HOOK_NAMES = {f"tensorflow.train.{h}": h for h in HOOKS}

# MonitoredTrainingSession keyword -> RunConfig keyword (same defaults, see the module docstring).
RUNCONFIG_KEYS = {
    "checkpoint_dir": "model_dir",
    "save_checkpoint_secs": "save_checkpoints_secs",
    "save_checkpoint_steps": "save_checkpoints_steps",
    "save_summaries_steps": "save_summary_steps",
    "log_step_count_steps": "log_step_count_steps",
    "config": "session_config",
    "save_graph_def": "checkpoint_save_graph_def",
}
SAVER_KEYS = {"max_to_keep": "keep_checkpoint_max", "keep_checkpoint_every_n_hours": "keep_checkpoint_every_n_hours"}
UNSUPPORTED_KEYS = {
    "save_summaries_secs": "save_summaries_secs has no RunConfig equivalent (RunConfig counts summaries in steps)",
    "summary_dir": "summary_dir has no RunConfig equivalent (Estimator writes summaries under model_dir)",
    "stop_grace_period_secs": "stop_grace_period_secs has no RunConfig equivalent",
    "max_wait_secs": "max_wait_secs has no RunConfig equivalent",
    "master": "master= is a distributed session (TFM304: TF_CONFIG and tf.estimator.train_and_evaluate)",
    "is_chief": "is_chief= is a distributed session (TFM304: TF_CONFIG and tf.estimator.train_and_evaluate)",
}
# tf.summary ops that TF1 graph code calls with v1 semantics (name, tensor, collections, family);
# TF 2.15's tf.summary.* of the same name is the v2 op, which writes nothing in an Estimator's graph.
V1_SUMMARY_OPS = ("scalar", "histogram", "image", "audio", "text")
GRAPH_MODE_MARKERS = frozenset(
    {"Session", "InteractiveSession", "MonitoredTrainingSession", "MonitoredSession", "Scaffold", "Saver",
     "placeholder", "Graph", "global_variables_initializer", "get_variable", "variable_scope", "EstimatorSpec",
     "Estimator", "make_one_shot_iterator"}
)
EAGER_OR_KERAS = ("tensorflow.contrib.eager", "tensorflow.keras", "tensorflow.python.keras")
DATASET_ATTRS = {"output_shapes": "get_output_shapes", "output_types": "get_output_types", "output_classes": "get_output_classes"}
ITERATOR_METHODS = ("make_one_shot_iterator", "make_initializable_iterator")

MANUAL_STEPS = (
    "to finish by hand: (1) move the dataset code into `def input_fn():` returning the tf.data.Dataset "
    "(features, labels); (2) move the model, loss and train-op code into `def model_fn(features, labels, mode):` "
    "returning `tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op, training_hooks=[...])` (hooks that "
    "name tensors are built there; what the loop did between steps becomes a tf.estimator.SessionRunHook); "
    "(3) `config = {config}`; (4) `tf.estimator.Estimator(model_fn, config=config).train(input_fn{train})`"
)
MANUAL_NOTES = {
    "save_summaries_secs": "save_summaries_secs: RunConfig counts in steps; add "
    "`tf.estimator.SummarySaverHook(save_secs=..., output_dir=model_dir, summary_op=tf.compat.v1.summary.merge_all())` "
    "to training_hooks and set save_summary_steps=None",
    "summary_dir": "summary_dir: Estimator writes summaries under model_dir; use a SummarySaverHook(output_dir=...) to keep them apart",
    "chief_only_hooks": "chief_only_hooks: build them in model_fn and pass them as EstimatorSpec(training_chief_hooks=...)",
    "stop_grace_period_secs": "stop_grace_period_secs: no Estimator equivalent, drop it",
    "max_wait_secs": "max_wait_secs: RunConfig(session_creation_timeout_secs=...)",
}
TF_CONFIG_HELP = (
    "TF 2.15 Estimators take the cluster and each process's task from the TF_CONFIG environment variable "
    '(`{"cluster": {"chief": [...], "worker": [...], "ps": [...]}, "task": {"type": "chief", "index": 0}}`) '
    "instead of tf.train.ClusterSpec/Server, master= and is_chief=: the legacy chief (worker 0) becomes task type "
    '"chief", the other workers "worker" 0, 1, ... (RunConfig refuses a cluster without a chief), so every launch '
    "command changes; build the graph in a model_fn without tf.device(replica_device_setter(...)) and without a "
    "train_distribute strategy (an Estimator given ps tasks places the variables on them itself: the same "
    "asynchronous between-graph replication), and run `tf.estimator.train_and_evaluate(estimator, "
    "tf.estimator.TrainSpec(input_fn, max_steps=N), tf.estimator.EvalSpec(...))` in every process, ps included; "
    "worked example: samples/cluster_ps in the tfmigrate repository, checked with "
    "`tfmigrate validate --cluster chief=1,worker=1,ps=1 FILE.py:FUNCTION`"
)


# --- small syntax helpers ------------------------------------------------------------------------
def code(node: cst.CSTNode) -> str:
    return cst.Module([]).code_for_node(node)


def kwarg(call: cst.Call, name: str, position: int | None = None) -> cst.Arg | None:
    for i, arg in enumerate(call.args):
        if arg.keyword is not None and arg.keyword.value == name:
            return arg
        if arg.keyword is None and arg.star == "" and position is not None and i == position:
            return arg
    return None


def tensorflow_aliases(module: cst.Module) -> tuple[str | None, str | None]:
    """The names module-level imports bind to ``tensorflow`` and to ``tensorflow.compat.v1``."""
    alias = compat = None
    for stmt in module.body:
        if not isinstance(stmt, cst.SimpleStatementLine):
            continue
        for small in stmt.body:
            if isinstance(small, cst.Import):
                for name in small.names:
                    dotted = code(name.name)
                    if dotted == "tensorflow":
                        alias = name.asname.name.value if name.asname else "tensorflow"
                    elif dotted == "tensorflow.compat.v1" and name.asname:
                        compat = name.asname.name.value
            elif isinstance(small, cst.ImportFrom) and small.module is not None and not isinstance(small.names, cst.ImportStar):
                if code(small.module) == "tensorflow.compat":
                    for name in small.names:
                        if code(name.name) == "v1":
                            compat = name.asname.name.value if name.asname else "v1"
    return alias, compat


def unique(base: str, used: set[str]) -> str:
    name, i = base, 1
    while name in used:
        name, i = f"{base}_{i}", i + 1
    used.add(name)
    return name


class NameUse(cst.CSTVisitor):
    """Names read and bound in some code (syntactic and conservative: every Name that is not a
    binding, an attribute or a keyword counts as a read, nested functions included)."""

    VISITS_TRIVIA = False  # on_visit only prunes excluded subtrees; no hook looks at tokens

    def __init__(self, exclude: Iterable[cst.CSTNode] = (), index: TreeIndex | None = None) -> None:
        self._index = index  # of the tree the code is in, if any: children are read from it
        self.reads: set[str] = set()
        self.binds: set[str] = set()
        self.escapes = False  # return/yield/global/nonlocal/break/continue outside a nested def
        self._exclude = {id(n) for n in exclude}
        self._depth = 0  # nested def/lambda depth

    def on_visit(self, node: cst.CSTNode) -> bool:
        if id(node) in self._exclude:
            return False
        return super().on_visit(node)

    def _bind_target(self, target: cst.BaseExpression) -> None:
        if isinstance(target, cst.Name):
            self.binds.add(target.value)
        elif isinstance(target, (cst.Tuple, cst.List)):
            for element in target.elements:
                self._bind_target(element.value)
        elif isinstance(target, cst.StarredElement):
            self._bind_target(target.value)
        else:
            walk(target, self, self._index)

    def visit_AssignTarget(self, node: cst.AssignTarget) -> bool:
        self._bind_target(node.target)
        return False

    def visit_AugAssign(self, node: cst.AugAssign) -> bool:
        self._bind_target(node.target)
        if isinstance(node.target, cst.Name):
            self.reads.add(node.target.value)
        walk(node.value, self, self._index)
        return False

    def visit_AnnAssign(self, node: cst.AnnAssign) -> bool:
        self._bind_target(node.target)
        if node.value is not None:
            walk(node.value, self, self._index)
        return False

    def visit_For(self, node: cst.For) -> bool:
        self._bind_target(node.target)
        walk(node.iter, self, self._index)
        walk(node.body, self, self._index)
        if node.orelse:
            walk(node.orelse, self, self._index)
        return False

    def visit_CompFor(self, node: cst.CompFor) -> bool:
        walk(node.iter, self, self._index)
        for cond in node.ifs:
            walk(cond, self, self._index)
        if node.inner_for_in:
            walk(node.inner_for_in, self, self._index)
        return False

    def visit_AsName(self, node: cst.AsName) -> bool:
        self._bind_target(node.name)
        return False

    def visit_Attribute(self, node: cst.Attribute) -> bool:
        walk(node.value, self, self._index)
        return False

    def visit_Arg(self, node: cst.Arg) -> bool:
        walk(node.value, self, self._index)
        return False

    def visit_Param(self, node: cst.Param) -> bool:
        if node.default is not None:
            walk(node.default, self, self._index)
        return False

    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        self.binds.add(node.name.value)
        for deco in node.decorators:
            walk(deco, self, self._index)
        walk(node.params, self, self._index)
        self._depth += 1
        walk(node.body, self, self._index)
        self._depth -= 1
        return False

    def visit_Lambda(self, node: cst.Lambda) -> bool:
        self._depth += 1
        walk(node.body, self, self._index)
        self._depth -= 1
        return False

    def visit_ClassDef(self, node: cst.ClassDef) -> bool:
        self.binds.add(node.name.value)
        for base in node.bases:
            walk(base, self, self._index)
        walk(node.body, self, self._index)
        return False

    def visit_Import(self, node: cst.Import) -> bool:
        for alias in node.names:
            self.binds.add(alias.asname.name.value if alias.asname else code(alias.name).split(".")[0])
        return False

    def visit_ImportFrom(self, node: cst.ImportFrom) -> bool:
        if not isinstance(node.names, cst.ImportStar):
            for alias in node.names:
                self.binds.add(alias.asname.name.value if alias.asname else code(alias.name))
        return False

    def _escape(self, node: cst.CSTNode) -> bool:
        if self._depth == 0:
            self.escapes = True
        return True

    visit_Return = _escape
    visit_Yield = _escape
    visit_Await = _escape
    visit_Global = _escape
    visit_Nonlocal = _escape

    def visit_Break(self, node: cst.Break) -> bool:
        return self._escape(node)

    def visit_Continue(self, node: cst.Continue) -> bool:
        return self._escape(node)

    def visit_Name(self, node: cst.Name) -> None:
        self.reads.add(node.value)


def uses(nodes: Iterable[cst.CSTNode], exclude: Iterable[cst.CSTNode] = (), index: TreeIndex | None = None) -> NameUse:
    visitor = NameUse(exclude, index)
    for node in nodes:
        walk(node, visitor, index)
    return visitor


def single_assign(stmt: cst.CSTNode) -> cst.Assign | None:
    if isinstance(stmt, cst.SimpleStatementLine) and len(stmt.body) == 1 and isinstance(stmt.body[0], cst.Assign):
        if len(stmt.body[0].targets) == 1:
            return stmt.body[0]
    return None


def single_expr_call(stmt: cst.CSTNode) -> cst.Call | None:
    if isinstance(stmt, cst.SimpleStatementLine) and len(stmt.body) == 1 and isinstance(stmt.body[0], cst.Expr):
        value = stmt.body[0].value
        if isinstance(value, cst.Call):
            return value
    return None


def method_call(node: cst.CSTNode, receiver: str, method: str) -> cst.Call | None:
    if (
        isinstance(node, cst.Call)
        and isinstance(node.func, cst.Attribute)
        and isinstance(node.func.value, cst.Name)
        and node.func.value.value == receiver
        and node.func.attr.value == method
    ):
        return node
    return None


class NotCanonical(Exception):
    """The training loop does not have the canonical shape; the message says why."""


@dataclass
class StopStep:
    call: cst.Call
    condition: cst.BaseExpression | None
    stmt_index: int | None = None  # a statement of the model code to drop
    element: tuple[int, int] | None = None  # (statement index, list element index) to drop
    mts_element: int | None = None  # element index in the session's hooks=[...]
    alias: str | None = None  # `stop = StopAtStepHook(...)`, then `stop` used once in the hooks


@dataclass
class Plan:
    mts: cst.Call
    owner: cst.CSTNode  # the graph `with` or the function whose body holds the loop
    input_end: int  # body[input_end] is the get_next statement
    input_idx: list[int]  # statements before it that build the dataset (input_fn)
    moved_idx: list[int]  # statements before it that the dataset does not need (model_fn)
    session_start: int
    session_end: int  # body[session_start:session_end] is the session; the rest stays after it
    dataset: cst.BaseExpression
    features: str
    labels: str | None
    loss: str
    train_op: str
    hooks_name: str | None
    hooks_literal: bool
    chief_hooks: bool = False  # chief_only_hooks= -> EstimatorSpec(training_chief_hooks=...)
    drop: set[int] = field(default_factory=set)  # model-code statements to drop
    stop: StopStep | None = None
    config: list[tuple[str, cst.BaseExpression]] = field(default_factory=list)


class MonitoredSessionTransform(FamilyTransform):
    FAMILY = "TFM3"
    # leave_Name leaves a Name whose qualified name is None (no import, no module alias) as it is: the walk skips them
    UNIMPORTED_NAMES_UNCHANGED = True

    # --- module set-up --------------------------------------------------------------------------
    def visit_Module(self, node: cst.Module) -> None:
        self._alias, self._compat = tensorflow_aliases(node)
        self._call_matches: dict[frozenset[str], list[cst.Call]] = {}
        self._names = {n.value for n in self.index.nodes(cst.Name)}  # apply() indexes the module it visits
        self._names |= READ_ELSEWHERE.get()  # and the names of a huge module's other chunks (unique() avoids them)
        self._plans: dict[int, Plan] = {}  # id(owner) -> plan
        self._planned_mts: set[int] = set()
        self._reasons: dict[int, str] = {}  # id(MTS call) -> why it was not restructured
        self._consumed: set[int] = set()  # original nodes a plan drops (no finding for them)
        self._assigns_in: dict[int, list[cst.Assign]] | None = None
        self._datasets: list[set[str]] = [self._dataset_names(node)]
        self._graph_mode = self._is_graph_mode()
        self._module_offset = 0
        if self.enabled(TFM301):
            self._plan_module(node)

    def _plan_module(self, module: cst.Module) -> None:
        """A script: the graph code runs at module level, after the imports, functions and classes."""
        body = list(module.body)
        first = next((i for i, stmt in enumerate(body) if self._calls(stmt, MTS)), None)
        if first is None or not (single_assign(body[first]) or isinstance(body[first], cst.With)):
            return
        start = 0
        for i, stmt in enumerate(body[:first]):
            if isinstance(stmt, (cst.FunctionDef, cst.ClassDef)) or is_docstring(stmt) or (
                isinstance(stmt, cst.SimpleStatementLine) and any(isinstance(b, (cst.Import, cst.ImportFrom)) for b in stmt.body)
            ):
                start = i + 1
        self._module_offset = start
        self._try_plan(module, body[start:], module)

    @staticmethod
    def _is_main_guard(node: cst.If) -> bool:
        test = node.test
        return (
            isinstance(test, cst.Comparison)
            and isinstance(test.left, cst.Name)
            and test.left.value == "__name__"
            and len(test.comparisons) == 1
            and isinstance(test.comparisons[0].operator, cst.Equal)
            and isinstance(test.comparisons[0].comparator, cst.SimpleString)
            and test.comparisons[0].comparator.evaluated_value == "__main__"
        )

    def visit_If(self, node: cst.If) -> None:
        if self.enabled(TFM301) and self._is_main_guard(node) and isinstance(node.body, cst.IndentedBlock):
            self._try_plan(node, list(node.body.body), node)

    def leave_If(self, original: cst.If, updated: cst.If) -> cst.If:
        plan = self._plans.get(id(original))
        if plan is None:
            return updated
        body = list(updated.body.body)
        new = self._generate(plan, body, "", body[0].leading_lines)
        return updated.with_changes(body=updated.body.with_changes(body=new + body[plan.session_end :]))

    def leave_Module(self, original: cst.Module, updated: cst.Module) -> cst.Module:
        plan = self._plans.get(id(original))
        if plan is None:
            return updated
        full = list(updated.body)
        offset = self._module_offset
        body = full[offset:]
        leading = list(body[0].leading_lines) or [cst.EmptyLine(indent=False)] * 2
        new = self._generate(plan, body, "", leading)
        return updated.with_changes(body=full[:offset] + new + body[plan.session_end :])

    def _is_graph_mode(self) -> bool:
        """Does the module build TF1 graphs (sessions, savers, placeholders, Estimators, ...)?"""
        index = self.index
        for node in index.nodes(cst.Attribute):
            if node.attr.value in GRAPH_MODE_MARKERS or node.attr.value.endswith("Optimizer"):
                if self._graph_name(self.qn(node)):
                    return True
        for node in index.nodes(cst.Name):
            if node.value in GRAPH_MODE_MARKERS and self._graph_name(self.qn(node)):
                return True
        return False

    @staticmethod
    def _graph_name(name: str | None) -> bool:
        return bool(name and name.startswith("tensorflow.") and not name.startswith(EAGER_OR_KERAS))

    def _import_tensorflow(self) -> str:
        if "tf" not in self._names:
            self.imports.add("tensorflow", asname="tf")
            self._alias = "tf"
        else:
            self.imports.add("tensorflow")
            self._alias = "tensorflow"
        return self._alias

    @property
    def tf(self) -> str:
        """A name for the TF 2 API root; tf.compat.v1.estimator is the same Estimator API."""
        return self._alias or self._compat or self._import_tensorflow()

    @property
    def compat_v1(self) -> str:
        if self._alias:
            return f"{self._alias}.compat.v1"
        return self._compat or f"{self._import_tensorflow()}.compat.v1"

    def qn(self, node: cst.CSTNode) -> str | None:
        return self.qualified_name(node)

    def is_call_to(self, node: cst.CSTNode, names: frozenset[str]) -> bool:
        return isinstance(node, cst.Call) and self.qn(node.func) in names

    # --- imports are not usages ----------------------------------------------------------------
    def visit_Import(self, node: cst.Import) -> bool:
        return False

    def visit_ImportFrom(self, node: cst.ImportFrom) -> bool:
        return False

    # --- TFM305 bookkeeping: which names hold a tf.data.Dataset in this function ---------------
    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self._datasets.append(self._dataset_names(node.body))
        if self.enabled(TFM301) and isinstance(node.body, cst.IndentedBlock):
            body = list(node.body.body)
            offset = 1 if body and is_docstring(body[0]) else 0
            self._try_plan(node, body[offset:], node)

    def leave_FunctionDef(self, original: cst.FunctionDef, updated: cst.FunctionDef) -> cst.FunctionDef:
        self._datasets.pop()
        plan = self._plans.get(id(original))
        if plan is None:
            return updated
        full = list(updated.body.body)
        offset = 1 if is_docstring(full[0]) else 0
        body = full[offset:]
        new = self._generate(plan, body, self._indent_of(original.body.body[offset]), body[0].leading_lines)
        return updated.with_changes(body=updated.body.with_changes(body=full[:offset] + new + body[plan.session_end :]))


    def _root(self, expr: cst.BaseExpression, datasets: set[str]) -> bool:
        while True:
            if isinstance(expr, cst.Call):
                expr = expr.func
            elif isinstance(expr, cst.Attribute):
                name = self.qn(expr)
                if name and name.startswith("tensorflow.data."):
                    return True
                expr = expr.value
            elif isinstance(expr, cst.Name):
                name = self.qn(expr)
                return expr.value in datasets or bool(name and name.startswith("tensorflow.data"))
            else:
                return False

    def _assignments_by_body(self) -> dict[int, list[cst.Assign]]:
        """id(module or function body) -> the assignments in it (not in nested functions), in order."""
        if self._assigns_in is None:  # once per module (visit_Module resets it)
            found: dict[int, list[cst.Assign]] = {}
            index, parents = self.index, self.index.parents
            for assign in index.nodes(cst.Assign):
                below, node = assign, parents.get(assign)
                while node is not None and not isinstance(node, cst.FunctionDef):
                    below, node = node, parents.get(node)
                owner = below if node is not None else index.module  # a def's body, or the module
                found.setdefault(id(owner), []).append(assign)
            self._assigns_in = found
        return self._assigns_in

    def _dataset_names(self, body: cst.CSTNode) -> set[str]:
        index = self.index
        if body is index.module or body in index.parents:
            assigns = self._assignments_by_body().get(id(body), [])
        else:
            outside_functions = lambda node: not isinstance(node, cst.FunctionDef)  # noqa: E731
            assigns = [node for node in iter_nodes(body, outside_functions, trivia=False) if isinstance(node, cst.Assign)]
        names: set[str] = set()
        changed = True
        while changed:
            changed = False
            for assign in assigns:
                if self._root(assign.value, names):
                    for target in assign.targets:
                        if isinstance(target.target, cst.Name) and target.target.value not in names:
                            names.add(target.target.value)
                            changed = True
        return names

    # --- TFM301: the canonical loop inside `with tf.Graph().as_default():` ---------------------
    def _is_graph_with(self, node: cst.With) -> bool:
        if len(node.items) != 1:
            return False
        item = node.items[0].item
        return (
            isinstance(item, cst.Call)
            and isinstance(item.func, cst.Attribute)
            and item.func.attr.value == "as_default"
            and not item.args
            and self.is_call_to(item.func.value, GRAPH)
        )

    def visit_With(self, node: cst.With) -> None:
        if self.enabled(TFM301) and self._is_graph_with(node) and isinstance(node.body, cst.IndentedBlock):
            self._try_plan(node, list(node.body.body), node)

    def leave_With(self, original: cst.With, updated: cst.With) -> cst.BaseStatement | cst.FlattenSentinel:
        plan = self._plans.get(id(original))
        if plan is None:
            return updated
        body = list(updated.body.body)
        leading = list(updated.leading_lines)
        parent = self.get_metadata(ParentNodeProvider, original, None)
        siblings = getattr(parent, "body", ())
        if not leading and isinstance(siblings, Sequence) and siblings and siblings[0] is not original:
            leading = [cst.EmptyLine(indent=False)]  # set the new defs apart from the code before them
        new = self._generate(plan, body, self._indent_of(original), leading)
        return cst.FlattenSentinel(new + body[plan.session_end :])

    def _indent_of(self, node: cst.CSTNode) -> str:
        return " " * self.get_metadata(PositionProvider, node).start.column

    def _scope_of(self, node: cst.CSTNode) -> cst.CSTNode:
        current = node
        while True:
            parent = self.get_metadata(ParentNodeProvider, current, None)
            if parent is None or isinstance(parent, (cst.FunctionDef, cst.Module)):
                return parent if parent is not None else current
            current = parent

    def _find_session(self, body: Sequence[cst.BaseStatement]) -> tuple[int, int, cst.Call, str] | None:
        for i, stmt in enumerate(body):
            assign = single_assign(stmt)
            if assign and self.is_call_to(assign.value, MTS) and isinstance(assign.targets[0].target, cst.Name):
                name = assign.targets[0].target.value
                nxt = body[i + 1] if i + 1 < len(body) else None
                if (
                    isinstance(nxt, cst.With)
                    and len(nxt.items) == 1
                    and isinstance(nxt.items[0].item, cst.Name)
                    and nxt.items[0].item.value == name
                    and nxt.items[0].asname is None
                ):
                    return i, i + 2, assign.value, name
                raise NotCanonical(f"the session `{name}` is not used as `with {name}: while not {name}.should_stop(): ...` right after it is made")
            if isinstance(stmt, cst.With) and len(stmt.items) == 1 and self.is_call_to(stmt.items[0].item, MTS):
                asname = stmt.items[0].asname
                if asname is None or not isinstance(asname.name, cst.Name):
                    raise NotCanonical("the session is not bound with `as`")
                return i, i + 1, stmt.items[0].item, asname.name.value
        return None

    def _loop_fetch(self, with_stmt: cst.CSTNode, session: str) -> str:
        if not isinstance(with_stmt, cst.With) or not isinstance(with_stmt.body, cst.IndentedBlock):
            raise NotCanonical("the session is not used in a `with` block")
        if len(with_stmt.body.body) != 1 or not isinstance(with_stmt.body.body[0], cst.While):
            raise NotCanonical("the `with` block holds more than the `while not session.should_stop():` loop (custom session logic)")
        loop = with_stmt.body.body[0]
        test = loop.test
        if loop.orelse is not None or not (
            isinstance(test, cst.UnaryOperation)
            and isinstance(test.operator, cst.Not)
            and method_call(test.expression, session, "should_stop") is not None
            and not test.expression.args
        ):
            raise NotCanonical("the loop is not `while not session.should_stop():`")
        if not isinstance(loop.body, cst.IndentedBlock) or len(loop.body.body) != 1:
            raise NotCanonical("the loop body is more than one `session.run(train_op)` (custom session logic)")
        call = single_expr_call(loop.body.body[0])
        run = method_call(call, session, "run") if call is not None else None
        if run is None or len(run.args) != 1 or (run.args[0].keyword and run.args[0].keyword.value != "fetches"):
            raise NotCanonical("the loop body is not a single `session.run(train_op)` whose result is unused")
        fetch = run.args[0].value
        if isinstance(fetch, cst.List) and len(fetch.elements) == 1:
            fetch = fetch.elements[0].value
        if not isinstance(fetch, cst.Name):
            raise NotCanonical("session.run fetches more than one train op")
        return fetch.value

    def _one_shot_dataset(self, iterator: cst.BaseExpression) -> cst.BaseExpression | None:
        """The dataset of ``dataset.make_one_shot_iterator()`` / ``tf.data.make_one_shot_iterator(dataset)``."""
        if not isinstance(iterator, cst.Call):
            return None
        if isinstance(iterator.func, cst.Attribute) and iterator.func.attr.value == "make_one_shot_iterator" and not iterator.args:
            return iterator.func.value
        if self.qn(iterator.func) in (
            "tensorflow.data.make_one_shot_iterator",
            "tensorflow.compat.v1.data.make_one_shot_iterator",
        ) and len(iterator.args) == 1 and iterator.args[0].keyword is None:
            return iterator.args[0].value
        return None

    def _get_next(self, stmt: cst.CSTNode, before: Sequence[cst.BaseStatement]) -> tuple[cst.BaseExpression, cst.Call, str, str | None, int | None] | None:
        """``x, y = <one-shot iterator>.get_next()``, the iterator inline or bound just for it before."""
        assign = single_assign(stmt)
        if assign is None:
            return None
        value = assign.value
        if not (isinstance(value, cst.Call) and isinstance(value.func, cst.Attribute) and value.func.attr.value == "get_next" and not value.args):
            return None
        iterator, index = value.func.value, None
        if isinstance(iterator, cst.Name):
            bound = [
                (i, a.value) for i, s in enumerate(before)
                if (a := single_assign(s)) and isinstance(a.targets[0].target, cst.Name) and a.targets[0].target.value == iterator.value
            ]
            if len(bound) != 1:
                return None
            index, iterator = bound[0]
        dataset = self._one_shot_dataset(iterator)
        if dataset is None:
            return None
        target = assign.targets[0].target
        if isinstance(target, cst.Name):
            return dataset, iterator, target.value, None, index
        if (
            isinstance(target, (cst.Tuple, cst.List))
            and len(target.elements) == 2
            and all(isinstance(e.value, cst.Name) for e in target.elements)
        ):
            return dataset, iterator, target.elements[0].value.value, target.elements[1].value.value, index
        return None

    def _resolve(self, expr: cst.BaseExpression | None, qname: frozenset[str], model: Sequence[cst.BaseStatement], start: int, what: str) -> tuple[cst.Call | None, int | None]:
        """``expr`` is ``qname(...)`` inline or a name bound to it once in the model code."""
        if expr is None:
            return None, None
        if self.is_call_to(expr, qname):
            return expr, None
        if isinstance(expr, cst.Name):
            found = []
            for i, stmt in enumerate(model):
                assign = single_assign(stmt)
                if assign and isinstance(assign.targets[0].target, cst.Name) and assign.targets[0].target.value == expr.value:
                    found.append((assign, i))
            if len(found) == 1 and self.is_call_to(found[0][0].value, qname):
                return found[0][0].value, start + found[0][1]
        raise NotCanonical(f"the {what} is not a plain `tf.train.{min(qname).rsplit('.', 1)[1]}(...)`")

    def _try_plan(self, owner: cst.CSTNode, body: list[cst.BaseStatement], anchor: cst.CSTNode) -> None:
        mts: cst.Call | None = None
        try:
            found = self._find_session(body)
            if found is None:
                return
            session_start, session_end, mts, session = found
            self._plans[id(owner)] = self._plan(owner, body, session_start, session_end, mts, session)
            self._planned_mts.add(id(mts))
        except NotCanonical as exc:
            if mts is not None:
                self._reasons[id(mts)] = str(exc)
            else:  # the session statement was found but not its use; find its call for the finding
                for stmt in body:
                    assign = single_assign(stmt)
                    if assign and self.is_call_to(assign.value, MTS):
                        self._reasons[id(assign.value)] = str(exc)

    def _plan(self, owner: cst.CSTNode, body: list[cst.BaseStatement], session_start: int, session_end: int, mts: cst.Call, session: str) -> Plan:
        train_op = self._loop_fetch(body[session_end - 1], session)
        nexts = [(i, g) for i, stmt in enumerate(body[:session_start]) if (g := self._get_next(stmt, body[:i])) is not None]
        if len(nexts) != 1:
            raise NotCanonical("the graph does not read its input from exactly one `dataset.make_one_shot_iterator().get_next()`")
        k, (dataset, iterator, features, labels, iterator_index) = nexts[0]
        model_code = body[k + 1 : session_start]
        # statements before get_next() that the dataset does not need (the model object, the global
        # step) go to model_fn; the rest, and statements that bind nothing, build the input
        needed = uses([dataset], index=self.index).reads
        input_idx: list[int] = []
        moved_idx: list[int] = []
        for i in range(k - 1, -1, -1):
            if i == iterator_index:
                continue  # `iterator = dataset.make_one_shot_iterator()`: Estimator makes the iterator
            stmt_use = uses([body[i]], index=self.index)
            if not stmt_use.binds or stmt_use.binds & needed:
                input_idx.insert(0, i)
                needed |= stmt_use.reads
            else:
                moved_idx.insert(0, i)
        input_code = [body[i] for i in input_idx]
        moved_code = [body[i] for i in moved_idx]

        # the session's arguments
        config: list[tuple[str, cst.BaseExpression]] = []
        config_exprs: list[cst.CSTNode] = []
        scaffold_expr = hooks_expr = chief_expr = None
        for arg in mts.args:
            if arg.keyword is None:
                raise NotCanonical("MonitoredTrainingSession takes positional arguments here")
            key = arg.keyword.value
            if key in UNSUPPORTED_KEYS:
                raise NotCanonical(UNSUPPORTED_KEYS[key])
            if key == "scaffold":
                scaffold_expr = arg.value
            elif key == "hooks":
                hooks_expr = arg.value
            elif key == "chief_only_hooks":
                chief_expr = arg.value
            elif key in RUNCONFIG_KEYS:
                config.append((RUNCONFIG_KEYS[key], arg.value))
                config_exprs.append(arg.value)
            else:
                raise NotCanonical(f"MonitoredTrainingSession({key}=...) is not understood")
        keys = {key for key, _ in config}
        if {"save_checkpoints_secs", "save_checkpoints_steps"} <= keys:
            raise NotCanonical("both save_checkpoint_secs and save_checkpoint_steps are set (RunConfig accepts one)")
        if not any(key == "model_dir" for key, _ in config):
            raise NotCanonical("the session has no checkpoint_dir (an Estimator always checkpoints to its model_dir)")

        drop: set[int] = set()
        start = k + 1
        scaffold, index = self._resolve(scaffold_expr, SCAFFOLD, model_code, start, "scaffold")
        if index is not None:
            drop.add(index)
        if scaffold is not None:
            if any(a.keyword is None or a.keyword.value != "saver" for a in scaffold.args):
                raise NotCanonical("the Scaffold carries more than a saver (init_op, init_fn, ready_op, ...)")
            saver_arg = kwarg(scaffold, "saver")
            saver, index = self._resolve(saver_arg.value if saver_arg else None, SAVER, model_code, start, "scaffold's saver")
            if index is not None:
                drop.add(index)
            if saver is not None:
                for arg in saver.args:
                    if arg.keyword is None or arg.keyword.value not in SAVER_KEYS:
                        raise NotCanonical("the Scaffold's Saver sets more than max_to_keep/keep_checkpoint_every_n_hours")
                    config.append((SAVER_KEYS[arg.keyword.value], arg.value))
                    config_exprs.append(arg.value)

        # hooks: StopAtStepHook becomes max_steps; the rest become EstimatorSpec(training_hooks=...)
        hooks_name = None
        hooks_literal = False
        stops: list[StopStep] = []
        if isinstance(hooks_expr, cst.Name):
            hooks_name = hooks_expr.value
        elif isinstance(hooks_expr, cst.List):
            hooks_literal = True
            for e, element in enumerate(hooks_expr.elements):
                if self.is_call_to(element.value, STOP_AT_STEP):
                    stops.append(StopStep(element.value, None, mts_element=e))
        elif hooks_expr is not None:
            raise NotCanonical("hooks= is neither a list nor a name")
        for i, stmt in enumerate(model_code, start=start):
            stops.extend(self._stops_in(stmt, i, hooks_name))
        if len(stops) > 1:
            raise NotCanonical("more than one StopAtStepHook")
        stop = stops[0] if stops else None
        if stop is not None and stop.alias is not None:
            drop |= self._locate_alias(stop, model_code, start, hooks_expr, hooks_name)
        if stop is not None:
            if stop.stmt_index is not None:
                drop.add(stop.stmt_index)
            self._consumed.update((id(stop.call), id(stop.call.func)))
            config_exprs.append(stop.call)
            if stop.condition is not None:
                config_exprs.append(stop.condition)
            given = [a for a in (kwarg(stop.call, "num_steps", 0), kwarg(stop.call, "last_step", 1)) if a is not None]
            if len(given) != 1 or len(stop.call.args) != 1:
                raise NotCanonical("StopAtStepHook needs exactly one of num_steps/last_step")

        # the loss: NanTensorHook's tensor, else a name `loss`
        model_use = uses([*moved_code, *model_code], index=self.index)
        loss = None
        for node in [*model_code, *(hooks_expr.elements if hooks_literal else [])]:
            for call in self._calls(node, NAN_HOOK):
                arg = kwarg(call, "loss_tensor", 0)
                if arg is not None and isinstance(arg.value, cst.Name):
                    loss = arg.value.value
        if loss is None and "loss" in model_use.binds:
            loss = "loss"
        if loss is None or loss not in model_use.binds:
            raise NotCanonical("the loss tensor cannot be told (no NanTensorHook(loss) and no `loss = ...`)")
        if hooks_name is not None and hooks_name not in model_use.binds:
            raise NotCanonical(f"the hooks list `{hooks_name}` is not built by the graph code")
        if chief_expr is not None:
            if self._calls(chief_expr, STOP_AT_STEP) or not (
                isinstance(chief_expr, cst.List) or (isinstance(chief_expr, cst.Name) and chief_expr.value in model_use.binds)
            ):
                raise NotCanonical("chief_only_hooks is neither a list nor a name the graph code builds (or holds a StopAtStepHook)")
        if train_op not in model_use.binds:
            raise NotCanonical(f"`{train_op}` is not made by the model code")

        # names: the moved code must be self-contained, and nothing else may use what it binds
        input_use = uses(input_code, index=self.index)
        kept_model = moved_code + [s for i, s in enumerate(model_code, start=start) if i not in drop]
        kept_use = uses(kept_model, index=self.index)
        if input_use.escapes or model_use.escapes:
            raise NotCanonical("the graph code returns, yields, breaks or declares global/nonlocal names")
        moved_binds = input_use.binds | model_use.binds
        leak = (input_use.binds - {features, labels or ""}) & kept_use.reads
        if leak:
            raise NotCanonical(f"the model code uses {sorted(leak)} from the input code")
        params = {"features", "mode"} | ({"labels"} if labels != "labels" else set())
        clash = (kept_use.reads - kept_use.binds - {features, labels or ""}) & params
        if clash:
            raise NotCanonical(f"the model code reads {sorted(clash)}, a model_fn parameter name")
        config_use = uses(config_exprs, index=self.index)
        if config_use.reads & moved_binds:
            raise NotCanonical(f"the session settings use {sorted(config_use.reads & moved_binds)} made by the graph code")
        scope = self._scope_of(owner)
        excluded = [owner] if isinstance(owner, cst.With) else body[:session_end]
        outside = uses([scope], exclude=excluded, index=self.index)
        if isinstance(owner, cst.FunctionDef):
            outside = uses([owner.body], exclude=excluded, index=self.index)
            outside.binds |= {p.name.value for p in owner.params.params + owner.params.kwonly_params + owner.params.posonly_params}
        else:
            if isinstance(scope, cst.FunctionDef):
                params_ = scope.params
                outside.binds |= {p.name.value for p in params_.params + params_.kwonly_params + params_.posonly_params}
        if iterator_index is not None:
            iterator_name = single_assign(body[iterator_index]).targets[0].target.value
            if iterator_name in (input_use.reads | model_use.reads | outside.reads | uses([dataset], index=self.index).reads):
                raise NotCanonical(f"the iterator `{iterator_name}` is used for more than get_next()")
        shared = (moved_binds | {features, labels or features, session}) & (outside.reads | outside.binds)
        if shared:
            raise NotCanonical(f"{sorted(shared)} are bound by the graph code and used outside it")
        if isinstance(owner, cst.With) and owner.items[0].asname is not None:
            graph_name = owner.items[0].asname.name
            if isinstance(graph_name, cst.Name) and graph_name.value in (input_use.reads | kept_use.reads | outside.reads):
                raise NotCanonical(f"the graph `{graph_name.value}` is used")
        self._consumed.add(id(iterator))
        dropped = [body[k], *body[session_start:session_end], *(model_code[i - start] for i in drop)]
        if iterator_index is not None:
            dropped.append(body[iterator_index])
        for node in dropped:
            self.remove_imports_of(node)
        if stop is not None:
            self.remove_imports_of(stop.call)
        return Plan(
            mts=mts,
            owner=owner,
            input_end=k,
            input_idx=input_idx,
            moved_idx=moved_idx,
            session_start=session_start,
            session_end=session_end,
            dataset=dataset,
            features=features,
            labels=labels,
            loss=loss,
            train_op=train_op,
            hooks_name=hooks_name,
            hooks_literal=hooks_literal,
            chief_hooks=chief_expr is not None,
            drop=drop,
            stop=stop,
            config=config,
        )

    def _calls(self, node: cst.CSTNode, qname: frozenset[str]) -> list[cst.Call]:
        """The calls of any of ``qname`` in ``node`` (itself included), in source order."""
        index = self.index
        if node is not index.module and node not in index.parents:  # not part of the indexed tree
            return [call for call in iter_nodes(node, trivia=False) if isinstance(call, cst.Call) and self.qn(call.func) in qname]
        matches = self._call_matches.get(qname)
        if matches is None:
            matches = self._call_matches[qname] = [c for c in index.nodes(cst.Call) if self.qn(c.func) in qname]
        return [c for c in matches if index.is_within(c, node)]

    def _stops_in(self, stmt: cst.BaseStatement, index: int, hooks_name: str | None) -> list[StopStep]:
        calls = self._calls(stmt, STOP_AT_STEP)
        if not calls:
            return []
        condition = None
        inner: cst.CSTNode = stmt
        if isinstance(stmt, cst.If) and stmt.orelse is None and isinstance(stmt.body, cst.IndentedBlock) and len(stmt.body.body) == 1:
            condition, inner = stmt.test, stmt.body.body[0]
        call = single_expr_call(inner)
        if (
            hooks_name
            and call is not None
            and method_call(call, hooks_name, "append")
            and len(call.args) == 1
            and self.is_call_to(call.args[0].value, STOP_AT_STEP)
        ):
            return [StopStep(call.args[0].value, condition, stmt_index=index)]
        assign = single_assign(stmt)
        if assign and isinstance(assign.targets[0].target, cst.Name) and self.is_call_to(assign.value, STOP_AT_STEP):
            return [StopStep(assign.value, None, stmt_index=index, alias=assign.targets[0].target.value)]
        if hooks_name and assign and isinstance(assign.targets[0].target, cst.Name) and assign.targets[0].target.value == hooks_name and isinstance(assign.value, cst.List):
            steps = [
                StopStep(e.value, None, element=(index, j))
                for j, e in enumerate(assign.value.elements)
                if self.is_call_to(e.value, STOP_AT_STEP)
            ]
            if len(steps) == len(calls):
                return steps
        raise NotCanonical("a StopAtStepHook is made where it cannot become max_steps")

    def _locate_alias(self, stop: StopStep, model: Sequence[cst.BaseStatement], start: int, hooks_expr, hooks_name: str | None) -> set[int]:
        """Where the one use of ``stop = StopAtStepHook(...)`` puts it into the hooks; returns statements to drop."""
        alias = stop.alias
        refs: list[tuple[str, object, cst.BaseExpression | None]] = []
        if isinstance(hooks_expr, cst.List):
            refs += [("mts", e, None) for e, el in enumerate(hooks_expr.elements) if isinstance(el.value, cst.Name) and el.value.value == alias]
        for i, stmt in enumerate(model, start=start):
            if i == stop.stmt_index or alias not in uses([stmt]).reads:
                continue
            count = sum(1 for n in self._names_in(stmt) if n == alias)
            condition, inner = None, stmt
            if isinstance(stmt, cst.If) and stmt.orelse is None and isinstance(stmt.body, cst.IndentedBlock) and len(stmt.body.body) == 1:
                condition, inner = stmt.test, stmt.body.body[0]
            call = single_expr_call(inner)
            assign = single_assign(stmt)
            if count == 1 and hooks_name and call is not None and method_call(call, hooks_name, "append") and len(call.args) == 1 \
                    and isinstance(call.args[0].value, cst.Name) and call.args[0].value.value == alias:
                refs.append(("stmt", i, condition))
            elif count == 1 and hooks_name and assign and isinstance(assign.targets[0].target, cst.Name) \
                    and assign.targets[0].target.value == hooks_name and isinstance(assign.value, cst.List) \
                    and any(isinstance(e.value, cst.Name) and e.value.value == alias for e in assign.value.elements):
                j = next(j for j, e in enumerate(assign.value.elements) if isinstance(e.value, cst.Name) and e.value.value == alias)
                refs.append(("elem", (i, j), None))
            else:
                raise NotCanonical(f"the StopAtStepHook `{alias}` is used for more than the hooks list")
        if len(refs) != 1:
            raise NotCanonical(f"the StopAtStepHook `{alias}` is not put into the hooks exactly once")
        kind, where, condition = refs[0]
        if kind == "mts":
            stop.mts_element = where
        elif kind == "elem":
            stop.element = where
        else:
            stop.condition = condition
            return {where}
        return set()

    @staticmethod
    def _names_in(node: cst.CSTNode) -> list[str]:
        return [n.value for n in iter_nodes(node, trivia=False) if isinstance(n, cst.Name)]

    # --- code generation --------------------------------------------------------------------------
    def _generate(self, plan: Plan, body: list[cst.BaseStatement], indent: str, leading: Sequence[cst.EmptyLine]) -> list[cst.BaseStatement]:
        tf = self.tf
        names = self._names
        input_fn, model_fn, estimator = unique("input_fn", names), unique("model_fn", names), unique("estimator", names)
        empty = cst.EmptyLine(indent=False)

        input_body = [body[i] for i in plan.input_idx]
        if isinstance(plan.owner, (cst.FunctionDef, cst.Module, cst.If)) and input_body:
            input_body[0] = input_body[0].with_changes(leading_lines=[])
        input_body += [cst.parse_statement(f"return {code(plan.dataset)}\n")]
        input_def = cst.parse_statement(f"def {input_fn}():\n    pass\n").with_changes(leading_lines=list(leading))
        input_def = input_def.with_changes(body=input_def.body.with_changes(body=input_body))

        model_body: list[cst.BaseStatement] = []
        if plan.features != "features":
            model_body.append(cst.parse_statement(f"{plan.features} = features\n"))
        if plan.labels is not None and plan.labels != "labels":
            model_body.append(cst.parse_statement(f"{plan.labels} = labels\n"))
        first_model = True
        for i in [*plan.moved_idx, *range(plan.input_end + 1, plan.session_start)]:
            if i in plan.drop:
                continue
            stmt = body[i]
            if plan.stop is not None and plan.stop.element is not None and plan.stop.element[0] == i:
                assign = single_assign(stmt)
                elements = [e for j, e in enumerate(assign.value.elements) if j != plan.stop.element[1]]
                if elements:
                    elements[-1] = elements[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
                stmt = stmt.with_changes(body=[assign.with_changes(value=assign.value.with_changes(elements=elements))])
            if first_model:
                stmt = stmt.with_changes(leading_lines=[])
                first_model = False
            model_body.append(stmt)
        spec = f"{tf}.estimator.EstimatorSpec(mode, loss={plan.loss}, train_op={plan.train_op}"
        if plan.hooks_name:
            spec += f", training_hooks={plan.hooks_name}"
        elif plan.hooks_literal:
            session_stmt = body[plan.session_start]
            call = self._session_call(session_stmt)
            hooks = kwarg(call, "hooks").value
            kept = [e for j, e in enumerate(hooks.elements) if plan.stop is None or plan.stop.mts_element != j]
            if kept:
                spec += ", training_hooks=[" + ", ".join(code(e.value) for e in kept) + "]"
        if plan.chief_hooks:
            chief = kwarg(self._session_call(body[plan.session_start]), "chief_only_hooks").value
            spec += f", training_chief_hooks={code(chief)}"
        model_body.append(cst.parse_statement(f"return {spec})\n"))
        gap = [empty, empty] if isinstance(plan.owner, cst.Module) else [empty]  # PEP 8 blank lines
        model_def = cst.parse_statement(f"def {model_fn}(features, labels, mode):\n    pass\n").with_changes(leading_lines=gap)
        model_def = model_def.with_changes(body=model_def.body.with_changes(body=model_body))

        # continuation lines are indented relative to the block the statement lands in
        settings = "".join(f"\n        {key}={code(value)}," for key, value in plan.config)
        est = (
            f"{estimator} = {tf}.estimator.Estimator(\n    model_fn={model_fn},\n"
            f"    config={tf}.estimator.RunConfig({settings.rstrip(',')}))\n"
        )
        train_args = [input_fn]
        if plan.stop is not None:
            arg = kwarg(plan.stop.call, "num_steps", 0) or kwarg(plan.stop.call, "last_step", 1)
            key = "steps" if arg is kwarg(plan.stop.call, "num_steps", 0) else "max_steps"
            value = code(arg.value)
            if plan.stop.condition is not None:
                condition = code(plan.stop.condition)
                value = f"{value} or None" if condition == value else f"{value} if {condition} else None"
            train_args.append(f"{key}={value}")
        train = f"{estimator}.train({', '.join(train_args)})\n"
        return [
            input_def,
            model_def,
            cst.parse_statement(est).with_changes(leading_lines=gap),
            cst.parse_statement(train),
        ]

    def _session_call(self, stmt: cst.BaseStatement) -> cst.Call:
        assign = single_assign(stmt)
        if assign is not None:
            return assign.value
        return stmt.items[0].item

    # --- per-call rules ---------------------------------------------------------------------------
    def leave_Call(self, original: cst.Call, updated: cst.Call) -> cst.BaseExpression:
        name = self.qn(original.func)
        if name in MTS:
            self._session_findings(original)
            return updated
        if name in DEVICE:
            return device_call(self, original, updated)
        if name in DISTRIBUTED:
            shown = name.replace("tensorflow.compat.v1.", "tf.").replace("tensorflow.", "tf.")  # one text per place, every pass
            self.flag(original, TFM304, f"{shown} sets up a cluster by hand: {TF_CONFIG_HELP}")
            return updated
        if name and name.startswith("tensorflow.summary.") and name.rsplit(".", 1)[1] in V1_SUMMARY_OPS:
            return self._v1_summary(original, updated, name.rsplit(".", 1)[1])
        func = original.func
        if (
            isinstance(func, cst.Attribute)
            and func.attr.value in ITERATOR_METHODS
            and id(original) not in self._consumed
            and (self._alias or self._compat)
            and not (func.attr.value == "make_one_shot_iterator" and original.args)
            and self.qn(func) is None
        ):
            method = func.attr.value
            if self.fix(original, TFM305, f"Dataset.{method}() is gone from TF 2.15 datasets: tf.compat.v1.data.{method}(dataset)"):
                receiver = updated.func.value
                new_func = expression(f"{self.compat_v1}.data.{method}")
                return updated.with_changes(func=new_func, args=[cst.Arg(receiver), *updated.args])
        return updated

    def _session_findings(self, call: cst.Call) -> None:
        for key in ("master", "is_chief"):
            arg = kwarg(call, key)
            if arg is not None:
                self.flag(arg, TFM304, f"MonitoredTrainingSession({key}=...) is a distributed session: {TF_CONFIG_HELP}")
        if id(call) in self._planned_mts:
            plan = next(p for p in self._plans.values() if p.mts is call)
            what = "no max_steps"
            if plan.stop is not None:
                what = "max_steps" if kwarg(plan.stop.call, "num_steps", 0) is None else "steps"
            self.fix(
                call,
                TFM301,
                "MonitoredTrainingSession training loop rewritten as tf.estimator.Estimator(model_fn, "
                f"config=RunConfig(...)).train(input_fn, {what}): the dataset code became input_fn, the model code "
                "model_fn (hooks that name tensors are its training_hooks), the checkpoint and summary policy RunConfig",
            )
            return
        reason = self._reasons.get(id(call), "the training loop is not `with session: while not session.should_stop(): session.run(train_op)` inside one graph")
        self.flag(
            call,
            TFM302,
            f"MonitoredTrainingSession kept as tf.compat.v1.train.MonitoredTrainingSession (runs on TF 2.15, "
            f"renamed by TFM5xx) because {reason}; {self._manual_steps(call)}",
        )

    def _manual_steps(self, call: cst.Call) -> str:
        """The manual steps, with this session's own settings written as RunConfig and train() arguments."""
        settings: list[str] = []
        notes: list[str] = []
        scope = self._scope_of(call)
        for arg in call.args:
            key = arg.keyword.value if arg.keyword else None
            if key in RUNCONFIG_KEYS:
                settings.append(f"{RUNCONFIG_KEYS[key]}={code(arg.value)}")
            elif key in MANUAL_NOTES:
                notes.append(MANUAL_NOTES[key])
            elif key == "scaffold":
                scaffold = self._value_in(scope, arg.value)
                saver_arg = kwarg(scaffold, "saver") if self.is_call_to(scaffold, SCAFFOLD) else None
                saver = self._value_in(scope, saver_arg.value) if saver_arg else None
                if self.is_call_to(saver, SAVER):
                    settings += [f"{SAVER_KEYS[a.keyword.value]}={code(a.value)}" for a in saver.args if a.keyword and a.keyword.value in SAVER_KEYS]
        if not any(s.startswith("model_dir=") for s in settings):
            settings.insert(0, "model_dir=<a directory>")
        stops = self._calls(scope, STOP_AT_STEP)
        train = ""
        if len(stops) == 1:
            arg = kwarg(stops[0], "last_step", 1)
            if arg is not None:
                train = f", max_steps={code(arg.value)}"
            elif (arg := kwarg(stops[0], "num_steps", 0)) is not None:
                train = f", steps={code(arg.value)}"
        tf = self._alias or self._compat or "tf"  # a message only: never add an import for it
        text = MANUAL_STEPS.format(config=f"{tf}.estimator.RunConfig({', '.join(settings)})", train=train)
        return text + "".join(f"; {note}" for note in notes)

    def _value_in(self, scope: cst.CSTNode, expr: cst.BaseExpression) -> cst.BaseExpression:
        """``expr`` itself, or the value of the one assignment to that name in ``scope``."""
        if not isinstance(expr, cst.Name):
            return expr
        found = [
            node.value
            for node in iter_nodes(scope, trivia=False)
            if isinstance(node, cst.Assign)
            and len(node.targets) == 1
            and isinstance(node.targets[0].target, cst.Name)
            and node.targets[0].target.value == expr.value
        ]
        return found[0] if len(found) == 1 else expr

    def leave_Attribute(self, original: cst.Attribute, updated: cst.Attribute) -> cst.BaseExpression:
        name = self.qn(original)
        if name in HOOK_NAMES and id(original) not in self._consumed:
            hook = HOOK_NAMES[name]
            if self.fix(original, TFM303, f"tf.train.{hook} is tf.estimator.{hook} in TF 2.15"):
                return expression(f"{self.tf}.estimator.{hook}")
            return updated
        attr = original.attr.value
        if (
            attr in DATASET_ATTRS
            and isinstance(original.value, cst.Name)
            and original.value.value in self._datasets[-1]
            and (self._alias or self._compat)
        ):
            if self.fix(original, TFM305, f"Dataset.{attr} is gone from TF 2.15 datasets: tf.compat.v1.data.{DATASET_ATTRS[attr]}(dataset)"):
                return expression(f"{self.compat_v1}.data.{DATASET_ATTRS[attr]}({original.value.value})")
        return updated

    def leave_Name(self, original: cst.Name, updated: cst.Name) -> cst.BaseExpression:
        name = self.qn(original)
        if name in HOOK_NAMES and id(original) not in self._consumed:
            parent = self.get_metadata(ParentNodeProvider, original, None)
            if isinstance(parent, cst.Attribute) and parent.attr is original:
                return updated
            hook = HOOK_NAMES[name]
            if self.fix(original, TFM303, f"tf.train.{hook} is tf.estimator.{hook} in TF 2.15"):
                self.imports.remove("tensorflow.train", hook)
                return expression(f"{self.tf}.estimator.{hook}")
        return updated

    # --- TFM306: tf.summary in TF1 graph code (tf.contrib.summary is the eager family's TFM413) --
    def _v1_summary(self, original: cst.Call, updated: cst.Call, op: str) -> cst.BaseExpression:
        positional = [a for a in original.args if a.keyword is None]
        keywords = {a.keyword.value for a in original.args if a.keyword is not None}
        if not self._graph_mode or "step" in keywords or "data" in keywords or len(positional) > 2:
            return updated  # TF 2 code (or a call we cannot tell): leave it
        if self.fix(
            original,
            TFM306,
            f"tf.summary.{op} in TF1 graph code is the v1 summary op: in TF 2.15 it is tf.compat.v1.summary.{op} "
            f"(tf.summary.{op} is the v2 op, which writes nothing in an Estimator or MonitoredTrainingSession graph)",
        ):
            self.remove_imports_of(original.func)
            return updated.with_changes(func=expression(f"{self.compat_v1}.summary.{op}"))
        return updated
