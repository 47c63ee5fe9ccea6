#include <sqlite3.h>

/// sqlite3_config is variadic, which Swift cannot call. Memory statistics take a global mutex
/// on every allocation, shared by all connections and threads; abctl never reads them.
static inline int abctl_sqlite3_disable_memory_statistics(void) {
    return sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
}
