# Every dependency comes from a Debian 12 package (packaging/debian-packages.txt).
find_package(PkgConfig REQUIRED)

# Core: LibTorch, yaml-cpp, tree-sitter, nlohmann-json.
find_package(Torch REQUIRED)
find_package(yaml-cpp REQUIRED)
find_package(nlohmann_json 3.10 REQUIRED)
# Large compile reports (1 M variables, ~90 MB) are read with simdjson: DESIGN.md's 1 s target.
find_package(simdjson 3.0 REQUIRED)
pkg_check_modules(TreeSitter REQUIRED IMPORTED_TARGET tree-sitter)
pkg_check_modules(YamlCppPc QUIET yaml-cpp)
set(PORTOLAN_YAMLCPP_VERSION "${YamlCppPc_VERSION}")
if(NOT PORTOLAN_YAMLCPP_VERSION)
    set(PORTOLAN_YAMLCPP_VERSION "${yaml-cpp_VERSION}")
endif()

# LibTorch's version, for --version and Help > About, read here so that core/about does not
# link LibTorch (only portolan-torch does). Its header is the authority; the package version
# of TorchConfigVersion.cmake is the fallback.
set(PORTOLAN_LIBTORCH_VERSION "${Torch_VERSION}")
foreach(dir IN LISTS TORCH_INCLUDE_DIRS)
    if(EXISTS "${dir}/torch/version.h")
        file(STRINGS "${dir}/torch/version.h" torch_version_line REGEX "^[ \t]*\"[0-9.]+")
        if(torch_version_line MATCHES "\"([0-9.]+)\"")
            set(PORTOLAN_LIBTORCH_VERSION "${CMAKE_MATCH_1}")
        endif()
        break()
    endif()
endforeach()

# Torch's imported target carries its own compile flags; wrap it once so that our targets can
# use its headers as SYSTEM headers (their warnings are not ours).
if(NOT TARGET portolan_torch)
    add_library(portolan_torch INTERFACE)
    target_link_libraries(portolan_torch INTERFACE ${TORCH_LIBRARIES})
    target_include_directories(portolan_torch SYSTEM INTERFACE ${TORCH_INCLUDE_DIRS})
    # UBSan's vptr check emits references to the typeinfo of every polymorphic class it sees;
    # Debian's LibTorch does not export RTTI for some (c10::DynamicType), so code that includes
    # Torch headers cannot link with it. Only that code drops vptr; the rest keeps it.
    # Debug info for LibTorch's templates is most of the compile time of a TU that includes
    # <torch/torch.h> (-g: 139 s, -g1: 61 s for core/runtime/trainer.cpp), and about 25 TUs do.
    # In Debug builds those TUs keep line tables and function names (backtraces, sanitizer
    # reports and breakpoints by line still work) but not locals and types; turn
    # PORTOLAN_TORCH_FULL_DEBUG_INFO on to debug inside them.
    option(PORTOLAN_TORCH_FULL_DEBUG_INFO "Full debug info (-g) in Torch-including code" OFF)
    if(NOT PORTOLAN_TORCH_FULL_DEBUG_INFO)
        target_compile_options(portolan_torch INTERFACE $<$<AND:$<CONFIG:Debug>,$<COMPILE_LANGUAGE:CXX>>:-g1>)
    endif()
    if(CMAKE_CXX_FLAGS MATCHES "-fsanitize=[^ ]*(undefined|vptr)")
        target_compile_options(portolan_torch INTERFACE $<$<COMPILE_LANGUAGE:CXX>:-fno-sanitize=vptr>)
    endif()
endif()

# Views and app: Qt 6, QCustomPlot for Qt 6, Graphviz.
find_package(Qt6 6.4 REQUIRED COMPONENTS Core Gui Widgets Svg SvgWidgets Sql Concurrent Test PrintSupport)
find_package(QCustomPlotQt6 QUIET)
if(NOT TARGET QCustomPlotQt6::QCustomPlotQt6)
    find_library(QCUSTOMPLOT_QT6_LIB NAMES qcustomplot-qt6 qcustomplotqt6 REQUIRED)
    add_library(QCustomPlotQt6::QCustomPlotQt6 UNKNOWN IMPORTED)
    set_target_properties(QCustomPlotQt6::QCustomPlotQt6 PROPERTIES IMPORTED_LOCATION "${QCUSTOMPLOT_QT6_LIB}")
endif()
pkg_check_modules(Graphviz REQUIRED IMPORTED_TARGET libgvc libcgraph)
find_package(CLI11 REQUIRED)
