"""Keeping secrets out of everything setlab prints: banners, errors, doctor lines, logs, pages.

A ``REDIS_URL`` may carry a password (``redis://user:secret@host:6379/0``, or
``?password=secret``), and a reader's password may hold what a URL cannot carry unencoded
(``/``, ``?``, ``#``, ``@``, spaces): ``redis://:kQ3/x9Zp+4Ab@host`` does not even parse as
meant. So redaction does not parse. :func:`redact` masks, in any text, everything between a
``scheme://`` and the last ``@`` of that URL (keeping a plain user name:
``redis://ana:***@host``), the value of every ``password=``-style parameter, and a
``user:password@`` shape without a scheme; and every secret it is given, wherever it stands.
A URL ends at whitespace, so a password holding a space is found only by knowing it: callers
pass the secrets of the URL they use (:func:`url_secrets` of ``REDIS_URL``), and
:func:`redact_url` does so for the URL itself.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from urllib.parse import unquote, unquote_plus

MASK = "***"
#: query parameters whose value is a secret (redis-py reads ``password``; the rest are common)
_SECRET_PARAMS = ("password", "passwd", "pass", "pwd", "secret", "token")
#: a scheme and its ``//`` (RFC 3986 §3.1): a URL's user information may follow
_SCHEME = re.compile(r"(?<![A-Za-z0-9+.-])[A-Za-z][A-Za-z0-9+.-]*://")
#: a user name shown as it is (the ACL names setlab makes, ``default``, or none at all)
_USER = re.compile(r"[A-Za-z0-9_.~+-]{0,64}")
_PARAM_NAME = rf"(?i)(?<![A-Za-z0-9_])({'|'.join(_SECRET_PARAMS)})="
#: where the next query parameter starts: ``&name=``
_NEXT_PARAM = re.compile(r"&[A-Za-z_][A-Za-z0-9_]*=")
#: ``password=<value>`` in text: the value ends at whitespace or where the next parameter starts
_PARAM = re.compile(rf"{_PARAM_NAME}((?:[^\s&]|&(?![A-Za-z_][A-Za-z0-9_]*=))*)")
#: the characters that end a URL's authority (RFC 3986 §3.2)
_ENDS_AUTHORITY = "/?#"


def redact(text: str, secrets: Iterable[str] = ()) -> str:
    """``text`` with every secret in it replaced by ``***``: each of ``secrets`` (longest
    first), then whatever has the shape of one (see the module docstring).

    A secret shorter than four characters is replaced only where it stands alone (not inside a
    longer word), so a one-letter password does not garble every message.
    """
    for secret in sorted({s for s in secrets if s}, key=lambda s: (-len(s), s)):
        if len(secret) >= 4:
            text = text.replace(secret, MASK)
        else:
            text = re.sub(rf"(?<![A-Za-z0-9]){re.escape(secret)}(?![A-Za-z0-9])", MASK, text)
    # parameters first: an '@' in a password= value is not where a URL's user information ends
    text = _PARAM.sub(lambda m: f"{m[1]}={MASK}" if m[2] else m[0], text)
    return "".join(_mask_token(token) for token in re.split(r"(\s+)", text))


def redact_url(url: str) -> str:
    """``url`` with its password replaced by ``***``, whether or not it parses:
    ``redis://ana:***@host:6379/0``, ``redis://:***@host``, ``redis://host/0?password=***``."""
    return redact(url, url_secrets(url))


def url_secrets(url: str) -> list[str]:
    """Every string that may be the secret of ``url`` (one URL, such as ``REDIS_URL``), for
    :func:`redact`: its password (see :func:`_userinfo`), the value of each ``password=``-style
    parameter read the ways a parser may end it, and each of them percent-decoded as redis-py
    decodes it. Longest first."""
    found: list[str] = []
    scheme, userinfo = _userinfo(url)
    if userinfo:
        user, colon, password = userinfo.partition(":")
        found.append(password if colon else userinfo)  # redis://secret@host: the lone field
        if colon and scheme and not _USER.fullmatch(user):
            found.append(userinfo)  # not clearly a user name: all of it may be the password
    for start, end in _param_values(url):
        found.append(url[start:end])
        found.append(re.split(r"[&#]", url[start:end], maxsplit=1)[0])  # where parse_qs ends it
    found += [decode(s) for s in found for decode in (unquote, unquote_plus)]
    return sorted({s for s in found if s}, key=lambda s: (-len(s), s))


def check_url(url: str) -> None:
    """Refuse a URL whose password holds ``/``, ``?`` or ``#`` unencoded: ``ValueError`` saying
    which, and how to encode them, never quoting the password.

    Each of them ends a URL's authority (RFC 3986 §3.2), so a parser ends the host there: the
    rest of the password becomes a path, a query or a fragment, the URL names another host or
    port (``redis://:6379/x@db:6379/0`` reads as localhost:6379 without a password), and the
    parser's errors quote pieces of the password.
    """
    scheme, userinfo = _userinfo(url)
    found = "".join(dict.fromkeys(c for c in userinfo if c in _ENDS_AUTHORITY)) if scheme else ""
    if found:
        encoded = ", ".join(f"{c!r} as %{ord(c):02X}" for c in found)
        them = "it" if len(found) == 1 else "them"
        raise ValueError(
            f"its password holds {' '.join(map(repr, found))} unencoded, and a URL's host ends "
            f"there (so the URL names another server): percent-encode {them} ({encoded})"
        )


def _param_values(url: str) -> list[tuple[int, int]]:
    """Where each ``password=``-style value of ``url`` starts and ends: at the next ``&name=``
    or the end (one URL: whitespace in it is part of the value)."""
    spans = []
    for name in re.finditer(_PARAM_NAME, url):
        following = _NEXT_PARAM.search(url, name.end())
        spans.append((name.end(), following.start() if following else len(url)))
    return spans


def _userinfo(url: str) -> tuple[bool, str]:
    """Whether ``url`` starts with ``scheme://``, and its user information as :func:`redact`
    reads it, parsed or not: from ``scheme://`` (or the start) to the last ``@`` outside a
    ``password=`` value; ``""`` when there is none."""
    scheme = _SCHEME.match(url)
    start = scheme.end() if scheme else 0
    outside = list(url)
    for value_start, value_end in _param_values(url):
        outside[value_start:value_end] = " " * (value_end - value_start)
    at = "".join(outside).rfind("@")
    return scheme is not None, url[start:at] if at > start else ""


def _mask_token(token: str) -> str:
    """One whitespace-free piece of text with its URL's user information masked."""
    at = token.rfind("@")
    if at < 0:
        return token
    scheme = _SCHEME.search(token, 0, at)
    if scheme:
        start = scheme.end()
        user, colon, _ = token[start:at].partition(":")
        shown = f"{user}:{MASK}" if colon and _USER.fullmatch(user) else MASK
        return token[:start] + (shown if at > start else "") + token[at:]
    colon = token.find(":", 0, at)  # user:password@host, as in a URL whose "//" was mistyped
    if colon < 0 or colon + 1 == at:
        return token
    return f"{token[: colon + 1]}{MASK}{token[at:]}"
