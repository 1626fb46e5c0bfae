"""setlab.core.secrets: a password in REDIS_URL never reaches a printed line, parsed or not."""

from __future__ import annotations

import re

import pytest
from hypothesis import assume, example, given
from hypothesis import strategies as st

from setlab.core.secrets import MASK, check_url, redact, redact_url, url_secrets


@pytest.mark.parametrize(
    ("url", "shown"),
    [
        ("redis://ana:s3cret@db.example:6379/0", "redis://ana:***@db.example:6379/0"),
        ("redis://:s3cret@127.0.0.1:6380", "redis://:***@127.0.0.1:6380"),
        ("rediss://default:s3cret@host", "rediss://default:***@host"),
        ("redis://s3cret@host:1/0", "redis://***@host:1/0"),  # the lone field is the password
        ("redis://host:6379?password=s3cret&db=2", "redis://host:6379?password=***&db=2"),
        ("redis://host/0?password=p@ss&db=2", "redis://host/0?password=***&db=2"),
        ("redis://127.0.0.1:6379/0", "redis://127.0.0.1:6379/0"),
        ("redis//ana:s3cret@host:1", "redis//ana:***@host:1"),  # a typo: still masked
        ("ana:s3cret@host", "ana:***@host"),
        # what no URL parser reads as meant: masked all the same, up to the last '@'
        ("redis://:kQ3/x9Zp+4Ab@127.0.0.1:6379/0", "redis://:***@127.0.0.1:6379/0"),
        ("redis://ana:a?b#c@d@host/0", "redis://ana:***@host/0"),
        ("redis://an/a:s3cret@host/0", "redis://***@host/0"),  # not clearly a user name
    ],
)
def test_a_url_shows_everything_but_the_password(url, shown):
    assert redact_url(url) == shown


def test_text_around_urls_is_left_as_it_is():
    text = "keys under setlab:@ana:19a3f-0c1d:doctor: (ACL ~setlab:@ana:*) on 127.0.0.1:6379"
    assert redact(text) == text


#: every printable ASCII character, and some that are not ASCII (no whitespace among those)
_CHAR = st.one_of(
    st.characters(min_codepoint=0x20, max_codepoint=0x7E),
    st.characters(min_codepoint=0xA1, exclude_categories=("Cs", "Z", "C")),
)
_password = st.text(_CHAR, min_size=4, max_size=30)
#: no whitespace, and no '*' (masking "*&00" as "***&00" would rebuild it from the mask)
_no_space = _password.filter(lambda p: not any(c.isspace() or c == "*" for c in p))

_URLS = (
    "redis://:{pw}@127.0.0.1:6379/0",
    "redis://user:{pw}@host/0",
    "rediss://default:{pw}@db.example:6380",
    "redis://127.0.0.1:6379/0?password={pw}",
    "rediss://db.example:6380/2?db=2&password={pw}",
)
_template = st.sampled_from(_URLS)


def _visible(template: str, pw: str) -> str:
    """The URL with its password masked: the text a password may not be part of, for the test
    to mean anything (a password "redi" cannot be hidden in "redis://…")."""
    return template.replace("{pw}", MASK)


@given(template=_template, pw=_password)
@example("redis://:{pw}@127.0.0.1:6379/0", "kQ3/x9Zp+4Ab")  # the issue's own password
@example("redis://user:{pw}@host/0", "a b@c/d?e#f:g")
@example("redis://127.0.0.1:6379/0?password={pw}", "ab&cd#ef gh")
def test_no_password_of_any_character_survives_redaction_of_its_url(template, pw):
    assume(pw not in _visible(template, pw))
    assert pw not in redact_url(template.replace("{pw}", pw))


@given(template=_template, pw=_password, before=st.text(max_size=20), after=st.text(max_size=20))
def test_no_password_survives_in_longer_text_given_its_url(template, pw, before, after):
    url = template.replace("{pw}", pw)
    text = f"{before} cannot reach {url}: {pw!r} refused {after}"
    assume(pw not in f"{before} cannot reach {_visible(template, pw)}: refused {after}")
    assert pw not in redact(text, url_secrets(url))


@given(template=_template, pw=_no_space)
@example("redis://:{pw}@127.0.0.1:6379/0", "kQ3/x9Zp+4Ab")
def test_no_password_survives_in_an_exception_message_without_knowing_the_url(template, pw):
    """A URL quoted by someone else's exception: the shape alone gives the password away, as
    long as it holds no whitespace (a URL ends at whitespace: then only url_secrets helps)."""
    message = "Error connecting to {url}. Refused."
    assume(pw not in message.format(url=_visible(template, pw)))
    assume(not re.search(r"&[A-Za-z_][A-Za-z0-9_]*=", pw))  # "&db=2" is a parameter: ambiguous
    error = ConnectionError(message.format(url=template.replace("{pw}", pw)))
    shown = redact(str(error))
    assert pw not in shown
    assert shown.startswith("Error connecting to ") and shown.endswith(" Refused.")


@given(pw=_password)
def test_a_percent_encoded_password_is_redacted_encoded_and_decoded(pw):
    from urllib.parse import quote

    url = f"redis://ana:{quote(pw, safe='')}@host:1/0"
    assume(pw not in "redis://ana:***@host:1/0" and quote(pw, safe="") != pw)
    assert pw in url_secrets(url)
    assert pw not in redact(f"auth {pw} failed for {url}", url_secrets(url))


def test_a_short_password_is_redacted_only_where_it_stands_alone():
    assert redact("password ab rejected at abc", ["ab"]) == f"password {MASK} rejected at abc"


@pytest.mark.parametrize(
    ("url", "found"),
    [
        ("redis://:kQ3/x9Zp+4Ab@127.0.0.1:6379/0", "'/'"),
        ("redis://ana:a?b#c/d@host/0", "'?' '#' '/'"),
        ("redis://:6379/x@db.example:6379/0", "'/'"),  # would be localhost:6379, no password
    ],
)
def test_a_password_that_would_name_another_server_is_refused_without_quoting_it(url, found):
    with pytest.raises(ValueError, match="percent-encode") as refused:
        check_url(url)
    assert f"holds {found} unencoded" in str(refused.value)
    assert not set(url_secrets(url)) & set(str(refused.value).split())


@pytest.mark.parametrize(
    "url",
    ["redis://:p%2Fw%3F%23@host/0", "redis://ana:s3cret@host:6379/0", "redis://127.0.0.1:6379/0"],
)
def test_a_url_whose_password_is_encoded_passes(url):
    check_url(url)
