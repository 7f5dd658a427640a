/*
 * shmem_direct.c - broadcast, collect, fcollect, alltoall and alltoalls,
 * whose symmetric dest and source the native direct algorithm reads where
 * they lie, with the algorithm left automatic, forced to direct at every
 * size, and forced onto the mailboxes (SYMHEAP_*_ALGORITHM, set by
 * tests/shmem/meson.build): sizes 0, 1, odd, not divisible by the team
 * size and megabytes; on the world team and a reversed strided team; the
 * active-set forms; calls back to back, each PE checking and refilling its
 * dest right after a call returns while the others already enter the next
 * one (a peer's write for the next call would show up in this one's
 * check); mismatched calls (another nelems, another routine, one PE with a
 * small size) that must fail on every PE, with no peer's data in dest and
 * nothing written after it.
 */
#include <sched.h>
#include <stdbool.h>
#include <stdint.h>

#include "check.h"

#define FILL  0xEE
#define GUARD 256

static int me, npes;
static unsigned char *src, *dst; /* symmetric, `room` bytes each */
static size_t room;
static unsigned salt;

static unsigned char val(int pe, size_t i, unsigned s)
{
    return (unsigned char)(pe * 131u + i * 7u + (i >> 8) * 3u + s * 29u + 1u);
}

/* Slow on purpose: yields every few KiB so a peer that ran ahead into the
 * next call (without an entry handshake) would overwrite dest meanwhile. */
static void expect(const unsigned char *got, unsigned char want, const char *what, size_t at)
{
    if (at % 4096 == 0)
        sched_yield();
    CHECKF(*got == want, "%s: byte %zu is 0x%02x, expected 0x%02x (salt %u)", what, at, *got, want,
           salt);
}

static void refill(size_t len)
{
    CHECK(len + GUARD <= room);
    memset(dst, FILL, len + GUARD);
}

static void guard(size_t from, const char *what)
{
    for (size_t i = from; i < from + GUARD; i++)
        expect(dst + i, FILL, what, i);
}

static void one_fcollect(shmem_team_t team, size_t nb)
{
    int n = shmem_team_n_pes(team), t = shmem_team_my_pe(team);
    salt++;
    for (size_t i = 0; i < nb; i++)
        src[i] = val(t, i, salt);
    CHECK(shmem_fcollectmem(team, dst, src, nb) == 0);
    for (int k = 0; k < n; k++)
        for (size_t i = 0; i < nb; i++)
            expect(dst + (size_t)k * nb + i, val(k, i, salt), "fcollect", (size_t)k * nb + i);
    guard((size_t)n * nb, "fcollect guard");
    refill((size_t)n * nb);
}

static size_t collect_count(int k, size_t nb)
{
    return nb + (size_t)(k % 3) * 5;
}

static void one_collect(shmem_team_t team, size_t nb)
{
    int n = shmem_team_n_pes(team), t = shmem_team_my_pe(team);
    salt++;
    size_t mine = collect_count(t, nb);
    for (size_t i = 0; i < mine; i++)
        src[i] = val(t, i, salt);
    CHECK(shmem_collectmem(team, dst, src, mine) == 0);
    size_t at = 0;
    for (int k = 0; k < n; at += collect_count(k, nb), k++)
        for (size_t i = 0; i < collect_count(k, nb); i++)
            expect(dst + at + i, val(k, i, salt), "collect", at + i);
    guard(at, "collect guard");
    refill(at);
}

static void one_alltoall(shmem_team_t team, size_t nb)
{
    int n = shmem_team_n_pes(team), t = shmem_team_my_pe(team);
    salt++;
    for (size_t i = 0; i < (size_t)n * nb; i++)
        src[i] = val(t, i, salt);
    CHECK(shmem_alltoallmem(team, dst, src, nb) == 0);
    for (int k = 0; k < n; k++)
        for (size_t i = 0; i < nb; i++)
            expect(dst + (size_t)k * nb + i, val(k, (size_t)t * nb + i, salt), "alltoall",
                   (size_t)k * nb + i);
    guard((size_t)n * nb, "alltoall guard");
    refill((size_t)n * nb);
}

/* 32-bit elements, dest stride 2, source stride 3: the skipped elements of
 * dest must keep their fill. */
static void one_alltoalls(shmem_team_t team, size_t ne)
{
    int n = shmem_team_n_pes(team), t = shmem_team_my_pe(team);
    salt++;
    uint32_t *s = (uint32_t *)src, *d = (uint32_t *)dst;
    size_t total = (size_t)n * ne;
    CHECK(total * 3 * 4 <= room);
    for (size_t e = 0; e < total * 3; e++)
        s[e] = (uint32_t)e * 2654435761u + (uint32_t)t * 97u + salt;
    CHECK(shmem_uint32_alltoalls(team, d, s, 2, 3, ne) == 0);
    uint32_t fill;
    memset(&fill, FILL, sizeof fill);
    for (int k = 0; k < n; k++)
        for (size_t e = 0; e < ne; e++) {
            size_t se = ((size_t)t * ne + e) * 3, de = ((size_t)k * ne + e) * 2;
            uint32_t want = (uint32_t)se * 2654435761u + (uint32_t)k * 97u + salt;
            CHECKF(d[de] == want, "alltoalls from %d element %zu: %u != %u (salt %u)", k, e, d[de],
                   want, salt);
            CHECKF(d[de + 1] == fill, "alltoalls gap %zu written", de + 1);
            if (e % 1024 == 0)
                sched_yield();
        }
    size_t end = total ? (total * 2 - 1) * 4 : 0;
    guard(end, "alltoalls guard");
    refill(end);
}

static void one_broadcast(shmem_team_t team, size_t nb)
{
    int n = shmem_team_n_pes(team), t = shmem_team_my_pe(team);
    salt++;
    int root = (int)(salt % (unsigned)n);
    for (size_t i = 0; i < nb; i++)
        src[i] = val(t, i, salt);
    CHECK(shmem_broadcastmem(team, dst, src, nb, root) == 0);
    for (size_t i = 0; i < nb; i++)
        expect(dst + i, val(root, i, salt), "broadcast", i);
    guard(nb, "broadcast guard");
    refill(nb);
}

static void all_routines(shmem_team_t team)
{
    int n = shmem_team_n_pes(team);
    /* per-PE block sizes: empty, tiny, odd, either side of 16 KiB of dest,
     * more than a mailbox slot (256 KiB chunks), megabytes (fewer on big
     * teams, for the test's time) */
    const size_t sizes[] = {0,
                            1,
                            7,
                            1001,
                            16384 / (size_t)n - 1,
                            16384 / (size_t)n + 3,
                            70001,
                            n <= 4 ? (1u << 20) + 13 : 300001};
    memset(dst, FILL, room);
    salt = 0; /* the same on every member (other phases ran on other sets) */
    for (size_t z = 0; z < sizeof sizes / sizeof *sizes; z++) {
        size_t nb = sizes[z];
        for (int rep = 0; rep < 2; rep++) { /* back to back, same dest */
            one_fcollect(team, nb);
            one_collect(team, nb);
            one_alltoall(team, nb);
            one_broadcast(team, nb);
            one_alltoalls(team, nb / 16);
        }
    }
    CHECK(shmem_team_sync(team) == 0);
}

/* Active-set forms (64-bit), pSync arrays used alternately. */
static long psync[2][SHMEM_ALLTOALL_SYNC_SIZE > SHMEM_COLLECT_SYNC_SIZE ? SHMEM_ALLTOALL_SYNC_SIZE
                                                                        : SHMEM_COLLECT_SYNC_SIZE];

static void active_forms(int start, int log_stride, int size)
{
    int stride = 1 << log_stride;
    if (me < start || (me - start) % stride || (me - start) / stride >= size)
        return;
    int t = (me - start) / stride, which = 0;
    salt = 5000;
    uint64_t *s = (uint64_t *)src, *d = (uint64_t *)dst;
    const size_t counts[] = {0, 1, 3, 2049, 40000};
    for (size_t z = 0; z < sizeof counts / sizeof *counts; z++) {
        size_t ne = counts[z];
        CHECK(((size_t)size * ne + (size_t)size) * 8 + GUARD <= room);
        for (int rep = 0; rep < 2; rep++) {
            salt++;
            for (size_t e = 0; e < (size_t)size * ne + (size_t)size; e++)
                s[e] = e * 1000003u + (uint64_t)t * 7919u + salt;
            shmem_fcollect64(d, s, ne, start, log_stride, size, psync[which ^= 1]);
            for (int k = 0; k < size; k++)
                for (size_t e = 0; e < ne; e++)
                    CHECKF(d[(size_t)k * ne + e] == e * 1000003u + (uint64_t)k * 7919u + salt,
                           "fcollect64 %d %zu", k, e);
            shmem_alltoall64(d, s, ne, start, log_stride, size, psync[which ^= 1]);
            for (int k = 0; k < size; k++)
                for (size_t e = 0; e < ne; e++)
                    CHECKF(d[(size_t)k * ne + e] ==
                               ((size_t)t * ne + e) * 1000003u + (uint64_t)k * 7919u + salt,
                           "alltoall64 %d %zu", k, e);
            int root = (int)(salt % (unsigned)size);
            shmem_broadcast64(d, s, ne, root, start, log_stride, size, psync[which ^= 1]);
            if (t != root) /* the root's dest is not written */
                for (size_t e = 0; e < ne; e++)
                    CHECKF(d[e] == e * 1000003u + (uint64_t)root * 7919u + salt, "broadcast64 %zu",
                           e);
            shmem_collect64(d, s, ne + (size_t)t, start, log_stride, size, psync[which ^= 1]);
            size_t at = 0;
            for (int k = 0; k < size; at += ne + (size_t)k, k++)
                for (size_t e = 0; e < ne + (size_t)k; e++)
                    CHECKF(d[at + e] == e * 1000003u + (uint64_t)k * 7919u + salt,
                           "collect64 %d %zu: %llu (ne %zu)", k, e, (unsigned long long)d[at + e],
                           ne);
        }
    }
}

/* Mismatches on a fresh duplicate of the world team: every PE must fail
 * and nothing may be written into dest or beyond it. */
enum mm_kind { MM_NELEMS, MM_ROUTINE, MM_BELOW, MM_ROOT };

static void mismatch(enum mm_kind kind)
{
    shmem_team_t dup;
    CHECK(shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, npes, NULL, 0, &dup) == 0);
    size_t nb = 65536, whole = (size_t)npes * (nb + 100) + GUARD;
    CHECK(whole <= room);
    memset(dst, FILL, whole);
    memset(src, 0x11 + me, whole);
    bool odd = me == npes - 1;
    int rc;
    switch (kind) {
    case MM_NELEMS:
        rc = shmem_fcollectmem(dup, dst, src, odd ? nb + 100 : nb);
        break;
    case MM_ROUTINE:
        rc = odd ? shmem_alltoallmem(dup, dst, src, nb) : shmem_fcollectmem(dup, dst, src, nb);
        break;
    case MM_BELOW: /* one PE on the mailbox path */
        rc = shmem_alltoallmem(dup, dst, src, odd ? 8 : nb);
        break;
    default:
        rc = shmem_broadcastmem(dup, dst, src, nb, odd ? 0 : npes - 1);
        break;
    }
    CHECKF(rc != 0, "mismatch kind %d returned success", (int)kind);
    /* The direct algorithm checks every member's announcement before it
     * reads anything, so it writes nothing into dest on a mismatch; on the
     * mailboxes (or where the automatic choice takes them) members that
     * agree may have moved blocks between them, inside dest only.  Nothing
     * past the largest dest in any case. */
    const char *algo = getenv("SYMHEAP_ALL_TO_ALL_ALGORITHM");
    bool mailbox = !algo || strcmp(algo, "direct") != 0;
    for (size_t i = 0; i < whole; i++) {
        unsigned char b = dst[i];
        bool inside = i < whole - GUARD, from_pe = b >= 0x11 && b < 0x11 + npes;
        CHECKF(b == FILL || (inside && mailbox && from_pe),
               "mismatch kind %d: byte %zu of dest is 0x%02x", (int)kind, i, b);
    }
    shmem_team_destroy(dup);
    shmem_barrier_all();
}

int main(void)
{
    shmem_init();
    me = shmem_my_pe();
    npes = shmem_n_pes();
    room = (size_t)npes * ((1u << 20) + 64) + 2 * GUARD + 65536;
    src = shmem_malloc(room);
    dst = shmem_malloc(room);
    CHECK(src && dst);
    for (size_t i = 0; i < SHMEM_ALLTOALL_SYNC_SIZE; i++)
        psync[0][i] = psync[1][i] = SHMEM_SYNC_VALUE;
    shmem_barrier_all();

    all_routines(SHMEM_TEAM_WORLD);
    /* every other PE from the last one down: team numbers reversed */
    shmem_team_t odd;
    int size = (npes + 1) / 2;
    CHECK(shmem_team_split_strided(SHMEM_TEAM_WORLD, npes - 1, -2, size, NULL, 0, &odd) == 0);
    if (odd != SHMEM_TEAM_INVALID) {
        all_routines(odd);
        shmem_team_destroy(odd);
    }
    shmem_barrier_all();
    active_forms(0, 0, npes);
    shmem_barrier_all();
    active_forms(npes > 1 ? 1 : 0, 1, npes / 2 > 0 ? npes / 2 : 1);
    shmem_barrier_all();
    if (npes > 1)
        for (int k = MM_NELEMS; k <= MM_ROOT; k++)
            mismatch((enum mm_kind)k);
    /* the world team still works after the failures */
    all_routines(SHMEM_TEAM_WORLD);

    shmem_free(src);
    shmem_free(dst);
    if (me == 0)
        printf("shmem_direct: %d PEs ok\n", npes);
    shmem_finalize();
    return 0;
}
