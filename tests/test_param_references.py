"""A parameter's references (``Assignment.references``, which the estimator family's predict-flow planning
follows into a called function) come from the index, never from libcst's ScopeProvider: a parameter is bound
before every read in its scope, so every read whose lookup finds it counts. tests/test_fast_paths.py
compares the answers with libcst's on every sample and tricky source (``parameters_read`` among them);
this test proves that libcst is not asked."""

from __future__ import annotations

import libcst as cst
import pytest

from tfmigrate.codemod.positions import Positions
from tfmigrate.codemod.scopes import Scopes
from tfmigrate.codemod.tree import TreeIndex

SOURCE = (
    "import tensorflow as tf\n"
    "def consume(y, *rest, k=None, **kw):\n"
    "    print(y, rest, kw, k)\n"
    "    y = list(y)\n"
    "    def inner(z=y):\n"
    "        return y, z\n"
    "    class Holder:\n"
    "        v = y\n"
    "        w = [y for _ in rest]\n"
    "    return inner, Holder, (lambda y: y)\n"
)
# parameter (its def's name, its own name) -> how many reads see it
EXPECTED = {("consume", "y"): 6, ("consume", "rest"): 2, ("consume", "k"): 1, ("consume", "kw"): 1,
            ("inner", "z"): 1, ("<lambda>", "y"): 1}


def _no_libcst(node: cst.CSTNode) -> None:
    raise AssertionError(f"libcst's scopes were asked about {type(node).__name__}")


@pytest.mark.parametrize("form", ["plain", "in_a_class", "nested_function"])
def test_parameter_references_need_no_libcst(form):
    source = SOURCE
    if form != "plain":
        head = "class Wrapper:\n" if form == "in_a_class" else "def wrapper():\n"
        source = head + "".join(f"    {line}\n" if line else "\n" for line in SOURCE.splitlines())
    module = cst.parse_module(source)
    index, positions = TreeIndex.of(module), Positions(module)
    scopes = Scopes(index, _no_libcst, lambda node: (positions[node].start.line, positions[node].end.line))
    found = {}
    for param in index.nodes(cst.Param):
        owner = index.parents.get(index.parents.get(param))
        name = owner.name.value if isinstance(owner, cst.FunctionDef) else "<lambda>"
        mine = [a for a in scopes.scope_of(param.name)[param.name.value] if a.node is param]
        assert len(mine) == 1
        found[(name, param.name.value)] = len(mine[0].references)
    assert found == EXPECTED
