"""The legacy model_fn contract in tables and syntax questions (TFM114/TFM115): the arguments a
legacy Estimator passed by name, the optimizers optimize_loss named, the estimators' lost arguments,
and what the rewrite asks of a model function's code (which names it reads and binds, whether a
value is a tensor expression, whether a branch runs in predict mode), shared by model_fn.py and its
two planners, model_fn_learn.py and model_fn_tfx.py.
"""

from __future__ import annotations

from dataclasses import dataclass

import libcst as cst

from tfmigrate.transforms.common.builders import code_of


NAMED_ARGS = ("mode", "params", "config")  # passed by name to a legacy model_fn that declares them
# optimizer names of optimize_loss (OPTIMIZER_CLS_NAMES) -> the TF1 class TF 2.15 still has
OPTIMIZER_CLASSES = {
    "SGD": "GradientDescentOptimizer",
    "Adagrad": "AdagradOptimizer",
    "Adam": "AdamOptimizer",
    "Ftrl": "FtrlOptimizer",
    "RMSProp": "RMSPropOptimizer",
}
# models returning (predictions, loss) (tensorflow/contrib/learn/python/learn/models.py)
PAIR_MODELS = {
    "linear_regression", "logistic_regression", "linear_regression_zero_init", "logistic_regression_zero_init",
}
# TensorFlowEstimator arguments with no tf.estimator.Estimator place (tf_random_seed, max_to_keep,
# keep_checkpoint_every_n_hours and config go to its RunConfig, as for the canned estimators)
TFX_LOST = ("class_weight", "num_cores", "early_stopping_rounds")
PREDICTS = ("predict", "predict_proba")
FIT_LABELS = "fit_labels"
# names the rewrite writes into a model function: refused when the function binds them already
_TFX_LOCALS = ("legacy_predictions", "legacy_loss", "legacy_optimizer", "legacy_gradients", "legacy_variables",
               "train_op")


@dataclass
class Custom:
    """A legacy custom-model estimator the rewrite converts."""

    kind: str  # "learn" | "tfx"
    fn: cst.FunctionDef
    n_classes: int = 0
    tensor_predictions: bool = False  # every return's predictions is provably a tensor, not a dict
    batch_size: cst.BaseExpression | None = None


def _statement(code: str) -> cst.BaseStatement:
    return cst.parse_statement(code)


def _paren(node: cst.BaseExpression) -> str:
    code = code_of(node)
    return f"({code})" if isinstance(node, cst.Lambda) else code


def _statement_starts(t, node: cst.CSTNode, line: int) -> bool:
    """The statement holding ``node`` starts on ``line`` (libcst's relative indentation is then right)."""
    current = node
    while current is not None and not isinstance(current, (cst.SimpleStatementLine, cst.BaseCompoundStatement)):
        current = t._parent(current)
    return current is not None and t._lines(current)[0] == line


def _substitute(tree: cst.BaseExpression, node: cst.BaseExpression) -> cst.BaseExpression:
    class Swap(cst.CSTTransformer):
        def leave_Name(self, original, updated):
            return node if original.value == "PREDICT" else updated

    return tree.visit(Swap())


def _tensor_expression(fn: cst.FunctionDef, value: cst.BaseExpression, depth: int = 0) -> bool:
    """``value`` (a model_fn's predictions) is a tensor expression, never a dict: a call, an operation, a
    subscript, or a name every assignment of which in ``fn`` is one."""
    if isinstance(value, (cst.Dict, cst.DictComp)):
        return False
    if isinstance(value, cst.Call):
        return not (isinstance(value.func, cst.Name) and value.func.value == "dict")
    if isinstance(value, (cst.BinaryOperation, cst.UnaryOperation, cst.Subscript)):
        return True
    if isinstance(value, cst.Name) and depth < 4:
        values = []

        def walk(node: cst.CSTNode) -> None:
            for child in node.children:
                if isinstance(child, (cst.FunctionDef, cst.ClassDef, cst.Lambda)):
                    continue
                if isinstance(child, cst.Assign):
                    for target in child.targets:
                        if isinstance(target.target, cst.Name) and target.target.value == value.value:
                            values.append(child.value)
                        elif value.value in _target_names(target.target):
                            values.append(None)  # unpacked: unknown
                elif isinstance(child, (cst.AugAssign, cst.AnnAssign, cst.For, cst.With, cst.CompFor)):
                    names = _target_names(getattr(child, "target", None)) if hasattr(child, "target") else []
                    if value.value in names:
                        values.append(None)
                walk(child)

        walk(fn.body)
        names = {p.name.value for p in fn.params.params}
        return bool(values) and value.value not in names and all(
            v is not None and _tensor_expression(fn, v, depth + 1) for v in values
        )
    return False


def _name_reads(node: cst.CSTNode, targets: bool = False) -> list[cst.Name]:
    """Name nodes read as variables under ``node`` (not attribute names, keywords, parameters, nor
    assignment targets unless ``targets``)."""
    out: list[cst.Name] = []

    def walk(n: cst.CSTNode, target: bool = False) -> None:
        for child in n.children:
            if isinstance(n, cst.Attribute) and child is n.attr:
                continue
            if isinstance(n, cst.Arg) and child is n.keyword:
                continue
            if isinstance(n, cst.Param) and child is n.name:
                continue
            is_target = not targets and isinstance(n, (cst.AssignTarget, cst.AugAssign, cst.AnnAssign, cst.For,
                                                       cst.CompFor)) and child is getattr(n, "target", None)
            if isinstance(child, cst.Name) and not (is_target or target):
                out.append(child)
            walk(child, target or (is_target and isinstance(child, (cst.Tuple, cst.List))))

    walk(node)
    return out


_TRAIN_EVAL = {"TRAIN", "EVAL"}


def _mode_key(t, node: cst.CSTNode) -> str | None:
    """``learn.ModeKeys.TRAIN`` / ``tf.estimator.ModeKeys.EVAL`` / the strings 'train', 'eval', 'infer'."""
    if isinstance(node, cst.SimpleString):
        value = node.evaluated_value
        return {"train": "TRAIN", "eval": "EVAL", "infer": "INFER"}.get(value if isinstance(value, str) else "")
    name = t.qualified_name(node) or ""
    if ".ModeKeys." in name and name.startswith("tensorflow."):
        key = name.rpartition(".")[2]
        return "INFER" if key == "PREDICT" else key
    return None


def _not_predict(t, test: cst.BaseExpression, labels: str) -> bool:
    """``test`` is false when predict() builds the model: mode == TRAIN/EVAL, mode != INFER,
    mode in (TRAIN, EVAL), <labels> is not None."""
    if not isinstance(test, cst.Comparison) or len(test.comparisons) != 1:
        return False
    op, right = test.comparisons[0].operator, test.comparisons[0].comparator
    left = test.left
    if isinstance(left, cst.Name) and left.value == labels and isinstance(op, cst.IsNot) and \
            isinstance(right, cst.Name) and right.value == "None":
        return True
    if not (isinstance(left, cst.Name) and left.value == "mode"):
        return False
    if isinstance(op, cst.Equal):
        return _mode_key(t, right) in _TRAIN_EVAL
    if isinstance(op, cst.NotEqual):
        return _mode_key(t, right) == "INFER"
    if isinstance(op, cst.In) and isinstance(right, (cst.Tuple, cst.List, cst.Set)):
        keys = [_mode_key(t, e.value) for e in right.elements]
        return bool(keys) and all(k in _TRAIN_EVAL for k in keys)
    return False


def _reads(node: cst.CSTNode) -> set[str]:
    """Names read as variables under ``node`` (not attribute names, keywords or parameters; assignment
    targets count too)."""
    return {name.value for name in _name_reads(node, targets=True)}


def _target_names(target: cst.BaseExpression) -> list[str]:
    if isinstance(target, cst.Name):
        return [target.value]
    if isinstance(target, (cst.Tuple, cst.List)):
        out = []
        for element in target.elements:
            out += _target_names(element.value)
        return out
    return []


class _ReturnSwap:
    """Replaces the planned return statements of one function (not of nested functions)."""

    def __init__(self, plans: dict) -> None:
        self.plans = plans

    def visit_statement(self, statement: cst.BaseStatement):
        if isinstance(statement, cst.SimpleStatementLine):
            if len(statement.body) == 1 and statement.body[0] in self.plans:
                new = self.plans[statement.body[0]]
                if isinstance(new, list):
                    new = list(new)
                    new[0] = new[0].with_changes(leading_lines=statement.leading_lines)
                    last = new[-1]
                    new[-1] = last.with_changes(trailing_whitespace=statement.trailing_whitespace)
                    return new
                return statement.with_changes(body=[new])
            if any(node in self.plans for node in statement.body):
                raise ValueError("a return statement shares its line with other statements")
            return statement
        if isinstance(statement, (cst.FunctionDef, cst.ClassDef)):
            return statement
        return self._compound(statement)

    def _compound(self, node: cst.CSTNode):
        changes = {}
        for attr in ("body", "orelse", "finalbody", "handlers"):
            value = getattr(node, attr, None)
            if value is None:
                continue
            if isinstance(value, (list, tuple)):
                changes[attr] = [self._compound(v) for v in value]
            elif isinstance(value, cst.IndentedBlock):
                flat = []
                for s in value.body:
                    out = self.visit_statement(s)
                    flat.extend(out if isinstance(out, list) else [out])
                changes[attr] = value.with_changes(body=flat)
            elif isinstance(value, cst.CSTNode):
                changes[attr] = self._compound(value)
        return node.with_changes(**changes) if changes else node
