/*
 * artifacts.h - the artifact directory (build.artifacts, <var>/artifacts by
 * default), shared by every process that builds: several `faultline watch`
 * workers on one host, or on several hosts that mount one directory.
 *
 * <dir>/<name> is an artifact (name: <sha>-<config hash>-<compiler hash>).
 * It appears whole: written into <dir>/.tmp-<name>-XXXXXX and renamed into
 * place. <dir>/<name>.lock is flocked by whoever builds, publishes or
 * evicts <name>, so one process builds it and the others wait and find it.
 * A lock dies with its process; a dead process's temporary directory is
 * removed by the next sweep (any build's start). An artifact used in the
 * last FL_ARTIFACT_IN_USE_S seconds (its directory's mtime, set when it is
 * published and at every cache hit) is never evicted: another worker may be
 * booting it.
 */
#ifndef FL_ARTIFACTS_H
#define FL_ARTIFACTS_H

struct fl_config;

#define FL_ARTIFACT_IN_USE_S 3600

/* The artifact directory of cfg; caller frees. */
char *fl_artifacts_dir(const struct fl_config *cfg);

/*
 * Takes <dir>/<name>.lock, waiting for the process (or thread) that holds
 * it and saying so in the log every minute ("build: waiting for another
 * worker building <what>"). *fd is the lock, for fl_artifact_unlock.
 * FL_EIO when the lock cannot be made, FL_ERROR when interrupted.
 */
int fl_artifact_lock(const char *dir, const char *name, const char *what, int *fd);
void fl_artifact_unlock(const char *dir, const char *name, int fd);

/* A fresh temporary directory beside <dir>/<name>, mode 0755; caller frees. */
int fl_artifact_tmp(const char *dir, const char *name, char **tmp);
/*
 * Renames tmp to final. When final is already there (published meanwhile
 * by a process that did not hold the lock), keeps that one and removes tmp.
 */
int fl_artifact_publish(const char *tmp, const char *final);

/*
 * The artifact at path (or at <dir>/<its name> when path is another host's)
 * removed: 1 when gone, 0 when kept because it is in use (used recently, or
 * its lock held). It is renamed away first, so a reader never sees half of it.
 */
int fl_artifact_evict(const char *dir, const char *path);

/* Marks the artifact used now (its directory's mtime). */
void fl_artifact_touch(const char *path);

/*
 * Removes the temporary directories of processes that died publishing or
 * evicting: those of a name nobody holds, and those of held (a name whose
 * lock the caller holds), or NULL.
 */
void fl_artifact_sweep(const char *dir, const char *held);

#endif
