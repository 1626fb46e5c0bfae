"""Chapter "One slow command stalls everyone": its seed figures, claims and plots.

Timings come from the stored reference run (:class:`setlab.lab.runs.stalls.StallsReference`),
cluster shares from the routing simulation (:mod:`setlab.models.like_workload`), so the page reads
the same on every backend; what a live server measures on this run is glued beside them by the page
under ``live-`` names.
"""

from __future__ import annotations

from functools import cache

import numpy as np
from matplotlib.figure import Figure

from setlab.chapters import open_page
from setlab.chapters.one_slow_command import claims, per_release
from setlab.core.formats import format_bytes, format_duration
from setlab.lab.backend import Lab
from setlab.lab.cluster import LocalCluster
from setlab.lab.full_scale.housekeeping import EVICTION_LIMIT, SMALL_KEYS, HousekeepingReference
from setlab.lab.reference import Measurement, beside
from setlab.lab.runs.stalls import (
    DeleteRow,
    ForkRow,
    KeysRow,
    StallRow,
    StallsReference,
    biggest_delete,
    cluster_routing,
)
from setlab.lab.server import ServerError, find_redis_server
from setlab.models import bitmap, cluster_slots, like_workload
from setlab.render.claims import Figures
from setlab.render.plots import bytes_axis, new_figure, seconds_axis

FIGURES = Figures("one-slow-command")

#: Seed 000 §5.1: the offset of its big SETBIT (256 MB).
SEED_OFFSET = 2**31
#: Seed 000 §5.4: the big bitmap it deletes, in bytes (256 MB).
SEED_DELETE_BYTES = 2**28
#: String sizes (bytes) of the live DEL/UNLINK experiment, up to the seed's 256 MB (the
#: reference run went on to 512 MiB).
DELETE_STRINGS = [2**20, 2**24, 2**26, SEED_DELETE_BYTES]
#: Keyspace sizes of the live KEYS/SCAN experiment (the reference run went on to a million).
KEYSPACES = [10**3, 10**4, 10**5, 3 * 10**5]


@cache
def reference() -> StallsReference:
    """The stored run of every experiment in this chapter (read once)."""
    return StallsReference.load()


def start() -> Lab:
    """Open the page (:func:`open_page`): the lab and its banner, then the label of the stored
    run every timing in the prose comes from."""
    return open_page(FIGURES, reference().run.label)


def _ms(value_ms: float) -> str:
    return format_duration(value_ms / 1e3)


# -- figures: head-of-line blocking ------------------------------------------------------------


def _top() -> StallRow:
    return reference().stall(bitmap.MAX_OFFSET)


FIGURES.add("osc-source", lambda: reference().run.label)
#: what the stall sweep's timings measure (one quantity, one value: Figures.add's ``quantity``)
_STALL = "| stall sweep, one run"
FIGURES.add(
    "osc-top-setbit",
    lambda: _ms(_top().setbit_ms),
    quantity=f"first SETBIT at offset {bitmap.MAX_OFFSET:,} | its client's round trip {_STALL}",
)
FIGURES.add(
    "osc-top-worst",
    lambda: _ms(_top().max_ms),
    quantity=f"worst GET behind a first SETBIT at offset {bitmap.MAX_OFFSET:,} | round trip "
    f"{_STALL}",
)
FIGURES.add(
    "osc-p50",
    lambda: _ms(_top().p50_ms),
    quantity=f"GET beside first SETBITs at offset {bitmap.MAX_OFFSET:,} | median round trip "
    f"{_STALL}",
)
FIGURES.add(
    "osc-seed-setbit",
    lambda: _ms(reference().stall(SEED_OFFSET).setbit_ms),
    quantity=f"first SETBIT at offset {SEED_OFFSET:,} | its client's round trip {_STALL}",
)
#: seed 000 §5.1's lower bound (2 s) over the reference run's first SETBIT at its offset
FIGURES.add("osc-seed-ratio", lambda: f"{2e3 / reference().stall(SEED_OFFSET).setbit_ms:.0f}")
FIGURES.add("osc-seed-offset", lambda: f"{SEED_OFFSET:,}")

# -- figures: DEL vs UNLINK --------------------------------------------------------------------

FIGURES.add("osc-del-string-size", lambda: format_bytes(SEED_DELETE_BYTES))
FIGURES.add(
    "osc-del-string", lambda: _ms(reference().delete("string", SEED_DELETE_BYTES, "del").server_ms)
)
FIGURES.add(
    "osc-unlink-string",
    lambda: _ms(reference().delete("string", SEED_DELETE_BYTES, "unlink").server_ms),
)
FIGURES.add(
    "osc-del-set-size", lambda: f"{biggest_delete(reference().deletes, 'set', 'del').size:,}"
)
FIGURES.add("osc-del-set", lambda: _ms(biggest_delete(reference().deletes, "set", "del").server_ms))
FIGURES.add(
    "osc-unlink-set", lambda: _ms(biggest_delete(reference().deletes, "set", "unlink").server_ms)
)

# -- figures: KEYS vs SCAN ---------------------------------------------------------------------


def _keys() -> KeysRow:
    return reference().keys[-1]


FIGURES.add("osc-keys-n", lambda: f"{_keys().keys:,}")
FIGURES.add("osc-keys-ms", lambda: _ms(_keys().keys_ms))
FIGURES.add("osc-scan-total", lambda: _ms(_keys().scan_total_ms))
FIGURES.add("osc-scan-max", lambda: _ms(_keys().scan_max_ms))
FIGURES.add("osc-scan-calls", lambda: f"{_keys().scan_calls:,}")

# -- figures: the cluster (a simulation of the routing) ----------------------------------------

FIGURES.add("osc-bitmap-hot", lambda: f"{like_workload.skew_shares()['bitmap']:.0%}")
FIGURES.add("osc-sadd-hot", lambda: f"{like_workload.skew_shares()['set: SADD only']:.0%}")
FIGURES.add("osc-incr-hot", lambda: f"{like_workload.skew_shares()['set: INCR only']:.0%}")
FIGURES.add(
    "osc-top-post",
    lambda: f"{like_workload.top_content_share(like_workload.skew_workload()[1]):.0%}",
)

# -- figures: fork -----------------------------------------------------------------------------

FIGURES.add("osc-fork-none", lambda: _ms(reference().forks[0].fork_ms))
FIGURES.add("osc-fork-big", lambda: _ms(reference().forks[-1].fork_ms))
FIGURES.add("osc-fork-mem", lambda: format_bytes(reference().forks[-1].used_memory))
FIGURES.add("osc-fork-key", lambda: format_bytes(reference().forks[-1].big_key_bytes))


# -- figures: the rest of seed 000 §3.2/§5 and seed 002 §8 ----------------------------------------

#: Seed 000 §5.2's three example keys.
SEED_000_EXAMPLE_KEYS = ("collect:bit:1:10086", "collect:bit:1:10087", "collect:bit:2:10086")


# -- figures: eviction, AOF rewrite and full sync (seed 000 §5.4) ------------------------------


@cache
def housekeeping() -> HousekeepingReference:
    """The stored run of the housekeeping experiments (read once)."""
    return HousekeepingReference.load()


def _evicted(policy: str) -> str:
    row = housekeeping().policy(policy)
    big = "and the big key too" if not row.big_key_left else "the big key kept"
    return f"{SMALL_KEYS - row.small_keys_left:,} of {SMALL_KEYS:,} small keys evicted, {big}"


def _layout_times(field: str) -> str:
    one, spread = housekeeping().layouts
    return (
        f"{format_duration(getattr(one, field))} for one {format_bytes(one.payload_bytes)} key, "
        f"{format_duration(getattr(spread, field))} for the same bytes in {spread.keys:,} keys"
    )


FIGURES.add("osc-hk-source", lambda: housekeeping().run.label)
FIGURES.add("osc-hk-limit", lambda: format_bytes(EVICTION_LIMIT))
FIGURES.add(
    "osc-evict-default",
    lambda: (
        f"no key evicted; the SETBIT runs (used_memory "
        f"{format_bytes(housekeeping().policy('noeviction').used_memory_after)}), then every write "
        "fails: OOM command not allowed"
    ),
)
FIGURES.add("osc-evict-lru", lambda: _evicted("allkeys-lru"))
FIGURES.add("osc-evict-lfu", lambda: _evicted("allkeys-lfu"))
FIGURES.add("osc-aof-times", lambda: _layout_times("aof_rewrite_s"))
FIGURES.add("osc-sync-times", lambda: _layout_times("full_sync_s"))

FIGURES.add("osc-2-31-mem", lambda: format_bytes(bitmap.first_setbit_memory_usage(2**31)))
FIGURES.add(
    "osc-example-slots",
    lambda: ", ".join(str(cluster_slots.key_slot(k)) for k in SEED_000_EXAMPLE_KEYS),
)


# -- what this run measured (glued by the page under live- names) -----------------------------


def live_stall_text(stalls: Measurement[list[StallRow]]) -> str:
    """This run's largest SETBIT and the worst GET behind it, or why nothing was measured."""

    def describe(rows: list[StallRow]) -> str:
        top = rows[-1]
        return (
            f"the worst GET waited {_ms(top.max_ms)} behind a {_ms(top.setbit_ms)} SETBIT at "
            f"offset {top.offset:,}, the median GET {_ms(top.p50_ms)}"
        )

    return beside(stalls, describe)


def live_delete_text(deletes: Measurement[list[DeleteRow]]) -> str:
    """This run's DEL/UNLINK of its biggest string and SET, or why nothing was measured."""

    def describe(rows: list[DeleteRow]) -> str:
        string, big_set = biggest_delete(rows, "string", "del"), biggest_delete(rows, "set", "del")
        unlink = biggest_delete(rows, "set", "unlink")
        return (
            f"DEL of a {format_bytes(string.size)} string took {_ms(string.server_ms)}, of a "
            f"{big_set.size:,}-member SET {_ms(big_set.server_ms)}, and UNLINK of that SET "
            f"{_ms(unlink.server_ms)}"
        )

    return beside(deletes, describe)


def live_keys_text(keys: Measurement[list[KeysRow]]) -> str:
    """This run's KEYS and longest SCAN call over its largest keyspace, or why not."""

    def describe(rows: list[KeysRow]) -> str:
        last = rows[-1]
        return (
            f"KEYS over {last.keys:,} keys took {_ms(last.keys_ms)}, the longest SCAN call "
            f"{_ms(last.scan_max_ms)}"
        )

    return beside(keys, describe)


def live_fork_text(forks: Measurement[list[ForkRow]]) -> str:
    """This run's fork time with its biggest key, or why nothing was measured."""
    return beside(
        forks,
        lambda rows: (
            f"with {format_bytes(rows[-1].used_memory)} in use the fork took "
            f"{_ms(rows[-1].fork_ms)}"
        ),
    )


def fork_text(rows: list[ForkRow]) -> str:
    """One line per fork run: ``used_memory`` (binary units), the ``fork()`` itself and the whole
    ``BGSAVE`` (ms)."""
    return "\n".join(
        f"used_memory {format_bytes(r.used_memory):>9}: fork {r.fork_ms:6.2f} ms, "
        f"BGSAVE {r.bgsave_s * 1e3:6.0f} ms"
        for r in rows
    )


# -- a real cluster beside the routing simulation -------------------------------------------------

#: What the page says where no cluster can run: the per-node counts it shows are the model's.
NO_CLUSTER = (
    "No real cluster here (it needs redis-server processes): the counts above are a simulation "
    "of the routing, which a live cluster reproduces exactly."
)


def cluster_routing_text(
    lab: Lab,
    user: np.ndarray,
    content: np.ndarray,
    simulated: dict[str, list[int]],
    masters: int = 3,
) -> str:
    """The routing simulation ``simulated`` (:func:`setlab.models.like_workload.per_node_commands`
    of the likes ``(user, content)``) checked on a real cluster: where ``lab`` is a real Redis and
    a ``redis-server`` binary is installed, a private cluster of ``masters`` masters runs the
    same likes (:func:`~setlab.lab.runs.stalls.cluster_routing`) and the text says whether its
    ``CLUSTER KEYSLOT`` and per-node counts equal the model's; elsewhere, or when the cluster
    cannot start, it says that the counts are a simulation (:data:`NO_CLUSTER`)."""
    lines, local = [], None
    if lab.is_real and find_redis_server():
        try:
            local = LocalCluster.start(masters=masters)
        except ServerError as err:
            lines.append(f"could not start a local cluster ({err}); showing the simulation only")
    if local is None:
        return "\n".join([*lines, NO_CLUSTER])
    with local:
        routing = cluster_routing(local, user, content)
    same = all(routing.per_node[d] == simulated[d] for d in routing.per_node)
    return "\n".join(
        [
            f"a real {masters}-master cluster: CLUSTER KEYSLOT agrees on all "
            f"{routing.probe_keys} keys: {routing.slots_agree}",
            f"live per-node command counts: {routing.per_node}",
            f"identical to the simulation: {same}",
        ]
    )


# -- plots --------------------------------------------------------------------------------------


def plot_stalls(stalls: Measurement[list[StallRow]]) -> Figure:
    """The SETBIT's own time and other clients' worst and median GET, against its size."""
    rows = stalls.value
    fig, ax = new_figure(height=3.6)
    xs = [r.bytes for r in rows]
    ax.loglog(xs, [r.setbit_ms / 1e3 for r in rows], "o-", label="the SETBIT itself")
    ax.loglog(xs, [r.max_ms / 1e3 for r in rows], "s--", label="other clients: worst GET")
    ax.loglog(xs, [r.p50_ms / 1e3 for r in rows], "^:", label="other clients: median GET")
    ax.set(
        xlabel="bytes the first SETBIT allocates",
        ylabel="latency",
        title=f"Every other client waits as long as the slow command runs ({stalls.source})",
    )
    bytes_axis(ax, "x")
    seconds_axis(ax)
    ax.legend()
    return fig


def plot_deletes(deletes: Measurement[list[DeleteRow]]) -> Figure:
    """DEL and UNLINK time inside Redis against the size of a string and of a SET."""
    fig, axes = new_figure(ncols=2, width=9, height=3.4)
    for ax, kind, unit in zip(axes, ("string", "set"), ("bytes", "members"), strict=True):
        for command, style in (("del", "o-"), ("unlink", "s--")):
            rows = [r for r in deletes.value if r.kind == kind and r.command == command]
            ax.loglog(
                [r.size for r in rows], [max(r.server_ms, 1e-3) / 1e3 for r in rows], style,
                label=command.upper(),
            )  # fmt: skip
        ax.set(
            xlabel=f"size of the {kind} ({unit})",
            ylabel="time inside Redis",
            title=f"Deleting a big {kind.upper() if kind == 'set' else kind} ({deletes.source})",
        )
        seconds_axis(ax)
        ax.legend()
    bytes_axis(axes[0], "x")
    return fig


def plot_keys(keys: Measurement[list[KeysRow]]) -> Figure:
    """One KEYS call against a full SCAN (total and longest call), by keyspace size."""
    rows = keys.value
    fig, ax = new_figure(height=3.4)
    n = [r.keys for r in rows]
    ax.loglog(n, [r.keys_ms / 1e3 for r in rows], "o-", label="one KEYS call")
    ax.loglog(n, [r.scan_total_ms / 1e3 for r in rows], "s--", label="full SCAN, total")
    ax.loglog(n, [r.scan_max_ms / 1e3 for r in rows], "^:", label="full SCAN, longest call")
    ax.set(
        xlabel="keys in the database",
        ylabel="time inside Redis",
        title=f"KEYS blocks for the whole walk; SCAN for one step ({keys.source})",
    )
    seconds_axis(ax)
    ax.legend()
    return fig


def plot_skew(per_node: dict[str, list[int]]) -> Figure:
    """Each node's share of the commands, per design, against an even share."""
    fig, ax = new_figure(height=3.4)
    labels = ["bitmap", "set", "set: SADD only", "set: INCR only"]
    width = 0.25
    for node in range(3):
        shares = [per_node[name][node] / sum(per_node[name]) for name in labels]
        ax.bar(np.arange(len(labels)) + (node - 1) * width, shares, width, label=f"node {node + 1}")
    ax.axhline(1 / 3, color="k", lw=0.8, ls="--", label="an even share")
    ax.set_xticks(range(len(labels)), labels)
    ax.set(
        ylabel="share of the commands", title="Where the commands of a skewed like workload land"
    )
    ax.legend(ncols=4)
    return fig


# -- claims: every one, in seed order, is in claims.py --------------------------------------------

claims.register(FIGURES)

# every release measured: the stored per-release run (reference/measure_releases.py)
per_release.register(FIGURES)
