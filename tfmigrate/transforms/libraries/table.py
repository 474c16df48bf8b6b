"""The TF 1.x-only libraries: which import roots they have, and how a file shows the TF 1.x API of a
library whose later major version runs on TF 2 (TensorLayer 2, Sonnet 2).

Facts (PyPI release history; the libraries' own release notes and READMEs):
- prettytensor: last release 0.7.4 (2017), written for TF 0.x-1.x graph mode; it does not import on
  Python 3.11;
- tflearn: 0.3.x targeted TF 1.x; its last release, 0.5.0 (2020), supports TensorFlow up to 2.3 by
  running on ``tf.compat.v1`` graph mode, and none came after;
- tensorlayer: 2.0 (2019) replaced the 1.x layer API (``InputLayer``, ``DenseLayer``... built on a
  session) by eager layers (``Input``, ``Dense``, ``tl.models.Model``);
- sonnet: Sonnet 2 (dm-sonnet 2.x) dropped ``AbstractModule``/``_build`` and the variable-scope helpers;
- edward: last release 1.3.5 (2018), built on ``tf.contrib.distributions``; continued as Edward2 in
  TensorFlow Probability;
- tensor2tensor: last release 1.15.7 (2020), deprecated by its authors in favour of Trax;
- tensorflow_fold: never released for TF > 1.x.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Library:
    root: str  # the top-level package name
    shown: str
    status: str  # why it does not run with TF 2.15, in a few words
    replacement: str
    # names (relative to root) only the TF 1.x major version had: the finding needs one of them read in
    # the file (an empty set: every import is reported)
    legacy_names: frozenset[str] = frozenset()
    legacy_suffix: str = ""  # or a name under one of `legacy_modules` ending so (TensorLayer 1.x's `...Layer`)
    legacy_modules: tuple[str, ...] = ()
    not_legacy: frozenset[str] = frozenset()  # names ending in the suffix that the new major version has too


_SONNET_V1 = frozenset({
    "AbstractModule", "Transposable", "TrainableVariable", "reuse_variables", "get_variables_in_module",
    "get_variables_in_scope", "get_saver", "has_variable_scope", "SONNET_COLLECTION_NAME", "custom_getters",
    "AddBias", "BatchFlatten", "BatchReshape",
})

_TENSORLAYER_V1 = frozenset({"layers.initialize_global_variables", "layers.set_name_reuse", "layers.print_all_variables"})

PRETTYTENSOR = Library("prettytensor", "Pretty Tensor (prettytensor)", "last released in 2017 for TF 1.x; it does not import on Python 3.11",
                       "Keras layers: each chained call is one layer of a tf.keras.Sequential")
TFLEARN = Library("tflearn", "TFLearn (tflearn)", "unmaintained since 0.5.0 (2020), which runs on TF 2 only in tf.compat.v1 graph mode",
                  "tf.keras (its layers, compile and fit)")
TENSORLAYER = Library("tensorlayer", "TensorLayer 1.x (tensorlayer)", "its 1.x layer API was removed in TensorLayer 2, the version for TF 2",
                      "TensorLayer 2 (tl.layers.Input, Dense... in a tl.models.Model) or tf.keras.layers",
                      legacy_names=_TENSORLAYER_V1, legacy_suffix="Layer", legacy_modules=("layers",),
                      not_legacy=frozenset({"layers.Layer", "layers.ModelLayer", "layers.LayerList", "layers.LayerNode"}))
SONNET = Library("sonnet", "Sonnet 1 (sonnet)", "its TF 1.x API was removed in Sonnet 2, the version for TF 2",
                 "Sonnet 2 (snt.Module with __call__ where Sonnet 1 had AbstractModule._build) or tf.keras.layers",
                 legacy_names=_SONNET_V1)
EDWARD = Library("edward", "Edward (edward)", "last released in 2018, built on tf.contrib (TF 1.x only)",
                 "TensorFlow Probability (tfp.distributions; Edward2 for probabilistic programs)")
TENSOR2TENSOR = Library("tensor2tensor", "Tensor2Tensor (tensor2tensor)", "deprecated by its authors; it needs TF 1.x (tf.contrib)",
                        "Trax, its successor, or the model written with tf.keras")
FOLD = Library("tensorflow_fold", "TensorFlow Fold (tensorflow_fold)", "built for TF 1.0-1.1 only, with no successor",
               "tf.RaggedTensor (or padded batches) in tf.keras")

OTHERS = (EDWARD, TENSOR2TENSOR, FOLD)
BY_ROOT = {lib.root: lib for lib in (PRETTYTENSOR, TFLEARN, TENSORLAYER, SONNET, *OTHERS)}


def shows_legacy_api(library: Library, rel: str) -> bool:
    """Does reading ``root.rel`` show the file uses the library's TF 1.x major version?"""
    if rel in library.legacy_names or rel.partition(".")[0] in library.legacy_names:
        return True
    if not library.legacy_suffix:
        return False
    module, _, name = rel.rpartition(".")
    return module in library.legacy_modules and name.endswith(library.legacy_suffix) and rel not in library.not_legacy
