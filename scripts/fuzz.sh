#!/usr/bin/env bash
# Runs the cargo-fuzz targets of fuzz/ (libFuzzer), each for SECONDS (default 60).
#
#   scripts/fuzz.sh [SECONDS_PER_TARGET] [TARGET...]
#
# Targets: check_text workspace config edits libyaml (default: all). Seeds each target's corpus from the
# fixtures at run time (fuzz/corpus/, git-ignored), runs it with a 1 s per-input timeout and a
# 2 GiB memory limit, prints the executions per target and in total, and exits 1 on a crash,
# a timeout or an out-of-memory input, printing the artifact (the input that did it).
#
# Toolchain: nightly when installed (or installable); else stable with RUSTC_BOOTSTRAP=1 and no
# sanitizer (AddressSanitizer needs nightly's standard library; the coverage-guided fuzzing and
# the targets' own checks work without it).
# Environment: FUZZ_SANITIZER=address|none overrides the sanitizer; FUZZ_FORK=N runs N
# libFuzzer processes per target (-fork); FUZZ_ARGS adds libFuzzer options; FUZZ_TIMEOUT sets
# the per-input timeout in seconds (default 1; libFuzzer's is wall-clock); FUZZ_TRACE_COMPARES=0
# builds without comparison tracing (faster, coarser).
set -euo pipefail
# A panic aborts the fuzzer (libFuzzer prints the stack); symbolising a Rust backtrace first
# can take longer than the 1 s timeout and turn a crash into a "timeout".
export RUST_BACKTRACE=0
cd "$(dirname "$0")/.."

seconds="${1:-60}"
shift || true
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(check_text workspace config edits libyaml)

if ! cargo fuzz --version >/dev/null 2>&1; then
  cargo install cargo-fuzz --locked
fi

toolchain=()
build_opts=()
if rustup toolchain list 2>/dev/null | grep '^nightly' >/dev/null; then
  toolchain=(+nightly)
elif timeout 300 rustup toolchain install nightly --profile minimal >/dev/null 2>&1; then
  toolchain=(+nightly)
else
  echo "fuzz: no nightly toolchain; stable with RUSTC_BOOTSTRAP=1, without AddressSanitizer"
  export RUSTC_BOOTSTRAP=1
  build_opts=(--sanitizer none)
fi
if [ -n "${FUZZ_SANITIZER:-}" ]; then
  build_opts=(--sanitizer "$FUZZ_SANITIZER")
fi
# FUZZ_TRACE_COMPARES=0 leaves out libFuzzer's comparison tracing: about 2.5 times the
# executions per second (it was two thirds of the CPU time), for coarser guidance.
target_name="${build_opts[1]:-address}"
if [ "${FUZZ_TRACE_COMPARES:-1}" = 0 ]; then
  build_opts+=(--no-trace-compares)
  target_name="$target_name-notc"
fi
# One target directory per build flavour: switching would rebuild every dependency.
build_opts+=(--target-dir "fuzz/target/$target_name")
echo "fuzz: cargo ${toolchain[*]:-} fuzz ${build_opts[*]} ($(rustc "${toolchain[@]}" --version))"

# cargo-fuzz builds release with debug assertions and overflow checks on.
cargo "${toolchain[@]}" fuzz build --fuzz-dir fuzz "${build_opts[@]}"
# cargo-fuzz has no --locked: in CI a lock file the build had to change fails the run instead.
if [ -n "${CI:-}" ] && git rev-parse --git-dir >/dev/null 2>&1 && ! git diff --quiet -- fuzz/Cargo.lock; then
  echo "fuzz: fuzz/Cargo.lock is out of date (the build changed it); commit the updated one"
  exit 1
fi

# Seeds: fixture files as they are (check_text, libyaml); config files (config); each fixture folder
# as one multi-file input with `--- file: PATH` lines (workspace); each fixture followed by
# a NUL and edit bytes drawn from its own hash (edits). Big inputs are left out.
python3 - "${targets[@]}" <<'EOF'
import hashlib, pathlib, sys
root = pathlib.Path("fixtures")
corpus = pathlib.Path("fuzz/corpus")
limit = 32 * 1024
yamls = sorted(p for p in root.rglob("*") if p.is_file() and p.suffix in (".yaml", ".yml"))
configs = [p for p in yamls if p.name == ".policylens.yaml"]
manifests = [p for p in yamls if p.name != ".policylens.yaml"]

def write(target, data):
    if len(data) > limit:
        return
    d = corpus / target
    d.mkdir(parents=True, exist_ok=True)
    (d / ("seed-" + hashlib.sha1(data).hexdigest())).write_bytes(data)

for target in sys.argv[1:]:
    if target in ("check_text", "libyaml"):
        for p in manifests:
            write(target, p.read_bytes())
    elif target == "config":
        for p in configs:
            write(target, p.read_bytes())
    elif target == "workspace":
        for folder in sorted({p.parent for p in yamls}):
            files = sorted(p for p in yamls if folder in p.parents or p.parent == folder)
            data = b"".join(b"--- file: " + str(p.relative_to(folder)).encode() + b"\n" + p.read_bytes() for p in files)
            write(target, data)
    elif target == "edits":
        for p in manifests:
            data = p.read_bytes()
            write(target, data + b"\0" + hashlib.sha256(data).digest() * 2)
EOF

mkdir -p fuzz/logs
total=0
failed=0
for t in "${targets[@]}"; do
  log="fuzz/logs/$t.log"
  mkdir -p "fuzz/corpus/$t" "fuzz/artifacts/$t"
  fork=()
  [ -n "${FUZZ_FORK:-}" ] && fork=("-fork=$FUZZ_FORK" -ignore_crashes=0 -ignore_timeouts=0 -ignore_ooms=0)
  set +e
  # shellcheck disable=SC2086
  cargo "${toolchain[@]}" fuzz run --fuzz-dir fuzz "${build_opts[@]}" "$t" "fuzz/corpus/$t" -- \
    -max_total_time="$seconds" -timeout="${FUZZ_TIMEOUT:-1}" -rss_limit_mb=2048 -print_final_stats=1 \
    "${fork[@]}" ${FUZZ_ARGS:-} >"$log" 2>&1
  code=$?
  set -e
  # The final count: `stat::number_of_executed_units` (one process), or the last `#N` status
  # line (-fork prints one per merge), or `Done N runs`.
  runs=$(grep -oE 'stat::number_of_executed_units: *[0-9]+' "$log" | tail -1 | grep -oE '[0-9]+$' || true)
  [ -n "$runs" ] || runs=$(grep -oE '^#[0-9]+' "$log" | tail -1 | tr -d '#' || true)
  [ -n "$runs" ] || runs=$(grep -oE 'Done [0-9]+ runs' "$log" | tail -1 | grep -oE '[0-9]+' || true)
  runs=${runs:-0}
  total=$((total + runs))
  if [ "$code" -ne 0 ]; then
    failed=1
    echo "fuzz: $t FAILED (exit $code) after $runs executions; log: $log"
    grep -E 'panicked at|ERROR: libFuzzer|ERROR: AddressSanitizer|SUMMARY' "$log" | head -5 || true
    for a in $(grep -aoE 'Test unit written to [^ ]+' "$log" | awk '{print $NF}' | sort -u); do
      echo "fuzz:   input: $a"
      # libFuzzer's timeout is wall-clock: on a loaded machine, say how much CPU it really takes.
      case "$a" in
        */timeout-*)
          bin="fuzz/target/$target_name/x86_64-unknown-linux-gnu/release/$t"
          if [ -x /usr/bin/time ] && [ -x "$bin" ]; then
            /usr/bin/time -o "$log.time" -f '%U user, %S sys' "$bin" "$a" -runs=5 >/dev/null 2>&1 || true
            echo "fuzz:   CPU seconds for 5 runs of it alone: $(tail -1 "$log.time")"
          fi
          ;;
      esac
    done
  else
    echo "fuzz: $t ok: $runs executions in ${seconds}s"
  fi
done
echo "fuzz: total $total executions"
exit "$failed"
