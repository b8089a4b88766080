# The tree-sitter Python grammar comes from the npm registry, pinned (DESIGN.md section 3). It is
# fetched at configure time into the build tree with `npm pack`, checked against a known hash,
# unpacked, and its generated C parser is compiled into a static library that core links.
set(TS_PYTHON_VERSION "0.21.0")
set(TS_PYTHON_SHA256 "787841ada211201c4d7b4f4c3115f31bd7e7ed97cc76986b0ef108035ffa7ef2")
set(ts_dir "${CMAKE_BINARY_DIR}/_deps/tree-sitter-python")
set(ts_tgz "${ts_dir}/tree-sitter-python-${TS_PYTHON_VERSION}.tgz")

if(NOT EXISTS "${ts_dir}/package/src/parser.c")
    file(MAKE_DIRECTORY "${ts_dir}")
    if(NOT EXISTS "${ts_tgz}")
        find_program(NPM_EXECUTABLE npm REQUIRED)
        message(STATUS "Fetching tree-sitter-python@${TS_PYTHON_VERSION} with npm")
        execute_process(
            COMMAND "${NPM_EXECUTABLE}" pack "tree-sitter-python@${TS_PYTHON_VERSION}"
                    --pack-destination "${ts_dir}" --silent
            WORKING_DIRECTORY "${ts_dir}"
            RESULT_VARIABLE npm_result
            OUTPUT_QUIET)
        if(NOT npm_result EQUAL 0 OR NOT EXISTS "${ts_tgz}")
            message(FATAL_ERROR "npm pack tree-sitter-python@${TS_PYTHON_VERSION} failed (${npm_result})")
        endif()
    endif()
    file(SHA256 "${ts_tgz}" got)
    if(NOT got STREQUAL TS_PYTHON_SHA256)
        file(REMOVE "${ts_tgz}")
        message(FATAL_ERROR "tree-sitter-python tarball hash mismatch: ${got}")
    endif()
    file(ARCHIVE_EXTRACT INPUT "${ts_tgz}" DESTINATION "${ts_dir}")
endif()

add_library(portolan_ts_python STATIC
    "${ts_dir}/package/src/parser.c"
    "${ts_dir}/package/src/scanner.c")
target_include_directories(portolan_ts_python SYSTEM PUBLIC "${ts_dir}/package/src")
set_target_properties(portolan_ts_python PROPERTIES C_STANDARD 99)
target_compile_options(portolan_ts_python PRIVATE -w)
target_link_libraries(portolan_ts_python PUBLIC PkgConfig::TreeSitter)
