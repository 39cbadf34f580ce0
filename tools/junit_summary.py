"""Tooling: sums the JUnit XML reports of one tools/test-all.sh run.

Usage: python tools/junit_summary.py NAME=REPORT.xml|NAME=NOTRUN:WHY|NAME=FAILED:WHAT ...

Prints one line per suite and a closing line
``total: N passed, N failed, N skipped`` (errors count as failed). Each of
these counts as one failure, so that nothing broken can look green: a report
that is missing or unreadable (the suite crashed before writing it), a report
that holds no test (the suite collected nothing), a suite that did not run
(NOTRUN), and a failed build step (FAILED).
Exit status: 0 when nothing failed, 1 otherwise. Standard library only.
"""

from __future__ import annotations

import sys
import xml.etree.ElementTree as ET


def count(path: str) -> tuple[int, int, int]:
    """(passed, failed, skipped) of one report, from its <testcase> elements:
    pytest, ctest and node's junit reporter all write one per test, with a
    <failure>/<error> child when it failed and <skipped> when it did not run."""
    passed = failed = skipped = 0
    for case in ET.parse(path).getroot().iter("testcase"):
        tags = {child.tag for child in case}
        if tags & {"failure", "error"}:
            failed += 1
        elif "skipped" in tags:
            skipped += 1
        else:
            passed += 1
    return passed, failed, skipped


def main(argv: list[str]) -> int:
    total = [0, 0, 0]
    for arg in argv:
        name, _, path = arg.partition("=")
        if path.startswith(("NOTRUN:", "FAILED:")):
            what = "not run" if path.startswith("NOTRUN:") else "failed"
            print(f"  {name:<14} {what} ({path[7:]}): counted as 1 failed")
            total[1] += 1
            continue
        try:
            p, f, s = count(path)
        except (OSError, ET.ParseError, ValueError) as exc:
            print(f"  {name:<14} no report ({exc.__class__.__name__}: {exc}): counted as 1 failed")
            p, f, s = 0, 1, 0
        else:
            if p + f + s == 0:
                print(f"  {name:<14} ran no test: counted as 1 failed")
                f = 1
            else:
                print(f"  {name:<14} {p} passed, {f} failed, {s} skipped")
        total[0] += p
        total[1] += f
        total[2] += s
    print(f"total: {total[0]} passed, {total[1]} failed, {total[2]} skipped")
    return 1 if total[1] else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
