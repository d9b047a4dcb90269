/* store/pg.c - the PostgreSQL backend of the statement layer (see store/sql.h). */
#include "store/sql.h"
#include "lib/error.h"

int fl_pg_open(struct fl_sql **out, const char *url, unsigned flags)
{
	(void)flags;
	*out = NULL;
	return fl_error_set(FL_ESTORE, "store %s: this faultline was built without PostgreSQL", url);
}
