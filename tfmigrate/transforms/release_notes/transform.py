"""TFM571-TFM579: one check per silent release-note change, each on the line that shows the legacy reading.

- TFM571 (0.7): ``outputs, states = tf.nn.rnn(...)`` and then ``states[i]``: TF 0.6 returned every step's
  state; since 0.7 ``states`` is the final state, so the index reads inside it.
- TFM572 (0.12/1.0): ``tf.round`` in TF 0.x code (a name TF 1.0 removed, and none TF 0.12 introduced): TF <= 0.11
  rounded halves away from zero, TF 0.12+ to even.
- TFM573 (1.2): ``op.get_attr(...) == <int>``: a type attribute is a ``tf.DType`` since 1.2, never equal to
  the protobuf enum number.
- TFM574 (1.3): ``tf.contrib.data.Dataset.from_tensor_slices([a, b])`` (``from_tensors``): a 1.2 list was a
  tuple of components; since 1.3 it is one stacked tensor.
- TFM575 (1.4): a ``tf.contrib.data`` dataset's ``.shuffle(n)`` iterated more than once (``.repeat`` after it in
  the chain, a repeat of a name bound to the dataset, an initializable iterator): 1.3 kept one order for every
  epoch, 1.4+ reshuffles.
- TFM576 (1.11): ``StackedRNNCells([...])`` whose states are read back: 1.10 listed the states last cell first.
- TFM577 (1.14): ``compile(loss=tf.losses.X)`` (a v1 loss function) in a module that passes ``sample_weight``:
  the weighted mean's denominator changed (also a string / Keras / user loss function, in TF1 code);
  ``compile(metrics=["cosine_proximity"])``: the metric's sign.
- TFM578 (1.15): a Keras layer called on a name bound to a float64 placeholder / ``Input``, no ``dtype=``:
  1.x computed in float64, 2.x casts to float32.
- TFM579 (1.15): ``UpSampling2D(interpolation="bilinear")`` / ``resize_images(..., "bilinear")``: 1.14's
  output was a bug TF 1.15 fixed.
"""

from __future__ import annotations

from typing import ClassVar

import libcst as cst

from tfmigrate.codemod.transform import FamilyTransform
from tfmigrate.rule_ids import TFM571, TFM572, TFM573, TFM574, TFM575, TFM576, TFM577, TFM578, TFM579
from tfmigrate.transforms.common.builders import code_of
from tfmigrate.transforms.common.tf_names import tf_rel
from tfmigrate.transforms.meaning import keras_name, legacy_module
from tfmigrate.transforms.release_notes.screen import COSINE as _COSINE, SCREEN

_CONTRIB_DATA = ("contrib.data.Dataset.", "contrib.data.")
_SLICES = frozenset({"from_tensor_slices", "from_tensors"})
_FLOAT64 = frozenset({"float64", "double"})
# Names TF 0.12 introduced (its release notes: the variables and summary renames): a TF 0.x module that uses
# one was written for 0.12, whose tf.round already rounds half to even
TF012_NAMES = frozenset({"global_variables_initializer", "local_variables_initializer", "global_variables",
                         "local_variables", "summary.FileWriter", "summary.scalar", "summary.histogram",
                         "summary.image", "summary.audio", "summary.merge", "summary.merge_all"})


def _compact(node: cst.CSTNode) -> str:
    return "".join(code_of(node).split())


def _keyword(call: cst.Call, name: str) -> cst.Arg | None:
    return next((a for a in call.args if a.keyword is not None and a.keyword.value == name), None)


def _positional(call: cst.Call) -> list[cst.Arg]:
    return [a for a in call.args if a.keyword is None and not a.star]


def _string(node: cst.BaseExpression | None) -> str | None:
    if isinstance(node, cst.SimpleString):
        return node.evaluated_value if isinstance(node.evaluated_value, str) else None
    return None


def _type_attr(name: str) -> bool:
    """TensorFlow's names of type attributes: ``T``, ``Tidx``, ``Tout``, ``SrcT``, ``dtype``, ``out_type``..."""
    return name.startswith("T") or name.endswith("T") or "type" in name.lower()


def _enum_number(node: cst.BaseExpression) -> bool:
    """An int literal, or a tuple/list/set display of them (``in (1, 2)``)."""
    if isinstance(node, (cst.Tuple, cst.List, cst.Set)):
        return bool(node.elements) and all(isinstance(e.value, cst.Integer) for e in node.elements)
    return isinstance(node, cst.Integer)


class ReleaseNoteChanges(FamilyTransform):
    FAMILY: ClassVar[str] = "TFM57"
    SCREEN = SCREEN

    @property
    def facts(self) -> set[str]:
        return self.context.facts

    def visit_Module(self, node: cst.Module) -> bool:
        calls = [c for c in self.index.nodes(cst.Call) if isinstance(c.func, (cst.Name, cst.Attribute))]
        self._tf0: bool | None = None
        self._tf1: bool | None = None
        self._bindings = self._assignments()
        self._subscripted = {_compact(s.value) for s in self.index.nodes(cst.Subscript)}
        self._initializable = any(isinstance(a.attr, cst.Name) and a.attr.value == "make_initializable_iterator"
                                  for a in self.index.nodes(cst.Attribute))
        self._calls = calls
        self._datasets: set[str] | None = None  # computed at the first shuffle() (_contrib_datasets)
        self._repeated = False
        self._sample_weight = any(a.keyword is not None and a.keyword.value == "sample_weight"
                                  for c in calls for a in c.args)
        for call in calls:
            rel = tf_rel(self.qualified_name(call.func)) or ""
            rel = rel.removeprefix("compat.v1.")
            if rel in ("nn.rnn", "nn.bidirectional_rnn"):
                self._rnn_states(call, rel)
            elif rel == "round":
                self._round(call)
            elif any(rel.startswith(p) and rel[len(p):] in _SLICES for p in _CONTRIB_DATA):
                self._list_components(call, rel)
            elif keras_name(rel, "layers") == "StackedRNNCells":
                self._stacked(call)
            elif keras_name(rel, "layers") == "UpSampling2D" or keras_name(rel, "backend") == "resize_images":
                self._bilinear(call, rel)
            elif keras_name(rel, "layers") is not None and isinstance(self.index.parents.get(call), cst.Call):
                self._float64(call, rel)
            if isinstance(call.func, cst.Attribute):
                attr = call.func.attr.value
                if attr == "get_attr":
                    self._get_attr(call)
                elif attr == "shuffle":
                    self._shuffle(call)
                elif attr == "compile":
                    self._compile(call)
        return False

    # --- what the module binds -------------------------------------------------------------------
    def _assignments(self) -> dict[str, cst.BaseExpression]:
        out: dict[str, cst.BaseExpression] = {}
        for assign in self.index.nodes(cst.Assign):
            if len(assign.targets) == 1 and isinstance(assign.targets[0].target, (cst.Name, cst.Attribute)):
                out[_compact(assign.targets[0].target)] = assign.value
        return out

    # --- TFM571 ----------------------------------------------------------------------------------
    def _rnn_states(self, call: cst.Call, rel: str) -> None:
        assign = self.index.parents.get(call)
        if not isinstance(assign, cst.Assign) or len(assign.targets) != 1:
            return
        target = assign.targets[0].target
        if not isinstance(target, (cst.Tuple, cst.List)) or len(target.elements) < 2:
            return
        states = _compact(target.elements[-1].value)
        if states in self._subscripted:
            self.flag(call, TFM571, f"tf.{rel} returns the final state since TF 0.7 (TF 0.6 returned the list of every "
                      f"step's states): {states}[...] indexes inside the final state (a batch row, or c/h of an LSTM "
                      "state tuple), not a step. If this was written for TF 0.6, take the states from the outputs or "
                      "run the cell step by step")

    # --- TFM572 ----------------------------------------------------------------------------------
    def _round(self, call: cst.Call) -> None:
        if self._tf0 is None:
            self._tf0 = legacy_module(self)[1] and not self._uses_tf012()
        if self._tf0:
            self.flag(call, TFM572, "tf.round in TF 0.x code: TF <= 0.11 rounded halves away from zero (2.5 -> 3, "
                      "-0.5 -> -1); TF 0.12, 1.x and 2.15 round half to even (2.5 -> 2, -0.5 -> 0). If this code was "
                      "written for TF <= 0.11 and its values can be exact halves, write "
                      "tf.sign(x) * tf.floor(tf.abs(x) + 0.5)")

    def _uses_tf012(self) -> bool:
        for node in self.index.nodes(cst.Attribute) + self.index.nodes(cst.Name):
            rel = tf_rel(self.qualified_name(node))
            if rel is not None and rel.removeprefix("compat.v1.") in TF012_NAMES:
                return True
        return False

    # --- TFM573 ----------------------------------------------------------------------------------
    def _get_attr(self, call: cst.Call) -> None:
        args = _positional(call)
        name = _string(args[0].value) if len(args) == 1 and not call.args[0].keyword else None
        if name is None or not _type_attr(name):
            return  # an int attribute ("N", "axis") compared with an int is what it always was
        comparison = self.index.parents.get(call)
        if isinstance(comparison, cst.ComparisonTarget):
            comparison = self.index.parents.get(comparison)
        if not isinstance(comparison, cst.Comparison):
            return
        operands = [comparison.left] + [t.comparator for t in comparison.comparisons]
        if any(_enum_number(o) for o in operands) and any(
                isinstance(t.operator, (cst.Equal, cst.NotEqual, cst.In, cst.NotIn)) for t in comparison.comparisons):
            self.flag(call, TFM573, "Operation.get_attr of a type attribute returns a tf.DType since TF 1.2 (the "
                      "protobuf enum number before): compared with an int (or a display of ints) it is never equal. "
                      "Compare with the DType (tf.float32) or its .as_datatype_enum")

    # --- TFM574 ----------------------------------------------------------------------------------
    def _list_components(self, call: cst.Call, rel: str) -> None:
        args = _positional(call)
        value = args[0].value if args else getattr(_keyword(call, "tensors"), "value", None)
        if not isinstance(value, cst.List) or len(value.elements) < 2:
            return
        if all(isinstance(e.value, (cst.Integer, cst.Float, cst.SimpleString, cst.UnaryOperation, cst.List))
               for e in value.elements):
            return  # a literal list of numbers: a tensor in every version
        name = rel.rsplit(".", 1)[-1]
        self.flag(call, TFM574, f"tf.contrib.data {name} of a list [...]: TF 1.2 read a list as a tuple of components "
                  "(one element per component); since TF 1.3 (and on TF 2.15) it is converted to one stacked tensor "
                  "(or fails on mixed shapes/dtypes). If this was written for TF 1.2, write a tuple (...)")

    # --- TFM575 ----------------------------------------------------------------------------------
    def _shuffle(self, call: cst.Call) -> None:
        if _keyword(call, "reshuffle_each_iteration") is not None or len(_positional(call)) >= 3:
            return
        if self._datasets is None:
            self._contrib_datasets(self._calls)
        if not self._contrib_rooted(call.func.value):  # type: ignore[attr-defined]
            return
        if self._initializable or self._repeated:
            self._flag_shuffle(call)
            return
        node: cst.CSTNode = call
        parents = self.index.parents
        while isinstance(parents.get(node), cst.Attribute) and isinstance(parents.get(parents[node]), cst.Call):
            if parents[node].attr.value == "repeat":  # type: ignore[union-attr]
                self._flag_shuffle(call)
                return
            node = parents[parents[node]]

    def _contrib_rooted(self, expr: cst.BaseExpression) -> bool:
        """Is ``expr`` a tf.contrib.data dataset: a method chain from a contrib.data call, or a name bound to one?"""
        head = expr
        while isinstance(head, cst.Call):
            rel = tf_rel(self.qualified_name(head.func)) or ""
            if any(rel.startswith(p) for p in _CONTRIB_DATA):
                return True
            if not isinstance(head.func, cst.Attribute):
                return False
            head = head.func.value
        return isinstance(head, (cst.Name, cst.Attribute)) and _compact(head) in (self._datasets or ())

    def _contrib_datasets(self, calls: list[cst.Call]) -> None:
        """The names bound to tf.contrib.data datasets (``ds = ds.shuffle(n)`` keeps the name one), and whether
        one is repeated anywhere in the module."""
        self._datasets = set()
        assigns = [a for a in self.index.nodes(cst.Assign)
                   if len(a.targets) == 1 and isinstance(a.targets[0].target, (cst.Name, cst.Attribute))]
        for _ in range(2):  # a binding used above its assignment (a method of a class) is seen on the second pass
            for assign in assigns:
                if self._contrib_rooted(assign.value):
                    self._datasets.add(_compact(assign.targets[0].target))
        self._repeated = any(isinstance(c.func, cst.Attribute) and c.func.attr.value == "repeat"
                             and isinstance(c.func.value, (cst.Name, cst.Attribute))
                             and _compact(c.func.value) in self._datasets for c in calls)

    def _flag_shuffle(self, call: cst.Call) -> None:
        self.flag(call, TFM575, "tf.contrib.data shuffle() iterated more than once (repeat(), or an initializable "
                  "iterator): TF 1.3 kept the one shuffled order for every epoch; TF 1.4+ (and TF 2.15) reshuffle each "
                  "epoch. If this was written for TF 1.3 and the order matters, write reshuffle_each_iteration=False")

    # --- TFM576 ----------------------------------------------------------------------------------
    def _stacked(self, call: cst.Call) -> None:
        if _keyword(call, "reverse_state_order") is not None or any(a.star == "**" for a in call.args):
            return
        if not self._reads_states():
            return  # the order of the states matters only to code that reads or feeds them
        self.flag(call, TFM576, "tf.keras.layers.StackedRNNCells: up to TF 1.10 its state_size (and so the states an "
                  "RNN returns with return_state=True) listed the last cell first; since TF 1.11 (and on TF 2.15) the "
                  "first cell comes first. If this was written for TF <= 1.10 and reads the states by position, "
                  "write reverse_state_order=True (TF 2.15 still accepts it)")

    def _reads_states(self) -> bool:
        """Does the module read or feed RNN states: return_state=True, initial_state=, .state_size,
        get_initial_state, or a cell called by hand (its second result is the states)?"""
        for call in self._calls:
            if any(a.keyword is not None and a.keyword.value in ("return_state", "initial_state", "states")
                   for a in call.args):
                return True
        return any(a.attr.value in ("state_size", "get_initial_state", "states", "reset_states")
                   for a in self.index.nodes(cst.Attribute))

    # --- TFM577 ----------------------------------------------------------------------------------
    def _compile(self, call: cst.Call) -> None:
        metrics = _keyword(call, "metrics")
        if metrics is not None and isinstance(metrics.value, (cst.List, cst.Tuple)):
            names = [_string(e.value) for e in metrics.value.elements]
            cosine = next((n for n in names if n in _COSINE), None)
            if cosine is not None:
                self.flag(call, TFM577, f"compile(metrics=[\"{cosine}\"]): up to TF 1.13 this metric was the negated "
                          "cosine (-1 for equal vectors, the cosine_proximity loss); since TF 1.14 (and on TF 2.15, "
                          "measured) the string means cosine_similarity, +1 for equal vectors. If this was written "
                          "for TF <= 1.13, use tf.compat.v1.keras.metrics.cosine_proximity (the negated one)")
        if not self._sample_weight:
            return
        loss = _keyword(call, "loss")
        if loss is None and len(_positional(call)) >= 2:
            loss = _positional(call)[1]
        if loss is None:
            return
        rel = (tf_rel(self.qualified_name(loss.value)) or "").removeprefix("compat.v1.")
        if rel.startswith(("losses.", "contrib.losses.")) and rel.split(".")[-1][:1].islower():
            self.flag(call, TFM577, f"compile(loss=tf.{rel}) with sample weights: TF <= 1.13 averaged the weighted "
                      "loss of a v1 loss function over the non-zero weights (SUM_BY_NONZERO_WEIGHTS); since TF 1.14 "
                      "(and on TF 2.15) Keras wraps it and divides by the batch size (SUM_OVER_BATCH_SIZE). With "
                      "zero weights the loss (and its gradient scale) differs; check the weights, or use a "
                      "tf.keras.losses class with the reduction you meant")
            return
        if not self._keras_function_loss(loss.value, rel):
            return
        if self._tf1 is None:
            self._tf1 = any(legacy_module(self))
        if self._tf1:
            shown = code_of(loss.value)
            self.flag(call, TFM577, f"compile(loss={shown}) with sample weights in TF1 code: TF <= 1.13's Keras "
                      "divided the weighted loss by the fraction of non-zero weights; since TF 1.14 (and on TF 2.15) "
                      "it divides by the batch size (SUM_OVER_BATCH_SIZE). With zero weights (masked samples) the "
                      "loss and its gradient scale differ; check the weights")

    def _keras_function_loss(self, value: cst.BaseExpression, rel: str) -> bool:
        """A loss compile() wraps in TF 1.14's LossWrapper: a string, a tf.keras.losses function, a function of the
        user's (not a name bound to a call: a Loss object keeps its reduction)."""
        if isinstance(value, cst.SimpleString):
            return True
        if keras_name(rel, "losses") is not None:
            return rel.split(".")[-1][:1].islower()
        if isinstance(value, (cst.Name, cst.Attribute)) and not rel:
            return not isinstance(self._bindings.get(_compact(value)), cst.Call)
        return False

    # --- TFM578 ----------------------------------------------------------------------------------
    def _float64(self, call: cst.Call, rel: str) -> None:
        outer = self.index.parents[call]
        if not isinstance(outer, cst.Call) or outer.func is not call or _keyword(call, "dtype") is not None:
            return
        args = _positional(outer)
        if not args or not isinstance(args[0].value, (cst.Name, cst.Attribute)):
            return
        bound = self._bindings.get(_compact(args[0].value))
        if not isinstance(bound, cst.Call):
            return
        source = (tf_rel(self.qualified_name(bound.func)) or "").removeprefix("compat.v1.")
        if source == "placeholder":
            dtype = (_positional(bound)[:1] or [_keyword(bound, "dtype")])[0]
        elif keras_name(source, "layers") == "Input" or source in ("keras.Input", "keras.layers.Input"):
            dtype = _keyword(bound, "dtype")
        else:
            return
        if dtype is None:
            return
        written = _string(dtype.value) or (tf_rel(self.qualified_name(dtype.value)) or "")
        if written in _FLOAT64:
            layer = keras_name(rel, "layers")
            self.flag(call, TFM578, f"tf.keras.layers.{layer} on a float64 input: TF 1.x built the layer in its "
                      "input's dtype (float64); since TF 1.15's v2 behaviour (and on TF 2.15) layers default to "
                      "float32 "
                      "and cast their input, so the model computes in float32. "
                      "tf.compat.v1.keras.layers.disable_v2_dtype_behavior() after the imports restores the TF 1.x "
                      "rule (a layer takes its input's dtype); or write dtype=\"float64\" on the layers")

    # --- TFM579 ----------------------------------------------------------------------------------
    def _bilinear(self, call: cst.Call, rel: str) -> None:
        interpolation = _keyword(call, "interpolation")
        if interpolation is None:
            args = _positional(call)
            index = 3 if keras_name(rel, "layers") == "UpSampling2D" else 5
            interpolation = args[index - 1] if len(args) >= index else None
        if interpolation is not None and _string(interpolation.value) == "bilinear":
            self.flag(call, TFM579, "bilinear Keras upsampling (UpSampling2D / backend.resize_images): TF 1.15 fixed "
                      "a bug in its resize, so TF <= 1.14 and TF 2.15 give different outputs for the same input (and "
                      "a model trained on 1.14 sees other activations). Check the outputs, or retrain")
