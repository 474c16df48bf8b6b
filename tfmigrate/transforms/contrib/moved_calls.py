"""TFM611-TFM615: the calls of the moved contrib modules whose arguments (not only their name) change.

A mixin of :class:`~tfmigrate.transforms.contrib.transform.ContribTransform` (which renames the
references; ``moved.py`` holds the tables):

- TFM611: ``contrib.data`` forms TF 2.15 spells otherwise: the TF 1.2-1.3 ``Dataset.map(f,
  num_threads=, output_buffer_size=)`` (``map(f, num_parallel_calls=).prefetch(...)``) and
  ``dense_to_sparse_batch`` method, ``rejection_resample(dataset, ...)``, ``Dataset.list_files`` (which
  never shuffled), and the 1.4-1.x ``batch_and_drop_remainder`` / ``padded_batch_and_drop_remainder`` /
  ``sloppy_interleave`` transformations;
- TFM612: ``contrib.keras`` calls whose Keras 2.0 defaults tf.keras changed (``LSTM``/``GRU``'s
  ``hard_sigmoid``, ``GRU``'s ``reset_after``, the optimizers' ``lr``/``epsilon``/... as
  ``tf.keras.optimizers.legacy``);
- TFM614: what has no faithful form, on its line;
- TFM615: the ``softmax_loss_function`` of TF 0.x ``tf.nn.seq2seq`` losses, called ``(logit, target)``
  by TF 0.x and ``(labels=, logits=)`` by the TF 1.15 code that TFM608 copies.
"""

from __future__ import annotations

from typing import Callable

import libcst as cst

from tfmigrate.codemod.tree import dotted, expression, join_args, keyword_arg
from tfmigrate.rule_ids import TFM611, TFM612, TFM614, TFM615
from tfmigrate.transforms.contrib import moved as M
from tfmigrate.transforms.contrib.paths import contrib_rel, legacy_home

_PRE_14 = ("data.Dataset", "data.TextLineDataset", "data.TFRecordDataset", "data.FixedLengthRecordDataset",
           "data.Iterator")


def _positional(call: cst.Call) -> list[cst.Arg]:
    return [a for a in call.args if a.keyword is None and not a.star]


def _keyword(call: cst.Call, name: str) -> cst.Arg | None:
    return next((a for a in call.args if a.keyword is not None and a.keyword.value == name), None)


def _arg(name: str, value: cst.BaseExpression) -> cst.Arg:
    return keyword_arg(cst.Arg(value=value), name)


class MovedCalls:
    """The argument rewrites of moved contrib names (see the module docstring)."""

    # --- what the mixin reads of the transform ----------------------------------------------------
    index: object
    _apply_plans: dict[int, Callable[[cst.Call], cst.BaseExpression]]

    def _data_module(self) -> bool:
        """Does the module use TF 1.2-1.3's ``tf.contrib.data`` datasets (its ``Dataset`` methods are legacy)?"""
        cached = getattr(self, "_uses_contrib_data", None)
        if cached is None:
            cached = False
            for binding in self.index.imports:  # type: ignore[attr-defined]
                rel = contrib_rel(binding.target) or ""
                if rel == "data" or rel.startswith(_PRE_14):
                    cached = True
                    break
            if not cached:
                for node in self.index.nodes(cst.Attribute):  # type: ignore[attr-defined]
                    rel = contrib_rel(self.qualified_name(node)) or ""  # type: ignore[attr-defined]
                    if rel.startswith(_PRE_14):
                        cached = True
                        break
            self._uses_contrib_data = cached
        return cached

    # --- dispatch (from leave_Call) ---------------------------------------------------------------
    def moved_call(self, rel: str, original: cst.Call, updated: cst.Call) -> cst.BaseExpression | None:
        """The rewritten call, or None when the usual handling applies."""
        kr = M.keras_rel(rel)
        if kr is not None:
            return self._keras_call(kr, original, updated)
        if rel in M.DATA_CALLS:
            return self._data_call(rel, original, updated)
        home = legacy_home(self.qualified_name(original.func))  # type: ignore[attr-defined]
        name = rel.rpartition(".")[2]
        if home is not None and home[1] == "legacy_seq2seq" and name in M.TF0_SEQ2SEQ_LOSSES:
            return self._tf0_loss_function(name, original, updated)
        return None

    def legacy_method(self, original: cst.Call, updated: cst.Call) -> cst.BaseExpression:
        """A method call on a value: the TF 1.2-1.3 ``Dataset`` methods TF 2.15 spells otherwise."""
        plan = self._apply_plans.pop(id(original), None)
        if plan is not None:
            return plan(updated)
        func = original.func
        if not isinstance(func, cst.Attribute) or func.attr.value not in M.LEGACY_METHODS:
            return updated
        method = func.attr.value
        if method == "map":
            return self._map(original, updated)
        if not self._data_module():
            return updated
        if method in ("make_dataset_resource", "dispose_op"):
            self.flag(original, TFM614, M.DATA_MANUAL[method])  # type: ignore[attr-defined]
            return updated
        # dense_to_sparse_batch(batch_size, row_shape): a method in TF 1.2-1.3, a transformation since
        if any(a.star for a in original.args) or len(original.args) != 2:
            return updated
        message = ("dataset.dense_to_sparse_batch(batch_size, row_shape) (tf.contrib.data, TF 1.2-1.3) is "
                   "dataset.apply(tf.data.experimental.dense_to_sparse_batch(batch_size, row_shape)) in TF 2.15")
        if not self.fix(original, TFM611, message):  # type: ignore[attr-defined]
            return updated
        inner = cst.Call(func=self.tf("data.experimental.dense_to_sparse_batch"), args=updated.args)  # type: ignore[attr-defined]
        assert isinstance(updated.func, cst.Attribute)
        return updated.with_changes(func=updated.func.with_changes(attr=cst.Name("apply")), args=[cst.Arg(inner)])

    # --- contrib.data -----------------------------------------------------------------------------
    def _map(self, original: cst.Call, updated: cst.Call) -> cst.BaseExpression:
        """TF 1.2-1.3 ``map(f, num_threads=None, output_buffer_size=None)``: sequential without
        num_threads (the buffer unused); else a parallel map buffering output_buffer_size (default:
        num_threads) elements. TF 2.15: ``map(f, num_parallel_calls=)`` buffers num_parallel_calls
        elements, ``prefetch(n)`` n more."""
        keywords = {a.keyword.value for a in original.args if a.keyword is not None}
        if not keywords & {"num_threads", "output_buffer_size"}:
            if any(a.star == "**" for a in original.args) and self._data_module():
                self.flag(original, TFM614, "Dataset.map(..., **kwargs) in a tf.contrib.data module: TF 1.2-1.3's "  # type: ignore[attr-defined]
                          "num_threads=/output_buffer_size= are num_parallel_calls= and a .prefetch(...) after the map "
                          "in TF 2.15; pass them by name, then tfmigrate rewrites the call")
            return updated
        if any(a.star for a in original.args) or len(_positional(original)) > 1:
            self.flag(original, TFM614, "Dataset.map(map_func, num_threads, output_buffer_size) of tf.contrib.data "  # type: ignore[attr-defined]
                      "(TF 1.2-1.3): pass map_func alone positionally, then tfmigrate rewrites it to "
                      "map(map_func, num_parallel_calls=num_threads).prefetch(output_buffer_size)")
            return updated
        threads = _keyword(updated, "num_threads")
        buffer = _keyword(updated, "output_buffer_size")
        if threads is None:
            message = ("Dataset.map(..., output_buffer_size=) without num_threads (tf.contrib.data, TF 1.2-1.3) mapped "
                       "sequentially and ignored the buffer: map(...) in TF 2.15")
        elif buffer is None:
            message = ("Dataset.map(..., num_threads=n) (tf.contrib.data, TF 1.2-1.3) is map(..., num_parallel_calls=n) "
                       "in TF 2.15 (a parallel map buffering n elements, in order)")
        else:
            message = ("Dataset.map(..., num_threads=n, output_buffer_size=b) (tf.contrib.data, TF 1.2-1.3) is "
                       "map(..., num_parallel_calls=n).prefetch(b) in TF 2.15 (a parallel map, in order, with its buffer)")
        if not self.fix(original, TFM611, message):  # type: ignore[attr-defined]
            return updated
        args = []
        for arg in updated.args:
            if arg.keyword is not None and arg.keyword.value == "output_buffer_size":
                continue
            if arg.keyword is not None and arg.keyword.value == "num_threads":
                arg = arg.with_changes(keyword=cst.Name("num_parallel_calls"))
            args.append(arg)
        new: cst.BaseExpression = updated.with_changes(args=join_args(args))
        if threads is not None and buffer is not None:
            new = cst.Call(func=cst.Attribute(value=new, attr=cst.Name("prefetch")), args=[cst.Arg(buffer.value)])
        return new

    def _apply_parent(self, call: cst.Call) -> cst.Call | None:
        """The ``x.apply(<call>)`` whose only argument is ``call``."""
        parents = self.index.parents  # type: ignore[attr-defined]
        arg = parents.get(call)
        outer = parents.get(arg) if isinstance(arg, cst.Arg) else None
        if (isinstance(outer, cst.Call) and isinstance(outer.func, cst.Attribute) and outer.func.attr.value == "apply"
                and len(outer.args) == 1 and outer.args[0] is arg and arg.keyword is None):  # type: ignore[union-attr]
            return outer
        return None

    def _data_call(self, rel: str, original: cst.Call, updated: cst.Call) -> cst.BaseExpression:
        name = rel.rpartition(".")[2]
        starred = any(a.star for a in original.args)
        if rel == "data.Dataset.list_files":
            if starred or _keyword(original, "shuffle") is not None:
                return updated
            message = ("Dataset.list_files(pattern) of tf.contrib.data / TF 1.4-1.5 never shuffled; TF 2.15 shuffles by "
                       "default: list_files(pattern, shuffle=False)")
            if not self.fix(original, TFM611, message):  # type: ignore[attr-defined]
                return updated
            return updated.with_changes(args=join_args([*updated.args, _arg("shuffle", cst.Name("False"))]))
        if rel == "data.Iterator.from_dataset":  # TF 1.2-1.3 (removed in 1.4 for make_initializable_iterator)
            if starred or len(original.args) > 2:
                self.flag(original, TFM614, M.DATA_MANUAL[rel])  # type: ignore[attr-defined]
                return updated
            message = ("tf.contrib.data.Iterator.from_dataset(dataset, shared_name) (TF 1.2-1.3) is "
                       "tf.compat.v1.data.make_initializable_iterator(dataset, shared_name) in TF 2.15 (the same "
                       "uninitialised iterator; run its initializer as before)")
            if not self.fix(original, TFM611, message):  # type: ignore[attr-defined]
                return updated
            self.remove_imports_of(original.func)  # type: ignore[attr-defined]
            return updated.with_changes(func=self.tf("compat.v1.data.make_initializable_iterator"))  # type: ignore[attr-defined]
        if name == "sloppy_interleave":
            if starred:
                self.flag(original, TFM614, "tf.contrib.data.sloppy_interleave(*args): pass its arguments as written, "  # type: ignore[attr-defined]
                          "then tfmigrate rewrites it to tf.data.experimental.parallel_interleave(..., sloppy=True)")
                return updated
            message = ("tf.contrib.data.sloppy_interleave(map_func, cycle_length, block_length) is "
                       "tf.data.experimental.parallel_interleave(map_func, cycle_length, block_length, sloppy=True) "
                       "in TF 2.15 (the same op)")
            if not self.fix(original, TFM611, message):  # type: ignore[attr-defined]
                return updated
            self.remove_imports_of(original.func)  # type: ignore[attr-defined]
            return updated.with_changes(func=self.tf("data.experimental.parallel_interleave"),  # type: ignore[attr-defined]
                                        args=join_args([*updated.args, _arg("sloppy", cst.Name("True"))]))
        outer = self._apply_parent(original)
        if name == "rejection_resample":
            return self._rejection_resample(original, updated, outer)
        # batch_and_drop_remainder(batch_size) / padded_batch_and_drop_remainder(batch_size, padded_shapes, padding_values)
        if outer is None or starred:
            self.flag(original, TFM614, M.DATA_MANUAL[rel])  # type: ignore[attr-defined]
            return updated
        method = "batch" if name == "batch_and_drop_remainder" else "padded_batch"
        message = (f"dataset.apply(tf.contrib.data.{name}(...)) is dataset.{method}(..., drop_remainder=True) in TF 2.15 "
                   "(the same batches, the last partial one dropped, a static batch dimension)")
        if not self.fix(original, TFM611, message):  # type: ignore[attr-defined]
            return updated
        self.remove_imports_of(original.func)  # type: ignore[attr-defined]
        inner_args = [a.with_changes(comma=cst.MaybeSentinel.DEFAULT) for a in updated.args]

        def plan(apply_call: cst.Call, inner_args=inner_args, method=method) -> cst.BaseExpression:
            assert isinstance(apply_call.func, cst.Attribute)
            args = join_args([*inner_args, _arg("drop_remainder", cst.Name("True"))])
            return apply_call.with_changes(func=apply_call.func.with_changes(attr=cst.Name(method)), args=args)

        self._apply_plans[id(outer)] = plan
        return updated

    def _rejection_resample(self, original: cst.Call, updated: cst.Call, outer: cst.Call | None) -> cst.BaseExpression:
        positional = _positional(original)
        keywords = {a.keyword.value for a in original.args if a.keyword is not None}
        if outer is not None:  # TF 1.4+: a transformation for dataset.apply
            if "dataset" in keywords:
                self.flag(original, TFM614, M.DATA_MANUAL["data.rejection_resample"])  # type: ignore[attr-defined]
                return updated
            message = "tf.contrib.data.rejection_resample is tf.data.experimental.rejection_resample in TF 2.15 (same behaviour)"
            if not self.fix(original.func, TFM611, message):  # type: ignore[attr-defined]
                return updated
            self.remove_imports_of(original.func)  # type: ignore[attr-defined]
            return updated.with_changes(func=self.tf("data.experimental.rejection_resample"))  # type: ignore[attr-defined]
        legacy = (
            "dataset" in keywords
            or len(positional) >= 5
            or ("class_func" in keywords and len(positional) >= 1)
            or ("target_dist" in keywords and len(positional) >= 2)
        )
        if not legacy or any(a.star for a in original.args):
            self.flag(original, TFM614, M.DATA_MANUAL["data.rejection_resample"])  # type: ignore[attr-defined]
            return updated
        message = ("tf.contrib.data.rejection_resample(dataset, class_func, target_dist, ...) (TF 1.2-1.3) is "
                   "dataset.rejection_resample(class_func, target_dist, ...) in TF 2.15 (the same (class, element) pairs)")
        if not self.fix(original, TFM611, message):  # type: ignore[attr-defined]
            return updated
        self.remove_imports_of(original.func)  # type: ignore[attr-defined]
        dataset = _keyword(updated, "dataset") or next(a for a in updated.args if a.keyword is None)
        rest = [a for a in updated.args if a is not dataset]
        value = dataset.value
        if not isinstance(value, (cst.Name, cst.Attribute, cst.Call, cst.Subscript)):
            value = value.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])
        return cst.Call(func=cst.Attribute(value=value, attr=cst.Name("rejection_resample")), args=join_args(rest))

    # --- contrib.keras ----------------------------------------------------------------------------
    def keras_reference(self, original: cst.CSTNode, updated: cst.BaseExpression, rel: str, outermost: bool) -> cst.BaseExpression:
        """A name under contrib.keras: the whole chain becomes its tf.keras name (at its outermost node)."""
        public = M.keras_rel(rel) or ""
        head, _, leaf = public.partition(".")
        call = self._call_of(original)  # type: ignore[attr-defined]
        if outermost and public in M.KERAS_MANUAL:
            self.flag(original, TFM614, M.KERAS_MANUAL[public])  # type: ignore[attr-defined]
            return updated
        defaults = M.KERAS_DEFAULTS.get(public) or (
            M.KERAS_OPTIMIZERS[leaf][1] if head == "optimizers" and leaf in M.KERAS_OPTIMIZERS else None)
        if outermost and call is None and defaults:  # a class passed on, subclassed, stored: built elsewhere
            self.flag(original, TFM614, (  # type: ignore[attr-defined]
                f"tf.contrib.keras.{public} passed uncalled: Keras 2.0's defaults differ from tf.keras's "
                f"({', '.join(f'{k}={v}' for k, v in defaults)})"
                + ("; and graph-mode Keras needs tf.keras.optimizers.legacy" if head == "optimizers" else "")
                + ": pass them where it is built, or call it here, then tfmigrate writes them"))
            return updated
        base = original
        while isinstance(base, cst.Attribute):
            base = base.value
        if isinstance(base, cst.Name) and (
            base.value in self._in_place_names or not self.index.binds_by_import(base.value)  # type: ignore[attr-defined]
        ):
            return updated  # an import moved in place, or an alias (`K = tf.contrib.keras.backend`) rewritten itself
        if not outermost:
            return updated
        if head == "optimizers" and leaf in M.KERAS_OPTIMIZERS:
            target = f"keras.optimizers.legacy.{leaf}"
        elif head == "backend":
            target = "compat.v1.keras." + public
        else:
            target = "keras" + (f".{public}" if public else "")
        message = (f"tf.contrib.keras.{public or ''}".rstrip(".") + f" (Keras 2.0 in TF 1.2-1.3) is tf.{target} in TF 2.15"
                   + (" (the Keras 2.0 update, which graph-mode Keras needs; its defaults are written out)"
                      if head == "optimizers" else ""))
        if not self.fix(original, TFM612, message):  # type: ignore[attr-defined]
            return updated
        self.remove_imports_of(original)  # type: ignore[attr-defined]
        return self.tf(target)  # type: ignore[attr-defined]

    def _keras_call(self, public: str, original: cst.Call, updated: cst.Call) -> cst.BaseExpression | None:
        head, _, leaf = public.partition(".")
        if public in M.KERAS_DEFAULTS:
            defaults = M.KERAS_DEFAULTS[public]
            positions = {"recurrent_activation": 2}
            missing = [
                (k, v) for k, v in defaults
                if _keyword(original, k) is None and len(_positional(original)) <= positions.get(k, 99)
            ]
            if not missing:
                return updated
            if any(a.star for a in original.args):
                self.flag(original, TFM614, (  # type: ignore[attr-defined]
                    f"tf.contrib.keras.{public}(*args/**kwargs): Keras 2.0's defaults differ from tf.keras's "
                    f"({', '.join(f'{k}={v}' for k, v in missing)}); pass them, as Keras 2.0 used them"))
                return updated
            message = (f"tf.contrib.keras.{public}: Keras 2.0's defaults, which tf.keras changed, are written out "
                       f"({', '.join(f'{k}={v}' for k, v in missing)})")
            if not self.fix(original, TFM612, message):  # type: ignore[attr-defined]
                return updated
            return updated.with_changes(args=join_args([*updated.args, *(_arg(k, expression(v)) for k, v in missing)]))
        if head == "optimizers" and leaf in M.KERAS_OPTIMIZERS:
            order, defaults = M.KERAS_OPTIMIZERS[leaf]
            if any(a.star for a in original.args) or len(_positional(original)) > len(order):
                self.flag(original, TFM614, (  # type: ignore[attr-defined]
                    f"tf.contrib.keras.optimizers.{leaf}(*args/**kwargs): pass its arguments by keyword, then tfmigrate "
                    f"writes tf.keras.optimizers.legacy.{leaf} with Keras 2.0's defaults"))
                return updated
            args = []
            given = set()
            for index, (arg, new) in enumerate(zip(original.args, updated.args)):
                name = order[index] if arg.keyword is None else arg.keyword.value
                name = "learning_rate" if name == "lr" else name
                given.add(name)
                args.append(keyword_arg(new, name))
            args += [_arg(k, expression(v)) for k, v in defaults if k not in given]
            message = (f"tf.contrib.keras.optimizers.{leaf} (Keras 2.0) is tf.keras.optimizers.legacy.{leaf} (the same "
                       "update, and the class graph-mode Keras needs) with lr= as learning_rate= and Keras 2.0's defaults "
                       f"written out ({', '.join(f'{k}={v}' for k, v in defaults)})")
            if not self.fix(original, TFM612, message):  # type: ignore[attr-defined]
                return updated
            self.remove_imports_of(original.func)  # type: ignore[attr-defined]
            func = self.tf(f"keras.optimizers.legacy.{leaf}")  # type: ignore[attr-defined]
            return updated.with_changes(func=func, args=join_args(args))
        return None

    # --- TF 0.x seq2seq losses --------------------------------------------------------------------
    def _tf0_loss_function(self, name: str, original: cst.Call, updated: cst.Call) -> cst.BaseExpression | None:
        index = M.TF0_SEQ2SEQ_LOSSES[name]
        found = None
        for i, arg in enumerate(original.args):
            if (arg.keyword is None and not arg.star and i == index) or (
                arg.keyword is not None and arg.keyword.value == "softmax_loss_function"
            ):
                found = i
        if found is None:
            if any(a.star for a in original.args):
                self.flag(original, TFM615, self._tf0_loss_message(name, adapted=False))  # type: ignore[attr-defined]
            return None
        value = original.args[found].value
        if isinstance(value, cst.Name) and value.value == "None":
            return None
        if dotted(value) is None:
            self.flag(original, TFM615, self._tf0_loss_message(name, adapted=False))  # type: ignore[attr-defined]
            return None
        if not self.fix(original.args[found], TFM615, self._tf0_loss_message(name, adapted=True)):  # type: ignore[attr-defined]
            return None
        adapter = cst.parse_expression(f"lambda labels, logits: {dotted(value)}(logits, labels)")
        args = list(updated.args)
        args[found] = args[found].with_changes(value=adapter)
        return updated.with_changes(args=args)

    def _tf0_loss_message(self, name: str, adapted: bool) -> str:
        head = (f"TF 0.x's tf.nn.seq2seq.{name} called softmax_loss_function(logit, target) positionally; the TF 1.15 "
                "code tfmigrate copies calls it with labels=, logits=")
        if adapted:
            return head + ": the function is passed as lambda labels, logits: f(logits, labels), which calls it as TF 0.x did"
        return head + ": pass the function by its name (tfmigrate then adapts it), or make it take (labels, logits) keywords"
