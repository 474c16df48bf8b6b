"""TFM71x (rules/keras_graph.toml, ``--target keras`` only): graph-mode TF1 code that TensorFlow 2.21 keeps
(``tf.compat.v1``) but whose Keras 2 pieces it lacks, made to run there with the same variables.
"""

from tfmigrate.transforms.keras_graph.transform import KerasGraphTransform

__all__ = ["KerasGraphTransform"]
