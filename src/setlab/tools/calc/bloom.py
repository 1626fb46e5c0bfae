"""Bloom filters: solve any two or three of n, p, m, k, and the chain ``BF.RESERVE`` builds
(:mod:`setlab.models.bloom`, :mod:`setlab.models.redisbloom`)."""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import partial

from setlab.core.formats import format_bytes
from setlab.core.quantities import parse_bits
from setlab.core.validate import check_int, check_probability
from setlab.tools.calc.calculator import Calculator, Given, Option, count, rate
from setlab.tools.calc.release import PricedFor
from setlab.tools.calc.report import Report, rate_text, size_text


@dataclass(frozen=True)
class BloomSolution:
    """A Bloom filter with all four of ``n`` (items), ``p`` (rate at ``n``), ``m`` (bits), ``k``."""

    n: int
    p: float  #: the false-positive rate at ``n`` items, a fraction
    m: int
    k: int
    given: tuple[str, ...]
    target_p: float | None = None  #: the rate asked for, when ``p`` was given

    @property
    def bits_per_item(self) -> float:
        return self.m / self.n

    @property
    def lower_bound(self) -> float:
        """Bits per item any membership structure needs at rate ``p``: ``log2(1/p)``."""
        from setlab.models import bloom

        return bloom.bits_per_item_lower_bound(self.p)

    @property
    def fill(self) -> float:
        from setlab.models import bloom

        return float(bloom.fill_ratio(self.n, self.m, self.k, finite=False))


def _bloom_m_for(n: int, p: float, k: int) -> int:
    """Fewest bits holding ``n`` items at rate ``p`` with ``k`` hashes:
    ``m = -k n / ln(1 - p^(1/k))``, rounded up (the inverse of
    :func:`setlab.models.bloom.capacity`)."""
    return math.ceil(-k * n / math.log1p(-(p ** (1.0 / k))))


def solve_bloom(
    n: int | None = None, p: float | None = None, m: int | None = None, k: int | None = None
) -> BloomSolution:
    """Solve a Bloom filter from any two or three of ``n``, ``p``, ``m`` (bits), ``k``.

    Formulas (:mod:`setlab.models.bloom`, Broder & Mitzenmacher 2004): ``p = (1 - e^(-kn/m))^k``;
    with the best ``k = (m/n) ln 2``, ``m = -n ln p / (ln 2)^2``. What is solved:

    * ``n, p`` → ``m`` and the best ``k``; ``n, p, k`` → the fewest ``m`` for that ``k``;
    * ``m, p`` → the capacity ``n`` and best ``k``; ``m, p, k`` → the capacity with that ``k``;
    * ``n, m`` → best ``k`` and its ``p``; ``n, m, k`` → ``p``;
    * ``n, k`` → the ``m`` for which ``k`` is best (``m = k n / ln 2``); ``m, k`` → the ``n`` for
      which it is best (``n = m ln 2 / k``), and ``p``.

    ``p, k`` alone fix the bits per item but not the size, and all four over-determine the
    filter: both are errors, as is fewer than two.
    """
    from setlab.models import bloom

    given = tuple(name for name, v in (("n", n), ("p", p), ("m", m), ("k", k)) if v is not None)
    if len(given) < 2:
        raise ValueError(f"give two or three of n, p, m, k; got only {', '.join(given) or 'none'}")
    if len(given) == 4:
        raise ValueError("give two or three of n, p, m, k, not all four (drop p to get the rate)")
    if set(given) == {"p", "k"}:
        raise ValueError("p and k fix the bits per item but not the size: also give n or m")
    if n is not None:
        n = check_int("n", n, 1, 2**62)
    if m is not None:
        m = check_int("m", m, 1, 2**64)
    if k is not None:
        k = check_int("k", k, 1, bloom.MAX_K)
    if p is not None:
        p = check_probability("p", p)
    target = p
    if n is not None and p is not None:
        if k is None:
            sizing = bloom.size_for(n, p)
            m, k = sizing.m, sizing.k
        else:
            m = _bloom_m_for(n, p, k)
    elif m is not None and p is not None:
        if k is None:
            capacity = bloom.capacity(m, p)
            k = bloom.optimal_k(m, max(capacity, 1.0))
        n = math.floor(bloom.capacity(m, p, k))
        if n < 1:
            raise ValueError(f"m = {m:,} bits cannot hold even one item at p = {rate_text(p)}")
    elif n is not None and m is not None:
        k = bloom.optimal_k(m, n) if k is None else k
    elif n is not None:  # n, k
        m = math.ceil(k * n / bloom.LN2)
    else:  # m, k
        n = max(1, math.floor(m * bloom.LN2 / k))
    achieved = float(bloom.fpr(n, m, k))
    if achieved >= 1.0:  # the fill rounds to every bit: no answer but "maybe" to report
        raise ValueError(f"m = {m:,} bits for n = {n:,} items: every bit ends up set and every "
                         "query answers maybe (the rate rounds to 1)")  # fmt: skip
    return BloomSolution(int(n), achieved, int(m), int(k), given, target)


def bloom_report(solution: BloomSolution) -> Report:
    """A :class:`Report` of a solved Bloom filter (bits per item against the lower bound)."""
    from setlab.models import bloom

    s = solution
    best_k = bloom.optimal_k(s.m, s.n)
    report = Report(f"Bloom filter (given {', '.join(s.given)})")
    report.rows = [
        ("n (items)", f"{s.n:,}"),
        ("m (size)", size_text(s.m)),
        ("k (hashes)", f"{s.k}" + ("" if s.k == best_k else f" (best for this m/n: {best_k})")),
        ("p at n items", rate_text(s.p)),
        ("bits per item", f"{s.bits_per_item:.2f}"),
        ("lower bound", f"{s.lower_bound:.2f} bits/item at this p, for any structure "
                        f"(this filter uses {s.bits_per_item / s.lower_bound:.2f}×)"),
        ("fill at n", f"{s.fill:.1%} of the bits set"),
    ]  # fmt: skip
    if s.target_p is not None and s.p > s.target_p * (1 + 1e-9):
        report.notes.append(
            f"whole hashes and bits miss the asked {rate_text(s.target_p)} slightly"
        )
    keys = math.ceil(s.m / bloom.MAX_BITS_PER_KEY)
    if keys > 1:
        report.notes.append(
            f"{s.m:,} bits is more than one Redis string holds (2^32 bits): shard over "
            f"{keys:,} keys or more"
        )
    report.data = {
        "n": s.n, "p": s.p, "m": s.m, "k": s.k, "bytes": math.ceil(s.m / 8),
        "bits_per_item": s.bits_per_item, "lower_bound_bits_per_item": s.lower_bound,
        "best_k": best_k, "fill": s.fill, "given": list(s.given), "redis_keys": keys,
    }  # fmt: skip
    return report


def redisbloom_layout(
    n: int,
    p: float,
    *,
    expansion: int = 2,
    nonscaling: bool = False,
    load: int | None = None,
    release: str | None = None,
    allocator: str | None = None,
) -> Report:
    """The chain ``BF.RESERVE key p n [EXPANSION e | NONSCALING]`` builds, holding ``load`` items
    (default ``n``): sub-filters, ``BF.INFO`` Size, expected rate (RedisBloom 2.8's layout,
    :class:`setlab.models.redisbloom.ChainLayout`), and what the allocator of ``release`` (or
    ``allocator``; default Redis 7.0's) hands out for it: the layout is the module's on every
    release, the allocation is the build's."""
    from setlab.models.allocator import SHORT_NAME
    from setlab.models.redisbloom import MAX_CAPACITY, ChainLayout

    priced = PricedFor.of(release, allocator)
    n = check_int("n", n, 1, MAX_CAPACITY)
    layout = ChainLayout(check_probability("p", p), n, expansion, nonscaling)
    load = n if load is None else check_int("load", load, 0)
    filters = layout.filters_for(load)
    first = layout.sub_filter(0)
    command = " ".join(["BF.RESERVE", "key", *map(str, layout.reserve_args())])
    report = Report(f"RedisBloom: {command}")
    report.rows = [
        ("first sub-filter", f"{first.capacity:,} items at {rate_text(first.error)}, "
                             f"{first.hashes} hashes, {format_bytes(first.bytes)}"),
        ("holding", f"{load:,} items in {filters} sub-filter{'s' * (filters > 1)}"),
        ("BF.INFO Size", f"{format_bytes(layout.memory(load))} ({layout.memory(load):,} bytes)"),
        ("priced for", priced.text),
        ("allocated", f"{format_bytes(layout.allocated(load, priced.allocator))} "
                      f"({SHORT_NAME[priced.allocator]})"),
        ("expected rate", rate_text(layout.expected_fpr(load)) if load else "0"),
        ("design rate", f"{rate_text(layout.design_fpr(filters))} (all sub-filters full)"),
    ]  # fmt: skip
    if load:
        report.rows.append(("bits per item", f"{layout.bits_per_item(load):.2f}"))
    if not nonscaling and filters == 1:
        report.notes.append(
            f"sub-filter 0 is sized for {rate_text(first.error)}: RedisBloom halves "
            "the error so that later sub-filters fit under p; NONSCALING keeps p"
        )
    report.data = {
        "command": command, "sub_filters": filters, "bytes": layout.memory(load),
        "allocated": layout.allocated(load, priced.allocator), **priced.as_json(),
        "expected_fpr": layout.expected_fpr(load) if load else 0.0,
        "design_fpr": layout.design_fpr(filters), "load": load,
        "first": {"capacity": first.capacity, "error": first.error, "hashes": first.hashes,
                  "bits": first.bits},
    }  # fmt: skip
    return report


def _run(given: Given) -> list[Report]:
    """``setlab calc bloom``: the solved filter, and the RedisBloom chain when asked for."""
    solution = solve_bloom(given["n"], given["p"], given["m"], given["k"])
    reports = [bloom_report(solution)]
    layout_asked = given["expansion"] is not None or given["nonscaling"]
    priced_asked = given["redis"] is not None or given["allocator"] is not None
    if given["redisbloom"] or layout_asked or priced_asked:
        reports.append(
            redisbloom_layout(
                solution.n,
                solution.p if given["p"] is None else given["p"],
                expansion=2 if given["expansion"] is None else given["expansion"],
                nonscaling=given["nonscaling"],
                load=given["load"],
                release=given["redis"],
                allocator=given["allocator"],
            )
        )
    elif given["load"] is not None:
        raise ValueError("--load is for the RedisBloom layout: add --redisbloom")
    return reports


CALCULATOR = Calculator(
    "bloom",
    help="solve a Bloom filter from any two or three of n, p, m, k",
    description="Give any two or three of n, p, m, k and get the rest, with bits per item "
    "against the lower bound log2(1/p). --redisbloom adds the chain BF.RESERVE builds and what "
    "the allocator of the release named hands out for it (--redis, --allocator imply it).",
    options=(
        Option(("-n", "--items"), "items (e.g. 1.2e8)", dest="n", read=count("n")),
        Option(("-p", "--error"), "false-positive rate at n items (e.g. 1%)", dest="p",
               read=rate("p")),
        Option(("-m", "--size"), "bits, or a size with a unit (e.g. 128MiB)", dest="m",
               read=partial(parse_bits, name="m")),
        Option(("-k", "--hashes"), "hash functions", dest="k", read=count("k")),
        Option(("--redisbloom",), "also show RedisBloom's BF.RESERVE p n layout", switch=True),
        Option(("--expansion",), "RedisBloom EXPANSION (default 2; implies --redisbloom)",
               read=count("expansion")),
        Option(("--nonscaling",), "RedisBloom NONSCALING", switch=True),
        Option(("--load",), "items actually added, for the RedisBloom layout (default n)",
               read=count("load", low=0)),
    ),
    run=_run,
    shared=("redis", "allocator"),
    key_bytes="bytes",
    example="setlab calc bloom -n 1e6 -p 1% --redisbloom",
)  # fmt: skip
