"""The HTML report as headless Chromium lays it out, at 1280 and 800 pixels wide (issue 19).

One `tfmigrate report` of the samples (plus a program deep in long-named directories) is opened at
each width; a probe script measures what the browser rendered: no horizontal overflow of the page or
of any element, no path, location or tensor name broken inside a name (a line may break only after a
``/``), no raw Markdown backticks in the text, and a screenshot of each width is taken.
"""

from __future__ import annotations

import html as htmllib
import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.clichildren import run_cli

ROOT = Path(__file__).resolve().parents[1]
DEEP = "a_rather_long_directory_name_for_wrapping/another_level_of_directories/and_one_more"
CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
                  "--disable-component-update", "--disable-sync", "--hide-scrollbars"]

PROBE = """
<script>
const root = document.documentElement;
const out = {width: window.innerWidth, pageOverflow: root.scrollWidth - root.clientWidth};
out.beyond = [...document.querySelectorAll('body *')].filter(el => !(el.parentElement && el.parentElement.closest('.diff, .scroll'))
    && el.getBoundingClientRect().right > root.clientWidth + 1)
  .slice(0, 5).map(el => el.tagName + '.' + el.className + ' ' + Math.round(el.getBoundingClientRect().right) + ': ' + (el.innerText || '').slice(0, 60));
const inDiff = el => el.closest('.diff') !== null;
// elements whose content is wider than their box (and that do not scroll by design)
out.overflowing = [...document.querySelectorAll('main *')].filter(el => {
  const cs = getComputedStyle(el);
  return !inDiff(el) && cs.overflowX === 'visible' && el.clientWidth > 0 && el.scrollWidth > el.clientWidth + 1
    && cs.display !== 'inline';
}).map(el => el.tagName + '.' + el.className + ': ' + el.innerText.slice(0, 80));
// boxes that scroll sideways (tables too wide for the window)
out.scrolling = [...document.querySelectorAll('.scroll')].filter(el => el.scrollWidth > el.clientWidth + 1)
  .map(el => el.innerText.slice(0, 80));
// a path, location or tensor name broken inside a name: a new line that does not follow a '/' or a space
out.broken = [];
out.checked = 0;
for (const el of document.querySelectorAll('.mono')) {
  if (inDiff(el)) continue;
  const walker = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
  let prevTop = null, prevChar = '';
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    for (let i = 0; i < node.length; i++) {
      const range = document.createRange();
      range.setStart(node, i); range.setEnd(node, i + 1);
      const rects = range.getClientRects();
      if (!rects.length) continue;
      const top = rects[0].top;
      if (prevTop !== null && top > prevTop + 2 && !'/ '.includes(prevChar)) {
        out.broken.push(el.innerText.slice(0, 120) + ' @ ' + node.data.slice(Math.max(0, i - 10), i + 10));
      }
      prevTop = top; prevChar = node.data[i];
      out.checked++;
    }
  }
}
// raw Markdown backticks in what a reader sees (code in the diffs may hold real backticks)
const text = [...document.querySelectorAll('main p, main li, main td, main h3, main summary')]
  .filter(el => !inDiff(el)).map(el => el.innerText).join('\\n');
out.backticks = text.split('\\n').filter(line => line.includes('`'));
out.codeSpans = document.querySelectorAll('main p code, main td code, main li code').length;
const pre = document.createElement('pre'); pre.id = 'probe'; pre.textContent = JSON.stringify(out);
document.body.appendChild(pre);
</script>
"""


def chromium() -> str | None:
    return shutil.which("chromium") or shutil.which("chromium-browser")


@pytest.fixture(scope="module")
def page(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("html")
    shutil.copytree(ROOT / "samples", root / "samples")
    deep = root / "samples" / DEEP
    deep.mkdir(parents=True)
    shutil.copy(ROOT / "samples" / "saver_traps" / "legacy.py", deep / "a_legacy_program_with_a_rather_long_file_name.py")
    proc = run_cli(["report", "samples", "--html", "report.html"], cwd=root, timeout=600)
    assert proc.returncode == 1, proc.stderr
    return root / "report.html"


def render(page: Path, width: int, tmp_path: Path) -> dict:
    probe = tmp_path / f"probe-{width}.html"
    probe.write_text(page.read_text(encoding="utf-8").replace("</body>", PROBE + "</body>"), encoding="utf-8")
    flags = [*CHROMIUM_FLAGS, f"--user-data-dir={tmp_path / f'profile-{width}'}", f"--window-size={width},2000"]
    proc = subprocess.run([chromium(), *flags, "--dump-dom", probe.as_uri()], capture_output=True, text=True, timeout=180)
    found = re.search(r'<pre id="probe">(.*?)</pre>', proc.stdout, re.S)
    assert found, proc.stderr[-2000:]
    return json.loads(htmllib.unescape(found.group(1)))


@pytest.mark.slow
@pytest.mark.skipif(chromium() is None, reason="chromium not on PATH (`make browser`, or Debian: apt-get install -y chromium)")
@pytest.mark.parametrize("width", [1280, 800])
def test_the_report_lays_out_at_desktop_and_narrow_widths(page: Path, width: int, tmp_path: Path) -> None:
    seen = render(page, width, tmp_path)
    assert seen["width"] == width
    assert seen["pageOverflow"] <= 0, f"the page scrolls sideways: {seen['beyond']}"
    assert seen["overflowing"] == [], "content wider than its box"
    assert seen["scrolling"] == [], "a table too wide for the window"
    assert seen["checked"] > 5000  # every location and name was measured, character by character
    assert seen["broken"] == [], "a path, location or tensor name broken inside a name"
    assert seen["backticks"] == [] and seen["codeSpans"] > 10, "Markdown backticks shown raw"
    shot = tmp_path / f"report-{width}.png"
    flags = [*CHROMIUM_FLAGS, f"--user-data-dir={tmp_path / f'shot-{width}'}", f"--window-size={width},1600"]
    subprocess.run([chromium(), *flags, f"--screenshot={shot}", page.as_uri()], capture_output=True, text=True, timeout=180)
    assert shot.is_file() and shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and shot.stat().st_size > 20_000


def test_paths_break_only_after_a_slash_and_backticks_become_code() -> None:
    from tfmigrate.report.html import path, prose

    assert path("dir/sub-dir/<x>.py:20:18") == (
        '<span class="nw">dir</span>/<wbr><span class="nw">sub-dir</span>/<wbr><span class="nw">&lt;x&gt;.py:20:18</span>')
    assert path("/abs") == '/<wbr><span class="nw">abs</span>'
    assert prose("compare with `tfmigrate ckpt diff <DIR>` then `x/y`") == (
        "compare with <code>tfmigrate ckpt diff &lt;DIR&gt;</code> then <code>x/<wbr>y</code>")
    assert prose("a lone ` stays") == "a lone ` stays"
