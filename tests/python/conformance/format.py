"""The scenario format as data: tests/conformance/format.json, which every runner reads: the
keys of each kind of mapping, the values some keys take, the defaults of the client
settings."""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cache

from conformance import ROOT
from conformance.json_values import Json, JsonObject, RunnerError, show


@dataclass(frozen=True)
class Format:
    #: Each kind of mapping: its keys, and what each holds (None: any value; a kind: a
    #: mapping of that kind; [kind]: a list of them; {"one_of": [...]}: one of these strings).
    mappings: dict[str, dict[str, Json]]
    #: `client`: the default of each setting; `credentials`: those of each interface.
    defaults: JsonObject

    def check(self, value: Json, kind: str, at: str) -> None:
        """Refuses a key that ``value`` (a mapping of kind ``kind``, at the path ``at``, empty
        for the file) or anything in it may not have, and a value the format does not allow.
        A value of another shape than the format names is left to the reader."""
        if not isinstance(value, dict):
            return
        keys = self.mappings[kind]
        for key, v in value.items():
            if key not in keys:
                raise RunnerError(f"unknown key `{key}` in {at or 'the file'}")
            holds = keys[key]
            inner = f"{at}.{key}" if at else key
            if isinstance(holds, str):
                self.check(v, holds, inner)
            elif isinstance(holds, list) and isinstance(v, list):
                for i, entry in enumerate(v):
                    self.check(entry, str(holds[0]), f"{inner}[{i}]")
            elif isinstance(holds, dict) and not (isinstance(v, str) and v in _listed(holds.get("one_of"))):
                raise RunnerError(f"{inner} is one of {', '.join(_listed(holds.get('one_of')))}, not {show(v)}")

    def client(self, interface: str, given: Json) -> JsonObject:
        """The client settings of a scenario of ``interface`` whose ``client`` is ``given``:
        each setting given (not null), else the default; a mapping over a mapping (the
        credentials) key by key."""
        defaults = self.defaults.get("client")
        credentials = self.defaults.get("credentials")
        client: JsonObject = dict(defaults) if isinstance(defaults, dict) else {}
        own = credentials.get(interface) if isinstance(credentials, dict) else None
        client["credentials"] = dict(own) if isinstance(own, dict) else {}
        for key, v in (given.items() if isinstance(given, dict) else ()):
            under = client.get(key)
            if isinstance(under, dict) and isinstance(v, dict):
                client[key] = {**under, **{k: w for k, w in v.items() if w is not None}}
            elif v is not None:
                client[key] = v
        return client


def _listed(values: Json) -> list[str]:
    return [v for v in values if isinstance(v, str)] if isinstance(values, list) else []


@cache
def read_format() -> Format:
    """tests/conformance/format.json."""
    data = json.loads((ROOT / "tests" / "conformance" / "format.json").read_text(encoding="utf-8"))
    return Format(mappings=data["mappings"], defaults=data["defaults"])
