/*
 * machine-backend.h - the backends behind fl_machine_run(), one file each
 * (see machine.h). Only machine.c calls these; each has fl_machine_run()'s
 * contract for its kind of machine.
 */
#ifndef FL_MACHINE_BACKEND_H
#define FL_MACHINE_BACKEND_H

#include "machine.h"

int fl_machine_command_run(const struct fl_run_req *req, struct fl_run_result *res);

#endif
