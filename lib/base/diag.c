// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The one channel for notes, warnings and errors (diag.h).  A message is
 * made once, into a buffer of MSG_LEN bytes (longer ones are cut), and
 * either handed to the caller's callback (and the first error kept in its
 * errbuf) or kept, as a copy, for a replay in order (or held, the newest
 * copy only, for diag__last()).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/diag.h"
#include "base/vec.h"

enum { MSG_LEN = 1024 };

void diag__init(struct diag *d, const struct d2b_opts *opts, const char *file)
{
	memset(d, 0, sizeof(*d));
	d->fn = opts->diag;
	d->arg = opts->diag_arg;
	d->file = file;
	d->func_notes = opts->func_notes;
	if (opts->errbuf && opts->errlen) {
		d->errbuf = opts->errbuf;
		d->errlen = opts->errlen;
	}
}

void diag__init_kept(struct diag *d, bool wanted)
{
	memset(d, 0, sizeof(*d));
	d->kept = wanted;
}

void diag__init_kept_for(struct diag *d, const struct d2b_opts *opts)
{
	bool errbuf = opts->errbuf && opts->errlen;

	diag__init_kept(d, opts->diag || errbuf);
	d->errors_only = !opts->diag && errbuf;
}

void diag__init_held(struct diag *d)
{
	diag__init_kept(d, true);
	d->newest_only = true;
}

void diag__clear(struct diag *d)
{
	size_t i;

	for (i = 0; i < d->nr_msgs; i++)
		free(d->msgs[i].msg);
	d->nr_msgs = 0;
	d->lost = false;
}

void diag__release(struct diag *d)
{
	diag__clear(d);
	free(d->msgs);
	d->msgs = NULL;
	d->msgs_cap = 0;
}

const char *diag__last(const struct diag *d)
{
	if (d->nr_msgs)
		return d->msgs[d->nr_msgs - 1].msg;
	return d->lost ? "(the message was lost: out of memory)" : "";
}

/* Keep a copy of msg in kept diag d. */
static void keep(struct diag *d, enum d2b_level level, uint64_t die_off, int tag, const char *msg)
{
	char *copy = strdup(msg);

	if (d->newest_only)
		diag__clear(d);
	if (!copy || VEC_RESERVE(d->msgs, d->msgs_cap, d->nr_msgs, 1)) {
		free(copy);
		d->lost = true;
		return;
	}
	d->msgs[d->nr_msgs++] = (struct diag_msg){
		.level = level, .die_off = die_off, .tag = tag, .msg = copy,
	};
}

/* Hand msg to the caller; the first error is the failed call's message. */
static void deliver(struct diag *d, enum d2b_level level, const char *cu, uint64_t die_off,
		    int tag, const struct d2b_func_note *note, const char *msg)
{
	struct d2b_diag m = {
		.level = level, .file = d->file, .cu = cu, .die_off = die_off, .tag = tag, .msg = msg,
		.func = d->func_notes ? note : NULL,
	};

	if (level == D2B_ERROR && !d->nr_errors++ && d->errbuf) {
		if (die_off != UINT64_MAX)
			snprintf(d->errbuf, d->errlen, "%s%sDIE 0x%" PRIx64 ": %s", cu ?: "",
				 cu ? ": " : "", die_off, msg);
		else
			snprintf(d->errbuf, d->errlen, "%s", msg);
	}
	if (d->fn)
		d->fn(&m, d->arg);
}

/* diag__vat(), the message carrying note (or NULL) as data */
static void say_note(struct diag *d, enum d2b_level level, const char *cu, uint64_t die_off,
		     int tag, const struct d2b_func_note *note, const char *fmt, va_list ap)
	__attribute__((format(printf, 7, 0)));
static void say_note(struct diag *d, enum d2b_level level, const char *cu, uint64_t die_off,
		     int tag, const struct d2b_func_note *note, const char *fmt, va_list ap)
{
	char buf[MSG_LEN];

	if (d->errors_only && level != D2B_ERROR)
		return;		/* (the caller reads its errbuf only) */
	if (!d->kept && !d->fn && !(level == D2B_ERROR && !d->nr_errors && d->errbuf)) {
		d->nr_errors += level == D2B_ERROR;
		return;		/* (nobody would read it) */
	}
	vsnprintf(buf, sizeof(buf), fmt, ap);
	if (d->kept)
		keep(d, level, die_off, tag, buf);
	else
		deliver(d, level, cu, die_off, tag, note, buf);
}

void diag__vat(struct diag *d, enum d2b_level level, const char *cu, uint64_t die_off, int tag,
	       const char *fmt, va_list ap)
{
	say_note(d, level, cu, die_off, tag, NULL, fmt, ap);
}

void diag__at(struct diag *d, enum d2b_level level, const char *cu, uint64_t die_off, int tag,
	      const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	diag__vat(d, level, cu, die_off, tag, fmt, ap);
	va_end(ap);
}

void diag__say(struct diag *d, enum d2b_level level, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	diag__vat(d, level, NULL, UINT64_MAX, 0, fmt, ap);
	va_end(ap);
}

void diag__func(struct diag *d, const struct d2b_func_note *note, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	say_note(d, D2B_INFO, NULL, UINT64_MAX, 0, note, fmt, ap);
	va_end(ap);
}

void diag__replay(struct diag *d, const struct diag *from, const char *cu)
{
	size_t i;

	for (i = 0; i < from->nr_msgs; i++)
		diag__at(d, from->msgs[i].level, cu, from->msgs[i].die_off, from->msgs[i].tag, "%s",
			 from->msgs[i].msg);
	if (from->lost)
		diag__at(d, D2B_WARN, cu, UINT64_MAX, 0, "some diagnostics lost: out of memory");
}
