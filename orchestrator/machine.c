/*
 * machine.c - fl_machine_run(): checks a request and hands it to the
 * backend its machine names (see machine.h, machine-backend.h).
 */
#include "machine.h"
#include "config.h"
#include "error.h"
#include "machine-backend.h"

#include <stdlib.h>
#include <string.h>

static const struct {
	const char *name;
	int (*run)(const struct fl_run_req *req, struct fl_run_result *res);
} backends[] = {
    {"command", fl_machine_command_run},
};

const char *fl_run_status_name(enum fl_run_status s)
{
	static const char *const names[] = {"ok",	   "boot-failed", "panic",     "timeout",
					    "agent-error", "infra-error", "untestable"};

	return (unsigned)s < sizeof(names) / sizeof(names[0]) ? names[s] : "unknown";
}

int fl_machine_run(const struct fl_run_req *req, struct fl_run_result *res)
{
	memset(res, 0, sizeof(*res));
	if (!req->cfg || !req->machine || !req->bench || !req->store)
		return fl_error_set(FL_EINVAL, "a run needs a configuration, a machine, a "
					       "benchmark and a store");
	for (size_t i = 0; i < sizeof(backends) / sizeof(backends[0]); i++)
		if (!strcmp(backends[i].name, req->machine->backend))
			return backends[i].run(req, res);
	return fl_error_set(FL_EINVAL, "machine '%s': backend '%s' is not available in this build",
			    req->machine->name, req->machine->backend);
}

void fl_run_result_release(struct fl_run_result *res)
{
	free(res->detail);
	memset(res, 0, sizeof(*res));
}
