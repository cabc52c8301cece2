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
 * helper (resolved with /proc/kallsyms) and for the kernel-internal per-CPU
 * instruction (opcode 0xef); the JITed image for the x86-64 encoding of
 * that instruction.  The program is run pinned to each online CPU with
 * BPF_PROG_TEST_RUN and a different repeat count per CPU; each CPU's slot
 * must hold exactly its own count.  Out-of-range indexes and missing keys
 * must give NULL.  Then, in the same way:
 *
 *   - map-in-map: a per-CPU array as an inner map is not inlined (inner
 *     arrays of other sizes share the program), a per-CPU hash is;
 *   - three lookups in one program, a tail-called counter, and a program
 *     with a subprogram whose JIT fails (bpf_jit_harden=2 makes a jump in
 *     it overflow): the verifier has inlined the lookup by then, and the
 *     interpreter runs the per-CPU instruction;
 *   - the LRU reference bit: an eviction pattern with lookups JITed,
 *     interpreted and without lookups, printed as "# lru-order" lines for
 *     tests/vm/40-percpu.t to compare across kernels;
 *   - extreme key sizes of both hash types (4, 32704..32776, the largest
 *     the map accepts), with the key taken from an array value, JIT on,
 *     off, hardened and unprivileged: the value is read and written through
 *     the returned pointer on every CPU, and a missing key gives NULL.
 *
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
#include <sys/utsname.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <linux/bpf.h>

#include "insn.h"
#include "tap.h"

#define INTERNAL_PERCPU_OPCODE	(BPF_ALU64 | 0xe0 | BPF_X)	/* 0xef */
#define RET_HIT		1
#define RET_MISS	2
#define MAX_CPUS	64

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
#define JIT_HARDEN	"/proc/sys/net/core/bpf_jit_harden"
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
	{ "this_cpu_off", 0 },		/* per-CPU: its offset (KALLSYMS_ALL only) */
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

/* load a socket filter; on failure, print the verifier's log as comments */
static int load_filter(const char *name, const struct bpf_insn *insns, size_t n)
{
	LIBBPF_OPTS(bpf_prog_load_opts, opts, .log_buf = vlog,
		    .log_size = sizeof(vlog), .log_level = 0);
	int fd = bpf_prog_load(BPF_PROG_TYPE_SOCKET_FILTER, name, "GPL", insns, n, &opts);

	if (fd < 0)
		printf("# bpf_prog_load: %s\n%s\n", strerror(errno), vlog);
	return fd;
}

/*
 * The counting program, 14 instructions: key on the stack, lookup in
 * map_fd, increment the u64 value, return RET_HIT; NULL: RET_MISS
 */
#define COUNT_INSNS(map_fd, key)					\
	BPF_ST_MEM(BPF_W, BPF_REG_10, -4, (__s32)(key)),		\
	BPF_LD_MAP_FD(BPF_REG_1, map_fd),				\
	BPF_MOV64_REG(BPF_REG_2, BPF_REG_10),				\
	BPF_ALU64_IMM(BPF_ADD, BPF_REG_2, -4),				\
	BPF_EMIT_CALL(BPF_FUNC_map_lookup_elem),			\
	BPF_JMP_IMM(BPF_JEQ, BPF_REG_0, 0, 5),				\
	BPF_LDX_MEM(BPF_DW, BPF_REG_1, BPF_REG_0, 0),			\
	BPF_ALU64_IMM(BPF_ADD, BPF_REG_1, 1),				\
	BPF_STX_MEM(BPF_DW, BPF_REG_0, BPF_REG_1, 0),			\
	BPF_MOV64_IMM(BPF_REG_0, RET_HIT),				\
	BPF_EXIT_INSN(),						\
	BPF_MOV64_IMM(BPF_REG_0, RET_MISS),				\
	BPF_EXIT_INSN()

static int load_count_prog(int map_fd, __u32 key)
{
	struct bpf_insn insns[] = { COUNT_INSNS(map_fd, key) };
	return load_filter("pcpu_count", insns, sizeof(insns) / sizeof(insns[0]));
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
	return load_filter("pcpu_inner", insns, sizeof(insns) / sizeof(insns[0]));
}

struct xinfo {
	bool ok;
	int ncalls_lookup;	/* calls to the out-of-line lookup: the map
				 * type's function or the generic helper
				 */
	int npercpu;		/* internal per-CPU instructions */
	int ncalls;		/* all calls */
	int nmask;		/* w0 &= imm: the index mask of an inlined array lookup */
	int njit_percpu;	/* add rax, gs:[this_cpu_off] in the JITed image */
	__u32 jited_len;
	__u32 xlated_len;	/* instructions */
};

/*
 * Count "add rax, gs:[disp32]" (65 48 03 04 25 disp32) in a JITed image: the
 * JIT's resolution of a per-CPU pointer in r0 (rax), disp32 being the address
 * of this_cpu_off. Every occurrence must name the same address, that of
 * this_cpu_off when kallsyms lists it: -1 if not.
 */
static int count_jit_percpu(const unsigned char *img, __u32 len)
{
	static const unsigned char pat[] = { 0x65, 0x48, 0x03, 0x04, 0x25 };
	__u32 i, disp = (__u32)sym_addr("this_cpu_off");
	int n = 0;

	for (i = 0; i + sizeof(pat) + 4 <= len; i++) {
		__u32 d;

		if (memcmp(img + i, pat, sizeof(pat)))
			continue;
		memcpy(&d, img + i + sizeof(pat), 4);
		if (!disp)
			disp = d;
		if (d != disp)
			return -1;
		n++;
	}
	return n;
}

/*
 * JITed per-CPU resolutions expected for n inlined lookups: none on a
 * CONFIG_SMP=n kernel (no this_cpu_off), where the JIT emits only a mov.
 * The kernel's version string says "SMP" when it is built for SMP.
 */
static int jit_want(int n)
{
	struct utsname u;

	return uname(&u) || strstr(u.version, " SMP") ? n : 0;
}

static struct xinfo inspect(int prog_fd, const char *lookup_fn)
{
	struct bpf_prog_info info = {};
	__u32 len = sizeof(info), i, n;
	unsigned long long base = sym_addr("__bpf_call_base");
	unsigned long long fn = sym_addr(lookup_fn);
	unsigned long long helper = sym_addr("bpf_map_lookup_elem");
	struct xinfo x = { 0 };
	struct bpf_insn *xl = NULL;
	unsigned char *img = NULL;
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
	n = info.xlated_prog_len;
	x.jited_len = info.jited_prog_len;
	xl = calloc(1, n + 1);
	img = calloc(1, x.jited_len + 1);
	memset(&info, 0, sizeof(info));
	len = sizeof(info);
	info.xlated_prog_len = n;
	info.xlated_prog_insns = (__u64)(unsigned long)xl;
	info.jited_prog_len = x.jited_len;
	info.jited_prog_insns = (__u64)(unsigned long)img;
	if (!xl || !img || bpf_obj_get_info_by_fd(fd, &info, &len)) {
		printf("# bpf_obj_get_info_by_fd: %s\n", strerror(errno));
		goto out;
	}
	n = info.xlated_prog_len / sizeof(struct bpf_insn);
	x.xlated_len = n;
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
	x.njit_percpu = count_jit_percpu(img, x.jited_len);
	x.ok = base && fn && helper;
out:
	close(fd);
	free(xl);
	free(img);
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
static bool run_pinned(int prog_fd)
{
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
	return pass;
}

/* each online CPU's slot of key holds count_for(cpu), the others 0 */
static bool check_slots(int map_fd, __u32 key, unsigned long long *counts)
{
	unsigned long long vals[MAX_CPUS];
	bool pass = true;
	int c;

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

static bool percpu_counts(int prog_fd, int map_fd, __u32 key,
			  unsigned long long *counts)
{
	bool ran = run_pinned(prog_fd);

	return check_slots(map_fd, key, counts) && ran;
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

#define ARRAY_ENTRIES	5	/* not a power of two: index_mask 7 > 4 */
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
		tap_okf(false, "%s/%s: create map", t->name, mn);
		return;
	}
	errno = 0;
	prog_fd = m >= JITFAIL ? load_unprivileged(map_fd, hit_key, m == JITFAIL)
			       : load_count_prog(map_fd, hit_key);
	if (m == JITFAIL && prog_fd < 0) {
		tap_okf(errno == 524 /* ENOTSUPP */,
		       "%s/%s: JIT failure rejects the program instead of interpreting it (%s)",
		       t->name, mn, strerror(errno));
		jitfail_rejected[ti] = true;
		close(map_fd);
		return;
	}
	tap_okf(prog_fd >= 0, "%s/%s: load lookup+increment program", t->name, mn);
	if (prog_fd < 0) {
		close(map_fd);
		return;
	}

	x = inspect(prog_fd, t->lookup_fn);
	printf("# %s/%s: xlated: %d calls, %d to %s or the helper, %d per-CPU insns; jited %u bytes\n",
	       t->name, mn, x.ncalls, x.ncalls_lookup, t->lookup_fn, x.npercpu,
	       x.jited_len);
	if (want_inline && t->array)
		tap_okf(x.nmask == (unpriv_map ? 1 : 0),
		       "%s/%s: index masked against Spectre v1 iff the map was made unprivileged",
		       t->name, mn);
	if (want_inline)
		tap_okf(x.ok && x.ncalls_lookup == 0 && x.npercpu == 1,
		       "%s/%s: lookup inlined (no call to %s, one per-CPU insn)",
		       t->name, mn, t->lookup_fn);
	else
		tap_okf(x.ok && x.ncalls_lookup == 1 && x.npercpu == 0,
		       "%s/%s: lookup not inlined (one call to %s or the helper)",
		       t->name, mn, t->lookup_fn);
	if (m == JIT || m == UNPRIV) {
		tap_okf(x.jited_len > 0, "%s/%s: program is JITed", t->name, mn);
		tap_okf(x.njit_percpu == jit_want(want_inline ? 1 : 0),
		       "%s/%s: JITed image holds %d 'add rax, gs:[this_cpu_off]' (want %d)",
		       t->name, mn, x.njit_percpu, jit_want(want_inline ? 1 : 0));
	}
	else
		tap_okf(x.jited_len == 0, "%s/%s: program runs in the interpreter",
		       t->name, mn);

	have_result[ti][m] = percpu_counts(prog_fd, map_fd, hit_key, results[ti][m]);
	tap_okf(have_result[ti][m],
	       "%s/%s: each of %d CPUs counted exactly its own packets",
	       t->name, mn, ncpus_online);

	for (i = 0; i < nmiss; i++) {
		miss_fd = m >= JITFAIL ? load_unprivileged(map_fd, miss_keys[i], m == JITFAIL)
				       : load_count_prog(map_fd, miss_keys[i]);
		bool pass;

		ret = 0;
		pass = miss_fd >= 0 && !run(miss_fd, 10, &ret) && ret == RET_MISS &&
		       value_unchanged(map_fd, hit_key, results[ti][m]);
		tap_okf(pass, "%s/%s: %s key %u gives NULL (retval %u)", t->name, mn,
		       t->array ? "out-of-range" : "missing", miss_keys[i], ret);
		if (miss_fd >= 0)
			close(miss_fd);
	}
	close(prog_fd);
	close(map_fd);
}

/*
 * A per-CPU map as the inner map of an array of maps. A per-CPU array is
 * never inlined there: inner per-CPU arrays may differ in max_entries from
 * the template the verifier checks against. A per-CPU hash is inlined (the
 * emitted code depends only on key_size, which inner maps share).
 */
static void test_inner_map(enum bpf_map_type type, enum mode m, bool expect_inline)
{
	bool array = type == BPF_MAP_TYPE_PERCPU_ARRAY;
	const char *name = array ? "inner_percpu_array" : "inner_percpu_hash";
	const char *fn = array ? "percpu_array_map_lookup_elem" :
				 "htab_percpu_map_lookup_elem";
	bool want_inline = !array && expect_inline && m != INTERP;
	unsigned long long counts[MAX_CPUS], zeros[MAX_CPUS] = { 0 };
	const char *mn = mode_name[m];
	int inner, outer, prog_fd;
	__u32 zero = 0, key = 1;
	LIBBPF_OPTS(bpf_map_create_opts, oopts);
	struct xinfo x;

	write_sysctl(JIT_ENABLE, m == INTERP ? "0" : "1");
	inner = bpf_map_create(type, "inner", 4, 8, array ? 3 : 16, NULL);
	if (inner >= 0 && !array && bpf_map_update_elem(inner, &key, zeros, BPF_NOEXIST))
		inner = -1;
	oopts.inner_map_fd = inner;
	outer = inner < 0 ? -1 :
		bpf_map_create(BPF_MAP_TYPE_ARRAY_OF_MAPS, "outer", 4, 4, 1, &oopts);
	if (outer < 0 || bpf_map_update_elem(outer, &zero, &inner, BPF_ANY)) {
		printf("# map-in-map setup: %s\n", strerror(errno));
		tap_okf(false, "%s/%s: setup", name, mn);
		return;
	}
	prog_fd = load_inner_prog(outer, key);
	tap_okf(prog_fd >= 0, "%s/%s: load program", name, mn);
	if (prog_fd < 0)
		return;
	x = inspect(prog_fd, fn);
	printf("# %s/%s: xlated: %d calls, %d to lookups, %d per-CPU insns\n",
	       name, mn, x.ncalls, x.ncalls_lookup, x.npercpu);
	if (want_inline)
		tap_okf(x.ok && x.npercpu == 1 && x.njit_percpu == jit_want(1),
		       "%s/%s: inner lookup inlined (xlated and JITed)", name, mn);
	else
		tap_okf(x.ok && x.ncalls_lookup >= 1 && x.npercpu == 0,
		       "%s/%s: inner lookup not inlined", name, mn);
	tap_okf(percpu_counts(prog_fd, inner, key, counts),
	       "%s/%s: each CPU counted exactly its own packets", name, mn);
	close(prog_fd);
	close(outer);
	close(inner);
}

/* ---- extreme key sizes ------------------------------------------------------ */

/*
 * Per-CPU hash maps keyed by KEY_SIZE bytes, the key passed from the value of
 * an array map (index 0: a key in the map, 1: a missing key). The element's
 * per-CPU pointer sits after the key, at an offset that does not fit the
 * 16-bit offset field of a load from about 32713 bytes on: each CPU's value
 * is read and written through the returned pointer and checked. The keys are
 * filled with 0x11 bytes, so a pointer loaded from the wrong place is
 * non-canonical, as in the reported exploit.
 */
#define RET_SETUP	3
#define VAL_BASE	0x1111000000000000ULL

enum kmode { K_JIT, K_INTERP, K_HARDEN, K_UNPRIV, NKMODES };
static const char *kmode_name[] = { "jit", "interp", "hardened", "unpriv" };

static int load_key_prog(int arr_fd, int hash_fd, __u32 idx)
{
	struct bpf_insn insns[] = {
		BPF_ST_MEM(BPF_W, BPF_REG_10, -4, (__s32)idx),
		BPF_LD_MAP_FD(BPF_REG_1, arr_fd),
		BPF_MOV64_REG(BPF_REG_2, BPF_REG_10),
		BPF_ALU64_IMM(BPF_ADD, BPF_REG_2, -4),
		BPF_EMIT_CALL(BPF_FUNC_map_lookup_elem),
		BPF_JMP_IMM(BPF_JNE, BPF_REG_0, 0, 2),
		BPF_MOV64_IMM(BPF_REG_0, RET_SETUP),
		BPF_EXIT_INSN(),
		BPF_MOV64_REG(BPF_REG_2, BPF_REG_0),
		BPF_LD_MAP_FD(BPF_REG_1, hash_fd),
		BPF_EMIT_CALL(BPF_FUNC_map_lookup_elem),
		BPF_JMP_IMM(BPF_JNE, BPF_REG_0, 0, 2),
		BPF_MOV64_IMM(BPF_REG_0, RET_MISS),
		BPF_EXIT_INSN(),
		BPF_LDX_MEM(BPF_DW, BPF_REG_1, BPF_REG_0, 0),
		BPF_ALU64_IMM(BPF_ADD, BPF_REG_1, 1),
		BPF_STX_MEM(BPF_DW, BPF_REG_0, BPF_REG_1, 0),
		BPF_MOV32_REG(BPF_REG_0, BPF_REG_1),
		BPF_EXIT_INSN(),
	};
	return load_filter("pcpu_key", insns, sizeof(insns) / sizeof(insns[0]));
}

static unsigned long long key_val(int cpu)
{
	return VAL_BASE | (0x100000ULL * (cpu + 1));
}

/* a key of key_size bytes: 0x11 bytes after a first byte naming it */
static void fill_key(unsigned char *k, __u32 key_size, char name)
{
	memset(k, 0x11, key_size);
	k[0] = (unsigned char)name;
}

/*
 * Maps of one key-size case: fds[0] the array of keys (0: the key 'K',
 * 1: the missing key 'M'), fds[1] the per-CPU hash with a decoy element
 * 'D' and 'K', each CPU's value key_val(cpu).
 */
static int key_maps(const struct maptype *t, __u32 key_size, int fds[2])
{
	unsigned long long vals[MAX_CPUS];
	unsigned char *k = malloc(key_size);
	__u32 idx0 = 0, idx1 = 1;
	int c, err = -1;

	fds[0] = bpf_map_create(BPF_MAP_TYPE_ARRAY, "keys", 4, key_size, 2, NULL);
	fds[1] = bpf_map_create(t->type, t->name, key_size, 8, 4, NULL);
	if (!k || fds[0] < 0 || fds[1] < 0)
		goto out;
	for (c = 0; c < ncpus_possible; c++)
		vals[c] = key_val(c);
	fill_key(k, key_size, 'D');
	if (bpf_map_update_elem(fds[1], k, vals, BPF_NOEXIST))
		goto out;
	fill_key(k, key_size, 'K');
	if (bpf_map_update_elem(fds[1], k, vals, BPF_NOEXIST) ||
	    bpf_map_update_elem(fds[0], &idx0, k, BPF_ANY))
		goto out;
	fill_key(k, key_size, 'M');
	err = bpf_map_update_elem(fds[0], &idx1, k, BPF_ANY);
out:
	if (err)
		printf("# %s key %u: maps: %s\n", t->name, key_size, strerror(errno));
	free(k);
	return err;
}

/* run pinned to each CPU once: each returns and stores its own value + 1 */
static bool key_runs(int prog_fd, int hash_fd, __u32 key_size)
{
	unsigned long long vals[MAX_CPUS];
	unsigned char *k = malloc(key_size);
	bool pass = k != NULL;
	__u32 ret;
	int c;

	for (c = 0; c < ncpus_online && pass; c++) {
		if (pin(c) || run(prog_fd, 1, &ret)) {
			pass = false;
			break;
		}
		if (ret != (__u32)(key_val(c) + 1)) {
			printf("# cpu %d: retval %#x, want %#x\n", c, ret,
			       (__u32)(key_val(c) + 1));
			pass = false;
		}
	}
	unpin();
	if (!pass) {
		free(k);
		return false;
	}
	fill_key(k, key_size, 'K');
	if (bpf_map_lookup_elem(hash_fd, k, vals)) {
		printf("# lookup of the key: %s\n", strerror(errno));
		pass = false;
	}
	for (c = 0; pass && c < ncpus_possible; c++) {
		unsigned long long want = key_val(c) + (c < ncpus_online);

		if (vals[c] != want) {
			printf("# cpu %d slot holds %#llx, want %#llx\n", c, vals[c], want);
			pass = false;
		}
	}
	free(k);
	return pass;
}
static void test_key_size(size_t ti, __u32 key_size, enum kmode m, bool expect_inline)
{
	const struct maptype *t = &types[ti];
	const char *mn = kmode_name[m];
	bool want_inline = expect_inline && m != K_INTERP;
	/* unprivileged users cannot make LRU maps: root makes that one */
	bool unpriv_maps = m == K_UNPRIV && t->type != BPF_MAP_TYPE_LRU_PERCPU_HASH;
	int fds[2] = { -1, -1 }, hit = -1, miss = -1, err;
	struct xinfo x;
	__u32 ret = 0;
	bool pass;

	write_sysctl(JIT_ENABLE, m == K_INTERP ? "0" : "1");
	write_sysctl(JIT_HARDEN, m == K_HARDEN ? "2" : "0");
	if (unpriv_maps && unprivileged(true))
		goto fail;
	pin(0);
	err = key_maps(t, key_size, fds);
	unpin();
	if (unpriv_maps)
		unprivileged(false);
	if (err)
		goto fail;
	if (m == K_UNPRIV && unprivileged(true))
		goto fail;
	hit = load_key_prog(fds[0], fds[1], 0);
	miss = load_key_prog(fds[0], fds[1], 1);
	if (m == K_UNPRIV)
		unprivileged(false);
	if (hit < 0 || miss < 0)
		goto fail;

	x = inspect(hit, t->lookup_fn);
	tap_okf(x.ok && x.npercpu == (want_inline ? 1 : 0) &&
	       (m == K_INTERP) == (x.jited_len == 0),
	       "%s/key %u/%s: lookup %s, %s", t->name, key_size, mn,
	       want_inline ? "inlined" : "not inlined",
	       m == K_INTERP ? "interpreted" : "JITed");
	pass = key_runs(hit, fds[1], key_size);
	if (run(miss, 1, &ret) || ret != RET_MISS) {
		printf("# missing key: retval %u, want %d\n", ret, RET_MISS);
		pass = false;
	}
	tap_okf(pass, "%s/key %u/%s: each CPU reads and writes its own value through the pointer; a missing key gives NULL",
	       t->name, key_size, mn);
	goto out;
fail:
	tap_okf(false, "%s/key %u/%s: set-up", t->name, key_size, mn);
out:
	if (hit >= 0)
		close(hit);
	if (miss >= 0)
		close(miss);
	if (fds[0] >= 0)
		close(fds[0]);
	if (fds[1] >= 0)
		close(fds[1]);
	write_sysctl(JIT_HARDEN, "0");
}

/* the largest key_size the map type accepts with 8-byte values (E2BIG above) */
static __u32 largest_key(enum bpf_map_type type)
{
	__u32 lo = 32776, hi = 1u << 24;	/* lo accepted, hi refused */

	while (hi - lo > 1) {
		__u32 mid = lo + (hi - lo) / 2;
		int fd = bpf_map_create(type, "probe", mid, 8, 4, NULL);

		if (fd >= 0) {
			close(fd);
			lo = mid;
		} else if (errno == E2BIG) {
			hi = mid;
		} else {
			printf("# create with key_size %u: %s\n", mid, strerror(errno));
			return 0;
		}
	}
	return lo;
}

static void test_key_sizes(bool expect_inline)
{
	static const __u32 sizes[] = {
		4, 32704, 32712, 32713, 32720, 32728, 32736, 32744, 32752,
		32760, 32767, 32768, 32769, 32776, 0 /* largest */
	};
	size_t ti, i;
	int m;

	for (ti = 1; ti < NTYPES; ti++) {	/* the two hash types */
		__u32 largest = largest_key(types[ti].type);

		tap_okf(largest > 32776, "%s: largest key_size accepted: %u",
		       types[ti].name, largest);
		for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
			__u32 ks = sizes[i] ? sizes[i] : largest;

			if (!ks)
				continue;
			for (m = 0; m < NKMODES; m++)
				test_key_size(ti, ks, m, expect_inline);
		}
	}
}

/* ---- interpreter fallback ----------------------------------------------------- */

/*
 * A program with a bpf-to-bpf call loaded with bpf_jit_harden=2: blinding
 * triples the constants of a long block in the subprogram, so that a jump
 * over it no longer fits its 16-bit offset; the subprogram's JIT fails and
 * fixup_call_args() falls back to the interpreter, after the verifier has
 * inlined the lookup for the JIT. The program must still count right.
 */
#define BLOCK_INSNS	12000

static int load_fallback_prog(int map_fd, __u32 key)
{
	struct bpf_insn head[] = {
		INSN(BPF_JMP | BPF_CALL, 0, BPF_PSEUDO_CALL, 0, 14),
		COUNT_INSNS(map_fd, key),
		/* the subprogram (insn 15): ctx in r1 */
		BPF_LDX_MEM(BPF_W, BPF_REG_0, BPF_REG_1, offsetof(struct __sk_buff, len)),
		BPF_MOV64_IMM(BPF_REG_2, 1),
		BPF_JMP_IMM(BPF_JEQ, BPF_REG_0, 0x7fff0000, BLOCK_INSNS),
	};
	size_t nhead = sizeof(head) / sizeof(head[0]), n = nhead + BLOCK_INSNS + 2, i;
	struct bpf_insn *insns = calloc(n, sizeof(*insns));
	int fd;

	if (!insns)
		return -1;
	memcpy(insns, head, sizeof(head));
	for (i = nhead; i < nhead + BLOCK_INSNS; i++)
		insns[i] = BPF_ALU64_IMM(BPF_ADD, BPF_REG_2, 1);
	insns[i++] = BPF_MOV64_IMM(BPF_REG_0, 0);
	insns[i++] = BPF_EXIT_INSN();
	fd = load_filter("pcpu_fallback", insns, n);
	free(insns);
	return fd;
}

static void test_fallback(size_t ti, bool harden, bool expect_inline)
{
	const struct maptype *t = &types[ti];
	const char *mn = harden ? "hardened" : "jit";
	unsigned long long counts[MAX_CPUS];
	__u32 key = t->array ? 2 : HASH_KEY;
	int map_fd, prog_fd;
	struct xinfo x;

	write_sysctl(JIT_ENABLE, "1");
	write_sysctl(JIT_HARDEN, harden ? "2" : "0");
	map_fd = create_map(t);
	prog_fd = map_fd < 0 ? -1 : load_fallback_prog(map_fd, key);
	write_sysctl(JIT_HARDEN, "0");
	tap_okf(prog_fd >= 0, "%s/subprog/%s: load a program with a subprogram", t->name, mn);
	if (prog_fd < 0)
		goto out;
	x = inspect(prog_fd, t->lookup_fn);
	printf("# %s/subprog/%s: %u xlated insns, %d per-CPU insns, jited %u bytes\n",
	       t->name, mn, x.xlated_len, x.npercpu, x.jited_len);
	tap_okf(x.ok && x.npercpu == (expect_inline ? 1 : 0) &&
	       harden == (x.jited_len == 0),
	       "%s/subprog/%s: lookup %s, %s", t->name, mn,
	       expect_inline ? "inlined" : "not inlined",
	       harden ? "the subprogram's JIT failed: interpreted" : "JITed");
	tap_okf(percpu_counts(prog_fd, map_fd, key, counts),
	       "%s/subprog/%s: each of %d CPUs counted exactly its own packets",
	       t->name, mn, ncpus_online);
	close(prog_fd);
out:
	if (map_fd >= 0)
		close(map_fd);
}

/* ---- several lookups in one program ------------------------------------------- */

/* one lookup+increment in each of three maps, each keyed by its own key */
static int load_multi_prog(const int *map_fd, const __u32 *key, int nmaps)
{
	struct bpf_insn insns[3 * 11 + 2];
	int i, n = 0;

	for (i = 0; i < nmaps; i++) {
		struct bpf_insn ld[] = { BPF_LD_MAP_FD(BPF_REG_1, map_fd[i]) };

		insns[n++] = BPF_ST_MEM(BPF_W, BPF_REG_10, -4, (__s32)key[i]);
		insns[n++] = ld[0];
		insns[n++] = ld[1];
		insns[n++] = BPF_MOV64_REG(BPF_REG_2, BPF_REG_10);
		insns[n++] = BPF_ALU64_IMM(BPF_ADD, BPF_REG_2, -4);
		insns[n++] = BPF_EMIT_CALL(BPF_FUNC_map_lookup_elem);
		insns[n++] = BPF_JMP_IMM(BPF_JNE, BPF_REG_0, 0, 2);
		insns[n++] = BPF_MOV64_IMM(BPF_REG_0, RET_MISS);
		insns[n++] = BPF_EXIT_INSN();
		insns[n++] = BPF_MOV64_IMM(BPF_REG_1, 1);
		insns[n++] = INSN(BPF_STX | BPF_DW | BPF_ATOMIC, BPF_REG_0, BPF_REG_1, 0, BPF_ADD);
	}
	insns[n++] = BPF_MOV64_IMM(BPF_REG_0, RET_HIT);
	insns[n++] = BPF_EXIT_INSN();
	return load_filter("pcpu_multi", insns, n);
}

static void test_multi(enum mode m, bool expect_inline)
{
	bool want_inline = expect_inline && m != INTERP;
	unsigned long long counts[MAX_CPUS];
	int fds[NTYPES], prog_fd = -1;
	__u32 keys[NTYPES];
	bool pass;
	size_t ti;
	struct xinfo x;

	write_sysctl(JIT_ENABLE, m == INTERP ? "0" : "1");
	for (ti = 0; ti < NTYPES; ti++) {
		fds[ti] = create_map(&types[ti]);
		keys[ti] = types[ti].array ? 1 : HASH_KEY;
	}
	if (fds[0] >= 0 && fds[1] >= 0 && fds[2] >= 0)
		prog_fd = load_multi_prog(fds, keys, NTYPES);
	tap_okf(prog_fd >= 0, "three maps/%s: load a program with a lookup in each", mode_name[m]);
	if (prog_fd >= 0) {
		x = inspect(prog_fd, types[0].lookup_fn);
		tap_okf(x.ok && x.npercpu == (want_inline ? 3 : 0) &&
		       x.njit_percpu == jit_want(want_inline ? 3 : 0),
		       "three maps/%s: %d of 3 lookups inlined, %d in the JITed image (want %d)",
		       mode_name[m], x.npercpu, x.njit_percpu, jit_want(want_inline ? 3 : 0));
		pass = run_pinned(prog_fd);
		for (ti = 0; ti < NTYPES; ti++)
			pass = check_slots(fds[ti], keys[ti], counts) && pass;
		tap_okf(pass, "three maps/%s: each CPU counted exactly its own packets in each map",
		       mode_name[m]);
		close(prog_fd);
	}
	for (ti = 0; ti < NTYPES; ti++)
		if (fds[ti] >= 0)
			close(fds[ti]);
}

/* ---- tail calls ------------------------------------------------------------------ */

/* tail call into slot 0 of prog_array: RET_MISS only if the call fails */
static int load_tail_caller(int prog_array_fd)
{
	struct bpf_insn insns[] = {
		BPF_LD_MAP_FD(BPF_REG_2, prog_array_fd),
		BPF_MOV64_IMM(BPF_REG_3, 0),
		BPF_EMIT_CALL(BPF_FUNC_tail_call),
		BPF_MOV64_IMM(BPF_REG_0, RET_MISS),
		BPF_EXIT_INSN(),
	};
	return load_filter("pcpu_tail", insns, sizeof(insns) / sizeof(insns[0]));
}

/* the counting program reached by a tail call counts like a direct one */
static void test_tail_call(size_t ti, enum mode m, bool expect_inline)
{
	const struct maptype *t = &types[ti];
	bool want_inline = expect_inline && m != INTERP;
	unsigned long long counts[MAX_CPUS];
	__u32 key = t->array ? 2 : HASH_KEY, slot = 0;
	int map_fd, pa_fd, prog_fd = -1, caller_fd = -1;
	struct xinfo x;

	write_sysctl(JIT_ENABLE, m == INTERP ? "0" : "1");
	map_fd = create_map(t);
	pa_fd = bpf_map_create(BPF_MAP_TYPE_PROG_ARRAY, "pcpu_pa", sizeof(__u32),
			       sizeof(__u32), 1, NULL);
	if (map_fd >= 0 && pa_fd >= 0)
		prog_fd = load_count_prog(map_fd, key);
	if (prog_fd >= 0 && !bpf_map_update_elem(pa_fd, &slot, &prog_fd, BPF_ANY))
		caller_fd = load_tail_caller(pa_fd);
	tap_okf(caller_fd >= 0, "%s/tail call/%s: load a program that tail-calls the counter",
	       t->name, mode_name[m]);
	if (caller_fd < 0)
		goto out;
	x = inspect(prog_fd, t->lookup_fn);
	tap_okf(x.ok && x.npercpu == (want_inline ? 1 : 0) &&
	       x.njit_percpu == jit_want(want_inline ? 1 : 0),
	       "%s/tail call/%s: the callee's lookup %s", t->name, mode_name[m],
	       want_inline ? "inlined" : "not inlined");
	tap_okf(percpu_counts(caller_fd, map_fd, key, counts),
	       "%s/tail call/%s: each of %d CPUs counted exactly its own packets",
	       t->name, mode_name[m], ncpus_online);
out:
	if (caller_fd >= 0)
		close(caller_fd);
	if (prog_fd >= 0)
		close(prog_fd);
	if (pa_fd >= 0)
		close(pa_fd);
	if (map_fd >= 0)
		close(map_fd);
}

/* ---- LRU reference bit ------------------------------------------------------------ */

/*
 * An LRU lookup marks the element referenced, which decides what the LRU
 * evicts. Fill an LRU_PERCPU_HASH of LRU_N keys from user space, look up
 * every third key with a BPF program (key from an array map), insert
 * LRU_N / 2 more keys, and list the survivors of the first LRU_N. They must
 * be the same with the inlined lookup (JIT) and the out-of-line one
 * (interpreter), and differ from a run without lookups (so the pattern
 * depends on the reference bit). The driver compares them across kernels.
 */
#define LRU_N	256

static int load_touch_prog(int ctl_fd, int lru_fd)
{
	struct bpf_insn insns[] = {
		BPF_ST_MEM(BPF_W, BPF_REG_10, -4, 0),
		BPF_LD_MAP_FD(BPF_REG_1, ctl_fd),
		BPF_MOV64_REG(BPF_REG_2, BPF_REG_10),
		BPF_ALU64_IMM(BPF_ADD, BPF_REG_2, -4),
		BPF_EMIT_CALL(BPF_FUNC_map_lookup_elem),
		BPF_JMP_IMM(BPF_JNE, BPF_REG_0, 0, 2),
		BPF_MOV64_IMM(BPF_REG_0, RET_SETUP),
		BPF_EXIT_INSN(),
		BPF_MOV64_REG(BPF_REG_2, BPF_REG_0),
		BPF_LD_MAP_FD(BPF_REG_1, lru_fd),
		BPF_EMIT_CALL(BPF_FUNC_map_lookup_elem),
		BPF_JMP_IMM(BPF_JNE, BPF_REG_0, 0, 2),
		BPF_MOV64_IMM(BPF_REG_0, RET_MISS),
		BPF_EXIT_INSN(),
		BPF_MOV64_IMM(BPF_REG_0, RET_HIT),
		BPF_EXIT_INSN(),
	};
	return load_filter("pcpu_touch", insns, sizeof(insns) / sizeof(insns[0]));
}

enum touch { T_NONE, T_JIT, T_INTERP, NTOUCH };
static const char *touch_name[] = { "none", "jit", "interp" };

/* survivors as a bitmap in hex; returns false on a set-up failure */
static bool lru_pattern(enum touch how, bool expect_inline, char *hex)
{
	unsigned long long zeros[MAX_CPUS] = { 0 };
	unsigned char bits[LRU_N / 8] = { 0 };
	int lru, ctl, prog = -1, i;
	bool pass = true;
	__u32 k, zero = 0, ret;

	pin(0);
	write_sysctl(JIT_ENABLE, how == T_INTERP ? "0" : "1");
	lru = bpf_map_create(BPF_MAP_TYPE_LRU_PERCPU_HASH, "lru", 4, 8, LRU_N, NULL);
	ctl = bpf_map_create(BPF_MAP_TYPE_ARRAY, "ctl", 4, 4, 1, NULL);
	if (lru < 0 || ctl < 0)
		pass = false;
	if (pass && how != T_NONE) {
		prog = load_touch_prog(ctl, lru);
		pass = prog >= 0;
	}
	if (pass && how == T_JIT) {
		struct xinfo x = inspect(prog, "htab_lru_percpu_map_lookup_elem");

		tap_okf(x.ok && x.npercpu == (expect_inline ? 1 : 0),
		       "lru order: the JITed lookup is %s", expect_inline ? "inlined" : "not inlined");
	}
	for (k = 0; pass && k < LRU_N; k++)
		pass = !bpf_map_update_elem(lru, &k, zeros, BPF_NOEXIST);
	for (k = 0; pass && prog >= 0 && k < LRU_N; k += 3) {
		pass = !bpf_map_update_elem(ctl, &zero, &k, BPF_ANY) &&
		       !run(prog, 1, &ret) && ret == RET_HIT;
	}
	for (k = LRU_N; pass && k < LRU_N + LRU_N / 2; k++)
		pass = !bpf_map_update_elem(lru, &k, zeros, BPF_NOEXIST);
	for (k = 0; pass && k < LRU_N; k++)
		if (!bpf_map_lookup_elem(lru, &k, zeros))
			bits[k / 8] |= 1 << (k % 8);
	for (i = 0; i < LRU_N / 8; i++)
		sprintf(hex + 2 * i, "%02x", bits[i]);
	if (!pass)
		printf("# lru order (%s): set-up failed: %s\n", touch_name[how], strerror(errno));
	if (prog >= 0)
		close(prog);
	if (lru >= 0)
		close(lru);
	if (ctl >= 0)
		close(ctl);
	unpin();
	return pass;
}

static void test_lru_order(bool expect_inline)
{
	char hex[NTOUCH][LRU_N / 4 + 1];
	bool ok = true;
	int h;

	for (h = 0; h < NTOUCH; h++) {
		ok = lru_pattern(h, expect_inline, hex[h]) && ok;
		printf("# lru-order %s %s\n", touch_name[h], hex[h]);
	}
	tap_okf(ok && !strcmp(hex[T_JIT], hex[T_INTERP]),
	       "lru order: the same keys survive with the JITed and the interpreted lookup");
	tap_okf(ok && strcmp(hex[T_NONE], hex[T_JIT]),
	       "lru order: lookups change which keys survive (the reference bit is set)");
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
	tap_okf(fd < 0 && errno == EINVAL && strstr(vlog, "unknown opcode ef"),
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
		tap_okf(same, "%s: per-CPU values identical with JIT and interpreter",
		       types[ti].name);
	}
	test_inner_map(BPF_MAP_TYPE_PERCPU_ARRAY, JIT, expect_inline);
	test_inner_map(BPF_MAP_TYPE_PERCPU_ARRAY, INTERP, expect_inline);
	test_inner_map(BPF_MAP_TYPE_PERCPU_HASH, JIT, expect_inline);
	test_inner_map(BPF_MAP_TYPE_PERCPU_HASH, INTERP, expect_inline);
	test_multi(JIT, expect_inline);
	test_multi(INTERP, expect_inline);
	for (ti = 0; ti < NTYPES; ti++) {
		test_fallback(ti, false, expect_inline);
		test_fallback(ti, true, expect_inline);
	}
	for (ti = 0; ti < NTYPES; ti++) {
		test_tail_call(ti, JIT, expect_inline);
		test_tail_call(ti, INTERP, expect_inline);
	}
	test_lru_order(expect_inline);
	test_key_sizes(expect_inline);

	if (old_jit[0])
		write_sysctl(JIT_ENABLE, old_jit);
	printf("1..%d\n", tap_n);
	return tap_failed ? 1 : 0;
}
