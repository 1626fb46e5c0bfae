"""Launch buttons on every chapter — Binder and JupyterHub, opening the chapter as a notebook in
JupyterLab — when the build knows where the repository is published.

The repository's public URL lives in one place, the environment of the build, not in
``_config.yml``: a fork or a mirror then publishes buttons that open itself, and a build that
does not say where it is published shows none (Jupyter Book's default repository would otherwise
send readers to Jupyter Book's own repository).

- ``SETLAB_REPOSITORY_URL``: ``https://github.com/<owner>/<repo>``. Unset or empty: no buttons.
- ``SETLAB_REPOSITORY_BRANCH``: the branch the buttons open (default ``main``).
- ``SETLAB_BINDERHUB_URL``: the BinderHub that builds ``binder/Dockerfile`` (default
  ``https://mybinder.org``).
- ``SETLAB_JUPYTERHUB_URL``: a JupyterHub with nbgitpuller (a class's hub); without it there is
  no JupyterHub button, since there is no public one to default to.

At ``config-inited`` this sets sphinx-book-theme's ``repository_url``, ``repository_branch``,
``path_to_docs`` and ``launch_buttons`` (the theme then links ``<binderhub>/v2/gh/<owner>/<repo>/
<branch>?urlpath=lab/tree/book/<chapter>.md``; binder/jupyter makes JupyterLab open that file as a
notebook). A bad value stops the build with a message naming the variable.
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
DEFAULT_BRANCH = "main"
DEFAULT_BINDERHUB = "https://mybinder.org"

_GITHUB = re.compile(r"https://github\.com/[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+")
_BRANCH = re.compile(r"[A-Za-z0-9][A-Za-z0-9._/-]{0,199}")
_HUB = re.compile(r"https?://[A-Za-z0-9.-]+(:\d+)?(/[A-Za-z0-9._~/-]*)?")


def _setting(environ: Mapping[str, str], name: str, default: str = "") -> str:
    return environ.get(name, "").strip() or default


def launch_options(environ: Mapping[str, str]) -> dict[str, Any]:
    """sphinx-book-theme options for the launch buttons, read from ``environ``.

    Returns ``{}`` when ``SETLAB_REPOSITORY_URL`` is unset or empty. Raises ``ValueError`` naming
    the variable when a value cannot make a working link (not a GitHub repository URL, a branch
    with spaces or URL syntax, a hub that is not an http(s) URL).
    """
    url = _setting(environ, URL_ENV).rstrip("/")
    if not url:
        return {}
    if not _GITHUB.fullmatch(url) or url.endswith(".git"):
        raise ValueError(
            f"{URL_ENV} must be a GitHub repository URL such as https://github.com/<owner>/<repo> "
            f"(no .git, no path inside it); got {url!r}"
        )
    branch = _setting(environ, BRANCH_ENV, DEFAULT_BRANCH)
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
    return {
        "repository_url": url,
        "repository_branch": branch,
        "path_to_docs": "",  # _config.yml is at the repository root: pages are book/<chapter>
        "launch_buttons": {"notebook_interface": "jupyterlab", **hubs},
    }


def _configure(app: Sphinx, config: Config) -> None:
    try:
        options = launch_options(os.environ)
    except ValueError as exc:
        raise ConfigError(str(exc)) from None
    theme = config.html_theme_options
    launch = dict(theme.get("launch_buttons") or {})
    # the environment is the one place: without it no hub URL from anywhere makes a button
    launch.update(binderhub_url="", jupyterhub_url="")
    launch.update(options.pop("launch_buttons", {}))
    theme.update(options, launch_buttons=launch)


def setup(app: Sphinx) -> dict[str, Any]:
    app.connect("config-inited", _configure)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
