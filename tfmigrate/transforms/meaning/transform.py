"""TFM56x: legacy code that still runs on TensorFlow 2.15 but would mean something else there.

The family reads the whole module first (``visit_Module``: what the file does with an LSTM state,
which cells it repeats), then replaces the nodes it decided on in one pass (``leave_Module``).
Its parts: ``lstm_state`` (TFM560), ``shared_cells`` (TFM561, TFM562), ``calls`` (the table-driven
rules TFM563-TFM569). It runs before the TF 0.x family (85) and the renames (90), so it sees the
file's own spelling of every name (``tf.mul`` still tells TF 0.x code).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import ClassVar

import libcst as cst
from libcst.metadata import PositionProvider

from tfmigrate.codemod.transform import FamilyTransform
from tfmigrate.codemod.walk import transform
from tfmigrate.rule_ids import TFM560, TFM561, TFM562
from tfmigrate.transforms.common.builders import ReplaceById, append_args, kwarg
from tfmigrate.transforms.meaning import calls as call_rules
from tfmigrate.transforms.meaning.lstm_state import plan_state
from tfmigrate.transforms.meaning.screen import SCREEN
from tfmigrate.transforms.meaning.names import LSTM_CELLS, MULTI_CELL, cell_class, rnn_function
from tfmigrate.transforms.meaning.shared_cells import plan_multi, shared_rnn_cells

PRE_TUPLE = "tf_pre_0_11_lstm_state"  # a fact: this module's LSTM state is one concatenated tensor


class LegacyMeaning(FamilyTransform):
    FAMILY: ClassVar[str] = "TFM56"
    SCREEN = SCREEN

    @property
    def facts(self) -> set[str]:
        return self.context.facts

    def line_of(self, node: cst.CSTNode) -> int:
        return self.get_metadata(PositionProvider, node).start.line

    def visit_Module(self, node: cst.Module) -> bool:
        self.edits: dict[int, Callable[[cst.CSTNode], cst.CSTNode] | cst.CSTNode] = {}
        # calls of a name (`tf.x(...)`), not of a call's result (`LSTM(8)(x)`, which libcst names as its callee)
        calls = [c for c in self.index.nodes(cst.Call) if isinstance(c.func, (cst.Name, cst.Attribute))]
        helpers = self._helpers()
        if helpers:  # code tfmigrate wrote into the module means TF 2.15 as it is
            calls = [c for c in calls if not self._inside(c, helpers)]
        classes: dict[int, str] = {}
        for call in calls:
            cls = cell_class(self.qualified_name(call.func))
            if cls is not None:
                classes[id(call)] = cls
        if classes or any(self._mentions_rnn(c) for c in calls):
            self._state(calls, classes)
            self._shared(calls, classes)
        call_rules.plan(self, calls, self.edits)
        return False  # nothing below is visited: leave_Module replaces what was decided

    def leave_Module(self, original: cst.Module, updated: cst.Module) -> cst.Module:
        if self.edits:
            # the walk goes down the paths to the planned nodes only
            return transform(updated, ReplaceById(self.edits, self.index.nodes_with_ids(self.edits)), self.index)  # type: ignore[return-value]
        return updated

    def _helpers(self) -> set[cst.CSTNode]:
        """The defs and classes tfmigrate wrote into the module (their docstring or comment says so)."""
        out: set[cst.CSTNode] = set()
        for node in self.index.nodes(cst.FunctionDef) + self.index.nodes(cst.ClassDef):
            doc = node.get_docstring(clean=False) if isinstance(node.body, cst.IndentedBlock) else None
            comments = " ".join(line.comment.value for line in node.leading_lines if line.comment is not None)
            if "by tfmigrate" in (doc or "") or "tfmigrate" in comments:
                out.add(node)
        return out

    def _inside(self, node: cst.CSTNode, owners: set[cst.CSTNode]) -> bool:
        parents = self.index.parents
        while node is not None:
            if node in owners:
                return True
            node = parents.get(node)
        return False

    def _mentions_rnn(self, call: cst.Call) -> bool:
        return rnn_function(self.qualified_name(call.func)) is not None

    # --- TFM560 ------------------------------------------------------------------------------
    def _state(self, calls: list[cst.Call], classes: dict[int, str]) -> None:
        plan = plan_state(self, calls, classes)
        evidence = plan.evidence
        if not evidence and PRE_TUPLE in self.context.facts:
            evidence = [(None, "an earlier pass found it")]  # a later pass: the evidence may be rewritten
        if evidence:
            self.context.facts.add(PRE_TUPLE)
            _, what = evidence[0]
            where = ""  # no line number: a later pass's lines differ, and a finding is reported once by its text
            for call in plan.defaults:
                cls = classes[id(call)]
                message = (f"{cls}: state_is_tuple=False written: this file uses the LSTM state as one "
                           f"[batch, 2 * num_units] tensor, the default before TF 0.11: {what}{where}; TF 2.15's "
                           "default is a (c, h) tuple")
                if self.fix(call, TFM560, message):
                    self.edits[id(call)] = lambda updated: append_args(
                        updated, list(updated.args), [kwarg("state_is_tuple", cst.Name("False"))])
            for call in plan.hidden:
                self.flag(call, TFM560, f"{classes[id(call)]}: this file uses the LSTM state as one [batch, 2 * num_units] "
                          f"tensor ({what}{where}), the default before TF 0.11; the arguments here may or may not set "
                          "state_is_tuple: make it state_is_tuple=False explicitly")
            if not plan.defaults and not plan.hidden and not _explicit(classes, calls):
                for node, what in plan.evidence:
                    self.flag(node, TFM560, f"{what}: the concatenated [batch, 2 * num_units] LSTM state of TF <= 0.10, "
                              "but the cell is built elsewhere (a parameter, another module): TF 0.11+ and TF 2.15 "
                              "default to a (c, h) tuple, so pass state_is_tuple=False where it is constructed")
        elif plan.unknown and (plan.defaults or plan.hidden):
            for node, what in plan.unknown:
                self.flag(node, TFM560, f"{what}: if this is an LSTM cell or a MultiRNNCell, the file relies on the "
                          "concatenated [batch, 2 * num_units] state of TF <= 0.10; TF 0.11+ and TF 2.15 default to a "
                          "(c, h) tuple: pass state_is_tuple=False where the cell is constructed")

    # --- TFM561, TFM562 ------------------------------------------------------------------------
    def _shared(self, calls: list[cst.Call], classes: dict[int, str]) -> None:
        for call in calls:
            if classes.get(id(call)) != MULTI_CELL:
                continue
            repeat = plan_multi(self, call)
            if repeat is None:
                continue
            if repeat.new is None:
                self.flag(call, TFM561, f"MultiRNNCell({repeat.why}): every layer is the same cell object. TF <= 1.0 "
                          "built one set of weights per layer; TF 1.2+ and TF 2.15 share one set between all layers "
                          "(or fail on a shape mismatch). The cell's construction is not visible here: build one new "
                          "cell per layer, [make_cell() for _ in range(n)]")
                continue
            if self.fix(call, TFM561, f"MultiRNNCell({repeat.why}) -> one new cell per layer: TF <= 1.0 built one set "
                        "of weights per layer from the same cell object; TF 1.2+ and TF 2.15 would share one set "
                        "between all layers"):
                self.edits[id(repeat.node)] = repeat.new
        for node, message in shared_rnn_cells(self, calls):
            self.flag(node, TFM562, message)


def _explicit(classes: dict[int, str], calls: list[cst.Call]) -> bool:
    """Some LSTM construction of the file sets state_is_tuple itself."""
    return any(
        classes.get(id(c)) in LSTM_CELLS | {MULTI_CELL} and any(a.keyword is not None and a.keyword.value == "state_is_tuple" for a in c.args)
        for c in calls
    )
