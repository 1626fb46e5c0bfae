"""How much each chapter writes on tests/chapters/test_live_hostile.py's server, as the reader
with every right (``default``, who may read ``INFO`` and so the server's headroom).

The hostile test runs every chapter as the classroom's ACL-confined participant, and as the
full-rights reader only the chapters whose writes come near the participant's blind budget
(``setlab.lab.guard.BLIND_BUDGET``) or that the guard exists for. This script is how that list
(``FULL_RIGHTS`` there) was chosen: it builds the same server (64 MB, ``allkeys-lru``, ~85% full
of 10,000 foreign keys), runs each chapter on it one at a time as that reader, and samples
``used_memory`` every 20 ms. Printed per chapter: the peak above the start, whether the chapter
completed, and the keys evicted (always 0, or the test fails).

    .venv/bin/python benchmarks/hostile_peaks.py [--pages setbit-offset choosing ...]
"""

from __future__ import annotations

import argparse
import sys
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import redis  # noqa: E402

from setlab.lab import classroom  # noqa: E402
from setlab.lab.server import RedisServer  # noqa: E402
from setlab.site.registry import CHAPTERS  # noqa: E402
from tests.chapters.test_live_hostile import (  # noqa: E402
    ADMIN_PASSWORD,
    PASSWORD,
    USER,
    _env,
    _fill,
)
from tests.support.notebooks import run_page  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pages", nargs="*", default=list(CHAPTERS), choices=CHAPTERS)
    args = parser.parse_args()
    server = RedisServer.start(
        module=False, extra_args=["--maxmemory", "64mb", "--maxmemory-policy", "allkeys-lru"]
    )
    try:
        server.client().config_set("requirepass", ADMIN_PASSWORD)
        admin = redis.Redis(host=server.host, port=server.port, password=ADMIN_PASSWORD, protocol=2)
        admin.execute_command("ACL", "SETUSER", USER, *classroom.acl_rules(USER), f">{PASSWORD}")
        _fill(admin)
        print(f"{'chapter':24} {'peak above start':>17}  completed  evicted")
        for slug in args.pages:
            start = int(admin.info("memory")["used_memory"])
            peak, stop = [start], threading.Event()

            def watch(peak: list[int] = peak, stop: threading.Event = stop) -> None:
                probe = redis.Redis(
                    host=server.host, port=server.port, password=ADMIN_PASSWORD, protocol=2
                )
                while not stop.is_set():
                    peak[0] = max(peak[0], int(probe.info("memory")["used_memory"]))
                    time.sleep(0.02)

            watcher = threading.Thread(target=watch)
            watcher.start()
            result = run_page(slug, _env(server, "default", ADMIN_PASSWORD), timeout=300)
            stop.set()
            watcher.join()
            evicted = int(admin.info("stats")["evicted_keys"])
            print(f"{slug:24} {(peak[0] - start) / 2**20:13.2f} MiB  {result.ok!s:9}  {evicted}")
    finally:
        server.stop()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
