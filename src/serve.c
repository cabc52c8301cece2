// SPDX-License-Identifier: GPL-2.0
/* /metrics over HTTP with libmicrohttpd; see serve.h. */
#include <errno.h>
#include <microhttpd.h>
#include <netdb.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "serve.h"

/* A connection's request, for the deadline (0: cut already). */
struct conn {
	int fd;			/* -1: a free slot */
	double since;		/* CLOCK_MONOTONIC seconds */
};

/* A kept-alive connection is timed from its last answer: idle, it closes first. */
_Static_assert(SERVE_IDLE < SERVE_DEADLINE, "an idle connection closes before its deadline");

#define SERVERS 2	/* 127.0.0.1 and ::1 */

/* A server per listening socket: libmicrohttpd takes one each. */
struct serve {
	int n;
	struct MHD_Daemon *d[SERVERS];
	int fd[SERVERS];
	struct metrics *m;
	/* the deadlines' watch, on a thread of its own */
	pthread_t watch;
	int watching, stopping;
	pthread_mutex_t lock;	/* conn[], stopping */
	pthread_cond_t wake;
	clockid_t clock;	/* wake's */
	struct conn conn[SERVERS * SERVE_CONNECTIONS];	/* every connection's */
};

static const char *const content_types[] = {
	"text/plain; version=0.0.4; charset=utf-8",
	"application/openmetrics-text; version=1.0.0; charset=utf-8",
};

int serve_parse(const char *spec, char *host, size_t hostlen, char *port, size_t portlen)
{
	const char *p = strrchr(spec, ':'), *h = spec;
	size_t n = p ? (size_t)(p - spec) : 0;
	char *end;
	long v;

	if (p && spec[0] == '[') {	/* [ADDR]:PORT */
		if (n < 3 || spec[n - 1] != ']')
			return -1;
		h++, n -= 2;
	} else if (p && memchr(spec, ':', n)) {
		return -1;		/* an IPv6 address wants brackets */
	}
	p = p ? p + 1 : spec;
	v = strtol(p, &end, 10);
	if (*end || end == p || *p < '0' || *p > '9' || v < 1 || v > 65535 ||
	    n >= hostlen || strlen(p) >= portlen)
		return -1;
	memcpy(host, h, n);
	host[n] = '\0';
	snprintf(port, portlen, "%ld", v);
	return 0;
}

/* [s, s + *n) without the blanks around it. */
static const char *trim(const char *s, size_t *n)
{
	while (*n && (*s == ' ' || *s == '\t'))
		s++, (*n)--;
	while (*n && (s[*n - 1] == ' ' || s[*n - 1] == '\t'))
		(*n)--;
	return s;
}

static int is(const char *s, size_t n, const char *word)
{
	return n == strlen(word) && !strncasecmp(s, word, n);
}

/*
 * A media range's quality: its q parameter (RFC 9110: 0 to 1, 0 not
 * acceptable), 1 without one, 0 for a bad one.  s: the parameters, from
 * the first ';' up to the range's end.
 */
static double quality(const char *s, const char *end)
{
	double q = 1;

	while (s < end && *s == ';') {
		size_t n = strcspn(++s, ";,");
		const char *p = trim(s, &n);
		char *qend;

		if (n >= 2 && (*p == 'q' || *p == 'Q') && p[1] == '=') {
			q = strtod(p + 2, &qend);
			if (qend != p + n || p[2] < '0' || p[2] > '9' || !(q >= 0 && q <= 1))
				return 0;
		}
		s += strcspn(s, ";,");
	}
	return q;
}

/*
 * The best quality given OpenMetrics against the best given the text
 * format (text/plain, or the wildcards text/STAR and STAR/STAR); a tie
 * goes to OpenMetrics, which the scraper named.
 */
int serve_openmetrics(const char *accept)
{
	double om = 0, text = 0, q;
	const char *s = accept, *end;
	size_t n;

	while (s && *s) {
		end = s + strcspn(s, ",");
		n = strcspn(s, ";,");
		q = quality(s + n, end);
		s = trim(s, &n);
		if (is(s, n, "application/openmetrics-text"))
			om = q > om ? q : om;
		else if (is(s, n, "text/plain") || is(s, n, "text/*") || is(s, n, "*/*"))
			text = q > text ? q : text;
		s = *end ? end + 1 : end;
	}
	return om > 0 && om >= text;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static enum MHD_Result reply(struct MHD_Connection *c, unsigned int status, const char *type,
			     struct MHD_Response *r)
{
	enum MHD_Result ret;

	if (!r)
		return MHD_NO;
	MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, type);
	ret = MHD_queue_response(c, status, r);
	MHD_destroy_response(r);	/* the connection holds it */
	return ret;
}

static enum MHD_Result say(struct MHD_Connection *c, unsigned int status, const char *text)
{
	return reply(c, status, "text/plain",
		     MHD_create_response_from_buffer(strlen(text), (void *)text,
						     MHD_RESPMEM_PERSISTENT));
}

/* The last request served an exposition gives it back. */
struct held {
	struct metrics *m;
	struct exposition *e;
};

static void give_back(void *cls)
{
	struct held *h = cls;

	metrics_put(h->m, h->e);
	free(h);
}

static enum MHD_Result answer(void *cls, struct MHD_Connection *c, const char *url,
			      const char *method, const char *version, const char *upload_data,
			      size_t *upload_data_size, void **con_cls)
{
	static const char get_head[] = "only GET and HEAD\n";
	struct serve *s = cls;
	struct MHD_Response *r;
	struct held *h;
	const char *text;
	size_t len;
	int om;

	(void)version, (void)upload_data;
	/* the first call has the headers: a response queued now would close
	 * the connection (libmicrohttpd has not read the whole request); a
	 * body, if any, is read and dropped */
	if (!*con_cls || *upload_data_size) {
		*con_cls = s;
		*upload_data_size = 0;
		return MHD_YES;
	}
	if (strcmp(method, MHD_HTTP_METHOD_GET) && strcmp(method, MHD_HTTP_METHOD_HEAD)) {
		r = MHD_create_response_from_buffer(strlen(get_head), (void *)get_head,
						    MHD_RESPMEM_PERSISTENT);
		if (r)
			MHD_add_response_header(r, MHD_HTTP_HEADER_ALLOW, "GET, HEAD");
		return reply(c, MHD_HTTP_METHOD_NOT_ALLOWED, "text/plain", r);
	}
	if (!strcmp(url, "/"))
		return say(c, MHD_HTTP_OK, "ebpfcount: the counts are at /metrics\n");
	if (strcmp(url, "/metrics"))
		return say(c, MHD_HTTP_NOT_FOUND, "not found: the counts are at /metrics\n");
	om = serve_openmetrics(MHD_lookup_connection_value(c, MHD_HEADER_KIND,
							   MHD_HTTP_HEADER_ACCEPT));
	h = malloc(sizeof(*h));
	if (!h)
		return MHD_NO;
	h->m = s->m;
	h->e = metrics_get(s->m, om, &text, &len);
	if (!h->e) {	/* none yet, or no memory */
		free(h);
		return say(c, MHD_HTTP_SERVICE_UNAVAILABLE, "no counts yet\n");
	}
	r = MHD_create_response_from_buffer_with_free_callback_cls(len, (void *)text, give_back,
								     h);
	if (!r)
		give_back(h);
	return reply(c, MHD_HTTP_OK, content_types[om], r);
}

/*
 * The deadlines: a connection's slot from its start to its close, its
 * request timed from the connection's start or the answer before it.
 */
static struct conn *conn_of(struct MHD_Connection *c)
{
	const union MHD_ConnectionInfo *i =
		MHD_get_connection_info(c, MHD_CONNECTION_INFO_SOCKET_CONTEXT);

	return i ? i->socket_context : NULL;
}

static void on_connection(void *cls, struct MHD_Connection *c, void **ctx,
			  enum MHD_ConnectionNotificationCode what)
{
	const union MHD_ConnectionInfo *i;
	struct serve *s = cls;
	struct conn *k = *ctx;
	int j;

	pthread_mutex_lock(&s->lock);
	if (what == MHD_CONNECTION_NOTIFY_STARTED) {
		i = MHD_get_connection_info(c, MHD_CONNECTION_INFO_CONNECTION_FD);
		for (j = 0; i && j < SERVERS * SERVE_CONNECTIONS && s->conn[j].fd >= 0; j++)
			;
		if (i && j < SERVERS * SERVE_CONNECTIONS) {
			s->conn[j] = (struct conn){ i->connect_fd, now() };
			*ctx = &s->conn[j];
		} else if (i) {	/* no deadline, no connection */
			shutdown(i->connect_fd, SHUT_RDWR);
		}
	} else if (k) {	/* closed: before its socket is */
		k->fd = -1;
		*ctx = NULL;
	}
	pthread_mutex_unlock(&s->lock);
}

static void on_done(void *cls, struct MHD_Connection *c, void **con_cls,
		    enum MHD_RequestTerminationCode why)
{
	struct serve *s = cls;
	struct conn *k = conn_of(c);

	(void)con_cls, (void)why;
	pthread_mutex_lock(&s->lock);
	if (k)	/* the next request is timed from here: idle, it is closed sooner */
		k->since = now();
	pthread_mutex_unlock(&s->lock);
}

/* Every second, cut the requests past their deadline: libmicrohttpd then closes them. */
static void *watch(void *arg)
{
	struct serve *s = arg;
	struct timespec at;
	double t;
	int j;

	pthread_mutex_lock(&s->lock);
	while (!s->stopping) {
		t = now();
		for (j = 0; j < SERVERS * SERVE_CONNECTIONS; j++)
			if (s->conn[j].fd >= 0 && s->conn[j].since &&
			    t - s->conn[j].since > SERVE_DEADLINE) {
				shutdown(s->conn[j].fd, SHUT_RDWR);
				s->conn[j].since = 0;
			}
		clock_gettime(s->clock, &at);
		at.tv_sec++;
		pthread_cond_timedwait(&s->wake, &s->lock, &at);
	}
	pthread_mutex_unlock(&s->lock);
	return NULL;
}

/*
 * A listening socket on host:port (an IPv6 address of every address, ::,
 * takes IPv4 too); -1 with err filled and errno set.
 */
static int listen_on(const char *host, const char *port, char *err, size_t errlen)
{
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM,
				  .ai_flags = AI_PASSIVE | AI_NUMERICSERV }, *res, *ai;
	int fd = -1, e, one = 1, zero = 0;

	e = getaddrinfo(host, port, &hints, &res);
	if (e) {
		snprintf(err, errlen, "--listen %s: %s", host, gai_strerror(e));
		errno = EINVAL;
		return -1;
	}
	for (ai = res; ai && fd < 0; ai = ai->ai_next) {
		fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC, ai->ai_protocol);
		if (fd < 0) {
			e = errno;
			continue;
		}
		setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
		if (ai->ai_family == AF_INET6)
			setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &zero, sizeof(zero));
		if (bind(fd, ai->ai_addr, ai->ai_addrlen) || listen(fd, SERVE_CONNECTIONS)) {
			e = errno;
			close(fd);
			fd = -1;
		}
	}
	freeaddrinfo(res);
	if (fd < 0) {
		snprintf(err, errlen, "cannot listen on %s port %s: %s", host, port, strerror(e));
		errno = e;
	}
	return fd;
}

struct serve *serve_listen(const char *host, const char *port, char *err, size_t errlen)
{
	struct serve *s = calloc(1, sizeof(*s));
	pthread_condattr_t attr;
	char why[256];
	int j;

	if (!s) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	for (j = 0; j < SERVERS * SERVE_CONNECTIONS; j++)
		s->conn[j].fd = -1;
	pthread_mutex_init(&s->lock, NULL);
	pthread_condattr_init(&attr);
	s->clock = pthread_condattr_setclock(&attr, CLOCK_MONOTONIC) ? CLOCK_REALTIME :
		   CLOCK_MONOTONIC;
	pthread_cond_init(&s->wake, &attr);
	pthread_condattr_destroy(&attr);
	/* no address: the loopback ones, 127.0.0.1 and ::1 if there is IPv6 */
	s->fd[0] = listen_on(*host ? host : "127.0.0.1", port, err, errlen);
	if (s->fd[0] < 0) {
		serve_stop(s);
		return NULL;
	}
	s->n = 1;
	if (*host)
		return s;
	s->fd[1] = listen_on("::1", port, why, sizeof(why));
	if (s->fd[1] >= 0) {
		s->n = 2;
	} else if (errno != EAFNOSUPPORT && errno != EADDRNOTAVAIL) {
		snprintf(err, errlen, "%s", why);
		serve_stop(s);
		return NULL;
	}
	return s;
}

int serve_start(struct serve *s, struct metrics *m, char *err, size_t errlen)
{
	sigset_t all, old;
	int i;

	s->m = m;
	/* The servers' threads take no signal: they are the main thread's. */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	s->watching = !pthread_create(&s->watch, NULL, watch, s);
	for (i = 0; s->watching && i < s->n; i++) {
		s->d[i] = MHD_start_daemon(MHD_USE_AUTO_INTERNAL_THREAD, 0, NULL, NULL, answer, s,
					   MHD_OPTION_LISTEN_SOCKET, s->fd[i],
					   MHD_OPTION_CONNECTION_LIMIT, (unsigned int)SERVE_CONNECTIONS,
					   MHD_OPTION_PER_IP_CONNECTION_LIMIT,
					   (unsigned int)SERVE_PER_ADDRESS,
					   MHD_OPTION_CONNECTION_TIMEOUT, (unsigned int)SERVE_IDLE,
					   MHD_OPTION_NOTIFY_CONNECTION, on_connection, s,
					   MHD_OPTION_NOTIFY_COMPLETED, on_done, s, MHD_OPTION_END);
		if (!s->d[i])
			break;
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (!s->watching || i < s->n) {
		snprintf(err, errlen, "cannot start the HTTP server for --listen");
		return -1;
	}
	return 0;
}

void serve_stop(struct serve *s)
{
	int i;

	if (!s)
		return;
	for (i = 0; i < s->n; i++) {
		if (s->d[i])
			MHD_stop_daemon(s->d[i]);	/* closes the listening socket */
		else
			close(s->fd[i]);
	}
	if (s->watching) {
		pthread_mutex_lock(&s->lock);
		s->stopping = 1;
		pthread_cond_signal(&s->wake);
		pthread_mutex_unlock(&s->lock);
		pthread_join(s->watch, NULL);
	}
	pthread_cond_destroy(&s->wake);
	pthread_mutex_destroy(&s->lock);
	free(s);
}
