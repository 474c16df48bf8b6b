"""TFM1: skflow / TF Learn / tf.contrib.learn canned estimators -> ``tf.estimator`` (TF 2.15).

The transform plans everything on the original tree first (``visit_Module``): it finds the legacy
constructors, the names and ``self.<attr>`` attributes they are bound to, and the method calls on
those bindings (``fit``, ``evaluate``, ``predict``, ``save``, ``restore``...). A constructor needs
facts from its method calls (the feature width from ``fit``'s data, the ``save`` path that becomes
``model_dir``) and a method call needs facts from its constructor (``batch_size``, ``steps``), so
both are decided together; the ``leave_*`` methods then only swap in the planned nodes.

Nothing is changed that cannot be shown equivalent: where a fact is missing (an unknown feature
width, a save path not known when the estimator is built, a custom ``model_fn``) the code is left
as it is and a finding says what to do.
"""

from __future__ import annotations

import re

import libcst as cst
from libcst.metadata import ParentNodeProvider, PositionProvider

from tfmigrate.codemod.walk import comment_lines_above, transform, with_lines_above
from tfmigrate.codemod.transform import FamilyTransform, module_calls
from tfmigrate.rule_ids import TFM101, TFM108, TFM110, TFM112
from tfmigrate.transforms.common.builders import bind_args, code_of, int_value
from tfmigrate.transforms.estimators.learn_models import ModelCalls
from tfmigrate.transforms.estimators.model_fn.planner import list_receiver
from tfmigrate.transforms.estimators import flow, helpers, inputs, learn_ops, skcompat, sklearn as estimator_sklearn
from tfmigrate.transforms.estimators.defaults import LEARN, SKFLOW, LegacyClass
from tfmigrate.transforms.estimators.state import Est
from tfmigrate.transforms.estimators.constructors import EstimatorConstructors
from tfmigrate.transforms.estimators.methods import EstimatorMethods
from tfmigrate.transforms.estimators.variable_names import LOAD_VARIABLE

CANNED = ("DNNClassifier", "DNNRegressor", "LinearClassifier", "LinearRegressor", "DNNLinearCombinedClassifier",
          "DNNLinearCombinedRegressor")
# text that only TF 1.x programs contain: a file with none of it may already be TF 2 code
TF1_MARKERS = re.compile(
    r"\btf\.(logging|app|contrib|flags|gfile|Session|InteractiveSession|placeholder|variable_scope|get_variable"
    r"|global_variables_initializer|estimator\.inputs)\b|\btf\.train\.(\w+Optimizer|Saver|MonitoredTrainingSession"
    r"|get_global_step)\b|make_one_shot_iterator|make_initializable_iterator|contrib\.learn|skflow"
)


class EstimatorTransform(EstimatorMethods, EstimatorConstructors, FamilyTransform):
    FAMILY = "TFM1"

    # --- planning --------------------------------------------------------------------------------
    def visit_Module(self, node: cst.Module) -> bool:
        mark = len(self._sink)
        try:
            self._plan(node)
        except Exception as exc:  # our bug: change nothing, say so in one line
            del self._sink[mark:]
            self.replace, self.remove, self.changed = {}, set(), False
            if node.body:
                self.flag(node.body[0], TFM101, f"internal error in the TFM1 rewrite ({type(exc).__name__}: {exc}); "
                          "estimator code in this file left unchanged")
        return True

    def planned_nodes(self) -> list[cst.CSTNode]:
        """What the hooks after visit_Module can change (see walk.transform): the planned
        replacements, and every indented block when statements are removed (leave_IndentedBlock
        rebuilds each then)."""
        nodes = list(self.replace)
        if self.remove:
            nodes += self.index.nodes(cst.IndentedBlock)
        return nodes

    def _plan(self, node: cst.Module) -> None:
        self._assign_names: set[str] | None = None
        self.replace: dict[cst.CSTNode, cst.CSTNode] = {}
        self.remove: set[cst.CSTNode] = set()
        self.need_np = False
        self.need_tf = False
        self.changed = False
        calls: list[cst.Call] = []
        attrs: list[cst.Attribute] = []
        imports: list[cst.CSTNode] = []
        self_targets: list[cst.Attribute] = []
        self.self_targets = self_targets

        index = self.index  # describes `node`: apply() indexes the module it visits
        calls.extend(index.nodes(cst.Call))
        attrs.extend(index.nodes(cst.Attribute))
        imports.extend(index.nodes(cst.Import))
        imports.extend(index.nodes(cst.ImportFrom))
        for assign_target in index.nodes(cst.AssignTarget):
            targets = assign_target.target.elements if isinstance(assign_target.target, (cst.Tuple, cst.List)) else [assign_target.target]
            for target in targets:
                target = target.value if isinstance(target, (cst.Element, cst.StarredElement)) else target
                if isinstance(target, cst.Attribute) and isinstance(target.value, cst.Name) and target.value.value == "self":
                    self_targets.append(target)
        self.ests: list[Est] = []
        self.reported_saves: set[cst.Call] = set()
        self.copied_saves: set[cst.Call] = set()  # save(path) of a path the program clears after training (TFM136)
        self.by_key: dict[tuple, list[Est]] = {}
        self.by_call: dict[cst.Call, Est] = {}
        # 1. constructors (and restore() classmethod calls, once their class has a visible constructor)
        restores = []
        for call in calls:
            cls = self._legacy_class(call.func)
            if cls is not None:
                self._add_constructor(call, cls)
                continue
            if isinstance(call.func, cst.Attribute) and call.func.attr.value == "restore":
                cls = self._legacy_class(call.func.value)
                if cls is not None:
                    restores.append((call, cls))
        for call, cls in restores:
            self._add_restore(call, cls)
        tf1 = TF1_MARKERS.search(self.source or node.code) is not None
        for call in calls:
            name = self.qualified_name(call.func) or ""
            if name.startswith("tensorflow.estimator.") and name.rpartition(".")[2] in CANNED:
                self._plan_tf1_canned(call, name.rpartition(".")[2], tf1)
        # 2. method calls on the bindings (and on SKCompat wrappers of them: sk_via, TFM119)
        methods: list[tuple[Est, cst.Call, str]] = []
        self.sk_via: dict[cst.Call, cst.Call] = {}  # a method call -> the SKCompat(...) call its receiver went through
        self.sk_unwrapped: set[cst.Call] = set()  # the SKCompat(...) calls replaced by their estimator
        for call in calls:
            if isinstance(call.func, cst.Attribute) and call not in self.by_call:
                self._sk_seen = None
                est = self._receiver(call.func.value)
                if est is not None:
                    if self._sk_seen is not None:
                        self.sk_via[call] = self._sk_seen
                    methods.append((est, call, call.func.attr.value))
                    if call.func.attr.value == "fit":
                        est.fits.append(call)
                    elif call.func.attr.value == "save":
                        est.saves.append(call)
        self.methods = methods
        # 3. constructors: decide and build
        for est in self.ests:
            if est.source is None:
                self._plan_constructor(est)
        for est in self.ests:
            if est.source is not None:
                self._plan_restore(est)
        skcompat.plan_wrappers(self, calls)  # TFM119: SKCompat(e) -> e, where e is rewritten
        # 4. methods
        for est, call, method in methods:
            self._plan_method(est, call, method)
        ModelCalls(self).plan(calls, attrs)  # TFM116-TFM118 (transforms/learn_models.py)
        flow.escapes(self)  # TFM131: where the rewritten estimator goes beyond what is followed
        flow.unfollowed_calls(self, {call for _, call, _ in methods})  # TFM133
        inputs.feature_dict_input_fns(self, methods)  # TFM134
        for attr in attrs:
            if attr.attr.value in ("weights_", "bias_"):
                est = self._receiver(attr.value)
                if est is not None:
                    self._plan_weights(est, attr)
        for call in calls:  # tf.train.load_variable(<a migrated estimator's model_dir>, "<legacy name>")  (TFM135)
            if (self.qualified_name(call.func) or "") in LOAD_VARIABLE:
                self._plan_load_variable(call)
        # 5. imports
        if self.changed:
            if self.need_tf:
                self.imports.add("tensorflow", asname="tf")
            if self.need_np:
                self.imports.add("numpy", asname="np")
            for imp in imports:
                self._drop_legacy_import(imp)

    def _legacy_class(self, func: cst.BaseExpression) -> LegacyClass | None:
        name = self.qualified_name(func)
        if not name:
            return None
        module, _, last = name.rpartition(".")
        if module == "skflow" or module.startswith("skflow."):
            return SKFLOW.get(last)
        # tf.contrib.skflow (TF 0.9-0.11) was `from tensorflow.contrib.learn.python.learn import *`: TF Learn's
        # classes and defaults, not the standalone skflow package's
        if module in ("tensorflow.contrib.learn", "tensorflow.contrib.skflow") or module.startswith(
                ("tensorflow.contrib.learn.", "tensorflow.contrib.skflow.")):
            return LEARN.get(last)
        return None

    def _parent(self, node: cst.CSTNode) -> cst.CSTNode | None:
        try:
            return self.get_metadata(ParentNodeProvider, node)
        except KeyError:
            return None

    def _line(self, node: cst.CSTNode) -> int:
        return self.get_metadata(PositionProvider, node).start.line

    def _binding_key(self, call: cst.Call) -> tuple | None:
        parent = self._parent(call)
        if not isinstance(parent, cst.Assign) or len(parent.targets) != 1:
            return None
        target = parent.targets[0].target
        if isinstance(target, cst.Name):
            return ("name", id(self.scopes.scope_of(target)), target.value)
        if isinstance(target, cst.Attribute) and isinstance(target.value, cst.Name) and target.value.value == "self":
            return ("self", target.attr.value)
        return None

    def _add_constructor(self, call: cst.Call, cls: LegacyClass) -> None:
        args, problems = bind_args(call, cls.params)
        est = Est(cls, call, args, self._binding_key(call))
        if problems:
            est.ok = False
            self.flag(call, TFM112 if cls.target else TFM110, f"{cls.name}: cannot map {', '.join(problems)}; "
                      "rewrite this constructor by hand as tf.estimator." + (cls.target or "Estimator"))
        self._register(est)

    def _add_restore(self, call: cst.Call, cls: LegacyClass) -> None:
        sources = [e for e in self.ests if e.cls is cls and e.source is None]
        if cls.target is None:  # TensorFlowEstimator.restore(path) rebuilt whatever class was saved there
            sources = [e for e in self.ests if e.cls.era == cls.era and e.source is None and e.cls.target]
        path = call.args[0].value if call.args and call.args[0].keyword is None else None
        for arg in call.args:
            if arg.keyword and arg.keyword.value == "path":
                path = arg.value
        # the classes whose constructors could have saved it (every one of the era for TensorFlowEstimator)
        possible = {cls.name} if cls.target else {c.name for c in (*SKFLOW.values(), *LEARN.values()) if c.era == cls.era and c.target}
        if cls.target is None and len(sources) == 1:
            cls = sources[0].cls
        est = Est(cls, call, {}, self._binding_key(call), restore_path=path)
        if len(sources) != 1 or path is None or cls.target is None or self._constructors_elsewhere(possible):
            est.ok = False
            self.flag(call, TFM108, f"{cls.name}.restore(path): tf.estimator restores from model_dir; build "
                      f"tf.estimator.{cls.target or 'Estimator'}(...) with the hyperparameters of the saved model and "
                      "model_dir=path (the constructor that saved it is not the only one visible in this module)")
        else:
            est.source = sources[0]
        self._register(est)

    def _constructors_elsewhere(self, names: set[str]) -> bool:
        """Does the whole module construct the restored class more often than this module shows? (Where
        this module is a chunk of a huge one, tfmigrate/codemod/chunks.py: the whole module's engine
        sees those constructors too and declines, so the chunk does.)"""
        for name in names:
            total = module_calls(self.context.facts, name)
            if total is not None and total > sum(1 for c in self.index.nodes(cst.Call) if _called_name(c) == name):
                return True
        return False

    def _register(self, est: Est) -> None:
        self.ests.append(est)
        self.by_call[est.call] = est
        if est.key is not None:
            self.by_key.setdefault(est.key, []).append(est)

    def _assigned_by_statement(self, name: str) -> bool:
        """Is ``name`` the target of some ``name = ...`` statement (else no assignment can be one)?"""
        if self._assign_names is None:
            self._assign_names = {
                t.target.value for t in self.index.nodes(cst.AssignTarget) if isinstance(t.target, cst.Name)
            }
        return name in self._assign_names

    def _single_assignment(self, name: cst.Name):
        if not self._assigned_by_statement(name.value):
            return None
        scope = self.scopes.scope_of(name)
        if scope is None:
            return None
        assignments = list(scope[name.value])
        if len(assignments) != 1 or not isinstance(getattr(assignments[0], "node", None), cst.Name):
            return None
        target = assignments[0].node
        assign_target = self._parent(target)
        assign = self._parent(assign_target) if isinstance(assign_target, cst.AssignTarget) else None
        if not isinstance(assign, cst.Assign) or len(assign.targets) != 1:
            return None
        return assignments[0], assign

    def _receiver(self, expr: cst.BaseExpression, depth: int = 0) -> Est | None:
        if depth > 4:
            return None
        if isinstance(expr, cst.Call):
            if expr in self.by_call:  # learn.DNNClassifier(...).fit(...)
                return self.by_call[expr]
            if skcompat.is_skcompat(self, expr):  # SKCompat(estimator): its calls are the estimator's (TFM119)
                inner = skcompat.wrapped(expr)
                if inner is None:
                    return None
                self._sk_seen = expr
                return self._receiver(inner, depth + 1)
            if isinstance(expr.func, cst.Attribute) and expr.func.attr.value == "fit":  # fit() returned self
                return self._receiver(expr.func.value, depth + 1)
            return flow.follow_call(self, expr, depth)  # m = build(): the estimator the helper returns
        if isinstance(expr, cst.Name):
            found = self._single_assignment(expr)
            assign = found[1] if found is not None else self._reaching_assignment(expr)
            if assign is None:  # def train(classifier, x, y): classifier.fit(...), called with the estimator
                return flow.follow_param(self, expr, depth)
            return self._receiver(assign.value, depth + 1)
        if isinstance(expr, cst.Attribute) and isinstance(expr.value, cst.Name) and expr.value.value == "self":
            ests = self.by_key.get(("self", expr.attr.value), [])
            if not ests:  # self.model = build()
                return flow.self_attribute(self, expr.attr.value, depth)
            return ests[0] if len(ests) == 1 else None
        if isinstance(expr, cst.Subscript):  # estimators collected in a list: regressors[0].predict(...)
            return list_receiver(self, expr, depth)
        return None

    def _reaching_assignment(self, name: cst.Name) -> cst.Assign | None:
        """The assignment a use sees when the name is reassigned in straight-line code (``clf = restore()``)."""
        if not self._assigned_by_statement(name.value):
            return None
        scope = self.scopes.scope_of(name)
        if scope is None:
            return None
        assigns = []
        for assignment in scope[name.value]:
            target = getattr(assignment, "node", None)
            assign_target = self._parent(target) if isinstance(target, cst.Name) else None
            assign = self._parent(assign_target) if isinstance(assign_target, cst.AssignTarget) else None
            line = self._parent(assign) if isinstance(assign, cst.Assign) else None
            block = self._parent(line) if isinstance(line, cst.SimpleStatementLine) else None
            owner = self._parent(block) if isinstance(block, cst.IndentedBlock) else block
            if not (isinstance(owner, cst.Module) or (isinstance(owner, cst.FunctionDef) and assignment.scope is scope)):
                return None  # assigned inside a branch or loop: not provable
            if len(assign.targets) != 1:
                return None
            assigns.append(assign)
        use = self._line(name)
        before = [a for a in assigns if self._line(a) < use]
        return max(before, key=self._line) if before else None

    # --- facts from the data ---------------------------------------------------------------------
    def _literal_width(self, value: cst.BaseExpression) -> int | None:
        if isinstance(value, cst.Call):
            func = value.func
            name = self.qualified_name(func) or ""
            if isinstance(func, cst.Attribute) and func.attr.value == "astype":
                return self._literal_width(func.value)
            positional = [a.value for a in value.args if a.keyword is None and not a.star]
            keywords = {a.keyword.value: a.value for a in value.args if a.keyword}
            if name in ("numpy.random.rand", "numpy.random.randn") and len(positional) == 2:
                return int_value(positional[1])
            shape = None
            if name in ("numpy.zeros", "numpy.ones", "numpy.empty", "numpy.random.random", "numpy.random.random_sample"):
                shape = positional[0] if positional else keywords.get("shape", keywords.get("size"))
            elif name.startswith("numpy.random.") or name.startswith("numpy.random.RandomState"):
                shape = keywords.get("size")
            elif isinstance(func, cst.Attribute) and func.attr.value in ("rand", "randn") and len(positional) == 2:
                return int_value(positional[1])
            elif isinstance(func, cst.Attribute) and func.attr.value in ("normal", "uniform", "random", "randint"):
                shape = keywords.get("size")
            if isinstance(shape, cst.Tuple) and len(shape.elements) == 2:
                return int_value(shape.elements[1].value)
            if name in ("numpy.array", "numpy.asarray") and positional and isinstance(positional[0], cst.List):
                rows = positional[0].elements
                if rows and isinstance(rows[0].value, (cst.List, cst.Tuple)):
                    return len(rows[0].value.elements)
        return None

    def _width(self, est: Est, x: cst.BaseExpression) -> None:
        root = x
        while isinstance(root, cst.Attribute):
            root = root.value
        if not isinstance(root, cst.Name):
            return
        if root.value == "self" and isinstance(x, cst.Attribute) and x.value is root:
            if self._self_bound_before(x.attr.value, est.call):
                est.width = f"{code_of(x)}.shape[1:]"
                est.width_note = f"the feature width comes from the data: {code_of(x)}.shape[1:]"
            return
        found = self._single_assignment(root)
        if found is not None and root is x:
            width = self._literal_width(found[1].value)
            if width is not None:
                est.width = f"[{width}]"
                return
        if self._bound_before(root, est.call) or flow.free_name(self, root):
            est.width = f"{code_of(x)}.shape[1:]"
            est.width_note = f"the feature width comes from the data: {code_of(x)}.shape[1:]"

    def _self_bound_before(self, attr: str, call: cst.Call) -> bool:
        """``self.<attr>`` is assigned once in the class, earlier in the method that builds the estimator."""
        here = self.scopes.scope_of(call)
        assigned = [t for t in self.self_targets if t.attr.value == attr]
        if len(assigned) != 1 or here is None:
            return False
        target = assigned[0]
        return self.scopes.scope_of(target) is here and self._line(target) < self._line(call)

    def _bound_before(self, name: cst.Name, call: cst.Call) -> bool:
        """``name`` (used elsewhere) holds its final value where ``call`` runs: a parameter of that
        function, or every assignment to it is a plain ``=`` statement before ``call``
        (``X_train, X_test, ... = train_test_split(X, ...)`` then ``X_train = scaler.fit_transform(X_train)``
        is common). So the data the estimator is built for is the data ``fit`` later gets."""
        scope = self.scopes.scope_of(name)
        here = self.scopes.scope_of(call)
        assignments = list(scope[name.value]) if scope is not None else []
        if not assignments or here is None:
            return False
        if len(assignments) == 1 and isinstance(getattr(assignments[0], "node", None), cst.Param):
            return assignments[0].scope is here
        for assignment in assignments:
            node = getattr(assignment, "node", None)
            if not isinstance(node, cst.Name) or not (assignment.scope is here or getattr(assignment.scope, "is_global", False)):
                return False
            statement = node
            while statement is not None and not isinstance(statement, cst.SimpleStatementLine):
                statement = self._parent(statement)
            if statement is None or not isinstance(statement.body[0], cst.Assign) or self._line(statement) >= self._line(call):
                return False
        return True

    def _commit(self) -> None:
        """Apply the side changes a constructor fix needs (inferred columns, a dead optimizer variable)."""
        for node, new in self.pending:
            if new is None:
                self.remove.add(node)
            else:
                self.replace[node] = new
        self.pending = []

    def _apply(self, node: cst.CSTNode, new: cst.CSTNode) -> None:
        self.replace[node] = new
        self.changed = True
        self.need_tf = True

    # --- applying the plan ------------------------------------------------------------------------
    def leave_Call(self, original: cst.Call, updated: cst.Call) -> cst.BaseExpression:
        return self._replacement(original, updated)

    def leave_Attribute(self, original: cst.Attribute, updated: cst.Attribute) -> cst.BaseExpression:
        return self._replacement(original, updated)

    def leave_FunctionDef(self, original: cst.FunctionDef, updated: cst.FunctionDef) -> cst.CSTNode:
        return self._replacement(original, updated)  # a legacy model_fn rewritten (transforms/model_fn.py)

    def _replacement(self, original: cst.CSTNode, updated: cst.CSTNode) -> cst.CSTNode:
        new = self.replace.get(original)
        if new is None:
            return updated
        # the planned node reuses original children; swap in the plans made for them too
        # (clf.evaluate(x=X, y=clf.predict(X)))
        return transform(new, _Planned(self.replace, skip=new))

    def _drop_removed(self, original_body, updated_body) -> tuple[list, list[cst.EmptyLine]]:
        """The block without the removed statements, and the comment lines left at its end.

        A removed statement's comment lines stay, on the next statement (as the transform driver
        keeps them); without comments, the first removed statement's spacing goes to a next
        statement that has none of its own."""
        body, spacing, comments = [], None, []
        for old, new in zip(original_body, updated_body):
            if old in self.remove:
                kept = comment_lines_above(new)
                comments += kept
                if not kept and spacing is None and getattr(new, "leading_lines", None):
                    spacing = list(new.leading_lines)
                continue
            if comments and hasattr(new, "leading_lines"):
                new = with_lines_above(new, comments)
            elif spacing and hasattr(new, "leading_lines") and not new.leading_lines:
                new = new.with_changes(leading_lines=spacing)
            spacing, comments = None, []
            body.append(new)
        return body, comments

    def leave_IndentedBlock(self, original: cst.IndentedBlock, updated: cst.IndentedBlock) -> cst.IndentedBlock:
        if not self.remove:
            return updated
        body, comments = self._drop_removed(original.body, updated.body)
        return updated.with_changes(body=body or [cst.SimpleStatementLine([cst.Pass()])], footer=[*comments, *updated.footer])

    def leave_Name(self, original: cst.Name, updated: cst.Name) -> cst.BaseExpression:
        return self._replacement(original, updated) if self.replace else updated

    def leave_Dict(self, original: cst.Dict, updated: cst.Dict) -> cst.BaseExpression:
        return self._replacement(original, updated) if self.replace else updated

    def leave_Module(self, original: cst.Module, updated: cst.Module) -> cst.Module:
        updated = estimator_sklearn.add_adapter(self, updated)  # TFM132, when a pipeline step was wrapped
        updated = helpers.insert_after_imports(  # the functions the rewritten calls use (TFM119, TFM120)
            updated, learn_ops.add_helper(self, updated) + skcompat.add_helper(self, updated))
        if not self.remove:
            return updated
        body, comments = self._drop_removed(original.body, updated.body)
        return updated.with_changes(body=body, footer=[*comments, *updated.footer])


class _Planned(cst.CSTTransformer):
    VISITS_TRIVIA = False  # plans replace expressions, never tokens or whitespace

    def __init__(self, plan: dict[cst.CSTNode, cst.CSTNode], skip: cst.CSTNode) -> None:
        super().__init__()
        self.plan, self.skip = plan, skip

    def on_leave(self, original, updated):
        if original is not self.skip and original in self.plan:
            return transform(self.plan[original], _Planned(self.plan, skip=self.plan[original]))
        return updated


def _called_name(call: cst.Call) -> str | None:
    """``name`` of ``name(...)`` or ``x.name(...)`` (what codemod.chunks counts as a call of it)."""
    func = call.func
    return func.value if isinstance(func, cst.Name) else func.attr.value if isinstance(func, cst.Attribute) else None
