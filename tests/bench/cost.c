// SPDX-License-Identifier: GPL-2.0
/*
 * What a program costs per packet, counted rather than timed (issue 27):
 * each program runs in ebpfcount's user-space engine (src/vm.c) on each
 * packet of a fixed mix, and vm_count() tells what it executed.  Counts do
 * not move with TCG's noise; tests/bench/cost.py weighs them with weights
 * fitted to a make bench run, prints the table and guards a baseline.
 *
 *   cost -p NAME=FILE.pcap[,len=N][,linear=N]... PROGRAM...
 *
 * A packet is the first record of FILE (build/bin/craft -w makes them),
 * cut to len bytes, with only linear of them in the skb's linear part (the
 * rest as a nonlinear skb's, which direct reads cannot reach).  PROGRAM:
 *
 *   EXPR[|TWIN.bpf.o[|DIRECT_TWIN.bpf.o]]
 *	ebpfcount's program for EXPR in each way it reads the frame (copy,
 *	ld_abs, direct; see src/frame.h), each next to its twin written in C
 *	and compiled by clang -O2: the LD_ABS twin for copy and ld_abs, the
 *	direct twin for direct;
 *   @NAME=OBJ.bpf.o
 *	a program of clang's alone (the TC peer).
 *
 * Objects are read with libbpf's ELF parser (bpf_object__open: no bpf(2)
 * call) and their map relocations pointed at engine maps.  Every program
 * runs once on a packet to insert its key, then again counted (a repeat
 * key, as in the benchmarks).  One JSON object per line per program, mode
 * and packet:
 *
 *   {"program": P, "mode": M, "packet": K, "ret": R, "insns": N, "ld_abs": N,
 *    "ctx_loads": N, "load_bytes": N, "calls": N, "lookups": {TYPE: N},
 *    "updates": {TYPE: N}, "stack": BYTES, "twin": {the same of the twin}}
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/libbpf.h>

#include "capture.h"
#include "compile.h"
#include "maps.h"
#include "session.h"
#include "vm.h"

#define MAX_PACKETS 32
#define MAX_ENGINE_ENTRIES 4096	/* a repeat key needs one */

struct sample {
	const char *name;
	unsigned char data[2048];
	struct packet skb;
};

static struct sample packets[MAX_PACKETS];
static int npackets;

static _Noreturn void die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fprintf(stderr, "cost: ");
	vfprintf(stderr, fmt, ap);
	fprintf(stderr, "\n");
	va_end(ap);
	exit(1);
}

/* NAME=FILE.pcap[,len=N][,linear=N] */
static void add_packet(char *arg)
{
	char *eq = strchr(arg, '='), *opt, err[512];
	struct sample *p = &packets[npackets];
	unsigned int linear = 0;
	struct capture *c;
	long long ts;

	if (!eq || npackets == MAX_PACKETS)
		die("-p NAME=FILE.pcap[,len=N][,linear=N], at most %d", MAX_PACKETS);
	*eq = '\0';
	p->name = arg;
	opt = strchr(eq + 1, ',');
	if (opt)
		*opt++ = '\0';
	c = capture_open(eq + 1, err, sizeof(err));
	if (!c)
		die("%s", err);
	if (capture_next(c, &p->skb, &ts, err, sizeof(err)) != 1 || p->skb.len > sizeof(p->data))
		die("%s: no record of at most %zu bytes", eq + 1, sizeof(p->data));
	memcpy(p->data, p->skb.data, p->skb.len);
	p->skb.data = p->data;
	capture_close(c);
	for (; opt; opt = strchr(opt, ',') ? strchr(opt, ',') + 1 : NULL) {
		if (!strncmp(opt, "len=", 4) && (unsigned int)atoi(opt + 4) <= p->skb.len)
			p->skb.len = atoi(opt + 4);
		else if (!strncmp(opt, "linear=", 7))
			linear = atoi(opt + 7);
		else
			die("%s: bad option %s", p->name, opt);
	}
	if (linear && linear < p->skb.len)
		p->skb.nonlinear = p->skb.len - linear;
	p->skb.gso_segs = 1;
	npackets++;
}

static const char *map_type_name(unsigned int t)
{
	switch (t) {
	case BPF_MAP_TYPE_HASH:			return "hash";
	case BPF_MAP_TYPE_ARRAY:		return "array";
	case BPF_MAP_TYPE_PERCPU_HASH:		return "percpu_hash";
	case BPF_MAP_TYPE_PERCPU_ARRAY:		return "percpu_array";
	case BPF_MAP_TYPE_LRU_HASH:		return "lru_hash";
	case BPF_MAP_TYPE_ARRAY_OF_MAPS:	return "array_of_maps";
	default:				return "other";
	}
}

static void print_types(const char *what, const unsigned long long *n)
{
	const char *sep = "";
	int t;

	printf(", \"%s\": {", what);
	for (t = 0; t < VM_COST_MAP_TYPES; t++) {
		if (!n[t])
			continue;
		printf("%s\"%s\": %llu", sep, map_type_name(t), n[t]);
		sep = ", ";
	}
	printf("}");
}

static void print_cost(const struct vm_cost *c, __u32 ret)
{
	unsigned long long calls = c->load_bytes + c->other_calls;
	int t;

	for (t = 0; t < VM_COST_MAP_TYPES; t++)
		calls += c->lookup[t] + c->update[t];
	printf("\"ret\": %u, \"insns\": %llu, \"ld_abs\": %llu, \"ctx_loads\": %llu, "
	       "\"load_bytes\": %llu, \"calls\": %llu", ret, c->insns, c->ld_abs, c->ctx_loads,
	       c->load_bytes, calls);
	print_types("lookups", c->lookup);
	print_types("updates", c->update);
	printf(", \"stack\": %u", c->stack);
}

/* A program in an engine of its own: ebpfcount's in a session, a twin's in vm. */
struct loaded {
	struct session s;
	struct vm *vm;
	const char *reads;	/* ebpfcount's: how it reads the frame (window, ld_abs, direct) */
};

/* Run lp on packet p twice, the second time counted. */
static void measure(struct loaded *lp, const struct sample *p, const char *what,
		    struct vm_cost *c, __u32 *ret)
{
	memset(c, 0, sizeof(*c));
	if (vm_run(lp->vm, &p->skb, ret))
		die("%s on %s: %s", what, p->name, vm_error(lp->vm));
	vm_count(lp->vm, c);
	if (vm_run(lp->vm, &p->skb, ret))
		die("%s on %s: %s", what, p->name, vm_error(lp->vm));
	vm_count(lp->vm, NULL);
}

static void unload(struct loaded *lp)
{
	if (lp->s.vm)
		session_close(&lp->s);
	else
		vm_free(lp->vm);
	memset(lp, 0, sizeof(*lp));
}

/* ebpfcount's program for expr, reading the frame in mode */
static void load_expr(struct loaded *lp, const char *expr, enum frame_mode mode)
{
	struct session_opts so = { .engine_keys = MAX_ENGINE_ENTRIES };
	struct build_opts bo = { .allowed = mode };
	struct build_error berr;
	struct program p;
	char err[512];

	if (program_build(&p, &expr, 1, &bo, &berr))
		die("%s: %s (column %d)", expr, berr.msg, berr.pos + 1);
	lp->reads = p.mode == FRAME_DIRECT ? "direct" : p.mode == FRAME_WINDOW ? "window" : "ld_abs";
	if (session_open(&lp->s, &p, &so, err, sizeof(err)))
		die("%s: %s", expr, err);
	lp->vm = lp->s.vm;
	program_free(&p);
}

/*
 * The relocations of section sec of the ELF file path (a .rel section): each
 * LD_IMM64 of a map gets the handle of the engine map of the same name.
 */
struct twin_map {
	const char *name;
	int handle;
};

static int handle_of(const struct twin_map *maps, int n, const char *name)
{
	int i;

	for (i = 0; name && i < n; i++)
		if (!strcmp(maps[i].name, name))
			return maps[i].handle;
	return -1;
}

static void relocate_maps(const char *path, const char *sec, const struct twin_map *maps,
			  int nmaps, struct bpf_insn *insns, size_t n)
{
	char relname[256];
	Elf_Scn *scn = NULL, *symscn;
	size_t shstrndx;
	int fd = open(path, O_RDONLY);
	Elf *elf;

	snprintf(relname, sizeof(relname), ".rel%s", sec);
	if (fd < 0 || elf_version(EV_CURRENT) == EV_NONE ||
	    !(elf = elf_begin(fd, ELF_C_READ, NULL)) || elf_getshdrstrndx(elf, &shstrndx))
		die("%s: cannot read the ELF file", path);
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh, symsh;
		Elf_Data *rels, *syms;
		size_t i;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_REL ||
		    strcmp(elf_strptr(elf, shstrndx, sh.sh_name), relname))
			continue;
		symscn = elf_getscn(elf, sh.sh_link);
		rels = elf_getdata(scn, NULL);
		if (!symscn || !gelf_getshdr(symscn, &symsh) || !rels ||
		    !(syms = elf_getdata(symscn, NULL)))
			die("%s: bad relocation section %s", path, relname);
		for (i = 0; i < sh.sh_size / sh.sh_entsize; i++) {
			GElf_Rel rel;
			GElf_Sym sym;
			size_t at;
			int h;

			if (!gelf_getrel(rels, i, &rel) ||
			    !gelf_getsym(syms, GELF_R_SYM(rel.r_info), &sym))
				die("%s: bad relocation %zu", path, i);
			h = handle_of(maps, nmaps, elf_strptr(elf, symsh.sh_link, sym.st_name));
			at = rel.r_offset / sizeof(struct bpf_insn);
			if (h < 0 || at >= n || insns[at].code != (BPF_LD | BPF_DW | BPF_IMM))
				die("%s: relocation %zu is not of a map load", path, i);
			insns[at].src_reg = BPF_PSEUDO_MAP_FD;
			insns[at].imm = h;
		}
	}
	elf_end(elf);
	close(fd);
}

/*
 * A clang object's first program, its maps made in the engine (an LRU hash
 * as a hash: with a repeat key they look up alike).
 */
static void load_object(struct loaded *lp, const char *path)
{
	struct twin_map maps[8];
	struct bpf_object *obj = bpf_object__open_file(path, NULL);
	struct bpf_program *prog;
	struct bpf_insn *insns;
	struct bpf_map *map;
	int nmaps = 0;
	char err[512];
	size_t n;

	if (!obj)
		die("%s: %s", path, strerror(errno));
	prog = bpf_object__next_program(obj, NULL);
	if (!prog)
		die("%s: no program", path);
	lp->vm = vm_new(0);
	if (!lp->vm)
		die("out of memory");
	bpf_object__for_each_map(map, obj) {
		__u32 type = bpf_map__type(map), max = bpf_map__max_entries(map);

		if (nmaps == 8 || strchr(bpf_map__name(map), '.'))
			continue;	/* .rodata and such: none in the twins */
		if (type == BPF_MAP_TYPE_LRU_HASH)
			type = BPF_MAP_TYPE_HASH;
		if (type != BPF_MAP_TYPE_ARRAY && type != BPF_MAP_TYPE_PERCPU_ARRAY &&
		    max > MAX_ENGINE_ENTRIES)
			max = MAX_ENGINE_ENTRIES;
		maps[nmaps].name = bpf_map__name(map);
		maps[nmaps].handle = vm_map_create(lp->vm, type, bpf_map__key_size(map),
						   bpf_map__value_size(map), max);
		if (maps[nmaps].handle < 0)
			die("%s: map %s: %s", path, maps[nmaps].name,
			    strerror(-maps[nmaps].handle));
		nmaps++;
	}
	n = bpf_program__insn_cnt(prog);
	insns = malloc(n * sizeof(*insns));
	if (!insns)
		die("out of memory");
	memcpy(insns, bpf_program__insns(prog), n * sizeof(*insns));
	relocate_maps(path, bpf_program__section_name(prog), maps, nmaps, insns, n);
	if (vm_load(lp->vm, insns, n, err, sizeof(err)))
		die("%s: the engine refused it: %s", path, err);
	free(insns);
	bpf_object__close(obj);
}

static void print_json_string(const char *s)
{
	putchar('"');
	for (; *s; s++)
		if (*s == '"' || *s == '\\')
			printf("\\%c", *s);
		else if ((unsigned char)*s < 0x20)
			printf("\\u%04x", *s);
		else
			putchar(*s);
	putchar('"');
}

static void line_start(const char *program, const char *mode, const struct sample *p)
{
	printf("{\"program\": ");
	print_json_string(program);
	printf(", \"mode\": \"%s\", \"packet\": ", mode);
	print_json_string(p->name);
	printf(", ");
}

/* @NAME=OBJ: a program of clang's alone */
static void cost_object(char *arg)
{
	char *eq = strchr(arg, '=');
	struct loaded lp = { 0 };
	struct vm_cost c;
	__u32 ret;
	int i;

	if (!eq)
		die("@NAME=OBJ.bpf.o, not %s", arg);
	*eq = '\0';
	load_object(&lp, eq + 1);
	for (i = 0; i < npackets; i++) {
		measure(&lp, &packets[i], arg, &c, &ret);
		line_start(arg + 1, "direct", &packets[i]);
		print_cost(&c, ret);
		printf("}\n");
	}
	unload(&lp);
}

/* EXPR[|TWIN[|DIRECT_TWIN]] in each mode, with its twins */
static void cost_expr(char *arg)
{
	static const struct { enum frame_mode mode; const char *name; int twin; } modes[] = {
		{ FRAME_WINDOW, "copy", 0 },
		{ FRAME_LD_ABS, "ld_abs", 0 },
		{ FRAME_DIRECT, "direct", 1 },
	};
	char *twin[2] = { NULL, NULL }, *bar;
	struct loaded lp, tw;
	struct vm_cost c, tc;
	__u32 ret, tret;
	unsigned int m;
	int i;

	bar = strchr(arg, '|');
	if (bar) {
		*bar = '\0';
		twin[0] = twin[1] = bar + 1;
		bar = strchr(bar + 1, '|');
		if (bar) {
			*bar = '\0';
			twin[1] = bar + 1;
		}
	}
	for (m = 0; m < sizeof(modes) / sizeof(modes[0]); m++) {
		memset(&lp, 0, sizeof(lp));
		memset(&tw, 0, sizeof(tw));
		load_expr(&lp, arg, modes[m].mode);
		if (twin[modes[m].twin])
			load_object(&tw, twin[modes[m].twin]);
		for (i = 0; i < npackets; i++) {
			measure(&lp, &packets[i], arg, &c, &ret);
			line_start(arg, modes[m].name, &packets[i]);
			printf("\"reads\": ");
			print_json_string(lp.reads);
			printf(", ");
			print_cost(&c, ret);
			if (tw.vm) {
				measure(&tw, &packets[i], twin[modes[m].twin], &tc, &tret);
				printf(", \"twin\": {");
				print_cost(&tc, tret);
				printf("}");
			}
			printf("}\n");
		}
		unload(&lp);
		if (tw.vm)
			unload(&tw);
	}
}

static int quiet(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	return level == LIBBPF_WARN ? vfprintf(stderr, fmt, ap) : 0;
}

int main(int argc, char **argv)
{
	int opt, i;

	while ((opt = getopt(argc, argv, "p:")) != -1) {
		if (opt != 'p')
			goto usage;
		add_packet(optarg);
	}
	if (!npackets || optind == argc)
		goto usage;
	libbpf_set_print(quiet);
	for (i = optind; i < argc; i++) {
		if (argv[i][0] == '@')
			cost_object(argv[i]);
		else
			cost_expr(argv[i]);
	}
	return 0;
usage:
	fprintf(stderr, "usage: cost -p NAME=FILE.pcap[,len=N][,linear=N]... "
		"EXPR[|TWIN.bpf.o[|DIRECT_TWIN.bpf.o]]|@NAME=OBJ.bpf.o...\n");
	return 2;
}
