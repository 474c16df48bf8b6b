"""What every family may use: ``builders`` (building and reading calls and arguments),
``tf_names`` (TensorFlow 2.15's public names and the legacy ones, from tfmigrate/data) and
``learn_names`` (the ``tf.contrib.learn`` names and legacy signatures two families match).

Nothing here imports a family.
"""
