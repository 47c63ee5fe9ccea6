/* The ceiling of the HTTP layer abctl serve is built on: libmicrohttpd, configured as abctl's
 * HTTPDaemon configures it (epoll, thread pool, turbo, 16 KiB per connection), answering every
 * request with a fixed body after reading the request body, and doing nothing else.
 * bench/http.sh runs it next to nginx and abctl in the same run.
 *
 *   mhd_fixed PORT BODY_FILE THREADS
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <microhttpd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char *body;
static size_t body_size;

static enum MHD_Result answer(void *cls, struct MHD_Connection *connection, const char *url, const char *method,
                              const char *version, const char *upload_data, size_t *upload_size, void **state) {
    (void)cls; (void)url; (void)method; (void)version; (void)upload_data;
    if (*state == NULL) { *state = (void *)1; return MHD_YES; }  /* headers only: ask for the body */
    if (*upload_size != 0) { *upload_size = 0; return MHD_YES; } /* consume the body */
    struct MHD_Response *response = MHD_create_response_from_buffer(body_size, body, MHD_RESPMEM_PERSISTENT);
    MHD_add_response_header(response, "Content-Type", "application/json");
    enum MHD_Result queued = MHD_queue_response(connection, 200, response);
    MHD_destroy_response(response);
    return queued;
}

int main(int argc, char **argv) {
    if (argc != 4) { fprintf(stderr, "usage: mhd_fixed PORT BODY_FILE THREADS\n"); return 2; }
    FILE *f = fopen(argv[2], "rb");
    if (!f) { perror(argv[2]); return 1; }
    fseek(f, 0, SEEK_END); body_size = (size_t)ftell(f); fseek(f, 0, SEEK_SET);
    body = malloc(body_size);
    if (fread(body, 1, body_size, f) != body_size) { perror("read"); return 1; }
    fclose(f);
    struct sockaddr_in address = {0};
    address.sin_family = AF_INET;
    address.sin_port = htons((unsigned short)atoi(argv[1]));
    address.sin_addr.s_addr = htonl(0x7f000001);  /* 127.0.0.1 only */
    struct MHD_Daemon *daemon = MHD_start_daemon(
        MHD_USE_EPOLL_INTERNAL_THREAD | MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_TURBO, 0, NULL, NULL, answer, NULL,
        MHD_OPTION_SOCK_ADDR, &address, MHD_OPTION_THREAD_POOL_SIZE, (unsigned int)atoi(argv[3]),
        MHD_OPTION_CONNECTION_LIMIT, 1000u, MHD_OPTION_CONNECTION_TIMEOUT, 30u,
        MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)(16 << 10), MHD_OPTION_END);
    if (!daemon) { fprintf(stderr, "could not start libmicrohttpd\n"); return 1; }
    printf("listening on 127.0.0.1:%s\n", argv[1]);
    fflush(stdout);
    sigset_t signals;
    sigemptyset(&signals); sigaddset(&signals, SIGTERM); sigaddset(&signals, SIGINT);
    sigprocmask(SIG_BLOCK, &signals, NULL);
    int received;
    sigwait(&signals, &received);
    MHD_stop_daemon(daemon);
    return 0;
}
