"""The sandbox processes the scenarios run against (with `sandbox forward` in front of
them for `proxy: true`), and their `/_sandbox/...` control endpoints."""

from __future__ import annotations

import json
import os
import queue
import re
import subprocess
import threading
import time
from pathlib import Path
from urllib.parse import urlsplit

import httpx

from conformance import ROOT
from conformance.json_values import ABSENT, Json, RunnerError, _Absent, as_json
from conformance.scenarios import SandboxSpec


def sandbox_binary() -> Path:
    given = os.environ.get("SANDBOX_BIN", "")
    if given:
        return Path(given)
    target = os.environ.get("CARGO_TARGET_DIR", "") or str(ROOT / "target")
    return Path(target) / "debug" / ("sandbox.exe" if os.name == "nt" else "sandbox")


_SERVING = re.compile(r"serving the v3 interface at (http://\S+?)/v3\s")
_FORWARDING = re.compile(r"^sandbox forward: (http://\S+) -> ", re.MULTILINE)


class _Child:
    """One process of the sandbox binary, both pipes drained for its whole life, and the
    URL it prints on stdout once it listens (`banner`'s first group)."""

    def __init__(self, command: list[str], what: str, banner: re.Pattern[str]) -> None:
        self.process = subprocess.Popen(
            command,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            encoding="utf-8",
            errors="replace",
        )
        self._lines: queue.Queue[str | None] = queue.Queue()
        self._stderr: list[str] = []
        # Both pipes are drained for the process's whole life, so it never blocks on one.
        self._drains = [
            threading.Thread(target=self._drain_stdout, daemon=True),
            threading.Thread(target=self._drain_stderr, daemon=True),
        ]
        for drain in self._drains:
            drain.start()
        out = ""
        deadline = time.monotonic() + 20
        url: str | None = None
        while url is None:
            try:
                line = self._lines.get(timeout=max(0.0, deadline - time.monotonic()))
            except queue.Empty:
                self.stop()
                raise RunnerError(f"{what} printed no URL within 20 s: {out}{self.stderr()}") from None
            if line is None:
                self.stop()
                raise RunnerError(f"{what} exited before serving: {out}{self.stderr()}")
            out += line
            found = banner.search(out)
            if found is not None:
                url = found[1]
        self.url = url

    def _drain_stdout(self) -> None:
        stream = self.process.stdout
        if stream is None:
            return
        for line in stream:
            self._lines.put(line)
        self._lines.put(None)

    def _drain_stderr(self) -> None:
        stream = self.process.stderr
        if stream is None:
            return
        for line in stream:
            self._stderr.append(line)
            del self._stderr[:-50]

    def stderr(self) -> str:
        return "".join(self._stderr)

    def stop(self) -> None:
        """SIGTERM (the sandbox then removes its uploads), a kill after 5 s."""
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        # The pipes end with the process: read to their end, then closed.
        for drain in self._drains:
            drain.join(timeout=5)
        for stream in (self.process.stdout, self.process.stderr):
            if stream is not None:
                stream.close()


class Sandbox:
    """One sandbox process (`sandbox <args> --addr 127.0.0.1:0`) and its origin; with
    `proxy`, also `sandbox forward --to <its host:port>` in front of it."""

    def __init__(self, spec: SandboxSpec) -> None:
        binary = sandbox_binary()
        if not binary.exists():
            raise RunnerError(f"no sandbox binary at {binary}: run `cargo build -p sandbox` first")
        self.spec = spec
        self._children: list[_Child] = []
        what = f"the sandbox {list(spec.args)}"
        sandbox = _Child([str(binary), *spec.args, "--addr", "127.0.0.1:0"], what, _SERVING)
        self._children.append(sandbox)
        #: The sandbox itself, for the `/_sandbox/...` controls.
        self.direct = sandbox.url
        #: Where the clients reach it, and `${origin}`: the sandbox, or the proxy in front of it.
        self.origin = self.direct
        if spec.proxy:
            to = urlsplit(self.direct).netloc
            try:
                proxy = _Child(
                    [str(binary), "forward", "--to", to],
                    f"the proxy (sandbox forward --to {to}) in front of {what}",
                    _FORWARDING,
                )
            except RunnerError:
                sandbox.stop()
                raise
            self._children.append(proxy)
            self.origin = proxy.url
        self.http = httpx.Client(timeout=30, trust_env=False)

    def control(self, method: str, path: str, body: Json | _Absent = ABSENT) -> Json:
        """`METHOD /_sandbox/...` with an optional JSON body: its JSON answer (null when
        empty); a RunnerError unless 2xx."""
        content = None if body is ABSENT else json.dumps(body).encode()
        headers = {} if body is ABSENT else {"content-type": "application/json"}
        response = self.http.request(method, f"{self.direct}{path}", content=content, headers=headers)
        if not response.is_success:
            raise RunnerError(f"{method} {path} answered {response.status_code}: {response.text}")
        if response.content == b"":
            return None
        return as_json(response.json())

    def stop(self) -> None:
        """Stops the proxy, if any, then the sandbox."""
        self.http.close()
        for child in reversed(self._children):
            child.stop()


class Sandboxes:
    """One sandbox per set of flags and proxy or not, started on first use and reused."""

    def __init__(self) -> None:
        self._running: dict[SandboxSpec, Sandbox] = {}

    def get(self, spec: SandboxSpec) -> Sandbox:
        sandbox = self._running.get(spec)
        if sandbox is None:
            sandbox = Sandbox(spec)
            self._running[spec] = sandbox
        return sandbox

    def stop_all(self) -> None:
        """Stops the sandboxes (and proxies) this run started (only those, by their process handles)."""
        for sandbox in self._running.values():
            sandbox.stop()
        self._running.clear()
