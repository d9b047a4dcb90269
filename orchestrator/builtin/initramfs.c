/*
 * builtin/initramfs.c - "faultline initramfs [--agent PATH] [--job TEXT]
 * [--gzip] OUT": writes the agent image a test guest boots, so scripts and
 * the boot test use the same writer the runner does.
 */
#include "builtin/builtin.h"
#include "lib/error.h"
#include "build/initramfs.h"
#include "machine/machine.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int cmd_initramfs(int argc, char **argv)
{
	const char *agent = NULL, *job = NULL, *out = NULL;
	char *found = NULL;
	int gzip = 0;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--agent") && i + 1 < argc)
			agent = argv[++i];
		else if (!strcmp(argv[i], "--job") && i + 1 < argc)
			job = argv[++i];
		else if (!strcmp(argv[i], "--gzip"))
			gzip = 1;
		else if (argv[i][0] != '-' && !out)
			out = argv[i];
		else
			return fl_usage("initramfs");
	}
	if (!out)
		return fl_usage("initramfs");
	if (!agent && fl_machine_agent_path(&found)) {
		fprintf(stderr, "faultline: %s\n", fl_error_last());
		return FL_EXIT_FAIL;
	}
	if (fl_initramfs_agent(out, agent ? agent : found, job, gzip)) {
		fprintf(stderr, "faultline: %s\n", fl_error_last());
		free(found);
		return FL_EXIT_FAIL;
	}
	free(found);
	return FL_EXIT_OK;
}

const struct fl_command fl_cmd_initramfs = {
    .name = "initramfs",
    .run = cmd_initramfs,
    .usage = "initramfs [--agent PATH] [--job TEXT] [--gzip] OUT",
    .summary = "write a guest initramfs with fl-agent as /init",
    .help = "options:\n"
	    "  --agent PATH   the statically linked agent to put at /init (default: $FL_AGENT,\n"
	    "                 else fl-agent-static beside faultline: the build tree's, or\n"
	    "                 the installed libexec/faultline/fl-agent-static)\n"
	    "  --job TEXT     a job line (fl.job=...) baked into the image\n"
	    "  --gzip         compress the archive with gzip\n"
	    "  OUT            the file to write\n"
	    "  -h, --help     this help\n"
	    "\n"
	    "Exit: 0 written, 2 usage error, 4 the agent cannot be read or OUT written.\n",
};
