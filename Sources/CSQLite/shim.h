#include <sqlite3.h>

/// sqlite3_config is variadic, which Swift cannot call. Memory statistics take a global mutex
/// on every allocation, shared by all connections and threads; abctl never reads them.
static inline int abctl_sqlite3_disable_memory_statistics(void) {
    return sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
}

/// SQLite's own mapping of the WAL index of `db`'s main database (region 0 of `<database>-shm`),
/// through the VFS's xShmMap without extending the file; NULL when there is none yet (not in WAL
/// mode, or no transaction has opened the WAL). Not a second `open` of the `-shm` file: closing any
/// descriptor of a file drops every POSIX lock the process holds on it, SQLite's among them, and
/// another process that then opened the database would truncate the index under the mapping
/// (SIGBUS; https://sqlite.org/howtocorrupt.html, section 2.2). Valid while `db` stays open.
static inline const void *abctl_wal_index_map(sqlite3 *db) {
    sqlite3_file *file = 0;
    if (sqlite3_file_control(db, "main", SQLITE_FCNTL_FILE_POINTER, &file) != SQLITE_OK || !file || !file->pMethods) return 0;
    if (file->pMethods->iVersion < 2 || !file->pMethods->xShmMap) return 0;
    volatile void *region = 0;
    if (file->pMethods->xShmMap(file, 0, 32768, 0, &region) != SQLITE_OK) return 0;
    return (const void *)region;
}

/// Reads what SQLite's WAL index (the mapped `<database>-shm`) says of the latest commit and
/// checkpoint, without a lock: the first copy of the 48-byte WAL-index header and the
/// checkpoint's nBackfill (https://sqlite.org/walformat.html). A commit writes the header's
/// second copy, then the first; returns 0 while the copies differ (a commit is being
/// published) or the index is not initialised, 1 otherwise. `out` gets 7 words.
static inline int abctl_wal_index_stamp(const void *shm, unsigned long long out[7]) {
    const volatile unsigned long long *words = (const volatile unsigned long long *)shm;
    const volatile unsigned int *backfill = (const volatile unsigned int *)((const volatile char *)shm + 96);
    int same = 1;
    for (int i = 0; i < 6; i++) out[i] = words[i];
    __atomic_thread_fence(__ATOMIC_ACQUIRE);
    for (int i = 0; i < 6; i++) same &= (words[6 + i] == out[i]);
    out[6] = *backfill;
    int initialised = ((const unsigned char *)out)[12] != 0;
    return same && initialised;
}
