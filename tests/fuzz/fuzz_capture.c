// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz_capture: capture files for `ebpfcount -r`, pcap and pcapng, as the
 * input's bytes, through capture_open() and capture_next() (and so
 * libpcap's readers), each record run in the user engine by the program
 * of `count by ip.src/24, tcp.dstport, frame.len` (--max-keys 16), as
 * main.c's run_file() runs it, which also puts each record in its
 * interval (capture_intervals(), capture_interval_end(); 1 s).
 *
 * Oracles: no crash and no leak (ASan, LeakSanitizer); no undefined
 * behaviour (UBSan: the time arithmetic); a file refused, or a record that
 * cannot be read, gives one error of one line; every record the engine
 * runs without a fault, and counts exactly once; a record's interval ends
 * after it and the one before by it.
 */
#include <sys/mman.h>
#include <unistd.h>

#include "capture.h"
#include "compile.h"
#include "fuzz.h"
#include "maps.h"
#include "session.h"

#define EXPR		"count by ip.src/24, tcp.dstport, frame.len"
#define MAX_RECORDS	1000
#define STEP		1000000000LL

static void check_error(const char *what, const char *err)
{
	if (!err[0] || strchr(err, '\n'))
		fuzz_fail("%s: the error is not one line: '%s'", what, err);
}

/* The intervals of run_file(), from start, for a record at ts. */
static void check_interval(long long start, long long ts)
{
	unsigned long long due = capture_intervals(start, STEP, ts);
	long long end;

	/* the intervals before a record's end by it (start, if before start) */
	if (capture_interval_end(start, STEP, due, &end) || (ts >= start ? end > ts : due))
		fuzz_fail("start %lld, ts %lld: %llu intervals end at %lld", start, ts, due, end);
	if (ts >= start && !capture_interval_end(start, STEP, due + 1, &end) && end <= ts)
		fuzz_fail("start %lld, ts %lld: interval %llu ends at %lld", start, ts, due + 1,
			  end);
}

static int add_entry(const unsigned char *key, const struct counter *c, void *ctx)
{
	(void)key;
	*(__u64 *)ctx += c->packets;
	return 0;
}

/* Every record of c through p's program in a new engine. */
static void run(struct capture *c, const struct program *p)
{
	struct counter overflow;
	struct packet skb;
	struct session s;
	__u64 counted = 0;
	char err[512] = "";
	long long ts, start = 0;
	int ret = 0;

	if (session_open(&s, p, &(struct session_opts){ 0 }, err, sizeof(err)))
		fuzz_fail("session_open: %s", err);
	while (capture_records(c) < MAX_RECORDS &&
	       (ret = capture_next(c, &skb, &ts, err, sizeof(err))) == 1) {
		if (capture_records(c) == 1)
			start = ts;
		check_interval(start, ts);
		if (session_run(&s, &skb, err, sizeof(err)))
			fuzz_fail("record %lu: %s", capture_records(c), err);
	}
	if (ret < 0)
		check_error("capture_next", err);
	if (maps_read(&s.m[0], add_entry, &counted, &overflow))
		fuzz_fail("maps_read failed");
	if (counted + overflow.packets != capture_records(c))
		fuzz_fail("%lu records, %llu packets counted", capture_records(c),
			  (unsigned long long)(counted + overflow.packets));
	session_close(&s);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct program p;
	static char path[64];
	static int fd = -1;
	struct capture *c;
	char err[512] = "";

	if (fd < 0) {
		struct build_opts o = { .allowed = FRAME_WINDOW, .max_keys = 16 };
		struct build_error berr;

		fd = memfd_create("capture", 0);
		if (fd < 0 || program_build(&p, (const char *[]){ EXPR }, 1, &o, &berr))
			fuzz_fail("set-up failed");
		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	}
	if (ftruncate(fd, 0) || pwrite(fd, data, size, 0) != (ssize_t)size)
		fuzz_fail("cannot write the capture");
	c = capture_open(path, err, sizeof(err));
	if (!c) {
		check_error("capture_open", err);
		return 0;
	}
	run(c, &p);
	capture_close(c);
	return 0;
}
