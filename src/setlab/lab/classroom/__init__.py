"""A classroom Redis: one ACL user per participant, each confined to its own namespace.

A class shares one Redis 7 (a VM, or the instructor's laptop on the room's network). Isolation
is enforced by the server, not by convention: every participant logs in as their own ACL user
whose key pattern covers only their namespace (``setlab:@<name>:*``, the prefix
:func:`setlab.connect` writes under for that user), so participant A's client cannot read,
write or delete B's keys, and no participant can run the commands that reach across everybody.

The rules one participant gets (``ACL SETUSER <name> …``, see :func:`acl_rules`):

- ``reset on >(generated password)``: only these rules, enabled, one password made with
  :mod:`secrets` (never typed into a command line or a log);
- ``~setlab:@<name>:*``: keys of the participant's namespace only (every key command, every
  key a Lua script touches, every database);
- ``resetchannels``: no Pub/Sub channel (the book uses none);
- ``+@all -@dangerous``: every command but Redis's ``@dangerous`` category — in 7.0 that is
  ``INFO``, ``CONFIG``, ``KEYS``, ``FLUSHALL``, ``FLUSHDB``, ``SWAPDB``, ``SHUTDOWN``,
  ``DEBUG``, ``MONITOR``, ``MODULE``, ``ACL`` (but ``WHOAMI``/``CAT``), ``CLIENT
  KILL|LIST|PAUSE|NO-EVICT|…``, ``SLOWLOG``, ``LATENCY``, ``SAVE``/``BGSAVE``, ``REPLICAOF``,
  ``MIGRATE``, ``RESTORE``, ``SORT``, ``ROLE``, … (``ACL CAT dangerous`` lists them all);
- ``-@scripting`` and back only :data:`SCRIPTING_KEPT`: the scripting the book's own code
  sends (``EVAL``: the like service, the Cuckoo walls, the memory runs; ``EVALSHA`` with
  ``SCRIPT LOAD|EXISTS``: redis-py's ``register_script``, the dense map). ``EVAL_RO``,
  ``EVALSHA_RO``, ``FCALL``, ``FCALL_RO``, every ``FUNCTION`` and ``SCRIPT DEBUG|FLUSH|KILL``
  stay denied (a function or a debugging session would outlive or stall everyone's work);
- minus :data:`EXTRA_DENIED`: ``RANDOMKEY`` (another participant's key name) and every way
  out of database 0 (``SELECT``, ``MOVE``, ``COPY … DB``; ``SWAPDB`` is ``@dangerous``), so a
  participant's keys are all in database 0, where :func:`usage` and :func:`remove` look.

``MEMORY USAGE`` stays allowed (``@read``, checked against the key pattern), so the chapters
measure their own keys live; ``INFO`` is denied, so a participant's setlab cannot see the
server's headroom and keeps its keys under :data:`setlab.lab.guard.BLIND_BUDGET`, and figures
that need ``INFO`` show the stored reference run with the reason. One thing an ACL cannot hide:
``SCAN`` lists every key *name* in the database (values stay unreadable); the names say only
which participant ran which chapter.

What an ACL cannot limit is what one participant's commands cost everybody: Redis runs one
command (or script) at a time, and memory is one pool. :func:`start_server` bounds what Redis
7.0 can bound (:data:`SERVER_LIMITS`); :mod:`setlab.lab.classroom.watch` stops a runaway script
and an overgrown script cache, and says who ran the slow commands.

The instructor's side: :func:`enroll` creates the users and writes each participant's
``REDIS_URL`` to a CSV (file mode 0600), all or nothing; :func:`usage` is the monitor (who is
connected, their clients' memory, and what each namespace holds); :func:`kick` ends one
participant's connections and :func:`remove` deletes their keys and user.
"""

from __future__ import annotations

import contextlib
import csv
import io
import os
import re
import secrets
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import redis

from setlab.core.outputs import open_output
from setlab.core.secrets import redact
from setlab.lab.backend import ROOT, user_prefix
from setlab.lab.server import RedisServer

#: the scripting commands a participant keeps after ``-@scripting``: what the book's code sends
SCRIPTING_KEPT = ("eval", "evalsha", "script|load", "script|exists")
#: commands outside ``@dangerous`` and ``@scripting`` that a participant still must not run:
#: a key name from anywhere, and every way to keys outside database 0
EXTRA_DENIED = ("randomkey", "select", "move", "copy")
#: bytes of randomness in a generated password (``secrets.token_urlsafe``: 24 URL-safe chars)
PASSWORD_BYTES = 18
#: the command rules after the key pattern (see the module docstring)
_COMMAND_RULES = (
    "resetchannels", "+@all", "-@dangerous", "-@scripting",
    *(f"+{c}" for c in SCRIPTING_KEPT), *(f"-{c}" for c in EXTRA_DENIED),
)  # fmt: skip
_RESERVED = {"default"}  # Redis's own user: the instructor's login, never a participant
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")


def acl_rules(name: str) -> list[str]:
    """The ``ACL SETUSER`` rules of participant ``name``, without the password rule.

    ``name`` must be a valid namespace user (1-64 letters, digits, ``_ . -``, not ``default``).
    """
    _check_names([name])
    return ["reset", "on", f"~{user_prefix(name)}*", *_COMMAND_RULES]


def rules_text() -> str:
    """The rules every participant gets, for people: ``on >(password) ~setlab:@<name>:* …``."""
    return " ".join(["on", ">(generated password)", f"~{ROOT}:@<name>:*", *_COMMAND_RULES])


def participant_users(admin: redis.Redis) -> list[str]:
    """The ACL users on ``admin``'s server that are classroom participants: those whose only
    key pattern is their own namespace (``~setlab:@<name>:*``), as :func:`configure` makes them.
    Any other user (the instructor, an application's account) is never listed."""
    found = []
    for user in sorted(_text(u) for u in admin.execute_command("ACL", "USERS")):
        if user in _RESERVED or not _NAME.match(user):
            continue
        info = admin.acl_getuser(user)
        keys = [_text(k) for k in (info or {}).get("keys", [])]
        if keys == [f"~{user_prefix(user)}*"]:
            found.append(user)
    return found


def generate_password() -> str:
    """A new password: 24 URL-safe characters from :func:`secrets.token_urlsafe` (144 bits)."""
    return secrets.token_urlsafe(PASSWORD_BYTES)


@dataclass(frozen=True)
class Participant:
    """One participant's login: their ACL user (also their namespace) and password."""

    name: str
    password: str = field(repr=False)

    def url(self, host: str, port: int) -> str:
        """The ``REDIS_URL`` to give this participant: ``redis://<name>:<password>@host:port/0``
        (the password is URL-safe, so it needs no quoting)."""
        where = f"[{host}]" if ":" in host else host
        return f"redis://{self.name}:{self.password}@{where}:{port}/0"


def _check_names(names: Sequence[str]) -> list[str]:
    seen: set[str] = set()
    for name in names:
        if not isinstance(name, str) or not _NAME.match(name) or name in _RESERVED:
            raise ValueError(
                f"participant name must be 1-64 letters, digits, '_', '.', '-' starting with a "
                f"letter or digit, and not 'default' (it becomes the ACL user and the key "
                f"prefix setlab:@<name>:); got {name!r}"
            )
        if name in seen:
            raise ValueError(f"participant name {name!r} is given twice")
        seen.add(name)
    return list(names)


def read_names(text: str) -> list[str]:
    """Participant names from a text (one per line, or separated by commas or spaces; ``#``
    starts a comment), validated and in order."""
    if not isinstance(text, str):
        raise ValueError(f"text must be a str of names; got {type(text).__name__}")
    names = []
    for line in text.splitlines():
        names += [n for n in re.split(r"[\s,;]+", line.split("#", 1)[0]) if n]
    if not names:
        raise ValueError("no participant names given")
    return _check_names(names)


def configure(admin: redis.Redis, names: Iterable[str]) -> list[Participant]:
    """Create (or re-create, with a new password) one ACL user per name on ``admin``'s server,
    all or nothing (see :func:`enroll`, which also writes their CSV).

    ``admin`` must be allowed ``ACL SETUSER``. Each user gets :func:`acl_rules` and a fresh
    :func:`generate_password`; Redis keeps only its SHA-256 and redacts ``ACL SETUSER`` in
    ``SLOWLOG`` and ``MONITOR``. A name that is an ACL user of something else (not a classroom
    participant) is refused: setlab changes no login but its own. Returns the participants in
    the order given.
    """
    participants = [Participant(n, generate_password()) for n in _check_names(list(names))]
    _create(admin, participants)
    return participants


def enroll(
    admin: redis.Redis, names: Iterable[str], path: Path | str, host: str, port: int
) -> list[Participant]:
    """:func:`configure` the participants and write each one's ``REDIS_URL`` to ``path``
    (mode 0600, :func:`write_csv`), so that every user it leaves has its password in that file.

    The CSV is written first, beside ``path``, and moved into place once every user exists; if
    the file cannot be written no user is created, and if anything fails after (the server, the
    move, Ctrl-C) the users this call created are deleted again and the ones it renewed get
    their old rules and password hash back (``ACL LIST`` is replayable). ``path`` keeps its old
    content unless the whole call succeeds. Returns the participants in the order given.
    """
    path = Path(path)
    if path.is_dir():
        raise ValueError(f"the participants' CSV path {path} is a directory; give a file name")
    participants = [Participant(n, generate_password()) for n in _check_names(list(names))]
    staged = path.with_name(f".{path.name}.{secrets.token_hex(4)}.part")
    try:
        write_csv(staged, participants, host, port)
    except OSError as exc:
        raise ValueError(
            f"cannot write the participants' CSV {path}: {exc.strerror or exc}; no user created"
        ) from None
    except ValueError as exc:  # open_output's refusals (a link, a missing folder), one line each
        raise ValueError(f"{str(exc).replace(str(staged), str(path))}; no user created") from None
    try:
        _create(admin, participants, then=lambda: os.replace(staged, path))
    finally:
        staged.unlink(missing_ok=True)
    return participants


def _create(
    admin: redis.Redis,
    participants: Sequence[Participant],
    then: Callable[[], object] | None = None,
) -> None:
    """``ACL SETUSER`` each participant, then ``then()``; undo every user it set if any step
    fails or is interrupted (:class:`BaseException`: Ctrl-C too)."""
    names = [p.name for p in participants]
    before = _acl_lines(admin, names)
    done: list[str] = []
    try:
        for p in participants:
            try:
                admin.execute_command(
                    "ACL", "SETUSER", p.name, *acl_rules(p.name), f">{p.password}"
                )
            except redis.exceptions.RedisError as exc:  # never echo the rule with the password
                raise type(exc)(redact(str(exc), [p.password])) from None
            done.append(p.name)
        if then is not None:
            then()
    except BaseException:
        for name in done:  # best effort: a server that is gone keeps what it had
            with contextlib.suppress(redis.exceptions.RedisError):
                if name in before:
                    admin.execute_command("ACL", "SETUSER", name, "reset", *before[name])
                else:
                    admin.execute_command("ACL", "DELUSER", name)
        raise


def _acl_lines(admin: redis.Redis, names: Sequence[str]) -> dict[str, list[str]]:
    """The current rules (``ACL LIST``, password hashes included) of those of ``names`` that
    exist; refuses a name whose user is not a classroom participant."""
    wanted = set(names)
    found = {}
    for line in admin.execute_command("ACL", "LIST"):
        _, name, *rules = _text(line).split()
        if name in wanted:
            found[name] = rules
    foreign = sorted(set(found) - set(participant_users(admin)))
    if foreign:
        raise ValueError(
            f"ACL user {foreign[0]!r} already exists on this server and is not a classroom "
            f"participant (its keys are not ~{user_prefix(foreign[0])}*): setlab changes no "
            f"login but its own; choose another name"
        )
    return found


def kick(admin: redis.Redis, name: str) -> int:
    """End every connection of participant ``name`` (``CLIENT KILL USER``). Their running
    command finishes, their next one fails (a client may reconnect: the login and keys stay;
    :func:`remove` or a new password from :func:`configure` keeps them out). Returns how many
    connections were closed."""
    _check_names([name])
    if name not in participant_users(admin):
        raise ValueError(f"{name!r} is not a classroom participant on this server")
    return int(admin.execute_command("CLIENT", "KILL", "USER", name))


def remove(admin: redis.Redis, names: Iterable[str]) -> tuple[int, int]:
    """Delete the participants' keys (SCAN + UNLINK of ``setlab:@<name>:*``) and their ACL
    users. Returns (keys removed, users removed). Touches nothing else."""
    keys = users = 0
    for name in _check_names(list(names)):
        batch = []
        for key in admin.scan_iter(match=user_prefix(name) + "*", count=1000):
            batch.append(key)
            if len(batch) >= 500:
                keys += admin.unlink(*batch)
                batch.clear()
        if batch:
            keys += admin.unlink(*batch)
        users += int(admin.execute_command("ACL", "DELUSER", name))
    return keys, users


def write_csv(path: Path | str, participants: Sequence[Participant], host: str, port: int) -> Path:
    """Write ``name,setlab_user,redis_url`` per participant to ``path``, readable only by its
    owner (mode 0600: it holds every password). Returns the path."""
    out = io.StringIO(newline="")
    writer = csv.writer(out)
    writer.writerow(["name", "setlab_user", "redis_url"])
    for p in participants:
        writer.writerow([p.name, p.name, p.url(host, port)])
    return write_private(path, out.getvalue())


def write_private(path: Path | str, text: str) -> Path:
    """Write ``text`` to ``path`` readable and writable by its owner only (mode 0600), also
    when the file already exists with a wider mode. Returns the path.

    A symbolic link is refused (``O_NOFOLLOW``: a link planted where the CSV goes would
    otherwise receive every password), as is anything but a plain file: a ``ValueError``
    naming the path (:func:`setlab.core.outputs.open_output`)."""
    with open_output(path, private=True) as handle:
        handle.write(text.encode())
    return Path(path)


@dataclass(frozen=True)
class NamespaceUsage:
    """One participant's footprint on the classroom server, as the monitor shows it."""

    user: str
    connections: int  #: open client connections logged in as this user
    idle_s: int | None  #: seconds since the most recent command on any of them (None: none open)
    keys: int  #: keys under ``setlab:@<user>:``
    memory_bytes: int  #: ``MEMORY USAGE`` summed over those keys (bytes, allocator included)
    client_bytes: int = 0  #: ``CLIENT LIST`` ``tot-mem`` summed over their connections (bytes)


def usage(admin: redis.Redis, users: Iterable[str] | None = None) -> list[NamespaceUsage]:
    """Who is connected, what their connections hold, and how much memory each namespace holds.

    ``users``: the participants to report (default: :func:`participant_users`, plus anyone
    owning keys under ``setlab:@``). Connections come from ``CLIENT LIST``: its ``user=`` and
    ``idle=`` fields, and ``tot-mem``, the bytes a connection holds outside the keys (query and
    reply buffers, Redis 7.0 ``clientsCronTrackClientsMemUsage``) — memory from the same pool
    as the keys. Keys come from ``SCAN MATCH setlab:@*`` in database 0 (a participant cannot
    reach another: :data:`EXTRA_DENIED`) and memory from ``MEMORY USAGE`` of each key (5
    samples per aggregate: Redis's default, exact for strings and bitmaps).
    """
    clients: dict[str, list[tuple[int, int]]] = {}
    for client in admin.client_list():
        clients.setdefault(_text(client.get("user", "default")), []).append(
            (int(client.get("idle", 0)), int(client.get("tot-mem", 0)))
        )
    keys: dict[str, list[bytes]] = {}
    prefix = f"{ROOT}:@"
    for key in admin.scan_iter(match=prefix + "*", count=1000):
        owner = _text(key)[len(prefix) :].split(":", 1)[0]
        keys.setdefault(owner, []).append(key)
    if users is None:
        names = sorted(set(participant_users(admin)) | set(keys))
    else:
        names = _check_names(list(users))
    rows = []
    for name in names:
        owned = keys.get(name, [])
        conns = clients.get(name, [])
        rows.append(
            NamespaceUsage(name, len(conns), min(i for i, _ in conns) if conns else None,
                           len(owned), _memory(admin, owned), sum(m for _, m in conns))
        )  # fmt: skip
    return rows


def _memory(admin: redis.Redis, keys: list[bytes]) -> int:
    total = 0
    for start in range(0, len(keys), 500):
        pipe = admin.pipeline(transaction=False)
        for key in keys[start : start + 500]:
            pipe.memory_usage(key)
        total += sum(n or 0 for n in pipe.execute())  # None: the key expired or was deleted
    return total


def _text(value: object) -> str:
    return value.decode(errors="replace") if isinstance(value, bytes) else str(value)


#: what :func:`start_server` sets besides ``maxmemory`` (``redis.conf`` names, Redis 7.0):
#:
#: - ``busy-reply-threshold`` (ms, formerly ``lua-time-limit``): how long a script runs before
#:   Redis answers everyone else ``BUSY`` and accepts ``SCRIPT KILL``; the book's longest script
#:   as a participant took 43 ms (``redis-set-memory``, 2026-12; a live classroom test keeps it
#:   under a tenth), and the watchdog of :mod:`setlab.lab.classroom.watch` kills what runs longer;
#: - ``client-query-buffer-limit`` (bytes): the largest command one connection may send
#:   (Redis's minimum, 1 MiB; the book's largest, a Cuckoo fill's 2^16 8-byte items, is half);
#: - ``maxmemory-clients``: all connections' buffers together, as a share of ``maxmemory``;
#:   above it Redis closes the connections holding the most (client eviction, new in 7.0), so
#:   buffers cannot take the keys' memory. The instructor's connections opt out (``CLIENT
#:   NO-EVICT``, which a participant is denied).
SERVER_LIMITS = {
    "busy-reply-threshold": "1000",
    "client-query-buffer-limit": "1mb",
    "maxmemory-clients": "10%",
}


def start_server(
    *, port: int, bind: str = "127.0.0.1", maxmemory: str = "1gb"
) -> tuple[RedisServer, str]:
    """Start a redis-server for a class and lock its ``default`` user with a new password.

    Listens on ``bind`` (and loopback) at ``port``, with no persistence, RedisBloom when
    setlab finds it, ``maxmemory`` (a Redis size such as ``1gb``) and ``noeviction``: a full
    server refuses writes rather than evicting anybody's keys, and :data:`SERVER_LIMITS`. Only
    a server of its own: a taken ``port`` is refused (:class:`~setlab.lab.server.PortInUse`),
    and the password is set only on the process started here. The password is set with
    ``ACL SETUSER default`` after start, so it is on no command line; until then Redis's
    protected mode refuses every connection that is not from loopback. The server stops when
    this process ends. Returns the server and the instructor's password.
    """
    if not isinstance(port, int) or isinstance(port, bool) or not 1 <= port <= 65535:
        raise ValueError(f"port must be an int in 1..65535; got {port!r}")
    if not re.fullmatch(r"[0-9A-Fa-f.:*-]+", bind or ""):
        raise ValueError(f"bind must be an IP address such as 0.0.0.0 or 10.0.0.5; got {bind!r}")
    if not isinstance(maxmemory, str) or not re.fullmatch(r"\d+([kmg]b?)?", maxmemory.lower()):
        raise ValueError(f"maxmemory must be a Redis size such as 512mb or 2gb; got {maxmemory!r}")
    # an IPv4 wildcard already covers loopback (where setlab's own client connects) and binding
    # both fails; Redis binds an IPv6 address IPV6_V6ONLY, so "::" needs 127.0.0.1 beside it
    addresses = [bind] if bind in {"127.0.0.1", "0.0.0.0", "*"} else [bind, "127.0.0.1"]
    limits = [arg for name, value in SERVER_LIMITS.items() for arg in (f"--{name}", value)]
    server = RedisServer.start(
        port=port,
        extra_args=["--bind", *addresses, "--maxmemory", maxmemory,
                    "--maxmemory-policy", "noeviction", *limits],
    )  # fmt: skip
    password = generate_password()
    client = server.client(single_connection_client=True)
    try:
        server.check_own(client)  # the very process started above, before changing anything
        client.execute_command("ACL", "SETUSER", "default", "on", "resetpass", f">{password}")
    finally:
        client.close()
    return server, password
