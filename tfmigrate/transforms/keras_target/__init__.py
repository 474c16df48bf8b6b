"""TFM70x (rules/keras_target.toml, ``--target keras`` only): canned ``tf.estimator`` code lowered to
Keras 3 models.

``lowers_to_keras`` is the family's one public question, asked by the renames family (TFM502).
"""

from tfmigrate.transforms.keras_target.transform import KerasTargetTransform, lowers_to_keras

__all__ = ["KerasTargetTransform", "lowers_to_keras"]
