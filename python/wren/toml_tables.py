"""Typed TOML tables for scenario files: a dataclass per table whose fields
are keys (`spec`: name in the file, accepted type, range, choices,
conversion), parsed with every mistake reported as one line naming the
file, line, table and key (ScenarioError). Split from scenario.py, which
declares the tables and re-exports these names."""
import dataclasses
import difflib
import json
import math
import types
from collections.abc import Callable, Mapping
from dataclasses import MISSING, field, fields
from typing import Any, Literal, NamedTuple, TypeVar, Union, cast, get_args, get_origin

from .errors import UserError
from .tomlpos import Path as TomlPath
from .tomlpos import Positions


class Where(NamedTuple):
    """A place in a scenario file."""
    source: str | None
    line: int | None

    def __str__(self) -> str:
        if self.source is None:
            return f"line {self.line}" if self.line else ""
        return f"{self.source}:{self.line}" if self.line else self.source


class ScenarioError(UserError, ValueError):
    """A mistake in a scenario: the message names the file and line."""

    def __init__(self, message: str, where: Where | None = None) -> None:
        self.message = message
        self.where = where
        super().__init__(f"{where}: {message}" if where and str(where) else message)


class Table:
    """A table of the scenario; where it was, for errors found later."""
    where: Where = Where(None, None)


def spec(default: Any = MISSING, *, factory: Callable[[], Any] | None = None,
         key: str | None = None, toml: Any = None,
         lo: float | None = None, hi: float | None = None, unit: str = "",
         choices: Callable[[], Mapping[str, Any]] | None = None,
         conv: Callable[[Any], Any] | None = None, node_ref: bool = False,
         what: str | None = None) -> Any:
    """A scenario key: @key its name in the file (default: the field's),
    @toml the type accepted there (default: the field's), @lo..@hi its range,
    @choices the strings it may be, @conv what makes the field's value of
    it, @node_ref whether it names node ids, @what the expected value in
    words. Without @default or @factory the key is required."""
    meta = {"key": key, "toml": toml, "lo": lo, "hi": hi, "unit": unit, "choices": choices,
            "conv": conv, "node_ref": node_ref, "what": what}
    if factory is not None:
        return field(default_factory=factory, metadata=meta)
    return field(default=default, metadata=meta)


T = TypeVar("T", bound=Table)


class _Ctx:
    """The file being parsed: its name and key positions."""

    def __init__(self, source: str | None, text: str | None) -> None:
        self.source = source
        self.pos = Positions(text) if text is not None else None

    def at(self, table: TomlPath, key: str | None = None) -> Where:
        return Where(self.source, self.pos.line(table, key) if self.pos else None)

    def at_value(self, path: TomlPath) -> Where:
        """Where the value at @path (a key's, an array element's) is."""
        line = self.pos.element(path) if self.pos else None
        if line is None and path:
            keys = [p for p in path if isinstance(p, str)]
            return self.at(path[:path.index(keys[-1])], keys[-1]) if keys else self.at(())
        return Where(self.source, line)

    def error(self, table: TomlPath, key: str | None, message: str) -> ScenarioError:
        return ScenarioError(message, self.at(table, key))


def _table_name(path: TomlPath) -> str:
    """How a message names a table: [radio], [[apps]], [nodes.sub]."""
    names = [str(p) for p in path if isinstance(p, str)]
    if not names:
        return "the top level"
    if isinstance(path[-1], int):
        return f"[[{'.'.join(names)}]]"
    return f"[{'.'.join(names)}]"


def _in(path: TomlPath) -> str:
    return "at the top level" if not path else f"in {_table_name(path)}"


def _or(parts: list[str]) -> str:
    """"a", "b" or "c"."""
    return parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " or " + parts[-1]


def _describe(tp: Any) -> str:
    """The values of type @tp, in words."""
    origin = get_origin(tp)
    if origin in (Union, types.UnionType):
        return _or([_describe(a) for a in get_args(tp) if a is not type(None)])
    if origin is Literal:
        return _or([json.dumps(a) for a in get_args(tp)])
    if origin is list:
        (elem,) = get_args(tp)
        plural = {int: "integers", float: "numbers", str: "strings", bool: "booleans"}
        return f"a list of {plural.get(elem, 'tables')}"
    if dataclasses.is_dataclass(tp):
        return "a table"
    return {bool: "true or false", int: "an integer", float: "a number",
            str: "a string"}.get(tp, str(tp))


def _show(v: Any) -> str:
    """A value as a message shows it, with its kind."""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return f"the integer {v}"
    if isinstance(v, float):
        return f"the number {v:g}"
    if isinstance(v, str):
        return f"the string {json.dumps(v)}"
    if isinstance(v, list):
        return "an array"
    if isinstance(v, dict):
        return "a table"
    return f"a {type(v).__name__}"


def _fits(v: Any, tp: Any) -> bool:
    """Whether @v has the shape of @tp (elements are checked later)."""
    origin = get_origin(tp)
    if origin in (Union, types.UnionType):
        return any(_fits(v, a) for a in get_args(tp))
    if origin is Literal:
        return v in get_args(tp) and type(v) in {type(a) for a in get_args(tp)}
    if origin is list:
        return isinstance(v, list)
    if dataclasses.is_dataclass(tp):
        return isinstance(v, dict)
    if tp is bool:
        return isinstance(v, bool)
    if tp is int:
        return isinstance(v, int) and not isinstance(v, bool)
    if tp is float:
        return isinstance(v, (int, float)) and not isinstance(v, bool)
    if tp is str:
        return isinstance(v, str)
    return False


def _suggest(word: str, known: list[str], fmt: str = "'{}'", list_known: bool = True) -> str:
    """" (did you mean 'x'?)" for the closest of @known, else the list of
    them (with @list_known)."""
    close = difflib.get_close_matches(word, known, n=1, cutoff=0.6)
    if close:
        return f" (did you mean {fmt.format(close[0])}?)"
    if list_known and known:
        return f" (known: {', '.join(fmt.format(k) for k in known)})"
    return ""


def _literals(tp: Any) -> list[str]:
    """The string literals a type allows."""
    origin = get_origin(tp)
    if origin in (Union, types.UnionType):
        return [s for a in get_args(tp) for s in _literals(a)]
    if origin is Literal:
        return [a for a in get_args(tp) if isinstance(a, str)]
    return []


def _convert(v: Any, tp: Any, table: TomlPath, key: str, what: str | None,
             ctx: _Ctx) -> Any:
    """@v (the value of @key in @table) as type @tp, or a ScenarioError."""
    def wrong(value: Any, elem_of: str = "") -> ScenarioError:
        extra = ""
        if isinstance(value, str) and _literals(tp):
            extra = _suggest(value, _literals(tp), '"{}"', list_known=False)
        return ctx.error(table, key, f"'{key}' {_in(table)} must be {what or _describe(tp)}, "
                                     f"not {elem_of}{_show(value)}{extra}")
    if not _fits(v, tp):
        if _kind(tp) == "array of tables" and isinstance(v, dict):
            raise ctx.error(table, key, f"[{_dotted(table, key)}] must be an array of tables: "
                                        f"write [[{_dotted(table, key)}]]")
        raise wrong(v)
    origin = get_origin(tp)
    if origin in (Union, types.UnionType):
        arg = next(a for a in get_args(tp) if _fits(v, a))
        return _convert(v, arg, table, key, what or _describe(tp), ctx)
    if _kind(tp) == "table":
        return _parse_table(cast(type[Table], tp), v, table + (key,), ctx)
    if origin is list:
        (elem,) = get_args(tp)
        if _kind(tp) == "array of tables":
            return [_parse_table(cast(type[Table], elem), item, table + (key, i), ctx)
                    for i, item in enumerate(v)]
        for item in v:
            if not _fits(item, elem):
                raise wrong(item, "a list holding ")
        return [float(x) if elem is float else x for x in v]
    if tp is float:
        if not math.isfinite(v):
            raise ctx.error(table, key, f"'{key}' {_in(table)} must be a finite number, "
                                        f"not {v}")
        return float(v)
    return v


def _toml_type(f: dataclasses.Field[Any]) -> Any:
    """The type a field's key takes in the file."""
    return f.metadata.get("toml") or f.type


def _kind(tp: Any) -> str:
    """"table", "array of tables" or "value": what a field is in TOML."""
    args = [a for a in get_args(tp) if a is not type(None)] \
        if get_origin(tp) in (Union, types.UnionType) else [tp]
    if any(dataclasses.is_dataclass(a) for a in args):
        return "table"
    if any(get_origin(a) is list and dataclasses.is_dataclass(get_args(a)[0]) for a in args):
        return "array of tables"
    return "value"


def _dotted(path: TomlPath, key: str) -> str:
    return ".".join([str(p) for p in path if isinstance(p, str)] + [key])


def _parse_table(cls: type[T], data: Any, path: TomlPath, ctx: _Ctx) -> T:
    if not isinstance(data, dict):
        raise ScenarioError(f"{_table_name(path)} must be a table, not {_show(data)}",
                            ctx.at_value(path))
    known = {f.metadata.get("key") or f.name: f for f in fields(cls)}  # type: ignore[arg-type]
    for key, value in data.items():
        if key not in known:
            kinds = {k: _kind(f.type) for k, f in known.items()}
            if isinstance(value, dict):
                tables = [k for k in known if kinds[k] == "table"]
                msg = (f"unknown table [{_dotted(path, key)}]" +
                       _suggest(key, tables, "[" + _dotted(path, "{}") + "]"))
            elif isinstance(value, list) and value and all(isinstance(x, dict) for x in value):
                aots = [k for k in known if kinds[k] == "array of tables"]
                msg = (f"unknown table [[{_dotted(path, key)}]]" +
                       _suggest(key, aots, "[[" + _dotted(path, "{}") + "]]"))
            else:
                keys = [k for k in known if kinds[k] == "value"]
                msg = f"unknown key '{key}' {_in(path)}" + _suggest(key, keys)
            raise ctx.error(path, key, msg)
    kwargs: dict[str, Any] = {}
    for key, f in known.items():
        meta = f.metadata
        if key not in data:
            if f.default is MISSING and f.default_factory is MISSING:
                raise ctx.error(path, None, f"{_table_name(path)} needs '{key}' "
                                            f"({meta.get('what') or _describe(_toml_type(f))})")
            continue
        tp = _toml_type(f)
        value = _convert(data[key], tp, path, key, meta.get("what"), ctx)
        _check_value(value, meta, path, key, ctx)
        kwargs[f.name] = meta["conv"](value) if meta.get("conv") else value
    obj = cls(**kwargs)
    obj.where = ctx.at(path)
    return obj


def _check_value(v: Any, meta: Mapping[str, Any], path: TomlPath, key: str, ctx: _Ctx) -> None:
    """Ranges and choices."""
    if isinstance(v, (int, float)) and not isinstance(v, bool):
        lo, hi, unit = meta.get("lo"), meta.get("hi"), meta.get("unit")
        u = f" {unit}" if unit else ""
        if lo is not None and v < lo:
            bound = f"at least {lo:g}{u}" if hi is None or hi > 1e12 else \
                f"between {lo:g} and {hi:g}{u}"
            raise ctx.error(path, key, f"'{key}' {_in(path)} must be {bound}, not {v:g}")
        if hi is not None and v > hi:
            bound = f"at most {hi:g}{u}" if lo is None else f"between {lo:g} and {hi:g}{u}"
            raise ctx.error(path, key, f"'{key}' {_in(path)} must be {bound}, not {v:g}")
    if meta.get("choices") and isinstance(v, str):
        choices = list(meta["choices"]())
        if v not in choices:
            raise ctx.error(path, key, f"'{key}' {_in(path)} must be "
                                       f"{_or([json.dumps(c) for c in choices])}, not "
                                       f"{_show(v)}" + _suggest(v, choices, '"{}"',
                                                                list_known=False))


