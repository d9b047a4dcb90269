/*
 * store/compare.c - a commit by its sha or a prefix, for a comparison (see
 * store/compare.h).
 */
#include "store/compare.h"
#include "lib/error.h"
#include "store/priv.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int fl_store_cmp_commit_sha(fl_store *st, const char *prefix, char sha[41])
{
	size_t len = strlen(prefix), found = 0;
	char hex[41], first[41] = "";
	fl_stmt *stmt;
	int rc;

	if (len < 4 || len > 40)
		return fl_error_set(FL_ENOTFOUND, "'%s' is not a commit sha (4 to 40 hex digits)",
				    prefix);
	for (size_t i = 0; i <= len; i++) {
		if (i < len && !isxdigit((unsigned char)prefix[i]))
			return fl_error_set(FL_ENOTFOUND, "'%s' is not a commit sha", prefix);
		hex[i] = (char)tolower((unsigned char)prefix[i]);
	}
	if (fl_store_prepare(st, &stmt,
			     "SELECT DISTINCT sha FROM commits WHERE sha >= ?1 AND sha < ?1 || 'g' "
			     "ORDER BY sha LIMIT 2"))
		return FL_ESTORE;
	fl_stmt_bind_text(stmt, 1, hex);
	while ((rc = fl_stmt_step(stmt)) == FL_SQL_ROW) {
		const char *s = fl_stmt_column_text(stmt, 0);

		if (!found++)
			snprintf(first, sizeof(first), "%s", s ? s : "");
		else
			snprintf(sha, 41, "%s", s ? s : "");
	}
	fl_stmt_finalize(stmt);
	if (rc != FL_SQL_DONE)
		return fl_store_sqlerr(st, "commit by sha");
	if (!found)
		return fl_error_set(FL_ENOTFOUND, "no stored commit matches '%s'", prefix);
	if (found > 1)
		return fl_error_set(FL_EINVAL, "'%s' is ambiguous: %.12s and %.12s both match",
				    prefix, first, sha);
	memcpy(sha, first, 41);
	return 0;
}
