"""Notebooks in reports (issue 29): an import a rule needs is never inserted into a notebook (or a module)
that already has it, in every import form of the header, and never above ``%matplotlib inline``; every
hunk of a notebook's diff names its cell, in the terminal, HTML and Markdown alike, with no
``\\ No newline at end of cell`` lines (a cell never ends with a newline, and the rewrite keeps that).

Generated over header forms x what the rule adds (``import tensorflow as tf`` for a contrib initializer
read through ``from tensorflow.contrib import layers``; ``import tf_slim`` for a slim layer), for a
notebook and for the same code as a script. No TensorFlow.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tfmigrate.codemod.engine import process_file, rewrite_source
from tfmigrate.codemod.rule import load_catalog
from tfmigrate.codemod.runner import Options, run

ENABLED = load_catalog().selected(None)

# (id, header cells: the imports as written, with IPython lines where a notebook has them)
HEADERS = [
    ("plain", ["import tensorflow as tf\nfrom tensorflow.contrib import layers"]),
    ("magic_first", ["%matplotlib inline\nimport tensorflow as tf\nfrom tensorflow.contrib import layers"]),
    ("two_magics", ["%matplotlib inline\n%load_ext autoreload\nimport numpy as np\nimport tensorflow as tf\nfrom tensorflow.contrib import layers"]),
    ("shell_line", ["!pip install tensorflow==1.4\nimport tensorflow as tf\nfrom tensorflow.contrib import layers"]),
    ("semicolons", ["%matplotlib inline\nimport numpy as np; import tensorflow as tf\nfrom tensorflow.contrib import layers"]),
    ("one_statement", ["import numpy as np, tensorflow as tf\nfrom tensorflow.contrib import layers"]),
    ("try_import", ["%matplotlib inline\ntry:\n    import tensorflow as tf\nexcept ImportError:\n    raise\nfrom tensorflow.contrib import layers"]),
    ("magic_cell_apart", ["%matplotlib inline", "import tensorflow as tf\nfrom tensorflow.contrib import layers"]),
    ("magic_between", ["import numpy as np\n%matplotlib inline\nimport tensorflow as tf\nfrom tensorflow.contrib import layers"]),
]
# (id, the code that reads the contrib name, the import the rewrite needs, its line in the result)
USES = [
    ("adds_tf", "init = layers.xavier_initializer()\nx = tf.placeholder(tf.float32)", "import tensorflow as tf"),
    ("adds_slim", "x = tf.placeholder(tf.float32, [None, 4])\nh = layers.fully_connected(x, 10)", "import tf_slim"),
]


def make_notebook(cells: list[str]) -> str:
    entries = [{"cell_type": "code", "metadata": {}, "execution_count": None, "outputs": [], "source": c.splitlines(True)} for c in cells]
    return json.dumps({"cells": entries, "metadata": {"kernelspec": {"language": "python", "name": "python3"}},
                       "nbformat": 4, "nbformat_minor": 5}, indent=1, sort_keys=True, ensure_ascii=False) + "\n"


def cells_of(path: Path) -> list[str]:
    return ["".join(c["source"]) for c in json.loads(path.read_text(encoding="utf-8"))["cells"]]


VARIANTS = [(h, u) for h in HEADERS for u in USES]


@pytest.mark.parametrize(("header", "use"), VARIANTS, ids=[f"{h[0]}-{u[0]}" for h, u in VARIANTS])
def test_notebook_import_added_once_below_its_magics(tmp_path: Path, header, use) -> None:
    name, head = header
    _, code, needed = use
    path = tmp_path / "nb.ipynb"
    path.write_text(make_notebook([*head, code]), encoding="utf-8")
    result = process_file(path, Options(enabled=ENABLED, mode="write"))
    assert result.status == "changed", result.error
    cells = cells_of(path)
    lines = [line for cell in cells for line in cell.split("\n")]
    for wanted in ("import tensorflow as tf", needed):
        assert sum(line.strip() == wanted or line.endswith(f"; {wanted}") or line.startswith(f"{wanted};")
                   or (wanted == "import tensorflow as tf" and "tensorflow as tf" in line and line.startswith("import numpy"))
                   for line in lines) == 1, "\n---\n".join(cells)
    for before, after in zip(head, cells):  # the header's own lines (the contrib import goes) start their cells, IPython lines first
        kept = [line for line in before.split("\n") if "contrib" not in line]
        if name == "try_import":  # the guards family (TFM140) unwraps a try whose import TF 2.15 always has
            kept = kept[:1]
        assert after.split("\n")[: len(kept)] == kept, after
    assert "tf.compat.v1.placeholder" in cells[-1]
    assert process_file(path, Options(enabled=ENABLED, mode="write")).status == "unchanged"  # a second run: nothing


@pytest.mark.parametrize(("header", "use"), [v for v in VARIANTS if not any(("%" in c or "!" in c) for c in v[0][1])],
                         ids=[f"{h[0]}-{u[0]}" for h, u in VARIANTS if not any(("%" in c or "!" in c) for c in h[1])])
def test_script_import_added_once(header, use) -> None:
    _, head = header
    _, code, needed = use
    source = "\n".join([*head, code]) + "\n"
    new = rewrite_source(source.encode(), ENABLED).new.decode()
    assert new.startswith(head[0].split("\n")[0] + "\n")
    assert new.count("tensorflow as tf") == 1 and (needed == "import tensorflow as tf" or new.count(needed) == 1), new
    compile(new, "<variant>", "exec")


def test_an_import_missing_from_the_notebook_goes_below_the_magic(tmp_path: Path) -> None:
    path = tmp_path / "nb.ipynb"
    path.write_text(make_notebook(["%matplotlib inline\nfrom tensorflow.contrib import layers", "init = layers.xavier_initializer()"]))
    assert process_file(path, Options(enabled=ENABLED, mode="write")).status == "changed"
    first = cells_of(path)[0].split("\n")
    assert first[0] == "%matplotlib inline" and "import tensorflow as tf" in first[1:]


LEGACY = make_notebook([
    "%matplotlib inline\nimport numpy as np\nimport tensorflow as tf",
    "x = tf.placeholder(tf.float32, [None])\nsess = tf.Session()",
    "print(1)",
    "saver = tf.train.Saver()",
])


@pytest.fixture(scope="module")
def notebook_report(tmp_path_factory: pytest.TempPathFactory):
    root = tmp_path_factory.mktemp("nb")
    (root / "explore.ipynb").write_text(LEGACY, encoding="utf-8")
    return run([root], Options(enabled=ENABLED, mode="diff", diffs=True))


def test_terminal_diff_hunks_name_their_cells(notebook_report) -> None:
    (result,) = notebook_report.files
    diff = result.diff
    hunks = [line for line in diff.splitlines() if line.startswith("@@")]
    assert [h.rsplit("@@ ", 1)[1] for h in hunks] == ["cell 1", "cell 2", "cell 4"]
    assert "No newline" not in diff
    # the last line of cell 1 is unchanged, so it is context, not a removal and an addition
    assert "-import tensorflow as tf" not in diff and " import tensorflow as tf\n+tf.compat.v1.disable_eager_execution()" in diff


def test_html_and_markdown_hunks_name_their_cells(notebook_report) -> None:
    from tfmigrate.report import html, markdown

    page = html.render(notebook_report, subject="nb")
    full = markdown.render_full(notebook_report)  # the full Markdown report holds the diffs (the comment names it)
    for text in (page, full):
        assert "No newline at end of cell" not in text
        for cell in ("cell 1", "cell 2", "cell 4"):
            assert f"@@ {cell}" in text or f"@@ {cell}".replace(" ", "&#32;") in text or f"@@ {cell}<" in text, cell
