"""``tfmigrate report``: rewrite diffs, manual findings, checkpoint analysis and validation in one Report.

The project fixture is a legacy contrib.learn program whose model_dir holds a contrib.learn 1.x
checkpoint (``samples/checkpoints/contrib1x``, hidden [10, 10]) while the code now says [20, 10],
plus a Saver-traps program (manual findings). One report run (two short TF children) feeds the tests.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import textwrap
from pathlib import Path

import pytest

from tests.clichildren import run_cli

ROOT = Path(__file__).resolve().parents[1]
HOSTILE = '</div><script>alert("x")</script>'

LEGACY = textwrap.dedent(
    f'''
    import tensorflow as tf
    from tensorflow.contrib import learn

    FEATURES = [tf.contrib.layers.real_valued_column("x", dimension=4)]

    classifier = learn.DNNClassifier(hidden_units=[20, 10], n_classes=3, feature_columns=FEATURES, model_dir="model")
    print({HOSTILE!r})
    '''
).lstrip()


def tfmigrate(*args: str, cwd: Path, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    """``python -m tfmigrate ARGS``: a fork of the warm CLI server (tests/clichildren.py)."""
    env = dict(os.environ, COLUMNS="80", TERM="dumb")
    return run_cli(args, cwd=cwd, env=env, timeout=timeout)


def make_project(root: Path) -> Path:
    proj = root / "proj"
    proj.mkdir()
    (proj / "train.py").write_text(LEGACY, encoding="utf-8")
    shutil.copy(ROOT / "samples" / "saver_traps" / "legacy.py", proj / "saver.py")
    shutil.copytree(ROOT / "samples" / "checkpoints" / "contrib1x", proj / "model")
    return proj


@pytest.fixture(scope="module")
def reported(tmp_path_factory: pytest.TempPathFactory) -> tuple[subprocess.CompletedProcess[str], Path]:
    root = tmp_path_factory.mktemp("report")
    proj = make_project(root)
    out = root / "out"
    out.mkdir()
    proc = tfmigrate(
        "report", ".", "--validate", "--steps", "2", "--diff",
        "--html", str(out / "r.html"), "--markdown", str(out / "r.md"), "--markdown-full", str(out / "r-full.md"),
        "--json", str(out / "r.json"), "--sarif", str(out / "r.sarif"),
        cwd=proj,
    )
    return proc, out


@pytest.mark.slow
def test_terminal_summary_first_and_fits_80_columns(reported: tuple[subprocess.CompletedProcess[str], Path]) -> None:
    proc, _ = reported
    assert proc.returncode == 1, proc.stderr
    lines = [ln for ln in proc.stdout.splitlines() if ln.strip()]
    assert lines[0].strip() == "tfmigrate report"
    assert max(len(ln) for ln in lines[:5]) <= 80  # the summary fits a small terminal
    head = "\n".join(lines[:6])
    assert "2 scanned, " in head and " to change" in head
    assert "1 analysed, 1 incompatible" in head and "1 run, 1 failed" in head
    text = " ".join(proc.stdout.split())
    # details come after the summary: a manual finding, the diff, the checkpoint table, the stages
    assert text.index("manual steps") > text.index("tfmigrate report")
    # by rule: the rule and its why once, then each place in one line
    assert text.index("TFM201 (") > text.index("manual steps") and text.index("why: tf.train.Saver()") > text.index("TFM201 (")
    assert text.index(" saver.py:20:") > text.index("why: tf.train.Saver()")
    assert "automatic fixes" in text and "TFM102" in text
    assert "+classifier = tf.estimator.DNNClassifier(" in proc.stdout  # --diff
    assert "dnn/hiddenlayer_0/kernel" in text and "missing_from_checkpoint" in text
    assert "model_dir checkpoint" in text and "FAIL" in text
    # it ends with the summary and the files it wrote (piped: plain, one line each, never wrapped)
    end = lines[lines.index("── summary ──"):]
    assert end[1].strip() == "tfmigrate report" and "1 analysed, 1 incompatible" in "\n".join(end)
    assert [ln.split(": ", 1)[0] for ln in end if ln.startswith("wrote ")] == [
        "wrote HTML", "wrote Markdown (full)", "wrote Markdown", "wrote JSON", "wrote SARIF"]
    assert end[end.index("── next steps ──") - 1].endswith("r.sarif")
    # and the commands that follow, last: apply the fixes, see the checkpoint, the rules of the manual steps
    steps = [ln.split("   # ")[0].strip() for ln in end[end.index("── next steps ──") + 1:]]
    assert steps[0] == "tfmigrate rewrite ." and steps[-1].startswith("tfmigrate rules TFM201"), steps
    assert [s for s in steps if s.startswith("tfmigrate ckpt convert ") and "model.ckpt-1-tf2 --model train.py:5" in s], steps


@pytest.mark.slow
def test_json_holds_every_stage(reported: tuple[subprocess.CompletedProcess[str], Path]) -> None:
    _, out = reported
    data = json.loads((out / "r.json").read_text(encoding="utf-8"))
    assert data["schema"] == 2 and data["mode"] == "diff"
    assert data["summary"]["changed"] >= 1 and data["summary"]["manual"] >= 4
    assert data["summary"]["fixed"] == 0 and data["summary"]["fixable"] == sum(f["fix"] == "fixable" for f in data["findings"]) > 0
    assert {"TFM102", "TFM157", "TFM201"} <= {f["rule"] for f in data["findings"]}
    (ck,) = data["checkpoints"]
    assert ck["compatible"] is False and "contrib.learn 1.x" in ck["verdict"]
    assert ck["checkpoint"].endswith("model/model.ckpt-1")
    (v,) = data["validations"]
    assert v["target"] == "train.py:5 tf.estimator.DNNClassifier"
    assert v["passed"] is False and v["outcome"] == "failed" and v["device"] in ("CPU", "GPU")
    stages = {s["name"]: s for s in v["stages"]}
    assert stages["model_dir checkpoint"]["passed"] is False
    assert all(stages[n]["passed"] for n in ("train", "checkpoint files", "restore", "resume", "checkpoint analysis"))


@pytest.mark.slow
def test_markdown_and_sarif(reported: tuple[subprocess.CompletedProcess[str], Path]) -> None:
    _, out = reported
    md = (out / "r.md").read_text(encoding="utf-8")
    # the comment: a verdict a line, the next commands, and the artifact it names
    assert md.startswith("## tfmigrate report") and "- validation of `train.py:5 tf.estimator.DNNClassifier`: **failed** at model\\_dir checkpoint" in md
    assert "**incompatible**" in md and "### Next steps" in md and md.rstrip().endswith(f"The full report is in `{out / 'r-full.md'}`.")
    full = (out / "r-full.md").read_text(encoding="utf-8")
    assert "### Checkpoint" in full and "### Validation of `train.py:5 tf.estimator.DNNClassifier`: failed" in full and "+classifier = " in full
    sarif = json.loads((out / "r.sarif").read_text(encoding="utf-8"))
    assert sarif["version"] == "2.1.0" and any(r["ruleId"] == "TFM201" for r in sarif["runs"][0]["results"])


@pytest.mark.slow
def test_html_is_self_contained_and_escaped(reported: tuple[subprocess.CompletedProcess[str], Path]) -> None:
    _, out = reported
    page = (out / "r.html").read_text(encoding="utf-8")
    low = page.lower()
    assert "<script" not in low and "<link" not in low and "@import" not in low and "url(" not in low
    assert 'src="http' not in low and 'href="http' not in low
    assert "&lt;/div&gt;&lt;script&gt;" in page  # the program's text is shown, never interpreted
    assert "<style>" in page and ".diff" in page


def chromium() -> str | None:
    return shutil.which("chromium") or shutil.which("chromium-browser")


CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
                  "--disable-component-update", "--disable-sync"]

# Test-only probe appended to a copy of the report: what the browser renders (innerText honours CSS)
# and the computed colours, written into the DOM that --dump-dom prints.
PROBE = """
<script>
const out = {};
out.text = document.body.innerText;
const bad = [...document.querySelectorAll('table.ckpt tr.row-bad')].filter(r => r.offsetHeight > 0);
out.badRows = bad.map(r => r.innerText);
out.badBg = bad.length ? getComputedStyle(bad[0].cells[0]).backgroundColor : null;
const add = document.querySelector('.diff .add');
out.addBg = add ? getComputedStyle(add).backgroundColor : null;
out.scripts = document.scripts.length;
out.external = [...document.querySelectorAll('[src],[href]')].map(e => e.getAttribute('src') || e.getAttribute('href')).filter(u => !u.startsWith('#'));
const pre = document.createElement('pre'); pre.id = 'probe'; pre.textContent = JSON.stringify(out);
document.body.appendChild(pre);
</script>
"""


@pytest.mark.slow
@pytest.mark.skipif(chromium() is None, reason="chromium not on PATH (Debian: apt-get install -y chromium)")
def test_html_in_headless_chromium(reported: tuple[subprocess.CompletedProcess[str], Path], tmp_path: Path) -> None:
    import html as htmllib
    import re

    _, out = reported
    probe_page = tmp_path / "probe.html"
    probe_page.write_text((out / "r.html").read_text(encoding="utf-8").replace("</body>", PROBE + "</body>"), encoding="utf-8")
    flags = [*CHROMIUM_FLAGS, f"--user-data-dir={tmp_path / 'profile'}"]
    proc = subprocess.run([chromium(), *flags, "--dump-dom", probe_page.as_uri()], capture_output=True, text=True, timeout=120)
    m = re.search(r'<pre id="probe">(.*?)</pre>', proc.stdout, re.S)
    assert m, proc.stderr[-2000:]
    seen = json.loads(htmllib.unescape(m.group(1)))
    text = seen["text"]
    # summary numbers as shown
    assert re.search(r"\b2\s+files scanned", text) and re.search(r"\b[12]\s+files to change", text)
    assert re.search(r"0/1\s+checkpoints compatible", text) and re.search(r"0/1\s+validations passed", text)
    # a diff line, a finding with its rule explanation, the validation stage
    assert "classifier = tf.estimator.DNNClassifier(" in text
    assert "TFM201" in text and "Saver" in text and "manual" in text
    assert "model_dir checkpoint" in text and "FAILED" in text
    # the hostile string from the program is shown as text, and no script of the report ran
    assert HOSTILE in text and seen["scripts"] == 1 and seen["external"] == []
    # mismatched weights are highlighted (red background), added lines green
    assert any("dnn/hiddenlayer_0/kernel" in r and "missing_from_checkpoint" in r for r in seen["badRows"])
    assert seen["badBg"] == "rgb(255, 235, 233)"
    assert seen["addBg"] == "rgb(230, 255, 236)"
    # and a screenshot renders
    shot = tmp_path / "report.png"
    subprocess.run([chromium(), *flags, f"--screenshot={shot}", "--window-size=1200,1600", (out / "r.html").as_uri()],
                   capture_output=True, text=True, timeout=120)
    assert shot.is_file() and shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and shot.stat().st_size > 20_000


@pytest.mark.slow
def test_the_command_shows_the_same_counts_in_all_five_formats(reported: tuple[subprocess.CompletedProcess[str], Path]) -> None:
    from tests import formats

    proc, out = reported
    shown = {
        "terminal": formats.from_terminal(proc.stdout),
        "json": formats.from_json((out / "r.json").read_text(encoding="utf-8")),
        "sarif": formats.from_sarif((out / "r.sarif").read_text(encoding="utf-8")),
        "markdown": formats.from_markdown((out / "r.md").read_text(encoding="utf-8")),
        "html": formats.from_html((out / "r.html").read_text(encoding="utf-8")),
    }
    assert all(counts == shown["json"] for counts in shown.values()), shown
    assert shown["json"]["fixable"] > 0 and shown["json"]["incompatible"] == 1
