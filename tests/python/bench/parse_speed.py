"""Typed decoding of a page of 100 inspections against ``json.loads`` of the same bytes.

Run after ``cargo xtask ci`` (which builds the virtual environment and installs the
package)::

    target/python-venv/bin/python tests/python/bench/parse_speed.py

Prints the median time of each, over several rounds, and their ratio.
"""

from __future__ import annotations

import json
import pathlib
import statistics
import time
from typing import Callable

from inspection_client import v3
from inspection_client._runtime import codec

FIXTURE = pathlib.Path(__file__).resolve().parents[2] / "fixtures" / "v3" / "inspection.json"
PAGE_WIRE = v3.models._page_wire(v3.models._w_Inspection)


def page_bytes() -> bytes:
    one = json.loads(FIXTURE.read_text())
    data = []
    for i in range(100):
        record = json.loads(json.dumps(one))
        record["id"] = f"ins_{i:04d}"
        data.append(record)
    return json.dumps({"data": data, "paging": {"next": None}}).encode()


def median_seconds(run: Callable[[], object], rounds: int) -> float:
    samples = []
    for _ in range(rounds):
        start = time.perf_counter()
        run()
        samples.append(time.perf_counter() - start)
    return statistics.median(samples)


def main() -> None:
    raw = page_bytes()

    def plain() -> object:
        return json.loads(raw)

    def typed() -> object:
        return codec.decode(PAGE_WIRE, json.loads(raw))

    page = typed()
    assert isinstance(page, v3.Page) and len(page.data) == 100
    for _ in range(20):
        plain()
        typed()
    rounds = 200
    t_plain = median_seconds(plain, rounds)
    t_typed = median_seconds(typed, rounds)
    print(
        f"page of 100 inspections ({len(raw) // 1024} KiB): typed (json.loads + decode) "
        f"{t_typed * 1e3:.2f} ms, json.loads {t_plain * 1e3:.2f} ms "
        f"(typed/plain = {t_typed / t_plain:.2f})"
    )


if __name__ == "__main__":
    main()
