"""Keeping secrets out of everything setlab prints: banners, errors, doctor lines, logs, pages.

A ``REDIS_URL`` may carry a password (``redis://user:secret@host:6379/0``, or
``?password=secret``). Every message that names a server goes through :func:`redact_url`, and
text that might quote a secret (an exception from a library) through :func:`redact`.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from urllib.parse import parse_qsl, unquote, urlencode, urlsplit, urlunsplit

MASK = "***"
_SECRET_PARAMS = {"password", "pass", "pwd", "secret", "token"}
#: ``user:password@`` anywhere in a string, for text that is not a well-formed URL
_USERINFO = re.compile(r"([^\s/:@]*):([^\s@/]+)@")


def redact_url(url: str) -> str:
    """``url`` with its password replaced by ``***``: ``redis://ana:***@host:6379/0``.

    Works on any ``scheme://user:password@host`` URL and on ``password=`` query parameters; in
    a string that is not a well-formed URL, anything shaped like ``user:password@`` is masked.
    """
    try:
        parts = urlsplit(url)
    except ValueError:
        return _USERINFO.sub(rf"\g<1>:{MASK}@", url)
    if not parts.scheme or not parts.netloc:  # not a URL: mask anything shaped like a login
        return _USERINFO.sub(rf"\g<1>:{MASK}@", url)
    netloc = parts.netloc
    if "@" in netloc:
        userinfo, host = netloc.rsplit("@", 1)
        if ":" in userinfo:
            userinfo = userinfo.split(":", 1)[0] + ":" + MASK
        elif userinfo and parts.scheme.startswith("redis"):
            userinfo = MASK  # redis://secret@host: the lone field is the password
        netloc = f"{userinfo}@{host}"
    query = parts.query
    if query:
        pairs = parse_qsl(query, keep_blank_values=True)
        query = urlencode([(k, MASK if k.lower() in _SECRET_PARAMS else v) for k, v in pairs])
        query = query.replace("%2A%2A%2A", MASK)
    return urlunsplit((parts.scheme, netloc, parts.path, query, parts.fragment))


def url_secrets(url: str) -> list[str]:
    """The secret strings inside ``url`` (its password, raw and decoded), for :func:`redact`."""
    found = [m.group(2) for m in _USERINFO.finditer(url)]
    try:
        parts = urlsplit(url)
    except ValueError:
        return sorted(set(found), key=len, reverse=True)
    if parts.password:
        found.append(parts.password)
    elif parts.username and not parts.password and parts.scheme.startswith("redis"):
        found.append(parts.username)
    found += [v for k, v in parse_qsl(parts.query) if k.lower() in _SECRET_PARAMS and v]
    found += [unquote(s) for s in found]
    return sorted({s for s in found if s}, key=len, reverse=True)


def redact(text: str, secrets: Iterable[str]) -> str:
    """``text`` with every occurrence of each secret replaced by ``***``.

    A secret shorter than four characters is replaced only where it stands alone (not inside a
    longer word), so a one-letter password does not garble every message.
    """
    for secret in secrets:
        if len(secret) >= 4:
            text = text.replace(secret, MASK)
        elif secret:
            text = re.sub(rf"(?<![A-Za-z0-9]){re.escape(secret)}(?![A-Za-z0-9])", MASK, text)
    return text
