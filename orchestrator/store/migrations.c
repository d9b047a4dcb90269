/*
 * store/migrations.c - the store's schema: its migrations, oldest first.
 * Entry i brings version i to i + 1; store.c applies them, each in its own
 * transaction (fl_store_migrate). A released migration is never edited: a
 * change to the schema is a new entry at the end, and it must take an
 * SQLite file and a PostgreSQL database of any older version to the new
 * one (test_store migrates old files).
 */
#include "store/priv.h"
#include "store/store.h"

#include <stddef.h>

/*
 * A migration: its SQL in the store's dialect (SQLite's, which store/pg.c
 * takes to PostgreSQL's), and PostgreSQL's own text where the SQLite one
 * cannot be taken (rebuilding a table to change a constraint).
 */
struct migration {
	const char *sql;
	const char *pg;
};

static const struct migration migrations[] = {
    /* 1: the foundation */
    {"CREATE TABLE trees ("
     "  id INTEGER PRIMARY KEY,"
     "  name TEXT NOT NULL UNIQUE,"
     "  url TEXT NOT NULL);"
     "CREATE TABLE commits ("
     "  id INTEGER PRIMARY KEY,"
     "  tree_id INTEGER NOT NULL REFERENCES trees(id),"
     "  sha TEXT NOT NULL CHECK (length(sha) >= 40),"
     "  subject TEXT NOT NULL DEFAULT '',"
     "  author TEXT NOT NULL DEFAULT '',"
     "  time INTEGER NOT NULL DEFAULT 0,"
     "  UNIQUE (tree_id, sha));"
     "CREATE TABLE builds ("
     "  id INTEGER PRIMARY KEY,"
     "  commit_id INTEGER NOT NULL REFERENCES commits(id),"
     "  kernel TEXT NOT NULL,"
     "  config_hash TEXT NOT NULL,"
     "  compiler TEXT NOT NULL,"
     "  status TEXT NOT NULL CHECK (status IN"
     "    ('queued', 'building', 'ok', 'build-failed', 'error')),"
     "  artifact TEXT,"
     "  log TEXT,"
     "  error TEXT,"
     "  duration_ms INTEGER,"
     "  size INTEGER,"
     "  created INTEGER NOT NULL DEFAULT (unixepoch()),"
     "  last_used INTEGER NOT NULL DEFAULT (unixepoch()),"
     "  UNIQUE (commit_id, config_hash, compiler));"
     "CREATE TABLE machines ("
     "  id INTEGER PRIMARY KEY,"
     "  name TEXT NOT NULL UNIQUE,"
     "  backend TEXT NOT NULL,"
     "  facts TEXT,"
     "  state TEXT NOT NULL DEFAULT 'online');"
     "CREATE TABLE runs ("
     "  id INTEGER PRIMARY KEY,"
     "  build_id INTEGER REFERENCES builds(id),"
     "  machine_id INTEGER NOT NULL REFERENCES machines(id),"
     "  benchmark TEXT NOT NULL,"
     "  params TEXT NOT NULL DEFAULT '{}',"
     "  status TEXT NOT NULL DEFAULT 'running' CHECK (status IN"
     "    ('queued', 'running', 'ok', 'boot-failed', 'panic', 'timeout',"
     "     'agent-error', 'infra-error')),"
     "  console TEXT,"
     "  started INTEGER NOT NULL DEFAULT (unixepoch()),"
     "  finished INTEGER);"
     "CREATE TABLE samples ("
     "  id INTEGER PRIMARY KEY,"
     "  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,"
     "  metric TEXT NOT NULL,"
     "  mode TEXT NOT NULL DEFAULT '',"
     "  tasks INTEGER NOT NULL CHECK (tasks > 0),"
     "  seq INTEGER NOT NULL,"
     "  value REAL NOT NULL,"
     "  UNIQUE (run_id, metric, mode, tasks, seq));"
     "CREATE INDEX samples_by_run ON samples(run_id);"
     "CREATE TABLE regressions ("
     "  id INTEGER PRIMARY KEY,"
     "  tree_id INTEGER NOT NULL REFERENCES trees(id),"
     "  good_commit INTEGER NOT NULL REFERENCES commits(id),"
     "  bad_commit INTEGER NOT NULL REFERENCES commits(id),"
     "  benchmark TEXT NOT NULL,"
     "  machine_id INTEGER NOT NULL REFERENCES machines(id),"
     "  metric TEXT NOT NULL,"
     "  mode TEXT NOT NULL DEFAULT '',"
     "  tasks INTEGER NOT NULL,"
     "  change REAL NOT NULL,"
     "  p_value REAL,"
     "  state TEXT NOT NULL DEFAULT 'open',"
     "  created INTEGER NOT NULL DEFAULT (unixepoch()));"
     "CREATE TABLE bisections ("
     "  id INTEGER PRIMARY KEY,"
     "  regression_id INTEGER REFERENCES regressions(id),"
     "  good TEXT NOT NULL,"
     "  bad TEXT NOT NULL,"
     "  state TEXT NOT NULL DEFAULT 'running',"
     "  result TEXT,"
     "  culprit TEXT,"
     "  confidence REAL,"
     "  created INTEGER NOT NULL DEFAULT (unixepoch()),"
     "  finished INTEGER);"
     "CREATE TABLE bisect_steps ("
     "  id INTEGER PRIMARY KEY,"
     "  bisection_id INTEGER NOT NULL REFERENCES bisections(id) ON DELETE CASCADE,"
     "  seq INTEGER NOT NULL,"
     "  commit_sha TEXT NOT NULL,"
     "  status TEXT NOT NULL,"
     "  samples TEXT NOT NULL DEFAULT '[]',"
     "  verdict TEXT,"
     "  confidence REAL,"
     "  created INTEGER NOT NULL DEFAULT (unixepoch()),"
     "  UNIQUE (bisection_id, seq));"
     "CREATE TABLE reports ("
     "  id INTEGER PRIMARY KEY,"
     "  regression_id INTEGER REFERENCES regressions(id),"
     "  message_id TEXT NOT NULL UNIQUE,"
     "  subject TEXT NOT NULL,"
     "  body TEXT NOT NULL,"
     "  state TEXT NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'sent', 'failed')),"
     "  attempts INTEGER NOT NULL DEFAULT 0,"
     "  last_error TEXT,"
     "  created INTEGER NOT NULL DEFAULT (unixepoch()),"
     "  sent INTEGER);",
     NULL},
    /* 2: the outbox: when a pending report is tried next, and its thread */
    {"ALTER TABLE reports ADD COLUMN next_attempt INTEGER NOT NULL DEFAULT 0;"
     "ALTER TABLE reports ADD COLUMN in_reply_to TEXT;"
     "CREATE INDEX reports_pending ON reports(state, next_attempt);",
     NULL},
    /* 3: evidence per measured point of a run (store/evidence.c): the
     * vmstat rates of its window and its kernel profile per function */
    {"CREATE TABLE evidence_points ("
     "  id INTEGER PRIMARY KEY,"
     "  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,"
     "  test TEXT NOT NULL,"
     "  mode TEXT NOT NULL,"
     "  tasks INTEGER NOT NULL CHECK (tasks > 0),"
     "  measured_s REAL,"
     "  profile TEXT NOT NULL DEFAULT 'none',"
     "  profile_samples INTEGER,"
     "  UNIQUE (run_id, test, mode, tasks));"
     "CREATE TABLE evidence_vmstat ("
     "  point_id INTEGER NOT NULL REFERENCES evidence_points(id) ON DELETE CASCADE,"
     "  name TEXT NOT NULL,"
     "  delta INTEGER NOT NULL,"
     "  per_sec REAL NOT NULL,"
     "  PRIMARY KEY (point_id, name)) WITHOUT ROWID;"
     "CREATE TABLE evidence_profile ("
     "  point_id INTEGER NOT NULL REFERENCES evidence_points(id) ON DELETE CASCADE,"
     "  function TEXT NOT NULL,"
     "  samples INTEGER NOT NULL,"
     "  share REAL NOT NULL,"
     "  PRIMARY KEY (point_id, function)) WITHOUT ROWID;",
     NULL},
    /*
     * 4: indexes the results pages read by (store/view.c), so a page stays
     * fast with 100k runs: a kernel's runs of one benchmark on one machine,
     * the runs in progress (a partial index: a handful of rows, newest
     * first), commits by sha prefix and by tree in time order, and a
     * regression's reports.
     */
    {"CREATE INDEX runs_by_build ON runs(build_id, benchmark, machine_id);"
     "CREATE INDEX runs_active ON runs(id) WHERE status IN ('queued', 'running');"
     "CREATE INDEX commits_by_sha ON commits(sha);"
     "CREATE INDEX commits_by_time ON commits(tree_id, time);"
     "CREATE INDEX reports_by_regression ON reports(regression_id);"
     "CREATE INDEX bisections_by_state ON bisections(state);"
     "CREATE INDEX regressions_by_state ON regressions(state);",
     NULL},
    /*
     * 5: the watch service (store/jobs.c, store/watch.c): the job queue, the
     * tags it scheduled, comparison results and revert checks; runs and
     * regressions point at the job that made them, machines count their
     * infra errors in a row, one bisection per regression.
     */
    {"CREATE TABLE jobs ("
     "  id INTEGER PRIMARY KEY,"
     "  kind TEXT NOT NULL CHECK (kind IN ('compare', 'bisect', 'revert', 'report', 'run')),"
     "  key TEXT NOT NULL UNIQUE,"
     "  parent_id INTEGER REFERENCES jobs(id),"
     "  state TEXT NOT NULL DEFAULT 'queued' CHECK (state IN"
     "    ('queued', 'running', 'waiting', 'done', 'failed')),"
     "  tree TEXT NOT NULL DEFAULT '',"
     "  machine TEXT NOT NULL DEFAULT '',"
     "  benchmark TEXT NOT NULL DEFAULT '',"
     "  rev TEXT NOT NULL DEFAULT '',"
     "  role TEXT NOT NULL DEFAULT '',"
     "  seq INTEGER NOT NULL DEFAULT 0,"
     "  ref_id INTEGER NOT NULL DEFAULT 0,"
     "  result TEXT,"
     "  run_id INTEGER REFERENCES runs(id),"
     "  attempts INTEGER NOT NULL DEFAULT 0,"
     "  error TEXT,"
     "  created INTEGER NOT NULL DEFAULT (unixepoch()),"
     "  started INTEGER,"
     "  finished INTEGER);"
     "CREATE INDEX jobs_by_state ON jobs(state, id);"
     "CREATE INDEX jobs_by_parent ON jobs(parent_id, seq);"
     "ALTER TABLE runs ADD COLUMN job_id INTEGER REFERENCES jobs(id);"
     "CREATE INDEX runs_by_job ON runs(job_id);"
     "ALTER TABLE machines ADD COLUMN infra_errors INTEGER NOT NULL DEFAULT 0;"
     "ALTER TABLE machines ADD COLUMN state_reason TEXT;"
     "CREATE TABLE watch_tags ("
     "  id INTEGER PRIMARY KEY,"
     "  tree_id INTEGER NOT NULL REFERENCES trees(id),"
     "  tag TEXT NOT NULL,"
     "  commit_id INTEGER REFERENCES commits(id),"
     "  baseline TEXT,"
     "  baseline_commit INTEGER REFERENCES commits(id),"
     "  state TEXT NOT NULL CHECK (state IN ('scheduled', 'skipped', 'no-baseline')),"
     "  note TEXT,"
     "  created INTEGER NOT NULL DEFAULT (unixepoch()),"
     "  UNIQUE (tree_id, tag));"
     "CREATE TABLE comparisons ("
     "  id INTEGER PRIMARY KEY,"
     "  job_id INTEGER NOT NULL REFERENCES jobs(id),"
     "  what TEXT NOT NULL,"
     "  base_commit INTEGER NOT NULL REFERENCES commits(id),"
     "  new_commit INTEGER NOT NULL REFERENCES commits(id),"
     "  benchmark TEXT NOT NULL,"
     "  machine_id INTEGER NOT NULL REFERENCES machines(id),"
     "  metric TEXT NOT NULL,"
     "  mode TEXT NOT NULL DEFAULT '',"
     "  tasks INTEGER NOT NULL,"
     "  is_primary INTEGER NOT NULL DEFAULT 0,"
     "  base_runs INTEGER NOT NULL,"
     "  base_mean REAL,"
     "  base_stddev REAL,"
     "  new_runs INTEGER NOT NULL,"
     "  new_mean REAL,"
     "  new_stddev REAL,"
     "  change REAL,"
     "  p_value REAL,"
     "  verdict TEXT NOT NULL CHECK (verdict IN ('different', 'same', 'unknown')),"
     "  class TEXT NOT NULL CHECK (class IN ('regression', 'improvement', 'same', 'unclear')),"
     "  created INTEGER NOT NULL DEFAULT (unixepoch()),"
     "  UNIQUE (job_id, what, metric, mode, tasks));"
     "ALTER TABLE regressions ADD COLUMN job_id INTEGER REFERENCES jobs(id);"
     "CREATE UNIQUE INDEX regressions_by_job ON regressions(job_id);"
     "CREATE UNIQUE INDEX bisections_by_regression ON bisections(regression_id)"
     "  WHERE regression_id IS NOT NULL;"
     "ALTER TABLE bisections ADD COLUMN summary TEXT;"
     "CREATE TABLE reverts ("
     "  id INTEGER PRIMARY KEY,"
     "  regression_id INTEGER NOT NULL UNIQUE REFERENCES regressions(id),"
     "  culprit TEXT NOT NULL,"
     "  onto TEXT NOT NULL,"
     "  state TEXT NOT NULL CHECK (state IN ('applied', 'conflict', 'error')),"
     "  commit_sha TEXT,"
     "  ref TEXT,"
     "  conflicts TEXT,"
     "  error TEXT,"
     "  verdict TEXT,"
     "  created INTEGER NOT NULL DEFAULT (unixepoch()));",
     NULL},
    /*
     * 6: runs on any machine backend (store/run.c): what ran without a
     * build row (commit, prebuilt image), who runs it (host and pid, so a
     * run left 'running' by a dead process is recognised), the guest's
     * facts, the timing, and every record the agent sent.
     */
    {"ALTER TABLE runs ADD COLUMN commit_id INTEGER REFERENCES commits(id);"
     "ALTER TABLE runs ADD COLUMN kernel_image TEXT;"
     "ALTER TABLE runs ADD COLUMN system_map TEXT;"
     "ALTER TABLE runs ADD COLUMN label TEXT;"
     "ALTER TABLE runs ADD COLUMN detail TEXT;"
     "ALTER TABLE runs ADD COLUMN owner_host TEXT;"
     "ALTER TABLE runs ADD COLUMN owner_pid INTEGER;"
     "ALTER TABLE runs ADD COLUMN domain TEXT;"
     "ALTER TABLE runs ADD COLUMN accel TEXT;"
     "ALTER TABLE runs ADD COLUMN machine_facts TEXT;"
     "ALTER TABLE runs ADD COLUMN console_path TEXT;"
     "ALTER TABLE runs ADD COLUMN nodes INTEGER;"
     "ALTER TABLE runs ADD COLUMN cpus INTEGER;"
     "ALTER TABLE runs ADD COLUMN kernel_release TEXT;"
     "ALTER TABLE runs ADD COLUMN created_ms INTEGER;"
     "ALTER TABLE runs ADD COLUMN agent_ms INTEGER;"
     "ALTER TABLE runs ADD COLUMN first_sample_ms INTEGER;"
     "ALTER TABLE runs ADD COLUMN ended_ms INTEGER;"
     "CREATE INDEX runs_by_status ON runs(status);"
     "CREATE TABLE run_records ("
     "  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,"
     "  seq INTEGER NOT NULL,"
     "  type TEXT NOT NULL,"
     "  json TEXT NOT NULL,"
     "  PRIMARY KEY (run_id, seq));",
     NULL},
    /*
     * 7: what the results pages read since the service and the run path
     * store it (store/view.c): a kernel's runs by runs.commit_id, a tag's
     * compare jobs and a regression's jobs by what they are about, the jobs
     * in progress (a partial index, as runs_active), tags by name (revisions
     * in URLs), and each bisection step's progress (commits left, best
     * candidate, phase) as the engine reported it.
     */
    {"CREATE INDEX runs_by_commit ON runs(commit_id, benchmark, machine_id);"
     "CREATE INDEX jobs_by_ref ON jobs(kind, ref_id);"
     "CREATE INDEX jobs_live ON jobs(id) WHERE state IN ('queued', 'running', 'waiting');"
     "CREATE INDEX watch_tags_by_tag ON watch_tags(tag);"
     "CREATE INDEX watch_tags_by_baseline ON watch_tags(baseline);"
     "ALTER TABLE bisect_steps ADD COLUMN remaining INTEGER;"
     "ALTER TABLE bisect_steps ADD COLUMN best TEXT;"
     "ALTER TABLE bisect_steps ADD COLUMN phase TEXT;",
     NULL},
    /*
     * 8: bare-metal boxes (store/agent.c): the facts each box reports and
     * its missed deadlines in a row; one agent job per run on a box, with
     * what it downloads, its deadline and its state; the record frames the
     * box uploaded, each (job, seq) once.
     */
    {"CREATE TABLE boxes ("
     "  name TEXT PRIMARY KEY,"
     "  state TEXT NOT NULL DEFAULT 'online' CHECK (state IN ('online', 'offline')),"
     "  facts TEXT,"
     "  last_seen_ms INTEGER,"
     "  misses INTEGER NOT NULL DEFAULT 0,"
     "  reason TEXT);"
     "CREATE TABLE agent_jobs ("
     "  id INTEGER PRIMARY KEY,"
     "  box TEXT NOT NULL,"
     "  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,"
     "  mode TEXT NOT NULL CHECK (mode IN ('kexec', 'current')),"
     "  job TEXT NOT NULL,"
     "  cmdline TEXT NOT NULL,"
     "  kernel_path TEXT,"
     "  kernel_sha256 TEXT,"
     "  kernel_size INTEGER,"
     "  initrd_path TEXT,"
     "  initrd_sha256 TEXT,"
     "  initrd_size INTEGER,"
     "  state TEXT NOT NULL DEFAULT 'queued' CHECK (state IN ('queued', 'fetched', 'booting',"
     "    'running', 'uploaded', 'failed', 'expired', 'cancelled')),"
     "  progress TEXT,"
     "  message TEXT,"
     "  records INTEGER,"
     "  created_ms INTEGER NOT NULL,"
     "  deadline_ms INTEGER NOT NULL,"
     "  fetched_ms INTEGER,"
     "  progress_ms INTEGER,"
     "  finished_ms INTEGER);"
     "CREATE INDEX agent_jobs_by_box ON agent_jobs(box, state);"
     "CREATE INDEX agent_jobs_by_run ON agent_jobs(run_id);"
     "CREATE TABLE agent_records ("
     "  job_id INTEGER NOT NULL REFERENCES agent_jobs(id) ON DELETE CASCADE,"
     "  seq INTEGER NOT NULL,"
     "  frame TEXT NOT NULL,"
     "  received_ms INTEGER NOT NULL,"
     "  PRIMARY KEY (job_id, seq)) WITHOUT ROWID;",
     NULL},
    /*
     * 9: a run job may measure one point of its benchmark (mode and task
     * count, "threads:2"): a bisection and a revert check decide at the
     * regression's point only, and a run of one point costs a quarter of
     * a run of four. NULL: every point.
     */
    {"ALTER TABLE jobs ADD COLUMN point TEXT;", NULL},
    /*
     * 10: what a job is about, with foreign keys: a compare job's watch tag
     * (tag_id), a bisect, revert or report job's regression
     * (regression_id), filled from ref_id by kind (a reference to a row
     * that does not exist becomes NULL); run jobs are about their parent's
     * row through parent_id. Kinds are rows of job_kinds, which the
     * service fills from its table (service/pipeline.c), instead of a CHECK
     * list here. A run job of a comparison stores its round; rows from
     * before have NULL, and the service numbers them once from their seq
     * (the round depends on the configuration's repeat, which the store
     * does not know). The table is rebuilt (SQLite cannot drop a CHECK):
     * migrations run with foreign keys off and are checked before they
     * commit (fl_store_migrate).
     */
    {"CREATE TABLE job_kinds (name TEXT PRIMARY KEY) WITHOUT ROWID;"
     "INSERT INTO job_kinds(name) SELECT DISTINCT kind FROM jobs;"
     "CREATE TABLE jobs_v10 ("
     "  id INTEGER PRIMARY KEY,"
     "  kind TEXT NOT NULL REFERENCES job_kinds(name),"
     "  key TEXT NOT NULL UNIQUE,"
     "  parent_id INTEGER REFERENCES jobs(id),"
     "  state TEXT NOT NULL DEFAULT 'queued' CHECK (state IN"
     "    ('queued', 'running', 'waiting', 'done', 'failed')),"
     "  tree TEXT NOT NULL DEFAULT '',"
     "  machine TEXT NOT NULL DEFAULT '',"
     "  benchmark TEXT NOT NULL DEFAULT '',"
     "  rev TEXT NOT NULL DEFAULT '',"
     "  role TEXT NOT NULL DEFAULT '',"
     "  seq INTEGER NOT NULL DEFAULT 0,"
     "  round INTEGER CHECK (round >= 0),"
     "  tag_id INTEGER REFERENCES watch_tags(id),"
     "  regression_id INTEGER REFERENCES regressions(id),"
     "  result TEXT,"
     "  run_id INTEGER REFERENCES runs(id),"
     "  attempts INTEGER NOT NULL DEFAULT 0,"
     "  error TEXT,"
     "  created INTEGER NOT NULL DEFAULT (unixepoch()),"
     "  started INTEGER,"
     "  finished INTEGER,"
     "  point TEXT);"
     "INSERT INTO jobs_v10(id, kind, key, parent_id, state, tree, machine, benchmark, rev,"
     "  role, seq, tag_id, regression_id, result, run_id, attempts, error, created, started,"
     "  finished, point)"
     "  SELECT id, kind, key, parent_id, state, tree, machine, benchmark, rev, role, seq,"
     "  CASE WHEN kind = 'compare' THEN (SELECT w.id FROM watch_tags w WHERE w.id = ref_id)"
     "  END, CASE WHEN kind IN ('bisect', 'revert', 'report') THEN (SELECT g.id FROM"
     "  regressions g WHERE g.id = ref_id) END, result, run_id, attempts, error, created,"
     "  started, finished, point FROM jobs;"
     "DROP TABLE jobs;"
     "ALTER TABLE jobs_v10 RENAME TO jobs;"
     "CREATE INDEX jobs_by_state ON jobs(state, id);"
     "CREATE INDEX jobs_by_parent ON jobs(parent_id, seq);"
     "CREATE INDEX jobs_by_tag ON jobs(tag_id) WHERE tag_id IS NOT NULL;"
     "CREATE INDEX jobs_by_regression ON jobs(regression_id) WHERE regression_id IS NOT NULL;"
     "CREATE INDEX jobs_live ON jobs(id) WHERE state IN ('queued', 'running', 'waiting');",
     /* PostgreSQL changes the table in place (others point at it) */
     "CREATE TABLE job_kinds (name TEXT PRIMARY KEY);"
     "INSERT INTO job_kinds(name) SELECT DISTINCT kind FROM jobs;"
     "ALTER TABLE jobs DROP CONSTRAINT jobs_kind_check;"
     "ALTER TABLE jobs ADD FOREIGN KEY (kind) REFERENCES job_kinds(name);"
     "ALTER TABLE jobs ADD COLUMN round INTEGER CHECK (round >= 0);"
     "ALTER TABLE jobs ADD COLUMN tag_id INTEGER REFERENCES watch_tags(id);"
     "ALTER TABLE jobs ADD COLUMN regression_id INTEGER REFERENCES regressions(id);"
     "UPDATE jobs SET tag_id = CASE WHEN kind = 'compare' THEN (SELECT w.id FROM watch_tags w"
     "  WHERE w.id = ref_id) END, regression_id = CASE WHEN kind IN ('bisect', 'revert',"
     "  'report') THEN (SELECT g.id FROM regressions g WHERE g.id = ref_id) END;"
     "ALTER TABLE jobs DROP COLUMN ref_id;"
     "CREATE INDEX jobs_by_tag ON jobs(tag_id) WHERE tag_id IS NOT NULL;"
     "CREATE INDEX jobs_by_regression ON jobs(regression_id) WHERE regression_id IS NOT NULL;"},
    /*
     * 11: a point's cgroup context, next to its mode and task count: ''
     * is the root cgroup (every row from before), 'child' a child memory
     * cgroup the agent made for the tasks. Samples, evidence points and
     * comparisons keep one row per point and context, so their UNIQUE
     * constraints take the column and the three tables are rebuilt
     * (SQLite cannot change a constraint), keeping their ids.
     */
    {"CREATE TABLE samples_v11 ("
     "  id INTEGER PRIMARY KEY,"
     "  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,"
     "  metric TEXT NOT NULL,"
     "  mode TEXT NOT NULL DEFAULT '',"
     "  tasks INTEGER NOT NULL CHECK (tasks > 0),"
     "  cgroup TEXT NOT NULL DEFAULT '',"
     "  seq INTEGER NOT NULL,"
     "  value REAL NOT NULL,"
     "  UNIQUE (run_id, metric, mode, tasks, cgroup, seq));"
     "INSERT INTO samples_v11(id, run_id, metric, mode, tasks, seq, value)"
     "  SELECT id, run_id, metric, mode, tasks, seq, value FROM samples;"
     "DROP TABLE samples;"
     "ALTER TABLE samples_v11 RENAME TO samples;"
     "CREATE INDEX samples_by_run ON samples(run_id);"
     "CREATE TABLE evidence_points_v11 ("
     "  id INTEGER PRIMARY KEY,"
     "  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,"
     "  test TEXT NOT NULL,"
     "  mode TEXT NOT NULL,"
     "  tasks INTEGER NOT NULL CHECK (tasks > 0),"
     "  cgroup TEXT NOT NULL DEFAULT '',"
     "  measured_s REAL,"
     "  profile TEXT NOT NULL DEFAULT 'none',"
     "  profile_samples INTEGER,"
     "  UNIQUE (run_id, test, mode, tasks, cgroup));"
     "INSERT INTO evidence_points_v11(id, run_id, test, mode, tasks, measured_s, profile,"
     "  profile_samples) SELECT id, run_id, test, mode, tasks, measured_s, profile,"
     "  profile_samples FROM evidence_points;"
     "DROP TABLE evidence_points;"
     "ALTER TABLE evidence_points_v11 RENAME TO evidence_points;"
     "CREATE TABLE comparisons_v11 ("
     "  id INTEGER PRIMARY KEY,"
     "  job_id INTEGER NOT NULL REFERENCES jobs(id),"
     "  what TEXT NOT NULL,"
     "  base_commit INTEGER NOT NULL REFERENCES commits(id),"
     "  new_commit INTEGER NOT NULL REFERENCES commits(id),"
     "  benchmark TEXT NOT NULL,"
     "  machine_id INTEGER NOT NULL REFERENCES machines(id),"
     "  metric TEXT NOT NULL,"
     "  mode TEXT NOT NULL DEFAULT '',"
     "  tasks INTEGER NOT NULL,"
     "  cgroup TEXT NOT NULL DEFAULT '',"
     "  is_primary INTEGER NOT NULL DEFAULT 0,"
     "  base_runs INTEGER NOT NULL,"
     "  base_mean REAL,"
     "  base_stddev REAL,"
     "  new_runs INTEGER NOT NULL,"
     "  new_mean REAL,"
     "  new_stddev REAL,"
     "  change REAL,"
     "  p_value REAL,"
     "  verdict TEXT NOT NULL CHECK (verdict IN ('different', 'same', 'unknown')),"
     "  class TEXT NOT NULL CHECK (class IN ('regression', 'improvement', 'same', 'unclear')),"
     "  created INTEGER NOT NULL DEFAULT (unixepoch()),"
     "  UNIQUE (job_id, what, metric, mode, tasks, cgroup));"
     "INSERT INTO comparisons_v11(id, job_id, what, base_commit, new_commit, benchmark,"
     "  machine_id, metric, mode, tasks, is_primary, base_runs, base_mean, base_stddev,"
     "  new_runs, new_mean, new_stddev, change, p_value, verdict, class, created)"
     "  SELECT id, job_id, what, base_commit, new_commit, benchmark, machine_id, metric, mode,"
     "  tasks, is_primary, base_runs, base_mean, base_stddev, new_runs, new_mean, new_stddev,"
     "  change, p_value, verdict, class, created FROM comparisons;"
     "DROP TABLE comparisons;"
     "ALTER TABLE comparisons_v11 RENAME TO comparisons;"
     "ALTER TABLE regressions ADD COLUMN cgroup TEXT NOT NULL DEFAULT '';",
     /* PostgreSQL changes the constraints in place */
     "ALTER TABLE samples ADD COLUMN cgroup TEXT NOT NULL DEFAULT '';"
     "ALTER TABLE samples DROP CONSTRAINT samples_run_id_metric_mode_tasks_seq_key;"
     "ALTER TABLE samples ADD UNIQUE (run_id, metric, mode, tasks, cgroup, seq);"
     "ALTER TABLE evidence_points ADD COLUMN cgroup TEXT NOT NULL DEFAULT '';"
     "ALTER TABLE evidence_points DROP CONSTRAINT evidence_points_run_id_test_mode_tasks_key;"
     "ALTER TABLE evidence_points ADD UNIQUE (run_id, test, mode, tasks, cgroup);"
     "ALTER TABLE comparisons ADD COLUMN cgroup TEXT NOT NULL DEFAULT '';"
     "ALTER TABLE comparisons DROP CONSTRAINT comparisons_job_id_what_metric_mode_tasks_key;"
     "ALTER TABLE comparisons ADD UNIQUE (job_id, what, metric, mode, tasks, cgroup);"
     "ALTER TABLE regressions ADD COLUMN cgroup TEXT NOT NULL DEFAULT '';"},
    /*
     * 12: tries (store/try.c): a proposed fix (a patch's text, or a
     * revision) measured against the commit it was made on and, for a
     * regression, its good commit; the candidate commit once made (or
     * where the patch does not apply), the verdict and the reply mailed.
     * Commits are shas here: the candidate belongs to no tree's history.
     * A try's job points at it (jobs.try_id), as a compare job at its tag.
     */
    {"CREATE TABLE tries ("
     "  id INTEGER PRIMARY KEY,"
     "  tree TEXT NOT NULL,"
     "  regression_id INTEGER REFERENCES regressions(id),"
     "  benchmark TEXT NOT NULL,"
     "  machine TEXT NOT NULL,"
     "  base_sha TEXT NOT NULL,"
     "  good_sha TEXT,"
     "  rev_sha TEXT,"
     "  patch_name TEXT,"
     "  patch TEXT,"
     "  points TEXT,"
     "  state TEXT NOT NULL DEFAULT 'queued' CHECK (state IN"
     "    ('queued', 'applied', 'conflict', 'error')),"
     "  commit_sha TEXT,"
     "  ref TEXT,"
     "  subject TEXT,"
     "  conflict TEXT,"
     "  error TEXT,"
     "  verdict TEXT,"
     "  recovered_pct REAL,"
     "  summary TEXT,"
     "  report_id INTEGER REFERENCES reports(id),"
     "  created INTEGER NOT NULL,"
     "  finished INTEGER,"
     "  CHECK (patch IS NOT NULL OR rev_sha IS NOT NULL));"
     "CREATE INDEX tries_by_regression ON tries(regression_id) WHERE regression_id IS NOT NULL;"
     "ALTER TABLE jobs ADD COLUMN try_id INTEGER REFERENCES tries(id);"
     "CREATE INDEX jobs_by_try ON jobs(try_id) WHERE try_id IS NOT NULL;",
     NULL},
    /*
     * 13: bisections over merged branches and their resume key
     * (store/bisect.c): the merge whose merged branch a step searched
     * (NULL on bad's first-parent line), and what a "bisect run" was
     * started with (its command, mode and the options that steer its
     * choices), so a record is resumed only by the same bisection. An
     * unfinished bisection no process runs any more is 'stopped'.
     */
    {("ALTER TABLE bisect_steps ADD COLUMN branch TEXT;"
      "ALTER TABLE bisections ADD COLUMN options TEXT;"),
     NULL},
    /*
     * 14: runs_by_job over the runs that have a job only. Runs of
     * "faultline run" have none; once ANALYZE counted their NULLs as one
     * value of the index (4762 rows a key in bench/web's store), SQLite
     * built an automatic index on runs for every join from a job to its
     * runs instead (the bisection page: 0.6 ms to 79 ms). A partial index
     * still serves "job_id = x", and its statistics are the jobs' own.
     */
    {("DROP INDEX runs_by_job;"
      "CREATE INDEX runs_by_job ON runs(job_id) WHERE job_id IS NOT NULL;"),
     NULL},
    /*
     * 15: heads of watched branches next to tags (store/watch.c): a row of
     * watch_tags is a tag (every row from before) or a head of the branch
     * in ref, named "<branch>@<sha12>"; the newest head of a branch is
     * what its next head is compared with, and the time of its newest
     * tested head keeps one test per branch_interval across restarts.
     */
    {"ALTER TABLE watch_tags ADD COLUMN kind TEXT NOT NULL DEFAULT 'tag'"
     "  CHECK (kind IN ('tag', 'head'));"
     "ALTER TABLE watch_tags ADD COLUMN ref TEXT;"
     "CREATE INDEX watch_tags_heads ON watch_tags(tree_id, ref, id) WHERE kind = 'head';",
     NULL},
    /*
     * 16: a commit's place in its tree's history (store.h's
     * fl_commit_info.depth): how many commits its first-parent line
     * holds, itself included, NULL where the writer did not know. The
     * pages order a tree's commits by it (history, not commit time).
     */
    {("ALTER TABLE commits ADD COLUMN depth INTEGER;"
      "CREATE INDEX commits_by_depth ON commits(tree_id, depth, time);"),
     NULL},
    /*
     * 17: reports that reach people and a regression's life cycle
     * (store/report.c, store/triage.c): a mail's own recipients ("to
     * ADDR" / "cc ADDR" lines; NULL: report.to) and whom a held report
     * would have gone to, one attachment (the kernel .config); a
     * regression's kind (an improvement, reported with report.improvements)
     * and state (open, fixed, invalid, duplicate) with who set
     * it, when, the fixing commit or tag and range, the duplicate's
     * original; a try made by the service to see whether a later tag
     * fixed a regression (purpose fixcheck, the tag); mails read by
     * "faultline mail ingest", once each by Message-ID.
     */
    {"ALTER TABLE reports ADD COLUMN recipients TEXT;"
     "ALTER TABLE reports ADD COLUMN held TEXT;"
     "ALTER TABLE reports ADD COLUMN attach_name TEXT;"
     "ALTER TABLE reports ADD COLUMN attach TEXT;"
     "ALTER TABLE regressions ADD COLUMN state_by TEXT;"
     "ALTER TABLE regressions ADD COLUMN state_at INTEGER;"
     "ALTER TABLE regressions ADD COLUMN fixed_by TEXT;"
     "ALTER TABLE regressions ADD COLUMN fix_range TEXT;"
     "ALTER TABLE regressions ADD COLUMN dup_of INTEGER REFERENCES regressions(id);"
     "ALTER TABLE regressions ADD COLUMN state_note TEXT;"
     "ALTER TABLE regressions ADD COLUMN kind TEXT NOT NULL DEFAULT 'regression' CHECK (kind IN"
     "  ('regression', 'improvement'));"
     "ALTER TABLE tries ADD COLUMN purpose TEXT NOT NULL DEFAULT 'fix' CHECK (purpose IN"
     "  ('fix', 'fixcheck'));"
     "ALTER TABLE tries ADD COLUMN tag TEXT;"
     "CREATE TABLE mail_seen ("
     "  message_id TEXT PRIMARY KEY,"
     "  sender TEXT NOT NULL,"
     "  regression_id INTEGER REFERENCES regressions(id),"
     "  outcome TEXT NOT NULL,"
     "  created INTEGER NOT NULL DEFAULT (unixepoch()));",
     NULL},
    /*
     * 18: lock contention per measured point (store/evidence.c): whether
     * the window was traced (recorded, off, not available: why, failed:
     * why), the expected vmstat counters the kernel lacks, and per
     * contended lock its counts, wait times and top call chains.
     */
    {"ALTER TABLE evidence_points ADD COLUMN locks TEXT;"
     "ALTER TABLE evidence_points ADD COLUMN vmstat_missing TEXT;"
     "CREATE TABLE evidence_locks ("
     "  point_id INTEGER NOT NULL REFERENCES evidence_points(id) ON DELETE CASCADE,"
     "  lock TEXT NOT NULL,"
     "  named_by TEXT NOT NULL,"
     "  contentions INTEGER NOT NULL,"
     "  waits INTEGER NOT NULL,"
     "  wait_ns INTEGER NOT NULL,"
     "  max_wait_ns INTEGER NOT NULL,"
     "  chains TEXT NOT NULL DEFAULT '',"
     "  PRIMARY KEY (point_id, lock));",
     NULL},
    /*
     * 19: many workers on one store (store/jobs.h, service/queue.h): a
     * row per live worker, renewed while it lives; the worker holding a
     * running job, the one driving a machine, the one sending a report.
     */
    {"CREATE TABLE workers ("
     "  name TEXT PRIMARY KEY,"
     "  host TEXT NOT NULL,"
     "  pid INTEGER NOT NULL,"
     "  started INTEGER NOT NULL,"
     "  seen INTEGER NOT NULL);"
     "ALTER TABLE jobs ADD COLUMN worker TEXT;"
     "ALTER TABLE machines ADD COLUMN worker TEXT;"
     "ALTER TABLE reports ADD COLUMN worker TEXT;"
     "CREATE INDEX jobs_by_worker ON jobs(worker) WHERE state = 'running';",
     NULL},
    /*
     * 20: a job's states are the service's words (service/pipeline.h); the
     * store keeps beside the word whether the job has ended, as the service
     * says with each state it sets (store/jobs.h), and its statements and
     * partial indexes read that instead of the words: jobs_live and
     * jobs_by_worker are on the live jobs. The rows of before ended in the
     * words of the time, done and failed.
     */
    {"ALTER TABLE jobs ADD COLUMN ended INTEGER NOT NULL DEFAULT 0 CHECK (ended IN (0, 1));"
     "UPDATE jobs SET ended = 1 WHERE state IN ('done', 'failed');"
     "DROP INDEX jobs_live;"
     "CREATE INDEX jobs_live ON jobs(id) WHERE ended = 0;"
     "DROP INDEX jobs_by_worker;"
     "CREATE INDEX jobs_by_worker ON jobs(worker) WHERE ended = 0;",
     NULL},
};

#define NMIGRATIONS ((int)(sizeof(migrations) / sizeof(migrations[0])))

int fl_store_latest_version(void)
{
	return NMIGRATIONS;
}

const char *fl_store_migration(int i, int pg)
{
	const struct migration *m = &migrations[i];

	return m->pg && pg ? m->pg : m->sql;
}
