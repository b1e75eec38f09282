"""Values of C enums, read from the stack's headers at import time, so the
binding never carries a hand-copied number (src/net/netopt.h's option keys,
src/apps/rawgen.h's timings).

Handles what C allows in an enumerator list that these headers use or may
come to use: comments of both kinds, explicit values (decimal, hex, octal,
binary, with U/L suffixes, character constants), expressions of integer
constants and earlier enumerators (+ - * / % << >> & | ^ ~ and parentheses),
implicit increments after an explicit value, a trailing comma.
Preprocessor directives inside the list are refused: which branch counts
depends on a build's configuration, which a header alone does not tell.
"""
import ast
import functools
import operator
import re
from collections.abc import Callable
from pathlib import Path

__all__ = ["CEnumError", "parse", "load", "define"]


class CEnumError(RuntimeError):
    """A header or enum that cannot be read."""


_COMMENTS = re.compile(r"/\*.*?\*/|//[^\n]*", re.S)
_INT = re.compile(r"\b(0[xX][0-9a-fA-F]+|0[bB][01]+|\d+)[uUlL]*\b")
_CHAR = re.compile(r"'(\\?.)'")

_BINOPS: dict[type, Callable[[int, int], int]] = {
    ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul,
    ast.FloorDiv: operator.floordiv, ast.Mod: operator.mod, ast.LShift: operator.lshift,
    ast.RShift: operator.rshift, ast.BitAnd: operator.and_, ast.BitOr: operator.or_,
    ast.BitXor: operator.xor,
}
_UNOPS: dict[type, Callable[[int], int]] = {
    ast.USub: operator.neg, ast.UAdd: operator.pos, ast.Invert: operator.invert,
}
_ESCAPES = {"n": 10, "t": 9, "r": 13, "0": 0, "\\": 92, "'": 39, '"': 34}


def _c_to_python(expr: str) -> str:
    """A C integer constant expression in Python syntax."""
    def lit(m: re.Match[str]) -> str:
        s = m.group(1)
        if len(s) > 1 and s[0] == "0" and s[1] not in "xXbB":
            return str(int(s, 8))
        return s
    expr = _CHAR.sub(lambda m: str(_ESCAPES.get(m.group(1)[1:], 0) if m.group(1)[0] == "\\"
                                   else ord(m.group(1))), expr)
    return _INT.sub(lit, expr).replace("/", "//")


def _eval(expr: str, known: dict[str, int]) -> int:
    def ev(node: ast.AST) -> int:
        if isinstance(node, ast.Expression):
            return ev(node.body)
        if isinstance(node, ast.Constant) and type(node.value) is int:
            return node.value
        if isinstance(node, ast.Name) and node.id in known:
            return known[node.id]
        if isinstance(node, ast.BinOp) and type(node.op) in _BINOPS:
            return _BINOPS[type(node.op)](ev(node.left), ev(node.right))
        if isinstance(node, ast.UnaryOp) and type(node.op) in _UNOPS:
            return _UNOPS[type(node.op)](ev(node.operand))
        raise ValueError(ast.dump(node))
    return ev(ast.parse(_c_to_python(expr).strip(), mode="eval"))


def parse(text: str, name: str, where: str = "<header>") -> dict[str, int]:
    """{enumerator: value} of `enum NAME { ... }` in the C source @text, in
    declaration order."""
    code = _COMMENTS.sub(" ", text)
    m = re.search(rf"\benum\s+{re.escape(name)}\s*\{{([^}}]*)\}}", code)
    if m is None:
        raise CEnumError(f"{where}: no enum {name}")
    body = m.group(1)
    if re.search(r"^\s*#", body, re.M):
        raise CEnumError(f"{where}: enum {name}: preprocessor directives inside the list")
    values: dict[str, int] = {}
    nxt = 0
    for entry in body.split(","):
        entry = " ".join(entry.split())
        if not entry:
            continue
        em = re.fullmatch(r"([A-Za-z_]\w*)(?:\s*=\s*(.+))?", entry)
        if em is None:
            raise CEnumError(f"{where}: enum {name}: cannot read '{entry}'")
        ident, expr = em.group(1), em.group(2)
        if expr is not None:
            try:
                nxt = _eval(expr, values)
            except (ValueError, SyntaxError, ZeroDivisionError) as e:
                raise CEnumError(f"{where}: enum {name}: cannot evaluate '{ident} = {expr}'"
                                 ) from e
        values[ident] = nxt
        nxt += 1
    if not values:
        raise CEnumError(f"{where}: enum {name} is empty")
    return values


@functools.cache
def load(header: Path, name: str, prefix: str = "") -> dict[str, int]:
    """parse() of @header's enum @name, with @prefix taken off each name
    (names without it are left out)."""
    try:
        text = Path(header).read_text()
    except OSError as e:
        raise CEnumError(f"cannot read {header}: {e.strerror} (the package reads the stack's "
                         f"headers; set WREN_ROOT to the repository)") from e
    values = parse(text, name, str(header))
    return {k[len(prefix):]: v for k, v in values.items() if k.startswith(prefix)}


@functools.cache
def define(header: Path, name: str) -> int:
    """The value of `#define NAME <integer constant expression>` in @header."""
    try:
        text = Path(header).read_text()
    except OSError as e:
        raise CEnumError(f"cannot read {header}: {e.strerror}") from e
    m = re.search(rf"^\s*#\s*define\s+{re.escape(name)}\s+(.+)$", _COMMENTS.sub(" ", text), re.M)
    if m is None:
        raise CEnumError(f"{header}: no #define {name}")
    try:
        return _eval(m.group(1), {})
    except (ValueError, SyntaxError, ZeroDivisionError) as e:
        raise CEnumError(f"{header}: cannot evaluate {name} ({m.group(1).strip()})") from e
