#include <stdarg.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/socket.h>
#include <sys/epoll.h>
#include <netinet/tcp.h>
#include <microhttpd.h>

/// MHD_get_connection_info is variadic (Swift cannot call it); every kind the server asks for takes no extra argument.
static inline const union MHD_ConnectionInfo *abctl_connection_info(struct MHD_Connection *connection,
                                                                    enum MHD_ConnectionInfoType kind) {
    return MHD_get_connection_info(connection, kind);
}
