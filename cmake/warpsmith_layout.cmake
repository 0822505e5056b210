# The install layout's data directory and its mirror in the build tree.
#
# Installed, the programs live in <prefix>/bin and their read-only data (the guidance notes the
# nvidia_docs tool serves, the bench workloads) in <prefix>/share/warpsmith. The programs find the
# data from their own location (harness/core/data_directory.cpp), through WARPSMITH_DATA_FROM_BIN,
# the relative path from the bin directory to the data directory. The build tree gets the same
# shape, build/bin next to build/share/warpsmith holding links into the source tree, so a program
# run from the build tree finds its data by the very same rule.
include(GNUInstallDirs)
if(IS_ABSOLUTE "${CMAKE_INSTALL_BINDIR}" OR IS_ABSOLUTE "${CMAKE_INSTALL_DATADIR}")
    message(FATAL_ERROR "CMAKE_INSTALL_BINDIR and CMAKE_INSTALL_DATADIR must be relative to the prefix "
                        "(the programs find their data relative to themselves)")
endif()
set(WARPSMITH_INSTALL_DATADIR "${CMAKE_INSTALL_DATADIR}/warpsmith")
file(RELATIVE_PATH WARPSMITH_DATA_FROM_BIN "/prefix/${CMAKE_INSTALL_BINDIR}" "/prefix/${WARPSMITH_INSTALL_DATADIR}")

set(warpsmith_build_data "${PROJECT_BINARY_DIR}/bin/${WARPSMITH_DATA_FROM_BIN}")
cmake_path(NORMAL_PATH warpsmith_build_data)
file(MAKE_DIRECTORY "${warpsmith_build_data}")
foreach(link_and_source IN ITEMS "guidance=docs/guidance" "workloads=bench/workloads")
    string(REPLACE "=" ";" pair "${link_and_source}")
    list(GET pair 0 link)
    list(GET pair 1 source)
    file(REMOVE "${warpsmith_build_data}/${link}")
    file(CREATE_LINK "${PROJECT_SOURCE_DIR}/${source}" "${warpsmith_build_data}/${link}" SYMBOLIC)
endforeach()
