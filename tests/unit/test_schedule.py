"""make test's schedule (tests/conftest.py): the three longest tests start at once on three
workers, and a module whose fixture is dear runs on one worker, so the fixture is made once."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from types import SimpleNamespace

import pytest

from tests import conftest

ROOT = Path(__file__).resolve().parents[2]


@dataclass
class Node:
    """What the scheduler sees of a worker: it is sent test indices, and may be shut down."""

    name: str
    sent: list[int] = field(default_factory=list)
    shutting_down: bool = False

    def send_runtest_some(self, indices: list[int]) -> None:
        self.sent += indices

    def shutdown(self) -> None:
        self.shutting_down = True

    @property
    def gateway(self) -> SimpleNamespace:
        return SimpleNamespace(id=self.name)

    def __hash__(self) -> int:
        return hash(self.name)


@dataclass
class Item:
    """What the ordering reads of a test: its id, its fixtures and its marks."""

    nodeid: str
    fixturenames: list[str] = field(default_factory=list)
    marks: set[str] = field(default_factory=set)

    def get_closest_marker(self, name: str) -> str | None:
        return name if name in self.marks else None


@pytest.fixture
def loadgroup(pytestconfig, monkeypatch) -> pytest.Config:
    monkeypatch.setattr(pytestconfig.option, "dist", "loadgroup")
    monkeypatch.setattr(pytestconfig.option, "numprocesses", 3)
    monkeypatch.setattr(pytestconfig.option, "tx", ["3*popen"])
    # pytest-xdist's default, which would start the largest group first; restored after
    monkeypatch.setattr(pytestconfig.option, "loadscopereorder", True, raising=False)
    return pytestconfig


def test_every_one_worker_module_exists():
    assert conftest.ONE_WORKER
    assert [m for m in sorted(conftest.ONE_WORKER) if not (ROOT / m).is_file()] == []


def test_every_long_site_test_exists():
    """A renamed test would silently fall back to collection order."""
    for prefix in conftest.SITE_LONGEST:
        module, _, name = prefix.partition("::")
        assert (ROOT / module).is_file(), prefix
        assert f"def {name}" in (ROOT / module).read_text(), prefix


def test_a_one_worker_module_goes_to_one_worker_and_the_rest_one_test_at_a_time(loadgroup):
    module = sorted(conftest.ONE_WORKER)[0]
    collection = [f"tests/a.py::test_{n}" for n in range(3)]
    collection += [f"{module}::test_{n}" for n in range(4)]
    collection += [f"tests/b.py::test_{n}" for n in range(20)]
    sched = conftest.pytest_xdist_make_scheduler(loadgroup, None)
    nodes = [Node(f"gw{n}") for n in range(3)]
    for node in nodes:
        sched.add_node(node)
        sched.add_node_collection(node, collection)
    sched.schedule()
    assert [node.sent[0] for node in nodes] == [0, 1, 2]  # the first three start at once
    done: set[int] = set()
    while busy := [n for n in nodes if set(n.sent) - done]:
        for node in busy:  # each busy worker finishes its oldest test, in turn
            index = next(i for i in node.sent if i not in done)
            done.add(index)
            sched.mark_test_complete(node, index)
    assert sched.tests_finished
    ran = {index: node.name for node in nodes for index in node.sent}
    assert sorted(ran) == list(range(len(collection)))
    assert len({ran[i] for i, nodeid in enumerate(collection) if nodeid.startswith(module)}) == 1
    assert len({ran[i] for i, nodeid in enumerate(collection) if "b.py" in nodeid}) == 3


def test_other_dist_modes_keep_pytest_xdists_scheduler(pytestconfig, monkeypatch):
    monkeypatch.setattr(pytestconfig.option, "dist", "load")
    assert conftest.pytest_xdist_make_scheduler(pytestconfig, None) is None


@pytest.mark.parametrize("where", ["controller", "worker"])
def test_under_loadgroup_the_first_ones_head_the_queue_and_what_reads_the_build_ends_it(
    loadgroup, monkeypatch, where
):
    if where == "worker":  # what xdist.remote.setup_config leaves a worker
        monkeypatch.setattr(loadgroup.option, "dist", "no")
        monkeypatch.setattr(loadgroup.option, "loadgroup", True, raising=False)
    first = [p + ("test_first" if p.endswith("::") else "") for p in conftest.FIRST]
    visits = conftest.SITE_LONGEST[0] + "test_pages"
    second = conftest.SITE_LONGEST[1] + "_with_its_wheel"
    items = [Item(f"tests/x.py::test_{n}") for n in range(10)]
    items += [
        Item("tests/browser/y.py::test_reads", ["fake_book_html"]),
        Item(second, ["fake_book_html"]),
        Item(visits, ["fake_book_html"]),
    ]
    items += [Item("tests/browser/z.py::test_marked", marks={"site"}), Item("tests/x.py::test_z")]
    items += [Item(nodeid) for nodeid in first]
    conftest.pytest_collection_modifyitems(loadgroup, items)
    assert [item.nodeid for item in items[: len(first)]] == first
    # what reads the build ends the run, its longest tests first (SITE_LONGEST's order)
    assert [item.nodeid for item in items[-4:]] == [
        visits,
        second,
        "tests/browser/y.py::test_reads",
        "tests/browser/z.py::test_marked",
    ]
    assert items[-5].nodeid == "tests/x.py::test_z"  # the others keep their order
    assert len(items) == 15 + len(first)
