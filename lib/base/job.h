/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Work that can run beside the calling thread's: on a thread of its own
 * when the caller allows one (its -j leaves room) and one can be made,
 * else here and now.  job_wait() before reading what it made; a job not
 * started on a thread, or already waited for, is waited for at once.
 */
#ifndef D2B_JOB_H
#define D2B_JOB_H

#include <pthread.h>
#include <stdbool.h>

struct job {
	/* private */
	void (*run)(void *arg);
	void *arg;
	bool started;
	pthread_t thread;
};

void job_start(struct job *j, void (*run)(void *arg), void *arg, bool thread);
void job_wait(struct job *j);

#endif
