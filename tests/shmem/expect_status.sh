#!/bin/sh
# expect_status.sh STATUS COMMAND...: run COMMAND; succeed only if it exits
# with STATUS.
want=$1
shift
"$@"
rc=$?
if [ "$rc" -ne "$want" ]; then
    echo "expect_status: exit status $rc, expected $want"
    exit 1
fi
echo "expect_status: exited with $want as expected"
