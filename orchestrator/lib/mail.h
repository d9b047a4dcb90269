/*
 * mail.h - plain-text mail through libcurl's SMTP client.
 *
 * Header values built from commit data (subjects, author names) are
 * untrusted: fl_mail_format() passes every header through
 * fl_mail_header_value(), so no CR/LF or control character can start a new
 * header. Non-ASCII header text is RFC 2047 encoded; the body goes as UTF-8.
 * Body and attachment text are sanitised too (fl_mail_text): control
 * characters other than tab and line ends are dropped (no terminal escape
 * from a commit message reaches a reader's terminal), bytes that are not
 * UTF-8 become '?'.
 */
#ifndef FL_MAIL_H
#define FL_MAIL_H

#include <stddef.h>
#include <stdint.h>

struct fl_mail {
	const char *from;
	const char *const *to;
	size_t nto;
	const char *subject;
	const char *body;	 /* LF, CRLF or CR line ends; sent as CRLF */
	const char *message_id;	 /* "<id@host>"; see fl_mail_message_id() */
	const char *in_reply_to; /* NULL, or the Message-ID of the mail it answers */
	const char *references;	 /* the thread down to it; NULL: in_reply_to */
	int64_t date;		 /* seconds since the epoch; 0 for now */
	const char *const *cc;	 /* carbon copies (envelope recipients too) */
	size_t ncc;
	/* One text/plain attachment (the kernel .config): the message is then
	 * multipart/mixed, the body its first part. NULL: none. */
	const char *attach_name, *attach;
};

struct fl_smtp {
	const char *url; /* smtp://host:port (STARTTLS when offered) or smtps://host:port */
	const char *username;
	const char *password;
	long timeout_s;
};

/* The whole message, headers and body, with CRLF line ends (caller frees). */
char *fl_mail_format(const struct fl_mail *m);
/*
 * Sends m; FL_EINVAL for an address fl_mail_address_check() refuses, FL_EIO
 * with curl's reason and the server's last reply on failure.
 */
int fl_mail_send(const struct fl_smtp *s, const struct fl_mail *m);

/*
 * An address as the envelope and the headers take it: "user@host" or
 * "Name <user@host>". 0, or FL_EINVAL with why in why (n bytes) and for
 * fl_error_last(): a control character (a CR or LF would start another
 * SMTP command), a second '<' or '>', space or punctuation in the address
 * itself, not one '@'.
 */
int fl_mail_address_check(const char *addr, char *why, size_t n);
/* Text for a body or an attachment: tab and line ends kept, other control
 * characters dropped, bytes that are not UTF-8 as '?' (caller frees). */
char *fl_mail_text(const char *untrusted);
/* One line of header text: CR, LF and control characters become spaces. */
char *fl_mail_header_value(const char *untrusted);
/* A Message-ID unique to (kind, id): "<faultline.KIND.ID.RANDOM@DOMAIN>";
 * a second one in the same process gets ".N" after RANDOM. */
char *fl_mail_message_id(const char *kind, long long id, const char *domain);

#endif
