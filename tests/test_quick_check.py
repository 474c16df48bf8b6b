"""engine.python_accepts, the quick check before Python's own parse (check_python3 on the input,
the verify parse of the output): its True must imply that ``compile(..., PyCF_ONLY_AST)`` /
``ast.parse`` accept the source, and every decision and message must be the full parse's."""

from __future__ import annotations

import ast
import sys
import warnings
from pathlib import Path

import pytest

from tfmigrate.codemod import engine
from tfmigrate.codemod.files import SourceError

ROOT = Path(__file__).resolve().parent.parent


def _ast_accepts(source: str | bytes) -> bool:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            compile(source, "<x>", "exec", ast.PyCF_ONLY_AST, dont_inherit=True)
    except (SyntaxError, RecursionError, MemoryError, ValueError):
        return False
    return True


def _outcome(data: bytes, quick: bool, monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.setattr(engine, "QUICK_CHECK", quick)
    try:
        engine.check_python3(data, "m.py")
    except SourceError as exc:
        return f"error: {exc}"
    return "ok"


# A chain CPython nests one level deeper per term, put inside brackets or blocks whose nodes the AST
# counts and the symbol-table walk may not (the tokenizer allows 200 levels of brackets, 100 of indent).
_INNER = {
    "plus": lambda n: "+".join(["a"] * n),
    "methods": lambda n: "a" + "".join(f".m{i}()" for i in range(n)),
    "conditional": lambda n: " if c else ".join(["a"] * n),
}
_AROUND = {
    "bare": lambda inner: f"x = {inner}\n",
    "keywords": lambda inner: "x = " + "f(k=" * 190 + inner + ")" * 190 + "\n",
    "lambda defaults": lambda inner: "x = " + "(lambda a=" * 95 + inner + ": 0)" * 95 + "\n",
    "comprehensions": lambda inner: "x = " + "[y for y in " * 190 + inner + "]" * 190 + "\n",
    "double star": lambda inner: "x = " + "f(**" * 190 + inner + ")" * 190 + "\n",
    "with blocks": lambda inner: "".join(" " * i + f"with a as b{i}:\n" for i in range(95)) + " " * 95 + f"x = {inner}\n",
    "handlers": lambda inner: "".join(
        " " * (2 * i) + "try:\n" + " " * (2 * i + 1) + "pass\n" + " " * (2 * i) + "except E as e:\n" for i in range(45)
    ) + " " * 90 + f"x = {inner}\n",
    "match cases": lambda inner: "".join(
        " " * (2 * i) + "match x:\n" + " " * (2 * i + 1) + "case [1, (2 | 3)]:\n" for i in range(45)
    ) + " " * 90 + f"x = {inner}\n",
}


@pytest.mark.parametrize("around", sorted(_AROUND))
def test_quick_check_never_accepts_what_the_ast_refuses_at_the_nesting_limit(around: str) -> None:
    """At the length where building the AST first fails (RecursionError), and around it, the quick
    check is False wherever the AST fails; it also gives up below that length (the margin)."""
    assert engine.QUICK_CHECK
    for name, inner in _INNER.items():
        make = lambda n: _AROUND[around](inner(n))  # noqa: E731
        low, high = 1, 6000
        assert not _ast_accepts(make(high)), (around, name)
        while low < high:  # the shortest chain the AST refuses
            middle = (low + high) // 2
            if _ast_accepts(make(middle)):
                low = middle + 1
            else:
                high = middle
        for n in range(max(1, low - 2), low + 3):
            if not _ast_accepts(make(n)):
                assert not engine.python_accepts(make(n), "m.py"), (around, name, n)
        if low > 1000:  # a limit of nesting depth, not of the parser: within the margin the full parse decides
            assert _ast_accepts(make(low - 1)) and not engine.python_accepts(make(low - 1), "m.py"), (around, name)


def test_quick_check_accepts_ordinary_code_and_a_deeper_stack() -> None:
    """The check pays on real code (True there), also a few hundred frames down, and puts the recursion limit back."""
    limit = sys.getrecursionlimit()
    source = (ROOT / "tfmigrate" / "codemod" / "engine.py").read_bytes()
    assert engine.python_accepts(source, "engine.py")

    def down(n: int) -> bool:
        return engine.python_accepts(source, "engine.py") if n == 0 else down(n - 1)

    assert down(200)
    assert sys.getrecursionlimit() == limit
    assert not down(limit - 200)  # no room left under the margin: not known, the full parse decides
    assert sys.getrecursionlimit() == limit


BAD = [
    b"print 'hello'\n",
    b"try:\n    pass\nexcept ValueError, e:\n    pass\n",
    b"x = 1\x00\n",
    b"# -*- coding: latin-1 -*-\nx = '\xe9'\n",
    b"# -*- coding: nonsense -*-\nx = 1\n",
    b"x = '\xff'\n",
    b"x = (" * 250 + b"1" + b")" * 250 + b"\n",
    b"x = " + b"+".join([b"a"] * 5000) + b"\n",
    b"x = " + b"-" * 5000 + b"a\n",
    b"def f(:\n    pass\n",
    b"nonlocal x\n",  # the symbol table refuses it, the parser does not: accepted, as before
    b"def f():\n    x = 1\n    global x\n",
    b"return 1\nawait x\nyield 2\n",
    b"from __future__ import barry_as_FLUFL\n1 <> 2\n",
    b"x = 1 if y else 2\n",
]


@pytest.mark.parametrize("data", BAD, ids=range(len(BAD)))
def test_check_python3_decides_and_words_as_the_full_parse(data: bytes, monkeypatch: pytest.MonkeyPatch) -> None:
    assert _outcome(data, True, monkeypatch) == _outcome(data, False, monkeypatch)


def test_check_python3_same_on_every_sample_and_catalog_example(monkeypatch: pytest.MonkeyPatch) -> None:
    from tfmigrate.codemod.rule import load_catalog

    sources = [p.read_bytes() for p in sorted((ROOT / "samples").rglob("*.py"))]
    for rule in load_catalog().rules.values():
        for example in rule.examples:
            sources += [text.encode("utf-8") for text in (example.before, example.after) if text is not None]
    assert len(sources) > 100
    quick = [_outcome(data, True, monkeypatch) for data in sources]
    full = [_outcome(data, False, monkeypatch) for data in sources]
    assert quick == full
    assert quick.count("ok") > len(sources) // 2
