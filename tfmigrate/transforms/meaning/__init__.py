"""TFM56x (rules/meaning.toml): legacy code that still runs on TensorFlow 2.15 but means something else.

TensorFlow's release notes (0.6 to 1.15, "Breaking changes" and "Behavioral changes") list changes
that keep old code running while changing what it computes: the LSTM state's default layout
(``state_is_tuple``, TF 0.11), the weights of a cell used twice (``MultiRNNCell([cell] * n)``, TF 1.2),
the ``tf.nn`` functions whose 2.x twin differs, Keras defaults of TF 1.13/1.14. This family keeps the
legacy meaning where the file shows it, and reports on its line what it cannot decide.
``benchmarks/breaking_changes.py`` lists every change of those sections with its decision.
"""

from tfmigrate.transforms.meaning.calls import keras_name, legacy_module
from tfmigrate.transforms.meaning.screen import TF0_WORDS
from tfmigrate.transforms.meaning.transform import LegacyMeaning

__all__ = ["LegacyMeaning", "TF0_WORDS", "keras_name", "legacy_module"]
