"""What every ``setlab`` subcommand shares: argument types from setlab's parsers, the
``--json`` option, and printing reports as text or JSON.

Its own module so :mod:`setlab.cli.calculators` and :mod:`setlab.cli.classroom` use it without
importing :mod:`setlab.cli.main`, which imports them.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable
from typing import Any


def typed(parse: Any, name: str, **options: Any) -> Any:
    """An argparse ``type=`` from a setlab parser: its ValueError message becomes the error."""
    return argument_type(lambda text: parse(text, name, **options), name)


def argument_type(read: Callable[[str], Any], name: str) -> Callable[[str], Any]:
    """An argparse ``type=`` from ``read`` (text → value): its ValueError message becomes the
    one-line error; ``name`` is what argparse calls the type otherwise."""

    def convert(text: str) -> Any:
        try:
            return read(text)
        except ValueError as err:
            raise argparse.ArgumentTypeError(str(err)) from None

    convert.__name__ = name
    return convert


def emit(args: argparse.Namespace, reports: list[Any]) -> None:
    """Print the reports as text or JSON; with ``--sets`` (a calculator whose report gives one
    key's bytes under ``args.key_bytes``), the first such report gets the total and whether it
    fits one Redis (:mod:`setlab.tools.capacity`)."""
    key = getattr(args, "key_bytes", None)
    sized = [r for r in reports if key and isinstance(r.data.get(key), int)]
    if sized:
        from setlab.tools import capacity

        server, source = capacity.server_budget(args.server_memory)
        at = capacity.Scale(sized[0].data[key], args.sets, server=server, source=source)
        if args.sets > 1 or not at.fits:
            sized[0].rows += at.rows()
            sized[0].notes += at.notes()
        sized[0].data["scale"] = at.as_json()
    if args.json:
        payload = [r.as_json() for r in reports]
        print(json.dumps(payload[0] if len(payload) == 1 else payload, indent=1, default=plain))
    else:
        print("\n\n".join(r.text() for r in reports))


def plain(value: Any) -> Any:
    """numpy scalars and the like, for json.dumps."""
    if hasattr(value, "item"):
        return value.item()
    raise TypeError(f"{type(value).__name__} is not JSON serialisable")


def count(name: str, low: int = 1) -> Any:
    from setlab.core.quantities import parse_count

    return typed(parse_count, name, low=low)


def json_option(p: argparse.ArgumentParser) -> None:
    p.add_argument("--json", action="store_true", help="machine-readable output")


def progress_option(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--progress", action=argparse.BooleanOptionalAction, default=None,
        help="progress line on stderr while reading (default: when stderr is a terminal)",
    )  # fmt: skip


def format_option(p: argparse.ArgumentParser, strings: bool = False) -> None:
    """``--format``; with ``strings``, also ``str`` (openids, emails: ``setlab advise``)."""
    if strings:
        p.add_argument(
            "--format", choices=("auto", "dec", "hex", "uuid", "str"), default="auto",
            help="the kind of ID in the file: decimal integers, hex, UUIDs, or strings "
            "(openids, emails, names). Default auto: strings if one of the first 1,000 IDs "
            "after the first is none of the others; else the first ID decides, and a line of "
            "another kind is an error",
        )  # fmt: skip
        return
    p.add_argument(
        "--format", choices=("auto", "dec", "hex", "uuid"), default="auto",
        help="the kind of ID in the file (default auto: the first ID decides, and a line of "
        "another kind is an error)",
    )  # fmt: skip


def memory_option(p: argparse.ArgumentParser) -> None:
    """``--memory``: what counting string IDs exactly may take."""
    from setlab.core.quantities import parse_bytes
    from setlab.models.string_ids import DEFAULT_MEMORY, EXACT_PEAK_BYTES

    p.add_argument(
        "--memory", type=typed(parse_bytes, "memory"), default=DEFAULT_MEMORY, metavar="SIZE",
        help="memory for counting string IDs exactly (default 1GiB: about "
        f"{DEFAULT_MEMORY // EXACT_PEAK_BYTES / 1e6:.0f} million distinct IDs); past it the "
        "count is a HyperLogLog estimate (±0.81%%) and memory stays bounded",
    )  # fmt: skip


def max_ids_option(p: argparse.ArgumentParser) -> None:
    from setlab.models.ids import MAX_IDS

    p.add_argument(
        "--max-ids", type=count("max-ids"), default=MAX_IDS, metavar="N",
        help=f"stop with an error after more than N IDs (default {MAX_IDS:,}; an ID takes "
        "about 9 bytes as read, and up to 18 more while the IDs are analysed)",
    )  # fmt: skip


def redis_option(p: argparse.ArgumentParser) -> None:
    """``--redis``: the release whose memory is priced (:mod:`setlab.tools.calc.release`)."""
    from setlab.models.builds import DEFAULT_RELEASE
    from setlab.tools.calc.release import RELEASES

    p.add_argument(
        "--redis", choices=RELEASES, default=None, metavar="RELEASE",
        help=f"the server release whose memory to price: {', '.join(RELEASES)} (default "
        f"{DEFAULT_RELEASE}, the book's reference, where the models are exact; the others are "
        "modelled from their source and checked against a server of that release)",
    )  # fmt: skip


def allocator_option(p: argparse.ArgumentParser) -> None:
    """``--allocator``: the allocator build the release is priced with (default: its usual)."""
    from setlab.models.builds import RELEASES, USUAL_ALLOCATOR
    from setlab.tools.calc.release import ALLOCATOR_NAMES

    usual = ", ".join(f"{r}: {USUAL_ALLOCATOR[f]}" for r, f in RELEASES.items())
    p.add_argument(
        "--allocator", choices=ALLOCATOR_NAMES, default=None,
        help="the allocator the server was built with: debian (jemalloc, 16-byte quantum), "
        "bundled (jemalloc, 8-byte quantum), libc (glibc malloc); default: the release's usual "
        f"one ({usual})",
    )  # fmt: skip


def scale_options(p: argparse.ArgumentParser) -> None:
    """``--sets`` and ``--server-memory``: the size at the reader's number of keys, and whether
    it fits one Redis (:mod:`setlab.tools.capacity`)."""
    from setlab.core.quantities import parse_bytes

    p.add_argument(
        "--sets", type=count("sets"), default=1, metavar="N",
        help="how many sets (keys) of this size: one per post, per day … (default 1); prints "
        "the total and whether it fits one Redis",
    )  # fmt: skip
    p.add_argument(
        "--server-memory", type=typed(parse_bytes, "server memory"), default=None,
        metavar="SIZE",
        help="memory of one Redis (default: the maxmemory of REDIS_URL's server when set, else "
        "16GiB); past it, the Redis Cluster masters the total needs",
    )  # fmt: skip
