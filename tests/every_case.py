"""Many small cases as one test item: ``check_every(cases, check)`` runs ``check`` on every case and,
where any fails, fails naming every case that failed (not only the first), each with the line of its
failed check and its message.

Thousands of parametrised cases of about 1-50 ms of work each cost pytest more than their work (about
3 ms a test with ``-n 2``: the controller's and the worker's reports, plus collection), so the tests
of the big variant tables run one item per group of cases (a rule family, an import form x input)."""

from __future__ import annotations

import traceback
from collections.abc import Callable, Iterable

import pytest

MESSAGE_CHARS = 1_500  # of each failed case's message


def check_every(cases: Iterable[tuple[str, Callable[[], object]]]) -> None:
    """``cases``: (name, a call that checks it). Every case runs, whatever failed before it."""
    failed, count = [], 0
    for name, check in cases:
        count += 1
        try:
            check()
        except Exception as exc:  # an assertion or an error: every one is reported
            frame = traceback.extract_tb(exc.__traceback__)[-1]
            message = str(exc).strip() or repr(exc)
            failed.append(f"{name} (line {frame.lineno} in {frame.name}): {type(exc).__name__}: {message[:MESSAGE_CHARS]}")
    assert count, "no case to check"
    if failed:
        pytest.fail(f"{len(failed)} of {count} cases failed:\n" + "\n".join(failed), pytrace=False)
