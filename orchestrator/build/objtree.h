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
 * than half of the tree's objects and a tree is free, the new commit is
 * built in a copy of that tree and the old one kept for a return: a
 * revert, a bisection step back to a commit near it. A return to a kept
 * tree rebuilds what differs, not every object that includes a header the
 * slot's source tree has rewritten since.
 *
 * Each tree is kept at obj-<config hash>-<k> and built at obj-<config
 * hash>, renamed there for the build and back after it: kbuild's host tools
 * record absolute paths, and a tree built at another path than its last
 * would be built again whole.
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

/* Where the tree is built (make's O=): one path for all the slot's trees of the config. */
const char *fl_objtree_dir(const fl_objtree *t);

/*
 * Once the source directory holds sha: empties a tree that cannot serve as
 * it is (or makes it a copy of its nearest), then sets the source mtimes
 * for it (above). 0, or FL_EIO.
 */
int fl_objtree_prepare(fl_objtree *t);

/*
 * 1 when t starts empty and no other object tree of its config is on this
 * host (in any slot): the host's first build of the config, whose every
 * compile a compiler cache would miss.
 */
int fl_objtree_host_first(const fl_objtree *t);

/*
 * Around make bzImage: begin removes the tree's stamp (a make that does
 * not end leaves none), done writes it once make exited by itself,
 * whatever its status: the tree is then at sha.
 */
int fl_objtree_begin(fl_objtree *t);
int fl_objtree_done(fl_objtree *t);

/*
 * Once the build is over, whatever its outcome, and before the slot's lock
 * is released: puts the tree back where it is kept. Not the build's error
 * when it cannot (logged): the next build empties a tree left at work.
 */
void fl_objtree_put(fl_objtree *t);

void fl_objtree_free(fl_objtree *t);

#endif
