"""tests/contract/verdict.py, the contract run's judge: a finding no line of the exceptions
file covers fails the run, by name; covered ones pass; a malformed line is refused."""

import subprocess
import sys
from pathlib import Path

VERDICT = Path(__file__).resolve().parents[1] / "contract" / "verdict.py"

REPORT = """<?xml version="1.0" encoding="utf-8"?>
<testsuites><testsuite name="schemathesis">
<testcase name="GET /units" />
<testcase name="GET /tasks"><failure type="failure" message="ST202">1. Test Case ID: a1

- ST202 Schema-valid request rejected

[400] Bad Request:

    `{"errors":"page: `x` is not a valid cursor"}`

Reproduce with:

    curl -X GET 'http://127.0.0.1:1/v3/tasks?page=x'

2. Test Case ID: b2

- ST201 Schema-violating request accepted

[200] OK:

    `{"data":[]}`

Reproduce with:

    curl -X GET 'http://127.0.0.1:1/v3/tasks?per_page=x'
</failure></testcase>
</testsuite></testsuites>
"""

CURSOR = "ST202 | GET /* | 400 | is not a valid cursor | an opaque cursor\n"


def judge(tmp_path: Path, exceptions: str) -> subprocess.CompletedProcess[str]:
    (tmp_path / "report.xml").write_text(REPORT)
    (tmp_path / "exceptions.txt").write_text("# check | operation | status | text | why\n" + exceptions)
    return subprocess.run(
        [sys.executable, str(VERDICT), str(tmp_path / "exceptions.txt"), str(tmp_path / "report.xml")],
        capture_output=True,
        text=True,
        check=False,
    )


def test_an_uncovered_finding_fails_the_run_and_is_named(tmp_path: Path) -> None:
    run = judge(tmp_path, CURSOR)
    assert run.returncode == 1
    assert "not excepted: ST201 | GET /tasks | 200 | `{\"data\":[]}`" in run.stdout
    assert "2 finding(s), 1 excepted" in run.stdout


def test_every_finding_covered_passes(tmp_path: Path) -> None:
    run = judge(tmp_path, CURSOR + "ST201 | GET /tasks | 200 | data | a reason\n")
    assert run.returncode == 0, run.stdout
    assert "2 finding(s), 2 excepted" in run.stdout


def test_a_line_must_match_check_operation_status_and_text(tmp_path: Path) -> None:
    for line in [
        "ST201 | GET /* | 400 | is not a valid cursor | wrong check",
        "ST202 | POST /* | 400 | is not a valid cursor | wrong operation",
        "ST202 | GET /* | 422 | is not a valid cursor | wrong status",
        "ST202 | GET /* | 400 | is not a valid page | wrong text",
    ]:
        run = judge(tmp_path, line + "\n")
        assert run.returncode == 1, line
        assert "0 excepted" in run.stdout, line


def test_a_malformed_line_is_refused_with_its_place(tmp_path: Path) -> None:
    run = judge(tmp_path, "ST202 | GET /* | 400 | no reason given\n")
    assert run.returncode == 1
    assert "exceptions.txt:2: want `check | operation | status | text | why`" in run.stderr
