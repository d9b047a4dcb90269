# Man pages from the docs with pandoc (Debian's pandoc; scripts/install-deps.sh
# installs it): a header in docs/man/NAME.md (NAME, SYNOPSIS, DESCRIPTION),
# the reference it belongs to, and docs/man/NAME.tail.md (FILES, SEE ALSO),
# through
# docs/man/man.lua (the reference's "#" title dropped, its "##" sections
# made .SH). Built into build/man/ and installed to share/man/manN.
find_program(PANDOC pandoc)
if(NOT PANDOC)
  message(WARNING "pandoc not found (Debian package pandoc): no man pages")
  return()
endif()
set(FL_MAN_PAGES "faultline.1:docs/cli.md" "faultline.yaml.5:docs/config.md"
  "fl-agent.8:docs/baremetal.md")
set(FL_MAN_OUTPUTS)
foreach(entry ${FL_MAN_PAGES})
  string(REPLACE ":" ";" parts ${entry})
  list(GET parts 0 page)
  list(GET parts 1 body)
  string(REGEX MATCH "[0-9]$" section ${page})
  set(out ${CMAKE_BINARY_DIR}/man/${page})
  add_custom_command(OUTPUT ${out}
    COMMAND ${CMAKE_COMMAND} -E make_directory ${CMAKE_BINARY_DIR}/man
    COMMAND ${PANDOC} -s -f markdown -t man --lua-filter=docs/man/man.lua
      -M "footer=faultline ${PROJECT_VERSION}" -M date=
      docs/man/${page}.md ${body} docs/man/${page}.tail.md -o ${out}
    DEPENDS docs/man/${page}.md ${body} docs/man/${page}.tail.md docs/man/man.lua
    WORKING_DIRECTORY ${CMAKE_CURRENT_SOURCE_DIR}
    COMMENT "man page ${page}" VERBATIM)
  list(APPEND FL_MAN_OUTPUTS ${out})
  install(FILES ${out} DESTINATION ${CMAKE_INSTALL_MANDIR}/man${section})
endforeach()
add_custom_target(man ALL DEPENDS ${FL_MAN_OUTPUTS})
