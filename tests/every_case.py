"""Many small cases as one test item: ``check_every(cases, check)`` runs ``check`` on every case and,
where any fails, fails naming every case that failed (not only the first), each with the line of its
failed check and its message.

Thousands of parametrised cases of about 1-50 ms of work each cost pytest more than their work (about
3 ms a test with ``-n 2``: the controller's and the worker's reports, plus collection), so the tests
of the big variant tables run one item per group of cases (a rule family, an import form x input)."""

from __future__ import annotations

import functools
import traceback
from collections.abc import Callable, Iterable

import pytest

MESSAGE_CHARS = 1_500  # of each failed case's message


def check_every(cases: Iterable[tuple[str, Callable[[], object]]]) -> None:
    """``cases``: (name, a call that checks it). Every case runs, whatever failed before it."""
    failed, skipped, count = [], [], 0
    for name, check in cases:
        count += 1
        try:
            check()
        except pytest.skip.Exception as exc:  # a case that skips itself: the others still run
            skipped.append(f"{name}: {exc}")
        except Exception as exc:  # an assertion or an error: every one is reported
            frame = traceback.extract_tb(exc.__traceback__)[-1]
            message = str(exc).strip() or repr(exc)
            failed.append(f"{name} (line {frame.lineno} in {frame.name}): {type(exc).__name__}: {message[:MESSAGE_CHARS]}")
    assert count, "no case to check"
    if failed:
        pytest.fail(f"{len(failed)} of {count} cases failed:\n" + "\n".join(failed + skipped), pytrace=False)
    if skipped and len(skipped) == count:
        pytest.skip(f"every case skipped: {skipped[0]}")


def grouped(argnames: tuple[str, ...], variants: list, ids: list[str] | None = None, by: Callable[[str], str] = lambda i: i.split("-")[0]):
    """A variant test (``def test_x(*argnames)``) as one test per group of its variants: the group of
    a variant is ``by(its id)`` (by default the id's first part, the import form: ``-k from_contrib``
    selects it). Each group's test runs the function on every variant of the group and fails naming
    every variant that failed, by its id. Used in place of
    ``@pytest.mark.parametrize(argnames, variants, ids=ids)`` (``ids`` left out: the ids of the
    ``pytest.param`` variants)."""
    params = [v for v in variants if hasattr(v, "marks") and hasattr(v, "values")]  # pytest.param(...)
    assert not any(p.marks for p in params), "a variant's own marks would be lost"
    ids = ids if ids is not None else [v.id for v in variants]
    assert len(ids) == len(variants) == len(set(ids)), "every variant needs its own id"
    groups: dict[str, list[tuple[str, tuple]]] = {}
    for variant, name in zip(variants, ids):
        values = variant.values if hasattr(variant, "marks") and hasattr(variant, "values") else variant
        assert len(values) == len(argnames), (name, argnames)
        groups.setdefault(by(name), []).append((name, tuple(values)))

    def decorate(function: Callable[..., object]) -> Callable[[str], None]:
        def test(group: str) -> None:
            check_every((name, functools.partial(function, *values)) for name, values in groups[group])

        test.__name__, test.__qualname__, test.__doc__ = function.__name__, function.__qualname__, function.__doc__
        test.__module__ = function.__module__
        test.variants = groups  # type: ignore[attr-defined]
        return pytest.mark.parametrize("group", sorted(groups))(test)

    return decorate
