/*
 * service/route.h - who a report goes to (a tree's routing, report.routing):
 *
 *   hold         everything to report.to only (the operator), the default
 *                of a new deployment; the people it would have gone to are
 *                kept with the report (reports.held) and said in it
 *   maintainers  To: the culprit's author; Cc: its committer, the people
 *                of its Signed-off-by, Reviewed-by and Acked-by trailers,
 *                the maintainers, reviewers and lists the tree's own
 *                scripts/get_maintainer.pl names for the culprit's change
 *                (run at the culprit on its MAINTAINERS and the change as
 *                a patch, in a scratch directory, with --no-tree and a
 *                timeout; a tree without the script names none), then
 *                report.to, report.cc and the tree's cc
 *
 * Every address is checked (fl_mail_address_check) and made header-safe:
 * a display name is kept quoted when it is printable ASCII and dropped
 * otherwise; one address appears once (compared without case). Lines of
 * the result are "to ADDR" and "cc ADDR" (reports.recipients).
 */
#ifndef FL_ROUTE_H
#define FL_ROUTE_H

#include "build/repo.h"

struct fl_config;
struct fl_tree_conf;

/* get_maintainer.pl's run: its limit. */
#define FL_ROUTE_GET_MAINTAINER_TIMEOUT_MS 60000

/*
 * The recipients of a report on tree t whose culprit is culprit (NULL for
 * none: a range): *recipients, and *held (NULL unless held) the people a
 * held report would have reached. Caller frees both.
 */
int fl_route_report(const struct fl_config *cfg, const struct fl_tree_conf *t, fl_repo *repo,
		    const char *culprit, char **recipients, char **held);

/* One address made header-safe ("Name" <a@b> or a@b); NULL when it is not one
 * (why in fl_error_last()). Caller frees. */
char *fl_route_address(const char *text);
/* The bare address of "Name <a@b>" or "a@b", lower case (caller frees). */
char *fl_route_bare(const char *addr);

/* What get_maintainer.pl names for the commit, one address a line (caller
 * frees; "" when the tree has no script or no MAINTAINERS). */
int fl_route_get_maintainer(const struct fl_config *cfg, fl_repo *repo, const char *sha,
			    char **lines);

#endif
