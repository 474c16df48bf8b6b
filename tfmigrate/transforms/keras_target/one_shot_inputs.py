"""TFM708 (``--target keras``, a module whose estimators became Keras models): an input_fn that ends with

    iterator = tf.compat.v1.data.make_one_shot_iterator(dataset)
    features, labels = iterator.get_next()
    return features, labels          # or: return iterator.get_next() / return features, None

returns ``dataset`` instead. In graph mode the Estimator ran ``get_next()`` once per step until the dataset
ended; in eager TensorFlow 2.16+ ``get_next()`` is the first batch, which ``input_dataset`` would repeat
forever (``fit`` without steps never ends, ``predict`` never stops). The dataset itself is what Keras
iterates, to its end, as the Estimator did.
"""

from __future__ import annotations

import libcst as cst

from tfmigrate.codemod.transform import FamilyTransform
from tfmigrate.codemod.tree import dotted
from tfmigrate.codemod.walk import iter_nodes
from tfmigrate.transforms.common.builders import code_of
from tfmigrate.rule_ids import TFM708

ONE_SHOT = ("tensorflow.compat.v1.data.make_one_shot_iterator", "tensorflow.data.make_one_shot_iterator")


def _names(node: cst.BaseExpression) -> list[str] | None:
    if isinstance(node, cst.Name):
        return [node.value]
    if isinstance(node, cst.Tuple) and all(isinstance(e.value, cst.Name) for e in node.elements):
        return [e.value.value for e in node.elements]  # type: ignore[attr-defined]
    return None


def one_shot_returns(t: FamilyTransform, table: dict[int, object]) -> int:
    """Plans the rewrite of every such input_fn tail into ``table``; the number rewritten."""
    count = 0
    for fn in t.index.nodes(cst.FunctionDef):
        body = fn.body.body if isinstance(fn.body, cst.IndentedBlock) else []
        lines = [s for s in body if isinstance(s, cst.SimpleStatementLine) and len(s.body) == 1]
        if len(body) < 2 or body[-1] not in lines:
            continue
        last = body[-1].body[0]
        if not isinstance(last, cst.Return) or last.value is None:
            continue
        # iterator = make_one_shot_iterator(D) [; T = iterator.get_next()]; return T / return iterator.get_next()
        returned = last.value
        take = 2
        get_next: cst.BaseExpression | None = None
        target_names: list[str] | None = None
        if isinstance(returned, cst.Call):
            get_next = returned
        else:
            if len(body) < 3 or body[-2] not in lines or not isinstance(body[-2].body[0], cst.Assign):
                continue
            assign = body[-2].body[0]
            if len(assign.targets) != 1:
                continue
            target_names = _names(assign.targets[0].target)
            shown = _names(returned)
            if isinstance(returned, cst.Tuple) and len(returned.elements) == 2 \
                    and isinstance(returned.elements[0].value, cst.Name) and dotted(returned.elements[1].value) == "None":
                shown = [returned.elements[0].value.value]  # return features, None
            if target_names is None or shown != target_names:
                continue
            get_next, take = assign.value, 3
        if not (isinstance(get_next, cst.Call) and not get_next.args and isinstance(get_next.func, cst.Attribute)
                and get_next.func.attr.value == "get_next" and isinstance(get_next.func.value, cst.Name)):
            continue
        first = body[-take]
        if first not in lines or not isinstance(first.body[0], cst.Assign):
            continue
        made = first.body[0]
        if len(made.targets) != 1 or dotted(made.targets[0].target) != get_next.func.value.value:
            continue
        call = made.value
        if not (isinstance(call, cst.Call) and t.qualified_name(call.func) in ONE_SHOT and len(call.args) == 1
                and call.args[0].keyword is None and not call.args[0].star):
            continue
        dataset_node = call.args[0].value
        dataset = code_of(dataset_node)
        used = [n for s in body[-take:] for n in _reads_of(s)]
        if target_names and any(used.count(name) > 2 for name in target_names):
            continue  # a name read again between them
        if not t.fix(first, TFM708, "an input_fn returning make_one_shot_iterator(dataset).get_next(): in eager TensorFlow "
                     "2.16+ that is the first batch only, which input_dataset would repeat forever; the input_fn returns "
                     f"{dataset}, which Keras iterates to its end as the Estimator did"):
            continue
        comments = []  # the removed statements' comments, above the return
        for statement in body[-take:-1]:
            comments += [e for e in statement.leading_lines if e.comment is not None]
            if statement.trailing_whitespace.comment is not None:
                comments.append(cst.EmptyLine(comment=statement.trailing_whitespace.comment))
            table[id(statement)] = lambda updated: cst.RemovalSentinel.REMOVE

        def returns(updated: cst.CSTNode, dataset_node: cst.BaseExpression = dataset_node, comments: list = comments) -> cst.CSTNode:
            assert isinstance(updated, cst.SimpleStatementLine)
            return updated.with_changes(body=[cst.Return(dataset_node)], leading_lines=[*updated.leading_lines, *comments])

        table[id(body[-1])] = returns
        count += 1
    return count


def _reads_of(statement: cst.CSTNode) -> list[str]:
    return [n.value for n in iter_nodes(statement, trivia=False) if isinstance(n, cst.Name)]
