"""The checkpoint-compatibility analyser (``tfmigrate ckpt inspect | diff | convert [--to keras]``).

index      pure-Python reader of checkpoint indexes (V2 bundles, V1 tables, snappy, crc32c); no TF
classify   tensor kinds (model / optimizer / bookkeeping) and the writer of a checkpoint
names      dense-layer structures under each era's names; name maps by layer order and shape
compare    pairs checkpoint tensors with a model's variables; TF 2.15 verdicts and remedies
targets    TARGET forms (file.py:function, migrated source, checkpoint); shared with ``validate``
api        inspect / diff / convert as dictionaries (the JSON the CLI prints)
(the click group ``ckpt`` is tfmigrate/cli/ckpt.py)
_tfchild   the TensorFlow side, run only as a child process
values     tensor values without TensorFlow (V2 bundles, partitioned slices, V1 tables), as numpy arrays
keras      ``convert --to keras``: a canned estimator's checkpoint as the Keras model's .weights.h5 (--target keras)
_keraschild  its TensorFlow 2.21 side, run only as a child process of the Keras interpreter

Nothing here imports TensorFlow at import time.
"""
