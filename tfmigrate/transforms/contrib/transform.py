"""TFM6xx: the ``tensorflow.contrib`` utilities (layers, framework, losses, metrics, rnn, slim,
legacy_seq2seq, the TensorBoard projector) -> TF 2.15 or a maintained library with the same behaviour.

``contrib.learn``, ``contrib.eager``, ``contrib.summary`` and the ``contrib.layers`` feature columns
belong to other families. Names are matched by qualified name, so every import form is served:
``tf.contrib.rnn.X``, ``from tensorflow.contrib import rnn``, ``import tensorflow.contrib.slim as
slim``, ``from tensorflow.contrib.layers import xavier_initializer``. For each name, in order:

- TFM601-TFM605: TF 2.15 itself when it has the same behaviour, defaults included (legacy argument
  orders are written as keywords, legacy defaults and scales written out);
- TFM606: else tf-slim, the TF 1.15 contrib code kept as a package (``tf_slim``), when it has it;
- TFM607: modules kept whole elsewhere (the projector in ``tensorboard.plugins.projector``);
- TFM608: the small pure functions of ``contrib.legacy_seq2seq`` copied into the module;
- TFM609: else a finding on the line that says what to use instead;
- TFM610-TFM615 (``moved``, ``moved_calls``, ``lookup_helpers``): the modules that moved into core
  (``contrib.data``, ``contrib.keras``, ``contrib.lookup``), renamed, their calls rewritten where only
  the arguments differ, lookup table builders written into the module, the rest reported.

TF 0.x homes of contrib code (``tf.nn.seq2seq``, ``tensorflow.models.rnn.*``) read as the contrib names
they became (``paths.contrib_rel``): they get the same rewrite, with the 0.x name in the message.

Import statements are rewritten in place where a whole module moves (``import tf_slim as slim``),
and dropped when the rewritten references were their only use: ``import tensorflow.contrib...``
raises ModuleNotFoundError on TF 2.15, so none may remain.
"""

from __future__ import annotations

import re
from typing import Callable, ClassVar

import libcst as cst

from tfmigrate.codemod.imports import READ_ELSEWHERE
from tfmigrate.codemod.parsing import parse_helpers
from tfmigrate.codemod.transform import FamilyTransform
from tfmigrate.codemod.tree import dotted as dotted_name
from tfmigrate.codemod.tree import expression, is_docstring, is_import_block
from tfmigrate.rule_ids import TFM601, TFM606, TFM607, TFM608, TFM609, TFM610, TFM612, TFM613, TFM614
from tfmigrate.transforms.common.read_by_name import doubts, in_try
from tfmigrate.transforms.contrib import moved as M
from tfmigrate.transforms.contrib import tables as T
from tfmigrate.transforms.contrib.calls import CallRewrites, Unsupported, bool_literal, code
from tfmigrate.transforms.contrib.moved_calls import MovedCalls
from tfmigrate.transforms.contrib.paths import _SCOPED, contrib_rel, legacy_home
from tfmigrate.transforms.contrib.lookup_helpers import HASHER_SPEC_AT
from tfmigrate.transforms.contrib.vendored import NEEDS, helper_name, helper_source

# packages reported whole, however deep the name (tensor_forest.python.tensor_forest.RandomForestGraphs)
_WHOLE_PACKAGES = frozenset({"boosted_trees", "tensor_forest", "factorization"})
# the contrib packages this family rewrites (others: learn, eager, summary, and the feature columns)
RENAMES = {**T.RENAMES, **M.MOVED}  # (TFM610 for the moved modules' names)
VENDORED = {**T.VENDORED, **M.LOOKUP_VENDORED}  # (TFM613 for contrib.lookup's)
POSITIONAL_LIMIT = {**T.POSITIONAL_LIMIT, **M.POSITIONAL_LIMIT}
LEGACY_ONLY_KEYWORDS = {**T.LEGACY_ONLY_KEYWORDS, **M.LEGACY_ONLY_KEYWORDS}
_OURS = frozenset({*_SCOPED, "slim", "tensorboard", "keras", *(name.split(".")[0] for name in RENAMES), *_WHOLE_PACKAGES})
SLIM_NOTE = "needs the tf-slim package (pip install tf-slim; 1.1.0 runs on TF 2.15)"


_ROOTS = frozenset({"tensorflow"})  # every name this family rewrites or reports is under tensorflow
MODULES = {**T.MODULES, **{k: f"tensorflow.{v}" for k, v in M.KERAS_MODULES.items()}}


def _module_of(rel: str) -> tuple[str, str] | None:
    """(module key, rest) when ``rel`` is a MODULES module or a name inside one."""
    kr = M.keras_rel(rel)
    if kr is not None:  # contrib.keras (public or implementation paths) -> tf.keras
        for key in M.KERAS_MODULES:
            sub = key[len("keras") :].lstrip(".")
            if kr == sub or (not sub) or kr.startswith(sub + "."):
                rest = kr[len(sub) :].lstrip(".")
                return key, rest
    for key in T.MODULES:
        if rel == key:
            return key, ""
        if rel.startswith(key + "."):
            return key, rel[len(key) + 1 :]
    return None


def _module_key(rel: str | None) -> str | None:
    """The MODULES key when ``rel`` is a whole module that moved (``slim``, ``keras.python.keras``)."""
    found = _module_of(rel) if rel else None
    return found[0] if found is not None and not found[1] else None


def _slim_name_ok(module_key: str, rest: str) -> bool:
    if module_key != "slim" or not rest:
        return True
    head = rest.split(".")[0]
    return head in T.SLIM_TOP or head in T.SLIM_MODULES


def _movable(module_key: str, rest: str) -> bool:
    """Can ``from <module> import <rest>`` simply name the new module? (Not for what tf-slim lacks,
    nor for its functions that fail on TF 2.15 or that this family copies instead.)"""
    head = rest.split(".")[0]
    return _slim_name_ok(module_key, rest) and not (
        module_key == "slim" and (head in T.SLIM_BROKEN or f"slim.{head}" in T.VENDORED)
    )


def slim_target(rel: str) -> str | None:
    """The tf_slim name implementing ``rel`` with the TF 1.15 contrib code, if any."""
    package, _, name = rel.partition(".")
    if "." in name:
        return None
    if package == "layers" and name in T.SLIM_TOP:
        return f"tf_slim.{name}"
    if package == "framework" and name in T.SLIM_FRAMEWORK:
        return f"tf_slim.{name}"
    if package == "losses" and name in T.SLIM_LOSSES:
        return f"tf_slim.losses.{name}"
    if package == "metrics" and name in T.SLIM_METRICS:
        return f"tf_slim.metrics.{name}"
    if package == "training" and name in T.SLIM_TRAINING:
        return T.SLIM_TRAINING[name]
    return None


def slim_fails(rel: str, call: cst.Call | None) -> bool:
    """Does this call pass an argument with which the tf-slim copy fails on TF 2.15 (SLIM_TRAINING_FAILS)?"""
    package, _, name = rel.partition(".")
    if package != "training" or name not in T.SLIM_TRAINING_FAILS or call is None:
        return False
    positional = sum(1 for a in call.args if a.keyword is None and not a.star)
    for keyword, position in T.SLIM_TRAINING_FAILS[name]:
        given = next((a for a in call.args if a.keyword is not None and a.keyword.value == keyword), None)
        if positional > position or any(a.star for a in call.args):
            return True
        if given is not None and not (isinstance(given.value, cst.Name) and given.value.value in ("None", "False")):
            return True
    return False


def manual_message(rel: str) -> str | None:
    if rel in T.MANUAL:
        return T.MANUAL[rel].format(name=rel.split(".")[-1])
    package, _, name = rel.partition(".")
    if rel.startswith("slim.nets"):
        return T.MANUAL["slim.nets*"]
    key = f"{package}.*"
    if name and key in T.MANUAL and ("." not in name or package in _WHOLE_PACKAGES):
        return T.MANUAL[key].format(name=name.rpartition(".")[2])
    return None


class ContribTransform(MovedCalls, CallRewrites, FamilyTransform):
    FAMILY: ClassVar[str] = "TFM6"
    # leave_Name leaves a Name whose qualified name is None (no import, no module alias) as it is: the walk skips them
    UNIMPORTED_NAMES_UNCHANGED = True

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self._tf = "tf"
        self._need_tf = False
        self._in_place: set[int] = set()  # ids of ImportAlias / Import(From) rewritten in place
        self._in_place_names: set[str] = set()  # local names those imports bind
        self._plain_tf_import = False  # the module has (or now has) a top-level `import tensorflow`
        self._helpers: list[str] = []  # vendored legacy_seq2seq functions, in first-use order
        self._apply_plans: dict[int, Callable[[cst.Call], cst.BaseExpression]] = {}  # `x.apply(...)` calls to rebuild
        self._handlers: dict[str, Callable[[str, cst.Call, cst.Call], cst.BaseExpression | None]] = {
            "layers.xavier_initializer": self._xavier,
            "layers.xavier_initializer_conv2d": self._xavier,
            "layers.variance_scaling_initializer": self._variance_scaling,
            "layers.l1_regularizer": self._regularizer,
            "layers.l2_regularizer": self._regularizer,
            "layers.l1_l2_regularizer": self._l1_l2,
            **{f"losses.{name}": self._loss for name in T.LOSSES},
            **{f"metrics.{name}": self._metric for name in T.METRICS},
        }

    def planned_nodes(self) -> list[cst.CSTNode] | None:
        """The nodes this family's hooks can act on (the walk enters only them and what contains
        them: ``walk.transform``): the chains under tensorflow (contrib, its TF 0.x homes,
        tf.nn.rnn_cell), whose first Name is in ``names_bound_under``; the import statements; and
        the calls of a TF 1.2-1.3 Dataset method on a value (``ds.map(...)``, ``legacy_method``;
        an ``x.apply(...)`` it rebuilds holds a tf.contrib.data call). None (every node) with a
        ``*`` import."""
        nodes = self.chains_under(_ROOTS)
        if nodes is None:
            return None
        return nodes + [call for call in self.index.nodes(cst.Call)
                        if type(call.func) is cst.Attribute and call.func.attr.value in M.LEGACY_METHODS]

    # --- helpers ---------------------------------------------------------------------------------
    def tf(self, rel: str) -> cst.BaseExpression:
        self._need_tf = True
        return expression(f"{self._tf}.{rel}")

    def external(self, target: str) -> cst.BaseExpression:
        """``tf_slim.x`` / ``tensorboard.plugins.projector``: imports the package (plainly)."""
        module = target if target in T.MODULES.values() else target.split(".")[0]
        if target.startswith("tf_slim"):
            module = "tf_slim"
        self.imports.add(module)
        return expression(target)

    def visit_Module(self, node: cst.Module) -> bool:
        self._tf = self._tensorflow_alias(node)
        self._plan_imports()
        self._drop_unused_imports()
        return True

    def _tensorflow_alias(self, module: cst.Module) -> str:
        aliases = []
        for stmt in module.body:
            if isinstance(stmt, cst.SimpleStatementLine) and len(stmt.body) == 1 and isinstance(stmt.body[0], cst.Import):
                for alias in stmt.body[0].names:
                    name = code(alias.name)
                    if name == "tensorflow":
                        aliases.append(alias.asname.name.value if alias.asname else "tensorflow")
                        self._plain_tf_import = self._plain_tf_import or alias.asname is None
                    elif name.startswith("tensorflow.") and alias.asname is None:
                        aliases.append("tensorflow")  # `import tensorflow.contrib.rnn` binds tensorflow too
        if aliases:
            name = aliases[0]
            if name == "tensorflow" or self.index.module_binding_count(name) in (1, None):
                return name
        if self.index.module_binding_count("tf") != 0:
            return "tensorflow"
        return "tf"

    # --- imports ---------------------------------------------------------------------------------
    def _plan_imports(self) -> None:
        """Which import statements move whole (their names keep working after the rewrite). An import
        nothing reads is not moved: ``_drop_unused_imports`` removes it (no new dependency for nothing)."""
        read = self.index.read_names() | READ_ELSEWHERE.get()
        for statement in self.index.import_statements:
            if isinstance(statement, cst.Import):
                for alias in statement.names:
                    rel = contrib_rel(dotted_name(alias.name))
                    if _module_key(rel) and alias.asname is not None and alias.asname.name.value in read:  # type: ignore[union-attr]
                        self._in_place.add(id(alias))
                        self._in_place_names.add(alias.asname.name.value)  # type: ignore[union-attr]
                continue
            if statement.relative or statement.module is None or isinstance(statement.names, cst.ImportStar):
                continue
            module = dotted_name(statement.module) or ""
            module_rel = contrib_rel(module)
            names = [dotted_name(a.name) or "" for a in statement.names]
            if not any((a.evaluated_alias or dotted_name(a.name)) in read for a in statement.names):
                continue
            if len(names) == 1 and _module_key(contrib_rel(f"{module}.{names[0]}")):
                self._in_place.add(id(statement))  # `from tensorflow.contrib import slim`
            elif module_rel is not None:
                found = _module_of(module_rel)
                if found and all(_movable(found[0], ".".join(filter(None, [found[1], n]))) for n in names) and all(
                    (_module_of(f"{module_rel}.{n}") or ("",))[0] == found[0] for n in names  # (keras.backend: its own)
                ):
                    self._in_place.add(id(statement))  # `from tensorflow.contrib.slim import arg_scope`
            if id(statement) in self._in_place:
                for alias in statement.names:
                    self._in_place_names.add(alias.evaluated_alias or dotted_name(alias.name) or "")

    def _drop_unused_imports(self) -> None:
        """An import of a contrib package of ours that nothing reads only fails on TF 2.15: it goes."""
        read = self.index.read_names() | READ_ELSEWHERE.get()  # (and what a huge module's other chunks read)
        unread = {b.name for b in self.index.imports if b.name not in read}
        doubt = doubts(self.index, self.context.filename, unread)  # read by its name maybe: TFM552 reports it
        for binding in self.index.imports:
            statement, alias = binding.statement, binding.alias
            rel = contrib_rel(binding.target)
            if rel is None or rel.split(".")[0] not in _OURS or binding.name in read:
                continue
            if binding.name in doubt or in_try(self.index, statement):
                continue
            if id(alias) in self._in_place or id(statement) in self._in_place:
                continue
            asname = alias.asname.name.value if alias.asname is not None else None  # type: ignore[union-attr]
            if isinstance(statement, cst.Import):
                if asname is None:
                    continue  # `import tensorflow.contrib.x` binds tensorflow: leave_Import's
                removal = (dotted_name(alias.name) or "", None, asname)
            else:
                removal = (dotted_name(statement.module) or "", dotted_name(alias.name), asname)
            message = f"{binding.target} is imported but never used, and the import fails on TF 2.15: removed"
            if self.fix(alias, TFM601, message):
                self.imports.remove(*removal)

    def visit_Import(self, node: cst.Import) -> bool:
        return False

    def visit_ImportFrom(self, node: cst.ImportFrom) -> bool:
        return False

    def leave_Import(self, original: cst.Import, updated: cst.Import) -> cst.Import | cst.RemovalSentinel:
        aliases = list(updated.names)
        changed = False
        for i, alias in enumerate(original.names):
            rel = contrib_rel(dotted_name(alias.name)) or ""
            if alias.asname is None and rel.split(".")[0] in _OURS:
                # `import tensorflow.contrib.rnn` binds `tensorflow` and fails on TF 2.15: the names read
                # through it are rewritten one by one, the import keeps binding `tensorflow`
                message = f"import tensorflow.contrib.{rel} fails on TF 2.15 (no tensorflow.contrib): import tensorflow"
                if self.fix(alias, TFM601, message):
                    aliases[i] = None if self._plain_tf_import else aliases[i].with_changes(name=cst.Name("tensorflow"))
                    self._plain_tf_import = changed = True
                    self.imports.remove("tensorflow")  # when nothing reads it any more
                continue
            if id(alias) not in self._in_place:
                continue
            key = _module_key(rel) or ""
            target = MODULES[key]
            if self.fix(alias, self._module_rule(key), self._module_message(key)):
                aliases[i] = aliases[i].with_changes(name=expression(target))
                changed = True
        if not changed:
            return updated
        kept = [a for a in aliases if a is not None]
        if not kept:
            return cst.RemoveFromParent()
        if kept[-1] is not aliases[-1]:
            kept[-1] = kept[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
        return updated.with_changes(names=kept)

    def leave_ImportFrom(self, original: cst.ImportFrom, updated: cst.ImportFrom) -> cst.BaseSmallStatement:
        if id(original) not in self._in_place:
            return updated
        module = dotted_name(original.module) or ""
        rel = contrib_rel(module)
        assert not isinstance(original.names, cst.ImportStar)
        name = dotted_name(original.names[0].name) or ""
        full_rel = contrib_rel(f"{module}.{name}") or ""
        full_key = _module_key(full_rel)
        if len(original.names) == 1 and full_key:  # `from tensorflow.contrib import slim`
            target = MODULES[full_key]
            if not self.fix(original, self._module_rule(full_key), self._module_message(full_key)):
                return updated
            parent, _, leaf = target.rpartition(".")
            if parent:
                return updated.with_changes(module=expression(parent), names=[updated.names[0].with_changes(name=cst.Name(leaf))])
            local = original.names[0].evaluated_alias or name
            asname = None if local == target else cst.AsName(name=cst.Name(local))
            return cst.Import(names=[cst.ImportAlias(name=expression(target), asname=asname)], semicolon=updated.semicolon)
        key, rest = _module_of(rel or "") or ("", "")
        target = MODULES[key] + (f".{rest}" if rest else "")
        if not self.fix(original, self._module_rule(key), self._module_message(key)):
            return updated
        return updated.with_changes(module=expression(target))

    def _module_rule(self, key: str) -> str:
        return TFM606 if key == "slim" else TFM612 if key.startswith("keras") else TFM607

    def _module_message(self, key: str) -> str:
        if key.startswith("keras"):
            return (
                f"tf.contrib.{key} (Keras 2.0 in TF 1.2-1.3) is {MODULES[key]} in TF 2.15 (the same API; the defaults "
                "tf.keras changed are written out where a call passes none)"
            )
        if key == "slim":
            return f"tf.contrib.slim is tf_slim, the same TF 1.15 code kept as a package: this module {SLIM_NOTE}"
        return (
            f"tf.contrib.{key} lives on as {T.MODULES[key]} (the same protos and functions; "
            "visualize_embeddings takes the FileWriter or its logdir)"
        )

    # --- references ------------------------------------------------------------------------------
    def leave_Name(self, original: cst.Name, updated: cst.Name) -> cst.BaseExpression:
        return self._reference(original, updated)

    def leave_Attribute(self, original: cst.Attribute, updated: cst.Attribute) -> cst.BaseExpression:
        return self._reference(original, updated)

    def _call_of(self, node: cst.CSTNode) -> cst.Call | None:
        parent = self.index.parents.get(node)
        return parent if isinstance(parent, cst.Call) and parent.func is node else None

    def _reference(self, original: cst.Name | cst.Attribute, updated: cst.BaseExpression) -> cst.BaseExpression:
        if isinstance(original, cst.Attribute) and dotted_name(original) is None:
            return updated  # `f(...).x`: libcst names it after f, but it is a value's attribute
        qualified = self.qualified_name(original)
        rel = contrib_rel(qualified)
        if rel is None:
            if qualified and qualified.startswith(M.RNN_CELL_HOME + "."):
                self._positional_check(original, "rnn." + qualified[len(M.RNN_CELL_HOME) + 1 :])
            return updated
        parent = self.index.parents.get(original)
        outermost = not (isinstance(parent, cst.Attribute) and parent.value is original)
        call = self._call_of(original)
        found = _module_of(rel)
        if found is not None:
            return self._module_reference(original, updated, rel, *found, outermost)
        if call is not None and (rel in self._handlers or rel in M.DATA_CALLS):
            return updated  # leave_Call rewrites the whole call
        if outermost and (rel in M.DATA_MANUAL or rel in M.LOOKUP_MANUAL):
            self.flag(original, TFM614, self.shown(original, (M.DATA_MANUAL | M.LOOKUP_MANUAL)[rel]))
            return updated
        if rel in RENAMES:
            rule = TFM610 if rel in M.MOVED else TFM601
            limit = POSITIONAL_LIMIT.get(rel)
            if call is not None and limit is not None:
                positional = sum(1 for a in call.args if a.keyword is None and not a.star)
                if positional > limit or any(a.star for a in call.args):
                    self.flag(
                        original, TFM614 if rule == TFM610 else TFM609, self.shown(original,
                        f"tf.contrib.{rel}: its positional arguments after the first {limit} meant different "
                        f"parameters across TF 1.x releases; pass them by keyword, then tfmigrate rewrites it to "
                        f"tf.{RENAMES[rel]}"),
                    )
                    return updated
            dropped = LEGACY_ONLY_KEYWORDS.get(rel, frozenset())
            if call is not None and any(a.keyword is not None and a.keyword.value in dropped for a in call.args):
                self.flag(
                    original, TFM614 if rule == TFM610 else TFM609,
                    f"tf.contrib.{rel}({', '.join(sorted(dropped))}=...): tf.{RENAMES[rel]} has no such parameter; "
                    + ("drop it (or share the table another way)" if "shared_name" in dropped else
                       "drop it (TF 2.15 does without it; check the result)") + ", then tfmigrate rewrites the call",
                )
                return updated
            if self.fix(original, rule, self.shown(original, f"tf.contrib.{rel} is tf.{RENAMES[rel]} in TF 2.15 (same behaviour)")):
                self.remove_imports_of(original)
                return self.tf(RENAMES[rel])
            return updated
        if rel in VENDORED:
            return self._vendored(original, updated, rel, call)
        name = rel.rpartition(".")[2]
        if rel.startswith("layers.") and name in T.SLIM_BROKEN:
            if outermost:
                self.flag(original, TFM609, T.SLIM_BROKEN[name].format(name=f"tf.contrib.{rel}"))
            return updated
        target = slim_target(rel)
        if target is not None and slim_fails(rel, call):
            if outermost:
                self.flag(original, TFM609, T.MANUAL[rel].format(name=name))
            return updated
        if target is not None:
            if self.fix(original, TFM606, f"tf.contrib.{rel} is {target}, the same TF 1.15 code kept as a package: this module {SLIM_NOTE}"):
                self.remove_imports_of(original)
                return self.external(target)
            return updated
        if outermost:
            message = manual_message(rel)
            if message is not None:
                self.flag(original, TFM609, self.shown(original, message))
        return updated

    def _positional_check(self, original: cst.CSTNode, rel: str) -> None:
        """``tf.nn.rnn_cell.X(...)`` (TF 0.x and TF 1.2+; the renames family renames it): the positional
        arguments whose meaning changed between releases, as for ``tf.contrib.rnn.X``, are reported."""
        call = self._call_of(original)
        limit = POSITIONAL_LIMIT.get(rel)
        if rel not in RENAMES and "." not in rel[len("rnn.") :]:  # a TF 0.x cell TF 2.15 lacks (EmbeddingWrapper...)
            message = manual_message(rel)
            if message is not None:
                self.flag(original, TFM609, message.replace(f"tf.contrib.{rel}", f"tf.nn.rnn_cell.{rel[4:]} (TF 0.x; "
                                                            f"tf.contrib.{rel} since TF 1.0)", 1))
            return
        if call is None or limit is None:
            return
        if sum(1 for a in call.args if a.keyword is None and not a.star) > limit or any(a.star for a in call.args):
            self.flag(
                original, TFM609,
                f"tf.nn.{rel.replace('rnn.', 'rnn_cell.', 1)}: its positional arguments after the first {limit} meant "
                f"different parameters in TF 0.x (input_size) and TF 1.x releases (as tf.contrib.{rel}'s): pass them "
                f"by keyword",
            )

    def shown(self, original: cst.CSTNode, message: str) -> str:
        """``message`` naming the legacy name as the code wrote it, where that is a TF 0.x home of
        contrib code (``tf.nn.seq2seq.rnn_decoder``, whose TF 1.0 name the message gives)."""
        home = legacy_home(self.qualified_name(original))
        if home is None:
            return message
        tf0 = home[0].replace("tensorflow", "tf", 1)
        return re.sub(
            rf"tf\.contrib\.{home[1]}((?:\.\w+)*)", lambda m: f"{tf0}{m[1]} (TF 0.x; tf.contrib.{home[1]}{m[1]} since TF 1.0)",
            message, count=1,
        )

    def _vendored(
        self, original: cst.CSTNode, updated: cst.BaseExpression, rel: str, call: cst.Call | None
    ) -> cst.BaseExpression:
        name = VENDORED[rel]
        if name in HASHER_SPEC_AT:  # contrib.lookup's builders: without hasher_spec
            at = HASHER_SPEC_AT[name]
            if call is not None and (any(a.star for a in call.args) or any(
                (a.keyword is not None and a.keyword.value == "hasher_spec") or (a.keyword is None and i == at)
                for i, a in enumerate(call.args)
            )):
                self.flag(original, TFM614, M.LOOKUP_MANUAL["lookup.hasher_spec"].format(name=name))
                return updated
        if name == "embed_sequence":
            unique = None
            if call is not None and not any(a.star for a in call.args):
                unique = False
                for i, a in enumerate(call.args):
                    if (a.keyword is None and i == 3) or (a.keyword is not None and a.keyword.value == "unique"):
                        unique = bool_literal(a.value, False)
            if unique is not False:
                self.flag(original, TFM609, T.MANUAL["layers.embed_sequence"])
                return updated
        if name == "seq2seq_sequence_loss" and (call is None or any(a.star for a in call.args) or sum(
            1 for a in call.args if a.keyword is None
        ) > 5):
            self.flag(
                original, TFM609,
                f"tf.contrib.{rel}: TF 1.13 put sum_over_timesteps/sum_over_batch before softmax_loss_function, so "
                "positional arguments after the fifth are ambiguous (and a reference can be called either way): pass "
                "them by keyword, then tfmigrate copies the TF 1.15 code",
            )
            return updated
        if name == "optimize_loss":
            if call is None or any(a.star for a in call.args) or any(
                (a.keyword is not None and a.keyword.value in T.OPTIMIZE_LOSS_UNSUPPORTED)
                or (a.keyword is None and i in T.OPTIMIZE_LOSS_UNSUPPORTED.values())
                for i, a in enumerate(call.args)
            ):
                self.flag(
                    original, TFM609,
                    f"tf.contrib.{rel}: tf-slim 1.1.0's copy fails on TF 2.15 and tfmigrate copies the TF 1.15 code "
                    "only for calls without gradient_noise_scale/gradient_multipliers (or *args): build the train op "
                    "with a tf.compat.v1.train optimizer's compute_gradients/apply_gradients",
                )
                return updated
            message = (
                f"tf.contrib.{rel} is gone and tf-slim 1.1.0's copy fails on TF 2.15 (ops.Tensor): its TF 1.15 code is "
                f"copied into this module as {helper_name(name)} (the same OptimizeLoss/learning_rate variable, "
                "optimizers by name, clipping, decay and summaries)"
            )
        elif name == "seq2seq_sequence_loss":
            message = (
                f"tf.contrib.{rel} is gone in TF 2 (tfa.seq2seq.sequence_loss lives in the end-of-life TensorFlow "
                f"Addons): its TF 1.15 code is copied into this module as {helper_name(name)} (the same weighted "
                "mean cross-entropy)"
            )
        elif name == "bow_encoder":
            message = (
                f"tf.contrib.{rel} is in neither TF 2.15 nor tf-slim: its TF 1.15 code is copied into this module as "
                f"{helper_name(name)} (the same bow_encoder/embeddings model variable; the sparse lookup is "
                "tf.compat.v1.nn.safe_embedding_lookup_sparse, the core copy of contrib's)"
            )
        elif rel in M.LOOKUP_VENDORED:
            message = (
                f"tf.contrib.{rel} is not in TF 2.15: its TF 1.x code is written into this module as "
                f"{helper_name(name)}, on TF 2.15's tf.compat.v1.lookup tables (the same keys, ids, default value and "
                "out-of-vocabulary buckets; initialised by tables_initializer() as before)"
            )
        elif name == "embed_sequence":
            message = (
                f"tf.contrib.{rel} is in neither TF 2.15 nor tf-slim: its TF 1.15 code is copied into this module as "
                f"{helper_name(name)} (the same EmbedSequence/embeddings model variable and lookup)"
            )
        else:
            message = (
                f"tf.contrib.{rel} is gone in TF 2: its TF 1.15 code is copied into this module as "
                f"{helper_name(name)} (tf.compat.v1 ops, the same variables and results)"
            )
        if not self.fix(original, TFM613 if rel in M.LOOKUP_VENDORED else TFM608, self.shown(original, message)):
            return updated
        self.remove_imports_of(original)
        for needed in (*NEEDS.get(name, ()), name):
            if needed not in self._helpers:
                self._helpers.append(needed)
        self._need_tf = True
        return cst.Name(helper_name(name))

    def _module_reference(
        self, original: cst.CSTNode, updated: cst.BaseExpression, rel: str, key: str, rest: str, outermost: bool
    ) -> cst.BaseExpression:
        """A name in a module that moved whole: the module node of the chain is replaced (an import
        rewritten in place already serves its names)."""
        if isinstance(original, cst.Name) and (
            original.value in self._in_place_names or not self.index.binds_by_import(original.value)
        ):
            return updated  # an import rewritten in place, or an alias (`slim = tf.contrib.slim`) rewritten itself
        if key.startswith("keras"):
            return self.keras_reference(original, updated, rel, outermost)
        if key == "slim" and rel in T.VENDORED:
            return self._vendored(original, updated, rel, self._call_of(original))
        if key == "slim" and rest in T.SLIM_BROKEN:
            if outermost:
                self.flag(original, TFM609, T.SLIM_BROKEN[rest].format(name=f"slim.{rest}"))
            return updated
        if isinstance(original, cst.Attribute) and rest:
            if outermost and not _slim_name_ok(key, rest):
                self.flag(original, TFM609, manual_message(rel) or f"tf.contrib.{rel} is not part of tf-slim: port it by hand")
            return updated  # its module node (tf.contrib.slim, or a name bound to it) is replaced
        if not _slim_name_ok(key, rest):
            if outermost:
                self.flag(original, TFM609, manual_message(rel) or f"tf.contrib.{rel} is not part of tf-slim: port it by hand")
            return updated
        target = MODULES[key] + (f".{rest}" if rest else "")
        if self.fix(original, self._module_rule(key), self._module_message(key)):
            self.remove_imports_of(original)
            self.imports.add(MODULES[key])
            return expression(target)
        return updated

    # --- calls -----------------------------------------------------------------------------------
    def leave_Call(self, original: cst.Call, updated: cst.Call) -> cst.BaseExpression:
        if dotted_name(original.func) is None:  # `xavier_initializer()(shape)` calls what the inner call returned
            return self.legacy_method(original, updated)  # (or `Dataset.range(9).map(...)`, a dataset's method)
        rel = contrib_rel(self.qualified_name(original.func))
        if rel is None:
            return self.legacy_method(original, updated)
        moved = self.moved_call(rel, original, updated)
        if moved is not None:
            return moved
        if rel not in self._handlers:
            return updated
        try:
            new = self._handlers[rel](rel, original, updated)
        except Unsupported:
            new = None
        if new is not None:
            self.remove_imports_of(original.func)
            return new
        target = slim_target(rel)  # the exact rewrite cannot prove this form: tf-slim runs the legacy code
        if target is not None and self.fix(
            original.func, TFM606, f"tf.contrib.{rel} is {target}, the same TF 1.15 code kept as a package: this module {SLIM_NOTE}"
        ):
            self.remove_imports_of(original.func)
            return updated.with_changes(func=self.external(target))
        return updated

    # --- the module ------------------------------------------------------------------------------
    def leave_Module(self, original: cst.Module, updated: cst.Module) -> cst.Module:
        if self._need_tf:
            self.imports.add("tensorflow", asname=None if self._tf == "tensorflow" else self._tf)
        defined = {s.name.value for s in updated.body if isinstance(s, cst.FunctionDef)}
        helpers = [name for name in self._helpers if helper_name(name) not in defined]  # a copy made before
        if not helpers:
            return updated
        source = "\n\n".join(helper_source(name, self._tf) for name in helpers)
        defs = list(parse_helpers(source, updated.config_for_parsing).body)
        defs[0] = defs[0].with_changes(leading_lines=(cst.EmptyLine(), cst.EmptyLine()))
        body = list(updated.body)
        at = _after_imports(body)
        rest = body[at:]
        if rest:
            rest[0] = rest[0].with_changes(leading_lines=(cst.EmptyLine(), cst.EmptyLine(), *_strip_blank(rest[0].leading_lines)))
        self.written_helpers = defs
        return updated.with_changes(body=(*body[:at], *defs, *rest))


def _strip_blank(lines) -> tuple:  # type: ignore[no-untyped-def]
    lines = list(lines)
    while lines and lines[0].comment is None:
        lines.pop(0)
    return tuple(lines)


def _after_imports(body: list[cst.BaseStatement]) -> int:
    """Index after the module's docstring and its first block of imports (the helpers are only
    called later, so they need nothing that comes after)."""
    at = 0
    if body and is_docstring(body[0]):
        at = 1
    while at < len(body) and is_import_block(body[at]):
        at += 1
    return at
