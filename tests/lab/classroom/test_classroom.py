"""The classroom's pieces that need no server: ACL rules, names, passwords, the CSV, the
namespace an ACL user gets, the error a confined user sees, and the CLI's refusals."""

from __future__ import annotations

import csv
import stat
import subprocess
import sys

import pytest
import redis

from setlab.lab import backend, classroom
from setlab.lab.errors import PermissionDenied, translate


def test_a_participant_is_confined_to_its_namespace_with_no_dangerous_commands():
    rules = classroom.acl_rules("ana")
    assert rules[:2] == ["reset", "on"]  # nothing inherited from an earlier definition
    assert [r for r in rules if r.startswith("~")] == ["~setlab:@ana:*"]
    assert "resetchannels" in rules
    assert rules.index("+@all") < rules.index("-@dangerous")  # the deny comes after the grant
    # scripting: the whole category denied, then back only what the book's code sends
    kept = ["+eval", "+evalsha", "+script|load", "+script|exists"]
    assert rules[rules.index("-@scripting") + 1 : rules.index("-@scripting") + 5] == kept
    for command in ("randomkey", "select", "move", "copy"):  # another's key name, another db
        assert f"-{command}" in rules and rules.index(f"-{command}") > rules.index("+@all")
    # the key pattern is exactly the prefix connect() writes under for that user
    assert backend.namespace_for("setbit-offset", "ana", "run1").startswith("setlab:@ana:")
    assert not any(r.startswith(">") for r in rules)  # the password is added by configure()
    assert "~setlab:@<name>:*" in classroom.rules_text() and "-@dangerous" in classroom.rules_text()


@pytest.mark.parametrize("bad", ["", "default", "a b", "x*", "-lead", "a" * 65, "ana:bo", "é"])
def test_names_that_are_not_a_namespace_or_are_redis_own_user_are_refused(bad):
    with pytest.raises(ValueError, match="participant name"):
        classroom.acl_rules(bad)


def test_names_are_read_from_lines_commas_and_comments_and_duplicates_refused():
    text = "ana, bo\n# the second row\nchen  dee;eve\n\n"
    assert classroom.read_names(text) == ["ana", "bo", "chen", "dee", "eve"]
    with pytest.raises(ValueError, match="twice"):
        classroom.read_names("ana\nbo\nana")
    with pytest.raises(ValueError, match="no participant names"):
        classroom.read_names("# nobody yet\n")


def test_passwords_are_long_random_and_safe_in_a_url():
    passwords = {classroom.generate_password() for _ in range(200)}
    assert len(passwords) == 200
    for pw in passwords:
        assert len(pw) == 24
        assert set(pw) <= set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")


def test_a_participant_url_names_its_user_and_repr_hides_the_password():
    p = classroom.Participant("ana", "s3cret-pass-word")
    assert p.url("class.example", 6380) == "redis://ana:s3cret-pass-word@class.example:6380/0"
    assert p.url("fd00::5", 6380) == "redis://ana:s3cret-pass-word@[fd00::5]:6380/0"
    assert "s3cret" not in repr(p)
    assert backend.url_user(p.url("h", 1)) == "ana"


def test_the_csv_holds_every_url_and_only_its_owner_can_read_it(tmp_path):
    path = tmp_path / "class.csv"
    path.write_text("old")
    path.chmod(0o644)  # an existing, world-readable file is tightened
    people = [
        classroom.Participant("ana", "pw-ana-1234"),
        classroom.Participant("bo", "pw-bo-5678"),
    ]
    classroom.write_csv(path, people, "10.0.0.5", 6380)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    rows = list(csv.DictReader(path.open()))
    assert rows == [
        {
            "name": "ana",
            "setlab_user": "ana",
            "redis_url": "redis://ana:pw-ana-1234@10.0.0.5:6380/0",
        },
        {"name": "bo", "setlab_user": "bo", "redis_url": "redis://bo:pw-bo-5678@10.0.0.5:6380/0"},
    ]


@pytest.fixture
def no_env(monkeypatch):
    for name in ("REDIS_URL", "SETLAB_BACKEND", "SETLAB_USER"):
        monkeypatch.delenv(name, raising=False)
    return monkeypatch


def test_an_acl_user_in_redis_url_is_the_namespace_unless_setlab_user_says_otherwise(no_env):
    no_env.setattr(backend, "_login_name", lambda: "root")
    no_env.setenv("REDIS_URL", "redis://ana:pw@class.example:6380/0")
    assert backend.default_user("url") == "ana"
    no_env.setenv("REDIS_URL", "redis://default:pw@class.example:6380/0")  # Redis's own user
    assert backend.default_user("url") == "root"
    no_env.setenv("REDIS_URL", "redis://:pw@class.example:6380/0")  # password only
    assert backend.default_user("url") == "root"
    no_env.setenv("REDIS_URL", "redis://a%2Ab:pw@class.example:6380/0")  # not a namespace name
    assert backend.default_user("url") == "root"
    no_env.setenv("SETLAB_USER", "bo")
    assert backend.default_user("url") == "bo"
    assert backend.default_user("live") == "bo"


def test_a_denied_key_and_a_denied_command_get_different_advice():
    ns = "setlab:@root:6b0-1:setbit-offset:"
    key = redis.exceptions.NoPermissionError(
        "this user has no permissions to access one of the keys used as arguments"
    )
    command = redis.exceptions.NoPermissionError(
        "this user has no permissions to run the 'keys' command"
    )
    on_key = translate(key, "h:1", "SET", ns)
    on_command = translate(command, "h:1", "KEYS", ns)
    assert isinstance(on_key, PermissionDenied) and isinstance(on_command, PermissionDenied)
    assert "SETLAB_USER" in str(on_key) and ns in str(on_key)
    assert "+keys" in str(on_command) and "SETLAB_USER" not in str(on_command)


def _setlab(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    code = "import sys; from setlab.cli.main import main; sys.exit(main(sys.argv[1:]))"
    return subprocess.run(
        [sys.executable, "-c", code, *args], capture_output=True, text=True, timeout=60, env=env
    )


def test_the_cli_refuses_a_class_without_names_and_a_monitor_without_a_login(tmp_path):
    import os

    env = {k: v for k, v in os.environ.items() if k != "SETLAB_ADMIN_URL"}
    run = _setlab("classroom", "start", "--csv", str(tmp_path / "c.csv"), env=env)
    assert run.returncode == 2
    assert run.stderr.strip() == "setlab classroom start: no participant names given"
    run = subprocess.run(
        [sys.executable, "-m", "setlab", "classroom", "monitor"], capture_output=True, text=True,
        timeout=60, env=env, cwd=tmp_path,
    )  # fmt: skip
    assert run.returncode == 2 and "SETLAB_ADMIN_URL" in run.stderr
    assert "Traceback" not in run.stderr


def test_the_instructor_guide_lists_exactly_the_rules_a_participant_gets():
    from tests.support.notebooks import BOOK

    guide = (BOOK / "instructors.md").read_text()
    section = guide[guide.index("## A classroom Redis") :]
    rules = classroom.acl_rules("name")[2:]  # after "reset on"
    for rule in rules:
        shown = rule.replace("~setlab:@name:*", "~setlab:@<name>:*").replace("|", "\\|")
        assert f"`{shown}" in section or f" {shown}`" in section, rule
    assert "setlab classroom start" in section and "setlab classroom monitor" in section


def test_the_books_scripting_is_what_the_participants_keep():
    """Every scripting command the package sends is one the rules give back after
    ``-@scripting`` (a new one would fail for every participant)."""
    import re
    from pathlib import Path

    import setlab

    sent = set()
    for path in Path(setlab.__file__).parent.rglob("*.py"):
        text = path.read_text()
        sent |= {"eval"} if re.search(r"\.eval\(", text) else set()
        if "register_script(" in text:  # EVALSHA, SCRIPT LOAD on NOSCRIPT, EXISTS in pipelines
            sent |= {"evalsha", "script|load", "script|exists"}
        for name in ("evalsha", "eval_ro", "evalsha_ro", "fcall", "fcall_ro", "script_load"):
            if re.search(rf"\.{name}\(", text):
                sent.add(name.replace("script_", "script|"))
    assert sent == set(classroom.SCRIPTING_KEPT)


def test_the_port_check_refuses_a_listening_port_and_passes_a_free_one():
    import socket

    from setlab.lab import server

    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen()
        port = listener.getsockname()[1]
        for where in (["127.0.0.1"], ["0.0.0.0"]):  # the address itself, or the wildcard over it
            with pytest.raises(server.PortInUse, match=rf"port {port} on .* already in use"):
                server.check_port_free(port, where)
    server.check_port_free(port, ["127.0.0.1", "0.0.0.0"])  # closed: free again
    assert server._bind_addresses(["--port", "1", "--bind", "127.0.0.1"]) == ["127.0.0.1"]
    args = ["--bind", "127.0.0.1", "--maxmemory", "1gb", "--bind", "*", "-::1", "--save", ""]
    assert server._bind_addresses(args) == ["0.0.0.0", "::1"]  # the last --bind wins


def test_the_help_says_passwords_reach_a_terminal_only():
    run = _setlab("classroom", "add", "--help")
    assert run.returncode == 0
    assert "not a terminal" in " ".join(run.stdout.split())


def test_the_private_csv_refuses_a_symbolic_link_and_leaves_its_target(tmp_path):
    # a link planted where the instructor's CSV goes would otherwise receive every password
    target = tmp_path / "elsewhere.txt"
    target.write_text("untouched\n")
    link = tmp_path / "class.csv"
    link.symlink_to(target)
    with pytest.raises(ValueError, match="symbolic link"):
        classroom.write_private(link, "user,url\nana,redis://ana:secret@host:6379/0\n")
    assert target.read_text() == "untouched\n"


def test_the_private_csv_narrows_an_existing_files_mode(tmp_path):
    path = tmp_path / "class.csv"
    path.write_text("old\n")
    path.chmod(0o644)
    classroom.write_private(path, "new\n")
    assert path.read_text() == "new\n"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
