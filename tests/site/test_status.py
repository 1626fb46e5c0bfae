"""setlab.site.status: the build facts the status appendix shows."""

import platform

from setlab.site import status
from tests.support.notebooks import ROOT


def test_versions_name_python_backend_and_packages(fake_lab):
    facts = status.versions(fake_lab)
    assert facts["Python"] == platform.python_version()
    assert facts["backend"] == fake_lab.banner
    assert facts["setlab"] != "not installed"
    assert status.package_version("no-such-distribution-xyz") == "not installed"


def test_every_reference_file_gets_a_row_with_its_label():
    table = status.references_markdown()
    files = sorted(p.name for p in (ROOT / "src" / "setlab" / "data").glob("*.json"))
    assert len(files) >= 7
    assert table.count("\n") == len(files) + 1
    for name in files:
        assert f"`{name}`" in table
    assert "reference run: Redis 7.0.15" in table
