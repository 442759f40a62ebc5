"""Pre-signed transfers: no credentials sent, the signature never shown, files streamed
and rewound for a retry, parts uploaded in order and read lazily."""

from __future__ import annotations

import io
import logging
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from inspection_client._runtime import ApiError, ConfigError, DecodeError, InterfaceInfo, TransportError
from inspection_client._runtime import _twins

from runtime_support import SIGNATURE, Recorder, Runner, fast


PRESIGNED = f"https://storage.example.test/bucket/key?X-Amz-Expires=900&X-Amz-Signature={SIGNATURE}"


def test_presigned_fetch_sends_no_credentials_and_hides_the_query(runner: Runner, caplog: pytest.LogCaptureFixture) -> None:
    info = InterfaceInfo(name="legacy", default_headers={"accept": "application/json; version=1"})
    rec = Recorder(httpx.Response(503), httpx.Response(200, content=b"%PDF-x"))
    core = runner.core(rec, info=info)
    with caplog.at_level(logging.DEBUG):
        assert runner.run(core.fetch_presigned, PRESIGNED) == b"%PDF-x"
    for request in rec.requests:
        assert "api-key-secret" not in request.headers and "api-key-id" not in request.headers
        assert request.headers["accept"] != "application/json; version=1"
        assert request.url.params["X-Amz-Signature"] == SIGNATURE
    assert "storage.example.test/bucket/key" in caplog.text
    assert SIGNATURE not in caplog.text


def test_presigned_errors_never_show_the_signature(runner: Runner) -> None:
    body = f"<Error><Code>SignatureDoesNotMatch</Code><SignatureProvided>{SIGNATURE}</SignatureProvided></Error>"
    rec = Recorder(httpx.Response(403, content=body.encode(), headers={"content-type": "application/xml"}))
    with pytest.raises(ApiError) as caught:
        runner.run(runner.core(rec).fetch_presigned, PRESIGNED)
    error = caught.value
    assert error.status == 403 and error.path == "https://storage.example.test/bucket/key"
    assert SIGNATURE not in str(error) and SIGNATURE not in error.body_text and "SignatureDoesNotMatch" in str(error)
    failing = httpx.ConnectError(f"cannot reach {PRESIGNED}")
    with pytest.raises(TransportError) as broken:
        runner.run(runner.core(Recorder(failing), options=fast(max_attempts=1)).fetch_presigned, PRESIGNED)
    assert SIGNATURE not in str(broken.value)


def test_put_presigned_streams_a_file_and_rewinds_it_for_a_retry(runner: Runner) -> None:
    rec = Recorder(httpx.Response(500), httpx.Response(200, headers={"etag": '"e1"'}))
    data = io.BytesIO(b"skip|payload")
    data.seek(5)
    etag = runner.run(runner.core(rec).put_presigned, PRESIGNED, data, "image/png")
    assert etag == '"e1"'
    for request in rec.requests:
        assert request.method == "PUT" and request.content == b"payload"
        assert request.headers["content-length"] == "7" and request.headers["content-type"] == "image/png"
        assert "transfer-encoding" not in request.headers and "api-key-secret" not in request.headers


def test_put_parts_returns_etags_in_part_order(runner: Runner) -> None:
    def answer(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, headers={"etag": f'"{request.content.decode()}"'})

    urls = [f"https://storage.example.test/up/{n}?partNumber={n}&sig={SIGNATURE}" for n in (1, 2, 3)]
    rec = Recorder(answer)
    etags = runner.run(runner.core(rec).put_parts, urls, [b"one", b"two", b""], "video/mp4", 2)
    assert etags == ['"one"', '"two"', '""']
    assert sorted(r.url.params["partNumber"] for r in rec.requests) == ["1", "2", "3"]
    assert {r.headers["content-length"] for r in rec.requests} == {"3", "0"}
    with pytest.raises(DecodeError, match="part 1"):
        runner.run(runner.core(Recorder(httpx.Response(200))).put_parts, urls[:1], [b"x"])
    with pytest.raises(ConfigError):
        runner.run(runner.core(rec).put_parts, urls, [b"x"])


class CountingFile(io.BufferedReader):
    """A file that records every read, for the test of lazy part reading."""

    reads: list[int] = []

    def read(self, size: int | None = -1) -> bytes:
        data = super().read(size)
        CountingFile.reads.append(len(data))
        return data


@pytest.fixture
def counted_open(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[int]]:
    CountingFile.reads = []

    def fake_open(path: Any, mode: str = "r") -> CountingFile:
        assert mode == "rb"
        return CountingFile(io.FileIO(path, "r"))

    monkeypatch.setattr(_twins, "open", fake_open, raising=False)
    yield CountingFile.reads


def test_put_file_parts_reads_each_part_while_sending_it(runner: Runner, tmp_path: Path, counted_open: list[int]) -> None:
    content = bytes(range(256)) * 1200  # 300 KiB
    path = tmp_path / "video.mp4"
    path.write_bytes(content)
    part_size = 128 * 1024
    read_before: list[int] = []

    def answer(request: httpx.Request) -> httpx.Response:
        read_before.append(sum(counted_open))
        return httpx.Response(200, headers={"etag": f'"{len(request.content)}"'})

    rec = Recorder(answer)
    urls = [f"https://storage.example.test/up/{n}" for n in (1, 2, 3)]
    etags = runner.run(runner.core(rec).put_file_parts, urls, path, part_size, "video/mp4", 1)
    assert etags == [f'"{part_size}"', f'"{part_size}"', f'"{len(content) - 2 * part_size}"']
    assert b"".join(r.content for r in rec.requests) == content
    # Never more than a chunk in memory, and no part read before its turn.
    assert max(counted_open) <= _twins.CHUNK_SIZE
    assert read_before == [part_size, 2 * part_size, len(content)]
    with pytest.raises(ConfigError):
        runner.run(runner.core(rec).put_file_parts, urls[:2], path, part_size)
    # Parts sent at once each read their own range.
    rec = Recorder(answer)
    runner.run(runner.core(rec).put_file_parts, urls, path, part_size, None, 3)
    by_url = sorted(rec.requests, key=lambda r: str(r.url))
    assert b"".join(r.content for r in by_url) == content


def test_a_failed_part_fails_the_upload(runner: Runner) -> None:
    def answer(request: httpx.Request) -> httpx.Response:
        if request.url.path.endswith("/2"):
            return httpx.Response(403, content=b"denied")
        return httpx.Response(200, headers={"etag": '"x"'})

    urls = [f"https://storage.example.test/up/{n}?sig={SIGNATURE}" for n in (1, 2, 3)]
    with pytest.raises(ApiError) as caught:
        runner.run(runner.core(Recorder(answer)).put_parts, urls, [b"a", b"b", b"c"], None, 3)
    assert caught.value.status == 403 and caught.value.path == "https://storage.example.test/up/2"
