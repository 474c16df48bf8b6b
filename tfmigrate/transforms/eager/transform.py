"""TFM4xx: ``tf.contrib.eager`` (tfe), ``tf.contrib.summary`` and eager-era ``tf.layers`` → TF 2.

The 2017/2018 eager programs (``import tensorflow.contrib.eager as tfe``; ``tfe.Network`` with
``track_layer``, ``tfe.Iterator``, ``tfe.implicit_gradients``, ``tf.contrib.summary``) have no
counterpart under those names in TensorFlow 2.15. This transform rewrites what has an exact TF 2
form and reports the rest with the exact code to write.

Most rules apply only in an *eager module*: one that references ``tf.contrib.eager`` or calls
``enable_eager_execution``. In graph-mode TF1 code the same names (``tf.layers.Dense``,
``tf.train.AdamOptimizer``) keep their TF1 meaning and are left to the renames family (TFM5),
which maps them onto ``tf.compat.v1`` without changing variable names or behaviour.

Concerns kept in their own modules: ``eager_calls.py`` (TFM418-TFM420, TFM425: ``tfe.run``, TF 1.x
``keep_prob``/keywords/``Dimension.value`` in eager modules), ``eager_helpers.py`` (TFM417, TFM421,
TFM422, TFM424: TF 2 code written into the module for tfe functions that have no TF 2 name) and
``eager_rnn.py`` (TFM423: cuDNN RNN layers).
"""

from __future__ import annotations

import libcst as cst
from libcst.metadata import ParentNodeProvider

from tfmigrate.codemod.imports import READ_ELSEWHERE
from tfmigrate.codemod.transform import EAGER_MODULE, FamilyTransform, module_calls
from tfmigrate.codemod.tree import dotted as dotted_name, expression
from tfmigrate.rule_ids import TFM401, TFM402, TFM403, TFM405, TFM407, TFM408, TFM409, TFM411, TFM415, TFM416
from tfmigrate.transforms.common.builders import Substitute, kwarg, unique
from tfmigrate.transforms.eager.calls import eager_call, enable_with_config, shape_value, tfe_call
from tfmigrate.transforms.eager.helpers import HELPER_SYMBOLS, EagerHelpers, helper_call
from tfmigrate.transforms.eager.tables import (
    CKPT_KEYS, EAGER_MODULES, MANUAL, RENAMES, SUMMARY_PREFIXES, TFE_PREFIXES, TRAINING_LAYERS,
)
from tfmigrate.transforms.eager.syntax import callee, is_attribute_name, is_method, is_name, strip_comma, with_commas
from tfmigrate.transforms.eager.keras import KerasCalls
from tfmigrate.transforms.eager.summary import SummaryCalls
from tfmigrate.transforms.eager.gradients import GradientStatements


class EagerTransform(GradientStatements, SummaryCalls, KerasCalls, FamilyTransform):
    FAMILY = "TFM4"
    # leave_Name leaves a Name whose qualified name is None (no import, no module alias) as it is: the walk skips them
    UNIMPORTED_NAMES_UNCHANGED = True
    DESCRIPTION = "tf.contrib.eager, tf.contrib.summary and eager tf.layers -> TensorFlow 2"

    # --- module scan ---------------------------------------------------------------------------
    def visit_Module(self, node: cst.Module) -> None:
        index = self.index  # describes `node`: apply() indexes the module it visits
        names = index.nodes(cst.Name)
        self.names_in_use = {n.value for n in names if not is_attribute_name(n, index.parents.get(n))}
        self.names_in_use |= READ_ELSEWHERE.get()  # and the names of a huge module's other chunks (fresh() avoids them)
        self.tf = None
        self.eager = False
        self.changed = False
        self.needs_tf = False
        self.add_tf_import = False
        self.network_classes: list[bool] = []
        self.for_iters: set[int] = set()  # ids of the iterables of for loops (directly or through enumerate)
        self.handled: set[int] = set()  # ids of original nodes a statement rewrite takes care of
        self.optimizer_names: set[str] = set()
        self.training_layers: set[str] = set()  # `self.<attr>` holding a legacy Dropout/BatchNormalization
        self.imports_to_drop: list[tuple[str, str | None, str | None]] = []
        self.helpers = EagerHelpers()  # TFM417/421/422: TF 2 code for tfe functions with no TF 2 name
        self.helpers.find_existing(node)
        for imp in index.import_statements:
            self._scan_import(imp)
        self.eager = any(
            (module + "." + (name or "")).startswith("tensorflow.contrib.eager")
            or (module == "tensorflow.contrib" and name == "eager")
            for module, name, _ in self.imports_to_drop
        )
        for ref in [] if self.eager else [*names, *index.nodes(cst.Attribute)]:
            qname = self.qualified_name(ref)
            if qname and (
                qname.startswith("tensorflow.contrib.eager")
                or qname in ("tensorflow.enable_eager_execution", "tensorflow.contrib.eager.enable_eager_execution")
            ):
                self.eager = True
                break
        if module_calls(self.context.facts, EAGER_MODULE):  # a chunk of a huge module that is eager (codemod/chunks.py)
            self.eager = True
        if self.eager and (module_calls(self.context.facts, "enable_eager_execution") or any(
            self.is_enable_eager(call.func) or self.tfe_symbol(call.func) == "run" for call in index.nodes(cst.Call)
        )):  # a TF1 eager program (TFM401 removes the call that said so): never switch it to graph mode
            self.context.facts.add("eager_program")
        for assign in index.nodes(cst.Assign):
            value = assign.value
            if (isinstance(value, cst.Call) and is_method(value.func, "track_layer")) and value.args:
                value = value.args[0].value
            if not isinstance(value, cst.Call):
                continue
            qname = self.qualified_name(value.func) or ""
            for target in assign.targets:
                dotted = dotted_name(target.target)
                if not dotted:
                    continue
                if qname.startswith("tensorflow.train.") and qname.endswith("Optimizer"):
                    self.optimizer_names.add(dotted)
                elif qname.startswith("tensorflow.keras.optimizers."):
                    self.optimizer_names.add(dotted)
                elif qname.removeprefix("tensorflow.layers.") in TRAINING_LAYERS:
                    self.training_layers.add(dotted)

    def _scan_import(self, node: cst.CSTNode) -> None:
        if isinstance(node, cst.Import):
            for alias in node.names:
                full = dotted_name(alias.name) or ""
                asname = dotted_name(alias.asname.name) if alias.asname else None
                if full == "tensorflow" and asname and self.tf is None:
                    self.tf = asname
                if full.startswith(EAGER_MODULES):
                    self.imports_to_drop.append((full, None, asname))
        elif isinstance(node, cst.ImportFrom) and node.module is not None and not node.relative:
            module = dotted_name(node.module) or ""
            if isinstance(node.names, cst.ImportStar):
                return
            for alias in node.names:
                name = dotted_name(alias.name) or ""
                asname = dotted_name(alias.asname.name) if alias.asname else None
                if module.startswith(EAGER_MODULES) or (module == "tensorflow.contrib" and name in ("eager", "summary")):
                    self.imports_to_drop.append((module, name, asname))
                if module == "tensorflow.layers" or (module == "tensorflow" and name == "layers"):
                    self.imports_to_drop.append((module, name, asname))

    def leave_Module(self, original: cst.Module, updated: cst.Module) -> cst.Module:
        updated = self.helpers.insert(self, updated)
        if self.changed:
            if self.add_tf_import:
                self.imports.add("tensorflow", asname=self.tf)
            for module, name, asname in self.imports_to_drop:
                self.imports.remove(module, name, asname)
        return updated

    def visit_Import(self, node: cst.Import) -> bool:
        return False

    def visit_ImportFrom(self, node: cst.ImportFrom) -> bool:
        return False

    # --- helpers -------------------------------------------------------------------------------
    def _tfname(self) -> str:
        self.changed = True
        self.needs_tf = True
        if self.tf is None:
            self.tf = "tf2" if "tf" in self.names_in_use else "tf"
            self.add_tf_import = True
        return self.tf

    def _tf(self, path: str) -> cst.BaseExpression:
        return expression(f"{self._tfname()}.{path}")

    def tfe_symbol(self, node: cst.CSTNode) -> str | None:
        if type(node) is not cst.Name and type(node) is not cst.Attribute:
            return None
        qname = self.qualified_name(node)
        if not qname:
            return None
        for prefix in TFE_PREFIXES:
            if qname.startswith(prefix):
                return qname[len(prefix) :]
        return None

    def summary_symbol(self, node: cst.CSTNode) -> str | None:
        if type(node) is not cst.Name and type(node) is not cst.Attribute:
            return None
        qname = self.qualified_name(node)
        if not qname:
            return None
        for prefix in SUMMARY_PREFIXES:
            if qname.startswith(prefix):
                return qname[len(prefix) :]
        return None

    def layer_symbol(self, node: cst.CSTNode) -> str | None:
        if not isinstance(node, (cst.Name, cst.Attribute)):
            return None
        qname = self.qualified_name(node)
        if qname and qname.startswith("tensorflow.layers."):
            return qname[len("tensorflow.layers.") :]
        return None

    def is_enable_eager(self, node: cst.CSTNode) -> bool:
        return self.qualified_name(node) == "tensorflow.enable_eager_execution" or self.tfe_symbol(node) == (
            "enable_eager_execution"
        )

    def fresh(self, base: str) -> str:
        return unique(base, self.names_in_use)

    def visit_For(self, node: cst.For) -> None:
        target = node.iter
        if (isinstance(target, cst.Call) and is_name(target.func, "enumerate")) and target.args and not target.args[0].keyword:
            target = target.args[0].value
        self.for_iters.add(id(target))

    # --- classes: tfe.Network -> tf.keras.Model -------------------------------------------------
    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        self.network_classes.append(any(self.tfe_symbol(b.value) == "Network" for b in node.bases))

    def leave_ClassDef(self, original: cst.ClassDef, updated: cst.ClassDef) -> cst.ClassDef:
        self.network_classes.pop()
        bases = list(updated.bases)
        for i, base in enumerate(original.bases):
            if self.tfe_symbol(base.value) == "Network":
                self.flag(
                    base,
                    TFM415,
                    f"checkpoints of {original.name.value} written as a tfe.Network have other keys than the "
                    "tf.keras.Model's: compare an old checkpoint with `tfmigrate ckpt diff OLD_CKPT --model NEW_CKPT` "
                    "and rename with `tfmigrate ckpt convert OLD_CKPT OUT --map map.toml`",
                )
            if self.tfe_symbol(base.value) == "Network" and self.fix(
                base, TFM402, "tfe.Network is tf.keras.Model in TF 2 (layers are tracked on attribute assignment)"
            ):
                bases[i] = bases[i].with_changes(value=self._tf("keras.Model"))
        return updated.with_changes(bases=bases)

    def _in_network(self) -> bool:
        return bool(self.network_classes) and self.network_classes[-1]

    # --- expressions ----------------------------------------------------------------------------
    def leave_Attribute(self, original: cst.Attribute, updated: cst.Attribute) -> cst.BaseExpression:
        if self.eager and original.attr.value == "value":
            new = shape_value(self, original, updated)
            if new is not None:
                return new
        return self._rename(original, updated)

    def leave_Name(self, original: cst.Name, updated: cst.Name) -> cst.BaseExpression:
        return self._rename(original, updated)

    def _rename(self, original: cst.BaseExpression, updated: cst.BaseExpression) -> cst.BaseExpression:
        symbol = self.tfe_symbol(original)
        if symbol in HELPER_SYMBOLS:  # named, not called (a decorator, an argument): the helper itself
            parent = self.get_metadata(ParentNodeProvider, original, None)
            if not (isinstance(parent, cst.Call) and parent.func is original) and not (
                isinstance(parent, cst.Attribute) and parent.attr is original
            ):
                return helper_call(self, symbol, original, updated) or updated
        if symbol in RENAMES:
            rule, path = RENAMES[symbol]
            if self.fix(original, rule, f"tfe.{symbol} is tf.{path} in TF 2"):
                return self._tf(path)
        return updated

    def leave_Call(self, original: cst.Call, updated: cst.Call) -> cst.BaseExpression:
        func = original.func
        symbol = self.tfe_symbol(func)
        if symbol is not None:
            return self._tfe_call(symbol, original, updated)
        if self.is_enable_eager(func) and id(original) not in self.handled:
            new = enable_with_config(self, original, updated)
            if new is not None:
                return new
            self.flag(
                original,
                TFM401,
                "enable_eager_execution with arguments or inside an expression: TF 2 always executes eagerly; set "
                "device policy and execution mode with tf.config.experimental.set_device_policy / tf.config.* and "
                "delete the call",
            )
            return updated
        summary = self.summary_symbol(func)
        if summary is not None:
            return self._summary_call(summary, original, updated)
        if self.eager:
            new = eager_call(self, original, updated)
            if new is not None:
                return new
        layer = self.layer_symbol(func)
        if layer is not None and self.eager:
            return self._layer_call(layer, original, updated)
        qname = (self.qualified_name(func) if isinstance(func, (cst.Name, cst.Attribute)) else None) or ""
        if self.eager and qname.startswith("tensorflow.train.") and qname.endswith("Optimizer"):
            return self._optimizer_call(qname.removeprefix("tensorflow.train."), original, updated)
        if (is_method(func, "track_layer") and is_name(func.value, "self")) and len(original.args) == 1:
            in_class = self._in_network() or (self.eager and bool(self.network_classes))
            if in_class and not original.args[0].keyword and self.fix(
                original, TFM403, "track_layer is gone in TF 2: tf.keras.Model tracks layers assigned to attributes"
            ):
                self.changed = True
                return self._unwrapped(original, updated.args[0].value)
            return updated
        if self._in_network() and self._is_super_init(original):
            return self._super_init(original, updated)
        if self.eager and isinstance(func, cst.Attribute):
            dotted = dotted_name(func)
            if dotted in self.training_layers and not any(
                a.keyword and a.keyword.value == "training" for a in original.args
            ) and len(original.args) == 1 and not original.args[0].star:
                if self.fix(
                    original,
                    TFM405,
                    f"{dotted}: a legacy tf.layers Dropout/BatchNormalization called without `training` ran in "
                    "inference mode; a Keras layer inherits the model's training flag, so training=False is written "
                    "(use training=training if the layer was meant to be active)",
                ):
                    args = [updated.args[0].with_changes(comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")))]
                    return updated.with_changes(args=[*args, kwarg("training", cst.Name("False"))])
        if self.eager and is_method(func, "minimize") and id(original) not in self.handled:
            keywords = {a.keyword.value for a in original.args if a.keyword}
            positional = [a for a in original.args if not a.keyword]
            if len(positional) == 1 and not positional[0].star and keywords <= {"name"}:
                self.flag(
                    original,
                    TFM411,
                    "if this is an optimizer: a Keras optimizer's minimize needs var_list (TF1 eager used every "
                    "trainable variable the loss read); write `with tf.GradientTape() as tape: loss = loss_fn()`, "
                    "`variables = tape.watched_variables()`, "
                    "`optimizer.apply_gradients(zip(tape.gradient(loss, variables), variables))`",
                )
            elif "global_step" in keywords:
                self.flag(
                    original,
                    TFM411,
                    "optimizer.minimize(loss_fn, global_step=...) has no TF 2 form as an expression: write "
                    "`with tf.GradientTape() as tape: loss = loss_fn()`, "
                    "`optimizer.apply_gradients(zip(tape.gradient(loss, variables), variables))` and "
                    "`global_step.assign_add(1)`",
                )
        if self.eager and is_method(func, "apply_gradients") and id(original) not in self.handled:
            if any(a.keyword and a.keyword.value == "global_step" for a in original.args):
                self.flag(
                    original,
                    TFM411,
                    "Keras optimizers' apply_gradients takes no global_step: call it without global_step and "
                    "write `global_step.assign_add(1)` after it",
                )
        return updated

    def _unwrapped(self, call: cst.Call, inner: cst.BaseExpression) -> cst.BaseExpression:
        """``inner`` moved out of ``call(...)``: its continuation lines keep their place relative to the statement.

        ``self.x = self.track_layer(\n    Layer(\n        a))`` indented ``Layer``'s arguments for the inner
        line; once ``Layer(`` starts on the statement's line they are shifted back by the same amount.
        """
        code = cst.Module(body=[]).code_for_node(inner)
        if "\n" not in code or '"""' in code or "'''" in code or "\\\n" in code:
            return inner  # one line, or text whose lines are not all code (string literals, continuations)
        statement = call
        while statement is not None and not isinstance(statement, cst.SimpleStatementLine):
            statement = self.get_metadata(ParentNodeProvider, statement, None)
        if statement is None:
            return inner
        shift = self._lines_col(call.args[0].value) - self._lines_col(statement)
        if shift <= 0:
            return inner
        lines = code.split("\n")
        if not all(not line.strip() or line.startswith(" " * shift) for line in lines[1:]):
            return inner
        try:
            return expression("\n".join([lines[0], *(line[shift:] for line in lines[1:])]))
        except cst.ParserSyntaxError:  # pragma: no cover - the text came from a parsed expression
            return inner

    def _lines_col(self, node: cst.CSTNode) -> int:
        return self._lines(node)[1] - 1

    def _is_super_init(self, call: cst.Call) -> bool:
        return (is_method(call.func, "__init__") and isinstance(call.func.value, cst.Call) and is_name(call.func.value.func, "super"))

    def _super_init(self, original: cst.Call, updated: cst.Call) -> cst.BaseExpression:
        # tfe.Network(name=None): an empty name made the network pick a unique one; Keras keeps '' verbatim
        args = list(updated.args)
        keep = []
        for i, (orig, arg) in enumerate(zip(original.args, args)):
            name_arg = (orig.keyword is None and not orig.star and i == 0) or (
                orig.keyword is not None and orig.keyword.value == "name"
            )
            empty = is_name(orig.value, "None") or (
                isinstance(orig.value, cst.SimpleString) and orig.value.evaluated_value == ""
            )
            if name_arg and empty and self.fix(
                orig,
                TFM402,
                "tfe.Network(name='') chose a unique name; tf.keras.Model(name='') keeps an empty name: "
                "the argument is dropped so Keras picks one",
            ):
                self.changed = True
                continue
            keep.append(arg)
        if len(keep) == len(args):
            return updated
        return updated.with_changes(args=strip_comma(keep))

    def _tfe_call(self, symbol: str, original: cst.Call, updated: cst.Call) -> cst.BaseExpression:
        if symbol == "Iterator":
            if len(original.args) == 1 and not original.args[0].keyword and not original.args[0].star:
                if id(original) in self.for_iters:
                    if self.fix(original, TFM407, "tfe.Iterator(ds) is not needed in TF 2: iterate the tf.data.Dataset"):
                        self.changed = True
                        return updated.args[0].value
                elif self.fix(original, TFM407, "tfe.Iterator(ds) is iter(ds) in TF 2 (a dataset is iterable in eager mode)"):
                    self.changed = True
                    return cst.Call(func=cst.Name("iter"), args=[updated.args[0].with_changes(comma=cst.MaybeSentinel.DEFAULT)])
            return updated
        if symbol == "Variable":
            positional = [a for a in original.args if not a.keyword]
            bad = [a.keyword.value for a in original.args if a.keyword and a.keyword.value in ("collections",)]
            if len(positional) <= 2 and not bad and not any(a.star for a in original.args):
                if self.fix(original, TFM409, "tfe.Variable (a ResourceVariable) is tf.Variable in TF 2"):
                    return updated.with_changes(func=self._tf("Variable"))
            else:
                self.flag(
                    original,
                    TFM409,
                    "tfe.Variable: pass arguments after the second by keyword and drop `collections` "
                    "(TF 2 has no collections), then use tf.Variable",
                )
            return updated
        if symbol == "enable_eager_execution":
            new = enable_with_config(self, original, updated) if id(original) not in self.handled else None
            if new is not None:
                return new
            if id(original) not in self.handled:
                self.flag(
                    original,
                    TFM401,
                    "enable_eager_execution with arguments or inside an expression: TF 2 always executes eagerly; "
                    "configure devices with tf.config.* and delete the call",
                )
            return updated
        if symbol == "num_gpus" and not original.args:
            if self.fix(original, TFM416, "tfe.num_gpus() is len(tf.config.list_physical_devices('GPU')) in TF 2"):
                return expression(f"len({self._tfname()}.config.list_physical_devices(\"GPU\"))")
            return updated
        if symbol in ("metrics.Mean", "metrics.Accuracy"):
            return self._metric(symbol, original, updated)
        if symbol in ("implicit_gradients", "implicit_value_and_gradients") and id(original) in self.handled:
            return updated
        if symbol in HELPER_SYMBOLS:
            new = helper_call(self, symbol, original, updated)
            if new is not None:
                return new
        new = tfe_call(self, symbol, original, updated)
        if new is not None:
            return new
        if symbol in MANUAL:
            rule, message = MANUAL[symbol]
            self.flag(original, rule, message)
            if symbol in CKPT_KEYS:
                self._ckpt_finding(original, f"tfe.{symbol}")
            return updated
        if symbol == "Checkpoint":
            return updated  # renamed by leave_Attribute
        return updated

    def _ckpt_finding(self, node: cst.CSTNode, what: str) -> None:
        self.flag(
            node,
            TFM415,
            f"{what} wrote checkpoints with other keys than the TF 2 model's: compare an old checkpoint with "
            "`tfmigrate ckpt diff OLD_CKPT --model NEW_CKPT` and rename with `tfmigrate ckpt convert OLD_CKPT OUT --map map.toml`",
        )

    def _metric(self, symbol: str, original: cst.Call, updated: cst.Call) -> cst.BaseExpression:
        params = ("name", "dtype")
        if any(a.star for a in original.args) or len(original.args) > 2:
            return updated
        given = {}
        for i, (orig, arg) in enumerate(zip(original.args, updated.args)):
            key = orig.keyword.value if orig.keyword else params[i]
            given[key] = arg.value
        name = symbol.split(".")[1]
        if not self.fix(
            original,
            TFM416,
            f"tfe.metrics.{name} is tf.keras.metrics.{name} in TF 2; the legacy dtype float64 is written "
            "explicitly (Keras: float32); Keras metrics return the running result when called",
        ):
            return updated
        args = [kwarg(k, v) for k, v in given.items() if k == "name"]
        args.append(kwarg("dtype", given.get("dtype") or self._tf("float64")))
        return updated.with_changes(func=self._tf(f"keras.metrics.{name}"), args=with_commas(args))

    # --- statements -----------------------------------------------------------------------------
    def visit_SimpleStatementLine(self, node: cst.SimpleStatementLine) -> None:
        if len(node.body) != 1:
            return
        stmt = node.body[0]
        if isinstance(stmt, cst.Expr) and isinstance(stmt.value, cst.Call):
            call = stmt.value
            if self.is_enable_eager(call.func) and not call.args:
                self.handled.add(id(call))
            if self.eager and self._minimize_shape(call):
                self.handled.add(id(call))
            if self.eager and self._apply_shape(call):
                self.handled.add(id(call))
                grads = call.args[0].value
                if self._implicit(grads):
                    self.handled.add(id(grads.func))
        if isinstance(stmt, cst.Assign) and len(stmt.targets) == 1 and self._implicit(stmt.value):
            self.handled.add(id(stmt.value.func))
        if isinstance(stmt, cst.Assign) and self._implicit_def(stmt):
            self.handled.add(id(stmt.value))

    def leave_SimpleStatementLine(
        self, original: cst.SimpleStatementLine, updated: cst.SimpleStatementLine
    ) -> cst.BaseStatement | cst.FlattenSentinel | cst.RemovalSentinel:
        if len(original.body) != 1:
            return updated
        stmt, new_stmt = original.body[0], updated.body[0]
        if isinstance(stmt, cst.Expr) and isinstance(stmt.value, cst.Call) and id(stmt.value) in self.handled:
            call = stmt.value
            if self.is_enable_eager(call.func):
                if self.fix(call, TFM401, "TF 2 executes eagerly by default: enable_eager_execution() is removed"):
                    self.changed = True
                    return self._remove(original)
                return updated
            if is_method(call.func, "minimize"):
                return self._minimize(original, call, new_stmt.value) or updated
            if is_method(call.func, "apply_gradients"):
                return self._apply(original, call, new_stmt.value) or updated
        if isinstance(stmt, cst.Assign) and id(stmt.value) in self.handled:
            symbol = self._implicit_def(stmt)
            if not self.fix(stmt.value, TFM408, f"tfe.{symbol}(f) is a function around tf.GradientTape in TF 2"):
                return updated
            tf = self._tfname()
            name = stmt.targets[0].target.value
            tape, value, variables = self.fresh("tape"), self.fresh("value"), self.fresh("variables")
            ret = f"{value}, " if symbol == "implicit_value_and_gradients" else ""
            func = cst.parse_statement(
                f"def {name}(*args, **kwargs):\n"
                f"    with {tf}.GradientTape() as {tape}:\n"
                f"        {value} = FN(*args, **kwargs)\n"
                f"    {variables} = {tape}.watched_variables()\n"
                f"    return {ret}list(zip({tape}.gradient({value}, {variables}), {variables}))\n"
            ).visit(Substitute({"FN": callee(new_stmt.value.args[0].value)}))
            return func.with_changes(leading_lines=original.leading_lines)
        if isinstance(stmt, cst.Assign) and isinstance(stmt.value, cst.Call) and id(stmt.value.func) in self.handled:
            symbol = self._implicit(stmt.value)
            if not self.fix(stmt.value, TFM408, f"tfe.{symbol} is tf.GradientTape in TF 2"):
                return updated
            target = new_stmt.targets[0].target
            value_and = symbol == "implicit_value_and_gradients"
            pre, names, grads = self._tape(new_stmt.value, target if value_and else None)
            if value_and and names is None:
                assign = new_stmt.with_changes(
                    value=cst.Tuple([cst.Element(cst.Name(self._last_loss)), cst.Element(grads)], lpar=[], rpar=[])
                )
            elif value_and:
                assign = cst.Assign(targets=[cst.AssignTarget(names[1])], value=grads)
            else:
                assign = new_stmt.with_changes(value=grads)
            pre[0] = pre[0].with_changes(leading_lines=original.leading_lines)
            return cst.FlattenSentinel([*pre, original.with_changes(body=[assign], leading_lines=[])])
        return updated

