#!/bin/sh
# expect_fail.sh SYMRUN NP PROGRAM MODE PATTERN...: run PROGRAM MODE on NP
# PEs; succeed only if the job fails with status 1 (shmem_global_exit(1))
# and its output contains every PATTERN.
symrun=$1 np=$2 prog=$3 mode=$4
shift 4
out=$("$symrun" -np "$np" "$prog" "$mode" 2>&1)
rc=$?
echo "$out"
if [ "$rc" -ne 1 ]; then
    echo "expect_fail: job exit status $rc, expected 1"
    exit 1
fi
for pat in "$@"; do
    if ! printf '%s\n' "$out" | grep -q -- "$pat"; then
        echo "expect_fail: output lacks '$pat'"
        exit 1
    fi
done
echo "expect_fail: failed as expected"
