/* SPDX-License-Identifier: GPL-2.0 */
/* Hand a generated program to the kernel's verifier. */
#ifndef EBPFCOUNT_LOAD_H
#define EBPFCOUNT_LOAD_H

#include <stddef.h>

#include "emit.h"
#include "frame.h"
#include "layout.h"

/*
 * Relocate the map references of e's program to fds and load it as a
 * socket filter.  verbose: print the verifier's log on stderr.  Returns
 * the program fd, or -1 with err holding the reason and the log's tail.
 */
int load_program(const struct emit *e, const int fds[NR_MAPS], int verbose,
		 char *err, size_t errlen);

/*
 * How this process's programs may read the frame: FRAME_WINDOW when the
 * verifier will allow variable-offset stack reads (CAP_PERFMON or
 * CAP_SYS_ADMIN in the effective set), else FRAME_LD_ABS.
 */
enum frame_mode load_frame_mode(void);

#endif
