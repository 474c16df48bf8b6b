"""The TFM3 family's screen (codemod/screen.py): the words a module must hold before one of TFM301-TFM307
can change or report anything, one group per way the family reacts (see transform.py's ``leave_Call``,
``leave_Attribute``, ``leave_Name``), built from the tables the rules read (``names.py``,
``device_functions.py``), so a name added to a table is screened for too.

- TFM301/TFM302 (and TFM304's ``master=``/``is_chief=``): every plan and every session finding starts
  from a call whose qualified name is in ``MTS``: its words (``train``, ``MonitoredTrainingSession``);
- TFM303: a qualified name of ``HOOK_NAMES`` (``train`` and the hook's name);
- TFM304: a call of ``DISTRIBUTED`` (``train.ClusterSpec``, ``train.Server``, ``train.replica_device_setter``);
- TFM305: the attribute ``make_one_shot_iterator``/``make_initializable_iterator`` or
  ``output_shapes``/``output_types``/``output_classes`` (matched by its own name, resolved or not);
- TFM306: a call of ``tensorflow.summary.<op>`` for an op of ``V1_SUMMARY_OPS``;
- TFM307: a call of ``DEVICE`` (``tensorflow.device``).

A qualified name is matched in its TF 1.x or its ``tensorflow.compat.v1`` spelling: the groups hold the
parts after ``tensorflow.`` (and ``compat.v1.``), which every spelling of either writes (codemod/screen.py).
"""

from __future__ import annotations

from tfmigrate.codemod.screen import Screen, of_parts, relative
from tfmigrate.transforms.monitored.device_functions import DEVICE
from tfmigrate.transforms.monitored.names import DATASET_ATTRS, DISTRIBUTED, HOOK_NAMES, ITERATOR_METHODS, MTS, V1_SUMMARY_OPS


SCREEN = (
    Screen(of_parts(relative(MTS)))  # TFM301, TFM302, TFM304 (master=, is_chief=)
    | Screen(of_parts(relative(HOOK_NAMES)))  # TFM303
    | Screen(of_parts(relative(DISTRIBUTED)))  # TFM304
    | Screen.any_of([*ITERATOR_METHODS, *sorted(DATASET_ATTRS)])  # TFM305
    | Screen([("summary", op) for op in V1_SUMMARY_OPS])  # TFM306
    | Screen(of_parts(relative(DEVICE)))  # TFM307
)
