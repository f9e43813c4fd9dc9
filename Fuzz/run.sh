#!/usr/bin/env bash
# Builds the libFuzzer targets for the CSV and JSON readers of ListFormats
# (with AddressSanitizer) and runs each for RUNS iterations (default 1M).
#
#   Fuzz/run.sh                 # build, then run both targets
#   RUNS=100000 Fuzz/run.sh csv # one target, fewer iterations
#   Fuzz/run.sh --build-only
#   Fuzz/run.sh --typecheck     # seconds: against the modules of `swift build` (scripts/test runs it)
#
# ListDiff and ListFormats (and its C targets) are compiled from Sources/ with
# the same instrumentation as the fuzz targets, straight with swiftc and clang
# (a SwiftPM product would need a main function in normal builds). Crashes are saved under
# Fuzz/crashes/ as <target>-crash-<sha1>; rerun one with
#   Fuzz/.build/fuzz-csv Fuzz/crashes/csv-crash-<sha1>
# Runs are not part of CI; `--typecheck` is, so the targets keep compiling as ListFormats changes.
set -euo pipefail

fuzz_dir=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$fuzz_dir")
build="$fuzz_dir/.build"
runs=${RUNS:-1000000}
# -Onone: optimized (-O), every input crashes in the Swift 6.3.1 runtime (swift_getWitnessTable on
# null metadata for ListDiff's SectionedDifferenceStorage), with or without the sanitizers
# (docs/FUZZING.md).
flags=(-Onone -g -sanitize=fuzzer,address -parse-as-library -swift-version 6 -use-ld=lld)

targets=()
build_only=no
typecheck=no
for argument in "$@"; do
    case "$argument" in
        --build-only) build_only=yes ;;
        --typecheck) typecheck=yes ;;
        csv | json) targets+=("$argument") ;;
        *) echo "usage: $0 [--build-only | --typecheck] [csv] [json]" >&2; exit 2 ;;
    esac
done
[ ${#targets[@]} -gt 0 ] || targets=(csv json)

entry_of() {
    case "$1" in
        csv) echo CSVReaderFuzzer.swift ;;
        json) echo JSONReaderFuzzer.swift ;;
    esac
}

mkdir -p "$build"
cd "$build"

# ListFormats' C targets (SwiftPM layout: sources, and headers in include/) are imported
# through a module map.
module_paths=(-I . -I "$root/Sources/CXXHash")
c_targets=()
for c_target in CListFormatsScan; do
    c_dir="$root/Sources/$c_target"
    [ -d "$c_dir" ] || continue
    c_targets+=("$c_target")
    mkdir -p "$c_target"
    printf 'module %s {\n    umbrella header "%s"\n    export *\n}\n' \
        "$c_target" "$c_dir/include/$c_target.h" >"$c_target/module.modulemap"
    module_paths+=(-I "$build/$c_target")
done

if [ "$typecheck" = yes ]; then
    # The targets against the modules `swift build` made: no instrumentation, no libFuzzer.
    modules="$root/.build/debug/Modules"
    [ -d "$modules" ] || { echo "fuzz: $modules is missing: run swift build first" >&2; exit 2; }
    for target in "${targets[@]}"; do
        echo "fuzz: type-checking fuzz-$target" >&2
        swiftc -typecheck -parse-as-library -swift-version 6 -module-name Fuzz -I "$modules" "${module_paths[@]}" \
            "$fuzz_dir/Sources/ReaderCheck.swift" "$fuzz_dir/Sources/$(entry_of "$target")"
    done
    exit 0
fi

echo "fuzz: building ListDiff and ListFormats (instrumented)" >&2
# The C targets are compiled with the same instrumentation as the Swift ones.
c_objects=()
for c_target in "${c_targets[@]}"; do
    c_dir="$root/Sources/$c_target"
    for source in "$c_dir"/*.c; do
        object="$c_target/$(basename "$source" .c).o"
        clang -O2 -g -fsanitize=fuzzer-no-link,address -I "$c_dir/include" -c "$source" -o "$object"
        c_objects+=("$build/$object")
    done
done
swiftc "${flags[@]}" -module-name ListDiff -emit-module -emit-library -static \
    -emit-module-path ListDiff.swiftmodule -o libListDiff.a \
    $(find "$root/Sources/ListDiff" -name '*.swift' | sort)
swiftc "${flags[@]}" -module-name ListFormats -emit-module -emit-library -static \
    "${module_paths[@]}" -emit-module-path ListFormats.swiftmodule -o libListFormats.a \
    $(find "$root/Sources/ListFormats" -name '*.swift' | sort)

for target in "${targets[@]}"; do
    echo "fuzz: building fuzz-$target" >&2
    swiftc "${flags[@]}" -module-name Fuzz "${module_paths[@]}" \
        "$fuzz_dir/Sources/ReaderCheck.swift" "$fuzz_dir/Sources/$(entry_of "$target")" \
        libListFormats.a libListDiff.a "${c_objects[@]}" -o "fuzz-$target"
done
[ "$build_only" = yes ] && exit 0

mkdir -p "$fuzz_dir/crashes"
# libFuzzer reports crashes itself; Swift's backtracer would only add noise (and ASan reports about itself).
export SWIFT_BACKTRACE=enable=no
status=0
for target in "${targets[@]}"; do
    # A working corpus, seeded from the committed one, so the seeds stay small.
    corpus="$build/corpus-$target"
    mkdir -p "$corpus"
    cp -n "$fuzz_dir/corpus/$target"/* "$corpus"/ 2>/dev/null || true
    echo "fuzz: running fuzz-$target for $runs iterations (log: $build/fuzz-$target.log)" >&2
    start=$(date +%s)
    set +e
    "./fuzz-$target" -runs="$runs" -max_len=4096 -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
        -dict="$fuzz_dir/$target.dict" -artifact_prefix="$fuzz_dir/crashes/$target-" \
        "$corpus" >"$build/fuzz-$target.log" 2>&1
    result=$?
    set -e
    grep -E '^(Done |stat::|SUMMARY|==[0-9]+==ERROR|artifact_prefix|Test unit written)|Fatal error|Precondition failed' \
        "$build/fuzz-$target.log" | head -n 30 || true
    echo "fuzz: fuzz-$target exited $result after $(( $(date +%s) - start )) s" >&2
    [ "$result" -eq 0 ] || status=1
done
exit $status
