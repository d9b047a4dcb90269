/*
 * volume.h - the files a guest boots from, put on its host through libvirt.
 *
 * A libvirt host may be another machine (qemu+ssh://, qemu+tcp://) that
 * shares no filesystem with faultline, so the kernel and the initramfs of a
 * run go there through libvirt itself: each is uploaded into a volume of the
 * machine's storage pool (its 'pool', or else a transient dir pool of
 * faultline's, created on the host when missing: "faultline" in
 * FL_VOLUME_POOL_DIR, or "faultline-<pool_dir as a name>" in 'pool_dir'),
 * read back and compared byte for byte, and the domain XML names the
 * volume's path on the host. The volumes are deleted when the run ends,
 * whatever its end; those of a faultline process that died are reaped by
 * name (machine/guest.h says how names carry their owner).
 */
#ifndef FL_VOLUME_H
#define FL_VOLUME_H

#include <libvirt/libvirt.h>

struct fl_machine_conf;
typedef struct fl_volumes fl_volumes;

/* The transient pool used when a machine names none, and its default target. */
#define FL_VOLUME_POOL "faultline"
#define FL_VOLUME_POOL_DIR "/var/lib/libvirt/images/faultline"

/* The machine's pool on conn, started or created when it is not active. */
int fl_volumes_open(fl_volumes **out, virConnectPtr conn, const struct fl_machine_conf *m);

/*
 * Uploads the local file path as volume name and checks it; *host_path (owned
 * by v) is where the host sees it. 0 or FL_EIO naming the volume and host.
 */
int fl_volumes_upload(fl_volumes *v, const char *name, const char *path,
		      const char **host_path);

/*
 * Deletes every volume this set uploaded (also done by fl_volumes_free); the
 * number it could not delete, each said in a warning (the error message of
 * the caller's failure is left alone).
 */
int fl_volumes_delete(fl_volumes *v);
void fl_volumes_free(fl_volumes *v);

/*
 * Deletes the volumes of m's pool on conn whose names dead() says belong to
 * a process that is gone. The number deleted, or a negative FL_E* code; a
 * pool that does not exist has nothing to reap.
 */
int fl_volumes_reap(virConnectPtr conn, const struct fl_machine_conf *m,
		    int (*dead)(const char *name));

#endif
