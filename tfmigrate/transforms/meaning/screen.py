"""The meaning family's screen (codemod/screen.py): the words a module must hold before any rule of
the family can react, one group per way the family reports, built from the tables the rules read
(``names.py``, ``calls.py``), so a name added to a table is screened for too."""

from __future__ import annotations

from tfmigrate.codemod.screen import EMPTY_STRING, Screen, of_parts
from tfmigrate.transforms.meaning.calls import KERAS_INITS, KERAS_RATES, KERAS_RNN, LIST_FILES, NN_V1, TF0_NAMES
from tfmigrate.transforms.meaning.names import CELL_CLASSES, RNN_CALLS

# legacy_module(...)[1], "TF 0.x code": a name of TF0_NAMES, or one under nn.seq2seq / models
TF0_WORDS = frozenset(name.rsplit(".", 1)[-1] for name in TF0_NAMES) | {"seq2seq", "models"}


def _in_tf0_code(*words: str) -> Screen:
    return Screen([(*words, tf0) for tf0 in sorted(TF0_WORDS)])


SCREEN = (
    Screen.any_of(sorted(CELL_CLASSES))  # TFM560-562: a cell class (cell_class), TFM567: DropoutWrapper
    | Screen.any_of(sorted(RNN_CALLS))  # TFM560, TFM562: an RNN function (rnn_function)
    | Screen(of_parts(NN_V1))  # TFM563
    | Screen.any_of(sorted(KERAS_RNN), "keras", "layers")  # TFM564
    | Screen.any_of(sorted(KERAS_RATES), "keras", "optimizers")  # TFM565
    | Screen.any_of(sorted(KERAS_INITS), "keras", "initializers")  # TFM565
    | Screen(of_parts(LIST_FILES))  # TFM565
    | Screen([("image", "adjust_brightness"), ("image", "random_brightness")])  # TFM566
    | Screen([("variable_scope", EMPTY_STRING)])  # TFM568: variable_scope("")
    | _in_tf0_code("image", "decode_jpeg")  # TFM569
    | _in_tf0_code("div")  # TFM569
    | _in_tf0_code("mod")  # TFM569
)
