"""Where the repository is published: launch buttons on every chapter — Binder and JupyterHub,
opening the chapter as a notebook in JupyterLab — and the "clone" line of every page that says
how to get the book.

The repository's public URL is one value, ``repository.url`` in ``_config.yml``; the build's
environment overrides it, so a fork or a mirror publishes buttons and clone lines that point at
itself. A build that knows no URL shows no buttons and says so where it would say "clone"
(Jupyter Book's own default repository is never used: it would send readers to Jupyter Book).

- ``SETLAB_REPOSITORY_URL``: ``https://github.com/<owner>/<repo>``, overriding ``repository.url``.
  Neither set: no buttons.
- ``SETLAB_REPOSITORY_BRANCH``: the branch the buttons open (default ``repository.branch``, else
  ``main``).
- ``SETLAB_BINDERHUB_URL``: the BinderHub that builds ``binder/Dockerfile`` (default
  ``https://mybinder.org``).
- ``SETLAB_JUPYTERHUB_URL``: a JupyterHub with nbgitpuller (a class's hub); without it there is
  no JupyterHub button, since there is no public one to default to.
- ``SETLAB_PAGES_BRANCH``: the branch the built site is published from (default ``gh-pages``).
  Colab opens notebooks from GitHub only, so each chapter's "Open in Colab" link
  (:func:`colab_url`) points at its downloadable notebook there, ``_notebooks/<chapter>.ipynb``.

At ``config-inited`` this sets sphinx-book-theme's ``repository_url``, ``repository_branch``,
``path_to_docs`` and ``launch_buttons`` (the theme then links ``<binderhub>/v2/gh/<owner>/<repo>/
<branch>?urlpath=lab/tree/book/<chapter>.md``; binder/jupyter makes JupyterLab open that file as a
notebook), and the MyST substitutions ``{{ clone }}`` (the command, or what to do without a URL)
and ``{{ repository }}`` (a link) that pages use instead of typing the address. A bad value stops
the build with a message naming the variable.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from typing import Any

from sphinx.application import Sphinx
from sphinx.config import Config
from sphinx.errors import ConfigError

URL_ENV = "SETLAB_REPOSITORY_URL"
BRANCH_ENV = "SETLAB_REPOSITORY_BRANCH"
BINDERHUB_ENV = "SETLAB_BINDERHUB_URL"
JUPYTERHUB_ENV = "SETLAB_JUPYTERHUB_URL"
PAGES_BRANCH_ENV = "SETLAB_PAGES_BRANCH"
DEFAULT_PAGES_BRANCH = "gh-pages"
DEFAULT_BRANCH = "main"
DEFAULT_BINDERHUB = "https://mybinder.org"
#: what Jupyter Book puts in ``repository.url`` when ``_config.yml`` names none: never ours
JUPYTER_BOOK_DEFAULT = "https://github.com/executablebooks/jupyter-book"
#: the clone line of a build that does not know where the repository is published
NO_URL_CLONE = (
    "a copy of the setlab repository from whoever gave you this book; this build does not say "
    "where the repository is published"
)

_GITHUB = re.compile(r"https://github\.com/[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+")
_BRANCH = re.compile(r"[A-Za-z0-9][A-Za-z0-9._/-]{0,199}")
_HUB = re.compile(r"https?://[A-Za-z0-9.-]+(:\d+)?(/[A-Za-z0-9._~/-]*)?")


def _setting(environ: Mapping[str, str], name: str, default: str = "") -> str:
    return environ.get(name, "").strip() or default


def launch_options(
    environ: Mapping[str, str], configured_url: str = "", configured_branch: str = ""
) -> dict[str, Any]:
    """sphinx-book-theme options for the launch buttons, read from ``environ``, falling back to
    ``_config.yml``'s ``repository.url`` and ``repository.branch`` (``configured_*``).

    Returns ``{}`` when neither gives a URL. Raises ``ValueError`` naming the variable (or the
    ``_config.yml`` key) when a value cannot make a working link (not a GitHub repository URL, a
    branch with spaces or URL syntax, a hub that is not an http(s) URL).
    """
    from_env = bool(_setting(environ, URL_ENV))
    url = _setting(environ, URL_ENV, configured_url.strip()).rstrip("/")
    if not url:
        return {}
    source = URL_ENV if from_env else "repository.url in _config.yml"
    if not _GITHUB.fullmatch(url) or url.endswith(".git"):
        raise ValueError(
            f"{source} must be a GitHub repository URL such as https://github.com/<owner>/<repo> "
            f"(no .git, no path inside it); got {url!r}"
        )
    branch = _setting(environ, BRANCH_ENV, configured_branch.strip() or DEFAULT_BRANCH)
    if not _BRANCH.fullmatch(branch) or ".." in branch:
        raise ValueError(
            f"{BRANCH_ENV} must be a branch name (letters, digits, '.', '_', '-', '/'); "
            f"got {branch!r}"
        )
    hubs = {}
    for name, key, default in (
        (BINDERHUB_ENV, "binderhub_url", DEFAULT_BINDERHUB),
        (JUPYTERHUB_ENV, "jupyterhub_url", ""),
    ):
        hub = _setting(environ, name, default).rstrip("/")
        if hub and not _HUB.fullmatch(hub):
            raise ValueError(
                f"{name} must be an http(s) URL such as https://hub.example.org; got {hub!r}"
            )
        hubs[key] = hub
    colab_url(url, "chapter", environ)  # a pages branch that cannot be in a link stops here
    return {
        "repository_url": url,
        "repository_branch": branch,
        "path_to_docs": "",  # _config.yml is at the repository root: pages are book/<chapter>
        "launch_buttons": {"notebook_interface": "jupyterlab", **hubs},
    }


def colab_url(repository_url: str, slug: str, environ: Mapping[str, str]) -> str:
    """Colab's link to the downloadable notebook of chapter ``slug`` as the published site
    holds it: ``https://colab.research.google.com/github/<owner>/<repo>/blob/<pages branch>/
    _notebooks/<slug>.ipynb``. Raises ``ValueError`` for a branch that cannot be in a URL."""
    branch = _setting(environ, PAGES_BRANCH_ENV, DEFAULT_PAGES_BRANCH)
    if not _BRANCH.fullmatch(branch) or ".." in branch:
        raise ValueError(f"{PAGES_BRANCH_ENV} must be a branch name; got {branch!r}")
    repository = repository_url.rstrip("/").removeprefix("https://github.com/")
    return (
        f"https://colab.research.google.com/github/{repository}/blob/{branch}/"
        f"_notebooks/{slug}.ipynb"
    )


def substitutions(url: str) -> dict[str, str]:
    """The MyST substitutions pages use where they say how to get the book: ``clone`` (the
    command, in code) and ``repository`` (a link), or :data:`NO_URL_CLONE` without a URL."""
    if not url:
        return {"clone": NO_URL_CLONE, "repository": "the setlab repository"}
    return {
        "clone": f"`git clone {url}.git`",
        "repository": f"[{url.removeprefix('https://')}]({url})",
    }


def _configure(app: Sphinx, config: Config) -> None:
    theme = config.html_theme_options
    configured = str(theme.get("repository_url") or "")  # Jupyter Book copies repository.url
    if configured.rstrip("/") == JUPYTER_BOOK_DEFAULT:
        configured = ""
    try:
        options = launch_options(os.environ, configured, str(theme.get("repository_branch") or ""))
    except ValueError as exc:
        raise ConfigError(str(exc)) from None
    theme["repository_url"] = options.get("repository_url", "")
    config.myst_substitutions = {
        **(config.myst_substitutions or {}),
        **substitutions(options.get("repository_url", "")),
    }
    launch = dict(theme.get("launch_buttons") or {})
    # hub URLs come from the environment only: no hub from anywhere else makes a button
    launch.update(binderhub_url="", jupyterhub_url="")
    launch.update(options.pop("launch_buttons", {}))
    theme.update(options, launch_buttons=launch)


def setup(app: Sphinx) -> dict[str, Any]:
    app.connect("config-inited", _configure)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
