// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz_expr: an expression, as `ebpfcount EXPR` takes it, through the lexer,
 * the parser and program_build(), for a capture file (the where clause
 * compiled by libpcap, translated by cbpf.c); or several, separated by ';',
 * as `ebpfcount -e EXPR -e EXPR` takes them, in one program.
 *
 * Input: the expressions up to the first NUL byte (all of it if there is
 * none); after the NUL, u8 options (bit 0: the verifier allows LD_ABS only;
 * bit 1: a LINUX_SLL capture, no Ethernet addresses; bits 2-3: --max-keys
 * 0, 1, 4 or 100), u8 extra (bits 0-1: gso_segs; the rest: the bytes of
 * the packet not seen, cb[0], in units of 997), then frames (frame_from()).
 *
 * Refused: one error of one line, at an offset inside the expression it
 * names
 * (compile.h's -1, "not about one", must not be used for an error that
 * comes from the expression, and every one does).
 *
 * Built: the program, relocated to maps that maps_create() makes in a
 * strict engine (as main.c's engine_user() does, strict: it also faults on
 * a register or stack byte read before it is written), runs on the frames
 * of fuzz.h and those of the input.  The engine refuses every memory
 * access outside the stack, the context fields and map values, and reads
 * the packet only through LD_ABS/LD_IND and skb_load_bytes, which check
 * its bounds; it stops a program after VM_MAX_STEPS instructions.  So any
 * vm_load() or vm_run() error is a finding, as is a return value other
 * than 0.  Last, the counts: the packets and bytes in each expression's
 * maps (entries and overflow) must be those of the frames its where clause
 * accepts,
 * as libpcap's own interpreter runs it: gso_segs (at least 1) packets and
 * len + cb[0] bytes each (not checked where libpcap cannot tell: inbound,
 * outbound and ifindex, and where Linux and libpcap differ, fuzz.h).
 * And one expression's program counts, key for key, as the same program
 * built without its fast paths (codegen.c), on the same frames.
 */
#include "compile.h"
#include "fuzz.h"
#include "layout.h"
#include "maps.h"
#include "session.h"

#define MAX_INPUT_FRAMES 8

struct sum {
	__u64 packets, bytes;
	__u64 rows;		/* the rows' digest, whatever their order */
	unsigned int key_size;
};

static int add_entry(const unsigned char *key, const struct counter *c, void *ctx)
{
	struct sum *s = ctx;
	__u64 h = 14695981039346656037ull;	/* FNV-1a of the key, then the counts */
	unsigned int i;

	for (i = 0; i < s->key_size; i++)
		h = (h ^ key[i]) * 1099511628211ull;
	h = (h ^ c->packets) * 1099511628211ull;
	h = (h ^ c->bytes) * 1099511628211ull;
	s->rows += h;
	s->packets += c->packets;
	s->bytes += c->bytes;
	return 0;
}

static void check_error(const char *expr, const struct build_error *err)
{
	int len = strlen(expr);

	if (!err->msg[0] || strchr(err->msg, '\n'))
		fuzz_fail("'%s': the error is not one line: '%s'", expr, err->msg);
	if (err->pos < 0 || err->pos > len)
		fuzz_fail("'%s': error at %d, outside [0, %d]: %s", expr, err->pos, len,
			  err->msg);
}

/* Run the program on every frame: it must return 0, never fail. */
static void run(const char *expr, struct vm *vm, const struct frame *f, int nf,
		const struct packet *meta)
{
	int i;

	for (i = 0; i < nf; i++) {
		struct packet skb = *meta;
		__u32 ret;

		skb.data = f[i].data;
		skb.len = f[i].len;
		skb.nonlinear = fuzz_nonlinear(i, skb.len);	/* read only directly */
		skb.protocol = skb.len >= ETH_HLEN ? htons(be(skb.data + 12, 2)) : 0;
		if (vm_run(vm, &skb, &ret))
			fuzz_fail("'%s': frame %d: %s", expr, i, vm_error(vm));
		if (ret)
			fuzz_fail("'%s': frame %d: the program returned %u", expr, i, ret);
	}
}

/*
 * What x's where clause accepts of the frames, as libpcap runs it, into
 * want.  Returns 0 if libpcap cannot tell (ancillary loads: inbound,
 * ifindex) or a frame reached a place where Linux and libpcap differ
 * (fuzz.h).
 */
static int accepted(const struct expr *x, const struct frame *f, int nf,
		    const struct packet *meta, struct sum *want)
{
	struct bpf_program ref = { 0 };
	char err[PCAP_ERRBUF_SIZE];
	int i, known = 1;

	if (x->q.filter && filter_compile(x->q.filter, NULL, &ref, err, sizeof(err)))
		fuzz_fail("'%s': built, but its where clause does not compile: %s", x->text,
			  err);
	if (x->q.filter)
		known = !has_ancillary(filter_insns(&ref), ref.bf_len);
	for (i = 0; i < nf; i++) {
		__u32 len = f[i].len + meta->cb[0];

		if (x->q.filter && classic_diverges(filter_insns(&ref), ref.bf_len, f[i].data,
						    f[i].len, len))
			known = 0;
		if (x->q.filter && !bpf_filter(ref.bf_insns, f[i].data, len, f[i].len))
			continue;
		want->packets += meta->gso_segs ? meta->gso_segs : 1;
		want->bytes += len;
	}
	filter_free(&ref);
	return known;
}

/*
 * Run p on the nf frames f with meta, check its counts; the first
 * expression's rows' digest into *rows.
 */
static void check_program(const char *expr, const struct program *p, const struct frame *f,
			  int nf, const struct packet *meta, __u64 *rows)
{
	/*
	 * An unbounded hash has 2^20 entries, whose creation takes 5 ms under
	 * ASan: one of 64 holds the keys of 20 frames as well, never full.
	 */
	struct session_opts so = { .strict = 1, .engine_keys = 64 };
	struct counter overflow;
	struct session s;
	char err[512];
	int i;

	if (session_open(&s, p, &so, err, sizeof(err)))
		fuzz_fail("'%s': %s", expr, err);
	run(expr, s.vm, f, nf, meta);
	for (i = 0; i < p->nx; i++) {
		struct sum got = { .key_size = p->x[i].lay.row_size }, want = { 0 };
		int known = accepted(&p->x[i], f, nf, meta, &want);

		if (maps_read(&s.m[i], add_entry, &got, &overflow))
			fuzz_fail("'%s': maps_read failed", p->x[i].text);
		got.packets += overflow.packets;
		got.bytes += overflow.bytes;
		if (known && (got.packets != want.packets || got.bytes != want.bytes))
			fuzz_fail("'%s' (%d of %d in one program): counted %llu packets, %llu "
				  "bytes; the where clause accepts %llu packets, %llu bytes",
				  p->x[i].text, i + 1, p->nx, (unsigned long long)got.packets,
				  (unsigned long long)got.bytes, (unsigned long long)want.packets,
				  (unsigned long long)want.bytes);
		if (!i)
			*rows = got.rows + got.packets * 31 + overflow.packets;
	}
	session_close(&s);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const unsigned int max_keys[] = { 0, 1, 4, 100 };
	const uint8_t *nul = memchr(data, 0, size);
	size_t len = nul ? (size_t)(nul - data) : size;
	struct in in = { nul ? nul + 1 : data + size, nul ? size - len - 1 : 0 };
	unsigned int opt = in_u8(&in);
	struct build_opts o = {
		.allowed = opt & 1 ? FRAME_LD_ABS : opt & 16 ? FRAME_DIRECT : FRAME_WINDOW,
		.src.linktype = opt & 2 ? "LINUX_SLL" : NULL,
		.max_keys = max_keys[opt >> 2 & 3],
	};
	struct build_error err;
	struct program p;
	char *expr = malloc(len + 1);	/* exactly: ASan sees a read past its end */
	char *x[MAX_EXPRS + 1], *semi;
	int n = 0;

	if (!expr)
		return 0;
	memcpy(expr, data, len);
	expr[len] = '\0';
	/* expressions separated by ';': up to one more than a program takes */
	for (x[n++] = expr; n <= MAX_EXPRS && (semi = strchr(x[n - 1], ';')); x[n++] = semi + 1)
		*semi = '\0';
	if (program_build(&p, (const char *const *)x, n, &o, &err)) {
		if (n > MAX_EXPRS && err.pos != -1)
			fuzz_fail("%d expressions: error at %d: %s", n, err.pos, err.msg);
		else if (n <= MAX_EXPRS && err.expr >= 0 && err.expr < n)
			check_error(x[err.expr], &err);
		else if (n <= MAX_EXPRS)
			fuzz_fail("'%s': error about expression %d of %d", expr, err.expr, n);
	} else {
		static const unsigned int gso[] = { 0, 1, 2, 65535 };
		struct frame f[NFRAMES + MAX_INPUT_FRAMES];
		unsigned int extra = in_u8(&in);
		struct packet meta = { .gso_segs = gso[extra & 3], .cb[0] = (extra >> 2) * 997 };
		__u64 rows, slow_rows;
		int nf;

		frames_init();
		memcpy(f, frames, sizeof(frames));
		for (nf = NFRAMES; nf < NFRAMES + MAX_INPUT_FRAMES && frame_from(&in, &f[nf]);
		     nf++)
			;
		check_program(expr, &p, f, nf, &meta, &rows);
		program_free(&p);
		o.slow_only = 1;
		if (n == 1 && program_build(&p, (const char *const *)x, n, &o, &err))
			fuzz_fail("'%s': built with its fast paths, not without: %s", expr,
				  err.msg);
		if (n == 1) {
			check_program(expr, &p, f, nf, &meta, &slow_rows);
			program_free(&p);
			if (rows != slow_rows)
				fuzz_fail("'%s': its rows differ without its fast paths", expr);
		}
	}
	free(expr);
	return 0;
}
