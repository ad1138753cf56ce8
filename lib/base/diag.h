/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * struct diag: the library's one channel for notes, warnings and errors
 * (as drgn's log is libdrgn's): every stage says what it has to say
 * through a struct diag *, not through a callback type of its own.
 *
 * Two kinds, one interface:
 *   - the caller's (diag__init()): each message goes at once to the
 *     caller's d2b_opts.diag, with the input's name; the first D2B_ERROR
 *     is also kept in d2b_opts.errbuf, the public error contract of
 *     dwarf2btf.h (one line, never the path);
 *   - a kept one (diag__init_kept()): messages are kept, in order, to be
 *     said later through another (diag__replay());
 *   - a held one (diag__init_held()): the newest message only, for whoever
 *     learns what a failure means to say it in its own words
 *     (diag__last()): a reader fails without knowing whether the input is
 *     damaged or one reference leads nowhere, its caller knows.
 *
 * A message may carry what it says as data (struct d2b_func_note, of the
 * kernel's function policy: diag__func()): handed to the caller as
 * d2b_diag.func where d2b_opts.func_notes asks, in the message's place in
 * the order; a kept diag keeps the words only (the data points into
 * memory that need not outlive the call).
 *
 * Threads: a diag is used by one thread at a time.  Work on worker
 * threads (a unit's walk) says its messages into a kept diag of its own;
 * the thread that owns the caller's replays them there in unit order, so
 * the messages come in the same order whatever the threads and -j.
 */
#ifndef D2B_DIAG_H
#define D2B_DIAG_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dwarf2btf.h"

struct diag_msg {
	enum d2b_level level;
	uint64_t die_off;	/* UINT64_MAX: none */
	int tag;
	char *msg;
};

struct diag {
	/* the caller's: diag__init() */
	d2b_diag_fn fn;		/* NULL: nobody listens */
	void *arg;
	const char *file;	/* the input's name, for fn only */
	bool func_notes;	/* d2b_opts.func_notes: hand a note's data over */
	char *errbuf;		/* the first error's line, or NULL */
	size_t errlen;
	unsigned int nr_errors;	/* D2B_ERROR messages said */
	/* a kept one's: diag__init_kept(), diag__init_held() */
	bool kept;
	bool errors_only;	/* kept for an errbuf: D2B_ERROR messages only */
	bool newest_only;	/* held: a message replaces the last */
	struct diag_msg *msgs;
	size_t nr_msgs, msgs_cap;
	bool lost;		/* a message could not be kept (no memory) */
};

/* The caller's channel: opts' diag callback and errbuf, for input file. */
void diag__init(struct diag *d, const struct d2b_opts *opts, const char *file);
/* A channel that keeps its messages for diag__replay(); none if !wanted
 * (nobody listens where they would be replayed). */
void diag__init_kept(struct diag *d, bool wanted);
/* A kept channel for what opts' caller reads: every message where its
 * callback listens, else the errors where its errbuf wants the first. */
void diag__init_kept_for(struct diag *d, const struct d2b_opts *opts);
/* A channel that holds its newest message only. */
void diag__init_held(struct diag *d);
void diag__release(struct diag *d);
/* Forget the messages kept diag d keeps (it stays open). */
void diag__clear(struct diag *d);
/* The words of kept diag d's newest message, or "" if it keeps none (or
 * that it was lost). */
const char *diag__last(const struct diag *d);

/* A message of unit cu (or NULL) at DIE die_off (UINT64_MAX: none), tag its
 * DWARF tag (0: none). */
void diag__at(struct diag *d, enum d2b_level level, const char *cu, uint64_t die_off, int tag,
	      const char *fmt, ...) __attribute__((format(printf, 6, 7)));
void diag__vat(struct diag *d, enum d2b_level level, const char *cu, uint64_t die_off, int tag,
	       const char *fmt, va_list ap) __attribute__((format(printf, 6, 0)));
/* A message about no unit and no DIE. */
void diag__say(struct diag *d, enum d2b_level level, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* A D2B_INFO about no unit and no DIE that says a function's note as data
 * too (d2b_diag.func, where the caller asked for it). */
void diag__func(struct diag *d, const struct d2b_func_note *note, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Say kept diag from's messages through d, as unit cu's, in order; then
 * whether some were lost. */
void diag__replay(struct diag *d, const struct diag *from, const char *cu);

#endif
