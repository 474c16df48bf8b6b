"""The warm TensorFlow server of tfmigrate's own children (tfmigrate/warm.py, ``tfmigrate serve``).

A forked child must be the process ``python -P -m MODULE ARGS`` would be: each test runs the probe child
(tfmigrate/_warm_probe.py, which reports its own state) forked by this pytest process's server
(tests/warm_servers.py) and, where it compares, fresh, and checks what must hold for tfmigrate's callers:
argv, environment, cwd, file descriptors, exit status, traceback, atexit, the process group that a
timeout kills, the child's death with its client, and the fresh process a bad socket gets instead.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tfmigrate import warm
from tfmigrate.childproc import child_env, interpreter_command, module_command

pytestmark = [pytest.mark.slow, pytest.mark.tf]

PROBE = "tfmigrate._warm_probe"


@pytest.fixture(scope="module")
def served() -> str:
    """This pytest process's TensorFlow 2.15 server's socket (the one the suite's CLI runs use)."""
    from tests import warm_servers

    if os.environ.get("TFMIGRATE_SUITE_FRESH"):
        pytest.skip("TFMIGRATE_SUITE_FRESH: the suite runs without warm servers")
    warm_servers.start([sys.executable])
    path = warm_servers._servers[sys.executable].socket  # type: ignore[attr-defined]
    assert Path(path).exists()
    return path


@pytest.fixture
def only(served: str, monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.setenv(warm.ENV, served)
    warm._warned.clear()
    return served


def _probe(*actions: str, warm_on: bool, monkeypatch: pytest.MonkeyPatch, served: str, cwd: Path, **kw):
    if warm_on:
        monkeypatch.setenv(warm.ENV, served)
    else:
        monkeypatch.delenv(warm.ENV, raising=False)
    env = child_env(dict(os.environ, PROBE_VALUE="x y", PYTHONWARNINGS=kw.pop("warnings", "default")), tmpdir=str(cwd))
    proc = warm.popen(module_command(PROBE, *actions), stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                      text=True, env=env, cwd=cwd, start_new_session=True)
    out, err = proc.communicate("some input\n", timeout=120)
    return proc, out, err


def test_a_forked_child_is_the_fresh_process(served: str, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """Same report (argv, import path, environment, cwd, TMPDIR, stdin, process group and session,
    safe-path flag, stream settings), same atexit output, warning and traceback, same exit status."""
    actions = ("stdin", "tmp", "atexit", "warn", "raise")
    fresh, fresh_out, fresh_err = _probe(*actions, warm_on=False, monkeypatch=monkeypatch, served=served, cwd=tmp_path)
    forked, forked_out, forked_err = _probe(*actions, warm_on=True, monkeypatch=monkeypatch, served=served, cwd=tmp_path)
    assert isinstance(forked, warm.WarmProcess) and isinstance(fresh, subprocess.Popen)
    assert forked.returncode == fresh.returncode == 1
    assert forked_out == fresh_out
    report = json.loads(forked_out.splitlines()[0])
    assert report["cwd"] == str(tmp_path) and report["tmp"] == str(tmp_path) and report["stdin"] == "some input\n"
    assert report["env"]["PROBE_VALUE"] == "x y" and report["pgid_is_pid"] and report["sid_is_pid"]
    assert report["argv"][1:] == list(actions) and report["flags_safe_path"]
    assert forked_out.splitlines()[1] == "ATEXIT"
    assert forked_err == fresh_err
    assert "UserWarning: probe warning" in forked_err and forked_err.rstrip().endswith("RuntimeError: probe failure")
    assert forked.cpu is not None and forked.cpu > 0


def test_the_requests_warning_settings_apply(served: str, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    _, out, err = _probe("warn", "exit=3", warm_on=True, monkeypatch=monkeypatch, served=served, cwd=tmp_path, warnings="ignore")
    assert "probe warning" not in err and out.startswith("{")


def test_tensorflow_is_there_already_and_exit_codes_come_back(only: str, tmp_path: Path) -> None:
    done = warm.run(module_command(PROBE, "tf", "exit=7"), capture_output=True, text=True, env=child_env(), cwd=tmp_path, timeout=120)
    assert done.returncode == 7, done.stderr
    assert json.loads(done.stdout)["tensorflow"].startswith("2.")


def test_the_childs_descriptors_are_the_clients(only: str, tmp_path: Path) -> None:
    """stdout to a file of the client's, stderr into the same file (STDOUT), stdin from /dev/null."""
    log = tmp_path / "log"
    with open(log, "w") as out:
        proc = warm.popen(module_command(PROBE, "stdin", "raise"), stdin=subprocess.DEVNULL, stdout=out,
                          stderr=subprocess.STDOUT, env=child_env())
        assert proc.wait(timeout=120) == 1
    text = log.read_text()
    assert json.loads(text.splitlines()[0])["stdin"] == ""
    assert "RuntimeError: probe failure" in text


def _gone(pid: int, seconds: float = 20) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            return True
        if state == "Z":
            return True
        time.sleep(0.05)
    return False


def test_a_timeout_kills_the_childs_whole_group(only: str) -> None:
    """validate's ``watched`` kills the group of the pid it was given: the real child's, with what it started."""
    from tfmigrate.validate.runner import watched

    proc = warm.popen(module_command(PROBE, "spawn=120"), stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
                      env=child_env(), start_new_session=True)
    assert os.getpgid(proc.pid) == proc.pid
    lines = [proc.stdout.readline(), proc.stdout.readline()]  # the grandchild started: the group has two members
    grandchild = int(lines[1].split()[1])
    with watched(proc, 0.2) as expired:  # type: ignore[arg-type]
        proc.wait(timeout=60)
    assert expired.is_set()
    assert proc.returncode == -signal.SIGKILL
    assert _gone(grandchild)


def test_run_times_out_as_subprocess_run(only: str) -> None:
    with pytest.raises(subprocess.TimeoutExpired):
        warm.run(module_command(PROBE, "sleep=120"), capture_output=True, text=True, env=child_env(), timeout=0.2)


CLIENT = """
import os, subprocess, sys, time
from tfmigrate import warm
from tfmigrate.childproc import child_env, module_command
proc = warm.popen(module_command("tfmigrate._warm_probe", "spawn=120"), stdout=subprocess.PIPE, text=True, env=child_env())
proc.stdout.readline()
print(proc.pid, proc.stdout.readline().split()[1], flush=True)
time.sleep(120)
"""


def test_the_child_dies_with_its_client(only: str) -> None:
    client = subprocess.Popen([sys.executable, "-c", CLIENT], stdout=subprocess.PIPE, text=True, env=child_env())
    try:
        child, grandchild = map(int, client.stdout.readline().split())
        assert not _gone(child, 0.2)
        client.kill()
        client.wait()
        assert _gone(child) and _gone(grandchild)
    finally:
        if client.poll() is None:
            client.kill()
            client.wait()


def _fresh(capsys: pytest.CaptureFixture[str]) -> tuple[subprocess.Popen | warm.WarmProcess, str]:
    proc = warm.popen(module_command(PROBE), stdout=subprocess.PIPE, text=True, env=child_env())
    proc.communicate(timeout=120)
    return proc, capsys.readouterr().err


def test_a_stale_socket_gets_a_fresh_child_and_one_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                       capsys: pytest.CaptureFixture[str]) -> None:
    stale = tmp_path / "stale.sock"
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.bind(str(stale))
    sock.close()  # the file stays, no one listens
    monkeypatch.setenv(warm.ENV, str(stale))
    warm._warned.clear()
    proc, err = _fresh(capsys)
    assert isinstance(proc, subprocess.Popen) and proc.returncode == 0
    assert err.count("\n") == 1 and "stale socket" in err and "fresh process" in err
    assert _fresh(capsys)[1] == ""  # said once


def test_a_file_that_is_not_a_socket_is_ignored(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "plain").write_text("")
    monkeypatch.setenv(warm.ENV, str(tmp_path / "plain"))
    warm._warned.clear()
    proc, err = _fresh(capsys)
    assert isinstance(proc, subprocess.Popen) and "not a socket" in err


@pytest.mark.skipif(os.getuid() != 0, reason="needs to give a socket to another user")
def test_a_socket_of_another_user_is_ignored(served: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    other = tmp_path / "other.sock"
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.bind(str(other))
    sock.listen(1)
    try:
        os.chown(other, 12345, -1)
        monkeypatch.setenv(warm.ENV, str(other))
        warm._warned.clear()
        proc, err = _fresh(capsys)
    finally:
        sock.close()
    assert isinstance(proc, subprocess.Popen) and "owned by uid 12345" in err


def test_another_interpreter_or_seed_is_served_fresh(only: str, capsys: pytest.CaptureFixture[str]) -> None:
    """A request for another interpreter (the real file behind this venv's python) or another hash seed
    gets a fresh process, silently; the next socket of the list could serve it."""
    other = os.path.realpath(sys.executable)
    if other == os.path.abspath(sys.executable):
        pytest.skip("this interpreter is not a link")
    proc = warm.popen(interpreter_command(other, PROBE), stdout=subprocess.PIPE, text=True, env=child_env())
    proc.communicate(timeout=120)
    assert isinstance(proc, subprocess.Popen) and proc.returncode == 0
    seed = "1" if os.environ.get("PYTHONHASHSEED") != "1" else "2"
    proc = warm.popen(module_command(PROBE), stdout=subprocess.PIPE, text=True, env=child_env(dict(os.environ, PYTHONHASHSEED=seed)))
    proc.communicate(timeout=120)
    assert isinstance(proc, subprocess.Popen) and proc.returncode == 0
    assert capsys.readouterr().err == ""


def test_only_tfmigrates_child_modules_are_served(only: str) -> None:
    from tfmigrate.warm import _connect

    request = {"python": os.path.abspath(sys.executable), "module": "json.tool", "args": [], "root": warm.PACKAGE_ROOT,
               "cwd": "/", "env": {}}
    assert _connect(only, request, [0, 1, 2]) is None


def test_each_warm_child_is_one_timelog_line(only: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    log = tmp_path / "timelog"
    monkeypatch.setenv("TIMELOG", str(log))
    warm.run(module_command(PROBE), capture_output=True, env=child_env(), timeout=120)
    wall, own, children, rest = log.read_text().split("\t")
    assert float(children) > 0 and rest.startswith("tests/test_warm_server.py::") and "[warm tfmigrate._warm_probe]" in rest


def test_a_second_server_on_a_live_socket_refuses_to_start(served: str) -> None:
    done = subprocess.run([sys.executable, "-P", "-m", "tfmigrate.warm", served], capture_output=True, text=True, timeout=60,
                          env=child_env())
    assert done.returncode != 0 and "already listens" in done.stderr


def test_serve_is_documented() -> None:
    from click.testing import CliRunner

    from tfmigrate.cli import cli

    out = CliRunner().invoke(cli, ["serve", "--help"]).output
    assert "TFMIGRATE_WARM" in out and "fresh" in out


def test_the_cli_forks_its_tensorflow_child_and_says_the_same(only: str, tmp_path: Path) -> None:
    """``tfmigrate ckpt diff`` as a user runs it, with $TFMIGRATE_WARM and without: the same output and
    exit status; the warm run's TensorFlow child is a fork (its TIMELOG line), the fresh one's is not."""
    root = Path(__file__).resolve().parents[1]
    args = [sys.executable, "-m", "tfmigrate", "ckpt", "diff", "samples/iris_checkpoint_trap/models/iris",
            "--model", "samples/iris_checkpoint_trap/expected.py"]
    runs = {}
    for name in ("warm", "fresh"):
        log = tmp_path / f"{name}.timelog"
        env = dict(os.environ, TIMELOG=str(log))
        if name == "fresh":
            env.pop(warm.ENV)
        runs[name] = subprocess.run(args, cwd=root, env=env, capture_output=True, text=True, timeout=300)
        runs[name + " log"] = log.read_text() if log.exists() else ""
    assert runs["warm"].returncode == runs["fresh"].returncode == 1, runs["warm"].stderr[-2000:]
    assert runs["warm"].stdout == runs["fresh"].stdout and "silent" in runs["warm"].stdout.lower()
    assert "[warm tfmigrate.checkpoint._tfchild]" in runs["warm log"] and runs["fresh log"] == ""
