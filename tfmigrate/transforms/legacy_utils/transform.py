"""TFM18: self-contained legacy utilities with no TF 2.15 twin, written into the module or moved onto core.

- TFM180 ``tf.contrib.learn.preprocessing`` (``VocabularyProcessor``, ``CategoricalVocabulary``,
  ``ByteProcessor``, ``CategoricalProcessor``, ``tokenizer``, ``TOKENIZER_RE``): each name the module
  reads becomes a helper written into the module once (``helpers.py``: the TF 1.x code, the same ids).
- TFM181 ``tf.contrib.training.HParams`` (and ``parse_values``): the same, with TF 1.15's parse grammar.
- TFM182 ``tf.contrib.layers.crossed_column`` -> ``tf.feature_column.crossed_column`` (``crossed.py``):
  the program runs; the finding says that a legacy checkpoint of the column does not carry over.

Names are matched by qualified name, so every import form and module alias is one case; a reference is
replaced where it is read (a call, a ``.restore``, a base class, an ``isinstance``), and the import it read
goes when nothing else reads it.
"""

from __future__ import annotations

from typing import ClassVar

import libcst as cst

from tfmigrate.codemod.parsing import parse_helpers
from tfmigrate.codemod.transform import FamilyTransform
from tfmigrate.codemod.tree import is_docstring, is_import_block
from tfmigrate.rule_ids import TFM180, TFM181
from tfmigrate.transforms.legacy_utils.crossed import CrossedColumns
from tfmigrate.transforms.legacy_utils.screen import HPARAM, PREPROCESSING, SCREEN
from tfmigrate.transforms.legacy_utils.helpers import GROUP, NAMES, block, helper_name, with_needs

_PREPROCESSING_ROOTS = ("tensorflow.contrib.learn.", "tensorflow.contrib.skflow.", "skflow.")
# the standalone skflow package had its own processors (a WordVocabulary whose trim() dropped rare words without
# renumbering the rest, a ByteProcessor of ord() ids, no save()); TF 0.9-0.10's contrib.skflow was not checked
_OLDER = ("tensorflow.contrib.skflow.", "skflow.")
_PREPROCESSING_MODULES = {"text", "categorical_vocabulary", "categorical"}
_PREPROCESSING = PREPROCESSING  # (in screen.py, which the family's screen is built from)
_HPARAM = HPARAM
_HELPER_NAMES = frozenset(NAMES.values())
_WHAT = {
    "VocabularyProcessor": "the same tokenizer, ids by first appearance (0 = padding and unknown words), "
    "min_frequency trimming, max_document_length cut and padding, and save()/restore() pickles (restore() also "
    "reads a vocabulary the legacy class saved)",
    "CategoricalVocabulary": "ids by first appearance from 1, <UNK> at 0, freeze, trim(min_frequency, "
    "max_frequency) and reverse as before",
    "ByteProcessor": "each document's UTF-8 bytes as ids, cut or padded with 0 to max_document_length",
    "CategoricalProcessor": "one vocabulary per column (or one shared), ids by first appearance, NaN and unknown "
    "categories 0",
    "tokenizer": "the legacy regex tokenizer",
    "TOKENIZER_RE": "the legacy regex",
    "HParams": "the same typed attributes, parse() grammar (a=1,b=[1,2],c=str, a[0]=1), type checks and errors, "
    "values(), to_json()/parse_json(), get() and `in`; the HParamDef protocol buffer (hparam_def=, to_proto) is not "
    "in TF 2 and raises",
    "parse_values": "the same parse grammar and errors",
}


def legacy_utility(qualified: str | None) -> str | None:
    """The legacy name (``VocabularyProcessor``, ``HParams``...) a qualified name refers to, or None."""
    if not qualified:
        return None
    last = qualified.rpartition(".")[2]
    if last in _PREPROCESSING:
        for root in _PREPROCESSING_ROOTS:
            if qualified.startswith(root):
                parts = [p for p in qualified[len(root):].split(".")[:-1] if p not in ("python", "learn")]
                if parts[:1] == ["preprocessing"] and set(parts[1:]) <= _PREPROCESSING_MODULES and len(parts) <= 2:
                    return last
        return None
    if last in _HPARAM and qualified.startswith("tensorflow.contrib.training."):
        parts = qualified[len("tensorflow.contrib.training."):].split(".")[:-1]
        if parts in ([], ["hparam"], ["python", "training", "hparam"]):
            return last
    return None


class LegacyUtilsTransform(CrossedColumns, FamilyTransform):
    FAMILY: ClassVar[str] = "TFM18"
    SCREEN = SCREEN
    UNIMPORTED_NAMES_UNCHANGED = True  # leave_Name changes only names bound by an import or a module alias

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self._used: set[str] = set()  # legacy names whose helpers the module gets
        self._tf = "tf"

    def visit_Module(self, node: cst.Module) -> bool:
        # the helpers an earlier run wrote (their docstrings name the legacy API): read again, not written twice
        self._ours = {
            s.name.value for s in node.body if isinstance(s, (cst.FunctionDef, cst.ClassDef))
            and s.name.value in _HELPER_NAMES and (s.get_docstring() or "").startswith(("tf.contrib.learn.preprocessing.",
                                                                                         "tf.contrib.training."))
        }
        self._defined = {
            s.name.value for s in node.body if isinstance(s, (cst.FunctionDef, cst.ClassDef))
        } | {
            t.target.value for s in node.body if isinstance(s, cst.SimpleStatementLine)
            for a in s.body if isinstance(a, cst.Assign) for t in a.targets if isinstance(t.target, cst.Name)
        }
        self._tf = self._tensorflow_alias(node)
        return True

    def visit_Import(self, node: cst.Import) -> bool:
        return False

    def visit_ImportFrom(self, node: cst.ImportFrom) -> bool:
        return False

    def leave_Name(self, original: cst.Name, updated: cst.Name) -> cst.BaseExpression:
        return self._reference(original, updated)

    def leave_Attribute(self, original: cst.Attribute, updated: cst.Attribute) -> cst.BaseExpression:
        return self._reference(original, updated)

    def _may_import_a_utility(self, name: str) -> bool:
        """Can a read of ``name`` (not a utility's own name) mean a legacy utility? Only through an
        import that binds it to one (``from ...training import HParams as HP``): the imported name is
        one of the module's imports of ``name``, in whatever scope (a relative import, which libcst
        names its own way, is asked about). Where none is, the qualified name need not be worked out:
        with a ``*`` import that takes libcst's scope analysis of the whole module."""
        targets = [b.target for b in self.index.imports if b.name == name]
        return any(not t or t.rpartition(".")[2] in _PREPROCESSING or t.rpartition(".")[2] in _HPARAM for t in targets)

    def leave_Call(self, original: cst.Call, updated: cst.Call) -> cst.BaseExpression:
        return self._crossed_call(original, updated)

    def _reference(self, original: cst.Name | cst.Attribute, updated: cst.BaseExpression) -> cst.BaseExpression:
        name = original.value if isinstance(original, cst.Name) else original.attr.value
        if name not in NAMES and not (isinstance(original, cst.Name) and self.index.binds_by_import(name)):
            return updated  # (cheap: most names are none of these; `import ... as P` binds another name)
        parent = self.index.parents.get(original)
        if isinstance(parent, cst.Attribute) and parent.attr is original:
            return updated  # the `.X` of an attribute: its whole attribute is looked at
        if isinstance(original, cst.Name) and name not in NAMES and not self._may_import_a_utility(name):
            return updated  # `import os`: whatever scope it is read in, it names none of them
        legacy = legacy_utility(self.qualified_name(original))
        if legacy is None or self._is_target(original):
            return updated
        rule = TFM181 if GROUP[legacy] == "hparam" else TFM180
        where = "tf.contrib.training" if rule == TFM181 else "tf.contrib.learn.preprocessing"
        new = helper_name(legacy)
        qualified = self.qualified_name(original) or ""
        if qualified.startswith(_OLDER):
            self.flag(original, rule, f"skflow's preprocessing.{legacy} is gone in TF 2, and the standalone skflow "
                      "package's code differs from the tf.contrib.learn code tfmigrate writes into a module (its trim() "
                      "dropped words seen min_frequency times or less without renumbering the others, ByteProcessor gave "
                      "ord() ids, there was no save()/restore(); tf.contrib.skflow's was not checked): where "
                      f"min_frequency is 0, tf.contrib.learn.preprocessing.{legacy} gives the same ids: use it and run "
                      "tfmigrate again")
            return updated
        if new in self._defined and new not in self._ours:
            self.flag(original, rule, f"{where}.{legacy} is gone in TF 2 and this module defines {new} itself, the "
                      "name tfmigrate writes its copy under: rename yours and run tfmigrate again")
            return updated
        if not self.fix(original, rule, f"{where}.{legacy} is gone in TF 2: its TF 1.x code is written into this "
                        f"module as {new} ({_WHAT[legacy]})"):
            return updated
        self._drop_imports(original)
        self._used.add(legacy)
        return cst.Name(new)

    def _drop_imports(self, node: cst.CSTNode) -> None:
        """The imports ``node`` read go when nothing reads them any more, except ``import tensorflow``
        itself (it still imports on TF 2, and a module keeps its TensorFlow import)."""
        head = node
        while isinstance(head, cst.Attribute):
            head = head.value
        if isinstance(head, cst.Name) and any(
                b.name == head.value and b.target == "tensorflow" for b in self.index.imports):
            return
        self.remove_imports_of(node)

    def _is_target(self, node: cst.CSTNode) -> bool:
        """``node`` is assigned or deleted (``tf.contrib.training.HParams = ...``): not a read."""
        parent = self.index.parents.get(node)
        return isinstance(parent, (cst.AssignTarget, cst.Del)) or (
            isinstance(parent, (cst.AugAssign, cst.AnnAssign)) and parent.target is node)

    def _tensorflow_alias(self, module: cst.Module) -> str:
        for stmt in module.body:
            if isinstance(stmt, cst.SimpleStatementLine) and len(stmt.body) == 1 and isinstance(stmt.body[0], cst.Import):
                for alias in stmt.body[0].names:
                    if isinstance(alias.name, cst.Name) and alias.name.value == "tensorflow":
                        name = alias.asname.name.value if alias.asname else "tensorflow"  # type: ignore[union-attr]
                        if self.index.module_binding_count(name) in (1, None):
                            return name
        return "tf" if self.index.module_binding_count("tf") == 0 else "tensorflow"

    def leave_Module(self, original: cst.Module, updated: cst.Module) -> cst.Module:
        if self._need_tf:
            self.imports.add("tensorflow", asname=None if self._tf == "tensorflow" else self._tf)
        if not self._used:
            return updated
        names = [n for n in with_needs(self._used) if helper_name(n) not in self._defined]
        if not names:
            return updated
        if "TOKENIZER_RE" in names:
            self.imports.add("re")
        source = block(names)
        if updated.default_indent != "    ":
            source = source.replace("    ", updated.default_indent)
        parsed = parse_helpers(source, updated.config_for_parsing)
        defs = list(parsed.body)
        defs[0] = defs[0].with_changes(leading_lines=(*parsed.header, *defs[0].leading_lines))
        body = list(updated.body)
        at = 0
        if body and is_docstring(body[0]):
            at = 1
        while at < len(body) and is_import_block(body[at]):
            at += 1
        if at:
            defs[0] = defs[0].with_changes(leading_lines=(cst.EmptyLine(), cst.EmptyLine(), *defs[0].leading_lines))
        rest = body[at:]
        if rest:
            lines = list(rest[0].leading_lines)
            while lines and lines[0].comment is None:
                lines.pop(0)
            rest[0] = rest[0].with_changes(leading_lines=(cst.EmptyLine(), cst.EmptyLine(), *lines))
        self.written_helpers = defs
        return updated.with_changes(body=(*body[:at], *defs, *rest))
