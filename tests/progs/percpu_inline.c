// SPDX-License-Identifier: GPL-2.0
/*
 * Guest test of the per-CPU map lookup inlining (kernel-patches/).
 *
 *   percpu_inline --inline yes|no
 *
 * For PERCPU_ARRAY, PERCPU_HASH and LRU_PERCPU_HASH, load a socket filter
 * that looks up one key and increments its value (returns 1), or returns 2
 * when the lookup gives NULL.  Each program is loaded in four modes:
 *
 *   jit      bpf_jit_enable=1: inlined when --inline yes
 *   interp   bpf_jit_enable=0: never inlined (the verifier only inlines
 *            for programs that will be JITed)
 *   unpriv   bpf_jit_enable=1, program (and map, except the LRU map) made
 *            by uid 65534: the array lookup gets the Spectre v1 index mask
 *   jitfail  bpf_jit_enable=1, but the JIT fails (loaded unprivileged with
 *            bpf_jit_limit=1).  Debian's 6.1 then refuses the program
 *            (ENOTSUPP: a program that requested the JIT never falls back
 *            to the interpreter); should a kernel fall back instead, the
 *            interpreted program is checked like the others
 *
 * The translated program (xlated_prog_insns) is checked for a call to the
 * map type's out-of-line lookup function or to the bpf_map_lookup_elem
 * helper (resolved with /proc/kallsyms)
 * and for the kernel-internal per-CPU instruction (opcode 0xef).  The
 * program is run pinned to each online CPU with BPF_PROG_TEST_RUN and a
 * different repeat count per CPU; each CPU's slot must hold exactly its own
 * count.  Out-of-range indexes and missing keys must give NULL.  A per-CPU
 * array used as the inner map of an array of maps must not be inlined.
 * User space must not be able to load the internal instruction.
 *
 * Output is TAP.  Must run as root in a guest (it writes sysctls).
 */
#include <errno.h>
#include <sched.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <linux/bpf.h>

#include "insn.h"

#define INTERNAL_PERCPU_OPCODE	(BPF_ALU64 | 0xe0 | BPF_X)	/* 0xef */
#define RET_HIT		1
#define RET_MISS	2
#define MAX_CPUS	64

static int n_test, n_fail;

static void result(bool pass, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void result(bool pass, const char *fmt, ...)
{
	va_list ap;

	printf("%sok %d - ", pass ? "" : "not ", ++n_test);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	if (!pass)
		n_fail++;
	fflush(stdout);
}

/* ---- sysctls ---------------------------------------------------------- */

static int write_sysctl(const char *path, const char *val)
{
	FILE *f = fopen(path, "w");
	int rc;

	if (!f)
		return -1;
	rc = fputs(val, f) < 0 ? -1 : 0;
	if (fclose(f))
		rc = -1;
	return rc;
}

static void read_sysctl(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");

	buf[0] = 0;
	if (f) {
		if (!fgets(buf, (int)len, f))
			buf[0] = 0;
		fclose(f);
	}
	buf[strcspn(buf, "\n")] = 0;
}

#define JIT_ENABLE	"/proc/sys/net/core/bpf_jit_enable"
#define JIT_LIMIT	"/proc/sys/net/core/bpf_jit_limit"
#define UNPRIV_SYSCTL	"/proc/sys/kernel/unprivileged_bpf_disabled"

/* ---- kallsyms ---------------------------------------------------------- */

struct sym {
	const char *name;
	unsigned long long addr;
};

static struct sym syms[] = {
	{ "__bpf_call_base", 0 },
	{ "percpu_array_map_lookup_elem", 0 },
	{ "htab_percpu_map_lookup_elem", 0 },
	{ "htab_lru_percpu_map_lookup_elem", 0 },
	{ "__htab_map_lookup_elem", 0 },
	{ "bpf_map_lookup_elem", 0 },	/* the helper, called when not JITed */
};
#define NSYMS (sizeof(syms) / sizeof(syms[0]))

static void load_kallsyms(void)
{
	char line[512], name[256], type;
	unsigned long long addr;
	FILE *f = fopen("/proc/kallsyms", "r");
	size_t i;

	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%llx %c %255s", &addr, &type, name) != 3)
			continue;
		for (i = 0; i < NSYMS; i++)
			if (!syms[i].addr && !strcmp(name, syms[i].name))
				syms[i].addr = addr;
	}
	fclose(f);
}

static unsigned long long sym_addr(const char *name)
{
	size_t i;

	for (i = 0; i < NSYMS; i++)
		if (!strcmp(syms[i].name, name))
			return syms[i].addr;
	return 0;
}

/* ---- programs ----------------------------------------------------------- */

static char vlog[1 << 16];

/* key on the stack, lookup, increment the u64 value, return 1; NULL: 2 */
static int load_count_prog(int map_fd, __u32 key)
{
	struct bpf_insn insns[] = {
		BPF_ST_MEM(BPF_W, BPF_REG_10, -4, (__s32)key),
		BPF_LD_MAP_FD(BPF_REG_1, map_fd),
		BPF_MOV64_REG(BPF_REG_2, BPF_REG_10),
		BPF_ALU64_IMM(BPF_ADD, BPF_REG_2, -4),
		BPF_EMIT_CALL(BPF_FUNC_map_lookup_elem),
		BPF_JMP_IMM(BPF_JEQ, BPF_REG_0, 0, 5),
		BPF_LDX_MEM(BPF_DW, BPF_REG_1, BPF_REG_0, 0),
		BPF_ALU64_IMM(BPF_ADD, BPF_REG_1, 1),
		BPF_STX_MEM(BPF_DW, BPF_REG_0, BPF_REG_1, 0),
		BPF_MOV64_IMM(BPF_REG_0, RET_HIT),
		BPF_EXIT_INSN(),
		BPF_MOV64_IMM(BPF_REG_0, RET_MISS),
		BPF_EXIT_INSN(),
	};
	LIBBPF_OPTS(bpf_prog_load_opts, opts, .log_buf = vlog,
		    .log_size = sizeof(vlog), .log_level = 0);
	int fd;

	fd = bpf_prog_load(BPF_PROG_TYPE_SOCKET_FILTER, "pcpu_count", "GPL",
			   insns, sizeof(insns) / sizeof(insns[0]), &opts);
	if (fd < 0)
		printf("# bpf_prog_load: %s\n%s\n", strerror(errno), vlog);
	return fd;
}

/* outer[0] is a per-CPU array: lookup outer, then inner[key], increment */
static int load_inner_prog(int outer_fd, __u32 key)
{
	struct bpf_insn insns[] = {
		BPF_ST_MEM(BPF_W, BPF_REG_10, -4, 0),
		BPF_LD_MAP_FD(BPF_REG_1, outer_fd),
		BPF_MOV64_REG(BPF_REG_2, BPF_REG_10),
		BPF_ALU64_IMM(BPF_ADD, BPF_REG_2, -4),
		BPF_EMIT_CALL(BPF_FUNC_map_lookup_elem),
		BPF_JMP_IMM(BPF_JEQ, BPF_REG_0, 0, 10),
		BPF_MOV64_REG(BPF_REG_1, BPF_REG_0),
		BPF_ST_MEM(BPF_W, BPF_REG_10, -8, (__s32)key),
		BPF_MOV64_REG(BPF_REG_2, BPF_REG_10),
		BPF_ALU64_IMM(BPF_ADD, BPF_REG_2, -8),
		BPF_EMIT_CALL(BPF_FUNC_map_lookup_elem),
		BPF_JMP_IMM(BPF_JEQ, BPF_REG_0, 0, 5),
		BPF_LDX_MEM(BPF_DW, BPF_REG_1, BPF_REG_0, 0),
		BPF_ALU64_IMM(BPF_ADD, BPF_REG_1, 1),
		BPF_STX_MEM(BPF_DW, BPF_REG_0, BPF_REG_1, 0),
		BPF_MOV64_IMM(BPF_REG_0, RET_HIT),
		BPF_EXIT_INSN(),
		BPF_MOV64_IMM(BPF_REG_0, RET_MISS),
		BPF_EXIT_INSN(),
	};
	LIBBPF_OPTS(bpf_prog_load_opts, opts, .log_buf = vlog,
		    .log_size = sizeof(vlog), .log_level = 0);
	int fd;

	fd = bpf_prog_load(BPF_PROG_TYPE_SOCKET_FILTER, "pcpu_inner", "GPL",
			   insns, sizeof(insns) / sizeof(insns[0]), &opts);
	if (fd < 0)
		printf("# bpf_prog_load: %s\n%s\n", strerror(errno), vlog);
	return fd;
}

struct xinfo {
	bool ok;
	int ncalls_lookup;	/* calls to the out-of-line lookup: the map
				 * type's function or the generic helper
				 */
	int npercpu;		/* internal per-CPU instructions */
	int ncalls;		/* all calls */
	int nmask;		/* w0 &= imm: the index mask of an inlined array lookup */
	__u32 jited_len;
};

static struct xinfo inspect(int prog_fd, const char *lookup_fn)
{
	struct bpf_insn xl[512];
	struct bpf_prog_info info = {};
	__u32 len = sizeof(info), i, n;
	unsigned long long base = sym_addr("__bpf_call_base");
	unsigned long long fn = sym_addr(lookup_fn);
	unsigned long long helper = sym_addr("bpf_map_lookup_elem");
	struct xinfo x = { 0 };
	int fd;

	/*
	 * Call targets are hidden from the credentials the fd was opened
	 * with if they were unprivileged: look at a fresh fd opened as root.
	 */
	if (bpf_obj_get_info_by_fd(prog_fd, &info, &len)) {
		printf("# bpf_obj_get_info_by_fd: %s\n", strerror(errno));
		return x;
	}
	fd = bpf_prog_get_fd_by_id(info.id);
	if (fd < 0) {
		printf("# bpf_prog_get_fd_by_id: %s\n", strerror(errno));
		return x;
	}
	memset(&info, 0, sizeof(info));
	len = sizeof(info);
	info.xlated_prog_len = sizeof(xl);
	info.xlated_prog_insns = (__u64)(unsigned long)xl;
	if (bpf_obj_get_info_by_fd(fd, &info, &len)) {
		printf("# bpf_obj_get_info_by_fd: %s\n", strerror(errno));
		close(fd);
		return x;
	}
	close(fd);
	n = info.xlated_prog_len / sizeof(struct bpf_insn);
	if (n > sizeof(xl) / sizeof(xl[0]))
		n = sizeof(xl) / sizeof(xl[0]);
	for (i = 0; i < n; i++) {
		if (xl[i].code == INTERNAL_PERCPU_OPCODE)
			x.npercpu++;
		if (xl[i].code == (BPF_ALU | BPF_AND | BPF_K) && xl[i].dst_reg == 0)
			x.nmask++;
		if (xl[i].code == (BPF_JMP | BPF_CALL) && xl[i].src_reg == 0) {
			x.ncalls++;
			unsigned long long to = base + (long long)xl[i].imm;

			if (base && ((fn && to == fn) || (helper && to == helper)))
				x.ncalls_lookup++;
		}
	}
	x.jited_len = info.jited_prog_len;
	x.ok = base && fn && helper;
	return x;
}

/* ---- running ------------------------------------------------------------ */

static int ncpus_possible, ncpus_online;

static int pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return sched_setaffinity(0, sizeof(set), &set);
}

static void unpin(void)
{
	cpu_set_t set;
	int c;

	CPU_ZERO(&set);
	for (c = 0; c < ncpus_online; c++)
		CPU_SET(c, &set);
	sched_setaffinity(0, sizeof(set), &set);
}

static int run(int prog_fd, int repeat, __u32 *retval)
{
	unsigned char pkt[64] = { 0 };
	LIBBPF_OPTS(bpf_test_run_opts, topts, .data_in = pkt,
		    .data_size_in = sizeof(pkt), .repeat = repeat);
	int err = bpf_prog_test_run_opts(prog_fd, &topts);

	if (err)
		printf("# bpf_prog_test_run_opts: %s\n", strerror(errno));
	*retval = topts.retval;
	return err;
}

static int count_for(int cpu)
{
	return 1000 + 137 * cpu;
}

/*
 * Run prog_fd pinned to each online CPU, then check that the value of key
 * holds exactly each CPU's own count.  counts[] receives the slots.
 */
static bool percpu_counts(int prog_fd, int map_fd, __u32 key,
			  unsigned long long *counts)
{
	unsigned long long vals[MAX_CPUS];
	bool pass = true;
	__u32 ret;
	int c;

	for (c = 0; c < ncpus_online; c++) {
		if (pin(c)) {
			printf("# sched_setaffinity(%d): %s\n", c, strerror(errno));
			pass = false;
			continue;
		}
		if (run(prog_fd, count_for(c), &ret) || ret != RET_HIT) {
			printf("# cpu %d: retval %u, want %d\n", c, ret, RET_HIT);
			pass = false;
		}
	}
	unpin();
	memset(vals, 0xff, sizeof(vals));
	if (bpf_map_lookup_elem(map_fd, &key, vals)) {
		printf("# bpf_map_lookup_elem: %s\n", strerror(errno));
		return false;
	}
	for (c = 0; c < ncpus_possible; c++) {
		unsigned long long want = c < ncpus_online ? count_for(c) : 0;

		counts[c] = vals[c];
		if (vals[c] != want) {
			printf("# cpu %d slot holds %llu, want %llu\n", c, vals[c], want);
			pass = false;
		}
	}
	return pass;
}

/* the value of key still holds counts[] */
static bool value_unchanged(int map_fd, __u32 key, const unsigned long long *counts)
{
	unsigned long long vals[MAX_CPUS];

	if (bpf_map_lookup_elem(map_fd, &key, vals))
		return false;
	return !memcmp(vals, counts, sizeof(vals[0]) * ncpus_possible);
}

/* ---- the cases ------------------------------------------------------------- */

struct maptype {
	const char *name;
	enum bpf_map_type type;
	const char *lookup_fn;
	bool array;
};

static const struct maptype types[] = {
	{ "percpu_array", BPF_MAP_TYPE_PERCPU_ARRAY, "percpu_array_map_lookup_elem", true },
	{ "percpu_hash", BPF_MAP_TYPE_PERCPU_HASH, "htab_percpu_map_lookup_elem", false },
	{ "lru_percpu_hash", BPF_MAP_TYPE_LRU_PERCPU_HASH, "htab_lru_percpu_map_lookup_elem", false },
};
#define NTYPES (sizeof(types) / sizeof(types[0]))

enum mode { JIT, INTERP, JITFAIL, UNPRIV, NMODES };
static const char *mode_name[] = { "jit", "interp", "jitfail", "unpriv" };

#define ARRAY_ENTRIES	4
#define HASH_KEY	7
#define HASH_MISSING	8

static unsigned long long results[NTYPES][NMODES][MAX_CPUS];
static bool have_result[NTYPES][NMODES];
static bool jitfail_rejected[NTYPES];

static int create_map(const struct maptype *t)
{
	unsigned long long zero[MAX_CPUS] = { 0 };
	__u32 key = HASH_KEY;
	int fd;

	fd = bpf_map_create(t->type, t->name, sizeof(__u32), sizeof(__u64),
			    t->array ? ARRAY_ENTRIES : 16, NULL);
	if (fd < 0) {
		printf("# bpf_map_create(%s): %s\n", t->name, strerror(errno));
		return fd;
	}
	if (!t->array && bpf_map_update_elem(fd, &key, zero, BPF_NOEXIST)) {
		printf("# bpf_map_update_elem: %s\n", strerror(errno));
		close(fd);
		return -1;
	}
	return fd;
}

/* effective uid 65534 (no capabilities) or back to root */
static int unprivileged(bool on)
{
	if (on && write_sysctl(UNPRIV_SYSCTL, "0")) {
		printf("# cannot set %s: %s\n", UNPRIV_SYSCTL, strerror(errno));
		return -1;
	}
	if (setresuid(-1, on ? 65534 : 0, -1)) {
		printf("# setresuid: %s\n", strerror(errno));
		if (!on)
			exit(2);
		return -1;
	}
	return 0;
}

/*
 * Load as uid 65534; with jit_fail, while bpf_jit_limit=1, so that the JIT
 * cannot get memory for the image (the limit only binds without CAP_BPF).
 */
static int load_unprivileged(int map_fd, __u32 key, bool jit_fail)
{
	char old_limit[64];
	int fd = -1;

	read_sysctl(JIT_LIMIT, old_limit, sizeof(old_limit));
	if (jit_fail && write_sysctl(JIT_LIMIT, "1")) {
		printf("# cannot set %s: %s\n", JIT_LIMIT, strerror(errno));
		goto out;
	}
	if (unprivileged(true))
		goto out;
	fd = load_count_prog(map_fd, key);
	unprivileged(false);
out:
	if (jit_fail && old_limit[0])
		write_sysctl(JIT_LIMIT, old_limit);
	return fd;
}

static void test_type(size_t ti, enum mode m, bool expect_inline)
{
	const struct maptype *t = &types[ti];
	const char *mn = mode_name[m];
	__u32 hit_key = t->array ? 2 : HASH_KEY;
	__u32 miss_keys[2] = { t->array ? ARRAY_ENTRIES : HASH_MISSING,
			       t->array ? 0xffffffffu : 0 };
	int nmiss = t->array ? 2 : 1;
	int map_fd, prog_fd, miss_fd, i;
	bool want_inline = expect_inline && m != INTERP;
	bool unpriv_map;
	struct xinfo x;
	__u32 ret;

	write_sysctl(JIT_ENABLE, m == INTERP ? "0" : "1");
	unpriv_map = m == UNPRIV && t->type != BPF_MAP_TYPE_LRU_PERCPU_HASH;
	if (unpriv_map && unprivileged(true))
		unpriv_map = false;
	map_fd = create_map(t);
	if (unpriv_map)
		unprivileged(false);
	if (map_fd < 0) {
		result(false, "%s/%s: create map", t->name, mn);
		return;
	}
	errno = 0;
	prog_fd = m >= JITFAIL ? load_unprivileged(map_fd, hit_key, m == JITFAIL)
			       : load_count_prog(map_fd, hit_key);
	if (m == JITFAIL && prog_fd < 0) {
		result(errno == 524 /* ENOTSUPP */,
		       "%s/%s: JIT failure rejects the program instead of interpreting it (%s)",
		       t->name, mn, strerror(errno));
		jitfail_rejected[ti] = true;
		close(map_fd);
		return;
	}
	result(prog_fd >= 0, "%s/%s: load lookup+increment program", t->name, mn);
	if (prog_fd < 0) {
		close(map_fd);
		return;
	}

	x = inspect(prog_fd, t->lookup_fn);
	printf("# %s/%s: xlated: %d calls, %d to %s or the helper, %d per-CPU insns; jited %u bytes\n",
	       t->name, mn, x.ncalls, x.ncalls_lookup, t->lookup_fn, x.npercpu,
	       x.jited_len);
	if (want_inline && t->array)
		result(x.nmask == (unpriv_map ? 1 : 0),
		       "%s/%s: index masked against Spectre v1 iff the map was made unprivileged",
		       t->name, mn);
	if (want_inline)
		result(x.ok && x.ncalls_lookup == 0 && x.npercpu == 1,
		       "%s/%s: lookup inlined (no call to %s, one per-CPU insn)",
		       t->name, mn, t->lookup_fn);
	else
		result(x.ok && x.ncalls_lookup == 1 && x.npercpu == 0,
		       "%s/%s: lookup not inlined (one call to %s or the helper)",
		       t->name, mn, t->lookup_fn);
	if (m == JIT || m == UNPRIV)
		result(x.jited_len > 0, "%s/%s: program is JITed", t->name, mn);
	else
		result(x.jited_len == 0, "%s/%s: program runs in the interpreter",
		       t->name, mn);

	have_result[ti][m] = percpu_counts(prog_fd, map_fd, hit_key, results[ti][m]);
	result(have_result[ti][m],
	       "%s/%s: each of %d CPUs counted exactly its own packets",
	       t->name, mn, ncpus_online);

	for (i = 0; i < nmiss; i++) {
		miss_fd = m >= JITFAIL ? load_unprivileged(map_fd, miss_keys[i], m == JITFAIL)
				       : load_count_prog(map_fd, miss_keys[i]);
		bool pass;

		ret = 0;
		pass = miss_fd >= 0 && !run(miss_fd, 10, &ret) && ret == RET_MISS &&
		       value_unchanged(map_fd, hit_key, results[ti][m]);
		result(pass, "%s/%s: %s key %u gives NULL (retval %u)", t->name, mn,
		       t->array ? "out-of-range" : "missing", miss_keys[i], ret);
		if (miss_fd >= 0)
			close(miss_fd);
	}
	close(prog_fd);
	close(map_fd);
}

/* a per-CPU array as inner map of an array of maps: never inlined */
static void test_inner_map(enum mode m)
{
	const char *mn = mode_name[m];
	int inner, outer, prog_fd;
	unsigned long long counts[MAX_CPUS];
	__u32 zero = 0, key = 1;
	LIBBPF_OPTS(bpf_map_create_opts, oopts);
	struct xinfo x;

	write_sysctl(JIT_ENABLE, m == INTERP ? "0" : "1");
	inner = bpf_map_create(BPF_MAP_TYPE_PERCPU_ARRAY, "inner", 4, 8, 3, NULL);
	oopts.inner_map_fd = inner;
	outer = inner < 0 ? -1 :
		bpf_map_create(BPF_MAP_TYPE_ARRAY_OF_MAPS, "outer", 4, 4, 1, &oopts);
	if (outer < 0 || bpf_map_update_elem(outer, &zero, &inner, BPF_ANY)) {
		printf("# map-in-map setup: %s\n", strerror(errno));
		result(false, "inner_percpu_array/%s: setup", mn);
		return;
	}
	prog_fd = load_inner_prog(outer, key);
	result(prog_fd >= 0, "inner_percpu_array/%s: load program", mn);
	if (prog_fd < 0)
		return;
	x = inspect(prog_fd, "percpu_array_map_lookup_elem");
	printf("# inner_percpu_array/%s: xlated: %d calls, %d to lookups, %d per-CPU insns\n",
	       mn, x.ncalls, x.ncalls_lookup, x.npercpu);
	result(x.ok && x.ncalls_lookup >= 1 && x.npercpu == 0,
	       "inner_percpu_array/%s: inner lookup not inlined", mn);
	result(percpu_counts(prog_fd, inner, key, counts),
	       "inner_percpu_array/%s: each CPU counted exactly its own packets", mn);
	close(prog_fd);
	close(outer);
	close(inner);
}

/* the internal opcode must be refused when it comes from user space */
static void test_reject_internal(void)
{
	struct bpf_insn insns[] = {
		BPF_MOV64_REG(BPF_REG_0, BPF_REG_10),
		INSN(INTERNAL_PERCPU_OPCODE, BPF_REG_0, BPF_REG_0, 0, 0),
		BPF_MOV64_IMM(BPF_REG_0, 0),
		BPF_EXIT_INSN(),
	};
	LIBBPF_OPTS(bpf_prog_load_opts, opts, .log_buf = vlog,
		    .log_size = sizeof(vlog), .log_level = 1);
	int fd;

	write_sysctl(JIT_ENABLE, "1");
	vlog[0] = 0;
	fd = bpf_prog_load(BPF_PROG_TYPE_SOCKET_FILTER, "pcpu_reject", "GPL",
			   insns, sizeof(insns) / sizeof(insns[0]), &opts);
	result(fd < 0 && errno == EINVAL && strstr(vlog, "unknown opcode ef"),
	       "user space cannot load the internal per-CPU opcode 0xef (%s)",
	       fd < 0 ? strerror(errno) : "loaded!");
	if (fd >= 0)
		close(fd);
}

int main(int argc, char **argv)
{
	char old_jit[16];
	bool expect_inline;
	size_t ti;
	int m;

	if (argc != 3 || strcmp(argv[1], "--inline") ||
	    (strcmp(argv[2], "yes") && strcmp(argv[2], "no"))) {
		fprintf(stderr, "usage: %s --inline yes|no\n", argv[0]);
		return 2;
	}
	expect_inline = !strcmp(argv[2], "yes");
	setvbuf(stdout, NULL, _IOLBF, 0);
	ncpus_possible = libbpf_num_possible_cpus();
	ncpus_online = (int)sysconf(_SC_NPROCESSORS_ONLN);
	if (ncpus_possible <= 0 || ncpus_possible > MAX_CPUS || ncpus_online > ncpus_possible) {
		printf("Bail out! CPUs: %d possible, %d online\n", ncpus_possible, ncpus_online);
		return 2;
	}
	load_kallsyms();
	read_sysctl(JIT_ENABLE, old_jit, sizeof(old_jit));
	printf("# %d possible, %d online CPUs; expect inlining with JIT: %s\n",
	       ncpus_possible, ncpus_online, argv[2]);

	test_reject_internal();
	for (ti = 0; ti < NTYPES; ti++)
		for (m = 0; m < NMODES; m++)
			test_type(ti, m, expect_inline);
	for (ti = 0; ti < NTYPES; ti++) {
		bool same = true;

		for (m = 1; m < NMODES; m++) {
			if (m == JITFAIL && jitfail_rejected[ti])
				continue;
			same = same && have_result[ti][m] && have_result[ti][0] &&
			       !memcmp(results[ti][0], results[ti][m],
				       sizeof(results[ti][0][0]) * ncpus_possible);
		}
		result(same, "%s: per-CPU values identical with JIT and interpreter",
		       types[ti].name);
	}
	test_inner_map(JIT);
	test_inner_map(INTERP);

	if (old_jit[0])
		write_sysctl(JIT_ENABLE, old_jit);
	printf("1..%d\n", n_test);
	return n_fail ? 1 : 0;
}
