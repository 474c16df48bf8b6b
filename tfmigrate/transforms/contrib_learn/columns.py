"""TFM156/TFM157/TFM158: tf.contrib.learn / tf.contrib.layers feature columns -> tf.feature_column:
infer_real_valued_columns_from_input, real_valued / sparse / bucketized / one_hot columns,
input_from_feature_columns, and embedding_column with the legacy initializer written out.
"""

from __future__ import annotations

import libcst as cst

from tfmigrate.codemod.tree import expression, keyword_arg
from tfmigrate.rule_ids import TFM156, TFM157, TFM158, TFM159
from tfmigrate.transforms.contrib_learn import experiment_extras as extras
from tfmigrate.transforms.common.builders import code_of, is_none, str_value
from tfmigrate.transforms.common.learn_names import FLAG_ONLY_COLUMNS, Unsupported, _new_arg, bind


class FeatureColumns:
    """A mixin of :class:`~tfmigrate.transforms.contrib_learn.transform.ContribLearnTransform` (the libcst hooks stay there)."""

    # --- TFM156 infer_real_valued_columns_from_input -----------------------------------------------
    def _infer_columns(self, original: cst.Call, updated: cst.Call) -> cst.BaseExpression:
        bound = bind(updated, ("x",))
        if len(bound) != 1 or bound[0][0] != "x":
            raise Unsupported("expected one argument x")
        x = bound[0][1].value
        if isinstance(x, (cst.Dict, cst.DictComp)):
            raise Unsupported("a dict of features gives one column per key: write "
                              "[tf.feature_column.numeric_column(key, shape=value.shape[1:]) for key, value in ...]")
        if not self.fix(
            original, TFM156,
            "infer_real_valued_columns_from_input(x) becomes [tf.feature_column.numeric_column('x', "
            "shape=x.shape[1:])]: the legacy column had the empty key '', the new one reads the feature 'x', so "
            "feed features as {'x': x} (numpy_input_fn(x={'x': x}, ...)); x must be an array with .shape",
        ):
            return updated
        self.drop_import_of(original.func)
        xcode = code_of(x)
        if not isinstance(x, (cst.Name, cst.Attribute, cst.Subscript, cst.Call)):
            xcode = f"({xcode})"
        column = self.tf("feature_column.numeric_column")
        return expression(f'[{code_of(column)}("x", shape={xcode}.shape[1:])]')

    # --- TFM157 feature columns -------------------------------------------------------------------
    @staticmethod
    def remap(bound: list[tuple[str, cst.Arg]], positional: tuple[str, ...], renames: dict[str, str]) -> list[cst.Arg]:
        """Keep positional args among the leading ``positional`` parameters (same place in the new API);
        every other argument is passed by keyword, renamed through ``renames``."""
        out = []
        for index, (k, a) in enumerate(bound):
            if a.keyword is None and index < len(positional) and positional[index] == k:
                out.append(a)
            else:
                out.append(keyword_arg(a, renames.get(k, k)))
        return out

    def _combiner_check(self, bound: dict[str, cst.Arg]) -> None:
        if "combiner" in bound and str_value(bound["combiner"].value) != "sum":
            raise Unsupported(
                "combiner other than 'sum': categorical columns carry no combiner in TF 2; set "
                "sparse_combiner=<that value> on the linear estimator (LinearClassifier/LinearRegressor) and drop "
                "combiner"
            )

    def _real_valued(self, original: cst.Call, updated: cst.Call) -> cst.BaseExpression:
        bound = bind(updated, ("column_name", "dimension", "default_value", "dtype", "normalizer"))
        d = dict(bound)
        if "dimension" in d and is_none(d["dimension"].value):
            raise Unsupported(TFM159, FLAG_ONLY_COLUMNS["real_valued_column"])
        if "dimension" in d:
            shape = expression(f"({code_of(d['dimension'].value)},)")
            bound = [(k, a.with_changes(value=shape) if k == "dimension" else a) for k, a in bound]
        note = ""
        if "column_name" in d and str_value(d["column_name"].value) == "":
            key = cst.SimpleString('"x"')
            bound = [(k, a.with_changes(value=key) if k == "column_name" else a) for k, a in bound]
            note = ("; the empty key '' (the unnamed feature tensor of fit(x=...)) becomes 'x': TF 2 reads "
                    "features from a dict, feed {'x': x} (numpy_input_fn(x={'x': x}) as the TFM1 rules write it)")
        args = self.remap(bound, ("column_name", "dimension", "default_value", "dtype", "normalizer"),
                          {"column_name": "key", "dimension": "shape", "normalizer": "normalizer_fn"})
        return self._rewrite(
            TFM157, original, updated, "feature_column.numeric_column", args,
            "tf.contrib.layers.real_valued_column is tf.feature_column.numeric_column (dimension=n is shape=(n,), "
            "normalizer is normalizer_fn)" + note,
        )

    def _sparse_keys(self, original: cst.Call, updated: cst.Call) -> cst.BaseExpression:
        bound = bind(updated, ("column_name", "keys", "default_value", "combiner", "dtype"))
        d = dict(bound)
        self._combiner_check(d)
        bound = [(k, a) for k, a in bound if k != "combiner"]
        args = self.remap(bound, ("column_name", "keys"),
                          {"column_name": "key", "keys": "vocabulary_list"})
        keys = d.get("keys")
        all_str = (
            keys is not None
            and isinstance(keys.value, (cst.List, cst.Tuple))
            and bool(keys.value.elements)
            and all(isinstance(e, cst.Element) and str_value(e.value) is not None for e in keys.value.elements)
        )
        note = ""
        if "dtype" not in d and not all_str:
            args.append(_new_arg("dtype", self.tf("string")))
            note = "; the legacy dtype tf.string is written out (TF 2 infers it from the vocabulary)"
        return self._rewrite(
            TFM157, original, updated, "feature_column.categorical_column_with_vocabulary_list", args,
            "tf.contrib.layers.sparse_column_with_keys is tf.feature_column.categorical_column_with_vocabulary_list "
            "(keys is vocabulary_list, out-of-vocabulary ids stay -1)" + note,
        )

    def _sparse_hash(self, original: cst.Call, updated: cst.Call) -> cst.BaseExpression:
        bound = bind(updated, ("column_name", "hash_bucket_size", "combiner", "dtype", "hash_keys"))
        d = dict(bound)
        self._combiner_check(d)
        if "hash_keys" in d and not is_none(d["hash_keys"].value):
            raise Unsupported("hash_keys (multi-hash) has no TF 2 equivalent: use one "
                              "tf.feature_column.categorical_column_with_hash_bucket per hash and retrain")
        bound = [(k, a) for k, a in bound if k not in {"combiner", "hash_keys"}]
        args = self.remap(bound, ("column_name", "hash_bucket_size"), {"column_name": "key"})
        return self._rewrite(
            TFM157, original, updated, "feature_column.categorical_column_with_hash_bucket", args,
            "tf.contrib.layers.sparse_column_with_hash_bucket is tf.feature_column.categorical_column_with_hash_bucket "
            "(same string_to_hash_bucket_fast hashing, same default dtype tf.string)",
        )

    def _sparse_integerized(self, original: cst.Call, updated: cst.Call) -> cst.BaseExpression:
        bound = bind(updated, ("column_name", "bucket_size", "combiner", "dtype"))
        d = dict(bound)
        self._combiner_check(d)
        if "dtype" in d and code_of(d["dtype"].value).split(".")[-1] != "int64":
            raise Unsupported("dtype other than int64: categorical_column_with_identity parses int64; cast the "
                              "feature to an integer tensor in the input_fn and drop dtype")
        bound = [(k, a) for k, a in bound if k not in {"combiner", "dtype"}]
        args = self.remap(bound, ("column_name", "bucket_size"), {"column_name": "key", "bucket_size": "num_buckets"})
        return self._rewrite(
            TFM157, original, updated, "feature_column.categorical_column_with_identity", args,
            "tf.contrib.layers.sparse_column_with_integerized_feature is "
            "tf.feature_column.categorical_column_with_identity (bucket_size is num_buckets); the legacy column "
            "took ids modulo bucket_size, the new one raises on ids outside [0, num_buckets): check your ids",
        )

    def _bucketized(self, original: cst.Call, updated: cst.Call) -> cst.BaseExpression:
        bound = bind(updated, ("source_column", "boundaries"))
        return self._rewrite(
            TFM157, original, updated, "feature_column.bucketized_column", [a for _, a in bound],
            "tf.contrib.layers.bucketized_column is tf.feature_column.bucketized_column (same arguments)",
        )

    def _one_hot(self, original: cst.Call, updated: cst.Call) -> cst.BaseExpression:
        bound = bind(updated, ("sparse_id_column",))
        args = self.remap(bound, ("sparse_id_column",), {"sparse_id_column": "categorical_column"})
        return self._rewrite(
            TFM157, original, updated, "feature_column.indicator_column", args,
            "tf.contrib.layers.one_hot_column is tf.feature_column.indicator_column",
        )

    def _input_layer(self, original: cst.Call, updated: cst.Call) -> cst.BaseExpression:
        bound = bind(updated, ("columns_to_tensors", "feature_columns", "weight_collections", "trainable", "scope"))
        d = dict(bound)
        if "scope" in d and not is_none(d["scope"].value):
            raise Unsupported("scope has no input_layer equivalent: wrap the call in "
                              "tf.compat.v1.variable_scope(scope) and drop the argument")
        if "cols_to_outs" in d:
            raise Unsupported("cols_to_outs is cols_to_output_tensors in tf.compat.v1.feature_column.input_layer")
        bound = [(k, a) for k, a in bound if k != "scope"]
        args = self.remap(bound, ("columns_to_tensors", "feature_columns", "weight_collections", "trainable"),
                          {"columns_to_tensors": "features"})
        return self._rewrite(
            TFM157, original, updated, "compat.v1.feature_column.input_layer", args,
            "tf.contrib.layers.input_from_feature_columns is tf.compat.v1.feature_column.input_layer "
            "(columns_to_tensors is features; columns are concatenated in name order, variables are named "
            "input_layer/...: legacy checkpoints do not restore into it)",
        )

    # --- TFM158 embedding_column ------------------------------------------------------------------
    def _vocab_size(self, expr: cst.BaseExpression, depth: int = 0) -> str | None:
        """The legacy sparse column's ``length`` as code, from its (original) construction."""
        if isinstance(expr, cst.Name) and depth < 3:
            scope = self.scopes.scope_of(expr)
            assignments = list(scope[expr.value]) if scope is not None else []
            if len(assignments) != 1:
                return None
            value = self._target_values.get(getattr(assignments[0], "node", None))
            if value is None:  # a, b = [column_a, column_b]
                value = extras.unpacked_value(self, getattr(assignments[0], "node", None))
            return self._vocab_size(value, depth + 1) if value is not None else None
        if not isinstance(expr, cst.Call):
            return None
        name = self.legacy(expr.func)
        orders = {
            "layers.sparse_column_with_keys": (("column_name", "keys", "default_value", "combiner", "dtype"), "keys"),
            "layers.sparse_column_with_hash_bucket": (("column_name", "hash_bucket_size", "combiner", "dtype", "hash_keys"), "hash_bucket_size"),
            "layers.sparse_column_with_integerized_feature": (("column_name", "bucket_size", "combiner", "dtype"), "bucket_size"),
        }
        if name not in orders:
            return None
        order, key = orders[name]
        try:
            d = dict(bind(expr, order))
        except Unsupported:
            return None
        if key not in d:
            return None
        value = d[key].value
        if key != "keys":
            return code_of(value)
        if isinstance(value, (cst.List, cst.Tuple)) and all(isinstance(e, cst.Element) for e in value.elements):
            return str(len(value.elements))
        return f"len({code_of(value)})"

    def _embedding(self, original: cst.Call, updated: cst.Call) -> cst.BaseExpression:
        order = ("sparse_id_column", "dimension", "combiner")
        bound = bind(updated, order)
        d = dict(bound)
        if "sparse_id_column" not in d or "dimension" not in d:
            raise Unsupported("sparse_id_column and dimension are required")
        if "stddev" in d:
            raise Unsupported("stddev (TF 0.x) is initializer=tf.compat.v1.truncated_normal_initializer(mean=0.0, "
                              "stddev=...) in tf.feature_column.embedding_column")
        args = self.remap(bound, order, {"sparse_id_column": "categorical_column"})
        message = ("tf.contrib.layers.embedding_column is tf.feature_column.embedding_column (sparse_id_column is "
                   "categorical_column, combiner default 'mean' in both")
        if "initializer" not in d:
            column = dict(bind(original, order))["sparse_id_column"].value
            size = self._vocab_size(column)
            if size is None:
                raise Unsupported(
                    TFM158,
                    "the legacy default initializer was truncated_normal(stddev=1/sqrt(vocabulary size)), TF 2's is "
                    "1/sqrt(dimension), and the vocabulary size is not visible here: pass initializer="
                    "tf.compat.v1.truncated_normal_initializer(mean=0.0, stddev=1 / math.sqrt(<vocabulary size>)) "
                    "and run tfmigrate again",
                )
            self.imports.add("math")
            args.append(_new_arg("initializer", self.tf(
                f"compat.v1.truncated_normal_initializer(mean=0.0, stddev=1 / math.sqrt({size}))")))
            message += ("; the legacy initializer truncated_normal(stddev=1/sqrt(vocabulary size)) is written out: "
                        "TF 2 defaults to 1/sqrt(dimension)")
        return self._rewrite(TFM158, original, updated, "feature_column.embedding_column", args, message + ")")
