#!/bin/sh
# osu_ofi_compare.sh - OSU-style put/get latency of the shmem.h facade over
# libfabric next to the raw-libfabric baseline, interleaved in one run
# (raw, facade, raw, facade, ...), 2 PEs on this host.
#
#   bench/osu_ofi_compare.sh [build-dir] [rounds] [iterations] [max-size]
#
# The provider is SYMHEAP_OFI_PROVIDER (default tcp;ofi_rxm).  bench_ofi_raw
# prints put_lat/get_lat per size (its target polls with fi_cq_read);
# bench_shmem_osu prints put/get per size with its target in
# shmem_barrier_all, as OSU's osu_oshm_put/osu_oshm_get have it.
# CHRT=1 runs each program as `chrt -f 10` (SCHED_FIFO): on a host loaded by
# other work both sides' latencies are otherwise its scheduling noise.
set -e
B=${1:-build}
R=${2:-3}
N=${3:-2000}
M=${4:-65536}
P=${SYMHEAP_OFI_PROVIDER:-tcp;ofi_rxm}
RT=""
[ "${CHRT:-0}" = 1 ] && RT="chrt -f 10"
i=1
while [ "$i" -le "$R" ]; do
    echo "== round $i: raw ($P)"
    timeout -s KILL 120 $RT "$B/bench/bench_ofi_raw" "$P" "$M"
    echo "== round $i: shmem.h facade, symrun -n 2, SYMHEAP_TRANSPORT=ofi ($P)"
    SYMHEAP_TRANSPORT=ofi SYMHEAP_OFI_PROVIDER="$P" timeout -s KILL 300 \
        $RT "$B/symrun" -n 2 "$B/bench/bench_shmem_osu" "$N" "$M"
    i=$((i + 1))
done
