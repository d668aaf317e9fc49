// libmicrohttpd for `notti-media serve` (SPEC 21), opened on first use (dlopen), so the tool's
// other commands never load it and the TLS library it brings: the calls Swift makes, as plain
// functions (MHD_start_daemon and MHD_get_connection_info are variadic, which Swift cannot call),
// and the watchdog that drops a client still sending its request after the client timeout.
#ifndef CSERVESHIM_H
#define CSERVESHIM_H

#include <stddef.h>
#include <stdint.h>

struct MHD_Daemon;
struct MHD_Connection;

/// Called for each request, as libmicrohttpd's access handler is: once when its headers are in
/// (`*state` NULL), then with each part of its body, then with `*upload_size` 0 when it is whole.
/// Returns 1 to go on, 0 to close the connection.
typedef int (*serve_handler)(void *context, struct MHD_Connection *connection, const char *url, const char *method,
                             const char *upload, size_t *upload_size, void **state);
/// Called when a request's connection is done with it (answered or dropped), to free `state`.
typedef void (*serve_completed)(void *context, void *state);

/// Whether libmicrohttpd could be opened; its error in `error` (at most `size` bytes) when not.
int serve_load(char *error, size_t size);

/// Starts the server on `address` (an IPv4 or IPv6 literal) and `port` (0: any free port):
/// `threads` polling threads (epoll), suspendable connections, clients idle or still sending
/// their request after `client_timeout` seconds dropped, at most `connection_limit` open.
/// Returns NULL and the reason in `error` when it cannot listen.
struct MHD_Daemon *serve_start(const char *address, uint16_t port, unsigned threads, unsigned client_timeout,
                               unsigned connection_limit, serve_handler handler, serve_completed completed, void *context,
                               char *error, size_t size);
/// The port it listens on.
uint16_t serve_port(struct MHD_Daemon *daemon);
/// Stops accepting connections (SIGTERM): those open are served until they close.
void serve_quiesce(struct MHD_Daemon *daemon);
/// Open connections.
unsigned serve_connections(struct MHD_Daemon *daemon);
/// Stops the server, closing every connection.
void serve_stop(struct MHD_Daemon *daemon);

/// A request header's value (`kind` 0) or a query argument's (`kind` 1), or NULL.
const char *serve_value(struct MHD_Connection *connection, int kind, const char *key);
/// Marks the connection's request as received whole: the watchdog no longer times it.
void serve_received(struct MHD_Connection *connection);
/// Queues the answer: `status`, `body` (copied), and up to three headers as "Name: value" lines (NULL for none).
int serve_respond(struct MHD_Connection *connection, unsigned status, const char *body, size_t length,
                  const char *content_type, const char *header1, const char *header2);
/// Holds the connection while its answer is made elsewhere; `serve_resume` hands it back (any thread).
void serve_suspend(struct MHD_Connection *connection);
void serve_resume(struct MHD_Connection *connection);

/// The heap in use, in bytes: malloc's own count (`mallinfo2`: allocated chunks and mapped blocks), for /metrics.
size_t serve_heap_bytes(void);

#endif
