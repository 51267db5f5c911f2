#!/usr/bin/env python3
"""The server's hot-code list: the functions a language-server session executes.

The release build links these first (`server/cli/build.rs` passes the list to lld as a symbol
ordering file), so the code a running server uses sits in about 1.5 MB of adjacent pages.
Unordered, the kernel's fault-around (64 KiB around every touched page) made nearly all of
the 4 MB of code resident, because hot functions were spread through all of it.

  scripts/hot-text.py generate   # profile a benchmark session under callgrind, rewrite the list
  scripts/hot-text.py check      # fail when the list no longer matches the release binary

Symbol names carry hashes that change with the compiler version and with dependency
versions; `check` (run by CI) says when the list needs regenerating. Needs valgrind.
"""

import glob
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LIST = os.path.join(ROOT, "server", "cli", "hot-text.txt")
BINARY = os.path.join(ROOT, "target", "release", "policylens")
BENCH = os.path.join(ROOT, "target", "release", "policylens-bench-lsp")
# Below this share of listed symbols present in the binary, the ordering has decayed.
MIN_PRESENT = 0.9


def text_symbols(binary):
    """Mangled names of the functions defined in `binary`."""
    out = subprocess.run(["nm", "--defined-only", binary], check=True, capture_output=True, text=True).stdout
    names = set()
    for line in out.splitlines():
        parts = line.split()
        if len(parts) == 3 and parts[1] in "tT":
            names.add(parts[2])
    return names


def executed(callgrind_file, binary_name):
    """Functions of `binary_name` that ran (had cost of their own) in one callgrind profile."""
    objects, functions, current, ran = {}, {}, None, set()
    # Names are compressed: `(id) name` the first time, `(id)` afterwards.
    entry = re.compile(r"^(ob|fn|cob|cfn)=\((\d+)\)(?: (.*))?$")
    with open(callgrind_file, encoding="utf-8", errors="replace") as f:
        for line in f:
            m = entry.match(line.rstrip("\n"))
            if not m:
                continue
            kind, ident, name = m.groups()
            table = objects if kind in ("ob", "cob") else functions
            if name is not None:
                table[ident] = name
            if kind == "ob":
                current = objects.get(ident)
            elif kind == "fn" and current and os.path.basename(current) == binary_name:
                ran.add(functions[ident].split("'")[0])
    return ran


def generate():
    subprocess.run(["cargo", "build", "--release", "-p", "policylens", "-p", "policylens-bench"], cwd=ROOT, check=True)
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "callgrind.%p")
        server = f"valgrind --tool=callgrind --demangle=no --callgrind-out-file={out} {BINARY} serve"
        subprocess.run([BENCH, "--server", server, "--iterations", "30", "--starts", "1", "--timeout", "3600"], cwd=ROOT, check=True)
        ran = set()
        for f in glob.glob(os.path.join(tmp, "callgrind.*")):
            ran |= executed(f, os.path.basename(BINARY))
    listed = sorted(ran & text_symbols(BINARY))
    with open(LIST, "w", encoding="utf-8") as f:
        f.writelines(name + "\n" for name in listed)
    print(f"{LIST}: {len(listed)} functions")


def check():
    with open(LIST, encoding="utf-8") as f:
        listed = [line.strip() for line in f if line.strip()]
    present = text_symbols(BINARY)
    found = sum(1 for name in listed if name in present)
    share = found / len(listed) if listed else 0.0
    print(f"hot text: {found} of {len(listed)} listed functions are in {BINARY} ({share:.0%})")
    if share < MIN_PRESENT:
        print(
            "The hot-code list no longer matches the release build (a new compiler or new dependency "
            "versions change symbol names), so the server's code is no longer packed. "
            "Regenerate it: scripts/hot-text.py generate",
            file=sys.stderr,
        )
        sys.exit(1)


if __name__ == "__main__":
    commands = {"generate": generate, "check": check}
    if len(sys.argv) != 2 or sys.argv[1] not in commands:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    commands[sys.argv[1]]()
