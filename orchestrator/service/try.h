/*
 * service/try.h - a proposed fix tested the way the seed thread's reporter
 * did by hand: the patch applied on the commit it was made for (or a
 * revision taken as it is), both built and measured interleaved on one
 * machine, and a verdict in the service's statistics.
 *
 * fl_try_apply() applies a patch with libgit2 onto a commit, in memory (no
 * work tree, index, HEAD or branch of the user's is touched), and keeps the
 * result alive under a private ref (refs/faultline/try/<id>). The patch is
 * a series as `git format-patch` writes it (one commit per message, its
 * subject and message kept) or a plain diff (one commit named after the
 * file). A patch that does not apply names the message, the file and the
 * hunk: "0001-x.patch: mm/memcontrol.c: hunk 2 (@@ -7032,6 +7032,8 @@)
 * does not apply". The commits are reproducible: author and dates are
 * taken from the commit the series is applied on.
 *
 * The try step (fl_try_step, service.h) measures the candidate against the
 * base and, for a regression, its good commit, in rounds at the chosen
 * points, and concludes (pipeline.h's fl_try_verdict): with a regression,
 * at the regression's point, restores (clearly better than the base and not
 * worse than the good commit by min_change), partial (better, still worse
 * than the good commit: the share of the drop recovered is kept), no-effect,
 * worse, unclear; without one, better, worse or no-effect at the primary
 * metric's points. A fix that does not build is untestable with the run's
 * first error line, a patch that does not apply a conflict: neither is "no
 * effect". With a regression the answer is mailed as a reply in the thread
 * of its report.
 */
#ifndef FL_TRY_H
#define FL_TRY_H

#include "build/repo.h"

/*
 * Applies patch onto the commit onto and points ref at the result: 0 with
 * its sha and *subject (the last commit's, caller frees), 1 when a hunk
 * does not apply (*where says which, caller frees), or a negative FL_E*
 * code (a patch that cannot be read: no diff in it). name is the patch's
 * file name, for messages and a plain diff's subject.
 */
int fl_try_apply(fl_repo *repo, const char *onto, const char *patch, const char *name,
		 const char *ref, char sha[41], char **subject, char **where);

#endif
