# cmake --install BUILD --prefix P, and cpack -G DEB (README.md, "Install").
#
#   P/bin/warpsmith, P/bin/warpsmith-worker      the programs; the CLI starts the worker beside it
#   P/share/warpsmith/guidance/                   the nvidia_docs tool's notes (docs/guidance)
#   P/share/warpsmith/workloads/                  the bench workloads (bench/workloads); a bare name
#                                                 such as `warpsmith tune sgemm` finds them here
#   P/share/doc/warpsmith/                        README.md and docs/
#
# Tests and bench programs are not installed. The programs keep their RUNPATH to the CUDA toolkit
# the build used (CMAKE_INSTALL_RPATH), where libnvrtc is looked for first.
install(TARGETS warpsmith warpsmith-worker RUNTIME DESTINATION "${CMAKE_INSTALL_BINDIR}")
install(DIRECTORY "${PROJECT_SOURCE_DIR}/docs/guidance/" DESTINATION "${WARPSMITH_INSTALL_DATADIR}/guidance")
install(DIRECTORY "${PROJECT_SOURCE_DIR}/bench/workloads/" DESTINATION "${WARPSMITH_INSTALL_DATADIR}/workloads")
install(FILES "${PROJECT_SOURCE_DIR}/README.md" DESTINATION "${CMAKE_INSTALL_DOCDIR}")
install(DIRECTORY "${PROJECT_SOURCE_DIR}/docs/" DESTINATION "${CMAKE_INSTALL_DOCDIR}/docs"
        PATTERN guidance EXCLUDE)

# The .deb. Its Depends come from dpkg-shlibdeps on the installed programs, so they name the
# libraries of the distribution the package is built on (libssl3 or libssl3t64, ...): build it on
# the release it is for. NVRTC is linked but belongs to NVIDIA's CUDA toolkit, which no Debian
# package provides under one name (cuda-nvrtc-13-0, a runfile install, ...): dpkg-shlibdeps finds
# no package for it and CPack tells it to go on (--ignore-missing-info), and the package declares
# no CUDA dependency. README.md says what the target machine needs.
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME warpsmith)
set(CPACK_PACKAGE_VERSION "${PROJECT_VERSION}")
set(CPACK_PACKAGE_CONTACT "warpsmith maintainers <warpsmith@localhost>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "agentic CUDA kernel optimizer (search, NVRTC compile, GPU validation and timing)")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_STRIP_FILES ON)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION devel)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
# The model providers verify HTTPS servers against the system's CA certificates.
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS ca-certificates)
string(CONCAT CPACK_PACKAGE_DESCRIPTION
    "Searches for the fastest CUDA kernel that still computes the right answer: language models or "
    "an autotuner propose kernels, NVRTC compiles them, and a GPU worker validates and times each "
    "one. Needs NVIDIA's CUDA toolkit (libnvrtc and its headers) and driver, which are not Debian "
    "packages.")
include(CPack)
