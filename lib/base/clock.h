/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Seconds on the monotonic clock, for the times --stats gives. */
#ifndef D2B_CLOCK_H
#define D2B_CLOCK_H

#include <time.h>

static inline double clock_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

#endif
