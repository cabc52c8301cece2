// SPDX-License-Identifier: GPL-2.0
/*
 * The code generator, without a kernel.
 *
 * Golden listings: each expression of goldens[] is compiled as
 * `ebpfcount -d` compiles it (parse_query, filter_compile with no
 * interface, layout_query, codegen) and its disasm_print() listing must
 * equal tests/unit/golden/NAME.txt, whose first line names the expression.
 * After an intended change of the generated code, rewrite them with
 *
 *	make unit && UPDATE_GOLDEN=1 build/unit/test_codegen
 *
 * and read the diff (git diff tests/unit/golden) before committing it.  The
 * files are found from the test's own path (build/unit/test_codegen ->
 * tests/unit/golden); GOLDEN_DIR overrides that.
 *
 * Structural checks, on many more expressions (every field, prefixes,
 * eight keys, where clauses): the program ends with "r0 = 0; exit", every
 * jump lands forward inside it and never in the middle of a 64-bit load,
 * stack accesses stay in the 512-byte frame, the program with a where
 * clause is the one without it plus the filter after the first
 * instruction, and the key layout is the array for one one-byte key (or
 * none) and an 8-aligned hash key otherwise.
 *
 * An expression " ; " another is a program of several expressions (-e),
 * checked the same way but for the where clause's insertion.
 */
#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "codegen.h"
#include "compile.h"
#include "disasm.h"
#include "filter.h"
#include "tap.h"

struct golden {
	const char *expr;
	const char *file;	/* under tests/unit/golden, without ".txt" */
	enum frame_mode mode;
};

static const struct golden goldens[] = {
	{ "count", "count", FRAME_WINDOW },
	{ "count by ip.proto", "ip.proto", FRAME_WINDOW },
	{ "count by ip.src/24, tcp.dstport", "ip.src-24_tcp.dstport", FRAME_WINDOW },
	{ "count by vlan.id", "vlan.id", FRAME_WINDOW },
	{ "count by ipv6.dst/64", "ipv6.dst-64", FRAME_WINDOW },
	{ "count by tcp.flags, ip.dsfield.dscp", "tcp.flags_ip.dsfield.dscp", FRAME_WINDOW },
	{ "count by frame.len, eth.src", "frame.len_eth.src", FRAME_WINDOW },
	{ "count by ip.proto where tcp port 443", "ip.proto_where_tcp_port_443", FRAME_WINDOW },
	{ "count by ip.src/24, tcp.dstport", "ip.src-24_tcp.dstport-ld_abs", FRAME_LD_ABS },
	{ "count by ipv6.dst/64", "ipv6.dst-64-ld_abs", FRAME_LD_ABS },
	{ "count by ip.proto where tcp port 443", "ip.proto_where_tcp_port_443-ld_abs",
	  FRAME_LD_ABS },
	{ "count by ip.proto ; count by ip.src/24, tcp.dstport where tcp port 443",
	  "multi_ip.proto_ip.src-24_tcp.dstport_where", FRAME_WINDOW },
	{ "count by ip.proto ; count by ip.src/24, tcp.dstport where tcp port 443",
	  "multi_ip.proto_ip.src-24_tcp.dstport_where-ld_abs", FRAME_LD_ABS },
	{ "count by ip.src/24, tcp.dstport", "ip.src-24_tcp.dstport-direct", FRAME_DIRECT },
	{ "count by ip.proto where tcp port 443", "ip.proto_where_tcp_port_443-direct",
	  FRAME_DIRECT },
	{ "count by ip.proto ; count by ip.src/24, tcp.dstport where tcp port 443",
	  "multi_ip.proto_ip.src-24_tcp.dstport_where-direct", FRAME_DIRECT },
};

/* How the programs compiled next read the frame. */
static enum frame_mode frame_mode;
static const char *const mode_tag[] = {
	[FRAME_WINDOW] = "", [FRAME_LD_ABS] = " (LD_ABS)", [FRAME_DIRECT] = " (direct)",
};

/* Expressions for the structural checks, besides the goldens and fields. */
static const char *const exprs[] = {
	"count by ip.src/1, ip.dst/7, ipv6.src/9, ipv6.dst/127",
	"count by ip.src/8, ip.dst/16, ipv6.src/63, ipv6.dst/65",
	"count by eth.src, eth.dst, eth.type, vlan.id, ip.src, ip.dst, ip.proto, ip.ttl",
	"count by ipv6.src, ipv6.dst, ipv6.nxt, icmpv6.type, udp.srcport, udp.dstport, "
	"tcp.srcport, tcp.dstport",
	"count by icmp.type, icmp.code",
	"count where vlan 42",
	"count by ip.src where ip6 or arp",
	"count by udp.dstport where ether src 52:54:00:12:34:99",
	"count by tcp.flags where tcp[tcpflags] & tcp-syn != 0",
	"count by ip.src/16 where ip[6:2] & 0x1fff != 0 and not port 22",
	"count by ipv6.nxt where ip6 and len > 100",
	"count by eth.type where not (net 198.18.0.0/16 or host 10.0.0.1)",
	"count by icmp.type where icmp[icmptype] == icmp-echo",
	"count ; count by ip.proto",
	"count by vlan.id ; count by eth.type where vlan 42",
	"count by ipv6.dst/64, udp.dstport ; count by tcp.flags where tcp ; count by icmpv6.type",
	"count by ip.proto where udp ; count by ip.proto where tcp ; count by ip.proto where icmp",
	"count by frame.len ; count by ip.ttl ; count by ip.src ; count by ip.dst ; "
	"count by tcp.srcport ; count by udp.srcport ; count by eth.src ; count by vlan.id",
	"count by eth.src, eth.dst, eth.type, vlan.id, ip.src, ip.dst, ip.proto, ip.ttl ; "
	"count by ipv6.src, ipv6.dst, ipv6.nxt, icmpv6.type, udp.srcport, udp.dstport, "
	"tcp.srcport, tcp.dstport where ip6 ; count by tcp.flags where tcp[tcpflags] & tcp-syn != 0",
};

#define prog program

static int slow_only;	/* compile() without the fast paths */

/* Compile expr as ebpfcount -d does; filtered: with its where clause. */
static int compile(const char *expr, struct prog *p, int filtered, char *err, size_t errlen)
{
	struct build_opts bo = { .allowed = frame_mode, .slow_only = slow_only };
	const char *where = strstr(expr, " where ");
	static char bare[512], parts[MAX_EXPRS][512];
	const char *x[MAX_EXPRS];
	struct build_error berr;
	const char *sep;
	int n;

	/* the sll.* keys: as for a capture file that has them */
	if (strstr(expr, "sll."))
		bo.src.linktype = "LINUX_SLL2";

	if (!filtered && where) {
		snprintf(bare, sizeof(bare), "%.*s", (int)(where - expr), expr);
		expr = bare;
	}
	/* several expressions: the parts, which must outlive p */
	for (n = 0; (sep = strstr(expr, " ; ")) && n < MAX_EXPRS - 1; expr = sep + 3, n++) {
		snprintf(parts[n], sizeof(parts[n]), "%.*s", (int)(sep - expr), expr);
		x[n] = parts[n];
	}
	snprintf(parts[n], sizeof(parts[n]), "%s", expr);
	x[n] = parts[n];
	if (program_build(p, x, n + 1, &bo, &berr)) {
		emit_init(&p->e);
		snprintf(err, errlen, "%.200s at %d of expression %d", berr.msg, berr.pos,
			 berr.expr + 1);
		return -1;
	}
	return 0;
}

/* ---- golden listings ---- */

static char golden_dir[PATH_MAX];

static void find_golden_dir(const char *argv0)
{
	char exe[PATH_MAX];
	const char *env = getenv("GOLDEN_DIR");

	if (env) {
		snprintf(golden_dir, sizeof(golden_dir), "%s", env);
		return;
	}
	if (!realpath("/proc/self/exe", exe) && !realpath(argv0, exe))
		snprintf(exe, sizeof(exe), "build/unit/x");
	/* TOP/build/unit/test_codegen -> TOP/tests/unit/golden */
	snprintf(golden_dir, sizeof(golden_dir), "%s/tests/unit/golden",
		 dirname(dirname(dirname(exe))));
}

static char *read_file(const char *path)
{
	FILE *f = fopen(path, "r");
	char *buf = NULL;
	size_t size = 0;
	FILE *m;
	int c;

	if (!f)
		return NULL;
	m = open_memstream(&buf, &size);
	while ((c = fgetc(f)) != EOF)
		fputc(c, m);
	fclose(m);
	fclose(f);
	return buf;
}

static int write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	if (!f)
		return -1;
	fputs(text, f);
	return fclose(f);
}

/* The first line of difference, for the diagnostics. */
static void show_diff(const char *got, const char *want)
{
	int line = 1;

	while (*got && *got == *want) {
		if (*got == '\n')
			line++;
		got++, want++;
	}
	printf("#   first difference in line %d:\n#   got:  %.*s\n#   want: %.*s\n", line,
	       (int)strcspn(got, "\n"), got, (int)strcspn(want, "\n"), want);
}

static void check_golden(const struct golden *g, int update)
{
	char path[PATH_MAX + 64], err[256], name[160], *text = NULL, *want;
	struct prog p;
	size_t size;
	FILE *f;

	frame_mode = g->mode;
	snprintf(path, sizeof(path), "%s/%s.txt", golden_dir, g->file);
	snprintf(name, sizeof(name), "'%s': listing equals golden/%s.txt", g->expr, g->file);
	if (compile(g->expr, &p, 1, err, sizeof(err))) {
		tap_ok(0, name);
		printf("#   %s\n", err);
		emit_free(&p.e);
		return;
	}
	f = open_memstream(&text, &size);
	fprintf(f, "# ebpfcount -d '%s'\n", g->expr);
	disasm_print(f, &p.e);
	fclose(f);
	if (update && write_file(path, text))
		printf("#   cannot write %s: %s\n", path, strerror(errno));
	want = read_file(path);
	if (!tap_ok(want && !strcmp(text, want), name)) {
		if (want)
			show_diff(text, want);
		else
			printf("#   cannot read %s (UPDATE_GOLDEN=1 writes it)\n", path);
	}
	free(want);
	free(text);
	emit_free(&p.e);
}

/* ---- structural checks ---- */

static int is_jump(const struct bpf_insn *i)
{
	int op = BPF_OP(i->code);

	return (BPF_CLASS(i->code) == BPF_JMP || BPF_CLASS(i->code) == BPF_JMP32) &&
	       op != BPF_CALL && op != BPF_EXIT;
}

static int is_ld_imm64(const struct bpf_insn *i)
{
	return i->code == (BPF_LD | BPF_DW | BPF_IMM);
}

static int mem_bytes(const struct bpf_insn *i)
{
	static const int bytes[] = { [BPF_W >> 3] = 4, [BPF_H >> 3] = 2,
				     [BPF_B >> 3] = 1, [BPF_DW >> 3] = 8 };

	return bytes[BPF_SIZE(i->code) >> 3];
}

/* Is pc the second slot of a 64-bit immediate load? */
static int second_slot(const struct emit *e, int pc)
{
	return pc > 0 && is_ld_imm64(&e->insns[pc - 1]);
}

/* Jumps forward, inside, onto whole instructions; the end is r0 = 0; exit. */
static const char *check_flow(const struct emit *e)
{
	static char why[96];
	int pc;

	if (e->len < 3 || e->insns[e->len - 1].code != (BPF_JMP | BPF_EXIT) ||
	    e->insns[e->len - 2].code != (BPF_ALU64 | BPF_MOV | BPF_K) ||
	    e->insns[e->len - 2].dst_reg != BPF_REG_0 || e->insns[e->len - 2].imm != 0)
		return "does not end with r0 = 0; exit";
	for (pc = 0; pc < e->len; pc++) {
		const struct bpf_insn *i = &e->insns[pc];
		int to = pc + 1 + i->off;

		if (is_ld_imm64(i)) {
			pc++;
			continue;
		}
		if (!is_jump(i))
			continue;
		if (i->off < 0 || to >= e->len || second_slot(e, to)) {
			snprintf(why, sizeof(why), "jump at %d to %d", pc, to);
			return why;
		}
	}
	return NULL;
}

/* Stack accesses through r10 stay in [-512, 0). */
static const char *check_stack(const struct emit *e)
{
	static char why[64];
	int pc;

	for (pc = 0; pc < e->len; pc++) {
		const struct bpf_insn *i = &e->insns[pc];
		int class = BPF_CLASS(i->code), reg;

		if (class != BPF_LDX && class != BPF_STX && class != BPF_ST)
			continue;
		reg = class == BPF_LDX ? i->src_reg : i->dst_reg;
		if (reg != BPF_REG_10)
			continue;
		if (i->off < -512 || i->off + mem_bytes(i) > 0) {
			snprintf(why, sizeof(why), "stack access at %d: r10 %+d", pc, i->off);
			return why;
		}
	}
	return NULL;
}

#define PROLOGUE_COPY 12	/* r6 = r1; r9 = len; the copy (frame_copy()) */

/*
 * Instructions before the where clause: r6 = r1, then any window copy;
 * reading directly, the frame's address and the length for the where
 * clause.
 */
static int prologue_len(const struct emit *e)
{
	const struct bpf_insn *i = &e->insns[1];
	int len9 = e->len > 2 && i->code == (BPF_LDX | BPF_W | BPF_MEM) &&
		   i->dst_reg == BPF_REG_9 && i->src_reg == BPF_REG_6 && i->off == 0;

	int j;

	if (frame_mode == FRAME_WINDOW && len9 && e->len > PROLOGUE_COPY)
		return PROLOGUE_COPY;
	/* direct: r6 = r1, the frame's address (frame_direct_base()), r9 = len */
	for (j = 1; frame_mode == FRAME_DIRECT && j < e->len && j < 20; j++) {
		i = &e->insns[j];
		if (i->code == (BPF_LDX | BPF_W | BPF_MEM) && i->dst_reg == BPF_REG_9 &&
		    i->src_reg == BPF_REG_6 && i->off == 0)
			return j + 1;
	}
	return 1;
}

/*
 * The program with a where clause is the one whose filter accepts every
 * packet (one "ret #-1", which translates to nothing) with the filter
 * inserted after the prologue: the same instructions (jumps are relative).
 * In FRAME_WINDOW mode the prologue copies the whole window for the filter.
 * Both without their fast paths, which the where clause changes (its
 * accepts that tested IPv4 skip those tests) and which test_fields
 * compares with the generic code, frame by frame.
 */
static const char *check_where(const char *expr)
{
	static const struct sock_filter accept_all = BPF_STMT(BPF_RET | BPF_K, 0xffffffff);
	static char why[320];
	char err[256];
	struct prog bare, slow, *with = &slow;
	int pw, pb, k, i;

	slow_only = 1;
	if (compile(expr, &slow, 1, err, sizeof(err))) {
		slow_only = 0;
		snprintf(why, sizeof(why), "without fast paths: %s", err);
		emit_free(&slow.e);
		return why;
	}
	pw = prologue_len(&with->e);
	if (compile(expr, &bare, 0, err, sizeof(err))) {
		slow_only = 0;
		emit_free(&slow.e);
		snprintf(why, sizeof(why), "without where: %s", err);
		emit_free(&bare.e);
		return why;
	}
	if (with->x[0].q.filter) {
		emit_free(&bare.e);
		emit_init(&bare.e);
		struct codegen_expr x = { &bare.x[0].q, &bare.x[0].lay, &accept_all, 1 };

		bare.e.slow_only = 1;
		if (codegen(&x, 1, frame_mode, 0, &bare.e, err, sizeof(err))) {
			slow_only = 0;
			snprintf(why, sizeof(why), "with an empty filter: %s", err);
			emit_free(&bare.e);
			emit_free(&slow.e);
			return why;
		}
	}
	pb = prologue_len(&bare.e);
	k = (with->e.len - pw) - (bare.e.len - pb);
	if (!with->x[0].q.filter && (k || pw != pb))
		snprintf(why, sizeof(why), "no where clause, yet %d more instructions", k);
	else if (with->x[0].q.filter && k < 1)
		snprintf(why, sizeof(why), "the where clause added %d instructions", k);
	else if (with->x[0].q.filter && (pw == PROLOGUE_COPY) != (frame_mode == FRAME_WINDOW))
		snprintf(why, sizeof(why), "the window is copied %s", pw == PROLOGUE_COPY ?
			 "in LD_ABS mode" :
			 "not before the where clause");
	else
		why[0] = '\0';
	for (i = 0; !why[0] && i < bare.e.len; i++) {
		int at = i < pb ? i : i - pb + pw + k;

		if (memcmp(&with->e.insns[at], &bare.e.insns[i], sizeof(struct bpf_insn)))
			snprintf(why, sizeof(why), "instruction %d differs from %d without where",
				 at, i);
	}
	slow_only = 0;
	emit_free(&bare.e);
	emit_free(&slow.e);
	return why[0] ? why : NULL;
}

/*
 * One one-byte key (or none): the array; else the hash key: the status
 * bytes, then the values in order, each at the first offset aligned to its
 * width (4 for wider ones), the whole a multiple of 4 bytes.
 */
static const char *check_layout(const struct query *q, const struct layout *lay)
{
	int one_byte = q->nkeys == 1 && q->keys[0].field->width == 1 && !q->keys[0].prefix;
	int i, end = q->nkeys;

	if (lay->array != (q->nkeys == 0 || one_byte))
		return "array layout chosen wrongly";
	if (lay->nkeys != q->nkeys)
		return "nkeys";
	if (lay->array && lay->key_size != 4)
		return "array key is not 4 bytes";
	if (lay->array && lay->max_entries != (q->nkeys ? ARRAY_ABSENT + 2 : 1))
		return "array entries";
	if (!lay->array && (lay->key_size != lay->row_size || lay->max_entries))
		return "hash key size or entries";
	for (i = 0; i < q->nkeys; i++) {
		int w = q->keys[i].field->width, a = w < 4 ? w : 4;

		if (lay->val_off[i] < end || lay->val_off[i] % a || lay->val_off[i] >= end + a)
			return "value offsets not packed and aligned after the status bytes";
		end = lay->val_off[i] + w;
	}
	if (lay->row_size < end || lay->row_size >= end + 4 + (end == 0) * 4 ||
	    lay->row_size % 4 || lay->row_size > 8 + 16 * MAX_KEYS)
		return "row size";
	return NULL;
}

static void check_structure(const char *expr)
{
	const char *why;
	char err[256], name[400];
	struct prog p;
	int i;

	snprintf(name, sizeof(name), "'%s'%s: compiles", expr, mode_tag[frame_mode]);
	if (!tap_ok(!compile(expr, &p, 1, err, sizeof(err)) && !p.e.err, name)) {
		printf("#   %s\n", err);
		emit_free(&p.e);
		return;
	}
	why = check_flow(&p.e);
	if (!why)
		why = check_stack(&p.e);
	if (!why && p.nx == 1)
		why = check_where(expr);
	for (i = 0; !why && i < p.nx; i++)
		why = check_layout(&p.x[i].q, &p.x[i].lay);
	snprintf(name, sizeof(name), "'%s'%s: structure (%d insns)", expr,
		 mode_tag[frame_mode], p.e.len);
	if (!tap_ok(!why, name))
		printf("#   %s\n", why);
	emit_free(&p.e);
}

/* Array entries map back to hash-layout keys for the printers. */
static void check_array_keys(void)
{
	unsigned char key[16];
	struct layout lay;
	struct prog p;
	char err[64];
	int ok;

	compile("count by ip.proto", &p, 0, err, sizeof(err));
	lay = p.x[0].lay;
	layout_key_from_index(&lay, 6, key);
	ok = key[0] == KEY_PRESENT && key[lay.val_off[0]] == 6;
	layout_key_from_index(&lay, 255, key);
	ok &= key[0] == KEY_PRESENT && key[lay.val_off[0]] == 255;
	layout_key_from_index(&lay, ARRAY_ABSENT, key);
	ok &= key[0] == KEY_ABSENT && key[lay.val_off[0]] == 0;
	layout_key_from_index(&lay, ARRAY_ABSENT + 1, key);
	ok &= key[0] == KEY_TRUNCATED && key[lay.val_off[0]] == 0;
	tap_ok(ok, "layout_key_from_index: value, absent and truncated entries");
	emit_free(&p.e);

	compile("count", &p, 0, err, sizeof(err));
	memset(key, 0xff, sizeof(key));
	layout_key_from_index(&p.x[0].lay, 0, key);
	tap_ok(p.x[0].lay.row_size == 4 && !key[0] && !key[3],
		"layout_key_from_index: 'count' has one zero key");
	emit_free(&p.e);
}

/*
 * A where clause too large for the program gives an error, not a crash:
 * 4095 classic loads (libpcap's optimizer takes minutes to make one).
 */
static void check_too_large(void)
{
	static struct sock_filter f[BPF_MAXINSNS];
	struct parse_error perr;
	char err[256];
	struct prog p;
	int i, ret;

	for (i = 0; i < BPF_MAXINSNS - 1; i++)
		f[i] = (struct sock_filter){ BPF_LD | BPF_H | BPF_ABS, 0, 0, 12 };
	f[BPF_MAXINSNS - 1] = (struct sock_filter){ BPF_RET | BPF_K, 0, 0, 0xffff };
	parse_query("count by ip.proto", &p.x[0].q, &perr);
	layout_query(&p.x[0].q, 0, &p.x[0].lay);
	emit_init(&p.e);
	ret = codegen(&(struct codegen_expr){ &p.x[0].q, &p.x[0].lay, f, BPF_MAXINSNS }, 1,
		      FRAME_WINDOW, 0, &p.e, err, sizeof(err));
	if (!tap_ok(ret == -1 && p.e.err == -E2BIG && strstr(err, "program too large"),
		     "a where clause of 4095 loads: 'program too large'"))
		printf("#   ret %d, len %d, err %d '%s'\n", ret, p.e.len, p.e.err, ret ? err : "");
	emit_free(&p.e);
}

/*
 * A program that fits without its fast paths but not with them (the where
 * clause read directly is translated twice) is built without them.
 */
static void check_fits_without_fast(void)
{
	struct build_opts o = { .allowed = FRAME_DIRECT };
	static char text[2048];
	const char *expr = text;
	struct build_error err;
	struct prog p;
	int i, n, ret;

	n = snprintf(text, sizeof(text), "count by ip.src, tcp.dstport where tcp[1] = 1");
	for (i = 2; i < 90; i++)
		n += snprintf(text + n, sizeof(text) - n, " or tcp[%d] = %d", i, i);
	ret = program_build(&p, &expr, 1, &o, &err);
	tap_okf(!ret && p.e.slow_only && p.e.len <= PROGRAM_FAST_BUDGET + 512,
		 "direct, a where clause of 89 tests: built without the fast paths (%d insns)",
		 ret ? 0 : p.e.len);
	if (ret)
		printf("#   %s\n", err.msg);
	else
		program_free(&p);
	expr = "count by ip.src, tcp.dstport where tcp port 443";
	ret = program_build(&p, &expr, 1, &o, &err);
	tap_okf(!ret && !p.e.slow_only && p.e.len <= PROGRAM_FAST_BUDGET,
		 "direct, '%s': built with them (%d insns)", expr, ret ? 0 : p.e.len);
	if (!ret)
		program_free(&p);
}

/* -dd: one C initializer per instruction slot. */
static void check_listing_c(void)
{
	char err[64], *text = NULL;
	struct prog p;
	size_t size;
	int lines = 0;
	FILE *f;

	compile("count by ip.src/24, tcp.dstport", &p, 1, err, sizeof(err));
	f = open_memstream(&text, &size);
	disasm_print_c(f, &p.e);
	fclose(f);
	for (size_t i = 0; i < size; i++)
		lines += text[i] == '\n';
	tap_ok(lines == p.e.len && !strncmp(text, "{ 0xbf,  6,  1,      0, 0x00000000 },\n", 38),
		"disasm_print_c: one line per slot, r6 = r1 first");
	free(text);
	emit_free(&p.e);
}

/* How many instructions of e read __sk_buff.cb[]. */
static int cb_reads(const struct emit *e)
{
	int i, n = 0;

	for (i = 0; i < e->len; i++)
		n += e->insns[i].code == (BPF_LDX | BPF_W | BPF_MEM) &&
		     e->insns[i].src_reg == BPF_REG_6 &&
		     e->insns[i].off >= (int)offsetof(struct __sk_buff, cb[0]) &&
		     e->insns[i].off <= (int)offsetof(struct __sk_buff, cb[4]);
	return n;
}

/*
 * Only a capture file's records can be cut short (cb[0], frame.h): a live
 * socket's program does not read cb[], in no frame mode.
 */
static void check_live(void)
{
	static const char *const expr = "count by frame.len, ip.src";
	struct build_opts o = { .src = { .ifname = "eth0" } };
	struct build_error berr;
	struct program p[2];
	int k;

	for (o.allowed = FRAME_WINDOW; o.allowed <= FRAME_DIRECT; o.allowed++) {
		for (k = 0; k < 2; k++) {
			o.src.ifname = k ? "eth0" : NULL;
			if (program_build(&p[k], &expr, 1, &o, &berr))
				emit_init(&p[k].e);
		}
		tap_okf(cb_reads(&p[0].e) > 0 && p[1].e.len && !cb_reads(&p[1].e),
			 "'%s'%s: cb[0] read for a file, never live", expr,
			 mode_tag[o.allowed]);
		for (k = 0; k < 2; k++)
			program_free(&p[k]);
	}
}

int main(int argc, char **argv)
{
	const char *update = getenv("UPDATE_GOLDEN");
	const struct field *tab;
	char expr[96];
	size_t i;
	int n, j;

	(void)argc;
	find_golden_dir(argv[0]);
	for (i = 0; i < sizeof(goldens) / sizeof(goldens[0]); i++)
		check_golden(&goldens[i], update && *update && strcmp(update, "0"));
	tab = field_table(&n);
	for (frame_mode = FRAME_WINDOW; frame_mode <= FRAME_DIRECT; frame_mode++) {
		for (i = 0; i < sizeof(goldens) / sizeof(goldens[0]); i++)
			check_structure(goldens[i].expr);
		for (i = 0; i < sizeof(exprs) / sizeof(exprs[0]); i++)
			check_structure(exprs[i]);
		for (j = 0; j < n; j++) {
			snprintf(expr, sizeof(expr), "count by %s", tab[j].name);
			check_structure(expr);
			snprintf(expr, sizeof(expr), "count by %s where tcp or udp", tab[j].name);
			check_structure(expr);
		}
	}
	frame_mode = FRAME_WINDOW;
	check_array_keys();
	check_too_large();
	check_fits_without_fast();
	check_listing_c();
	check_live();
	return tap_done();
}
