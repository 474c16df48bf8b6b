"""A family's screen: the words a module must hold before the family's transform is worth building.

The catalog's needles (``Family.wanted_by``) are bytes nearly every TensorFlow module holds
(``"tensorflow"``, ``"contrib"``). A screen is sharper and still cheap: it is answered from the
module's *words* (:attr:`TreeIndex.words <tfmigrate.codemod.tree.TreeIndex.words>`: every
identifier the tree names, plus the identifiers written inside its string literals), which the
index gathers once per tree from the Name and string nodes it already lists — no walk per family.

A screen is a list of groups of words; the family can react only to a module that holds every word
of at least one group. It is declared next to the family's tables (``SCREEN`` on its transform
class, built from those tables), so a name added to a table is in the screen too.

Why words are enough (the soundness argument every screen relies on): a family reacts to a node
through its qualified name (``tensorflow.contrib.data.Dataset.shuffle``), an attribute or keyword
name (``.compile``, ``state_keep_prob=``) or a string it reads. Every part of a qualified name is
a word of the module whatever the spelling: the parts after the alias are the node's own chain, the
parts before it are written in the import (``from tensorflow.contrib import data as d``) or in the
module alias's value (``L = tf.contrib``); ``getattr(tf, "round")`` holds ``round`` in a string.
So a group lists, for one way the family can report, every part of the names it needs: missing
one, no spelling of that name is in the module.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from typing import Any, Protocol

# the word a module holds when it writes an empty string literal ("" or ''): no identifier is empty
EMPTY_STRING = "''"
IDENTIFIER = re.compile(r"[^\W\d]\w*")


class Indexed(Protocol):
    """What a screen reads of a module: its index (``TreeIndex``; the index imports this module)."""

    @property
    def words(self) -> frozenset[str]: ...


class Screen:
    """Groups of words; :meth:`passes` when the module holds every word of one group."""

    def __init__(self, groups: Iterable[Iterable[str]], also: Callable[[Any], bool] | None = None) -> None:
        self.groups: tuple[frozenset[str], ...] = tuple(frozenset(g) for g in groups)
        assert all(self.groups), "an empty group would pass every module: leave the family unscreened instead"
        assert self.groups or also is not None, "a screen with nothing to pass would skip every module"
        self.words: frozenset[str] = frozenset().union(*self.groups)
        # where words cannot tell (the aliases family: an import of a module under tensorflow), a question
        # the index answers from its tables, without a walk
        self.also = also

    @classmethod
    def any_of(cls, words: Iterable[str], *also: str) -> Screen:
        """One group per word, each with the words ``also`` (``any_of(["LSTM", "GRU"], "keras")``)."""
        return cls([(word, *also) for word in words])

    def __or__(self, other: Screen) -> Screen:
        assert self.also is None and other.also is None, "one question a screen"
        return Screen(self.groups + other.groups)

    def passes(self, words: frozenset[str] | set[str]) -> bool:
        """May the family react to a module holding ``words``? False only when no group is all there."""
        return any(group <= words for group in self.groups)

    def admits(self, index: Indexed) -> bool:
        """May the family react to the module of ``index`` (its words, or the screen's question)?"""
        return self.passes(index.words) or (self.also is not None and self.also(index))

    def __repr__(self) -> str:
        return f"Screen({sorted(sorted(g) for g in self.groups)})"


def string_words(raw: str, evaluated: object) -> Iterable[str]:
    """The identifiers inside a string literal (``raw``: its source text; ``evaluated``: its value,
    read only where the text has escapes that could spell a word otherwise)."""
    if "\\" in raw and isinstance(evaluated, (str, bytes)):
        text = evaluated.decode("latin-1") if isinstance(evaluated, bytes) else evaluated
        return IDENTIFIER.findall(raw) + IDENTIFIER.findall(text)
    return IDENTIFIER.findall(raw)


def of_parts(names: Iterable[str]) -> list[tuple[str, ...]]:
    """One group per dotted name, of its parts (``"nn.embedding_lookup"`` -> ``("nn", "embedding_lookup")``)."""
    return [tuple(name.split(".")) for name in names]


def relative(names: Iterable[str]) -> list[str]:
    """Qualified names without their ``tensorflow.`` or ``tensorflow.compat.v1.`` head, each once, for
    :func:`of_parts`: what follows the head is written in every spelling of the name, what a
    ``compat.v1`` spelling adds is not needed (``tensorflow.compat.v1.train.Saver`` -> ``train.Saver``)."""
    out = set()
    for name in names:
        assert name.startswith("tensorflow."), name
        out.add(name.removeprefix("tensorflow.").removeprefix("compat.v1."))
    return sorted(out)
