/* accel.c - proves KVM with a probe boot, else TCG, remembered per host (see accel.h). */
#include "machine/accel.h"
#include "lib/buf.h"
#include "config/config.h"
#include "machine/domain.h"
#include "lib/error.h"
#include "lib/fs.h"
#include "machine/guest.h"
#include "lib/log.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char *answer_path(const struct fl_accel_probe *p)
{
	char *host = fl_path_component(p->uri), *path;

	path = fl_xasprintf("%s/accel/%s", p->state_dir, host);
	free(host);
	return path;
}

static const char *remembered(const char *path)
{
	char word[16] = "";
	FILE *f = fopen(path, "r");

	if (!f)
		return NULL;
	if (!fgets(word, sizeof(word), f))
		word[0] = '\0';
	fclose(f);
	if (!strncmp(word, "kvm", 3))
		return "kvm";
	if (!strncmp(word, "tcg", 3))
		return "tcg";
	return NULL;
}

static void ensure_dir(const struct fl_accel_probe *p)
{
	char *dir = fl_xasprintf("%s/accel", p->state_dir);

	if (fl_mkdir_p(dir))
		fl_warn("accel: %s", fl_error_last());
	free(dir);
}

static void remember(const char *path, const char *accel)
{
	FILE *f = fopen(path, "w");

	if (!f) {
		fl_warn("accel: cannot remember the answer in %s: %s", path, strerror(errno));
		return;
	}
	fprintf(f, "%s\n", accel);
	fclose(f);
}

static void collect(const char *data, size_t len, void *arg)
{
	fl_buf_add(arg, data, len);
}

/* 1 if a KVM guest printed the kernel banner before the deadline; -1 if interrupted. */
static int kvm_boots(const struct fl_accel_probe *p)
{
	/* The probe's files go to the machine's pool, as its runs' do (guest.h). */
	struct fl_machine_conf m = {.name = "accel-probe", .sockets = 1, .cores = 1,
				    .threads = 1, .memory_per_node = 256ULL << 20,
				    .pool = p->machine ? p->machine->pool : NULL,
				    .pool_dir = p->machine ? p->machine->pool_dir : NULL};
	char *name = fl_guest_name("accel-probe");
	char *console = fl_xasprintf("%s/accel/probe-%d.log", p->state_dir, (int)getpid());
	struct fl_domain_spec spec = {name, &m, "kvm", p->kernel, p->initrd, console, NULL, 0};
	fl_buf out = FL_BUF_INIT;
	enum fl_guest_end end;
	fl_guest *g = NULL;
	int ok = 0;

	if (!fl_guest_start(&g, p->uri, &spec) &&
	    !fl_guest_wait(g, p->deadline_ms, collect, &out, &end))
		ok = end == FL_GUEST_INTERRUPTED ? -1
						 : strstr(fl_buf_str(&out), "Linux version") != NULL;
	else
		fl_verbose("accel: KVM probe on %s failed: %s", p->uri, fl_error_last());
	fl_guest_free(g);
	unlink(console);
	fl_buf_free(&out);
	free(console);
	free(name);
	return ok;
}

int fl_accel_resolve(const char *wanted, const struct fl_accel_probe *p, const char **accel,
		     int *probed)
{
	char *path;
	const char *known;

	*probed = 0;
	if (!strcmp(wanted, "kvm") || !strcmp(wanted, "tcg")) {
		*accel = !strcmp(wanted, "kvm") ? "kvm" : "tcg";
		return 0;
	}
	if (strcmp(wanted, "auto"))
		return fl_error_set(FL_EINVAL, "accel: expected kvm, tcg or auto, got '%s'", wanted);
	path = answer_path(p);
	known = remembered(path);
	if (!known) {
		ensure_dir(p);
		fl_info("accel: probing KVM on %s (deadline %lld ms)", p->uri,
			(long long)p->deadline_ms);
		switch (kvm_boots(p)) {
		case -1:
			/* Stopped before an answer: nothing to remember. */
			free(path);
			return fl_error_set(FL_EIO, "accel: the KVM probe on %s was interrupted",
					    p->uri);
		case 1:
			known = "kvm";
			break;
		default:
			known = "tcg";
		}
		*probed = 1;
		remember(path, known);
	}
	fl_verbose("accel: %s uses %s%s", p->uri, known, *probed ? "" : " (remembered)");
	free(path);
	*accel = known;
	return 0;
}
