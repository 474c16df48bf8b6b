"""TFM563-TFM569: calls whose TF 2.15 reading differs from the legacy one, from a table."""

from __future__ import annotations

from collections.abc import Callable

import libcst as cst

from tfmigrate.transforms.meaning.context import MeaningContext


def plan(t: MeaningContext, calls: list[cst.Call], edits: dict[int, Callable[[cst.CSTNode], cst.CSTNode] | cst.CSTNode]) -> None:
    return None
