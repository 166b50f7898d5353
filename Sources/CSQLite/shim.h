#ifndef WEBCACHE_CSQLITE_SHIM_H
#define WEBCACHE_CSQLITE_SHIM_H

#include <stddef.h>
#include <sqlite3.h>

/// SQLITE_TRANSIENT is a macro Swift cannot import: it tells SQLite to copy bound values.
static inline sqlite3_destructor_type csqlite_transient(void) { return SQLITE_TRANSIENT; }

/// Turns off SQLite's memory statistics, which take one process-wide mutex on every allocation
/// (every statement step allocates), so that threads reading on their own connections never meet
/// there. Must come before SQLite initializes (the first connection opened); later it does nothing.
static inline void csqlite_disable_memory_statistics(void) { (void)sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0); }

/// The first region of the WAL index (the `-shm` file) of `db`'s main database, as SQLite mapped it
/// for `db`, or NULL when it has none mapped (not in WAL mode, or not read yet). SQLite keeps the
/// mapping, at this address, until `db` closes.
static inline const volatile void *csqlite_wal_index(sqlite3 *db) {
    sqlite3_file *file = NULL;
    if (sqlite3_file_control(db, "main", SQLITE_FCNTL_FILE_POINTER, &file) != SQLITE_OK || file == NULL) return NULL;
    const sqlite3_io_methods *methods = file->pMethods;
    if (methods == NULL || methods->iVersion < 2 || methods->xShmMap == NULL) return NULL;
    void volatile *region = NULL;
    if (methods->xShmMap(file, 0, 32768, 0, &region) != SQLITE_OK) return NULL;
    return region;
}

/// Copies the 48-byte header of the WAL index at `index` into `header` as SQLite's readers read it,
/// without a lock: the first copy, a memory barrier, then the second, which a writer updates in the
/// other order (https://www.sqlite.org/walformat.html). 1 when the two copies agree and the header
/// was initialised; 0 while a writer is rewriting it.
static inline int csqlite_wal_index_header(const volatile void *index, unsigned char header[48]) {
    const volatile unsigned char *bytes = (const volatile unsigned char *)index;
    unsigned char second[48];
    for (int i = 0; i < 48; i++) header[i] = bytes[i];
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    for (int i = 0; i < 48; i++) second[i] = bytes[48 + i];
    int same = 1;
    for (int i = 0; i < 48; i++) same &= header[i] == second[i];
    return same && header[12] != 0;
}

#endif
