/*
 * build.c - kernel builds (see build.h): slot locking and moving, kconfig
 * merge and check, make with progress, artifacts and their cache.
 * Only x86 kernels for now: the image is arch/x86/boot/bzImage.
 */
#include "build/build.h"
#include "build/artifacts.h"
#include "lib/buf.h"
#include "build/checkout.h"
#include "build/objtree.h"
#include "config/config.h"
#include "lib/error.h"
#include "lib/fs.h"
#include "lib/log.h"
#include "lib/run-command.h"
#include "lib/time.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <git2.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* What one build needs along the way; freed by build_ctx_release(). */
struct build_ctx {
	const struct fl_build_req *req;
	struct fl_build_result *res;
	unsigned slot;
	int lock_fd;
	char *art_dir, *name; /* build.artifacts and <sha>-<config hash>-<compiler hash> */
	int name_fd;	      /* the name's lock (artifacts.h), or -1 */
	char *slot_dir, *src, *log;
	fl_objtree *tree; /* the slot's object tree this build uses (objtree.h) */
	const char *obj;  /* its directory, make's O= */
	int make_ended;   /* make bzImage exited by itself */
	char *ccache_bin; /* make compiles through ccache, first in PATH (use_ccache()) */
	char *compiler, *cc_hash;
	int64_t commit_time;
	/* make output */
	unsigned objects;
	char *first_error;
	int disk_full;
	int compiling; /* progress lines only while make bzImage runs */
	int64_t last_progress; /* fl_mono_ms() of the last progress line */
	int64_t compile_start; /* fl_mono_ms() when make bzImage started */
	const char *allconfig; /* KCONFIG_ALLCONFIG for the next make, or NULL */
};

/* ---- configuration identity ---------------------------------------- */

/* Hex sha1 of the base (its name, or the file's text) and the fragments in order. */
static int config_hash(const struct fl_kernel_conf *k, char **out)
{
	fl_buf b = FL_BUF_INIT;
	char hex[GIT_OID_HEXSZ + 1];
	struct stat st;
	git_oid oid;
	int r = 0;

	fl_buf_addf(&b, "base %s\n", k->base);
	if (!stat(k->base, &st))
		r = fl_read_file(k->base, &b);
	for (size_t i = 0; !r && i < k->nfragments; i++) {
		fl_buf_addf(&b, "fragment %zu\n", i);
		r = fl_read_file(k->fragments[i], &b);
	}
	if (!r && git_odb_hash(&oid, b.ptr, b.len, GIT_OBJECT_BLOB))
		r = fl_error_set(FL_ERROR, "cannot hash the kernel config");
	if (!r) {
		git_oid_tostr(hex, sizeof(hex), &oid);
		*out = fl_xstrndup(hex, 16);
	}
	fl_buf_free(&b);
	return r;
}

static const char *cc_name(void)
{
	const char *cc = getenv("CC");

	return cc && *cc ? cc : "gcc";
}

/* The compiler's version line, part of the cache key. */
static int compiler_id(struct build_ctx *x)
{
	const char *argv[] = {cc_name(), "--version", NULL};
	char hex[GIT_OID_HEXSZ + 1];
	git_oid oid;
	int r;

	if ((r = fl_run_capture_line(argv, &x->compiler)))
		return fl_error_wrap(FL_ENOTFOUND, "missing toolchain: compiler '%s'", cc_name());
	git_odb_hash(&oid, x->compiler, strlen(x->compiler), GIT_OBJECT_BLOB);
	git_oid_tostr(hex, sizeof(hex), &oid);
	x->cc_hash = fl_xstrndup(hex, 8);
	return 0;
}

/* Every tool kbuild needs, checked before a build so that its absence is ours, not the commit's. */
static int check_toolchain(void)
{
	static const char *const tools[] = {"make", "flex", "bison", "bc", "perl", NULL};

	for (const char *const *t = tools; *t; t++)
		if (!fl_which(*t))
			return fl_error_set(FL_ENOTFOUND,
					    "missing toolchain: '%s' not found in PATH "
					    "(scripts/install-deps.sh installs it)", *t);
	return 0;
}

/* ---- slots ---------------------------------------------------------- */

/* Takes the first free slot, or waits for slot 0 when all are busy. */
static int slot_lock(struct build_ctx *x)
{
	const struct fl_config *cfg = x->req->cfg;
	unsigned n = cfg->build.slots ? cfg->build.slots : 1;
	char *dir = fl_xasprintf("%s/slots", cfg->var);
	int r = fl_mkdir_p(dir);

	/* absolute: make runs in the slot and kconfig scripts in the tree,
	 * so a relative var (var: var/demo) would name other directories */
	if (!r) {
		char *abs = realpath(dir, NULL);

		if (!abs)
			r = fl_error_set(FL_EIO, "%s: %s", dir, strerror(errno));
		free(dir);
		dir = abs;
	}
	for (unsigned i = 0; !r && i < n; i++) {
		char *p = fl_xasprintf("%s/%u.lock", dir, i);
		int fd = open(p, O_RDWR | O_CREAT | O_CLOEXEC, 0644);

		free(p);
		if (fd < 0) {
			r = fl_error_set(FL_EIO, "slot lock: %s", strerror(errno));
			break;
		}
		if (!flock(fd, LOCK_EX | LOCK_NB) || (i == n - 1 && !flock(fd, LOCK_EX))) {
			x->slot = i;
			x->lock_fd = fd;
			break;
		}
		close(fd);
	}
	if (!r) {
		x->slot_dir = fl_xasprintf("%s/%u", dir, x->slot);
		x->src = fl_xasprintf("%s/src", x->slot_dir);
		x->log = fl_xasprintf("%s/build.log", x->slot_dir);
		r = fl_mkdir_p(x->src);
	}
	free(dir);
	return r;
}

/* ---- make ----------------------------------------------------------- */

static unsigned jobs(const struct fl_config *cfg)
{
	cpu_set_t set;

	if (cfg->build.jobs)
		return cfg->build.jobs;
	if (!sched_getaffinity(0, sizeof(set), &set))
		return (unsigned)CPU_COUNT(&set);
	return 1;
}

/* Kbuild's quiet lines are "  CC      mm/memory.o"; count what compiles. */
static void on_make_line(void *data, const char *line)
{
	struct build_ctx *x = data;
	int64_t now = fl_mono_ms();

	if (!strncmp(line, "  CC ", 5) || !strncmp(line, "  AS ", 5))
		x->objects++;
	if (!x->first_error && (strstr(line, "error:") || strstr(line, "*** ")))
		x->first_error = fl_xstrdup(line);
	if (strstr(line, "No space left on device"))
		x->disk_full = 1;
	/* every 15 s: a clean kernel build takes minutes, and a line every
	 * few seconds buried the rest of the log */
	if (x->compiling && now - x->last_progress >= 15000) {
		x->last_progress = now;
		fl_info("build: slot %u: compiling, %u object%s after %lld s", x->slot, x->objects,
			FL_S(x->objects), (long long)((now - x->compile_start) / 1000));
	}
}

/* Runs make (or a kconfig script) in the slot; *status is its exit code. */
static int slot_run(struct build_ctx *x, const char *const *argv, const char *dir, int *status)
{
	const struct fl_config *cfg = x->req->cfg;
	char ts[64], *var = realpath(cfg->var, NULL);
	char *ccache_dir = fl_xasprintf("CCACHE_DIR=%s/ccache", var ? var : cfg->var);
	time_t t = (time_t)x->commit_time;
	struct tm tm;
	char *tsenv;
	char *allconfig = x->allconfig ? fl_xasprintf("KCONFIG_ALLCONFIG=%s", x->allconfig) : NULL;
	char *path = x->ccache_bin ? fl_xasprintf("PATH=%s:%s", x->ccache_bin,
						 getenv("PATH") ? getenv("PATH") : "/usr/bin:/bin")
				   : NULL;
	const char *env[9];
	size_t n = 0;
	struct fl_child c = {.argv = argv, .env = env, .dir = dir, .out_path = x->log,
			     .on_line = on_make_line, .data = x, .timeout_ms = cfg->build.timeout_ms};
	int r;

	/* The commit's date, so one commit always gives the same image. */
	gmtime_r(&t, &tm);
	strftime(ts, sizeof(ts), "%a %b %e %H:%M:%S UTC %Y", &tm);
	tsenv = fl_xasprintf("KBUILD_BUILD_TIMESTAMP=%s", ts);
	env[n++] = tsenv;
	env[n++] = "KBUILD_BUILD_USER=faultline";
	env[n++] = "KBUILD_BUILD_HOST=faultline";
	if (path)
		env[n++] = path;
	if (path && !getenv("CCACHE_DIR"))
		env[n++] = ccache_dir;
	/*
	 * ccache's depend mode: a miss compiles once, as plain make does,
	 * where the default mode runs the preprocessor first to hash its
	 * output (a quarter more CPU on a cold kernel build); the include
	 * list comes from the .d file kbuild asks gcc for (-Wp,-MMD). What
	 * it gives up: a hit after a change that leaves the preprocessed text
	 * alone (a comment edit that keeps line numbers). CCACHE_NODEPEND=1
	 * in faultline's environment keeps the default mode.
	 */
	if (path && !getenv("CCACHE_DEPEND") && !getenv("CCACHE_NODEPEND"))
		env[n++] = "CCACHE_DEPEND=1";
	if (allconfig)
		env[n++] = allconfig;
	env[n] = NULL;
	r = fl_run_command(&c, status);
	free(allconfig);
	free(tsenv);
	free(ccache_dir);
	free(path);
	free(var);
	return r;
}

static int make_target(struct build_ctx *x, const char *target, int *status)
{
	char *o = fl_xasprintf("O=%s", x->obj), *j = fl_xasprintf("-j%u", jobs(x->req->cfg));
	char *cc = fl_xasprintf("CC=%s", cc_name());
	const char *argv[] = {"make", "-C", x->src, o, j, cc, target, NULL};
	int r = slot_run(x, argv, NULL, status);

	free(o);
	free(j);
	free(cc);
	return r;
}

/* ---- kconfig -------------------------------------------------------- */

/* "CONFIG_X=v" or "# CONFIG_X is not set" into name and value ("n" for not set). */
static int parse_option(const char *line, char **name, char **value)
{
	const char *eq;

	if (!strncmp(line, "# CONFIG_", 9) && strstr(line, " is not set")) {
		*name = fl_xstrndup(line + 2, (size_t)(strstr(line, " is not set") - line - 2));
		*value = fl_xstrdup("n");
		return 1;
	}
	if (strncmp(line, "CONFIG_", 7) || !(eq = strchr(line, '=')))
		return 0;
	*name = fl_xstrndup(line, (size_t)(eq - line));
	*value = fl_xstrdup(eq + 1);
	return 1;
}

/* The value of name in the config text, "n" when absent or not set. */
static char *config_value(const char *text, const char *name)
{
	size_t len = strlen(name);

	for (const char *p = text; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
		char *n, *v;

		if (strncmp(p, name, len) && strncmp(p + (p[0] == '#' ? 2 : 0), name, len))
			continue;
		char *line = fl_xstrndup(p, strcspn(p, "\n"));
		int ok = parse_option(line, &n, &v);

		free(line);
		if (!ok)
			continue;
		if (!strcmp(n, name)) {
			free(n);
			return v;
		}
		free(n);
		free(v);
	}
	return fl_xstrdup("n");
}

int fl_kconfig_check(const char *config, const char *const *fragments, size_t n,
		     char **report)
{
	fl_buf cfg = FL_BUF_INIT, out = FL_BUF_INIT;
	int lost = 0;

	if (fl_read_file(config, &cfg))
		return fl_error_wrap(FL_EIO, "kconfig check");
	for (size_t i = 0; i < n; i++) {
		fl_buf frag = FL_BUF_INIT;

		if (fl_read_file(fragments[i], &frag)) {
			fl_buf_free(&frag);
			continue;
		}
		for (char *save = NULL, *l = strtok_r(frag.ptr, "\n", &save); l;
		     l = strtok_r(NULL, "\n", &save)) {
			char *name, *want, *got;

			if (!parse_option(l, &name, &want))
				continue;
			got = config_value(fl_buf_str(&cfg), name);
			if (strcmp(want, got)) {
				lost++;
				fl_buf_addf(&out, "%s: %s=%s requested, got '%s'\n", fragments[i],
					    name, want, !strcmp(got, "n") ? "is not set" : got);
			}
			free(name);
			free(want);
			free(got);
		}
		fl_buf_free(&frag);
	}
	fl_buf_free(&cfg);
	*report = fl_buf_detach(&out);
	return lost;
}

/*
 * A path whose change can change what the kconfig steps make of the same
 * base and fragments: the Kconfig files, scripts/ (kconfig itself and the
 * scripts Kconfig runs), defconfigs and config fragments (tinyconfig merges
 * kernel/configs/tiny.config), the top Makefile (the version, the targets).
 */
static int kconfig_input(const char *path)
{
	const char *name = strrchr(path, '/');

	name = name ? name + 1 : path;
	return !strncmp(name, "Kconfig", 7) || !strncmp(path, "scripts/", 8) ||
	       strstr(path, "configs/") || !strcmp(path, "Makefile");
}

/*
 * 1 when the object directory's .config can be kept: the kconfig steps ran
 * in it for commit <stamp> with the same compiler (its version decides
 * options too) and no kconfig input differs from that commit to this one.
 * The config itself is the directory's: obj-<config hash>-<k>.
 */
static int kconfig_current(struct build_ctx *x, const char *stamp, const char *dotconfig)
{
	fl_buf b = FL_BUF_INIT;
	char **paths = NULL, *nl;
	size_t n = 0;
	struct stat st;
	int keep = 0;

	if (stat(dotconfig, &st) || fl_read_file(stamp, &b)) {
		fl_error_clear();
		goto out;
	}
	nl = strchr(fl_buf_str(&b), '\n');
	if (!nl || nl - b.ptr != 40 || strcmp(nl + 1, x->compiler))
		goto out;
	*nl = '\0'; /* b.ptr: the commit */
	if (fl_repo_changed_paths(x->req->repo, b.ptr, x->res->sha, &paths, &n)) {
		fl_error_clear(); /* another tree's commit, say: run the steps */
		goto out;
	}
	keep = 1;
	for (size_t i = 0; keep && i < n; i++)
		keep = !kconfig_input(paths[i]);
	if (keep)
		fl_info("build: slot %u: no kconfig input changed since %.12s: .config kept",
			x->slot, b.ptr);
	fl_repo_strv_free(paths, n);
out:
	fl_buf_free(&b);
	return keep;
}

/*
 * Linux 6.1's tinyconfig (scripts/kconfig/Makefile) is three kconfig runs:
 * allnoconfig with KCONFIG_ALLCONFIG=kernel/configs/tiny-base.config, then
 * "make tiny.config": merge_config.sh -m of kernel/configs/tiny.config and
 * arch/x86/configs/tiny.config, then olddefconfig. A kernel based on it
 * then had its fragments merged and a second olddefconfig. When the tree's
 * recipe is that one, the tiny fragments are merged with the kernel's in
 * one merge and one olddefconfig: the same .config byte for byte (the
 * kernel-labelled test kernel_kconfig compares them), a kconfig run and a
 * make fewer. Any other recipe (older or newer trees) runs make tinyconfig.
 */
static const char *const tiny_recipe[] = {
    "\ntinyconfig:\n\t$(Q)KCONFIG_ALLCONFIG=kernel/configs/tiny-base.config "
    "$(MAKE) -f $(srctree)/Makefile allnoconfig\n\t$(Q)$(MAKE) -f $(srctree)/Makefile "
    "tiny.config\n",
    "\nconfigfiles=$(wildcard $(srctree)/kernel/configs/$@ "
    "$(srctree)/arch/$(SRCARCH)/configs/$@)\n",
    "\t$(Q)$(CONFIG_SHELL) $(srctree)/scripts/kconfig/merge_config.sh -m .config "
    "$(configfiles)\n\t$(Q)$(MAKE) -f $(srctree)/Makefile olddefconfig\n",
    NULL,
};

/* 1 when the slot's tree makes tinyconfig the way tiny_recipe says. */
static int tiny_recipe_known(struct build_ctx *x)
{
	char *path = fl_xasprintf("%s/scripts/kconfig/Makefile", x->src);
	fl_buf b = FL_BUF_INIT;
	int known = !fl_read_file(path, &b);

	for (const char *const *line = tiny_recipe; known && *line; line++)
		known = strstr(b.ptr, *line) != NULL;
	fl_buf_free(&b);
	free(path);
	return known;
}

/*
 * tinyconfig's allnoconfig; adds to merge what its "make tiny.config"
 * would merge (configfiles: the files of that name that exist, in order).
 */
static int tiny_allnoconfig(struct build_ctx *x, char **merge, size_t *n, int *status)
{
	static const char *const tiny[] = {"kernel/configs/tiny.config",
					   "arch/x86/configs/tiny.config"};
	char *base = fl_xasprintf("%s/kernel/configs/tiny-base.config", x->src);
	struct stat st;
	int r;

	fl_info("build: slot %u: make allnoconfig (tinyconfig's first step)", x->slot);
	x->allconfig = base;
	r = make_target(x, "allnoconfig", status);
	x->allconfig = NULL;
	free(base);
	for (size_t i = 0; i < sizeof(tiny) / sizeof(*tiny); i++) {
		char *path = fl_xasprintf("%s/%s", x->src, tiny[i]);

		if (!stat(path, &st))
			merge[(*n)++] = path;
		else
			free(path);
	}
	return r;
}

/* merge_config.sh -m of the n files onto dotconfig. */
static int merge_fragments(struct build_ctx *x, char *const *merge, size_t n,
			   const char *dotconfig, int *status)
{
	char *script = fl_xasprintf("%s/scripts/kconfig/merge_config.sh", x->src);
	const char **argv = fl_xcalloc(n + 7, sizeof(*argv));
	size_t k = 0;
	int r;

	argv[k++] = "sh";
	argv[k++] = script;
	argv[k++] = "-m";
	argv[k++] = "-O";
	argv[k++] = x->obj;
	argv[k++] = dotconfig;
	for (size_t i = 0; i < n; i++)
		argv[k++] = merge[i];
	fl_info("build: slot %u: merge %zu fragment%s", x->slot, n, FL_S(n));
	/* merge_config.sh makes temporary files in its working directory: not in src */
	r = slot_run(x, argv, x->obj, status);
	free(argv);
	free(script);
	return r;
}

/*
 * The base (a file, tinyconfig in fewer runs, or any make target), then
 * merge_config.sh -m with the fragments, then olddefconfig.
 */
static int kconfig_make(struct build_ctx *x, char *const *abs, const char *dotconfig)
{
	const struct fl_kernel_conf *k = x->req->kernel;
	char **merge = fl_xcalloc(k->nfragments + 3, sizeof(*merge));
	size_t n = 0, owned = 0;
	int status = 0, r = 0;
	struct stat st;

	if (!stat(k->base, &st)) {
		uint64_t size = 0;

		r = fl_copy_file(k->base, dotconfig, &size);
	} else if (!strcmp(k->base, "tinyconfig") && tiny_recipe_known(x)) {
		r = tiny_allnoconfig(x, merge, &n, &status);
		owned = n;
	} else {
		fl_info("build: slot %u: make %s", x->slot, k->base);
		r = make_target(x, k->base, &status);
	}
	for (size_t i = 0; i < k->nfragments; i++)
		merge[n++] = abs[i] ? abs[i] : k->fragments[i];
	if (!r && !status && n)
		r = merge_fragments(x, merge, n, dotconfig, &status);
	if (!r && !status)
		r = make_target(x, "olddefconfig", &status);
	if (!r && status)
		r = fl_error_set(FL_EINVAL, "kernel '%s': configuration failed (exit %d): %s",
				 k->name, status, x->first_error ? x->first_error : "see the log");
	for (size_t i = 0; i < owned; i++)
		free(merge[i]);
	free(merge);
	return r;
}

/*
 * The object directory's .config: made by the kconfig steps, or kept when
 * nothing they read changed (they cost seconds on every build), then
 * checked against the fragments either way. The stamp
 * (obj-<hash>-<k>/.faultline-kconfig: the commit, the compiler) is removed
 * while the steps run, so a failed or interrupted run is redone.
 */
static int kconfig(struct build_ctx *x)
{
	const struct fl_kernel_conf *k = x->req->kernel;
	char *dotconfig = fl_xasprintf("%s/.config", x->obj), *report = NULL;
	char *stamp = fl_xasprintf("%s/.faultline-kconfig", x->obj);
	char **abs = fl_xcalloc(k->nfragments + 1, sizeof(*abs));
	int r = 0, lost;

	for (size_t i = 0; i < k->nfragments; i++)
		abs[i] = realpath(k->fragments[i], NULL);
	x->res->kconfig_kept = kconfig_current(x, stamp, dotconfig);
	if (!x->res->kconfig_kept) {
		unlink(stamp);
		r = kconfig_make(x, abs, dotconfig);
	}
	if (r)
		goto out;
	lost = fl_kconfig_check(dotconfig, (const char *const *)abs, k->nfragments, &report);
	if (lost > 0) {
		const char *where = fl_config_where(x->req->cfg, &k->missing_option);

		if (!where && k->nfragments)
			where = fl_config_where(x->req->cfg, &k->fragments[0]);

		if (!strcmp(k->missing_option ? k->missing_option : "error", "error")) {
			r = fl_error_set(FL_EINVAL, "kernel '%s'%s%s: %d fragment option(s) did not "
						    "survive olddefconfig:\n%s",
					 k->name, where ? " at " : "", where ? where : "", lost, report);
		} else {
			fl_warn("kernel '%s': fragment options did not survive:\n%s", k->name,
				report);
		}
	}
	if (!r && !x->res->kconfig_kept) {
		char *text = fl_xasprintf("%s\n%s", x->res->sha, x->compiler);

		r = fl_write_file(stamp, text);
		free(text);
	}
out:
	for (size_t i = 0; i < k->nfragments; i++)
		free(abs[i]);
	free(abs);
	free(report);
	free(stamp);
	free(dotconfig);
	return r;
}

/* ---- artifacts and the cache ---------------------------------------- */

static char *log_tail(const char *path, int lines)
{
	fl_buf b = FL_BUF_INIT;
	const char *p;
	int seen = 0;

	if (fl_read_file(path, &b))
		return fl_xstrdup("");
	p = b.ptr + b.len;
	while (p > b.ptr && seen <= lines)
		if (*--p == '\n')
			seen++;
	p = fl_xstrdup(p == b.ptr ? p : p + 1);
	fl_buf_free(&b);
	return (char *)p;
}

/*
 * Drops least recently used artifacts until the cache fits its cap. It
 * stops at one in use (used within the hour, or locked by another worker):
 * the others are used more recently still, and the cap waits for the next build.
 */
static void evict(struct build_ctx *x, int64_t keep)
{
	fl_store *st = x->req->store;
	uint64_t cap = x->req->cfg->build.cache_size, total;
	int64_t id;
	char *dir;

	while (cap && !fl_store_build_cache_size(st, &total) && total > cap &&
	       !fl_store_build_lru(st, keep, &id, &dir)) {
		int gone = fl_artifact_evict(x->art_dir, dir);

		if (gone) {
			fl_info("build: cache over %llu bytes, evicted %s", (unsigned long long)cap,
				dir);
			fl_store_build_evicted(st, id);
		} else {
			fl_verbose("build: cache over %llu bytes, but %s is in use: kept",
				   (unsigned long long)cap, dir);
		}
		free(dir);
		if (!gone)
			break;
	}
}

static int save_artifacts(struct build_ctx *x, uint64_t *size)
{
	static const char *const files[][2] = {
		{"arch/x86/boot/bzImage", "bzImage"},
		{"System.map", "System.map"},
		{".config", "config"},
	};
	struct fl_build_result *res = x->res;
	char *tmp, *to, *text;
	int r;

	/* written beside, renamed into place: no worker sees half an artifact */
	if ((r = fl_artifact_tmp(x->art_dir, x->name, &tmp)))
		return r;
	for (size_t i = 0; !r && i < sizeof(files) / sizeof(files[0]); i++) {
		char *from = fl_xasprintf("%s/%s", x->obj, files[i][0]);

		to = fl_xasprintf("%s/%s", tmp, files[i][1]);
		r = fl_copy_file(from, to, size);
		free(from);
		free(to);
	}
	to = fl_xasprintf("%s/build.log", tmp);
	if (!r)
		r = fl_copy_file(x->log, to, size);
	free(to);
	to = fl_xasprintf("%s/duration_ms", tmp);
	text = fl_xasprintf("%lld\n", (long long)res->duration_ms);
	if (!r)
		r = fl_write_file(to, text);
	free(text);
	free(to);
	res->artifact = fl_xasprintf("%s/%s", x->art_dir, x->name);
	if (!r)
		r = fl_artifact_publish(tmp, res->artifact);
	if (r) {
		fl_remove_tree(tmp);
		free(res->artifact);
		res->artifact = NULL;
	}
	free(tmp);
	return r;
}

/* Bytes in the files of an artifact directory. */
static uint64_t dir_size(const char *path)
{
	DIR *d = opendir(path);
	struct dirent *e;
	uint64_t size = 0;

	while (d && (e = readdir(d))) {
		char *f = fl_xasprintf("%s/%s", path, e->d_name);
		struct stat st;

		if (!stat(f, &st) && S_ISREG(st.st_mode))
			size += (uint64_t)st.st_size;
		free(f);
	}
	if (d)
		closedir(d);
	return size;
}

/*
 * <artifacts>/<name>, published by a worker this store has no row of
 * (another store), or whose row names another host's path: recorded as
 * this key's build, not built again. 1 when res is filled from it.
 */
static int adopt(struct build_ctx *x, int64_t commit_id)
{
	struct fl_build_result *res = x->res;
	struct fl_build_outcome o = {.status = "ok"};
	char *path = fl_xasprintf("%s/%s", x->art_dir, x->name);
	char *image = fl_xasprintf("%s/bzImage", path);
	char *took = fl_xasprintf("%s/duration_ms", path);
	fl_buf b = FL_BUF_INIT;
	struct stat st;
	int64_t id;
	int hit = 0;

	if (!stat(image, &st)) {
		if (!fl_read_file(took, &b))
			o.duration_ms = strtoll(fl_buf_str(&b), NULL, 10);
		o.artifact = path;
		o.size = dir_size(path);
		hit = !fl_store_build_start(x->req->store, commit_id, x->req->kernel->name,
					    res->config_hash, x->compiler, &id) &&
		      !fl_store_build_finish(x->req->store, id, &o);
	}
	if (hit) {
		res->artifact = path;
		path = NULL;
		res->build_id = id;
		res->duration_ms = o.duration_ms;
		res->cached = 1;
		fl_artifact_touch(res->artifact);
	}
	fl_buf_free(&b);
	free(took);
	free(image);
	free(path);
	return hit;
}

/* A usable earlier result for the key: 1 when res is filled from it. */
static int cache_lookup(struct build_ctx *x, int64_t commit_id)
{
	struct fl_build_result *res = x->res;
	struct fl_build_row row = {0};
	struct stat st;
	int hit = 0;

	if (fl_store_build_find(x->req->store, commit_id, res->config_hash, x->compiler, &row))
		return adopt(x, commit_id);
	if (!strcmp(row.status, "ok") && row.artifact && !stat(row.artifact, &st)) {
		res->artifact = fl_xstrdup(row.artifact);
		fl_artifact_touch(res->artifact);
		hit = 1;
	} else if (!strcmp(row.status, "build-failed")) {
		/* The same commit and config fail the same way: untestable, no rebuild. */
		res->failed = 1;
		res->error = row.error ? fl_xstrdup(row.error) : NULL;
		hit = 1;
	}
	if (hit) {
		res->cached = 1;
		res->build_id = row.id;
		res->duration_ms = row.duration_ms;
		fl_store_build_touch(x->req->store, row.id);
	}
	fl_store_build_row_release(&row);
	return hit ? hit : adopt(x, commit_id);
}

int fl_build_commit_depth(fl_store *st, fl_repo *repo, const char *sha, int64_t id)
{
	int64_t depth;
	int r = fl_store_commit_needs_depth(st, id);

	if (r <= 0)
		return r;
	if ((r = fl_repo_depth(repo, sha, &depth)))
		return r;
	return fl_store_commit_depth(st, id, depth);
}

static int record_commit(struct build_ctx *x, int64_t *commit_id)
{
	struct fl_repo_commit c;
	struct fl_commit_info ci;
	int64_t tree_id;
	int r;

	if ((r = fl_repo_commit(x->req->repo, x->req->rev, &c)))
		return r;
	memcpy(x->res->sha, c.sha, sizeof(c.sha));
	x->commit_time = c.time;
	ci = (struct fl_commit_info){c.sha, c.subject, c.author, c.time};
	r = fl_store_tree_ensure(x->req->store, fl_repo_name(x->req->repo),
				 x->req->tree_url ? x->req->tree_url : "", &tree_id);
	if (!r)
		r = fl_store_commit_ensure(x->req->store, tree_id, &ci, commit_id);
	if (!r)
		r = fl_build_commit_depth(x->req->store, x->req->repo, c.sha, *commit_id);
	fl_repo_commit_release(&c);
	return r;
}

/* make bzImage and what follows: artifacts, or the failure's record. */
static int compile(struct build_ctx *x, int64_t build_id, int64_t start)
{
	struct fl_build_result *res = x->res;
	struct fl_build_outcome o = {0};
	uint64_t size = 0;
	int status = 0, r;
	char *tail = NULL;

	fl_info("build: slot %u: make bzImage", x->slot);
	if ((r = fl_objtree_begin(x->tree)))
		return r;
	x->compiling = 1;
	x->compile_start = x->last_progress = fl_mono_ms();
	r = make_target(x, "bzImage", &status);
	x->compiling = 0;
	x->make_ended = !r;
	fl_info("build: slot %u: %u object%s built", x->slot, x->objects, FL_S(x->objects));
	res->objects = x->objects;
	res->duration_ms = fl_mono_ms() - start;
	o.duration_ms = res->duration_ms;
	if (!r && status && x->disk_full)
		r = fl_error_set(FL_EIO, "build of %.12s: disk full (see %s)", res->sha, x->log);
	if (!r && !status)
		r = save_artifacts(x, &size);
	if (r) {
		o.status = "error";
		o.error = fl_error_last();
		fl_store_build_finish(x->req->store, build_id, &o);
		return r;
	}
	if (status) {
		tail = log_tail(x->log, 30);
		res->failed = 1;
		res->error = fl_xstrdup(x->first_error ? x->first_error : "make failed");
		o.status = "build-failed";
		o.log = tail;
		o.error = res->error;
	} else {
		o.status = "ok";
		o.artifact = res->artifact;
		o.size = size;
	}
	r = fl_store_build_finish(x->req->store, build_id, &o);
	free(tail);
	if (!r && !status)
		evict(x, build_id);
	return r;
}

static int64_t tv_ms(struct timeval tv)
{
	return tv.tv_sec * 1000LL + tv.tv_usec / 1000;
}

/*
 * CPU ms (user + sys) of this thread and of the children waited for so far.
 * Children are counted per process: in the service, a child another thread
 * reaps during a build counts for the build too.
 */
static int64_t cpu_ms(void)
{
	struct rusage self, kids;

	if (getrusage(RUSAGE_THREAD, &self) || getrusage(RUSAGE_CHILDREN, &kids))
		return 0;
	return tv_ms(self.ru_utime) + tv_ms(self.ru_stime) + tv_ms(kids.ru_utime) +
	       tv_ms(kids.ru_stime);
}

/*
 * ccache under the compiler's name: <var>/ccache-bin/<cc> -> ccache, a
 * directory put first in make's PATH (ccache's masquerade: it runs the next
 * <cc> in PATH). Not in CC: kbuild records each object's command line and
 * rebuilds the object when it changes, so CC is the compiler's name whether
 * ccache runs or not. The directory (absolute), or NULL when ccache is not
 * installed or CC is a path.
 */
static char *ccache_bin(const struct build_ctx *x)
{
	char *ccache = fl_which_path("ccache"), *var = realpath(x->req->cfg->var, NULL);
	char *dir = NULL, *link, *tmp, target[PATH_MAX];
	ssize_t n;

	if (ccache && var && !strchr(cc_name(), '/')) {
		dir = fl_xasprintf("%s/ccache-bin", var);
		link = fl_xasprintf("%s/%s", dir, cc_name());
		tmp = fl_xasprintf("%s.%d.%lx", link, (int)getpid(), (unsigned long)pthread_self());
		n = readlink(link, target, sizeof(target) - 1);
		if ((n < 0 || (size_t)n != strlen(ccache) || memcmp(target, ccache, (size_t)n)) &&
		    (fl_mkdir_p(dir) || symlink(ccache, tmp) || rename(tmp, link))) {
			int e = errno;

			fl_error_clear();
			fl_warn("build: no ccache: cannot link %s to %s: %s", link, ccache,
				strerror(e));
			unlink(tmp);
			free(dir);
			dir = NULL;
		}
		free(tmp);
		free(link);
	}
	free(ccache);
	free(var);
	return dir;
}

/*
 * ccache when it is installed, but not for the host's first build of a
 * config: each of its compiles would be a miss, and a miss costs more than
 * plain gcc (hashing the source and headers, storing the object: 4-12% of
 * a clean kernel build). Later builds keep the first's objects by copying
 * its object tree (objtree.h), not through the cache.
 */
static void use_ccache(struct build_ctx *x)
{
	if (fl_objtree_host_first(x->tree))
		fl_info("build: slot %u: no ccache: the host's first build of this config",
			x->slot);
	else
		x->ccache_bin = ccache_bin(x);
}

/* The slot's source at the commit, and the object tree for it (objtree.h). */
static int slot_move(struct build_ctx *x)
{
	struct fl_build_result *res = x->res;
	char *head = fl_xasprintf("%s/HEAD", x->slot_dir), was[41];
	int r;

	fl_checkout_head(head, was);
	r = fl_objtree_pick(&x->tree, x->req->repo, x->slot_dir, x->src, res->config_hash,
			    x->req->cfg->build.object_trees, was, res->sha, x->slot);
	if (!r) {
		x->obj = fl_objtree_dir(x->tree);
		use_ccache(x);
		fl_info("build: slot %u: checking out %.12s", x->slot, res->sha);
		r = fl_checkout(x->req->repo, x->src, head, res->sha, &res->files_written);
	}
	if (!r)
		fl_info("build: slot %u: %u file%s written", x->slot, res->files_written,
			FL_S(res->files_written));
	if (!r)
		r = fl_objtree_prepare(x->tree);
	free(head);
	return r;
}

static int build_locked(struct build_ctx *x, int64_t build_id, int64_t start)
{
	struct fl_build_result *res = x->res;
	int64_t t = fl_mono_ms(), cpu = cpu_ms();
	int r, fd;

	r = slot_move(x);
	res->checkout_ms = fl_mono_ms() - t;
	if (!r && (fd = open(x->log, O_WRONLY | O_CREAT | O_TRUNC, 0644)) >= 0)
		close(fd);
	t = fl_mono_ms();
	if (!r)
		r = kconfig(x);
	res->kconfig_ms = fl_mono_ms() - t;
	if (!r) {
		free(x->first_error);
		x->first_error = NULL;
		x->objects = 0;
		t = fl_mono_ms();
		r = compile(x, build_id, start);
		res->make_ms = fl_mono_ms() - t;
	}
	if (x->make_ended) {
		int e = fl_objtree_done(x->tree);

		r = r ? r : e;
	}
	if (x->tree)
		fl_objtree_put(x->tree);
	res->cpu_ms = cpu_ms() - cpu;
	if (!r)
		fl_info("build: slot %u: checkout %.1f s (%u file%s), kconfig %.1f s, "
			"make %.1f s (%u object%s), %.1f s CPU",
			x->slot, res->checkout_ms / 1e3, res->files_written,
			FL_S(res->files_written), res->kconfig_ms / 1e3, res->make_ms / 1e3,
			res->objects, FL_S(res->objects), res->cpu_ms / 1e3);
	return r;
}

int fl_build(const struct fl_build_req *req, struct fl_build_result *res)
{
	struct build_ctx x = {.req = req, .res = res, .lock_fd = -1, .name_fd = -1};
	int64_t commit_id, build_id, start = fl_mono_ms();
	char *what = NULL;
	int r;

	memset(res, 0, sizeof(*res));
	if ((r = config_hash(req->kernel, &res->config_hash)) || (r = compiler_id(&x)) ||
	    (r = record_commit(&x, &commit_id)))
		goto out;
	x.art_dir = fl_artifacts_dir(req->cfg);
	x.name = fl_xasprintf("%s-%s-%s", res->sha, res->config_hash, x.cc_hash);
	if (cache_lookup(&x, commit_id)) {
		fl_info("build: %.12s %s: cache hit", res->sha, req->kernel->name);
		goto out;
	}
	/* one worker builds a name; the others wait for it, then find it */
	what = fl_xasprintf("%.12s %s", res->sha, req->kernel->name);
	if ((r = fl_artifact_lock(x.art_dir, x.name, what, &x.name_fd)))
		goto out;
	if (cache_lookup(&x, commit_id)) {
		fl_info("build: %s: cache hit (built by another worker)", what);
		goto out;
	}
	fl_artifact_sweep(x.art_dir, x.name);
	if ((r = check_toolchain()) || (r = slot_lock(&x)))
		goto out;
	if ((r = fl_store_build_start(req->store, commit_id, req->kernel->name, res->config_hash,
				      x.compiler, &build_id)))
		goto out;
	res->build_id = build_id;
	r = build_locked(&x, build_id, start);
	if (r && r != FL_ESTORE) {
		struct fl_build_outcome o = {.status = "error", .error = fl_error_last()};

		fl_store_build_finish(req->store, build_id, &o);
	}
out:
	if (x.lock_fd >= 0)
		close(x.lock_fd);
	/* after the store has the outcome: a waiter's lookup finds it */
	if (x.name_fd >= 0)
		fl_artifact_unlock(x.art_dir, x.name, x.name_fd);
	free(what);
	free(x.art_dir);
	free(x.name);
	free(x.slot_dir);
	free(x.src);
	fl_objtree_free(x.tree);
	free(x.log);
	free(x.compiler);
	free(x.cc_hash);
	free(x.ccache_bin);
	free(x.first_error);
	return r;
}

void fl_build_result_release(struct fl_build_result *res)
{
	free(res->artifact);
	free(res->error);
	free(res->config_hash);
	memset(res, 0, sizeof(*res));
}
