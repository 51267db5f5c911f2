#!/usr/bin/env python3
"""Baseline for the parser benchmark: how long does PyYAML's C loader take to parse a workspace?

Loads every *.yaml / *.yml file under DIR with yaml.load_all(..., Loader=yaml.CSafeLoader) and
prints one JSON object:

    {"files": 360, "documents": 10000, "bytes": 5206984, "seconds": 0.91,
     "median_seconds": 0.93, "repeat": 3, "errors": 0, "loader": "CSafeLoader"}

Only parsing is timed. Files are read into memory (as bytes) before the clock starts, so disk
and page-cache effects stay out of the number. "seconds" is the best of --repeat runs, and
"median_seconds" is their median. "documents" counts the non-null documents of the last run.
"errors" counts files that did not parse; their documents up to the error are still counted.
Hidden directories are skipped, as policylens skips them.
"""

import argparse
import json
import os
import statistics
import sys
import time

try:
    import yaml
    from yaml import CSafeLoader as Loader
except ImportError as exc:  # pragma: no cover - environment problem, not a benchmark result
    sys.exit(f"pyyaml_parse.py: PyYAML with libyaml (yaml.CSafeLoader) is required: {exc}")


def collect(root):
    paths = []
    if os.path.isfile(root):
        return [root]
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if not d.startswith("."))
        for name in sorted(filenames):
            if name.endswith((".yaml", ".yml")):
                paths.append(os.path.join(dirpath, name))
    return paths


def parse_all(blobs):
    documents = 0
    errors = 0
    for data in blobs:
        try:
            for doc in yaml.load_all(data, Loader=Loader):
                if doc is not None:
                    documents += 1
        except yaml.YAMLError:
            errors += 1
    return documents, errors


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("dir", help="workspace directory (or a single file)")
    ap.add_argument("--repeat", type=int, default=3, help="number of timed runs (default 3)")
    args = ap.parse_args()
    if args.repeat < 1:
        ap.error("--repeat must be at least 1")

    paths = collect(args.dir)
    blobs = []
    for p in paths:
        with open(p, "rb") as f:
            blobs.append(f.read())
    total_bytes = sum(len(b) for b in blobs)

    times = []
    documents = errors = 0
    for _ in range(args.repeat):
        start = time.perf_counter()
        documents, errors = parse_all(blobs)
        times.append(time.perf_counter() - start)

    print(json.dumps({
        "files": len(paths),
        "documents": documents,
        "bytes": total_bytes,
        "seconds": round(min(times), 6),
        "median_seconds": round(statistics.median(times), 6),
        "repeat": args.repeat,
        "errors": errors,
        "loader": Loader.__name__,
    }))


if __name__ == "__main__":
    main()
