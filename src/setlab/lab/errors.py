"""Errors a reader can act on.

redis-py raises bare ``ConnectionError``, ``TimeoutError``, ``OutOfMemoryError``,
``NoPermissionError`` and ``ReadOnlyError`` with the server's own words. The lab's client turns
each into one of the classes below, whose message names the server (never its password), the
command that failed, and what to do. Each class also subclasses the redis-py exception it
replaces, so code that catches ``redis.exceptions.ResponseError`` still catches it.

In a notebook, :func:`install_notebook_handler` makes IPython print a :class:`SetlabError` as
one line instead of a traceback.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator

import redis


class SetlabError(Exception):
    """Base of every error setlab raises on purpose: its message says what to do."""


class ServerUnavailable(SetlabError, redis.exceptions.ConnectionError):
    """The server cannot be reached, or the connection broke."""


class ServerTimeout(SetlabError, redis.exceptions.TimeoutError):
    """The server did not answer in time (frozen, overloaded, or a network problem)."""


class ServerOutOfMemory(SetlabError, redis.exceptions.OutOfMemoryError):
    """The server refused a write: ``maxmemory`` reached under ``noeviction``."""


class PermissionDenied(SetlabError, redis.exceptions.NoPermissionError):
    """The server's ACL denies this user a command or a key."""


class ReadOnlyServer(SetlabError, redis.exceptions.ReadOnlyError):
    """The server is a read-only replica."""


class CommandRefused(SetlabError, redis.exceptions.ResponseError):
    """The server answered a command with an error no class above covers: a command it does not
    know (renamed or disabled with ``rename-command``, or its module not loaded), or one that
    does not apply to the key (``WRONGTYPE``)."""


class ConfigurationError(SetlabError, ValueError):
    """A setting (an environment variable such as ``SETLAB_SCALE``) has a value setlab refuses."""


class BigAllocationRefused(SetlabError, RuntimeError):
    """An experiment would use more memory on a server than the lab may use there."""


def _short(exc: BaseException) -> str:
    return str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__


def translate(exc: Exception, where: str, command: str, namespace: str) -> Exception:
    """The setlab error for a redis-py exception raised by ``command`` on server ``where``.

    Returns ``exc`` itself when it is not one of the kinds above (an ordinary ResponseError
    such as "bit offset is not an integer or out of range" is part of what chapters show).
    """
    if isinstance(exc, SetlabError):
        return exc
    cmd = command.upper()
    if isinstance(exc, redis.exceptions.TimeoutError):
        return ServerTimeout(
            f"Redis at {where} did not answer {cmd} in time ({_short(exc)}): the server is frozen, "
            "overloaded or unreachable. Check it (setlab doctor), or run on the embedded backend "
            "(SETLAB_BACKEND=fake) or a private server (unset REDIS_URL)."
        )
    if isinstance(exc, redis.exceptions.AuthenticationError):
        return PermissionDenied(
            f"Redis at {where} refused the login ({_short(exc)}): check the user name and "
            "password in REDIS_URL."
        )
    if isinstance(exc, redis.exceptions.ConnectionError):
        return ServerUnavailable(
            f"lost Redis at {where} during {cmd} ({_short(exc)}). Is the server running? Check "
            "with setlab doctor, or run on the embedded backend (SETLAB_BACKEND=fake)."
        )
    if isinstance(exc, redis.exceptions.OutOfMemoryError):
        return ServerOutOfMemory(
            f"Redis at {where} refused {cmd}: out of memory (maxmemory reached). setlab wrote only "
            f"under {namespace} and deletes it with lab.cleanup(); run with a smaller "
            "SETLAB_SCALE, or on a private server (unset REDIS_URL)."
        )
    if isinstance(exc, redis.exceptions.NoPermissionError) and "of the keys" in str(exc):
        return PermissionDenied(
            f"Redis at {where} denies {cmd} to this user on a key outside its ACL key pattern "
            f"(ACL: {_short(exc)}). setlab writes under {namespace or 'setlab:'}; if your "
            "pattern does not cover that, set SETLAB_USER to the name in it (~setlab:@<name>:*)."
        )
    if isinstance(exc, redis.exceptions.NoPermissionError):
        return PermissionDenied(
            f"Redis at {where} denies {cmd} to this user (ACL: {_short(exc)}). Where a figure "
            "needs it, the chapter shows the reference run instead; ask the administrator for "
            f"+{command.lower()} if you want it live."
        )
    if isinstance(exc, redis.exceptions.ReadOnlyError):
        return ReadOnlyServer(
            f"Redis at {where} is a read-only replica and refused {cmd}: point REDIS_URL at the "
            "primary."
        )
    return exc


@contextlib.contextmanager
def spoken(
    lab_error: Callable[[redis.exceptions.RedisError, str], Exception], command: str
) -> Iterator[None]:
    """Re-raise a redis-py error raised inside as ``lab_error(exc, command)`` (a client's
    ``_lab_error``: the setlab error that names the server and what to do), without redis-py's
    traceback chained under it; an error it returns unchanged propagates as it was."""
    try:
        yield
    except redis.exceptions.RedisError as exc:
        error = lab_error(exc, command)
        if error is exc:
            raise
        raise error from None


def install_notebook_handler() -> bool:
    """In IPython, print a :class:`SetlabError` as one line, not a traceback. Returns whether
    a handler was installed (False outside IPython)."""
    try:
        from IPython import get_ipython
    except ImportError:
        return False
    shell = get_ipython()
    if shell is None:
        return False

    def show(shell, etype, value, tb, tb_offset=None):  # IPython's signature
        print(f"setlab: {value}")
        return None

    shell.set_custom_exc((SetlabError,), show)
    return True
