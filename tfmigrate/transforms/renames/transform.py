"""TFM5xx: plain renames to ``tf.compat.v1``, ``disable_eager_execution``, and the catch-all.

Everything is decided from ``tfmigrate/data/tf215_names.json``, generated from TensorFlow 2.15
itself by ``tools/gen_tf_names.py``: the public names of ``tf`` (2.x) and of ``tf.compat.v1``, the
names TF's own upgrader moves to ``tf.compat.v1`` because 2.x changed their behaviour, and known
replacements for names that exist in neither. The table is loaded lazily, once per process, the
first time a module that mentions tensorflow is transformed. TensorFlow itself is never imported.

- TFM501 (fix): a TF1 name missing from TF 2.15's ``tf`` but kept under ``tf.compat.v1`` is
  rewritten to the ``tf.compat.v1`` form, in references and in imports.
- TFM502 (fix): graph-mode API used outside a ``with tf.Graph().as_default():`` block needs
  ``tf.compat.v1.disable_eager_execution()``; it is inserted once, after the imports.
- TFM503 (finding): a tensorflow name that exists in neither namespace; names the replacement.
- TFM590 (finding): the same, for a legacy name issue 27's inventory decided (``removed.py``): why it
  has no faithful TF 2.15 form and what to write instead.

- TFM504 (fix): in TF1 graph-mode code (a module that builds placeholders/sessions/Savers, uses
  ``Graph().as_default()`` or disables eager execution), a name TF 2.15 keeps but whose 2.x object
  behaves differently (``tf.summary.scalar``, ``tf.losses.mean_squared_error``, ``tf.initializers.*``:
  the table's ``v1_semantics``, from tf_upgrade_v2's own renames) is pinned to ``tf.compat.v1``.
  Eager/2.x modules (including other families' TF2 output) and 2.x-only call forms
  (``tf.summary.scalar(..., step=...)``) are left alone.
"""

from __future__ import annotations

from typing import ClassVar

import libcst as cst
from libcst.metadata import ParentNodeProvider

from tfmigrate.codemod.transform import FamilyTransform
from tfmigrate.codemod.tree import full_name, is_docstring, is_import_block
from tfmigrate.codemod.walk import transform
from tfmigrate.rule_ids import TFM501, TFM502, TFM503, TFM504, TFM505, TFM590, TFM709
from tfmigrate.transforms.common.builders import ReplaceById
from tfmigrate.transforms.renames.flags_internals import FlagsInternals, shown_code
from tfmigrate.transforms.renames.removed import removed_reason
from tfmigrate.transforms.common.tf_names import (
    DISABLES, ENABLES, GRAPH_CLASSES, GRAPH_ONLY, SKFLOW, TF, UNKNOWN, V1, V2, base_name, dotted, names,
    replace_base, shown, tf_rel,
)


_ROOTS = frozenset({TF, SKFLOW})  # the packages whose names this family reads
# Keywords only the 2.x form of a changed name accepts: such a call is already 2.x code.
V2_ONLY_KEYWORDS = frozenset({"step"})


class CompatV1Renames(FlagsInternals, FamilyTransform):
    FAMILY: ClassVar[str] = "TFM5"
    # leave_Name returns a Name inside an attribute chain as it is (the chain decides): the walk skips them
    ATTRIBUTE_NAMES_UNCHANGED: ClassVar[bool] = True
    # ... and a Name whose qualified name is None (it names no import nor module alias)
    UNIMPORTED_NAMES_UNCHANGED: ClassVar[bool] = True

    @classmethod
    def warm_up(cls) -> None:
        names()

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.names = names()
        self.tf_alias: str | None = None  # a module-level name bound to `tensorflow`
        self.v1_alias: str | None = None  # a module-level name bound to `tensorflow.compat.v1`
        self.in_import = 0
        self.graph_depth = 0
        self.graph_vars: set[str] = set()
        self.graph_uses: list[tuple[cst.CSTNode, str]] = []  # graph-only API built outside Graph blocks
        self.has_disable = False
        self.first_tf_statement: cst.CSTNode | None = None
        self.expanded: dict[int, int] = {}  # id(original top-level line) -> lines it became
        self.need_tf_import = False
        self.removals: set[tuple[str, str, str | None]] = set()
        self.graph_mode = False  # the module builds TF1 graphs (graph-only API, Graph blocks, disable_eager)
        self.pinned: list[tuple] = []  # TFM504 candidates, decided in leave_Module
        self.eager_program = False  # calls tf.enable_eager_execution(): never add disable_eager

    # --- module-level bindings ----------------------------------------------------------------
    def visit_Module(self, node: cst.Module) -> None:
        if "eager_program" in self.context.facts:  # its enable_eager_execution call went with TFM401
            self.eager_program = True
        for statement in node.body:
            if not isinstance(statement, cst.SimpleStatementLine):
                continue
            for small in statement.body:
                if isinstance(small, cst.Import):
                    for alias in small.names:
                        target = full_name(alias.name)
                        bound = alias.evaluated_alias
                        if bound is None and target and target.split(".")[0] == TF:
                            self.tf_alias = self.tf_alias or TF
                        elif target == TF and bound:
                            self.tf_alias = self.tf_alias or bound
                        elif target == f"{TF}.compat.v1" and bound:
                            self.v1_alias = self.v1_alias or bound

    def planned_nodes(self) -> list[cst.CSTNode] | None:
        """The nodes this family's hooks can act on (the walk enters only them and what contains
        them: ``walk.transform``). Every hook decides from the qualified name of a chain under
        tensorflow or skflow (whose first Name is in ``names_bound_under``), from an import
        statement, or from a ``with`` block (``g.as_default()`` with ``g`` a tf.Graph marks the
        module as graph code, whatever the block holds). None (every node) with a ``*`` import."""
        nodes = self.chains_under(_ROOTS)
        return None if nodes is None else nodes + self.index.nodes(cst.With)

    def compat_v1_prefix(self) -> str:
        """The dotted expression for ``tensorflow.compat.v1`` in this module (adds an import if needed)."""
        if self.tf_alias:
            return f"{self.tf_alias}.compat.v1"
        if self.v1_alias:
            return self.v1_alias
        self.need_tf_import = True
        return f"{TF}.compat.v1"

    # --- imports -----------------------------------------------------------------------------
    def visit_Import(self, node: cst.Import) -> None:
        self.in_import += 1

    def visit_ImportFrom(self, node: cst.ImportFrom) -> None:
        self.in_import += 1

    def leave_Import(self, original: cst.Import, updated: cst.Import) -> cst.Import:
        self.in_import -= 1
        aliases = list(updated.names)
        changed = False
        for i, alias in enumerate(original.names):
            if _is_skflow(full_name(alias.name)):
                self._flag_skflow(alias, full_name(alias.name))
                continue
            rel = tf_rel(full_name(alias.name))
            if not rel:
                continue
            status = self.names.status(rel)
            if status == V1:
                if self.fix(alias, TFM501, self._rename_message(rel)):
                    aliases[i] = aliases[i].with_changes(name=dotted(f"{TF}.compat.v1.{rel}"))
                    changed = True
            elif status == UNKNOWN:
                self._flag_unknown(alias, rel)
        return updated.with_changes(names=aliases) if changed else updated

    def leave_ImportFrom(self, original: cst.ImportFrom, updated: cst.ImportFrom) -> cst.ImportFrom:
        self.in_import -= 1
        return updated

    def _plan_import_from(self, node: cst.ImportFrom) -> tuple[list[int], str | None]:
        """Indexes of the names that move to ``tf.compat.v1`` (reporting as it goes)."""
        if node.relative or node.module is None:
            return [], None
        if _is_skflow(full_name(node.module)):
            self._flag_skflow(node, full_name(node.module))
            return [], None
        module_rel = tf_rel(full_name(node.module))
        if module_rel is None:
            return [], None
        if isinstance(node.names, cst.ImportStar):
            if module_rel and self.names.status(module_rel) == UNKNOWN:
                self._flag_unknown(node, module_rel)
            return [], None
        moving = []
        for i, alias in enumerate(node.names):
            name = full_name(alias.name)
            rel = f"{module_rel}.{name}" if module_rel else name
            status = self.names.status(rel)
            if status == V1:
                if self.fix(alias, TFM501, self._rename_message(rel)):
                    moving.append(i)
            elif status == UNKNOWN:
                self._flag_unknown(alias, rel)
        target = f"{TF}.compat.v1.{module_rel}" if module_rel else f"{TF}.compat.v1"
        return moving, target

    def _rewrite_imports(
        self, original: cst.SimpleStatementLine | cst.SimpleStatementSuite, updated_body: list
    ) -> tuple[list, list[cst.ImportFrom]]:
        """Rewrite the from-imports of one line; names that must move go to extra statements."""
        extra: list[cst.ImportFrom] = []
        body = list(updated_body)
        for index, small in enumerate(original.body):
            if not isinstance(small, cst.ImportFrom):
                continue
            moving, target = self._plan_import_from(small)
            if not moving or target is None:
                continue
            current = body[index]
            assert isinstance(current, cst.ImportFrom) and not isinstance(current.names, cst.ImportStar)
            names = list(current.names)
            if len(moving) == len(names):
                body[index] = current.with_changes(module=dotted(target))
                continue
            moved = [names[i] for i in moving]
            kept = [n for i, n in enumerate(names) if i not in moving]
            if current.lpar is None:  # `from m import a, b`: no trailing commas
                kept[-1] = kept[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
                moved[-1] = moved[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
            body[index] = current.with_changes(names=kept)
            # a parenthesized import keeps its layout (and the comments after each name)
            extra.append(cst.ImportFrom(module=dotted(target), names=moved, lpar=current.lpar, rpar=current.rpar))
        return body, extra

    def leave_SimpleStatementLine(
        self, original: cst.SimpleStatementLine, updated: cst.SimpleStatementLine
    ) -> cst.BaseStatement | cst.FlattenSentinel[cst.BaseStatement]:
        if not any(isinstance(s, cst.ImportFrom) for s in original.body):
            return updated
        body, extra = self._rewrite_imports(original, updated.body)
        new = updated.with_changes(body=body)
        if not extra:
            return new
        self.expanded[id(original)] = 1 + len(extra)
        return cst.FlattenSentinel([new, *(cst.SimpleStatementLine(body=[e]) for e in extra)])

    def leave_SimpleStatementSuite(
        self, original: cst.SimpleStatementSuite, updated: cst.SimpleStatementSuite
    ) -> cst.SimpleStatementSuite:
        """``try: from tensorflow import a, b`` on one line: the moved names follow after a ``;``."""
        if not any(isinstance(s, cst.ImportFrom) for s in original.body):
            return updated
        body, extra = self._rewrite_imports(original, updated.body)
        if extra:
            last = body[-1].with_changes(semicolon=cst.Semicolon(whitespace_after=cst.SimpleWhitespace(" ")))
            body = [*body[:-1], last, *extra]
        return updated.with_changes(body=body)

    # --- references ------------------------------------------------------------------------------
    def visit_Assign(self, node: cst.Assign) -> None:
        if isinstance(node.value, cst.Call) and self.qualified_name(node.value.func) in GRAPH_CLASSES:
            for target in node.targets:
                if isinstance(target.target, cst.Name):
                    self.graph_vars.add(target.target.value)

    def _is_graph_block(self, node: cst.With) -> bool:
        found = self._graph_block(node)
        if found:
            self.graph_mode = True
        return found

    def _graph_block(self, node: cst.With) -> bool:
        for item in node.items:
            call = item.item
            if not (isinstance(call, cst.Call) and isinstance(call.func, cst.Attribute)):
                continue
            if call.func.attr.value != "as_default":
                continue
            owner = call.func.value
            if isinstance(owner, cst.Call) and self.qualified_name(owner.func) in GRAPH_CLASSES:
                return True
            if isinstance(owner, cst.Name) and owner.value in self.graph_vars:
                return True
        return False

    def visit_With(self, node: cst.With) -> None:
        if self._is_graph_block(node):
            self.graph_depth += 1

    def leave_With(self, original: cst.With, updated: cst.With) -> cst.With:
        if self._is_graph_block(original):
            self.graph_depth -= 1
        return updated

    def visit_Call(self, node: cst.Call) -> None:
        name = self.qualified_name(node.func)
        if name in DISABLES:
            self.has_disable = True
            self.graph_mode = True
        elif name in ENABLES:  # a TF1 eager program: it must not be switched to graph mode
            self.eager_program = True

    def leave_Attribute(self, original: cst.Attribute, updated: cst.Attribute) -> cst.BaseExpression:
        parent = self.get_metadata(ParentNodeProvider, original, None)
        kind = self.flags_internal(original)  # TFM505: FLAGS._parse_flags / FLAGS.__flags / FLAGS.__dict__
        if kind is None and original.attr.value == "__dict__" and self._is_flags(original.value):
            kind = "__dict__"
        if kind is None:
            if self._above_flags_internal(original):
                return updated  # FLAGS.__flags.items: the chain's legacy part was rewritten (or flagged) below
            if type(parent) is cst.Attribute and parent.value is original:
                return updated  # the outermost attribute of the chain decides
            return self._reference(original, updated)
        flags = self._reference(original.value, updated.value)  # the FLAGS object itself, renamed
        if kind == "dict":
            new = self.rewrite_flags_dict(original, flags)
            if new is not None:
                return new
        elif kind == "parse" and not (type(parent) is cst.Call and parent.func is original):
            self.flag(original, TFM505, f"{shown_code(flags)}._parse_flags (TF <= 1.4) does not exist in TensorFlow 2.15's absl "
                      f"flags: call {shown_code(flags)}(sys.argv, known_only=True) instead")
        return updated.with_changes(value=flags)

    def leave_Subscript(self, original: cst.Subscript, updated: cst.Subscript) -> cst.BaseExpression:
        if self.flags_internal(original) != "dict":
            return updated
        new = self.rewrite_flags_dict(original, updated.value.value)  # type: ignore[attr-defined]
        return updated if new is None else new

    def leave_Name(self, original: cst.Name, updated: cst.Name) -> cst.BaseExpression:
        if self.in_import:
            return updated
        parent = self.get_metadata(ParentNodeProvider, original, None)
        if type(parent) is cst.Attribute:
            return updated  # part of a chain (or an attribute name): the chain decides
        return self._reference(original, updated)

    def _added_by_module(self, rel: str) -> bool:
        """Does the module itself assign ``tf.<rel>`` (or a prefix of it), as in ``tf.model = ...``?"""
        added = getattr(self, "_added", None)
        if added is None:
            added = set()
            for target in self.index.nodes(cst.AssignTarget):
                if type(target.target) is cst.Attribute:
                    name = tf_rel(self.qualified_name(target.target))
                    if name:
                        added.add(name)
            self._added = added
        return any(rel == name or rel.startswith(name + ".") for name in added)

    def _reference(self, original: cst.BaseExpression, updated: cst.BaseExpression) -> cst.BaseExpression:
        if self.in_import:
            return updated
        qualified = self.qualified_name(original)
        rel = tf_rel(qualified)
        if rel is None:
            if _is_skflow(qualified):
                self._flag_skflow(original, qualified)
            return updated
        if self.first_tf_statement is None:
            self.first_tf_statement = self._top_level(original)
        self._note_graph_use(original, rel)
        if not rel:
            return updated
        status = self.names.status(rel)
        if status == UNKNOWN and "." in rel and self._is_store_target(original):
            status = self.names.status(rel.rpartition(".")[0])  # `tf.logging.handler = h` adds a name
        if status == UNKNOWN and self._added_by_module(rel):
            return updated  # `tf.model = Sequential()` ... `tf.model.fit(...)`: the program's own name
        if status == UNKNOWN:
            self._flag_unknown(original, rel)
            return updated
        if status == V2 and not (self.names.changed_in_v2(rel) and TFM504 in self.enabled_rules):
            return updated
        base = base_name(original)
        if base is None:
            return updated
        base_rel = tf_rel(self.qualified_name(base))
        if base_rel is None:
            return updated
        if base_rel and self.names.status(base_rel) != V2:
            return updated  # bound by an import this family rewrites (or reports) itself
        if status == V2:  # decided at the end of the module: only TF1 graph-mode code is pinned
            if not self._v2_call_form(original) and (not base_rel or self._prefix_visible_at(original)):
                self.pinned.append((original, updated, rel, base, base_rel))
            return updated
        if base_rel and not self._prefix_visible_at(original):
            self.flag(original, TFM501, self._rename_message(rel) + " (not rewritten: the tensorflow alias is rebound here)")
            return updated
        if not self.fix(original, TFM501, self._rename_message(rel)):
            return updated
        return self._to_compat_v1(updated, base, base_rel)

    def _prefix_visible_at(self, node: cst.CSTNode) -> bool:
        """Does the module's tensorflow alias (or a new `import tensorflow`) mean tensorflow at ``node``?"""
        if self.tf_alias:
            name, expected = self.tf_alias.split(".")[0], {TF}
        elif self.v1_alias:
            name, expected = self.v1_alias, {f"{TF}.compat.v1"}
        else:
            name, expected = TF, {TF, ""}
        found = self.names_seen_at(node, name)  # libcst's scope.get_qualified_names_for(name), from the shared analysis
        if found is None:
            return True
        return (found or {""}) <= expected

    def _to_compat_v1(self, updated: cst.BaseExpression, base: cst.Name, base_rel: str) -> cst.BaseExpression:
        if not base_rel:  # `tf.placeholder`, `tensorflow.placeholder`
            new_base = dotted(f"{base.value}.compat.v1")
        else:  # `train.Saver` with `from tensorflow import train`
            new_base = dotted(f"{self.compat_v1_prefix()}.{base_rel}")
            module, _, obj = f"{TF}.{base_rel}".rpartition(".")
            removal = (module, obj, base.value if base.value != obj else None)
            if removal not in self.removals:  # once per import, not once per reference
                self.removals.add(removal)
                self.imports.remove(*removal)
        return replace_base(updated, new_base)

    def _is_store_target(self, node: cst.CSTNode) -> bool:
        parent = self.get_metadata(ParentNodeProvider, node, None)
        if isinstance(parent, (cst.AssignTarget, cst.AnnAssign, cst.AugAssign)):
            return parent.target is node
        return False

    def _v2_call_form(self, node: cst.CSTNode) -> bool:
        """A call that only the 2.x API accepts (``tf.summary.scalar(..., step=...)``)."""
        parent = self.get_metadata(ParentNodeProvider, node, None)
        if isinstance(parent, cst.Call) and parent.func is node:
            return any(a.keyword is not None and a.keyword.value in V2_ONLY_KEYWORDS for a in parent.args)
        return False

    def _note_graph_use(self, node: cst.CSTNode, rel: str) -> None:
        key = rel[len("compat.v1.") :] if rel.startswith("compat.v1.") else rel
        if key == "train.Saver" and _given_var_list(self.get_metadata(ParentNodeProvider, node, None), node):
            return  # a Saver given its variables works under eager execution too (tfe.Saver was one: TFM421)
        if key in GRAPH_ONLY:
            self.graph_mode = True  # a TF1 graph-mode program (inside a Graph block or not)
        if len(self.graph_uses) >= 64 or self.graph_depth:
            return  # (the first unsuppressed one carries the finding; 64 is plenty)
        if key in GRAPH_ONLY:
            parent = self.get_metadata(ParentNodeProvider, node, None)
            if not (isinstance(parent, cst.Call) and parent.func is node):
                return  # named, not built
            if key.endswith("Session") and any(a.keyword and a.keyword.value == "graph" for a in parent.args):
                return  # a session on an explicit graph works under eager execution too
            self.graph_uses.append((node, key))

    def _top_level(self, node: cst.CSTNode) -> cst.CSTNode | None:
        current = node
        while True:
            parent = self.get_metadata(ParentNodeProvider, current, None)
            if parent is None:
                return None
            if isinstance(parent, cst.Module):
                return current
            current = parent

    # --- messages ------------------------------------------------------------------------------
    def _rename_message(self, rel: str) -> str:
        return f"{shown(rel)} does not exist in TensorFlow 2.15: use tf.compat.v1.{rel}"

    def _lowered_later(self, name: str | None) -> bool:
        """A name a later family of this run rewrites: TensorFlowDNNAutoencoder with --target keras (TFM709)."""
        return bool(name) and name.rpartition(".")[2] == "TensorFlowDNNAutoencoder" and TFM709 in self.context.run_rules  # type: ignore[union-attr]

    def _flag_skflow(self, node: cst.CSTNode, name: str | None) -> None:
        if self._lowered_later(name):
            return
        self.flag(
            node,
            TFM503,
            f"{name} does not exist for TensorFlow 2.15 (skflow became tf.contrib.learn in TF 0.9, which TF 2.0 "
            "removed): the TFM1 rules move its canned estimators to tf.estimator; port the rest "
            "(models, ops, preprocessing, monitors) to tf.estimator / tf.keras by hand",
        )

    def _flag_unknown(self, node: cst.CSTNode, rel: str) -> None:
        if self._lowered_later(rel):
            return
        reason = removed_reason(rel[len("compat.v1.") :] if rel.startswith("compat.v1.") else rel)
        if reason is not None:  # a legacy name the inventory decided: why it has no TF 2.15 form (TFM590)
            self.flag(node, TFM590, reason.format(name=shown(rel)))
            return
        hint = self.names.replacement(rel)
        message = f"{shown(rel)} does not exist in TensorFlow 2.15 (neither tf nor tf.compat.v1)"
        if hint is None:
            message += "; no known replacement: port it by hand"
        elif hint.startswith("see TFM"):
            message += f"; {self._family_hint(hint)}"
        elif hint.startswith(("see ", "no ")):
            message += f"; {hint}"
        else:
            message += f"; replacement: {hint}"
        self.flag(node, TFM503, message)

    def _family_hint(self, hint: str) -> str:
        """``see TFM1xx: run the TFM1 rules ...`` is true only where those rules did not run (``--select``
        left them out); where they ran, what is left is what no rule of theirs rewrites."""
        family = hint[len("see ") :].split("xx", 1)[0]  # "TFM1"
        if not any(rule.startswith(family) for rule in self.context.run_rules):
            return hint
        return (f"no {family} rule rewrites it (they ran: `tfmigrate rules {family}` lists what they cover): "
                "port it by hand")

    # --- the module ------------------------------------------------------------------------------
    def leave_Module(self, original: cst.Module, updated: cst.Module) -> cst.Module:
        updated = self._pin_changed_names(updated)
        if not self.graph_uses or self.has_disable or self.eager_program:
            return self._finish(updated)
        from tfmigrate.transforms.keras_target import lowers_to_keras

        if lowers_to_keras(self):  # --target keras lowers this module to Keras 3, which needs eager execution
            return self._finish(updated)
        message = (
            "tf.{} needs graph mode, which TensorFlow 2.15 has off by default: "
            "inserted tf.compat.v1.disable_eager_execution() after the imports"
        )
        if not any(self.fix(node, TFM502, message.format(key)) for node, key in self.graph_uses):
            return self._finish(updated)  # disabled, or every use is suppressed
        call = cst.SimpleStatementLine(
            body=[cst.Expr(cst.Call(func=dotted(f"{self.compat_v1_prefix()}.disable_eager_execution")))]
        )
        index = self._insert_index(original)
        body = list(updated.body)
        body.insert(index, call)
        return self._finish(updated.with_changes(body=body))

    def _pin_changed_names(self, module: cst.Module) -> cst.Module:
        """TFM504: in TF1 graph-mode code, names whose 2.x object differs go to tf.compat.v1."""
        if not self.graph_mode or self.eager_program or not self.pinned:
            self._flag_ambiguous_dropout()
            return module
        replace: dict[int, cst.CSTNode] = {}
        around = []  # where each pinned node stands (the walk goes down the paths to them only)
        for original, updated, rel, base, base_rel in self.pinned:
            message = (
                f"{shown(rel)} exists in TensorFlow 2.15 but behaves differently there (2.x API); "
                f"this graph-mode TF1 code keeps its behaviour with tf.compat.v1.{rel}"
            )
            if self.fix(original, TFM504, message):
                replace[id(updated)] = self._to_compat_v1(updated, base, base_rel)
                around.append(original)
        return transform(module, ReplaceById(replace, around), self.index) if replace else module

    def _flag_ambiguous_dropout(self) -> None:
        """Outside provable TF1 graph code a rewrite could break TF 2 code: say what to check."""
        for original, _updated, rel, _base, _base_rel in self.pinned:
            if rel != "nn.dropout":
                continue
            call = self.get_metadata(ParentNodeProvider, original, None)
            if not isinstance(call, cst.Call) or call.func is not original:
                continue
            positional = [a for a in call.args if a.keyword is None and not a.star]
            if len(positional) >= 2 or any(a.keyword and a.keyword.value == "keep_prob" for a in call.args):
                self.flag(
                    original,
                    TFM504,
                    "tf.nn.dropout's second argument is keep_prob in TF 1.x (0.2 keeps 20% of the units) but "
                    "rate in TF 2.15 (0.2 drops 20%): if this is TF1 code, write tf.compat.v1.nn.dropout(x, "
                    "keep_prob=...) or tf.nn.dropout(x, rate=1 - keep_prob)",
                )

    def _finish(self, module: cst.Module) -> cst.Module:
        if self.need_tf_import:
            self.imports.add(TF)
        return module

    def _insert_index(self, original: cst.Module) -> int:
        """Updated-body index just after the last import that precedes the first use of tensorflow."""
        last = 0
        for i, statement in enumerate(original.body):
            if statement is self.first_tf_statement:
                break
            if is_import_block(statement):
                last = i + 1
        if last == 0:  # no import before: after a docstring / __future__ imports
            for i, statement in enumerate(original.body):
                if is_docstring(statement) and i == 0:
                    last = 1
        return sum(self.expanded.get(id(s), 1) for s in original.body[:last])


def _is_skflow(name: str | None) -> bool:
    return name is not None and (name == SKFLOW or name.startswith(SKFLOW + "."))


def _given_var_list(call: cst.CSTNode | None, func: cst.CSTNode) -> bool:
    """``Saver(var_list=...)``: the call names its variables (the form that also runs eagerly)."""
    return (
        isinstance(call, cst.Call)
        and call.func is func
        and any(a.keyword is not None and a.keyword.value == "var_list" for a in call.args)
    )
