#!/bin/sh
# sized_run.sh NP COMMAND...: run COMMAND (a job of NP PEs), unless
# SYMHEAP_TEST_PES (a comma-separated list of job sizes, as the Criterion
# tests read it: tests/lib/harness.h) is set and does not list NP; then report
# the test skipped (meson's status 77), never passed.
np=$1
shift
if [ -n "${SYMHEAP_TEST_PES-}" ]; then
    case ",$SYMHEAP_TEST_PES," in
    *",$np,"*) ;;
    *)
        echo "SKIP: SYMHEAP_TEST_PES=$SYMHEAP_TEST_PES leaves jobs of $np PEs out"
        exit 77
        ;;
    esac
fi
exec "$@"
