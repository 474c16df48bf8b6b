"""TFM560: the LSTM state layout the file was written for (``state_is_tuple``).

TF 0.9 and 0.10 built ``BasicLSTMCell``/``LSTMCell``/``MultiRNNCell`` with ``state_is_tuple=False``:
the state was one ``[batch, 2 * num_units]`` tensor (c and h concatenated); TF <= 0.8 had no choice
(``tensorflow.models.rnn``). TF 0.11 made ``(c, h)`` tuples the default (release notes 0.11.0;
/work/tfsrc/0.12.1 already reads ``state_is_tuple=True``). A file that never touches the state means
the same under both layouts, so only what the file does with the state decides:

- evidence of the concatenated layout: a shape with ``2 * <num_units>`` of one of its LSTM cells
  (``tf.placeholder("float", [None, 2 * n_hidden])``), ``cell.state_size`` used as a number
  (``tf.zeros([batch, cell.state_size])``, ``2 * cell.state_size``), a rank-2 tensor fed as
  ``initial_state=`` of an RNN call on such a cell, ``tf.split`` in 2 or ``[:, a:b]`` slicing of a
  state an RNN call returned; or the file imports ``tensorflow.models.rnn`` (TF <= 0.8);
- with evidence, every LSTM cell and ``MultiRNNCell`` built in the file without ``state_is_tuple``
  gets ``state_is_tuple=False`` (the file is one program with one convention);
- evidence but no such construction in the file (the cell comes from a parameter or another module),
  or a construction whose arguments hide it (``**kwargs``, a long positional list): a finding on the line.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import libcst as cst

from tfmigrate.transforms.meaning.context import MeaningContext
from tfmigrate.transforms.meaning.names import (
    LSTM_CELLS, MULTI_CELL, RNN_CALLS, SPLITS, STATE_IS_TUPLE_POSITION, cell_class, pre_tuple_module, rnn_function,
    tf_function,
)
from tfmigrate.transforms.meaning.syntax import (
    argument, assigned_value, compact, factors, has_keyword, has_star, positional_count, shown,
)

_SHAPED = frozenset({"placeholder", "zeros", "ones", "Variable", "get_variable", "random_normal", "random_uniform",
                     "truncated_normal", "fill", "constant"})


@dataclass
class StatePlan:
    defaults: list[cst.Call] = field(default_factory=list)  # LSTM / Multi constructions without state_is_tuple
    hidden: list[cst.Call] = field(default_factory=list)  # ... whose arguments may hold it (**kwargs, positionals)
    evidence: list[tuple[cst.CSTNode, str]] = field(default_factory=list)  # node, what it shows
    unknown: list[tuple[cst.CSTNode, str]] = field(default_factory=list)  # evidence about a cell built elsewhere


def plan_state(t: MeaningContext, calls: list[cst.Call], classes: dict[int, str]) -> StatePlan:
    plan = StatePlan()
    parents = t.index.parents
    units: set[str] = set()  # the num_units code of each LSTM cell built in the file
    cell_names: dict[str, str] = {}  # the code a cell is bound to (`cell`, `self.cell`) -> its class
    for call in calls:
        cls = classes.get(id(call))
        if cls is None:
            continue
        target = _bound_to(call, parents)
        if target is not None:
            cell_names[target] = cls
        if cls not in LSTM_CELLS and cls != MULTI_CELL:
            continue
        if cls in LSTM_CELLS and (units_arg := argument(call, 0, "num_units")) is not None:
            units.add(compact(units_arg.value))
        if has_keyword(call, "state_is_tuple"):
            continue
        if has_star(call) or positional_count(call) > STATE_IS_TUPLE_POSITION[cls]:
            plan.hidden.append(call)
        else:
            plan.defaults.append(call)
    lstm_names = {name for name, cls in cell_names.items() if cls in LSTM_CELLS or cls == MULTI_CELL}
    states = _state_names(t, calls, parents)

    for node in t.index.nodes(cst.ImportFrom) + t.index.nodes(cst.Import):
        if _imports_models_rnn(node):
            plan.evidence.append((node, "it imports tensorflow.models.rnn (TF <= 0.8, where the state was always one tensor)"))
    for attr in t.index.nodes(cst.Attribute):
        if attr.attr.value == "state_size" and _used_as_number(attr, parents):
            owner = compact(attr.value)
            if owner in lstm_names:
                plan.evidence.append((attr, f"{owner}.state_size is used as a number"))
            elif owner not in cell_names:
                plan.unknown.append((attr, f"{owner}.state_size is used as a number"))
    for op in t.index.nodes(cst.BinaryOperation):
        if isinstance(op.operator, cst.Multiply) and not isinstance(parents.get(op), cst.BinaryOperation) and _in_shape(op, parents):
            parts = factors(op)
            codes = [compact(p) for p in parts]
            if "2" in codes and any(c in units for c in codes if c != "2"):
                plan.evidence.append((op, f"a shape holds {shown(op)}, twice an LSTM cell's num_units"))
    for call in calls:
        func = tf_function(t.qualified_name(call.func))
        name = rnn_function(t.qualified_name(call.func))
        if name is not None:
            _initial_state(t, call, name, cell_names, plan, parents)
        elif func is not None and func in SPLITS and states:
            values = [compact(a.value) for a in call.args]
            if any(v in states for v in values) and "2" in values:
                plan.evidence.append((call, "an RNN state is split in two (c and h of one tensor)"))
    for sub in t.index.nodes(cst.Subscript):
        if compact(sub.value) in states and len(sub.slice) == 2 and all(isinstance(s.slice, cst.Slice) for s in sub.slice):
            plan.evidence.append((sub, f"an RNN state is sliced as a [batch, 2n] tensor ({shown(sub)})"))
    return plan


def _bound_to(call: cst.Call, parents: dict[cst.CSTNode, cst.CSTNode]) -> str | None:
    target = parents.get(call)
    if isinstance(target, cst.Assign) and len(target.targets) == 1 and isinstance(target.targets[0].target, (cst.Name, cst.Attribute)):
        return compact(target.targets[0].target)
    return None


def _imports_models_rnn(node: cst.Import | cst.ImportFrom) -> bool:
    from tfmigrate.codemod.tree import dotted

    if isinstance(node, cst.ImportFrom):
        module = dotted(node.module) if node.module is not None and not node.relative else None
        return module is not None and pre_tuple_module(module)
    return any(pre_tuple_module(dotted(alias.name)) for alias in node.names)


def _used_as_number(node: cst.CSTNode, parents: dict[cst.CSTNode, cst.CSTNode]) -> bool:
    """In arithmetic, or an element of a list or tuple literal (a shape)."""
    parent = parents.get(node)
    if isinstance(parent, cst.BinaryOperation):
        return True
    return isinstance(parent, cst.Element) and isinstance(parents.get(parent), (cst.List, cst.Tuple))


def _in_shape(node: cst.CSTNode, parents: dict[cst.CSTNode, cst.CSTNode]) -> bool:
    """Inside a list or tuple literal (a shape), a few levels up."""
    for _ in range(4):
        node = parents.get(node)
        if node is None:
            return False
        if isinstance(node, (cst.List, cst.Tuple)):
            return True
        if isinstance(node, (cst.Call, cst.SimpleStatementLine)):
            return False
    return False


def _state_names(t: MeaningContext, calls: list[cst.Call], parents: dict[cst.CSTNode, cst.CSTNode]) -> set[str]:
    """Names bound to the state an RNN call returns (``outputs, state = tf.nn.dynamic_rnn(...)``)."""
    out: set[str] = set()
    for call in calls:
        if rnn_function(t.qualified_name(call.func)) is None:
            continue
        assign = parents.get(call)
        if not isinstance(assign, cst.Assign) or len(assign.targets) != 1:
            continue
        target = assign.targets[0].target
        if isinstance(target, (cst.Tuple, cst.List)) and len(target.elements) >= 2:
            state = target.elements[1].value
            parts = [e.value for e in state.elements] if isinstance(state, (cst.Tuple, cst.List)) else [state]
            out.update(compact(p) for p in parts if isinstance(p, (cst.Name, cst.Attribute)))
    return out


def _initial_state(
    t: MeaningContext, call: cst.Call, name: str, cell_names: dict[str, str], plan: StatePlan,
    parents: dict[cst.CSTNode, cst.CSTNode],
) -> None:
    """``initial_state=`` a rank-2 tensor (``tf.placeholder(..., [None, k])``) of an RNN call on an LSTM cell."""
    # initial_state= by keyword (its position differs between the RNN functions; legacy code names it)
    state = next((a for a in call.args if a.keyword is not None and a.keyword.value == "initial_state"), None)
    cell = argument(call, RNN_CALLS[name][0][0], RNN_CALLS[name][0][1])
    if state is None or cell is None:
        return
    cls = cell_names.get(compact(cell.value))
    if cls is not None and cls not in LSTM_CELLS and cls != MULTI_CELL:
        return
    value = state.value
    if isinstance(value, cst.Name):
        scope = t.scopes.scope_of(value)
        seen = list(scope[value.value]) if scope is not None else []
        if len(seen) != 1 or not isinstance(seen[0].node, cst.Name):
            return
        value = assigned_value(seen[0].node, parents)
    if not isinstance(value, cst.Call) or tf_function(t.qualified_name(value.func)) not in _SHAPED:
        return
    shape = next((a.value for a in value.args if isinstance(a.value, (cst.List, cst.Tuple))), None)
    if shape is None or len(shape.elements) != 2:
        return
    what = "a rank-2 tensor is fed as the initial state"  # no code: a later pass may spell it otherwise
    if cls is None:
        plan.unknown.append((state, what))
    else:
        plan.evidence.append((state, what))
