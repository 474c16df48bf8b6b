"""TFM14x (rules/guards.toml): version guards decided against TensorFlow 2.15 (issue 27, item 11).

``if "concat_v2" in dir(tf):``, ``hasattr(tf, ...)``, ``getattr(tf, "x", None)``, ``tf.__version__`` comparisons
and ``try: X = tf.legacy_name / from tensorflow.contrib import X`` with an ``except AttributeError /
ImportError`` fallback are read in a closed grammar (``evaluate``, from the ``ast``: nothing is run) and
decided from TF 2.15's name tables (``branches``). The transform (``transform``, TFM140) replaces each
decided guard by the branch TF 2.15 runs; a dead block it leaves (``except ... as e``, a fallback that can
only fail) is kept away from every rule by ``quiet_lines``, which the engine reads for this family. TFM141
writes the TF 0.x names with an exact twin (``tf.concat_v2`` -> ``tf.concat``, ``tf.nn.deconv2d`` ->
``tf.nn.conv2d_transpose``).
"""

from tfmigrate.transforms.guards.branches import quiet_lines
from tfmigrate.transforms.guards.transform import GuardTransform

__all__ = ["GuardTransform", "quiet_lines"]
