/*
 * The control socket: a Unix socket (mode 0600, its directory 0700) speaking newline-delimited
 * JSON. A request is one line, {"cmd": "status"} (or just the word); every reply is one line
 * holding one JSON object with "ok" and "cmd". A client may send several requests on one
 * connection; sync replies come when the changes are indexed.
 *
 * Back-pressure (a client that sends and never reads must not grow the daemon or starve the
 * others): a client is read only while its queued replies are under OUT_HIGH bytes and fewer
 * than MAX_PENDING of its requests wait for a reply; otherwise its socket is left unread (the
 * kernel's buffer fills and the client's writes block). Requests are taken BURST at a time
 * per client and turn of the loop (an idle handle runs the clients that have more), so other
 * clients and the file events get their turn. A client whose replies stay unread for STALL_S
 * seconds, or pass OUT_MAX bytes, is dropped (logged); at most MAX_CLIENTS are connected.
 */
#include "daemon.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_REQUEST 4096
#define OUT_HIGH (64 * 1024)      /* queued reply bytes past which a client is not read */
#define OUT_MAX (1024 * 1024)     /* ... and past which it is dropped */
#define MAX_PENDING 16            /* requests of a client waiting for their reply (syncs) */
#define BURST 8                   /* requests taken from one client per turn of the loop */
#define STALL_S 10                /* seconds a client may leave OUT_HIGH bytes unread */
#define MAX_CLIENTS 64

struct amxd_server {
    uv_pipe_t pipe;
    uv_idle_t idle;               /* runs the clients with requests left (ready) */
    uv_timer_t stall;             /* drops the clients that stopped reading */
    int open_handles;             /* of these three: freed when all are closed */
    amxd *d;
    char *path;
    amxd_client *clients;
    size_t nclients;
    amxd_client *ready_head, *ready_tail;
};

struct amxd_client {
    uv_pipe_t pipe;
    amxd_server *server;          /* NULL once the server closed (the client ends soon) */
    amxd *d;
    amxd_client *prev, *next;
    amxd_client *ready_next;      /* in the server's ready queue when `ready` */
    bool ready;
    bool reading;                 /* uv_read_start is on */
    size_t len;
    int writes;                   /* uv_write requests not yet completed */
    size_t queued;                /* their bytes */
    size_t pending;               /* requests handed over and not answered yet */
    uint64_t blocked_since;       /* uv_now when queued reached OUT_HIGH, 0 when below */
    bool ending;                  /* close once the replies are written */
    bool closed;
    char buf[MAX_REQUEST];
};

static void update_reading(amxd_client *c);
static void read_cb(uv_stream_t *stream, ssize_t nread, const uv_buf_t *buf);
static void alloc_cb(uv_handle_t *h, size_t suggested, uv_buf_t *buf);
static void idle_cb(uv_idle_t *h);

typedef struct write_req {
    uv_write_t req;
    amxd_client *client;
    size_t len;
    char data[];
} write_req;

static void client_free_cb(uv_handle_t *h)
{
    free(h->data);
}

static void unready(amxd_client *c)
{
    amxd_server *s = c->server;
    if (!c->ready || !s)
        return;
    amxd_client **p = &s->ready_head, *prev = NULL;
    while (*p && *p != c) {
        prev = *p;
        p = &(*p)->ready_next;
    }
    if (*p) {
        *p = c->ready_next;
        if (s->ready_tail == c)
            s->ready_tail = prev;
    }
    c->ready = false;
    c->ready_next = NULL;
}

static void client_close(amxd_client *c)
{
    if (c->closed)
        return;
    c->closed = true;
    amxd_server *s = c->server;
    if (s) {
        unready(c);
        if (c->prev)
            c->prev->next = c->next;
        else
            s->clients = c->next;
        if (c->next)
            c->next->prev = c->prev;
        s->nclients--;
    }
    amxd_client_gone(c->d, c);
    uv_close((uv_handle_t *)&c->pipe, client_free_cb);
}

void amxd_client_abort(amxd_client *c)
{
    client_close(c);
}

/* Closes the client once its queued replies are written. */
static void client_end(amxd_client *c)
{
    c->ending = true;
    if (!c->writes)
        client_close(c);
}

static void write_cb(uv_write_t *req, int status)
{
    write_req *w = (write_req *)req;
    amxd_client *c = w->client;
    c->queued -= w->len;
    free(w);
    c->writes--;
    if (c->queued < OUT_HIGH)
        c->blocked_since = 0;
    if (status < 0)
        client_end(c); /* the client went away */
    else if (c->ending && !c->writes)
        client_close(c);
    else
        update_reading(c); /* its replies are being read: it may be read again */
}

void amxd_client_send(amxd_client *c, const char *line)
{
    if (c->closed)
        return;
    if (c->pending)
        c->pending--;
    size_t len = strlen(line);
    if (c->queued + len + 1 > OUT_MAX) {
        amxd_log(AMX_LOG_WARNING, "control client dropped: %zu bytes of replies unread",
                 c->queued);
        client_close(c);
        return;
    }
    write_req *w = malloc(sizeof *w + len + 1);
    if (!w) {
        client_end(c);
        return;
    }
    memcpy(w->data, line, len);
    w->data[len] = '\n';
    w->len = len + 1;
    w->client = c;
    uv_buf_t buf = uv_buf_init(w->data, (unsigned)w->len);
    int rc = uv_write(&w->req, (uv_stream_t *)&c->pipe, &buf, 1, write_cb);
    if (rc) {
        free(w);
        client_end(c);
        return;
    }
    c->writes++;
    c->queued += w->len;
    if (c->queued >= OUT_HIGH && !c->blocked_since)
        c->blocked_since = uv_now(amxd_loop(c->d));
    update_reading(c);
}

/* The command of a request line: {"cmd": "NAME", ...} or a bare NAME. "" when there is none. */
static void parse_command(const char *line, char *cmd, size_t len)
{
    cmd[0] = '\0';
    while (*line == ' ' || *line == '\t')
        line++;
    const char *p = line;
    if (*line == '{') {
        p = strstr(line, "\"cmd\"");
        if (!p)
            return;
        p += 5;
        while (*p == ' ' || *p == '\t')
            p++;
        if (*p++ != ':')
            return;
        while (*p == ' ' || *p == '\t')
            p++;
        if (*p++ != '"')
            return;
    }
    size_t n = 0;
    while (p[n] && ((p[n] >= 'a' && p[n] <= 'z') || (p[n] >= 'A' && p[n] <= 'Z') || p[n] == '_'))
        n++;
    if (n >= len)
        n = len - 1;
    memcpy(cmd, p, n);
    cmd[n] = '\0';
}

static void alloc_cb(uv_handle_t *h, size_t suggested, uv_buf_t *buf)
{
    amxd_client *c = h->data;
    (void)suggested;
    *buf = uv_buf_init(c->buf + c->len, (unsigned)(sizeof c->buf - 1 - c->len));
}

/* True when the client may hand over another request: its replies are read, and few of its
 * requests wait. */
static bool can_take(const amxd_client *c)
{
    return !c->closed && !c->ending && c->queued < OUT_HIGH && c->pending < MAX_PENDING;
}

static bool has_line(const amxd_client *c)
{
    return memchr(c->buf, '\n', c->len) != NULL;
}

/* Reads the socket only when there is no whole request left to take and the client may hand
 * over more; queues the client to run again when it has requests and may. */
static void update_reading(amxd_client *c)
{
    amxd_server *s = c->server;
    if (c->closed || !s)
        return;
    bool line = has_line(c), take = can_take(c);
    bool want = !line && take;
    if (want && !c->reading)
        c->reading = uv_read_start((uv_stream_t *)&c->pipe, alloc_cb, read_cb) == 0;
    else if (!want && c->reading) {
        uv_read_stop((uv_stream_t *)&c->pipe);
        c->reading = false;
    }
    if (line && take && !c->ready) {
        c->ready = true;
        c->ready_next = NULL;
        if (s->ready_tail)
            s->ready_tail->ready_next = c;
        else
            s->ready_head = c;
        s->ready_tail = c;
        uv_idle_start(&s->idle, idle_cb); /* a no-op when it runs already */
    }
}

/* Takes up to BURST requests of the client. */
static void client_pump(amxd_client *c)
{
    for (int n = 0; n < BURST && can_take(c); n++) {
        char *nl = memchr(c->buf, '\n', c->len);
        if (!nl)
            break;
        *nl = '\0';
        if (nl > c->buf && nl[-1] == '\r')
            nl[-1] = '\0';
        char cmd[32];
        parse_command(c->buf, cmd, sizeof cmd);
        bool empty = !c->buf[0];
        size_t used = (size_t)(nl + 1 - c->buf);
        memmove(c->buf, nl + 1, c->len - used);
        c->len -= used;
        c->buf[c->len] = '\0';
        if (!empty) {
            c->pending++;
            amxd_request(c->d, c, cmd); /* may reply, and close the client */
        }
    }
    if (c->closed)
        return;
    if (!has_line(c) && c->len >= sizeof c->buf - 1) {
        amxd_client_send(c, "{\"ok\":false,\"cmd\":\"\",\"error\":\"request line too long\"}");
        if (c->reading)
            uv_read_stop((uv_stream_t *)&c->pipe);
        c->reading = false;
        client_end(c);
        return;
    }
    update_reading(c);
}

static void idle_cb(uv_idle_t *h)
{
    amxd_server *s = h->data;
    /* one turn: as many clients as are queued now, each BURST requests (a client with more
     * queues itself again, behind the others); the loop polls in between */
    size_t turn = 0;
    for (amxd_client *c = s->ready_head; c; c = c->ready_next)
        turn++;
    while (turn-- && s->ready_head) {
        amxd_client *c = s->ready_head;
        s->ready_head = c->ready_next;
        if (!s->ready_head)
            s->ready_tail = NULL;
        c->ready = false;
        c->ready_next = NULL;
        client_pump(c);
    }
    if (!s->ready_head)
        uv_idle_stop(&s->idle);
}

static void stall_cb(uv_timer_t *h)
{
    amxd_server *s = h->data;
    uint64_t now = uv_now(h->loop);
    for (amxd_client *c = s->clients, *next; c; c = next) {
        next = c->next;
        if (c->blocked_since && now - c->blocked_since >= (uint64_t)STALL_S * 1000) {
            amxd_log(AMX_LOG_WARNING, "control client dropped: it left %zu bytes of replies "
                                      "unread for %d s", c->queued, STALL_S);
            client_close(c);
        }
    }
}

static void read_cb(uv_stream_t *stream, ssize_t nread, const uv_buf_t *buf)
{
    amxd_client *c = stream->data;
    (void)buf;
    if (nread < 0) {
        /* EOF or an error: the client is gone (the CLI never half-closes); its waiting syncs
         * are dropped. */
        uv_read_stop(stream);
        c->reading = false;
        client_end(c);
        return;
    }
    c->len += (size_t)nread;
    c->buf[c->len] = '\0';
    client_pump(c);
}

static void connection_cb(uv_stream_t *listener, int status)
{
    amxd_server *s = listener->data;
    if (status < 0) {
        amxd_log(AMX_LOG_WARNING, "accepting a control connection: %s", uv_strerror(status));
        return;
    }
    amxd_client *c = calloc(1, sizeof *c);
    if (!c)
        return;
    c->server = s;
    c->d = s->d;
    c->pipe.data = c;
    uv_pipe_init(listener->loop, &c->pipe, 0);
    if (uv_accept(listener, (uv_stream_t *)&c->pipe) != 0) {
        uv_close((uv_handle_t *)&c->pipe, client_free_cb);
        return;
    }
    c->next = s->clients;
    if (s->clients)
        s->clients->prev = c;
    s->clients = c;
    s->nclients++;
    if (s->nclients > MAX_CLIENTS) {
        amxd_log(AMX_LOG_WARNING, "control connection refused: %d clients are connected",
                 MAX_CLIENTS);
        c->pending++;
        amxd_client_send(c, "{\"ok\":false,\"cmd\":\"\",\"error\":\"too many clients\"}");
        client_end(c);
        return;
    }
    update_reading(c);
    if (!c->reading)
        client_close(c);
}

static void server_free_cb(uv_handle_t *h)
{
    amxd_server *s = h->data;
    if (--s->open_handles > 0)
        return;
    free(s->path);
    free(s);
}

int amxd_server_start(amxd *d, const char *path, amxd_server **out, char *err, size_t errlen)
{
    *out = NULL;
    if (amx_os_endpoint_prepare(path, err, errlen) != 0)
        return -1;
    amxd_server *s = calloc(1, sizeof *s);
    if (!s || !(s->path = strdup(path))) {
        free(s);
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    s->d = d;
    s->pipe.data = s;
    s->idle.data = s;
    s->stall.data = s;
    uv_pipe_init(amxd_loop(d), &s->pipe, 0);
    uv_idle_init(amxd_loop(d), &s->idle);
    uv_timer_init(amxd_loop(d), &s->stall);
    s->open_handles = 3;
    unsigned old = amx_os_umask(0177); /* the socket: 0600 */
    int rc = uv_pipe_bind(&s->pipe, path);
    amx_os_umask(old);
    if (rc == 0)
        rc = uv_listen((uv_stream_t *)&s->pipe, 16, connection_cb);
    if (rc) {
        snprintf(err, errlen, "%s: cannot listen: %s", path, uv_strerror(rc));
        uv_close((uv_handle_t *)&s->pipe, server_free_cb);
        uv_close((uv_handle_t *)&s->idle, server_free_cb);
        uv_close((uv_handle_t *)&s->stall, server_free_cb);
        return -1;
    }
    uv_timer_start(&s->stall, stall_cb, 1000, 1000);
    uv_unref((uv_handle_t *)&s->stall);
    *out = s;
    return 0;
}

void amxd_server_close(amxd_server *s)
{
    if (!s)
        return;
    amx_os_endpoint_remove(s->path);
    while (s->clients) {
        amxd_client *c = s->clients;
        uv_read_stop((uv_stream_t *)&c->pipe);
        c->reading = false;
        /* detach it now; it closes after its queued replies (or at once) */
        s->clients = c->next;
        c->prev = c->next = NULL;
        c->ready = false;
        c->ready_next = NULL;
        c->server = NULL;
        client_end(c);
    }
    s->ready_head = s->ready_tail = NULL;
    uv_close((uv_handle_t *)&s->pipe, server_free_cb);
    uv_close((uv_handle_t *)&s->idle, server_free_cb);
    uv_close((uv_handle_t *)&s->stall, server_free_cb);
}
