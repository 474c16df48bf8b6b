"""What the estimators family's parts share: one legacy estimator binding (``Est``) and the planner they
read (``Planner``, the protocol the entry module's ``EstimatorTransform`` satisfies).

The parts (``flow``, ``inputs``, ``monitors``, ``sklearn``, and the ``constructors``/``methods`` mixins)
take the planner as an argument typed by this protocol, so none of them imports the entry back.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

import libcst as cst

from tfmigrate.codemod.scopes import Scopes
from tfmigrate.codemod.tree import TreeIndex
from tfmigrate.transforms.estimators.defaults import LegacyClass


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
    label_dimension: str | None = None  # skflow regressors: the number of outputs, from fit's y (TFM101)
    columns: cst.BaseExpression | None = None  # learn: the feature_columns to write
    model_dir: cst.BaseExpression | None = None
    fits: list[cst.Call] = field(default_factory=list)
    saves: list[cst.Call] = field(default_factory=list)
    key_matches: bool = True  # the feature columns read the "x" key of numpy_input_fn
    empty_key: bool = False  # the legacy columns read the unnamed feature "" (a bare tensor from input_fn)
    new: cst.Call | None = None  # the tf.estimator constructor written for it
    custom: object | None = None  # model_fn.Custom: a legacy custom-model estimator converted (TFM114/TFM115)


class Planner(Protocol):
    """The planning state and queries of the family's transform that the parts read and write."""

    ests: list[Est]  # every legacy estimator binding found
    by_call: dict[cst.Call, Est]  # a constructor call -> its binding
    self_targets: dict[str, Est]  # ``self.<attr>`` -> the binding stored there
    replace: dict[cst.CSTNode, cst.CSTNode]  # the planned swaps, applied by the leave_* hooks
    changed: bool
    methods: list[tuple[Est, cst.Call, str]]  # every method call on a binding: (its estimator, the call, the method)
    sk_via: dict[cst.Call, cst.Call]  # a method call -> the SKCompat(...) call its receiver went through (TFM119)
    sk_unwrapped: set[cst.Call]  # the SKCompat(...) calls replaced by their estimator
    need_np: bool  # the module needs ``import numpy as np``
    need_tf: bool  # the module needs ``import tensorflow as tf``
    index: TreeIndex
    scopes: Scopes

    def qualified_name(self, node: cst.CSTNode) -> str | None: ...
    def is_builtin(self, node: cst.CSTNode) -> bool: ...
    def fix(self, node: cst.CSTNode, rule_id: str, message: str) -> bool: ...
    def flag(self, node: cst.CSTNode, rule_id: str, message: str) -> bool: ...
    def _parent(self, node: cst.CSTNode) -> cst.CSTNode | None: ...
    def _line(self, node: cst.CSTNode) -> int: ...
    def get_metadata(self, key: Any, node: cst.CSTNode, default: Any = ...) -> Any: ...
    def _receiver(self, expr: cst.BaseExpression, depth: int = 0) -> Est | None: ...
    def _single_assignment(self, name: cst.Name) -> Any: ...
    def _assigned_by_statement(self, name: str) -> bool: ...
    def _known_at_construction(self, est: Est, path: cst.BaseExpression) -> bool: ...
    def _is_dict(self, value: cst.BaseExpression) -> bool: ...
    def _is_number(self, node: cst.BaseExpression, depth: int = 0) -> bool: ...
    def _is_int(self, value: cst.BaseExpression | None, depth: int = 0) -> bool: ...
    def _as_array(self, data: cst.BaseExpression) -> cst.BaseExpression: ...

    # flow-following caches, kept on the transform for the module's lifetime (see ``flow``)
    _flow_functions: dict[str, list[cst.FunctionDef]] | None
    _flow_calls_of: dict[Any, Any]
    _flow_followed_returns: set[Any]
    _flow_followed_args: set[Any]
    _flow_name_counts: Any
    _flow_adapter: Callable[..., Any] | Any
