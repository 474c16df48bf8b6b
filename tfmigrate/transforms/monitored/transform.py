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

from collections.abc import Sequence

import libcst as cst
from libcst.metadata import ParentNodeProvider

from tfmigrate.codemod.imports import READ_ELSEWHERE
from tfmigrate.codemod.walk import iter_nodes
from tfmigrate.codemod.transform import FamilyTransform
from tfmigrate.codemod.tree import expression, is_docstring
from tfmigrate.rule_ids import TFM301, TFM302, TFM303, TFM304, TFM305, TFM306
from tfmigrate.transforms.common.builders import code_of
from tfmigrate.transforms.monitored.device_functions import DEVICE, device_call
from tfmigrate.transforms.monitored.names import (
    DATASET_ATTRS, DISTRIBUTED, EAGER_OR_KERAS, GRAPH_MODE_MARKERS, HOOK_NAMES, ITERATOR_METHODS,
    MANUAL_NOTES, MANUAL_STEPS, MTS, RUNCONFIG_KEYS, SAVER, SAVER_KEYS, SCAFFOLD, STOP_AT_STEP,
    TF_CONFIG_HELP, V1_SUMMARY_OPS,
)
from tfmigrate.transforms.monitored.syntax import kwarg, single_assign, tensorflow_aliases
from tfmigrate.transforms.monitored.loop import CanonicalLoop, Plan
from tfmigrate.transforms.monitored.screen import SCREEN



_TENSORFLOW = frozenset({"tensorflow"})  # the package whose names this family reads


class MonitoredSessionTransform(CanonicalLoop, FamilyTransform):
    FAMILY = "TFM3"
    SCREEN = SCREEN  # the words a module must hold before a rule can react (screen.py)
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
        # TFM305's dataset names are read only at an attribute of DATASET_ATTRS, whose name the module then holds
        self._dataset_attrs = not self.index.words.isdisjoint(DATASET_ATTRS)
        self._datasets: list[set[str]] = [self._dataset_names(node) if self._dataset_attrs else set()]
        self._graph_mode = self._is_graph_mode()
        self._module_offset = 0
        # every plan starts from a MonitoredTrainingSession call (_find_session), whose name the module then holds
        self._planning = self.enabled(TFM301) and "MonitoredTrainingSession" in self.index.words
        if self._planning:
            self._plan_module(node)

    def planned_nodes(self) -> list[cst.CSTNode] | None:
        """The nodes this family's hooks can act on (the walk enters only them and what contains them:
        ``walk.transform``), where no MonitoredTrainingSession is built: there no plan is made (every plan,
        TFM301/TFM302/TFM304's session findings start from an ``MTS`` call, whose words the module would
        hold), and the hooks act only on a chain under tensorflow (``MTS``, ``DEVICE``, ``DISTRIBUTED``,
        ``tf.summary``, ``HOOK_NAMES``: its first Name is in ``names_bound_under``), an iterator method's
        call and a dataset attribute (TFM305, by their attribute's name). ``visit_FunctionDef``'s dataset
        names are those of the functions entered: each holds what it contains. None (every node) where
        a session may be built, and with a ``*`` import."""
        if "MonitoredTrainingSession" in self.index.words:
            return None
        nodes = self.chains_under(_TENSORFLOW)
        if nodes is None:
            return None
        index = self.index
        nodes += [call for call in index.nodes(cst.Call)
                  if type(call.func) is cst.Attribute and call.func.attr.value in ITERATOR_METHODS]
        nodes += [node for node in index.nodes(cst.Attribute) if node.attr.value in DATASET_ATTRS]
        return nodes

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
        if self._planning and self._is_main_guard(node) and isinstance(node.body, cst.IndentedBlock):
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
        self._datasets.append(self._dataset_names(node.body) if self._dataset_attrs else set())
        if self._planning and isinstance(node.body, cst.IndentedBlock):
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

    def visit_With(self, node: cst.With) -> None:
        if self._planning and self._is_graph_with(node) and isinstance(node.body, cst.IndentedBlock):
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
            f"MonitoredTrainingSession kept (it runs on TF 2.15 as tf.compat.v1) because {reason}; {self._manual_steps(call)}",
        )

    def _manual_steps(self, call: cst.Call) -> str:
        """The manual steps, with this session's own settings written as RunConfig and train() arguments."""
        settings: list[str] = []
        notes: list[str] = []
        scope = self._scope_of(call)
        for arg in call.args:
            key = arg.keyword.value if arg.keyword else None
            if key in RUNCONFIG_KEYS:
                settings.append(f"{RUNCONFIG_KEYS[key]}={code_of(arg.value)}")
            elif key in MANUAL_NOTES:
                notes.append(MANUAL_NOTES[key])
            elif key == "scaffold":
                scaffold = self._value_in(scope, arg.value)
                saver_arg = kwarg(scaffold, "saver") if self.is_call_to(scaffold, SCAFFOLD) else None
                saver = self._value_in(scope, saver_arg.value) if saver_arg else None
                if self.is_call_to(saver, SAVER):
                    settings += [f"{SAVER_KEYS[a.keyword.value]}={code_of(a.value)}" for a in saver.args if a.keyword and a.keyword.value in SAVER_KEYS]
        if not any(s.startswith("model_dir=") for s in settings):
            settings.insert(0, "model_dir=<a directory>")
        stops = self._calls(scope, STOP_AT_STEP)
        train = ""
        if len(stops) == 1:
            arg = kwarg(stops[0], "last_step", 1)
            if arg is not None:
                train = f", max_steps={code_of(arg.value)}"
            elif (arg := kwarg(stops[0], "num_steps", 0)) is not None:
                train = f", steps={code_of(arg.value)}"
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
