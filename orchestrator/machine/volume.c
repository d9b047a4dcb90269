/*
 * machine/volume.c - owns the volumes a guest boots from on its libvirt
 * host (see volume.h): the pool found, started or created, each file
 * uploaded through a libvirt stream in chunks, read back and compared, its
 * host path handed to the domain XML, and the volumes deleted after the run
 * and when a dead owner left them.
 */
#include "machine/volume.h"
#include "config/config.h"
#include "lib/buf.h"
#include "lib/error.h"
#include "lib/fs.h"
#include "lib/html.h"
#include "lib/log.h"

#include <errno.h>
#include <fcntl.h>
#include <libvirt/virterror.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* One stream message carries at most 256 KiB. */
#define CHUNK (256 * 1024)

struct fl_volume {
	virStorageVolPtr vol;
	char *name, *path;
};

struct fl_volumes {
	virConnectPtr conn;
	virStoragePoolPtr pool;
	char *uri, *pool_name;
	struct fl_volume *v;
	size_t n;
};

/*
 * The machine's pool; else faultline's own: "faultline" at the default
 * directory, "faultline-<dir as a name>" at a 'pool_dir' (caller frees).
 */
static char *pool_name(const struct fl_machine_conf *m)
{
	char *dir, *name;

	if (m && m->pool)
		return fl_xstrdup(m->pool);
	if (!m || !m->pool_dir)
		return fl_xstrdup(FL_VOLUME_POOL);
	dir = fl_path_component(m->pool_dir);
	name = fl_xasprintf("%s-%s", FL_VOLUME_POOL, dir);
	free(dir);
	return name;
}

static const char *uri_of(const struct fl_machine_conf *m)
{
	return m && m->uri ? m->uri : "(default)";
}

static int lv_error(const struct fl_volumes *s, const char *what, const char *name)
{
	return fl_error_set(FL_EIO, "libvirt %s: pool '%s': %s '%s': %s", s->uri, s->pool_name,
			    what, name, virGetLastErrorMessage());
}

/* The transient dir pool faultline uses when the machine names none. */
static virStoragePoolPtr create_pool(virConnectPtr conn, const struct fl_machine_conf *m,
				     const char *name)
{
	const char *dir = m && m->pool_dir ? m->pool_dir : FL_VOLUME_POOL_DIR;
	fl_buf xml = FL_BUF_INIT;
	virStoragePoolPtr p;

	fl_buf_adds(&xml, "<pool type='dir'><name>");
	fl_html_text(&xml, name);
	fl_buf_adds(&xml, "</name><target><path>");
	fl_html_text(&xml, dir);
	fl_buf_adds(&xml, "</path></target></pool>");
	p = virStoragePoolCreateXML(conn, fl_buf_str(&xml), VIR_STORAGE_POOL_CREATE_WITH_BUILD);
	fl_buf_free(&xml);
	if (p)
		fl_info("libvirt %s: created the transient pool '%s' in %s", uri_of(m), name, dir);
	/* Another process may have created it at the same moment. */
	return p ? p : virStoragePoolLookupByName(conn, name);
}

int fl_volumes_open(fl_volumes **out, virConnectPtr conn, const struct fl_machine_conf *m)
{
	fl_volumes *s = fl_xcalloc(1, sizeof(*s));
	int active;

	*out = NULL;
	s->uri = fl_xstrdup(uri_of(m));
	s->pool_name = pool_name(m);
	s->pool = virStoragePoolLookupByName(conn, s->pool_name);
	if (!s->pool && !(m && m->pool))
		s->pool = create_pool(conn, m, s->pool_name);
	if (!s->pool) {
		int r = fl_error_set(FL_EIO, "libvirt %s: no storage pool '%s'%s: %s", s->uri,
				     s->pool_name,
				     m && m->pool ? " (the machine's 'pool')" : "",
				     virGetLastErrorMessage());

		fl_volumes_free(s);
		return r;
	}
	active = virStoragePoolIsActive(s->pool);
	if (active == 0 && virStoragePoolCreate(s->pool, 0) < 0 &&
	    virStoragePoolIsActive(s->pool) != 1) {
		int r = lv_error(s, "cannot start", s->pool_name);

		fl_volumes_free(s);
		return r;
	}
	virConnectRef(conn);
	s->conn = conn;
	*out = s;
	return 0;
}

static int send_file(fl_volumes *s, virStorageVolPtr vol, int fd, unsigned long long size,
		     const char *name)
{
	virStreamPtr st = virStreamNew(s->conn, 0);
	char *buf = fl_xmalloc(CHUNK);
	ssize_t n = 0;
	int r = 0;

	if (!st || virStorageVolUpload(vol, st, 0, size, 0) < 0) {
		r = lv_error(s, "cannot upload into", name);
		goto out;
	}
	while (!r && (n = read(fd, buf, CHUNK)) > 0)
		for (ssize_t off = 0; off < n;) {
			int sent = virStreamSend(st, buf + off, (size_t)(n - off));

			if (sent < 0) {
				r = lv_error(s, "upload failed into", name);
				break;
			}
			off += sent;
		}
	if (!r && n < 0)
		r = fl_error_set(FL_EIO, "reading the file for volume '%s': %s", name,
				 strerror(errno));
	if (!r && virStreamFinish(st) < 0)
		r = lv_error(s, "upload did not finish into", name);
	if (r)
		virStreamAbort(st);
out:
	if (st)
		virStreamFree(st);
	free(buf);
	return r;
}

/* Reads the volume back and compares it with the file, byte for byte. */
static int check_file(fl_volumes *s, virStorageVolPtr vol, int fd, unsigned long long size,
		      const char *name)
{
	virStreamPtr st = virStreamNew(s->conn, 0);
	char *got = fl_xmalloc(CHUNK), *want = fl_xmalloc(CHUNK);
	unsigned long long off = 0;
	int r = 0, n;

	if (!st || virStorageVolDownload(vol, st, 0, size, 0) < 0) {
		r = lv_error(s, "cannot read back", name);
		goto out;
	}
	while ((n = virStreamRecv(st, got, CHUNK)) > 0) {
		if (off + (unsigned long long)n > size ||
		    pread(fd, want, (size_t)n, (off_t)off) != n || memcmp(got, want, (size_t)n)) {
			r = fl_error_set(FL_EIO, "libvirt %s: volume '%s' differs from its file "
						 "after byte %llu",
					 s->uri, name, off);
			break;
		}
		off += (unsigned long long)n;
	}
	if (!r && n < 0)
		r = lv_error(s, "read back failed of", name);
	else if (!r && off != size)
		r = fl_error_set(FL_EIO, "libvirt %s: volume '%s' holds %llu of %llu bytes", s->uri,
				 name, off, size);
	if (!r && virStreamFinish(st) < 0)
		r = lv_error(s, "read back did not finish of", name);
	if (r)
		virStreamAbort(st);
out:
	if (st)
		virStreamFree(st);
	free(got);
	free(want);
	return r;
}

static virStorageVolPtr create_volume(fl_volumes *s, const char *name, unsigned long long size)
{
	fl_buf xml = FL_BUF_INIT;
	virStorageVolPtr vol;

	fl_buf_adds(&xml, "<volume><name>");
	fl_html_text(&xml, name);
	fl_buf_addf(&xml, "</name><capacity unit='bytes'>%llu</capacity>"
			  "<target><format type='raw'/></target></volume>",
		    size);
	vol = virStorageVolCreateXML(s->pool, fl_buf_str(&xml), 0);
	fl_buf_free(&xml);
	return vol;
}

int fl_volumes_upload(fl_volumes *s, const char *name, const char *path, const char **host_path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	struct fl_volume *v;
	struct stat sb;
	int r;

	*host_path = NULL;
	if (fd < 0 || fstat(fd, &sb)) {
		r = fl_error_set(FL_EIO, "%s: %s", path, strerror(errno));
		if (fd >= 0)
			close(fd);
		return r;
	}
	s->v = fl_xrealloc(s->v, (s->n + 1) * sizeof(*s->v));
	v = &s->v[s->n];
	*v = (struct fl_volume){0};
	v->vol = create_volume(s, name, (unsigned long long)sb.st_size);
	if (!v->vol) {
		r = lv_error(s, "cannot create volume", name);
		close(fd);
		return r;
	}
	v->name = fl_xstrdup(name);
	s->n++;
	if ((r = send_file(s, v->vol, fd, (unsigned long long)sb.st_size, name)) ||
	    (r = check_file(s, v->vol, fd, (unsigned long long)sb.st_size, name))) {
		close(fd);
		return r;
	}
	close(fd);
	if (!(v->path = virStorageVolGetPath(v->vol)))
		return lv_error(s, "no path on the host for volume", name);
	fl_verbose("libvirt %s: %s uploaded as %s (%lld bytes)", s->uri, path, v->path,
		   (long long)sb.st_size);
	*host_path = v->path;
	return 0;
}

int fl_volumes_delete(fl_volumes *s)
{
	int left = 0;

	if (!s)
		return 0;
	/* A host that cannot be reached keeps them: one warning, no error for each. */
	if (s->n && s->conn && virConnectIsAlive(s->conn) == 0) {
		fl_buf names = FL_BUF_INIT;

		for (size_t i = 0; i < s->n; i++)
			fl_buf_addf(&names, "%s%s", i ? ", " : "", s->v[i].name);
		fl_warn("libvirt %s: the host cannot be reached: volumes %s stay in pool '%s' until "
			"the next start of faultline that reaches it",
			s->uri, fl_buf_str(&names), s->pool_name);
		fl_buf_free(&names);
		left = (int)s->n;
	}
	for (size_t i = 0; i < s->n; i++) {
		struct fl_volume *v = &s->v[i];

		if (!left && v->vol && virStorageVolDelete(v->vol, 0) < 0) {
			fl_warn("libvirt %s: cannot delete volume '%s' of pool '%s' (%s): the next "
				"start of faultline deletes it",
				s->uri, v->name, s->pool_name, virGetLastErrorMessage());
			left++;
		}
		if (v->vol)
			virStorageVolFree(v->vol);
		free(v->name);
		free(v->path);
	}
	s->n = 0;
	return left;
}

void fl_volumes_free(fl_volumes *s)
{
	if (!s)
		return;
	fl_volumes_delete(s);
	free(s->v);
	if (s->pool)
		virStoragePoolFree(s->pool);
	if (s->conn)
		virConnectClose(s->conn);
	free(s->uri);
	free(s->pool_name);
	free(s);
}

int fl_volumes_reap(virConnectPtr conn, const struct fl_machine_conf *m,
		    int (*dead)(const char *name))
{
	char *pname = pool_name(m);
	virStoragePoolPtr pool = virStoragePoolLookupByName(conn, pname);
	virStorageVolPtr *vols = NULL;
	int n, reaped = 0;

	if (!pool) {
		free(pname);
		return 0;
	}
	/* A dir pool shows files written before libvirtd restarted only after a refresh. */
	if (virStoragePoolIsActive(pool) == 1)
		virStoragePoolRefresh(pool, 0);
	n = virStoragePoolListAllVolumes(pool, &vols, 0);
	for (int i = 0; i < n; i++) {
		const char *name = virStorageVolGetName(vols[i]);

		if (name && dead(name) && !virStorageVolDelete(vols[i], 0)) {
			fl_info("reaped volume %s of pool '%s' on %s: its faultline process is gone",
				name, pname, uri_of(m));
			reaped++;
		}
		virStorageVolFree(vols[i]);
	}
	free(vols);
	virStoragePoolFree(pool);
	if (n < 0)
		reaped = fl_error_set(FL_EIO, "libvirt %s: cannot list the volumes of pool '%s'",
				      uri_of(m), pname);
	free(pname);
	return reaped;
}
