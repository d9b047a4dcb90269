/*
 * record.c - framing and parsing of FLR1 result records (see record.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "proto/record.h"

static uint32_t crc_table[256];
static int crc_ready;

/* Table built on first use: no constructor, so a static binary stays simple. */
static void crc_init(void)
{
	for (uint32_t i = 0; i < 256; i++) {
		uint32_t c = i;

		for (int k = 0; k < 8; k++)
			c = (c & 1) ? 0xedb88320u ^ (c >> 1) : c >> 1;
		crc_table[i] = c;
	}
	crc_ready = 1;
}

uint32_t fl_crc32(uint32_t crc, const void *buf, size_t len)
{
	const uint8_t *b = buf;

	if (!crc_ready)
		crc_init();
	crc = ~crc;
	while (len--)
		crc = crc_table[(crc ^ *b++) & 0xff] ^ (crc >> 8);
	return ~crc;
}

void fl_record_writer_init(struct fl_record_writer *w, fl_record_out_fn out, void *arg)
{
	w->seq = 0;
	w->out = out;
	w->arg = arg;
}

static int write_frame(struct fl_record_writer *w, char flag, const char *p, size_t n)
{
	char frame[FL_RECORD_LINE_MAX + 2];
	char piece[FL_RECORD_CHUNK + 1];
	const char *payload = p;
	size_t plen = n;
	int hl;

	if (flag) {
		piece[0] = flag;
		memcpy(piece + 1, p, n);
		payload = piece;
		plen = n + 1;
	}
	hl = snprintf(frame, sizeof(frame), FL_RECORD_MAGIC "%llu %zu %08x ",
		      (unsigned long long)w->seq, plen, fl_crc32(0, payload, plen));
	memcpy(frame + hl, payload, plen);
	frame[hl + plen] = '\n';
	w->seq++;
	return w->out(w->arg, frame, hl + plen + 1);
}

int fl_record_write(struct fl_record_writer *w, const char *json, size_t len)
{
	size_t piece = FL_RECORD_CHUNK - 1;
	int err;

	if (memchr(json, '\n', len) || memchr(json, '\r', len))
		return -1;
	if (len <= FL_RECORD_CHUNK)
		return write_frame(w, 0, json, len);
	for (char flag = '+'; len > piece; flag = '=') {
		err = write_frame(w, flag, json, piece);
		if (err)
			return err;
		json += piece;
		len -= piece;
	}
	return write_frame(w, '-', json, len);
}

void fl_record_parser_init(struct fl_record_parser *p, fl_record_fn cb, void *arg)
{
	memset(p, 0, sizeof(*p));
	p->cb = cb;
	p->arg = arg;
}

void fl_record_parser_free(struct fl_record_parser *p)
{
	free(p->asm_buf);
	free(p->seen);
	p->asm_buf = NULL;
	p->seen = NULL;
}

/* Strict decimal: digits only, no sign, no leading zeros but "0" itself, so
 * a garbled digit cannot turn into a different valid number silently. */
static int parse_dec(const char **s, const char *end, uint64_t *v)
{
	const char *q = *s;
	uint64_t x = 0;

	if (q >= end || *q < '0' || *q > '9')
		return -1;
	if (*q == '0' && q + 1 < end && q[1] >= '0' && q[1] <= '9')
		return -1;
	while (q < end && *q >= '0' && *q <= '9') {
		if (x > (UINT64_MAX - 9) / 10)
			return -1;
		x = x * 10 + (uint64_t)(*q - '0');
		q++;
	}
	*v = x;
	*s = q;
	return 0;
}

static int parse_hex8(const char **s, const char *end, uint32_t *v)
{
	const char *q = *s;
	uint32_t x = 0;

	if (end - q < 8)
		return -1;
	for (int i = 0; i < 8; i++, q++) {
		int d;

		if (*q >= '0' && *q <= '9')
			d = *q - '0';
		else if (*q >= 'a' && *q <= 'f')
			d = *q - 'a' + 10;
		else
			return -1;
		x = x << 4 | (uint32_t)d;
	}
	*v = x;
	*s = q;
	return 0;
}

int fl_record_parse_frame(const char *line, size_t len, uint64_t *seq,
			  const char **payload, size_t *plen)
{
	const char *s = line, *end = line + len;
	uint64_t n;
	uint32_t crc;
	size_t ml = sizeof(FL_RECORD_MAGIC) - 1;

	if (len < ml || memcmp(s, FL_RECORD_MAGIC, ml))
		return -1;
	s += ml;
	if (parse_dec(&s, end, seq) || s >= end || *s++ != ' ')
		return -1;
	if (parse_dec(&s, end, &n) || s >= end || *s++ != ' ')
		return -1;
	if (parse_hex8(&s, end, &crc) || s >= end || *s++ != ' ')
		return -1;
	/* Exact length: trailing bytes mean something was spliced in. */
	if ((uint64_t)(end - s) != n || n == 0)
		return -1;
	if (fl_crc32(0, s, n) != crc)
		return -1;
	*payload = s;
	*plen = n;
	return 0;
}

/* Marks seq seen; 1 if it already was, -1 on allocation failure. */
static int mark_seen(struct fl_record_parser *p, uint64_t seq)
{
	size_t byte = seq / 8;
	uint8_t bit = (uint8_t)(1u << (seq % 8));

	/* A seq far beyond anything sane is garbage that happened to check
	 * out; refuse it rather than allocate for it. */
	if (seq > (1ull << 32))
		return -1;
	if (byte >= p->seen_bytes) {
		size_t nb = p->seen_bytes ? p->seen_bytes : 64;
		uint8_t *ns;

		while (nb <= byte)
			nb *= 2;
		ns = realloc(p->seen, nb);
		if (!ns)
			return -1;
		memset(ns + p->seen_bytes, 0, nb - p->seen_bytes);
		p->seen = ns;
		p->seen_bytes = nb;
	}
	if (p->seen[byte] & bit)
		return 1;
	p->seen[byte] |= bit;
	if (!p->any_seq || seq > p->max_seq)
		p->max_seq = seq;
	p->any_seq = 1;
	return 0;
}

static void drop_assembly(struct fl_record_parser *p)
{
	if (p->assembling) {
		p->stats.garbled++;
		p->orphaned = 1;
	}
	p->assembling = 0;
	p->asm_len = 0;
}

static int asm_append(struct fl_record_parser *p, const char *s, size_t n)
{
	if (p->asm_len + n > p->asm_cap) {
		size_t nc = p->asm_cap ? p->asm_cap : 4096;
		char *nb;

		while (nc < p->asm_len + n)
			nc *= 2;
		nb = realloc(p->asm_buf, nc);
		if (!nb)
			return -1;
		p->asm_buf = nb;
		p->asm_cap = nc;
	}
	memcpy(p->asm_buf + p->asm_len, s, n);
	p->asm_len += n;
	return 0;
}

static int deliver(struct fl_record_parser *p, uint64_t seq, const char *s, size_t n)
{
	p->stats.records++;
	return p->cb ? p->cb(p->arg, seq, s, n) : 0;
}

/*
 * A piece continues the assembly only if it is the very next seq; a payload
 * only starts at a '+' piece. Pieces of a payload already counted as lost
 * are skipped without counting it again.
 */
static int handle_piece(struct fl_record_parser *p, uint64_t seq, const char *s, size_t n)
{
	char flag = s[0];
	int err;

	if (p->assembling && (seq != p->asm_next || flag == '+'))
		drop_assembly(p);
	if (!p->assembling) {
		if (flag != '+') {	/* the rest of a payload whose head was lost */
			if (!p->orphaned)
				p->stats.garbled++;
			p->orphaned = flag == '=';
			return 0;
		}
		p->orphaned = 0;
		p->assembling = 1;
		p->asm_first = seq;
		p->asm_len = 0;
	}
	if (asm_append(p, s + 1, n - 1))
		return -1;
	p->asm_next = seq + 1;
	if (flag != '-')
		return 0;
	p->assembling = 0;
	err = deliver(p, p->asm_first, p->asm_buf, p->asm_len);
	p->asm_len = 0;
	return err;
}

static int handle_line(struct fl_record_parser *p, const char *line, size_t len)
{
	const char *m, *payload;
	uint64_t seq;
	size_t plen;
	int r;

	if (len == 0)
		return 0;
	m = memmem(line, len, FL_RECORD_MAGIC, sizeof(FL_RECORD_MAGIC) - 1);
	if (!m) {
		p->stats.noise++;
		return 0;
	}
	len -= (size_t)(m - line);
	if (fl_record_parse_frame(m, len, &seq, &payload, &plen)) {
		p->stats.garbled++;
		return 0;
	}
	r = mark_seen(p, seq);
	if (r < 0) {
		p->stats.garbled++;
		return 0;
	}
	if (r > 0) {
		p->stats.duplicates++;
		return 0;
	}
	p->stats.frames++;
	if (payload[0] == '+' || payload[0] == '=' || payload[0] == '-')
		return handle_piece(p, seq, payload, plen);
	/* A plain record between pieces means the split one lost its end. */
	drop_assembly(p);
	p->orphaned = 0;
	return deliver(p, seq, payload, plen);
}

static int end_line(struct fl_record_parser *p)
{
	int err = 0;

	if (p->line_overflow) {
		/* Too long for a frame: garbled if it carried a marker. */
		if (memmem(p->line, p->line_len, FL_RECORD_MAGIC, sizeof(FL_RECORD_MAGIC) - 1))
			p->stats.garbled++;
		else
			p->stats.noise++;
	} else {
		err = handle_line(p, p->line, p->line_len);
	}
	p->line_len = 0;
	p->line_overflow = 0;
	return err;
}

int fl_record_feed(struct fl_record_parser *p, const char *data, size_t len)
{
	for (size_t i = 0; i < len; i++) {
		char c = data[i];
		int err;

		/* CR and LF both end a line: "\r\r\n" is then two empty lines. */
		if (c == '\n' || c == '\r') {
			err = end_line(p);
			if (err)
				return err;
			continue;
		}
		if (p->line_len < FL_RECORD_LINE_MAX)
			p->line[p->line_len++] = c;
		else
			p->line_overflow = 1;
	}
	return 0;
}

int fl_record_finish(struct fl_record_parser *p)
{
	int err = 0;
	uint64_t seen = 0;

	if (p->line_len || p->line_overflow)
		err = end_line(p);
	drop_assembly(p);
	p->orphaned = 0;
	if (p->any_seq) {
		for (size_t i = 0; i < p->seen_bytes; i++)
			seen += (uint64_t)__builtin_popcount(p->seen[i]);
		p->stats.missing = p->max_seq + 1 - seen;
	}
	return err;
}
