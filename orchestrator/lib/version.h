/*
 * version.h - release names (tags) in version order: v6.1-rc1 < v6.1-rc2 <
 * v6.1 < v6.2-rc1 < v6.10. A comparison of strings, nothing more: the
 * repository lists tags with it (build/repo.c), the pages order a tree's
 * tags with it (web/model.c).
 */
#ifndef FL_VERSION_H
#define FL_VERSION_H

/* <0, 0, >0 as a sorts before, with, after b. Digit runs compare as numbers,
 * everything else bytewise; where one name ends and the other goes on with
 * '-' (v6.1 against v6.1-rc1), the one that goes on is a pre-release and
 * sorts first. */
int fl_version_cmp(const char *a, const char *b);

#endif
