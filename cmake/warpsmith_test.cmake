# warpsmith_add_test(NAME <name> SOURCES <files...> LIBS <targets...> [GPU] [TIMEOUT <s>]
#                    [LABEL <label> SKIPPABLE])
#
# Every test is a Boost.Test executable run through ctest. A test marked GPU carries the ctest
# label "gpu" and links tests/support/gpu_test_main.cpp, which exits with code 77 when no CUDA
# device is usable; ctest then reports the test as skipped, never as passed. LABEL replaces the
# label "cpu" of the other tests (e.g. "scaleout": tests that start daemons); SKIPPABLE makes exit
# code 77 a skip for a test that checks its own prerequisites.
function(warpsmith_add_test)
    cmake_parse_arguments(T "GPU;SKIPPABLE" "NAME;TIMEOUT;LABEL" "SOURCES;LIBS" ${ARGN})
    add_executable(${T_NAME} ${T_SOURCES})
    target_link_libraries(${T_NAME} PRIVATE ${T_LIBS} warpsmith_test_support warpsmith_options)
    if(T_GPU)
        target_sources(${T_NAME} PRIVATE "${PROJECT_SOURCE_DIR}/tests/support/gpu_test_main.cpp")
    else()
        target_sources(${T_NAME} PRIVATE "${PROJECT_SOURCE_DIR}/tests/support/cpu_test_main.cpp")
    endif()
    set_target_properties(${T_NAME} PROPERTIES RUNTIME_OUTPUT_DIRECTORY "${PROJECT_BINARY_DIR}/tests")
    add_test(NAME ${T_NAME} COMMAND ${T_NAME} --log_level=test_suite
             WORKING_DIRECTORY "${PROJECT_SOURCE_DIR}")
    if(NOT T_TIMEOUT)
        set(T_TIMEOUT 600)
    endif()
    set_tests_properties(${T_NAME} PROPERTIES TIMEOUT ${T_TIMEOUT}
        ENVIRONMENT "WARPSMITH_BIN_DIR=${PROJECT_BINARY_DIR}/bin")
    if(T_GPU)
        set_tests_properties(${T_NAME} PROPERTIES LABELS gpu SKIP_RETURN_CODE 77)
    elseif(T_LABEL)
        set_tests_properties(${T_NAME} PROPERTIES LABELS ${T_LABEL})
    else()
        set_tests_properties(${T_NAME} PROPERTIES LABELS cpu)
    endif()
    if(T_SKIPPABLE)
        set_tests_properties(${T_NAME} PROPERTIES SKIP_RETURN_CODE 77)
    endif()
endfunction()
