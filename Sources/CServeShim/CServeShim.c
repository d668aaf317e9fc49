#define _GNU_SOURCE
#include "CServeShim.h"

#include <arpa/inet.h>
#include <dlfcn.h>
#include <malloc.h>
#include <microhttpd.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define SONAME "libmicrohttpd.so.12"

#define MHD_FUNCTIONS(X)                                                                                         \
    X(MHD_start_daemon) X(MHD_stop_daemon) X(MHD_quiesce_daemon) X(MHD_get_daemon_info) X(MHD_get_connection_info) \
    X(MHD_lookup_connection_value) X(MHD_create_response_from_buffer) X(MHD_add_response_header)                  \
    X(MHD_queue_response) X(MHD_destroy_response) X(MHD_suspend_connection) X(MHD_resume_connection)

static struct {
#define FIELD(name) __typeof__(name) *name;
    MHD_FUNCTIONS(FIELD)
} mhd;

int serve_load(char *error, size_t size) {
    static int state = 0;  // 0: not tried, 1: loaded, -1: unavailable
    static char reason[256];
    if (state == 0) {
        state = -1;
        void *library = dlopen(SONAME, RTLD_NOW | RTLD_LOCAL);
        if (!library) {
            snprintf(reason, sizeof reason, "%s", dlerror());
        } else {
            state = 1;
#define LOOKUP(name) if (state > 0 && !(mhd.name = (__typeof__(name) *)dlsym(library, #name))) { snprintf(reason, sizeof reason, "%s lacks %s", SONAME, #name); state = -1; }
            MHD_FUNCTIONS(LOOKUP)
        }
    }
    if (state < 0 && error && size) snprintf(error, size, "%s", reason);
    return state > 0;
}

// The watchdog: each open connection, when its current request began, and whether that request has
// been received whole. A client that is still sending after the timeout is shut down (libmicrohttpd's
// own timeout counts idle time, so a client sending a byte a second would never reach it).
struct watched {
    struct MHD_Connection *connection;
    int fd;
    time_t since;
    int received;
    struct watched *next;
};

struct server {
    serve_handler handler;
    serve_completed completed;
    void *context;
    unsigned timeout;
    pthread_mutex_t lock;
    struct watched *open;
    pthread_t watchdog;
    int stopping;
};

// The one server a process runs (serve starts one): what serve_received marks and serve_stop ends.
static struct server *running;

static time_t now(void) {
    struct timespec at;
    clock_gettime(CLOCK_MONOTONIC, &at);
    return at.tv_sec;
}

static void *watch(void *argument) {
    struct server *server = argument;
    for (;;) {
        usleep(200 * 1000);
        pthread_mutex_lock(&server->lock);
        if (server->stopping) { pthread_mutex_unlock(&server->lock); return NULL; }
        time_t at = now();
        for (struct watched *entry = server->open; entry; entry = entry->next) {
            // Shut down under the lock: the connection's close (which removes it) waits, so the descriptor is still its own.
            if (!entry->received && at - entry->since >= (time_t)server->timeout) shutdown(entry->fd, SHUT_RDWR);
        }
        pthread_mutex_unlock(&server->lock);
    }
}

static void notify(void *cls, struct MHD_Connection *connection, void **socket_context, enum MHD_ConnectionNotificationCode code) {
    struct server *server = cls;
    pthread_mutex_lock(&server->lock);
    if (code == MHD_CONNECTION_NOTIFY_STARTED) {
        const union MHD_ConnectionInfo *info = mhd.MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CONNECTION_FD);
        struct watched *entry = calloc(1, sizeof *entry);
        if (entry && info) {
            entry->connection = connection;
            entry->fd = info->connect_fd;
            entry->since = now();
            entry->next = server->open;
            server->open = entry;
            *socket_context = entry;
        } else {
            free(entry);
        }
    } else {
        for (struct watched **at = &server->open; *at; at = &(*at)->next) {
            if ((*at)->connection == connection) {
                struct watched *gone = *at;
                *at = gone->next;
                free(gone);
                break;
            }
        }
    }
    pthread_mutex_unlock(&server->lock);
}

static struct watched *entry_of(struct MHD_Connection *connection) {
    const union MHD_ConnectionInfo *info = mhd.MHD_get_connection_info(connection, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
    return info ? info->socket_context : NULL;
}

static enum MHD_Result access_handler(void *cls, struct MHD_Connection *connection, const char *url, const char *method,
                                      const char *version, const char *upload, size_t *upload_size, void **state) {
    (void)version;
    struct server *server = cls;
    return server->handler(server->context, connection, url, method, upload, upload_size, state) ? MHD_YES : MHD_NO;
}

static void request_completed(void *cls, struct MHD_Connection *connection, void **state, enum MHD_RequestTerminationCode code) {
    (void)code;
    struct server *server = cls;
    if (*state) server->completed(server->context, *state);
    *state = NULL;
    // The next request on a kept-alive connection is timed from now.
    pthread_mutex_lock(&server->lock);
    struct watched *entry = connection ? entry_of(connection) : NULL;
    if (entry) {
        entry->since = now();
        entry->received = 0;
    }
    pthread_mutex_unlock(&server->lock);
}

void serve_received(struct MHD_Connection *connection) {
    // The entry belongs to the connection, which is not closed while its handler runs; the watchdog reads it under the lock.
    struct server *server = running;
    struct watched *entry = entry_of(connection);
    if (!server || !entry) return;
    pthread_mutex_lock(&server->lock);
    entry->received = 1;
    pthread_mutex_unlock(&server->lock);
}

struct MHD_Daemon *serve_start(const char *address, uint16_t port, unsigned threads, unsigned client_timeout,
                               unsigned connection_limit, serve_handler handler, serve_completed completed, void *context,
                               char *error, size_t size) {
    if (!serve_load(error, size)) return NULL;
    struct sockaddr_storage storage;
    memset(&storage, 0, sizeof storage);
    unsigned flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_EPOLL | MHD_ALLOW_SUSPEND_RESUME;
    struct sockaddr_in *v4 = (struct sockaddr_in *)&storage;
    struct sockaddr_in6 *v6 = (struct sockaddr_in6 *)&storage;
    if (inet_pton(AF_INET, address, &v4->sin_addr) == 1) {
        v4->sin_family = AF_INET;
        v4->sin_port = htons(port);
    } else if (inet_pton(AF_INET6, address, &v6->sin6_addr) == 1) {
        v6->sin6_family = AF_INET6;
        v6->sin6_port = htons(port);
        flags |= MHD_USE_IPv6;
    } else {
        snprintf(error, size, "%s is not an IPv4 or IPv6 address", address);
        return NULL;
    }
    struct server *server = calloc(1, sizeof *server);
    if (!server) { snprintf(error, size, "out of memory"); return NULL; }
    server->handler = handler;
    server->completed = completed;
    server->context = context;
    server->timeout = client_timeout;
    pthread_mutex_init(&server->lock, NULL);
    // Set before the daemon's threads start: their first request marks itself through it.
    running = server;
    struct MHD_Daemon *daemon = mhd.MHD_start_daemon(
        flags, port, NULL, NULL, access_handler, server,
        MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&storage,
        MHD_OPTION_THREAD_POOL_SIZE, threads,
        MHD_OPTION_CONNECTION_TIMEOUT, client_timeout,
        MHD_OPTION_CONNECTION_LIMIT, connection_limit,
        MHD_OPTION_NOTIFY_CONNECTION, notify, server,
        MHD_OPTION_NOTIFY_COMPLETED, request_completed, server,
        MHD_OPTION_END);
    if (!daemon) {
        snprintf(error, size, "cannot listen on %s port %u (in use, or not an address of this machine)", address, port);
        running = NULL;
        pthread_mutex_destroy(&server->lock);
        free(server);
        return NULL;
    }
    pthread_create(&server->watchdog, NULL, watch, server);
    return daemon;
}

uint16_t serve_port(struct MHD_Daemon *daemon) {
    const union MHD_DaemonInfo *info = mhd.MHD_get_daemon_info(daemon, MHD_DAEMON_INFO_BIND_PORT);
    return info ? info->port : 0;
}

void serve_quiesce(struct MHD_Daemon *daemon) {
    int listener = mhd.MHD_quiesce_daemon(daemon);
    if (listener >= 0) close(listener);
}

unsigned serve_connections(struct MHD_Daemon *daemon) {
    const union MHD_DaemonInfo *info = mhd.MHD_get_daemon_info(daemon, MHD_DAEMON_INFO_CURRENT_CONNECTIONS);
    return info ? info->num_connections : 0;
}

void serve_stop(struct MHD_Daemon *daemon) {
    mhd.MHD_stop_daemon(daemon);
    struct server *server = running;
    if (!server) return;
    running = NULL;
    pthread_mutex_lock(&server->lock);
    server->stopping = 1;
    pthread_mutex_unlock(&server->lock);
    pthread_join(server->watchdog, NULL);
    // Every connection is closed by now; any entry left (none, normally) goes with the server.
    for (struct watched *entry = server->open, *next; entry; entry = next) {
        next = entry->next;
        free(entry);
    }
    pthread_mutex_destroy(&server->lock);
    free(server);
}

const char *serve_value(struct MHD_Connection *connection, int kind, const char *key) {
    return mhd.MHD_lookup_connection_value(connection, kind == 0 ? MHD_HEADER_KIND : MHD_GET_ARGUMENT_KIND, key);
}

static int add_header(struct MHD_Response *response, const char *line) {
    if (!line) return 1;
    const char *colon = strchr(line, ':');
    if (!colon) return 0;
    char name[64];
    size_t length = (size_t)(colon - line);
    if (length >= sizeof name) return 0;
    memcpy(name, line, length);
    name[length] = 0;
    const char *value = colon + 1;
    while (*value == ' ') value++;
    return mhd.MHD_add_response_header(response, name, value) == MHD_YES;
}

int serve_respond(struct MHD_Connection *connection, unsigned status, const char *body, size_t length,
                  const char *content_type, const char *header1, const char *header2) {
    struct MHD_Response *response = mhd.MHD_create_response_from_buffer(length, (void *)body, MHD_RESPMEM_MUST_COPY);
    if (!response) return 0;
    int ok = mhd.MHD_add_response_header(response, "Content-Type", content_type) == MHD_YES
        && add_header(response, header1) && add_header(response, header2);
    ok = ok && mhd.MHD_queue_response(connection, status, response) == MHD_YES;
    mhd.MHD_destroy_response(response);
    return ok;
}

void serve_suspend(struct MHD_Connection *connection) { mhd.MHD_suspend_connection(connection); }
void serve_resume(struct MHD_Connection *connection) { mhd.MHD_resume_connection(connection); }

size_t serve_heap_bytes(void) {
    struct mallinfo2 info = mallinfo2();
    return info.uordblks + info.hblkhd;
}
