#include <sqlite3.h>

/// sqlite3_config is variadic, which Swift cannot call. Memory statistics take a global mutex
/// on every allocation, shared by all connections and threads; abctl never reads them.
static inline int abctl_sqlite3_disable_memory_statistics(void) {
    return sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
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
