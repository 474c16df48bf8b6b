"""Write ``tests/file_costs.json``: each test file's CPU seconds in a whole suite run, which
``tests/conftest.py`` uses to hand the costliest files out first under ``make test``.

usage: python tools/file_costs.py TIMELOG [TIMELOG ...]

TIMELOG: the per-test lines of a suite run with the timelog plugin (``wall\\town CPU\\tchildren CPU\\tnode id``,
tab-separated; lines of warm or forked children carry their CPU in the children column). Each node id's CPU is
summed into its file. Only the order matters: figures of another machine order the files the same way within
the noise.
"""

from __future__ import annotations

import json
import sys
from collections import Counter
from pathlib import Path

OUT = Path(__file__).resolve().parent.parent / "tests" / "file_costs.json"


def main(paths: list[str]) -> None:
    costs: Counter[str] = Counter()
    for path in paths:
        for line in Path(path).read_text(encoding="utf-8").splitlines():
            parts = line.split("\t")
            if len(parts) < 4 or not parts[3].startswith("tests/"):
                continue
            try:
                costs[parts[3].split("::", 1)[0].split(" ", 1)[0]] += float(parts[1]) + float(parts[2])
            except ValueError:
                continue
    OUT.write_text(json.dumps({name: round(cpu, 1) for name, cpu in sorted(costs.items(), key=lambda kv: -kv[1])},
                              indent=0) + "\n", encoding="utf-8")
    print(f"{OUT}: {len(costs)} files, {sum(costs.values()):.0f} CPU s")


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    main(sys.argv[1:])
