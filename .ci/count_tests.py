"""Sum the JUnit reports the nox sessions wrote and fail when no test ran or any failed."""

from __future__ import annotations

import sys
import xml.etree.ElementTree as ET
from pathlib import Path


def main(folder: str) -> int:
    """Print the totals of every JUnit report in ``folder``; non-zero when none passed."""
    reports = sorted(Path(folder).glob("*.xml"))
    passed = failed = skipped = 0
    for report in reports:
        for suite in ET.parse(report).getroot().iter("testsuite"):
            tests = int(suite.get("tests", 0))
            bad = int(suite.get("failures", 0)) + int(suite.get("errors", 0))
            skip = int(suite.get("skipped", 0))
            passed += tests - bad - skip
            failed += bad
            skipped += skip
    names = ", ".join(report.stem for report in reports) or "none"
    print(f"reports: {names}")
    print(f"{passed} passed, {failed} failed, {skipped} skipped")
    if not reports or passed == 0:
        print("no test ran: refusing to pass", file=sys.stderr)
        return 1
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
