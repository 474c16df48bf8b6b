"""TFM70x (rules/keras_target.toml, ``--target keras`` only): canned ``tf.estimator`` code lowered to
Keras 3 models.

``lowers_to_keras`` is the family's one public question, asked by the renames family (TFM502);
``estimator_class``, ``import_helpers`` and ``HOOK_NAMES`` serve the training loops (keras_loops, TFM72x);
``model_fn_plan`` and ``estimator_calls`` the checkpoint converter (``ckpt convert --to keras`` of a lowered model_fn).
"""

from tfmigrate.transforms.keras_target.transform import (
    HOOK_NAMES, KerasTargetTransform, estimator_class, import_helpers, lowers_to_keras,
)

from tfmigrate.transforms.keras_target.model_fn_map import ModelFnLayers, estimator_calls, model_fn_plan

__all__ = ["HOOK_NAMES", "KerasTargetTransform", "ModelFnLayers", "estimator_class", "estimator_calls", "import_helpers",
           "lowers_to_keras", "model_fn_plan"]
