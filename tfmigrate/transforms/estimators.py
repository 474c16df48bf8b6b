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
from dataclasses import dataclass, field

import libcst as cst
from libcst.metadata import ParentNodeProvider, PositionProvider

from tfmigrate.codemod.walk import comment_lines_above, transform, with_lines_above
from tfmigrate.codemod.transform import FamilyTransform, is_suppressed
from tfmigrate.codemod.positions import code_lengths
from tfmigrate.codemod.tree import expression
from tfmigrate.rule_ids import (
    TFM101, TFM102, TFM103, TFM104, TFM105, TFM106, TFM107, TFM108, TFM109, TFM110, TFM112, TFM113,
)
from tfmigrate.transforms.learn_models import ModelCalls
from tfmigrate.transforms.model_fn import PREDICTS, ModelFnPlanner, list_receiver
from tfmigrate.transforms import estimator_flow as flow, estimator_sklearn
from tfmigrate.transforms.estimator_monitors import RULE as MONITORS_RULE, Converter as MonitorConverter
from tfmigrate.transforms.estimator_flow import combined_optimizers
from tfmigrate.transforms.estimators_defaults import (
    LEARN,
    LEARN_DNN_RATE,
    LOST,
    OPTIMIZER_NAMES,
    SKFLOW,
    TF1_OPTIMIZERS,
    LegacyClass,
)

NUMPY_INPUT_FN = "tf.compat.v1.estimator.inputs.numpy_input_fn"
FEATURE_KEY = "x"
MEAN_LOSS = "tf.keras.losses.Reduction.SUM_OVER_BATCH_SIZE"  # the legacy heads averaged the loss over the batch
SUM_LOSS = "tf.keras.losses.Reduction.SUM"  # TF 1.x tf.estimator canned estimators summed it
CANNED = ("DNNClassifier", "DNNRegressor", "LinearClassifier", "LinearRegressor", "DNNLinearCombinedClassifier",
          "DNNLinearCombinedRegressor")
# text that only TF 1.x programs contain: a file with none of it may already be TF 2 code
TF1_MARKERS = re.compile(
    r"\btf\.(logging|app|contrib|flags|gfile|Session|InteractiveSession|placeholder|variable_scope|get_variable"
    r"|global_variables_initializer|estimator\.inputs)\b|\btf\.train\.(\w+Optimizer|Saver|MonitoredTrainingSession"
    r"|get_global_step)\b|make_one_shot_iterator|make_initializable_iterator|contrib\.learn|skflow"
)
_LEGACY_MODULES = ("skflow", "tensorflow.contrib.skflow", "tensorflow.contrib.learn")


def _expr(code: str) -> cst.BaseExpression:
    return expression(code)


def _code(node: cst.CSTNode) -> str:
    return cst.Module(body=[]).code_for_node(node)


def _kw(name: str, value: cst.BaseExpression) -> cst.Arg:
    return cst.Arg(
        value=value,
        keyword=cst.Name(name),
        equal=cst.AssignEqual(whitespace_before=cst.SimpleWhitespace(""), whitespace_after=cst.SimpleWhitespace("")),
    )


def _call(func: str, args: list[cst.Arg]) -> cst.Call:
    fixed = []
    for i, arg in enumerate(args):
        comma = cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")) if i < len(args) - 1 else cst.MaybeSentinel.DEFAULT
        fixed.append(arg.with_changes(comma=comma))
    return cst.Call(func=_expr(func), args=fixed)


def _layout(
    call: cst.Call, depth: int = 1, limit: int = 100, nested: bool = True, lengths: dict[int, int] | None = None
) -> cst.Call:
    """One argument a line when the call is long (the block's own indentation is added by libcst)."""
    lengths = lengths or code_lengths(call)  # of the call and everything in it, one-line
    if lengths[id(call)] <= limit or not call.args:
        return call

    def newline(indent: str) -> cst.ParenthesizedWhitespace:
        return cst.ParenthesizedWhitespace(
            first_line=cst.TrailingWhitespace(), empty_lines=[], indent=True, last_line=cst.SimpleWhitespace(indent)
        )

    inner, outer = "    " * depth, "    " * (depth - 1)
    args = []
    for i, arg in enumerate(call.args):
        value = arg.value
        if nested and isinstance(value, cst.Call) and lengths[id(value)] + len(inner) + 12 > limit:
            value = _layout(value, depth + 1, limit, lengths=lengths)
        last = i == len(call.args) - 1
        args.append(arg.with_changes(value=value, comma=cst.Comma(whitespace_after=newline(outer if last else inner))))
    return call.with_changes(whitespace_before_args=newline(inner), args=args)


def _append_args(call: cst.Call, replaced: list[cst.Arg], extra: list[cst.Arg]) -> cst.Call:
    """``call`` with ``replaced`` args (same count as call.args) plus ``extra``, keeping the layout."""
    old = list(call.args)
    commas = [a.comma for a in old if isinstance(a.comma, cst.Comma)]
    style = commas[-1] if commas else cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))
    if commas and not isinstance(old[-1].comma, cst.Comma) and len(commas) == len(old) - 1:
        style = commas[-1]
    last_comma = old[-1].comma if old else cst.MaybeSentinel.DEFAULT
    out = []
    for i, arg in enumerate(replaced):
        out.append(arg.with_changes(comma=style) if i == len(replaced) - 1 else arg)
    for i, arg in enumerate(extra):
        out.append(arg.with_changes(comma=style if i < len(extra) - 1 else last_comma))
    return call.with_changes(args=out)


def _int(node: cst.BaseExpression | None) -> int | None:
    if isinstance(node, cst.Integer):
        return int(node.value)
    return None


def _string(node: cst.BaseExpression | None) -> str | None:
    if isinstance(node, cst.SimpleString):
        return node.evaluated_value if isinstance(node.evaluated_value, str) else None
    return None


def bind_args(call: cst.Call, params: tuple[str, ...]) -> tuple[dict[str, cst.BaseExpression], list[str]]:
    """Legacy arguments by name; problems (``*args``, unknown keywords, too many positionals)."""
    bound: dict[str, cst.BaseExpression] = {}
    problems: list[str] = []
    position = 0
    for arg in call.args:
        if arg.star:
            problems.append(f"{arg.star}{_code(arg.value)}")
        elif arg.keyword is None:
            if position >= len(params):
                problems.append(f"positional argument {position + 1}")
            else:
                bound[params[position]] = arg.value
            position += 1
        elif arg.keyword.value in params:
            bound[arg.keyword.value] = arg.value
        else:
            problems.append(f"{arg.keyword.value}=")
    return bound, problems


@dataclass
class Est:
    """One legacy estimator binding (a constructor call, or a ``restore`` that builds one)."""

    cls: LegacyClass
    call: cst.Call
    args: dict[str, cst.BaseExpression]
    key: tuple | None
    source: Est | None = None  # restore(): the constructor whose hyperparameters it copies
    restore_path: cst.BaseExpression | None = None
    ok: bool = True
    width: str | None = None
    width_note: str | None = None
    columns: cst.BaseExpression | None = None  # learn: the feature_columns to write
    model_dir: cst.BaseExpression | None = None
    fits: list[cst.Call] = field(default_factory=list)
    saves: list[cst.Call] = field(default_factory=list)
    key_matches: bool = True  # the feature columns read the "x" key of numpy_input_fn
    empty_key: bool = False  # the legacy columns read the unnamed feature "" (a bare tensor from input_fn)
    new: cst.Call | None = None  # the tf.estimator constructor written for it
    custom: object | None = None  # model_fn.Custom: a legacy custom-model estimator converted (TFM114/TFM115)


class EstimatorTransform(FamilyTransform):
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
        # 2. method calls on the bindings
        methods: list[tuple[Est, cst.Call, str]] = []
        for call in calls:
            if isinstance(call.func, cst.Attribute) and call not in self.by_call:
                est = self._receiver(call.func.value)
                if est is not None:
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
        # 4. methods
        for est, call, method in methods:
            self._plan_method(est, call, method)
        ModelCalls(self).plan(calls, attrs)  # TFM116-TFM118 (transforms/learn_models.py)
        flow.escapes(self)  # TFM131: where the rewritten estimator goes beyond what is followed
        flow.unfollowed_calls(self, {call for _, call, _ in methods})  # TFM133
        flow.feature_dict_input_fns(self, methods)  # TFM134
        for attr in attrs:
            if attr.attr.value in ("weights_", "bias_"):
                est = self._receiver(attr.value)
                if est is not None:
                    self._plan_weights(est, attr)
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
        if module == "skflow" or module.startswith(("skflow.", "tensorflow.contrib.skflow")):
            return SKFLOW.get(last)
        if module == "tensorflow.contrib.learn" or module.startswith("tensorflow.contrib.learn."):
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
        if cls.target is None and len(sources) == 1:
            cls = sources[0].cls
        est = Est(cls, call, {}, self._binding_key(call), restore_path=path)
        if len(sources) != 1 or path is None or cls.target is None:
            est.ok = False
            self.flag(call, TFM108, f"{cls.name}.restore(path): tf.estimator restores from model_dir; build "
                      f"tf.estimator.{cls.target or 'Estimator'}(...) with the hyperparameters of the saved model and "
                      "model_dir=path (the constructor that saved it is not the only one visible in this module)")
        else:
            est.source = sources[0]
        self._register(est)

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
                return _int(positional[1])
            shape = None
            if name in ("numpy.zeros", "numpy.ones", "numpy.empty", "numpy.random.random", "numpy.random.random_sample"):
                shape = positional[0] if positional else keywords.get("shape", keywords.get("size"))
            elif name.startswith("numpy.random.") or name.startswith("numpy.random.RandomState"):
                shape = keywords.get("size")
            elif isinstance(func, cst.Attribute) and func.attr.value in ("rand", "randn") and len(positional) == 2:
                return _int(positional[1])
            elif isinstance(func, cst.Attribute) and func.attr.value in ("normal", "uniform", "random", "randint"):
                shape = keywords.get("size")
            if isinstance(shape, cst.Tuple) and len(shape.elements) == 2:
                return _int(shape.elements[1].value)
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
                est.width = f"{_code(x)}.shape[1:]"
                est.width_note = f"the feature width comes from the data: {_code(x)}.shape[1:]"
            return
        found = self._single_assignment(root)
        if found is not None and root is x:
            width = self._literal_width(found[1].value)
            if width is not None:
                est.width = f"[{width}]"
                return
        if self._bound_before(root, est.call) or flow.free_name(self, root):
            est.width = f"{_code(x)}.shape[1:]"
            est.width_note = f"the feature width comes from the data: {_code(x)}.shape[1:]"

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
            if not isinstance(node, cst.Name) or not (assignment.scope is here or _is_global(assignment.scope)):
                return False
            statement = node
            while statement is not None and not isinstance(statement, cst.SimpleStatementLine):
                statement = self._parent(statement)
            if statement is None or not isinstance(statement.body[0], cst.Assign) or self._line(statement) >= self._line(call):
                return False
        return True

    # --- constructors ----------------------------------------------------------------------------
    def _optimizer(self, est: Est, value: cst.BaseExpression | None, rate: cst.BaseExpression | None,
                   clip: cst.BaseExpression | None, default_rate: str) -> cst.BaseExpression | None:
        """A callable that builds the Keras legacy optimizer; None when it cannot be shown equivalent."""
        extra: list[cst.Arg] = []
        if clip is not None and not (isinstance(clip, cst.Name) and clip.value == "None"):
            extra.append(_kw("global_clipnorm", clip))
        lr = rate if rate is not None else _expr(default_rate)
        if not self._is_number(lr):  # e.g. a decay function of global_step (skflow accepted one)
            lr = flow.decay_schedule(self, lr)  # def f(global_step): return tf.train.exponential_decay(...)
            if lr is None:
                return None
        if value is None or _string(value) is not None:
            name = _string(value) if value is not None else None
            spec = OPTIMIZER_NAMES.get(name or "")
            if spec is None:
                return None
            args = [_kw("learning_rate", lr)] + [_kw(k, _expr(v)) for k, v in spec[1]] + extra
            return _expr(f"lambda: tf.keras.optimizers.legacy.{spec[0]}()").with_changes(
                body=_call(f"tf.keras.optimizers.legacy.{spec[0]}", args)
            )
        node = value
        assign_stmt = None
        if isinstance(value, cst.Name):
            found = self._single_assignment(value)
            if found is None:
                return None
            assignment, assign = found
            if not isinstance(assign.value, cst.Call):
                return None
            node = assign.value
            if all(self._is_optimizer_arg(ref.node) for ref in assignment.references):
                assign_stmt = self._parent(assign)
        qn = self.qualified_name(node.func if isinstance(node, cst.Call) else node) or ""
        module, _, last = qn.rpartition(".")
        if module not in ("tensorflow.train", "tensorflow.compat.v1.train") or last not in TF1_OPTIMIZERS:
            return None
        spec = TF1_OPTIMIZERS[last]
        if isinstance(node, cst.Call):  # an instance: its own arguments (the estimator's rate is ignored)
            bound, problems = bind_args(node, spec.params)
            if problems:
                return None
            args = [_kw(spec.rename[k], v) for k, v in bound.items() if k in spec.rename]
            if "learning_rate" in bound and not self._is_number(bound["learning_rate"]):
                return None  # a TF1 decay tensor cannot drive a Keras optimizer
        else:  # a class: skflow / optimize_loss call it with the learning rate
            args = [_kw("learning_rate", lr)]
        have = {a.keyword.value for a in args if a.keyword}
        args += [_kw(k, _expr(v)) for k, v in spec.defaults if k not in have]
        if "learning_rate" not in {a.keyword.value for a in args if a.keyword}:
            return None
        args += extra
        if assign_stmt is not None and isinstance(assign_stmt, cst.SimpleStatementLine) and len(assign_stmt.body) == 1:
            self.pending.append((assign_stmt, None))
        return _expr("lambda: x").with_changes(body=_call(f"tf.keras.optimizers.legacy.{spec.target}", args))

    def _is_number(self, node: cst.BaseExpression, depth: int = 0) -> bool:
        """A number, or arithmetic on numbers and names assigned a number (never a schedule or tensor)."""
        if isinstance(node, (cst.Integer, cst.Float)):
            return True
        if isinstance(node, cst.UnaryOperation):
            return self._is_number(node.expression, depth)
        if isinstance(node, cst.BinaryOperation):
            return self._is_number(node.left, depth) and self._is_number(node.right, depth)
        if isinstance(node, cst.Name) and depth < 5:
            found = self._single_assignment(node)
            return found is not None and self._is_number(found[1].value, depth + 1)
        return False

    def _is_optimizer_arg(self, node: cst.CSTNode) -> bool:
        parent = self._parent(node)
        if not isinstance(parent, cst.Arg):
            return False
        call = self._parent(parent)
        return isinstance(call, cst.Call) and call in self.by_call and (
            (parent.keyword is not None and parent.keyword.value in ("optimizer", "dnn_optimizer", "linear_optimizer"))
            or parent.keyword is None
        )

    def _known_at_construction(self, est: Est, path: cst.BaseExpression) -> bool:
        if _string(path) is not None:
            return True
        if isinstance(path, cst.Name):
            scope = self.scopes.scope_of(path)
            assignments = list(scope[path.value]) if scope is not None else []
            if len(assignments) == 1 and isinstance(getattr(assignments[0], "node", None), cst.Param):
                return assignments[0].scope is self.scopes.scope_of(est.call)
            found = self._single_assignment(path)
            if found is not None:
                scope = self.scopes.scope_of(found[1])
                same_scope = scope is self.scopes.scope_of(est.call) or _is_global(scope)
                return same_scope and self._line(found[1]) < self._line(est.call)
        return False

    def _plan_constructor(self, est: Est) -> None:
        self.pending: list[tuple[cst.CSTNode, cst.CSTNode | None]] = []
        cls, call = est.cls, est.call
        if cls.target is None and ModelFnPlanner(self).plan(est):  # TFM114/TFM115 (transforms/model_fn.py)
            return
        if cls.target is None and cls.era == "learn" and cls.name == "Estimator":
            est.ok = False  # TFM153 (contrib_learn) reports it
            return
        if cls.target is None:
            what = "TensorFlowEstimator(model_fn=...)" if cls.era != "learn" else "tf.contrib.learn.Estimator(model_fn=...)"
            self.flag(call, TFM110, f"{what} with a custom model_fn: rewrite model_fn(features, labels, mode, params) "
                      "to return tf.estimator.EstimatorSpec(mode, predictions=..., loss=..., train_op=...) "
                      "(train_op from a tf.keras.optimizers.legacy optimizer's get_updates or "
                      "tf.compat.v1.train optimizer minimize with global_step), build "
                      "tf.estimator.Estimator(model_fn=model_fn, model_dir=..., config=tf.estimator.RunConfig(...)), "
                      "and feed fit/predict data through tf.compat.v1.estimator.inputs.numpy_input_fn")
            est.ok = False
            return
        if not est.ok:
            return
        if cls.era == "learn":
            self._plan_learn(est)
        else:
            self._plan_tensorflow_x(est)

    def _plan_tf1_canned(self, call: cst.Call, name: str, tf1: bool) -> None:
        """TFM113: a TF 1.x tf.estimator canned estimator keeps its TF 1.x loss and optimizer in TF 2.15."""
        keywords = {a.keyword.value: a for a in call.args if a.keyword}
        if "loss_reduction" in keywords or any(a.star for a in call.args):
            return
        if not tf1:
            return
        self.pending = []
        args = list(call.args)
        extra: list[cst.Arg] = []
        notes = ["loss_reduction=SUM (TF 1.x summed the loss over the batch; TF 2 averages it)"]
        positional = sum(1 for a in call.args if a.keyword is None)
        if positional >= 5:  # the optimizer may be among them
            self.flag(call, TFM113, f"tf.estimator.{name}: TF 2.15 averages the loss (TF 1.x summed it) and builds "
                      "a string/default optimizer at the Keras rate; pass loss_reduction=tf.keras.losses.Reduction.SUM "
                      "and optimizer=lambda: tf.keras.optimizers.legacy.<Name>(learning_rate=...) by hand")
            return
        dnn = name in ("DNNClassifier", "DNNRegressor")
        given: list[tuple[cst.BaseExpression, cst.BaseExpression]] = []
        for key in ("optimizer", "dnn_optimizer", "linear_optimizer"):
            value = keywords[key].value if key in keywords else None
            if value is not None and (self._is_keras_callable(value) or (_string(value) is not None and not dnn)):
                continue
            if value is None and not (dnn and key == "optimizer"):
                continue
            optimizer = self._optimizer(None, value if value is not None else _expr('"Adagrad"'), None, None,
                                        LEARN_DNN_RATE)
            if optimizer is None:
                self.flag(call, TFM103, f"tf.estimator.{name}: {key}={_code(value)} must become a callable "
                          "returning a tf.keras.optimizers.legacy optimizer with the same learning rate")
                return
            if value is None:
                extra.append(_kw("optimizer", optimizer))
                notes.append(f"the TF 1.x default optimizer (Adagrad at {LEARN_DNN_RATE}; TF 2 uses 0.001)")
            else:
                if not self._allowed(value, TFM103):
                    return
                given.append((value, optimizer))
                args = [a.with_changes(value=optimizer) if a is keywords[key] else a for a in args]
                notes.append(f"{key} as a tf.keras.optimizers.legacy callable with the TF 1.x rate")
        extra.append(_kw("loss_reduction", _expr(SUM_LOSS)))
        if self.fix(call, TFM113, f"TF 1.x tf.estimator.{name} in TF 2.15: " + "; ".join(notes)):
            self._apply(call, _append_args(call, args, extra) if args else _call(_code(call.func), extra))
            self._commit()
            self._report_optimizers(given)
        self.pending = []

    def _allowed(self, node: cst.CSTNode, rule_id: str) -> bool:
        """``rule_id`` is enabled and not suppressed at ``node`` (checked before a combined fix)."""
        return self.enabled(rule_id) and not is_suppressed(rule_id, self._lines(node)[2], self._suppressed)

    def _report_optimizers(self, given: list[tuple[cst.BaseExpression, cst.BaseExpression]]) -> None:
        for old, new in given:
            self.fix(old, TFM103, f"optimizer={_code(old)} -> optimizer={_code(new)} (a tf.keras.optimizers.legacy "
                     "optimizer built afresh for every train(), with the legacy rate)")

    def _is_keras_callable(self, value: cst.BaseExpression) -> bool:
        return isinstance(value, cst.Lambda) or "keras" in _code(value)

    def _lost(self, est: Est) -> list[str]:
        lost = []
        for name in ("continue_training", "verbose", "class_weight", "early_stopping_rounds", "num_cores", "tf_master",
                     "config_addon", "feature_engineering_fn", "embedding_lr_multipliers", "input_layer_min_slice_size",
                     "_joint_weight", "_joint_weights", "_joint_linear_weights", "fix_global_step_increment_bug"):
            if name in est.args:
                lost.append(name)
        value = est.args.get("enable_centered_bias")
        if value is not None and not (isinstance(value, cst.Name) and value.value in ("False", "None")):
            lost.append("enable_centered_bias")
        return lost

    def _plan_tensorflow_x(self, est: Est) -> None:
        cls, a = est.cls, est.args
        x = None
        for fit in est.fits:
            bound, _ = bind_args(fit, ("x", "y", "monitor", "logdir"))
            if "x" not in bound:
                bound = {k.replace("X", "x"): v for k, v in bound.items()}
            for arg in fit.args:
                if arg.keyword and arg.keyword.value == "X":
                    bound["x"] = arg.value
            if "x" in bound:
                x = bound["x"]
                break
        if x is not None:
            self._width(est, x)
        if est.width is None:
            est.ok = False
            self.flag(est.call, TFM101, f"{cls.name}: the number of input features cannot be seen here (no fit(x, y) "
                      "on data whose width is known when the estimator is built); build "
                      f"tf.estimator.{cls.target}(feature_columns=[tf.feature_column.numeric_column(\"x\", shape=[WIDTH])], ...) "
                      "by hand and feed {\"x\": data} through numpy_input_fn")
            return
        optimizer = self._optimizer(est, a.get("optimizer", _expr(cls.defaults["optimizer"])), a.get("learning_rate"),
                                    a.get("clip_gradients", _expr(cls.defaults["clip_gradients"]) if "clip_gradients" in cls.defaults else None),
                                    cls.defaults["learning_rate"])
        if optimizer is None:
            est.ok = False
            given = ", ".join(f"{k}={_code(a[k])}" for k in ("optimizer", "learning_rate") if k in a)
            self.flag(est.call, TFM103, f"{cls.name}: {given or 'the optimizer'} has no provable "
                      "tf.keras.optimizers.legacy equivalent (a learning-rate schedule must become a "
                      "tf.keras.optimizers.schedules schedule); pass optimizer=lambda: tf.keras.optimizers.legacy.<Name>("
                      f"learning_rate=...) to tf.estimator.{cls.target} by hand")
            return
        given = [(a["optimizer"], optimizer)] if "optimizer" in a else []
        if given and not self._allowed(a["optimizer"], TFM103):
            est.ok = False
            self.flag(est.call, TFM101, f"{cls.name} left as it is: its optimizer must change too (TFM103), "
                      "which is disabled or suppressed here")
            return
        # model_dir: the path given to save()
        for save in est.saves:
            path = save.args[0].value if save.args else None
            if (path is not None and est.model_dir is None and self._statement(save) is not None
                    and (self._known_at_construction(est, path) or flow.path_known(self, est, path))):
                cleared = flow.path_cleared(self, est, save, path)
                if cleared is not None:  # shutil.rmtree(path) before save(path) would delete model_dir's checkpoints
                    self.flag(save, TFM107, f"save({_code(path)}): the program deletes or recreates this path on "
                              f"line {self._line(cleared)} before saving, so it cannot become model_dir (train() writes "
                              "its checkpoints there); export after that line by hand: copy the checkpoint files of "
                              "the estimator's model_dir to the path, or use a model_dir of its own and export_saved_model")
                    self.reported_saves.add(save)
                    continue
                est.model_dir = path
        args: list[cst.Arg] = []
        if cls.dnn:
            args.append(_kw("hidden_units", a["hidden_units"]))
        args.append(_kw("feature_columns", _expr(f'[tf.feature_column.numeric_column("{FEATURE_KEY}", shape={est.width})]')))
        if cls.classifier:
            args.append(_kw("n_classes", a.get("n_classes", _expr("2"))))
        args.append(_kw("optimizer", optimizer))
        if cls.dnn and "dropout" in a:
            args.append(_kw("dropout", a["dropout"]))
        if est.model_dir is not None:
            args.append(_kw("model_dir", est.model_dir))
        config = self._config(est)
        if config is not None:
            args.append(_kw("config", config))
        args.append(_kw("loss_reduction", _expr(MEAN_LOSS)))
        new = _layout(_call(f"tf.estimator.{cls.target}", args))
        lost = self._lost(est)
        given_object = "optimizer" in a and _string(a["optimizer"]) is None
        default_notes = [f"{k}={v}" for k, v in cls.defaults.items()
                         if k not in a and k != "optimizer" and not (given_object and k == "learning_rate")]
        message = (f"{cls.name} -> tf.estimator.{cls.target}; legacy defaults written out"
                   + (f" ({', '.join(default_notes)})" if default_notes else "")
                   + (f"; {est.width_note}" if est.width_note else ""))
        if self.fix(est.call, TFM101, message):
            self._apply(est.call, new)
            self._commit()
            self._report_optimizers(given)
            est.new = new
            for name in lost:
                self.flag(est.call, TFM112, f"{cls.name}({name}=...) has no tf.estimator equivalent: {LOST[name]}")
            if len(est.fits) > 1 and "continue_training" not in a:
                self.flag(est.fits[1], TFM112, f"{cls.name} is fit more than once: the legacy estimator (continue_training"
                          "=False) started from scratch on every fit(), tf.estimator continues from the checkpoint in "
                          "model_dir; use a new model_dir per fit to keep the old behaviour")
        else:
            est.ok = False

    def _config(self, est: Est) -> cst.BaseExpression | None:
        a = est.args
        settings: list[cst.Arg] = []
        if est.cls.era == "skflow":
            settings.append(_kw("tf_random_seed", a.get("tf_random_seed", _expr(est.cls.defaults["tf_random_seed"]))))
            if "max_to_keep" in a:
                settings.append(_kw("keep_checkpoint_max", a["max_to_keep"]))
            if "keep_checkpoint_every_n_hours" in a:
                settings.append(_kw("keep_checkpoint_every_n_hours", a["keep_checkpoint_every_n_hours"]))
            return _call("tf.estimator.RunConfig", settings)
        if est.cls.era == "learn08" and "config" not in a:  # 0.8 RunConfig() seeded with tf_random_seed=42
            return _call("tf.estimator.RunConfig", [_kw("tf_random_seed", _expr("42"))])
        return a.get("config")

    def _plan_learn(self, est: Est) -> None:
        cls, a = est.cls, est.args
        lost = [n for n in self._lost(est) if n in ("feature_engineering_fn", "embedding_lr_multipliers")]
        if lost:
            est.ok = False
            self.flag(est.call, TFM112, f"{cls.name}({lost[0]}=...) has no tf.estimator equivalent: {LOST[lost[0]]}; "
                      "the constructor is left as it is")
            return
        args: list[cst.Arg] = []
        given: list[tuple[cst.BaseExpression, cst.BaseExpression]] = []
        if cls.name.startswith("DNNLinearCombined"):
            for name in ("model_dir", "n_classes", "linear_feature_columns", "linear_optimizer", "dnn_feature_columns",
                         "dnn_optimizer", "dnn_hidden_units", "dnn_activation_fn", "dnn_dropout", "config"):
                if name in a:
                    args.append(_kw(name, a[name]))
            if "linear_optimizer" in a or "dnn_optimizer" in a or "gradient_clip_norm" in a:
                est.ok = False
                self.flag(est.call, TFM103, f"{cls.name}: convert linear_optimizer/dnn_optimizer/gradient_clip_norm "
                          "by hand to callables returning tf.keras.optimizers.legacy optimizers with the same rates")
                return
            # TF 2.15 trains the two parts at Adagrad 0.001 / Ftrl min(0.005, 1/sqrt(n)); contrib.learn at 0.05 / 0.2
            defaults = combined_optimizers(a, _code)
            if defaults is None:
                est.ok = False
                self.flag(est.call, TFM103, f"{cls.name}: the legacy Ftrl rate of the linear part is min(0.2, "
                          "1/sqrt(number of linear_feature_columns)) and that number is not visible here; pass "
                          "linear_optimizer=lambda: tf.keras.optimizers.legacy.Ftrl(learning_rate=...) and "
                          "dnn_optimizer=lambda: tf.keras.optimizers.legacy.Adagrad(learning_rate=0.05) by hand")
                return
            position = next((i for i, arg in enumerate(args) if arg.keyword and arg.keyword.value == "config"), len(args))
            args[position:position] = [_kw(k, _expr(v)) for k, v in defaults]
        else:
            if cls.dnn:
                args.append(_kw("hidden_units", a["hidden_units"]))
            columns = a.get("feature_columns")
            if columns is None or (isinstance(columns, cst.Name) and columns.value == "None"):
                # contrib.learn 0.10/0.11 inferred real-valued columns from the features fit() got: the width
                # of fit's x, as the skflow rewrite (TFM101) reads it
                x = flow.fit_data(est)
                if x is not None:
                    self._width(est, x)
                if est.width is None:
                    est.ok = False
                    self.flag(est.call, TFM102, f"{cls.name} without feature_columns (the legacy estimator inferred "
                              "them from fit's x): the width of x cannot be seen here; pass feature_columns="
                              '[tf.feature_column.numeric_column("x", shape=[WIDTH])] by hand')
                    return
                est.empty_key = True
                args.append(_kw("feature_columns", _expr(f'[tf.feature_column.numeric_column("{FEATURE_KEY}", '
                                                         f'shape={est.width})]')))
            else:
                args.append(_kw("feature_columns", self._columns(est, columns)))
            if "model_dir" in a:
                args.append(_kw("model_dir", a["model_dir"]))
            if cls.classifier and "n_classes" in a:
                args.append(_kw("n_classes", a["n_classes"]))
            if "label_dimension" in a:
                args.append(_kw("label_dimension", a["label_dimension"]))
            if "weight_column_name" in a:
                args.append(_kw("weight_column", a["weight_column_name"]))
            if "label_keys" in a:
                args.append(_kw("label_vocabulary", a["label_keys"]))
            value = a.get("optimizer")
            if not cls.dnn and value is None and "gradient_clip_norm" not in a:
                # legacy Ftrl at min(0.2, 1/sqrt(n columns)); TF 2.15's default "Ftrl" trains at 0.2 whatever n
                rate = flow.linear_default_rate(self, est, a.get("feature_columns"), _code)
                if rate == "unknown":
                    est.ok = False
                    self.flag(est.call, TFM103, f"{cls.name}: the legacy default Ftrl rate is min(0.2, 1/sqrt(number "
                              "of feature columns)) and the number is not visible here; pass optimizer=lambda: "
                              "tf.keras.optimizers.legacy.Ftrl(learning_rate=...) by hand")
                    return
                if rate is not None:
                    args.append(_kw("optimizer", _expr(f"lambda: tf.keras.optimizers.legacy.Ftrl(learning_rate={rate})")))
            if cls.dnn or value is not None or "gradient_clip_norm" in a:
                if not cls.dnn and (value is None or _string(value) is not None):
                    est.ok = False
                    self.flag(est.call, TFM103, f"{cls.name}: the legacy Ftrl rate depends on the feature count; "
                              "pass optimizer=lambda: tf.keras.optimizers.legacy.Ftrl(learning_rate=min(0.2, 1 / "
                              "len(feature_columns) ** 0.5), global_clipnorm=...) by hand")
                    return
                optimizer = self._optimizer(est, value if value is not None else _expr('"Adagrad"'), None,
                                            a.get("gradient_clip_norm"), LEARN_DNN_RATE)
                if optimizer is None:
                    est.ok = False
                    self.flag(est.call, TFM103, f"{cls.name}: optimizer {_code(value) if value is not None else ''} "
                              "has no provable tf.keras.optimizers.legacy equivalent; pass optimizer=lambda: "
                              "tf.keras.optimizers.legacy.<Name>(learning_rate=...) by hand")
                    return
                args.append(_kw("optimizer", optimizer))
                if value is not None:
                    if not self._allowed(value, TFM103):
                        est.ok = False
                        self.flag(est.call, TFM102, f"{cls.name} left as it is: its optimizer must change too "
                                  "(TFM103), which is disabled or suppressed here")
                        return
                    given.append((value, optimizer))
            for name in ("activation_fn", "dropout", "config"):
                if name in a:
                    args.append(_kw(name, a[name]))
        args.append(_kw("loss_reduction", _expr(MEAN_LOSS)))
        new = _layout(_call(f"tf.estimator.{cls.target}", args))
        default = "" if not cls.dnn or "optimizer" in a else f"; the legacy default optimizer (Adagrad at {LEARN_DNN_RATE}) is written out"
        if self.fix(est.call, TFM102, f"tf.contrib.learn.{cls.name} -> tf.estimator.{cls.target}{default}"):
            self._apply(est.call, new)
            self._commit()
            self._report_optimizers(given)
            est.new = new
            for name in self._lost(est):
                self.flag(est.call, TFM112, f"{cls.name}({name}=...) has no tf.estimator equivalent: {LOST[name]}")
        else:
            est.ok = False

    def _columns(self, est: Est, columns: cst.BaseExpression) -> cst.BaseExpression:
        """feature_columns; inferred columns read the "x" key that numpy_input_fn feeds."""
        target = columns
        if isinstance(columns, cst.Name):
            found = self._single_assignment(columns)
            if found is not None and isinstance(found[1].value, (cst.Call, cst.List)):
                target = found[1].value  # feature_columns = [real_valued_column("", dimension=4)] (TF's iris tutorial)
        if isinstance(target, cst.List) and len(target.elements) == 1 and isinstance(target.elements[0].value, cst.Call):
            column = target.elements[0].value
            name = self.qualified_name(column.func) or ""
            bound, problems = bind_args(column, ("column_name", "dimension", "default_value", "dtype", "normalizer"))
            dimension = bound.get("dimension")
            width = _int(dimension) if dimension is not None else 1
            if width is None and isinstance(dimension, (cst.Name, cst.Attribute)):
                width = _code(dimension)  # dimension=n_features: the same value, read where the column is built
            if (name.endswith("layers.real_valued_column") and _string(bound.get("column_name")) == ""
                    and not problems and set(bound) <= {"column_name", "dimension"} and width is not None):
                # the legacy fit(x) fed x under the key "", which only a column named "" reads
                est.empty_key = True
                new = _expr(f'[tf.feature_column.numeric_column("{FEATURE_KEY}", shape=[{width}])]')
                if target is columns:
                    return new
                self.pending.append((column, new.elements[0].value))  # the column in its own assignment
                return columns
        if isinstance(target, cst.Call):
            name = self.qualified_name(target.func) or ""
            if name.endswith("infer_real_valued_columns_from_input") and target.args:
                est.empty_key = True
                data = target.args[0].value
                new = _expr(f'[tf.feature_column.numeric_column("{FEATURE_KEY}", shape={_code(data)}.shape[1:])]')
                if target is columns:
                    return new
                self.pending.append((target, new))
                return columns
        est.key_matches = False
        return columns

    def _plan_restore(self, est: Est) -> None:
        source = est.source
        if source is None or not source.ok or source.new is None:
            est.ok = False
            if source is not None:
                self.flag(est.call, TFM108, f"{est.cls.name}.restore(path): build tf.estimator.{est.cls.target}(...) "
                          "with the saved model's hyperparameters and model_dir=path by hand")
            return
        args = [a.with_changes(comma=cst.MaybeSentinel.DEFAULT) for a in source.new.args
                if not (a.keyword and a.keyword.value == "model_dir")]
        position = next((i for i, a in enumerate(args) if a.keyword and a.keyword.value in ("config", "loss_reduction")),
                        len(args))
        args.insert(position, _kw("model_dir", est.restore_path))
        new = _layout(_call(f"tf.estimator.{est.cls.target}", args))
        if self.fix(est.call, TFM108, f"{est.cls.name}.restore(path) -> a new tf.estimator.{est.cls.target} with the "
                    "same hyperparameters and model_dir=path (it restores the latest checkpoint there; a directory saved by "
                    "the legacy program holds other variable names: retrain, or rename them with `tfmigrate ckpt convert`)"):
            self._apply(est.call, new)
            est.new = new
            est.width, est.key_matches = source.width, source.key_matches
        else:
            est.ok = False

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

    # --- methods ---------------------------------------------------------------------------------
    def _settings(self, est: Est) -> Est:
        return est.source or est

    def _input_fn(self, x: cst.BaseExpression, y: cst.BaseExpression | None, batch: cst.BaseExpression | None,
                  train: bool, classifier: bool = False) -> cst.Call:
        if getattr(self, "_raw_x", False):  # a custom model_fn reads the data as fit() got it (transforms/model_fn.py)
            args = [_kw("x", x if self._is_dict(x) else self._as_array(x))]
            if batch is None:  # the legacy evaluate/predict fed x as one batch (DataFeeder: batch_size=len(x))
                batch = _expr(f"len({_code(x)})")
        elif self._is_dict(x):  # a dict of arrays: its keys are the feature columns' names
            args = [_kw("x", x)]
        else:
            args = [_kw("x", cst.Dict([cst.DictElement(cst.SimpleString(f'"{FEATURE_KEY}"'), self._as_array(x))]))]
        if y is not None:
            labels = self._as_array(y)
            if classifier and not self._is_int(y):  # the legacy DataFeeder cast class labels to int64
                labels = _expr("np.asarray(LABELS, dtype=np.int64)").visit(_Substitute("LABELS", labels))
                self.need_np = True
            args.append(_kw("y", labels))
        if batch is not None:
            args.append(_kw("batch_size", batch))
        args.append(_kw("shuffle", _expr("True" if train else "False")))
        args.append(_kw("num_epochs", _expr("None" if train else "1")))
        return _call(NUMPY_INPUT_FN, args)

    def _is_int(self, value: cst.BaseExpression | None, depth: int = 0) -> bool:
        """Integer labels, as far as the code shows (astype(int...), dtype=int..., randint)."""
        if depth > 6 or value is None:
            return False
        if isinstance(value, cst.Name):
            found = self._single_assignment(value)
            return found is not None and self._is_int(found[1].value, depth + 1)
        if isinstance(value, cst.Call):
            name = self.qualified_name(value.func) or ""
            if name.endswith("randint"):
                return True
            if isinstance(value.func, cst.Attribute) and value.func.attr.value == "astype" and value.args:
                return "int" in _code(value.args[0].value)
            if any(a.keyword and a.keyword.value == "dtype" and "int" in _code(a.value) for a in value.args):
                return True
            if name.rpartition(".")[2] in ("minimum", "maximum", "clip", "argmax") and value.args:
                return name.endswith("argmax") or self._is_int(value.args[0].value, depth + 1)
        return False

    def _as_array(self, data: cst.BaseExpression) -> cst.BaseExpression:
        """pandas data as its array (what the legacy DataFeeder's extract_pandas_data fed)."""
        if self._is_pandas(data):
            return cst.Attribute(value=data, attr=cst.Name("values"))
        return data

    def _is_dict(self, value: cst.BaseExpression) -> bool:
        if isinstance(value, cst.Name):
            found = self._single_assignment(value)
            value = found[1].value if found is not None else value
        return isinstance(value, (cst.Dict, cst.DictComp)) or (
            isinstance(value, cst.Call) and isinstance(value.func, cst.Name) and value.func.value == "dict"
        )

    def _is_pandas(self, value: cst.BaseExpression | None, depth: int = 0) -> bool:
        while depth < 8 and value is not None:
            depth += 1
            if isinstance(value, cst.Call):
                if (self.qualified_name(value.func) or "").startswith("pandas."):
                    return True
                value = value.func
            elif isinstance(value, (cst.Attribute, cst.Subscript)):
                value = value.value
            elif isinstance(value, cst.Name):
                found = self._single_assignment(value)
                value = found[1].value if found is not None else None
            else:
                return False
        return False

    def _plan_method(self, est: Est, call: cst.Call, method: str) -> None:
        if not est.ok or est.new is None:
            return
        base = self._settings(est)
        if not isinstance(call.func, cst.Attribute):
            return
        legacy_tfx = est.cls.era != "learn"
        self._raw_x = est.custom is not None  # a custom model_fn reads the features as fit() got them
        if est.custom is not None and method in PREDICTS:
            ModelFnPlanner(self).plan_predict(est, call, method)
            return
        if est.custom is not None and method in ("get_variable_names", "get_variable_value"):
            return  # the model_fn's own variables: the same names in tf.estimator
        if method == "fit":
            self._plan_fit(est, base, call, legacy_tfx)
        elif method == "evaluate":
            self._plan_evaluate(est, call, legacy_tfx)
        elif method in ("predict", "predict_proba", "predict_classes", "predict_scores"):
            self._plan_predict(est, call, method, legacy_tfx)
        elif method == "save":
            path = call.args[0].value if call.args else None
            stmt = self._statement(call)
            if legacy_tfx and path is not None and base.model_dir is not None and _code(path) == _code(base.model_dir) and stmt is not None:
                if self.fix(call, TFM107, f"save({_code(path)}): tf.estimator writes its checkpoints to "
                            "model_dir during train(); the path is the estimator's model_dir, the call is removed"):
                    self.remove.add(stmt)
                    self.changed = True
            elif call not in self.reported_saves:
                self.flag(call, TFM107, "save(path): tf.estimator has no save(); it writes checkpoints to model_dir "
                          "during train(). Pass model_dir=path to the constructor (the path must be known there) and "
                          "remove this call")
        elif method in ("get_variable_names", "get_variable_value"):
            self.flag(call, TFM109, f"{method}(): tf.estimator has it, but the variable names differ: "
                      "dnn/hiddenlayer_<i>/kernel|bias, dnn/logits/kernel|bias, linear/linear_model/x/weights, "
                      "linear/linear_model/bias_weights, training/<Optimizer>/... (see get_variable_names())")
        elif method in ("get_params", "set_params", "score", "get_tensor", "get_tensor_value", "partial_fit", "export"):
            self.flag(call, TFM109, f"{method}() has no tf.estimator equivalent; rewrite it by hand "
                      "(score: evaluate(input_fn=...)['accuracy']; export: export_saved_model)")

    def _statement(self, call: cst.Call) -> cst.SimpleStatementLine | None:
        expr = self._parent(call)
        stmt = self._parent(expr) if isinstance(expr, cst.Expr) else None
        if isinstance(stmt, cst.SimpleStatementLine) and len(stmt.body) == 1:
            return stmt
        return None

    def _plan_fit(self, est: Est, base: Est, call: cst.Call, legacy_tfx: bool) -> None:
        func = call.func
        if legacy_tfx:
            bound, problems = bind_args(call, ("x", "y", "monitor", "logdir"))
            for arg in call.args:
                if arg.keyword and arg.keyword.value == "X":
                    bound["x"] = arg.value
                    problems = [p for p in problems if p != "X="]
            if problems or "x" not in bound or "y" not in bound or "monitor" in bound or "logdir" in bound:
                self.flag(call, TFM104, "fit(): rewrite as train(input_fn=tf.compat.v1.estimator.inputs.numpy_input_fn("
                          "x={\"x\": x}, y=y, batch_size=..., shuffle=True, num_epochs=None), steps=...) by hand "
                          "(monitor/logdir: use hooks and model_dir)")
                return
            a = base.args
            batch = a.get("batch_size", _expr(base.cls.defaults["batch_size"]))
            steps = a.get("steps", _expr(base.cls.defaults["steps"]))
            new_args = [_kw("input_fn", self._input_fn(bound["x"], bound["y"], batch, True, base.cls.classifier)),
                        _kw("steps", steps)]
        else:
            bound, problems = bind_args(call, ("x", "y", "input_fn", "steps", "batch_size", "monitors", "max_steps"))
            bound = {k: v for k, v in bound.items() if not (isinstance(v, cst.Name) and v.value == "None")}
            if problems:
                self.flag(call, TFM104, f"fit(): cannot map {', '.join(problems)}; rewrite as train(input_fn=..., steps=...)")
                return
            if "input_fn" in bound:
                new_args = [_kw("input_fn", bound["input_fn"])]
            elif "x" in bound:
                if not est.key_matches and not base.key_matches and not self._is_dict(bound["x"]):
                    self.flag(call, TFM104, "fit(x, y): the data is fed as {\"x\": x}; the feature columns must "
                              "read the key \"x\" (tf.feature_column.numeric_column(\"x\", shape=...)); rewrite by hand")
                    return
                batch = bound.get("batch_size") or _expr(f"len({_code(bound['x'])})")
                new_args = [_kw("input_fn", self._input_fn(bound["x"], bound.get("y"), batch, True, est.cls.classifier))]
            else:
                self.flag(call, TFM104, "fit() without data: rewrite as train(input_fn=..., steps=...)")
                return
            monitors = None
            if "monitors" in bound and self._allowed(call, MONITORS_RULE):  # TFM130, transforms/estimator_monitors.py
                monitors = MonitorConverter(self, est, call)
                hooks = monitors.hooks(bound["monitors"])
                bound["monitors"] = hooks if hooks is not None else bound["monitors"]
                monitors = monitors if hooks is not None else False
            for old, new in (("steps", "steps"), ("max_steps", "max_steps"), ("monitors", "hooks")):
                if old in bound:
                    new_args.append(_kw(new, bound[old]))
        note = ""
        if legacy_tfx:
            note = "; batch_size and steps are the estimator's legacy values"
        elif "x" in bound and "batch_size" not in bound:
            note = "; without batch_size the legacy fit fed the whole data set as one batch: batch_size=len(x)"
        if self.fix(call, TFM104, f"fit() -> train(input_fn=numpy_input_fn(..., shuffle=True, num_epochs=None)){note}"):
            self._apply(call, _layout(call.with_changes(func=func.with_changes(attr=cst.Name("train")), args=_call("f", new_args).args)))
            if not legacy_tfx and monitors:
                if self.fix(call, MONITORS_RULE, "fit(monitors=[...]) -> train(hooks=[...]): " + "; ".join(monitors.notes)):
                    self.remove.update(monitors.removals)
            elif not legacy_tfx and monitors is False:
                pass  # TFM130 said what to do by hand
            elif "monitors" in bound:
                self.flag(call, TFM104, "monitors= became hooks=: contrib.learn monitors must be rewritten as "
                          "tf.estimator.SessionRunHook / tf.compat.v1.train hooks")

    def _plan_evaluate(self, est: Est, call: cst.Call, legacy_tfx: bool) -> None:
        bound, problems = bind_args(call, ("x", "y", "input_fn", "feed_fn", "batch_size", "steps", "metrics", "name",
                                           "checkpoint_path", "hooks", "log_progress"))
        bound = {k: v for k, v in bound.items() if not (isinstance(v, cst.Name) and v.value == "None")}
        metrics = flow.metric_specs(self, bound.get("metrics")) if "metrics" in bound else None
        if problems or "feed_fn" in bound or ("metrics" in bound and metrics is None):
            self.flag(call, TFM105, "evaluate(): metrics/feed_fn have no direct equivalent; rewrite as "
                      "evaluate(input_fn=...) and add metrics with tf.estimator.add_metrics")
            return
        if "input_fn" in bound:
            args = [_kw("input_fn", bound["input_fn"])]
        elif "x" in bound:
            if not est.key_matches and not self._is_dict(bound["x"]):
                self.flag(call, TFM105, "evaluate(x, y): the feature columns must read the key \"x\"; rewrite by hand")
                return
            args = [_kw("input_fn", self._input_fn(bound["x"], bound.get("y"), bound.get("batch_size"), False,
                                                   est.cls.classifier))]
        else:
            return
        for name in ("steps", "name", "checkpoint_path", "hooks"):
            if name in bound:
                args.append(_kw(name, bound[name]))
        note = "" if metrics is None else ("; metrics={name: MetricSpec} -> tf.estimator.add_metrics(estimator, ...)"
                                           " over the same metrics (TFM173 rewrites each MetricSpec)")
        if self.fix(call, TFM105, "evaluate(x=, y=) -> evaluate(input_fn=numpy_input_fn(..., shuffle=False, num_epochs=1))"
                    + note):
            new = call.with_changes(args=_call("f", args).args)
            if metrics is not None:
                new = new.with_changes(func=new.func.with_changes(value=_expr(
                    f"tf.estimator.add_metrics({_code(call.func.value)}, lambda labels, predictions: {{name: "
                    f"metric(labels=labels, predictions=predictions) for name, metric in ({_code(metrics)}).items()}})")))
            self._apply(call, _layout(new))

    def _plan_predict(self, est: Est, call: cst.Call, method: str, legacy_tfx: bool) -> None:
        params = ("x", "axis", "batch_size") if legacy_tfx and method == "predict" else (
            ("x", "batch_size") if legacy_tfx else ("x", "input_fn", "batch_size", "outputs", "as_iterable"))
        bound, problems = bind_args(call, params)
        bound = {k: v for k, v in bound.items() if not (isinstance(v, cst.Name) and v.value == "None")}
        for arg in call.args:
            if arg.keyword and arg.keyword.value == "X":
                bound["x"] = arg.value
                problems = [p for p in problems if p != "X="]
        if problems or "outputs" in bound or "axis" in bound:
            self.flag(call, TFM106, f"{method}(): rewrite as predict(input_fn=...) and read the prediction dicts by hand")
            return
        if "input_fn" in bound:
            input_fn = bound["input_fn"]
        elif "x" in bound:
            if not est.key_matches and not self._is_dict(bound["x"]):
                self.flag(call, TFM106, f"{method}(x): the feature columns must read the key \"x\"; rewrite by hand")
                return
            input_fn = self._input_fn(bound["x"], None, bound.get("batch_size"), False)
        else:
            return
        if method == "predict_proba":
            item = 'p["probabilities"]'
        elif est.cls.classifier and method != "predict_scores":
            item = 'p["class_ids"][0]'
        else:
            item = 'p["predictions"][0]'
        predict = _layout(call.with_changes(func=call.func.with_changes(attr=cst.Name("predict")),
                                            args=[_kw("input_fn", input_fn)]), limit=80, nested=False)
        iterable = bound.get("as_iterable")
        lazy = iterable is not None and isinstance(iterable, cst.Name) and iterable.value == "True"
        if iterable is None and not legacy_tfx and flow.consumed_lazily(self, call):
            lazy = True  # next(clf.predict(x)): only the 1.x generator (as_iterable=True default) allows it
        if iterable is not None and not (isinstance(iterable, cst.Name) and iterable.value in ("True", "False")):
            self.flag(call, TFM106, f"{method}(as_iterable=...): not a literal; rewrite by hand")
            return
        if lazy:
            new = _expr(f"({item} for p in PREDICT)")
        else:
            new = _expr(f"np.array([{item} for p in PREDICT])")
        new = new.visit(_Substitute("PREDICT", predict))
        shape = "a generator" if lazy else "an array"
        if self.fix(call, TFM106, f"{method}() -> predict(input_fn=...) read as {shape} of {item}, as the legacy "
                    f"{method} returned"):
            self._apply(call, new)
            self.need_np = self.need_np or not lazy

    def _plan_weights(self, est: Est, attr: cst.Attribute) -> None:
        if not est.ok or est.new is None:
            return
        base = self._settings(est)
        receiver = _code(attr.value)
        kind = attr.attr.value[:-1]
        if base.cls.dnn:
            units = base.args.get("hidden_units")
            if not isinstance(units, cst.List):
                self.flag(attr, TFM109, f"{attr.attr.value}: read dnn/hiddenlayer_<i>/{'kernel' if kind == 'weights' else 'bias'} "
                          "and dnn/logits/... with get_variable_value()")
                return
            leaf = "kernel" if kind == "weights" else "bias"
            names = [f"dnn/hiddenlayer_{i}/{leaf}" for i in range(len(units.elements))] + [f"dnn/logits/{leaf}"]
            new = _expr("[" + ", ".join(f'{receiver}.get_variable_value("{n}")' for n in names) + "]")
        else:
            name = f"linear/linear_model/{FEATURE_KEY}/weights" if kind == "weights" else "linear/linear_model/bias_weights"
            new = _expr(f'{receiver}.get_variable_value("{name}")')
        if self.fix(attr, TFM109, f"{attr.attr.value} -> get_variable_value() of the tf.estimator variables "
                    "(note: a binary classifier has one logit column, the legacy model had two)"):
            self._apply(attr, new)

    def _drop_legacy_import(self, node: cst.CSTNode) -> None:
        if isinstance(node, cst.Import):
            for alias in node.names:
                name = _code(alias.name)
                if name.startswith(_LEGACY_MODULES):
                    self.imports.remove(name, asname=alias.asname.name.value if alias.asname else None
                    )
        elif isinstance(node, cst.ImportFrom) and node.module is not None and not node.relative:
            module = _code(node.module)
            if isinstance(node.names, cst.ImportStar):
                return
            for alias in node.names:
                full = f"{module}.{_code(alias.name)}"
                if module.startswith(_LEGACY_MODULES) or full.startswith(_LEGACY_MODULES):
                    self.imports.remove(module, _code(alias.name), alias.asname.name.value if alias.asname else None
                    )

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


class _Substitute(cst.CSTTransformer):
    def __init__(self, name: str, node: cst.BaseExpression) -> None:
        super().__init__()
        self.name, self.node = name, node

        self.used = False

    def leave_Name(self, original: cst.Name, updated: cst.Name) -> cst.BaseExpression:
        if original.value != self.name:
            return updated
        if self.used:  # a node appears once in a tree: copy it for a second place
            return self.node.deep_clone()
        self.used = True
        return self.node


def _is_global(scope: object) -> bool:
    return scope is not None and scope.is_global  # type: ignore[attr-defined]
