"""TFM72x (rules/keras_loops.toml, ``--target keras`` only): ``train_and_evaluate``, its specs and the
evaluation and early-stopping hooks as the Keras helpers of the same names (``fit`` with callbacks)."""

from tfmigrate.transforms.keras_loops.transform import KerasLoopsTransform

__all__ = ["KerasLoopsTransform"]
