"""Small paths of issue 29: a directory with no Python files, an empty directory's report, and
``validate`` on a Python 2 file (its SyntaxError said in one line, with no TensorFlow child).

A run that finds no file to read prints ``no Python files found`` on stderr and exits 0 (as ruff does:
nothing there needs migrating, and a hook over other files passes). All in-process, no TensorFlow.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from tfmigrate.cli import cli


def invoke(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(cli, list(args), catch_exceptions=False)
    return result.exit_code, result.stdout, result.stderr


@pytest.fixture
def no_python(tmp_path: Path) -> Path:
    (tmp_path / "notes").mkdir()
    (tmp_path / "notes" / "README.txt").write_text("print 'not python'\n")
    (tmp_path / "data.csv").write_text("1,2\n")
    return tmp_path


@pytest.mark.parametrize("command", [["rewrite"], ["rewrite", "--diff"], ["rewrite", "--check", "--format", "json"], ["report"]])
def test_no_python_files_is_said_once_and_exits_0(no_python: Path, command: list[str]) -> None:
    code, out, err = invoke(*command, str(no_python))
    assert code == 0
    assert err.count("no Python files found") == 1 and str(no_python) in err
    assert "no Python files" not in out  # stdout stays the format's (JSON parses)
    if "json" in command:
        assert json.loads(out)["summary"]["files"] == 0


def test_python_files_that_need_nothing_are_not_no_python_files(tmp_path: Path) -> None:
    (tmp_path / "util.py").write_text("import os\n")
    code, _, err = invoke("rewrite", "--check", str(tmp_path))
    assert code == 0 and "no Python files" not in err


def test_excluded_files_count_as_none(tmp_path: Path) -> None:
    (tmp_path / "train.py").write_text("import tensorflow as tf\nx = tf.placeholder(tf.float32)\n")
    code, _, err = invoke("rewrite", "--check", "--exclude", "train.py", str(tmp_path))
    assert code == 0 and "no Python files found" in err


@pytest.mark.parametrize("tree", ["empty", "no_python"])
def test_report_of_an_empty_directory_prints_its_summary_once(tmp_path: Path, tree: str) -> None:
    if tree == "no_python":
        (tmp_path / "a.txt").write_text("x")
    code, out, _ = invoke("report", str(tmp_path))
    assert code == 0
    assert out.count("tfmigrate report") == 1 and out.count("0 scanned") == 1


PY2 = {
    "print_statement": ('import tensorflow as tf\nprint "training"\nclf = tf.estimator.DNNClassifier(hidden_units=[4], feature_columns=[])\n', 2),
    "except_comma": ("import tensorflow as tf\ntry:\n    import cPickle\nexcept ImportError, e:\n    pass\n", 4),
    "exec_statement": ('import tensorflow as tf\nexec "x = 1"\n', 2),
    "backticks": ("import tensorflow as tf\nx = `1`\n", 2),
}


@pytest.mark.parametrize("target_form", ["file", "file:LINE", "file:function", "--program"])
@pytest.mark.parametrize("case", sorted(PY2))
def test_validate_python2_file_reports_the_syntax_error_without_tensorflow(tmp_path: Path, case: str, target_form: str,
                                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    source, line = PY2[case]
    path = tmp_path / "train.py"
    path.write_text(source)
    import tfmigrate.validate.runner as runner

    def no_child(*args, **kwargs):  # a TensorFlow child would start here
        raise AssertionError("a child process was started for a file that does not parse")

    monkeypatch.setattr(runner, "stream_child", no_child)
    target = {"file": [str(path)], "file:LINE": [f"{path}:3"], "file:function": [f"{path}:build"],
              "--program": ["--program", str(path)]}[target_form]
    code, out, err = invoke("validate", *target, "--format", "json")
    assert code == 2
    result = json.loads(out)
    assert result["stages"] == [] and f"{path}:{line}: SyntaxError" in result["error"]
    assert "\n" not in result["error"] and "validate runs the code with Python 3" in result["error"]
