# Fails when a file under core/ includes a Qt header, or a file under views/ or app/ includes a
# LibTorch header. Run with -DSOURCE_DIR=<repository root>.
set(qt_pattern "^[ \t]*#[ \t]*include[ \t]*[<\"](Q[A-Za-z0-9_]+|Qt[A-Za-z]*/|qcustomplot)")
set(torch_pattern "^[ \t]*#[ \t]*include[ \t]*[<\"](torch/|ATen/|c10/)")
set(violations "")

function(scan dir pattern what)
    file(GLOB_RECURSE files "${SOURCE_DIR}/${dir}/*.h" "${SOURCE_DIR}/${dir}/*.hpp"
         "${SOURCE_DIR}/${dir}/*.cpp" "${SOURCE_DIR}/${dir}/*.cc" "${SOURCE_DIR}/${dir}/*.c")
    foreach(f IN LISTS files)
        file(STRINGS "${f}" hits REGEX "${pattern}")
        foreach(h IN LISTS hits)
            file(RELATIVE_PATH rel "${SOURCE_DIR}" "${f}")
            string(STRIP "${h}" h)
            list(APPEND violations "${rel}: ${what}: ${h}")
        endforeach()
    endforeach()
    set(violations "${violations}" PARENT_SCOPE)
endfunction()

scan(core "${qt_pattern}" "Qt header in core/")
# The workflow layer sits above the other core libraries (docs/ARCHITECTURE.md, Floors): none of
# them includes its headers.
set(workflow_pattern "^[ \t]*#[ \t]*include[ \t]*[<\"]core/workflow/")
file(GLOB core_dirs LIST_DIRECTORIES true "${SOURCE_DIR}/core/*")
foreach(d IN LISTS core_dirs)
    get_filename_component(name "${d}" NAME)
    if(IS_DIRECTORY "${d}" AND NOT name STREQUAL "workflow")
        scan(core/${name} "${workflow_pattern}" "core/workflow header below the workflow layer")
    endif()
endforeach()
scan(views "${torch_pattern}" "LibTorch header in views/")
scan(app "${torch_pattern}" "LibTorch header in app/")

if(violations)
    list(JOIN violations "\n  " text)
    message(FATAL_ERROR "Include boundary broken (DESIGN.md section 2):\n  ${text}")
endif()
