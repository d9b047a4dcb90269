/*
 * builtin/serve.c - "faultline serve": the results pages and their JSON
 * API over HTTP, reading the store read-only, until SIGINT or SIGTERM.
 * The first line on standard output is the URL it listens at (so a test
 * or a script that asked for port 0 learns the port).
 */
#include "builtin/builtin.h"
#include "config/config.h"
#include "lib/cancel.h"
#include "lib/error.h"
#include "lib/fs.h"
#include "lib/log.h"
#include "web/server.h"

#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct serve_opts {
	const char *config, *db, *listen, *root;
	unsigned threads;
};

static int parse(int argc, char **argv, struct serve_opts *o)
{
	static const struct option opts[] = {
	    {"config", required_argument, NULL, 'c'},  {"db", required_argument, NULL, 'd'},
	    {"listen", required_argument, NULL, 'l'},  {"root", required_argument, NULL, 'r'},
	    {"threads", required_argument, NULL, 't'}, {NULL, 0, NULL, 0},
	};
	char *end;
	int c;

	memset(o, 0, sizeof(*o));
	optind = 1;
	while ((c = fl_getopt(argc, argv, "", opts)) != -1) {
		if (c == 'c')
			o->config = optarg;
		else if (c == 'd')
			o->db = optarg;
		else if (c == 'l')
			o->listen = optarg;
		else if (c == 'r')
			o->root = optarg;
		else if (c == 't') {
			unsigned long n = strtoul(optarg, &end, 10);

			if (*end || !*optarg || n < 1 || n > 256) {
				fprintf(stderr, "faultline: --threads must be 1-256, got '%s'\n",
					optarg);
				return FL_EXIT_USAGE;
			}
			o->threads = (unsigned)n;
		} else
			return fl_usage(&fl_cmd_serve);
	}
	return optind == argc ? 0 : fl_usage(&fl_cmd_serve);
}

static int cmd_serve(int argc, char **argv)
{
	struct fl_web_server_opts wo = {0};
	struct fl_config *cfg = NULL, *dflt = NULL;
	struct fl_web_server *s;
	struct serve_opts o;
	const char *root;
	char *found;
	int r;

	if ((r = parse(argc, argv, &o)))
		return r;
	/* The configuration gives the store, the address and the benchmarks'
	 * directions; --db alone serves a store without one. */
	if ((o.config || !o.db) && (r = fl_load_config(&cfg, o.config)))
		return r;
	wo.store = o.db ? o.db : cfg->store.path;
	wo.listen = o.listen ? o.listen : cfg ? cfg->web.listen : "127.0.0.1:8080";
	/* a relative root: from here, else the installed share/faultline/web */
	root = o.root ? o.root : cfg ? cfg->web.root : "web";
	found = fl_data_path(root);
	wo.root = found ? found : root;
	wo.threads = o.threads;
	wo.cfg = cfg;
	/* --db alone: the server's limits are web.*'s defaults */
	if (!cfg && fl_config_defaults(&dflt)) {
		fprintf(stderr, "faultline: serve: %s\n", fl_error_last());
		free(found);
		return FL_EXIT_FAIL;
	}
	wo.limits = &(cfg ? cfg : dflt)->web.limits;
	/* blocked before the server's threads exist, so they inherit it */
	fl_cancel_block();
	signal(SIGPIPE, SIG_IGN);
	if (fl_web_server_start(&s, &wo)) {
		fprintf(stderr, "faultline: serve: %s\n", fl_error_last());
		fl_config_free(cfg);
		fl_config_free(dflt);
		free(found);
		return FL_EXIT_FAIL;
	}
	printf("%s\n", fl_web_server_url(s));
	fflush(stdout);
	fl_info("serve: results pages at %s (store %s, read-only; web root %s)",
		fl_web_server_url(s), wo.store, wo.root);
	r = fl_cancel_wait();
	fl_info("serve: %s, stopping", strsignal(r));
	fl_web_server_stop(s);
	fl_config_free(cfg);
	fl_config_free(dflt);
	free(found);
	return FL_EXIT_OK;
}

const struct fl_command fl_cmd_serve = {
    .name = "serve",
    .run = cmd_serve,
    .usage = "serve [--config F] [--db PATH] [--listen HOST:PORT] [--root DIR] [--threads N]",
    .summary = "serve the results pages and their JSON API until SIGINT or SIGTERM",
    .help = "options:\n"
	    "  --config F         the configuration (default: the global --config)\n"
	    "  --db PATH          the store (default: store.path), opened read-only\n"
	    "  --listen HOST:PORT the address (default: web.listen, 127.0.0.1:8080); port 0\n"
	    "                     takes a free port, [::1]:PORT listens on IPv6\n"
	    "  --root DIR         the templates and static files (default: web.root, or the\n"
	    "                     installed share/faultline/web)\n"
	    "  --threads N        the size of the thread pool, 1-256 (default 4)\n"
	    "  -h, --help         this help\n"
	    "\n"
	    "The first line on standard output is the URL it listens at. Runs until\n"
	    "SIGINT or SIGTERM, then exits 0. Exit 2 usage or configuration error, 4 the\n"
	    "store, the templates or the address cannot be used.\n",
};
