/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The live view: a full-screen table on a terminal (ncurses), redrawn
 * every interval from the struct interval the printers get.  A header
 * with the interval's totals and the interface's own counters, then the
 * busiest keys with their rates, their share of the total and a sparkline
 * of their last VIEW_HISTORY intervals; keys that stop counting stay on
 * the screen until their sparkline is empty.  Keys are written by the
 * human printer's formatter (output.h).
 *
 * With several expressions, a tab for each: a line of tabs above the
 * table ("[1 count by ip.proto]" the one shown, in reverse video), and
 * per tab its own rows, sparklines, sort order and scroll position.  Every
 * interval is folded into every tab, so that a tab shows its rows and
 * their history as soon as it is chosen.  The header speaks of the tab
 * shown.  With one expression there is no line of tabs.
 *
 * Keys: q quits, s sorts the tab by packets or by bytes, p pauses the
 * display of every tab (the intervals still come in), arrows, PgUp, PgDn,
 * Home and End scroll; Tab and Shift-Tab show the next and the previous
 * tab, 1 to 9 the tab of that number.
 */
#ifndef EBPFCOUNT_VIEW_H
#define EBPFCOUNT_VIEW_H

#include "attach.h"
#include "output.h"
#include "report.h"

#define VIEW_HISTORY 10		/* intervals in a sparkline */
#define VIEW_KEYS 1000		/* keys of an interval followed (or --top N) */

struct view;

/*
 * Take over the terminal of standard input and output for the rows of o
 * (its expressions, -n, --top), counted on ifname, a loopback (each
 * packet both received and sent) if loopback; c: the interface's counters
 * now, or NULL.  NULL if the terminal cannot show it (an unknown TERM, no
 * cursor addressing) or out of memory.
 */
struct view *view_open(const struct output *o, const char *ifname, int loopback,
		       const struct if_counters *c);
/* The descriptor whose input view_keys() wants to see (standard input). */
int view_fd(const struct view *v);
/* Act on the keys typed and on a resize; 1 when q asks to quit. */
int view_keys(struct view *v);
/*
 * The figures of intervals iv (not final, one per expression) and the
 * interface's counters at their end (NULL: unknown); redraw unless
 * paused.  0, or -1 out of memory.
 */
int view_interval(struct view *v, const struct interval *iv, const struct if_counters *c);
/*
 * Give the terminal back and free v (NULL: nothing).  An exit while a view
 * is open (an error, exit()) gives the terminal back too.
 */
void view_close(struct view *v);

#endif
