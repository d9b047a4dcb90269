/*
 * record.h - the result-record line format shared by fl-agent (writer) and
 * the orchestrator (parser).
 *
 * A record is one line on a serial console:
 *
 *	FLR1 <seq> <length> <crc32> <payload>\n
 *
 * seq is decimal, counting from 0 per agent run; length is the decimal byte
 * count of payload; crc32 is 8 lower-case hex digits, the IEEE CRC-32 (the
 * one zlib computes) of payload. payload is compact JSON, never containing CR
 * or LF. A payload longer than FL_RECORD_CHUNK is split over several frames
 * with consecutive seq: the first piece starts with '+', middle ones with
 * '=', the last with '-', and the JSON is the concatenation of the pieces without their
 * first byte. A plain record's payload starts with '{'.
 *
 * The console is hostile: printk lines land between and inside records,
 * lines come back twice, CR/LF pairs multiply. The parser therefore accepts
 * only frames whose length and checksum match, finds "FLR1 " anywhere in a
 * line (a printk prefix may precede it), drops repeated seq, and counts what
 * it could not use so the host can tell a clean run from a lossy one.
 *
 * Self-contained on purpose: fl-agent is linked statically into an initramfs
 * and must not pull orchestrator code.
 */
#ifndef FL_RECORD_H
#define FL_RECORD_H

#include <stddef.h>
#include <stdint.h>

#define FL_RECORD_MAGIC "FLR1 "
/* Payload bytes per frame: short enough that a 115200-baud line is out in
 * well under a second, so printk has little time to cut into it. */
#define FL_RECORD_CHUNK 1024
/* A line longer than this cannot be a frame: header, chunk and a printk
 * prefix with room to spare. */
#define FL_RECORD_LINE_MAX (FL_RECORD_CHUNK + 256)

uint32_t fl_crc32(uint32_t crc, const void *buf, size_t len);

/* Writer. out() gets one complete frame (ending in '\n') per call, so a
 * single write() puts a frame on the console; it returns 0 or negative. */
typedef int (*fl_record_out_fn)(void *arg, const char *frame, size_t len);

struct fl_record_writer {
	uint64_t seq;
	fl_record_out_fn out;
	void *arg;
};

void fl_record_writer_init(struct fl_record_writer *w, fl_record_out_fn out, void *arg);
/* Frames json (len bytes, no CR/LF) as one or more records; 0 or the first
 * negative value out() returned, or -1 if json holds a CR or LF. */
int fl_record_write(struct fl_record_writer *w, const char *json, size_t len);

/* Parser. */
typedef int (*fl_record_fn)(void *arg, uint64_t seq, const char *json, size_t len);

struct fl_record_stats {
	uint64_t records;    /* complete payloads delivered */
	uint64_t frames;     /* valid frames, pieces included */
	uint64_t garbled;    /* lines with a frame marker that did not check out,
			      * plus split payloads that lost a piece */
	uint64_t duplicates; /* valid frames whose seq was already seen */
	uint64_t missing;    /* seq numbers below the highest seen never seen */
	uint64_t noise;      /* lines with no frame marker (printk, boot log) */
};

struct fl_record_parser {
	fl_record_fn cb;
	void *arg;
	char line[FL_RECORD_LINE_MAX + 1];
	size_t line_len;
	int line_overflow;
	/* Reassembly of a split payload. */
	char *asm_buf;
	size_t asm_len, asm_cap;
	uint64_t asm_first, asm_next;
	int assembling;
	int orphaned;	/* skipping the rest of a payload already counted lost */
	/* Which seq numbers were seen: a bitmap grown on demand. */
	uint8_t *seen;
	size_t seen_bytes;
	uint64_t max_seq;
	int any_seq;
	struct fl_record_stats stats;
};

void fl_record_parser_init(struct fl_record_parser *p, fl_record_fn cb, void *arg);
/* Feeds raw console bytes; records are delivered through cb as their last
 * frame arrives. Returns 0, -1 on allocation failure, or the first non-zero
 * value cb returned. */
int fl_record_feed(struct fl_record_parser *p, const char *data, size_t len);
/* Ends the stream: a pending partial line is parsed, an unfinished split
 * payload counts as garbled, stats.missing is computed. */
int fl_record_finish(struct fl_record_parser *p);
void fl_record_parser_free(struct fl_record_parser *p);

/* Parses one frame line (without its newline). 0 and the fields on success,
 * -1 if it is not a well-formed frame. The payload points into line. */
int fl_record_parse_frame(const char *line, size_t len, uint64_t *seq,
			  const char **payload, size_t *plen);

#endif
