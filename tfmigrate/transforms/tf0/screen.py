"""The TF 0.x family's screen (codemod/screen.py): the words a module must hold before one of
TFM540-TFM547 can change or report anything, built from the tables the rules read (``tables.py``):
every part of the legacy names (and the keywords) each rule looks for."""

from __future__ import annotations

from tfmigrate.codemod.screen import Screen, of_parts
from tfmigrate.transforms.tf0.tables import KEYWORDS, ORDER, RENAMED, RESIZE, SHAPE_ATTRS, SUMMARY_KEYWORDS, UNCALLED_INITIALIZERS

SCREEN = (
    Screen(of_parts(RENAMED))  # TFM540: a renamed symbol (its rel, compat.v1. aside, is a key of RENAMED)
    | Screen(of_parts(SUMMARY_KEYWORDS))  # TFM540: the summary calls' arguments
    | Screen([(*rel.split("."), keyword) for rel, table in KEYWORDS.items() for keyword in table])  # TFM543
    | Screen(of_parts(ORDER))  # TFM541, TFM542: the legacy positional order
    | Screen(of_parts([RESIZE]))  # TFM541: resize_images(images, new_height, new_width)
    | Screen([("reverse",)])  # TFM544
    | Screen.any_of(sorted(UNCALLED_INITIALIZERS))  # TFM545
    | Screen([("value", "get_shape")] + [("value", attr) for attr in sorted(SHAPE_ATTRS)])  # TFM546: Dimension.value
    | Screen([("python", "keras")])  # TFM547: a private tensorflow.python.keras import
)
