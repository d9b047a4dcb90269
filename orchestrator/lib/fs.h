/* fs.h - the file-system helpers several stages need (state directories, scratch trees). */
#ifndef FL_FS_H
#define FL_FS_H

/* mkdir -p: 0, or FL_EIO naming the directory that could not be made. */
int fl_mkdir_p(const char *path);
/* mkdir -p of the directory a file will be created in. */
int fl_mkdir_parent(const char *file);
/* rm -rf: 0 when path is gone (or never was), FL_EIO naming what stayed. */
int fl_remove_tree(const char *path);
/* s made safe as one file name: lower-case letters and digits kept, the
 * rest '_' ("qemu:///system" -> "qemu____system"). Caller frees. */
char *fl_path_component(const char *s);

#endif
