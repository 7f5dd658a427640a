/*
 * symheap/shmem_routines.h - the routines of the OpenSHMEM facade, declared
 * once for shmem.h (shmem_NAME) and once more for pshmem.h (pshmem_NAME, the
 * profiling interface).  Not a header of its own: shmem.h and pshmem.h
 * include it after defining how a routine is named,
 *   SYMSHMEM_FN_(_NAME)   shmem_NAME or pshmem_NAME,
 *   SYMSHMEM_FNX_(NAME)   a deprecated name without the prefix (start_pes):
 *                         itself or pNAME.
 * A name reaches SYMSHMEM_FN_ with a leading underscore already pasted on:
 * no identifier a program may define as a macro ever stands alone in an
 * argument that the preprocessor expands (<complex.h>'s I, <iso646.h>'s
 * and, a program's own N or size), so none can change a declaration here.
 * No include guard: it is read once per prefix.
 */
/* A routine and its context form: shmem_NAME(args) and
 * shmem_ctx_NAME(shmem_ctx_t ctx, args). */
#define SYMSHMEM_DECL_CTX_(ret, _name, ...)                                                        \
    SYMSHMEM_API ret SYMSHMEM_FN_(_name)(__VA_ARGS__);                                             \
    SYMSHMEM_API ret SYMSHMEM_FN_(_ctx##_name)(shmem_ctx_t _ctx, __VA_ARGS__);

/* ------------------------------------------------------------------------ */
/* Setup, exit and query                                                     */
/* ------------------------------------------------------------------------ */

/* Join the job (collective).  A failure prints the reason and exits. */
SYMSHMEM_API void SYMSHMEM_FN_(_init)(void);
/* As shmem_init; *provided = SHMEM_THREAD_MULTIPLE.  Returns 0 or non-zero
 * (the job is not joined) on failure. */
SYMSHMEM_API int SYMSHMEM_FN_(_init_thread)(int _requested, int *_provided);
SYMSHMEM_API void SYMSHMEM_FN_(_query_thread)(int *_provided);
/* Complete everything, synchronise all PEs, release every resource. */
SYMSHMEM_API void SYMSHMEM_FN_(_finalize)(void);
/* End the whole job with `status` (this PE's exit status). */
SYMSHMEM_API void SYMSHMEM_FN_(_global_exit)(int _status) SYMSHMEM_NORETURN;
SYMSHMEM_API int SYMSHMEM_FN_(_my_pe)(void);
SYMSHMEM_API int SYMSHMEM_FN_(_n_pes)(void);
SYMSHMEM_API int SYMSHMEM_FN_(_pe_accessible)(int _pe);
SYMSHMEM_API int SYMSHMEM_FN_(_addr_accessible)(const void *_addr, int _pe);
/* Load/store pointer to `dest` on `pe`, or NULL when not on this host. */
SYMSHMEM_API void *SYMSHMEM_FN_(_ptr)(const void *_dest, int _pe);
/* As shmem_ptr, with `pe` numbered in `team`; NULL as well when `team` is
 * SHMEM_TEAM_INVALID or `pe` is not a member. */
SYMSHMEM_API void *SYMSHMEM_FN_(_team_ptr)(shmem_team_t _team, const void *_dest, int _pe);
SYMSHMEM_API void SYMSHMEM_FN_(_info_get_version)(int *_major, int *_minor);
/* Copies SHMEM_VENDOR_STRING (at most SHMEM_MAX_NAME_LEN bytes with the NUL). */
SYMSHMEM_API void SYMSHMEM_FN_(_info_get_name)(char *_name);
/* Profiling control: accepted, no effect. */
SYMSHMEM_API void SYMSHMEM_FN_(_pcontrol)(const int _level, ...);

/* Deprecated names. */
SYMSHMEM_API void SYMSHMEM_FNX_(start_pes)(int _npes);
SYMSHMEM_API int SYMSHMEM_FNX_(_my_pe)(void);
SYMSHMEM_API int SYMSHMEM_FNX_(_num_pes)(void);
SYMSHMEM_API void SYMSHMEM_FN_(_set_cache_inv)(void);
SYMSHMEM_API void SYMSHMEM_FN_(_set_cache_line_inv)(void *_dest);
SYMSHMEM_API void SYMSHMEM_FN_(_clear_cache_inv)(void);
SYMSHMEM_API void SYMSHMEM_FN_(_clear_cache_line_inv)(void *_dest);
SYMSHMEM_API void SYMSHMEM_FN_(_udcflush)(void);
SYMSHMEM_API void SYMSHMEM_FN_(_udcflush_line)(void *_dest);

/* ------------------------------------------------------------------------ */
/* Memory management (collective; NULL on failure)                           */
/* ------------------------------------------------------------------------ */

SYMSHMEM_API void *SYMSHMEM_FN_(_malloc)(size_t _bytes);
SYMSHMEM_API void *SYMSHMEM_FN_(_malloc_with_hints)(size_t _bytes, long _hints);
SYMSHMEM_API void *SYMSHMEM_FN_(_calloc)(size_t _count, size_t _bytes);
SYMSHMEM_API void *SYMSHMEM_FN_(_align)(size_t _alignment, size_t _bytes);
SYMSHMEM_API void *SYMSHMEM_FN_(_realloc)(void *_ptr, size_t _bytes);
SYMSHMEM_API void SYMSHMEM_FN_(_free)(void *_ptr);
SYMSHMEM_API void *SYMSHMEM_FNX_(shmalloc)(size_t _bytes);
SYMSHMEM_API void *SYMSHMEM_FNX_(shmemalign)(size_t _alignment, size_t _bytes);
SYMSHMEM_API void *SYMSHMEM_FNX_(shrealloc)(void *_ptr, size_t _bytes);
SYMSHMEM_API void SYMSHMEM_FNX_(shfree)(void *_ptr);

/* ------------------------------------------------------------------------ */
/* Teams and contexts                                                        */
/* ------------------------------------------------------------------------ */

SYMSHMEM_API int SYMSHMEM_FN_(_team_my_pe)(shmem_team_t _team);
SYMSHMEM_API int SYMSHMEM_FN_(_team_n_pes)(shmem_team_t _team);
SYMSHMEM_API int SYMSHMEM_FN_(_team_get_config)(shmem_team_t _team, long _config_mask,
                                                shmem_team_config_t *_config);
SYMSHMEM_API int SYMSHMEM_FN_(_team_translate_pe)(shmem_team_t _src_team, int _src_pe,
                                                  shmem_team_t _dest_team);
SYMSHMEM_API int SYMSHMEM_FN_(_team_split_strided)(shmem_team_t _parent_team, int _start,
                                                   int _stride, int _team_size,
                                                   const shmem_team_config_t *_config,
                                                   long _config_mask, shmem_team_t *_new_team);
SYMSHMEM_API int SYMSHMEM_FN_(_team_split_2d)(shmem_team_t _parent_team, int _xrange,
                                              const shmem_team_config_t *_xaxis_config,
                                              long _xaxis_mask, shmem_team_t *_xaxis_team,
                                              const shmem_team_config_t *_yaxis_config,
                                              long _yaxis_mask, shmem_team_t *_yaxis_team);
SYMSHMEM_API void SYMSHMEM_FN_(_team_destroy)(shmem_team_t _team);

/* Contexts: RMA, AMO and ordering on a context created from a team take PE
 * numbers of that team. */
SYMSHMEM_API int SYMSHMEM_FN_(_ctx_create)(long _options, shmem_ctx_t *_ctx);
SYMSHMEM_API int SYMSHMEM_FN_(_team_create_ctx)(shmem_team_t _team, long _options,
                                                shmem_ctx_t *_ctx);
SYMSHMEM_API void SYMSHMEM_FN_(_ctx_destroy)(shmem_ctx_t _ctx);
SYMSHMEM_API int SYMSHMEM_FN_(_ctx_get_team)(shmem_ctx_t _ctx, shmem_team_t *_team);

/* ------------------------------------------------------------------------ */
/* RMA                                                                       */
/* ------------------------------------------------------------------------ */

#define SYMSHMEM_DECL_RMA_(a, T, N, K, G, GB, RMA, AMO, AMOX, BIT, P2P, RBIT, RMM, RSUM, OLD)      \
    SYMSHMEM_IF_(RMA)                                                                              \
    (SYMSHMEM_DECL_CTX_(void, _##N##_put, T *_dest, const T *_source, size_t _nelems,              \
                        int _pe) SYMSHMEM_DECL_CTX_(void, _##N##_p, T *_dest, T _value, int _pe)   \
         SYMSHMEM_DECL_CTX_(void, _##N##_iput, T *_dest, const T *_source, ptrdiff_t _dst,         \
                            ptrdiff_t _sst, size_t _nelems,                                        \
                            int _pe) SYMSHMEM_DECL_CTX_(void, _##N##_get, T *_dest,                \
                                                        const T *_source, size_t _nelems, int _pe) \
             SYMSHMEM_DECL_CTX_(T, _##N##_g, const T *_source, int _pe) SYMSHMEM_DECL_CTX_(        \
                 void, _##N##_iget, T *_dest, const T *_source, ptrdiff_t _dst, ptrdiff_t _sst,    \
                 size_t _nelems, int _pe) SYMSHMEM_DECL_CTX_(void, _##N##_put_nbi, T *_dest,       \
                                                             const T *_source, size_t _nelems,     \
                                                             int _pe)                              \
                 SYMSHMEM_DECL_CTX_(void, _##N##_get_nbi, T *_dest, const T *_source,              \
                                    size_t _nelems, int _pe)                                       \
                     SYMSHMEM_DECL_CTX_(void, _##N##_put_signal, T *_dest, const T *_source,       \
                                        size_t _nelems, uint64_t *_sig_addr, uint64_t _signal,     \
                                        int _sig_op, int _pe)                                      \
                         SYMSHMEM_DECL_CTX_(void, _##N##_put_signal_nbi, T *_dest,                 \
                                            const T *_source, size_t _nelems, uint64_t *_sig_addr, \
                                            uint64_t _signal, int _sig_op, int _pe)                \
                             SYMSHMEM_API int SYMSHMEM_FN_(_##N##_broadcast)(                      \
                                 shmem_team_t _team, T * _dest, const T *_source, size_t _nelems,  \
                                 int _PE_root);                                                    \
     SYMSHMEM_API int SYMSHMEM_FN_(_##N##_collect)(shmem_team_t _team, T * _dest,                  \
                                                   const T *_source, size_t _nelems);              \
     SYMSHMEM_API int SYMSHMEM_FN_(_##N##_fcollect)(shmem_team_t _team, T * _dest,                 \
                                                    const T *_source, size_t _nelems);             \
     SYMSHMEM_API int SYMSHMEM_FN_(_##N##_alltoall)(shmem_team_t _team, T * _dest,                 \
                                                    const T *_source, size_t _nelems);             \
     SYMSHMEM_API int SYMSHMEM_FN_(_##N##_alltoalls)(shmem_team_t _team, T * _dest,                \
                                                     const T *_source, ptrdiff_t _dst,             \
                                                     ptrdiff_t _sst, size_t _nelems);)
SYMSHMEM_TYPES_(SYMSHMEM_DECL_RMA_, _)

#define SYMSHMEM_DECL_SIZED_(a, BITS, BYTES)                                                       \
    SYMSHMEM_DECL_CTX_(void, _put##BITS, void *_dest, const void *_source, size_t _nelems,         \
                       int _pe)                                                                    \
    SYMSHMEM_DECL_CTX_(void, _get##BITS, void *_dest, const void *_source, size_t _nelems,         \
                       int _pe)                                                                    \
    SYMSHMEM_DECL_CTX_(void, _iput##BITS, void *_dest, const void *_source, ptrdiff_t _dst,        \
                       ptrdiff_t _sst, size_t _nelems, int _pe)                                    \
    SYMSHMEM_DECL_CTX_(void, _iget##BITS, void *_dest, const void *_source, ptrdiff_t _dst,        \
                       ptrdiff_t _sst, size_t _nelems, int _pe)                                    \
    SYMSHMEM_DECL_CTX_(void, _put##BITS##_nbi, void *_dest, const void *_source, size_t _nelems,   \
                       int _pe)                                                                    \
    SYMSHMEM_DECL_CTX_(void, _get##BITS##_nbi, void *_dest, const void *_source, size_t _nelems,   \
                       int _pe)                                                                    \
    SYMSHMEM_DECL_CTX_(void, _put##BITS##_signal, void *_dest, const void *_source,                \
                       size_t _nelems, uint64_t *_sig_addr, uint64_t _signal, int _sig_op,         \
                       int _pe)                                                                    \
    SYMSHMEM_DECL_CTX_(void, _put##BITS##_signal_nbi, void *_dest, const void *_source,            \
                       size_t _nelems, uint64_t *_sig_addr, uint64_t _signal, int _sig_op,         \
                       int _pe)
SYMSHMEM_SIZES_(SYMSHMEM_DECL_SIZED_, _)

SYMSHMEM_DECL_CTX_(void, _putmem, void *_dest, const void *_source, size_t _nelems, int _pe)
SYMSHMEM_DECL_CTX_(void, _getmem, void *_dest, const void *_source, size_t _nelems, int _pe)
SYMSHMEM_DECL_CTX_(void, _putmem_nbi, void *_dest, const void *_source, size_t _nelems, int _pe)
SYMSHMEM_DECL_CTX_(void, _getmem_nbi, void *_dest, const void *_source, size_t _nelems, int _pe)
SYMSHMEM_DECL_CTX_(void, _putmem_signal, void *_dest, const void *_source, size_t _nelems,
                   uint64_t *_sig_addr, uint64_t _signal, int _sig_op, int _pe)
SYMSHMEM_DECL_CTX_(void, _putmem_signal_nbi, void *_dest, const void *_source, size_t _nelems,
                   uint64_t *_sig_addr, uint64_t _signal, int _sig_op, int _pe)

/* Signals: read this PE's signal word; wait until it satisfies `cmp
 * cmp_value` and return the value that did. */
SYMSHMEM_API uint64_t SYMSHMEM_FN_(_signal_fetch)(const uint64_t *_sig_addr);
SYMSHMEM_API uint64_t SYMSHMEM_FN_(_signal_wait_until)(uint64_t *_sig_addr, int _cmp,
                                                       uint64_t _cmp_value);

/* ------------------------------------------------------------------------ */
/* Atomic memory operations                                                  */
/* ------------------------------------------------------------------------ */

#define SYMSHMEM_DECL_AMO_(a, T, N, K, G, GB, RMA, AMO, AMOX, BIT, P2P, RBIT, RMM, RSUM, OLD)      \
    SYMSHMEM_IF_(AMOX)                                                                             \
    (SYMSHMEM_DECL_CTX_(T, _##N##_atomic_fetch, const T *_source, int _pe)                         \
         SYMSHMEM_DECL_CTX_(void, _##N##_atomic_set, T *_dest, T _value, int _pe)                  \
             SYMSHMEM_DECL_CTX_(T, _##N##_atomic_swap, T * _dest, T _value, int _pe)               \
                 SYMSHMEM_DECL_CTX_(void, _##N##_atomic_fetch_nbi, T *_fetched, const T *_source,  \
                                    int _pe)                                                       \
                     SYMSHMEM_DECL_CTX_(void, _##N##_atomic_swap_nbi, T *_fetched, T *_dest,       \
                                        T _value, int _pe)                                         \
                         SYMSHMEM_API T SYMSHMEM_FN_(_##N##_fetch)(const T *_source, int _pe);     \
     SYMSHMEM_API void SYMSHMEM_FN_(_##N##_set)(T * _dest, T _value, int _pe);                     \
     SYMSHMEM_API T SYMSHMEM_FN_(_##N##_swap)(T * _dest, T _value, int _pe);)                      \
        SYMSHMEM_IF_(AMO)(                                                                         \
            SYMSHMEM_DECL_CTX_(T, _##N##_atomic_compare_swap, T * _dest, T _cond, T _value,        \
                               int _pe) SYMSHMEM_DECL_CTX_(T, _##N##_atomic_fetch_inc, T * _dest,  \
                                                           int _pe)                                \
                SYMSHMEM_DECL_CTX_(void, _##N##_atomic_inc, T *_dest, int _pe)                     \
                    SYMSHMEM_DECL_CTX_(T, _##N##_atomic_fetch_add, T * _dest, T _value, int _pe)   \
                        SYMSHMEM_DECL_CTX_(void, _##N##_atomic_add, T *_dest, T _value, int _pe)   \
                            SYMSHMEM_DECL_CTX_(void, _##N##_atomic_compare_swap_nbi, T *_fetched,  \
                                               T *_dest, T _cond, T _value, int _pe)               \
                                SYMSHMEM_DECL_CTX_(void, _##N##_atomic_fetch_inc_nbi, T *_fetched, \
                                                   T *_dest, int _pe)                              \
                                    SYMSHMEM_DECL_CTX_(void, _##N##_atomic_fetch_add_nbi,          \
                                                       T *_fetched, T *_dest, T _value, int _pe)   \
                                        SYMSHMEM_API T SYMSHMEM_FN_(_##N##_cswap)(                 \
                                            T * _dest, T _cond, T _value, int _pe);                \
            SYMSHMEM_API T SYMSHMEM_FN_(_##N##_finc)(T * _dest, int _pe);                          \
            SYMSHMEM_API void SYMSHMEM_FN_(_##N##_inc)(T * _dest, int _pe);                        \
            SYMSHMEM_API T SYMSHMEM_FN_(_##N##_fadd)(T * _dest, T _value, int _pe);                \
            SYMSHMEM_API void SYMSHMEM_FN_(_##N##_add)(T * _dest, T _value, int _pe);)             \
            SYMSHMEM_IF_(BIT)(                                                                     \
                SYMSHMEM_DECL_CTX_(T, _##N##_atomic_fetch_and, T * _dest, T _value,                \
                                   int _pe) SYMSHMEM_DECL_CTX_(void, _##N##_atomic_and, T *_dest,  \
                                                               T _value, int _pe)                  \
                    SYMSHMEM_DECL_CTX_(T, _##N##_atomic_fetch_or, T * _dest, T _value, int _pe)    \
                        SYMSHMEM_DECL_CTX_(void, _##N##_atomic_or, T *_dest, T _value, int _pe)    \
                            SYMSHMEM_DECL_CTX_(                                                    \
                                T, _##N##_atomic_fetch_xor, T * _dest, T _value,                   \
                                int _pe) SYMSHMEM_DECL_CTX_(void, _##N##_atomic_xor, T *_dest,     \
                                                            T _value, int _pe)                     \
                                SYMSHMEM_DECL_CTX_(void, _##N##_atomic_fetch_and_nbi, T *_fetched, \
                                                   T *_dest, T _value, int _pe)                    \
                                    SYMSHMEM_DECL_CTX_(void, _##N##_atomic_fetch_or_nbi,           \
                                                       T *_fetched, T *_dest, T _value, int _pe)   \
                                        SYMSHMEM_DECL_CTX_(void, _##N##_atomic_fetch_xor_nbi,      \
                                                           T *_fetched, T *_dest, T _value,        \
                                                           int _pe))
SYMSHMEM_TYPES_(SYMSHMEM_DECL_AMO_, _)

/* ------------------------------------------------------------------------ */
/* Collectives                                                               */
/* ------------------------------------------------------------------------ */

SYMSHMEM_API void SYMSHMEM_FN_(_barrier_all)(void);
SYMSHMEM_API void SYMSHMEM_FN_(_sync_all)(void);
/* Synchronise the PEs of `team` (no completion of their RMA): 0 or
 * non-zero.  In C11 and C++ shmem_sync(team) names it too. */
SYMSHMEM_API int SYMSHMEM_FN_(_team_sync)(shmem_team_t _team);

SYMSHMEM_API int SYMSHMEM_FN_(_broadcastmem)(shmem_team_t _team, void *_dest, const void *_source,
                                             size_t _nelems, int _PE_root);
SYMSHMEM_API int SYMSHMEM_FN_(_collectmem)(shmem_team_t _team, void *_dest, const void *_source,
                                           size_t _nelems);
SYMSHMEM_API int SYMSHMEM_FN_(_fcollectmem)(shmem_team_t _team, void *_dest, const void *_source,
                                            size_t _nelems);
SYMSHMEM_API int SYMSHMEM_FN_(_alltoallmem)(shmem_team_t _team, void *_dest, const void *_source,
                                            size_t _nelems);
SYMSHMEM_API int SYMSHMEM_FN_(_alltoallsmem)(shmem_team_t _team, void *_dest, const void *_source,
                                             ptrdiff_t _dst, ptrdiff_t _sst, size_t _nelems);

#define SYMSHMEM_DECL_RED_(a, T, N, K, G, GB, RMA, AMO, AMOX, BIT, P2P, RBIT, RMM, RSUM, OLD)      \
    SYMSHMEM_IF_(RBIT)                                                                             \
    (SYMSHMEM_API int SYMSHMEM_FN_(_##N##_and_reduce)(shmem_team_t _team, T * _dest,               \
                                                      const T *_source, size_t _nreduce);          \
     SYMSHMEM_API int SYMSHMEM_FN_(_##N##_or_reduce)(shmem_team_t _team, T * _dest,                \
                                                     const T *_source, size_t _nreduce);           \
     SYMSHMEM_API int SYMSHMEM_FN_(_##N##_xor_reduce)(shmem_team_t _team, T * _dest,               \
                                                      const T *_source, size_t _nreduce);)         \
        SYMSHMEM_IF_(RMM)(SYMSHMEM_API int SYMSHMEM_FN_(_##N##_max_reduce)(                        \
                              shmem_team_t _team, T * _dest, const T *_source, size_t _nreduce);   \
                          SYMSHMEM_API int SYMSHMEM_FN_(_##N##_min_reduce)(                        \
                              shmem_team_t _team, T * _dest, const T *_source, size_t _nreduce);)  \
            SYMSHMEM_IF_(RSUM)(                                                                    \
                SYMSHMEM_API int SYMSHMEM_FN_(_##N##_sum_reduce)(                                  \
                    shmem_team_t _team, T * _dest, const T *_source, size_t _nreduce);             \
                SYMSHMEM_API int SYMSHMEM_FN_(_##N##_prod_reduce)(                                 \
                    shmem_team_t _team, T * _dest, const T *_source, size_t _nreduce);)            \
                SYMSHMEM_IF_(SYMSHMEM_AND_(OLD, SYMSHMEM_ISSINT_##K))(                             \
                    SYMSHMEM_DECL_TO_ALL_(T, _##N##_and) SYMSHMEM_DECL_TO_ALL_(T, _##N##_or)       \
                        SYMSHMEM_DECL_TO_ALL_(T, _##N##_xor))                                      \
                    SYMSHMEM_IF_(SYMSHMEM_AND_(OLD, RMM))(                                         \
                        SYMSHMEM_DECL_TO_ALL_(T, _##N##_max) SYMSHMEM_DECL_TO_ALL_(T, _##N##_min)) \
                        SYMSHMEM_IF_(OLD)(SYMSHMEM_DECL_TO_ALL_(T, _##N##_sum)                     \
                                              SYMSHMEM_DECL_TO_ALL_(T, _##N##_prod))
#define SYMSHMEM_DECL_TO_ALL_(T, _name)                                                            \
    SYMSHMEM_API void SYMSHMEM_FN_(_name##_to_all)(T * _dest, const T *_source, int _nreduce,      \
                                                   int _PE_start, int _logPE_stride, int _PE_size, \
                                                   T *_pWrk, long *_pSync);
SYMSHMEM_TYPES_(SYMSHMEM_DECL_RED_, _)

/* Deprecated active-set collectives (PE_start, 2^logPE_stride, PE_size;
 * pSync of the matching SHMEM_*_SYNC_SIZE longs, all SHMEM_SYNC_VALUE). */
SYMSHMEM_API void SYMSHMEM_FN_(_barrier)(int _PE_start, int _logPE_stride, int _PE_size,
                                         long *_pSync);
SYMSHMEM_API void SYMSHMEM_FN_(_sync)(int _PE_start, int _logPE_stride, int _PE_size, long *_pSync);
#define SYMSHMEM_DECL_ACTIVE_(a, BITS)                                                             \
    SYMSHMEM_API void SYMSHMEM_FN_(_broadcast##BITS)(                                              \
        void *_dest, const void *_source, size_t _nelems, int _PE_root, int _PE_start,             \
        int _logPE_stride, int _PE_size, long *_pSync);                                            \
    SYMSHMEM_API void SYMSHMEM_FN_(_collect##BITS)(void *_dest, const void *_source,               \
                                                   size_t _nelems, int _PE_start,                  \
                                                   int _logPE_stride, int _PE_size, long *_pSync); \
    SYMSHMEM_API void SYMSHMEM_FN_(_fcollect##BITS)(                                               \
        void *_dest, const void *_source, size_t _nelems, int _PE_start, int _logPE_stride,        \
        int _PE_size, long *_pSync);                                                               \
    SYMSHMEM_API void SYMSHMEM_FN_(_alltoall##BITS)(                                               \
        void *_dest, const void *_source, size_t _nelems, int _PE_start, int _logPE_stride,        \
        int _PE_size, long *_pSync);                                                               \
    SYMSHMEM_API void SYMSHMEM_FN_(_alltoalls##BITS)(                                              \
        void *_dest, const void *_source, ptrdiff_t _dst, ptrdiff_t _sst, size_t _nelems,          \
        int _PE_start, int _logPE_stride, int _PE_size, long *_pSync);
SYMSHMEM_DECL_ACTIVE_(_, 32)
SYMSHMEM_DECL_ACTIVE_(_, 64)

/* ------------------------------------------------------------------------ */
/* Point-to-point synchronization                                            */
/* ------------------------------------------------------------------------ */

#define SYMSHMEM_DECL_P2P_(a, T, N, K, G, GB, RMA, AMO, AMOX, BIT, P2P, RBIT, RMM, RSUM, OLD)      \
    SYMSHMEM_IF_(P2P)                                                                              \
    (SYMSHMEM_API void SYMSHMEM_FN_(_##N##_wait_until)(T * _ivar, int _cmp, T _cmp_value);         \
     SYMSHMEM_API void SYMSHMEM_FN_(_##N##_wait)(T * _ivar, T _cmp_value);                         \
     SYMSHMEM_API void SYMSHMEM_FN_(_##N##_wait_until_all)(                                        \
         T * _ivars, size_t _nelems, const int *_status, int _cmp, T _cmp_value);                  \
     SYMSHMEM_API size_t SYMSHMEM_FN_(_##N##_wait_until_any)(                                      \
         T * _ivars, size_t _nelems, const int *_status, int _cmp, T _cmp_value);                  \
     SYMSHMEM_API size_t SYMSHMEM_FN_(_##N##_wait_until_some)(                                     \
         T * _ivars, size_t _nelems, size_t * _indices, const int *_status, int _cmp,              \
         T _cmp_value);                                                                            \
     SYMSHMEM_API void SYMSHMEM_FN_(_##N##_wait_until_all_vector)(                                 \
         T * _ivars, size_t _nelems, const int *_status, int _cmp, T *_cmp_values);                \
     SYMSHMEM_API size_t SYMSHMEM_FN_(_##N##_wait_until_any_vector)(                               \
         T * _ivars, size_t _nelems, const int *_status, int _cmp, T *_cmp_values);                \
     SYMSHMEM_API size_t SYMSHMEM_FN_(_##N##_wait_until_some_vector)(                              \
         T * _ivars, size_t _nelems, size_t * _indices, const int *_status, int _cmp,              \
         T *_cmp_values);                                                                          \
     SYMSHMEM_API int SYMSHMEM_FN_(_##N##_test)(T * _ivar, int _cmp, T _cmp_value);                \
     SYMSHMEM_API int SYMSHMEM_FN_(_##N##_test_all)(T * _ivars, size_t _nelems,                    \
                                                    const int *_status, int _cmp, T _cmp_value);   \
     SYMSHMEM_API size_t SYMSHMEM_FN_(_##N##_test_any)(                                            \
         T * _ivars, size_t _nelems, const int *_status, int _cmp, T _cmp_value);                  \
     SYMSHMEM_API size_t SYMSHMEM_FN_(_##N##_test_some)(T * _ivars, size_t _nelems,                \
                                                        size_t * _indices, const int *_status,     \
                                                        int _cmp, T _cmp_value);                   \
     SYMSHMEM_API int SYMSHMEM_FN_(_##N##_test_all_vector)(                                        \
         T * _ivars, size_t _nelems, const int *_status, int _cmp, T *_cmp_values);                \
     SYMSHMEM_API size_t SYMSHMEM_FN_(_##N##_test_any_vector)(                                     \
         T * _ivars, size_t _nelems, const int *_status, int _cmp, T *_cmp_values);                \
     SYMSHMEM_API size_t SYMSHMEM_FN_(_##N##_test_some_vector)(                                    \
         T * _ivars, size_t _nelems, size_t * _indices, const int *_status, int _cmp,              \
         T *_cmp_values);)
SYMSHMEM_TYPES_(SYMSHMEM_DECL_P2P_, _)

/* ------------------------------------------------------------------------ */
/* Memory ordering and locks                                                 */
/* ------------------------------------------------------------------------ */

SYMSHMEM_API void SYMSHMEM_FN_(_fence)(void);
SYMSHMEM_API void SYMSHMEM_FN_(_quiet)(void);
SYMSHMEM_API void SYMSHMEM_FN_(_ctx_fence)(shmem_ctx_t _ctx);
SYMSHMEM_API void SYMSHMEM_FN_(_ctx_quiet)(shmem_ctx_t _ctx);

/* Distributed FIFO (ticket) lock on a symmetric long initialised to 0. */
SYMSHMEM_API void SYMSHMEM_FN_(_set_lock)(long *_lock);
SYMSHMEM_API void SYMSHMEM_FN_(_clear_lock)(long *_lock);
/* 0 if the lock was acquired, 1 if it is held by someone else. */
SYMSHMEM_API int SYMSHMEM_FN_(_test_lock)(long *_lock);
