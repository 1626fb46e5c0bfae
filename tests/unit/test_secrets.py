"""setlab.core.secrets: a password in REDIS_URL never reaches a printed line."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from setlab.core.secrets import MASK, redact, redact_url, url_secrets


@pytest.mark.parametrize(
    ("url", "shown"),
    [
        ("redis://ana:s3cret@db.example:6379/0", "redis://ana:***@db.example:6379/0"),
        ("redis://:s3cret@127.0.0.1:6380", "redis://:***@127.0.0.1:6380"),
        ("rediss://default:s3cret@host", "rediss://default:***@host"),
        ("redis://host:6379?password=s3cret&db=2", "redis://host:6379?password=***&db=2"),
        ("redis://127.0.0.1:6379/0", "redis://127.0.0.1:6379/0"),
        ("redis//ana:s3cret@host:1", "redis//ana:***@host:1"),  # a typo: still masked
        ("ana:s3cret@host", "ana:***@host"),
    ],
)
def test_a_url_shows_everything_but_the_password(url, shown):
    assert redact_url(url) == shown


# upper case only, so a generated password cannot also be a piece of the message around it
_password = st.text(alphabet="ABCDEFGHIJKLMNOPQRSTUVWXYZ", min_size=4, max_size=30)


@given(user=st.sampled_from(["", "ana", "default"]), password=_password)
def test_no_password_survives_redaction_of_its_url(user, password):
    url = f"redis://{user}:{password}@db.example:6379/0"
    assert redact_url(url) == f"redis://{user}:***@db.example:6379/0"
    message = redact(f"cannot reach {url}: {password}", url_secrets(url))
    assert message == f"cannot reach redis://{user}:***@db.example:6379/0: ***"


def test_a_malformed_url_gives_up_its_password_to_redaction_too():
    assert "s3cret" in url_secrets("redis//ana:s3cret@host:1")


def test_percent_encoded_passwords_are_redacted_both_ways():
    url = "redis://ana:p%40ss word@host:1"
    secrets = url_secrets(url)
    assert "p@ss word" in secrets
    assert redact("auth p@ss word failed", secrets) == f"auth {MASK} failed"


def test_a_short_password_is_redacted_only_where_it_stands_alone():
    assert redact("password ab rejected at abc", ["ab"]) == f"password {MASK} rejected at abc"
