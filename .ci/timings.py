#!/usr/bin/env python3
"""The slowest units of a cargo build, from its `--timings` report.

    python3 .ci/timings.py [target/cargo-timings/cargo-timing.html] [N]

Prints the N (default 10) units that took longest to compile, their share of
the build's summed compile time, and the build's wall time. `.ci/run` prints
it after the test build, so a crate that starts to cost minutes shows in any
CI log.
"""

import json
import re
import sys


def units(html: str) -> list:
    """The report's unit table: cargo writes it as `const UNIT_DATA = [...]`."""
    found = re.search(r"const UNIT_DATA = (\[.*?\]);\s*$", html, re.S | re.M)
    if not found:
        raise SystemExit("timings: no UNIT_DATA in the report (a cargo that writes it otherwise?)")
    return json.loads(found.group(1))


def main() -> None:
    path = sys.argv[1] if len(sys.argv) > 1 else "target/cargo-timings/cargo-timing.html"
    count = int(sys.argv[2]) if len(sys.argv) > 2 else 10
    try:
        html = open(path, encoding="utf-8").read()
    except OSError as e:
        raise SystemExit(f"timings: {path}: {e.strerror}")
    table = units(html)
    total = sum(u["duration"] for u in table)
    if total <= 0:
        print(f"timings: {len(table)} units, nothing compiled (the build was already there)")
        return
    wall = max((u["start"] + u["duration"] for u in table), default=0.0)
    print(f"timings: {len(table)} units, {total:.0f} s of compiling in {wall:.0f} s of wall time; the {count} slowest:")
    for u in sorted(table, key=lambda u: -u["duration"])[:count]:
        what = u["name"] + (f" ({u['target'].strip()})" if u.get("target", "").strip() else "")
        print(f"timings: {u['duration']:7.1f} s {100 * u['duration'] / total:5.1f} %  {what} {u['version']}")


if __name__ == "__main__":
    main()
