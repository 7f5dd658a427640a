/*
 * hello.c - the first symheap program: every PE writes its number into its
 * right neighbour's symmetric heap, and checks what its left neighbour
 * wrote into its own.
 *
 *   symcc hello.c -o hello          (or: cc hello.c $(pkg-config --cflags --libs symheap))
 *   symrun -n 4 ./hello
 */
#include <stdio.h>

#include <symheap.h>

int main(void)
{
    /* Every call returns a status: SYM_OK, or an error whose detail
     * sym_last_error() gives ("sym_init: environment variable ..."). */
    if (sym_init() != SYM_OK) {
        fprintf(stderr, "sym_init failed: %s\n", sym_last_error());
        return 1;
    }
    int me = sym_my_pe(), n = sym_n_pes();

    /* Symmetric: every PE gets an object at the same offset of its heap
     * (the addresses differ), so this PE's `box` names the box of any PE. */
    long *box = sym_malloc(sizeof(long));
    if (!box) {
        fprintf(stderr, "PE %d: sym_malloc failed: %s\n", me, sym_last_error());
        return 1;
    }
    long mine = me;
    sym_status_t st = sym_put(box, &mine, sizeof(mine), (me + 1) % n); /* right neighbour's box */
    if (st == SYM_OK)
        st = sym_barrier_all(); /* every put is complete and visible after it */
    if (st != SYM_OK) {
        fprintf(stderr, "PE %d: %s\n", me, sym_last_error());
        return 1;
    }
    int ok = *box == (me + n - 1) % n; /* the left neighbour's number */
    printf("PE %d of %d: got %ld from PE %d%s\n", me, n, *box, (me + n - 1) % n,
           ok ? "" : " (WRONG)");
    sym_free(box);
    st = sym_finalize();
    if (st != SYM_OK)
        fprintf(stderr, "PE %d: sym_finalize: %s\n", me, sym_last_error());
    return ok && st == SYM_OK ? 0 : 1;
}
