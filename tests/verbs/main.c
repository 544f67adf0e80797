// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * sroce_verbs_test - RC data-path integrity and error tests over libibverbs.
 *
 *   sroce_verbs_test --loopback [options]        both halves, one device, one process
 *   sroce_verbs_test --server [options]          the server half, for one client
 *   sroce_verbs_test --client HOST [options]     the client half against HOST
 *   sroce_verbs_test --list
 *
 * Prints "ok NAME" or "not ok NAME - reason" per case and a final
 * "N passed, N failed" line; exits 1 if a case failed, 2 on a setup error.
 */
#include <errno.h>
#include <fnmatch.h>
#include <getopt.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "verbs_test.h"

#define DEFAULT_TCP_PORT	18515
#define MAX_ONLY		64

enum mode { MODE_NONE, MODE_LOOPBACK, MODE_SERVER, MODE_CLIENT, MODE_LIST };

struct config {
	struct vt_opts vt;
	enum mode mode;
	const char *host;
	int tcp_port;
	int nonly, nskip;
	const char *only[MAX_ONLY];
	const char *skip[MAX_ONLY];
};

static const struct vt_case *const tables[] = {
	vt_ops_cases, vt_ex_cases, vt_object_cases, vt_error_cases, vt_scale_cases,
	vt_ud_cases, vt_srq_cases, vt_mw_cases,
	vt_on_request_cases, vt_limit_cases,
};

#define for_each_case(c, i) \
	for (i = 0; i < sizeof(tables) / sizeof(tables[0]); i++) \
		for (c = tables[i]; c->name; c++)

const struct vt_case *vt_find_case(const char *name)
{
	const struct vt_case *c;
	size_t i;

	for_each_case(c, i)
		if (!strcmp(c->name, name))
			return c;
	return NULL;
}

static bool matches(const char *const *patterns, int n, const char *name)
{
	int i;

	for (i = 0; i < n; i++)
		if (!fnmatch(patterns[i], name, 0))
			return true;
	return false;
}

static bool in_table(const struct vt_case *table, const struct vt_case *c)
{
	const struct vt_case *r;

	for (r = table; r->name; r++)
		if (r == c)
			return true;
	return false;
}

static bool on_request(const struct vt_case *c)
{
	return in_table(vt_on_request_cases, c) || in_table(vt_limit_cases, c);
}

static bool selected(const struct config *cfg, const struct vt_case *c)
{
	if (!cfg->nonly && on_request(c))
		return false;
	return (!cfg->nonly || matches(cfg->only, cfg->nonly, c->name)) &&
	       !matches(cfg->skip, cfg->nskip, c->name);
}

/* Run one half of a case and trade verdicts. -2: the stream is lost. */
static int run_half(struct vt *t, const struct vt_case *c)
{
	int (*fn)(struct vt *t) = t->role == VT_CLIENT ? c->client : c->server;
	int rc = 0;

	vt_begin(t);
	t->arg = c->arg;
	if (!t->pd)
		rc = -1;
	else if (fn)
		rc = fn(t) ? -1 : 0;
	if (rc && !t->reason[0])
		vt_fail(t, "failed without a reason");
	rc = vt_ctrl_end(t, rc);
	vt_cleanup(t);
	if (rc == 0 && t->reason[0])	/* cleanup failed */
		rc = -1;
	return rc;
}

static void report(const char *name, int rc, const char *reason, int *passed, int *failed)
{
	if (rc == 0) {
		printf("ok %s\n", name);
		++*passed;
	} else {
		printf("not ok %s - %s\n", name, reason[0] ? reason : "failed");
		++*failed;
	}
}

static int unknown_case(struct vt *t)
{
	return vt_fail(t, "the server does not know this case");
}

struct server_args {
	const struct config *cfg;
	int fd;
	bool quiet;
	int failed;
};

/* The server half: run the cases the client names until it quits. */
static int serve(const struct config *cfg, int fd, bool quiet)
{
	static struct vt t;	/* large: not on a thread's stack */
	struct vt_dev dev;
	char name[256];
	int passed = 0, failed = 0, rc;

	if (vt_dev_open(&dev, &cfg->vt))
		return 2;
	t = (struct vt) { .role = VT_SERVER, .opts = &cfg->vt, .dev = &dev, .ctrl_fd = fd,
			  .rng = cfg->vt.seed ^ 0x5e5e5e5e5e5e5e5eULL };
	while ((rc = vt_ctrl_next(fd, name, sizeof(name))) == 1) {
		const struct vt_case unknown = { .name = name, .server = unknown_case };
		const struct vt_case *c = vt_find_case(name) ?: &unknown;

		rc = run_half(&t, c);
		if (rc == -2) {
			fprintf(stderr, "server: control stream lost in %s\n", name);
			failed++;
			break;
		}
		if (!quiet)
			report(name, rc, t.reason, &passed, &failed);
		else if (rc)
			failed++;
	}
	if (rc < 0)
		fprintf(stderr, "server: control stream protocol error\n");
	if (!quiet)
		printf("%d passed, %d failed\n", passed, failed);
	vt_dev_close(&dev);
	return failed ? 1 : 0;
}

static void *serve_thread(void *arg)
{
	struct server_args *a = arg;

	a->failed = serve(a->cfg, a->fd, a->quiet);
	return NULL;
}

/* The client half: every selected case in table order. */
static int drive(const struct config *cfg, int fd)
{
	static struct vt t;
	const struct vt_case *c;
	struct vt_dev dev;
	int passed = 0, failed = 0, rc;
	size_t i;

	if (vt_dev_open(&dev, &cfg->vt))
		return 2;
	printf("# device %s port %d gid index %d, seed %llu\n",
	       ibv_get_device_name(dev.ctx->device), dev.port, dev.gid_index,
	       (unsigned long long)cfg->vt.seed);
	t = (struct vt) { .role = VT_CLIENT, .opts = &cfg->vt, .dev = &dev, .ctrl_fd = fd,
			  .rng = cfg->vt.seed };
	for_each_case(c, i) {
		if (!selected(cfg, c))
			continue;
		if (vt_ctrl_begin(fd, c->name)) {
			fprintf(stderr, "client: control stream lost before %s\n", c->name);
			failed++;
			break;
		}
		rc = run_half(&t, c);
		if (rc == -2) {
			printf("not ok %s - control stream lost\nBail out!\n", c->name);
			failed++;
			break;
		}
		report(c->name, rc, t.reason, &passed, &failed);
	}
	vt_ctrl_quit(fd);
	printf("%d passed, %d failed\n", passed, failed);
	vt_dev_close(&dev);
	return failed ? 1 : (passed ? 0 : 2);
}

static int run_loopback(const struct config *cfg)
{
	struct server_args sa = { .cfg = cfg, .quiet = true };
	pthread_t th;
	int sv[2], rc;

	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv)) {
		perror("socketpair");
		return 2;
	}
	sa.fd = sv[1];
	if (pthread_create(&th, NULL, serve_thread, &sa)) {
		fprintf(stderr, "pthread_create failed\n");
		return 2;
	}
	rc = drive(cfg, sv[0]);
	close(sv[0]);
	pthread_join(th, NULL);
	close(sv[1]);
	if (rc == 0 && sa.failed)
		rc = 1;
	return rc;
}

static int run_server(const struct config *cfg)
{
	int lfd = vt_ctrl_listen(cfg->tcp_port), fd, rc;

	if (lfd < 0) {
		perror("listen");
		return 2;
	}
	printf("# listening on TCP port %d\n", cfg->tcp_port);
	fd = vt_ctrl_accept(lfd);
	close(lfd);
	if (fd < 0) {
		perror("accept");
		return 2;
	}
	rc = serve(cfg, fd, false);
	close(fd);
	return rc;
}

static int run_client(const struct config *cfg)
{
	int fd = vt_ctrl_connect(cfg->host, cfg->tcp_port, 60), rc;

	if (fd < 0) {
		fprintf(stderr, "cannot connect to %s:%d\n", cfg->host, cfg->tcp_port);
		return 2;
	}
	rc = drive(cfg, fd);
	close(fd);
	return rc;
}

static void list_cases(const struct config *cfg)
{
	const struct vt_case *c;
	size_t i;

	for_each_case(c, i)
		if (selected(cfg, c))
			printf("%-28s %s\n", c->name, c->what);
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: sroce_verbs_test --loopback | --server | --client HOST | --list [options]\n"
		"  -d, --dev NAME        RDMA device (default: the first)\n"
		"  -i, --ib-port N       device port (default 1)\n"
		"  -g, --gid-index N     GID index (default: the IPv4-mapped RoCE v2 GID)\n"
		"  -p, --port N          TCP port of the control stream (default %d)\n"
		"  -o, --only PATTERN    run only matching cases (fnmatch; repeatable)\n"
		"  -x, --skip PATTERN    do not run matching cases (fnmatch; repeatable)\n"
		"  -t, --timeout SEC     longest wait for one completion (default 20)\n"
		"  -n, --many N          messages in many_sends (default 10000)\n"
		"  -M, --midway CMD      many_sends runs CMD (sh -c) once half its messages completed\n"
		"  -T, --qp-timeout N    local ACK timeout 4.096 us * 2^N of the cases' QPs (default 14)\n"
		"  -s, --seed N          random seed (default: time)\n"
		"  -v, --verbose         progress notes\n"
		"      --uc              the cases' QPs are UC (for the SEND and WRITE cases:\n"
		"                        --only 'send*' --only 'write*' ...)\n", DEFAULT_TCP_PORT);
}

static long number(const char *s, long min, long max)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 0);
	if (errno || *end || v < min || v > max) {
		fprintf(stderr, "bad number '%s'\n", s);
		exit(2);
	}
	return v;
}

static void add_pattern(const char **patterns, int *n, const char *p)
{
	if (*n == MAX_ONLY) {
		fprintf(stderr, "too many --only/--skip patterns\n");
		exit(2);
	}
	patterns[(*n)++] = p;
}

static void parse_args(struct config *cfg, int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "loopback", no_argument, NULL, 'L' }, { "server", no_argument, NULL, 'S' },
		{ "client", required_argument, NULL, 'C' }, { "list", no_argument, NULL, 'l' },
		{ "dev", required_argument, NULL, 'd' }, { "ib-port", required_argument, NULL, 'i' },
		{ "gid-index", required_argument, NULL, 'g' }, { "port", required_argument, NULL, 'p' },
		{ "only", required_argument, NULL, 'o' }, { "skip", required_argument, NULL, 'x' },
		{ "timeout", required_argument, NULL, 't' },
		{ "qp-timeout", required_argument, NULL, 'T' },
		{ "many", required_argument, NULL, 'n' }, { "seed", required_argument, NULL, 's' },
		{ "midway", required_argument, NULL, 'M' },
		{ "verbose", no_argument, NULL, 'v' }, { "help", no_argument, NULL, 'h' },
		{ "uc", no_argument, NULL, 'U' },
		{ 0 }
	};
	int ch;

	while ((ch = getopt_long(argc, argv, "d:i:g:p:o:x:t:T:n:M:s:vh", longopts, NULL)) != -1) {
		switch (ch) {
		case 'L': cfg->mode = MODE_LOOPBACK; break;
		case 'S': cfg->mode = MODE_SERVER; break;
		case 'C': cfg->mode = MODE_CLIENT; cfg->host = optarg; break;
		case 'l': cfg->mode = MODE_LIST; break;
		case 'd': cfg->vt.dev_name = optarg; break;
		case 'i': cfg->vt.ib_port = number(optarg, 1, 255); break;
		case 'g': cfg->vt.gid_index = number(optarg, 0, 65535); break;
		case 'p': cfg->tcp_port = number(optarg, 1, 65535); break;
		case 'o': add_pattern(cfg->only, &cfg->nonly, optarg); break;
		case 'x': add_pattern(cfg->skip, &cfg->nskip, optarg); break;
		case 't': cfg->vt.wait_ms = number(optarg, 1, 3600) * 1000; break;
		case 'T': cfg->vt.qp_timeout = number(optarg, 1, 31); break;
		case 'n': cfg->vt.many = number(optarg, 1, 100000000); break;
		case 'M': cfg->vt.midway = optarg; break;
		case 's': cfg->vt.seed = strtoull(optarg, NULL, 0); break;
		case 'v': cfg->vt.verbose = true; break;
		case 'U': cfg->vt.uc = true; break;
		case 'h': usage(stdout); exit(0);
		default: usage(stderr); exit(2);
		}
	}
	if (optind != argc || cfg->mode == MODE_NONE) {
		usage(stderr);
		exit(2);
	}
}

int main(int argc, char **argv)
{
	struct config cfg = {
		.vt = { .ib_port = 1, .gid_index = -1, .wait_ms = 20000, .qp_timeout = 14, .many = 10000,
			.seed = (uint64_t)time(NULL) * 2654435761u },
		.tcp_port = DEFAULT_TCP_PORT,
	};

	setvbuf(stdout, NULL, _IOLBF, 0);
	signal(SIGPIPE, SIG_IGN);
	parse_args(&cfg, argc, argv);
	switch (cfg.mode) {
	case MODE_LIST: list_cases(&cfg); return 0;
	case MODE_LOOPBACK: return run_loopback(&cfg);
	case MODE_SERVER: return run_server(&cfg);
	case MODE_CLIENT: return run_client(&cfg);
	default: return 2;
	}
}
