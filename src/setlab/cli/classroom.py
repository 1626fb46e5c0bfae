"""``setlab classroom``: a Redis for a class, one ACL-confined user per participant.

* ``setlab classroom start ana bo chen`` — start a ``redis-server`` for the class (no
  persistence, ``maxmemory`` with ``noeviction``, RedisBloom when found), create the users,
  print each participant's ``REDIS_URL`` and write them to a CSV for the instructor. The
  server runs until Ctrl-C.
* ``setlab classroom add ana bo`` — the same users on a server the instructor already runs
  (its admin login in ``$SETLAB_ADMIN_URL`` or a file), for a VM or a managed Redis 7.
* ``setlab classroom monitor`` — who is connected, what their connections and namespaces hold,
  and who ran the slow commands.
* ``setlab classroom kick ana`` — end a participant's connections (a runaway chapter).
* ``setlab classroom remove ana`` — delete a participant's keys and user (``--all``: everyone).

The logic (ACL rules, passwords, the CSV, the monitor's numbers) is :mod:`setlab.lab.classroom`;
the start command's watchdog is :mod:`setlab.lab.classroom.watch`. Passwords appear only in
what the instructor asked for: the CSV (mode 0600), and the printed URLs when standard output
is a terminal (never into a redirected log, which ``umask`` usually leaves world-readable); the
instructor's own login goes to a 0600 file and is never printed, and every error is redacted.
"""

from __future__ import annotations

import argparse
import os
import signal
import socket
import sys
import time
from pathlib import Path
from typing import Any

ADMIN_ENV = "SETLAB_ADMIN_URL"
DEFAULT_CSV = "classroom.csv"
ADMIN_FILE = "classroom-admin.url"
DEFAULT_PORT = 6380


def add_parser(sub: Any) -> None:
    """Add ``setlab classroom …`` to the ``setlab`` command's subparsers."""
    p = sub.add_parser(
        "classroom", help="a Redis for a class: one ACL-confined user per participant",
        description="Start (or configure) a Redis for a class: one ACL user per participant "
        "confined to its own namespace (~setlab:@<name>:*, +@all -@dangerous), generated "
        "passwords, a REDIS_URL per participant, and a monitor.",
    )  # fmt: skip
    actions = p.add_subparsers(
        dest="action", required=True, metavar="{start,add,monitor,kick,remove}"
    )

    start = actions.add_parser(
        "start", help="start a class server, create the users, print and save their URLs",
        description="Start redis-server for the class and create one user per participant. "
        "The server keeps no data on disk and stops when this command does (Ctrl-C). A port "
        "something already listens on is refused: setlab configures only a server it starts. "
        "While it runs, a watchdog stops a participant's script that stalls the class and "
        "empties an overgrown script cache.",
    )  # fmt: skip
    _names_options(start)
    start.add_argument("--port", type=int, default=DEFAULT_PORT, help="port (default 6380)")
    start.add_argument(
        "--bind", default="127.0.0.1",
        help="address to listen on (default 127.0.0.1: this machine only; 0.0.0.0 for the room)",
    )  # fmt: skip
    start.add_argument("--host", help="host name participants use in their URL (default: --bind)")
    start.add_argument("--maxmemory", default="1gb", help="server memory cap (default 1gb)")
    _csv_option(start)
    start.set_defaults(func=_start)

    add = actions.add_parser(
        "add", help="create participant users on a server you already administer",
        description=f"Create (or renew) participant users on an existing Redis 7. The admin "
        f"login comes from ${ADMIN_ENV} or --admin-file (never the command line).",
    )  # fmt: skip
    _names_options(add)
    _admin_option(add)
    add.add_argument("--host", help="host name in the participants' URLs (default: the admin's)")
    add.add_argument("--port", type=int, help="port in the URLs (default: the admin's)")
    _csv_option(add)
    add.set_defaults(func=_add)

    monitor = actions.add_parser(
        "monitor", help="who is connected, and how much memory each namespace holds",
    )  # fmt: skip
    _admin_option(monitor)
    monitor.add_argument(
        "--every", type=float, metavar="SECONDS",
        help="repeat every SECONDS until Ctrl-C (default: once)",
    )  # fmt: skip
    monitor.set_defaults(func=_monitor)

    kick = actions.add_parser(
        "kick", help="end one participant's connections (their login and keys stay)",
        description="Close every connection of a participant (CLIENT KILL USER): a runaway "
        "chapter stops at its next command. Their keys and login stay; `remove` deletes both.",
    )  # fmt: skip
    kick.add_argument("name", help="the participant")
    _admin_option(kick)
    kick.set_defaults(func=_kick)

    remove = actions.add_parser(
        "remove", help="delete participants' keys and users (nothing else)",
    )  # fmt: skip
    remove.add_argument("names", nargs="*", help="participants to remove")
    remove.add_argument("--all", action="store_true", help="every participant user on the server")
    _admin_option(remove)
    remove.set_defaults(func=_remove)


def _names_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("names", nargs="*", help="participant names (also their ACL users)")
    p.add_argument("--names-file", metavar="FILE", help="names, one per line ('#' comments)")


def _csv_option(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--csv", default=DEFAULT_CSV, metavar="PATH",
        help=f"where to write name,setlab_user,redis_url (default {DEFAULT_CSV}, mode 600); "
        "written before any user is created, so a failure leaves no user without a password",
    )  # fmt: skip
    p.add_argument(
        "--quiet", action="store_true",
        help="do not print the URLs, only write the CSV (when your screen is projected). "
        "When standard output is not a terminal (a redirect, a pipe, a log) the URLs and "
        "passwords are never printed: the CSV's path is",
    )  # fmt: skip


def _admin_option(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--admin-file", metavar="PATH",
        help=f"file holding the admin's Redis URL (default: ${ADMIN_ENV}, else ./{ADMIN_FILE} "
        "as written by `setlab classroom start`)",
    )  # fmt: skip


def _names(args: argparse.Namespace) -> list[str]:
    from setlab.lab import classroom

    text = "\n".join(args.names)
    if args.names_file:
        text += "\n" + Path(args.names_file).read_text()
    return classroom.read_names(text)


def _admin_url(args: argparse.Namespace) -> str:
    if args.admin_file:
        return Path(args.admin_file).read_text().strip()
    if os.environ.get(ADMIN_ENV):
        return os.environ[ADMIN_ENV].strip()
    if Path(ADMIN_FILE).is_file():
        return Path(ADMIN_FILE).read_text().strip()
    raise ValueError(
        f"no admin login: set {ADMIN_ENV}=redis://default:<password>@host:port/0, or pass "
        f"--admin-file (setlab classroom start writes {ADMIN_FILE})"
    )


class _Admin:
    """The instructor's connection, with every error redacted of the admin's secrets."""

    def __init__(self, url: str) -> None:
        import redis

        from setlab.core.secrets import redact_url, url_secrets

        self.shown = redact_url(url)
        self.secrets = url_secrets(url)
        try:
            self.client = redis.Redis.from_url(url, socket_timeout=10, socket_connect_timeout=4)
        except ValueError:
            raise ValueError(f"the admin URL {self.shown} is not a Redis URL") from None
        kwargs = self.client.connection_pool.connection_kwargs
        self.host = str(kwargs.get("host", "127.0.0.1"))
        self.port = int(kwargs.get("port", 6379))

    def __enter__(self) -> Any:
        return self.client

    def __exit__(self, kind: Any, exc: BaseException | None, tb: Any) -> None:
        import redis

        from setlab.core.secrets import redact
        from setlab.lab.server import ServerError

        self.client.close()
        if isinstance(exc, redis.exceptions.RedisError):
            raise ServerError(
                redact(f"Redis at {self.shown}: {' '.join(str(exc).split())}", self.secrets)
            ) from None


def _show(args: argparse.Namespace, participants: list[Any], host: str, port: int) -> None:
    """Print the participants' URLs, only to a terminal (a redirected log keeps no password)."""
    from setlab.lab import classroom

    print(f"each participant: ACL user <name> with {classroom.rules_text()}")
    if not args.quiet and sys.stdout.isatty():
        width = max(len(p.name) for p in participants)
        for p in participants:
            print(f"  {p.name:<{width}}  REDIS_URL={p.url(host, port)}  SETLAB_USER={p.name}")
    elif not args.quiet:
        print("passwords not printed: standard output is not a terminal")
    print(f"{len(participants)} participant URL(s) written to {Path(args.csv)} (mode 600)")


def _start(args: argparse.Namespace) -> int:
    import redis

    from setlab.lab import classroom
    from setlab.lab.classroom.watch import Watchdog

    names = _names(args)
    host = args.host or (socket.gethostname() if args.bind in {"0.0.0.0", "::", "*"} else args.bind)
    server, password = classroom.start_server(
        port=args.port, bind=args.bind, maxmemory=args.maxmemory
    )
    try:
        admin = server.client(password=password, single_connection_client=True)
        participants = classroom.enroll(admin, names, args.csv, host, server.port)
        modules = "RedisBloom loaded" if server.module else "no RedisBloom"
        version = admin.info("server")["redis_version"]
        print(
            f"classroom Redis {version} ({modules}) on {args.bind}:{server.port}, maxmemory "
            f"{args.maxmemory}, noeviction; no data on disk"
        )
        _show(args, participants, host, server.port)
        admin_file = classroom.write_private(
            Path(args.csv).resolve().parent / ADMIN_FILE,
            f"redis://default:{password}@127.0.0.1:{server.port}/0\n",
        )
        print(f"your own login (user default) is in {admin_file} (mode 600)")
        print(f"watch the class: setlab classroom monitor --admin-file {admin_file} --every 10")
        print("serving until Ctrl-C; stopping the server forgets every key", flush=True)
        signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))  # `kill` stops it cleanly too
        watchdog = Watchdog(admin)
        while server.alive:
            try:
                said = watchdog.step()
            except redis.exceptions.ConnectionError:
                if server.alive:
                    raise
                break  # it died: say why below
            for line in said:
                print(f"{time.strftime('%H:%M:%S')}  {line}", flush=True)
            time.sleep(1)
        print(server.death_message(), file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("class server stopped", file=sys.stderr)
        return 0
    finally:
        server.stop()


def _add(args: argparse.Namespace) -> int:
    from setlab.lab import classroom

    names = _names(args)
    admin = _Admin(_admin_url(args))
    host, port = args.host or admin.host, args.port or admin.port
    with admin as client:
        participants = classroom.enroll(client, names, args.csv, host, port)
    _show(args, participants, host, port)
    return 0


def _kick(args: argparse.Namespace) -> int:
    from setlab.lab import classroom

    with _Admin(_admin_url(args)) as client:
        closed = classroom.kick(client, args.name)
    print(f"closed {closed} connection(s) of {args.name}; their keys and login stay")
    return 0


def _monitor(args: argparse.Namespace) -> int:
    if args.every is not None and args.every <= 0:
        raise ValueError(f"--every must be a positive number of seconds; got {args.every:g}")
    admin = _Admin(_admin_url(args))
    who: dict[str, str] = {}  # connection address → user, kept to name who has since left
    with admin as client:
        while True:
            print(render(client, who), flush=True)
            if args.every is None:
                return 0
            time.sleep(args.every)
            print()


#: how far back the monitor's "slowest lately" line looks in the SLOWLOG (s)
SLOW_WINDOW_S = 600


def render(client: Any, who: dict[str, str] | None = None) -> str:
    """The monitor's table: one row per participant (connections, their buffers' memory, keys,
    the keys' memory), the server's memory, and the slowest recent commands with their user.
    While a script stalls the server (``BUSY``), one line saying so instead."""
    from setlab.lab.classroom.watch import is_busy

    try:
        return _table(client, {} if who is None else who)
    except Exception as exc:
        if not is_busy(exc):
            raise
        return (
            f"{time.strftime('%H:%M:%S')}  server busy: a participant's script has run past "
            f"busy-reply-threshold and every other command waits (`setlab classroom start` "
            f"kills it at once; on another server: SCRIPT KILL)"
        )


def _table(client: Any, who: dict[str, str]) -> str:
    from setlab.core.formats import format_bytes
    from setlab.lab import classroom
    from setlab.lab.classroom.watch import slow_commands

    rows = classroom.usage(client)
    lines = [f"{time.strftime('%H:%M:%S')}  {'user':<16} {'conn':>4} {'idle':>7} "
             f"{'clients':>10} {'keys':>8} {'memory':>10}"]  # fmt: skip
    for row in rows:
        idle = "-" if row.idle_s is None else f"{row.idle_s} s"
        lines.append(
            f"{'':8}  {row.user:<16} {row.connections:>4} {idle:>7} "
            f"{format_bytes(row.client_bytes):>10} {row.keys:>8,} "
            f"{format_bytes(row.memory_bytes):>10}"
        )
    info = client.info("memory")
    limit = int(info.get("maxmemory", 0))
    lines.append(
        f"{'':8}  {len(rows)} participant(s), {sum(r.connections for r in rows)} connected; "
        f"server uses {format_bytes(int(info['used_memory']))}"
        + (f" of {format_bytes(limit)} ({info.get('maxmemory_policy')})" if limit else "")
        + f": connections {format_bytes(int(info.get('mem_clients_normal', 0)))}, "
        f"{int(info.get('number_of_cached_scripts', 0)):,} cached script(s) "
        f"{format_bytes(int(info.get('used_memory_scripts_eval', 0)))}"
    )
    names = {r.user for r in rows} | {"?"}  # "?": a connection that closed before we saw it
    recent = [e for e in slow_commands(client, who)
              if e.user in names and e.started > time.time() - SLOW_WINDOW_S]  # fmt: skip
    if recent:
        top = sorted(recent, key=lambda e: -e.duration_ms)[:3]
        shown = [f"{e.user if e.user != '?' else '(closed connection)'} {e.command} "
                 f"{e.duration_ms:,.0f} ms" for e in top]  # fmt: skip
        lines.append(
            f"{'':8}  slowest in {SLOW_WINDOW_S // 60} min (each one stalled everybody): "
            + ", ".join(shown)
        )
    return "\n".join(lines)


def _remove(args: argparse.Namespace) -> int:
    from setlab.lab import classroom

    with _Admin(_admin_url(args)) as client:
        if args.all == bool(args.names):
            raise ValueError("give participant names, or --all (not both)")
        names = classroom.participant_users(client) if args.all else args.names
        keys, users = classroom.remove(client, names)
    print(f"removed {keys:,} key(s) and {users} user(s); nothing outside setlab:@<name>: touched")
    return 0
