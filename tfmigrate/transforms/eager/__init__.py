"""TFM4xx (rules/eager.toml): ``tf.contrib.eager`` (tfe), ``tf.contrib.summary`` and eager-era
``tf.layers`` -> TF 2.

``transform`` composes the parts, which never import it back: they read the transform through the
``context.EagerContext`` protocol. ``calls``, ``keras``, ``summary`` and ``gradients`` rewrite calls and
statements, ``helpers`` and ``rnn`` write the helpers a program needs, ``tables`` and ``syntax`` are
their data and small tree utilities.
"""

from tfmigrate.transforms.eager.transform import EagerTransform

__all__ = ["EagerTransform"]
