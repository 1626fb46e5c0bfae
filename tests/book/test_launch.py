"""Launch buttons (book/_ext/setlab_launch.py): read from the environment at build time, on every
chapter when SETLAB_REPOSITORY_URL is set, nowhere when it is not."""

from __future__ import annotations

import html
import os
import re
import subprocess
import sys
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pytest
import yaml

from tests.support.notebooks import ROOT, tiny_book

sys.path.insert(0, str(ROOT / "book" / "_ext"))

import setlab_launch

REPO = "https://github.com/example-org/setlab"
ENV = {
    "SETLAB_REPOSITORY_URL": REPO,
    "SETLAB_REPOSITORY_BRANCH": "teaching-2026",
    "SETLAB_JUPYTERHUB_URL": "https://hub.example.edu",
}
LAUNCH_VARIABLES = (*ENV, "SETLAB_BINDERHUB_URL", "SETLAB_PAGES_BRANCH")


def test_no_repository_url_means_no_launch_options():
    assert setlab_launch.launch_options({}) == {}
    assert setlab_launch.launch_options({"SETLAB_REPOSITORY_URL": "  "}) == {}


def test_the_repository_url_and_branch_become_the_themes_options():
    options = setlab_launch.launch_options(ENV)
    assert options == {
        "repository_url": REPO,
        "repository_branch": "teaching-2026",
        "path_to_docs": "",
        "launch_buttons": {
            "notebook_interface": "jupyterlab",
            "binderhub_url": "https://mybinder.org",
            "jupyterhub_url": "https://hub.example.edu",
        },
    }


def test_defaults_are_main_on_mybinder_without_a_jupyterhub():
    options = setlab_launch.launch_options({"SETLAB_REPOSITORY_URL": REPO + "/"})
    assert options["repository_url"] == REPO and options["repository_branch"] == "main"
    assert options["launch_buttons"]["binderhub_url"] == "https://mybinder.org"
    assert options["launch_buttons"]["jupyterhub_url"] == ""


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("SETLAB_REPOSITORY_URL", "git@github.com:example-org/setlab.git"),
        ("SETLAB_REPOSITORY_URL", "https://github.com/example-org/setlab.git"),
        ("SETLAB_REPOSITORY_URL", "https://github.com/example-org/setlab/tree/main"),
        ("SETLAB_REPOSITORY_URL", "https://example.org/setlab"),
        ("SETLAB_REPOSITORY_BRANCH", "my branch"),
        ("SETLAB_REPOSITORY_BRANCH", "main?urlpath=x"),
        ("SETLAB_REPOSITORY_BRANCH", "a..b"),
        ("SETLAB_BINDERHUB_URL", "mybinder.org"),
        ("SETLAB_JUPYTERHUB_URL", "https://hub.example.edu/?next=x"),
        ("SETLAB_PAGES_BRANCH", "gh pages"),
    ],
)
def test_values_that_cannot_make_a_working_link_are_refused_naming_the_variable(name, value):
    with pytest.raises(ValueError, match=name):
        setlab_launch.launch_options({"SETLAB_REPOSITORY_URL": REPO, name: value})


def test_the_repository_url_is_one_value_in_config_that_the_environment_overrides():
    options = setlab_launch.launch_options({}, REPO, "teaching")
    assert options["repository_url"] == REPO and options["repository_branch"] == "teaching"
    fork = "https://github.com/a-fork/setlab"
    options = setlab_launch.launch_options({"SETLAB_REPOSITORY_URL": fork}, REPO, "teaching")
    assert options["repository_url"] == fork and options["repository_branch"] == "teaching"
    with pytest.raises(ValueError, match=r"repository\.url in _config\.yml"):
        setlab_launch.launch_options({}, "https://example.org/setlab")
    assert setlab_launch.launch_options({}, "  ") == {}


def test_pages_say_clone_with_the_url_or_say_the_build_does_not_know_it():
    assert setlab_launch.substitutions(REPO) == {
        "clone": f"`git clone {REPO}.git`",
        "repository": f"[github.com/example-org/setlab]({REPO})",
    }
    unknown = setlab_launch.substitutions("")
    assert unknown["clone"] == setlab_launch.NO_URL_CLONE and "git clone" not in unknown["clone"]


def test_the_repository_is_configured_in_config_yml_and_hubs_only_in_the_environment():
    config = yaml.safe_load((ROOT / "_config.yml").read_text())
    assert isinstance(config["repository"]["url"], str)  # the one place (empty: not published)
    assert config["repository"]["branch"] == setlab_launch.DEFAULT_BRANCH
    assert not {"binderhub_url", "jupyterhub_url"} & set(config.get("launch_buttons", {}))
    assert config["sphinx"]["local_extensions"]["setlab_launch"] == "book/_ext"
    readme = (ROOT / "README.md").read_text()
    for name in LAUNCH_VARIABLES:
        assert name in readme


# -- a tiny book built with and without the variables -------------------------------------------

CHAPTER = """\
---
jupytext:
  text_representation:
    extension: .md
    format_name: myst
kernelspec:
  display_name: Python 3
  language: python
  name: python3
---

# A chapter

```{code-cell} ipython3
print(6 * 7)
```
"""


def _tiny_book(root: Path) -> Path:
    """The repository's _config.yml and extensions, with an index and one small chapter."""
    return tiny_book(root, {
        "book/index": "# A tiny book\n\nOne chapter. Get it: {{ clone }}.\n",
        "book/launch-demo": CHAPTER,
    })  # fmt: skip


def _build(root: Path, extra_env: dict[str, str]) -> Path:
    env = {k: v for k, v in os.environ.items() if k not in LAUNCH_VARIABLES}
    env.update(extra_env, SETLAB_BACKEND="fake")
    jupyter_book = Path(sys.executable).with_name("jupyter-book")
    result = subprocess.run(
        [str(jupyter_book), "build", str(root), "--all", "-W", "-n", "--keep-going"],
        env=env, capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    report = (result.stdout + result.stderr)[-4000:]
    assert result.returncode == 0 and ": WARNING: " not in report, report
    return root / "_build" / "html"


def _text(page: Path) -> str:
    """A page's text without tags (inline code is split into one span per word)."""
    return " ".join(html.unescape(re.sub(r"<[^>]+>", "", page.read_text())).split())


def _launch_links(page: Path) -> dict[str, str]:
    """The page's launch buttons: {"Binder": url, "JupyterHub": url}."""
    text = page.read_text()
    links = {}
    for href, label in re.findall(
        r'<a href="([^"]+)"[^>]*title="Launch on ([A-Za-z]+)"', text
    ):  # sphinx-book-theme's header dropdown
        links[label] = html.unescape(href)
    return links


@pytest.mark.book
def test_chapters_get_binder_jupyterhub_and_colab_buttons_opening_a_notebook_that_reads_right(
    tmp_path,
):
    site = _build(_tiny_book(tmp_path / "with"), ENV)
    links = _launch_links(site / "book" / "launch-demo.html")
    # Binder's image builds the book: the chapter as the build wrote it, in plain Markdown
    assert links["Binder"] == (
        "https://mybinder.org/v2/gh/example-org/setlab/teaching-2026"
        "?urlpath=lab/tree/_build/lab/launch-demo.ipynb"
    )
    # a class's hub builds nothing: the published site's downloadable notebook, in its own folder
    hub = urlsplit(links["JupyterHub"])
    assert f"{hub.scheme}://{hub.netloc}{hub.path}" == (
        "https://hub.example.edu/hub/user-redirect/git-pull"
    )
    assert parse_qs(hub.query) == {
        "repo": [REPO],
        "branch": ["gh-pages"],
        "targetPath": ["setlab-notebooks"],
        "urlpath": ["lab/tree/setlab-notebooks/_notebooks/launch-demo.ipynb"],
    }
    assert links["Colab"] == (
        "https://colab.research.google.com/github/example-org/setlab/blob/gh-pages/"
        "_notebooks/launch-demo.ipynb"
    )
    assert _launch_links(site / "book" / "index.html") == {}, "the index is not a notebook"
    assert f"Get it: git clone {REPO}.git." in _text(site / "book" / "index.html")


@pytest.mark.book
def test_without_a_repository_url_no_page_has_a_launch_button(tmp_path):
    site = _build(_tiny_book(tmp_path / "without"), {})
    for page in site.rglob("*.html"):
        assert _launch_links(page) == {}, page
        assert "mybinder.org" not in page.read_text() and "git-pull" not in page.read_text()
        assert "executablebooks/jupyter-book" not in page.read_text()  # Jupyter Book's default
    assert f"Get it: {setlab_launch.NO_URL_CLONE}." in _text(site / "book" / "index.html")
