// SPDX-License-Identifier: GPL-2.0
/*
 * tcpca: register tcpca.bpf.c's TCP congestion control through a
 * struct_ops map, push data over a loopback connection that uses it, and
 * check that its callbacks ran; then unregister it and check that the name
 * is gone.  Proves struct_ops maps load, attach and detach on this kernel.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include <bpf/libbpf.h>
#include "tcpca.skel.h"

#define CA_NAME "scx_testca"

static int fail(const char *what)
{
	fprintf(stderr, "tcpca: %s: %s\n", what, strerror(errno));
	return -1;
}

/* Send @bytes from a client socket using CA_NAME to a loopback server. */
static int transfer(size_t bytes)
{
	struct sockaddr_in addr = { .sin_family = AF_INET };
	socklen_t len = sizeof(addr);
	char buf[65536], name[32] = "";
	int lfd, cfd, sfd, one = 1;
	size_t sent = 0, got = 0;
	ssize_t n;

	memset(buf, 'x', sizeof(buf));
	addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	lfd = socket(AF_INET, SOCK_STREAM, 0);
	if (lfd < 0 || bind(lfd, (void *)&addr, sizeof(addr)) ||
	    listen(lfd, 1) || getsockname(lfd, (void *)&addr, &len))
		return fail("listen");
	cfd = socket(AF_INET, SOCK_STREAM, 0);
	if (cfd < 0)
		return fail("socket");
	if (setsockopt(cfd, IPPROTO_TCP, TCP_CONGESTION, CA_NAME, strlen(CA_NAME)))
		return fail("setsockopt(TCP_CONGESTION)");
	setsockopt(cfd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	if (connect(cfd, (void *)&addr, sizeof(addr)))
		return fail("connect");
	sfd = accept(lfd, NULL, NULL);
	if (sfd < 0)
		return fail("accept");
	len = sizeof(name);
	getsockopt(cfd, IPPROTO_TCP, TCP_CONGESTION, name, &len);
	printf("client congestion control: %s\n", name);
	if (strcmp(name, CA_NAME)) {
		fprintf(stderr, "tcpca: socket does not use %s\n", CA_NAME);
		return -1;
	}
	while (got < bytes) {
		if (sent < bytes) {
			n = send(cfd, buf, sizeof(buf), MSG_DONTWAIT);
			if (n > 0)
				sent += n;
		}
		n = recv(sfd, buf, sizeof(buf), sent < bytes ? MSG_DONTWAIT : 0);
		if (n > 0)
			got += n;
		else if (n == 0)
			break;
	}
	close(cfd);
	close(sfd);
	close(lfd);
	return 0;
}

int main(int argc, char **argv)
{
	struct tcpca_bpf *skel;
	struct bpf_link *link;
	int ret = 1, fd;
	char name[32];
	socklen_t len = sizeof(name);

	if (argc > 1) {
		printf("usage: tcpca\nRegister a counting TCP congestion control "
		       "through struct_ops, use it on loopback, check the counts.\n");
		return strcmp(argv[1], "-h") ? 2 : 0;
	}
	skel = tcpca_bpf__open_and_load();
	if (!skel) {
		fail("open/load");
		return 1;
	}
	link = bpf_map__attach_struct_ops(skel->maps.testca);
	if (!link) {
		fail("attach struct_ops");
		goto out;
	}
	if (transfer(16 << 20))
		goto out_link;
	printf("init=%llu cong_avoid=%llu ssthresh=%llu undo=%llu set_state=%llu release=%llu\n",
	       (unsigned long long)skel->bss->nr_init,
	       (unsigned long long)skel->bss->nr_cong_avoid,
	       (unsigned long long)skel->bss->nr_ssthresh,
	       (unsigned long long)skel->bss->nr_undo,
	       (unsigned long long)skel->bss->nr_state,
	       (unsigned long long)skel->bss->nr_release);
	if (skel->bss->nr_init < 1 || skel->bss->nr_cong_avoid < 1) {
		fprintf(stderr, "tcpca: callbacks did not run\n");
		goto out_link;
	}
	ret = 0;
out_link:
	bpf_link__destroy(link);
	/* After detaching, the name must no longer be usable. */
	fd = socket(AF_INET, SOCK_STREAM, 0);
	if (fd >= 0 && !setsockopt(fd, IPPROTO_TCP, TCP_CONGESTION, CA_NAME,
				   strlen(CA_NAME)) &&
	    !getsockopt(fd, IPPROTO_TCP, TCP_CONGESTION, name, &len) &&
	    !strcmp(name, CA_NAME)) {
		fprintf(stderr, "tcpca: %s still registered after detach\n", CA_NAME);
		ret = 1;
	}
	if (fd >= 0)
		close(fd);
out:
	tcpca_bpf__destroy(skel);
	return ret;
}
