/*
 * builtin/db.c - "faultline db init|migrate": create the store, or bring an
 * existing one to this build's schema version.
 */
#include "../builtin.h"
#include "../config.h"
#include "../error.h"
#include "../log.h"
#include "../store.h"

#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static int open_store(const char *path, int init)
{
	fl_store *st;
	int from, r;

	if (!init && access(path, F_OK)) {
		fprintf(stderr, "faultline: store %s does not exist (use 'faultline db init')\n",
			path);
		return FL_EXIT_FAIL;
	}
	if (fl_store_open(&st, path, FL_STORE_NO_MIGRATE) || fl_store_migrate(st, 0, &from)) {
		fprintf(stderr, "faultline: %s\n", fl_error_last());
		fl_store_free(st);
		return FL_EXIT_FAIL;
	}
	r = fl_store_version(st);
	if (from == r)
		printf("store %s: schema version %d, up to date\n", path, r);
	else
		printf("store %s: schema version %d -> %d\n", path, from, r);
	fl_store_free(st);
	return FL_EXIT_OK;
}

int cmd_db(int argc, char **argv)
{
	static const struct option opts[] = {
		{"config", required_argument, NULL, 'c'},
		{"db", required_argument, NULL, 'd'},
		{NULL, 0, NULL, 0},
	};
	const char *config = NULL, *db = NULL;
	struct fl_config *cfg = NULL;
	int c, r, init;

	if (argc < 2 || (strcmp(argv[1], "init") && strcmp(argv[1], "migrate")))
		return fl_usage("db");
	init = !strcmp(argv[1], "init");
	optind = 2;
	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		if (c == 'c')
			config = optarg;
		else if (c == 'd')
			db = optarg;
		else
			return fl_usage("db");
	}
	if (optind != argc)
		return fl_usage("db");
	if (!db) {
		if ((r = fl_load_config(&cfg, config)))
			return r;
		db = cfg->store.path;
	}
	r = open_store(db, init);
	fl_config_free(cfg);
	return r;
}
