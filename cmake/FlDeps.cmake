# Finds every library faultline links with through pkg-config. A missing one
# stops the configure step with the Debian package that provides it, which is
# what scripts/install-deps.sh installs.
find_package(PkgConfig REQUIRED)

function(fl_require target module debian_package)
  pkg_check_modules(${target} QUIET IMPORTED_TARGET GLOBAL ${module})
  if(NOT ${target}_FOUND)
    message(FATAL_ERROR
      "faultline needs ${module} (pkg-config module '${module}' not found).\n"
      "On Debian 12: apt-get install ${debian_package}   (or run scripts/install-deps.sh)")
  endif()
  message(STATUS "found ${module} ${${target}_VERSION}")
endfunction()

fl_require(LIBGIT2   libgit2       libgit2-dev)
fl_require(LIBCURL   libcurl       libcurl4-openssl-dev)
fl_require(LIBVIRT   libvirt       libvirt-dev)
fl_require(LIBYAML   yaml-0.1      libyaml-dev)
fl_require(SQLITE3   sqlite3       libsqlite3-dev)
fl_require(LIBPQ     libpq         libpq-dev)
fl_require(MHD       libmicrohttpd libmicrohttpd-dev)
fl_require(JANSSON   jansson       libjansson-dev)
fl_require(ZLIB      zlib          zlib1g-dev)
fl_require(CMOCKA    cmocka        libcmocka-dev)
fl_require(LIBCRYPTO libcrypto     libssl-dev)
fl_require(GMIME     gmime-3.0     libgmime-3.0-dev)

# The results server and the benchmarks run threads.
find_package(Threads REQUIRED)
