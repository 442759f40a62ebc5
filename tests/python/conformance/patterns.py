"""Matching as the scenario README says: `${...}` references filled in, results and errors
against expectation patterns, and the requests the sandbox recorded against the expected
ones."""

from __future__ import annotations

import json
import re

from conformance.json_values import ABSENT, Json, JsonObject, RunnerError, _Absent, as_json, is_number, show


# ---------------------------------------------------------------- ${...} references and patterns

Vars = dict[str, Json]


def lookup(reference: str, variables: Vars) -> Json:
    name, *parts = reference.split(".")
    if name not in variables:
        raise RunnerError(f"`${{{reference}}}`: nothing was saved as `{name}`")
    value = variables[name]
    for part in parts:
        found: Json | _Absent = ABSENT
        if isinstance(value, list):
            if re.fullmatch(r"[0-9]+", part) and int(part) < len(value):
                found = value[int(part)]
        elif isinstance(value, dict):
            found = value.get(part, ABSENT)
        if found is ABSENT:
            raise RunnerError(f"`${{{reference}}}`: `{part}` is not in {show(value)}")
        value = found
    return value


def fill_string(s: str, variables: Vars) -> Json:
    if s.startswith("${") and s.endswith("}") and "${" not in s[2:]:
        return lookup(s[2:-1], variables)
    out = ""
    rest = s
    start = rest.find("${")
    while start >= 0:
        out += rest[:start]
        after = rest[start + 2 :]
        end = after.find("}")
        if end < 0:
            raise RunnerError(f"`{s}`: `${{` without a closing `}}`")
        value = lookup(after[:end], variables)
        out += value if isinstance(value, str) else json.dumps(value, separators=(",", ":"), ensure_ascii=False)
        rest = after[end + 1 :]
        start = rest.find("${")
    return out + rest


def fill(value: Json, variables: Vars) -> Json:
    """Replaces every `${name.path}` in the strings of `value` (a whole-string reference
    keeps its JSON type)."""
    if isinstance(value, str):
        return fill_string(value, variables)
    if isinstance(value, list):
        return [fill(v, variables) for v in value]
    if isinstance(value, dict):
        return {k: fill(v, variables) for k, v in value.items()}
    return value


def same(a: Json, b: Json) -> bool:
    """Equality, numbers by value (a boolean is no number), objects with the same keys."""
    if isinstance(a, bool) or isinstance(b, bool):
        return isinstance(a, bool) and isinstance(b, bool) and a == b
    if is_number(a) or is_number(b):
        return is_number(a) and is_number(b) and a == b
    if isinstance(a, list):
        return isinstance(b, list) and len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    if isinstance(a, dict):
        return isinstance(b, dict) and a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    if isinstance(a, str):
        return isinstance(b, str) and a == b
    return a is None and b is None


def matcher(pattern: Json) -> tuple[str, Json] | None:
    if isinstance(pattern, dict) and len(pattern) == 1:
        ((name, arg),) = pattern.items()
        if name.startswith("$"):
            return name, arg
    return None


def join_path(at: str, key: str) -> str:
    return key if at == "" else f"{at}.{key}"


def check(pattern: Json, actual: Json | _Absent, at: str) -> None:
    """Whether `actual` (ABSENT: not there) matches `pattern`, as the README's patterns say."""
    here = "the result" if at == "" else at
    m = matcher(pattern)
    if m is not None:
        name, arg = m
        if name == "$absent":
            matched = actual is ABSENT
        elif name == "$any":
            matched = actual is not ABSENT
        elif name == "$at_least":
            matched = (
                isinstance(actual, (int, float))
                and not isinstance(actual, bool)
                and isinstance(arg, (int, float))
                and actual >= arg
            )
        elif name == "$starts_with":
            matched = isinstance(actual, str) and isinstance(arg, str) and actual.startswith(arg)
        elif name == "$json":
            matched = False
            if isinstance(actual, str):
                try:
                    matched = same(arg, as_json(json.loads(actual)))
                except ValueError:
                    matched = False
        else:
            raise RunnerError(f"{here}: unknown matcher `{name}`")
        if not matched:
            raise RunnerError(f"{here}: expected {show(pattern)}, got {show(actual)}")
        return
    if actual is ABSENT:
        raise RunnerError(f"{here}: expected {show(pattern)}, got nothing")
    if isinstance(pattern, dict) and isinstance(actual, dict):
        for key, p in pattern.items():
            check(p, actual.get(key, ABSENT), join_path(at, key))
        return
    if isinstance(pattern, list) and isinstance(actual, list):
        if len(pattern) != len(actual):
            raise RunnerError(f"{here}: expected {len(pattern)} entries, got {len(actual)}: {show(actual)}")
        for i, (p, a) in enumerate(zip(pattern, actual)):
            check(p, a, f"{at}[{i}]")
        return
    if not same(pattern, actual):
        raise RunnerError(f"{here}: expected {show(pattern)}, got {show(actual)}")


# ---------------------------------------------------------------- expected requests


def text(record: JsonObject, key: str) -> str:
    v = record.get(key)
    return v if isinstance(v, str) else ""


def as_text(pattern: Json) -> Json:
    """Query values are text: numbers and booleans in a pattern stand for their JSON text."""
    if isinstance(pattern, bool) or is_number(pattern):
        return json.dumps(pattern)
    if isinstance(pattern, list):
        return [as_text(p) for p in pattern]
    return pattern


def check_query(want: Json | _Absent, pairs: Json | _Absent) -> None:
    got: dict[str, list[Json]] = {}
    for pair in pairs if isinstance(pairs, list) else []:
        if not isinstance(pair, list):
            continue
        name = pair[0] if pair and isinstance(pair[0], str) else ""
        got.setdefault(name, []).append(pair[1] if len(pair) > 1 else None)
    expected: JsonObject = {}
    if want is not ABSENT:
        if not isinstance(want, dict):
            raise RunnerError(f"`query` is a mapping, not {show(want)}")
        expected = want
    for name, values in got.items():
        if name not in expected:
            raise RunnerError(f"unexpected query parameter `{name}` ({show(values)})")
    for name, pattern in expected.items():
        found = got.get(name)
        actual: Json | _Absent = ABSENT
        if found is not None:
            actual = found[0] if len(found) == 1 and not isinstance(pattern, list) else list(found)
        check(as_text(pattern), actual, f"query {name}")


def received_ms(record: JsonObject) -> float:
    v = record.get("received_ms")
    return v if is_number(v) else 0.0


def check_request(want_json: Json, got: JsonObject, previous: JsonObject | None) -> None:
    if not isinstance(want_json, dict):
        raise RunnerError(f"an expected request is a mapping, not {show(want_json)}")
    want = want_json
    ignore = want.get("ignore")
    ignored = set(i for i in ignore if isinstance(i, str)) if isinstance(ignore, list) else set()
    method = want.get("method")
    if not isinstance(method, str):
        raise RunnerError("an expected request needs `method`")
    if method.upper() != text(got, "method").upper():
        raise RunnerError(f"expected method {method}, got {text(got, 'method')}")
    path = want.get("path")
    if not isinstance(path, str):
        raise RunnerError("an expected request needs `path`")
    got_path = text(got, "path")
    path_ok = got_path.startswith(path[:-1]) if path.endswith("*") else got_path == path
    if not path_ok:
        raise RunnerError(f"expected path {path}, got {got_path}")
    if "query" not in ignored:
        check_query(want.get("query", ABSENT), got.get("query_pairs", ABSENT))
    if "headers" in want:
        headers = want["headers"]
        if not isinstance(headers, dict):
            raise RunnerError("`headers` is a mapping of lowercase names")
        got_headers = got.get("headers")
        got_headers = got_headers if isinstance(got_headers, dict) else {}
        for name, value in headers.items():
            pattern: Json = {"$absent": True} if value is None else value
            check(pattern, got_headers.get(name, ABSENT), f"header {name}")
    if "body" not in ignored:
        body = text(got, "body")
        if "body" in want:
            try:
                parsed = as_json(json.loads(body))
            except ValueError as e:
                raise RunnerError(f"expected a JSON body, got {json.dumps(body)} ({e})") from None
            if not same(want["body"], parsed):
                raise RunnerError(f"expected the body {show(want['body'])}, got {show(parsed)}")
        elif "body_text" in want:
            if want["body_text"] != body:
                raise RunnerError(f"expected the body text {show(want['body_text'])}, got {json.dumps(body)}")
        elif body != "":
            raise RunnerError(f"expected no body, got {json.dumps(body)}")
    if "status" in want and not same(want["status"], got.get("status")):
        answered = show(got.get("status", ABSENT))
        raise RunnerError(f"expected the sandbox to answer {show(want['status'])}, it answered {answered}")
    for key, too_short in (("min_gap_ms", True), ("max_gap_ms", False)):
        limit = want.get(key)
        if not is_number(limit):
            continue
        if previous is None:
            raise RunnerError(f"`{key}` on the first request has nothing to measure from")
        gap = received_ms(got) - received_ms(previous)
        if (too_short and gap < limit) or (not too_short and gap > limit):
            raise RunnerError(f"came {gap:.0f} ms after the previous request ({key}: {limit})")


def check_requests(expected: list[Json], recorded: list[JsonObject]) -> None:
    def listing() -> str:
        lines = []
        for r in recorded:
            q = text(r, "query")
            target = f"{text(r, 'path') or '?'}{'' if q == '' else '?' + q}"
            lines.append(f"  {text(r, 'method') or '?'} {target} -> {show(r.get('status', ABSENT))}")
        return "\n".join(lines)

    if len(expected) != len(recorded):
        raise RunnerError(f"expected {len(expected)} requests, the sandbox received {len(recorded)}:\n{listing()}")
    for i, want in enumerate(expected):
        try:
            check_request(want, recorded[i], None if i == 0 else recorded[i - 1])
        except RunnerError as e:
            raise RunnerError(f"request {i}: {e}\nreceived:\n{listing()}") from None
