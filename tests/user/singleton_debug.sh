#!/bin/sh
# singleton_debug.sh PROGRAM: a program started alone is PE 0 of 1, and
# under SYMHEAP_DEBUG=1 one line on stderr says so, with the transports.
set -u
prog=$1
err=$(env -u SYMHEAP_SYMRUN_FD SYMHEAP_DEBUG=1 "$prog" 2>&1 >/dev/null) || {
    echo "FAILED: $prog alone exited non-zero:"
    echo "$err"
    exit 1
}
line=$(echo "$err" | grep "initialised: PE 0 of 1") || {
    echo "FAILED: no init line under SYMHEAP_DEBUG=1:"
    echo "$err"
    exit 1
}
echo "$line"
for want in "singleton bootstrap (a job of one PE" "transports: shm to 1 PE"; do
    case $line in
    *"$want"*) ;;
    *)
        echo "FAILED: the init line does not say '$want'"
        exit 1
        ;;
    esac
done
