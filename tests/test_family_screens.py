"""The families' screens (codemod/screen.py) are sound: a family the engine skips because the module
lacks its screen's words would have changed and reported nothing there.

- The screened families (the others off), with and without their screens (``engine.SCREENS``), over
  every sample, every catalog example of every family and every Python 3 program of the real-world
  corpus: the same output and the same findings (errors included); a family's unsound screen loses
  that family's findings or fixes, which shows. (Where the run without screens changes and reports
  nothing, the run with them cannot differ: a screen only leaves a family out. Only the other cases
  are run twice.)
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


SCREENED_RULES = frozenset(r.id for f in SCREENED for r in f.rules)


@pytest.mark.parametrize("kind", ["sample", "TFM", "corpus"])
def test_screened_families_same_with_and_without_their_screens(kind: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """The screened families together (the others off: each reacts to the module as written), over
    the samples, the catalog examples ("TFM...") or the corpus: one run a case where nothing is found."""
    check_every((name, _same_both_ways(data, SCREENED_RULES, monkeypatch)) for name, data in SOURCES if name.startswith(kind))


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


def _index(code: str) -> TreeIndex:
    return TreeIndex.of(cst.parse_module(code))


def _words(code: str) -> frozenset[str]:
    return _index(code).words


def _passes(screen: Screen, group: frozenset[str], code: str) -> Callable[[], None]:
    def check() -> None:
        words = _words(code)
        assert group <= words, f"the index lost words of {sorted(group)}: {sorted(group - words)} in\n{code}"
        assert screen.passes(words), f"skipped:\n{code}"

    return check


WORD_SCREENED = [f for f in SCREENED if f.load_transform().SCREEN.groups]


@pytest.mark.parametrize("family", WORD_SCREENED, ids=[f.source.removesuffix(".toml") for f in WORD_SCREENED])
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
    assert not screen.admits(_index("import tensorflow as tf\nx = tf.constant(1.0)\nprint(x)\n"))
    for group in screen.groups:  # each group needs all its words: one missing, that group fails
        for word in group:
            assert not group <= (group - {word})


def test_words_of_strings_comments_and_names() -> None:
    words = _words('import tensorflow as tf  # round\nx = tf.f(a="float64", b=b"double", c="\\x72nd", d="")\n'
                   'y = f"{x} bilinear"\n')
    assert {"tensorflow", "tf", "f", "a", "b", "c", "d", "x", "y", "float64", "double", "rnd", "bilinear", EMPTY_STRING} <= words
    assert "round" not in words  # a comment is not code


# the aliases family: no word tells it, the index's imports and module aliases do
ALIASES_ADMITTED = {
    "module_alias": "import tensorflow as tf\nlearn = tf.contrib.learn\nm = learn.DNNClassifier()\n",
    "alias_of_alias": "import tensorflow as tf\nc = tf.contrib\nlearn = c.learn\n",
    "alias_from_import": "from tensorflow import contrib\nlayers = contrib.layers\n",
    "from_import": "from tensorflow.contrib import learn\n",
    "from_import_as": "from tensorflow.examples.tutorials.mnist import input_data as mnist\n",
    "import_as": "import tensorflow.contrib.learn as learn\n",
    "nested_import": "def f():\n    from tensorflow.contrib import slim\n",
    "skflow": "import skflow\n",
    "skflow_as": "import skflow as sk\n",
    "from_skflow": "from skflow import TensorFlowDNNClassifier\n",
}


@pytest.mark.parametrize("form", sorted(ALIASES_ADMITTED))
def test_aliases_screen_admits_every_legacy_import_and_alias(form: str) -> None:
    from tfmigrate.transforms.aliases import LegacyAliases

    assert LegacyAliases.SCREEN.admits(_index(ALIASES_ADMITTED[form]))


def test_aliases_screen_skips_tensorflow_alone() -> None:
    from tfmigrate.transforms.aliases import LegacyAliases

    for code in ("import tensorflow as tf\nx = tf.contrib.learn.DNNClassifier()\n",
                 "import tensorflow.contrib.learn\nprint(tensorflow.contrib.learn.DNNClassifier)\n",  # binds tensorflow
                 "import numpy as np\nfrom . import models\n"):
        assert not LegacyAliases.SCREEN.admits(_index(code)), code
