/*
 * coll_serial.h - the blocking collectives of one team, one at a time, at
 * SYM_THREAD_MULTIPLE (coll_serial.c).
 */
#ifndef SYM_COLL_SERIAL_H
#define SYM_COLL_SERIAL_H

/* Free the table of team locks (sym_finalize: no collective is running). */
void sym_team_locks_fini(void);

#endif /* SYM_COLL_SERIAL_H */
