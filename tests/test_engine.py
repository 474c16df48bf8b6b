"""The engine on real files: nothing is lost, errors are one line, results do not depend on --jobs."""

import os
import signal
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from tfmigrate.codemod.engine import process_file, rewrite_source
from tfmigrate.codemod.runner import Options, run
from tfmigrate.codemod.files import SourceError, write_atomic
from tfmigrate.report.json_format import data
from tfmigrate.codemod.rule import load_catalog

BEFORE = "import tensorflow as tf\nx = tf.placeholder(tf.float32)\n"
AFTER = "import tensorflow as tf\nx = tf.compat.v1.placeholder(tf.float32)\n"


@pytest.fixture()
def options(fixture_catalog_dir):
    catalog = load_catalog(fixture_catalog_dir)
    return Options(enabled=frozenset(catalog.rules), mode="write", jobs=1, catalog_dir=fixture_catalog_dir)


def rewrite_bytes(data: bytes, options: Options) -> bytes:
    return rewrite_source(data, options.enabled, catalog=options.catalog).new


@pytest.mark.parametrize(
    ("before", "after"),
    [
        pytest.param(BEFORE.encode(), AFTER.encode(), id="plain"),
        pytest.param(b"\xef\xbb\xbf" + BEFORE.encode(), b"\xef\xbb\xbf" + AFTER.encode(), id="utf8-bom"),
        pytest.param(BEFORE.replace("\n", "\r\n").encode(), AFTER.replace("\n", "\r\n").encode(), id="crlf"),
        pytest.param(BEFORE.rstrip("\n").encode(), AFTER.rstrip("\n").encode(), id="no-final-newline"),
        pytest.param(
            b"# -*- coding: latin-1 -*-\nimport tensorflow as tf\nname = '\xe9t\xe9'\nif 1:\n\tx = tf.placeholder(1)\n",
            b"# -*- coding: latin-1 -*-\nimport tensorflow as tf\nname = '\xe9t\xe9'\nif 1:\n\tx = tf.compat.v1.placeholder(1)\n",
            id="latin1-cookie-and-tabs",
        ),
    ],
)
def test_bytes_round_trip_keeps_encoding_newlines_and_tabs(before, after, options):
    assert rewrite_bytes(before, options) == after


def test_unchanged_file_is_not_written(tmp_path, options):
    path = tmp_path / "clean.py"
    path.write_text("import tensorflow as tf\nx = tf.constant(1)\n")
    os.utime(path, (1_000_000, 1_000_000))
    result = process_file(path, options)
    assert result.status == "unchanged"
    assert path.stat().st_mtime == 1_000_000


def test_changed_file_keeps_mode_and_leaves_no_temp_files(tmp_path, options):
    path = tmp_path / "script.py"
    path.write_bytes(BEFORE.encode())
    path.chmod(0o751)
    result = process_file(path, options)
    assert result.status == "changed"
    assert path.read_bytes() == AFTER.encode()
    assert stat.S_IMODE(path.stat().st_mode) == 0o751
    assert sorted(p.name for p in tmp_path.iterdir()) == ["script.py"]


def test_write_through_symlink_keeps_the_link(tmp_path, options):
    real = tmp_path / "real.py"
    real.write_bytes(BEFORE.encode())
    link = tmp_path / "link.py"
    link.symlink_to(real)
    process_file(link, options)
    assert link.is_symlink()
    assert real.read_bytes() == AFTER.encode()


def test_check_and_diff_modes_write_nothing(tmp_path, options):
    path = tmp_path / "a.py"
    path.write_bytes(BEFORE.encode())
    for mode in ("check", "diff"):
        result = process_file(path, Options(options.enabled, mode, 1, options.catalog_dir))
        assert result.status == "changed"
        assert "+x = tf.compat.v1.placeholder(tf.float32)" in result.diff
        assert not result.findings[0].fixed
    assert path.read_bytes() == BEFORE.encode()


@pytest.mark.parametrize(
    ("source", "message"),
    [
        pytest.param(
            b"import tensorflow as tf\nv = tf.Variable(1)\nprint sess.run(v)\n",
            "bad.py:3:1: cannot parse: Missing parentheses in call to 'print'",
            id="python2-print",
        ),
        pytest.param(
            b"import tensorflow as tf\ntry:\n    pass\nexcept ValueError, e:\n    pass\n",
            "bad.py:4:",
            id="python2-except",
        ),
    ],
)
def test_python2_source_is_one_line_error_with_hint(tmp_path, options, source, message):
    path = tmp_path / "bad.py"
    path.write_bytes(source)
    os.chdir(tmp_path)
    result = process_file(path, options)
    assert result.status == "error"
    assert result.error.startswith(message)
    assert result.error.endswith("(Python 2 source? convert it to Python 3 first)")
    assert "\n" not in result.error
    assert path.read_bytes() == source


def test_undecodable_bytes_name_the_line(tmp_path, options):
    path = tmp_path / "enc.py"
    path.write_bytes(b"import tensorflow as tf\nx = 'caf\xff'\n")
    os.chdir(tmp_path)
    result = process_file(path, options)
    assert result.status == "error"
    assert result.error.startswith("enc.py:2:")
    assert "0xff" in result.error


def test_bad_coding_cookie_is_an_error_not_a_traceback(tmp_path, options):
    path = tmp_path / "cookie.py"
    path.write_bytes(b"# -*- coding: klingon -*-\nimport tensorflow as tf\n")
    result = process_file(path, options)
    assert result.status == "error" and "cannot decode" in result.error


def test_vanished_and_unreadable_files(tmp_path, options):
    gone = process_file(tmp_path / "gone.py", options)
    assert gone.status == "error" and "vanished" in gone.error
    locked = tmp_path / "locked.py"
    locked.write_bytes(BEFORE.encode())
    locked.chmod(0)
    if os.geteuid() != 0:  # root reads everything
        assert process_file(locked, options).status == "error"


def test_suppression_comments(options):
    source = (
        "import tensorflow as tf\n"
        "a = tf.placeholder(1)  # tfmigrate: ignore[TFM901]\n"
        "b = tf.placeholder(1)  # tfmigrate: ignore\n"
        "c = tf.placeholder(1)  # tfmigrate: ignore[TFM902]\n"
        "d = tf.placeholder(1)  # tfmigrate: ignore[TFM9]\n"
    )
    out = rewrite_bytes(source.encode(), options).decode()
    assert out.splitlines()[1:] == [
        "a = tf.placeholder(1)  # tfmigrate: ignore[TFM901]",
        "b = tf.placeholder(1)  # tfmigrate: ignore",
        "c = tf.compat.v1.placeholder(1)  # tfmigrate: ignore[TFM902]",
        "d = tf.placeholder(1)  # tfmigrate: ignore[TFM9]",
    ]


def test_findings_point_at_original_lines_in_check_mode_and_new_lines_after_write(tmp_path, options):
    source = "import tensorflow as tf\nx = (tf\n  .placeholder)(1)\n\n\ntf.contrib.thing()\n"
    result = rewrite_source(source.encode(), options.enabled, catalog=options.catalog)
    assert [(f.rule, f.line) for f in result.findings] == [("TFM901", 2), ("TFM902", 6)]
    new_lines = result.new.decode().splitlines()
    contrib = next(f for f in result.new_findings if f.rule == "TFM902")
    assert new_lines[contrib.line - 1].startswith("tf.contrib")


def test_discovery_honours_gitignore_venvs_and_excludes(tmp_path, options):
    (tmp_path / ".git").mkdir()
    (tmp_path / ".gitignore").write_text("generated/\n*_pb2.py\n")
    files = {
        "pkg/model.py": BEFORE,
        "pkg/model_pb2.py": BEFORE,
        "generated/out.py": BEFORE,
        "env/lib/site.py": BEFORE,
        "build/lib/x.py": BEFORE,
        "notes/skip_me.py": BEFORE,
        "pkg/readme.txt": BEFORE,
    }
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    (tmp_path / "env/pyvenv.cfg").write_text("home = /usr\n")
    (tmp_path / "pkg/loop").symlink_to(tmp_path / "pkg", target_is_directory=True)
    os.chdir(tmp_path)
    report = run(["."], Options(options.enabled, "check", 1, options.catalog_dir), excludes=("notes/*",))
    assert [r.path for r in report.files] == ["pkg/model.py"]


def test_jobs_do_not_change_results(tmp_path, options):
    for i in range(40):
        body = BEFORE if i % 3 else "import tensorflow as tf\ntf.contrib.x()\n"
        (tmp_path / f"m{i:02d}.py").write_text(body * (1 + i % 4))
    (tmp_path / "broken.py").write_text("import tensorflow\nprint 'x'\n")
    os.chdir(tmp_path)
    serial = data(run(["."], Options(options.enabled, "diff", 1, options.catalog_dir)))
    parallel = data(run(["."], Options(options.enabled, "diff", 2, options.catalog_dir)))
    assert serial == parallel
    assert serial["summary"]["errors"] == 1
    assert serial["summary"]["changed"] == 26


def test_missing_path_is_reported(tmp_path, options):
    os.chdir(tmp_path)
    report = run(["nope.py"], options)
    assert report.files[0].status == "error"
    assert report.files[0].error == "nope.py: no such file or directory"


def test_write_atomic_refuses_vanished_target(tmp_path):
    with pytest.raises(SourceError, match="vanished"):
        write_atomic(tmp_path / "missing.py", b"x = 1\n")


def test_prefilter_skips_files_without_needles(tmp_path, options):
    path = tmp_path / "plain.py"
    path.write_text("import numpy as np\nx = np.zeros(3)\n")
    assert process_file(path, options).status == "skipped"


@pytest.mark.parametrize(
    "body",
    [
        pytest.param("x = " + "(" * 5000 + "1" + ")" * 5000, id="deep-parens"),
        pytest.param("x = " + "+".join(["1"] * 50_000), id="long-chain"),
        pytest.param("x = " + "a." * 20_000 + "b", id="long-attribute"),
    ],
)
def test_pathological_nesting_is_a_quick_one_line_error(tmp_path, options, body):
    # libcst's parser crashes or takes minutes on these; CPython's parser rejects them at once.
    path = tmp_path / "deep.py"
    path.write_text("import tensorflow as tf\n" + body + "\n")
    result = process_file(path, options)
    assert result.status == "error"
    assert "cannot parse" in result.error and "\n" not in result.error


def test_catch_all_is_silent_where_a_specific_rule_asked_for_manual_work():
    catalog = load_catalog()
    source = (
        b"import tensorflow as tf\nfrom tensorflow.contrib import learn\n"
        b"est = learn.SKCompat(learn.Estimator(model_fn=f))\ny = tf.contrib.crf.crf_log_likelihood(x, 3)\n"
    )
    result = rewrite_source(source, catalog.selected(None), catalog=catalog)
    by_line = {}
    for f in result.findings:
        by_line.setdefault(f.line, set()).add(f.rule)
    assert "TFM155" in by_line[3] and "TFM503" not in by_line[3]  # SKCompat: the specific rule speaks
    assert by_line[4] == {"TFM503"}  # tf.contrib.crf: only the catch-all knows it
    assert "TFM503" in by_line[2]  # the leftover contrib import still fails on TF 2.15


def test_a_crashing_transform_costs_one_file_not_the_run(tmp_path, fixture_catalog_dir):
    (tmp_path / "crash.toml").write_text(
        (fixture_catalog_dir / "demo.toml").read_text().replace('"TFM9"', '"TFM8"', 1)
        .replace("TFM90", "TFM80").replace("tfm_fixture_transform:Demo", "tfm_fixture_transform:Crash")
    )
    catalog = load_catalog(tmp_path)
    path = tmp_path / "victim.py"
    path.write_bytes(BEFORE.encode())
    result = process_file(path, Options(frozenset(catalog.rules), "write", 1, tmp_path))
    assert result.status == "error"
    assert "internal error in the TFM8 rules (ZeroDivisionError" in result.error and "\n" not in result.error
    assert path.read_bytes() == BEFORE.encode()


def test_findings_on_consecutive_rewritten_lines_keep_their_own_lines(options):
    source = "import tensorflow as tf\nif 1:\n    a = tf.placeholder(1)\n    b = tf.placeholder(2)\n"
    result = rewrite_source(source.encode(), options.enabled, catalog=options.catalog)
    assert [f.line for f in result.new_findings] == [3, 4]


def test_line_map_realigns_around_insertions_and_removals():
    from tfmigrate.codemod.lines import line_map as _line_map

    old = [f"line{i}" for i in range(10)]
    inserted = _line_map("\n".join(old), "\n".join(["line0", "new", *old[1:]]))
    assert [inserted(i) for i in range(1, 11)] == [1, 3, 4, 5, 6, 7, 8, 9, 10, 11]
    removed = _line_map("\n".join(old), "\n".join(old[:3] + old[5:]))
    assert [removed(i) for i in (1, 3, 4, 5, 6, 10)] == [1, 3, 4, 4, 4, 8]
    # repeated lines (blank lines, boilerplate) carry no anchor but still map in order
    repeated = _line_map("x\n\n\n\ny\n", "x\n\n\n\nz\ny\n")
    assert [repeated(i) for i in (1, 5)] == [1, 6]



def _interrupt_at_line_event(n: int, call):
    """Run ``call`` and send this process a real SIGINT at its ``n``-th traced line (its callees'
    lines included). Returns (whether the signal was sent, whether KeyboardInterrupt came out)."""
    seen = 0
    sent = False

    def tracer(frame, event, arg):
        nonlocal seen, sent
        if event == "line" and not sent:
            seen += 1
            if seen == n:
                sent = True
                os.kill(os.getpid(), signal.SIGINT)
        return tracer

    sys.settrace(tracer)
    try:
        call()
        interrupted = False
    except KeyboardInterrupt:
        interrupted = True
    finally:
        sys.settrace(None)
    return sent, interrupted


def interrupt_every_line_of_a_write(directory: Path) -> int:
    """Write a file once per line event of write_atomic and what it calls (tempfile's name
    picking, the fdopen, the chmod...), with a real SIGINT landing on that line; check what an
    interrupt leaves each time. Returns how many points were tried."""
    signal.signal(signal.SIGINT, signal.default_int_handler)
    old, new = b"x = 1\n", b"x = 2\n"
    target = directory / "m.py"
    n = 0
    while True:
        n += 1
        target.write_bytes(old)
        target.chmod(0o640)
        sent, interrupted = _interrupt_at_line_event(n, lambda: write_atomic(target, new))
        assert [p.name for p in directory.iterdir()] == ["m.py"], f"temp file left by an interrupt at line event {n}"
        assert target.read_bytes() in (old, new)
        assert stat.S_IMODE(target.stat().st_mode) == 0o640
        assert interrupted == sent, f"interrupt at line event {n} was {'swallowed' if sent else 'invented'}"
        if not sent:
            break
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
    return n


def test_ctrl_c_at_any_point_of_a_write_leaves_old_or_new_and_no_temp_file(tmp_path):
    # The deterministic version of the Ctrl-C test below. In a fresh process: its signal handling
    # is its own, and an interrupt inside tempfile's first-use lock (which the old code allowed)
    # deadlocks the process instead of failing a test.
    script = f"import test_engine, pathlib; print(test_engine.interrupt_every_line_of_a_write(pathlib.Path({str(tmp_path)!r})))"
    proc = subprocess.run([sys.executable, "-c", script], cwd=Path(__file__).parent, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert int(proc.stdout) > 100  # the interrupt really walked through tempfile's code, not just our lines


def interrupt_a_worker(directory: Path) -> str:
    """A worker process's Ctrl-C handling, in this process: idle, busy, and after."""
    from tfmigrate.codemod import runner as engine  # the workers live in runner

    engine._start_worker(Options(enabled=load_catalog().selected(None), mode="write"))
    first, second = directory / "a.py", directory / "b.py"
    for path in (first, second):
        path.write_text(BEFORE * 50)
    assert engine._process_in_worker(first).status == "changed"  # a worker works
    first.write_text(BEFORE * 50)
    sent, interrupted = _interrupt_at_line_event(2000, lambda: engine._process_in_worker(first))
    assert sent and interrupted, "Ctrl-C did not stop the file a worker was on"
    assert first.read_text() in (BEFORE * 50, AFTER * 50)
    os.kill(os.getpid(), signal.SIGINT)  # waiting for work: noted, no exception, no traceback
    for _ in range(100):  # let the handler run (it runs between bytecodes)
        pass
    with pytest.raises(KeyboardInterrupt):  # and no new file is started after Ctrl-C
        engine._process_in_worker(second)
    assert second.read_text() == BEFORE * 50
    assert sorted(p.name for p in directory.iterdir()) == ["a.py", "b.py"]
    return "ok"


def test_a_worker_stops_on_ctrl_c_and_an_idle_one_is_quiet(tmp_path):
    script = f"import test_engine, pathlib; print(test_engine.interrupt_a_worker(pathlib.Path({str(tmp_path)!r})))"
    proc = subprocess.run([sys.executable, "-c", script], cwd=Path(__file__).parent, capture_output=True, text=True, timeout=60)
    assert (proc.returncode, proc.stdout, proc.stderr) == (0, "ok\n", "")


def test_files_that_never_name_tensorflow_are_skipped_without_libcst(tmp_path):
    """The pre-commit case: ordinary code full of the families' needle words ("estimator",
    "Saver", "summary", "Hook") imports nothing the rules rewrite; it is recognised from its bytes
    in the main process, no worker and no libcst import."""
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "model.py").write_text("class Saver:\n    def summary(self, estimator, Hook):\n        return 'eager'\n")
    (tmp_path / "pkg" / "flow.py").write_text("workflow = 'dataflow'\n")
    (tmp_path / "train.py").write_text("import tensorflow as tf\nx = tf.placeholder(tf.float32)\n")
    script = (
        "import sys\n"
        "from tfmigrate.codemod.runner import Options, run\n"
        "from tfmigrate.codemod.rule import load_catalog\n"
        f"report = run([{str(tmp_path / 'pkg')!r}], Options(enabled=load_catalog().selected(None), jobs=2))\n"
        "print(sorted(str(f.status) for f in report.files), 'libcst' in sys.modules)\n"
        f"report = run([{str(tmp_path)!r}], Options(enabled=load_catalog().selected(None), jobs=1))\n"
        "print(sorted((f.path.rsplit('/', 1)[-1], str(f.status)) for f in report.files), 'libcst' in sys.modules)\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    first, second = done.stdout.splitlines()
    assert first == "['skipped', 'skipped'] False"
    assert second == "[('flow.py', 'skipped'), ('model.py', 'skipped'), ('train.py', 'changed')] True"
