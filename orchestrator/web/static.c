/*
 * web/static.c - files under web/static/ (the stylesheet, the icon), and
 * nothing else: a name is one path component of [A-Za-z0-9._-] that does
 * not start with a dot, so "..", "/", absolute paths and anything still
 * percent-encoded after libmicrohttpd decoded the URL once (%252e) are
 * refused before the file system is asked; a symbolic link is refused
 * (O_NOFOLLOW), so nothing outside web/static/ is ever opened.
 */
#include "web/ui.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const struct {
	const char *ext, *type;
} types[] = {
    {".css", "text/css; charset=utf-8"},
    {".svg", "image/svg+xml"},
    {".png", "image/png"},
    {".ico", "image/x-icon"},
    {".txt", "text/plain; charset=utf-8"},
    {".html", "text/html; charset=utf-8"},
    {NULL, NULL},
};

static const char *content_type(const char *name)
{
	const char *dot = strrchr(name, '.');

	for (size_t i = 0; dot && types[i].ext; i++)
		if (!strcmp(dot, types[i].ext))
			return types[i].type;
	return "application/octet-stream";
}

static int good_name(const char *s)
{
	size_t n = strlen(s);

	if (!n || n > 100 || s[0] == '.')
		return 0;
	for (size_t i = 0; i < n; i++)
		if (!isalnum((unsigned char)s[i]) && !strchr("._-", s[i]))
			return 0;
	return 1;
}

void fl_ui_static(struct fl_web_req *req, struct fl_web_resp *resp)
{
	char path[4096];
	struct stat sb;
	int fd;

	if (!good_name(req->rest)) {
		fl_web_fail(req, resp, 400, "bad file name '%.100s'", req->rest);
		return;
	}
	snprintf(path, sizeof(path), "%s/%s", req->web->static_dir, req->rest);
	fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		if (errno == ELOOP)
			fl_web_fail(req, resp, 403, "%s is a symbolic link: refused", req->rest);
		else
			fl_web_fail(req, resp, 404, "no file %s", req->rest);
		return;
	}
	if (fstat(fd, &sb) || !S_ISREG(sb.st_mode)) {
		close(fd);
		fl_web_fail(req, resp, 404, "no file %s", req->rest);
		return;
	}
	resp->status = 200;
	resp->type = content_type(req->rest);
	resp->fd = fd;
	resp->size = (uint64_t)sb.st_size;
	resp->cacheable = 1;
}
