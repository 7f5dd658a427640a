#!/bin/sh
# run_foundation.sh - run the foundation benchmarks and keep their output.
#
#   bench/run_foundation.sh [-b BUILD_DIR] [-o REPORT_DIR] [-- extra program options]
#
# Runs bench_rma, bench_amo and bench_pingpong at 2 PEs and bench_barrier at
# 2, 4 and 8 PEs.  For each run REPORT_DIR gets NAME-NPES.txt (the table
# output) and NAME-NPES.json (--json); machine.txt records the host.  Extra
# options after -- go to every program (e.g. -- --repeats 5).
# Exit status: 0 if every program ran and verified its data, else 1.
set -u

here=$(cd "$(dirname "$0")" && pwd)
build="$here/../build"
report=""
while [ $# -gt 0 ]; do
    case "$1" in
    -b) build=$2; shift 2 ;;
    -o) report=$2; shift 2 ;;
    --) shift; break ;;
    -h|--help) sed -n '2,11p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "run_foundation.sh: unknown argument '$1' (try --help)" >&2; exit 2 ;;
    esac
done
[ -n "$report" ] || report="$here/../report/foundation-$(date -u +%Y%m%dT%H%M%SZ)"
symrun="$build/symrun"
for f in "$symrun" "$build/bench/bench_rma" "$build/bench/bench_barrier"; do
    if [ ! -x "$f" ]; then
        echo "run_foundation.sh: $f not found; build first (meson setup $build && ninja -C $build)" >&2
        exit 2
    fi
done
mkdir -p "$report" || exit 2

{
    echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
    echo "nproc: $(nproc)"
    echo "cpu: $(lscpu | sed -n 's/^Model name:[[:space:]]*//p')"
    echo "kernel: $(uname -srm)"
    echo "clocksource: $(cat /sys/devices/system/clocksource/clocksource0/current_clocksource 2>/dev/null)"
    echo "loadavg: $(cat /proc/loadavg)"
    echo "source: $(git -C "$here/.." rev-parse --short HEAD 2>/dev/null)" \
        "+ $(git -C "$here/.." status --short -- src transports include 2>/dev/null | wc -l)" \
        "uncommitted library file(s)"
    echo "build: $build, buildtype $(meson introspect --buildoptions "$build" 2>/dev/null |
        python3 -c 'import json,sys; print(next(o["value"] for o in json.load(sys.stdin) if o["name"] == "buildtype"))' 2>/dev/null)"
} > "$report/machine.txt"

status=0
run() {
    name=$1 n=$2
    shift 2
    echo "== symrun -n $n $name $*"
    # The symrun timeout only guards against a hang; a run takes seconds.
    "$symrun" --timeout 120 -n "$n" "$build/bench/$name" --json "$report/$name-$n.json" "$@" \
        > "$report/$name-$n.txt" 2> "$report/$name-$n.err"
    rc=$?
    sed -n '/^# targets/,$p' "$report/$name-$n.txt"
    if [ $rc -ne 0 ]; then
        echo "!! $name at $n PEs exited with status $rc (see $report/$name-$n.err)"
        status=1
    fi
}

start=$(date +%s)
run bench_rma 2 "$@"
run bench_amo 2 "$@"
run bench_pingpong 2 "$@"
for n in 2 4 8; do
    run bench_barrier "$n" "$@"
done
echo "== done in $(( $(date +%s) - start )) s; output in $report"
exit $status
