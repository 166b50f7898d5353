#ifndef WEBCACHE_CSQLITE_SHIM_H
#define WEBCACHE_CSQLITE_SHIM_H

#include <sqlite3.h>

/// SQLITE_TRANSIENT is a macro Swift cannot import: it tells SQLite to copy bound values.
static inline sqlite3_destructor_type csqlite_transient(void) { return SQLITE_TRANSIENT; }

/// Turns off SQLite's memory statistics, which take one process-wide mutex on every allocation
/// (every statement step allocates), so that threads reading on their own connections never meet
/// there. Must come before SQLite initializes (the first connection opened); later it does nothing.
static inline void csqlite_disable_memory_statistics(void) { (void)sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0); }

#endif
