"""The legacy_utils family's screen (codemod/screen.py): the words a module must hold before TFM180-TFM182
can change or report anything: every part of the legacy names ``legacy_utility`` and ``is_crossed_column``
accept (the processors under a ``preprocessing`` module of contrib.learn or skflow, HParams under
contrib.training, crossed_column under contrib.layers)."""

from __future__ import annotations

from tfmigrate.codemod.screen import Screen

PREPROCESSING = frozenset({"VocabularyProcessor", "CategoricalVocabulary", "ByteProcessor", "CategoricalProcessor",
                           "tokenizer", "TOKENIZER_RE"})
HPARAM = frozenset({"HParams", "parse_values"})

SCREEN = (
    Screen.any_of(sorted(PREPROCESSING), "preprocessing", "contrib")  # TFM180: tensorflow.contrib.{learn,skflow}...
    | Screen.any_of(sorted(PREPROCESSING), "preprocessing", "skflow")  # TFM180: skflow.preprocessing...
    | Screen.any_of(sorted(HPARAM), "contrib", "training")  # TFM181
    | Screen([("crossed_column", "contrib", "layers")])  # TFM182
)
