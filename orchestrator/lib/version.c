/* version.c - release names in version order (see version.h). */
#include "lib/version.h"

#include <ctype.h>
#include <stdlib.h>

int fl_version_cmp(const char *a, const char *b)
{
	while (*a && *b) {
		if (isdigit((unsigned char)*a) && isdigit((unsigned char)*b)) {
			unsigned long long x = strtoull(a, (char **)&a, 10);
			unsigned long long y = strtoull(b, (char **)&b, 10);

			if (x != y)
				return x < y ? -1 : 1;
			continue;
		}
		if (*a != *b)
			return (unsigned char)*a < (unsigned char)*b ? -1 : 1;
		a++, b++;
	}
	if (!*a && !*b)
		return 0;
	if (!*a)
		return *b == '-' ? 1 : -1;
	return *a == '-' ? -1 : 1;
}
