"""TFM182: ``tf.contrib.layers.crossed_column`` -> ``tf.feature_column.crossed_column`` (a mixin of the TFM18
transform: helper methods only, its hooks stay on the transform).

What the legacy column crossed (tensorflow/contrib/layers/python/layers/feature_column.py, TF 1.0-1.15,
``_CrossedColumn``): the *raw* feature of each sparse column (``columns_to_tensors[c.name]``: the strings or
integers, not the column's hashed ids), the bucket ids of a bucketized column, and the leaves of a nested cross.
TF 2.15's ``crossed_column`` does the same for a key string, a bucketized column and a nested cross, and refuses
a hashed categorical column, so each column that has a ``key`` (the sparse columns, rewritten by TFM156 into
``tf.feature_column.categorical_column_*``) is crossed by that key and the others as they are.

The bucket ids differ (contrib/layers/kernels/sparse_feature_cross_kernel.cc): without ``hash_key`` the legacy
op (SparseFeatureCross) combined the Fingerprint64 of each value with ``HashCombine(a, b) = a ^ (b +
0x9e3779b97f4a7800 + (a << 10) + (a >> 4))`` from the seed 0xDECAFCAFFE; TF 2.15 (``sparse_cross_hashed``)
combines them with ``FingerprintCat64`` from ``hash_key`` (0xDECAFCAFFE by default), which the legacy op did
only when ``hash_key`` was given (SparseFeatureCrossV2). So the program runs, and the weights of a legacy
checkpoint for the column cannot be reused: the finding says so.
"""

from __future__ import annotations

import libcst as cst

from tfmigrate.codemod.tree import expression
from tfmigrate.rule_ids import TFM182
from tfmigrate.transforms.common.builders import bind_args, code_of, is_none, str_value

ORDER = ("columns", "hash_bucket_size", "combiner", "ckpt_to_load_from", "tensor_name_in_ckpt", "hash_key")
_ROOT = "tensorflow.contrib.layers."


def is_crossed_column(qualified: str | None) -> bool:
    """``tf.contrib.layers.crossed_column`` in any of its import paths."""
    if not qualified or not qualified.startswith(_ROOT) or not qualified.endswith(".crossed_column"):
        return False
    middle = qualified[len(_ROOT):-len(".crossed_column")]
    return middle in ("", "python.layers.feature_column", "python.layers", "feature_column")


class CrossedColumns:
    """Plans TFM182 on the TFM18 transform (which provides ``qualified_name``, ``fix``, ``flag``,
    ``remove_imports_of`` and ``_tf``)."""

    _need_tf = False

    def _crossed_call(self, original: cst.Call, updated: cst.Call) -> cst.BaseExpression:
        func = original.func
        last = func.attr.value if isinstance(func, cst.Attribute) else (func.value if isinstance(func, cst.Name) else "")
        if last != "crossed_column" and not (isinstance(func, cst.Name) and self.index.binds_by_import(last)):  # type: ignore[attr-defined]
            return updated  # (cheap: most calls are none of these; `import crossed_column as c` binds another name)
        if last != "crossed_column" and not any(
            not b.target or b.target.endswith(".crossed_column") or b.target == "crossed_column"
            for b in self.index.imports if b.name == last  # type: ignore[attr-defined]
        ):
            return updated  # no import binds the name to crossed_column (a relative one is asked about): need no qualified name
        if not is_crossed_column(self.qualified_name(func)):  # type: ignore[attr-defined]
            return updated
        what = "tf.contrib.layers.crossed_column"
        bound, problems = bind_args(updated, ORDER)
        if problems or "columns" not in bound or "hash_bucket_size" not in bound:
            self.flag(original, TFM182, f"{what}: pass columns and hash_bucket_size plainly (no *args/**kwargs) "  # type: ignore[attr-defined]
                      "and run tfmigrate again; it becomes tf.feature_column.crossed_column(keys, hash_bucket_size)")
            return updated
        combiner = bound.get("combiner")
        if combiner is not None and str_value(combiner) != "sum":
            self.flag(original, TFM182, f"{what}(combiner={code_of(combiner)}): tf.feature_column.crossed_column has "  # type: ignore[attr-defined]
                      "no combiner; pass sparse_combiner= to the linear estimator or model that reads the column, "
                      "drop the argument and run tfmigrate again")
            return updated
        for name in ("ckpt_to_load_from", "tensor_name_in_ckpt"):
            if name in bound and not is_none(bound[name]):
                self.flag(original, TFM182, f"{what}({name}=...): TF 2 columns load no checkpoint; warm-start the "  # type: ignore[attr-defined]
                          "estimator with tf.estimator.WarmStartSettings (the crossed ids differ, so only a "
                          "checkpoint trained on TF 2 carries over), drop the argument and run tfmigrate again")
                return updated
        hash_key = bound.get("hash_key")
        same = hash_key is not None and not is_none(hash_key)
        if same:
            ids = ("with hash_key both hash a cross with FingerprintCat64 from that key, so the bucket ids are the "
                   "same for the same values; the column's variables are named and laid out as TF 2's estimators "
                   "name them")
        else:
            ids = ("the bucket ids differ: the legacy op combined the values' Fingerprint64 with HashCombine from the "
                   "seed 0xDECAFCAFFE, TF 2 with FingerprintCat64 (as the legacy op did only with hash_key=), so the "
                   "weights of a legacy checkpoint for this column do not carry over: retrain it")
        if not self.fix(original, TFM182, f"{what} -> tf.feature_column.crossed_column: the same crosses (a sparse "  # type: ignore[attr-defined]
                        f"column's raw values, by its key; bucket ids; nested crosses); {ids}"):
            return updated
        self._drop_imports(func)  # type: ignore[attr-defined]
        self._need_tf = True
        tf = self._tf  # type: ignore[attr-defined]
        columns = code_of(bound["columns"])
        code = f"{tf}.feature_column.crossed_column([getattr(c, 'key', c) for c in {columns}], " \
               f"hash_bucket_size={code_of(bound['hash_bucket_size'])}"
        if same:
            code += f", hash_key={code_of(hash_key)}"
        return expression(code + ")")
