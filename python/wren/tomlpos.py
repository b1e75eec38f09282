"""Line numbers of keys and tables in a TOML text.

tomllib parses values but keeps no positions; error messages about a
scenario name the line of the key they are about, so this module scans the
text (already accepted by tomllib) for its structure: table headers,
keys (dotted too), inline tables and arrays of them. A position is a path
as the parsed document is indexed: ("radio",) is [radio], ("apps", 2) the
third [[apps]] (or the third inline table of `apps = [...]`), () the root.
"""
from dataclasses import dataclass

__all__ = ["Path", "Positions"]

Path = tuple[str | int, ...]

_PUNCT = "[]{},=."
_STOP = " \t\r\n#,[]{}=\"'"


@dataclass
class _Tok:
    kind: str   # "nl", "punct", "str", "atom"
    text: str
    line: int
    pos: int


def _tokens(text: str) -> list[_Tok]:
    out: list[_Tok] = []
    i, line, n = 0, 1, len(text)
    while i < n:
        c = text[i]
        if c in " \t\r":
            i += 1
        elif c == "\n":
            out.append(_Tok("nl", c, line, i))
            line += 1
            i += 1
        elif c == "#":
            while i < n and text[i] != "\n":
                i += 1
        elif text.startswith('"""', i) or text.startswith("'''", i):
            q = text[i:i + 3]
            j = i + 3
            while j < n and not text.startswith(q, j):
                j += 2 if q == '"""' and text[j] == "\\" else 1
            j = min(n, j + 3)
            while j < n and text[j] == q[0]:   # up to two quotes may end the content
                j += 1
            out.append(_Tok("str", text[i + 3:j - 3], line, i))
            line += text.count("\n", i, j)
            i = j
        elif c in "\"'":
            j = i + 1
            while j < n and text[j] != c and text[j] != "\n":
                j += 2 if c == '"' and text[j] == "\\" else 1
            raw = text[i + 1:j]
            if c == '"':
                try:
                    raw = raw.encode("latin-1", "backslashreplace").decode("unicode_escape")
                except UnicodeDecodeError:
                    pass
            out.append(_Tok("str", raw, line, i))
            i = j + 1
        elif c in _PUNCT:  # (a bare dotted key or a float is one atom: see _key)
            out.append(_Tok("punct", c, line, i))
            i += 1
        else:
            j = i
            while j < n and text[j] not in _STOP:
                j += 1
            out.append(_Tok("atom", text[i:j], line, i))
            i = j
    return out


class Positions:
    """Where each key and table of a TOML document is."""

    def __init__(self, text: str) -> None:
        self.keys: dict[tuple[Path, str], int] = {}
        self.tables: dict[Path, int] = {}
        self._aot: dict[Path, int] = {}
        self._t = _tokens(text)
        self._i = 0
        try:
            self._document()
        except IndexError:
            pass  # a text tomllib refused: keep what was found

    def key(self, table: Path, key: str) -> int | None:
        """The line of @key in @table, if the text has it."""
        return self.keys.get((tuple(table), key))

    def table(self, table: Path) -> int | None:
        """The line of @table's header (or of the key that made it)."""
        t = tuple(table)
        while t:
            if t in self.tables:
                return self.tables[t]
            t = t[:-1]
        return None

    def element(self, path: Path) -> int | None:
        """The line where the value at @path (a table, an array element)
        starts, if the text has it: no fallback to the enclosing table."""
        return self.tables.get(tuple(path))

    def line(self, table: Path, key: str | None = None) -> int | None:
        """@key's line, else @table's."""
        found = self.key(table, key) if key is not None else None
        return found if found is not None else self.table(table)

    # ---- the scanner ----------------------------------------------------

    def _peek(self) -> _Tok | None:
        return self._t[self._i] if self._i < len(self._t) else None

    def _next(self) -> _Tok:
        tok = self._t[self._i]
        self._i += 1
        return tok

    def _is(self, text: str) -> bool:
        tok = self._peek()
        return tok is not None and tok.kind == "punct" and tok.text == text

    def _skip_line(self) -> None:
        while (tok := self._peek()) is not None and tok.kind != "nl":
            self._i += 1

    def _document(self) -> None:
        table: Path = ()
        while (tok := self._peek()) is not None:
            if tok.kind == "nl":
                self._i += 1
            elif self._is("["):
                table = self._header()
                self._skip_line()
            else:
                self._keyval(table)
                self._skip_line()

    def _key(self) -> tuple[list[str], int]:
        """A (dotted) key up to '=' or ']'; its parts and line."""
        parts: list[str] = []
        line = self._t[self._i].line
        while True:
            tok = self._peek()
            if tok is None or tok.kind == "nl" or (tok.kind == "punct" and tok.text in "=]}"):
                return parts, line
            self._i += 1
            if tok.kind == "str":
                parts.append(tok.text)
            elif tok.kind == "atom":
                parts.extend(p for p in tok.text.split(".") if p)

    def _header(self) -> Path:
        first = self._next()
        aot = self._is("[") and self._t[self._i].pos == first.pos + 1
        if aot:
            self._i += 1
        names, line = self._key()
        path: Path = ()
        for k, name in enumerate(names):
            parent = path
            path = path + (name,)
            if k == len(names) - 1 and aot:
                idx = self._aot.get(path, 0)
                self._aot[path] = idx + 1
                self.keys.setdefault((parent, name), line)
                self.tables.setdefault(path, line)
                path = path + (idx,)
            elif path in self._aot:
                path = path + (self._aot[path] - 1,)
            elif k == len(names) - 1:
                self.keys.setdefault((parent, name), line)
        self.tables[path] = line
        return path

    def _keyval(self, table: Path) -> None:
        names, line = self._key()
        if not names or not self._is("="):
            return
        self._i += 1
        path = table
        for name in names[:-1]:
            self.keys.setdefault((path, name), line)
            path = path + (name,)
            self.tables.setdefault(path, line)
        self.keys[(path, names[-1])] = line
        self._value(path + (names[-1],), line)

    def _value(self, path: Path, line: int) -> None:
        tok = self._peek()
        if tok is None or tok.kind == "nl":
            return
        if self._is("{"):
            self._i += 1
            self.tables.setdefault(path, tok.line)
            while (t := self._peek()) is not None and not self._is("}"):
                if t.kind == "nl" or self._is(","):
                    self._i += 1
                else:
                    before = self._i
                    self._keyval(path)
                    if self._i == before:
                        self._i += 1
            self._i += 1
        elif self._is("["):
            self._i += 1
            idx = 0
            while (t := self._peek()) is not None and not self._is("]"):
                if t.kind == "nl" or self._is(","):
                    self._i += 1
                    continue
                self.tables.setdefault(path + (idx,), t.line)
                before = self._i
                self._value(path + (idx,), t.line)
                if self._i == before:
                    self._i += 1
                idx += 1
            self._i += 1
        else:
            self._i += 1
            # a value of several atoms (a date and a time): up to the next separator
            while (t := self._peek()) is not None and t.kind == "atom":
                self._i += 1
