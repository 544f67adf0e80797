// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The control stream between the two halves of a case.
 *
 * Frames are { be32 type, be32 len, payload }. The client opens a case with
 * BEGIN(name); both halves then trade DATA frames in an order their code
 * agrees on; each ends the case with END(status, reason). A half that fails
 * early sends its END at once, so the other one reads it where it expected
 * DATA and fails too instead of waiting; vt_ctrl_end() skips whatever DATA
 * is left until the peer's END, which puts both halves back in step for the
 * next case. QUIT ends the session.
 */
#include <arpa/inet.h>
#include <endian.h>
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "verbs_test.h"

#define FRAME_MAX	4096

struct frame_hdr {
	uint32_t type;
	uint32_t len;
};

struct end_msg {
	int32_t status;
	char reason[VT_REASON_LEN];
};

/* How long a half waits for its peer: longer than any wait of the peer's,
 * so that a peer that gives up is heard from before we give up on it. */
static int ctrl_wait_ms(const struct vt *t)
{
	return 2 * t->opts->wait_ms + 120 * 1000;
}

static int write_all(int fd, const void *buf, size_t len)
{
	const char *p = buf;

	while (len) {
		ssize_t n = write(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		p += n;
		len -= n;
	}
	return 0;
}

static int read_all(int fd, void *buf, size_t len, int ms)
{
	char *p = buf;

	while (len) {
		struct pollfd pfd = { .fd = fd, .events = POLLIN };
		ssize_t n;
		int rc = poll(&pfd, 1, ms);

		if (rc < 0 && errno == EINTR)
			continue;
		if (rc <= 0)
			return rc == 0 ? -ETIMEDOUT : -errno;
		n = read(fd, p, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n == 0 ? -ECONNRESET : -errno;
		p += n;
		len -= n;
	}
	return 0;
}

static int send_frame(int fd, uint32_t type, const void *buf, uint32_t len)
{
	struct frame_hdr h = { htobe32(type), htobe32(len) };

	if (write_all(fd, &h, sizeof(h)) || (len && write_all(fd, buf, len)))
		return -1;
	return 0;
}

/* Read one frame into buf (cap bytes); *len is its payload length. */
static int recv_frame(int fd, uint32_t *type, void *buf, uint32_t cap, uint32_t *len, int ms)
{
	struct frame_hdr h;
	char sink[FRAME_MAX];
	int rc;

	rc = read_all(fd, &h, sizeof(h), ms);
	if (rc)
		return rc;
	*type = be32toh(h.type);
	*len = be32toh(h.len);
	if (*len > FRAME_MAX)
		return -EPROTO;
	if (*len > cap) {
		rc = read_all(fd, sink, *len, ms);
		return rc ? rc : -EMSGSIZE;
	}
	return read_all(fd, buf, *len, ms);
}

int vt_ctrl_listen(int port)
{
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons(port) };
	int one = 1, fd;

	fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -1;
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) || listen(fd, 1)) {
		close(fd);
		return -1;
	}
	return fd;
}

int vt_ctrl_accept(int lfd)
{
	int one = 1, fd = accept(lfd, NULL, NULL);

	if (fd >= 0)
		setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	return fd;
}

static int try_connect(const char *host, int port)
{
	struct addrinfo hints = { .ai_family = AF_INET, .ai_socktype = SOCK_STREAM }, *ai;
	char serv[16];
	int one = 1, fd;

	snprintf(serv, sizeof(serv), "%d", port);
	if (getaddrinfo(host, serv, &hints, &ai))
		return -1;
	fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC, 0);
	if (fd >= 0 && connect(fd, ai->ai_addr, ai->ai_addrlen)) {
		close(fd);
		fd = -1;
	}
	freeaddrinfo(ai);
	if (fd >= 0)
		setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	return fd;
}

/* The server may not listen yet: retry for wait_s seconds. */
int vt_ctrl_connect(const char *host, int port, int wait_s)
{
	int i, fd;

	for (i = 0; i < wait_s * 5; i++) {
		fd = try_connect(host, port);
		if (fd >= 0)
			return fd;
		usleep(200 * 1000);
	}
	return -1;
}

int vt_ctrl_begin(int fd, const char *name)
{
	return send_frame(fd, VT_MSG_BEGIN, name, strlen(name));
}

int vt_ctrl_quit(int fd)
{
	return send_frame(fd, VT_MSG_QUIT, NULL, 0);
}

/* Server: wait (without limit) for the next BEGIN; 1 = a case, 0 = QUIT or
 * the client went away, -1 = protocol error. */
int vt_ctrl_next(int fd, char *name, size_t len)
{
	uint32_t type, n;

	if (recv_frame(fd, &type, name, len - 1, &n, -1))
		return 0;
	if (type == VT_MSG_QUIT)
		return 0;
	if (type != VT_MSG_BEGIN)
		return -1;
	name[n] = '\0';
	return 1;
}

static void take_end(struct vt *t, const void *buf, uint32_t len)
{
	const struct end_msg *m = buf;

	t->peer_ended = true;
	t->peer_status = len >= sizeof(m->status) ? (int32_t)be32toh(m->status) : -1;
	snprintf(t->peer_reason, sizeof(t->peer_reason), "%.*s",
		 (int)(len > sizeof(m->status) ? len - sizeof(m->status) : 0), m->reason);
}

int vt_put(struct vt *t, const void *buf, uint32_t len)
{
	if (t->peer_ended)
		return vt_fail(t, "peer ended the case early");
	if (send_frame(t->ctrl_fd, VT_MSG_DATA, buf, len))
		return vt_fail(t, "control stream: send failed");
	return 0;
}

int vt_get(struct vt *t, void *buf, uint32_t len)
{
	char frame[FRAME_MAX];
	uint32_t type, n;
	int rc;

	if (t->peer_ended)
		return vt_fail(t, "peer ended the case early");
	rc = recv_frame(t->ctrl_fd, &type, frame, sizeof(frame), &n, ctrl_wait_ms(t));
	if (rc)
		return vt_fail(t, "control stream: %s", strerror(-rc));
	if (type == VT_MSG_END) {
		take_end(t, frame, n);
		return vt_fail(t, "peer: %.240s", t->peer_reason[0] ? t->peer_reason : "ended early");
	}
	if (type != VT_MSG_DATA || n != len)
		return vt_fail(t, "control stream out of step (type %u, %u bytes, expected %u)",
			       type, n, len);
	memcpy(buf, frame, len);
	return 0;
}

int vt_put_u64(struct vt *t, uint64_t v)
{
	v = htobe64(v);
	return vt_put(t, &v, sizeof(v));
}

int vt_get_u64(struct vt *t, uint64_t *v)
{
	if (vt_get(t, v, sizeof(*v)))
		return -1;
	*v = be64toh(*v);
	return 0;
}

/* Both halves wait here for each other. */
int vt_sync(struct vt *t)
{
	uint64_t v;

	return vt_put_u64(t, 0x53594e43) || vt_get_u64(t, &v) ? -1 : 0;
}

/* Trade END frames; returns the case verdict (0 only if both halves passed)
 * and leaves the reason to report in t->reason. */
int vt_ctrl_end(struct vt *t, int status)
{
	struct end_msg m = { .status = (int32_t)htobe32((uint32_t)status) };
	char frame[FRAME_MAX];
	uint32_t type, n;

	snprintf(m.reason, sizeof(m.reason), "%s", t->reason);
	if (send_frame(t->ctrl_fd, VT_MSG_END, &m, sizeof(m.status) + strlen(m.reason)))
		return -2;
	while (!t->peer_ended) {
		if (recv_frame(t->ctrl_fd, &type, frame, sizeof(frame), &n, ctrl_wait_ms(t)))
			return -2;
		if (type == VT_MSG_END)
			take_end(t, frame, n);
	}
	if (status == 0 && t->peer_status != 0)
		snprintf(t->reason, sizeof(t->reason), "peer: %.240s", t->peer_reason);
	return status || t->peer_status ? -1 : 0;
}
