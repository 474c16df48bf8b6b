"""TFM75x (rules/keras_compat.toml, ``--target keras`` only): what a migrated program uses that
TensorFlow 2.21 (Keras 3) lacks.
"""

from tfmigrate.transforms.keras_compat.transform import GRAPH_MODE, KERAS2_MODULES, KerasCompatTransform

__all__ = ["GRAPH_MODE", "KERAS2_MODULES", "KerasCompatTransform"]
