"""Notebooks (.ipynb): code cells rewritten as one module, IPython syntax kept, the JSON layout kept,
findings pointed at cells, and every refusal a one-line error that leaves the file as it was."""

import json
import os
import re
from pathlib import Path

import libcst as cst
import pytest

from tests.clichildren import run_cli

from tfmigrate.codemod.engine import process_file, rewrite_source
from tfmigrate.codemod.runner import Options, run
from tfmigrate.codemod.files import SourceError, discover
from tfmigrate.codemod.notebook import Notebook, _magic_lines
from tfmigrate.codemod.rule import load_catalog
from tests.tfchildren import run_python

ROOT = Path(__file__).resolve().parent.parent
ENABLED = load_catalog().selected(None)


def notebook(*cells, metadata=None, **layout) -> str:
    """nbformat's own layout unless told otherwise: indent 1, sorted keys, raw UTF-8, final newline.
    A cell is ("code"|"markdown", source) or a bare string (a code cell)."""
    made = []
    for cell in cells:
        kind, source = ("code", cell) if isinstance(cell, str) else cell
        entry = {"cell_type": kind, "metadata": {}, "source": source.splitlines(True)}
        if kind == "code":
            entry.update(execution_count=None, outputs=[])
        made.append(entry)
    document = {"cells": made, "metadata": metadata or {"kernelspec": {"language": "python", "name": "python3"}},
                "nbformat": 4, "nbformat_minor": 5}
    options = {"indent": 1, "sort_keys": True, "ensure_ascii": False, **layout}
    return json.dumps(document, **options) + "\n"


def sources(path: Path) -> list[str]:
    return ["".join(c["source"]) for c in json.loads(path.read_text(encoding="utf-8-sig"))["cells"]]


def write_options(mode="write"):
    return Options(enabled=ENABLED, mode=mode)


LEGACY = notebook(
    ("markdown", "# Iris, 2016\nThe tutorial's `tf.Session()` way."),
    "%matplotlib inline\n!pip install tensorflow==1.0\nimport numpy as np\nimport tensorflow as tf",
    'x = tf.placeholder(tf.float32, [None, 4])\nmsg = ("step %d"\n       % 3)\nsess = tf.Session()\ntf.Session?',
    "%%time\nfor i in range(3):\n    !echo $i\n    print(sess.run(x, {x: np.zeros((1, 4))}))",
    "%%bash\necho tf.Session()",
    "",
    'saver = tf.train.Saver()  # tfmigrate: ignore\nprint("été")\n',
)


def test_code_cells_are_one_module_and_ipython_lines_come_back(tmp_path):
    path = tmp_path / "iris.ipynb"
    path.write_text(LEGACY, encoding="utf-8")
    result = process_file(path, write_options())
    assert result.status == "changed", result.error
    before, after = sources_of(LEGACY), sources(path)
    assert after[0] == before[0]  # markdown untouched
    # the import in cell 2 is what makes cell 3's names TensorFlow; graph mode goes after the imports
    assert after[1] == before[1] + "\ntf.compat.v1.disable_eager_execution()"
    assert after[2] == (
        'x = tf.compat.v1.placeholder(tf.float32, [None, 4])\nmsg = ("step %d"\n       % 3)\n'
        "sess = tf.compat.v1.Session()\ntf.Session?"
    )
    assert after[3:] == before[3:]  # %%time body needs nothing; %%bash is not Python; suppression honoured
    document, original = json.loads(path.read_text(encoding="utf-8")), json.loads(LEGACY)
    for cell in document["cells"]:
        cell.pop("source")
    for cell in original["cells"]:
        cell.pop("source")
    assert document == original  # only sources change: outputs, counts, metadata stay
    assert path.read_text(encoding="utf-8") == notebook(*[
        ("markdown", s) if i == 0 else s for i, s in enumerate(after)
    ])  # and the file is in nbformat's own layout, non-ASCII kept raw
    mtime = path.stat().st_mtime_ns
    assert process_file(path, write_options()).status == "unchanged"  # a second run changes nothing
    assert path.stat().st_mtime_ns == mtime


def sources_of(text: str) -> list[str]:
    return ["".join(c["source"]) for c in json.loads(text)["cells"]]


def test_findings_point_at_the_cell_and_the_line_in_it(tmp_path, monkeypatch):
    path = tmp_path / "iris.ipynb"
    path.write_text(LEGACY, encoding="utf-8")
    check = process_file(path, write_options("check"))
    assert [(f.rule, f.cell, f.line, f.col) for f in check.findings] == [
        ("TFM501", 3, 1, 5), ("TFM502", 3, 1, 5), ("TFM501", 3, 4, 8),
    ]  # cells are counted as an editor shows them, the markdown cell included
    assert check.findings[0].location == f"{check.path}:cell 3:1:5"
    assert "--- a/" in check.diff and ":cell 2\n" in check.diff and ":cell 3\n" in check.diff
    assert ":cell 4" not in check.diff
    monkeypatch.chdir(tmp_path)
    proc = run_cli(["rewrite", "--check", "--format", "json", "."])
    data = json.loads(proc.stdout)
    assert proc.returncode == 1
    assert [(f["cell"], f["line"], f["col"]) for f in data["findings"]] == [(3, 1, 5), (3, 1, 5), (3, 4, 8)]
    sarif = json.loads(run_cli(["rewrite", "--check", "--format", "sarif", "."]).stdout)
    result = sarif["runs"][0]["results"][0]
    assert result["message"]["text"].startswith("cell 3: ") and result["properties"]["cell"] == 3
    text = run_cli(["rewrite", "--check", "."])
    assert "iris.ipynb:cell 3:4:8: TFM501" in text.stdout


def test_a_script_has_no_cell_key_in_json(tmp_path, monkeypatch):
    (tmp_path / "t.py").write_text("import tensorflow as tf\ns = tf.Session()\n")
    monkeypatch.chdir(tmp_path)
    proc = run_cli(["rewrite", "--check", "--format", "json", "."])
    assert all("cell" not in f for f in json.loads(proc.stdout)["findings"])


@pytest.mark.parametrize(
    ("code", "magic"),
    [
        ("%matplotlib inline\nx = 1", [0]),
        ("!pip install tf\nfiles = !ls\nt = %timeit -o f()", [0, 1, 2]),
        ("?tf.Session\ntf.Session?\ntf.Session??", [0, 1, 2]),
        ("for i in range(2):\n    !echo $i\n    %time f(i)", [1, 2]),
        ('msg = ("step %d"\n       % 3)', []),  # an operator continuing a bracketed expression
        ('doc = """\n%not a magic\n!nor this\n"""', []),  # inside a triple-quoted string
        ("x = 1 + \\\n    !2 if 0 else 3", []),  # after a backslash
        ("s = 'a\\\n%b'", []),  # a one-quote string continued by a backslash
        ("if (a\n    != b):\n    pass", []),
        ("# why?\nx = 1  # what?", []),  # comments are not help requests
        ("%%time\nx = 1", [0]),
        ("x = 1\n%%time", [1]),  # a cell magic past line 1 is a line magic named %time to IPython
    ],
)
def test_ipython_syntax_only_where_a_logical_line_starts(code, magic):
    assert sorted(_magic_lines(code)) == magic


def test_cells_of_another_language_and_notebooks_of_another_kernel_are_left_alone(tmp_path):
    path = tmp_path / "r.ipynb"
    path.write_text(notebook("library(tensorflow)\nsess <- tf$Session()", metadata={"kernelspec": {"language": "R"}}))
    assert process_file(path, write_options()).status == "skipped"
    shell = tmp_path / "sh.ipynb"
    shell.write_text(notebook("%%writefile train.py\nimport tensorflow as tf\nsess = tf.Session()"))
    assert process_file(shell, write_options()).status == "skipped"  # no code left to look at


@pytest.mark.parametrize(
    "layout",
    [
        {"indent": 2},  # Colab and others
        {"indent": 4, "ensure_ascii": True},
        {"indent": None, "separators": (",", ":")},
        {"indent": 1, "sort_keys": False},
    ],
    ids=["indent-2", "ascii-escapes", "compact", "unsorted-keys"],
)
def test_the_files_own_json_layout_is_kept(tmp_path, layout):
    path = tmp_path / "n.ipynb"
    text = notebook("import tensorflow as tf\nx = tf.placeholder(tf.float32)  # café", "print(x)", **layout)
    if not layout.get("sort_keys", True):  # keys in an order a sorted dump would change
        document = json.loads(text)
        text = json.dumps({k: document[k] for k in reversed(document)}, indent=1, ensure_ascii=False) + "\n"
    path.write_text(text, encoding="utf-8")
    assert process_file(path, write_options()).status == "changed"
    new = path.read_text(encoding="utf-8")
    expected = text.replace("tf.placeholder", "tf.compat.v1.placeholder")
    document = json.loads(expected)
    document["cells"][0]["source"] = ["import tensorflow as tf\n", "tf.compat.v1.disable_eager_execution()\n",
                                      "x = tf.compat.v1.placeholder(tf.float32)  # café"]
    assert json.loads(new) == document
    # byte for byte: what the same layout makes of the expected document
    indent = layout.get("indent", 1)
    dumped = json.dumps(document, indent=indent, ensure_ascii=layout.get("ensure_ascii", False), separators=layout.get("separators"))
    assert new == dumped + ("\n" if text.endswith("\n") else "")


def test_crlf_bom_and_a_missing_final_newline_are_kept(tmp_path):
    path = tmp_path / "w.ipynb"
    text = notebook("import tensorflow as tf\ns = tf.Session()").rstrip("\n").replace("\n", "\r\n")
    path.write_bytes(b"\xef\xbb\xbf" + text.encode())
    assert process_file(path, write_options()).status == "changed"
    data = path.read_bytes()
    assert data.startswith(b"\xef\xbb\xbf") and b"\r\n" in data and b"\n" not in data.replace(b"\r\n", b"")
    assert not data.endswith(b"\n")
    assert "tf.compat.v1.Session()" in sources(path)[0]


def test_a_layout_that_cannot_be_reproduced_is_refused_not_reformatted(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    path = Path("odd.ipynb")
    text = notebook("import tensorflow as tf\ns = tf.Session()").replace('"nbformat": 4', '"nbformat":   4')
    path.write_text(text)
    result = process_file(path, write_options())
    assert (result.status, result.error) == ("error", (
        "odd.ipynb: cannot rewrite: its JSON layout is not one tfmigrate can reproduce exactly, and writing "
        "it would reformat the whole file; notebook left unchanged (--diff shows the fixes)"
    ))
    assert path.read_text() == text
    assert process_file(path, write_options("check")).status == "changed"  # checking needs no layout


def test_errors_are_one_line_naming_the_cell(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    cases = {
        "py2.ipynb": notebook(("markdown", "hi"), "import tensorflow as tf", "x = 1\nprint x"),
        "json.ipynb": '{"cells": [\n  {"cell_type": "code",}\n]}',
        "v3.ipynb": json.dumps({"nbformat": 3, "worksheets": []}),
        "bytes.ipynb": b'{"cells": []}\xff',
        "odd-metadata.ipynb": '{"cells": [{"cell_type": "code", "source": 7}], "metadata": [1]}',
    }
    for name, content in cases.items():
        (tmp_path / name).write_bytes(content if isinstance(content, bytes) else content.encode())
    errors = {r.path: r.error for r in run(["."], write_options()).files}
    assert errors["py2.ipynb"] == "py2.ipynb:cell 3:2:1: cannot parse: Missing parentheses in call to 'print'. Did you mean print(...)? (Python 2 source? convert it to Python 3 first)"
    assert errors["json.ipynb"].startswith("json.ipynb:2:24: not a notebook: invalid JSON")
    assert errors["v3.ipynb"] == "v3.ipynb: not a notebook: no list of cells (nbformat 3: upgrade it with `jupyter nbconvert --to notebook`)"
    assert errors["bytes.ipynb"] == "bytes.ipynb: cannot decode as utf-8: invalid byte 0xff"
    assert errors["odd-metadata.ipynb"] == "odd-metadata.ipynb:cell 1: not a notebook: a cell's source is neither text nor a list of lines"
    for name, content in cases.items():
        assert (tmp_path / name).read_bytes() == (content if isinstance(content, bytes) else content.encode())


def test_a_fix_that_would_join_cells_is_refused(tmp_path):
    # A transform that folds statements into a function body can take code of two cells; cutting
    # the result at the old boundaries would leave a cell that does not compile on its own.
    nb = Notebook(notebook("import tensorflow as tf", "x = 1").encode(), "n.ipynb")
    lines = nb.code.split("\n")
    joined = "\n".join(["def f():", *("    " + line for line in lines[:-1]), ""])
    with pytest.raises(SourceError, match="move code from one cell into another"):
        nb.split(joined)
    with pytest.raises(SourceError, match="move code from one cell into another"):
        nb.split(nb.code.replace("# tfmigrate: cell boundary 5b1c\n", ""))  # a boundary lost
    assert nb.split(nb.code) == (["import tensorflow as tf", "x = 1"], [1, 3])


def _as_notebook_of_statements(source: str) -> str:
    module = cst.parse_module(source)
    return notebook(*(module.code_for_node(s) for s in module.body))


def _code_lines(text: str) -> list[str]:
    return [line for line in text.splitlines() if line.strip()]


@pytest.mark.parametrize("sample", sorted(p.parent.name for p in (ROOT / "samples").glob("*/legacy.py")))
def test_a_sample_cut_into_one_cell_per_statement_rewrites_as_the_script_does(tmp_path, sample):
    # The hardest cut: every top-level statement in its own cell, so that every insertion,
    # removal and import edit happens at a cell boundary. The cells, joined, must be the script's
    # rewrite (but for blank lines a fix adds at the end of a cell).
    source = (ROOT / "samples" / sample / "legacy.py").read_text()
    path = tmp_path / "n.ipynb"
    path.write_text(_as_notebook_of_statements(source))
    result = process_file(path, write_options())
    assert result.status == "changed", result.error
    expected = rewrite_source(source.encode(), ENABLED).new.decode()
    assert _code_lines("".join(sources(path))) == _code_lines(expected)
    script = process_file(_script(tmp_path, source), write_options())
    assert [(f.rule, _uncited(f.message)) for f in result.findings] == [(f.rule, _uncited(f.message)) for f in script.findings]
    assert process_file(path, write_options()).status == "unchanged"


def _uncited(message: str) -> str:
    return re.sub(r"(cell \d+, )?line \d+", "line N", message)


def _script(tmp_path: Path, source: str) -> Path:
    path = tmp_path / "script.py"
    path.write_text(source)
    return path


def test_directories_are_walked_for_notebooks_but_not_their_checkpoints(tmp_path):
    (tmp_path / "a.ipynb").write_text(notebook("x = 1"))
    (tmp_path / ".ipynb_checkpoints").mkdir()
    (tmp_path / ".ipynb_checkpoints" / "a-checkpoint.ipynb").write_text(notebook("x = 1"))
    (tmp_path / "b.py").write_text("x = 1\n")
    found = discover([tmp_path]).files
    assert [p.name for p in found] == ["a.ipynb", "b.py"]


def test_lines_a_message_cites_become_cells_and_lines(tmp_path):
    path = tmp_path / "s.ipynb"
    path.write_text(notebook(
        ("markdown", "A Saver built too early"),
        "import tensorflow as tf\nw = tf.Variable(1.0, name='w')\nsaver = tf.train.Saver()",
        "b = tf.Variable(2.0, name='b')",
    ))
    messages = [f.message for f in process_file(path, write_options("check")).findings if f.rule == "TFM201"]
    assert messages and "'b' (cell 3, line 1)" in messages[0]


SAMPLE = ROOT / "samples" / "notebook_linear"


def test_the_sample_notebook_migrates_to_expected(tmp_path):
    path = tmp_path / "legacy.ipynb"
    path.write_bytes((SAMPLE / "legacy.ipynb").read_bytes())
    assert process_file(path, write_options()).status == "changed"
    assert path.read_bytes() == (SAMPLE / "expected.ipynb").read_bytes()
    assert process_file(path, write_options()).status == "unchanged"


RUN_NOTEBOOKS = """
import json, os, sys
from tfmigrate.codemod.notebook import _magic_lines

def run(path, workdir):
    os.makedirs(workdir)
    os.chdir(workdir)
    namespace = {}
    for cell in json.load(open(path))["cells"]:
        source = "".join(cell["source"])
        if cell["cell_type"] != "code" or source.startswith("%%"):
            continue  # what a kernel without a shell would skip: IPython lines, %%bash cells
        magic = _magic_lines(source)
        code = "\\n".join(line for i, line in enumerate(source.split("\\n")) if i not in magic)
        try:
            exec(compile(code, path, "exec"), namespace)
        except Exception as exc:
            return {"error": f"{type(exc).__name__}: {exc}"}
    import tensorflow as tf
    reader = tf.train.load_checkpoint("linear/model.ckpt")
    return {"eager": tf.executing_eagerly(), "w": float(reader.get_tensor("w")), "b": float(reader.get_tensor("b"))}

legacy, expected, out = sys.argv[1:]
print(json.dumps({"legacy": run(legacy, out + "/legacy"), "expected": run(expected, out + "/expected")}))
"""


@pytest.mark.slow
def test_the_migrated_sample_notebook_trains_and_saves_on_tensorflow_2_15(tmp_path):
    proc = run_python(["-c", RUN_NOTEBOOKS, str(SAMPLE / "legacy.ipynb"), str(SAMPLE / "expected.ipynb"), str(tmp_path)], timeout=300, cwd=ROOT, env={**os.environ, "TF_CPP_MIN_LOG_LEVEL": "3", "PYTHONPATH": str(ROOT)})
    assert proc.returncode == 0, proc.stderr[-3000:]
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    assert out["legacy"] == {"error": "AttributeError: module 'tensorflow' has no attribute 'placeholder'"}
    assert out["expected"]["eager"] is False  # the inserted disable_eager_execution() ran
    assert abs(out["expected"]["w"] - 2) < 0.01 and abs(out["expected"]["b"] - 1) < 0.01  # it trained
