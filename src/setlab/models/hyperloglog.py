"""Redis's HyperLogLog, bit for bit: hash, registers, sparse and dense encodings, estimate.

Redis keeps a HyperLogLog in a plain string (``hyperloglog.c``): a 16-byte header (``HYLL``,
the encoding, three unused bytes, an 8-byte cached cardinality) and then either the *sparse*
run-length encoding (opcodes ZERO, XZERO and VAL) or the *dense* array of 16384 six-bit
registers (12,304 bytes, served from jemalloc's 14 KiB class, or 12,312 usable bytes on glibc).
Each element is hashed with MurmurHash64A (seed ``0xadc83b19``, :mod:`setlab.core.hashing`);
the low 14 bits pick a register, the run of zeros above them sets its value, and ``PFCOUNT``
is Otmar Ertl's estimator over the register histogram.

How the sparse string grows depends on the release (``version=``, :mod:`setlab.models.builds`):

* 6.2 and 7.0: before each register update ``sdsMakeRoomFor(s, 3)``, greedy — the string's
  allocation doubles, and can pass ``hll-sparse-max-bytes`` (3,000) well before the promotion;
* 7.2 onwards and Valkey (Redis PR #11438): when fewer than 3 bytes are spare and the capacity
  is below 3,000, ``sdsResize`` to ``len + 3`` plus ``min(len + 3, 300)``, capped at 3,000 — so
  a sparse HyperLogLog of a few hundred to 1,500 elements holds 14–28 % less. Measured step by
  step on Redis 8.2.3 and Valkey 8.1.8.

The key around it is priced by :class:`~setlab.models.key_layout.Ledger` (Redis 8 and Valkey
keep the key's name in the object). :class:`HyperLogLog` re-implements all of it, so it predicts
``PFADD``'s reply, ``PFCOUNT``, the bytes ``GET`` returns and the key's ``MEMORY USAGE``
exactly (the live tests compare them with real servers). :func:`simulate_registers` draws
register arrays of an ideal hash directly, for error studies at cardinalities too large to hash.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence

import numpy as np

from setlab.core.hashing import murmur64a, murmur64a_rows
from setlab.core.validate import check_int
from setlab.models import bitmap
from setlab.models.builds import DEFAULT_RELEASE
from setlab.models.key_layout import KeyCost, Ledger
from setlab.models.redis_memory import Members, as_bytes, build_of, set_cost
from setlab.models.sds import SdsString

HLL_P = 14
HLL_REGISTERS = 1 << HLL_P  #: 16384
HLL_Q = 64 - HLL_P  #: hash bits left for the run of zeros
HLL_BITS = 6
HLL_HEADER_BYTES = 16  #: "HYLL", encoding, 3 unused, 8-byte cached cardinality
HLL_DENSE_BYTES = HLL_HEADER_BYTES + HLL_REGISTERS * HLL_BITS // 8  #: 12304
HLL_SPARSE_MAX_BYTES = 3000  #: default hll-sparse-max-bytes
#: 7.2+ (PR #11438): a sparse string grows by at most this much beyond what it needs
HLL_SPARSE_GROWTH_CAP = 300
#: the families whose sparse strings grow by ``sdsResize`` (7.2 onwards, Valkey)
RESIZING_FAMILIES = frozenset({"7.2", "8.2", "valkey-8.1"})
HLL_SEED = 0xADC83B19
HLL_ALPHA_INF = 0.721347520444481703680  #: 1 / (2 ln 2)
HLL_STANDARD_ERROR = 1.04 / math.sqrt(HLL_REGISTERS)  #: 0.8125 %, Flajolet et al. (2007)
#: byte 4 of the header: hyperloglog.c's HLL_DENSE (0) and HLL_SPARSE (1)
HLL_ENCODINGS = {0: "dense", 1: "sparse"}
_SPARSE_VAL_MAX_VALUE = 32
_SPARSE_VAL_MAX_LEN = 4
_SPARSE_ZERO_MAX_LEN = 64


def hll_register_updates(hashes: np.ndarray | Sequence[int]) -> tuple[np.ndarray, np.ndarray]:
    """Register index and value for 64-bit hashes (``hllPatLen``): ``(index, count)``.

    index = the low 14 bits; count = 1 + the number of trailing zeros of the other 50 bits
    (bit 50 forced to one, so 1 ≤ count ≤ 51).
    """
    h = np.asarray(hashes, dtype=np.uint64)
    index = (h & np.uint64(HLL_REGISTERS - 1)).astype(np.int64)
    rest = (h >> np.uint64(HLL_P)) | np.uint64(1 << HLL_Q)
    lowest = rest & (~rest + np.uint64(1))  # isolate the lowest set bit
    count = np.log2(lowest.astype(np.float64)).astype(np.int64) + 1
    return index, count


def hll_hashes(elements: Iterable[str | bytes | int]) -> np.ndarray:
    """MurmurHash64A (Redis's seed) of each element as ``PFADD`` receives it, in order."""
    items = [as_bytes(e) for e in elements]
    out = np.empty(len(items), dtype=np.uint64)
    by_length: dict[int, list[int]] = {}
    for i, item in enumerate(items):
        by_length.setdefault(len(item), []).append(i)
    for length, where in by_length.items():
        if length == 0:
            out[where] = murmur64a(b"", HLL_SEED)
            continue
        rows = np.frombuffer(b"".join(items[i] for i in where), dtype=np.uint8)
        out[where] = murmur64a_rows(rows.reshape(len(where), length), HLL_SEED)
    return out


def _hll_sigma(x: float) -> float:
    """Ertl's sigma (hyperloglog.c ``hllSigma``), same operations in the same order."""
    if x == 1.0:
        return math.inf
    y = 1.0
    z = x
    while True:
        x *= x
        z_prime = z
        z += x * y
        y += y
        if z_prime == z:
            return z


def _hll_tau(x: float) -> float:
    """Ertl's tau (hyperloglog.c ``hllTau``)."""
    if x == 0.0 or x == 1.0:
        return 0.0
    y = 1.0
    z = 1 - x
    while True:
        x = math.sqrt(x)
        z_prime = z
        y *= 0.5
        z -= (1 - x) ** 2 * y
        if z_prime == z:
            return z / 3


def hll_estimate(histogram: Sequence[int] | np.ndarray) -> int:
    """``PFCOUNT`` from a histogram of register values (``hllCount``, Redis ≥ 5).

    Otmar Ertl's improved estimator, "New cardinality estimation algorithms for HyperLogLog
    sketches" (arXiv:1702.01284), in the same floating-point order as Redis, so the result is
    the integer Redis replies with. ``histogram[v]`` = number of registers holding ``v``.
    """
    hist = [int(x) for x in histogram] + [0] * (HLL_Q + 2 - len(histogram))
    if sum(hist) != HLL_REGISTERS:
        raise ValueError(f"histogram must count {HLL_REGISTERS} registers; got {sum(hist)}")
    m = float(HLL_REGISTERS)
    z = m * _hll_tau((m - hist[HLL_Q + 1]) / m)
    for j in range(HLL_Q, 0, -1):
        z += hist[j]
        z *= 0.5
    z += m * _hll_sigma(hist[0] / m)
    estimate = HLL_ALPHA_INF * m * m / z
    whole = math.floor(estimate)
    return int(whole + (1 if estimate - whole >= 0.5 else 0))


def hll_estimate_registers(registers: np.ndarray) -> int:
    """``PFCOUNT`` of an array of 16384 register values (see :func:`hll_estimate`)."""
    regs = np.asarray(registers)
    if regs.shape != (HLL_REGISTERS,):
        raise ValueError(f"registers must have shape ({HLL_REGISTERS},); got {regs.shape}")
    return hll_estimate(np.bincount(regs.astype(np.int64), minlength=HLL_Q + 2))


class HyperLogLog:
    """Redis's HyperLogLog, bit for bit: registers, sparse encoding, growth and estimate.

    :meth:`add` returns what ``PFADD`` replies, :meth:`count` what ``PFCOUNT`` replies,
    :meth:`merge` does what ``PFMERGE`` does to its destination, and :attr:`payload` is the byte
    string ``GET`` would return (minus the cached cardinality). :meth:`cost` is the key's memory
    on ``version`` with ``allocator`` (``None``: the release's usual build; Redis 7.0 and
    Debian's jemalloc by default).
    """

    def __init__(
        self,
        sparse_max_bytes: int = HLL_SPARSE_MAX_BYTES,
        allocator: str | None = None,
        *,
        version: str = DEFAULT_RELEASE,
    ) -> None:
        self.sparse_max_bytes = check_int("sparse_max_bytes", sparse_max_bytes, 0)
        self.build = build_of(version, allocator)
        self.allocator = self.build.allocator
        self.registers = np.zeros(HLL_REGISTERS, dtype=np.uint8)
        # createHLLObject: one XZERO opcode covering all registers, in an exact-size sds
        self._ops = bytearray(_xzero(HLL_REGISTERS))
        self._sds = SdsString.new(HLL_HEADER_BYTES + len(self._ops), self.allocator)
        self.encoding = "sparse"

    # -- what it holds
    @property
    def string_length(self) -> int:
        """``STRLEN`` of the key: 16-byte header + sparse opcodes, or 12,304 when dense."""
        return HLL_DENSE_BYTES if self.encoding == "dense" else HLL_HEADER_BYTES + len(self._ops)

    @property
    def allocation(self) -> int:
        """Bytes jemalloc handed out for the string (sds header, capacity, NUL, rounding)."""
        return self._sds.allocation

    @property
    def payload(self) -> bytes:
        """The bytes after the 16-byte header: sparse opcodes, or the packed 6-bit registers."""
        if self.encoding == "sparse":
            return bytes(self._ops)
        return pack_registers(self.registers)

    def cost(self, key: str | bytes = "k") -> KeyCost:
        """What the key holding this HyperLogLog (a raw string) costs: ``MEMORY USAGE`` and
        allocation, which are the same."""
        ledger = Ledger(key, self.build)
        ledger.add_object()
        ledger.add(f"HLL string ({self.encoding})", self.allocation, self.allocation)
        return ledger.cost("hyperloglog", self.encoding, self.string_length)

    def count(self) -> int:
        """What ``PFCOUNT`` replies."""
        return hll_estimate_registers(self.registers)

    # -- updates
    def add(self, *elements: str | bytes | int) -> int:
        """``PFADD``: add elements; 1 if any register changed (or the key is new), else 0."""
        return int(any(self.add_each(elements))) if elements else 0

    def add_each(self, elements: Iterable[str | bytes | int]) -> list[bool]:
        """Add elements one by one; for each, whether it changed a register.

        A ``False`` here does **not** mean the element was seen before: it only means its
        register already held a value at least as large.
        """
        index, count = hll_register_updates(hll_hashes(elements))
        return [self.set_register(int(i), int(c)) for i, c in zip(index, count, strict=True)]

    def add_hashes(self, hashes: np.ndarray) -> None:
        """Add pre-computed 64-bit hashes (fast for dense HyperLogLogs)."""
        index, count = hll_register_updates(hashes)
        start = 0
        while self.encoding == "sparse" and start < len(index):
            self.set_register(int(index[start]), int(count[start]))
            start += 1
        np.maximum.at(self.registers, index[start:], count[start:].astype(np.uint8))

    def set_register(self, index: int, count: int) -> bool:
        """Raise register ``index`` to ``count`` if lower (``hllSparseSet``/``hllDenseSet``)."""
        if self.encoding == "dense":
            if count <= self.registers[index]:
                return False
            self.registers[index] = count
            return True
        return self._sparse_set(index, count)

    def merge(self, *others: HyperLogLog) -> None:
        """``PFMERGE this other …``: registers become the maxima, written in index order."""
        maxima = self.registers.copy()
        dense = self.encoding == "dense"
        for other in others:
            np.maximum(maxima, other.registers, out=maxima)
            dense = dense or other.encoding == "dense"
        if dense and self.encoding == "sparse":
            self._promote()
        for index in np.flatnonzero(maxima):
            self.set_register(int(index), int(maxima[index]))

    # -- the sparse representation (hyperloglog.c, hllSparseSet)
    def _sparse_set(self, index: int, count: int) -> bool:
        if count > _SPARSE_VAL_MAX_VALUE:
            return self._promote_and_set(index, count)
        self._make_room()
        ops = self._ops
        p = first = span = 0
        prev = None
        end = len(ops)
        while p < end:
            op = ops[p]
            oplen = 1
            if op & 0xC0 == 0:
                span = (op & 0x3F) + 1
            elif op & 0x80:
                span = (op & 0x03) + 1
            else:
                span = (((op & 0x3F) << 8) | ops[p + 1]) + 1
                oplen = 2
            if index <= first + span - 1:
                break
            prev = p
            p += oplen
            first += span
        op = ops[p]
        is_xzero = op & 0xC0 == 0x40
        is_val = bool(op & 0x80)
        if is_val:
            if ((op >> 2) & 0x1F) + 1 >= count:
                return False
            if (op & 0x03) == 0:
                ops[p] = _val(count, 1)
                return self._sparse_updated(prev, index, count)
        elif not is_xzero and (op & 0x3F) == 0:  # ZERO of length 1
            ops[p] = _val(count, 1)
            return self._sparse_updated(prev, index, count)
        last = first + span - 1
        seq = bytearray()
        if is_val:
            current = ((op >> 2) & 0x1F) + 1
            if index != first:
                seq.append(_val(current, index - first))
            seq.append(_val(count, 1))
            if index != last:
                seq.append(_val(current, last - index))
        else:
            if index != first:
                seq += _zero_run(index - first)
            seq.append(_val(count, 1))
            if index != last:
                seq += _zero_run(last - index)
        oldlen = 2 if is_xzero else 1
        delta = len(seq) - oldlen
        if delta > 0 and HLL_HEADER_BYTES + len(ops) + delta > self.sparse_max_bytes:
            return self._promote_and_set(index, count)
        ops[p : p + oldlen] = seq
        return self._sparse_updated(prev, index, count)

    def _make_room(self) -> None:
        """Room for the 3 bytes an update may add, before anything else: greedy
        ``sdsMakeRoomFor`` (6.2, 7.0), or from 7.2 ``sdsResize`` to ``len + 3`` plus
        ``min(len + 3, 300)``, capped at ``sparse_max_bytes``, only while the capacity is below
        it and fewer than 3 bytes are spare."""
        length = HLL_HEADER_BYTES + len(self._ops)
        sds = self._sds.with_length(length)
        if self.build.family not in RESIZING_FAMILIES:
            self._sds = sds.grow_zero(length + 3).with_length(length)
        elif sds.capacity < self.sparse_max_bytes and sds.available < 3:
            wanted = length + 3 + min(length + 3, HLL_SPARSE_GROWTH_CAP)
            self._sds = sds.resize(min(wanted, self.sparse_max_bytes))
        else:
            self._sds = sds

    def _sparse_updated(self, prev: int | None, index: int, count: int) -> bool:
        """Step 4 of hllSparseSet: merge adjacent equal VAL opcodes near the change."""
        self.registers[index] = count
        ops = self._ops
        p = prev if prev is not None else 0
        scanlen = 5
        while p < len(ops) and scanlen > 0:
            scanlen -= 1
            op = ops[p]
            if op & 0xC0 == 0x40:
                p += 2
                continue
            if op & 0xC0 == 0:
                p += 1
                continue
            if p + 1 < len(ops) and ops[p + 1] & 0x80:
                v1, v2 = ((op >> 2) & 0x1F) + 1, ((ops[p + 1] >> 2) & 0x1F) + 1
                run = (op & 0x03) + 1 + (ops[p + 1] & 0x03) + 1
                if v1 == v2 and run <= _SPARSE_VAL_MAX_LEN:
                    ops[p + 1] = _val(v1, run)
                    del ops[p]
                    continue
            p += 1
        return True

    def _promote(self) -> None:
        """hllSparseToDense: a fresh exact-size sds of 12,304 bytes."""
        self.encoding = "dense"
        self._ops = bytearray()
        self._sds = SdsString.new(HLL_DENSE_BYTES, self.allocator)

    def _promote_and_set(self, index: int, count: int) -> bool:
        self._promote()
        self.registers[index] = max(int(self.registers[index]), count)
        return True


def _val(value: int, run: int) -> int:
    return 0x80 | ((value - 1) << 2) | (run - 1)


def _xzero(run: int) -> bytes:
    return bytes([0x40 | ((run - 1) >> 8), (run - 1) & 0xFF])


def _zero_run(run: int) -> bytes:
    return _xzero(run) if run > _SPARSE_ZERO_MAX_LEN else bytes([run - 1])


def pack_registers(registers: np.ndarray) -> bytes:
    """The dense encoding: 6-bit registers packed from the least significant bit up."""
    registers = np.asarray(registers)
    if registers.shape != (HLL_REGISTERS,) or int(registers.max()) > HLL_Q + 1:
        raise ValueError(
            f"registers must be {HLL_REGISTERS} values in 0..{HLL_Q + 1}; got shape "
            f"{registers.shape}"
        )
    regs = registers.astype(np.uint32).reshape(-1, 4)
    word = regs[:, 0] | (regs[:, 1] << 6) | (regs[:, 2] << 12) | (regs[:, 3] << 18)
    packed = np.stack([word & 0xFF, (word >> 8) & 0xFF, (word >> 16) & 0xFF], axis=1)
    return packed.astype(np.uint8).tobytes()


def stored_encoding(raw: bytes) -> str:
    """``"sparse"`` or ``"dense"``: the encoding of a HyperLogLog string as ``GET`` returns it."""
    if len(raw) < HLL_HEADER_BYTES or raw[:4] != b"HYLL" or raw[4] not in HLL_ENCODINGS:
        raise ValueError(f"raw must be a Redis HyperLogLog string (HYLL header); got {raw[:8]!r}")
    return HLL_ENCODINGS[raw[4]]


def unpack_registers(payload: bytes) -> np.ndarray:
    """Registers from a dense payload (``GET key`` minus its 16-byte header)."""
    if len(payload) != HLL_DENSE_BYTES - HLL_HEADER_BYTES:
        raise ValueError(
            f"a dense payload has {HLL_DENSE_BYTES - HLL_HEADER_BYTES} bytes; got {len(payload)}"
        )
    raw = np.frombuffer(payload, dtype=np.uint8).astype(np.uint32).reshape(-1, 3)
    word = raw[:, 0] | (raw[:, 1] << 8) | (raw[:, 2] << 16)
    regs = np.stack([(word >> s) & 0x3F for s in (0, 6, 12, 18)], axis=1)
    return regs.reshape(-1).astype(np.uint8)


def hll_cost(
    elements: Iterable[str | bytes | int],
    key: str | bytes = "k",
    allocator: str | None = None,
    *,
    version: str = DEFAULT_RELEASE,
) -> KeyCost:
    """What a key costs after ``PFADD key e`` for each element in order, on ``version`` with
    ``allocator`` (``None``: the release's usual build, :mod:`setlab.models.builds`)."""
    hll = HyperLogLog(allocator=allocator, version=version)
    hll.add_each(elements)
    return hll.cost(key)


def registers_of_hashes(hashes: np.ndarray) -> np.ndarray:
    """The 16,384 register values after adding elements with these 64-bit hashes (any order)."""
    index, count = hll_register_updates(hashes)
    registers = np.zeros(HLL_REGISTERS, dtype=np.uint8)
    np.maximum.at(registers, index, count.astype(np.uint8))
    return registers


def hll_growth_curve(stop: int, key: str | bytes = "k") -> tuple[np.ndarray, np.ndarray, int]:
    """``MEMORY USAGE`` after each of ``PFADD key reader:0`` … ``reader:stop-1``.

    Returns (readers, bytes, readers at which the key turned dense, or 0 if it did not).
    """
    stop = check_int("stop", stop, 1)
    hll, sizes, dense_at = HyperLogLog(), [], 0
    index, count = hll_register_updates(hll_hashes(reader_ids(0, stop)))
    for n, (i, c) in enumerate(zip(index, count, strict=True), start=1):
        hll.set_register(int(i), int(c))
        if hll.encoding == "dense" and not dense_at:
            dense_at = n
        sizes.append(hll.cost(key).memory_usage)
    return np.arange(1, stop + 1), np.array(sizes), dense_at


def simulate_registers(cardinality: int, rng: np.random.Generator, trials: int = 1) -> np.ndarray:
    """Register arrays of ``trials`` HyperLogLogs that each saw ``cardinality`` distinct elements.

    Exact in distribution for an ideal 64-bit hash, in O(16384) per trial whatever the
    cardinality: register ``j`` receives ``N_j`` elements (multinomial), and the largest of
    ``N_j`` run lengths has ``P(max ≤ c) = (1 - 2^-c)^N_j`` for ``c ≤ 50`` (51 is the cap).
    Returns an array of shape ``(trials, 16384)``.
    """
    cardinality = check_int("cardinality", cardinality, 0)
    trials = check_int("trials", trials, 1)
    counts = rng.multinomial(cardinality, np.full(HLL_REGISTERS, 1 / HLL_REGISTERS), size=trials)
    u = rng.random(counts.shape)
    with np.errstate(divide="ignore", invalid="ignore"):
        # smallest c with (1 - 2^-c)^N >= u  <=>  2^-c <= 1 - u^(1/N)
        tail = -np.expm1(np.log(u) / np.maximum(counts, 1))
        c = np.ceil(-np.log2(tail))
    c = np.clip(np.nan_to_num(c, posinf=HLL_Q + 1), 1, HLL_Q + 1)
    return np.where(counts > 0, c, 0).astype(np.uint8)


def simulated_estimates(cardinality: int, trials: int, rng: np.random.Generator) -> np.ndarray:
    """``PFCOUNT`` of ``trials`` independent HyperLogLogs of ``cardinality`` elements each."""
    registers = simulate_registers(cardinality, rng, trials)
    return np.array([hll_estimate_registers(row) for row in registers], dtype=np.float64)


# -- the book's readers -------------------------------------------------------------------------


def reader_ids(start: int, stop: int) -> list[str]:
    """The readers ``reader:start`` … ``reader:stop-1`` (seed 004's question, as HLL elements)."""
    return [f"reader:{i}" for i in range(start, stop)]


def sketch_of_readers(count: int) -> HyperLogLog:
    """The HyperLogLog after ``PFADD key reader:0 … reader:count-1`` (what Redis would hold)."""
    count = check_int("count", count, 0)
    hll = HyperLogLog()
    if count:
        hll.add_hashes(hll_hashes(reader_ids(0, count)))
    return hll


def new_reader_replies(count: int) -> np.ndarray:
    """``PFADD key reader:i`` for i = 0 … count-1, one element per call: Redis's 0/1 replies.

    Every element is new, so a set would answer 1 every time; a HyperLogLog answers 1 only when
    a register grew (:meth:`HyperLogLog.add_each`).
    """
    count = check_int("count", count, 0)
    hll = HyperLogLog()
    index, runs = hll_register_updates(hll_hashes(reader_ids(0, count)))
    return np.array(
        [hll.set_register(int(i), int(c)) for i, c in zip(index, runs, strict=True)],
        dtype=np.int8,
    )


def week_of_readers(
    rng: np.random.Generator, days: int = 7, daily: int = 50_000, population: int = 200_000
) -> list[np.ndarray]:
    """Reader IDs for each day: ``daily`` distinct readers drawn from ``population`` people."""
    days = check_int("days", days, 1)
    population = check_int("population", population, 1)
    daily = check_int("daily", daily, 1, population)
    return [np.sort(rng.choice(population, daily, replace=False)) for _ in range(days)]


def counting_costs(readers: int) -> dict[str, float]:
    """Bytes to count ``readers`` distinct readers (IDs 0 … readers-1) three ways, Redis 7.0.

    A SET of the IDs, a bitmap with one bit per ID (dense IDs), and a HyperLogLog (exact
    encoding for ``readers`` up to a few thousand, dense above; the key name is ``k``).
    """
    readers = check_int("readers", readers, 1)
    hll = sketch_of_readers(min(readers, 5_000))
    return {
        "SET": float(set_cost(Members.decimal_range(0, readers)).memory_usage),
        "bitmap": float(bitmap.first_setbit_memory_usage(readers - 1, "k")),
        "HyperLogLog": float(hll.cost("k").memory_usage),
    }
