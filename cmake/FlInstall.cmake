# cmake --install: FHS paths under CMAKE_INSTALL_PREFIX (GNUInstallDirs).
#   bin/faultline, bin/fl-agent
#   libexec/faultline/fl-agent-static     a guest's /init (found beside bin/)
#   share/faultline/web                   the pages' templates and static files
#   share/faultline/kernels               kconfig fragments, the demo history
#   share/doc/faultline/examples          example configurations
#   share/man/man1,5,8                    faultline(1), faultline.yaml(5), fl-agent(8)
#   share/bash-completion/completions     faultline, fl-agent
#   lib/systemd/system, lib/sysusers.d    units for watch, serve, fl-agent daemon
# The binaries find web/ and kernels/ relative to their own bin/ (lib/fs.c,
# fl_data_path), so a DESTDIR or a relocated prefix works too.
include(GNUInstallDirs)

install(TARGETS faultline fl-agent RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(TARGETS fl-agent-static RUNTIME DESTINATION ${CMAKE_INSTALL_LIBEXECDIR}/faultline)
install(DIRECTORY web/templates web/static
  DESTINATION ${CMAKE_INSTALL_DATADIR}/faultline/web)
install(DIRECTORY kernels/ DESTINATION ${CMAKE_INSTALL_DATADIR}/faultline/kernels
  USE_SOURCE_PERMISSIONS)
install(FILES configs/example.yaml configs/demo.yaml
  DESTINATION ${CMAKE_INSTALL_DOCDIR}/examples)
install(FILES README.md docs/architecture.md docs/baremetal.md docs/cli.md docs/config.md
  docs/security.md docs/environment.md DESTINATION ${CMAKE_INSTALL_DOCDIR})

# systemd: units with this install's bindir, the dedicated user.
set(FL_BINDIR ${CMAKE_INSTALL_FULL_BINDIR})
set(FL_SYSTEMD_DIR lib/systemd/system CACHE STRING
  "where the systemd units go, under the prefix")
foreach(unit faultline-watch.service faultline-serve.service fl-agent.service)
  configure_file(dist/systemd/${unit}.in ${CMAKE_BINARY_DIR}/dist/${unit} @ONLY)
  install(FILES ${CMAKE_BINARY_DIR}/dist/${unit} DESTINATION ${FL_SYSTEMD_DIR})
endforeach()
install(FILES dist/faultline-sysusers.conf DESTINATION lib/sysusers.d RENAME faultline.conf)
install(FILES dist/fl-agent.default DESTINATION ${CMAKE_INSTALL_DOCDIR}/examples)

# bash completion: one script for both commands, loaded by either name.
install(FILES dist/bash-completion/faultline
  DESTINATION ${CMAKE_INSTALL_DATADIR}/bash-completion/completions)
install(FILES dist/bash-completion/faultline
  DESTINATION ${CMAKE_INSTALL_DATADIR}/bash-completion/completions RENAME fl-agent)
