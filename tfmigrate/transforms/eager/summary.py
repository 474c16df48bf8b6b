"""TFM413: tf.contrib.summary calls in eager code become tf.summary (writers, record_if conditions, the
scalar/histogram/image/audio ops with the legacy global step).
"""

from __future__ import annotations

import libcst as cst

from tfmigrate.codemod.tree import expression
from tfmigrate.rule_ids import TFM413
from tfmigrate.transforms.common.builders import Substitute, kwarg
from tfmigrate.transforms.eager.calls import is_path
from tfmigrate.transforms.eager.syntax import given_args, is_name, rekey, with_commas
from tfmigrate.transforms.eager.tables import GLOBAL_STEP, SUMMARY_OPS, SUMMARY_SAME


class SummaryCalls:
    """A mixin of :class:`~tfmigrate.transforms.eager.transform.EagerTransform` (the libcst hooks stay there)."""

    # --- tf.contrib.summary ---------------------------------------------------------------------
    def _summary_call(self, symbol: str, original: cst.Call, updated: cst.Call) -> cst.BaseExpression:
        if symbol in ("create_file_writer", "create_summary_file_writer"):
            return self._writer(symbol, original, updated)
        if symbol in ("always_record_summaries", "never_record_summaries") and not original.args:
            value = "True" if symbol.startswith("always") else "False"
            if self.fix(original, TFM413, f"tf.contrib.summary.{symbol}() is tf.summary.record_if({value}) in TF 2"):
                return cst.Call(func=self._tf("summary.record_if"), args=[cst.Arg(cst.Name(value))])
            return updated
        if symbol == "record_summaries_every_n_global_steps":
            params = ("n", "global_step")
            if any(a.star for a in original.args) or len(original.args) > 2:
                return updated
            given = given_args(original, updated, params)
            if "n" not in given:
                return updated
            if not self.fix(
                original,
                TFM413,
                "record_summaries_every_n_global_steps(n) is tf.summary.record_if(<global step % n == 0>) in TF 2",
            ):
                return updated
            tf = self._tfname()
            step = given.get("global_step") or expression(f"{tf}.compat.v1.train.get_or_create_global_step()")
            cond = expression(f"lambda: {tf}.math.equal(STEP % N, 0)")
            cond = cond.visit(Substitute({"STEP": step, "N": given["n"]}))
            self.changed = True
            return cst.Call(func=self._tf("summary.record_if"), args=[cst.Arg(cond)])
        if symbol in SUMMARY_OPS:
            return self._summary_op(symbol, original, updated)
        if symbol in SUMMARY_SAME:
            if self.fix(original, TFM413, f"tf.contrib.summary.{symbol} is tf.summary.{SUMMARY_SAME[symbol]} in TF 2"):
                return updated.with_changes(func=self._tf(f"summary.{SUMMARY_SAME[symbol]}"))
            return updated
        self.flag(
            original,
            TFM413,
            f"tf.contrib.summary.{symbol} has no TF 2 equivalent (graph-mode summary plumbing); with tf.summary, "
            "ops write directly to the default writer: delete the call or rewrite it by hand",
        )
        return updated

    def _writer(self, symbol: str, original: cst.Call, updated: cst.Call) -> cst.BaseExpression:
        if any(a.star for a in original.args) or not original.args:
            return updated
        first = original.args[0]
        if first.keyword is not None and first.keyword.value != "logdir":
            return updated
        logdir = first.value
        if isinstance(logdir, (cst.SimpleString, cst.ConcatenatedString, cst.FormattedString)) or is_path(self, logdir):
            if self.fix(original, TFM413, f"tf.contrib.summary.{symbol} is tf.summary.create_file_writer in TF 2"):
                return updated.with_changes(func=self._tf("summary.create_file_writer"))
            return updated
        if isinstance(logdir, (cst.Name, cst.Attribute)):
            if self.fix(
                original,
                TFM413,
                f"tf.contrib.summary.{symbol}(None) gave a writer that does nothing; tf.summary.create_file_writer(None) "
                "raises: the None case is written as tf.summary.create_noop_writer()",
            ):
                new = updated.with_changes(func=self._tf("summary.create_file_writer"))
                tf = self._tfname()
                expr = expression(f"(NEW if LOGDIR is not None else {tf}.summary.create_noop_writer())")
                return expr.visit(Substitute({"NEW": new, "LOGDIR": updated.args[0].value.deep_clone()}))
            return updated
        self.flag(
            original,
            TFM413,
            f"tf.contrib.summary.{symbol}: use tf.summary.create_file_writer(logdir, ...) when logdir is a path and "
            "tf.summary.create_noop_writer() where it was None",
        )
        return updated

    def _summary_op(self, symbol: str, original: cst.Call, updated: cst.Call) -> cst.BaseExpression:
        new_name, params, renames, unsupported = SUMMARY_OPS[symbol]
        if any(a.star for a in original.args) or len(original.args) > len(params):
            return updated
        given = given_args(original, updated, params)
        bad = [k for k in unsupported if k in given and not is_name(given[k], "None")]
        if bad:
            self.flag(
                original,
                TFM413,
                f"tf.contrib.summary.{symbol}: tf.summary.{new_name} has no {', '.join(bad)}; "
                "(family) prefix the name as 'family/name' by hand",
            )
            return updated
        if not self.fix(
            original,
            TFM413,
            f"tf.contrib.summary.{symbol} is tf.summary.{new_name} in TF 2; the legacy step (the global step) is "
            "written explicitly",
        ):
            return updated
        args = rekey(original, updated, params, renames, 2, drop=tuple(unsupported) + ("step",))
        step = given.get("step")
        if step is None or is_name(step, "None"):
            step = expression(f"{self._tfname()}.{GLOBAL_STEP}")
        args.append(kwarg("step", step))
        return updated.with_changes(func=self._tf(f"summary.{new_name}"), args=with_commas(args))
