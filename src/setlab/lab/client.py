"""The lab's redis-py client: the lab's errors, its memory guard and its keys' expiry.

:func:`setlab.lab.backend.connect` makes one per lab; everything a chapter sends goes through it.
"""

from __future__ import annotations

from typing import Any

import redis

from setlab.core.secrets import redact
from setlab.lab import expiry
from setlab.lab.errors import spoken, translate
from setlab.lab.guard import MemoryGuard
from setlab.lab.server import RedisServer, ServerError


class LabRedis(redis.Redis):
    """A redis-py client that speaks the lab's errors.

    - A dead private server becomes ``ServerError`` with its exit code and last log lines.
    - Connection, timeout, out-of-memory, ACL and read-only errors become setlab errors that
      name the server (never its password), the command, and what to do.
    - On a server setlab did not start, every write passes the memory guard first.
    """

    _lab_server: RedisServer | None = None
    _lab_where: str = "?"
    _lab_namespace: str = ""
    _lab_secrets: tuple[str, ...] = ()
    _lab_guard: MemoryGuard | None = None
    _lab_expiry: expiry.Expiry | None = None  # on a shared server: what makes written keys expire

    def _lab_error(self, exc: Exception, command: str) -> Exception:
        server = self._lab_server
        dead = server is not None and not server.alive
        if isinstance(exc, redis.exceptions.ConnectionError) and dead:
            return ServerError(server.death_message())
        translated = translate(exc, self._lab_where, command, self._lab_namespace)
        if self._lab_secrets and translated.args:
            translated.args = (redact(str(translated.args[0]), self._lab_secrets),)
        return translated

    def execute_command(self, *args: Any, **options: Any) -> Any:
        if self._lab_guard is not None:
            self._lab_guard.before([args])
        with spoken(self._lab_error, str(args[0]) if args else "?"):
            if self._lab_expiry is not None:
                return self._lab_expiry.execute(self, args, options)
            return super().execute_command(*args, **options)

    def pipeline(self, transaction: bool = True, shard_hint: Any = None) -> Any:
        pipe = super().pipeline(transaction=transaction, shard_hint=shard_hint)
        execute = pipe.execute

        def checked_execute(raise_on_error: bool = True) -> list[Any]:
            if self._lab_guard is not None:
                self._lab_guard.before(args for args, _options in pipe.command_stack)
            with spoken(self._lab_error, "a pipeline"):
                if self._lab_expiry is not None:
                    return self._lab_expiry.execute_pipeline(self, pipe, execute, raise_on_error)
                return execute(raise_on_error=raise_on_error)

        pipe.execute = checked_execute
        return pipe

    def raw(self) -> redis.Redis:
        """A plain client to the same server, bypassing the guard (for INFO inside the guard)."""
        return redis.Redis(connection_pool=self.connection_pool)
