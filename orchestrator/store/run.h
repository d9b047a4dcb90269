/*
 * store/run.h - runs of any machine backend in the store (tables runs,
 * samples, run_records), as the dispatcher (dispatch.h) keeps them, and
 * the runs a comparison reads. The SQL lives in store/run.c, the one file
 * that writes the runs table (with store.h's older fl_store_run_create,
 * fl_store_run_finish and fl_store_samples_add, defined there too); other
 * store files take its rule of which runs belong to a commit (store/priv.h).
 *
 * A run row is created 'running' before anything is booted, owned by this
 * host and process, so a run whose process died is recognised later
 * (fl_store_runs_in_flight). Every agent record is stored as it arrives.
 * Samples are written only together with status 'ok', in the transaction
 * that ends the run: a run that is not ok never has samples, and
 * fl_store_run_samples() refuses any run that is not ok.
 */
#ifndef FL_STORE_RUN_H
#define FL_STORE_RUN_H

#include "store/store.h"

#include <stddef.h>
#include <stdint.h>

struct fl_run_new {
	int64_t machine_id;
	int64_t build_id;  /* 0: none (prebuilt image, command backend) */
	int64_t commit_id; /* 0: none (prebuilt image) */
	const char *benchmark;
	const char *params;	  /* JSON: what the benchmark asked for */
	const char *kernel_image; /* a prebuilt image's path, or NULL */
	const char *system_map;	  /* the prebuilt image's System.map, or NULL */
	const char *label;	  /* "bisect step 4", or NULL */
	int64_t job_id;		  /* the watch service's run job, or 0 */
};
/* Status 'running', owned by this host (gethostname) and process. */
int fl_store_run_start(fl_store *st, const struct fl_run_new *r, int64_t *id);

/* What the machine backend knows once the guest exists. */
struct fl_run_guest {
	const char *domain;	   /* libvirt domain name, or NULL */
	const char *accel;	   /* kvm, tcg, or NULL */
	const char *machine_facts; /* JSON: topology, memory, URI */
	const char *console_path;  /* the whole console log */
	int64_t created_ms;	   /* wall clock, ms since the epoch */
};
int fl_store_run_guest(fl_store *st, int64_t id, const struct fl_run_guest *g);

/* One agent record, as received (type "" when the JSON has none). */
int fl_store_run_record_add(fl_store *st, int64_t id, uint64_t seq, const char *type,
			    const char *json, size_t len);
/* The run's records in order: n JSON texts with their lengths (free with
 * fl_store_run_records_free). */
int fl_store_run_records(fl_store *st, int64_t id, char ***json, size_t **lens, size_t *n);
void fl_store_run_records_free(char **json, size_t *lens, size_t n);

struct fl_run_end {
	const char *status;	  /* fl_run_status_name() */
	const char *detail;	  /* may be NULL */
	const char *console_tail; /* the end of the console, bounded; may be NULL */
	/* From the environment record; 0 / NULL when none came. */
	int nodes, cpus;
	const char *kernel_release;
	/* Wall clock ms since the epoch; 0 when it did not happen. */
	int64_t agent_ms, first_sample_ms, ended_ms;
	/* Only with status "ok" (FL_EINVAL otherwise). */
	const struct fl_sample *samples;
	size_t nsamples;
};
/* Ends a 'running' run: all of it or nothing. FL_EEXISTS if it already ended. */
int fl_store_run_end(fl_store *st, int64_t id, const struct fl_run_end *e);

struct fl_run_row {
	int64_t id, machine_id, build_id, commit_id;
	char *benchmark, *status, *detail, *label;
	char *domain, *accel, *kernel_release, *console_path, *kernel_image;
	char *machine_facts; /* JSON, fl_run_guest's; NULL when no guest was made */
	int nodes, cpus;     /* 0: unknown */
	int64_t created_ms, agent_ms, first_sample_ms, ended_ms;
};
int fl_store_run_get(fl_store *st, int64_t id, struct fl_run_row *row);
void fl_store_run_row_release(struct fl_run_row *row);

/* A sample read back; strings owned by the array (fl_store_samples_free). */
struct fl_sample_row {
	char *metric, *mode;
	unsigned tasks, seq;
	double value;
	char *cgroup; /* "" (the root) or "child" */
};
/*
 * The samples of an ok run, by metric, mode, tasks, cgroup, seq. FL_EINVAL naming
 * the status for a run that is not ok, FL_ENOTFOUND for no such run.
 */
int fl_store_run_samples(fl_store *st, int64_t id, struct fl_sample_row **out, size_t *n);
void fl_store_samples_free(struct fl_sample_row *s, size_t n);

/*
 * The ok runs of benchmark on machine for the commit sha (in any tree), by
 * runs.commit_id or, for rows written without it, their build's commit;
 * oldest first (caller frees *ids). *n = 0 when there are none.
 */
int fl_store_commit_runs(fl_store *st, const char *sha, const char *benchmark, const char *machine,
			 int64_t **ids, size_t *n);

/* What a run is, for checking runs named by id: FL_ENOTFOUND for none. */
struct fl_run_info_row {
	char *benchmark, *machine, *status;
};
int fl_store_run_info(fl_store *st, int64_t id, struct fl_run_info_row *out);
void fl_store_run_info_release(struct fl_run_info_row *ri);

/* Runs still 'running', with their owners. */
struct fl_run_owner {
	int64_t id;
	char *host;
	int pid;
};
int fl_store_runs_in_flight(fl_store *st, struct fl_run_owner **out, size_t *n);
void fl_store_run_owners_free(struct fl_run_owner *o, size_t n);
/* Ends a run left 'running' by a process that died: infra-error, detail why. */
int fl_store_run_abandon(fl_store *st, int64_t id, const char *why);

#endif
