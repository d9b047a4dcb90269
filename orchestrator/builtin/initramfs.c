/*
 * builtin/initramfs.c - "faultline initramfs [--agent PATH] [--job TEXT]
 * [--gzip] OUT": writes the agent image a test guest boots, so scripts and
 * the boot test use the same writer the runner does.
 */
#include "builtin/builtin.h"
#include "lib/error.h"
#include "build/initramfs.h"
#include "machine/machine.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int cmd_initramfs(int argc, char **argv)
{
	static const struct option opts[] = {
	    {"agent", required_argument, NULL, 'a'},
	    {"job", required_argument, NULL, 'j'},
	    {"gzip", no_argument, NULL, 'z'},
	    {NULL, 0, NULL, 0},
	};
	const char *agent = NULL, *job = NULL, *out;
	char *found = NULL;
	int gzip = 0, o;

	optind = 1;
	while ((o = fl_getopt(argc, argv, "", opts)) != -1) {
		if (o == 'a')
			agent = optarg;
		else if (o == 'j')
			job = optarg;
		else if (o == 'z')
			gzip = 1;
		else
			return fl_usage(&fl_cmd_initramfs);
	}
	if (optind + 1 != argc)
		return fl_usage(&fl_cmd_initramfs);
	out = argv[optind];
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
