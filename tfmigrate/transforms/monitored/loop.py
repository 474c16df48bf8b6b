"""TFM301/TFM302: the canonical MonitoredTrainingSession loop (a tf.data pipeline, a model, one train op,
``while not sess.should_stop(): sess.run(train_op)``) found and planned as an Estimator: the input_fn,
the model_fn, the RunConfig and the hooks, and the code generated for them; why a loop is not
canonical when it is not.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import libcst as cst
from libcst.metadata import ParentNodeProvider, PositionProvider

from tfmigrate.codemod.walk import iter_nodes
from tfmigrate.transforms.common.builders import code_of
from tfmigrate.transforms.monitored.names import (
    GRAPH, MTS, NAN_HOOK, RUNCONFIG_KEYS, SAVER, SAVER_KEYS, SCAFFOLD, STOP_AT_STEP, UNSUPPORTED_KEYS,
)
from tfmigrate.transforms.common.builders import unique
from tfmigrate.transforms.monitored.syntax import kwarg, method_call, single_assign, single_expr_call, uses


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


class CanonicalLoop:
    """The canonical-loop planning and code generation of
    :class:`~tfmigrate.transforms.monitored.transform.MonitoredSessionTransform` (a mixin of it: the libcst
    hooks stay there)."""

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
        input_body += [cst.parse_statement(f"return {code_of(plan.dataset)}\n")]
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
                spec += ", training_hooks=[" + ", ".join(code_of(e.value) for e in kept) + "]"
        if plan.chief_hooks:
            chief = kwarg(self._session_call(body[plan.session_start]), "chief_only_hooks").value
            spec += f", training_chief_hooks={code_of(chief)}"
        model_body.append(cst.parse_statement(f"return {spec})\n"))
        gap = [empty, empty] if isinstance(plan.owner, cst.Module) else [empty]  # PEP 8 blank lines
        model_def = cst.parse_statement(f"def {model_fn}(features, labels, mode):\n    pass\n").with_changes(leading_lines=gap)
        model_def = model_def.with_changes(body=model_def.body.with_changes(body=model_body))

        # continuation lines are indented relative to the block the statement lands in
        settings = "".join(f"\n        {key}={code_of(value)}," for key, value in plan.config)
        est = (
            f"{estimator} = {tf}.estimator.Estimator(\n    model_fn={model_fn},\n"
            f"    config={tf}.estimator.RunConfig({settings.rstrip(',')}))\n"
        )
        train_args = [input_fn]
        if plan.stop is not None:
            arg = kwarg(plan.stop.call, "num_steps", 0) or kwarg(plan.stop.call, "last_step", 1)
            key = "steps" if arg is kwarg(plan.stop.call, "num_steps", 0) else "max_steps"
            value = code_of(arg.value)
            if plan.stop.condition is not None:
                condition = code_of(plan.stop.condition)
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
