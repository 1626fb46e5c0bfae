"""Chapter "Audit your own Redis" (Part IV): the book's models read back off a real keyspace.

The analysis notebook. On a reader's server (``REDIS_URL``) it runs ``setlab audit``
(:mod:`setlab.tools.audit`), read-only, on a sample of the keys. On the book's private server it
first builds a small keyspace out of the field reports' own mistakes (:func:`build_demo`: seed
000's like bitmap at hashed offsets, seed 003's Bloom filter past its capacity, a SET of integer
IDs past the intset limit, a big SET; and, well-behaved beside them, a week's HyperLogLog merged
from seven days and seed 000's final design) and audits that. On the embedded backend, which
has neither ``MEMORY USAGE`` nor ``OBJECT ENCODING``, it shows the stored audit of the same
keyspace on a real Redis (``audit-demo.json``, written by ``reference/measure_audit_demo.py``).

Every figure the prose shows comes from that stored audit, so the page reads the same on every
backend; a live run is shown beside it as "this run".
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any

from setlab.chapters import open_page
from setlab.chapters.audit import claims
from setlab.core.formats import format_bytes, format_duration, format_rate
from setlab.lab import reference
from setlab.lab.reference import Measurement
from setlab.models import redis_memory as rm
from setlab.models.hashed_offsets import user_offset
from setlab.models.snowflake import SEED_000_ID
from setlab.render.claims import Figures
from setlab.tools.audit import findings as findings_model
from setlab.tools.audit import limits, reader

if TYPE_CHECKING:
    from matplotlib.figure import Figure

    from setlab.lab.backend import Lab

FIGURES = Figures("audit")
#: The stored audit of the demo keyspace on a real Redis.
REFERENCE = "audit-demo"
#: Seed 000: five users like post 42; the bit of each is |hash64(user id)| mod (2^32 − 1).
LIKERS = tuple(SEED_000_ID + i for i in range(5))
#: Seed 003: a campaign's filter reserved for 1,000 devices at 1%, then sent 5,000 (scaled from
#: its 10^8 reserved and 2 × 10^8 seen).
BLOOM_CAPACITY, BLOOM_ITEMS, BLOOM_ERROR = 1_000, 5_000, 0.01
#: Seed 003/004: one SET of 20,000 integer user IDs, past set-max-intset-entries (512).
SET_MEMBERS = 20_000
#: A SET past the audit's big-key threshold: what a DEL of it blocks.
BIG_SET_MEMBERS = 120_000
#: Seed 000 §7's fix beside them: a SET of liked posts per user and a counter per post.
USERS, POSTS = 300, 30
#: Bytes the demo keyspace allocates at its peak (the bitmap's string dominates), for the guard.
DEMO_BYTES = 700 << 20


def start() -> Lab:
    """Open the page (:func:`open_page`); the demo's own cell names the run its audit comes
    from, live or stored."""
    return open_page(FIGURES)


def build_demo(lab: Lab) -> dict[str, str]:
    """Write the demo keyspace under the lab's namespace; returns its keys by the mistake each
    shows. Needs a server of the lab's own (it allocates :data:`DEMO_BYTES`)."""
    r = lab.r
    keys = {
        "like bitmap (seed 000)": lab.key("like", "bit", 42),
        "Bloom filter past its capacity (seed 003)": lab.key("filter", "campaign", 7),
        "integer SET past intset (seeds 003, 004)": lab.key("readers", "post", 9),
        "a week's HyperLogLog merged from seven days": lab.key("uv", "week", 49),
        "big SET (seed 000 §5)": lab.key("followers", "user", 1),
    }
    lab.check_allocation(DEMO_BYTES, "the audit's demo keyspace")
    pipe = r.pipeline(transaction=False)
    for user in LIKERS:
        pipe.setbit(keys["like bitmap (seed 000)"], user_offset(user), 1)
    pipe.execute()
    if lab.has_redisbloom:
        key = keys["Bloom filter past its capacity (seed 003)"]
        r.execute_command("BF.RESERVE", key, BLOOM_ERROR, BLOOM_CAPACITY)
        for first in range(0, BLOOM_ITEMS, 1000):
            r.execute_command("BF.MADD", key, *(f"device-{i}" for i in range(first, first + 1000)))
    else:
        del keys["Bloom filter past its capacity (seed 003)"]
    r.sadd(keys["integer SET past intset (seeds 003, 004)"], *range(1, 3 * SET_MEMBERS, 3))
    days = [lab.key("uv", "day", d) for d in range(7)]
    for d, day in enumerate(days):
        r.pfadd(day, *(f"reader-{d}-{i}" for i in range(40)))
    r.pfmerge(keys["a week's HyperLogLog merged from seven days"], *days)
    big = keys["big SET (seed 000 §5)"]
    for first in range(0, BIG_SET_MEMBERS, 10_000):
        r.sadd(big, *(f"follower-{i}" for i in range(first, first + 10_000)))
    pipe = r.pipeline(transaction=False)
    for user in range(USERS):
        pipe.sadd(lab.key("like", "user", user), *(p for p in range(POSTS) if (p + user) % 4 == 0))
    for post in range(POSTS):
        pipe.set(lab.key("like", "count", post), USERS // 4)
    pipe.execute()
    return keys


def audit_demo(lab: Lab) -> dict[str, Any]:
    """Build the demo keyspace and audit it (its keys only); the report as ``--json`` has it."""
    from setlab.tools.audit import audit

    build_demo(lab)
    result = audit(client=lab.r.raw(), match=lab.namespace + "*", rate=0,
                   label="the demo keyspace on a private redis-server")  # fmt: skip
    return strip_namespace(result.as_json(), lab.namespace)


def demo(lab: Lab) -> Measurement[dict[str, Any]]:
    """The demo keyspace's audit: run on the book's own server, else the stored one (the book
    writes no demo keys on a server it did not start, and fakeredis has no MEMORY USAGE)."""
    run = reference.load(REFERENCE).run
    if lab.is_real and not lab.owns_server:
        return Measurement(stored_report(), False, run.label,
                           "the book writes no demo keys on a server it did not start")  # fmt: skip
    return reference.live_or_reference(
        lab, audit_demo, stored_report, needs=("real", "own_server"), allocates=DEMO_BYTES,
        run_info=run,
    )  # fmt: skip


def source_line(demo: Measurement[dict[str, Any]], width: int = 76) -> str:
    """Where the demo's audit comes from, wrapped to the page's code width."""
    import textwrap

    text = demo.label if demo.live else f"{demo.label} ({demo.why_not_live})"
    return textwrap.fill(text, width)


def audit_yours(url: str, sample: int, rate: float) -> dict[str, Any]:
    """Audit the reader's server at ``url``: at most ``sample`` keys, ``rate`` keys a second,
    nothing written."""
    from setlab.tools.audit import audit

    return audit(url, sample=sample, rate=rate).as_json()


def your_server(lab: Lab, sample: int, rate: float) -> str:
    """The page's last section as Markdown: on ``REDIS_URL``, that server's audit (what was
    read, the notes, the findings, the groups); elsewhere, how to audit yours."""
    if not lab.is_real or lab.owns_server:
        return (
            "`REDIS_URL` is not set: the demo above is all this page audits. Set it to your "
            "server (`redis://host:6379/0`, with a user and password if it asks for them) and "
            "run the page again, or run `setlab audit` in a shell."
        )
    yours = audit_yours(os.environ["REDIS_URL"], sample, rate)
    head = [f"{yours['scan']['keys_read']:,} keys read; nothing written."]
    head += [f"- note: {note}" for note in yours["notes"]]
    return "\n".join(head) + "\n\n" + findings_markdown(yours) + "\n\n" + groups_markdown(yours)


def strip_namespace(report: dict[str, Any], namespace: str) -> dict[str, Any]:
    """The report with the book's namespace taken off every key and pattern (as a reader's own
    keys would read)."""

    def strip(text: str) -> str:
        return text[len(namespace) :] if text.startswith(namespace) else text

    for group in report["groups"]:
        group["pattern"] = strip(group["pattern"])
        for finding in group["findings"]:
            finding["key"] = strip(finding["key"])
    return report


def stored_report() -> dict[str, Any]:
    """The stored audit of the demo keyspace (``audit-demo.json``)."""
    return dict(reference.load(REFERENCE).data["report"])


def findings_of(report: dict[str, Any]) -> list[dict[str, Any]]:
    """Every finding of a report, worst first (severity, then the bytes it would save)."""
    order = {"high": 0, "medium": 1, "low": 2}
    found = [f for g in report["groups"] for f in g["findings"]]

    def saving(f: dict[str, Any]) -> int:
        return (f.get("bytes") or 0) - (f.get("alternative_bytes") or f.get("bytes") or 0)

    return sorted(found, key=lambda f: (order[f["severity"]], -saving(f)))


def finding(report: dict[str, Any], kind: str) -> dict[str, Any]:
    """The first finding of ``kind`` in ``report``."""
    return next(f for f in findings_of(report) if f["kind"] == kind)


def findings_markdown(report: dict[str, Any]) -> str:
    """The findings as a Markdown table, worst first, each linked to its chapter ("No
    findings." when there are none)."""
    if not findings_of(report):
        return "No findings."
    lines = ["| | finding, key | what the audit says | read |", "|:--|:--|:--|:--|"]
    for f in findings_of(report):
        message = f["message"].replace("|", "\\|")
        lines.append(f"| {f['severity']} | {f['kind']}: `{f['key']}` | {message} | "
                     f"{{doc}}`{f['chapter']}` |")  # fmt: skip
    return "\n".join(lines)


def groups_markdown(report: dict[str, Any], top: int = 12) -> str:
    """The groups as a Markdown table, biggest first."""
    lines = ["| pattern | type | encoding | keys | bytes | with a TTL |",
             "|:--|:--|:--|--:|--:|--:|"]  # fmt: skip
    for g in report["groups"][:top]:
        nbytes = "—" if g["bytes"] is None else format_bytes(g["bytes"])
        lines.append(f"| `{g['pattern']}` | {g['type']} | {g['encoding']} | {g['keys']:,} | "
                     f"{nbytes} | {g['ttl_share']:.0%} |")  # fmt: skip
    return "\n".join(lines)


def plot_memory(report: dict[str, Any]) -> Figure:
    """Bytes of each key a finding names, now and as the finding's alternative would hold it."""
    from setlab.render.plots import PALETTE, bytes_axis, describe, legend_below, new_figure

    rows = [f for f in findings_of(report) if f.get("bytes")]
    seen, unique = set(), []
    for f in rows:  # one bar pair per key: its costliest finding
        if f["key"] not in seen:
            seen.add(f["key"])
            unique.append(f)
    fig, ax = new_figure(width=7.2, height=0.55 * len(unique) + 1.6)
    labels = [f"{f['key']}\n({f['kind']})" for f in unique]
    y = range(len(unique))
    ax.barh([i + 0.2 for i in y], [f["bytes"] for f in unique], height=0.38, color=PALETTE[3],
            label="now (MEMORY USAGE)")  # fmt: skip
    alternatives = [f.get("alternative_bytes") for f in unique]
    ax.barh([i - 0.2 for i in y], [a or 0 for a in alternatives], height=0.38, color=PALETTE[2],
            label="the alternative the finding names")  # fmt: skip
    ax.set_yticks(list(y), labels)
    ax.invert_yaxis()
    ax.set_xscale("log")
    bytes_axis(ax, "x")
    ax.set_xlabel("bytes (log scale)")
    ax.set_title("What each flagged key costs, and what its alternative would")
    legend_below(ax)
    return describe(
        fig, "The sparse bitmap costs hundreds of MiB where its few bits would fit in bytes; "
        "the other findings are smaller, but each has a cheaper form.",
    )  # fmt: skip


# -- figures the prose shows: the stored audit ----------------------------------------------------


def _stored(kind: str, field: str) -> Any:
    return finding(stored_report(), kind)[field]


FIGURES.add("au-allowed", lambda: ", ".join(sorted(reader.ALLOWED)))
FIGURES.add("au-rate", lambda: f"{limits.DEFAULT_RATE:,}")
FIGURES.add("au-timeout", lambda: format_duration(limits.TIMEOUT_S))
FIGURES.add("au-head-bytes", lambda: f"{limits.HEAD_BYTES}")
FIGURES.add("au-member-sample", lambda: f"{reader.MEMBER_SAMPLE}")
FIGURES.add("au-intset", lambda: f"{rm.SET_MAX_INTSET_ENTRIES}")
FIGURES.add("au-likers", lambda: f"{len(LIKERS)}")
FIGURES.add("au-bloom-times", lambda: f"{BLOOM_ITEMS // BLOOM_CAPACITY}")
FIGURES.add("au-del-1m", lambda: format_duration(findings_model.del_ms("set", 10**6)[0] / 1e3))
FIGURES.add("au-windows", lambda: f"{reader.WINDOWS} windows of {reader.WINDOW_BYTES // 1024} KiB")
FIGURES.add("au-findings", lambda: f"{len(findings_of(stored_report()))}")
FIGURES.add("au-bitmap-bytes", lambda: format_bytes(_stored("sparse-bitmap", "bytes")))
FIGURES.add("au-bitmap-strlen", lambda: format_bytes(_stored("sparse-bitmap", "strlen")))
FIGURES.add("au-bitmap-bits", lambda: f"{_stored('sparse-bitmap', 'bits_set'):,}")
FIGURES.add("au-bitmap-set", lambda: format_bytes(_stored("sparse-bitmap", "set_bytes")))
FIGURES.add("au-bitmap-roaring", lambda: format_bytes(_stored("sparse-bitmap", "roaring_bytes")))
FIGURES.add(
    "au-bitmap-stall", lambda: format_duration(_stored("sparse-bitmap", "first_write_ms") / 1e3)
)
FIGURES.add("au-bloom-items", lambda: f"{_stored('bloom-over-capacity', 'items'):,}")
FIGURES.add("au-bloom-filters", lambda: f"{_stored('bloom-over-capacity', 'filters')}")
FIGURES.add("au-bloom-error", lambda: format_rate(_stored("bloom-over-capacity", "error_reserved")))
FIGURES.add("au-bloom-now", lambda: format_rate(_stored("bloom-over-capacity", "fpr_now")))
FIGURES.add("au-set-bytes", lambda: format_bytes(_stored("integer-set", "bytes")))
FIGURES.add("au-set-bitmap", lambda: format_bytes(_stored("integer-set", "bitmap_bytes")))
FIGURES.add("au-set-roaring", lambda: format_bytes(_stored("integer-set", "roaring_bytes")))
FIGURES.add("au-big-del", lambda: format_duration(_big_del_ms() / 1e3))
FIGURES.add("au-bloom-capacity", lambda: f"{BLOOM_CAPACITY:,}")
FIGURES.add("au-set-members", lambda: f"{SET_MEMBERS:,}")
FIGURES.add("au-big-members", lambda: f"{BIG_SET_MEMBERS:,}")


def _big_del_ms() -> float:
    return next(f["del_ms"] for f in findings_of(stored_report())
                if f["kind"] == "big-key" and f["key"].startswith("followers"))  # fmt: skip


# -- claims: every one, in seed order, is in claims.py --------------------------------------------

claims.register(FIGURES)
