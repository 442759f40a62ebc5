"""Scenario files read as YAML 1.2 (core schema) into JSON values."""

from __future__ import annotations

import math
import re
import typing
from pathlib import Path

import yaml

from conformance.json_values import Json, as_json


# -- YAML 1.2 core schema: `yes`, `on` are strings, dates stay strings, `0o17` is octal.


class CoreLoader(getattr(yaml, "CSafeLoader", yaml.SafeLoader)):  # type: ignore[misc]
    """PyYAML's safe loader with the implicit types of the YAML 1.2 core schema only:
    null, true/false, integers and floats; everything else plain is a string. Its
    libyaml parser where PyYAML has one (a tenth of the pure-Python parser's time)."""

    yaml_implicit_resolvers: dict[typing.Any, typing.Any] = {}


_CORE_INT = re.compile(r"^(?:[-+]?[0-9]+|0o[0-7]+|0x[0-9a-fA-F]+)$")
_CORE_FLOAT = re.compile(
    r"^(?:[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$"
)
CoreLoader.add_implicit_resolver("tag:yaml.org,2002:null", re.compile(r"^(?:~|null|Null|NULL|)$"), ["~", "n", "N", ""])
CoreLoader.add_implicit_resolver(
    "tag:yaml.org,2002:bool", re.compile(r"^(?:true|True|TRUE|false|False|FALSE)$"), list("tTfF")
)
CoreLoader.add_implicit_resolver("tag:yaml.org,2002:int", _CORE_INT, list("-+0123456789"))
CoreLoader.add_implicit_resolver("tag:yaml.org,2002:float", _CORE_FLOAT, list("-+0123456789."))


def _core_scalar(loader: yaml.constructor.SafeConstructor, node: yaml.Node) -> str:
    if not isinstance(node, yaml.ScalarNode):
        raise yaml.constructor.ConstructorError(None, None, "expected a scalar", node.start_mark)
    return loader.construct_scalar(node)


def _core_null(loader: yaml.constructor.SafeConstructor, node: yaml.Node) -> None:
    _core_scalar(loader, node)


def _core_bool(loader: yaml.constructor.SafeConstructor, node: yaml.Node) -> bool:
    text = _core_scalar(loader, node)
    if text in ("true", "True", "TRUE"):
        return True
    if text in ("false", "False", "FALSE"):
        return False
    raise yaml.constructor.ConstructorError(None, None, f"not a boolean: {text!r}", node.start_mark)


def _core_int(loader: yaml.constructor.SafeConstructor, node: yaml.Node) -> int:
    text = _core_scalar(loader, node)
    if text.startswith("0o"):
        return int(text[2:], 8)
    if text.startswith("0x"):
        return int(text[2:], 16)
    return int(text, 10)


def _core_float(loader: yaml.constructor.SafeConstructor, node: yaml.Node) -> float:
    text = _core_scalar(loader, node)
    value = float(text)
    if not math.isfinite(value):
        # Not JSON: a scenario file is a JSON document once parsed.
        raise yaml.constructor.ConstructorError(None, None, f"not a JSON number: {text}", node.start_mark)
    return value


CoreLoader.add_constructor("tag:yaml.org,2002:null", _core_null)
CoreLoader.add_constructor("tag:yaml.org,2002:bool", _core_bool)
CoreLoader.add_constructor("tag:yaml.org,2002:int", _core_int)
CoreLoader.add_constructor("tag:yaml.org,2002:float", _core_float)


def load_yaml(path: Path) -> Json:
    with path.open(encoding="utf-8") as f:
        return as_json(yaml.load(f, Loader=CoreLoader))  # CoreLoader is a safe loader
