/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The command line: ebpfcount's options, checked as tcpdump checks its
 * own (strict decimal numbers, bounded), into struct options.  Nothing
 * here exits: a usage error comes back as its message.
 */
#ifndef EBPFCOUNT_OPTIONS_H
#define EBPFCOUNT_OPTIONS_H

#include <stddef.h>
#include <stdio.h>

#include "compile.h"

struct passwd;

#ifndef EBPFCOUNT_VERSION
#define EBPFCOUNT_VERSION "0.1"
#endif

struct options {
	const char *ifname;
	const char *file;	/* -r */
	int kernel_engine;	/* --engine kernel */
	int engine;		/* --engine given */
	long count;		/* intervals, 0: until interrupted */
	double interval;
	const char *format;
	int format_given;	/* -F: lines even on a terminal */
	int json;		/* -F json, seen before any other option */
	int numeric;
	int promisc;
	int nopromisc;		/* -p given */
	long top;
	long max_keys;
	int dump;		/* -d: 1 listing, 2 C array */
	int verbose;
	const char *user;	/* -Z */
	struct passwd *pw;	/* its entry, when we are root */
	const char *listen;	/* --listen [ADDR:]PORT, split in two: */
	char listen_host[256], listen_port[8];
	const char *textfile;	/* --textfile */
	const char *exprs[MAX_EXPRS];	/* -e, or the one argument */
	int nexprs;
};

enum options_result {
	OPTIONS_COUNT,		/* o is filled: count */
	OPTIONS_DONE,		/* -h, --version, --list-fields: printed on stdout */
	OPTIONS_USAGE,		/* a usage error, in err (o->json is set) */
};

/* Parse argv into o (which holds the defaults). */
enum options_result options_parse(int argc, char **argv, struct options *o, char *err,
				  size_t errlen);

#endif
