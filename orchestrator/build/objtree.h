/*
 * objtree.h - a slot's object trees (make O=) for one kernel config: which
 * one a build uses, and the source mtimes that make kbuild rebuild exactly
 * what differs from the commit that tree was last built at.
 *
 * A slot has one source tree (checkout.h) and up to build.object_trees
 * object trees per config, var/slots/<n>/obj-<config hash>-<k>. Each
 * remembers the commit it was last built at and when (.faultline-source).
 * A build goes to the tree where make would rebuild the fewest objects,
 * counted from kbuild's own dependency lists (the .*.o.cmd files) against
 * the paths that differ between the two commits. When even that is more
 * than half of the tree's objects and a tree is free, a new tree is started and the old
 * one kept for a return: a revert, a bisection step back to a commit near
 * it. A return to a kept tree rebuilds what differs, not every object that
 * includes a header the slot's source tree has rewritten since.
 *
 * Make decides by mtime and the slot's one source tree has moved since a
 * tree was built, so before make (fl_objtree_prepare) the files that differ
 * from the tree's commit are made newer than its objects, and the files
 * written since it was built whose text is its commit's again get an old
 * mtime. Correctness rests on the first step alone; the second only saves
 * rebuilds. A tree whose last make did not end (a crash, a kill, a
 * timeout) has no stamp and is emptied before it is used again.
 */
#ifndef FL_OBJTREE_H
#define FL_OBJTREE_H

#include "build/repo.h"

typedef struct fl_objtree fl_objtree;

/*
 * Picks the object tree of slot_dir for building commit sha (full hex) of
 * repo with the config config_hash, among ntrees; src is the slot's source
 * directory as kbuild names it (absolute). head is the commit the source
 * directory holds before the build's checkout ("" when unknown). Logs the
 * choice as "build: slot <slot>: ...". 0, or FL_EIO.
 */
int fl_objtree_pick(fl_objtree **out, fl_repo *repo, const char *slot_dir, const char *src,
		    const char *config_hash, unsigned ntrees, const char *head, const char *sha,
		    unsigned slot);

/* The tree's directory (make's O=). */
const char *fl_objtree_dir(const fl_objtree *t);

/*
 * Once the source directory holds sha: empties a tree that cannot serve as
 * it is, else sets the source mtimes for it (above). 0, or FL_EIO.
 */
int fl_objtree_prepare(fl_objtree *t);

/*
 * Around make bzImage: begin removes the tree's stamp (a make that does
 * not end leaves none), done writes it once make exited by itself,
 * whatever its status: the tree is then at sha.
 */
int fl_objtree_begin(fl_objtree *t);
int fl_objtree_done(fl_objtree *t);

void fl_objtree_free(fl_objtree *t);

#endif
