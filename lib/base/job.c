// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Work beside the calling thread's (job.h). */
#include "base/job.h"

static void *job_thread(void *p)
{
	struct job *j = p;

	j->run(j->arg);
	return NULL;
}

void job_start(struct job *j, void (*run)(void *arg), void *arg, bool thread)
{
	j->run = run;
	j->arg = arg;
	j->started = thread && pthread_create(&j->thread, NULL, job_thread, j) == 0;
	if (!j->started)
		run(arg);
}

void job_wait(struct job *j)
{
	if (j->started)
		pthread_join(j->thread, NULL);
	j->started = false;
}
