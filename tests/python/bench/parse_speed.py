"""Typed decoding of a page of 100 inspections against ``json.loads`` of the same bytes.

``cargo xtask bench`` writes the page (the bytes the Rust and TypeScript benchmarks read)
and runs this in the virtual environment ``cargo xtask ci`` builds::

    target/python-venv/bin/python tests/python/bench/parse_speed.py PAGE.json [--quick]

Prints the median time of each over several rounds and their ratio, and the time of
building the page's dataclass instances alone (the cost of ``__init__`` for them), then
one JSON line for ``cargo xtask bench``.

Times are the thread's CPU time, and the rounds of the two alternate: on a machine busy
with other work, wall time counts the time the process waits for a core, which hits a
long round more often than a short one, and a stretch of heavier load would land on one
side only.
"""

from __future__ import annotations

import dataclasses
import json
import pathlib
import statistics
import sys
import time
from typing import Callable

from inspection_client import v3
from inspection_client._runtime import codec

PAGE_WIRE = v3.models._page_wire(v3.models._w_Inspection)


def median_seconds(runs: list[Callable[[], object]], rounds: int) -> list[float]:
    """The median CPU time of each of ``runs``, their rounds alternating."""
    samples: list[list[float]] = [[] for _ in runs]
    for _ in range(rounds):
        for run, out in zip(runs, samples):
            start = time.thread_time()
            run()
            out.append(time.thread_time() - start)
    return [statistics.median(s) for s in samples]


def records_of(value: object) -> list[tuple[type, dict[str, object]]]:
    """Every record instance in ``value`` with the arguments that build it again."""
    out: list[tuple[type, dict[str, object]]] = []
    stack = [value]
    while stack:
        v = stack.pop()
        if dataclasses.is_dataclass(v) and not isinstance(v, type):
            fields = dataclasses.fields(v)
            out.append((type(v), {f.name: getattr(v, f.name) for f in fields if f.init}))
            stack.extend(getattr(v, f.name) for f in fields)
        elif isinstance(v, list):
            stack.extend(v)
        elif isinstance(v, dict):
            stack.extend(v.values())
    return out


def main(argv: list[str]) -> None:
    paths = [a for a in argv if not a.startswith("--")]
    if len(paths) != 1:
        raise SystemExit("usage: parse_speed.py PAGE.json [--quick]")
    quick = "--quick" in argv
    raw = pathlib.Path(paths[0]).read_bytes()

    def plain() -> object:
        return json.loads(raw)

    def typed() -> object:
        return codec.decode(PAGE_WIRE, json.loads(raw))

    page = typed()
    assert isinstance(page, v3.Page) and len(page.data) == 100
    for _ in range(1 if quick else 20):
        plain()
        typed()
    rounds = 3 if quick else 200
    t_plain, t_typed = median_seconds([plain, typed], rounds)
    # The least any decoder into these dataclasses pays: building the instances alone.
    records = records_of(page)

    def construct() -> object:
        return [cls(**kwargs) for cls, kwargs in records]

    (t_construct,) = median_seconds([construct], rounds)
    print(
        f"page of 100 inspections ({len(raw) // 1024} KiB), CPU time: typed (json.loads + decode) "
        f"{t_typed * 1e3:.2f} ms, json.loads {t_plain * 1e3:.2f} ms "
        f"(typed/plain = {t_typed / t_plain:.2f})"
    )
    print(
        f"building its {len(records)} dataclass instances alone: {t_construct * 1e3:.2f} ms"
    )
    print(
        json.dumps(
            {
                "typed_ms": t_typed * 1e3,
                "plain_ms": t_plain * 1e3,
                "records": len(records),
                "construct_ms": t_construct * 1e3,
            }
        )
    )


if __name__ == "__main__":
    main(sys.argv[1:])
