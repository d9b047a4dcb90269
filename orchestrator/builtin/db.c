/*
 * builtin/db.c - "faultline db init|migrate": create the store, or bring an
 * existing one to this build's schema version.
 */
#include "builtin/builtin.h"
#include "config/config.h"
#include "lib/error.h"
#include "lib/log.h"
#include "store/store.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

static int open_store(const char *path, int init)
{
	fl_store *st;
	int from, r;

	if (!init && fl_store_is_file(path) && access(path, F_OK)) {
		fprintf(stderr, "faultline: store %s does not exist (use 'faultline db init')\n",
			path);
		return FL_EXIT_FAIL;
	}
	if (fl_store_open(&st, path, FL_STORE_NO_MIGRATE) || fl_store_migrate(st, 0, &from)) {
		fprintf(stderr, "faultline: %s\n", fl_error_last());
		fl_store_free(st);
		return FL_EXIT_FAIL;
	}
	if ((r = fl_store_version(st)) < 0) {
		fprintf(stderr, "faultline: %s\n", fl_error_last());
		fl_store_free(st);
		return FL_EXIT_FAIL;
	}
	if (from == r)
		printf("store %s: schema version %d, up to date\n", path, r);
	else
		printf("store %s: schema version %d -> %d\n", path, from, r);
	fl_store_free(st);
	return FL_EXIT_OK;
}

static int cmd_db(int argc, char **argv)
{
	static const char *const subs[] = {"init", "migrate", NULL};
	struct fl_store_opts o;
	const char *db;
	int r, sub;

	if ((r = fl_subcommand(argc, argv, &fl_cmd_db, subs, &sub)))
		return r;
	if ((r = fl_store_opts_parse(argc, argv, &fl_cmd_db, 0, &o)))
		return r;
	if (optind != argc)
		return fl_usage(&fl_cmd_db);
	if ((r = fl_store_opts_path(&o, &db)))
		return r;
	r = open_store(db, sub == 0);
	fl_config_free(o.cfg);
	return r;
}

const struct fl_command fl_cmd_db = {
    .name = "db",
    .run = cmd_db,
    .usage = "db init|migrate [--config F | --db PATH]",
    .summary = "create or upgrade the SQLite store",
    .help = "subcommands:\n"
	    "  init           create the store (and its directory), apply every migration\n"
	    "  migrate        bring an existing store to this build's schema version\n"
	    "\n"
	    "options:\n"
	    "  --config F     take the store from this configuration (store.path, store.url)\n"
	    "  --db PATH      the store itself, an SQLite file or a postgresql:// URL\n"
	    "                 (no configuration read)\n"
	    "  -h, --help     this help\n"
	    "\n"
	    "Exit: 0 done, 2 usage or configuration error, 4 the store cannot be opened\n"
	    "or migrated.\n",
};
