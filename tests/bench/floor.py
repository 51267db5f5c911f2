#!/usr/bin/env python3
"""The physical floor of `policylens check` on a workspace: reading its YAML files and parsing
them with rapidyaml (PyPI `rapidyaml`, module `ryml`, one of the fastest YAML parsers).

    python3 tests/bench/floor.py DIR [--repeat 7]

prints one JSON object:

    {"files": 360, "bytes": 5206984, "cat_ms": 40.1, "parse_ms": 22.9, "floor_ms": 63.0, ...}

`cat_ms` is the wall time of `cat` over every *.yaml / *.yml file (one process, the page
cache warm after a first run), `parse_ms` the time rapidyaml takes to parse the files already
in memory (in this process, the clock around the parse calls only); each is the median of
--repeat runs. Hidden directories are skipped, as policylens skips them.
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import time

try:
    import ryml
except ImportError as exc:  # pragma: no cover - environment problem, not a benchmark result
    sys.exit(f"floor.py: rapidyaml is required (pip install rapidyaml): {exc}")


def collect(root):
    paths = []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if not d.startswith("."))
        paths.extend(os.path.join(dirpath, n) for n in sorted(filenames) if n.endswith((".yaml", ".yml")))
    return paths


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("dir")
    ap.add_argument("--repeat", type=int, default=7)
    args = ap.parse_args()
    paths = collect(args.dir)
    blobs = [open(p, "rb").read() for p in paths]

    cat = []
    for _ in range(args.repeat + 1):
        start = time.perf_counter()
        subprocess.run(["cat", *paths], stdout=subprocess.DEVNULL, check=True)
        cat.append(time.perf_counter() - start)
    cat = cat[1:]

    parse = []
    for _ in range(args.repeat):
        start = time.perf_counter()
        for b in blobs:
            ryml.parse_in_arena(b)
        parse.append(time.perf_counter() - start)

    cat_ms, parse_ms = statistics.median(cat) * 1e3, statistics.median(parse) * 1e3
    print(json.dumps({
        "files": len(paths),
        "bytes": sum(len(b) for b in blobs),
        "cat_ms": round(cat_ms, 1),
        "parse_ms": round(parse_ms, 1),
        "floor_ms": round(cat_ms + parse_ms, 1),
        "repeat": args.repeat,
        "ryml": getattr(ryml, "__version__", "?"),
    }))


if __name__ == "__main__":
    main()
