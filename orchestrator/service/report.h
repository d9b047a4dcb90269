/*
 * report.h - the regression report: a plain-text mail shaped like the
 * reports kernel developers know from the 0-day/LKP robot, stored in the
 * outbox (outbox.h) by the report step of the watch service.
 *
 * Its subject is the shape kernel developers filter on: "[tree:branch]
 * [subsystem] sha10: benchmark.metric -N% regression" (the subsystem is the
 * culprit subject's first "word:" prefix, fl_report_subsystem). It says:
 * whom a held report would have reached (hold mode, route.h); the change
 * and the metric in its first line, the regression's own (the tag against
 * its baseline, the headline every page shows; the culprit against its
 * parent is a second number, said as such); the culprit commit, its subject and
 * author; the tree, its branch and public URL and the tags compared; the
 * test machine (for kernel machines as the culprit's run saw it: sockets,
 * NUMA nodes, CPUs, memory, accelerator, kernel release), the kernel config
 * and the compiler of that run's build, and the benchmark's parameters; the
 * Reported-by and Closes lines a fixer pastes; compare.c's tables
 * (fl_comparison_text, the comparison the service decided with and
 * "faultline compare" prints) of the culprit against its parent and of the
 * tag against its baseline, with their vmstat and profile sections when the
 * runs carry evidence; the bisection log (each run: commit, samples,
 * verdict, confidence); the revert check or the files it conflicts in; the
 * steps to reproduce on the recipient's machine, with nothing of this host
 * in them (the public URL and shas, the attached .config, a configuration
 * written in the mail for faultline build/run/compare or try, and the plain
 * benchmark command); links to the results pages (report.url +
 * /regression/<id> and /bisect/<id>); the #faultline commands a reply may
 * use (inbox.h). The body is UTF-8 ("±"), sent as such (mail.c:
 * text/plain; charset=UTF-8, 8bit); the build's .config rides along as a
 * text/plain attachment (config-<sha10>).
 *
 * The report is stored and its job marked done in one transaction, so a
 * crash never stores it twice; the outbox sends it once.
 */
#ifndef FL_REPORT_H
#define FL_REPORT_H

#include "store/store.h"

struct fl_service;

/* Renders the report of a regression (caller frees both). */
int fl_report_render(struct fl_service *svc, fl_store *st, int64_t regression_id, char **subject,
		     char **body);
/* The subsystem a commit subject names first: "mm" of "mm: memcontrol: ...";
 * NULL when it names none (caller frees). */
char *fl_report_subsystem(const char *subject);
/* The domain of report.from, for Message-IDs: "localhost" without one (caller frees). */
struct fl_config;
char *fl_report_mail_domain(const struct fl_config *cfg);

#endif
