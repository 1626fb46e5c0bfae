"""Writing a RESP stream to a real Redis while reading its replies, and stopping at the first fault.

The loop of ``redis-cli --pipe`` (https://redis.io/docs/latest/develop/use/patterns/
bulk-loading/) for :mod:`setlab.lab.wire.pipe`: a writer thread sends the encoded chunks the
caller hands it, in slices, while a reader thread counts the replies. Both watch the same
stream, so a fault ends the load within a fraction of a second of its cause, as one setlab error
(:mod:`setlab.lab.errors`) that names the command, the items the server acknowledged before the
fault, and the server's words:

- an error reply (``-OOM …``, ``-NOPERM …``, ``-ERR unknown command …`` for a command renamed
  away with ``rename-command``): the reader sees it in the bytes it has just read, the writer
  sends no further slice, and the connection is reset (``SO_LINGER`` 0) so that what still
  sits in the kernel's send buffer is dropped rather than executed;
- a connection the server closed or reset (a killed server);
- a frozen server: no reply byte and no sent byte for :data:`STALL_S` seconds while replies are
  owed (a stopped process, a hung machine). Redis answers a pipelined command within
  microseconds and the slowest legitimate one here, a ``SETBIT`` that zero-fills a new 512 MiB
  string, within about a second; a few seconds of silence is not a slow command.

Replies are counted without parsing each one: every command sent through here answers an
integer (``:1``) or an array of integers (``*3`` then ``:1 :0 :1``), so line ends count reply
lines, ``:`` bytes count the integers (the items acknowledged), and an error reply is a line
that starts with ``-``.
"""

from __future__ import annotations

import queue
import socket
import struct
import subprocess
import threading
import time
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from setlab.core.progress import Progress
from setlab.core.secrets import redact
from setlab.core.validate import check_int
from setlab.lab.errors import (
    CommandRefused,
    PermissionDenied,
    ServerOutOfMemory,
    ServerTimeout,
    ServerUnavailable,
    SetlabError,
)
from setlab.lab.wire.loading import Wire

if TYPE_CHECKING:
    from setlab.lab.backend import Lab

#: seconds without a reply byte or a sent byte, while replies are owed, after which the server
#: counts as frozen (see the module docstring for why a few seconds)
STALL_S = 3.0
_POLL_S = 0.2  # each thread wakes this often (seconds) to see whether the other has stopped
_SLICE = 256 << 10  # bytes per send(): the writer stops within one slice of a fault
_RECV = 1 << 20  # bytes per read of the reply stream
_SOCKET_BUFFER = 4 << 20  # kernel send/receive buffers asked for (bytes)
_TEXT = 200  # characters of the server's error text quoted in a message

#: A chunk of encoded commands: (bytes, commands in it, line ends its replies will contain).
Chunk = tuple[bytes, int, int]


@dataclass(frozen=True)
class PipeResult:
    """One streamed run: what was sent, what came back, how long it took (seconds, wall)."""

    commands: int
    bytes_sent: int
    lines: int  #: reply line ends received (one per integer reply, 1 + n per n-element array)
    seconds: float
    encode_seconds: float  #: of ``seconds``, the time the writer spent encoding chunks
    answers: np.ndarray | None = None  #: with ``collect=True``: every reply element (uint8)


@dataclass(frozen=True)
class _Fault:
    kind: str  #: "reply" (an error reply), "closed" (connection gone) or "frozen"
    detail: str  #: the server's error text, or the socket error
    answers: int  #: integer replies received before it


class _Flow:
    """What the writer and the reader share: their progress and the first fault."""

    def __init__(self) -> None:
        self.stop = threading.Event()
        self.lock = threading.Lock()
        self.fault: _Fault | None = None
        self.active = time.monotonic()  #: when a byte last went out or came in
        self.lines = 0  #: reply line ends received (the reader's)
        self.answers = 0  #: integer replies received (the reader's)
        self.owed = 0  #: reply lines of the chunks sent in full (the writer's)
        self.sending = False  #: the writer is in the middle of a chunk

    def fail(self, kind: str, detail: str) -> None:
        with self.lock:
            if self.fault is None:
                self.fault = _Fault(kind, detail, self.answers)
        self.stop.set()

    def stalled(self, stall_s: float) -> bool:
        quiet = time.monotonic() - self.active > stall_s
        return quiet and (self.sending or self.owed > self.lines)


def _reason(exc: OSError) -> str:
    return exc.strerror or str(exc) or type(exc).__name__


class _Reader(threading.Thread):
    """Counts reply lines until ``expected`` have come, a fault, or the flow stops."""

    def __init__(self, sock, flow: _Flow, expected: int, collect: bool,
                 report: Progress | None, stall_s: float) -> None:  # fmt: skip
        super().__init__(daemon=True)
        self.sock, self.flow, self.expected, self.collect = sock, flow, expected, collect
        self.report, self.stall_s = report, stall_s
        self.kept: list[bytes] = []

    def run(self) -> None:
        try:
            self._read()
        except OSError as exc:  # reset by the peer, or the socket closed under us
            self.flow.fail("closed", _reason(exc))

    def _read(self) -> None:
        flow = self.flow
        buf = bytearray(_RECV)
        view = memoryview(buf)
        at_line_start = True
        while flow.lines < self.expected and not flow.stop.is_set():
            try:
                n = self.sock.recv_into(view)
            except TimeoutError:
                if flow.stalled(self.stall_s):
                    flow.fail("frozen", f"no reply for {self.stall_s:g} s")
                continue
            if n == 0:
                flow.fail("closed", "the server closed it")
                return
            flow.active = time.monotonic()
            if at_line_start and buf[0] == ord("-"):
                error = 0
            else:
                hit = buf.find(b"\n-", 0, n)
                error = hit + 1 if hit >= 0 else -1
            self._count(buf, error if error >= 0 else n)
            if error >= 0:
                flow.fail("reply", self._error_line(bytes(view[error:n])))
                return
            at_line_start = buf[n - 1] == ord("\n")

    def _count(self, buf: bytearray, end: int) -> None:
        lines = buf.count(b"\n", 0, end)
        self.flow.lines += lines
        self.flow.answers += buf.count(b":", 0, end)
        if self.collect:
            self.kept.append(bytes(memoryview(buf)[:end]))
        if self.report is not None:
            self.report.update(lines)

    def _error_line(self, data: bytes) -> str:
        """The error reply that starts ``data``, read to its line end (or for ``stall_s``)."""
        deadline = time.monotonic() + self.stall_s
        while b"\n" not in data and len(data) < 4096 and time.monotonic() < deadline:
            try:
                more = self.sock.recv(4096)
            except TimeoutError:
                continue
            if not more:
                break
            data += more
        return data[1:].split(b"\r\n", 1)[0].decode(errors="replace")


class _Writer(threading.Thread):
    """Sends the chunks it is handed while the caller encodes the next one, one slice at a time
    so that it stops within a slice of a fault; at most two chunks wait."""

    def __init__(self, sock, flow: _Flow) -> None:
        super().__init__(daemon=True)
        self.sock, self.flow = sock, flow
        self.queue: queue.Queue[tuple[bytes, int] | None] = queue.Queue(maxsize=2)

    def put(self, item: tuple[bytes, int] | None) -> bool:
        """Queue ``(payload, reply lines)``, or None for "no more"; False once the flow stopped."""
        while not self.flow.stop.is_set() and self.is_alive():
            try:
                self.queue.put(item, timeout=_POLL_S)
                return True
            except queue.Full:
                continue
        return False

    def run(self) -> None:
        try:
            while not self.flow.stop.is_set():
                try:
                    item = self.queue.get(timeout=_POLL_S)
                except queue.Empty:
                    continue
                if item is None:
                    return
                self._send(*item)
        except OSError as exc:  # broken pipe, reset by the peer
            self.flow.fail("closed", _reason(exc))

    def _send(self, payload: bytes, lines: int) -> None:
        flow = self.flow
        view = memoryview(payload).cast("B")
        flow.active = time.monotonic()  # the silence counts from here, not from the last chunk
        flow.sending = True
        pos = 0
        while pos < len(view):
            if flow.stop.is_set():
                return
            try:
                pos += self.sock.send(view[pos : pos + _SLICE])
            except TimeoutError:  # the server reads nothing: the reader judges the stall
                continue
            flow.active = time.monotonic()
        with flow.lock:
            flow.owed += lines
            flow.sending = False


def _socket(lab: Lab) -> Wire:
    wire = Wire(lab)
    if not wire.raw:
        wire.close()
        raise ValueError(
            "resp_pipe needs a real Redis over TCP without a password (a raw socket); "
            f"the lab is {lab.kind!r}: use setlab.lab.wire.loading's strategies instead"
        )
    for option in (socket.SO_SNDBUF, socket.SO_RCVBUF):
        wire.sock.setsockopt(socket.SOL_SOCKET, option, _SOCKET_BUFFER)
    wire.sock.settimeout(_POLL_S)
    return wire


def _command_name(payload: bytes) -> str:
    """The first command's name in a RESP payload (``*4\\r\\n$6\\r\\nSETBIT\\r\\n…``)."""
    parts = bytes(memoryview(payload)[:64]).split(b"\r\n")
    if len(parts) > 2 and parts[1].startswith(b"$"):
        return parts[2].decode(errors="replace").upper()
    return "RESP"


def pump(
    lab: Lab,
    chunks: Iterable[Chunk],
    expected_lines: int,
    *,
    collect: bool = False,
    progress: Progress | None = None,
    per_item: int = 1,
    stall_s: float = STALL_S,
) -> PipeResult:
    """Write every chunk to the lab's server while a reader thread drains the replies.

    ``expected_lines``: the reply line ends all chunks produce together (the sum of each chunk's
    last element), so the reader knows when it is done. ``collect``: keep the replies and return
    every element's integer in :attr:`PipeResult.answers`. ``progress`` counts reply lines.
    ``per_item``: integer replies per item, for the error messages (``k`` for a Bloom filter's
    ``SETBIT`` per bit; 1 when each integer is an item). ``stall_s``: seconds of silence, while
    replies are owed, that make the server frozen.

    Raises, at the first fault and after sending nothing more: :class:`ServerOutOfMemory`,
    :class:`PermissionDenied`, :class:`CommandRefused` (an unknown command, or any other error
    reply), :class:`ServerUnavailable` (the connection closed) or :class:`ServerTimeout` (the
    server frozen). ``RuntimeError`` if the chunks' lines do not add up to ``expected_lines``.
    """
    expected_lines = check_int("expected_lines", expected_lines, 0)
    per_item = check_int("per_item", per_item, 1)
    if not stall_s > 0:
        raise ValueError(f"stall_s must be > 0 seconds; got {stall_s!r}")
    wire = _socket(lab)
    flow = _Flow()
    reader = _Reader(wire.sock, flow, expected_lines, collect, progress, stall_s)
    writer = _Writer(wire.sock, flow)
    sent = commands = promised = 0
    encode = 0.0
    command = ""
    start = time.perf_counter()
    try:
        reader.start()
        writer.start()
        iterator = iter(chunks)
        while not flow.stop.is_set():
            t0 = time.perf_counter()
            chunk = next(iterator, None)
            encode += time.perf_counter() - t0
            if chunk is None:
                break
            payload, n_commands, lines = chunk
            command = command or _command_name(payload)
            if not writer.put((payload, lines)):
                break
            sent += len(payload)
            commands += n_commands
            promised += lines
        writer.put(None)
        writer.join()
        if promised != expected_lines:
            flow.stop.set()  # the reader would wait for replies that never come
        reader.join()
    finally:
        if flow.fault is not None or reader.is_alive() or writer.is_alive():
            flow.stop.set()  # a fault, or the caller interrupted: reset, drop what is unsent
            wire.sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        wire.close()
    seconds = time.perf_counter() - start
    if flow.fault is not None:
        raise _error(lab, flow.fault, command or "RESP", per_item, stall_s) from None
    if promised != expected_lines or flow.lines != expected_lines:
        raise RuntimeError(
            f"streamed load: expected {expected_lines:,} reply lines, chunks promised "
            f"{promised:,} and {flow.lines:,} came back"
        )
    answers = None
    if collect:
        data = np.frombuffer(b"".join(reader.kept), dtype=np.uint8)
        answers = data[np.flatnonzero(data == ord(":")) + 1] - ord("0")
    return PipeResult(commands, sent, flow.lines, seconds, encode, answers)


def _error(lab: Lab, fault: _Fault, command: str, per_item: int, stall_s: float) -> SetlabError:
    """The one-line setlab error for ``fault``: server, command, items acknowledged, its words."""
    where = lab.address
    done = f"{fault.answers // per_item:,} items acknowledged, nothing more sent"
    elsewhere = "" if lab.owns_server else ", or use a private server (unset REDIS_URL)"
    text = redact(fault.detail, getattr(lab.r, "_lab_secrets", ()))[:_TEXT]
    if fault.kind == "frozen":
        return ServerTimeout(
            f"Redis at {where} did not answer the streamed {command} load in time ({text} while "
            f"replies were owed; {done}): the server is frozen or overloaded. Check it (setlab "
            f"doctor){elsewhere}."
        )
    if fault.kind == "closed":
        dead = _death(lab)
        return ServerUnavailable(
            f"lost Redis at {where} during the streamed {command} load: the connection closed "
            f"({text}{dead}; {done}). Is the server running? Check with setlab doctor."
        )
    if text.startswith("OOM"):
        return ServerOutOfMemory(
            f"Redis at {where} refused {command}: out of memory (maxmemory reached; {done}; "
            f"server: {text}). setlab wrote only under {lab.namespace} and deletes it with "
            f"lab.cleanup(); load fewer items{elsewhere or ', or raise its maxmemory'}."
        )
    if text.startswith("NOPERM"):
        return PermissionDenied(
            f"Redis at {where} denies {command} to this user ({done}; ACL: {text}). Ask the "
            f"administrator for +{command.lower()}{elsewhere}."
        )
    if text.startswith("ERR unknown command"):
        return CommandRefused(
            f"Redis at {where} does not know {command}: renamed or disabled (rename-command), "
            f"or its module is not loaded ({done}; server: {text})."
        )
    return CommandRefused(f"Redis at {where} refused {command} in a streamed load ({done}): {text}")


def _death(lab: Lab) -> str:
    """``, the private redis-server … exited with code -9`` when the lab's own server died."""
    server = lab.server
    if server is None:
        return ""
    try:
        code = server.process.wait(timeout=0.5)  # the kernel resets sockets before the exit
    except subprocess.TimeoutExpired:  # still running: it closed the connection on purpose
        return ""
    return f", the private redis-server (pid {server.process.pid}) exited with code {code}"
