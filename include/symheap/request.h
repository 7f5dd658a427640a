/*
 * symheap/request.h - non-blocking collectives (sym_i<collective>) and the requests
 * that sym_wait() and sym_test() complete.
 *
 * Part of the public API: programs include <symheap.h>, which includes
 * every part and states the conventions all of them follow (status codes,
 * symmetric addresses, initialisation, deadlines, thread safety).
 */
#ifndef SYMHEAP_REQUEST_H
#define SYMHEAP_REQUEST_H

#include <stddef.h>
#include "status.h"
#include "team.h"
#include "coll.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------------ */
/* Non-blocking collectives                                                  */
/* ------------------------------------------------------------------------ */
/*
 * sym_i<collective> starts the collective and returns a request at once;
 * sym_wait() or sym_test() completes it.  Results are those of the blocking
 * call with the same arguments.  Buffers (and the counts arrays, which are
 * copied) must stay valid and untouched until completion.  Progress is made
 * inside library calls that wait (sym_wait, sym_test, blocking collectives,
 * barriers): there is no helper thread.  Several requests may be in flight
 * on different teams; on one team they run in issue order, and a blocking
 * collective on a team first completes that team's pending requests.
 * Argument errors of the collective are reported by sym_wait/sym_test;
 * a bad team or a NULL req_p fails the call itself (SYM_ERR_INVALID_ARG),
 * and *req_p is SYM_REQUEST_NULL after any failure.
 */
typedef struct sym_request *sym_request_t;
#define SYM_REQUEST_NULL ((sym_request_t)0)

/* Complete the request, free it and set *req_p to SYM_REQUEST_NULL;
 * returns the collective's status (its message in sym_last_error()). */
SYM_API SYM_NODISCARD sym_status_t sym_wait(sym_request_t *req_p);

/* Make progress; *done_p = 1 and the request is completed as by sym_wait()
 * (status returned) if it has finished, else *done_p = 0 and SYM_OK. */
SYM_API SYM_NODISCARD sym_status_t sym_test(sym_request_t *req_p, int *done_p);

/* The collective's name ("allreduce"), or "invalid". */
SYM_API const char *sym_request_op(sym_request_t req);

SYM_API SYM_NODISCARD sym_status_t sym_ibarrier(sym_team_t team, const sym_coll_opts_t *opts,
                                                sym_request_t *req_p);
SYM_API SYM_NODISCARD sym_status_t sym_ibroadcast(sym_team_t team, void *buf, size_t count,
                                                  sym_datatype_t dt, int root,
                                                  const sym_coll_opts_t *opts,
                                                  sym_request_t *req_p);
SYM_API SYM_NODISCARD sym_status_t sym_ireduce(sym_team_t team, void *dst, const void *src,
                                               size_t count, sym_datatype_t dt, sym_op_t op,
                                               int root, const sym_coll_opts_t *opts,
                                               sym_request_t *req_p);
SYM_API SYM_NODISCARD sym_status_t sym_iallreduce(sym_team_t team, void *dst, const void *src,
                                                  size_t count, sym_datatype_t dt, sym_op_t op,
                                                  const sym_coll_opts_t *opts,
                                                  sym_request_t *req_p);
SYM_API SYM_NODISCARD sym_status_t sym_ireduce_scatter(sym_team_t team, void *dst, const void *src,
                                                       size_t count, sym_datatype_t dt, sym_op_t op,
                                                       const sym_coll_opts_t *opts,
                                                       sym_request_t *req_p);
SYM_API SYM_NODISCARD sym_status_t sym_iall_gather(sym_team_t team, void *dst, const void *src,
                                                   size_t count, sym_datatype_t dt,
                                                   const sym_coll_opts_t *opts,
                                                   sym_request_t *req_p);
SYM_API SYM_NODISCARD sym_status_t sym_iall_gatherv(sym_team_t team, void *dst, const void *src,
                                                    const size_t *counts, sym_datatype_t dt,
                                                    const sym_coll_opts_t *opts,
                                                    sym_request_t *req_p);
SYM_API SYM_NODISCARD sym_status_t sym_iall_to_all(sym_team_t team, void *dst, const void *src,
                                                   size_t count, sym_datatype_t dt,
                                                   const sym_coll_opts_t *opts,
                                                   sym_request_t *req_p);
SYM_API SYM_NODISCARD sym_status_t sym_iall_to_allv(sym_team_t team, const void *src,
                                                    const size_t *send_counts, void *dst,
                                                    const size_t *recv_counts, sym_datatype_t dt,
                                                    const sym_coll_opts_t *opts,
                                                    sym_request_t *req_p);
SYM_API SYM_NODISCARD sym_status_t sym_igather(sym_team_t team, void *dst, const void *src,
                                               size_t count, sym_datatype_t dt, int root,
                                               const sym_coll_opts_t *opts, sym_request_t *req_p);
SYM_API SYM_NODISCARD sym_status_t sym_iscatter(sym_team_t team, void *dst, const void *src,
                                                size_t count, sym_datatype_t dt, int root,
                                                const sym_coll_opts_t *opts, sym_request_t *req_p);
/* *nbytes_p is read (at the root) and written (elsewhere) when the request
 * runs: it stays valid until completion, as the buffer does. */
SYM_API SYM_NODISCARD sym_status_t sym_ibroadcast_v(sym_team_t team, void *buf, size_t capacity,
                                                    size_t *nbytes_p, int root,
                                                    const sym_coll_opts_t *opts,
                                                    sym_request_t *req_p);

#ifdef __cplusplus
}
#endif

#endif /* SYMHEAP_REQUEST_H */
