"""TFM54x: the TF 0.x -> 1.0 API changes that ``tf_upgrade_v2`` does not know.

TensorFlow 1.0 renamed and reordered part of the API; its own upgrader (``tf_upgrade.py`` of the
r1.0 branch) and the 1.0 release notes list the changes. ``tf_upgrade_v2`` assumes 1.x code, so a
TF 0.x program that it "upgrades" still fails (``tf.mul``), or silently computes something else
(``tf.nn.softmax_cross_entropy_with_logits(logits, labels)`` positional: TF 2.15 reads the first
argument as the labels). This family runs before the renames family (TFM5), which then moves
what is left to ``tf.compat.v1``:

- TFM540 (fix): renamed symbols (``tf.mul`` -> ``tf.multiply``, ``tf.scalar_summary`` ->
  ``tf.compat.v1.summary.scalar``, ``tf.initialize_all_variables`` ->
  ``tf.compat.v1.global_variables_initializer``, ``tf.nn.rnn`` -> ``tf.compat.v1.nn.static_rnn``...),
  written where they exist in TF 2.15 (``tf.compat.v1`` when 2.x lacks them or changed them: 0.x
  code is graph code).
- TFM541 (fix): functions whose positional order changed (``tf.concat(0, values)``,
  ``tf.split(axis, n, value)``, ``tf.op_scope``, ``tf.svd``, ``tf.image.resize_images(images, h, w)``):
  the legacy call becomes a keyword call in the legacy meaning.
- TFM542 (fix): the cross-entropy and sampled losses whose argument order changed (``logits,
  labels`` first in 0.x; ``inputs, labels`` of ``nce_loss``): keyword calls, legacy meaning.
- TFM543 (fix): keyword renames (``reduction_indices`` -> ``axis``, ``keep_dims`` -> ``keepdims``,
  ``SparseTensor(shape=)`` -> ``dense_shape``...), where TF 2.15 rejects the old keyword.
- TFM544 (fix/finding): ``tf.reverse(x, [False, True])`` (0.x: a boolean mask) -> ``axis=[1]``.
- TFM545 (fix): ``tf.zeros_initializer`` / ``tf.ones_initializer`` passed uncalled (0.x functions,
  classes since 1.0) are called.
- TFM546 (fix): ``x.get_shape()[i].value`` (TF1 ``Dimension``) -> ``tf.compat.dimension_value(...)``.
- TFM547 (fix): private ``tensorflow.python.keras.*`` imports (a partial leftover in 2.15, not the
  Keras behind ``tf.keras``) -> public ``tensorflow.keras.*`` where TF 2.15 has the name.

Legacy order is decided from the call itself where it can be (``tf.concat(1, [a, b])``: an int
literal is no list of tensors), else from the module: a module that uses a name TF 1.0 removed is
TF 0.x code; positional cross-entropy calls (TF 1.x required keywords) are legacy in any TF1
module. An ambiguous call in a module with no such evidence is left alone (or flagged).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import ClassVar

import libcst as cst
from libcst.metadata import ParentNodeProvider

from tfmigrate.codemod.transform import FamilyTransform
from tfmigrate.codemod.tree import full_name
from tfmigrate.codemod.walk import transform
from tfmigrate.rule_ids import TFM540, TFM541, TFM542, TFM543, TFM544, TFM545, TFM546, TFM547
from tfmigrate.transforms.common.builders import ReplaceById
from tfmigrate.transforms.common.tf_names import TF, V1, V2, base_name, dotted, names, tf_rel
from tfmigrate.transforms.tf0.screen import SCREEN, int_literal as _int_literal
from tfmigrate.transforms.tf0.tables import (
    KEYWORDS, LEGACY_KEYWORDS, LEGACY_TARGET, LOSSES, MIN_POSITIONAL, MODERN_KEYWORDS, ORDER, PRIVATE_KERAS,
    RENAMED, RESIZE, SENTINEL, SHAPE_ATTRS, SUMMARY_KEYWORDS, SUMMARY_NAME_INDEX, UNCALLED_INITIALIZERS,
)


def target_of(rel: str) -> str | None:
    """The TF 2.15 spelling (relative to tensorflow) of a TF 1.0 name; None when 2.15 has neither."""
    if rel.startswith("compat.v1."):
        return rel
    table = names()
    status = table.status(rel)
    if status == V2 and not table.changed_in_v2(rel):
        return rel
    if status in (V1, V2):
        return f"compat.v1.{rel}"
    return None


def _sequence_literal(node: cst.BaseExpression) -> bool:
    return isinstance(node, (cst.List, cst.Tuple, cst.ListComp))


def _bools(node: cst.BaseExpression) -> list[bool] | None:
    if not isinstance(node, (cst.List, cst.Tuple)) or not node.elements:
        return None
    out = []
    for element in node.elements:
        value = element.value
        if not (isinstance(value, cst.Name) and value.value in ("True", "False")) or isinstance(element, cst.StarredElement):
            return None
        out.append(value.value == "True")
    return out


def _role(node: cst.BaseExpression) -> str | None:
    """``"logits"`` or ``"labels"`` when the argument's own name says which it is (``y_logits``, ``self.labels``)."""
    if isinstance(node, cst.Attribute):
        node = node.attr
    if not isinstance(node, cst.Name):
        return None
    name = node.value.lower()
    found = {role for role, words in (("logits", ("logit",)), ("labels", ("label", "target"))) if any(w in name for w in words)}
    return found.pop() if len(found) == 1 else None


def _named_order(call: cst.Call) -> bool | None:
    """Positional (a, b) of a cross-entropy: True when the names say (logits, labels), False for
    (labels, logits), None when they do not tell."""
    first, second = (_role(a.value) for a in _positional(call)[:2])
    if first == "logits" or second == "labels":
        return first != "labels" and second != "logits"  # contradicting names tell nothing
    if first == "labels" or second == "logits":
        return False
    return None


def _positional(call: cst.Call) -> list[cst.Arg]:
    return [a for a in call.args if a.keyword is None and not a.star]


_TENSORFLOW = frozenset({TF})  # the package whose names this family reads (tf_rel)


class Tf0Api(FamilyTransform):
    FAMILY: ClassVar[str] = "TFM54"
    SCREEN = SCREEN
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
        self.tf_alias: str | None = None
        self.tf0 = False  # the module uses a name TF 1.0 removed: TF 0.x code
        self.tf1 = False  # the module uses TF1 (or 0.x) API: graph-mode TF1 code
        self.deferred: list[tuple[cst.Call, cst.Call, str, str]] = []  # (call, its node in the tree, legacy name, rule)
        self.replace: dict[int, Callable[[cst.CSTNode], cst.CSTNode]] = {}
        self.removals: set[tuple[str, str, str | None]] = set()
        self.need_import = False
        self.in_import = 0
        self.unknown_reverse: list[cst.Call] = []  # tf.reverse(x, <not a literal>): a mask in TF 0.x code
        self.by_hand: set[int] = set()  # calls flagged for manual work: their keywords stay as they are
        self.summary_split: set[int] = set()  # scalar_summary([tags...], values) calls: one scalar a tag

    # --- module ------------------------------------------------------------------------------
    def visit_Module(self, node: cst.Module) -> None:
        for statement in node.body:
            if isinstance(statement, cst.SimpleStatementLine):
                for small in statement.body:
                    if isinstance(small, cst.Import):
                        for alias in small.names:
                            if full_name(alias.name) == TF and self.tf_alias is None:
                                self.tf_alias = alias.evaluated_alias or TF

    def planned_nodes(self) -> list[cst.CSTNode] | None:
        """The nodes this family's hooks can act on (the walk enters only them and what contains them:
        ``walk.transform``). ``leave_Name``/``leave_Attribute``'s references and ``leave_Call`` decide
        from the qualified name of a chain under tensorflow (``tf_rel``: None for any other), whose first
        Name is in ``names_bound_under``; ``leave_Import``/``leave_ImportFrom`` from the import statements
        (``chains_under`` lists them too); ``leave_Attribute``'s ``Dimension.value`` from an attribute
        ``value`` (``_is_dimension`` reads the rest of it, unvisited). Every flag the hooks set (``tf0``,
        ``tf1``, the deferred calls) comes from those. None (every node) with a ``*`` import."""
        nodes = self.chains_under(_TENSORFLOW)
        if nodes is None:
            return None
        return nodes + [node for node in self.index.nodes(cst.Attribute) if node.attr.value == "value"]

    def prefix(self) -> str:
        if self.tf_alias:
            return self.tf_alias
        self.need_import = True
        return TF

    def leave_Module(self, original: cst.Module, updated: cst.Module) -> cst.Module:
        for call, placed, rel, rule in self.deferred:
            self._decide(call, placed, rel, rule)
        if self.tf0:
            for call in self.unknown_reverse:
                self._flag_reverse(call)
        if self.replace:  # each replaced node stands where its call was: the walk goes down the paths to those only
            around = [call for call, placed, _, _ in self.deferred if id(placed) in self.replace]
            updated = transform(updated, ReplaceById(self.replace, around), self.index)
        if self.need_import:
            self.imports.add(TF)
        return updated

    # --- imports -----------------------------------------------------------------------------
    def visit_Import(self, node: cst.Import) -> None:
        self.in_import += 1

    def leave_Import(self, original: cst.Import, updated: cst.Import) -> cst.Import:
        self.in_import -= 1
        aliases = list(updated.names)
        changed = False
        for i, alias in enumerate(original.names):
            if alias.asname is None:
                continue  # `import tensorflow.python.keras` binds `tensorflow`: its uses say the rest
            public = self._public_keras(tf_rel(full_name(alias.name)))
            if public and self.fix(alias, TFM547, self._keras_message(public)):
                aliases[i] = aliases[i].with_changes(name=dotted(f"{TF}.{public}"))
                changed = True
        return updated.with_changes(names=aliases) if changed else updated

    def visit_ImportFrom(self, node: cst.ImportFrom) -> None:
        self.in_import += 1

    def leave_ImportFrom(self, original: cst.ImportFrom, updated: cst.ImportFrom) -> cst.ImportFrom:
        self.in_import -= 1
        if original.relative or original.module is None:
            return updated
        module_rel = tf_rel(full_name(original.module))
        if not module_rel or not (module_rel == PRIVATE_KERAS or module_rel.startswith(PRIVATE_KERAS + ".")):
            return updated
        public_module = self._public_keras(module_rel)
        if public_module is None:
            return updated
        if not isinstance(original.names, cst.ImportStar):
            for alias in original.names:
                if self._public_keras(f"{module_rel}.{full_name(alias.name)}") is None:
                    return updated  # a name the public module lacks: the catch-all reports it
        if self.fix(original, TFM547, self._keras_message(public_module)):
            return updated.with_changes(module=dotted(f"{TF}.{public_module}"))
        return updated

    def _public_keras(self, rel: str | None) -> str | None:
        """``python.keras.utils.to_categorical`` -> ``keras.utils.to_categorical`` when TF 2.15 has it."""
        if not rel or not (rel == PRIVATE_KERAS or rel.startswith(PRIVATE_KERAS + ".")):
            return None
        public = rel[len("python.") :]
        return public if self.names.status(public) == V2 else None

    def _keras_message(self, public: str) -> str:
        return (
            f"tensorflow.python.keras is TensorFlow's private copy of Keras (in TF 2.15 a leftover that lacks much "
            f"of the API and is not the Keras behind tf.keras): use the public tensorflow.{public}"
        )

    # --- references ----------------------------------------------------------------------------
    def leave_Attribute(self, original: cst.Attribute, updated: cst.Attribute) -> cst.BaseExpression:
        if original.attr.value == "value" and self._is_dimension(original.value):
            return self._dimension_value(original, updated)
        parent = self.get_metadata(ParentNodeProvider, original, None)
        if type(parent) is cst.Attribute and parent.value is original:
            return updated
        return self._reference(original, updated, parent)

    def leave_Name(self, original: cst.Name, updated: cst.Name) -> cst.BaseExpression:
        if self.in_import:
            return updated
        parent = self.get_metadata(ParentNodeProvider, original, None)
        if type(parent) is cst.Attribute:
            return updated
        return self._reference(original, updated, parent)

    def _reference(self, original: cst.BaseExpression, updated: cst.BaseExpression, parent) -> cst.BaseExpression:
        if self.in_import:
            return updated
        rel = tf_rel(self.qualified_name(original))
        if not rel:
            return updated
        if self.names.status(rel) == V1:  # (not tf.compat.v1.*: TF 1.13+ code, or what tfmigrate wrote)
            self.tf1 = True
        if rel in UNCALLED_INITIALIZERS and type(parent) is cst.Arg and parent.value is original:
            message = (
                f"tf.{rel} was a function in TF 0.x and is a class since TF 1.0: an initializer is "
                f"tf.{rel}() (passed uncalled it would be built with the shape as its dtype)"
            )
            if self.fix(original, TFM545, message):
                return cst.Call(func=updated)
            return updated
        new = RENAMED.get(rel)
        if new is None:
            return updated
        self.tf0 = self.tf1 = True
        target = target_of(new)
        if target is None:
            return updated  # the catch-all reports it
        call = parent if type(parent) is cst.Call and parent.func is original else None
        if rel in SUMMARY_KEYWORDS and call is not None and self._summary_needs_hand(original, call, rel, target):
            return updated
        if call is not None and id(call) in self.summary_split:
            return updated  # leave_Call writes one summary a tag
        message = f"tf.{rel} was renamed in TF 1.0: tf.{target} in TensorFlow 2.15"
        if rel in SUMMARY_KEYWORDS:
            message += (
                " (its first argument, the tag, is now the summary's name: it takes the enclosing name scope "
                "as a prefix, and characters other than letters, digits, '_', '-', '/' and '.' become '_')"
            )
        if not self.fix(original, TFM540, message):
            return updated
        return self._spelled(original, updated, target)

    def _summary_needs_hand(self, original: cst.CSTNode, call: cst.Call, rel: str, target: str) -> bool:
        """A 0.x summary call the 1.0 op cannot express: several tags at once, or an op `name=`."""
        positional = _positional(call)
        tags = positional[0].value if positional else next(
            (a.value for a in call.args if a.keyword is not None and a.keyword.value in ("tag", "tags")), None
        )
        if isinstance(tags, (cst.List, cst.Tuple)) and self._splittable(call, rel, tags):
            self.summary_split.add(id(call))
            return False
        if isinstance(tags, (cst.List, cst.Tuple)):
            self.by_hand.add(id(call))
            self.flag(
                original,
                TFM540,
                f"tf.{rel} with several tags at once has no TF 1.0+ form: tf.{target} records one scalar; "
                f"write one tf.{target}(tag, value) per tag (tfmigrate does when the tags and values are a "
                f"literal list, or the values a plain name)",
            )
            return True
        if any(a.star for a in call.args) and not all(a.keyword is not None for a in call.args if not a.star):
            return False  # the names of *args are unknown: renamed as it is
        return False

    def _splittable(self, call: cst.Call, rel: str, tags: cst.List | cst.Tuple) -> bool:
        """``scalar_summary([t1, t2], values)``: one scalar a tag, with values a name (indexed) or a literal
        list of as many values (TF 0.x wrote one Summary value a tag)."""
        if not rel.endswith("scalar_summary") or any(a.star for a in call.args):
            return False
        if any(isinstance(e, cst.StarredElement) for e in tags.elements) or not tags.elements:
            return False
        values = self._summary_arg(call, 1, ("values", "tensor"))
        if isinstance(values, (cst.List, cst.Tuple)):
            return len(values.elements) == len(tags.elements) and not any(
                isinstance(e, cst.StarredElement) for e in values.elements)
        return isinstance(values, (cst.Name, cst.Attribute)) and full_name(values) is not None

    @staticmethod
    def _summary_arg(call: cst.Call, index: int, keywords: tuple[str, ...]) -> cst.BaseExpression | None:
        positional = _positional(call)
        if len(positional) > index:
            return positional[index].value
        return next((a.value for a in call.args if a.keyword is not None and a.keyword.value in keywords), None)

    def _summary_arguments(self, original: cst.Call, updated: cst.Call, rel: str) -> cst.BaseExpression:
        """A TF 0.x summary call's arguments in TF 1.0+'s form: the op ``name`` (0.x: a parameter of its
        own after collections; 1.0+: the tag is the name, and that position is ``family``) dropped, a
        bytes tag decoded, several scalar tags written as one scalar summary a tag, merged."""
        base = rel.rpartition(".")[2]
        name_at = SUMMARY_NAME_INDEX[base]
        args = list(updated.args)
        dropped = [i for i, a in enumerate(original.args)
                   if (a.keyword is not None and a.keyword.value == "name") or (a.keyword is None and not a.star and i == name_at)]
        if dropped and self.fix(original.args[dropped[0]], TFM540, (
            f"tf.{rel}(..., name=...): the name of the 0.x op is dropped (TF 1.0+ names the op after its tag, and "
            f"that argument position is `family`, which would prefix the tag); the summary written is the same"
        )):
            args = [a for i, a in enumerate(args) if i not in dropped]
        tag_at = 0 if original.args and original.args[0].keyword is None else next(
            (i for i, a in enumerate(original.args) if a.keyword is not None and a.keyword.value in ("tag", "tags")), None)
        if tag_at is not None and tag_at < len(original.args):
            tag = original.args[tag_at].value
            if isinstance(tag, cst.SimpleString) and isinstance(tag.evaluated_value, bytes):
                try:
                    text = tag.evaluated_value.decode("utf-8")
                except UnicodeDecodeError:
                    text = None
                if text is None:
                    self.flag(tag, TFM540, f"tf.{rel}: a bytes tag that is not UTF-8 has no TF 1.0+ form (the tag is a str name)")
                elif self.fix(tag, TFM540, f"tf.{rel}(b'...'): TF 1.0+ takes the tag as a str name: the bytes tag is decoded"):
                    position = args.index(updated.args[tag_at]) if updated.args[tag_at] in args else None
                    if position is not None:
                        plain = tag.value[1:] if tag.value[0] == "b" and text.isascii() and "\\" not in tag.value else repr(text)
                        args[position] = args[position].with_changes(value=cst.SimpleString(plain))
        if len(args) != len(updated.args):
            args = [a.with_changes(comma=cst.MaybeSentinel.DEFAULT) if i == len(args) - 1 else a for i, a in enumerate(args)]
        return updated.with_changes(args=args)

    def _split_scalars(self, original: cst.Call, updated: cst.Call, rel: str) -> cst.BaseExpression:
        target = target_of(RENAMED[rel])
        assert target is not None
        tags = self._summary_arg(updated, 0, ("tags", "tag"))
        values = self._summary_arg(updated, 1, ("values", "tensor"))
        collections = self._summary_arg(updated, 2, ("collections",))
        message = (
            f"tf.{rel}([tag, ...], values): TF 0.x wrote one scalar a tag; TF 1.0+ summaries take one tag: written as "
            f"tf.{target} a tag, merged (tf.compat.v1.summary.merge: the same values in one Summary)"
        )
        if not self.fix(original, TFM540, message):
            return updated
        assert isinstance(tags, (cst.List, cst.Tuple)) and values is not None
        func = self._spelled(original.func, updated.func, target)
        parts = []
        for i, element in enumerate(tags.elements):
            value = values.elements[i].value if isinstance(values, (cst.List, cst.Tuple)) else cst.Subscript(
                value=values, slice=[cst.SubscriptElement(cst.Index(cst.Integer(str(i))))])
            args = [cst.Arg(element.value), cst.Arg(value)]
            if collections is not None:
                args.append(cst.Arg(collections, keyword=cst.Name("collections"),
                                    equal=cst.AssignEqual(whitespace_before=cst.SimpleWhitespace(""), whitespace_after=cst.SimpleWhitespace(""))))
            parts.append(cst.Element(cst.Call(func=func, args=args)))
        merge = dotted(f"{self.prefix()}.compat.v1.summary.merge")
        return cst.Call(func=merge, args=[cst.Arg(cst.List(parts))])

    def _spelled(self, original: cst.BaseExpression, updated: cst.BaseExpression, target: str) -> cst.BaseExpression:
        """``target`` (relative to tensorflow) in the module's own spelling of TensorFlow."""
        base = base_name(original)
        base_rel = tf_rel(self.qualified_name(base)) if base is not None else None
        if base is not None and base_rel == "":
            return dotted(f"{base.value}.{target}")
        if base is not None and base_rel:  # `from tensorflow import mul`: the import goes when unused
            module, _, obj = f"{TF}.{base_rel}".rpartition(".")
            removal = (module, obj, base.value if base.value != obj else None)
            if removal not in self.removals:
                self.removals.add(removal)
                self.imports.remove(*removal)
        return dotted(f"{self.prefix()}.{target}")

    # --- Dimension.value -----------------------------------------------------------------------
    def _is_dimension(self, node: cst.BaseExpression) -> bool:
        """``<x>.get_shape()[i]``, ``<x>.shape[i]``, ``<x>.shape.dims[i]``: a TF1 ``Dimension``."""
        if not isinstance(node, cst.Subscript) or len(node.slice) != 1:
            return False
        if not isinstance(node.slice[0].slice, cst.Index):
            return False
        owner = node.value
        if isinstance(owner, cst.Call) and not owner.args and isinstance(owner.func, cst.Attribute):
            return owner.func.attr.value == "get_shape"
        return isinstance(owner, cst.Attribute) and owner.attr.value in SHAPE_ATTRS

    def _dimension_value(self, original: cst.Attribute, updated: cst.Attribute) -> cst.BaseExpression:
        message = (
            "TF 2.15's TensorShape holds ints (or None), not Dimensions: `.value` fails; "
            "tf.compat.dimension_value(...) gives the same int/None under both"
        )
        if not self.fix(original, TFM546, message):
            return updated
        return cst.Call(func=dotted(f"{self.prefix()}.compat.dimension_value"), args=[cst.Arg(updated.value)])

    # --- calls ---------------------------------------------------------------------------------
    def leave_Call(self, original: cst.Call, updated: cst.Call) -> cst.BaseExpression:
        rel = tf_rel(self.qualified_name(original.func))
        if not rel:
            return updated
        if rel.startswith("compat.v1.") or id(original) in self.by_hand:
            return updated  # already TF1 code that TF 2.15 runs as it is, or manual work
        if id(original) in self.summary_split:
            return self._split_scalars(original, updated, rel)
        updated = self._keywords(original, updated, rel)
        if rel in SUMMARY_KEYWORDS and not any(a.star for a in original.args):
            return self._summary_arguments(original, updated, rel)  # (after the keywords: it may drop one)
        if rel == "reverse":
            return self._reverse(original, updated)
        if rel == RESIZE:
            return self._resize(original, updated)
        if rel not in ORDER:
            return updated
        positional = _positional(original)
        if not positional:
            return updated
        verdict = self._order_from_call(rel, positional, original)
        if verdict is False or (verdict is None and len(positional) < MIN_POSITIONAL.get(rel, 2)):
            return updated
        rule = TFM542 if rel in LOSSES else TFM541
        if verdict is True:
            self.tf0 = self.tf1 = True
            return self._legacy_keywords(original, updated, rel, rule)
        self.deferred.append((original, updated, rel, rule))
        return updated

    def _keywords(self, original: cst.Call, updated: cst.Call, rel: str) -> cst.Call:
        table = KEYWORDS.get(rel)
        if not table:
            return updated
        args = list(updated.args)
        changed = False
        for i, arg in enumerate(original.args):
            if arg.keyword is None or arg.keyword.value not in table:
                continue
            new = table[arg.keyword.value]
            if any(a.keyword is not None and a.keyword.value == new for a in original.args):
                continue  # both given: TF's own error is clearer than ours
            message = f"the {arg.keyword.value}= keyword of tf.{rel} is {new}= in TensorFlow 2.15"
            if self.fix(arg, TFM543, message):
                args[i] = args[i].with_changes(keyword=cst.Name(new))
                changed = True
        return updated.with_changes(args=args) if changed else updated

    def _order_from_call(self, rel: str, positional: list[cst.Arg], call: cst.Call) -> bool | None:
        """True: the call is legacy by its own arguments; False: modern; None: the module decides."""
        keywords = {a.keyword.value for a in call.args if a.keyword is not None}
        if keywords & MODERN_KEYWORDS.get(rel, frozenset()):
            return False
        if keywords & LEGACY_KEYWORDS.get(rel, frozenset()):
            return True
        first = positional[0].value
        if rel in ("concat", "split", "sparse_split"):
            if _int_literal(first):
                return True  # an axis: a tensor list or a tensor is never an int literal
            if _sequence_literal(first):
                return False
            if rel == "concat" and _int_literal(positional[1].value):
                return False
            if rel == "split" and len(positional) >= 3 and _int_literal(positional[2].value):
                return False
            return None
        if rel == "op_scope":
            return True  # a TF 0.x name
        return None

    def _decide(self, call: cst.Call, placed: cst.Call, rel: str, rule: str) -> None:
        if rel in SENTINEL:
            legacy = self.tf1 or _named_order(call)  # TF 1.x required keywords: positional is TF 0.x in TF1 code
            if legacy is None:
                self.flag(
                    call,
                    rule,
                    f"tf.{rel} with positional arguments: TF 0.x read them as (logits, labels), TF 2.15 reads "
                    f"(labels, logits), and nothing here says which this is: write logits=..., labels=...",
                )
                return
        else:
            legacy = self.tf0
        if legacy:
            build = self._legacy_resize if rel == RESIZE else self._legacy_keywords
            self.replace[id(placed)] = lambda updated, call=call, rel=rel, rule=rule: build(call, updated, rel, rule)

    def _legacy_keywords(self, original: cst.Call, updated: cst.Call, rel: str, rule: str) -> cst.Call:
        params = ORDER[rel]
        positional = _positional(original)
        if len(positional) > len(params) or any(a.star for a in original.args):
            return updated
        given = [f"{p}=" for p in params[: len(positional)]]
        message = (
            f"tf.{rel} takes ({', '.join(params[:len(positional)])}) positionally in TF 0.x and another order "
            f"since TF 1.0: written as keywords ({', '.join(given)}) in its legacy meaning"
        )
        target = LEGACY_TARGET.get(rel)
        if target:
            message += f", with tf.{target} (TF 0.x behaviour)"
        if not self.fix(original, rule, message):
            return updated
        args = list(updated.args)
        for i, param in enumerate(params[: len(positional)]):  # TF 2.15's names for the legacy parameters
            args[i] = args[i].with_changes(
                keyword=cst.Name(param),
                equal=cst.AssignEqual(whitespace_before=cst.SimpleWhitespace(""), whitespace_after=cst.SimpleWhitespace("")),
            )
        new = updated.with_changes(args=args)
        if target:
            new = new.with_changes(func=self._spelled(original.func, updated.func, target))
        return new

    def _resize(self, original: cst.Call, updated: cst.Call) -> cst.Call:
        """TF 0.x ``resize_images(images, new_height, new_width[, method])`` -> ``(images, size=[h, w], method=)``."""
        keywords = {a.keyword.value for a in original.args if a.keyword is not None}
        positional = _positional(original)
        if keywords & {"new_height", "new_width"}:
            verdict: bool | None = True
        elif len(positional) < 3 or isinstance(positional[1].value, (cst.List, cst.Tuple)) or "size" in keywords:
            return updated  # (images, size, method): TF 1.x
        else:
            verdict = True if _int_literal(positional[1].value) else None  # a height; a size is never an int
        if verdict:
            self.tf0 = self.tf1 = True
            return self._legacy_resize(original, updated, RESIZE, TFM541)
        self.deferred.append((original, updated, RESIZE, TFM541))
        return updated

    def _legacy_resize(self, original: cst.Call, updated: cst.Call, rel: str, rule: str) -> cst.Call:
        if any(a.star for a in original.args):
            return updated
        positional = [i for i, a in enumerate(original.args) if a.keyword is None]

        def where(name: str, index: int) -> int | None:
            for i, a in enumerate(original.args):
                if a.keyword is not None and a.keyword.value == name:
                    return i
            return positional[index] if len(positional) > index else None

        height, width, method = where("new_height", 1), where("new_width", 2), where("method", 3)
        if height is None or width is None or len(positional) > 4:
            return updated
        message = (
            "tf.image.resize_images(images, new_height, new_width, method) of TF 0.x takes "
            "(images, size, method) since: written as size=[new_height, new_width] in its legacy meaning"
        )
        if not self.fix(original, rule, message):
            return updated
        args = list(updated.args)
        equal = cst.AssignEqual(whitespace_before=cst.SimpleWhitespace(""), whitespace_after=cst.SimpleWhitespace(""))
        size = cst.Arg(
            keyword=cst.Name("size"), equal=equal,
            value=cst.List([cst.Element(args[height].value), cst.Element(args[width].value)]),
        )
        rest = [a for i, a in enumerate(args) if i not in (height, width, method)]
        new = [rest[0], size]
        if method is not None:
            new.append(args[method].with_changes(keyword=cst.Name("method"), equal=equal))
        new.extend(rest[1:])
        new = [a.with_changes(comma=cst.MaybeSentinel.DEFAULT) if a.comma is cst.MaybeSentinel.DEFAULT or i == len(new) - 1
               else a for i, a in enumerate(new)]
        return updated.with_changes(args=new)

    def _flag_reverse(self, call: cst.Call) -> None:
        self.flag(
            call,
            TFM544,
            "tf.reverse(tensor, dims) took a boolean mask in TF 0.x; TF 1.0+ takes axis, the indices of the "
            "reversed dimensions: write tf.reverse(tensor, axis=[i for i, d in enumerate(dims) if d])",
        )

    def _reverse(self, original: cst.Call, updated: cst.Call) -> cst.Call:
        """TF 0.x ``reverse(tensor, dims)``: dims a boolean mask; TF 1.0+: axis, a list of ints."""
        positional = _positional(original)
        dims_arg = next((a for a in original.args if a.keyword is not None and a.keyword.value == "dims"), None)
        if dims_arg is None and len(positional) >= 2:
            dims_arg = positional[1]
        if dims_arg is None:
            return updated
        mask = _bools(dims_arg.value)
        if mask is None and dims_arg.keyword is None:
            if not isinstance(dims_arg.value, (cst.List, cst.Tuple)):  # an int list is TF 1.x's axis
                self.unknown_reverse.append(original)  # a mask or an axis: TF 0.x code decides (at the end)
            return updated
        self.tf0 = self.tf1 = True
        if mask is None:
            self._flag_reverse(original)
            return updated
        axes = [i for i, flag in enumerate(mask) if flag]
        message = f"tf.reverse's boolean mask {mask} (TF 0.x) is axis={axes} since TF 1.0"
        if not self.fix(original, TFM544, message):
            return updated
        index = original.args.index(dims_arg)
        args = list(updated.args)
        args[index] = args[index].with_changes(
            keyword=cst.Name("axis"),
            equal=cst.AssignEqual(whitespace_before=cst.SimpleWhitespace(""), whitespace_after=cst.SimpleWhitespace("")),
            value=cst.List([cst.Element(cst.Integer(str(a))) for a in axes]),
        )
        return updated.with_changes(args=args)
