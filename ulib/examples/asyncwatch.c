/*
 * asyncwatch DEVICE SECONDS [COUNT LINGER]: print the device's asynchronous
 * events, one line each ("PORT_ERR port 1"), for SECONDS seconds; an
 * ordinary verbs program built against the distro <infiniband/verbs.h>.
 *
 * With COUNT, the watch ends LINGER seconds after the COUNT-th event (or
 * after SECONDS, whichever comes first): a test that expects COUNT events
 * need not sit out the whole timeout, and an unexpected extra event
 * arriving with or shortly after the expected ones is still printed.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <infiniband/verbs.h>

static const char *event_name(enum ibv_event_type type)
{
	switch (type) {
	case IBV_EVENT_PORT_ACTIVE:
		return "PORT_ACTIVE";
	case IBV_EVENT_PORT_ERR:
		return "PORT_ERR";
	case IBV_EVENT_GID_CHANGE:
		return "GID_CHANGE";
	case IBV_EVENT_DEVICE_FATAL:
		return "DEVICE_FATAL";
	default:
		return ibv_event_type_str(type);
	}
}

int main(int argc, char **argv)
{
	struct ibv_device **list, *dev = NULL;
	struct ibv_context *ctx;
	struct timespec start, now;
	int i, num, seconds, count = 0, linger = 0, seen = 0;

	if (argc != 3 && argc != 5) {
		fprintf(stderr, "usage: %s DEVICE SECONDS [COUNT LINGER]\n",
			argv[0]);
		return 2;
	}
	seconds = atoi(argv[2]);
	if (argc == 5) {
		count = atoi(argv[3]);
		linger = atoi(argv[4]);
		if (count <= 0 || linger < 0) {
			fprintf(stderr, "COUNT must be > 0, LINGER >= 0\n");
			return 2;
		}
	}

	list = ibv_get_device_list(&num);
	if (!list) {
		perror("ibv_get_device_list");
		return 1;
	}
	for (i = 0; i < num; i++)
		if (!strcmp(ibv_get_device_name(list[i]), argv[1]))
			dev = list[i];
	if (!dev) {
		fprintf(stderr, "%s: no such device\n", argv[1]);
		return 1;
	}
	ctx = ibv_open_device(dev);
	if (!ctx) {
		perror("ibv_open_device");
		return 1;
	}
	/* non-blocking, so the watch ends on time even with no events */
	if (fcntl(ctx->async_fd, F_SETFL,
		  fcntl(ctx->async_fd, F_GETFL) | O_NONBLOCK)) {
		perror("fcntl");
		return 1;
	}
	printf("watching %s\n", argv[1]);
	fflush(stdout);

	clock_gettime(CLOCK_MONOTONIC, &start);
	for (;;) {
		struct pollfd pfd = { .fd = ctx->async_fd, .events = POLLIN };
		struct ibv_async_event ev;
		long left_ms;

		clock_gettime(CLOCK_MONOTONIC, &now);
		left_ms = (start.tv_sec + seconds - now.tv_sec) * 1000L +
			  (start.tv_nsec - now.tv_nsec) / 1000000L;
		if (left_ms <= 0)
			break;
		if (poll(&pfd, 1, (int)left_ms) <= 0)
			continue;
		if (ibv_get_async_event(ctx, &ev)) {
			if (errno == EAGAIN)
				continue;
			perror("ibv_get_async_event");
			return 1;
		}
		printf("%s port %d\n", event_name(ev.event_type),
		       ev.element.port_num);
		fflush(stdout);
		ibv_ack_async_event(&ev);
		if (count && ++seen == count) {
			/* from now on: LINGER more seconds at most */
			clock_gettime(CLOCK_MONOTONIC, &now);
			if ((now.tv_sec + linger - start.tv_sec) < seconds) {
				start = now;
				seconds = linger;
			}
		}
	}
	ibv_close_device(ctx);
	ibv_free_device_list(list);
	return 0;
}
