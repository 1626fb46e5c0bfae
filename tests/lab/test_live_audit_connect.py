"""``setlab audit`` on a real server it cannot audit, each failure worded for what it is (issue 47,
item 8): a wrong password is a refused login, not an unreachable server; no server on the port
is "cannot reach"; ``rediss://`` to a server that does not speak TLS is named as that, not as a
busy server; a database the server does not have is named. And on a server that is not a
Cluster, a big key's finding says nothing of Cluster nodes; one key is "1 key".

A private server with a password set after it started (the lab checks it is its own first);
a second or two in all.
"""

from __future__ import annotations

import pytest
import redis

from setlab.lab.errors import PermissionDenied, ServerTimeout, ServerUnavailable
from setlab.lab.server import RedisServer, free_port
from setlab.tools import audit
from tests.conftest import _need_redis_server

pytestmark = pytest.mark.live

SECRET = "s3cret-Connect-pass"


@pytest.fixture(scope="module")
def guarded():
    _need_redis_server()
    server = RedisServer.start(module=False)
    client = server.client()
    client.set("blob", b"x" * (11 << 20))  # past findings.BIG_KEY_BYTES (10 MiB)
    client.config_set("requirepass", SECRET)
    client.close()
    yield server
    server.stop()


def _url(server: RedisServer, password: str | None = SECRET, scheme: str = "redis",
         db: str = "0") -> str:  # fmt: skip
    login = f":{password}@" if password else ""
    return f"{scheme}://{login}{server.host}:{server.port}/{db}"


def test_a_wrong_password_is_a_refused_login_not_an_unreachable_server(guarded):
    with pytest.raises(PermissionDenied) as refused:
        audit.audit(_url(guarded, SECRET[::-1]), rate=0)
    said = str(refused.value)
    assert f"Redis at {guarded.host}:{guarded.port}/0 refused the login" in said
    assert "cannot reach" not in said and SECRET[::-1] not in said


def test_no_password_is_a_server_asking_for_one(guarded):
    with pytest.raises(PermissionDenied, match="asks for a password"):
        audit.audit(_url(guarded, None), rate=0)


def test_no_server_on_the_port_is_cannot_reach():
    port = free_port()
    with pytest.raises(ServerUnavailable) as unreachable:
        audit.audit(f"redis://127.0.0.1:{port}/0", rate=0)
    said = str(unreachable.value)
    assert said.startswith(f"cannot reach Redis at 127.0.0.1:{port}/0 (")
    assert "Connection refused" in said and "lost" not in said


def test_tls_to_a_plain_server_is_named_as_that_not_as_a_busy_server(guarded):
    with pytest.raises((ServerTimeout, ServerUnavailable)) as plain:
        audit.audit(_url(guarded, scheme="rediss"), rate=0, timeout=0.5)
    said = str(plain.value)
    assert "use redis:// instead of rediss://" in said
    assert "busy" not in said and "frozen" not in said


def test_a_database_the_server_does_not_have_is_named(guarded):
    with pytest.raises(ValueError, match=r"has no database 99 .*DB index is out of range"):
        audit.audit(_url(guarded, db="99"), rate=0)


def test_one_key_on_a_server_that_is_no_cluster(guarded):
    result = audit.audit(_url(guarded), rate=0)
    assert "  1 key read in " in result.text()
    (big,) = [f for f in result.findings if f.kind == "big-key"]
    assert "blocks Redis" in big.message and "Cluster" not in big.message
    client = redis.Redis.from_url(_url(guarded))
    assert client.info("cluster")["cluster_enabled"] == 0  # the server the remark is not for
    client.close()
