"""TFM620-TFM624 (rules/libraries.toml): libraries that only ever ran on TensorFlow 1.x (Pretty Tensor,
TFLearn, TensorLayer 1.x, Sonnet 1, Edward, Tensor2Tensor, TensorFlow Fold) reported once, at their
import, with what replaces them. Nothing is rewritten: their APIs have no one-to-one TF 2.15 twin.
"""

from tfmigrate.transforms.libraries.transform import DeadLibraries

__all__ = ["DeadLibraries"]
