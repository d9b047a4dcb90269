/*
 * store/compare.h - what a comparison reads from the store, as rows: the
 * commit a sha or its prefix names (here, store/compare.c), the ok runs of
 * a commit and their samples (store/run.h), their evidence
 * (store/evidence.h). Making compare.h's runs of them is the layer above's
 * (fl_cmp_side_load, service/measure.h).
 */
#ifndef FL_STORE_COMPARE_H
#define FL_STORE_COMPARE_H

#include "store/evidence.h"
#include "store/run.h"
#include "store/store.h"

/* A commit in the store by its full sha or a prefix of at least 4 hex
 * digits: the full sha. FL_ENOTFOUND when none matches, FL_EINVAL when two
 * commits do. */
int fl_store_cmp_commit_sha(fl_store *st, const char *prefix, char sha[41]);

#endif
