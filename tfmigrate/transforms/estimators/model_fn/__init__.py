"""A custom ``model_fn`` of a legacy estimator, converted (TFM114/TFM115): ``planner`` decides, from the
contract (``contract``: what a model_fn returns in TF 1.x and TF 2.15), how the TF Learn (``learn``) or
``tf.estimator``-era (``tfx``) function is rewritten.
"""
