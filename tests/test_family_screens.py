"""The families' screens (codemod/screen.py) are sound: a family the engine skips because the module
lacks its screen's words would have changed and reported nothing there.

- Each screened family alone, with and without its screen (``engine.SCREENS``), over every sample,
  every catalog example of every family and every Python 3 program of the real-world corpus: the
  same output and the same findings (errors included). One test item per family. (Where the run
  without screens changes and reports nothing, the run with them cannot differ: a screen only
  leaves a family out. Only the other cases are run twice.)
- The whole catalog both ways over the samples and the catalog examples of the screened families
  (what the families do to one another's trees, and the later passes, included).
- Every group of every screen passes a module that spells its words through each import form
  (a chain from ``tf``, a module alias, ``from ... import ... as``, ``getattr`` with strings, an
  escaped string, keywords), and the screens do skip a module without them.
"""

from __future__ import annotations

import ast
import os
import warnings
from collections.abc import Callable
from pathlib import Path

import libcst as cst
import pytest

from every_case import check_every
from tfmigrate.codemod import engine
from tfmigrate.codemod.engine import SourceError, rewrite_source
from tfmigrate.codemod.rule import Family, load_catalog
from tfmigrate.codemod.screen import EMPTY_STRING, Screen
from tfmigrate.codemod.tree import TreeIndex

ROOT = Path(__file__).resolve().parent.parent
CATALOG = load_catalog()
ALL_RULES = CATALOG.selected(None)
SCREENED = [f for f in CATALOG.families if f.load_transform().SCREEN is not None]
SAMPLES = sorted(ROOT.glob("samples/*/*.py"))
CORPUS = Path(os.environ.get("TFM_REALWORLD", ROOT.parent / "shared" / "realworld")) / "orig"


def _parses(data: bytes) -> bool:
    try:
        with warnings.catch_warnings():  # real 2016 code: invalid escapes in strings
            warnings.simplefilter("ignore")
            ast.parse(data)
    except (SyntaxError, ValueError):
        return False
    return True


def _sources() -> list[tuple[str, bytes]]:
    out = [(f"sample {p.parent.name}/{p.name}", p.read_bytes()) for p in SAMPLES]
    for rule in CATALOG.rules.values():
        for i, example in enumerate(rule.examples, start=1):
            out.append((f"{rule.id} example {i}", example.before.encode()))
    if CORPUS.is_dir():
        out += [(f"corpus {p.name}", p.read_bytes()) for p in sorted(CORPUS.rglob("*.py"))]
    return [(name, data) for name, data in out if _parses(data)]


SOURCES = _sources()


def _run(data: bytes, enabled: frozenset[str], screens: bool, monkeypatch: pytest.MonkeyPatch) -> object:
    monkeypatch.setattr(engine, "SCREENS", screens)
    try:
        result = rewrite_source(data, enabled, catalog=CATALOG)
    except SourceError as exc:
        return ("error", str(exc))
    return result.new, [(f.rule, f.line, f.col, f.message) for f in result.findings]


def _same_both_ways(data: bytes, enabled: frozenset[str], monkeypatch: pytest.MonkeyPatch) -> Callable[[], None]:
    def check() -> None:
        unscreened = _run(data, enabled, False, monkeypatch)
        if unscreened == (data, []):
            return  # nothing changed nor reported: a screen only leaves families out, so nothing with it either
        screened = _run(data, enabled, True, monkeypatch)
        assert screened == unscreened, f"the screen changed the result:\n{screened!r}\n!=\n{unscreened!r}"

    return check


@pytest.mark.parametrize("family", SCREENED, ids=[f.source.removesuffix(".toml") for f in SCREENED])
def test_family_alone_same_with_and_without_its_screen(family: Family, monkeypatch: pytest.MonkeyPatch) -> None:
    rules = frozenset(r.id for r in family.rules)
    check_every((name, _same_both_ways(data, rules, monkeypatch)) for name, data in SOURCES)


def test_whole_catalog_same_with_and_without_the_screens(monkeypatch: pytest.MonkeyPatch) -> None:
    prefixes = tuple(f.prefix for f in SCREENED)
    chosen = [(n, d) for n, d in SOURCES if n.startswith("sample") or n.startswith(prefixes)]
    check_every((name, _same_both_ways(data, ALL_RULES, monkeypatch)) for name, data in chosen)


# --- every trigger word, through every spelling -------------------------------------------------------
def _spellings(group: frozenset[str]) -> dict[str, str]:
    """Modules that hold the group's words, each spelt another way (the words in sorted order)."""
    words = sorted(w for w in group if w != EMPTY_STRING)
    empty = ', ""' if EMPTY_STRING in group else ""
    chain = ".".join(words)
    out = {
        "chain": f"import tensorflow as tf\ny = tf.{chain}(x{empty})\n",
        "from_import_as": (f"from tensorflow.{'.'.join(words[:-1]) or 'compat'} import {words[-1]} as z\n"
                           f"y = z(x{empty})\n"),
        "getattr_strings": "import tensorflow as tf\ny = tf\n" + "".join(f'y = getattr(y, "{w}")\n' for w in words)
                           + f"y(x{empty})\n",
        "escaped_strings": "import tensorflow as tf\ny = tf\n" + "".join(f'y = getattr(y, "\\x{ord(w[0]):02x}{w[1:]}")\n'
                                                                          for w in words) + f"y(x{empty})\n",
        "keywords": "import tensorflow as tf\ny = tf.f(" + ", ".join(f"{w}=1" for w in words) + (', e=""' if empty else "") + ")\n",
    }
    if len(words) > 1:
        out["module_alias"] = f"import tensorflow as tf\nL = tf.{words[0]}\ny = L.{'.'.join(words[1:])}(x{empty})\n"
        out["import_module_as"] = f"import tensorflow.{'.'.join(words[:-1])} as m\ny = m.{words[-1]}(x{empty})\n"
    return out


def _words(code: str) -> frozenset[str]:
    return TreeIndex.of(cst.parse_module(code)).words


def _passes(screen: Screen, group: frozenset[str], code: str) -> Callable[[], None]:
    def check() -> None:
        words = _words(code)
        assert group <= words, f"the index lost words of {sorted(group)}: {sorted(group - words)} in\n{code}"
        assert screen.passes(words), f"skipped:\n{code}"

    return check


@pytest.mark.parametrize("family", SCREENED, ids=[f.source.removesuffix(".toml") for f in SCREENED])
def test_screen_passes_each_trigger_in_every_spelling(family: Family) -> None:
    screen = family.load_transform().SCREEN
    check_every(
        (f"{sorted(group)} {form}", _passes(screen, group, code))
        for group in screen.groups
        for form, code in _spellings(group).items()
    )


@pytest.mark.parametrize("family", SCREENED, ids=[f.source.removesuffix(".toml") for f in SCREENED])
def test_screen_skips_a_module_without_its_words(family: Family) -> None:
    screen = family.load_transform().SCREEN
    assert not screen.passes(_words("import tensorflow as tf\nx = tf.constant(1.0)\nprint(x)\n"))
    for group in screen.groups:  # each group needs all its words: one missing, that group fails
        for word in group:
            assert not group <= (group - {word})


def test_words_of_strings_comments_and_names() -> None:
    words = _words('import tensorflow as tf  # round\nx = tf.f(a="float64", b=b"double", c="\\x72nd", d="")\n'
                   'y = f"{x} bilinear"\n')
    assert {"tensorflow", "tf", "f", "a", "b", "c", "d", "x", "y", "float64", "double", "rnd", "bilinear", EMPTY_STRING} <= words
    assert "round" not in words  # a comment is not code
