"""TFM709 (``--target keras``): skflow / tf.contrib.learn's ``TensorFlowDNNAutoencoder`` becomes the
``DNNAutoencoder`` helper (:mod:`tfmigrate.keras_runtime`), which takes the legacy constructor's parameters in
the same order with the same defaults and has the legacy methods (``fit``, ``transform``, ``fit_transform``,
``predict``, ``generate``, ``weights_``, ``bias_``): every reference to the class, whatever import or alias
reached it, is replaced by the helper's name, so each call form (positional, keyword, ``**kwargs``) and
each way the object travels (a name, a function's return, an attribute, a parameter) keeps working
unchanged. The import or alias that reached the class goes in the next pass once nothing else reads it
(TFM551/TFM552: TensorFlow 2.16+ has no ``tensorflow.contrib``, and no ``skflow``). On the estimator target the class stays TFM118's (manual).
"""

from __future__ import annotations

import libcst as cst

from tfmigrate.codemod.transform import FamilyTransform
from tfmigrate.rule_ids import TFM709

CLASS = "TensorFlowDNNAutoencoder"
HELPER = "DNNAutoencoder"
ROOTS = ("tensorflow.contrib.learn.", "tensorflow.contrib.skflow.", "skflow.")
MESSAGE = (
    "TensorFlowDNNAutoencoder -> DNNAutoencoder, {note}: the legacy constructor (same parameters, order and "
    "defaults) and methods (fit, transform, fit_transform, predict, generate, weights_, bias_) on a Keras model "
    "with the legacy network (Dense encoder over hidden_units, decoder over them reversed, a linear regression "
    "back to the input on the squared error) and training (steps batches of batch_size, the optimizer at "
    "learning_rate with TF 1.x's update, gradients clipped to clip_gradients, RunConfig's seed); the trained "
    "weights and a legacy checkpoint's variable names are not the legacy ones"
)


def is_autoencoder(name: str | None) -> bool:
    """A qualified name of the legacy class (``tensorflow.contrib.learn[.python.learn[.estimators...]].
    TensorFlowDNNAutoencoder``, ``skflow.TensorFlowDNNAutoencoder``)."""
    return bool(name) and name.rpartition(".")[2] == CLASS and name.startswith(ROOTS)  # type: ignore[union-attr]


def references(t: FamilyTransform) -> list[cst.BaseExpression]:
    """Every expression of the module that names the legacy class (the outermost node of each chain), not the
    imports that bind it."""
    out: list[cst.BaseExpression] = []
    names = {CLASS} | {b.name for b in t.index.imports if is_autoencoder(b.target)}  # ... import X as AE
    for node in (*t.index.nodes(cst.Attribute), *t.index.nodes(cst.Name)):
        last = node.attr.value if isinstance(node, cst.Attribute) else node.value
        if last not in names:
            continue
        parent = t.index.parents.get(node)
        if isinstance(parent, cst.Attribute) and (parent.attr is node or parent.value is node):
            continue  # the inner part of a chain, or x.TensorFlowDNNAutoencoder's attribute name
        if _in_import(t, node):
            continue
        if is_autoencoder(t.qualified_name(node)):
            out.append(node)
    return out


def _in_import(t: FamilyTransform, node: cst.CSTNode) -> bool:
    parent = t.index.parents.get(node)
    while parent is not None:
        if isinstance(parent, (cst.Import, cst.ImportFrom)):
            return True
        if isinstance(parent, cst.BaseStatement):
            return False
        parent = t.index.parents.get(parent)
    return False


def plan_autoencoders(t: FamilyTransform, table: dict[int, object], used: set[str], note: str) -> list[cst.CSTNode]:
    """Plans TFM709 into ``table``; the references replaced."""
    refs = references(t)
    if not refs:
        return []
    taken = {b.name for b in t.index.imports if b.name == HELPER and "legacy_estimators" not in (b.target or "")}
    if taken or any(isinstance(n, cst.ClassDef | cst.FunctionDef) and n.name.value == HELPER
                    for n in (*t.index.nodes(cst.ClassDef), *t.index.nodes(cst.FunctionDef))):
        for node in refs:  # the module has its own DNNAutoencoder: the helper cannot take that name
            t.flag(node, TFM709, "TensorFlowDNNAutoencoder has no TensorFlow 2.16+ form here: this module binds the "
                   "name DNNAutoencoder, which the helper of legacy_estimators.py would take; rename it and run "
                   "tfmigrate rewrite --target keras again")
        return []
    done: list[cst.CSTNode] = []
    for node in refs:
        if t.fix(node, TFM709, MESSAGE.format(note=note)):
            table[id(node)] = cst.Name(HELPER)
            done.append(node)
    if done:
        used.add(HELPER)  # the imports that reached the class, unused now, go in the next pass (TFM552)
    return done

