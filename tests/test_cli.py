"""`tfmigrate rewrite` and `tfmigrate rules` as a user runs them: a real process, real files."""

import json
import os
import signal
import subprocess
import sys
import time

import pytest

from tests.clichildren import run_cli

LEGACY = "import tensorflow as tf\n\nx = tf.placeholder(tf.float32, shape=[None, 4])\n"
CLEAN = "import numpy as np\n\nx = np.zeros(4)\n"


def tfmigrate(*args, cwd, check=None):
    """``python -m tfmigrate ARGS``, a fork of the warm CLI server (tests/clichildren.py); the tests about the
    process itself (what it imports, Ctrl-C) start their own."""
    proc = run_cli(args, cwd=cwd, env={**os.environ, "COLUMNS": "120"})
    if check is not None:
        assert proc.returncode == check, proc.stdout + proc.stderr
    return proc


@pytest.fixture()
def project(tmp_path):
    (tmp_path / "legacy.py").write_text(LEGACY)
    (tmp_path / "clean.py").write_text(CLEAN)
    return tmp_path


def test_check_fails_on_legacy_code_and_writes_nothing(project):
    proc = tfmigrate("rewrite", "--check", ".", cwd=project, check=1)
    assert "legacy.py:3:5: TFM501" in proc.stdout
    assert (project / "legacy.py").read_text() == LEGACY


def test_diff_prints_a_unified_diff_and_writes_nothing(project):
    proc = tfmigrate("rewrite", "--diff", ".", cwd=project, check=1)
    assert "--- a/legacy.py" in proc.stdout and "+++ b/legacy.py" in proc.stdout
    assert "+x = tf.compat.v1.placeholder(tf.float32, shape=[None, 4])" in proc.stdout
    assert (project / "legacy.py").read_text() == LEGACY


def test_write_mode_fixes_then_a_second_run_has_nothing_to_do(project):
    proc = tfmigrate("rewrite", "--format", "json", ".", cwd=project)
    data = json.loads(proc.stdout)
    assert data["schema"] == 2 and data["tool"] == "tfmigrate" and data["mode"] == "write"
    assert {f["path"]: f["status"] for f in data["files"]} == {"clean.py": "skipped", "legacy.py": "changed"}
    applied = [f for f in data["findings"] if f["rule"] == "TFM501"]
    assert applied and all(f["fix"] == "fixed" and f["fix_safety"] == "safe" for f in applied)
    assert data["summary"]["changed"] == 1 and data["summary"]["errors"] == 0
    assert "tf.compat.v1.placeholder" in (project / "legacy.py").read_text()
    assert proc.returncode == (1 if data["summary"]["manual"] else 0)
    again = json.loads(tfmigrate("rewrite", "--format", "json", ".", cwd=project).stdout)
    assert again["summary"]["changed"] == 0


def test_json_check_mode_marks_nothing_fixed(project):
    out = tfmigrate("rewrite", "--check", "--format", "json", ".", cwd=project, check=1).stdout
    data = json.loads(out)
    assert data["findings"] and all(f["fix"] in ("fixable", "manual") for f in data["findings"])
    assert set(data["findings"][0]) == {"rule", "severity", "path", "line", "col", "message", "fix", "fix_safety", "fixable", "fixed"}
    # schema 1's booleans agree with "fix": nothing is fixed under --check
    assert all(f["fixed"] is False and f["fixable"] is (f["fix"] == "fixable") for f in data["findings"])
    # one line a file and a finding: greppable, and each line is a JSON object of its own
    lines = [line.strip().rstrip(",") for line in out.splitlines()]
    assert [json.loads(line) for line in lines if line.startswith('{"rule"')] == data["findings"]
    assert [json.loads(line) for line in lines if line.startswith('{"path"')] == data["files"]


def test_sarif_output_has_rules_locations_and_fingerprints(project):
    tfmigrate("rewrite", "--check", "--format", "sarif", "--output", "out.sarif", ".", cwd=project, check=1)
    sarif = json.loads((project / "out.sarif").read_text())
    assert sarif["version"] == "2.1.0"
    run = sarif["runs"][0]
    ids = {r["id"] for r in run["tool"]["driver"]["rules"]}
    result = next(r for r in run["results"] if r["ruleId"] == "TFM501")
    assert result["ruleId"] in ids
    location = result["locations"][0]["physicalLocation"]
    assert location["artifactLocation"]["uri"] == "legacy.py"
    assert location["region"] == {"startLine": 3, "startColumn": 5}
    assert result["partialFingerprints"]["tfmigrate/v1"]


def test_markdown_output(project):
    proc = tfmigrate("rewrite", "--check", "--format", "markdown", ".", cwd=project, check=1)
    assert proc.stdout.startswith("## tfmigrate report")
    assert "`TFM501`" in proc.stdout and "```diff" in proc.stdout


def test_select_and_ignore(project):
    assert tfmigrate("rewrite", "--check", "--ignore", "TFM5", ".", cwd=project).returncode == 0
    assert tfmigrate("rewrite", "--check", "--select", "TFM501", ".", cwd=project).returncode == 1
    bad = tfmigrate("rewrite", "--check", "--select", "TFM999", ".", cwd=project, check=2)
    assert "unknown rule code(s): TFM999" in bad.stderr


def test_options_from_pyproject(project):
    (project / "pyproject.toml").write_text('[tool.tfmigrate]\nignore = ["TFM5"]\n')
    assert tfmigrate("rewrite", "--check", ".", cwd=project).returncode == 0


def test_exclude(project):
    assert tfmigrate("rewrite", "--check", "--exclude", "legacy.py", ".", cwd=project).returncode == 0


def test_unparsable_file_exits_2_with_one_line_and_others_still_processed(project):
    (project / "py2.py").write_text("import tensorflow as tf\nprint tf.__version__\n")
    proc = tfmigrate("rewrite", ".", cwd=project, check=2)
    errors = [line for line in proc.stderr.splitlines() if "py2.py" in line]
    assert errors == [
        "error: py2.py:2:1: cannot parse: Missing parentheses in call to 'print'. Did you mean print(...)? "
        "(Python 2 source? convert it to Python 3 first)"
    ] or (len(errors) == 1 and "(Python 2 source? convert it to Python 3 first)" in errors[0])
    assert "Traceback" not in proc.stderr
    assert "tf.compat.v1.placeholder" in (project / "legacy.py").read_text()
    assert (project / "py2.py").read_text() == "import tensorflow as tf\nprint tf.__version__\n"


def test_rules_lists_and_explains(project):
    listing = tfmigrate("rules", cwd=project, check=0).stdout
    assert "TFM501" in listing
    one = tfmigrate("rules", "TFM501", cwd=project, check=0).stdout
    assert "Example 1" in one and "after" in one
    data = json.loads(tfmigrate("rules", "--format", "json", cwd=project, check=0).stdout)
    assert all(r["why"] and r["examples"] for r in data)
    assert tfmigrate("rules", "TFM999", cwd=project).returncode == 2


def test_rewrite_path_does_not_import_tensorflow(project):
    code = (
        "import sys; from tfmigrate.cli import cli\n"
        "try:\n    cli.main(['rewrite', '--check', '--jobs', '1', '.'], standalone_mode=False)\n"
        "except SystemExit: pass\n"
        "assert 'tensorflow' not in sys.modules, 'tensorflow was imported'\n"
        "slow = [m for m in ('libcst.matchers', 'libcst.codemod') if m in sys.modules]\n"
        "assert not slow, f'{slow} imported: a quarter of a second at every pre-commit run'\n"
        "print('clean')\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], cwd=project, capture_output=True, text=True)
    assert proc.stdout.strip().endswith("clean"), proc.stderr


@pytest.mark.slow
def test_ctrl_c_leaves_every_file_old_or_new(tmp_path):
    count = 400
    body = LEGACY * 40
    for i in range(count):
        (tmp_path / f"m{i:03d}.py").write_text(body)
    proc = subprocess.Popen([sys.executable, "-m", "tfmigrate", "rewrite", "--jobs", "2", "-q", "."], cwd=tmp_path,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True)
    deadline = time.time() + 60
    while time.time() < deadline:  # interrupt once some, but not all, files are rewritten
        done = sum("compat.v1" in p.read_text() for p in list(tmp_path.glob("m*.py"))[:50])
        if done:
            break
        time.sleep(0.05)
    os.killpg(proc.pid, signal.SIGINT)
    proc.wait(timeout=60)
    from tfmigrate.codemod.engine import rewrite_source
    from tfmigrate.codemod.rule import load_catalog

    rewritten = rewrite_source(body.encode(), load_catalog().selected(None)).new.decode()
    states = [path.read_text() for path in sorted(tmp_path.iterdir())]
    assert sorted(p.name for p in tmp_path.iterdir()) == [f"m{i:03d}.py" for i in range(count)], "temp files left behind"
    assert all(text in (body, rewritten) for text in states), "a file was half-written"
    assert proc.returncode == 130
    stderr = proc.stderr.read().decode()
    assert "interrupted: every file is either as it was or fully rewritten" in stderr
    assert "Traceback" not in stderr


def test_terminal_output_is_literal_no_emoji_no_markup(tmp_path):
    # ":100:" in "file.py:100:5" must not become an emoji; "[bold]" in a path must not vanish.
    odd = tmp_path / "[bold]odd"
    odd.mkdir()
    (odd / "m.py").write_text("import tensorflow as tf\n" + "\n" * 98 + "x = tf.placeholder(1)\n")
    proc = tfmigrate("rewrite", "--check", ".", cwd=tmp_path, check=1)
    assert "[bold]odd/m.py:100:5: TFM501" in proc.stdout


def test_json_records_stay_one_a_line_whatever_their_messages_hold():
    from tfmigrate.report.json_format import data, render
    from tfmigrate.results import FileResult, Finding, Report

    tricky = 'ends a record: }, {"rule": "TFM999"} and a newline\n'
    report = Report(mode="check")
    findings = [Finding("TFM501", "error", "a.py", n, 1, tricky, "fixable") for n in (1, 2)]
    report.files.append(FileResult("a.py", "changed", findings=findings))
    out = render(report)
    assert json.loads(out) == data(report)
    lines = [line.strip().rstrip(",") for line in out.splitlines() if line.strip().startswith('{"rule"')]
    assert [json.loads(line)["line"] for line in lines] == [1, 2]
