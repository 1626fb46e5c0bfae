"""Run phpredis's ``$redis->multi()`` in both of its modes against a private Redis and record
what reached the server (``INFO commandstats``): seed 002 §9's sentence about the client.

Needs PHP with the phpredis extension (Debian: ``apt-get install php-cli php-redis``); the
chapter and the tests read the stored file, src/setlab/data/phpredis-reference.json:

    .venv/bin/python reference/measure_phpredis.py
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys

import setlab
from setlab.lab import reference

#: one transaction per mode: the default, Redis::MULTI named, and Redis::PIPELINE
SCRIPT = r"""
$r = new Redis();
$r->connect('127.0.0.1', (int) $argv[1]);
$modes = ['default' => null, 'Redis::MULTI' => Redis::MULTI, 'Redis::PIPELINE' => Redis::PIPELINE];
$out = ['phpredis' => phpversion('redis'), 'php' => PHP_VERSION, 'modes' => []];
foreach ($modes as $name => $mode) {
    $r->rawCommand('CONFIG', 'RESETSTAT');
    $mode === null ? $r->multi() : $r->multi($mode);
    $r->set($argv[2] . $name, '1');
    $r->incr($argv[2] . $name . ':n');
    $replies = $r->exec();
    $stats = $r->info('commandstats');
    $calls = [];
    foreach (['multi', 'exec', 'set', 'incr'] as $c) {
        $line = $stats['cmdstat_' . $c] ?? '';
        $calls[$c] = preg_match('/calls=(\d+)/', $line, $m) ? (int) $m[1] : 0;
    }
    $out['modes'][] = ['mode' => $name, 'calls' => $calls, 'replies' => $replies];
}
echo json_encode($out);
"""


def main() -> int:
    php = shutil.which("php")
    has_redis = (
        php
        and subprocess.run(
            [php, "-r", "exit(extension_loaded('redis') ? 0 : 1);"], check=False
        ).returncode
        == 0
    )
    if not has_redis:  # make reference runs every script: say why this one keeps its old file
        print("skipped: needs PHP with phpredis (apt-get install php-cli php-redis); "
              "the stored phpredis-reference.json is kept")  # fmt: skip
        return 0
    lab = setlab.connect("reference", backend="live")
    assert lab.server is not None, "a private server: the script resets its statistics"
    done = subprocess.run(
        ["php", "-r", SCRIPT, "--", str(lab.server.port), lab.key("php:")],
        capture_output=True, text=True, check=True,
    )  # fmt: skip
    result = json.loads(done.stdout)
    for row in result["modes"]:
        print(row)
    lab.cleanup()
    path = reference.save(
        "phpredis-reference", result["modes"], lab, writer=__file__,
        client={"phpredis": result["phpredis"], "php": result["php"]},
    )  # fmt: skip
    lab.close()
    print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
