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
``path_to_docs`` and ``launch_buttons``; the theme then makes the buttons, and
:func:`chapter_links` points them at the chapter as a notebook that reads right outside the
book (the theme's own links open its MyST source) and adds Colab's. It also sets the MyST
substitutions ``{{ clone }}`` (the command, or what to do without a URL)
and ``{{ repository }}`` (a link) that pages use instead of typing the address. A bad value stops
the build with a message naming the variable.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from typing import Any
from urllib.parse import urlencode

from sphinx.application import Sphinx
from sphinx.config import Config
from sphinx.errors import ConfigError

URL_ENV = "SETLAB_REPOSITORY_URL"
BRANCH_ENV = "SETLAB_REPOSITORY_BRANCH"
BINDERHUB_ENV = "SETLAB_BINDERHUB_URL"
JUPYTERHUB_ENV = "SETLAB_JUPYTERHUB_URL"
PAGES_BRANCH_ENV = "SETLAB_PAGES_BRANCH"
DEFAULT_PAGES_BRANCH = "gh-pages"
#: where the build writes the chapters as notebooks (``book/_ext/downloads.py``), from the root
LAB_NOTEBOOKS = "_build/lab"
#: the folder of the downloadable notebooks on the built site
DOWNLOADS = "_notebooks"
DEFAULT_BRANCH = "main"
DEFAULT_BINDERHUB = "https://mybinder.org"
#: what Jupyter Book puts in ``repository.url`` when ``_config.yml`` names none: never ours
JUPYTER_BOOK_DEFAULT = "https://github.com/executablebooks/jupyter-book"
#: the clone line of a build that does not know where the repository is published: what the
#: reader can do, not a remark about the build
NO_URL_CLONE = (
    "a copy of the setlab repository from whoever gave you this book, or, for one chapter, its "
    "downloadable notebook, which carries setlab inside it"
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


def chapter_links(
    repository_url: str, branch: str, hubs: Mapping[str, str], slug: str,
    environ: Mapping[str, str],
) -> dict[str, str]:  # fmt: skip
    """Where each launch button of chapter ``slug`` opens it, as a notebook that reads right
    (values in its prose, no MyST left; ``book/_ext/plain_notebooks.py``), keyed by the button's
    text. The theme's own links open the chapter's MyST source, which JupyterLab shows as roles.

    - ``Binder``: the image builds the book (``binder/Dockerfile``), so the chapter is
      ``_build/lab/<slug>.ipynb`` in the repository at ``branch``.
    - ``JupyterHub``: a class's hub builds nothing, so nbgitpuller pulls the published site's
      branch (:data:`PAGES_BRANCH_ENV`) into a folder of its own and opens the downloadable
      notebook there, which installs setlab when the hub lacks it.
    - ``Colab``: :func:`colab_url`.

    ``hubs`` is the theme's ``launch_buttons`` (``binderhub_url``, ``jupyterhub_url``); a hub
    that is not set has no link."""
    owner_repo = repository_url.rstrip("/").removeprefix("https://github.com/")
    repo = owner_repo.rsplit("/", 1)[-1]
    links = {"Colab": colab_url(repository_url, slug, environ)}
    if binderhub := hubs.get("binderhub_url", "").rstrip("/"):
        links["Binder"] = (
            f"{binderhub}/v2/gh/{owner_repo}/{branch}?urlpath=lab/tree/{LAB_NOTEBOOKS}/{slug}.ipynb"
        )
    if jupyterhub := hubs.get("jupyterhub_url", "").rstrip("/"):
        folder = f"{repo}-notebooks"
        query = urlencode(
            {
                "repo": repository_url,
                "branch": _setting(environ, PAGES_BRANCH_ENV, DEFAULT_PAGES_BRANCH),
                "targetPath": folder,
                "urlpath": f"lab/tree/{folder}/{DOWNLOADS}/{slug}.ipynb",
            },
            safe="/",
        )
        links["JupyterHub"] = f"{jupyterhub}/hub/user-redirect/git-pull?{query}"
    return links


def _retarget_buttons(app: Sphinx, pagename: str, templatename, context: dict, doctree) -> None:
    """After the theme made a chapter's launch buttons (priority 501): point them at
    :func:`chapter_links`, and add Colab's beside them."""
    group = next(
        (b for b in context.get("header_buttons", []) if b.get("label") == "launch-buttons"),
        None,
    )
    if group is None:
        return
    theme = app.config.html_theme_options
    links = chapter_links(
        theme["repository_url"], theme["repository_branch"], theme.get("launch_buttons", {}),
        pagename.rsplit("/", 1)[-1], os.environ,
    )  # fmt: skip
    for button in group["buttons"]:
        if button.get("text") in links:
            button["url"] = links[button["text"]]
    group["buttons"].append(
        {"type": "link", "text": "Colab", "tooltip": "Launch on Colab",
         "icon": "_static/images/logo_colab.png", "url": links["Colab"]}
    )  # fmt: skip


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
    app.connect("html-page-context", _retarget_buttons, priority=502)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
