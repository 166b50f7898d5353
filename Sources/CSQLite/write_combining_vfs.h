#ifndef WEBCACHE_CSQLITE_WRITE_COMBINING_VFS_H
#define WEBCACHE_CSQLITE_WRITE_COMBINING_VFS_H

#include <errno.h>
#include <sqlite3.h>
#include <string.h>

/*
 * A VFS over SQLite's "unix" VFS that combines the many small writes SQLite makes in a row into one
 * system call each, where it is safe to, and changes nothing else.
 *
 * SQLite writes its write-ahead log one frame at a time, as two calls (the 24-byte frame header, then
 * the page), and a checkpoint copies the log back into the database one page at a time, a read and a
 * write each: a body of 2 GiB in 4 KiB pages costs about two million system calls, whose fixed cost
 * is most of the kernel time such a write takes. This VFS gathers the log's runs in a buffer and
 * writes each run with one call, and reads the log ahead during a checkpoint:
 *
 * - The log: the log's header and whole frames (header, then page) appended at its end are
 *   gathered; the run is written out right after the page of a commit frame (one whose header gives
 *   the database size after the commit), before SQLite publishes the commit in the log index, so any
 *   connection that can see the commit finds its frames in the file, and a write that fails fails
 *   the commit itself (the shared-memory barrier and lock calls before and after publication write
 *   out anything gathered too, but by then an error could only be reported late). Any other call on
 *   the file writes the run out first, and a write out of that pattern (a page rewritten in place, a
 *   frame header rewritten with new checksums) goes straight to the file after it.
 * - The log during a checkpoint of its own connection (between `SQLITE_FCNTL_CKPT_START` and
 *   `SQLITE_FCNTL_CKPT_DONE`, which SQLite sends to the database file before it copies the first
 *   page and after the last): it is read ahead, a run at a time.
 * - The database's writes are never gathered. A checkpoint's pages could be, but the last run could
 *   then only be written out at the checkpoint's end, whose error SQLite does not read (it sends the
 *   end as a hint): on a full disk it would record the log as copied when its last pages were not,
 *   and a later checkpoint would start the log over without them. Each page is written by its own
 *   call, as by the "unix" VFS, so a failing write fails the checkpoint.
 *
 * So every byte reaches the file in the same order relative to every lock, sync and shared-memory
 * step as without the VFS; only the number of calls between two such steps changes. Every other
 * file (journals, temporary files) and every other method goes straight to the "unix" VFS. A process
 * that dies with bytes gathered has not written them, which is what SQLite's recovery already
 * expects of a process that dies between two of its writes.
 *
 * The build does not see changes to this file: it belongs to a system-library target, and the Swift
 * modules that import CSQLite (CacheStore, and tests) are not compiled again when it changes. After
 * editing it, touch the Swift files that import CSQLite or build from clean; each module that
 * imports it has its own copy of these functions and of the methods table.
 */

/* The most bytes gathered before they are written out: the "unix" VFS writes at most 0x1ffff bytes
 * in one call (it masks the count with that, since no page of SQLite is larger), so a run is kept
 * below 128 KiB, 31 frames of 4 KiB pages. */
#define CSQLITE_COMBINED_CAPACITY 0x1ffff

typedef struct csqlite_combining_file {
    sqlite3_file base;
    /* The "unix" VFS's file, in the space right after this structure. */
    sqlite3_file *real;
    /* 1 for the write-ahead log (the only file whose writes are gathered), 2 for a main database, 0 for any other file. */
    int kind;
    /* A main database between SQLITE_FCNTL_CKPT_START and SQLITE_FCNTL_CKPT_DONE (its log reads ahead). */
    int checkpointing;
    /* The log: the next write must be the page of the frame whose header was just gathered. */
    int pageExpected;
    /* The log: that frame is a commit frame, so its page ends the run. */
    int commitFrame;
    /* The log: where the last write to it ended, where the next frame is appended (after a frame
     * rewritten in place, the next one appended is written straight, and the pattern starts over). */
    sqlite3_int64 end;
    /* The gathered bytes, to be written at offset `start`. */
    unsigned char *buffer;
    int length;
    sqlite3_int64 start;
    /* An error from writing out a run in a method that cannot return one, returned by the next. */
    int deferredError;
    /* The system's error number of the last write, truncation or sync of the file that failed, until
     * it is read (`csqlite_combining_take_errno`): SQLite reports a write the system refused for the
     * file size limit or a disk quota as an I/O error without saying which. */
    int lastErrno;
    /* The log and the main database of one connection, each the other's peer (NULL when closed). */
    struct csqlite_combining_file *peer;
    /* The log, while its database is checkpointing: the bytes read ahead, from offset `aheadStart`,
     * and the log's size when the checkpoint first read it (-1 before). */
    unsigned char *ahead;
    int aheadLength;
    sqlite3_int64 aheadStart;
    sqlite3_int64 aheadLimit;
    /* The log, while its database is checkpointing: where the last read ended (-1 before the first),
     * and how many reads in a row followed the one before, to tell a checkpoint that walks the log in
     * order from one that jumps about in it. */
    sqlite3_int64 lastReadEnd;
    int readsInOrder;
    /* The log: what checkpoints of its own connection asked of it (bytes), and what was read from the
     * file for them (calls and bytes), since it opened (`csqlite_combining_checkpoint_reads`). */
    sqlite3_int64 checkpointBytesAsked;
    sqlite3_int64 checkpointReadCalls;
    sqlite3_int64 checkpointBytesRead;
} csqlite_combining_file;

static inline sqlite3_vfs *csqlite_combining_real_vfs(sqlite3_vfs *vfs) { return (sqlite3_vfs *)vfs->pAppData; }

/* `code`, the result of a call on the real file made just before; when it failed, the system's
 * error number it left is remembered first. */
static inline int csqlite_combining_noting_errno(csqlite_combining_file *file, int code) {
    if (code != SQLITE_OK) file->lastErrno = errno;
    return code;
}

/* The real file's write, remembering the system's error number when it fails. */
static inline int csqlite_combining_write_through(csqlite_combining_file *file, const void *data, int amount, sqlite3_int64 offset) {
    return csqlite_combining_noting_errno(file, file->real->pMethods->xWrite(file->real, data, amount, offset));
}

/* Writes out the gathered run, if any. */
static inline int csqlite_combining_flush(csqlite_combining_file *file) {
    file->pageExpected = 0;
    file->commitFrame = 0;
    if (file->length == 0) return SQLITE_OK;
    int length = file->length;
    file->length = 0;
    return csqlite_combining_write_through(file, file->buffer, length, file->start);
}

/* Writes out the gathered run before another method; its error, or one deferred, is that method's. */
static inline int csqlite_combining_settle(csqlite_combining_file *file) {
    int code = csqlite_combining_flush(file);
    if (code == SQLITE_OK && file->deferredError != SQLITE_OK) code = file->deferredError;
    file->deferredError = SQLITE_OK;
    return code;
}

/* Writes out the run gathered for the log of `file`, a main database, before a step on the log index
 * (which only the database's methods take): a commit is published there only after its frames. */
static inline int csqlite_combining_settle_log(csqlite_combining_file *file) {
    int code = csqlite_combining_settle(file);
    if (code == SQLITE_OK && file->kind == 2 && file->peer != NULL) code = csqlite_combining_settle(file->peer);
    return code;
}

/* The same, for a method that cannot return an error: the next method returns it. */
static inline void csqlite_combining_settle_later(csqlite_combining_file *file) {
    int code = csqlite_combining_flush(file);
    if (code != SQLITE_OK && file->deferredError == SQLITE_OK) file->deferredError = code;
}

/* Whether a write of `amount` bytes at `offset` to the log may join the run (or start one): the
 * log's 32-byte header, a frame's 24-byte header appended at its end, or the page of the frame whose
 * header was gathered last; with room left. */
static inline int csqlite_combining_accepts(csqlite_combining_file *file, int amount, sqlite3_int64 offset) {
    if (file->length > 0 && offset != file->start + file->length) return 0;
    if (file->length + amount > CSQLITE_COMBINED_CAPACITY) return 0;
    if (file->pageExpected) return amount != 24;
    return (amount == 32 && offset == 0) || (amount == 24 && offset == file->end);
}

/* Gathers a write to the log, or writes out the run and then writes it straight, as the pattern says. */
static inline int csqlite_combining_gather(csqlite_combining_file *file, const void *data, int amount, sqlite3_int64 offset) {
    int expectedPage = file->pageExpected;
    int commit = file->commitFrame;
    if (!csqlite_combining_accepts(file, amount, offset)) {
        int code = csqlite_combining_flush(file);
        if (code != SQLITE_OK) return code;
        /* A run may start here only where the pattern allows it: a page goes with its header. */
        if (expectedPage || !csqlite_combining_accepts(file, amount, offset)) {
            return csqlite_combining_write_through(file, data, amount, offset);
        }
    }
    if (file->buffer == NULL) {
        file->buffer = sqlite3_malloc(CSQLITE_COMBINED_CAPACITY);
        if (file->buffer == NULL) return csqlite_combining_write_through(file, data, amount, offset);
    }
    if (file->length == 0) file->start = offset;
    memcpy(file->buffer + file->length, data, (size_t)amount);
    file->length += amount;
    if (file->kind == 1) {
        if (expectedPage) {
            file->pageExpected = 0;
            file->commitFrame = 0;
            if (commit) return csqlite_combining_flush(file);
        } else if (amount == 24) {
            const unsigned char *header = (const unsigned char *)data;
            file->pageExpected = 1;
            file->commitFrame = (header[4] | header[5] | header[6] | header[7]) != 0;
        }
    }
    return SQLITE_OK;
}

static inline int csqlite_combining_write(sqlite3_file *base, const void *data, int amount, sqlite3_int64 offset) {
    csqlite_combining_file *file = (csqlite_combining_file *)base;
    if (file->kind == 0) return file->real->pMethods->xWrite(file->real, data, amount, offset);
    if (file->kind == 2) return csqlite_combining_write_through(file, data, amount, offset);
    int code = file->deferredError;
    file->deferredError = SQLITE_OK;
    if (code == SQLITE_OK) code = csqlite_combining_gather(file, data, amount, offset);
    file->end = offset + amount;
    return code;
}

static inline int csqlite_combining_close(sqlite3_file *base) {
    csqlite_combining_file *file = (csqlite_combining_file *)base;
    int code = csqlite_combining_settle(file);
    int closed = file->real->pMethods->xClose(file->real);
    sqlite3_free(file->buffer);
    sqlite3_free(file->ahead);
    file->buffer = NULL;
    file->ahead = NULL;
    if (file->peer != NULL) file->peer->peer = NULL;
    file->peer = NULL;
    return code != SQLITE_OK ? code : closed;
}

/* Forgets what the log of `file`, a main database, read ahead: at a checkpoint's start and end, and
 * at any lock taken or released on the log index. */
static inline void csqlite_combining_forget_ahead(csqlite_combining_file *file) {
    if (file->kind != 2 || file->peer == NULL) return;
    file->peer->aheadLength = 0;
    file->peer->aheadLimit = -1;
    file->peer->lastReadEnd = -1;
    file->peer->readsInOrder = 0;
}

/* The most bytes between the end of one read of the log and the start of the next for the two to
 * count as in order: a checkpoint reads each frame's page and skips its 24-byte header. */
#define CSQLITE_READ_AHEAD_GAP 64

/* A read of the log during a checkpoint straight from the file, counted as such. */
static inline int csqlite_combining_read_alone(csqlite_combining_file *file, void *data, int amount, sqlite3_int64 offset) {
    file->checkpointReadCalls += 1;
    file->checkpointBytesRead += amount;
    return file->real->pMethods->xRead(file->real, data, amount, offset);
}

/* A read of the log while its database is checkpointing, from the bytes read ahead, reading the next
 * run ahead when they do not hold it and the read follows the one before it. The frames a checkpoint
 * copies are committed, and no connection rewrites them before the checkpoint ends (the log starts
 * over only once every frame was copied), so bytes read ahead stay true until the checkpoint's end,
 * where they are forgotten. Bytes past the log's end when it was first read are read as they are.
 *
 * A checkpoint copies pages in the order of their page numbers, so it walks the log in order only
 * where the log holds pages in that order: a large body's chunks, appended as they came, for long
 * runs; after many small commits, each touching a few pages of indexes and tables (in page order, so
 * a few frames in a row), it mostly jumps from frame to frame. Reading a whole run ahead at every
 * jump read about 30 times the log's bytes (1.07 GB read for a preload that wrote 41 MB of log), so a
 * read that does not follow the one before is read alone, and what is read ahead grows with the reads
 * in order before it, doubling each time up to a whole run. */
static inline int csqlite_combining_read_ahead(csqlite_combining_file *file, void *data, int amount, sqlite3_int64 offset) {
    sqlite3_file *real = file->real;
    if (file->aheadLimit < 0) {
        int code = real->pMethods->xFileSize(real, &file->aheadLimit);
        if (code != SQLITE_OK) {
            file->aheadLimit = -1;
            return code;
        }
    }
    file->checkpointBytesAsked += amount;
    int held = offset >= file->aheadStart && offset + amount <= file->aheadStart + file->aheadLength;
    int inOrder = file->lastReadEnd >= 0 && offset >= file->lastReadEnd
        && offset - file->lastReadEnd <= CSQLITE_READ_AHEAD_GAP;
    file->readsInOrder = inOrder ? file->readsInOrder + 1 : 0;
    file->lastReadEnd = offset + amount;
    if (!held) {
        sqlite3_int64 available = file->aheadLimit - offset;
        if (available < amount || !inOrder) return csqlite_combining_read_alone(file, data, amount, offset);
        if (file->ahead == NULL) {
            file->ahead = sqlite3_malloc(CSQLITE_COMBINED_CAPACITY);
            if (file->ahead == NULL) return csqlite_combining_read_alone(file, data, amount, offset);
        }
        /* Two reads' worth after one read in order, four after two, and so on. */
        int doublings = file->readsInOrder < 12 ? file->readsInOrder : 12;
        sqlite3_int64 wanted = (sqlite3_int64)(amount + CSQLITE_READ_AHEAD_GAP) << doublings;
        if (wanted > CSQLITE_COMBINED_CAPACITY) wanted = CSQLITE_COMBINED_CAPACITY;
        if (wanted > available) wanted = available;
        int length = (int)wanted;
        file->aheadLength = 0;
        file->checkpointReadCalls += 1;
        file->checkpointBytesRead += length;
        int code = real->pMethods->xRead(real, file->ahead, length, offset);
        if (code != SQLITE_OK) return code;
        file->aheadStart = offset;
        file->aheadLength = length;
    }
    memcpy(data, file->ahead + (offset - file->aheadStart), (size_t)amount);
    return SQLITE_OK;
}

static inline int csqlite_combining_read(sqlite3_file *base, void *data, int amount, sqlite3_int64 offset) {
    csqlite_combining_file *file = (csqlite_combining_file *)base;
    int code = csqlite_combining_settle(file);
    if (code != SQLITE_OK) return code;
    if (file->kind == 1 && file->peer != NULL && file->peer->checkpointing) {
        return csqlite_combining_read_ahead(file, data, amount, offset);
    }
    return file->real->pMethods->xRead(file->real, data, amount, offset);
}

static inline int csqlite_combining_truncate(sqlite3_file *base, sqlite3_int64 size) {
    csqlite_combining_file *file = (csqlite_combining_file *)base;
    int code = csqlite_combining_settle(file);
    return code != SQLITE_OK ? code : csqlite_combining_noting_errno(file, file->real->pMethods->xTruncate(file->real, size));
}

static inline int csqlite_combining_sync(sqlite3_file *base, int flags) {
    csqlite_combining_file *file = (csqlite_combining_file *)base;
    int code = csqlite_combining_settle(file);
    return code != SQLITE_OK ? code : csqlite_combining_noting_errno(file, file->real->pMethods->xSync(file->real, flags));
}

static inline int csqlite_combining_file_size(sqlite3_file *base, sqlite3_int64 *size) {
    csqlite_combining_file *file = (csqlite_combining_file *)base;
    int code = csqlite_combining_settle(file);
    return code != SQLITE_OK ? code : file->real->pMethods->xFileSize(file->real, size);
}

static inline int csqlite_combining_lock(sqlite3_file *base, int level) {
    csqlite_combining_file *file = (csqlite_combining_file *)base;
    int code = csqlite_combining_settle(file);
    return code != SQLITE_OK ? code : file->real->pMethods->xLock(file->real, level);
}

static inline int csqlite_combining_unlock(sqlite3_file *base, int level) {
    csqlite_combining_file *file = (csqlite_combining_file *)base;
    int code = csqlite_combining_settle(file);
    return code != SQLITE_OK ? code : file->real->pMethods->xUnlock(file->real, level);
}

static inline int csqlite_combining_check_reserved_lock(sqlite3_file *base, int *reserved) {
    csqlite_combining_file *file = (csqlite_combining_file *)base;
    int code = csqlite_combining_settle(file);
    return code != SQLITE_OK ? code : file->real->pMethods->xCheckReservedLock(file->real, reserved);
}

static inline int csqlite_combining_file_control(sqlite3_file *base, int operation, void *argument) {
    csqlite_combining_file *file = (csqlite_combining_file *)base;
    int code = csqlite_combining_settle(file);
    if (operation == SQLITE_FCNTL_CKPT_START || operation == SQLITE_FCNTL_CKPT_DONE) {
        file->checkpointing = operation == SQLITE_FCNTL_CKPT_START;
        csqlite_combining_forget_ahead(file);
    }
    if (code != SQLITE_OK) return code;
    /* The file pointer asked for is this VFS's file, whose methods reach the real one. */
    return file->real->pMethods->xFileControl(file->real, operation, argument);
}

static inline int csqlite_combining_sector_size(sqlite3_file *base) {
    csqlite_combining_file *file = (csqlite_combining_file *)base;
    return file->real->pMethods->xSectorSize(file->real);
}

static inline int csqlite_combining_device_characteristics(sqlite3_file *base) {
    csqlite_combining_file *file = (csqlite_combining_file *)base;
    return file->real->pMethods->xDeviceCharacteristics(file->real);
}

static inline int csqlite_combining_shm_map(sqlite3_file *base, int region, int size, int extend, void volatile **address) {
    csqlite_combining_file *file = (csqlite_combining_file *)base;
    int code = csqlite_combining_settle_log(file);
    return code != SQLITE_OK ? code : file->real->pMethods->xShmMap(file->real, region, size, extend, address);
}

static inline int csqlite_combining_shm_lock(sqlite3_file *base, int offset, int count, int flags) {
    csqlite_combining_file *file = (csqlite_combining_file *)base;
    int code = csqlite_combining_settle_log(file);
    /* A checkpoint takes no lock between its start and its end: one taken or released now is outside
     * it, whatever SQLite sent before (a checkpoint cut short by an error still sends its end). */
    file->checkpointing = 0;
    csqlite_combining_forget_ahead(file);
    return code != SQLITE_OK ? code : file->real->pMethods->xShmLock(file->real, offset, count, flags);
}

static inline void csqlite_combining_shm_barrier(sqlite3_file *base) {
    csqlite_combining_file *file = (csqlite_combining_file *)base;
    csqlite_combining_settle_later(file);
    if (file->peer != NULL) csqlite_combining_settle_later(file->peer);
    file->real->pMethods->xShmBarrier(file->real);
}

static inline int csqlite_combining_shm_unmap(sqlite3_file *base, int deleteFlag) {
    csqlite_combining_file *file = (csqlite_combining_file *)base;
    int code = csqlite_combining_settle_log(file);
    return code != SQLITE_OK ? code : file->real->pMethods->xShmUnmap(file->real, deleteFlag);
}

static inline int csqlite_combining_fetch(sqlite3_file *base, sqlite3_int64 offset, int amount, void **pointer) {
    csqlite_combining_file *file = (csqlite_combining_file *)base;
    int code = csqlite_combining_settle(file);
    *pointer = NULL;
    return code != SQLITE_OK ? code : file->real->pMethods->xFetch(file->real, offset, amount, pointer);
}

static inline int csqlite_combining_unfetch(sqlite3_file *base, sqlite3_int64 offset, void *pointer) {
    csqlite_combining_file *file = (csqlite_combining_file *)base;
    int code = csqlite_combining_settle(file);
    return code != SQLITE_OK ? code : file->real->pMethods->xUnfetch(file->real, offset, pointer);
}

static const sqlite3_io_methods csqlite_combining_methods = {
    3,
    csqlite_combining_close,
    csqlite_combining_read,
    csqlite_combining_write,
    csqlite_combining_truncate,
    csqlite_combining_sync,
    csqlite_combining_file_size,
    csqlite_combining_lock,
    csqlite_combining_unlock,
    csqlite_combining_check_reserved_lock,
    csqlite_combining_file_control,
    csqlite_combining_sector_size,
    csqlite_combining_device_characteristics,
    csqlite_combining_shm_map,
    csqlite_combining_shm_lock,
    csqlite_combining_shm_barrier,
    csqlite_combining_shm_unmap,
    csqlite_combining_fetch,
    csqlite_combining_unfetch,
};

static inline int csqlite_combining_open(sqlite3_vfs *vfs, sqlite3_filename name, sqlite3_file *base, int flags, int *outFlags) {
    csqlite_combining_file *file = (csqlite_combining_file *)base;
    memset(file, 0, sizeof(*file));
    file->real = (sqlite3_file *)(file + 1);
    int code = csqlite_combining_real_vfs(vfs)->xOpen(csqlite_combining_real_vfs(vfs), name, file->real, flags, outFlags);
    if (code != SQLITE_OK || file->real->pMethods == NULL) {
        /* SQLite calls no method of a file whose open failed, and closes one whose methods are set. */
        if (file->real->pMethods != NULL) file->real->pMethods->xClose(file->real);
        base->pMethods = NULL;
        return code != SQLITE_OK ? code : SQLITE_CANTOPEN;
    }
    /* Only files whose methods have every method of version 3 are wrapped; no file of "unix" lacks one. */
    if (file->real->pMethods->iVersion < 3) {
        file->real->pMethods->xClose(file->real);
        base->pMethods = NULL;
        return SQLITE_CANTOPEN;
    }
    file->aheadLimit = -1;
    file->lastReadEnd = -1;
    if (flags & SQLITE_OPEN_MAIN_DB) file->kind = 2;
    if (flags & SQLITE_OPEN_WAL) {
        file->kind = 1;
        /* The connection's database file, opened through this VFS before its log. */
        csqlite_combining_file *database = (csqlite_combining_file *)sqlite3_database_file_object(name);
        if (database != NULL && database->base.pMethods == &csqlite_combining_methods && database->kind == 2) {
            file->peer = database;
            database->peer = file;
        }
    }
    base->pMethods = &csqlite_combining_methods;
    return SQLITE_OK;
}

static inline int csqlite_combining_delete(sqlite3_vfs *vfs, const char *name, int syncDirectory) {
    return csqlite_combining_real_vfs(vfs)->xDelete(csqlite_combining_real_vfs(vfs), name, syncDirectory);
}

static inline int csqlite_combining_access(sqlite3_vfs *vfs, const char *name, int flags, int *result) {
    return csqlite_combining_real_vfs(vfs)->xAccess(csqlite_combining_real_vfs(vfs), name, flags, result);
}

static inline int csqlite_combining_full_pathname(sqlite3_vfs *vfs, const char *name, int size, char *output) {
    return csqlite_combining_real_vfs(vfs)->xFullPathname(csqlite_combining_real_vfs(vfs), name, size, output);
}

static inline void *csqlite_combining_dl_open(sqlite3_vfs *vfs, const char *name) {
    return csqlite_combining_real_vfs(vfs)->xDlOpen(csqlite_combining_real_vfs(vfs), name);
}

static inline void csqlite_combining_dl_error(sqlite3_vfs *vfs, int size, char *message) {
    csqlite_combining_real_vfs(vfs)->xDlError(csqlite_combining_real_vfs(vfs), size, message);
}

static inline void (*csqlite_combining_dl_sym(sqlite3_vfs *vfs, void *library, const char *symbol))(void) {
    return csqlite_combining_real_vfs(vfs)->xDlSym(csqlite_combining_real_vfs(vfs), library, symbol);
}

static inline void csqlite_combining_dl_close(sqlite3_vfs *vfs, void *library) {
    csqlite_combining_real_vfs(vfs)->xDlClose(csqlite_combining_real_vfs(vfs), library);
}

static inline int csqlite_combining_randomness(sqlite3_vfs *vfs, int size, char *output) {
    return csqlite_combining_real_vfs(vfs)->xRandomness(csqlite_combining_real_vfs(vfs), size, output);
}

static inline int csqlite_combining_sleep(sqlite3_vfs *vfs, int microseconds) {
    return csqlite_combining_real_vfs(vfs)->xSleep(csqlite_combining_real_vfs(vfs), microseconds);
}

static inline int csqlite_combining_current_time(sqlite3_vfs *vfs, double *now) {
    return csqlite_combining_real_vfs(vfs)->xCurrentTime(csqlite_combining_real_vfs(vfs), now);
}

static inline int csqlite_combining_get_last_error(sqlite3_vfs *vfs, int size, char *message) {
    return csqlite_combining_real_vfs(vfs)->xGetLastError(csqlite_combining_real_vfs(vfs), size, message);
}

static inline int csqlite_combining_current_time_int64(sqlite3_vfs *vfs, sqlite3_int64 *now) {
    return csqlite_combining_real_vfs(vfs)->xCurrentTimeInt64(csqlite_combining_real_vfs(vfs), now);
}

/* The name connections open the store with (`sqlite3_open_v2`'s last argument). */
#define CSQLITE_COMBINING_VFS_NAME "webcache-combining"

/* Registers the VFS (not as the default) over "unix". Call once, before the first connection opens
 * with it; SQLITE_OK, or SQLite's error when "unix" is missing. */
static inline int csqlite_register_combining_vfs(void) {
    sqlite3_vfs *real = sqlite3_vfs_find("unix");
    if (real == NULL || real->iVersion < 2) return SQLITE_ERROR;
    /* The VFS stays registered for the process's life, so its structure is never freed. */
    sqlite3_vfs *combining = sqlite3_malloc(sizeof(sqlite3_vfs));
    if (combining == NULL) return SQLITE_NOMEM;
    sqlite3_vfs vfs = {
        2,
        (int)sizeof(csqlite_combining_file) + real->szOsFile,
        real->mxPathname,
        NULL,
        CSQLITE_COMBINING_VFS_NAME,
        real,
        csqlite_combining_open,
        csqlite_combining_delete,
        csqlite_combining_access,
        csqlite_combining_full_pathname,
        csqlite_combining_dl_open,
        csqlite_combining_dl_error,
        csqlite_combining_dl_sym,
        csqlite_combining_dl_close,
        csqlite_combining_randomness,
        csqlite_combining_sleep,
        csqlite_combining_current_time,
        csqlite_combining_get_last_error,
        csqlite_combining_current_time_int64,
        NULL,
        NULL,
        NULL,
    };
    *combining = vfs;
    int code = sqlite3_vfs_register(combining, 0);
    if (code != SQLITE_OK) sqlite3_free(combining);
    return code;
}

/* The main database file of `db` when `db` is open through this VFS, else NULL. The VFS is known by its
 * name, not by the address of its methods, so that this works from any module: each module that
 * includes this header has its own copy of the methods table. */
static inline csqlite_combining_file *csqlite_combining_database(sqlite3 *db) {
    sqlite3_vfs *vfs = NULL;
    if (sqlite3_file_control(db, "main", SQLITE_FCNTL_VFS_POINTER, &vfs) != SQLITE_OK || vfs == NULL) return NULL;
    if (vfs->zName == NULL || strcmp(vfs->zName, CSQLITE_COMBINING_VFS_NAME) != 0) return NULL;
    sqlite3_file *base = NULL;
    if (sqlite3_file_control(db, "main", SQLITE_FCNTL_FILE_POINTER, &base) != SQLITE_OK || base == NULL) return NULL;
    return base->pMethods != NULL ? (csqlite_combining_file *)base : NULL;
}

/* The system's error number behind the last failed write, truncation or sync of `db`'s log or main
 * database, the log's first, forgotten once read; 0 when none failed or `db` is not open through
 * this VFS. */
static inline int csqlite_combining_take_errno(sqlite3 *db) {
    csqlite_combining_file *database = csqlite_combining_database(db);
    if (database == NULL) return 0;
    csqlite_combining_file *log = database->peer;
    int number = log != NULL && log->lastErrno != 0 ? log->lastErrno : database->lastErrno;
    database->lastErrno = 0;
    if (log != NULL) log->lastErrno = 0;
    return number;
}

/* What checkpoints run on `db` asked of its log and read from the file for them since the log was
 * opened: the bytes asked, the reads made and the bytes they read (all 0 when `db` is not open through
 * this VFS or has no log open). For tests and measurements of the reading ahead. */
static inline void csqlite_combining_checkpoint_reads(
    sqlite3 *db, sqlite3_int64 *asked, sqlite3_int64 *calls, sqlite3_int64 *read
) {
    *asked = 0;
    *calls = 0;
    *read = 0;
    csqlite_combining_file *database = csqlite_combining_database(db);
    csqlite_combining_file *log = database != NULL ? database->peer : NULL;
    if (log == NULL) return;
    *asked = log->checkpointBytesAsked;
    *calls = log->checkpointReadCalls;
    *read = log->checkpointBytesRead;
}

#endif
