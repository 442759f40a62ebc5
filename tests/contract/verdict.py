"""The contract run's verdict: every finding in a schemathesis JUnit report must be covered
by a line of exceptions.txt, else the run fails (exit 1), naming each finding no line covers.

usage: verdict.py EXCEPTIONS JUNIT_XML
"""

import fnmatch
import re
import sys
import xml.etree.ElementTree as ET
from dataclasses import dataclass


@dataclass
class Kept:
    line: int
    check: str
    operation: str
    status: str
    text: str
    used: int = 0

    def covers(self, f: "Finding") -> bool:
        return (
            self.check in f.checks
            and fnmatch.fnmatchcase(f.operation, self.operation)
            and self.status == f.status
            and self.text in f.answer
        )


@dataclass
class Finding:
    operation: str
    checks: list[str]
    status: str
    answer: str


def exceptions(path: str) -> list[Kept]:
    out = []
    with open(path, encoding="utf-8") as f:
        for n, raw in enumerate(f, 1):
            line = raw.strip()
            if not line or line.startswith("#"):
                continue
            parts = [p.strip() for p in line.split(" | ")]
            if len(parts) != 5 or not all(parts):
                sys.exit(f"{path}:{n}: want `check | operation | status | text | why`, got: {line}")
            check, operation, status, text, _why = parts
            out.append(Kept(n, check, operation, status, text))
    return out


CASE = re.compile(r"^\d+\. Test Case ID: .*$", re.M)
CHECK = re.compile(r"^- ([A-Z]+\d+) ", re.M)
STATUS = re.compile(r"^\[(\d{3})\][^\n]*\n(.*?)(?:^Reproduce with:|\Z)", re.M | re.S)


def findings(path: str) -> tuple[list[Finding], list[str]]:
    """The findings of the report, and its errors (a test that could not run)."""
    found, errors = [], []
    for case in ET.parse(path).getroot().iter("testcase"):
        operation = case.get("name", "?")
        for error in case.iter("error"):
            errors.append(f"{operation}: {error.get('message', '')} {error.text or ''}".strip())
        for failure in case.iter("failure"):
            for block in CASE.split(failure.text or "")[1:]:
                status = STATUS.search(block)
                found.append(
                    Finding(
                        operation,
                        CHECK.findall(block),
                        status.group(1) if status else "-",
                        status.group(2).strip() if status else block.strip(),
                    )
                )
    return found, errors


def main() -> int:
    kept = exceptions(sys.argv[1])
    found, errors = findings(sys.argv[2])
    uncovered = []
    for f in found:
        cover = next((e for e in kept if e.covers(f)), None)
        if cover is None:
            uncovered.append(f)
        else:
            cover.used += 1
    for e in errors:
        print(f"  error: {e}")
    for f in uncovered:
        print(f"  not excepted: {' '.join(f.checks)} | {f.operation} | {f.status} | {f.answer[:300]}")
    unused = [str(e.line) for e in kept if not e.used]
    print(
        f"  {len(found)} finding(s), {len(found) - len(uncovered)} excepted"
        f" (exceptions.txt lines unused by this interface: {', '.join(unused) or 'none'})"
    )
    return 1 if uncovered or errors else 0


if __name__ == "__main__":
    sys.exit(main())
