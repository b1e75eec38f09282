"""A program driven through a line-oriented shell on its stdin (wren-node,
or a peer stack's native process such as RIOT's): one reader thread keeps
every output line, and run() sends a command and waits for the first line
after it that matches."""
import re
import subprocess
import threading
import time


class ShellProcess:
    """@p proc: a started process with text-mode stdin and stdout pipes."""

    #: the program's name for errors ("" leaves it out)
    name = ""

    def __init__(self, proc: "subprocess.Popen[str]") -> None:
        self.p = proc
        self.lines: list[str] = []
        self.cv = threading.Condition()
        self.t = threading.Thread(target=self._read, daemon=True)
        self.t.start()

    def _read(self) -> None:
        assert self.p.stdout is not None
        for line in self.p.stdout:
            with self.cv:
                self.lines.append(line)
                self.cv.notify_all()

    def _write(self, text: str) -> None:
        assert self.p.stdin is not None
        self.p.stdin.write(text)
        self.p.stdin.flush()

    def failure_context(self) -> str:
        """More to say when a wait fails (a subclass's stderr, say)."""
        return ""

    def wait_for(self, until: str, timeout: float, mark: int = 0, what: str = "") -> str:
        """The output from line @p mark up to the first line matching the
        regex @p until; AssertionError with the output after @p timeout
        seconds or when the process has ended."""
        deadline = time.monotonic() + timeout
        rx = re.compile(until)
        with self.cv:
            while True:
                for i in range(mark, len(self.lines)):
                    if rx.search(self.lines[i]):
                        return "".join(self.lines[mark:i + 1])
                left = deadline - time.monotonic()
                if left <= 0 or self.p.poll() is not None:
                    who = f"{self.name}: " if self.name else ""
                    raise AssertionError(f"{who}no {until!r}{what}; output:\n" +
                                         "".join(self.lines[mark:]) + self.failure_context())
                self.cv.wait(min(left, 0.5))

    def close(self) -> None:
        """Kill the process if it still runs and wait for it."""
        if self.p.poll() is None:
            self.p.kill()
        self.p.wait(10)
        self.t.join(5)

    def run(self, cmd: str, until: str, timeout: float = 20.0) -> str:
        """Send @p cmd; the output from then on up to the first line
        matching the regex @p until."""
        with self.cv:
            mark = len(self.lines)
        self._write(cmd + "\n")
        return self.wait_for(until, timeout, mark, f" after {cmd!r}")
