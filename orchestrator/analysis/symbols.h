/*
 * symbols.h - kernel text symbols from a build's System.map, and a kernel
 * profile (/proc/profile buckets) turned into samples per function.
 *
 * Owns nothing on disk: it reads a System.map and answers lookups. Only text
 * symbols count (types T, t, W, w) between _stext and _etext; several names
 * at one address (_stext, _text, startup_64) resolve to the one that is not
 * a linker marker. Profile bucket b covers [_stext + b * step, + step); the
 * function holding a bucket is the last text symbol at or below its start.
 * With profile=2 a bucket is 4 bytes, so a bucket straddles two functions
 * only where a function starts off a 4-byte boundary, and then its first
 * 1-3 bytes count for the previous one.
 */
#ifndef FL_SYMBOLS_H
#define FL_SYMBOLS_H

#include <stddef.h>
#include <stdint.h>

/* Names for samples no function of the map holds. The kernel clamps every
 * hit outside [_stext, _etext) - module code, mostly, on x86-64 - into the
 * profile's last bucket: that bucket is [module]. */
#define FL_SYM_MODULE  "[module]"
#define FL_SYM_UNKNOWN "[unknown]"
/* Hits of buckets the agent left out (too rare to send), see run.c. */
#define FL_SYM_DROPPED "[dropped]"

typedef struct fl_symbols fl_symbols;

/* Reads a System.map. A line that is not "<hex address> <type> <name>"
 * fails with FL_EINVAL naming path:line; so does a map without _stext or
 * _etext (Debian ships a one-line placeholder System.map). */
int fl_symbols_load(fl_symbols **out, const char *path);
/* The same from text in memory; name is what errors call it. */
int fl_symbols_parse(fl_symbols **out, const char *text, size_t len, const char *name);
/* A map from the running kernel's own names (fl-agent's "ksyms" record,
 * read from /proc/kallsyms): offsets from _stext and the text size. Its
 * _stext is 0. FL_EINVAL for an offset past the text. */
struct fl_symbol {
	uint64_t offset;
	const char *name;
};
int fl_symbols_from_offsets(fl_symbols **out, uint64_t text, const struct fl_symbol *v, size_t n);
void fl_symbols_free(fl_symbols *s);

uint64_t fl_symbols_stext(const fl_symbols *s);
uint64_t fl_symbols_etext(const fl_symbols *s);
/* Distinct text addresses kept. */
size_t fl_symbols_count(const fl_symbols *s);

/* The function holding addr, with addr's offset into it; FL_SYM_UNKNOWN
 * below _stext, FL_SYM_MODULE at or above _etext. The name lives as long
 * as s. */
const char *fl_symbols_lookup(const fl_symbols *s, uint64_t addr, uint64_t *offset);

/* One non-zero bucket of a profile, as the agent sends it. */
struct fl_profile_bucket {
	uint64_t bucket;
	uint64_t count;
};

struct fl_profile_desc {
	unsigned step;	   /* bytes per bucket: 1 << profile= */
	uint64_t nbuckets; /* buckets the kernel keeps; 0 if not known */
	uint64_t total;	   /* all hits, dropped ones included; 0: sum of buckets */
	uint64_t dropped;  /* hits in buckets left out */
	const struct fl_profile_bucket *b;
	size_t n;
};

/* Samples of one function; name is a fresh string. */
struct fl_profile_fn {
	char *name;
	uint64_t samples;
	double share; /* samples / total hits, 0..1 */
};

/*
 * Adds a profile up per function, most samples first (ties by name).
 * FL_EINVAL when the profile cannot be this map's kernel: a step that is
 * not a power of two, a bucket past nbuckets, or nbuckets * step that does
 * not match the map's _etext - _stext (a System.map of another build).
 */
int fl_profile_by_function(const fl_symbols *s, const struct fl_profile_desc *p,
			   struct fl_profile_fn **out, size_t *n);
void fl_profile_fns_free(struct fl_profile_fn *f, size_t n);

#endif
