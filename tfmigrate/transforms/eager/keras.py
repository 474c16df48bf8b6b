"""TFM404/TFM412: tf.layers classes and legacy tf.train optimizers in eager code become their Keras
classes, with the legacy positional order and the defaults Keras does not share written out.
"""

from __future__ import annotations

import libcst as cst

from tfmigrate.codemod.tree import expression
from tfmigrate.rule_ids import TFM404, TFM412
from tfmigrate.transforms.common.builders import kwarg
from tfmigrate.transforms.eager.calls import holds_variable
from tfmigrate.transforms.eager.syntax import given_args, is_name, rekey, with_commas
from tfmigrate.transforms.eager.tables import LAYERS, LAYER_FUNCTIONS, OPTIMIZERS, OPT_MANUAL


class KerasCalls:
    """A mixin of :class:`~tfmigrate.transforms.eager.transform.EagerTransform` (the libcst hooks stay there)."""

    # --- tf.layers ------------------------------------------------------------------------------
    def _layer_call(self, layer: str, original: cst.Call, updated: cst.Call) -> cst.BaseExpression:
        if layer == "flatten":
            return self._flatten(original, updated)
        if layer in LAYER_FUNCTIONS:
            cls = "".join(p.capitalize() for p in layer.split("_")).replace("1d", "1D").replace("2d", "2D").replace(
                "3d", "3D"
            )
            self.flag(
                original,
                TFM404,
                f"tf.layers.{layer} creates new variables at every call in eager code: create "
                f"`tf.keras.layers.{cls}(...)` once (in __init__) and call it",
            )
            return updated
        if layer not in LAYERS:
            return updated
        params, keep, defaults = LAYERS[layer]
        if any(a.star for a in original.args) or len([a for a in original.args if not a.keyword]) > len(params):
            self.flag(original, TFM404, f"tf.layers.{layer}: rewrite it as tf.keras.layers.{layer} by hand")
            return updated
        given = {a.keyword.value if a.keyword else params[i] for i, a in enumerate(original.args)}
        args = rekey(original, updated, params, {}, keep)
        added = [kwarg(k, expression(v)) for k, v in defaults.items() if k not in given]
        note = f" ({', '.join(f'{k}={v}' for k, v in defaults.items() if k not in given)} written: Keras default differs)" if added else ""
        if not self.fix(original, TFM404, f"tf.layers.{layer} is tf.keras.layers.{layer} in TF 2{note}"):
            return updated
        if added:
            args = with_commas([*args, *added])
        return updated.with_changes(func=self._tf(f"keras.layers.{layer}"), args=args)

    def _flatten(self, original: cst.Call, updated: cst.Call) -> cst.BaseExpression:
        params = ("inputs", "name", "data_format")
        if any(a.star for a in original.args) or len(original.args) > 3:
            return updated
        given = given_args(original, updated, params)
        if "inputs" not in given:
            return updated
        if not self.fix(
            original,
            TFM404,
            "tf.layers.flatten(x) is tf.keras.layers.Flatten()(x) in TF 2 (data_format written: Keras default differs)",
        ):
            return updated
        ctor = [kwarg(k, v) for k, v in given.items() if k == "name"]
        ctor.append(kwarg("data_format", given.get("data_format") or cst.SimpleString('"channels_last"')))
        layer = cst.Call(func=self._tf("keras.layers.Flatten"), args=with_commas(ctor))
        return cst.Call(func=layer, args=[cst.Arg(given["inputs"])])

    # --- optimizers -----------------------------------------------------------------------------
    def _optimizer_call(self, name: str, original: cst.Call, updated: cst.Call) -> cst.BaseExpression:
        if name in OPT_MANUAL:
            self.flag(
                original,
                TFM412,
                f"tf.train.{name} in eager code: {OPT_MANUAL[name]}; pick the Keras optimizer by hand or keep "
                f"tf.compat.v1.train.{name}",
            )
            return updated
        if name not in OPTIMIZERS:
            return updated
        keras, params, renames, defaults, dropped = OPTIMIZERS[name]
        if any(a.star for a in original.args) or len([a for a in original.args if not a.keyword]) > len(params):
            return updated
        given = given_args(original, updated, params)
        if any(k in given and not is_name(given[k], "False") for k in dropped):
            self.flag(original, TFM412, f"tf.train.{name}: Keras optimizers have no use_locking; drop it by hand")
            return updated
        # A hyperparameter held in a tf.Variable (`lr = tfe.Variable(20.0)`, later `lr.assign(lr / 4)`) was read at
        # every step by tf.train; the new Keras optimizers copy it once, tf.keras.optimizers.legacy reads it.
        variable = [a.value for a in original.args if holds_variable(self, a.value)]
        keras_path = f"keras.optimizers.legacy.{keras}" if variable else f"keras.optimizers.{keras}"
        if not self.fix(
            original,
            TFM412,
            f"tf.train.{name} in eager code is tf.{keras_path} in TF 2 (legacy defaults written where Keras "
            "differs; its slot variables have other checkpoint keys"
            + ("; the legacy Keras class because a hyperparameter is a tf.Variable, which it reads at every step "
               "as tf.train did, where the new class copies it once)" if variable else ")"),
        ):
            return updated
        args = rekey(original, updated, params, renames, 0, drop=dropped)
        args += [kwarg(renames.get(k, k), expression(v)) for k, v in defaults.items() if k not in given]
        return updated.with_changes(func=self._tf(keras_path), args=with_commas(args))
