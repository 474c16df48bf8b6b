"""The TFM2 family's screen (codemod/screen.py): the words a module must hold before one of TFM201-TFM203
can report (the family never rewrites), built from the tables its analysis reads (``transform.py``).

Every finding is about a ``Saver`` the module builds (a call in ``SAVERS``: ``visit_Module`` stops
without one), so every group holds ``train`` and ``Saver``, and with them:

- TFM201 (a variable made after the Saver in its graph): the name of what makes a variable, each
  ``Graph.add_variable``/``add_unnamed`` of ``_call``: ``VARIABLES``, ``GET_VARIABLES``, ``GLOBAL_STEP``,
  or the ``minimize``/``apply_gradients`` of a slot optimizer;
- TFM202 and TFM203 (a ``Use``: ``saver.save(sess, ...)``/``saver.restore(sess, ...)`` with a session
  the analysis tracks): ``save`` or ``restore``, and the session's class (``SESSIONS``).

The names are matched in their TF 1.x or ``tensorflow.compat.v1`` spelling: the groups hold the parts
after ``tensorflow.`` (and ``compat.v1.``), which every spelling of either writes (codemod/screen.py).
"""

from __future__ import annotations

from tfmigrate.codemod.screen import Screen, of_parts, relative
from tfmigrate.transforms.saver.tables import GET_VARIABLES, GLOBAL_STEP, SAVERS, SESSIONS, SLOT_METHODS, VARIABLES

_SAVER = tuple(part for parts in of_parts(relative(SAVERS)) for part in parts)  # ("train", "Saver")
assert len(relative(SAVERS)) == 1, "one Saver class: a group per saver class otherwise"

SCREEN = (
    Screen([(*_SAVER, *parts) for parts in of_parts(relative(VARIABLES | GET_VARIABLES | GLOBAL_STEP))])  # TFM201
    | Screen([(*_SAVER, method) for method in SLOT_METHODS])  # TFM201: slot variables
    | Screen([(*_SAVER, method, *parts) for method in ("save", "restore") for parts in of_parts(relative(SESSIONS))])  # TFM202, TFM203
)
